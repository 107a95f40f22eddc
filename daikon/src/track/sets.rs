//! Relations involving sets (`A ⊆ B`, `A = B`, `size(A ∩ B) = 0`, `x ∈ A`) and equality of other
//! values (`x = y`).

use super::{falsified, held, MakeWitness};
use crate::invariant::{Finding, Invariant, Kind, Witness};
use crate::justify;
use crate::vars::VarId;
use imbl::OrdSet;
use interpreter::value::Value;

fn set(v: &Value) -> Option<&OrdSet<Value>> {
    match v {
        Value::Set(s) => Some(s),
        _ => None,
    }
}

/// Inclusion both ways between A and B.
#[derive(Debug, Clone, Default)]
pub struct SetRel {
    sub_broken: Option<Box<Witness>>,
    sup_broken: Option<Box<Witness>>,
    /// Samples with A ≠ {} (informative for A ⊆ B).
    sub_samples: u64,
    /// Samples with B ≠ {} (informative for B ⊆ A).
    sup_samples: u64,
    /// Samples with A ∪ B ≠ {} (informative for A = B).
    eq_samples: u64,
}

impl SetRel {
    /// Alive while one direction still holds.
    pub fn alive(&self) -> bool {
        self.sub_broken.is_none() || self.sup_broken.is_none()
    }

    /// Takes one sample.
    pub fn observe(&mut self, x: &Value, y: &Value, witness: MakeWitness) {
        let (Some(a), Some(b)) = (set(x), set(y)) else {
            return;
        };
        if self.sub_broken.is_none() {
            if a.is_subset(b) {
                self.sub_samples += u64::from(!a.is_empty());
            } else {
                self.sub_broken = Some(Box::new(witness()));
            }
        }
        if self.sup_broken.is_none() {
            if b.is_subset(a) {
                self.sup_samples += u64::from(!b.is_empty());
            } else {
                self.sup_broken = Some(Box::new(witness()));
            }
        }
        self.eq_samples += u64::from(!a.is_empty() || !b.is_empty());
    }

    /// `A = B`, `A ⊆ B` or `B ⊆ A`, whichever held; or both inclusions, falsified.
    pub fn findings(&self, a: VarId, b: VarId, confidence: f64) -> Vec<Finding> {
        let m = justify::BINARY;
        let inv = Invariant::binary;
        match (&self.sub_broken, &self.sup_broken) {
            (None, None) => {
                let n = self.eq_samples;
                vec![held(
                    inv(Kind::Equal, a, b),
                    n,
                    justify::binary(n),
                    m,
                    confidence,
                )]
            }
            (None, Some(sup)) => {
                let n = self.sub_samples;
                vec![
                    held(
                        inv(Kind::Subset, a, b),
                        n,
                        justify::binary(n),
                        m,
                        confidence,
                    ),
                    falsified(inv(Kind::Subset, b, a), self.sup_samples, m, sup),
                ]
            }
            (Some(sub), None) => {
                let n = self.sup_samples;
                vec![
                    held(
                        inv(Kind::Subset, b, a),
                        n,
                        justify::binary(n),
                        m,
                        confidence,
                    ),
                    falsified(inv(Kind::Subset, a, b), self.sub_samples, m, sub),
                ]
            }
            (Some(sub), Some(sup)) => vec![
                falsified(inv(Kind::Subset, a, b), self.sub_samples, m, sub),
                falsified(inv(Kind::Subset, b, a), self.sup_samples, m, sup),
            ],
        }
    }
}

/// `size(A ∩ B) = 0`.
#[derive(Debug, Clone, Default)]
pub struct Disjoint {
    broken: Option<Box<Witness>>,
    /// Samples with A ≠ {} and B ≠ {}.
    samples: u64,
}

impl Disjoint {
    /// A shared element ends it.
    pub fn alive(&self) -> bool {
        self.broken.is_none()
    }

    /// Takes one sample.
    pub fn observe(&mut self, x: &Value, y: &Value, witness: MakeWitness) {
        let (Some(a), Some(b)) = (set(x), set(y)) else {
            return;
        };
        if a.is_empty() || b.is_empty() {
            return;
        }
        let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        if small.iter().any(|e| large.contains(e)) {
            self.broken = Some(Box::new(witness()));
        } else {
            self.samples += 1;
        }
    }

    /// The disjointness, held or falsified.
    pub fn findings(&self, a: VarId, b: VarId, confidence: f64) -> Vec<Finding> {
        let invariant = Invariant::binary(Kind::Disjoint, a, b);
        let n = self.samples;
        match &self.broken {
            Some(w) => vec![falsified(invariant, n, justify::BINARY, w)],
            None => vec![held(
                invariant,
                n,
                justify::binary(n),
                justify::BINARY,
                confidence,
            )],
        }
    }
}

/// `x ∈ A`.
#[derive(Debug, Clone, Default)]
pub struct Member {
    broken: Option<Box<Witness>>,
    samples: u64,
}

impl Member {
    /// A sample outside the set ends it.
    pub fn alive(&self) -> bool {
        self.broken.is_none()
    }

    /// Takes one sample: `x` the element, `y` the set.
    pub fn observe(&mut self, x: &Value, y: &Value, witness: MakeWitness) {
        let Some(s) = set(y) else {
            return;
        };
        if s.contains(x) {
            self.samples += 1;
        } else {
            self.broken = Some(Box::new(witness()));
        }
    }

    /// The membership, held or falsified.
    pub fn findings(&self, a: VarId, b: VarId, confidence: f64) -> Vec<Finding> {
        let invariant = Invariant::binary(Kind::Member, a, b);
        let n = self.samples;
        match &self.broken {
            Some(w) => vec![falsified(invariant, n, justify::BINARY, w)],
            None => vec![held(
                invariant,
                n,
                justify::binary(n),
                justify::BINARY,
                confidence,
            )],
        }
    }
}

/// `x = y` for values that are neither numbers nor sets.
#[derive(Debug, Clone, Default)]
pub struct Equal {
    broken: Option<Box<Witness>>,
    samples: u64,
}

impl Equal {
    /// A difference ends it.
    pub fn alive(&self) -> bool {
        self.broken.is_none()
    }

    /// Takes one sample.
    pub fn observe(&mut self, x: &Value, y: &Value, witness: MakeWitness) {
        if x == y {
            self.samples += 1;
        } else {
            self.broken = Some(Box::new(witness()));
        }
    }

    /// The equality, held or falsified.
    pub fn findings(&self, a: VarId, b: VarId, confidence: f64) -> Vec<Finding> {
        let invariant = Invariant::binary(Kind::Equal, a, b);
        let n = self.samples;
        match &self.broken {
            Some(w) => vec![falsified(invariant, n, justify::BINARY, w)],
            None => vec![held(
                invariant,
                n,
                justify::binary(n),
                justify::BINARY,
                confidence,
            )],
        }
    }
}
