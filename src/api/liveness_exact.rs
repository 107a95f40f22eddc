//! The exact liveness check (`ioa explore --liveness NAME`) as data: every reachable state is
//! explored keeping every edge, then the dead states (with the shortest path to one and its
//! critical transition) and the nearest execution that never reaches the goal under task
//! fairness (or under none) are found, and every reported path is re-executed by the
//! interpreter before it is returned. The search is `checker::liveness`'s.

use super::liveness_common::{
    error_diagnostic, exhausted_notes, find_property, replay, shape, Replayed,
};
use checker::explore::{Limit, Options};
use checker::liveness::exact::{self, Ending, ExactReport};
use checker::liveness::graph::{self, GraphOptions};
use checker::liveness::tasks::Tasks;
use checker::liveness::Property;
use checker::model::MachineModel;
use interpreter::machine::Machine;
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use std::time::Duration;

/// What the check announces before it explores.
pub struct Start {
    /// `eventually` or `leads to`.
    pub shape: &'static str,
    /// Action instances of the automaton.
    pub instances: usize,
    /// Tasks (fairness classes) of the automaton.
    pub tasks: usize,
}

/// Why the check did not run.
pub enum ExactError {
    /// No such liveness property: a message listing those the automaton has.
    Usage(String),
    /// The model cannot be explored, or a path did not re-execute.
    Diagnostic(Diagnostic),
}

impl From<Diagnostic> for ExactError {
    fn from(d: Diagnostic) -> Self {
        ExactError::Diagnostic(d)
    }
}

/// The explored graph's size and time.
pub struct GraphSize {
    /// States stored.
    pub states: usize,
    /// Transitions kept.
    pub transitions: u64,
    /// Time to build it.
    pub elapsed: Duration,
}

/// A finished check.
pub struct Checked {
    /// The verdict, the dead states and the fair cycle, as the checker found them.
    pub report: ExactReport,
    /// The task names, for the cycles fairness excluded.
    pub task_names: Vec<String>,
    /// The shortest path to a dead state, re-executed.
    pub dead: Option<Replayed>,
    /// The execution that never reaches the goal (a lasso, or a path that stops), re-executed.
    pub lasso: Option<Replayed>,
    /// Where the system stops short of the goal: the finite carriers that ran out there.
    pub exhausted: Vec<String>,
    /// Whether goal states were expanded (`P ↝ Q` expands them; `eventually P` does not).
    pub expand_goal: bool,
    /// Goal states found.
    pub goal_states: u64,
}

/// How the check ended.
pub enum ExactOutcome {
    /// A limit stopped the exploration: no verdict.
    Limit(Limit),
    /// Every reachable state was explored.
    Checked(Box<Checked>),
}

/// Checks the liveness property `name` of `machine`'s automaton exactly, under task fairness
/// when `fairness`; `started` is called once the property and the tasks are known.
pub fn check(
    machine: &Machine,
    name: &str,
    fairness: bool,
    options: &Options,
    started: &mut dyn FnMut(&Start),
) -> Result<(GraphSize, ExactOutcome), ExactError> {
    let liveness = find_property(machine.spec, machine.root, name).map_err(ExactError::Usage)?;
    let model = MachineModel::new(machine, None).map_err(|e| e.to_diagnostic())?;
    let tasks = Tasks::new(machine, model.instances()).map_err(|e| e.to_diagnostic())?;
    started(&Start {
        shape: shape(liveness),
        instances: model.instances().len(),
        tasks: tasks.len(),
    });
    let property = Property::new(liveness);
    let graph_options = GraphOptions {
        max_states: options.max_states,
        max_depth: options.max_depth,
        time_limit: options.time_limit,
    };
    let (graph, limit) =
        graph::build(&model, &property, &graph_options).map_err(error_diagnostic)?;
    let size = GraphSize {
        states: graph.len(),
        transitions: graph.transitions,
        elapsed: graph.elapsed,
    };
    if let Some(limit) = limit {
        return Ok((size, ExactOutcome::Limit(limit)));
    }
    let report = exact::check(&graph, &tasks, fairness);
    let expand_goal = liveness.property.trigger().is_some();
    let goal_states = graph.goal.iter().filter(|&&g| g).count() as u64;
    // Re-execute every reported path before anything is said about it.
    let dead = report
        .dead
        .as_ref()
        .map(|d| replay(&model, &d.path))
        .transpose()?;
    let lasso = report
        .violation
        .as_ref()
        .map(|v| replay(&model, &v.path))
        .transpose()?;
    // Where everything stopped short of the goal: did a finite carrier run out?
    let stopped_state = match report.dead.as_ref().and_then(|d| d.stopped.as_ref()) {
        Some(path) => replay(&model, path)?.trace.states.last().cloned(),
        None => match (&report.violation, &lasso) {
            (Some(v), Some(r)) if v.ending == Ending::Stops => r.trace.states.last().cloned(),
            _ => None,
        },
    };
    let exhausted = stopped_state
        .map(|s| exhausted_notes(&model, &s))
        .unwrap_or_default();
    Ok((
        size,
        ExactOutcome::Checked(Box::new(Checked {
            report,
            task_names: tasks.names,
            dead,
            lasso,
            exhausted,
            expand_goal,
            goal_states,
        })),
    ))
}
