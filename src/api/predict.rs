//! Consequence prediction (`ioa predict`) as data: the state variables a prediction's hash
//! ignores, and the JSON report. The search is `checker::predict`'s.

use super::explore::ExploreError;
use super::numbers::{count, thousands};
use super::snapshot::{snapshot, Snapshot};
use checker::model::MachineModel;
use checker::predict::{predict, PredictOptions, PredictReport};
use checker::system::SystemView;
use interpreter::machine::Machine;
use interpreter::runner::{RunReport, Stop};
use interpreter::trace::Trace;
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use std::path::Path;
use std::time::Duration;

/// The slots named by `--hash-ignore`: `x` in every member that has it, or `P[0].x`.
pub fn ignored_slots(machine: &Machine, names: &[String]) -> Result<Vec<usize>, String> {
    let slots = machine.slot_names();
    let mut out = Vec::new();
    for name in names {
        let hits: Vec<usize> = slots
            .iter()
            .enumerate()
            .filter(|(_, s)| *s == name || s.rsplit_once('.').is_some_and(|(_, v)| v == name))
            .map(|(k, _)| k)
            .collect();
        if hits.is_empty() {
            return Err(format!(
                "--hash-ignore: no state variable `{name}` (variables look like {})",
                slots.iter().take(3).cloned().collect::<Vec<_>>().join(", ")
            ));
        }
        out.extend(hits);
    }
    Ok(out)
}

/// The JSON report.
pub fn json(
    machine: &Machine,
    report: &PredictReport,
    bfs: Option<&PredictReport>,
) -> serde_json::Value {
    let one = |r: &PredictReport| {
        serde_json::json!({
            "predictions": r.predictions.iter().map(|p| serde_json::json!({
                "invariant": machine.spec.invariants[p.invariant].name,
                "steps": p.path.len(),
            })).collect::<Vec<_>>(),
            "states": r.stats.states,
            "transitions": r.stats.transitions,
            "local_skipped": r.stats.local_skipped,
            "depth": r.stats.depth,
            "complete": r.complete,
            "seconds": r.stats.elapsed.as_secs_f64(),
        })
    };
    serde_json::json!({
        "automaton": machine.spec.automata[machine.root.0 as usize].name,
        "consequence": one(report),
        "bfs": bfs.map(one),
    })
}

/// The text report's closing lines: the verdict from the state searched (`prefix_steps` steps
/// into the trace it came from), up to nine more predictions, and the search's counts.
pub fn summary(
    machine: &Machine,
    report: &PredictReport,
    prefix_steps: usize,
    max_depth: u32,
    quiet: bool,
) -> String {
    let s = &report.stats;
    let from = if prefix_steps == 0 {
        "the start state".to_string()
    } else {
        format!("state {prefix_steps} of the trace")
    };
    let verdict = match (report.predictions.len(), report.complete) {
        (0, true) => format!(
            "no violation predicted: every future of up to {} from {from} keeps every invariant",
            count(max_depth as u64, "step")
        ),
        (0, false) => format!("no violation predicted from {from} before the time limit"),
        (n, _) => format!(
            "{} predicted from {from}; the shortest takes {} (steps {} to {} above)",
            count(n as u64, "violation"),
            count(report.predictions[0].path.len() as u64, "step"),
            prefix_steps + 1,
            prefix_steps + report.predictions[0].path.len()
        ),
    };
    let mut out = format!("{verdict}\n");
    for p in report.predictions.iter().skip(1).take(9) {
        out.push_str(&format!(
            "  also: `{}` after {}\n",
            machine.spec.invariants[p.invariant].name,
            count(p.path.len() as u64, "step")
        ));
    }
    let time = if quiet {
        String::new()
    } else {
        format!(", {:.3} s", s.elapsed.as_secs_f64())
    };
    out.push_str(&format!(
        "consequence search: {} states, {} explored, {} local action instances not tried, depth {}{time}\n",
        thousands(s.states),
        count(s.transitions, "transition"),
        thousands(s.local_skipped),
        s.depth,
    ));
    out
}

