//! Splitting on action preconditions: for an action `a(p: P, q: Q)`, the states in which some
//! instance of it is enabled, and those in which none is. Each eligible action becomes a Boolean
//! variable of the model ([`Term::Enabled`]) that [`crate::group`] splits on (its `true` side
//! only: Daikon's splitting also tries the negation, but on Global1 the states where an action
//! is disabled, such as "every ballot is made", gave only artefacts), so that invariants come
//! out as `(∃ p: P, q: Q (pre)) ⇒ P`.
//!
//! The premise is printed from the model's own source text: the signature's `where` clause and,
//! for each transition case of the action, its `where` clause and precondition conjuncts (the
//! cases joined by `∨`), under `∃` over the parameters. It is evaluated in every state by asking
//! the machine whether each instance is enabled, with the parameters ranging over their types'
//! carriers — exactly what the printed `∃` ranges over, so the implication that was checked is
//! the one printed. An action is split on only when that correspondence is exact and cheap:
//!
//! - the automaton is primitive (one instance; a composite's actions are synchronised across
//!   components and hidden by `where` clauses that have no single source text);
//! - the action is not an input (inputs are always enabled);
//! - no parameter is `const` or given its own candidates in the universe (`abstain.B = …`,
//!   narrower than the type), and every parameter type has a carrier, with at most
//!   [`MAX_INSTANCES`] instances in all;
//! - every case binds the parameters under the signature's names and has a `where` clause or a
//!   precondition (otherwise the action is always enabled and splits nothing);
//! - every piece of source text parses back as an expression.

use crate::print::type_expr;
use crate::vars::{Term, VarModel};
use interpreter::machine::{collect_reads, Machine};
use interpreter::value::Value;
use ioa_lang::ast::{ActionKind, BinOp, Expr, ExprKind, Ident, Param, Quantifier};
use ioa_lang::ir::{AutomatonBody, Type, VarRef};
use ioa_lang::source_map::SourceMap;
use ioa_lang::span::{FileId, Span};
use std::sync::Arc;

/// Actions with more instances than this are not split on.
pub const MAX_INSTANCES: usize = 4096;

/// One action split on.
#[derive(Debug, Clone)]
pub struct ActionSplit {
    /// The machine's index of the action.
    pub action: usize,
    /// Its name.
    pub name: String,
    /// `∃ params (where ∧ (pre₁ ∨ pre₂ …))`, as IOA.
    pub premise: Expr,
    /// The state slots the premise reads: an invariant over them alone under this premise
    /// restates (or unfolds) the precondition, see [`crate::suppress`]'s rule 7.
    pub reads: Vec<usize>,
    /// The values of each parameter.
    carriers: Vec<Arc<[Value]>>,
}

impl ActionSplit {
    /// Whether some instance is enabled in `state`; `None` if evaluating a precondition failed
    /// for some instance (the printed `∃` may meet that instance first and fail too, so the
    /// split is abandoned). Every instance is evaluated, for that reason.
    pub fn enabled(&self, machine: &Machine, state: &[Value]) -> Option<bool> {
        let total: usize = self.carriers.iter().map(|c| c.len()).product();
        let mut args = Vec::with_capacity(self.carriers.len());
        let mut any = false;
        for mut index in 0..total {
            args.clear();
            for c in &self.carriers {
                args.push(c[index % c.len()].clone());
                index /= c.len();
            }
            match machine.enabled(state, self.action, &args, false) {
                Ok(Ok(_)) => any = true,
                Ok(Err(_)) => {}
                Err(_) => return None,
            }
        }
        Some(any)
    }
}

/// Adds a Boolean "enabled" variable to `model` for every action of `machine` that can be split
/// on (see the module docs); `sources` holds the model's text.
pub fn add_action_splits(model: &mut VarModel, machine: &Machine, sources: &SourceMap) {
    for split in action_splits(machine, sources) {
        let k = model.actions.len();
        let name = format!("enabled({})", split.name);
        model.actions.push(split);
        let v = model.push(
            machine.spec,
            machine,
            Term::Enabled(k),
            Type::Bool,
            None,
            name,
            vec![],
        );
        model.vars[v].proposes = false;
        model.vars[v].relates = false;
    }
}

