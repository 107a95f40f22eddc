//! Which deliveries may reach a node more than once along one of its paths.
//!
//! LMC (§4.2, "duplicate messages") never delivers a message twice along a node's path: a
//! delivery consumed on every path to a local state is not tried on it again. That is sound
//! only when the real system cannot deliver it twice either, and a network that keeps or
//! duplicates messages, or a node that sends the same message twice (a retransmission), breaks
//! it: the bug of a duplicated ping, or of an alternating-bit receiver that takes a resent frame
//! twice, needs the second delivery. Here a delivery keeps the at-most-once rule only when the
//! model shows that it holds, and may otherwise be taken again on every local state:
//!
//! 1. **The network.** [`probe`] runs the network alone, from its start state, after a single
//!    send of each message (send instance) its components take, through its own actions and
//!    deliveries (at most [`PROBE_STATES`] states). A delivery enabled in the network's start
//!    state, enabled again after it was taken in the probe, or not made deliverable by any single
//!    send (so reached only by combining messages), may repeat. The deliveries a send makes
//!    possible are its *feeds*.
//! 2. **The senders.** A delivery fed only by sends that go out at most once in all (summed over
//!    the nodes, the most times a send occurs along one path of the node's store, [`Multiplicity`])
//!    cannot be delivered twice by a network that delivers each copy once. This depends on the
//!    stores, which depend on the deliveries allowed, so it is a fixpoint: the search starts by
//!    assuming it, and when it has explored everything ([`super::search`]) checks it on the
//!    stores; a delivery whose sends may go out twice is then allowed to repeat, and the search
//!    goes on from the states that had skipped it. When the check passes, every real run's node
//!    paths are paths of the stores (by induction along the run: the sends made so far are at
//!    most what the stores' paths make, so a second delivery cannot happen).
//!
//! The probe takes a message alone; a network whose handling of one message depends on the
//! other messages it holds (beyond FIFO order, which only delays) is outside this argument.

use super::events::EventClass;
use super::store::NodeStore;
use crate::fingerprint::{fingerprint, Fingerprint};
use crate::model::ActionInstance;
use fixedbitset::FixedBitSet;
use interpreter::error::RunError;
use interpreter::eval::NoChoice;
use interpreter::machine::{Machine, State};
use petgraph::graph::{DiGraph, NodeIndex};
use rustc_hash::{FxHashMap, FxHashSet};

/// Network states one probe may visit; past it, the deliveries of the send's takers may repeat.
pub const PROBE_STATES: usize = 2_000;

/// What the probe found.
#[derive(Debug, Clone, Default)]
pub struct Redelivery {
    /// Per action instance: whether, as a delivery, it may be taken again along a path that took
    /// it already.
    pub repeat: Vec<bool>,
    /// Per delivery that may not repeat: the send instances that make it deliverable.
    pub fed_by: FxHashMap<u32, Vec<u32>>,
    /// Network instances whose state after two sends depends on their order (the private
    /// `order_dependent` below decides).
    pub order_dependent: FxHashSet<usize>,
}

impl Redelivery {
    /// Deliveries that may repeat, and those the at-most-once rule still applies to.
    pub fn counts(&self, classes: &[EventClass]) -> (usize, usize) {
        let deliveries = classes
            .iter()
            .enumerate()
            .filter(|(_, c)| matches!(c, EventClass::Handler { .. }));
        let (mut repeat, mut once) = (0, 0);
        for (k, _) in deliveries {
            if self.repeat[k] {
                repeat += 1;
            } else {
                once += 1;
            }
        }
        (repeat, once)
    }
}

