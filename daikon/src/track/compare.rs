//! Order between two numbers: which of `<`, `=`, `>` were ever seen decides whether `x < y`,
//! `x ≤ y`, `x = y` (or the same the other way round) held.
//!
//! A sample in which the smaller side sits at the least value its type allows (a size of 0)
//! says nothing about the order: `size(decided) ≤ size(initiated)` holds trivially while nobody
//! has decided. Such samples are not counted for that direction, as `A ⊆ B` does not count
//! samples with `A = {}`.

use super::{falsified, held, MakeWitness};
use crate::invariant::{Finding, Invariant, Kind, Witness};
use crate::justify;
use crate::vars::VarId;
use interpreter::value::Value;
use std::cmp::Ordering;

/// The first sample of each ordering between x and y.
#[derive(Debug, Clone, Default)]
pub struct Compare {
    less: Option<Box<Witness>>,
    equal: Option<Box<Witness>>,
    greater: Option<Box<Witness>>,
    /// The least values x and y can take, if their types have one.
    floors: (Option<i64>, Option<i64>),
    /// Samples informative for x ≤ y (x above its floor).
    x_up: u64,
    /// Samples informative for y ≤ x (y above its floor).
    y_up: u64,
    /// Samples informative for x = y (not both at their floors).
    either_up: u64,
}

impl Compare {
    /// A tracker for numbers whose types have these least values.
    pub fn new(floor_x: Option<i64>, floor_y: Option<i64>) -> Self {
        Compare {
            floors: (floor_x, floor_y),
            ..Compare::default()
        }
    }

    /// Once both `<` and `>` were seen, no relation of the grammar is left.
    pub fn alive(&self) -> bool {
        self.less.is_none() || self.greater.is_none()
    }

    /// Takes one sample.
    pub fn observe(&mut self, x: &Value, y: &Value, witness: MakeWitness) {
        let (Some(x), Some(y)) = (x.as_int(), y.as_int()) else {
            return;
        };
        let x_up = self.floors.0 != Some(x);
        let y_up = self.floors.1 != Some(y);
        self.x_up += u64::from(x_up);
        self.y_up += u64::from(y_up);
        self.either_up += u64::from(x_up || y_up);
        let slot = match x.cmp(&y) {
            Ordering::Less => &mut self.less,
            Ordering::Equal => &mut self.equal,
            Ordering::Greater => &mut self.greater,
        };
        if slot.is_none() {
            *slot = Some(Box::new(witness()));
        }
    }

    /// The strongest relation that held, or the two falsified `≤`s.
    pub fn findings(&self, a: VarId, b: VarId, confidence: f64) -> Vec<Finding> {
        let m = justify::BINARY;
        let (lt, eq, gt) = (&self.less, &self.equal, &self.greater);
        let inv = Invariant::binary;
        let (ab, ba, both) = (self.x_up, self.y_up, self.either_up);
        let p = justify::binary;
        match (lt, eq, gt) {
            (None, _, None) => vec![held(inv(Kind::Equal, a, b), both, p(both), m, confidence)],
            (Some(_), None, None) => vec![held(inv(Kind::Less, a, b), ab, p(ab), m, confidence)],
            (Some(_), Some(_), None) => {
                vec![held(inv(Kind::LessEq, a, b), ab, p(ab), m, confidence)]
            }
            (None, None, Some(_)) => vec![held(inv(Kind::Less, b, a), ba, p(ba), m, confidence)],
            (None, Some(_), Some(_)) => {
                vec![held(inv(Kind::LessEq, b, a), ba, p(ba), m, confidence)]
            }
            (Some(l), _, Some(g)) => vec![
                falsified(inv(Kind::LessEq, a, b), ab, m, g),
                falsified(inv(Kind::LessEq, b, a), ba, m, l),
            ],
        }
    }
}