/// The actions that can be split on, with their premises.
pub fn action_splits(machine: &Machine, sources: &SourceMap) -> Vec<ActionSplit> {
    if machine.instances.len() != 1 {
        return vec![];
    }
    let spec = machine.spec;
    let aut = &spec.automata[machine.instances[0].automaton.0 as usize];
    let AutomatonBody::Primitive(prim) = &aut.body else {
        return vec![];
    };
    let mut out = Vec::new();
    'actions: for (index, action) in machine.actions.iter().enumerate() {
        let [(0, aid)] = action.members.as_slice() else {
            continue;
        };
        let sig = &aut.actions[aid.0 as usize];
        if sig.kind == ActionKind::Input {
            continue;
        }
        let mut carriers = Vec::new();
        let mut params = Vec::new();
        let mut instances = 1usize;
        for p in &sig.params {
            let own = machine.universe.param_candidates(&action.name, &p.name);
            let carrier = machine.universe.carrier(spec, &p.ty);
            let (None, None, Some(carrier)) = (&p.fixed, own, carrier) else {
                continue 'actions;
            };
            instances = instances.saturating_mul(carrier.len());
            if carrier.is_empty() || instances > MAX_INSTANCES {
                continue 'actions;
            }
            carriers.push(carrier);
            params.push(Param {
                name: ident(&p.name),
                ty: type_expr(spec, &p.ty),
            });
        }
        let names: Vec<&str> = sig.params.iter().map(|p| p.name.as_str()).collect();
        let mut cases = Vec::new();
        let mut reads = Vec::new();
        for t in prim.transitions.iter().filter(|t| t.action == *aid) {
            for e in t.where_clause.iter().chain(&t.pre) {
                collect_reads(e, &mut |r| {
                    if let VarRef::State(s) = r {
                        reads.push(*s as usize);
                    }
                });
            }
            let bound = t.local_names.iter().take(names.len()).map(String::as_str);
            if !t.const_args.is_empty() || !bound.eq(names.iter().copied()) {
                continue 'actions;
            }
            let mut parts = Vec::new();
            for e in t.where_clause.iter().chain(&t.pre) {
                let Some(p) = source_expr(sources, e.span) else {
                    continue 'actions;
                };
                parts.push(p);
            }
            let Some(case) = parts.into_iter().reduce(|a, b| bin(BinOp::And, a, b)) else {
                // A case without a guard: the action is always enabled.
                continue 'actions;
            };
            cases.push(case);
        }
        let Some(mut body) = cases.into_iter().reduce(|a, b| bin(BinOp::Or, a, b)) else {
            continue;
        };
        reads.sort_unstable();
        reads.dedup();
        if let Some(w) = &sig.where_clause {
            let Some(w) = source_expr(sources, w.span) else {
                continue;
            };
            body = bin(BinOp::And, w, body);
        }
        let premise = if params.is_empty() {
            body
        } else {
            mk(ExprKind::Quant(Quantifier::Exists, params, Box::new(body)))
        };
        out.push(ActionSplit {
            action: index,
            name: action.name.clone(),
            premise,
            reads,
            carriers,
        });
    }
    out
}

/// The expression a span of the model covers, parsed again.
fn source_expr(sources: &SourceMap, span: Span) -> Option<Expr> {
    let text = sources.snippet(span);
    if text.trim().is_empty() {
        return None;
    }
    ioa_lang::parse::parse_expr(FileId(0), text).ok()
}

fn mk(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::default(),
    }
}

fn ident(n: &str) -> Ident {
    Ident {
        name: n.to_string(),
        span: Span::default(),
    }
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    mk(ExprKind::Binary(op, Box::new(a), Box::new(b)))
}