/// Runs the probe of every send instance (module documentation, step 1).
pub fn probe(
    machine: &Machine,
    instances: &[ActionInstance],
    classes: &[EventClass],
    start: &State,
    network_mask: &[bool],
) -> Result<Redelivery, RunError> {
    let n = instances.len();
    let mut repeat = vec![false; n];
    // The deliveries of each network instance, and the network's own actions.
    let mut deliveries_of: FxHashMap<usize, Vec<u32>> = FxHashMap::default();
    let mut network_only: Vec<u32> = Vec::new();
    for (k, c) in classes.iter().enumerate() {
        match c {
            EventClass::Handler { controller, .. } => {
                deliveries_of.entry(*controller).or_default().push(k as u32)
            }
            EventClass::Other => network_only.push(k as u32),
            _ => {}
        }
    }
    let enabled = |state: &State, k: u32| -> Result<bool, RunError> {
        let inst = &instances[k as usize];
        Ok(machine
            .enabled_among(state, inst.action, &inst.args, false, Some(network_mask))?
            .is_ok())
    };
    // Deliverable before anything is sent: initial messages, or no message needed.
    for ks in deliveries_of.values() {
        for &k in ks {
            if enabled(start, k)? {
                repeat[k as usize] = true;
            }
        }
    }
    let mut fed_by: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    for (s, c) in classes.iter().enumerate() {
        let EventClass::Send { takers, .. } = c else {
            continue;
        };
        let inst = &instances[s];
        let Ok(plan) =
            machine.enabled_among(start, inst.action, &inst.args, false, Some(network_mask))?
        else {
            continue;
        };
        let after = machine.execute(start, plan, &mut NoChoice)?;
        let mut moves: Vec<u32> = takers
            .iter()
            .flat_map(|t| deliveries_of.get(t).cloned().unwrap_or_default())
            .collect();
        moves.extend(network_only.iter().copied());
        let (graph, complete) =
            explore_network(machine, instances, &after, &moves, &[], network_mask)?;
        let delivered: FxHashSet<u32> = graph.edges.iter().map(|&(_, k, _)| k).collect();
        if !complete {
            for t in takers {
                for &k in deliveries_of.get(t).into_iter().flatten() {
                    repeat[k as usize] = true;
                }
            }
            continue;
        }
        for &k in &delivered {
            if !matches!(classes[k as usize], EventClass::Handler { .. }) {
                continue;
            }
            fed_by.entry(k).or_default().push(s as u32);
            if graph.again(k) {
                repeat[k as usize] = true;
            }
        }
    }
    // Deliveries no single send feeds (they need several messages, or the monotone state).
    for ks in deliveries_of.values() {
        for &k in ks {
            if !fed_by.contains_key(&k) {
                repeat[k as usize] = true;
            }
        }
    }
    fed_by.retain(|k, _| !repeat[*k as usize]);
    let order_dependent = order_dependent(machine, instances, classes, start, network_mask)?;
    Ok(Redelivery {
        repeat,
        fed_by,
        order_dependent,
    })
}

/// The instances of `moves` enabled somewhere in the network's states reachable from `from`
/// through `moves` (any number of times) and `once` (each at most once along a path, in any
/// order: the sends the monotone network has taken, whose order it cannot know); `None` when
/// the search passed [`PROBE_STATES`].
pub(super) fn enabled_in_closure(
    machine: &Machine,
    instances: &[ActionInstance],
    from: &State,
    moves: &[u32],
    once: &[u32],
    network_mask: &[bool],
) -> Result<Option<FxHashSet<u32>>, RunError> {
    let (graph, complete) = explore_network(machine, instances, from, moves, once, network_mask)?;
    let once: FxHashSet<u32> = once.iter().copied().collect();
    Ok(complete.then(|| {
        graph
            .enabled
            .into_iter()
            .flatten()
            .filter(|k| !once.contains(k))
            .collect()
    }))
}

/// Sends to one network instance compared in pairs: the most pairs tried per instance.
pub const ORDER_PAIRS: usize = 200_000;

