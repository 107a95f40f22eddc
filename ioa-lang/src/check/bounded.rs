//! Whether a set comprehension `{x: T | P}` can be executed: the interpreter builds the set by
//! trying every value of `T`, so `T` must be a type some universe can make finite, or `P`
//! must start with a bound guard `x ∈ S` that names the candidates. The prover needs neither
//! (it states the set as a predicate), but a model that only proves and never runs is not the
//! toolkit's model of a specification, so the rule is checked once, here.

use super::Checker;
use crate::ir::{BinOp, Expr, ExprKind, Type, TypeDefKind, VarRef};

impl Checker {
    /// Whether the values of `ty` can be listed: Booleans and enumerations always; integers,
    /// tuples and unions of such when a universe lists the integers; sets, arrays and `Null`
    /// of such. Strings, characters, reals, sequences, multisets and maps never are.
    pub(super) fn can_be_bounded(&self, ty: &Type) -> bool {
        self.can_be_bounded_within(ty, 0)
    }

    fn can_be_bounded_within(&self, ty: &Type, depth: usize) -> bool {
        if depth > 32 {
            return false;
        }
        let inner = |t: &Type| self.can_be_bounded_within(t, depth + 1);
        match ty {
            Type::Bool | Type::Int | Type::Nat => true,
            Type::Set(e) | Type::Null(e) => inner(e),
            Type::Array(k, v) => inner(k) && inner(v),
            Type::Named(id) => match &self.spec.types[id.0 as usize].kind {
                TypeDefKind::Enumeration(_) => true,
                TypeDefKind::Tuple(fields) | TypeDefKind::Union(fields) => {
                    fields.iter().all(|(_, t)| inner(t))
                }
            },
            Type::String
            | Type::Char
            | Type::Real
            | Type::Seq(_)
            | Type::Mset(_)
            | Type::Map(..)
            | Type::Infer(_) => false,
        }
    }
}

/// Whether `cond` is `x ∈ S` or starts with the conjunct `x ∈ S` (`x` the local `slot`), so
/// that executing the comprehension only tries the elements of `S`.
pub(super) fn has_bound_guard(cond: &Expr, slot: u32) -> bool {
    match &cond.kind {
        ExprKind::Binary(BinOp::In, x, _) => {
            matches!(x.kind, ExprKind::Var(VarRef::Local(s)) if s == slot)
        }
        ExprKind::Binary(BinOp::And, first, _) => has_bound_guard(first, slot),
        _ => false,
    }
}
