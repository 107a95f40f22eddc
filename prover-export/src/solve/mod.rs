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

/// Checks one obligation with a time limit.
pub fn check(spec: &Spec, ob: &Obligation, timeout: Duration) -> Outcome {
    let started = Instant::now();
    let solver = Solver::new();
    let mut params = Params::new();
    let ms = timeout.as_millis().clamp(1, u32::MAX as u128) as u32;
    params.set_u32("timeout", ms);
    solver.set_params(&params);
    solver.from_string(ob.script.as_str());
    let verdict = match solver.check() {
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
    };
    Outcome {
        verdict,
        time: started.elapsed(),
    }
}
