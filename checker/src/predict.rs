//! Consequence prediction (CrystalBall, Yabandeh et al., §3.2 and Fig. 8): breadth-first search
//! over global states from a snapshot, in which a node's *local actions* are expanded only the
//! first time that node is seen in that local state (the `localExplored` table), while message
//! handlers, sends and network actions are always expanded. Without the pruning it is the
//! standard search (`prune: false`), which `ioa predict --compare-bfs` runs beside it.
//!
//! Which instances are local actions comes from the [`SystemView`]. Sends are not pruned: in an
//! IOA composite a handler queues its replies and a send hands them to the network, so a send
//! continues the chain a delivery started (CrystalBall's handlers send within the handler).
//!
//! The search is sequential, in instance order within a state and frontier order across states,
//! so the pruning (which depends on the order states are met) is the same on every run. It
//! reuses the explorer's [`StateGraph`] for visited states and parent links; every predicted
//! violation is a path of [`MachineStep`]s from the snapshot that the interpreter re-executes.

use crate::explore::{Limit, StateGraph, StateId};
use crate::fingerprint::{fingerprint, Fingerprint};
use crate::model::{MachineError, MachineModel, MachineStep};
use crate::system::{ActionClass, SystemView};
use interpreter::machine::State;
use interpreter::value::Value;
use rustc_hash::FxHashSet;
use std::time::{Duration, Instant};

/// Limits and switches of a prediction.
#[derive(Debug, Clone, Default)]
pub struct PredictOptions {
    /// Explore paths of at most this many steps from the snapshot.
    pub max_depth: Option<u32>,
    /// Stop after this much time.
    pub time_limit: Option<Duration>,
    /// Prune local actions of nodes in local states seen before (consequence prediction);
    /// `false` gives plain breadth-first search.
    pub prune: bool,
    /// State slots left out of every hash (history variables, `--hash-ignore`).
    pub ignore_slots: Vec<usize>,
    /// Stop after this many predicted violations (0: no bound).
    pub max_violations: usize,
    /// Stop after visiting this many states (0: no bound). Unlike a time limit, the same on
    /// every machine, so steered runs stay reproducible.
    pub max_states: u64,
    /// Action instances (positions in the model's list) never taken: the filters execution
    /// steering installs, and the actions a steered run never draws (weight 0).
    pub blocked: Vec<u32>,
}

/// One predicted violation.
#[derive(Debug, Clone)]
pub struct Prediction {
    /// The invariant (position in the spec).
    pub invariant: usize,
    /// The steps from the snapshot.
    pub path: Vec<MachineStep>,
}

/// Counters of a prediction.
#[derive(Debug, Clone, Default)]
pub struct PredictStats {
    /// Distinct global states visited.
    pub states: u64,
    /// Transitions (edges) explored, to new or visited states.
    pub transitions: u64,
    /// Local action instances not expanded because their node's local state was seen before.
    pub local_skipped: u64,
    /// The deepest level completed.
    pub depth: u32,
    /// Time taken.
    pub elapsed: Duration,
}

/// How a prediction ended.
#[derive(Debug, Clone)]
pub struct PredictReport {
    /// Every predicted violation found, in the order found (shortest first).
    pub predictions: Vec<Prediction>,
    /// The counters.
    pub stats: PredictStats,
    /// The limit that stopped the search, if one did before the depth bound or the end.
    pub limit: Option<Limit>,
    /// Whether every state within the depth bound was explored.
    pub complete: bool,
}

/// Consequence prediction (or plain BFS) from `start`.
pub fn predict(
    model: &MachineModel,
    view: &SystemView,
    start: State,
    options: &PredictOptions,
) -> Result<PredictReport, MachineError> {
    let started = Instant::now();
    let mut blocked = vec![false; model.instances().len()];
    for &k in &options.blocked {
        if let Some(b) = blocked.get_mut(k as usize) {
            *b = true;
        }
    }
    let machine = model.machine();
    let hash = |state: &[Value]| -> Fingerprint {
        if options.ignore_slots.is_empty() {
            return fingerprint(state);
        }
        let mut masked = state.to_vec();
        for &s in &options.ignore_slots {
            masked[s] = Value::Bool(false);
        }
        fingerprint(&masked)
    };
    let local_hash = |n: usize, state: &[Value]| -> Fingerprint {
        let slots = view.nodes[n].slots.clone();
        let mut local = state[slots.clone()].to_vec();
        for &s in &options.ignore_slots {
            if slots.contains(&s) {
                local[s - slots.start] = Value::Bool(false);
            }
        }
        fingerprint(&local)
    };
    let mut graph: StateGraph<MachineStep> = StateGraph::default();
    let mut local_explored: Vec<FxHashSet<Fingerprint>> =
        vec![FxHashSet::default(); view.nodes.len()];
    let mut stats = PredictStats::default();
    let mut predictions = Vec::new();
    let first = MachineStep {
        instance: MachineStep::START,
        choices: Box::new([]),
    };
    let root = graph
        .insert(hash(&start), None, first)
        .expect("the first state is new");
    let mut frontier: Vec<(StateId, State)> = vec![(root, start)];
    let mut limit = None;
    let mut out = Vec::new();
    'levels: while !frontier.is_empty() {
        let mut next = Vec::new();
        for (id, state) in frontier {
            stats.states += 1;
            if options.max_states > 0 && stats.states > options.max_states {
                limit = Some(Limit::States(options.max_states));
                break 'levels;
            }
            if let Some(t) = options.time_limit {
                if started.elapsed() >= t {
                    limit = Some(Limit::Time(t));
                    break 'levels;
                }
            }
            if let Some(k) = machine
                .failing_invariant(&state)
                .map_err(|(invariant, error)| MachineError::Invariant { invariant, error })?
            {
                let mut path = graph.path_to(id);
                path.remove(0);
                predictions.push(Prediction { invariant: k, path });
                if options.max_violations > 0 && predictions.len() >= options.max_violations {
                    break 'levels;
                }
                continue;
            }
            if options.max_depth.is_some_and(|d| stats.depth >= d) {
                continue;
            }
            // Which nodes are in a local state met for the first time (Fig. 8, line 17).
            let fresh: Vec<bool> = (0..view.nodes.len())
                .map(|n| !options.prune || local_explored[n].insert(local_hash(n, &state)))
                .collect();
            let mut skipped = 0u64;
            let mut keep = |k: usize| match view.classes[k] {
                _ if blocked[k] => false,
                Some(ActionClass::Local { node }) if !fresh[node] => {
                    skipped += 1;
                    false
                }
                _ => true,
            };
            out.clear();
            model.successors_of(&state, &mut keep, &mut out)?;
            stats.local_skipped += skipped;
            for (step, succ) in out.drain(..) {
                stats.transitions += 1;
                if let Some(new_id) = graph.insert(hash(&succ), Some(id), step) {
                    next.push((new_id, succ));
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
        stats.depth += 1;
    }
    stats.elapsed = started.elapsed();
    let complete = limit.is_none()
        && (options.max_violations == 0 || predictions.len() < options.max_violations);
    Ok(PredictReport {
        predictions,
        stats,
        limit,
        complete,
    })
}