/// The consequence search and plain breadth-first search side by side (`--compare-bfs`).
pub fn comparison(report: &PredictReport, bfs: &PredictReport, quiet: bool) -> String {
    let mut out = String::new();
    let (c, b) = (&report.stats, &bfs.stats);
    out.push_str(&format!(
        "{:<16} {:>16} {:>16}\n",
        "", "consequence", "breadth-first"
    ));
    for (name, x, y) in [
        ("states", thousands(c.states), thousands(b.states)),
        (
            "transitions",
            thousands(c.transitions),
            thousands(b.transitions),
        ),
        ("depth", c.depth.to_string(), b.depth.to_string()),
        (
            "violations",
            report.predictions.len().to_string(),
            bfs.predictions.len().to_string(),
        ),
        (
            "time (s)",
            format!("{:.3}", c.elapsed.as_secs_f64()),
            format!("{:.3}", b.elapsed.as_secs_f64()),
        ),
    ] {
        if quiet && name == "time (s)" {
            continue;
        }
        out.push_str(&format!("{name:<16} {x:>16} {y:>16}\n"));
    }
    if quiet {
        out.push_str(&format!(
            "breadth-first/consequence: {:.1}x the transitions\n",
            b.transitions as f64 / c.transitions.max(1) as f64
        ));
    } else if c.elapsed.as_secs_f64() > 0.0 {
        out.push_str(&format!(
            "breadth-first/consequence: {:.1}x the transitions, {:.1}x the time\n",
            b.transitions as f64 / c.transitions.max(1) as f64,
            b.elapsed.as_secs_f64() / c.elapsed.as_secs_f64()
        ));
    }
    out
}

/// What `ioa predict` is asked to do.
pub struct PredictRequest<'a> {
    /// Start from a state of this ITF trace (default: the start state).
    pub from: Option<&'a Path>,
    /// Which state of the trace (default: the last).
    pub at: Option<usize>,
    /// State variables the search's hash ignores.
    pub hash_ignore: &'a [String],
    /// Actions never taken (the environment's assumption).
    pub without: &'a [String],
    /// Steps into the future at most.
    pub max_depth: u32,
    /// Stop after this long.
    pub time_limit: Option<Duration>,
    /// Also run plain breadth-first search from the same state.
    pub compare_bfs: bool,
}

/// A finished prediction.
pub struct Predicted {
    /// The state searched from, with the run that led to it.
    pub snapshot: Snapshot,
    /// The consequence search's report.
    pub report: PredictReport,
    /// Plain breadth-first search's, when asked for.
    pub bfs: Option<PredictReport>,
    /// The first predicted violation as a run from the model's start, re-executed (every
    /// prediction is re-executed before anything is returned).
    pub first: Option<RunReport>,
}

/// Predicts which futures of up to `max_depth` steps from the snapshot violate an invariant.
pub fn predict_from(machine: &Machine, r: &PredictRequest) -> Result<Predicted, ExploreError> {
    let fail = |d: Diagnostic| ExploreError::Diagnostics(vec![d]);
    let machine_error = |e| fail(super::diagnose::machine_error(e, "a predicted path"));
    let view = SystemView::new(machine).map_err(|errors| {
        ExploreError::Diagnostics(errors.iter().map(|e| e.to_diagnostic()).collect())
    })?;
    let model = MachineModel::new(machine, None).map_err(|e| fail(e.to_diagnostic()))?;
    let snap = snapshot(machine, &model, r.from, r.at).map_err(ExploreError::Usage)?;
    let ignore_slots = ignored_slots(machine, r.hash_ignore).map_err(ExploreError::Usage)?;
    let mut blocked = Vec::new();
    for name in r.without {
        let Some(action) = machine.actions.iter().position(|a| &a.name == name) else {
            let known: Vec<&str> = machine.actions.iter().map(|a| a.name.as_str()).collect();
            return Err(ExploreError::Usage(format!(
                "--without: no action `{name}`; the automaton has: {}",
                known.join(", ")
            )));
        };
        blocked.extend(
            (0..model.instances().len() as u32)
                .filter(|&k| model.instances()[k as usize].action == action),
        );
    }
    let mut options = PredictOptions {
        max_depth: Some(r.max_depth),
        time_limit: r.time_limit,
        prune: true,
        ignore_slots,
        max_violations: 0,
        max_states: 0,
        blocked,
    };
    let report = predict(&model, &view, snap.state.clone(), &options).map_err(machine_error)?;
    let bfs = if r.compare_bfs {
        options.prune = false;
        Some(predict(&model, &view, snap.state.clone(), &options).map_err(machine_error)?)
    } else {
        None
    };
    // Every prediction must replay; the first is returned.
    let mut first = None;
    for (k, p) in report.predictions.iter().enumerate() {
        let (trace, choices) = model
            .trace_from(snap.state.clone(), &p.path)
            .map_err(machine_error)?;
        if k == 0 {
            let mut run = RunReport {
                trace: Trace::start(vec![]),
                stop: Stop::InvariantViolated {
                    invariant: p.invariant,
                },
                choices: vec![],
            };
            snap.extend(trace, choices, &mut run);
            first = Some(run);
        }
    }
    Ok(Predicted {
        snapshot: snap,
        report,
        bfs,
        first,
    })
}
