//! The compiled engine for composite automata, through their flattening.
//!
//! The compiled engine lays out one primitive automaton's variables as words; a composite is
//! compiled as its flattening (`ioa_lang::compose`), the one primitive automaton the provers
//! use: same actions (so the same action instances, numbered alike), same invariants, and a
//! state with `P.x[i]` for `P[i].x`. The search reports paths of action instances, which the
//! composite's own interpreter re-executes into the usual trace (component by component), so
//! a counterexample looks and replays exactly as the interpreter's would. The flattening is
//! used only where that translation is the identity: one start state (whose step has no
//! choices) and no symmetry reduction (symmetry describes a composite's states by component);
//! otherwise the composite is explored by the interpreter, and the note says why.

use checker::compiled::CompiledModel;
use checker::explore::Model;
use checker::model::{MachineModel, MachineStep};
use interpreter::machine::Machine;
use ioa_lang::diagnostics::IntoDiagnostic;
use ioa_lang::ir::{AutomatonBody, AutomatonId, Spec};

/// Why a composite is not flattened for the compiled engine, or its flattening.
pub(super) fn flat_spec(
    spec: &Spec,
    automaton: AutomatonId,
    symmetric: bool,
) -> Option<Result<Spec, String>> {
    if !matches!(
        spec.automata[automaton.0 as usize].body,
        AutomatonBody::Composite(_)
    ) {
        return None;
    }
    if symmetric {
        return Some(Err(
            "a composite with symmetry reduction is not compiled".to_string()
        ));
    }
    Some(ioa_lang::compose::flatten(spec).map_err(|errors| {
        let first = errors
            .first()
            .map(|e| e.to_diagnostic().message)
            .unwrap_or_default();
        format!("the composite's flattening failed: {first}")
    }))
}

/// Whether the compiled flattening's steps are the composite's own: the same number of action
/// instances (numbered alike, from the same actions) and one start state each, reached without
/// choices; otherwise why not.
pub(super) fn same_steps(composite: &Machine, flat: &CompiledModel) -> Result<(), String> {
    let model = MachineModel::new(composite, None).map_err(|e| e.to_diagnostic().message)?;
    let mut starts = Vec::new();
    model
        .initial_states(&mut starts)
        .map_err(|_| "building a start state failed".to_string())?;
    let flat_starts: Vec<&MachineStep> = flat.start_steps().collect();
    let plain = |s: &MachineStep| s.choices.iter().all(|&c| c == 0);
    if starts.len() != 1 || flat_starts.len() != 1 {
        return Err(format!(
            "a composite with {} start states is not compiled (only one)",
            starts.len().max(flat_starts.len())
        ));
    }
    if !plain(&starts[0].0) || !plain(flat_starts[0]) {
        return Err("a composite whose start state is chosen is not compiled".to_string());
    }
    if model.instances().len() != flat.instance_count() {
        return Err(format!(
            "the composite has {} action instances and its flattening {}",
            model.instances().len(),
            flat.instance_count()
        ));
    }
    Ok(())
}
