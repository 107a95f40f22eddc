//! `ioa explore --processes N --process P [--hostfile F] [--workers K]`: the exhaustive search
//! spread over N processes of K timely workers each (crate `distributed`). Every process is
//! started with the same model and options and its own `--process`; each prints the verdict,
//! the counterexample (process 0 alone writes `--trace`/`--html`) and the per-worker counters.
//! `scripts/explore-local-cluster` starts N processes on this machine.

use super::explore::{
    count, fail, finish, mib, print_start, thousands, usage, ExploreArgs, EXIT_ERROR,
};
use super::model::{self, Model};
use super::output::print_stderr;
use super::Format;
use checker::compiled::CompiledModel;
use checker::explore::spill::SpillStats;
use checker::explore::{Options, Report, Stats, Verdict};
use checker::model::MachineModel;
use checker::symmetry::Symmetry;
use distributed::checkpoint::Checkpointing;
use distributed::search::{LevelProgress, Outcome, SearchReport};
use distributed::{hostfile, Cluster};
use interpreter::machine::Machine;
use interpreter::value::Value;
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use ioa_lang::ir::AutomatonId;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// The options of a distributed search (timely's `-n`, `-p`, `-h`, `-w` in long form).
#[derive(clap::Args, Debug, Clone)]
pub struct DistArgs {
    /// Explore with this many processes (each started with its own --process); states are
    /// owned by worker `fingerprint mod W` and the counts and counterexample are those of one
    /// process. Needs the compiled engine.
    #[arg(long, value_name = "N")]
    pub processes: Option<usize>,
    /// This process's number, from 0 (with --processes).
    #[arg(long, value_name = "P", default_value_t = 0, requires = "processes")]
    pub process: usize,
    /// The processes' addresses, one `host:port` per line in process order (default:
    /// 127.0.0.1 from --port up).
    #[arg(long, value_name = "FILE", requires = "processes")]
    pub hostfile: Option<PathBuf>,
    /// The first port when there is no hostfile.
    #[arg(long, default_value_t = 2101, requires = "processes")]
    pub port: u16,
    /// Seconds to wait for the other processes to connect.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 60,
        requires = "processes"
    )]
    pub connect_timeout: u64,
    /// Write a checkpoint (visited set and frontier, per worker) into this folder at level
    /// boundaries; `--resume` continues from it. Without --processes: one process.
    #[arg(long, value_name = "DIR")]
    pub checkpoint: Option<PathBuf>,
    /// The least time between two checkpoints (`0` for every level, `90s`, `10m`).
    #[arg(long, value_name = "DURATION", default_value = "10m")]
    pub checkpoint_every: String,
    /// Continue a search from the deepest level checkpointed in this folder (same model,
    /// options and number of workers).
    #[arg(long, value_name = "DIR")]
    pub resume: Option<PathBuf>,
    /// Timely worker threads per process.
    #[arg(long, value_name = "K", default_value_t = 1, requires = "processes")]
    pub workers: usize,
}

