//! Paired (lockstep) execution of an implementation automaton and a specification automaton
//! through the step correspondence of a forward simulation's `proof` block.
//!
//! Not built yet: this crate holds only its header until the paired-execution issue is resolved.
