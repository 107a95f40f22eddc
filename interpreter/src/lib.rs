//! Executes I/O automata: values over persistent collections, expression evaluation, the step
//! function, nondeterminism-resolution schedules, seeded random runs and traces.
//!
//! Work in progress (the interpreter issue): values, universes, evaluation and effect execution
//! are here; the step function over composites, schedules, random runs and traces come next.
//! It consumes `ioa_lang::ir::Spec` and nothing above it.

pub mod deps;
pub mod error;
pub mod eval;
pub mod exec;
pub mod machine;
pub mod runner;
pub mod shrink;
pub mod trace;
pub mod universe;
pub mod value;
