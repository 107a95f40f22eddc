//! A group of candidates that see the same samples: the unconditional group sees every sample;
//! a conditional group (`--split`, Daikon's splitting) sees only the sample positions where a
//! Boolean or enumeration variable has one value, and its invariants are printed as
//! implications (`∀ i: Pid (pc[i] = critical ⇒ flag[i] = true)`).
//!
//! With action splitting, the conditions are also "some instance of action `a` is enabled"
//! ([`crate::preconditions`]); under them, only unary invariants and relations between sets and
//! other non-numeric values are proposed (order and linear relations between numbers under such
//! a condition were, on Global1, artefacts of how long the runs were).
//!
//! Under a condition, a position also counts as changed when the condition has just become
//! true there: the candidate sees values it has not seen under the condition before. Positions
//! where a variable is absent (a map lacking the key) are not looked at.

use crate::candidates::{self, GrammarOptions};
use crate::frame::Cell;
use crate::invariant::{Condition, Finding, Witness};
use crate::track::unary::UnaryStats;
use crate::track::{Pair, Tracker};
use crate::vars::{compatible, Term, VarId, VarModel};
use interpreter::value::Value;
use ioa_lang::ir::Type;

/// At most this many conditions on variables are split on (and as many on actions).
pub const MAX_CONDITIONS: usize = 64;

/// A variable is split on only if its type has at most this many values.
pub const MAX_CONDITION_VALUES: usize = 12;

/// Candidates under one condition (or none).
#[derive(Debug, Clone)]
pub struct Group {
    /// The premise, if any.
    pub condition: Option<Condition>,
    /// Which variables take part.
    allowed: Vec<bool>,
    unary: Vec<UnaryStats>,
    pairs: Vec<Pair>,
    /// Whether the condition held at each of its positions in the previous state of the run.
    before: Vec<bool>,
    /// Whether it holds now.
    now: Vec<bool>,
}

impl Group {
    /// The group of every sample.
    pub fn unconditional(model: &VarModel, grammar: GrammarOptions) -> Group {
        Group::new(model, grammar, None)
    }

    /// The groups of every condition worth splitting on: with `grammar.split`, each value of
    /// each Boolean or enumeration state variable or array element; with
    /// `grammar.split_actions`, each action split's two values.
    pub fn conditional(model: &VarModel, grammar: GrammarOptions) -> Vec<Group> {
        let mut out = Vec::new();
        for (v, var) in model.vars.iter().enumerate() {
            if let Term::Enabled(_) = var.term {
                if grammar.split_actions && out.len() < 2 * MAX_CONDITIONS {
                    let value = Value::Bool(true);
                    let condition = Some(Condition { var: v, value });
                    out.push(Group::new(model, grammar, condition));
                }
                continue;
            }
            let finite = var.ty == Type::Bool || (var.enumeration && var.carrier.is_some());
            if !grammar.split || !finite || var.is_derived() || !var.proposes {
                continue;
            }
            let values: Vec<Value> = match &var.ty {
                Type::Bool => vec![Value::Bool(false), Value::Bool(true)],
                Type::Named(id) => (0..var.carrier.unwrap_or(0) as u32)
                    .map(|k| Value::Enum(*id, k))
                    .collect(),
                _ => vec![],
            };
            if values.len() > MAX_CONDITION_VALUES {
                continue;
            }
            for value in values {
                if out.len() >= MAX_CONDITIONS {
                    break;
                }
                out.push(Group::new(
                    model,
                    grammar,
                    Some(Condition { var: v, value }),
                ));
            }
        }
        out
    }

