//! `ioa predict`: consequence prediction (CrystalBall) from a snapshot — the start state, or
//! state K of an ITF trace — to a depth bound: which short futures break an invariant. Every
//! predicted violation is a path the interpreter re-executes from the snapshot; the first is
//! written as an ITF trace from the model's start (`--trace`). `--compare-bfs` runs plain
//! breadth-first search to the same depth in the same run.

use super::model::Model;
use super::output::{exit, print_diagnostics, print_json, print_stderr, print_stdout, usage, Step};
use super::{ColorChoice, Format};
use checker::predict::PredictReport;
use interpreter::machine::Machine;
use interpreter::runner::RunReport;
use ioa::api::explore::ExploreError;
use ioa::api::predict::{comparison, json, predict_from, summary, PredictRequest, Predicted};
use ioa::api::snapshot::Snapshot;
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `ioa predict`.
#[derive(clap::Args)]
pub struct PredictArgs {
    /// The model: file, automaton, parameters, universe.
    #[command(flatten)]
    model: super::model::ModelArgs,
    /// Predict from a state of this ITF trace (default: from the model's start state).
    #[arg(long, value_name = "TRACE")]
    from: Option<PathBuf>,
    /// With --from: the state to predict from (0 is the trace's first; default: its last).
    #[arg(long, requires = "from", value_name = "K")]
    at: Option<usize>,
    /// Explore futures of at most this many steps.
    #[arg(long, default_value_t = 8)]
    max_depth: u32,
    /// Stop after this much time (`30`, `30s`, `5m`).
    #[arg(long)]
    time_limit: Option<String>,
    /// Also run plain breadth-first search to the same depth and print both.
    #[arg(long)]
    compare_bfs: bool,
    /// Leave these state variables out of the state hash (history variables), by name in
    /// every node (`x`) or with the member (`P[0].x`); comma-separated.
    #[arg(long, value_delimiter = ',')]
    hash_ignore: Vec<String>,
    /// Leave these actions out of the search, by name, comma-separated: an environment
    /// assumption about the futures that matter (e.g. no loss or duplication from here on).
    #[arg(long, value_delimiter = ',', value_name = "ACTION")]
    without: Vec<String>,
    /// Write the first predicted violation as an ITF trace (from the model's start).
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Leave out timings (for reproducible output).
    #[arg(long)]
    quiet: bool,
    /// Print the report as text or JSON.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Colour the diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

fn fail(diags: &[Diagnostic], m: &Model, color: ColorChoice) -> ExitCode {
    print_diagnostics(diags, &m.sources, Format::Text, color);
    ExitCode::from(2)
}

/// Runs `ioa predict`.
pub fn run(args: PredictArgs) -> ExitCode {
    exit(predict(&args))
}

/// Loads the model, predicts from the snapshot, writes the first violation and reports.
fn predict(args: &PredictArgs) -> Step<ExitCode> {
    let (m, automaton, params) = args.model.open(args.color, 1)?;
    let time_limit = args
        .time_limit
        .as_deref()
        .map(super::explore::parse_duration)
        .transpose()
        .map_err(|e| usage(format!("--time-limit: {e}")))?;
    let machine = Machine::new(&m.spec, &m.universe, automaton, params)
        .map_err(|e| fail(&[e.to_diagnostic()], &m, args.color))?;
    let request = PredictRequest {
        from: args.from.as_deref(),
        at: args.at,
        hash_ignore: &args.hash_ignore,
        without: &args.without,
        max_depth: args.max_depth,
        time_limit,
        compare_bfs: args.compare_bfs,
    };
    let predicted = match predict_from(&machine, &request) {
        Ok(p) => p,
        Err(ExploreError::Usage(e)) => return Err(usage(e)),
        Err(ExploreError::Diagnostics(d)) => return Err(fail(&d, &m, args.color)),
    };
    let Predicted {
        snapshot: snap,
        report,
        bfs,
        first,
    } = &predicted;
    if let (Some(file), Some(r)) = (&args.trace, first) {
        let meta = ioa::api::itf::TraceMeta {
            model: &args.model.file,
            params: &args.model.params,
            universe: &m.universe_text,
            choices: &r.choices,
            extra: serde_json::json!({ "predict": { "from_step": snap.prefix.steps.len() } }),
        };
        super::view::write_trace(file, &machine, &r.trace, meta, 2)?;
    }
    if args.format == Format::Json {
        print_json(&json(&machine, report, bfs.as_ref()));
    } else {
        print_text(args, &m, &machine, snap, report, first.as_ref());
        if let Some(b) = bfs {
            print_stderr(&comparison(report, b, args.quiet));
        }
    }
    Ok(ExitCode::from(u8::from(!report.predictions.is_empty())))
}

fn print_text(
    args: &PredictArgs,
    m: &Model,
    machine: &Machine,
    snap: &Snapshot,
    report: &PredictReport,
    first: Option<&RunReport>,
) {
    if let Some(r) = first {
        for k in 1..=r.trace.steps.len() {
            print_stdout(&r.trace.log_line(machine, k));
        }
        if let Some(d) = ioa::api::diagnose::stop_diagnostic(machine, r) {
            print_diagnostics(&[d], &m.sources, Format::Text, args.color);
        }
    }
    print_stderr(&summary(
        machine,
        report,
        snap.prefix.steps.len(),
        args.max_depth,
        args.quiet,
    ));
}
