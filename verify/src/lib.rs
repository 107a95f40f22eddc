//! `ioa verify`: the paper's whole method in one pipeline. Candidate invariants come from two
//! places — the Daikon-style detector run over executions, and templates read off the program
//! text (every write to a state variable, guarded by the precondition, `where` clause and
//! branch conditions under which it happens) — and are then filtered by the states of the runs,
//! and by a Houdini fixpoint with Z3 until the survivors are inductive together; the simulation
//! or property is then proved assuming them.
//!
//! - [`templates`]: candidates from program text, as IOA source.
//! - [`lift`]: a composite's candidates, lifted from its components' templates.
//! - [`sample`]: candidates refuted by a reached state.
//! - [`explore_filter`]: candidates refuted by exploring a small instance, and counterexamples
//!   to the property itself.
//! - [`fixpoint`]: the Houdini fixpoint over the rest.
//! - [`small_instance`]: one exploration that refutes every candidate it can (`ioa infer`).

pub mod explore_filter;
pub mod fixpoint;
pub mod lift;
pub mod sample;
pub mod small_instance;
pub mod templates;
