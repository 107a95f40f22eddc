//! `ioa explore --processes N --process P [--hostfile F] [--workers K]`: the exhaustive search
//! spread over N processes of K timely workers each (crate `distributed`). Every process is
//! started with the same model and options and its own `--process`; each prints the verdict,
//! the counterexample (process 0 alone writes `--trace`/`--html`) and the per-worker counters.
//! `scripts/explore-local-cluster` starts N processes on this machine.

use super::explore::{
    count, fail, finish, parse_duration, print_start, ExploreArgs, Reduction, EXIT_ERROR,
};
use super::model::{self, Model};
use super::output::{error, exit, print_stderr, usage, Step};
use super::Format;
use checker::explore::{Options, Report};
use checker::model::MachineModel;
use checker::reduction::{PartialOrder, Reduced};
use distributed::checkpoint::Checkpointing;
use distributed::search::LevelProgress;
use distributed::{hostfile, Cluster};
use interpreter::machine::Machine;
use interpreter::value::Value;
use ioa::api::distributed::{
    checkpoint_lines, compile_for_processes, level_line, reduction_totals, totals, verdict,
    worker_json, worker_lines,
};
use ioa::api::explore::{ExploreError, ReductionSummary};
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

impl DistArgs {
    /// Whether the search is distributed or checkpointed (the distributed explorer runs it).
    pub fn distributed(&self) -> bool {
        self.processes.is_some() || self.checkpoint.is_some() || self.resume.is_some()
    }
}

/// Runs the distributed search. The model, machine and compiled model live as long as the
/// process (timely's workers are threads that outlive any borrow), so they are leaked.
pub fn run(
    args: ExploreArgs,
    m: Model,
    automaton: AutomatonId,
    params: Vec<Value>,
    options: Options,
) -> ExitCode {
    exit(distribute(args, m, automaton, params, options))
}

/// Checks the options, compiles the model, runs this process's part of the search and reports.
fn distribute(
    mut args: ExploreArgs,
    m: Model,
    automaton: AutomatonId,
    params: Vec<Value>,
    options: Options,
) -> Step<ExitCode> {
    let cluster = cluster(&args)?;
    let every = parse_duration(&args.dist.checkpoint_every)
        .map_err(|e| usage(format!("--checkpoint-every: {e}")))?;
    let workers_total = workers_total(&args);
    let checkpointing = Checkpointing {
        dir: args.dist.checkpoint.clone(),
        every,
        resume: args.dist.resume.clone(),
        identity: identity(&args, &m, workers_total),
        spill_dir: args.spill_dir.clone(),
    };
    let m: &'static Model = Box::leak(Box::new(m));
    let fail = |d| fail(&[d], m, args.color);
    let machine = Machine::new(&m.spec, &m.universe, automaton, params)
        .map_err(|e| fail(e.to_diagnostic()))?;
    let machine: &'static Machine<'static> = Box::leak(Box::new(machine));
    let compile = || compile_for_processes(machine, &args.symmetric, &m.sources);
    let compiled = if args.engine == super::explore::Engine::Words {
        checker::compiled::with_word_code(compile)
    } else {
        compile()
    };
    let compiled = match compiled {
        Ok(c) => c,
        Err(ExploreError::Usage(e)) => return Err(usage(e)),
        Err(ExploreError::Diagnostics(d)) => return Err(super::explore::fail(&d, m, args.color)),
    };
    let explorer = MachineModel::new(machine, None).map_err(|e| fail(e.to_diagnostic()))?;
    // Partial-order reduction: the same analysis in every process (see
    // `distributed::search` for how its cycle proviso is answered there).
    let por = matches!(args.reduction, Some(Reduction::Por | Reduction::All));
    let order: Option<&'static PartialOrder> = if por {
        let order = PartialOrder::new(machine).map_err(|e| fail(e.to_diagnostic()))?;
        Some(Box::leak(Box::new(order)))
    } else {
        None
    };
    let reduced: &'static Reduced<'static, _> = Box::leak(Box::new(Reduced::new(compiled, order)));
    let n_inv = model::invariant_count(&m.spec, automaton);
    let engine = format!(
        "compiled ({} words per state, stored in {} bytes{}); process {} of {}, {} in all",
        compiled.words_per_state(),
        8 * compiled.packed_words_per_state(),
        match compiled.native_functions() {
            0 => ", expressions as word code",
            _ => "",
        },
        args.dist.process,
        cluster.processes,
        count(workers_total as u64, "worker"),
    );
    let instances = explorer.instances().len();
    print_start(&args, m, automaton, instances, n_inv, &engine);
    let progress = progress(&args);
    let report = distributed::explore(reduced, &cluster, &options, &checkpointing, progress)
        .map_err(|e| failed(&e.to_string()))?;
    let verdict = verdict(report.outcome.clone()).map_err(|e| failed(&e))?;
    let stats = totals(&report, workers_total, args.dist.workers.max(1));
    // Only process 0 writes files: processes may share a disk.
    if args.dist.process != 0 {
        args.trace = None;
        args.html = None;
    }
    let json = worker_json(&report, &cluster);
    let outcome =
        ioa::api::explore::conclude(&explorer, Report { verdict, stats }).map_err(fail)?;
    let reduction = ReductionSummary::of(
        args.symmetric.clone(),
        matches!(args.reduction, Some(Reduction::All)),
        order,
        reduction_totals(&report, args.dist.workers.max(1)).unwrap_or_default(),
    );
    let code = finish(
        &args,
        m,
        machine,
        &outcome,
        n_inv,
        Some(json),
        Some(&reduction),
    );
    if args.format == Format::Text {
        if !args.quiet {
            print_stderr(&worker_lines(&report, &cluster));
        }
        let (resume, checkpoint) = (args.dist.resume.as_deref(), args.dist.checkpoint.as_deref());
        print_stderr(&checkpoint_lines(&report, resume, checkpoint));
    }
    Ok(code)
}

