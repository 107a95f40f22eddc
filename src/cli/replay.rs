//! `ioa replay`: re-execute a trace written by `ioa run --trace`, confirming that its start
//! state is a start state, every step is enabled, and every state is the one the model yields.

use super::model;
use super::output::{failure, print_stderr};
use super::ColorChoice;
use interpreter::machine::Machine;
use interpreter::runner::Runner;
use interpreter::trace::Trace;
use ioa::api::itf::read_trace;
use std::path::PathBuf;
use std::process::ExitCode;

/// A trace file read and its model loaded: what `ioa replay`, `ioa view` and `ioa serve`
/// start from.
pub(super) struct Opened<'a, 's> {
    /// The model the trace names (or the one given).
    pub model: &'a model::Model,
    /// The machine of the trace's automaton with its parameters.
    pub machine: &'a Machine<'s>,
    /// The trace's states and steps.
    pub trace: Trace,
    /// The whole ITF document (for its `#meta`).
    pub json: &'a serde_json::Value,
}

/// Reads `trace_path`, loads the model it names (or `model_override`) and the automaton with
/// the parameters and universe it records, reads its states and steps, and hands them to `f`.
/// Every failure is printed here and returned as exit code 1.
pub(super) fn open_trace(
    trace_path: &PathBuf,
    model_override: Option<&PathBuf>,
    color: ColorChoice,
    f: impl FnOnce(Opened) -> ExitCode,
) -> ExitCode {
    let text = match std::fs::read_to_string(trace_path) {
        Ok(t) => t,
        Err(e) => return failure(format!("cannot read `{}`: {e}", trace_path.display())),
    };
    let json: serde_json::Value = match serde_json::from_str(&text) {
        Ok(j) => j,
        Err(e) => return failure(format!("`{}` is not JSON: {e}", trace_path.display())),
    };
    let meta = &json["#meta"];
    let source = match model_override
        .cloned()
        .or_else(|| meta["source"].as_str().map(PathBuf::from))
    {
        Some(s) => s,
        None => {
            return failure("the trace does not name its model; give it with --model FILE".into())
        }
    };
    let universe = meta["universe"].as_str().unwrap_or("");
    let m = match model::load(&source, None, &[], Some(universe)) {
        Ok(m) => m,
        Err((d, s)) => return model::fail(&d, &s, color),
    };
    let automaton = match model::pick_automaton(&m.spec, meta["automaton"].as_str(), None) {
        Ok(a) => a,
        Err(e) => return failure(e),
    };
    let params: Vec<String> = meta["params"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|p| p.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let params = match model::params(&m.spec, automaton, &params) {
        Ok(p) => p,
        Err(e) => return failure(e),
    };
    let machine = match Machine::new(&m.spec, &m.universe, automaton, params) {
        Ok(x) => x,
        Err(e) => {
            use ioa_lang::diagnostics::IntoDiagnostic;
            return model::fail(&[e.to_diagnostic()], &m.sources, color);
        }
    };
    let trace = match read_trace(&machine, &json) {
        Ok(t) => t,
        Err(e) => return failure(format!("{}: {e}", trace_path.display())),
    };
    f(Opened {
        model: &m,
        machine: &machine,
        trace,
        json: &json,
    })
}

/// Options of `ioa replay`.
#[derive(clap::Args)]
pub struct ReplayArgs {
    /// The ITF JSON trace.
    trace: PathBuf,
    /// The model, if not the one the trace names.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Colour the diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

/// Runs `ioa replay`.
pub fn run(args: ReplayArgs) -> ExitCode {
    let color = args.color;
    open_trace(&args.trace, args.model.as_ref(), color, |o| {
        let (m, machine, trace) = (o.model, o.machine, o.trace);
        let choices: Vec<Vec<usize>> =
            serde_json::from_value(o.json["#meta"]["choices"].clone()).unwrap_or_default();
        let report = Runner::new(machine).replay(&trace, &choices);
        match ioa::api::diagnose::stop_diagnostic(machine, &report) {
            None if report.trace.steps.len() == trace.steps.len() => {
                print_stderr(&format!(
                    "replayed {} step(s) of {}: every step enabled, every state as recorded\n",
                    trace.steps.len(),
                    m.spec.automata[machine.root.0 as usize].name
                ));
                ExitCode::SUCCESS
            }
            None => failure(format!(
                "the replay stopped after {} of {} steps",
                report.trace.steps.len(),
                trace.steps.len()
            )),
            Some(d) => {
                super::output::print_diagnostics(&[d], &m.sources, super::Format::Text, color);
                ExitCode::from(1)
            }
        }
    })
}
