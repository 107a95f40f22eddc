//! Paired (lockstep) execution of an implementation automaton A and a specification automaton B
//! through the step correspondence of a forward simulation's `proof` block (paper §2.2.1, §6).
//!
//! The start block builds B's start state from A's; after every step of A, the entry for A's
//! action, evaluated in A's pre-state, fires a sequence of B actions. Each fired action must be
//! enabled, the fired sequence's external actions must be A's external action, and the relation
//! must hold afterwards. The first failure is reported as data ([`PairFailure`]).

mod pair;

pub use pair::{Check, Pair, PairFailure};
