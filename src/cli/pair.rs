//! `ioa pair`: paired execution of a forward simulation's implementation and specification
//! through its proof block, under A's schedule or random runs of A.

use super::model;
use super::output::{exit, print_diagnostics, print_json, print_stderr, print_stdout, usage, Step};
use super::{ColorChoice, Format};
use interpreter::machine::Machine;
use interpreter::runner::Runner;
use interpreter::trace::Trace;
use ioa::api::campaign::{random_campaign, Shard};
use ioa::api::pair::{pair_params, paired_run, PairedRun as Outcome, RunWith};
use ioa::api::pair_campaign::{
    all_matched_json, find_simulation, implementation_schedule, paired_campaign, paired_run_json,
    PairedEnd,
};
use ioa::api::run::RandomRuns;
use ioa::api::runs::parse_weights;
use ioa_lang::diagnostics::IntoDiagnostic;
use ioa_lang::ir::Simulation;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `ioa pair`.
#[derive(clap::Args)]
pub struct PairArgs {
    /// The .ioa model (with both automata and the simulation).
    pub file: PathBuf,
    /// The simulation (default: the only one).
    #[arg(long)]
    pub simulation: Option<String>,
    /// Drive the implementation with this schedule.
    #[arg(long, conflicts_with = "random")]
    pub schedule: Option<String>,
    /// Drive the implementation with random runs.
    #[arg(long)]
    pub random: bool,
    /// Number of random runs.
    #[arg(long, default_value_t = 1)]
    pub runs: u64,
    /// Steps per random run (and the most a schedule may take).
    #[arg(long, default_value_t = 1000)]
    pub steps: u64,
    /// Seed of the first random run; run k uses SEED + k.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Bias random runs: `NAME=WEIGHT,…` by action name or kind (input, output, internal).
    #[arg(long)]
    pub weights: Option<String>,
    /// Make only the runs k ≡ I (mod N) of the campaign (`--shard I/N`, with `--random`);
    /// `ioa merge` combines the shards' `--report` files.
    #[arg(long, value_name = "I/N", requires = "random")]
    pub shard: Option<String>,
    /// Write the campaign's report (every run, the first failure) as JSON, for `ioa merge`.
    #[arg(long, value_name = "FILE", requires = "random")]
    pub report: Option<PathBuf>,
    /// A value for a parameter, `NAME=VALUE` (repeatable): given to the implementation and
    /// to the specification alike, to whichever declares a parameter of that name.
    #[arg(long = "param")]
    pub params: Vec<String>,
    /// A universe line (repeatable); see `ioa run --help`.
    #[arg(long)]
    pub universe: Vec<String>,
    /// A universe file (default: MODEL.universe or default.universe beside the model).
    #[arg(long)]
    pub universe_file: Option<PathBuf>,
    /// Write the implementation's run (the failing one, shrunk, or the schedule's) as an ITF
    /// JSON trace that `ioa replay` re-executes.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Write the implementation's run as a self-contained HTML page (as `ioa view` draws it).
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Print every step of the implementation with the specification steps fired for it.
    #[arg(long)]
    pub log: bool,
    /// Print only the verdict and the diagnostic, not the steps before a failure.
    #[arg(long)]
    pub quiet: bool,
    /// Report as text (stderr) or JSON (stdout).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Colour the diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// Runs `ioa pair`.
pub fn run(args: PairArgs) -> ExitCode {
    exit(pair(&args))
}

/// Loads the model, the simulation and its two automata, then pairs them under the schedule
/// or the random campaign.
fn pair(args: &PairArgs) -> Step<ExitCode> {
    let (universe_file, universe) = (args.universe_file.as_deref(), &args.universe);
    let m = model::open(&args.file, universe_file, universe, args.color, 1)?;
    let sim = find_simulation(&m.spec, args.simulation.as_deref()).map_err(usage)?;
    if args.schedule.is_none() && !args.random {
        return Err(usage(
            "say how to drive the implementation: --schedule NAME, or --random".into(),
        ));
    }
    let params = pair_params(&m.spec, sim, &args.params).map_err(usage)?;
    let fail = |d| model::fail(&[d], &m.sources, args.color);
    let a = Machine::new(&m.spec, &m.universe, sim.from, params.a)
        .map_err(|e| fail(e.to_diagnostic()))?;
    let b = Machine::new(&m.spec, &m.universe, sim.to, params.b)
        .map_err(|e| fail(e.to_diagnostic()))?;
    let weights = parse_weights(args.weights.as_deref()).map_err(usage)?;
    let shard = Shard::parse_option(args.shard.as_deref()).map_err(usage)?;
    let pairing = Pairing {
        args,
        m: &m,
        sim,
        a: &a,
        b: &b,
    };
    let (outcome, what) = match &args.schedule {
        Some(name) => {
            let schedule = implementation_schedule(&m.spec, name, sim.from).map_err(usage)?;
            let runner = Runner::new(&a);
            let mut run =
                |cb: &mut dyn FnMut(&Trace) -> bool| runner.schedule(schedule, args.steps, cb);
            (pairing.drive(&mut run, true), format!("schedule {name}"))
        }
        None => match pairing.random(&weights, shard)? {
            Some(failed) => failed,
            None => return Ok(ExitCode::SUCCESS),
        },
    };
    Ok(report(args, &m, sim, &a, &params.a_given, &outcome, &what))
}

/// What a paired run needs: the options, the model, the simulation and its two machines.
struct Pairing<'a, 's> {
    args: &'a PairArgs,
    m: &'a model::Model,
    sim: &'a Simulation,
    a: &'a Machine<'s>,
    b: &'a Machine<'s>,
}

impl Pairing<'_, '_> {
    /// One paired run; its steps are logged (with `--log`, in text) when `show`.
    fn drive(&self, run: &mut RunWith, show: bool) -> Outcome {
        let args = self.args;
        let log = show && args.log && !args.quiet && args.format == Format::Text;
        let b_name = &self.m.spec.automata[self.sim.to.0 as usize].name;
        let mut show = |k: usize, t: &Trace, b_lines: &[String]| {
            if log {
                if k > 0 {
                    print_stdout(&t.log_line(self.a, k));
                }
                for line in b_lines {
                    print_stdout(&format!("    ↳ {line} in automaton {b_name}"));
                }
            }
        };
        paired_run(&self.m.spec, self.sim, self.a, self.b, run, &mut show)
    }