/// The network instances that end in different states when two of their sends arrive in one
/// order or the other (a FIFO queue, a register the first message wins). LMC's monotone network
/// applies each send once, in the order the search happens to find them, so for such a network
/// a delivery that needs the other order would never be offered; the search then takes the
/// network's closure from its start state under every send seen, in any order and number
/// (`Lmc::closure_deliveries`). An instance with more sends than [`ORDER_PAIRS`] allows is
/// counted as order-dependent.
fn order_dependent(
    machine: &Machine,
    instances: &[ActionInstance],
    classes: &[EventClass],
    start: &State,
    network_mask: &[bool],
) -> Result<FxHashSet<usize>, RunError> {
    let mut sends_of: FxHashMap<usize, Vec<u32>> = FxHashMap::default();
    for (s, c) in classes.iter().enumerate() {
        if let EventClass::Send { takers, .. } = c {
            for &t in takers {
                sends_of.entry(t).or_default().push(s as u32);
            }
        }
    }
    let apply = |state: &State, k: u32| -> Result<Option<State>, RunError> {
        let inst = &instances[k as usize];
        match machine.enabled_among(state, inst.action, &inst.args, false, Some(network_mask))? {
            Ok(plan) => Ok(Some(machine.execute(state, plan, &mut NoChoice)?)),
            Err(_) => Ok(None),
        }
    };
    let mut dependent = FxHashSet::default();
    for (&t, sends) in &sends_of {
        if sends.len() * sends.len() > 2 * ORDER_PAIRS {
            dependent.insert(t);
            continue;
        }
        let after: Vec<Option<State>> = sends
            .iter()
            .map(|&s| apply(start, s))
            .collect::<Result<_, _>>()?;
        'pairs: for i in 0..sends.len() {
            for j in i + 1..sends.len() {
                let (Some(a), Some(b)) = (&after[i], &after[j]) else {
                    continue;
                };
                let ab = apply(a, sends[j])?.map(|x| fingerprint(&x));
                let ba = apply(b, sends[i])?.map(|x| fingerprint(&x));
                if ab != ba {
                    dependent.insert(t);
                    break 'pairs;
                }
            }
        }
    }
    Ok(dependent)
}

/// The network states reached from one, with the steps between them.
pub(super) struct ProbeGraph {
    /// (from, instance, to), by state position.
    edges: Vec<(usize, u32, usize)>,
    /// Per state, the instances enabled in it.
    pub(super) enabled: Vec<Vec<u32>>,
}

impl ProbeGraph {
    /// Whether `k` is enabled in a state reachable from a state `k` led to.
    fn again(&self, k: u32) -> bool {
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); self.enabled.len()];
        for &(from, _, to) in &self.edges {
            if from < succ.len() {
                succ[from].push(to);
            }
        }
        let mut seen = vec![false; self.enabled.len()];
        let mut stack: Vec<usize> = self
            .edges
            .iter()
            .filter(|e| e.1 == k)
            .map(|e| e.2)
            .collect();
        while let Some(s) = stack.pop() {
            if s >= seen.len() || std::mem::replace(&mut seen[s], true) {
                continue;
            }
            if self.enabled[s].contains(&k) {
                return true;
            }
            stack.extend(succ[s].iter().copied());
        }
        false
    }
}

/// Breadth-first search of the network from `from` over the instances `moves` (any number of
/// times) and `once` (each at most once along a path; a state is the network's state with the
/// set of `once` instances taken), every `choose` resolution taken; false when it stopped at
/// [`PROBE_STATES`].
pub(super) fn explore_network(
    machine: &Machine,
    instances: &[ActionInstance],
    from: &State,
    moves: &[u32],
    once: &[u32],
    network_mask: &[bool],
) -> Result<(ProbeGraph, bool), RunError> {
    let steps: Vec<(u32, Option<usize>)> = moves
        .iter()
        .map(|&k| (k, None))
        .chain(once.iter().enumerate().map(|(b, &k)| (k, Some(b))))
        .collect();
    let mut index: FxHashMap<(Fingerprint, FixedBitSet), usize> = FxHashMap::default();
    let mut states: Vec<(State, FixedBitSet)> =
        vec![(from.clone(), FixedBitSet::with_capacity(once.len()))];
    index.insert((fingerprint(from), states[0].1.clone()), 0);
    let mut graph = ProbeGraph {
        edges: Vec::new(),
        enabled: Vec::new(),
    };
    let mut at = 0;
    while at < states.len() {
        let (state, used) = states[at].clone();
        let mut here = Vec::new();
        for &(k, bit) in &steps {
            if bit.is_some_and(|b| used.contains(b)) {
                continue;
            }
            let inst = &instances[k as usize];
            let mut script: Vec<u32> = Vec::new();
            loop {
                let Ok(plan) = machine.enabled_among(
                    &state,
                    inst.action,
                    &inst.args,
                    false,
                    Some(network_mask),
                )?
                else {
                    break;
                };
                if script.is_empty() {
                    here.push(k);
                }
                let mut ch = crate::model::Scripted::new(&script);
                let next = machine.execute(&state, plan, &mut ch)?;
                let mut next_used = used.clone();
                if let Some(b) = bit {
                    next_used.insert(b);
                }
                let key = (fingerprint(&next), next_used);
                let to = match index.get(&key) {
                    Some(&t) => t,
                    None => {
                        if states.len() >= PROBE_STATES {
                            graph.enabled.push(here);
                            return Ok((graph, false));
                        }
                        index.insert(key.clone(), states.len());
                        states.push((next, key.1));
                        states.len() - 1
                    }
                };
                graph.edges.push((at, k, to));
                match ch.next_script() {
                    Some(s) => script = s,
                    None => break,
                }
            }
        }
        graph.enabled.push(here);
        at += 1;
    }
    Ok((graph, true))
}

