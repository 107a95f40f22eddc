//! Where an instance leaf instantiates the quantified invariants of Z3's core: at the ground
//! terms that E-matching would use. An invariant `∀ k: Int (… F[k] …)` is given at an action
//! parameter `p` only when the transition case reads or writes `F[p]` for a state variable `F`
//! that `k` indexes, and a sequence's position 1 (the head of its tail) only when the case takes
//! the tail of `F[p]`. Instances at every parameter make `auto` split on conditional facts that
//! cannot matter (LCR's `receive` at the channel: a dozen `QueueHoldsOwnOrMax` instances where
//! two are needed), which costs it tens of seconds.

use super::effect::{exprs_of, nested};
use super::expr::walk;
use ioa_lang::ir::{Builtin, Expr, ExprKind, PlaceStep, Stmt, StmtKind, Transition, VarRef};
use std::collections::BTreeSet;

/// The state variables a transition case indexes by its parameters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CaseTerms {
    /// (state slot, parameter position): the case reads or writes `F[p]`.
    pub indexed: BTreeSet<(u32, usize)>,
    /// (state slot, parameter position): the case takes the tail of the sequence `F[p]`.
    pub popped: BTreeSet<(u32, usize)>,
}

impl CaseTerms {
    /// Of transition `t`, whose first `n_params` locals are the action's parameters.
    pub fn of(t: &Transition, n_params: usize) -> CaseTerms {
        let mut out = CaseTerms::default();
        let mut exprs: Vec<&Expr> = t.const_args.iter().map(|(_, e)| e).collect();
        exprs.extend(t.where_clause.iter());
        exprs.extend(t.pre.iter());
        let mut stack: Vec<&Stmt> = t.eff.iter().collect();
        while let Some(s) = stack.pop() {
            exprs.extend(exprs_of(s));
            stack.extend(nested(s));
            if let StmtKind::Assign { target, .. } = &s.kind {
                if let (VarRef::State(slot), Some(PlaceStep::Index(i))) =
                    (&target.root, target.path.first())
                {
                    if let Some(p) = param(i, n_params) {
                        out.indexed.insert((*slot, p));
                    }
                }
            }
        }
        for e in exprs {
            walk(e, &mut |e| match &e.kind {
                ExprKind::Index(a, i) => {
                    if let (Some(slot), Some(p)) = (state_slot(a), param(i, n_params)) {
                        out.indexed.insert((slot, p));
                    }
                }
                ExprKind::Call(Builtin::Tail, args) => {
                    if let Some(ExprKind::Index(a, i)) = args.first().map(|a| &a.kind) {
                        if let (Some(slot), Some(p)) = (state_slot(a), param(i, n_params)) {
                            out.popped.insert((slot, p));
                        }
                    }
                }
                _ => {}
            });
        }
        out
    }

    /// The parameters at which the case reads or writes one of `slots`, in order.
    pub fn params_indexing(&self, slots: &BTreeSet<u32>) -> Vec<usize> {
        params_of(&self.indexed, slots)
    }

    /// The parameters at which the case takes the tail of one of `slots`, in order.
    pub fn params_popping(&self, slots: &BTreeSet<u32>) -> Vec<usize> {
        params_of(&self.popped, slots)
    }
}

fn params_of(pairs: &BTreeSet<(u32, usize)>, slots: &BTreeSet<u32>) -> Vec<usize> {
    let ps: BTreeSet<usize> = pairs
        .iter()
        .filter(|(s, _)| slots.contains(s))
        .map(|(_, p)| *p)
        .collect();
    ps.into_iter().collect()
}

/// The state variables each binder of `∀ k0 … kn (…)` indexes in `body` (`F[k0]`), binder by
/// binder; `None` when `body` is not a universal quantifier.
pub fn binder_slots(body: &Expr) -> Option<Vec<BTreeSet<u32>>> {
    let ExprKind::Quant(ioa_lang::ast::Quantifier::ForAll, binders, inner) = &body.kind else {
        return None;
    };
    let mut slots = vec![BTreeSet::new(); binders.len()];
    walk(inner, &mut |e| {
        if let ExprKind::Index(a, i) = &e.kind {
            if let (Some(slot), ExprKind::Var(VarRef::Local(l))) = (state_slot(a), &i.kind) {
                if let Some(b) = binders.iter().position(|(id, _)| id == l) {
                    slots[b].insert(slot);
                }
            }
        }
    });
    Some(slots)
}

fn state_slot(e: &Expr) -> Option<u32> {
    match &e.kind {
        ExprKind::Var(VarRef::State(s)) => Some(*s),
        _ => None,
    }
}

fn param(e: &Expr, n_params: usize) -> Option<usize> {
    match &e.kind {
        ExprKind::Var(VarRef::Local(l)) if (*l as usize) < n_params => Some(*l as usize),
        _ => None,
    }
}