    /// The random campaign: the failed run (shrunk) and how it is named, or `None` when every
    /// step of every run matched (said here).
    fn random(
        &self,
        weights: &interpreter::runner::Weights,
        shard: Option<Shard>,
    ) -> Step<Option<(Outcome, String)>> {
        let (args, sim) = (self.args, self.sim);
        let name = |id: ioa_lang::ir::AutomatonId| &self.m.spec.automata[id.0 as usize].name;
        let (a_name, b_name) = (name(sim.from), name(sim.to));
        if args.format == Format::Text {
            print_stderr(&format!(
                "paired random runs of {a_name} and {b_name}: seed {}, {} step(s) per run, {} run(s){}\n",
                args.seed, args.steps, args.runs, Shard::note(shard)
            ));
        }
        let campaign = RandomRuns {
            runs: args.runs,
            seed: args.seed,
            steps: args.steps,
            weights,
            shard,
            report: args.report.as_deref(),
            campaign: random_campaign(
                &args.file,
                &args.params,
                &self.m.universe_text,
                (args.seed, args.steps),
                args.weights.as_deref(),
                ("simulation", &sim.name),
            ),
        };
        let mut drive = |run: &mut RunWith, show: bool| self.drive(run, show);
        match paired_campaign(sim, self.a, &campaign, &mut drive).map_err(usage)? {
            PairedEnd::Failed {
                outcome,
                label,
                shrunk_from: Some(found),
            } => {
                let steps = outcome.trace.steps.len();
                print_stderr(&format!(
                    "{label} failed after {found} step(s); shrunk to {steps} step(s):\n"
                ));
                Ok(Some((
                    *outcome,
                    format!("{label}, shrunk from {found} steps"),
                )))
            }
            PairedEnd::Failed { outcome, label, .. } => Ok(Some((*outcome, label))),
            PairedEnd::AllMatched {
                made,
                steps,
                per_action,
            } => {
                self.all_matched(made, steps, &per_action);
                Ok(None)
            }
        }
    }