/// How many times a send goes out along one path of a node, at most: 0, 1, or 2 for "more than
/// once".
pub type Multiplicity = u8;

/// For every send instance, the sum over the nodes of the most times it occurs along one path
/// of the node's store that takes each at-most-once delivery at most once (capped at 2).
/// `edge_sends` gives the sends fired by each recorded transition (the event itself when it is
/// a send, and eager sends), `start_sends` those fired before a node's first store state (its
/// start state's eager sends), `once_delivery` the delivery an event consumes when that
/// delivery is still taken at most once.
pub fn multiplicities(
    stores: &[NodeStore],
    edge_sends: &[FxHashMap<(u32, u32), Vec<u32>>],
    start_sends: &[Vec<u32>],
    n_instances: usize,
    once_delivery: &dyn Fn(u32) -> Option<u32>,
) -> Vec<Multiplicity> {
    let mut total = vec![0u8; n_instances];
    for (n, store) in stores.iter().enumerate() {
        let per_node = node_multiplicities(
            store,
            &edge_sends[n],
            &start_sends[n],
            n_instances,
            once_delivery,
        );
        for (t, m) in total.iter_mut().zip(per_node) {
            *t = (*t + m).min(2);
        }
    }
    total
}

/// Edge visits the history-aware check of one node may make; past it, a send that the plain
/// reachability check finds twice counts as twice (more repetition: sound, maybe slower).
const REFINE_BUDGET: u64 = 20_000_000;

fn node_multiplicities(
    store: &NodeStore,
    edge_sends: &FxHashMap<(u32, u32), Vec<u32>>,
    start_sends: &[u32],
    n_instances: usize,
    once_delivery: &dyn Fn(u32) -> Option<u32>,
) -> Vec<Multiplicity> {
    let mut out = vec![0u8; n_instances];
    if edge_sends.is_empty() && start_sends.is_empty() {
        return out;
    }
    let coarse = coarse_twice(store, edge_sends, start_sends, n_instances);
    // The send edges, as (source, event, target).
    let mut edges_of: FxHashMap<u32, Vec<(u32, u32, u32)>> = FxHashMap::default();
    for (&(from, e), sends) in edge_sends {
        let to = store.states[from as usize]
            .succs
            .iter()
            .find(|x| x.1 == e)
            .map_or(from, |x| x.0);
        for (i, &s) in sends.iter().enumerate() {
            out[s as usize] = out[s as usize].max(1);
            if sends[i + 1..].contains(&s) {
                out[s as usize] = 2;
            }
            edges_of.entry(s).or_default().push((from, e, to));
        }
    }
    for &s in start_sends {
        out[s as usize] = out[s as usize].max(1);
    }
    let mut budget = REFINE_BUDGET;
    for s in coarse.ones() {
        if out[s] == 2 {
            continue;
        }
        let sources: Vec<(u32, u32)> = edges_of
            .get(&(s as u32))
            .map(|es| es.iter().map(|&(from, e, _)| (from, e)).collect())
            .unwrap_or_default();
        // Each occurrence, then a path on which no delivery consumed on every path through the
        // occurrence is taken again, to another occurrence.
        let mut starts: Vec<(u32, Vec<u32>)> = Vec::new();
        for &(from, e, to) in edges_of.get(&(s as u32)).into_iter().flatten() {
            let mut forbidden = store.states[from as usize].history.clone();
            if let Some(d) = once_delivery(e) {
                if let Err(at) = forbidden.binary_search(&d) {
                    forbidden.insert(at, d);
                }
            }
            starts.push((to, forbidden));
        }
        if start_sends.contains(&(s as u32)) {
            starts.push((0, Vec::new()));
        }
        starts.sort_unstable();
        starts.dedup();
        let mut twice = false;
        for (v, forbidden) in starts {
            match reaches(store, v, &forbidden, &sources, once_delivery, &mut budget) {
                Some(false) => {}
                Some(true) | None => {
                    twice = true;
                    break;
                }
            }
        }
        if twice {
            out[s] = 2;
        }
    }
    out
}

