//! `ioa run`: execute an automaton under a schedule or at random, checking invariants, logging
//! steps in the paper's format and writing traces.

use super::model::{self, Model};
use super::output::{exit, print_diagnostics, print_stderr, print_stdout, usage, Step};
use super::{ColorChoice, Format};
use interpreter::machine::Machine;
use interpreter::runner::{RunReport, Runner, Stop};
use interpreter::trace::Trace;
use ioa::api::campaign::{random_campaign, Shard};
use ioa::api::diagnose::stop_diagnostic;
use ioa::api::run::{random_runs, RandomEnd, RandomRuns, Stopped};
use ioa::api::runs::find_schedule;
use ioa::api::runs::parse_weights;
use ioa_lang::diagnostics::IntoDiagnostic;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `ioa run`.
#[derive(clap::Args)]
pub struct RunArgs {
    /// The .ioa model.
    pub file: PathBuf,
    /// The automaton to run (default: the schedule's, or the only one).
    #[arg(long)]
    pub automaton: Option<String>,
    /// A value for an automaton parameter, `NAME=VALUE` (repeatable).
    #[arg(long = "param")]
    pub params: Vec<String>,
    /// Run this schedule (an NDR program in the model).
    #[arg(long, conflicts_with = "random")]
    pub schedule: Option<String>,
    /// Pick enabled action instances at random.
    #[arg(long)]
    pub random: bool,
    /// Steps per random run; for schedules, the most steps and loop iterations allowed.
    #[arg(long, default_value_t = 1000)]
    pub steps: u64,
    /// Seed of the (first) random run; run k uses SEED + k.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Number of random runs.
    #[arg(long, default_value_t = 1)]
    pub runs: u64,
    /// Bias random runs: `NAME=WEIGHT,…` by action name or kind (input, output, internal).
    #[arg(long)]
    pub weights: Option<String>,
    /// A universe line such as `Node = [0]..[2]` or `abstain.B = {[0]}, {[1]}` (repeatable).
    #[arg(long)]
    pub universe: Vec<String>,
    /// A universe file (default: MODEL.universe beside the model, if it exists).
    #[arg(long)]
    pub universe_file: Option<PathBuf>,
    /// Make only the runs k ≡ I (mod N) of the campaign (`--shard I/N`, with `--random`);
    /// `ioa merge` combines the shards' `--report` files.
    #[arg(long, value_name = "I/N", requires = "random")]
    pub shard: Option<String>,
    /// Write the campaign's report (every run, the first failure) as JSON, for `ioa merge`.
    #[arg(long, value_name = "FILE", requires = "random")]
    pub report: Option<PathBuf>,
    /// Execution steering.
    #[command(flatten)]
    pub steer: super::steer::SteerArgs,
    /// Write the run as an ITF JSON trace.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Write the run as a self-contained HTML page (as `ioa view` draws it).
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Print every step of random runs in the paper's log format.
    #[arg(long)]
    pub log: bool,
    /// Print only the summary (and the steps before a failure).
    #[arg(long)]
    pub quiet: bool,
    /// Colour the diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// Runs `ioa run`.
pub fn run(args: RunArgs) -> ExitCode {
    exit(run_model(&args))
}

/// Loads the model and the automaton, then runs its schedule, the random campaign or the
/// steering campaign.
fn run_model(args: &RunArgs) -> Step<ExitCode> {
    let (universe_file, universe) = (args.universe_file.as_deref(), &args.universe);
    let m = model::open(&args.file, universe_file, universe, args.color, 1)?;
    if args.schedule.is_none() && !args.random {
        return Err(usage(
            "say how to run: --schedule NAME, or --random [--steps N] [--seed S]".into(),
        ));
    }
    let automaton =
        model::pick_automaton(&m.spec, args.automaton.as_deref(), args.schedule.as_deref())
            .map_err(usage)?;
    let params = model::params(&m.spec, automaton, &args.params).map_err(usage)?;
    let machine = Machine::new(&m.spec, &m.universe, automaton, params)
        .map_err(|e| model::fail(&[e.to_diagnostic()], &m.sources, args.color))?;
    let shard = Shard::parse_option(args.shard.as_deref()).map_err(usage)?;
    if args.steer.steer {
        return steer(args, &m, &machine, shard);
    }
    match &args.schedule {
        Some(name) => scheduled(args, &m, &machine, name),
        None => random(args, &m, &machine, shard),
    }
}

/// `ioa run --random --steer`: the steering campaign.
fn steer(args: &RunArgs, m: &Model, machine: &Machine, shard: Option<Shard>) -> Step<ExitCode> {
    if shard.is_some() || args.report.is_some() {
        return Err(usage(
            "--shard and --report are not implemented for steering campaigns yet".into(),
        ));
    }
    let weights = parse_weights(args.weights.as_deref()).map_err(usage)?;
    let campaign = super::steer::Campaign {
        machine,
        model_file: &args.file,
        params: &args.params,
        steps: args.steps,
        seed: args.seed,
        runs: args.runs,
        weights: &weights,
        trace: args.trace.as_deref(),
        quiet: args.quiet,
        color: args.color,
    };
    Ok(super::steer::run(m, &campaign, &args.steer))
}

/// `ioa run --schedule NAME`: the schedule's run, its steps logged as they are taken.
fn scheduled(args: &RunArgs, m: &Model, machine: &Machine, name: &str) -> Step<ExitCode> {
    let schedule = find_schedule(&m.spec, name, machine.root).map_err(usage)?;
    let quiet = args.quiet;
    let mut on_step = |t: &Trace| {
        if !quiet && !t.steps.is_empty() {
            print_stdout(&t.log_line(machine, t.steps.len()));
        }
        true
    };
    let report = Runner::new(machine).schedule(schedule, args.steps, &mut on_step);
    let meta = serde_json::json!({ "schedule": name });
    Ok(finish(
        args,
        m,
        machine,
        &report,
        meta,
        &format!("schedule {name}"),
    ))
}

/// `ioa run --random`: the campaign of seeded runs (this shard's), up to the first failure.
fn random(args: &RunArgs, m: &Model, machine: &Machine, shard: Option<Shard>) -> Step<ExitCode> {
    let weights = parse_weights(args.weights.as_deref()).map_err(usage)?;
    let aut_name = &m.spec.automata[machine.root.0 as usize].name;
    print_stderr(&format!(
        "random run of {aut_name}: seed {}, {} step(s) per run, {} run(s){}\n",
        args.seed,
        args.steps,
        args.runs,
        Shard::note(shard)
    ));
    let settings = RandomRuns {
        runs: args.runs,
        seed: args.seed,
        steps: args.steps,
        weights: &weights,
        shard,
        report: args.report.as_deref(),
        campaign: random_campaign(
            &args.file,
            &args.params,
            &m.universe_text,
            (args.seed, args.steps),
            args.weights.as_deref(),
            ("automaton", aut_name),
        ),
    };
    let log = args.log && !args.quiet;
    let mut on_step = |t: &Trace| {
        if log && !t.steps.is_empty() {
            print_stdout(&t.log_line(machine, t.steps.len()));
        }
    };
    let runner = Runner::new(machine);
    match random_runs(machine, &runner, &settings, &mut on_step).map_err(usage)? {
        RandomEnd::AllHeld {
            made,
            total_steps,
            deadlocks,
        } => {
            let n_inv = model::invariant_count(&m.spec, machine.root);
            print_stderr(&format!(
                "{made} run(s), {total_steps} step(s) in all ({deadlocks} ended with no action enabled): all {n_inv} invariant(s) held\n"
            ));
            Ok(ExitCode::SUCCESS)
        }
        RandomEnd::Stopped(stopped) => Ok(stopped_run(args, m, machine, *stopped)),
    }
}

/// The run a random campaign stopped at: how it was shrunk, its outcome, how to rerun it.
fn stopped_run(args: &RunArgs, m: &Model, machine: &Machine, stopped: Stopped) -> ExitCode {
    let (seed, report) = (stopped.seed, &stopped.report);
    let which = format!("run {} of {} (seed {seed})", stopped.run + 1, args.runs);
    if let Some(found) = stopped.shrunk_from {
        let steps = report.trace.steps.len();
        print_stderr(&format!(
            "{which} failed after {found} step(s); shrunk to {steps} step(s):\n"
        ));
    }
    let code = finish(args, m, machine, report, stopped.meta, &stopped.what);
    if !report.ok() && args.runs > 1 {
        print_stderr(&format!(
            "found by {which}; rerun it with `--seed {seed} --runs 1`\n"
        ));
    }
    code
}

/// Prints the outcome, writes the trace, and returns the exit code.
fn finish(
    args: &RunArgs,
    m: &Model,
    machine: &Machine,
    report: &RunReport,
    mut meta: serde_json::Value,
    what: &str,
) -> ExitCode {
    let doc = ioa::api::itf::meta_doc(
        machine,
        ioa::api::itf::TraceMeta {
            model: &args.file,
            params: &args.params,
            universe: &m.universe_text,
            choices: &report.choices,
            extra: std::mem::take(&mut meta),
        },
    );
    let failed = stop_diagnostic(machine, report).is_some();
    let after = match super::view::write_run_files(
        args.trace.as_deref(),
        args.html.as_deref(),
        machine,
        &report.trace,
        &doc,
        failed,
    ) {
        Ok(a) => a,
        Err(e) => {
            print_stderr(&format!("error: {e}\n"));
            return ExitCode::from(1);
        }
    };
    let steps = report.trace.steps.len();
    match stop_diagnostic(machine, report) {
        None => {
            let n_inv = model::invariant_count(machine.spec, machine.root);
            let end = if matches!(report.stop, Stop::Deadlock) {
                " (then no action was enabled)"
            } else {
                ""
            };
            print_stderr(&format!(
                "{what}: {steps} step(s){end}; all {n_inv} invariant(s) held in {} state(s)\n",
                report.trace.states.len()
            ));
            print_stderr(&after);
            ExitCode::SUCCESS
        }
        Some(d) => {
            if args.quiet || (args.schedule.is_none() && !args.log) {
                // Show the trace that led here, as the paper's log.
                let start = steps.saturating_sub(20);
                if start > 0 {
                    print_stdout(&format!(
                        "… {start} earlier step(s) (write them with --trace FILE)"
                    ));
                }
                for k in start + 1..=steps {
                    print_stdout(&report.trace.log_line(machine, k));
                }
            }
            print_diagnostics(&[d], &m.sources, Format::Text, args.color);
            print_stderr(&format!("{what}: stopped after {steps} step(s)\n"));
            print_stderr(&after);
            ExitCode::from(1)
        }
    }
}
