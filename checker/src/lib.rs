//! Explicit-state exploration of automata: every reachable state of a (primitive or composite)
//! automaton over finite universes, breadth first, checking every invariant in every state.
//!
//! - [`explore`]: the one exploration loop (the [`explore::Model`] trait, the visited-state
//!   graph, the frontier, limits, statistics). Later strategies (local model checking,
//!   consequence prediction, random walks) reuse it rather than copying a search.
//! - [`model`]: the interpreter's `Machine` as a model: action instances, branching over every
//!   resolution of `choose`, invariant checks, re-executing a path into a replayable trace.
//! - [`compiled`]: the same model compiled to code over flat word states, for primitive
//!   automata over finite types (the interpreter's model is the fallback).
//! - [`symmetry`]: symmetry reduction for types declared symmetric, with canonical
//!   fingerprints and the checks that make the reduction sound.
//! - [`system`]: a composite seen as a distributed system: nodes (each with its slice of the
//!   state vector), the network, and a class for every action instance (message handler, send,
//!   local, network); the local, consequence and liveness searches read it.
//! - [`liveness`]: `eventually P` and `P ↝ Q` exactly (dead states with the critical transition,
//!   fair cycles under task fairness as lassos) and by MaceMC's random walks with
//!   FindCriticalTransition.
//! - [`reduction`]: partial-order reduction (stubborn sets from the instances' read and write
//!   sets, visibility, the breadth-first cycle proviso) as a filter on a model's successors.
//! - [`fingerprint`]: fixed-seed 128-bit state fingerprints.
//! - [`memory`]: the process's resident memory, for limits and statistics.
//!
//! The crate never prints: progress and results are data for the `ioa explore` command.

pub mod compiled;
pub mod explore;
pub mod fingerprint;
pub mod ir_walk;
pub mod liveness;
pub mod local;
pub mod memory;
pub mod model;
pub mod predict;
pub mod reduction;
pub mod steer;
pub mod symmetry;
pub mod system;
