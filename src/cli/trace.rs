//! `ioa trace`: run an automaton under schedules and/or at random, chosen as `ioa infer`
//! chooses them, and write the runs for other tools without inferring anything: Daikon 5's
//! `.decls`/`.dtrace` (so the real Daikon can be run on the same runs) and ITF JSON traces.

use super::model;
use super::output::{error, print_diagnostics, print_stderr, usage};
use super::{ColorChoice, Format, RunsArgs};
use interpreter::machine::Machine;
use interpreter::runner::{RunReport, Runner};
use ioa::api::runs::{self, RunId};
use ioa::api::trace_files::{DaikonFiles, ItfFiles};
use ioa_lang::diagnostics::IntoDiagnostic;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `ioa trace`.
#[derive(clap::Args)]
pub struct TraceArgs {
    /// The .ioa model.
    pub file: PathBuf,
    #[command(flatten)]
    pub runs: RunsArgs,
    /// Write DIR/A.decls and DIR/A.dtrace in Daikon 5's format.
    #[arg(long, value_name = "DIR")]
    pub daikon: Option<PathBuf>,
    /// Write one ITF JSON trace per run as DIR/schedule-S.itf.json, DIR/random-SEED.itf.json.
    #[arg(long, value_name = "DIR")]
    pub itf: Option<PathBuf>,
    /// Colour the diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// Runs `ioa trace`.
pub fn run(args: TraceArgs) -> ExitCode {
    if args.daikon.is_none() && args.itf.is_none() {
        return usage(
            "nothing to write: give --daikon DIR (Daikon's .decls/.dtrace) and/or --itf DIR \
             (ITF JSON traces)"
                .to_string(),
        );
    }
    let m = match model::load(
        &args.file,
        args.runs.universe_file.as_deref(),
        &args.runs.universe,
        None,
    ) {
        Ok(m) => m,
        Err((d, s)) => return model::fail(&d, &s, args.color),
    };
    let choice = args.runs.choice();
    let selected = match runs::select(&m, &choice) {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    // As for `ioa infer`: a violated model invariant must not cut a run short.
    let mut bare = m.spec.clone();
    bare.invariants.clear();
    let machine = match Machine::new(
        &bare,
        &m.universe,
        selected.automaton,
        selected.params.clone(),
    ) {
        Ok(x) => x,
        Err(e) => return model::fail(&[e.to_diagnostic()], &m.sources, args.color),
    };
    let mut daikon = match args
        .daikon
        .as_deref()
        .map(|d| DaikonFiles::create(d, &machine))
    {
        Some(Ok(d)) => Some(d),
        Some(Err(e)) => return error(&e, 1),
        None => None,
    };
    let mut itf = match args
        .itf
        .as_deref()
        .map(|d| ItfFiles::create(d, &args.file, &m, &choice.params))
    {
        Some(Ok(d)) => Some(d),
        Some(Err(e)) => return error(&e, 1),
        None => None,
    };
    let runner = Runner::new(&machine);
    let (mut count, mut states, mut steps) = (0u64, 0u64, 0u64);
    let mut each = |id: RunId, report: RunReport| -> Result<(), String> {
        if let Some(d) = ioa::api::diagnose::stop_diagnostic(&machine, &report) {
            print_stderr(&format!(
                "warning: {} stopped early; its {} state(s) are written\n",
                id.label(),
                report.trace.states.len()
            ));
            print_diagnostics(&[d], &m.sources, Format::Text, args.color);
        }
        count += 1;
        states += report.trace.states.len() as u64;
        steps += report.trace.steps.len() as u64;
        if let Some(d) = daikon.as_mut() {
            d.trace(&report.trace)?;
        }
        if let Some(f) = itf.as_mut() {
            f.trace(&id, &machine, &report)?;
        }
        Ok(())
    };
    if let Err(e) = runs::for_each_run(&runner, &selected, &choice, &mut each) {
        return error(&e, 1);
    }
    let seeds = if selected.random && choice.runs > 0 {
        format!(
            " (random seeds {}..{})",
            choice.seed,
            choice.seed.wrapping_add(choice.runs - 1)
        )
    } else {
        String::new()
    };
    print_stderr(&format!(
        "traced {count} run(s) of {}{seeds}: {steps} step(s), {states} state(s)\n",
        selected.name
    ));
    if let Some(d) = daikon {
        match d.finish() {
            Ok(paths) => print_stderr(&format!("wrote {}\n", paths.join(" and "))),
            Err(e) => return error(&e, 1),
        }
    }
    if let Some(f) = itf {
        print_stderr(&format!(
            "wrote {} ITF trace(s) in {}\n",
            f.written.len(),
            args.itf
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        ));
    }
    ExitCode::SUCCESS
}
