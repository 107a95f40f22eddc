//! Checking candidate invariants cheaply, for a Houdini fixpoint (`ioa verify`, issue #8).
//!
//! Each transition of the automaton is encoded once ([`StepEncoding`]); every candidate gets two
//! Boolean constants, its value in the pre-state and in the post-state. One Z3 solver per
//! transition holds all of that, and a query "is candidate `c` preserved by this transition
//! assuming the candidates in `S`" is a `check_assumptions` call with `pre.s` for `s ∈ S` and
//! `¬post.c`, so the transition relation is parsed and simplified once for the whole fixpoint.

use crate::error::EncodeError;
use crate::obligations::invariant::{invariant_term, step_encoding, transitions, StepEncoding};
use crate::solve::budget::{self, Budget, Deadline};
use ioa_lang::ir::{AutomatonId, Expr, Spec};
use z3::ast::{Ast, Bool};
use z3::{Params, SatResult, Solver};

/// The answer to one candidate query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepAnswer {
    /// Preserved (unsat).
    Preserved,
    /// Not preserved: Z3 found a pre-state satisfying the assumptions where the step breaks it.
    Broken,
    /// Z3 gave up or spent its resource budget (deterministic).
    Unknown,
    /// The wall-clock safety limit ran out (depends on the machine's load).
    Timeout,
}

/// Per-transition solvers holding the candidates of one automaton.
pub struct CandidateChecker {
    solvers: Vec<Solver>,
    /// Per transition, the `cand.pre.k` and `cand.post.k` constants as the solver parsed them.
    literals: Vec<Vec<(Bool, Bool)>>,
    n_candidates: usize,
    budget: Budget,
    /// The most resource units one answered query (preserved or broken) spent so far.
    largest: std::cell::Cell<u64>,
}

/// Finds the Boolean constants named `cand.pre.k`/`cand.post.k` among the parsed assertions
/// `(= cand.… …)`: a constant made anew by name would not be the parsed one.
fn candidate_literals(solver: &Solver, n: usize) -> Vec<(Bool, Bool)> {
    let mut pre = vec![None; n];
    let mut post = vec![None; n];
    let sides = solver
        .get_assertions()
        .into_iter()
        .filter(|a| {
            a.safe_decl()
                .is_ok_and(|d| d.name() == "=" && d.arity() == 2)
        })
        .flat_map(|a| [a.nth_child(0), a.nth_child(1)]);
    for lhs in sides.flatten() {
        let name = lhs.to_string();
        let (slot, rest) = if let Some(r) = name.strip_prefix("cand.pre.") {
            (&mut pre, r)
        } else if let Some(r) = name.strip_prefix("cand.post.") {
            (&mut post, r)
        } else {
            continue;
        };
        if let (Ok(k), Some(b)) = (rest.parse::<usize>(), lhs.as_bool()) {
            if k < n {
                slot[k] = Some(b);
            }
        }
    }
    pre.into_iter()
        .zip(post)
        .map(|(p, q)| {
            (
                p.unwrap_or_else(|| Bool::from_bool(false)),
                q.unwrap_or_else(|| Bool::from_bool(true)),
            )
        })
        .collect()
}

