//! Which members an indexed component family has.
//!
//! `P[i: Int]: Process(i, n) where 0 ≤ i ∧ i < n` has the members whose index satisfies the
//! `where` clause. An index of a type with a finite carrier ranges over that carrier; an `Int`
//! or `Nat` index with no universe takes its range from the clause itself when a top-level
//! conjunct bounds it from below and above by expressions over the composite's parameters
//! (`lo ≤ i`, `i < hi`, …) or names a collection (`i ∈ S`). So the manual's way of writing a
//! ring of `n` processes runs with `--param n=3` and no universe.

use crate::error::{EvalResult, RunError};
use crate::eval::may_read_local;
use crate::eval::{NoChoice, Scope};
use crate::int_bounds;
use crate::universe::Universe;
use crate::value::Value;
use ioa_lang::ir::{BinOp, Component, Expr, Spec, Type};
use std::sync::Arc;

/// The index tuples of the members of `comp` (empty tuple for a single component), in the
/// order of their carriers, with the `where` clause applied.
pub fn members(
    spec: &Spec,
    universe: &Universe,
    comp: &Component,
    params: &[Value],
) -> EvalResult<Vec<Vec<Value>>> {
    let scope = Scope::params_only(spec, universe, params);
    let mut combos: Vec<Vec<Value>> = vec![vec![]];
    for (k, idx) in comp.indices.iter().enumerate() {
        let carrier = match universe.carrier_at(spec, &idx.ty, idx.span) {
            Ok(c) => c,
            Err(unbounded) => match bounded_by_where(&scope, comp, k as u32, &idx.ty)? {
                Some(values) => values,
                None => return Err(unbounded),
            },
        };
        combos = combos
            .into_iter()
            .flat_map(|p| {
                carrier.iter().map(move |v| {
                    let mut q = p.clone();
                    q.push(v.clone());
                    q
                })
            })
            .collect();
    }
    let Some(w) = &comp.where_clause else {
        return Ok(combos);
    };
    let mut out = Vec::with_capacity(combos.len());
    for combo in combos {
        let mut locals = combo.clone();
        locals.resize(
            (comp.n_locals as usize).max(combo.len()),
            Value::Bool(false),
        );
        if scope.truth(w, &mut locals, &mut NoChoice)? {
            out.push(combo);
        }
    }
    Ok(out)
}

/// The values of index `k` that the top-level conjuncts of the `where` clause allow, when they
/// bound it on both sides (integers) or by a collection; `None` otherwise.
fn bounded_by_where(
    scope: &Scope,
    comp: &Component,
    k: u32,
    ty: &Type,
) -> EvalResult<Option<Arc<[Value]>>> {
    if !matches!(ty, Type::Int | Type::Nat) {
        return Ok(None);
    }
    let Some(w) = &comp.where_clause else {
        return Ok(None);
    };
    let conjuncts = int_bounds::conjuncts(w);
    for c in &conjuncts {
        if let Some((BinOp::In, coll)) = int_bounds::bound_of(c, k) {
            if may_read_local(coll, |_| true) {
                continue;
            }
            if let Value::Set(s) = scope.eval(coll, &mut [], &mut NoChoice)? {
                return Ok(Some(s.iter().cloned().collect::<Vec<_>>().into()));
            }
        }
    }
    let mut int = |e: &Expr| -> EvalResult<Option<i64>> {
        if may_read_local(e, |_| true) {
            return Ok(None);
        }
        Ok(scope.eval(e, &mut [], &mut NoChoice)?.as_int())
    };
    let Some((low, high)) = int_bounds::range(&conjuncts, k, *ty == Type::Nat, &mut int)? else {
        return Ok(None);
    };
    if high.saturating_sub(low) >= MAX_FAMILY {
        return Err(RunError::FamilyTooLarge {
            span: comp.span,
            low,
            high,
        });
    }
    Ok(Some((low..=high).map(Value::Int).collect()))
}

/// The most members a family bounded only by its `where` clause may have.
const MAX_FAMILY: i64 = 100_000;
