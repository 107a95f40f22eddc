//! The library layer: what the `ioa` commands do, as functions that return data.
//!
//! Every front end — the command line (`src/cli/`), the language server (`src/lsp/`) and the
//! web explorer ([`crate::serve`]) — calls these and renders the result; none of them decides
//! how a model is loaded, checked or explored. Nothing here prints or exits: problems come back
//! as [`ioa_lang::diagnostics::Diagnostic`]s (with the sources they point into) or as a
//! message for a usage error, and results as reports the caller renders.
//!
//! | module | what it does |
//! |---|---|
//! | [`check`] | check model files and universe files ([`check::CheckReport`]) |
//! | [`model`] | load a model with its universe; choose the automaton and its parameters |
//! | [`explore`] | exhaustive exploration of one automaton ([`explore::Explored`]) |
//! | [`runs`] | the runs `ioa infer` and `ioa trace` make (schedules, seeded random runs) |
//! | [`infer_filter`] | the precision filter over candidate invariants |
//! | [`prove_params`] | fixing parameters for the prover (`--param`) |
//! | [`liveness_common`] | what the liveness searches share (properties, paths, notes) |
//! | [`snapshot`] | the state a search starts from (a start state or a trace's state) |
//! | [`itf`] | reading and writing ITF traces with the metadata `ioa replay` needs |
//! | [`trace_files`] | writing runs as Daikon and ITF files |
//! | [`diagnose`] | diagnostics for stopped runs and searches |
//! | [`numbers`] | durations, amounts of memory and counts as users read them |
//! | [`fs`] | the real file system for the front end's loader |
//! | [`campaign`] | seed-sharded campaigns and merging their reports |
//! | [`run`] | seeded random-run campaigns and shrinking a violation |
//! | [`pair`], [`pair_campaign`] | paired runs of a simulation, and their campaigns |
//! | [`infer`], [`infer_sample`] | `ioa infer`'s options, runs fed to the detector, reports |
//! | [`prove`] | proof obligations checked with Z3 ([`prove::ProveReport`]) |
//! | [`verify`] | `ioa verify`'s whole pipeline |
//! | [`system`] | the system view of a composite |
//! | [`local`] | local model checking (LMC) |
//! | [`predict`], [`steer`] | consequence prediction and execution steering |
//! | [`liveness_exact`], [`liveness_exact_report`] | the exact liveness check and its report |
//! | [`macemc`], [`liveness_search`] | MaceMC's liveness search and its report |
//! | [`distributed`] | the distributed search's compilation, totals and lines |
//! | [`export`] | the Isabelle export and what it cannot state |
//!
//! **Architecture Invariant:** dependencies point one way: `cli`/`lsp` → `api` → the engine
//! crates. Nothing under `api` names the command line (no clap, no exit codes) or prints.

pub mod campaign;
pub mod check;
pub mod diagnose;
pub mod distributed;
pub mod explore;
pub mod export;
pub mod fs;
pub mod infer;
pub mod infer_filter;
pub mod infer_sample;
pub mod itf;
pub mod liveness_common;
pub mod liveness_exact;
pub mod liveness_exact_report;
pub mod liveness_search;
pub mod local;
pub mod macemc;
pub mod model;
pub mod numbers;
pub mod pair;
pub mod pair_campaign;
pub mod predict;
pub mod prove;
pub mod prove_params;
pub mod run;
pub mod runs;
pub mod snapshot;
pub mod steer;
pub mod system;
pub mod trace_files;
pub mod verify;
