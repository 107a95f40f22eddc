//! `ioa trace`: run an automaton under schedules and/or at random, chosen as `ioa infer`
//! chooses them, and write the runs for other tools without inferring anything: Daikon 5's
//! `.decls`/`.dtrace` (so the real Daikon can be run on the same runs) and ITF JSON traces.

use super::model;
use super::output::{error, exit, print_diagnostics, print_stderr, usage, Step};
use super::{ColorChoice, Format, RunsArgs};
use interpreter::machine::Machine;
use ioa::api::runs::{self, StoppedRun};
use ioa::api::trace_files::{trace_runs, TraceDirs};
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
    exit(trace(&args))
}

/// Loads the model, makes the runs and writes them.
fn trace(args: &TraceArgs) -> Step<ExitCode> {
    if args.daikon.is_none() && args.itf.is_none() {
        return Err(usage(
            "nothing to write: give --daikon DIR (Daikon's .decls/.dtrace) and/or --itf DIR \
             (ITF JSON traces)"
                .to_string(),
        ));
    }
    let (universe_file, universe) = (args.runs.universe_file.as_deref(), &args.runs.universe);
    let m = model::open(&args.file, universe_file, universe, args.color, 1)?;
    let choice = args.runs.choice();
    let selected = runs::select(&m, &choice).map_err(usage)?;
    // As for `ioa infer`: a violated model invariant must not cut a run short.
    let bare = runs::without_invariants(&m.spec);
    let machine = Machine::new(
        &bare,
        &m.universe,
        selected.automaton,
        selected.params.clone(),
    )
    .map_err(|e| model::fail(&[e.to_diagnostic()], &m.sources, args.color))?;
    let dirs = TraceDirs {
        daikon: args.daikon.as_deref(),
        itf: args.itf.as_deref(),
        file: &args.file,
        params: &choice.params,
    };
    let mut stopped = |s: StoppedRun| {
        let (label, states) = (s.label, s.states);
        print_stderr(&format!(
            "warning: {label} stopped early; its {states} state(s) are written\n"
        ));
        print_diagnostics(&[s.diagnostic], &m.sources, Format::Text, args.color);
    };
    let traced = trace_runs(&machine, &m, &selected, &choice, &dirs, &mut stopped)
        .map_err(|e| error(&e, 1))?;
    let seeds = if selected.random && choice.runs > 0 {
        let last = choice.seed.wrapping_add(choice.runs - 1);
        format!(" (random seeds {}..{last})", choice.seed)
    } else {
        String::new()
    };
    let (count, steps, states) = (traced.runs, traced.steps, traced.states);
    print_stderr(&format!(
        "traced {count} run(s) of {}{seeds}: {steps} step(s), {states} state(s)\n",
        selected.name
    ));
    if let Some(d) = traced.daikon {
        let paths = d.finish().map_err(|e| error(&e, 1))?;
        print_stderr(&format!("wrote {}\n", paths.join(" and ")));
    }
    if let (Some(f), Some(dir)) = (traced.itf, &args.itf) {
        let n = f.written.len();
        print_stderr(&format!("wrote {n} ITF trace(s) in {}\n", dir.display()));
    }
    Ok(ExitCode::SUCCESS)
}