impl CandidateChecker {
    /// Encodes every transition of `a` and every candidate (bodies over `a`'s state, with
    /// `n_locals` as in [`ioa_lang::ir::Invariant`]).
    pub fn new(
        spec: &Spec,
        a: AutomatonId,
        candidates: &[&Expr],
        budget: Budget,
    ) -> Result<Self, EncodeError> {
        let mut solvers = Vec::new();
        let mut literals = Vec::new();
        for t in 0..transitions(spec, a)?.len() {
            let StepEncoding {
                encoder: mut enc,
                pre,
                post,
                ..
            } = step_encoding(spec, a, t)?;
            for (k, c) in candidates.iter().enumerate() {
                let p = invariant_term(&mut enc, c, &pre)?;
                let q = invariant_term(&mut enc, c, &post)?;
                enc.script.declare(&format!("cand.pre.{k}"), "Bool");
                enc.script.assert(&format!("(= cand.pre.{k} {p})"));
                enc.script.declare(&format!("cand.post.{k}"), "Bool");
                enc.script.assert(&format!("(= cand.post.{k} {q})"));
            }
            let solver = Solver::new();
            let mut params = Params::new();
            params.set_u32("rlimit", budget::param(budget.rlimit));
            solver.set_params(&params);
            let script = enc.finish();
            solver.from_string(script.as_str());
            if !crate::solve::parsed_completely(&solver, &script) {
                return Err(EncodeError::Unsupported {
                    what: "a candidate that Z3 rejects (ill-sorted for this automaton?)",
                    span: candidates.first().map(|c| c.span).unwrap_or_default(),
                });
            }
            literals.push(candidate_literals(&solver, candidates.len()));
            solvers.push(solver);
        }
        Ok(CandidateChecker {
            solvers,
            literals,
            n_candidates: candidates.len(),
            budget,
            largest: std::cell::Cell::new(0),
        })
    }

    /// The most Z3 resource units one answered query has spent: how close the budget came to
    /// deciding a verdict.
    pub fn largest_query(&self) -> u64 {
        self.largest.get()
    }

    /// Number of transitions (each a separate query).
    pub fn n_transitions(&self) -> usize {
        self.solvers.len()
    }

    /// Whether transition `t` preserves candidate `c` assuming the candidates in `assumed` hold
    /// in the pre-state, within the checker's budget: its resource units for this query, and
    /// its wall-clock limit as a safety limit.
    pub fn preserved(&self, t: usize, c: usize, assumed: &[usize]) -> StepAnswer {
        assert!(c < self.n_candidates);
        let lits_t = &self.literals[t];
        let mut lits: Vec<Bool> = assumed.iter().map(|k| lits_t[*k].0.clone()).collect();
        lits.push(lits_t[c].1.not());
        let solver = &self.solvers[t];
        let deadline = Deadline::after(self.budget.wall);
        let mut params = Params::new();
        params.set_u32("timeout", deadline.millis_left());
        solver.set_params(&params);
        let before = budget::count(solver);
        let result = solver.check_assumptions(&lits);
        let spent = budget::count(solver).saturating_sub(before);
        if result != SatResult::Unknown {
            self.largest.set(self.largest.get().max(spent));
        }
        match result {
            SatResult::Unsat => StepAnswer::Preserved,
            SatResult::Sat => StepAnswer::Broken,
            SatResult::Unknown if spent < self.budget.rlimit && deadline.expired() => {
                StepAnswer::Timeout
            }
            SatResult::Unknown => StepAnswer::Unknown,
        }
    }

    /// Whether every transition preserves `c` assuming `assumed`.
    pub fn inductive(&self, c: usize, assumed: &[usize]) -> StepAnswer {
        let mut answer = StepAnswer::Preserved;
        for t in 0..self.solvers.len() {
            match self.preserved(t, c, assumed) {
                StepAnswer::Broken => return StepAnswer::Broken,
                StepAnswer::Unknown | StepAnswer::Timeout => answer = StepAnswer::Unknown,
                StepAnswer::Preserved => {}
            }
        }
        answer
    }

    /// The Houdini fixpoint over the step obligations: repeatedly drops every candidate that
    /// some transition does not preserve assuming all remaining ones; returns the survivors.
    /// (Start obligations are the caller's: a candidate false initially must be dropped first.)
    pub fn fixpoint(&self, initial: &[usize]) -> Vec<usize> {
        let mut alive: Vec<usize> = initial.to_vec();
        loop {
            let keep: Vec<usize> = alive
                .iter()
                .copied()
                .filter(|c| self.inductive(*c, &alive) == StepAnswer::Preserved)
                .collect();
            if keep.len() == alive.len() {
                return keep;
            }
            alive = keep;
        }
    }
}
