//! Suppression: invariants that held but follow from others (or from the types) are not
//! reported, and `--explain` names what they follow from. The rules, applied in this order:
//!
//! 1. **Types and universe.** `size(S) ≥ 0` and `x ≥ 0` for a `Nat`; `size(S) ≤ k` when the
//!    element type of `S` has only `k` values in the universe; a one-of listing every value of a
//!    type. Bounds whose constant lies outside the interesting range (Daikon's −1 to 2, see
//!    [`GrammarOptions::bounds`]) are dropped here too, and under a condition `size(S) ≤ k − 1`
//!    ("not every element", nearly always a property of the small universe).
//! 2. **Constants.** A relation between two variables that never changed follows from their two
//!    constants; `A ⊆ B` and `size(A ∩ B) = 0` follow from `A = {}`; an invariant of a derived
//!    variable follows from the constants it is computed from (`size(S) = 2` from `S = {…}`),
//!    and anything said of the size of a set that never changed (under the same condition, or
//!    at all) follows from that set.
//! 3. **Redundant intersections.** When `A ⊆ B` held, `A ∩ B` is `A`, so nothing about
//!    `size(A ∩ B)` is news.
//! 4. **Equality sets.** When `x = y` is reported, the variables form one class with a leader
//!    (the first of them with an IOA spelling of its own); every other invariant that mentions a non-leader is said of the leader
//!    already, and only the equalities with the leader are kept.
//! 5. **Consequences** among the invariants still reported: `A ⊆ C` from `A ⊆ B` and `B ⊆ C`;
//!    `x ≤ z` (or `<`) from `x ≤ y` and `y ≤ z`; `size(A) ≤ size(B)` from `A ⊆ B`; `size(C ∩ B) =
//!    0` from `size(A ∩ B) = 0` and `C ⊆ A`; `x ∈ C` from `x ∈ B` and `B ⊆ C`; bounds from a
//!    one-of; `x ≤ c` from `x ≤ y` (or `x ⊆ y` for sizes) and `y ≤ c'` with `c' ≤ c`, and the same
//!    for lower bounds.
//! 6. **Conditions.** A conditional invariant (`c = v ⇒ P`, with `--split`) is dropped when `P`
//!    (or something stronger over the same variables) held without the condition.
//! 7. **Preconditions restated.** A conditional invariant on an action's enabledness over only
//!    the state variables its precondition reads (see `premises.rs`).
//!
//! Rules 1–3 apply to every candidate that held; rules 4–5 take as premises only invariants that
//! are reported (justified, printable and not suppressed by rules 1–4), so a suppressed invariant
//! always follows from reported ones or from facts about the types. Premises are unconditional,
//! except that in rule 5 a conditional invariant may also follow from others under its condition.

mod consequences;
mod equalities;
mod facts;
mod premises;

use crate::candidates::GrammarOptions;
use crate::invariant::{Finding, Verdict};
use crate::vars::{VarId, VarModel};

/// Rule 1 alone: run before unprintable findings are set aside, so that what the types imply
/// is said to be implied by them even where the grammar could not print it.
pub fn type_facts(model: &VarModel, findings: &mut [Finding], grammar: GrammarOptions) {
    facts::types(model, findings, grammar.bounds);
}

/// Marks the suppressed findings.
pub fn suppress(model: &VarModel, findings: &mut [Finding], grammar: GrammarOptions) {
    facts::types(model, findings, grammar.bounds);
    facts::constants(model, findings);
    facts::intersections(model, findings);
    equalities::equalities(model, findings);
    consequences::conditions(findings);
    premises::premises(model, findings);
    consequences::consequences(model, findings);
}

/// Whether a finding is an unconditional fact that held.
fn fact(f: &Finding) -> bool {
    f.held() && f.invariant.condition.is_none()
}

fn mark(f: &mut Finding, by: Vec<usize>, reason: impl Into<String>) {
    f.verdict = Verdict::Suppressed {
        by,
        reason: reason.into(),
    };
}

/// Whether the finding is still a candidate for suppression (held, printable, not yet suppressed).
fn open(f: &Finding) -> bool {
    matches!(f.verdict, Verdict::Reported | Verdict::Unjustified)
}

/// The variables' names, joined by "and".
fn names(model: &VarModel, vars: &[VarId]) -> String {
    vars.iter()
        .map(|v| model.vars[*v].name.as_str())
        .collect::<Vec<_>>()
        .join(" and ")
}
