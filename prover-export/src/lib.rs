//! Proof obligations for invariants and forward simulations, checked by Z3 and exported as
//! SMT-LIB2 and Isabelle/HOL.
//!
//! Not built yet: this crate holds only its header until the prover issue is resolved.
