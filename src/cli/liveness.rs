//! `ioa liveness`: MaceMC's search for liveness bugs on instances too large for the exact
//! check. Breadth-first search to `--bfs-depth`, random walks of at most `--depth-max` steps
//! from the states at that depth, and FindCriticalTransition on the first walk that never
//! reaches the goal. Prints the seed, the dead path, the critical step `n: action`, the state
//! change at it and the state against the live path that shares its prefix, and writes both
//! paths as ITF traces `ioa replay` accepts.
//!
//! Verdicts are honest: a dead path is "suspected dead after N walks of length D", never a
//! proof; finding none proves nothing either. Exit codes: 0 no dead path found, 1 a suspected
//! dead path with its critical transition (C1), 2 error, 3 a dead path whose critical
//! transition could not be placed (C2: raise --depth-max).

use super::explore::{fail, EXIT_ERROR, EXIT_LIMIT, EXIT_VIOLATION};
use super::model;
use super::output::{exit, print_stderr, print_stdout, usage, Step};
use super::ColorChoice;
use checker::liveness::macemc::{self, BrokenInvariant, DeadPath, SearchReport};
use checker::liveness::Property;
use checker::model::MachineModel;
use interpreter::machine::Machine;
use ioa::api::liveness_common::{error_diagnostic, find_property};
use ioa::api::liveness_search::{
    campaign_report, frontier_line, no_dead_path, search_header, BrokenRun, CampaignIdentity,
    DeadRuns, SearchRequest, TraceFile, TraceTarget,
};
use ioa::api::macemc::throughput;
use ioa_lang::diagnostics::IntoDiagnostic;
use std::path::PathBuf;
use std::process::ExitCode;

