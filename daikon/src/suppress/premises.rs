//! Rule 7 of suppression: a conditional invariant on an action's enabledness that only restates
//! its precondition. When the premise is `∃ S: Set[Node] (quorums = {})`, the conjunct `quorums
//! = {}` reads no parameter, so under the premise it simply holds: `quorums = {}` and
//! `size(quorums) = 0` are the precondition again, not news. Any invariant whose variables are
//! computed only from state variables that such conjuncts read is dropped (a weaker fact over
//! them, `x ≥ 0` under `x < 6`, goes with it).

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
            .all(|s| split.settled.contains(&s));
        if restates {
            let tested = split
                .settled
                .iter()
                .map(|s| model.slot_names[*s].as_str())
                .collect::<Vec<_>>()
                .join(", ");
            mark(
                f,
                vec![],
                format!(
                    "it restates the precondition of {}, which tests {tested} without parameters",
                    split.name
                ),
            );
        }
    }
}
