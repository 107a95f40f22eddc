//! Proof obligations for invariants and forward simulations, checked by Z3 and exported as
//! SMT-LIB2.
//!
//! - [`obligations`]: which formulas must be valid (invariant start/step; simulation start and
//!   step per action and proof-block case), each an SMT-LIB2 script.
//! - [`smt`]: the encoding of IOA sorts, expressions and effects (SSA, pointwise loops).
//! - [`solve`]: Z3 in process; verdicts and counterexamples as IOA values.
//! - [`isabelle`]: Isabelle/HOL theories of automata, invariants and forward simulations,
//!   with proof scripts whose case splits mirror the proof block.
//! - [`houdini`]: checking many candidate invariants against one encoding of each transition,
//!   the loop `ioa verify` needs.
//! - [`loop_nest`]: which `for` loops both encodings take as one simultaneous update.
//!
//! The crate never prints: verdicts and counterexamples are data the `ioa` command renders.

pub mod error;
pub mod houdini;
pub mod isabelle;
pub mod loop_nest;
pub mod obligations;
pub mod smt;
pub mod solve;

pub use error::EncodeError;
pub use obligations::{Assumptions, Obligation};
