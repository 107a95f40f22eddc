//! What `ioa explore --liveness` and `ioa liveness` share: finding the property, turning a
//! search's path into a trace the interpreter re-executed, printing paths, critical
//! transitions and state differences, saying when a finite universe ran out, and writing paths
//! as ITF traces `ioa replay` accepts.

use super::diagnose::machine_error;
use super::model::Model;
use checker::liveness::exhausted::exhausted;
use checker::liveness::LivenessError;
use checker::model::{MachineModel, MachineStep};
use interpreter::machine::Machine;
use interpreter::trace::Trace;
use interpreter::universe::type_text;
use interpreter::value::Printer;
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use ioa_lang::ir::{AutomatonId, Liveness};
use std::path::Path;

/// The liveness property `name` of `automaton`, or a message listing those it has.
pub fn find_property<'s>(
    spec: &'s ioa_lang::ir::Spec,
    automaton: AutomatonId,
    name: &str,
) -> Result<&'s Liveness, String> {
    if let Some(l) = spec
        .liveness
        .iter()
        .find(|l| l.name == name && l.automaton == automaton)
    {
        return Ok(l);
    }
    let known: Vec<&str> = spec
        .liveness
        .iter()
        .filter(|l| l.automaton == automaton)
        .map(|l| l.name.as_str())
        .collect();
    Err(format!(
        "no liveness property `{name}` of {}; it has: {}",
        spec.automata[automaton.0 as usize].name,
        if known.is_empty() {
            "none (declare one with `liveness NAME of A: eventually P`)".to_string()
        } else {
            known.join(", ")
        }
    ))
}

/// `eventually` or `leads to`, for messages.
pub fn shape(l: &Liveness) -> &'static str {
    match l.property {
        ioa_lang::ir::Temporal::Eventually(_) => "eventually",
        ioa_lang::ir::Temporal::LeadsTo(..) => "leads to",
    }
}

/// A search error as a diagnostic.
pub fn error_diagnostic(e: LivenessError) -> Diagnostic {
    match e {
        LivenessError::Machine(e) => machine_error(e, "the path"),
        LivenessError::Predicate(e) | LivenessError::Walk(e) => e.to_diagnostic(),
    }
}

/// A re-executed path: the trace and the `choose` indices of every step.
pub struct Replayed {
    /// The states and steps.
    pub trace: Trace,
    /// For each step (the start first), the `choose` indices.
    pub choices: Vec<Vec<usize>>,
}

/// Re-executes a path from a start state.
pub fn replay(model: &MachineModel, path: &[MachineStep]) -> Result<Replayed, Diagnostic> {
    model
        .trace(path)
        .map(|(trace, choices)| Replayed { trace, choices })
        .map_err(|e| machine_error(e, "the path"))
}

/// The log lines of steps `from..=to` (1-based) of a trace.
pub fn log_lines(machine: &Machine, trace: &Trace, from: usize, to: usize) -> String {
    let mut out = String::new();
    for k in from.max(1)..=to.min(trace.steps.len()) {
        out.push_str(&trace.log_line(machine, k));
        out.push('\n');
    }
    out
}

/// The variables whose values differ between two states, one line each: `name: a → b`.
pub fn state_diff(
    machine: &Machine,
    before: &[interpreter::value::Value],
    after: &[interpreter::value::Value],
) -> String {
    let printer = Printer::new(machine.spec);
    let mut out = String::new();
    for (k, name) in machine.slot_names().iter().enumerate() {
        if before.get(k) != after.get(k) {
            let show = |s: &[interpreter::value::Value]| {
                s.get(k).map(|v| printer.show(v)).unwrap_or_default()
            };
            out.push_str(&format!("  {name}: {} → {}\n", show(before), show(after)));
        }
    }
    if out.is_empty() {
        out.push_str("  (no variable changes)\n");
    }
    out
}

/// The trace's extra metadata: the `liveness` fields, and for a dead path with a critical
/// transition the `critical` step `ioa view` highlights.
fn critical_meta(liveness: serde_json::Value) -> serde_json::Value {
    let critical = match (liveness["kind"].as_str(), liveness["critical"].as_u64()) {
        (Some("dead"), Some(step)) => Some(serde_json::json!({
            "step": step,
            "message": format!(
                "critical transition of `{}`: after this step the goal is never reached",
                liveness["property"].as_str().unwrap_or("the property")
            ),
        })),
        _ => None,
    };
    match critical {
        Some(c) => serde_json::json!({ "liveness": liveness, "critical": c }),
        None => serde_json::json!({ "liveness": liveness }),
    }
}

/// Writes a re-executed path as ITF with the metadata `ioa replay` needs, plus `liveness`
/// fields saying what the path shows.
pub fn write_itf(
    path: &Path,
    m: &Model,
    machine: &Machine,
    file: &Path,
    params: &[String],
    replayed: &Replayed,
    liveness: serde_json::Value,
) -> std::io::Result<()> {
    super::itf::write_trace(
        path,
        machine,
        &replayed.trace,
        super::itf::TraceMeta {
            model: file,
            params,
            universe: &m.universe_text,
            choices: &replayed.choices,
            extra: critical_meta(liveness),
        },
    )
}

/// What [`exhausted`] finds in `state`, as sentences: for each action that has stopped only
/// because a carrier ran out, the instance that a value outside the universe would enable.
pub fn exhausted_notes(model: &MachineModel, state: &[interpreter::value::Value]) -> Vec<String> {
    let machine = model.machine();
    let printer = Printer::new(machine.spec);
    exhausted(model, state)
        .into_iter()
        .map(|x| {
            let a = &machine.actions[x.action];
            let args: Vec<String> = x.args.iter().map(|v| printer.show(v)).collect();
            format!(
                "no instance of `{}` is enabled, but {}({}) would be, with {} = {} outside the \
                 universe's {} ({}): the finite universe may be what blocks progress (enlarge \
                 it to tell)",
                a.name,
                a.name,
                args.join(", "),
                a.param_names[x.param],
                printer.show(&x.fresh),
                type_text(machine.spec, &a.param_types[x.param]),
                super::numbers::count(x.carrier_size as u64, "value"),
            )
        })
        .collect()
}
