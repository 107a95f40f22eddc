//! Executes I/O automata: values over persistent collections, expression evaluation, the step
//! function, nondeterminism-resolution schedules, seeded random runs and traces.
//!
//! It consumes `ioa_lang::ir::Spec` and nothing above it; the simulation checker, the invariant
//! detector and the explorers build on its step function.

pub mod array_entries;
pub mod deps;
pub mod error;
pub mod eval;
pub mod exec;
pub mod family;
pub mod int_bounds;
pub mod machine;
pub mod param_guard;
pub mod runner;
mod sampler;
pub mod shrink;
pub mod trace;
pub mod universe;
pub mod value;
pub mod walk;
