//! Witnesses for a fired action's existential precondition, taken from the implementation's
//! step.
//!
//! A specification action's precondition often asks for a set: Global1's `internalDecide(b)`
//! is enabled when `∃ q: Set[Node] (q ∈ quorums ∧ ∀ j (j ∈ q ⇒ b ∈ voted[j]))`. The step of
//! the implementation that fires it usually names that set already — Paxos's `learn(i, b, v)`
//! requires a majority in `acks[[b, v]]` — but Z3 has to find it among every set term of the
//! obligation: Paxos → Global1's `learn` step exhausted 150 M resource units looking. So the
//! goal `∃ q P(q)` is written `∃ q P(q) ∨ P(W₁) ∨ … ∨ P(Wₖ)`, where the Wᵢ are the set-valued
//! sub-expressions of the implementation transition's preconditions whose element type is
//! the bound variable's. Each `P(Wᵢ)` implies `∃ q P(q)`, so the goal means the same; its
//! negation gives Z3 ground instances to refute, and the quantified goal stays for the cases
//! no candidate settles.

use crate::error::EncodeError;
use crate::smt::expr::{Encoder, Env};
use crate::smt::stmt::visit;
use ioa_lang::ast::Quantifier;
use ioa_lang::ir::{BinOp, Expr, ExprKind, Type, VarRef};

/// At most this many candidates per existential (each adds one ground disjunct to the goal).
const MAX_CANDIDATES: usize = 4;

/// A candidate witness: the set's type and its term in the implementation's pre-state.
#[derive(Debug, Clone)]
pub struct Candidate {
    ty: Type,
    term: String,
}

/// The set-valued sub-expressions of `pre` that read only the state and the first `params`
/// locals (the action's parameters, bound in `env`), encoded in `env`; literal sets and
/// duplicates are left out.
pub fn candidates(
    enc: &mut Encoder,
    pre: &[Expr],
    params: usize,
    env: &Env,
) -> Result<Vec<Candidate>, EncodeError> {
    let mut found: Vec<Expr> = Vec::new();
    for p in pre {
        visit(p, &mut |e| {
            if matches!(e.ty, Type::Set(_))
                && !matches!(e.kind, ExprKind::Collection(_))
                && reads_only_params(e, params)
            {
                found.push(e.clone());
            }
        });
    }
    let mut out: Vec<Candidate> = Vec::new();
    for e in found {
        let term = enc.expr(&e, env)?;
        if !out.iter().any(|c| c.term == term) {
            out.push(Candidate {
                ty: e.ty.clone(),
                term,
            });
        }
    }
    Ok(out)
}

/// Whether `e` has no local but the first `params` (no bound variable of a quantifier or
/// comprehension inside it, which would not be bound where the witness is used).
fn reads_only_params(e: &Expr, params: usize) -> bool {
    let mut ok = true;
    visit(e, &mut |x| match &x.kind {
        ExprKind::Var(VarRef::Local(k)) if *k as usize >= params => ok = false,
        ExprKind::Quant(..) | ExprKind::SetComp { .. } | ExprKind::Choose { .. } => ok = false,
        _ => {}
    });
    ok
}

/// `p` encoded as a goal in `env`, each top-level conjunct `∃ q: Set[T] P(q)` (one bound
/// variable) widened to `∃ q P(q) ∨ P(W)` for every candidate `W` of type `Set[T]`.
pub fn claim(
    enc: &mut Encoder,
    p: &Expr,
    env: &Env,
    candidates: &[Candidate],
) -> Result<String, EncodeError> {
    match &p.kind {
        ExprKind::Binary(BinOp::And, l, r) if !candidates.is_empty() => Ok(format!(
            "(and {} {})",
            claim(enc, l, env, candidates)?,
            claim(enc, r, env, candidates)?
        )),
        ExprKind::Quant(Quantifier::Exists, vars, body) if vars.len() == 1 => {
            let (k, ty) = &vars[0];
            let whole = enc.claim(p, env)?;
            let mut options = vec![whole];
            for c in candidates
                .iter()
                .filter(|c| &c.ty == ty)
                .take(MAX_CANDIDATES)
            {
                let mut inner = env.clone();
                inner.bind(*k, c.term.clone());
                options.push(enc.claim(body, &inner)?);
            }
            Ok(crate::smt::or(&options))
        }
        _ => enc.claim(p, env),
    }
}