    fn new(model: &VarModel, grammar: GrammarOptions, condition: Option<Condition>) -> Group {
        let space = condition.as_ref().and_then(|c| model.vars[c.var].index);
        let width = condition.as_ref().map(|c| model.width(c.var)).unwrap_or(1);
        let allowed: Vec<bool> = (0..model.vars.len())
            .map(|v| {
                let var = &model.vars[v];
                // Key sets and their sizes bring their own quantifier over the index type,
                // which would shadow an indexed condition's.
                let keyed =
                    var.is_keyed() || matches!(var.term, Term::Size(s) if model.vars[s].is_keyed());
                match &condition {
                    None => var.proposes,
                    Some(c) => {
                        var.proposes
                            && v != c.var
                            && compatible(var.index, space)
                            && !(keyed && space.is_some())
                    }
                }
            })
            .collect();
        let on_action = condition
            .as_ref()
            .is_some_and(|c| matches!(model.vars[c.var].term, Term::Enabled(_)));
        let pairs = candidates::pairs(model, grammar)
            .into_iter()
            .filter(|p| allowed[p.a] && allowed[p.b])
            .filter(|p| {
                !(on_action && matches!(p.tracker, Tracker::Compare(_) | Tracker::Linear(_)))
            })
            .filter(|p| compatible(model.vars[p.a].index.or(model.vars[p.b].index), space))
            .collect();
        Group {
            condition,
            allowed,
            unary: vec![UnaryStats::default(); model.vars.len()],
            pairs,
            before: vec![false; width],
            now: vec![true; width],
        }
    }

    /// The number of pair trackers.
    pub fn pair_count(&self) -> usize {
        self.pairs.len()
    }

    /// Starts a new run: the condition held nowhere before its start state.
    pub fn restart(&mut self) {
        self.before.iter_mut().for_each(|b| *b = false);
    }

    /// Evaluates the condition in the current state.
    pub fn evaluate(&mut self, cells: &[Cell]) {
        if let Some(c) = &self.condition {
            let cell = &cells[c.var];
            for (k, now) in self.now.iter_mut().enumerate() {
                *now = !cell.absent_at(k) && *cell.at(k) == c.value;
            }
        }
    }

    /// Moves past a state (after [`Group::evaluate`]) without sampling it.
    pub fn skip(&mut self) {
        self.before.copy_from_slice(&self.now);
    }

    /// Takes one sample (after [`Group::evaluate`]): `witness(vars, k)` describes position `k`.
    pub fn sample(&mut self, cells: &[Cell], witness: &dyn Fn(&[VarId], usize) -> Witness) {
        let cw = self.now.len();
        let (now, before) = (&self.now, &self.before);
        // Position k of a variable or pair maps to position `at(k)` of the condition.
        let at = |k: usize| if cw == 1 { 0 } else { k };
        let entered = |k: usize| now[at(k)] && !before[at(k)];
        for (v, stats) in self.unary.iter_mut().enumerate() {
            if !self.allowed[v] {
                continue;
            }
            let cell = &cells[v];
            let width = cell.values.len().max(cw);
            // Fast path: one condition position (or none) that held before and holds now, so
            // only positions that changed matter, and none did if the cell did not change.
            if cw == 1 && now[0] && before[0] && cell.absent.is_empty() {
                stats.count(width);
                if cell.any {
                    for k in 0..width {
                        if cell.modified_at(k) {
                            stats.observe(cell.at(k), &|| witness(&[v], k));
                        }
                    }
                }
                continue;
            }
            for k in 0..width {
                if !now[at(k)] || cell.absent_at(k) {
                    continue;
                }
                stats.count(1);
                if cell.modified_at(k) || entered(k) {
                    stats.observe(cell.at(k), &|| witness(&[v], k));
                }
            }
        }
        for pair in &mut self.pairs {
            let (ca, cb) = (&cells[pair.a], &cells[pair.b]);
            if !pair.alive() {
                continue;
            }
            if cw == 1 && (!now[0] || before[0]) && !ca.any && !cb.any {
                continue;
            }
            let width = ca.values.len().max(cb.values.len()).max(cw);
            for k in 0..width {
                if !now[at(k)] || ca.absent_at(k) || cb.absent_at(k) {
                    continue;
                }
                if ca.modified_at(k) || cb.modified_at(k) || entered(k) {
                    let vars = [pair.a, pair.b];
                    pair.observe(ca.at(k), cb.at(k), &|| witness(&vars, k));
                    if !pair.alive() {
                        break;
                    }
                }
            }
        }
        self.before.copy_from_slice(&self.now);
    }

    /// The group's candidates, each carrying the group's condition.
    pub fn findings(&self, model: &VarModel, confidence: f64) -> Vec<Finding> {
        let mut out = Vec::new();
        for (v, stats) in self.unary.iter().enumerate() {
            if self.allowed[v] {
                out.extend(stats.findings(model, v, confidence));
            }
        }
        for pair in &self.pairs {
            out.extend(pair.findings(confidence));
        }
        for f in &mut out {
            f.invariant.condition = self.condition.clone();
        }
        out
    }
}
