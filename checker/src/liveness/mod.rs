//! Liveness checking: `liveness L of A: eventually P` and `P ↝ Q`, exactly on finite instances
//! and by MaceMC's random walks (Killian et al., "Life, Death, and the Critical Transition",
//! §4) on instances too large for that.
//!
//! - [`tasks`]: the fairness classes (tasks) of the action instances.
//! - [`graph`]: the explored state graph with every edge and the predicates' truth per state.
//! - [`exact`]: on a fully explored graph, the *dead states* (no goal state reachable) with the
//!   shortest path to one and its critical transition, and the fair-cycle check under task
//!   fairness (weak fairness per task, SCC-based) answered with a lasso.
//! - [`exhausted`]: whether a stopped state stopped only because a finite carrier ran out.
//! - [`macemc`]: bounded breadth-first search, random walks from its last level, and
//!   FindCriticalTransition (Alg. 2) on a walk that never reaches the goal.
//!
//! Every path either search reports is a list of [`MachineStep`]s from a start state that the
//! interpreter re-executes (`MachineModel::trace`) before anything is printed: the searches are
//! optimisations, never a second semantics.

pub mod exact;
pub mod exhausted;
pub mod graph;
pub mod macemc;
pub mod tasks;

use crate::model::{MachineError, MachineStep};
use interpreter::error::{EvalResult, RunError};
use interpreter::machine::Machine;
use interpreter::value::Value;
use ioa_lang::ir::{Expr, Liveness};

/// What went wrong during a liveness search.
#[derive(Debug, Clone)]
pub enum LivenessError {
    /// Building or expanding a state failed.
    Machine(MachineError),
    /// Evaluating one of the property's predicates failed.
    Predicate(RunError),
    /// Deciding or taking a step of a random walk failed.
    Walk(RunError),
}

/// A liveness property of the machine's root automaton, ready to evaluate.
#[derive(Debug, Clone, Copy)]
pub struct Property<'s> {
    /// The declaration.
    pub liveness: &'s Liveness,
}

impl<'s> Property<'s> {
    /// The property as declared.
    pub fn new(liveness: &'s Liveness) -> Self {
        Property { liveness }
    }

    fn truth(&self, machine: &Machine, e: &Expr, state: &[Value]) -> EvalResult<bool> {
        let mut locals = vec![Value::Bool(false); self.liveness.n_locals as usize + 1];
        machine.root_truth(e, state, &mut locals)
    }

    /// Whether the goal holds in `state`.
    pub fn goal(&self, machine: &Machine, state: &[Value]) -> Result<bool, LivenessError> {
        self.truth(machine, self.liveness.property.goal(), state)
            .map_err(LivenessError::Predicate)
    }

    /// Whether `P` of `P ↝ Q` holds in `state` (false for `eventually`, whose obligation
    /// starts in the start states).
    pub fn trigger(&self, machine: &Machine, state: &[Value]) -> Result<bool, LivenessError> {
        match self.liveness.property.trigger() {
            Some(p) => self
                .truth(machine, p, state)
                .map_err(LivenessError::Predicate),
            None => Ok(false),
        }
    }
}

/// A path from a start state: the first step builds the start state.
pub type Path = Vec<MachineStep>;
