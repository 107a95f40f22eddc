//! Per-action pre/post facts: how each action changes the state, Daikon's `x = orig(x)`-style
//! invariants at an action's exit, printed with IOA's primed names (`x'` is `x` after the step).
//!
//! For every action and every state variable, array element and size, the detector follows
//! every distinct step `(pre-state, action, post-state)` of the runs and keeps what held in all
//! of them: the variable is unchanged; a number moved by a constant (`x' = x + 1`) or only up
//! (`x ≤ x'`) or down; a set only grew (`A ⊆ A'`) or shrank (`A' ⊆ A`); a `Null` value changed
//! only from `nil` (`val[b] ≠ nil ⇒ val'[b] = val[b]`: written once). A size is reported
//! only with a constant change (its monotony follows from its set's). An action's facts are
//! reported once it was seen in enough distinct steps that they are unlikely to hold by
//! accident (`0.5^n` below `1 − confidence`, as for relations in [`crate::justify`]).

use crate::frame::Frame;
use crate::vars::{Shape, Term, VarId, VarModel};
use interpreter::machine::Machine;
use interpreter::trace::Trace;
use interpreter::universe::type_text;
use interpreter::value::Value;
use rustc_hash::FxHashSet;
use serde::Serialize;

/// What held so far for one variable over one action's steps.
#[derive(Debug, Clone)]
struct Track {
    unchanged: bool,
    grows: bool,
    shrinks: bool,
    /// The constant difference `post − pre` of a number, `None` before the first step.
    diff: Option<i64>,
    diff_constant: bool,
    /// Whether every change of a `Null` value was from `nil` (it is written once).
    from_nil: bool,
}

impl Default for Track {
    fn default() -> Self {
        Track {
            unchanged: true,
            grows: true,
            shrinks: true,
            diff: None,
            diff_constant: true,
            from_nil: true,
        }
    }
}

impl Track {
    fn observe(&mut self, pre: &Value, post: &Value) {
        if pre == post {
            self.see_diff(0);
            return;
        }
        self.unchanged = false;
        self.from_nil &= *pre == Value::Nil;
        match (pre, post) {
            (Value::Int(a), Value::Int(b)) => {
                self.grows &= b >= a;
                self.shrinks &= b <= a;
                self.see_diff(b.wrapping_sub(*a));
            }
            (Value::Set(a), Value::Set(b)) => {
                self.grows &= a.is_subset(b);
                self.shrinks &= b.is_subset(a);
            }
            _ => {
                self.grows = false;
                self.shrinks = false;
            }
        }
    }

    fn see_diff(&mut self, d: i64) {
        match self.diff {
            None => self.diff = Some(d),
            Some(c) if c != d => self.diff_constant = false,
            _ => {}
        }
    }
}

/// The facts found for one action.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ActionFacts {
    /// The action with its parameter names (`grab(i)`).
    pub action: String,
    /// Distinct steps of it seen.
    pub steps: u64,
    /// The chance that its facts held by accident (`0.5^steps`).
    pub probability: f64,
    /// Whether that chance is below `1 − confidence` (otherwise no facts are given).
    pub justified: bool,
    /// Pre/post relations of variables it changes, as IOA with primed post-state names.
    pub facts: Vec<String>,
    /// The variables it never changed.
    pub unchanged: Vec<String>,
}

/// Follows the steps of one machine's runs, per action.
pub struct Transitions<'m> {
    model: &'m VarModel,
    /// The variables followed, and how each is written after the step.
    vars: Vec<(VarId, Post)>,
    /// `tracks[action][k]` follows `vars[k]`.
    tracks: Vec<Vec<Track>>,
    steps: Vec<u64>,
    labels: Vec<String>,
    seen: FxHashSet<(u64, u64, usize)>,
    frame: Frame,
    index_types: Vec<String>,
}

/// How a followed variable is printed before and after a step.
#[derive(Debug, Clone)]
struct Post {
    pre: String,
    post: String,
    /// The index space it is quantified over, if an element.
    index: Option<usize>,
    /// Whether it is a size (reported only with a constant change).
    size: bool,
    numeric: bool,
    set: bool,
    /// Whether its type is `Null[T]`.
    null: bool,
}