/// Runs the distributed search. The model, machine and compiled model live as long as the
/// process (timely's workers are threads that outlive any borrow), so they are leaked.
pub fn run(
    mut args: ExploreArgs,
    m: Model,
    automaton: AutomatonId,
    params: Vec<Value>,
    options: Options,
) -> ExitCode {
    let processes = args.dist.processes.unwrap_or(1);
    if processes == 0 || args.dist.process >= processes {
        return usage(format!(
            "--process must be below --processes ({} is not below {processes})",
            args.dist.process
        ));
    }
    if args.dist.workers == 0 {
        return usage("--workers must be at least 1".into());
    }
    if args.liveness.liveness.is_some() || args.local.local {
        return usage(
            "--processes explores globally; --liveness and --local run in one process".into(),
        );
    }
    if args.engine == super::explore::Engine::Interpreter {
        return usage("--processes needs the compiled engine (states travel between processes as words); drop --engine interpreter".into());
    }
    let addresses = match &args.dist.hostfile {
        Some(path) => match hostfile::read(path, processes) {
            Ok(a) => a,
            Err(e) => return usage(e.to_string()),
        },
        None => hostfile::local(processes, args.dist.port),
    };
    let every = match super::explore::parse_duration(&args.dist.checkpoint_every) {
        Ok(d) => d,
        Err(e) => return usage(format!("--checkpoint-every: {e}")),
    };
    let checkpointing = Checkpointing {
        dir: args.dist.checkpoint.clone(),
        every,
        resume: args.dist.resume.clone(),
        identity: identity(&args, &m, workers_total(&args)),
        spill_dir: args.spill_dir.clone(),
    };
    let m: &'static Model = Box::leak(Box::new(m));
    let machine = match Machine::new(&m.spec, &m.universe, automaton, params) {
        Ok(mach) => mach,
        Err(e) => return fail(&[e.to_diagnostic()], m, args.color),
    };
    let machine: &'static Machine<'static> = Box::leak(Box::new(machine));
    let symmetry = if args.symmetric.is_empty() {
        None
    } else {
        match Symmetry::new(machine, &args.symmetric) {
            Ok(s) => Some(s),
            Err(errors) => {
                let diags: Vec<Diagnostic> = errors.iter().map(|e| e.to_diagnostic()).collect();
                return fail(&diags, m, args.color);
            }
        }
    };
    // A composite compiles through its flattening, as in one process (checker::compiled::flat).
    let flat = checker::compiled::flat::flat_spec(&m.spec, automaton, symmetry.is_some());
    let compiled = match flat {
        Some(Ok(spec)) => {
            let spec: &'static ioa_lang::ir::Spec = Box::leak(Box::new(spec));
            match Machine::new(spec, &m.universe, automaton, machine.root_params.clone()) {
                Ok(flat) => {
                    let flat: &'static Machine<'static> = Box::leak(Box::new(flat));
                    checker::compiled::flat::compile(machine, flat)
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
    let compiled = match compiled {
        Ok(c) => c,
        Err(refusal) => {
            return usage(format!(
                "--processes needs the compiled engine (states travel between processes as words), and this model is not compiled: {}",
                super::explore::refusal(m, refusal)
            ))
        }
    };
    let compiled: &'static CompiledModel<'static, 'static> = Box::leak(Box::new(compiled));
    let explorer = match MachineModel::new(machine, None) {
        Ok(x) => x,
        Err(e) => return fail(&[e.to_diagnostic()], m, args.color),
    };
    let n_inv = model::invariant_count(&m.spec, automaton);
    let cluster = Cluster {
        processes,
        process: args.dist.process,
        workers: args.dist.workers,
        addresses,
        timeout: std::time::Duration::from_secs(args.dist.connect_timeout),
    };
    let workers_total = workers_total(&args);
    let engine = format!(
        "compiled ({} words per state); process {} of {processes}, {} in all",
        compiled.words_per_state(),
        args.dist.process,
        count(workers_total as u64, "worker"),
    );
    print_start(
        &args,
        m,
        automaton,
        explorer.instances().len(),
        n_inv,
        &engine,
    );
    // One line per level with --progress (or on a terminal).
    let show_progress = !args.quiet
        && args.format == Format::Text
        && (args.progress || std::io::stderr().is_terminal());
    let progress: Option<distributed::Progress> = show_progress.then(|| {
        std::sync::Arc::new(|p: &LevelProgress| {
            let rate = p.states as f64 / p.elapsed.as_secs_f64().max(1e-9);
            print_stderr(&format!(
                "depth {}: {}, {} in this level, {} sent between workers, {} states/s\n",
                p.depth,
                count(p.states, "state"),
                thousands(p.frontier),
                thousands(p.sent),
                thousands(rate as u64)
            ));
        }) as distributed::Progress
    });
    let report = match distributed::explore(compiled, &cluster, &options, &checkpointing, progress)
    {
        Ok(r) => r,
        Err(e) => {
            print_stderr(&format!("error: {e}\n"));
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let verdict = match report.outcome.clone() {
        Outcome::Verified => Verdict::Verified,
        Outcome::Violated { property, path } => Verdict::Violated { property, path },
        Outcome::Deadlock { path } => Verdict::Deadlock { path },
        Outcome::LimitReached(l) => Verdict::LimitReached(l),
        Outcome::Stopped(message) => {
            print_stderr(&format!("error: {message}\n"));
            return ExitCode::from(EXIT_ERROR);
        }
        Outcome::Failed { message, .. } => {
            print_stderr(&format!(
                "error: the compiled engine met {message}; a distributed search cannot fall back to the interpreter: explore without --processes\n"
            ));
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let stats = totals(&report, workers_total, args.dist.workers.max(1));
    // Only process 0 writes files: processes may share a disk.
    if args.dist.process != 0 {
        args.trace = None;
        args.html = None;
    }
    let json = worker_json(&report, &cluster);
    let outcome = match ioa::api::explore::conclude(&explorer, Report { verdict, stats }) {
        Ok(o) => o,
        Err(d) => return fail(&[d], m, args.color),
    };
    let code = finish(&args, m, machine, &outcome, n_inv, Some(json), None);
    if !args.quiet && args.format == Format::Text {
        print_stderr(&worker_lines(&report, &cluster));
    }
    if args.format == Format::Text {
        if let (Some(level), Some(dir)) = (report.resumed_at, &args.dist.resume) {
            print_stderr(&format!(
                "resumed at level {level} from {}\n",
                dir.display()
            ));
        }
        if let (Some(&last), Some(dir)) = (report.checkpoints.last(), &args.dist.checkpoint) {
            print_stderr(&format!(
                "{} written; the last, at level {last}, is in {}\n",
                count(report.checkpoints.len() as u64, "checkpoint"),
                dir.display()
            ));
        }
    }
    code
}

/// Workers in all.
fn workers_total(args: &ExploreArgs) -> usize {
    args.dist.processes.unwrap_or(1) * args.dist.workers.max(1)
}

/// What a checkpoint must have been written by: the model, automaton, parameters, universe,
/// the options that change the state space or its order, and the number of workers.
fn identity(args: &ExploreArgs, m: &Model, workers: usize) -> String {
    serde_json::json!({
        "model": args.file.display().to_string(),
        "automaton": args.automaton,
        "params": args.params,
        "universe": m.universe_text,
        "symmetric": args.symmetric,
        "invariants": args.invariants,
        "deadlock": args.deadlock,
        "max_depth": args.max_depth,
        "workers": workers,
    })
    .to_string()
}

/// The totals over every worker, as the single-process explorer counts them.
fn totals(
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

/// What spilling did on all workers together (the limit is each worker's).
fn spill_totals(report: &SearchReport<checker::model::MachineStep, usize>) -> Option<SpillStats> {
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
fn resident_of_processes(
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
fn worker_lines(report: &SearchReport<checker::model::MachineStep, usize>, c: &Cluster) -> String {
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

fn worker_json(
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
