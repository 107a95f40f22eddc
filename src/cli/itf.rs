//! Writing a run as an ITF JSON trace with the metadata `ioa replay` needs (the model's absolute
//! path, the automaton, its parameters, the universe text and the `choose` indices), shared by
//! the subcommands that hand back runs.

use interpreter::machine::Machine;
use interpreter::trace::Trace;
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
