//! Discarding candidates that an exhaustive exploration of a small instance refutes, and
//! looking there for a counterexample to the property itself. Breadth-first search finds the
//! shallowest refutation first; each refuted candidate is removed and the search restarts, until
//! the instance is covered or a limit stops it: what was covered still refutes. The limit that
//! decides is the number of states each search may store, which gives the same refutations on
//! any machine; the time limit is a safety net whose expiry makes the result depend on the
//! machine's speed and load, and is reported as such.

use checker::explore::{explore, Limit, Options, Verdict};
use checker::model::MachineModel;
use checker::symmetry::Symmetry;
use interpreter::machine::Machine;
use interpreter::trace::Trace;
use interpreter::universe::Universe;
use interpreter::value::Value;
use ioa_lang::diagnostics::IntoDiagnostic;
use ioa_lang::ir::{AutomatonId, Spec};
use std::time::{Duration, Instant};

/// What the exploration found.
pub enum Explored {
    /// The property itself is false: the shortest run that breaks it.
    TargetViolated {
        /// The invariant's name.
        name: String,
        /// The run, in the unreduced automaton.
        trace: Trace,
    },
    /// The candidates that survived, and how far the search got.
    Filtered {
        /// Candidates refuted, by name, with the depth of the refuting state.
        refuted: Vec<(String, usize)>,
        /// States stored in the last (most complete) search.
        states: u64,
        /// How the last search ended.
        end: SearchEnd,
    },
}

/// How the exploration's last search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchEnd {
    /// Every reachable state was covered.
    Complete,
    /// The state limit stopped it (deterministic).
    States(u64),
    /// The wall-clock safety limit stopped it (depends on the machine's load).
    Time,
}

/// The limits of the exploration.
#[derive(Debug, Clone, Copy)]
pub struct SearchLimits {
    /// States each search may store.
    pub states: u64,
    /// Wall-clock safety limit of the whole exploration.
    pub time: Duration,
}

/// Explores automaton `a` of `spec` (with parameter values `params`: `root` is `(a, params)`)
/// over `universe`, checking the invariants named in `candidates` and `target`; refuted
/// candidates are dropped and the search restarted.
pub fn explore_filter(
    spec: &Spec,
    universe: &Universe,
    root: (AutomatonId, &[Value]),
    candidates: &[String],
    target: Option<&str>,
    symmetric: &[String],
    limits: SearchLimits,
) -> Result<Explored, String> {
    let budget = limits.time;
    let (a, params) = root;
    let started = Instant::now();
    // The property first, alone: checking it is cheap, and a counterexample ends the story.
    let mut alive: Vec<String> = Vec::new();
    let mut first = target.is_some();
    let mut refuted = Vec::new();
    loop {
        if !first {
            alive = candidates
                .iter()
                .filter(|c| !refuted.iter().any(|(n, _)| n == *c))
                .cloned()
                .collect();
        }
        let mut reduced = spec.clone();
        reduced.invariants.retain(|i| {
            i.automaton == a && (alive.contains(&i.name) || Some(i.name.as_str()) == target)
        });
        let machine = Machine::new(&reduced, universe, a, params.to_vec())
            .map_err(|e| e.to_diagnostic().message)?;
        let symmetry = if symmetric.is_empty() {
            None
        } else {
            Some(Symmetry::new(&machine, symmetric).map_err(|errors| {
                errors
                    .first()
                    .map(|e| e.to_diagnostic().message)
                    .unwrap_or_default()
            })?)
        };
        let model = MachineModel::new(&machine, symmetry).map_err(|e| e.to_diagnostic().message)?;
        let remaining = budget.saturating_sub(started.elapsed());
        let options = Options {
            threads: 0,
            max_states: Some(limits.states),
            max_depth: None,
            time_limit: Some(remaining),
            memory_limit: None,
            process_memory_ceiling: checker::memory::default_ceiling(),
            deadlock_is_violation: false,
            batch: 0,
        };
        let report = explore(&model, &options, &mut |_| {});
        match report.verdict {
            Verdict::Violated { property, path } => {
                let name = reduced.invariants[property].name.clone();
                if Some(name.as_str()) == target {
                    let (trace, _) = model
                        .trace(&path)
                        .map_err(|_| "the counterexample does not replay".to_string())?;
                    return Ok(Explored::TargetViolated { name, trace });
                }
                refuted.push((name.clone(), path.len().saturating_sub(1)));
            }
            Verdict::Verified if first => first = false,
            Verdict::Verified => {
                return Ok(Explored::Filtered {
                    refuted,
                    states: report.stats.distinct,
                    end: SearchEnd::Complete,
                })
            }
            // A limit stops the property's own search, so no budget is left for the candidates.
            Verdict::LimitReached(limit) => {
                let end = match limit {
                    Limit::States(n) => SearchEnd::States(n),
                    _ => SearchEnd::Time,
                };
                return Ok(Explored::Filtered {
                    refuted,
                    states: report.stats.distinct,
                    end,
                });
            }
            // Deadlocks are not checked here (`deadlock_is_violation: false` above), so the
            // explorer cannot report one; if it ever does, say so rather than mislabel the end.
            Verdict::Deadlock { .. } => {
                return Err(
                    "the exploration reported a deadlock, which this filter does not check".into(),
                )
            }
            Verdict::Error { .. } => {
                return Err("evaluating a candidate failed during the exploration".into())
            }
        }
    }
}
