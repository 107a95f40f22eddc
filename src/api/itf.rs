//! Reading and writing a run as an ITF JSON trace with the metadata `ioa replay` needs (the model's absolute
//! path, the automaton, its parameters, the universe text and the `choose` indices), shared by
//! the subcommands that hand back runs, and reading one back for a machine (`ioa replay`,
//! `ioa view`, `--from` snapshots).

use interpreter::machine::Machine;
use interpreter::trace::{from_itf, Trace, TraceStep};
use std::path::Path;

/// What a trace file records besides the states and steps.
pub struct TraceMeta<'a> {
    /// The model file as the user named it.
    pub model: &'a Path,
    /// `--param` values as given.
    pub params: &'a [String],
    /// The universe text the run used.
    pub universe: &'a str,
    /// For each step (the start first), the indices of the `choose` values taken.
    pub choices: &'a [Vec<usize>],
    /// Subcommand-specific fields (`schedule`, `pair`, …), merged in.
    pub extra: serde_json::Value,
}

/// The `#meta` object of a trace: `meta`'s fields and the subcommand's extra ones.
pub fn meta_doc(machine: &Machine, meta: TraceMeta) -> serde_json::Value {
    let mut doc = match meta.extra {
        serde_json::Value::Object(map) => serde_json::Value::Object(map),
        _ => serde_json::json!({}),
    };
    doc["format"] = "ITF".into();
    doc["format-description"] = "https://apalache-mc.org/docs/adr/015adr-trace.html".into();
    // An absolute path, so the trace replays from any folder.
    let source = std::fs::canonicalize(meta.model).unwrap_or_else(|_| meta.model.to_path_buf());
    doc["source"] = source.display().to_string().into();
    doc["automaton"] = machine.spec.automata[machine.root.0 as usize]
        .name
        .clone()
        .into();
    doc["params"] = meta.params.to_vec().into();
    doc["universe"] = meta.universe.into();
    doc["choices"] = serde_json::to_value(meta.choices).unwrap_or_default();
    doc
}

/// Writes `trace` of `machine` to `path`.
pub fn write_trace(
    path: &Path,
    machine: &Machine,
    trace: &Trace,
    meta: TraceMeta,
) -> std::io::Result<()> {
    write_trace_doc(path, machine, trace, &meta_doc(machine, meta))
}

/// Writes `trace` of `machine` to `path` with the `#meta` object `doc` ([`meta_doc`]).
pub fn write_trace_doc(
    path: &Path,
    machine: &Machine,
    trace: &Trace,
    doc: &serde_json::Value,
) -> std::io::Result<()> {
    let file = std::fs::File::create(path)?;
    let mut w = std::io::BufWriter::new(file);
    trace.write_itf(machine, doc, &mut w)?;
    std::io::Write::flush(&mut w)
}

/// Reads an ITF trace's states and steps for `machine` (an error names what does not fit).
pub fn read_trace(machine: &Machine, json: &serde_json::Value) -> Result<Trace, String> {
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
