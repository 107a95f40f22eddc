//! Explicit-state exploration of automata (exhaustive with symmetry reduction, later local model
//! checking, consequence prediction and random-walk liveness).
//!
//! Not built yet: this crate holds only its header until the explorer issue is resolved.
