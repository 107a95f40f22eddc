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
    /// Z3's random seed (another seed is another search order).
    seed: u32,
    /// Model-based quantifier instantiation on (needed for counterexamples).
    mbqi: bool,
    /// Bound every uninterpreted sort to this many elements (a search for small
    /// counterexamples: a model found is a genuine one, unsat proves nothing).
    bound: Option<usize>,
}

const ATTEMPTS: [Attempt; 4] = [
    Attempt {
        seed: 0,
        mbqi: false,
        bound: None,
    },
    Attempt {
        seed: 0,
        mbqi: true,
        bound: None,
    },
    Attempt {
        seed: 0,
        mbqi: true,
        bound: Some(2),
    },
    Attempt {
        seed: 0,
        mbqi: true,
        bound: Some(3),
    },
];

/// The second round: the unbounded checks again, with other seeds, sharing the time left.
const SECOND_ROUND: [Attempt; 3] = [
    Attempt {
        seed: 1,
        mbqi: false,
        bound: None,
    },
    Attempt {
        seed: 2,
        mbqi: false,
        bound: None,
    },
    Attempt {
        seed: 1,
        mbqi: true,
        bound: None,
    },
];

/// The most one attempt of the first round may take.
const ROUND_SLICE: Duration = Duration::from_secs(4);

/// Checks one obligation with a time limit. Z3's heuristics are fragile on quantified
/// formulas, so the time is shared by a small portfolio: the plain check, a check with
/// E-matching only (proofs), and searches for counterexamples over universes of 2 and 3
/// elements per uninterpreted sort, each for a short slice; then the unbounded checks again with
/// other random seeds for the rest of the time. Only unbounded checks may prove; any check may refute.
pub fn check(spec: &Spec, ob: &Obligation, timeout: Duration) -> Outcome {
    let started = Instant::now();
    let slice = (timeout / 8).min(ROUND_SLICE).max(Duration::from_millis(1));
    let mut last = Verdict::Timeout;
    // Z3 does not always stop at its time limit (parsing and preprocessing run before it is
    // checked): an answer that arrives after the obligation's limit is reported as a timeout.
    let mut decide = |verdict: Verdict, attempt: &Attempt| -> Option<Verdict> {
        if started.elapsed() > timeout {
            return Some(Verdict::Timeout);
        }
        match verdict {
            Verdict::Proved if attempt.bound.is_some() => None,
            Verdict::Proved | Verdict::Failed(_) => Some(verdict),
            Verdict::Unknown(_) if attempt.bound.is_none() => {
                last = verdict;
                None
            }
            _ => None,
        }
    };
    for attempt in &ATTEMPTS {
        if let Some(v) = decide(attempt_check(spec, ob, slice, attempt), attempt) {
            return Outcome {
                verdict: v,
                time: started.elapsed(),
            };
        }
    }
    for (k, attempt) in SECOND_ROUND.iter().enumerate() {
        let rest = timeout.saturating_sub(started.elapsed());
        if rest.is_zero() {
            break;
        }
        let share = rest / (SECOND_ROUND.len() - k) as u32;
        if let Some(v) = decide(attempt_check(spec, ob, share, attempt), attempt) {
            return Outcome {
                verdict: v,
                time: started.elapsed(),
            };
        }
    }
    Outcome {
        verdict: last,
        time: started.elapsed(),
    }
}

/// `script` with every uninterpreted sort it declares limited to `k` elements: a search for
/// small counterexamples (sat is a genuine counterexample; unsat proves nothing). `ioa`'s
/// portfolio and the SMT-LIB2 test use it; append `(check-sat)` to run it.
pub fn bounded_script(script: &str, k: usize) -> String {
    let mut out = script.to_string();
    for sort in declared_sorts(script) {
        let names: Vec<String> = (0..k).map(|i| format!("bound.{sort}.{i}")).collect();
        for n in &names {
            out.push_str(&format!("(declare-const {n} {sort})\n"));
        }
        let eqs: Vec<String> = names.iter().map(|n| format!("(= x {n})")).collect();
        out.push_str(&format!(
            "(assert (forall ((x {sort})) (or {})))\n",
            eqs.join(" ")
        ));
    }
    out
}

/// Whether Z3 took every assertion of `script` (a rejected script leaves fewer: the parser
/// stops at the first error, and the crate reports none).
pub fn parsed_completely(solver: &Solver, script: &str) -> bool {
    let expected = script.lines().filter(|l| l.starts_with("(assert ")).count();
    solver.get_assertions().len() == expected
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
    if attempt.seed != 0 {
        params.set_u32("random_seed", attempt.seed);
    }
    solver.set_params(&params);
    let script = match attempt.bound {
        Some(k) => bounded_script(&ob.script, k),
        None => ob.script.clone(),
    };
    solver.from_string(script.as_str());
    if !parsed_completely(&solver, &script) {
        return Verdict::Unknown(
            "internal error: Z3 rejected the generated SMT-LIB2 (run `ioa export smt` and `z3` on the file to see why)".into(),
        );
    }
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
