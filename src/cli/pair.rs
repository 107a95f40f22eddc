//! `ioa pair`: paired execution of a forward simulation's implementation and specification
//! through its proof block, under A's schedule or random runs of A.

use super::model;
use super::output::{print_diagnostics, print_stderr, print_stdout, usage};
use super::{ColorChoice, Format};
use interpreter::machine::Machine;
use interpreter::runner::Runner;
use interpreter::trace::Trace;
use ioa::api::campaign::{self, CampaignReport, FailureRecord, RunRecord, Shard};
use ioa::api::pair::{
    failure_diagnostic, failure_json, pair_params, paired_run, shrink_paired, PairedRun as Outcome,
    RunWith,
};
use ioa_lang::diagnostics::IntoDiagnostic;
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
    let m = match model::load(
        &args.file,
        args.universe_file.as_deref(),
        &args.universe,
        None,
    ) {
        Ok(m) => m,
        Err((d, s)) => return model::fail(&d, &s, args.color),
    };
    let sim = match &args.simulation {
        Some(n) => m.spec.simulations.iter().find(|s| &s.name == n),
        None if m.spec.simulations.len() == 1 => m.spec.simulations.first(),
        None => None,
    };
    let Some(sim) = sim else {
        let names: Vec<&str> = m.spec.simulations.iter().map(|s| s.name.as_str()).collect();
        return usage(format!(
            "say which simulation with --simulation NAME; the model has: {}",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ));
    };
    if args.schedule.is_none() && !args.random {
        return usage("say how to drive the implementation: --schedule NAME, or --random".into());
    }
    let params = match pair_params(&m.spec, sim, &args.params) {
        Ok(p) => p,
        Err(e) => return usage(e),
    };
    let a = match Machine::new(&m.spec, &m.universe, sim.from, params.a) {
        Ok(x) => x,
        Err(e) => return model::fail(&[e.to_diagnostic()], &m.sources, args.color),
    };
    let b = match Machine::new(&m.spec, &m.universe, sim.to, params.b) {
        Ok(x) => x,
        Err(e) => return model::fail(&[e.to_diagnostic()], &m.sources, args.color),
    };
    let a_name = m.spec.automata[sim.from.0 as usize].name.clone();
    let b_name = m.spec.automata[sim.to.0 as usize].name.clone();
    let runner = Runner::new(&a);
    let weights = match ioa::api::runs::parse_weights(args.weights.as_deref()) {
        Ok(w) => w,
        Err(e) => return usage(e),
    };
    let shard = match args.shard.as_deref().map(Shard::parse).transpose() {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    let log = args.log && !args.quiet && args.format == Format::Text;
    let drive = |run: &mut RunWith, log: bool| -> Outcome {
        let mut show = |k: usize, t: &Trace, b_lines: &[String]| {
            if log {
                if k > 0 {
                    print_stdout(&t.log_line(&a, k));
                }
                for line in b_lines {
                    print_stdout(&format!("    ↳ {line} in automaton {b_name}"));
                }
            }
        };
        paired_run(&m.spec, sim, &a, &b, run, &mut show)
    };
    let (outcome, what) = if let Some(name) = &args.schedule {
        let Some(schedule) = m
            .spec
            .schedules
            .iter()
            .find(|s| &s.name == name && s.automaton == sim.from)
        else {
            let known: Vec<&str> = m
                .spec
                .schedules
                .iter()
                .filter(|s| s.automaton == sim.from)
                .map(|s| s.name.as_str())
                .collect();
            return usage(format!(
                "no schedule `{name}` for `{a_name}`; the model has: {}",
                known.join(", ")
            ));
        };
        (
            drive(&mut |cb| runner.schedule(schedule, args.steps, cb), log),
            format!("schedule {name}"),
        )
    } else {
        if args.format == Format::Text {
            let of_shard = Shard::note(shard);
            print_stderr(&format!(
                "paired random runs of {a_name} and {b_name}: seed {}, {} step(s) per run, {} run(s){of_shard}\n",
                args.seed, args.steps, args.runs
            ));
        }
        let campaign = serde_json::json!({
            "model": args.file.display().to_string(),
            "simulation": sim.name,
            "params": args.params,
            "universe": m.universe_text,
            "seed": args.seed,
            "steps": args.steps,
            "weights": args.weights,
        });
        let write_report = |records: Vec<RunRecord>, failure: Option<FailureRecord>| {
            let Some(path) = &args.report else {
                return Ok(());
            };
            CampaignReport::new("pair", campaign.clone(), args.runs, shard, records, failure)
                .write(path)
        };
        let mut records = Vec::new();
        let mut total = 0;
        let mut made = 0u64;
        let mut fired = vec![0u64; a.actions.len()];
        let mut result = None;
        for r in (0..args.runs).filter(|&r| campaign::mine(shard, r)) {
            made += 1;
            let seed = args.seed.wrapping_add(r);
            let o = drive(&mut |cb| runner.random(seed, args.steps, &weights, cb), log);
            total += o.trace.steps.len();
            let failed = o.failure.is_some() || o.other.is_some();
            records.push(RunRecord {
                run: r,
                seed,
                steps: o.trace.steps.len() as u64,
                outcome: if failed { "failed" } else { "ok" }.to_string(),
            });
            for st in &o.trace.steps {
                fired[st.action] += 1;
            }
            if o.failure.is_some() || o.other.is_some() {
                let found = o.trace.steps.len();
                let shrunk = shrink_paired(&o, &mut |list| {
                    drive(&mut |cb| runner.actions(list, cb), false)
                });
                let label = format!("run {} of {} (seed {seed})", r + 1, args.runs);
                let shown = shrunk.as_ref().unwrap_or(&o);
                let diag = shown
                    .failure
                    .as_ref()
                    .map(|f| failure_diagnostic(sim, f))
                    .or_else(|| shown.other.clone());
                let detail = serde_json::json!({
                    "diagnostic": diag.map(|d| d.message),
                    "failure": shown.failure.as_ref().map(failure_json),
                    "failed_after": found,
                    "shrunk_to": shrunk.as_ref().map(|x| x.trace.steps.len()),
                    "log": (1..=shown.trace.steps.len()).map(|k| shown.trace.log_line(&a, k)).collect::<Vec<_>>(),
                    "specification_steps": shown.b_log,
                });
                let failure = FailureRecord {
                    run: r,
                    seed,
                    detail,
                };
                if let Err(e) = write_report(std::mem::take(&mut records), Some(failure)) {
                    return usage(e);
                }
                result = Some(match shrunk {
                    Some(x) => {
                        print_stderr(&format!(
                            "{label} failed after {found} step(s); shrunk to {} step(s):\n",
                            x.trace.steps.len()
                        ));
                        (x, format!("{label}, shrunk from {found} steps"))
                    }
                    None => (o, label),
                });
                break;
            }
        }
        match result {
            Some(r) => r,
            None => {
                if let Err(e) = write_report(records, None) {
                    return usage(e);
                }
                let msg = format!("paired execution of simulation {}: {made} random run(s), {total} step(s) of {a_name}: every step matched, the relation held throughout", sim.name);
                // How often each action of A ran: shows whether crashes, losses and decisions
                // were exercised at all.
                let counts: Vec<(String, u64)> = a
                    .actions
                    .iter()
                    .zip(&fired)
                    .map(|(act, n)| (act.name.clone(), *n))
                    .collect();
                if args.format == Format::Json {
                    print_stdout(&serde_json::json!({ "simulation": sim.name, "ok": true, "runs": made, "steps": total, "steps_per_action": counts.iter().map(|(n, k)| (n.clone(), serde_json::Value::from(*k))).collect::<serde_json::Map<String, serde_json::Value>>() }).to_string());
                } else {
                    print_stderr(&format!("{msg}\n"));
                    if !args.quiet {
                        let text: Vec<String> =
                            counts.iter().map(|(n, k)| format!("{n} {k}")).collect();
                        print_stderr(&format!("steps per action: {}\n", text.join(", ")));
                    }
                }
                if let Some(path) = &args.trace {
                    print_stderr(&format!(
                        "no run failed, so no trace was written to `{}` (a schedule's run is written even when it passes)\n",
                        path.display()
                    ));
                }
                return ExitCode::SUCCESS;
            }
        }
    };
    report(&args, &m, sim, &a, &params.a_given, &outcome, &what)
}

