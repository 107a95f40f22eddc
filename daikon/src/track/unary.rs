//! Per-variable statistics, from which the unary invariants come: constant, one-of (up to three
//! values) and, for numbers, lower and upper bounds.

use super::{falsified, held, MakeWitness};
use crate::invariant::{Finding, Invariant, Kind, Witness};
use crate::justify;
use crate::vars::{Shape, Term, VarId, VarModel};
use interpreter::value::Value;

/// The most values a one-of invariant lists.
pub const MAX_ONE_OF: usize = 3;

/// What one variable did over all samples.
#[derive(Debug, Clone)]
pub struct UnaryStats {
    /// Its distinct values, up to `MAX_ONE_OF + 1`.
    values: Vec<Value>,
    /// The sample with its second value.
    const_broken: Option<Box<Witness>>,
    /// The sample with its fourth value.
    one_of_broken: Option<Box<Witness>>,
    min: i64,
    max: i64,
    /// Changes that landed on the current minimum.
    at_min: u64,
    /// Changes that landed on the current maximum.
    at_max: u64,
    /// Positions of distinct states in which it changed.
    changed: u64,
    /// Positions of distinct states.
    all: u64,
}

impl Default for UnaryStats {
    fn default() -> Self {
        UnaryStats {
            values: Vec::new(),
            const_broken: None,
            one_of_broken: None,
            min: i64::MAX,
            max: i64::MIN,
            at_min: 0,
            at_max: 0,
            changed: 0,
            all: 0,
        }
    }
}

impl UnaryStats {
    /// Counts `positions` positions of a distinct state, changed or not.
    pub fn count(&mut self, positions: usize) {
        self.all += positions as u64;
    }

    /// Takes the value of one position that changed.
    pub fn observe(&mut self, v: &Value, witness: MakeWitness) {
        self.changed += 1;
        if let Some(i) = v.as_int() {
            if i < self.min {
                (self.min, self.at_min) = (i, 0);
            }
            if i > self.max {
                (self.max, self.at_max) = (i, 0);
            }
            self.at_min += u64::from(i == self.min);
            self.at_max += u64::from(i == self.max);
        }
        if self.values.len() <= MAX_ONE_OF && !self.values.contains(v) {
            self.values.push(v.clone());
            match self.values.len() {
                2 => self.const_broken = Some(Box::new(witness())),
                n if n == MAX_ONE_OF + 1 => self.one_of_broken = Some(Box::new(witness())),
                _ => {}
            }
        }
    }

    /// The unary candidates for variable `x`.
    pub fn findings(&self, model: &VarModel, x: VarId, confidence: f64) -> Vec<Finding> {
        let var = &model.vars[x];
        let mut out = Vec::new();
        if self.values.is_empty() {
            return out;
        }
        match &self.const_broken {
            None => {
                let value = self.values[0].clone();
                // size(A ∩ B) = 0 is the disjointness relation, justified by its own model.
                let disjointness = var.is_intersection_size(model) && value == Value::Int(0);
                if !disjointness {
                    let n = self.all;
                    out.push(held(
                        Invariant::unary(Kind::Const(value), x),
                        n,
                        justify::binary(n),
                        justify::CONSTANT,
                        confidence,
                    ));
                }
                return out;
            }
            Some(w) => out.push(falsified(
                Invariant::unary(Kind::Const(self.values[0].clone()), x),
                self.all,
                justify::CONSTANT,
                w,
            )),
        }
        let mut sorted = self.values.clone();
        sorted.sort();
        let numeric = var.shape == Shape::Numeric;
        let contiguous =
            numeric && self.max as i128 - self.min as i128 + 1 == self.values.len() as i128;
        // Sizes are bounded, not enumerated: a size taking a few scattered values is almost
        // always an artefact of the universe (3 nodes give 0, 1 or 4 majority quorums).
        let size = matches!(var.term, Term::Size(_));
        match (&self.one_of_broken, &var.shape) {
            (None, Shape::Scalar | Shape::Numeric) if !contiguous && !size => {
                let k = sorted.len();
                out.push(held(
                    Invariant::unary(Kind::OneOf(sorted), x),
                    self.changed,
                    justify::one_of(k, self.changed),
                    justify::ONE_OF,
                    confidence,
                ));
            }
            (Some(w), Shape::Scalar) => {
                sorted.truncate(MAX_ONE_OF);
                out.push(falsified(
                    Invariant::unary(Kind::OneOf(sorted), x),
                    self.changed,
                    justify::ONE_OF,
                    w,
                ));
            }
            _ => {}
        }
        if numeric {
            for (kind, n) in [
                (Kind::Lower(self.min), self.at_min),
                (Kind::Upper(self.max), self.at_max),
            ] {
                out.push(held(
                    Invariant::unary(kind, x),
                    n,
                    justify::binary(n),
                    justify::BOUND,
                    confidence,
                ));
            }
        }
        out
    }
}