impl<'m> Transitions<'m> {
    /// Pre/post tracking for `machine`'s actions over `model`'s state variables, array
    /// elements and their sizes.
    pub fn new(machine: &Machine, model: &'m VarModel) -> Self {
        let mut vars = Vec::new();
        for (v, var) in model.vars.iter().enumerate() {
            let primed = |t: &Term| match t {
                Term::Slot(s) => Some(format!("{}'", model.slot_names[*s])),
                // A map element may be absent; its pre/post values are not compared.
                Term::Elem(s) if matches!(model.slot_types[*s], ioa_lang::ir::Type::Map(..)) => {
                    None
                }
                Term::Elem(s) => {
                    let k = var.index.expect("elements are indexed");
                    Some(format!(
                        "{}'[{}]",
                        model.slot_names[*s], model.indices[k].var_name
                    ))
                }
                _ => None,
            };
            let post = match &var.term {
                Term::Slot(_) | Term::Elem(_) => primed(&var.term),
                Term::Size(input) => primed(&model.vars[*input].term).map(|p| format!("size({p})")),
                _ => None,
            };
            let Some(post) = post else { continue };
            vars.push((
                v,
                Post {
                    pre: var.name.clone(),
                    post,
                    index: var.index,
                    size: matches!(var.term, Term::Size(_)),
                    numeric: var.shape == Shape::Numeric,
                    set: matches!(var.shape, Shape::Set(_)),
                    null: matches!(var.ty, ioa_lang::ir::Type::Null(_)),
                },
            ));
        }
        let labels = machine
            .actions
            .iter()
            .map(|a| {
                if a.param_names.is_empty() {
                    a.name.clone()
                } else {
                    format!("{}({})", a.name, a.param_names.join(", "))
                }
            })
            .collect();
        let n = machine.actions.len();
        Transitions {
            model,
            tracks: vec![vec![Track::default(); vars.len()]; n],
            vars,
            steps: vec![0; n],
            labels,
            seen: FxHashSet::default(),
            frame: Frame::new(model),
            index_types: model
                .indices
                .iter()
                .map(|s| type_text_of(machine, &s.ty))
                .collect(),
        }
    }

    /// Feeds one run's steps.
    pub fn add_trace(&mut self, trace: &Trace) {
        self.frame.restart();
        let mut before: Vec<Vec<Value>> = Vec::new();
        let mut before_fp = 0;
        for (k, state) in trace.states.iter().enumerate() {
            self.frame.update(self.model, state);
            let fp = self.frame.fingerprint();
            if k > 0 {
                let action = trace.steps[k - 1].action;
                if self.seen.insert((before_fp, fp, action)) {
                    self.steps[action] += 1;
                    for (t, (v, _)) in self.vars.iter().enumerate() {
                        let cell = &self.frame.cells[*v];
                        for (pre, post) in before[t].iter().zip(&cell.values) {
                            self.tracks[action][t].observe(pre, post);
                        }
                    }
                }
            }
            before = self
                .vars
                .iter()
                .map(|(v, _)| self.frame.cells[*v].values.clone())
                .collect();
            before_fp = fp;
        }
    }

    /// Every action's facts, in the machine's action order.
    pub fn facts(&self, confidence: f64) -> Vec<ActionFacts> {
        let mut out = Vec::new();
        for (a, tracks) in self.tracks.iter().enumerate() {
            let steps = self.steps[a];
            let probability = 0.5f64.powi(steps.min(i32::MAX as u64) as i32);
            let justified = steps > 0 && probability < 1.0 - confidence;
            let mut facts = Vec::new();
            let mut unchanged = Vec::new();
            if justified {
                for ((_, p), t) in self.vars.iter().zip(tracks) {
                    if t.unchanged {
                        if !p.size {
                            unchanged.push(p.pre.clone());
                        }
                        continue;
                    }
                    let fact = if p.numeric && t.diff_constant {
                        let c = t.diff.unwrap_or(0);
                        let sign = if c < 0 { '−' } else { '+' };
                        Some(format!(
                            "{} = {} {sign} {}",
                            p.post,
                            p.pre,
                            c.unsigned_abs()
                        ))
                    } else if p.size {
                        None
                    } else if p.numeric && t.grows {
                        Some(format!("{} ≤ {}", p.pre, p.post))
                    } else if p.numeric && t.shrinks {
                        Some(format!("{} ≤ {}", p.post, p.pre))
                    } else if p.set && t.grows {
                        Some(format!("{} ⊆ {}", p.pre, p.post))
                    } else if p.set && t.shrinks {
                        Some(format!("{} ⊆ {}", p.post, p.pre))
                    } else if p.null && t.from_nil {
                        Some(format!("{} ≠ nil ⇒ {} = {}", p.pre, p.post, p.pre))
                    } else {
                        None
                    };
                    if let Some(f) = fact {
                        facts.push(match p.index {
                            Some(k) => format!(
                                "∀ {}: {} ({f})",
                                self.model.indices[k].var_name, self.index_types[k]
                            ),
                            None => f,
                        });
                    }
                }
            }
            out.push(ActionFacts {
                action: self.labels[a].clone(),
                steps,
                probability,
                justified,
                facts,
                unchanged,
            });
        }
        out
    }
}

fn type_text_of(machine: &Machine, ty: &ioa_lang::ir::Type) -> String {
    type_text(machine.spec, ty)
}

/// The facts as `%` comment lines, to follow the invariant declarations.
pub fn facts_text(facts: &[ActionFacts], confidence: f64) -> String {
    let mut out = String::from(
        "\n% Pre/post facts of each action (x' is x after the step), over distinct steps:\n",
    );
    for f in facts {
        if !f.justified {
            out.push_str(&format!(
                "% {}: {} distinct step(s), too few to report (0.5^{} = {:.3} is not below {:.3})\n",
                f.action,
                f.steps,
                f.steps,
                f.probability,
                1.0 - confidence
            ));
            continue;
        }
        out.push_str(&format!("% {}: {} distinct step(s)\n", f.action, f.steps));
        for fact in &f.facts {
            out.push_str(&format!("%   {fact}\n"));
        }
        if !f.unchanged.is_empty() {
            out.push_str(&format!("%   unchanged: {}\n", f.unchanged.join(", ")));
        }
    }
    out
}
