//! Linear relations `a·x + b·y + c = 0` between two numbers, as Daikon's `LinearBinary`: the
//! first two distinct points fix the line, every later point must lie on it. Samples after the
//! line is fixed are the informative ones, and at least three distinct points are needed (any
//! two points lie on a line).

use super::{falsified, held, MakeWitness};
use crate::invariant::{Finding, Invariant, Kind, Witness};
use crate::justify;
use crate::vars::VarId;
use interpreter::value::Value;
use rustc_hash::FxHashSet;

/// Distinct points are counted up to this many (three are needed).
const MAX_POINTS: usize = 3;

/// The line through the first two points, and whether a later point left it.
#[derive(Debug, Clone, Default)]
pub struct Linear {
    first: Option<(i64, i64)>,
    line: Option<(i64, i64, i64)>,
    broken: Option<Box<Witness>>,
    points: FxHashSet<(i64, i64)>,
    /// Samples on the line after it was fixed.
    on_line: u64,
}

impl Linear {
    /// A broken line stays broken.
    pub fn alive(&self) -> bool {
        self.broken.is_none()
    }

    /// Takes one sample.
    pub fn observe(&mut self, x: &Value, y: &Value, witness: MakeWitness) {
        let (Some(x), Some(y)) = (x.as_int(), y.as_int()) else {
            return;
        };
        if self.points.len() < MAX_POINTS {
            self.points.insert((x, y));
        }
        match (self.first, self.line) {
            (None, _) => self.first = Some((x, y)),
            (Some(p), None) if p != (x, y) => self.line = line_through(p, (x, y)),
            (Some(_), None) => {}
            (Some(_), Some((a, b, c))) => {
                let on = a as i128 * x as i128 + b as i128 * y as i128 + c as i128 == 0;
                if on {
                    self.on_line += 1;
                } else if self.broken.is_none() {
                    self.broken = Some(Box::new(witness()));
                }
            }
        }
    }

    /// The line, if it is a proper one (both coefficients non-zero) and not `x = y`.
    pub fn findings(&self, a: VarId, b: VarId, confidence: f64) -> Vec<Finding> {
        let Some((ca, cb, cc)) = self.line else {
            return vec![];
        };
        // A horizontal or vertical line is a constant; x − y = 0 is equality.
        if ca == 0 || cb == 0 || (ca, cb, cc) == (1, -1, 0) {
            return vec![];
        }
        let invariant = Invariant::binary(Kind::Linear(ca, cb, cc), a, b);
        let n = self.on_line;
        let p = if self.points.len() < 3 {
            1.0
        } else {
            justify::binary(n)
        };
        match &self.broken {
            Some(w) => vec![falsified(invariant, n, justify::LINEAR, w)],
            None => vec![held(invariant, n, p, justify::LINEAR, confidence)],
        }
    }
}

/// The line `a·x + b·y + c = 0` through two distinct points, normalised (no common factor,
/// `a > 0`, or `b > 0` when `a = 0`); `None` on overflow.
fn line_through((x1, y1): (i64, i64), (x2, y2): (i64, i64)) -> Option<(i64, i64, i64)> {
    let a = y2 as i128 - y1 as i128;
    let b = x1 as i128 - x2 as i128;
    let c = -(a * x1 as i128 + b * y1 as i128);
    let g = gcd(gcd(a.abs(), b.abs()), c.abs()).max(1);
    let sign = if a < 0 || (a == 0 && b < 0) { -1 } else { 1 };
    let norm = |v: i128| i64::try_from(sign * v / g).ok();
    Some((norm(a)?, norm(b)?, norm(c)?))
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests {
    use super::line_through;

    #[test]
    fn lines_are_normalised() {
        assert_eq!(line_through((0, 1), (2, 5)), Some((2, -1, 1)));
        assert_eq!(line_through((2, 5), (0, 1)), Some((2, -1, 1)));
        assert_eq!(line_through((0, 3), (1, 3)), Some((0, 1, -3)));
    }
}
