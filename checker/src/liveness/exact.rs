//! The exact liveness check on a fully explored graph.
//!
//! An *obligation* starts in a start state (`eventually P`) or in a state where `P` holds and
//! `Q` does not (`P ↝ Q`); the *region* is every state reachable from an obligation's start
//! through states where the goal does not hold. Two questions are answered over it:
//!
//! - **Dead states** (MaceMC §4): region states from which no goal state is reachable at all.
//!   Deadness is closed under successors, so along the shortest path to a dead state only the
//!   last state is dead; the step into it is the *critical transition*, the last step taken
//!   from a state that could still reach the goal. A reachable dead state is a violation under
//!   any fairness (every finite execution extends to a fair one, and none from here reaches
//!   the goal).
//! - **Fair cycles** (Lynch's task fairness, i.e. weak fairness per task): a strongly connected
//!   component of the region with at least one edge is the loop of a violating execution
//!   exactly when every task enabled in *all* of its states is taken on one of its edges (a
//!   loop through every state and edge of the component is then fair, and if some task is
//!   enabled throughout and never taken, no loop inside it is fair: weak fairness needs no
//!   decomposition into sub-components). A region state where no task is enabled ends a fair
//!   finite execution, which is a violation too. Without fairness every component with an edge,
//!   and every state without successors, is one. The nearest is answered with a lasso: a path
//!   to the loop's first state and a loop that comes back to it, covering what fairness needs
//!   (an edge of every task enabled throughout, a state where each other task is disabled).
//!
//! Components are found with petgraph's Tarjan; paths within the region are breadth first.

use super::graph::{Edge, LivenessGraph};
use super::tasks::Tasks;
use super::Path;
use crate::explore::StateId;
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::VecDeque;

/// A dead state and how it is reached.
#[derive(Debug, Clone)]
pub struct Dead {
    /// The steps from a start state to the nearest dead state of the region.
    pub path: Path,
    /// The position of the critical transition in the path (the state it reaches is the
    /// first dead one; step `k` leads from state `k - 1` to state `k`); `None` when the
    /// obligation's first state is already dead.
    pub critical: Option<usize>,
    /// Where the obligation starts on the path (state index).
    pub obligation_at: usize,
    /// How many region states are dead.
    pub count: u64,
    /// A path to the nearest dead state where the system has stopped (no step of a task leads
    /// out of it; environment inputs may), if one was explored: where a finite universe that ran out shows
    /// ([`super::exhausted`]).
    pub stopped: Option<Path>,
}

/// How a violating execution ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It repeats a loop: the last state of the path is state `loop_start` again.
    Loop {
        /// The state (index in the path) the loop goes back to.
        loop_start: usize,
    },
    /// It stops: no task (without fairness: no action) is enabled in the last state.
    Stops,
}

/// An execution that never reaches the goal: a lasso, or a finite execution that stops.
#[derive(Debug, Clone)]
pub struct Violation {
    /// Start step, prefix and (for a lasso) one round of the loop.
    pub path: Path,
    /// How it ends.
    pub ending: Ending,
    /// Where the obligation starts on the path (state index).
    pub obligation_at: usize,
}

/// A cycle avoiding the goal that fairness rules out.
#[derive(Debug, Clone)]
pub struct Excluded {
    /// The number of such components.
    pub components: u64,
    /// For the first one, the tasks enabled in all of its states and never taken in it.
    pub starved: Vec<u32>,
}

/// The outcome of the exact check.
#[derive(Debug, Clone)]
pub struct ExactReport {
    /// States in the graph.
    pub states: u64,
    /// States in the region (reachable from an obligation without reaching the goal).
    pub region: u64,
    /// The nearest dead state, if any.
    pub dead: Option<Dead>,
    /// The nearest violating execution, if any.
    pub violation: Option<Violation>,
    /// Components with an edge that avoid the goal but are unfair (with fairness on).
    pub excluded: Excluded,
}

