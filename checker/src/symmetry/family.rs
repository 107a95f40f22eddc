//! Families of a composite that a symmetry permutes as a whole: in `P[i: RM]: Participant(i)`
//! with `RM` symmetric, permuting `RM` must also move member `P[r]`'s state to member
//! `P[π(r)]`, since each member's code knows its own index (its parameter `i`).
//!
//! A family qualifies when it is a top-level component of the root composite with one index,
//! of a symmetric type itself, with exactly one member per value of the type (so no member is
//! singled out by being left out), each member one primitive automaton. Such a member's
//! automaton may then take the index as a parameter of the type, provided every instance of
//! that automaton in the machine is a member of a qualifying family and gets the bare index
//! there: then the parameter's value is the member's position, which the permutation moves
//! along with the member's state. Everything else about the member's code is checked as for
//! any automaton (`model_check.rs`): no literals of the type, no field reads.
//!
//! In the canonical tree (`mod.rs`, [`super::Symmetry::describe`]) such a family is a bag of
//! its members, each a list of its index (an element) and its state variables.

use super::error::{Break, SymmetryError};
use super::SymmetricType;
use interpreter::machine::Machine;
use ioa_lang::ir::{AutomatonBody, ExprKind, Type, VarRef};
use std::ops::Range;

/// A family whose members a permutation of its index type moves.
pub(super) struct Family {
    /// The symmetric type of its index.
    pub k: usize,
    /// The component's position in the root composite.
    pub component: usize,
    /// The state slots of the member at each carrier position of the type.
    pub slots: Vec<Range<usize>>,
}

/// The qualifying families of the root composite, the automaton parameters they allow (the
/// automaton and the parameter's position), and an error for each family indexed by a
/// symmetric type that does not qualify.
pub(super) fn families(
    machine: &Machine,
    types: &[SymmetricType],
    errors: &mut Vec<SymmetryError>,
) -> (Vec<Family>, Vec<(usize, usize)>) {
    let spec = machine.spec;
    let AutomatonBody::Composite(root) = &spec.automata[machine.root.0 as usize].body else {
        return (Vec::new(), Vec::new());
    };
    let mut families = Vec::new();
    for (c, comp) in root.components.iter().enumerate() {
        let [index] = comp.indices.as_slice() else {
            continue;
        };
        let Type::Named(id) = index.ty else {
            continue;
        };
        let Some(k) = types.iter().position(|t| t.id == id) else {
            continue;
        };
        let carrier = &types[k].carrier;
        let mut slots: Vec<Option<Range<usize>>> = vec![None; carrier.len()];
        let mut whole = true;
        for m in machine.members.iter().filter(|m| m.component as usize == c) {
            let position = m.indices.first().and_then(|v| types[k].position.get(v));
            match (position, m.instances.len()) {
                (Some(&p), 1) if slots[p].is_none() => {
                    let inst = &machine.instances[m.instances.start];
                    slots[p] = Some(inst.offset..inst.offset + inst.len);
                }
                _ => whole = false,
            }
        }
        let slots: Option<Vec<Range<usize>>> = slots.into_iter().collect();
        match slots {
            Some(slots) if whole => families.push(Family {
                k,
                component: c,
                slots,
            }),
            _ => errors.push(SymmetryError::Breaks {
                name: spec.types[id.0 as usize].name.clone(),
                span: index.span,
                how: Break::Family,
            }),
        }
    }
    // A parameter given the bare index (local 0) by a qualifying family...
    let mut params: Vec<(usize, usize)> = Vec::new();
    for f in &families {
        let comp = &root.components[f.component];
        for (j, arg) in comp.args.iter().enumerate() {
            if matches!(arg.kind, ExprKind::Var(VarRef::Local(0))) {
                params.push((comp.automaton.0 as usize, j));
            }
        }
    }
    // ... by every instance of its automaton.
    params.retain(|&(a, j)| {
        machine
            .instances
            .iter()
            .filter(|inst| inst.automaton.0 as usize == a)
            .all(|inst| {
                let Some((c, _)) = &inst.member else {
                    return false;
                };
                families.iter().any(|f| f.component == *c as usize)
                    && matches!(
                        root.components[*c as usize].args.get(j).map(|e| &e.kind),
                        Some(ExprKind::Var(VarRef::Local(0)))
                    )
            })
    });
    params.sort_unstable();
    params.dedup();
    (families, params)
}
