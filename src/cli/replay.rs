//! `ioa replay`: re-execute a trace written by `ioa run --trace`, confirming that its start
//! state is a start state, every step is enabled, and every state is the one the model yields.

use super::model;
use super::output::print_stderr;
use super::ColorChoice;
use interpreter::machine::Machine;
use interpreter::runner::Runner;
use interpreter::trace::{from_itf, Trace, TraceStep};
use std::path::PathBuf;
use std::process::ExitCode;

fn bad(message: String) -> ExitCode {
    print_stderr(&format!("error: {message}\n"));
    ExitCode::from(1)
}

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
        Err(e) => return bad(format!("cannot read `{}`: {e}", trace_path.display())),
    };
    let json: serde_json::Value = match serde_json::from_str(&text) {
        Ok(j) => j,
        Err(e) => return bad(format!("`{}` is not JSON: {e}", trace_path.display())),
    };
    let meta = &json["#meta"];
    let source = match model_override
        .cloned()
        .or_else(|| meta["source"].as_str().map(PathBuf::from))
    {
        Some(s) => s,
        None => return bad("the trace does not name its model; give it with --model FILE".into()),
    };
    let universe = meta["universe"].as_str().unwrap_or("");
    let m = match model::load(&source, None, &[], Some(universe)) {
        Ok(m) => m,
        Err((d, s)) => return model::fail(&d, &s, color),
    };
    let automaton = match model::pick_automaton(&m.spec, meta["automaton"].as_str(), None) {
        Ok(a) => a,
        Err(e) => return bad(e),
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
        Err(e) => return bad(e),
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
        Err(e) => return bad(format!("{}: {e}", trace_path.display())),
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
        match super::run::stop_diagnostic(machine, &report) {
            None if report.trace.steps.len() == trace.steps.len() => {
                print_stderr(&format!(
                    "replayed {} step(s) of {}: every step enabled, every state as recorded\n",
                    trace.steps.len(),
                    m.spec.automata[machine.root.0 as usize].name
                ));
                ExitCode::SUCCESS
            }
            None => bad(format!(
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

/// Reads an ITF trace's states and steps for `machine` (an error names what does not fit).
pub(super) fn read_trace(machine: &Machine, json: &serde_json::Value) -> Result<Trace, String> {
    let names = machine.slot_names();
    let types = machine.slot_types();
    let states = json["states"].as_array().ok_or("no `states` array")?;
    let mut trace = Trace {
        states: Vec::new(),
        steps: Vec::new(),
    };
    for (i, s) in states.iter().enumerate() {
        let mut state = Vec::with_capacity(names.len());
        for (n, t) in names.iter().zip(&types) {
            let v = s
                .get(n)
                .ok_or_else(|| format!("state {i} has no variable `{n}`"))?;
            state.push(from_itf(machine.spec, v, t).map_err(|e| format!("state {i}, `{n}`: {e}"))?);
        }
        if i > 0 {
            let a = &s["#meta"]["action"];
            let name = a["name"]
                .as_str()
                .ok_or_else(|| format!("state {i} does not say which action led to it"))?;
            // An action name may have an input and an output entry: the kind tells them apart.
            let kind = a["kind"].as_str();
            let action = machine
                .actions
                .iter()
                .position(|x| x.name == name && kind.is_none_or(|k| x.kind.keyword() == k))
                .or_else(|| machine.actions.iter().position(|x| x.name == name))
                .ok_or_else(|| format!("step {i}: the model has no action `{name}`"))?;
            let arg_json = a["args"].as_array().cloned().unwrap_or_default();
            let types = &machine.actions[action].param_types;
            if arg_json.len() != types.len() {
                return Err(format!(
                    "step {i}: `{name}` takes {} argument(s), the trace has {}",
                    types.len(),
                    arg_json.len()
                ));
            }
            let args: Result<Vec<_>, String> = arg_json
                .iter()
                .zip(types)
                .map(|(j, t)| from_itf(machine.spec, j, t))
                .collect();
            let args = args.map_err(|e| format!("step {i}: {e}"))?;
            let kind = machine
                .kind_of(action, &args)
                .map_err(|_| format!("step {i}: cannot classify `{name}`"))?;
            trace.steps.push(TraceStep { action, kind, args });
        }
        trace.states.push(state);
    }
    if trace.states.is_empty() {
        return Err("the trace has no states".into());
    }
    Ok(trace)
}
