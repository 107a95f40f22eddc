//! `ioa explore --processes N --process P [--hostfile F] [--workers K]`: the exhaustive search
//! spread over N processes of K timely workers each (crate `distributed`). Every process is
//! started with the same model and options and its own `--process`; each prints the verdict,
//! the counterexample (process 0 alone writes `--trace`/`--html`) and the per-worker counters.
//! `scripts/explore-local-cluster` starts N processes on this machine.

use super::explore::{count, fail, finish, print_start, thousands, ExploreArgs, EXIT_ERROR};
use super::model::{self, Model};
use super::output::{print_stderr, usage};
use super::Format;
use checker::explore::{Options, Report, Verdict};
use checker::model::MachineModel;
use distributed::checkpoint::Checkpointing;
use distributed::search::{LevelProgress, Outcome};
use distributed::{hostfile, Cluster};
use interpreter::machine::Machine;
use interpreter::value::Value;
use ioa::api::distributed::{compile_for_processes, totals, worker_json, worker_lines};
use ioa::api::explore::ExploreError;
use ioa_lang::diagnostics::IntoDiagnostic;
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
    let compiled = match compile_for_processes(machine, &args.symmetric, &m.sources) {
        Ok(c) => c,
        Err(ExploreError::Usage(e)) => return usage(e),
        Err(ExploreError::Diagnostics(d)) => return fail(&d, m, args.color),
    };
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
