//! Refuting many candidates in one exploration of a small instance, for `ioa infer`.
//!
//! [`crate::explore_filter`] restarts its search after each refutation, which suits `ioa
//! verify` (a handful of candidates, and a counterexample to report for the property). A
//! detector proposes dozens, of which several may be false: here every state is checked against
//! every candidate not yet refuted and the search goes on, so one breadth-first pass (bounded by
//! time, depth or states) refutes all it can. A candidate whose evaluation fails in a state is
//! refuted too (it is not an invariant there). Only a pass that covered every reachable state
//! lets the survivors be called verified on the instance.

use checker::explore::{explore, Limit, Model, Options, Verdict};
use checker::fingerprint::Fingerprint;
use checker::model::{MachineError, MachineModel, MachineStep};
use interpreter::machine::{Machine, State};
use interpreter::universe::Universe;
use interpreter::value::Value;
use ioa_lang::diagnostics::IntoDiagnostic;
use ioa_lang::ir::{AutomatonId, Spec};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How far a pass may go.
#[derive(Debug, Clone, Copy, Default)]
pub struct Bounds {
    /// Stop after this long.
    pub time: Option<Duration>,
    /// Explore states up to this many steps from the start.
    pub depth: Option<u32>,
    /// Stop once this many distinct states are stored.
    pub states: Option<u64>,
}

/// What one pass found.
#[derive(Debug, Clone)]
pub struct Pass {
    /// The refuted candidates, by name, with why (`None`: false in a reached state; else the
    /// evaluation error).
    pub refuted: Vec<(String, Option<String>)>,
    /// Distinct states explored.
    pub states: u64,
    /// The deepest level completed.
    pub depth: u32,
    /// Whether every reachable state was explored.
    pub complete: bool,
    /// The limit that stopped the search, if one did.
    pub limit: Option<Limit>,
    /// How long it took.
    pub elapsed: Duration,
}

/// The machine model, with a check that records every candidate a state refutes and never
/// stops the search.
struct Refuting<'a, 'm, 's> {
    inner: MachineModel<'m, 's>,
    machine: &'a Machine<'s>,
    /// Invariant indices of the candidates in the machine's spec.
    candidates: Vec<usize>,
    refuted: Vec<AtomicBool>,
    alive: AtomicU32,
    errors: Mutex<Vec<(usize, String)>>,
}

impl Model for Refuting<'_, '_, '_> {
    type State = State;
    type Step = MachineStep;
    type Property = usize;
    type Error = MachineError;

    fn initial_states(&self, out: &mut Vec<(MachineStep, State)>) -> Result<(), MachineError> {
        self.inner.initial_states(out)
    }

    fn successors(
        &self,
        state: &State,
        out: &mut Vec<(MachineStep, State)>,
    ) -> Result<(), MachineError> {
        self.inner.successors(state, out)
    }

    fn check(&self, state: &State) -> Result<Option<usize>, MachineError> {
        if self.alive.load(Ordering::Relaxed) == 0 {
            return Ok(None);
        }
        for (k, &inv) in self.candidates.iter().enumerate() {
            if self.refuted[k].load(Ordering::Relaxed) {
                continue;
            }
            let body = &self.machine.spec.invariants[inv];
            let mut locals = vec![Value::Bool(false); body.n_locals as usize + 1];
            let outcome = self.machine.root_truth(&body.body, state, &mut locals);
            let failed = match outcome {
                Ok(true) => false,
                Ok(false) => true,
                Err(e) => {
                    let mut errors = self.errors.lock().unwrap_or_else(|p| p.into_inner());
                    errors.push((k, e.to_diagnostic().message));
                    true
                }
            };
            if failed && !self.refuted[k].swap(true, Ordering::Relaxed) {
                self.alive.fetch_sub(1, Ordering::Relaxed);
            }
        }
        Ok(None)
    }

    fn fingerprint(&self, state: &State) -> Fingerprint {
        self.inner.fingerprint(state)
    }
}

/// Explores automaton `root.0` of `spec` with parameters `root.1` over `universe` within
/// `bounds`, checking the invariants of `spec` named in `candidates` in every state.
pub fn refute_all(
    spec: &Spec,
    universe: &Universe,
    root: (AutomatonId, &[Value]),
    candidates: &[String],
    bounds: Bounds,
) -> Result<Pass, String> {
    let started = Instant::now();
    let (a, params) = root;
    let machine =
        Machine::new(spec, universe, a, params.to_vec()).map_err(|e| e.to_diagnostic().message)?;
    let indices: Vec<usize> = candidates
        .iter()
        .map(|n| {
            spec.invariants
                .iter()
                .position(|i| &i.name == n && i.automaton == a)
                .ok_or_else(|| format!("no candidate `{n}`"))
        })
        .collect::<Result<_, _>>()?;
    let inner = MachineModel::new(&machine, None).map_err(|e| e.to_diagnostic().message)?;
    let model = Refuting {
        inner,
        machine: &machine,
        refuted: indices.iter().map(|_| AtomicBool::new(false)).collect(),
        alive: AtomicU32::new(indices.len() as u32),
        candidates: indices,
        errors: Mutex::new(Vec::new()),
    };
    let options = Options {
        threads: 0,
        max_states: bounds.states,
        max_depth: bounds.depth,
        time_limit: bounds.time,
        memory_limit: None,
        process_memory_ceiling: checker::memory::default_ceiling(),
        deadlock_is_violation: false,
        batch: 0,
    };
    let report = explore(&model, &options, &mut |_| {});
    let limit = match report.verdict {
        Verdict::LimitReached(l) => Some(l),
        _ => None,
    };
    let complete = match report.verdict {
        Verdict::Verified => true,
        Verdict::LimitReached(_) | Verdict::Deadlock { .. } | Verdict::Violated { .. } => false,
        Verdict::Error { error, .. } => {
            return Err(match error {
                MachineError::Start(e)
                | MachineError::Step { error: e, .. }
                | MachineError::Invariant { error: e, .. } => e.to_diagnostic().message,
                other => other.to_string(),
            })
        }
    };
    let errors = model.errors.into_inner().unwrap_or_else(|p| p.into_inner());
    let refuted = candidates
        .iter()
        .enumerate()
        .filter(|(k, _)| model.refuted[*k].load(Ordering::Relaxed))
        .map(|(k, name)| {
            let error = errors.iter().find(|(j, _)| *j == k).map(|(_, e)| e.clone());
            (name.clone(), error)
        })
        .collect();
    Ok(Pass {
        refuted,
        states: report.stats.distinct,
        depth: report.stats.depth,
        complete,
        limit,
        elapsed: started.elapsed(),
    })
}