/// The options of `ioa liveness`.
#[derive(Debug, Clone, clap::Args)]
pub struct LivenessSearchArgs {
    /// The model, its automaton (default: the one the property is about) and universe.
    #[command(flatten)]
    pub model: model::ModelArgs,
    /// The liveness property to search for violations of.
    #[arg(long)]
    pub property: String,
    /// The seed of every random choice (printed; the same seed gives the same report).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Random walks from the breadth-first frontier before giving up.
    #[arg(long, default_value_t = 1000)]
    pub walks: u64,
    /// The longest walk, in steps (MaceMC's d_max).
    #[arg(long, default_value_t = 200)]
    pub depth_max: u64,
    /// The breadth-first search's depth; walks start from the states at this depth.
    #[arg(long, default_value_t = 3)]
    pub bfs_depth: u32,
    /// Walks per state when FindCriticalTransition asks whether a state recovers (k).
    #[arg(long, default_value_t = 10)]
    pub recover_walks: u64,
    /// States, in all, that exact searches may store to confirm that a state no walk
    /// recovered from is dead (0: trust the walks).
    #[arg(long, default_value_t = 10_000)]
    pub confirm_states: u64,
    /// Bias walks: `NAME=WEIGHT,…` by action name or kind (input, output, internal).
    #[arg(long)]
    pub weights: Option<String>,
    /// Bound on the breadth-first search's states.
    #[arg(long)]
    pub max_states: Option<u64>,
    /// Stop starting walks after this long (`90`, `5m`).
    #[arg(long)]
    pub time_limit: Option<String>,
    /// Make only the walks w ≡ I (mod N) (`--shard I/N`); `ioa merge` combines the shards'
    /// `--report` files into the whole search's report.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Write the search's report (every walk from the frontier, the first dead path) as JSON.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Write `dead.itf.json` and `live.itf.json` (for `ioa replay`) into this folder.
    #[arg(long, value_name = "DIR")]
    pub traces: Option<PathBuf>,
    /// Print only the verdict lines, no timing.
    #[arg(long)]
    pub quiet: bool,
    /// Colour the diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// Runs `ioa liveness`.
pub fn run(args: LivenessSearchArgs) -> ExitCode {
    exit(search(&args))
}

/// Loads the model, runs the search and reports what it found.
fn search(args: &LivenessSearchArgs) -> Step<ExitCode> {
    let ma = &args.model;
    let m = model::open(
        &ma.file,
        ma.universe_file.as_deref(),
        &ma.universe,
        args.color,
        EXIT_ERROR,
    )?;
    let automaton =
        model::pick_for_property(&m.spec, ma.automaton.as_deref(), Some(&args.property))
            .map_err(usage)?;
    let params = model::params(&m.spec, automaton, &ma.params).map_err(usage)?;
    let liveness = find_property(&m.spec, automaton, &args.property).map_err(usage)?;
    let (options, shard) = request(args).options().map_err(usage)?;
    let stop = |d| fail(&[d], &m, args.color);
    let machine = Machine::new(&m.spec, &m.universe, automaton, params)
        .map_err(|e| stop(e.to_diagnostic()))?;
    let model = MachineModel::new(&machine, None).map_err(|e| stop(e.to_diagnostic()))?;
    let aut = &m.spec.automata[automaton.0 as usize].name;
    print_stderr(&search_header(&args.property, aut, liveness, &options));
    let property = Property::new(liveness);
    let report =
        macemc::search(&model, &property, &options).map_err(|e| stop(error_diagnostic(e)))?;
    if let Some(path) = &args.report {
        let who = CampaignIdentity {
            model: &ma.file,
            automaton: aut,
            property: &args.property,
            params: &ma.params,
            universe: &m.universe_text,
            weights: args.weights.as_deref(),
        };
        let doc = campaign_report(&who, &options, shard, &model, &report).map_err(stop)?;
        doc.write(path).map_err(usage)?;
    }
    if !args.quiet {
        print_stderr(&frontier_line(&report.stats));
    }
    let shown = Shown {
        args,
        m: &m,
        model: &model,
    };
    if let Some(broken) = &report.broken {
        return shown.broken(broken, &report);
    }
    match &report.dead {
        Some(dead) => shown.dead(dead, &report),
        None => {
            print_stderr(&no_dead_path(&report, args.depth_max));
            shown.throughput(&report);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The search's options as given.
fn request(args: &LivenessSearchArgs) -> SearchRequest<'_> {
    SearchRequest {
        bfs_depth: args.bfs_depth,
        walks: args.walks,
        depth_max: args.depth_max,
        recover_walks: args.recover_walks,
        confirm_states: args.confirm_states,
        seed: args.seed,
        weights: args.weights.as_deref(),
        max_states: args.max_states,
        time_limit: args.time_limit.as_deref(),
        shard: args.shard.as_deref(),
    }
}

/// What the search's findings are shown with: the options, the model, the machine.
struct Shown<'a, 'm, 's> {
    args: &'a LivenessSearchArgs,
    m: &'a model::Model,
    model: &'a MachineModel<'m, 's>,
}

impl Shown<'_, '_, '_> {
    /// A suspected dead path: the path, the critical transition, the traces and the verdict.
    fn dead(&self, dead: &DeadPath, report: &SearchReport) -> Step<ExitCode> {
        let (args, machine) = (self.args, self.model.machine());
        let runs =
            DeadRuns::replay(self.model, dead).map_err(|d| fail(&[d], self.m, args.color))?;
        for line in runs.lines(self.model, args.recover_walks, args.confirm_states) {
            print_stdout(&line);
        }
        let verdict = runs.verdict(machine, &args.property, &report.stats, args.depth_max);
        self.write_traces(runs.traces(&args.property, args.seed), "traces")?;
        print_stderr(&format!("{}\n", verdict.text));
        self.throughput(report);
        Ok(ExitCode::from(if verdict.violated {
            EXIT_VIOLATION
        } else {
            EXIT_LIMIT
        }))
    }

    /// A walk reached a state that breaks an invariant: the path, re-executed, and the trace.
    fn broken(&self, broken: &BrokenInvariant, report: &SearchReport) -> Step<ExitCode> {
        let run = BrokenRun::replay(self.model, broken)
            .map_err(|d| fail(&[d], self.m, self.args.color))?;
        for line in run.lines(self.model.machine()) {
            print_stdout(&line);
        }
        self.write_traces(
            vec![run.trace(&self.args.property, self.args.seed)],
            "trace",
        )?;
        print_stderr(&run.verdict(&self.args.property));
        self.throughput(report);
        Ok(ExitCode::from(EXIT_VIOLATION))
    }

    /// Writes the traces into `--traces DIR` (if given) and says which.
    fn write_traces(&self, traces: Vec<TraceFile>, what: &str) -> Step<()> {
        let Some(dir) = &self.args.traces else {
            return Ok(());
        };
        let target = TraceTarget {
            dir,
            model: self.m,
            file: &self.args.model.file,
            params: &self.args.model.params,
        };
        let written = target.write(self.model.machine(), traces).map_err(usage)?;
        let written = written.join(", ");
        print_stderr(&format!(
            "{what} written: {written} (check with `ioa replay`)\n"
        ));
        Ok(())
    }

    /// The throughput line, unless `--quiet`.
    fn throughput(&self, report: &SearchReport) {
        if !self.args.quiet {
            print_stderr(&format!("{}\n", throughput(&report.stats)));
        }
    }
}
