//! The distributed search (`ioa explore --processes`) as data: the workers' counters summed as
//! the single-process explorer counts them, and the per-worker lines and JSON. The search is the
//! `distributed` crate's.

use super::explore::ExploreError;
use super::numbers::{mib, thousands};
use checker::compiled::CompiledModel;
use checker::explore::spill::SpillStats;
use checker::explore::Stats;
use checker::reduction::PorStats;
use checker::symmetry::Symmetry;
use distributed::search::SearchReport;
use distributed::Cluster;
use interpreter::machine::Machine;
use ioa_lang::diagnostics::IntoDiagnostic;
use ioa_lang::ir::Spec;
use ioa_lang::source_map::SourceMap;

/// The totals over every worker, as the single-process explorer counts them.
pub fn totals(
    report: &SearchReport<checker::model::MachineStep, usize>,
    workers: usize,
    workers_per_process: usize,
) -> Stats {
    let sum = |f: fn(&distributed::search::WorkerStats) -> u64| report.workers.iter().map(f).sum();
    Stats {
        generated: sum(|w| w.generated),
        distinct: sum(|w| w.distinct),
        checked: sum(|w| w.checked),
        depth: report.depth,
        levels_completed: report.levels_completed,
        deadlocks: sum(|w| w.deadlocks),
        frontier: 0,
        elapsed: report.elapsed,
        threads: workers,
        // Memory per state is the processes' resident memory at the end over the states (the
        // workers of one process share it), baseline included.
        resident_at_start: Some(0),
        peak_resident: Some(resident_of_processes(report, workers_per_process)),
        graph_bytes: 0,
        spill: spill_totals(report),
    }
}

/// What partial-order reduction did in all processes together: each process's counters as the
/// last of its workers to send a summary read them (the counters only grow, so the largest),
/// summed over the processes; `None` when it did not run.
pub fn reduction_totals(
    report: &SearchReport<checker::model::MachineStep, usize>,
    workers_per_process: usize,
) -> Option<PorStats> {
    let mut per_process: std::collections::BTreeMap<u64, [u64; 6]> = Default::default();
    for w in &report.workers {
        let counts = w.reduction?;
        let process = w.worker / workers_per_process.max(1) as u64;
        let seen = per_process.entry(process).or_default();
        for (s, c) in seen.iter_mut().zip(counts) {
            *s = (*s).max(c);
        }
    }
    let sum = |k: usize| per_process.values().map(|c| c[k]).sum();
    Some(PorStats {
        reduced_states: sum(0),
        full_states: sum(1),
        proviso_full: sum(2),
        unchecked_full: sum(3),
        pruned_successors: sum(4),
        proviso_larger: sum(5),
    })
}

/// What spilling did on all workers together (the limit is each worker's).
pub fn spill_totals(
    report: &SearchReport<checker::model::MachineStep, usize>,
) -> Option<SpillStats> {
    let spills: Vec<_> = report
        .workers
        .iter()
        .filter_map(|w| w.spill.as_ref())
        .collect();
    let first = spills.first()?;
    let sum = |f: fn(&distributed::wire::SpillSummary) -> u64| spills.iter().map(|s| f(s)).sum();
    Some(SpillStats {
        limit: first.limit,
        spills: sum(|s| s.spills),
        states_on_disk: sum(|s| s.states_on_disk),
        runs: sum(|s| s.runs) as usize,
        merges: sum(|s| s.merges),
        bytes_on_disk: sum(|s| s.bytes_on_disk),
        bytes_written: sum(|s| s.bytes_written),
        bytes_read: sum(|s| s.bytes_read),
        disk_time: std::time::Duration::from_secs_f64(spills.iter().map(|s| s.disk_seconds).sum()),
        error: None,
    })
}

/// The resident memory of all processes (each counted once).
pub fn resident_of_processes(
    report: &SearchReport<checker::model::MachineStep, usize>,
    workers_per_process: usize,
) -> u64 {
    report
        .workers
        .iter()
        .step_by(workers_per_process.max(1))
        .map(|w| w.resident)
        .sum()
}

/// One line per worker, and the states sent between workers per level.
pub fn worker_lines(
    report: &SearchReport<checker::model::MachineStep, usize>,
    c: &Cluster,
) -> String {
    let mut out = String::new();
    for w in &report.workers {
        let mut memory = if w.resident > 0 {
            format!(", process resident {}", mib(w.resident))
        } else {
            String::new()
        };
        if let Some(s) = w.spill.as_ref().filter(|s| s.spills > 0) {
            memory.push_str(&format!(
                ", {} spilled to disk",
                thousands(s.states_on_disk)
            ));
        }
        out.push_str(&format!(
            "worker {} (process {}): {} stored, {} checked, {} generated, {} sent to other workers{memory}\n",
            w.worker,
            w.worker as usize / c.workers.max(1),
            thousands(w.distinct),
            thousands(w.checked),
            thousands(w.generated),
            thousands(w.sent),
        ));
    }
    let per_level: Vec<String> = report
        .sent_per_level
        .iter()
        .map(|n| thousands(*n))
        .collect();
    out.push_str(&format!(
        "states sent between workers per level: {}\n",
        per_level.join(" ")
    ));
    out
}