/// Prints `error: MESSAGE` and returns the exit code of an error.
fn failed(message: &str) -> ExitCode {
    error(message, EXIT_ERROR)
}

/// The processes and their addresses, after checking that the options fit a distributed search.
fn cluster(args: &ExploreArgs) -> Step<Cluster> {
    let processes = args.dist.processes.unwrap_or(1);
    let refused = if processes == 0 || args.dist.process >= processes {
        format!(
            "--process must be below --processes ({} is not below {processes})",
            args.dist.process
        )
    } else if args.dist.workers == 0 {
        "--workers must be at least 1".into()
    } else if args.liveness.liveness.is_some() || args.local.local {
        "--processes explores globally; --liveness and --local run in one process".into()
    } else if args.engine == super::explore::Engine::Interpreter {
        "--processes needs the compiled engine (states travel between processes as words); drop --engine interpreter".into()
    } else {
        String::new()
    };
    if !refused.is_empty() {
        return Err(usage(refused));
    }
    let addresses = match &args.dist.hostfile {
        Some(path) => hostfile::read(path, processes).map_err(|e| usage(e.to_string()))?,
        None => hostfile::local(processes, args.dist.port),
    };
    Ok(Cluster {
        processes,
        process: args.dist.process,
        workers: args.dist.workers,
        addresses,
        timeout: std::time::Duration::from_secs(args.dist.connect_timeout),
    })
}

/// One line per finished level with --progress (or on a terminal).
fn progress(args: &ExploreArgs) -> Option<distributed::Progress> {
    let show_progress = !args.quiet
        && args.format == Format::Text
        && (args.progress || std::io::stderr().is_terminal());
    show_progress.then(|| {
        std::sync::Arc::new(|p: &LevelProgress| print_stderr(&level_line(p)))
            as distributed::Progress
    })
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
        // The option's spelling on the command line (`por`, `all`, …), stable across releases.
        "reduction": args
            .reduction
            .and_then(|r| clap::ValueEnum::to_possible_value(&r))
            .map(|v| v.get_name().to_owned()),
        "invariants": args.invariants,
        "deadlock": args.deadlock,
        "max_depth": args.max_depth,
        "workers": workers,
    })
    .to_string()
}
