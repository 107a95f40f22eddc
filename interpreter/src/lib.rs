//! Executes I/O automata: values over persistent collections, expression evaluation, the step
//! function, nondeterminism-resolution schedules, seeded random runs and traces.
//!
//! Not built yet: this crate holds only its header until the interpreter issue is resolved. It
//! will consume `ioa_lang::ir::Spec` and nothing above it.
