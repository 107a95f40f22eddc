//! Running obligations through Z3 in process (the `z3` crate, linked against the system
//! libz3). *Proved* is reported only when Z3 answers unsat for the negated goal; sat gives a
//! counterexample read back as IOA values ([`model`]); anything else is *unknown* with Z3's
//! reason, or *timeout*.

pub mod model;

use crate::obligations::Obligation;
use ioa_lang::ir::Spec;
use std::time::{Duration, Instant};
use z3::{Params, SatResult, Solver};

/// The outcome of one obligation.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// Z3 found the negated goal unsatisfiable.
    Proved,
    /// Z3 found a model of the negated goal.
    Failed(model::Counterexample),
    /// Z3 gave up, with its reason.
    Unknown(String),
    /// The per-obligation time limit ran out.
    Timeout,
}

impl Verdict {
    /// `proved`, `failed`, `unknown` or `timeout`.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Proved => "proved",
            Verdict::Failed(_) => "failed",
            Verdict::Unknown(_) => "unknown",
            Verdict::Timeout => "timeout",
        }
    }
}

/// A verdict and how long Z3 took.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The verdict.
    pub verdict: Verdict,
    /// Wall-clock time of the check (parsing included).
    pub time: Duration,
}

/// One attempt: Z3's configuration and what the script gets appended.
struct Attempt {
    /// Share of the time limit.
    share: f64,
    /// Model-based quantifier instantiation on (needed for counterexamples).
    mbqi: bool,
    /// Bound every uninterpreted sort to this many elements (a search for small
    /// counterexamples: a model found is a genuine one, unsat proves nothing).
    bound: Option<usize>,
}

const ATTEMPTS: [Attempt; 4] = [
    Attempt {
        share: 0.4,
        mbqi: true,
        bound: None,
    },
    Attempt {
        share: 0.2,
        mbqi: false,
        bound: None,
    },
    Attempt {
        share: 0.2,
        mbqi: true,
        bound: Some(2),
    },
    Attempt {
        share: 0.2,
        mbqi: true,
        bound: Some(3),
    },
];

/// Checks one obligation with a time limit. Z3's heuristics are fragile on quantified
/// formulas, so the time is shared by a small portfolio: the plain check, a check with E-matching
/// only (proofs), and searches for counterexamples over universes of 2 and 3 elements per
/// uninterpreted sort. Only the unbounded checks may prove; any check may refute.
pub fn check(spec: &Spec, ob: &Obligation, timeout: Duration) -> Outcome {
    let started = Instant::now();
    let mut last = Verdict::Timeout;
    for attempt in &ATTEMPTS {
        let slice = timeout.mul_f64(attempt.share);
        let verdict = attempt_check(spec, ob, slice, attempt);
        match verdict {
            Verdict::Proved if attempt.bound.is_some() => {}
            Verdict::Proved | Verdict::Failed(_) => {
                return Outcome {
                    verdict,
                    time: started.elapsed(),
                }
            }
            Verdict::Unknown(_) if matches!(last, Verdict::Timeout) && attempt.bound.is_none() => {
                last = verdict
            }
            _ => {}
        }
    }
    Outcome {
        verdict: last,
        time: started.elapsed(),
    }
}

/// The uninterpreted sorts a script declares.
fn declared_sorts(script: &str) -> Vec<&str> {
    script
        .lines()
        .filter_map(|l| l.strip_prefix("(declare-sort "))
        .filter_map(|rest| rest.split_whitespace().next())
        .collect()
}

fn attempt_check(spec: &Spec, ob: &Obligation, timeout: Duration, attempt: &Attempt) -> Verdict {
    let solver = Solver::new();
    let mut params = Params::new();
    let ms = timeout.as_millis().clamp(1, u32::MAX as u128) as u32;
    params.set_u32("timeout", ms);
    if !attempt.mbqi {
        params.set_bool("mbqi", false);
    }
    solver.set_params(&params);
    let mut script = ob.script.clone();
    if let Some(k) = attempt.bound {
        for sort in declared_sorts(&ob.script) {
            let names: Vec<String> = (0..k).map(|i| format!("bound.{sort}.{i}")).collect();
            for n in &names {
                script.push_str(&format!("(declare-const {n} {sort})\n"));
            }
            let eqs: Vec<String> = names.iter().map(|n| format!("(= x {n})")).collect();
            script.push_str(&format!(
                "(assert (forall ((x {sort})) (or {})))\n",
                eqs.join(" ")
            ));
        }
    }
    solver.from_string(script.as_str());
    match solver.check() {
        SatResult::Unsat => Verdict::Proved,
        SatResult::Sat => match solver.get_model() {
            Some(m) => Verdict::Failed(model::counterexample(spec, ob, &m)),
            None => Verdict::Unknown("Z3 said sat but gave no model".into()),
        },
        SatResult::Unknown => {
            let reason = solver
                .get_reason_unknown()
                .unwrap_or_else(|| "no reason given".into());
            if reason.contains("timeout") || reason.contains("canceled") {
                Verdict::Timeout
            } else {
                Verdict::Unknown(reason)
            }
        }
    }
}
