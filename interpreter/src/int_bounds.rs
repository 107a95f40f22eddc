//! Integer ranges read off guards: `lo ≤ x ∧ x < hi` bounds `x` to `lo ..= hi - 1`.
//!
//! Quantifiers (`∀ i: Int (0 ≤ i ∧ i < n ⇒ …)`) and component families
//! (`P[i: Int]: Process(i, n) where 0 ≤ i ∧ i < n`) over `Int` need no universe when their guard
//! bounds the variable on both sides: the range is the carrier.

use crate::error::EvalResult;
use ioa_lang::ir::{BinOp, Expr, ExprKind, VarRef};

/// The top-level conjuncts of `e`, left to right.
pub fn conjuncts(e: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    split_and(e, &mut out);
    out
}

fn split_and<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Binary(BinOp::And, a, b) => {
            split_and(a, out);
            split_and(b, out);
        }
        _ => out.push(e),
    }
}

/// A conjunct that bounds local `slot`, normalised to `slot OP bound`.
pub fn bound_of(conjunct: &Expr, slot: u32) -> Option<(BinOp, &Expr)> {
    let is_var = |e: &Expr| matches!(e.kind, ExprKind::Var(VarRef::Local(s)) if s == slot);
    let ExprKind::Binary(op, a, b) = &conjunct.kind else {
        return None;
    };
    if is_var(a) && !crate::eval::may_read_local(b, |s| s == slot) {
        return Some((*op, b));
    }
    if is_var(b) && !crate::eval::may_read_local(a, |s| s == slot) {
        let flipped = match op {
            BinOp::Lt => BinOp::Gt,
            BinOp::Le => BinOp::Ge,
            BinOp::Gt => BinOp::Lt,
            BinOp::Ge => BinOp::Le,
            BinOp::Eq => BinOp::Eq,
            _ => return None,
        };
        return Some((flipped, a));
    }
    None
}

/// The inclusive range the conjuncts allow for local `slot`, with `int` evaluating a bound;
/// `None` unless some conjunct bounds it from below (or `nat`) and some from above.
pub fn range(
    conjuncts: &[&Expr],
    slot: u32,
    nat: bool,
    int: &mut dyn FnMut(&Expr) -> EvalResult<Option<i64>>,
) -> EvalResult<Option<(i64, i64)>> {
    let mut low: Option<i64> = nat.then_some(0);
    let mut high: Option<i64> = None;
    for c in conjuncts {
        let Some((op, bound)) = bound_of(c, slot) else {
            continue;
        };
        if !matches!(
            op,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq
        ) {
            continue;
        }
        let Some(v) = int(bound)? else {
            continue;
        };
        match op {
            BinOp::Lt => high = Some(high.map_or(v - 1, |h| h.min(v - 1))),
            BinOp::Le => high = Some(high.map_or(v, |h| h.min(v))),
            BinOp::Gt => low = Some(low.map_or(v + 1, |l| l.max(v + 1))),
            BinOp::Ge => low = Some(low.map_or(v, |l| l.max(v))),
            _ => {
                low = Some(low.map_or(v, |l| l.max(v)));
                high = Some(high.map_or(v, |h| h.min(v)));
            }
        }
    }
    Ok(low.zip(high))
}