    /// Says that every step of every run matched, with how often each action ran (which
    /// shows whether crashes, losses and decisions were exercised at all).
    fn all_matched(&self, made: u64, steps: usize, per_action: &[(String, u64)]) {
        let (args, sim) = (self.args, self.sim);
        if args.format == Format::Json {
            print_stdout(&all_matched_json(sim, made, steps, per_action).to_string());
        } else {
            let a_name = &self.m.spec.automata[sim.from.0 as usize].name;
            print_stderr(&format!("paired execution of simulation {}: {made} random run(s), {steps} step(s) of {a_name}: every step matched, the relation held throughout\n", sim.name));
            if !args.quiet {
                let text: Vec<String> =
                    per_action.iter().map(|(n, k)| format!("{n} {k}")).collect();
                print_stderr(&format!("steps per action: {}\n", text.join(", ")));
            }
        }
        if let Some(path) = &args.trace {
            print_stderr(&format!(
                "no run failed, so no trace was written to `{}` (a schedule's run is written even when it passes)\n",
                path.display()
            ));
        }
    }
}

/// Writes the run's trace and page, and reports the paired run (text or JSON).
fn report(
    args: &PairArgs,
    m: &model::Model,
    sim: &Simulation,
    a: &Machine,
    a_params: &[String],
    o: &Outcome,
    what: &str,
) -> ExitCode {
    let steps = o.trace.steps.len();
    let diag = o.diagnostic(sim);
    let mut extra = serde_json::json!({ "pair": { "simulation": sim.name, "run": what } });
    if let Some(d) = &diag {
        // The page of `ioa view` highlights this step.
        let step = o.failure.as_ref().map_or(steps, |f| f.step);
        extra["failure"] = serde_json::json!({ "step": step, "message": d.message });
    }
    let doc = ioa::api::itf::meta_doc(
        a,
        ioa::api::itf::TraceMeta {
            model: &args.file,
            params: a_params,
            universe: &m.universe_text,
            choices: &o.choices,
            extra,
        },
    );
    let (trace, html) = (args.trace.as_deref(), args.html.as_deref());
    let after = match super::view::write_run_files(trace, html, a, &o.trace, &doc, diag.is_some()) {
        Ok(after) => after,
        Err(e) => {
            print_stderr(&format!("error: {e}\n"));
            return ExitCode::from(2);
        }
    };
    if args.format == Format::Json {
        print_json(&paired_run_json(sim, a, o, what, &m.sources));
        return ExitCode::from(if diag.is_none() { 0 } else { 1 });
    }
    let Some(d) = diag else {
        print_stderr(&format!("paired execution of simulation {} ({what}): {steps} step(s) matched, the relation held throughout\n", sim.name));
        print_stderr(&after);
        return ExitCode::SUCCESS;
    };
    if !args.quiet && !args.log {
        let start = steps.saturating_sub(20);
        if start > 0 {
            print_stdout(&format!("… {start} earlier step(s)"));
        }
        for k in start + 1..=steps {
            print_stdout(&o.trace.log_line(a, k));
        }
    }
    print_diagnostics(&[d], &m.sources, Format::Text, args.color);
    print_stderr(&format!(
        "paired execution of simulation {} ({what}) failed at step {steps}\n",
        sim.name
    ));
    print_stderr(&after);
    ExitCode::from(1)
}
