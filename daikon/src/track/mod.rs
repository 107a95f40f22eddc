//! What is tracked while samples stream by: per-variable statistics for unary invariants
//! ([`unary`]) and one tracker per related pair of variables ([`Pair`]), each of which turns into
//! [`Finding`]s at the end.

pub mod compare;
pub mod linear;
pub mod sets;
pub mod unary;

use crate::invariant::{Finding, Witness};
use crate::vars::VarId;
use interpreter::value::Value;

/// Builds the witness of the current sample, on demand (only a falsification needs one).
pub type MakeWitness<'a> = &'a dyn Fn() -> Witness;

/// The relation tracked between two variables.
#[derive(Debug, Clone)]
pub enum Tracker {
    /// `<`, `≤`, `=` between numbers.
    Compare(compare::Compare),
    /// `a·x + b·y + c = 0`.
    Linear(linear::Linear),
    /// `⊆`, `⊇`, `=` between sets.
    SetRel(sets::SetRel),
    /// `size(A ∩ B) = 0`.
    Disjoint(sets::Disjoint),
    /// `x ∈ A`.
    Member(sets::Member),
    /// `x = y` between other values.
    Equal(sets::Equal),
}

/// A tracked relation between variables `a` and `b`.
#[derive(Debug, Clone)]
pub struct Pair {
    /// The first variable (x, or A).
    pub a: VarId,
    /// The second variable (y, or B).
    pub b: VarId,
    /// What is tracked.
    pub tracker: Tracker,
}

impl Pair {
    /// Whether a sample can still change the outcome.
    pub fn alive(&self) -> bool {
        match &self.tracker {
            Tracker::Compare(t) => t.alive(),
            Tracker::Linear(t) => t.alive(),
            Tracker::SetRel(t) => t.alive(),
            Tracker::Disjoint(t) => t.alive(),
            Tracker::Member(t) => t.alive(),
            Tracker::Equal(t) => t.alive(),
        }
    }

    /// Takes one informative sample: `x` of `a` and `y` of `b`.
    pub fn observe(&mut self, x: &Value, y: &Value, witness: MakeWitness) {
        match &mut self.tracker {
            Tracker::Compare(t) => t.observe(x, y, witness),
            Tracker::Linear(t) => t.observe(x, y, witness),
            Tracker::SetRel(t) => t.observe(x, y, witness),
            Tracker::Disjoint(t) => t.observe(x, y, witness),
            Tracker::Member(t) => t.observe(x, y, witness),
            Tracker::Equal(t) => t.observe(x, y, witness),
        }
    }

    /// The candidates this pair yields, with their evidence.
    pub fn findings(&self, confidence: f64) -> Vec<Finding> {
        let (a, b) = (self.a, self.b);
        match &self.tracker {
            Tracker::Compare(t) => t.findings(a, b, confidence),
            Tracker::Linear(t) => t.findings(a, b, confidence),
            Tracker::SetRel(t) => t.findings(a, b, confidence),
            Tracker::Disjoint(t) => t.findings(a, b, confidence),
            Tracker::Member(t) => t.findings(a, b, confidence),
            Tracker::Equal(t) => t.findings(a, b, confidence),
        }
    }
}

/// A finding that held, reported or unjustified by its probability.
pub(crate) fn held(
    invariant: crate::invariant::Invariant,
    samples: u64,
    probability: f64,
    model: &'static str,
    confidence: f64,
) -> Finding {
    use crate::invariant::Verdict;
    Finding {
        invariant,
        samples,
        probability,
        model,
        verdict: if crate::justify::justified(probability, confidence) {
            Verdict::Reported
        } else {
            Verdict::Unjustified
        },
    }
}

/// A finding that a sample falsified.
pub(crate) fn falsified(
    invariant: crate::invariant::Invariant,
    samples: u64,
    model: &'static str,
    witness: &Witness,
) -> Finding {
    Finding {
        invariant,
        samples,
        probability: 1.0,
        model,
        verdict: crate::invariant::Verdict::Falsified(Box::new(witness.clone())),
    }
}
