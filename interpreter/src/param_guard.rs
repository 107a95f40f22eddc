//! Parameters bound by a precondition: when an action's precondition starts with `x ∈ S`, where
//! `x` is one of its parameters and `S` reads no parameter, only the instances whose `x` is in
//! `S` can be enabled. Explorers enumerate every action instance in every state; evaluating `S`
//! once per state and skipping the other instances saves evaluating their preconditions one by
//! one (in the GROOVE-vs-SPIN Paxos model, most `onAccept(a, m)` and `onLearn(m)` instances are
//! excluded by `m ∈ accepts`).
//!
//! The filter is exact, not an approximation: an instance it skips is one whose precondition's
//! *first* conjunct is false, which `Machine::enabled` would report as disabled after evaluating
//! that conjunct and nothing else (so no error it could raise is hidden). That is why the guard
//! must be the first conjunct of the only transition case, with no `where` clause or `const`
//! arguments before it.

use crate::eval::may_read_local;
use crate::machine::Machine;
use crate::value::Value;
use ioa_lang::ast::ActionKind;
use ioa_lang::ir::{AutomatonBody, BinOp, Expr, ExprKind, VarRef};

/// An action's parameter bound by the first conjunct of its precondition.
#[derive(Debug, Clone)]
pub struct ParamGuard<'s> {
    /// The machine instance whose state the collection reads.
    instance: usize,
    /// Which parameter (position in the action's parameter list).
    pub param: usize,
    /// The collection `S` of `param ∈ S`.
    collection: &'s Expr,
}

/// The collection a guard allows in one state.
pub enum Allowed {
    /// Only the values in this set, multiset or sequence.
    Within(Value),
    /// Every value (the collection could not be evaluated: let `enabled` report why).
    Any,
}

impl Allowed {
    /// Whether instances with this parameter value may be enabled.
    pub fn admits(&self, v: &Value) -> bool {
        match self {
            Allowed::Any => true,
            Allowed::Within(Value::Set(s)) => s.contains(v),
            Allowed::Within(Value::Mset(m)) => m.contains_key(v),
            Allowed::Within(Value::Seq(s)) => s.iter().any(|x| x == v),
            Allowed::Within(_) => true,
        }
    }
}

impl<'s> Machine<'s> {
    /// The guard of `action`, if its precondition starts with `param ∈ S` as described in the
    /// module documentation.
    pub fn param_guard(&self, action: usize) -> Option<ParamGuard<'s>> {
        let a = &self.actions[action];
        if a.kind == ActionKind::Input {
            return None;
        }
        let [(instance, aid)] = a.members[..] else {
            return None;
        };
        let automaton = &self.spec.automata[self.instances[instance].automaton.0 as usize];
        let sig = &automaton.actions[aid.0 as usize];
        if sig.where_clause.is_some() || sig.params.iter().any(|p| p.fixed.is_some()) {
            return None;
        }
        let AutomatonBody::Primitive(prim) = &automaton.body else {
            return None;
        };
        let mut cases = prim.transitions.iter().filter(|t| t.action == aid);
        let (Some(t), None) = (cases.next(), cases.next()) else {
            return None;
        };
        if !t.const_args.is_empty() || t.where_clause.is_some() {
            return None;
        }
        let ExprKind::Binary(BinOp::In, x, collection) = &t.pre.first()?.kind else {
            return None;
        };
        let ExprKind::Var(VarRef::Local(param)) = x.kind else {
            return None;
        };
        if param as usize >= sig.params.len() || may_read_local(collection, |_| true) {
            return None;
        }
        Some(ParamGuard {
            instance,
            param: param as usize,
            collection,
        })
    }

    /// What `guard` allows in `state`.
    pub fn allowed(&self, state: &[Value], guard: &ParamGuard) -> Allowed {
        match self.eval_in_instance(guard.instance, state, guard.collection) {
            Ok(v @ (Value::Set(_) | Value::Mset(_) | Value::Seq(_))) => Allowed::Within(v),
            _ => Allowed::Any,
        }
    }
}
