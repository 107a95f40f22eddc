//! Rule 7 of suppression: a conditional invariant on an action's enabledness that only restates
//! or unfolds its precondition. Under `∃ S: Set[Node] (quorums = {})`, `quorums = {}` and
//! `size(quorums) = 0` are the precondition again; under `∃ i: Node, b: Ballot (i ∈ initiated ∧
//! …)`, `size(initiated) ≥ 1` is one step from it. The news under a premise is what it says of
//! the variables it does not read (`decided = {}` while the quorums are still undefined), so
//! any invariant whose variables are computed only from state variables the premise reads is
//! dropped. (Facts over them that do not follow from the premise go too: a deliberate trade of
//! recall for fewer restatements.)

use super::{mark, open};
use crate::invariant::Finding;
use crate::vars::{Term, VarModel};

/// Rule 7.
pub(super) fn premises(model: &VarModel, findings: &mut [Finding]) {
    for f in findings.iter_mut().filter(|f| open(f)) {
        let Some(c) = &f.invariant.condition else {
            continue;
        };
        let Term::Enabled(k) = model.vars[c.var].term else {
            continue;
        };
        let Some(split) = model.actions.get(k) else {
            continue;
        };
        let restates = f
            .invariant
            .vars
            .iter()
            .flat_map(|v| model.base_slots(*v))
            .all(|s| split.reads.contains(&s));
        if restates {
            let tested = split
                .reads
                .iter()
                .map(|s| model.slot_names[*s].as_str())
                .collect::<Vec<_>>()
                .join(", ");
            mark(
                f,
                vec![],
                format!(
                    "it is about what the precondition of {} reads ({tested}), not news",
                    split.name
                ),
            );
        }
    }
}