impl ExactReport {
    /// Whether the property holds in the explored graph.
    pub fn holds(&self) -> bool {
        self.dead.is_none() && self.violation.is_none()
    }
}

/// The tasks enabled in a state: those with an edge out of it.
fn enabled_tasks(edges: &[Edge], tasks: &Tasks, out: &mut Vec<u32>) {
    out.clear();
    for e in edges {
        if let Some(t) = tasks.of_instance[e.step.instance as usize] {
            if !out.contains(&t) {
                out.push(t);
            }
        }
    }
}

/// Checks the property on a graph every reachable state of which was expanded.
pub fn check(graph: &LivenessGraph, tasks: &Tasks, fairness: bool) -> ExactReport {
    let n = graph.len();
    // States from which a goal state is reachable.
    let mut reverse: Vec<Vec<StateId>> = vec![Vec::new(); n];
    for (from, edges) in graph.edges.iter().enumerate() {
        for e in edges {
            reverse[e.to as usize].push(from as StateId);
        }
    }
    let mut live = graph.goal.clone();
    let mut queue: VecDeque<StateId> = (0..n as StateId).filter(|&s| live[s as usize]).collect();
    while let Some(s) = queue.pop_front() {
        for &p in &reverse[s as usize] {
            if !live[p as usize] {
                live[p as usize] = true;
                queue.push_back(p);
            }
        }
    }

    // The region, breadth first from the obligations' first states.
    let mut in_region = vec![false; n];
    let mut region_parent: Vec<Option<(StateId, usize)>> = vec![None; n];
    let mut source = vec![StateId::MAX; n];
    let mut order = Vec::new();
    for s in 0..n {
        if graph.trigger[s] && !graph.goal[s] {
            in_region[s] = true;
            source[s] = s as StateId;
            order.push(s as StateId);
        }
    }
    let mut head = 0;
    while head < order.len() {
        let s = order[head];
        head += 1;
        for (k, e) in graph.edges[s as usize].iter().enumerate() {
            let t = e.to as usize;
            if !in_region[t] && !graph.goal[t] {
                in_region[t] = true;
                region_parent[t] = Some((s, k));
                source[t] = source[s as usize];
                order.push(t as StateId);
            }
        }
    }
    let position: Vec<usize> = {
        let mut p = vec![usize::MAX; n];
        for (i, &s) in order.iter().enumerate() {
            p[s as usize] = i;
        }
        p
    };

    // A path to a region state: the tree path to its obligation's start, then region edges.
    let path_to = |s: StateId| -> (Path, Vec<StateId>, usize) {
        let mut tail = Vec::new();
        let mut at = s;
        while let Some((p, k)) = region_parent[at as usize] {
            tail.push((graph.edges[p as usize][k].step.clone(), at));
            at = p;
        }
        tail.reverse();
        let mut path = graph.tree.path_to(at);
        let mut ids = Vec::new();
        let mut x = Some(at);
        while let Some(y) = x {
            ids.push(y);
            x = graph.parent[y as usize];
        }
        ids.reverse();
        let obligation_at = ids.len() - 1;
        for (step, id) in tail {
            path.push(step);
            ids.push(id);
        }
        (path, ids, obligation_at)
    };

    let dead_count = order.iter().filter(|&&s| !live[s as usize]).count() as u64;
    // Stopped: no step of the system's own (a task's) leads anywhere else; only the
    // environment's inputs may still change the state.
    let stopped = |s: StateId| {
        graph.expanded[s as usize]
            && graph.edges[s as usize]
                .iter()
                .all(|e| e.to == s || tasks.of_instance[e.step.instance as usize].is_none())
    };
    let dead = order.iter().find(|&&s| !live[s as usize]).map(|&s| {
        let (path, ids, obligation_at) = path_to(s);
        let first_dead = ids.iter().position(|&i| !live[i as usize]).unwrap_or(0);
        Dead {
            path,
            critical: (first_dead > 0).then_some(first_dead),
            obligation_at,
            count: dead_count,
            stopped: order
                .iter()
                .find(|&&t| !live[t as usize] && stopped(t))
                .map(|&t| path_to(t).0),
        }
    });

    // Components of the region.
    let mut g: DiGraph<StateId, usize> = DiGraph::with_capacity(order.len(), 0);
    for &s in &order {
        g.add_node(s);
    }
    for &s in &order {
        for (k, e) in graph.edges[s as usize].iter().enumerate() {
            if in_region[e.to as usize] {
                g.add_edge(
                    NodeIndex::new(position[s as usize]),
                    NodeIndex::new(position[e.to as usize]),
                    k,
                );
            }
        }
    }
    let mut best: Option<(usize, Candidate)> = None;
    let mut excluded = Excluded {
        components: 0,
        starved: Vec::new(),
    };
    let mut scratch = Vec::new();
    // Membership of the component at hand (cleared after each, so one vector serves all).
    let mut member = vec![false; n];
    for component in petgraph::algo::tarjan_scc(&g) {
        let members: Vec<StateId> = component.iter().map(|&i| g[i]).collect();
        for &s in &members {
            member[s as usize] = true;
        }
        let has_edge = members.iter().any(|&s| {
            graph.edges[s as usize]
                .iter()
                .any(|e| member[e.to as usize])
        });
        let entry = *members
            .iter()
            .min_by_key(|&&s| position[s as usize])
            .expect("components are not empty");
        if has_edge {
            let mut always: Option<Vec<u32>> = None;
            let mut taken: Vec<u32> = Vec::new();
            for &s in &members {
                enabled_tasks(&graph.edges[s as usize], tasks, &mut scratch);
                always = Some(match always {
                    None => scratch.clone(),
                    Some(a) => a.into_iter().filter(|t| scratch.contains(t)).collect(),
                });
                for e in &graph.edges[s as usize] {
                    if member[e.to as usize] {
                        if let Some(t) = tasks.of_instance[e.step.instance as usize] {
                            if !taken.contains(&t) {
                                taken.push(t);
                            }
                        }
                    }
                }
            }
            let starved: Vec<u32> = always
                .unwrap_or_default()
                .into_iter()
                .filter(|t| !taken.contains(t))
                .collect();
            if fairness && !starved.is_empty() {
                if excluded.components == 0 {
                    excluded.starved = starved;
                }
                excluded.components += 1;
            } else if best
                .as_ref()
                .is_none_or(|(d, _)| position[entry as usize] < *d)
            {
                for &s in &members {
                    member[s as usize] = false;
                }
                best = Some((
                    position[entry as usize],
                    Candidate::Component { members, entry },
                ));
                continue;
            }
        }
        for &s in &members {
            member[s as usize] = false;
        }
    }
    // States where a fair (without fairness: any) execution may stop.
    for &s in &order {
        let stops = if fairness {
            enabled_tasks(&graph.edges[s as usize], tasks, &mut scratch);
            scratch.is_empty()
        } else {
            graph.edges[s as usize].is_empty()
        };
        if stops {
            if best.as_ref().is_none_or(|(d, _)| position[s as usize] < *d) {
                best = Some((position[s as usize], Candidate::Stop(s)));
            }
            break;
        }
    }
    let violation = best.map(|(_, candidate)| match candidate {
        Candidate::Stop(s) => {
            let (path, _, obligation_at) = path_to(s);
            Violation {
                path,
                ending: Ending::Stops,
                obligation_at,
            }
        }
        Candidate::Component { members, entry } => {
            let (mut path, _, obligation_at) = path_to(entry);
            let loop_start = path.len() - 1;
            path.extend(fair_loop(graph, tasks, &members, entry, fairness));
            Violation {
                path,
                ending: Ending::Loop { loop_start },
                obligation_at,
            }
        }
    });
    ExactReport {
        states: n as u64,
        region: order.len() as u64,
        dead,
        violation,
        excluded,
    }
}