/// Whether, from `v`, a path that takes no delivery of `forbidden` (those consumed on every
/// path through the occurrence that led to `v`) reaches one of `targets` (a state and the event
/// leaving it) whose event is not forbidden either; `None` when the budget ran out.
fn reaches(
    store: &NodeStore,
    v: u32,
    forbidden: &[u32],
    targets: &[(u32, u32)],
    once_delivery: &dyn Fn(u32) -> Option<u32>,
    budget: &mut u64,
) -> Option<bool> {
    let allowed = |e: u32| once_delivery(e).is_none_or(|d| forbidden.binary_search(&d).is_err());
    let mut seen = vec![false; store.states.len()];
    let mut stack = vec![v];
    while let Some(u) = stack.pop() {
        if std::mem::replace(&mut seen[u as usize], true) {
            continue;
        }
        if targets.iter().any(|&(w, e)| w == u && allowed(e)) {
            return Some(true);
        }
        for &(t, e) in &store.states[u as usize].succs {
            *budget = budget.checked_sub(1)?;
            if allowed(e) && !seen[t as usize] {
                stack.push(t);
            }
        }
    }
    Some(false)
}

/// The sends that occur twice along some path of the store graph, ignoring histories: a
/// quick filter before the history-aware check.
fn coarse_twice(
    store: &NodeStore,
    edge_sends: &FxHashMap<(u32, u32), Vec<u32>>,
    start_sends: &[u32],
    n_instances: usize,
) -> FixedBitSet {
    let mut twice = FixedBitSet::with_capacity(n_instances);
    let mut graph: DiGraph<(), ()> = DiGraph::new();
    let nodes: Vec<NodeIndex> = (0..store.states.len())
        .map(|_| graph.add_node(()))
        .collect();
    for (from, s) in store.states.iter().enumerate() {
        for &(to, _) in &s.succs {
            graph.add_edge(nodes[from], nodes[to as usize], ());
        }
    }
    let sccs = petgraph::algo::tarjan_scc(&graph);
    let mut scc_of = vec![0usize; store.states.len()];
    for (c, members) in sccs.iter().enumerate() {
        for m in members {
            scc_of[m.index()] = c;
        }
    }
    // Sends reachable from each component (on an edge leaving a state of it or of a component
    // after it); tarjan_scc lists components after those they reach.
    let mut down: Vec<FixedBitSet> = Vec::with_capacity(sccs.len());
    for (c, members) in sccs.iter().enumerate() {
        let mut bits = FixedBitSet::with_capacity(n_instances);
        for m in members {
            let from = m.index();
            for &(to, e) in &store.states[from].succs {
                if let Some(sends) = edge_sends.get(&(from as u32, e)) {
                    for &s in sends {
                        bits.insert(s as usize);
                    }
                }
                let d = scc_of[to as usize];
                if d != c {
                    bits.union_with(&down[d]);
                }
            }
        }
        down.push(bits);
    }
    for (&(from, e), sends) in edge_sends {
        let to = store.states[from as usize]
            .succs
            .iter()
            .find(|x| x.1 == e)
            .map_or(from, |x| x.0);
        let after = &down[scc_of[to as usize]];
        for &s in sends {
            if after.contains(s as usize) {
                twice.insert(s as usize);
            }
        }
    }
    if !store.states.is_empty() {
        let after = &down[scc_of[0]];
        for &s in start_sends {
            if after.contains(s as usize) {
                twice.insert(s as usize);
            }
        }
    }
    twice
}