fn report(
    args: &PairArgs,
    m: &model::Model,
    sim: &ioa_lang::ir::Simulation,
    a: &Machine,
    a_params: &[String],
    o: &Outcome,
    what: &str,
) -> ExitCode {
    let steps = o.trace.steps.len();
    let lines: Vec<String> = (1..=steps).map(|k| o.trace.log_line(a, k)).collect();
    let diag = o
        .failure
        .as_ref()
        .map(|f| failure_diagnostic(sim, f))
        .or_else(|| o.other.clone());
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
    let after = match super::view::write_run_files(
        args.trace.as_deref(),
        args.html.as_deref(),
        a,
        &o.trace,
        &doc,
        diag.is_some(),
    ) {
        Ok(after) => after,
        Err(e) => {
            print_stderr(&format!("error: {e}\n"));
            return ExitCode::from(2);
        }
    };
    if args.format == Format::Json {
        let doc = serde_json::json!({
            "simulation": sim.name,
            "ok": diag.is_none(),
            "run": what,
            "steps": steps,
            "implementation_trace": lines,
            "specification_steps": o.b_log,
            "failure": o.failure.as_ref().map(failure_json),
            "diagnostic": diag.as_ref().map(|d| ioa_lang::diagnostics::to_json(d, &m.sources)),
        });
        print_stdout(&serde_json::to_string_pretty(&doc).expect("JSON"));
        return if diag.is_none() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        };
    }
    match diag {
        None => {
            print_stderr(&format!("paired execution of simulation {} ({what}): {steps} step(s) matched, the relation held throughout\n", sim.name));
            print_stderr(&after);
            ExitCode::SUCCESS
        }
        Some(d) => {
            if !args.quiet && !args.log {
                let start = lines.len().saturating_sub(20);
                if start > 0 {
                    print_stdout(&format!("… {start} earlier step(s)"));
                }
                for l in &lines[start..] {
                    print_stdout(l);
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
    }
}