enum Candidate {
    Stop(StateId),
    Component {
        members: Vec<StateId>,
        entry: StateId,
    },
}

/// The steps of a breadth-first path inside `member` from `from` to `to` (empty when equal).
fn path_within<'g>(
    graph: &'g LivenessGraph,
    member: &[bool],
    from: StateId,
    to: StateId,
) -> Vec<&'g Edge> {
    if from == to {
        return Vec::new();
    }
    let mut parent: rustc_hash::FxHashMap<StateId, (StateId, usize)> = Default::default();
    let mut queue = VecDeque::from([from]);
    while let Some(s) = queue.pop_front() {
        for (k, e) in graph.edges[s as usize].iter().enumerate() {
            if !member[e.to as usize] || e.to == from || parent.contains_key(&e.to) {
                continue;
            }
            parent.insert(e.to, (s, k));
            if e.to == to {
                let mut out = Vec::new();
                let mut at = to;
                while at != from {
                    let (p, k) = parent[&at];
                    out.push(&graph.edges[p as usize][k]);
                    at = p;
                }
                out.reverse();
                return out;
            }
            queue.push_back(e.to);
        }
    }
    unreachable!("members of a strongly connected component reach each other")
}

/// A loop from `entry` back to it inside the component: with fairness, through an edge of
/// every task enabled in all its states and a state where each other task enabled somewhere in
/// it is disabled; without, the shortest.
fn fair_loop(
    graph: &LivenessGraph,
    tasks: &Tasks,
    members: &[StateId],
    entry: StateId,
    fairness: bool,
) -> Path {
    let mut member = vec![false; graph.len()];
    for &s in members {
        member[s as usize] = true;
    }
    // What the loop must visit: edges (by source and index) and states.
    let mut targets: Vec<(StateId, Option<usize>)> = Vec::new();
    if fairness {
        let mut scratch = Vec::new();
        let enabled: Vec<Vec<u32>> = members
            .iter()
            .map(|&s| {
                enabled_tasks(&graph.edges[s as usize], tasks, &mut scratch);
                scratch.clone()
            })
            .collect();
        let mut all: Vec<u32> = enabled.iter().flatten().copied().collect();
        all.sort_unstable();
        all.dedup();
        for t in all {
            match members
                .iter()
                .zip(&enabled)
                .find(|(_, en)| !en.contains(&t))
            {
                Some((&s, _)) => targets.push((s, None)),
                None => {
                    let edge = members.iter().find_map(|&s| {
                        graph.edges[s as usize]
                            .iter()
                            .position(|e| {
                                member[e.to as usize]
                                    && tasks.of_instance[e.step.instance as usize] == Some(t)
                            })
                            .map(|k| (s, Some(k)))
                    });
                    targets.extend(edge);
                }
            }
        }
    }
    let mut out: Path = Vec::new();
    let mut at = entry;
    for (s, k) in targets {
        out.extend(
            path_within(graph, &member, at, s)
                .into_iter()
                .map(|e| e.step.clone()),
        );
        at = s;
        if let Some(k) = k {
            let e = &graph.edges[s as usize][k];
            out.push(e.step.clone());
            at = e.to;
        }
    }
    if at == entry && out.is_empty() {
        // The shortest way round: one step to a member, then back.
        let e = graph.edges[entry as usize]
            .iter()
            .filter(|e| member[e.to as usize])
            .min_by_key(|e| path_within(graph, &member, e.to, entry).len())
            .expect("a component with an edge has an edge out of every member");
        out.push(e.step.clone());
        at = e.to;
    }
    out.extend(
        path_within(graph, &member, at, entry)
            .into_iter()
            .map(|e| e.step.clone()),
    );
    out
}
