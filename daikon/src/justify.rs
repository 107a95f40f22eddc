//! Justification: how likely is it that a candidate held on every sample by accident?
//!
//! A candidate that held on every sample is reported only if that chance is below `1 −
//! confidence` (default confidence 0.99, so below 0.01), as in Daikon. Each kind has its own
//! model of "accident". Samples are counted over *distinct* states (a state reached twice, in one
//! run or in two, counts once), and only where the candidate could learn something: a state (and
//! for an invariant over array elements, an index) in which at least one of its variables had
//! just changed — the start state of a run counts as a change — and, for some kinds, where the
//! values are not trivially consistent. With `n` such informative samples:
//!
//! | kind | informative sample | chance of holding by accident |
//! |---|---|---|
//! | `x = c` (constant) | every distinct state (and index), changed or not | `0.5^n` |
//! | `x = c1 ∨ … ∨ x = ck` (k ≤ 3) | the variable changed | `(k / (k + 1))^n` |
//! | `x ≥ c`, `x ≤ c` | the variable changed to exactly `c` | `0.5^n` |
//! | `x < y`, `x ≤ y` | either changed, `x` above its type's least value (sizes: 0) | `0.5^n` |
//! | `x = y` (numbers) | either changed, not both at their least values | `0.5^n` |
//! | `a·x + b·y + c = 0` | either changed, after the first two distinct points fixed the line (and only with three distinct points or more) | `0.5^n` |
//! | `A ⊆ B` | either changed and `A ≠ {}` | `0.5^n` |
//! | `A = B` (sets) | either changed and `A ∪ B ≠ {}` | `0.5^n` |
//! | `size(A ∩ B) = 0` | either changed, `A ≠ {}` and `B ≠ {}` | `0.5^n` |
//! | `x ∈ A` | either changed | `0.5^n` |
//!
//! The binary models say: were the two variables unrelated, each informative sample would satisfy
//! the relation with probability at most ½. The one-of model says: had the variable a (k+1)-th
//! value as likely as the others, `n` changes would all have missed it with probability
//! `(k/(k+1))^n`. The bound model counts the changes that landed exactly on the bound: had there
//! been no bound, each could as well have gone one step beyond, with probability ½ (so a bound
//! reached once, at the end of a growing run, is not believed; one reached again and again is).
//! The constant model treats every state as a chance to differ.

/// The model of binary relations: `0.5^n`.
pub const BINARY: &str = "0.5^n";
/// The model of constants: `0.5^n` over every distinct sample.
pub const CONSTANT: &str = "0.5^n over all samples";
/// The model of one-of invariants.
pub const ONE_OF: &str = "(k/(k+1))^n";
/// The model of bounds: `0.5^n` over the changes that landed on the bound.
pub const BOUND: &str = "0.5^n over arrivals at the bound";
/// The model of linear relations.
pub const LINEAR: &str = "0.5^n after the line is fixed, 3 distinct points";

/// `0.5^n`.
pub fn binary(n: u64) -> f64 {
    0.5f64.powf(n as f64)
}

/// `(k / (k + 1))^n` for a variable seen with `k` values in `n` changes.
pub fn one_of(k: usize, n: u64) -> f64 {
    (k as f64 / (k as f64 + 1.0)).powf(n as f64)
}

/// Whether a candidate with this chance of holding by accident is justified at `confidence`.
pub fn justified(probability: f64, confidence: f64) -> bool {
    probability < 1.0 - confidence
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seven_informative_samples_justify_a_relation_at_the_default_confidence() {
        assert!(!justified(binary(6), 0.99));
        assert!(justified(binary(7), 0.99));
    }

    #[test]
    fn one_of_needs_more_samples_the_more_values_it_lists() {
        // (2/3)^12 ≈ 0.0077, (3/4)^16 ≈ 0.0100.
        assert!(justified(one_of(2, 12), 0.99));
        assert!(!justified(one_of(3, 12), 0.99));
        assert!(justified(one_of(3, 17), 0.99));
    }
}
