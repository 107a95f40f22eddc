//! Discarding candidates that an exhaustive exploration of a small instance refutes, and
//! looking there for a counterexample to the property itself. Breadth-first search finds the
//! shallowest refutation first; each refuted candidate is removed and the search restarts, until
//! the instance is covered (or the time budget runs out: what was covered still refutes).

use checker::explore::{explore, Options, Verdict};
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
        /// Whether the last search covered every reachable state.
        complete: bool,
    },
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
    budget: Duration,
) -> Result<Explored, String> {
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
            max_states: None,
            max_depth: None,
            time_limit: Some(remaining),
            memory_limit: None,
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
                    complete: true,
                })
            }
            Verdict::LimitReached(_) | Verdict::Deadlock { .. } if first => {
                // The property was not refuted in the time given; no time is left for the
                // candidates either.
                return Ok(Explored::Filtered {
                    refuted,
                    states: report.stats.distinct,
                    complete: false,
                });
            }
            Verdict::LimitReached(_) | Verdict::Deadlock { .. } => {
                return Ok(Explored::Filtered {
                    refuted,
                    states: report.stats.distinct,
                    complete: false,
                })
            }
            Verdict::Error { .. } => {
                return Err("evaluating a candidate failed during the exploration".into())
            }
        }
    }
}
