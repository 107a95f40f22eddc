//! `ioa run`: execute an automaton under a schedule or at random, checking invariants, logging
//! steps in the paper's format and writing traces.

use super::model::{self, Model};
use super::output::{print_diagnostics, print_stderr, print_stdout, usage};
use super::{ColorChoice, Format};
use interpreter::machine::Machine;
use interpreter::runner::{RunReport, Runner, Stop};
use interpreter::trace::Trace;
use ioa::api::campaign::Shard;
use ioa::api::diagnose::stop_diagnostic;
use ioa::api::run::{random_runs, RandomEnd, RandomRuns, Stopped};
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
    let m = match model::load(
        &args.file,
        args.universe_file.as_deref(),
        &args.universe,
        None,
    ) {
        Ok(m) => m,
        Err((d, s)) => return model::fail(&d, &s, args.color),
    };
    if args.schedule.is_none() && !args.random {
        return usage("say how to run: --schedule NAME, or --random [--steps N] [--seed S]".into());
    }
    let automaton =
        match model::pick_automaton(&m.spec, args.automaton.as_deref(), args.schedule.as_deref()) {
            Ok(a) => a,
            Err(e) => return usage(e),
        };
    let params = match model::params(&m.spec, automaton, &args.params) {
        Ok(p) => p,
        Err(e) => return usage(e),
    };
    let machine = match Machine::new(&m.spec, &m.universe, automaton, params) {
        Ok(mach) => mach,
        Err(e) => return model::fail(&[e.to_diagnostic()], &m.sources, args.color),
    };
    let shard = match args.shard.as_deref().map(Shard::parse).transpose() {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    if args.steer.steer {
        if shard.is_some() || args.report.is_some() {
            return usage(
                "--shard and --report are not implemented for steering campaigns yet".into(),
            );
        }
        let weights = match parse_weights(args.weights.as_deref()) {
            Ok(w) => w,
            Err(e) => return usage(e),
        };
        let campaign = super::steer::Campaign {
            machine: &machine,
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
        return super::steer::run(&m, &campaign, &args.steer);
    }
    let runner = Runner::new(&machine);
    let aut_name = m.spec.automata[automaton.0 as usize].name.clone();
    if let Some(name) = &args.schedule {
        let Some(schedule) = m.spec.schedules.iter().find(|s| &s.name == name) else {
            let known: Vec<&str> = m.spec.schedules.iter().map(|s| s.name.as_str()).collect();
            return usage(format!(
                "no schedule `{name}`; the model has: {}",
                known.join(", ")
            ));
        };
        if schedule.automaton != automaton {
            return usage(format!(
                "schedule `{name}` drives `{}`, not `{aut_name}`",
                m.spec.automata[schedule.automaton.0 as usize].name
            ));
        }
        let quiet = args.quiet;
        let mut on_step = |t: &Trace| {
            if !quiet && !t.steps.is_empty() {
                print_stdout(&t.log_line(&machine, t.steps.len()));
            }
            true
        };
        let report = runner.schedule(schedule, args.steps, &mut on_step);
        let meta = serde_json::json!({ "schedule": name });
        return finish(
            &args,
            &m,
            &machine,
            &report,
            meta,
            &format!("schedule {name}"),
        );
    }
    let weights = match parse_weights(args.weights.as_deref()) {
        Ok(w) => w,
        Err(e) => return usage(e),
    };
    let of_shard = Shard::note(shard);
    print_stderr(&format!(
        "random run of {aut_name}: seed {}, {} step(s) per run, {} run(s){of_shard}\n",
        args.seed, args.steps, args.runs
    ));
    let settings = RandomRuns {
        runs: args.runs,
        seed: args.seed,
        steps: args.steps,
        weights: &weights,
        shard,
        report: args.report.as_deref(),
        campaign: serde_json::json!({
            "model": args.file.display().to_string(),
            "automaton": aut_name,
            "params": args.params,
            "universe": m.universe_text,
            "seed": args.seed,
            "steps": args.steps,
            "weights": args.weights,
        }),
    };
    let log = args.log && !args.quiet;
    let mut on_step = |t: &Trace| {
        if log && !t.steps.is_empty() {
            print_stdout(&t.log_line(&machine, t.steps.len()));
        }
    };
    match random_runs(&machine, &runner, &settings, &mut on_step) {
        Err(e) => usage(e),
        Ok(RandomEnd::AllHeld {
            made,
            total_steps,
            deadlocks,
        }) => {
            let n_inv = model::invariant_count(&m.spec, automaton);
            print_stderr(&format!(
                "{made} run(s), {total_steps} step(s) in all ({deadlocks} ended with no action enabled): all {n_inv} invariant(s) held\n"
            ));
            ExitCode::SUCCESS
        }
        Ok(RandomEnd::Stopped(stopped)) => {
            let Stopped {
                run: r,
                seed,
                report,
                meta,
                what,
                shrunk_from,
            } = *stopped;
            if let Some(found) = shrunk_from {
                print_stderr(&format!(
                    "run {} of {} (seed {seed}) failed after {found} step(s); shrunk to {} step(s):\n",
                    r + 1,
                    args.runs,
                    report.trace.steps.len()
                ));
            }
            let code = finish(&args, &m, &machine, &report, meta, &what);
            if !report.ok() && args.runs > 1 {
                print_stderr(&format!(
                    "found by run {} of {} (seed {seed}); rerun it with `--seed {seed} --runs 1`\n",
                    r + 1,
                    args.runs
                ));
            }
            code
        }
    }
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