/// The per-worker part of the JSON report.
pub fn worker_json(
    report: &SearchReport<checker::model::MachineStep, usize>,
    c: &Cluster,
) -> serde_json::Value {
    serde_json::json!({
        "processes": c.processes,
        "process": c.process,
        "workers_per_process": c.workers,
        "workers": report.workers.iter().map(|w| serde_json::json!({
            "worker": w.worker,
            "process": w.worker as usize / c.workers.max(1),
            "states": w.distinct,
            "checked": w.checked,
            "generated": w.generated,
            "deadlocks": w.deadlocks,
            "sent": w.sent,
            "resident_bytes": w.resident,
            "spilled": w.spill.as_ref().map(|s| s.states_on_disk),
        })).collect::<Vec<_>>(),
        "sent_per_level": report.sent_per_level,
    })
}

/// Compiles `machine` for a distributed search (states travel between processes as words, so
/// the compiled engine is required; a composite compiles through its flattening, as in one
/// process). What is built lives as long as the process: timely's workers are threads that
/// outlive any borrow, so it is leaked.
pub fn compile_for_processes(
    machine: &'static Machine<'static>,
    symmetric: &[String],
    sources: &SourceMap,
) -> Result<&'static CompiledModel<'static, 'static>, ExploreError> {
    let symmetry = if symmetric.is_empty() {
        None
    } else {
        Some(Symmetry::new(machine, symmetric).map_err(|errors| {
            ExploreError::Diagnostics(errors.iter().map(|e| e.to_diagnostic()).collect())
        })?)
    };
    let flat = checker::compiled::flat::flat_spec(machine.spec, machine.root);
    let compiled = match flat {
        Some(Ok(spec)) => {
            let spec: &'static Spec = Box::leak(Box::new(spec));
            match Machine::new(
                spec,
                machine.universe,
                machine.root,
                machine.root_params.clone(),
            ) {
                Ok(flat) => {
                    let flat: &'static Machine<'static> = Box::leak(Box::new(flat));
                    checker::compiled::flat::compile(machine, flat, symmetric)
                }
                Err(e) => Err(format!(
                    "its flattening does not run: {}",
                    e.to_diagnostic().message
                )
                .into()),
            }
        }
        Some(Err(reason)) => Err(reason.into()),
        None => CompiledModel::new(machine, symmetry),
    };
    let compiled = compiled.map_err(|refusal| {
        ExploreError::Usage(format!(
            "--processes needs the compiled engine (states travel between processes as words), and this model is not compiled: {}",
            super::explore::refusal(sources, refusal)
        ))
    })?;
    // Integers take 64 bits: a distributed search cannot start again with wider fields.
    Ok(Box::leak(Box::new(compiled.with_wide_integers())))
}

/// The distributed search's outcome as the single-process explorer's verdict, or the message
/// of a search that stopped without one (an error, or a fault of the compiled engine, which a
/// distributed search cannot fall back from).
pub fn verdict<'m, 's>(
    outcome: distributed::search::Outcome<checker::model::MachineStep, usize>,
) -> Result<checker::explore::Verdict<checker::model::MachineModel<'m, 's>>, String> {
    use checker::explore::Verdict;
    use distributed::search::Outcome;
    Ok(match outcome {
        Outcome::Verified => Verdict::Verified,
        Outcome::Violated { property, path } => Verdict::Violated { property, path },
        Outcome::Deadlock { path } => Verdict::Deadlock { path },
        Outcome::LimitReached(l) => Verdict::LimitReached(l),
        Outcome::Stopped(message) => return Err(message),
        Outcome::Failed { message, .. } => return Err(format!(
            "the compiled engine met {message}; a distributed search cannot fall back to the interpreter: explore without --processes"
        )),
    })
}

/// The line for one finished level: depth, states, the level's size, states sent between
/// workers, and the rate.
pub fn level_line(p: &distributed::search::LevelProgress) -> String {
    let rate = p.states as f64 / p.elapsed.as_secs_f64().max(1e-9);
    format!(
        "depth {}: {}, {} in this level, {} sent between workers, {} states/s\n",
        p.depth,
        super::numbers::count(p.states, "state"),
        thousands(p.frontier),
        thousands(p.sent),
        thousands(rate as u64)
    )
}

/// The lines after the verdict: the level a search resumed at (from `resumed_from`), and the
/// checkpoints written (into `checkpoint_dir`).
pub fn checkpoint_lines(
    report: &SearchReport<checker::model::MachineStep, usize>,
    resumed_from: Option<&std::path::Path>,
    checkpoint_dir: Option<&std::path::Path>,
) -> String {
    let mut out = String::new();
    if let (Some(level), Some(dir)) = (report.resumed_at, resumed_from) {
        out.push_str(&format!(
            "resumed at level {level} from {}\n",
            dir.display()
        ));
    }
    if let (Some(&last), Some(dir)) = (report.checkpoints.last(), checkpoint_dir) {
        out.push_str(&format!(
            "{} written; the last, at level {last}, is in {}\n",
            super::numbers::count(report.checkpoints.len() as u64, "checkpoint"),
            dir.display()
        ));
    }
    out
}
