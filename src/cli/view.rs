//! `ioa view`: a trace written by `ioa run`, `pair`, `explore` (or any ITF trace of an ioa
//! model) as one self-contained HTML page (message-sequence chart, steps, states with their
//! diffs) or as the chart alone in SVG.

use super::output::print_stderr;
use super::replay::open_trace;
use super::ColorChoice;
use ioa::view::{chart, page, svg};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Options of `ioa view`.
#[derive(clap::Args)]
pub struct ViewArgs {
    /// The ITF JSON trace.
    trace: PathBuf,
    /// Where to write the page (default: the trace's name with `.html`).
    #[arg(short = 'o', long = "output", conflicts_with = "svg")]
    output: Option<PathBuf>,
    /// Write only the sequence chart, as SVG, to this file.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// The model, if not the one the trace names.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Colour the diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

/// `TRACE.json` → `TRACE.html`.
pub fn default_page_path(trace: &Path) -> PathBuf {
    trace.with_extension("html")
}

/// Writes the page of an opened trace to `path`; returns what to print.
pub(super) fn write_page(
    path: &Path,
    machine: &interpreter::machine::Machine,
    trace: &interpreter::trace::Trace,
    meta: &serde_json::Value,
) -> Result<String, String> {
    let c = chart::build(machine, trace, meta);
    std::fs::write(path, page::render(&c))
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    Ok(summary(&c, path))
}

/// What a command prints after writing the trace of a failure: how to look at it.
pub(super) fn hint(trace: &Path) -> String {
    format!("view it: ioa view {}\n", trace.display())
}

/// Writes the trace (`--trace`) and the page (`--html`) of a run whose `#meta` is `doc`.
/// Returns what to print after the verdict: what page was written, or, when `failed` and no
/// page was asked for, how to view the trace. An error is the message to print.
pub(super) fn write_run_files(
    trace_path: Option<&Path>,
    html: Option<&Path>,
    machine: &interpreter::machine::Machine,
    trace: &interpreter::trace::Trace,
    doc: &serde_json::Value,
    failed: bool,
) -> Result<String, String> {
    if let Some(p) = trace_path {
        ioa::api::itf::write_trace_doc(p, machine, trace, doc)
            .map_err(|e| format!("cannot write trace `{}`: {e}", p.display()))?;
    }
    Ok(match (html, trace_path) {
        (Some(p), _) => write_page(p, machine, trace, doc)?,
        (None, Some(p)) if failed => hint(p),
        _ => String::new(),
    })
}

/// Writes a run as an ITF trace with its metadata; when it cannot be written, says so and ends
/// the command with exit code `code`.
pub(super) fn write_trace(
    file: &Path,
    machine: &interpreter::machine::Machine,
    trace: &interpreter::trace::Trace,
    meta: ioa::api::itf::TraceMeta,
    code: u8,
) -> super::output::Step<()> {
    ioa::api::itf::write_trace(file, machine, trace, meta).map_err(|e| {
        let message = format!("cannot write trace `{}`: {e}", file.display());
        super::output::error(&message, code)
    })
}

fn summary(c: &chart::Chart, path: &Path) -> String {
    let bad = c.highlight.as_ref().map_or(String::new(), |h| {
        format!("; step {} highlighted: {}", h.step, h.reason)
    });
    format!(
        "wrote {}: {} step(s), {} lifeline(s), {} message arrow(s){bad}\n",
        path.display(),
        c.steps.len() - 1,
        c.lanes.len(),
        c.arrows.len()
    )
}

/// Runs `ioa view`.
pub fn run(args: ViewArgs) -> ExitCode {
    open_trace(&args.trace, args.model.as_ref(), args.color, |o| {
        let c = chart::build(o.machine, &o.trace, &o.json["#meta"]);
        let (path, text) = match &args.svg {
            Some(p) => (p.clone(), svg::render(&c)),
            None => {
                let p = args
                    .output
                    .clone()
                    .unwrap_or_else(|| default_page_path(&args.trace));
                (p, page::render(&c))
            }
        };
        if let Err(e) = std::fs::write(&path, text) {
            print_stderr(&format!("error: cannot write `{}`: {e}\n", path.display()));
            return ExitCode::from(1);
        }
        print_stderr(&summary(&c, &path));
        ExitCode::SUCCESS
    })
}
