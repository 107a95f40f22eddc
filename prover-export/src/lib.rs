//! Proof obligations for invariants and forward simulations, checked by Z3 and exported as
//! SMT-LIB2 and Isabelle/HOL.
//!
//! Built so far: the Isabelle/HOL export ([`isabelle`]). Obligations, Z3 and SMT-LIB2 are the
//! prover issue's other items.

pub mod isabelle;
