//! The explored state graph of a liveness check: every reachable state with *every* edge out of
//! it (the explorer's [`StateGraph`] keeps only the first parent of a state, enough for shortest
//! paths, but dead states and fair cycles need all edges), and the truth of the property's
//! predicates in each state.
//!
//! The search is breadth first in instance order, like `ioa explore`'s, and sequential, so state
//! numbering, paths and the reported lasso are the same on every run. Concrete states are kept
//! only for the frontier: edges carry the [`MachineStep`] (instance and `choose` indices) that
//! the interpreter re-executes to rebuild any path. For `eventually P` the states where `P`
//! holds are not expanded: what happens after the goal is reached cannot matter.

use super::{LivenessError, Property};
use crate::explore::Model;
use crate::explore::{Limit, StateGraph, StateId};
use crate::fingerprint::{fingerprint, Fingerprint};
use crate::model::{MachineModel, MachineStep};
use interpreter::machine::State;
use rustc_hash::FxHashMap;
use std::time::{Duration, Instant};

/// One edge of the graph: the step and the state it reaches.
#[derive(Debug, Clone)]
pub struct Edge {
    /// The state reached.
    pub to: StateId,
    /// The step taken (an action instance and its `choose` indices).
    pub step: MachineStep,
}

/// Limits on building the graph.
#[derive(Debug, Clone, Default)]
pub struct GraphOptions {
    /// Stop once this many states are stored.
    pub max_states: Option<u64>,
    /// Do not expand states at this depth.
    pub max_depth: Option<u32>,
    /// Stop after this long.
    pub time_limit: Option<Duration>,
}

/// The reachable states (as far as explored), their edges and the property's predicates.
pub struct LivenessGraph {
    /// First parents, for shortest paths from a start state.
    pub tree: StateGraph<MachineStep>,
    /// The edges out of each state (empty for a state not expanded).
    pub edges: Vec<Vec<Edge>>,
    /// Whether the goal (`P` of `eventually P`, `Q` of `P ↝ Q`) holds.
    pub goal: Vec<bool>,
    /// Whether an obligation starts here: a start state for `eventually`, `P` for `P ↝ Q`.
    pub trigger: Vec<bool>,
    /// The distance from a start state.
    pub depth: Vec<u32>,
    /// The state that first reached each state (`None` for a start state): the tree's links,
    /// by id, for walking a shortest path state by state.
    pub parent: Vec<Option<StateId>>,
    /// Whether the state's successors were computed.
    pub expanded: Vec<bool>,
    /// The start states.
    pub initial: Vec<StateId>,
    /// States at the last level (kept concrete for the random walks that start there).
    pub last_level: Vec<(StateId, State)>,
    /// Edges computed (duplicates included).
    pub transitions: u64,
    /// Time taken.
    pub elapsed: Duration,
}

impl LivenessGraph {
    /// The number of states.
    pub fn len(&self) -> usize {
        self.goal.len()
    }

    /// Whether no state was found.
    pub fn is_empty(&self) -> bool {
        self.goal.is_empty()
    }
}

/// Explores the states of `model` reachable from its start states, keeping every edge, within
/// `options`' limits. Returns the limit that stopped it, if one did (then some reachable
/// states were not expanded).
pub fn build(
    model: &MachineModel,
    property: &Property,
    options: &GraphOptions,
) -> Result<(LivenessGraph, Option<Limit>), LivenessError> {
    let started = Instant::now();
    let machine = model.machine();
    let expand_goal = property.liveness.property.trigger().is_some();
    let mut graph = LivenessGraph {
        tree: StateGraph::default(),
        edges: Vec::new(),
        goal: Vec::new(),
        trigger: Vec::new(),
        depth: Vec::new(),
        parent: Vec::new(),
        expanded: Vec::new(),
        initial: Vec::new(),
        last_level: Vec::new(),
        transitions: 0,
        elapsed: Duration::ZERO,
    };
    let mut ids: FxHashMap<Fingerprint, StateId> = FxHashMap::default();
    let add = |ids: &mut FxHashMap<Fingerprint, StateId>,
               graph: &mut LivenessGraph,
               state: &State,
               parent: Option<StateId>,
               step: MachineStep,
               depth: u32|
     -> Result<(StateId, bool), LivenessError> {
        let fp = fingerprint(state);
        if let Some(&id) = ids.get(&fp) {
            return Ok((id, false));
        }
        let id = graph
            .tree
            .insert(fp, parent, step)
            .expect("a fingerprint not in the id map is new");
        ids.insert(fp, id);
        let goal = property.goal(machine, state)?;
        let trigger = match parent {
            None => {
                property.liveness.property.trigger().is_none()
                    || property.trigger(machine, state)?
            }
            Some(_) => property.trigger(machine, state)?,
        };
        graph.goal.push(goal);
        graph.trigger.push(trigger);
        graph.depth.push(depth);
        graph.parent.push(parent);
        graph.expanded.push(false);
        graph.edges.push(Vec::new());
        Ok((id, true))
    };
    let mut start = Vec::new();
    model
        .initial_states(&mut start)
        .map_err(LivenessError::Machine)?;
    let mut frontier = Vec::new();
    for (step, state) in start {
        let (id, fresh) = add(&mut ids, &mut graph, &state, None, step, 0)?;
        if fresh {
            graph.initial.push(id);
            frontier.push((id, state));
        }
    }
    let max_states = options.max_states.unwrap_or(u64::MAX);
    let mut depth = 0;
    let mut limit = None;
    let mut out = Vec::new();
    while !frontier.is_empty() {
        if options.max_depth.is_some_and(|d| depth >= d) {
            let cut = frontier
                .iter()
                .any(|(id, _)| expand_goal || !graph.goal[*id as usize]);
            if cut {
                limit = Some(Limit::Depth(depth));
            }
            break;
        }
        let mut next = Vec::new();
        for (id, state) in &frontier {
            if let Some(t) = options.time_limit {
                if started.elapsed() >= t {
                    limit = Some(Limit::Time(t));
                    break;
                }
            }
            if !expand_goal && graph.goal[*id as usize] {
                continue;
            }
            out.clear();
            model
                .successors(state, &mut out)
                .map_err(LivenessError::Machine)?;
            graph.expanded[*id as usize] = true;
            graph.transitions += out.len() as u64;
            let mut edges = Vec::with_capacity(out.len());
            for (step, succ) in out.drain(..) {
                if graph.len() as u64 >= max_states {
                    limit = Some(Limit::States(max_states));
                }
                let (to, fresh) = if limit.is_some() {
                    match ids.get(&fingerprint(&succ)) {
                        Some(&to) => (to, false),
                        None => continue,
                    }
                } else {
                    add(
                        &mut ids,
                        &mut graph,
                        &succ,
                        Some(*id),
                        step.clone(),
                        depth + 1,
                    )?
                };
                if fresh {
                    next.push((to, succ));
                }
                edges.push(Edge { to, step });
            }
            graph.edges[*id as usize] = edges;
            if limit.is_some() {
                break;
            }
        }
        if limit.is_some() {
            break;
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
        depth += 1;
    }
    graph.last_level = frontier;
    graph.elapsed = started.elapsed();
    Ok((graph, limit))
}
