//! The compiled engine for composite automata, through their flattening.
//!
//! The compiled engine lays out one primitive automaton's variables as words; a composite is
//! compiled as its flattening (`ioa_lang::compose`), the one primitive automaton the provers
//! use: same actions (so the same action instances, numbered alike), same invariants, and a
//! state with `P.x[i]` for `P[i].x`. Two things keep it the composite's own semantics:
//!
//! - **Start states are the composite's**, built by the interpreter and laid out flat
//!   ([`compile`]), each with the composite's own step, so a reported path re-executes on the
//!   composite itself (its trace is component by component) even when the start state is
//!   chosen.
//! - **Only members exist.** `P.x` is an array over the family's whole index type, but the
//!   composite has only the members its `where` clause admits; reading `P[k].x` for another
//!   `k` is the composite's error (E0515). The compiled code checks every entry it reads or
//!   writes against the members and stops with a fault otherwise, so the interpreter explores
//!   and reports the error (the flattening alone would read a default and could verify).
//!
//! **Symmetry** is the flattening's own: `P.x` is an array over the family's index type, so
//! permuting that type permutes the members' entries as [`Symmetry`] permutes the composite's
//! members (`checker/src/symmetry/family.rs`), and both give the same orbits. The composite
//! is checked first (`ioa explore` does); the flattening may still refuse, and then the
//! interpreter explores.

use super::{CompiledModel, FlatStarts, Refusal};
use crate::explore::Model;
use crate::model::MachineModel;
use crate::symmetry::Symmetry;
use interpreter::machine::Machine;
use interpreter::value::Value;
use ioa_lang::diagnostics::IntoDiagnostic;
use ioa_lang::ir::{AutomatonBody, AutomatonId, Spec};

/// The flattening of `automaton` when it is a composite: `None` for a primitive automaton,
/// else the flat spec or why there is none.
pub fn flat_spec(spec: &Spec, automaton: AutomatonId) -> Option<Result<Spec, String>> {
    if !matches!(
        spec.automata[automaton.0 as usize].body,
        AutomatonBody::Composite(_)
    ) {
        return None;
    }
    Some(ioa_lang::compose::flatten(spec).map_err(|errors| {
        let first = errors
            .first()
            .map(|e| e.to_diagnostic().message)
            .unwrap_or_default();
        format!("the composite's flattening failed: {first}")
    }))
}

/// Compiles `flat`, the flattening of the composite `composite` (same universe, automaton and
/// parameters), with the composite's start states and family members, and symmetric in the
/// types named in `symmetric`; or says why not.
pub fn compile<'m, 's>(
    composite: &Machine,
    flat: &'m Machine<'s>,
    symmetric: &[String],
) -> Result<CompiledModel<'m, 's>, Refusal> {
    let model = MachineModel::new(composite, None).map_err(|e| e.to_diagnostic().message)?;
    let spec = composite.spec;
    let refuse = |reason: &str| Refusal::from(reason.to_string());
    let AutomatonBody::Composite(c) = &spec.automata[composite.root.0 as usize].body else {
        return Err(refuse("the automaton is not a composite"));
    };
    let AutomatonBody::Primitive(fp) = &flat.spec.automata[flat.root.0 as usize].body else {
        return Err(refuse("the flattening is not a primitive automaton"));
    };
    // Where each member's variables go: (flat slot, composite slot, family index).
    let mut places: Vec<(usize, usize, Option<Value>)> = Vec::new();
    for member in &composite.members {
        let comp = &c.components[member.component as usize];
        let AutomatonBody::Primitive(p) = &spec.automata[comp.automaton.0 as usize].body else {
            return Err(refuse("a composite of composites is not compiled"));
        };
        if member.instances.len() != 1 || member.indices.len() > 1 {
            return Err(refuse(
                "a component family with several indices is not compiled",
            ));
        }
        let offset = composite.instances[member.instances.start].offset;
        for (x, v) in p.state.iter().enumerate() {
            let name = ioa_lang::compose::flat_name(&comp.name, &v.name);
            let slot = fp
                .state
                .iter()
                .position(|d| d.name == name)
                .ok_or_else(|| refuse("the flattening lacks a component variable"))?;
            places.push((slot, offset + x, member.indices.first().cloned()));
        }
    }
    let mut starts = Vec::new();
    model
        .initial_states(&mut starts)
        .map_err(|_| refuse("building a start state failed"))?;
    let n = fp.state.len();
    // A family variable's entries outside the family are never read or written (see the
    // module documentation); they hold its first member's start value.
    let mut defaults: Vec<Option<Value>> = vec![None; n];
    let mut members: Vec<Vec<Value>> = vec![Vec::new(); n];
    if let Some((_, first)) = starts.first() {
        for (slot, from, index) in &places {
            if let Some(k) = index {
                defaults[*slot].get_or_insert_with(|| first[*from].clone());
                members[*slot].push(k.clone());
            }
        }
    }
    let mut flat_starts = Vec::new();
    for (step, state) in starts {
        let mut values: Vec<Value> = defaults
            .iter()
            .map(|d| d.clone().map(Value::constant_array).unwrap_or(Value::Nil))
            .collect();
        for (slot, from, index) in &places {
            let v = state[*from].clone();
            match index {
                None => values[*slot] = v,
                Some(k) => {
                    if let Value::Array(a) = &values[*slot] {
                        values[*slot] = Value::array_set(a, k.clone(), v);
                    }
                }
            }
        }
        flat_starts.push((step, values));
    }
    let symmetry = match symmetric {
        [] => None,
        names => Some(Symmetry::new(flat, names).map_err(|errors| {
            let first = errors
                .first()
                .map(|e| e.to_diagnostic().message)
                .unwrap_or_default();
            refuse(&format!("its flattening is not symmetric: {first}"))
        })?),
    };
    let compiled = CompiledModel::build(
        flat,
        symmetry,
        Some(FlatStarts {
            places: {
                let mut by_slot = vec![(0, None); composite.n_slots];
                for (slot, from, index) in &places {
                    by_slot[*from] = (*slot, index.clone());
                }
                by_slot
            },
            starts: flat_starts,
            members: members
                .into_iter()
                .enumerate()
                .filter(|(slot, _)| defaults[*slot].is_some())
                .collect(),
        }),
    )?;
    if model.instances().len() != compiled.instance_count() {
        return Err(Refusal::from(format!(
            "the composite has {} action instances and its flattening {}",
            model.instances().len(),
            compiled.instance_count()
        )));
    }
    Ok(compiled)
}
