//! The visited local states of one node, with every (predecessor, event) pair that reached
//! each and every (successor, event) pair recorded from each.

use crate::fingerprint::{fingerprint, Fingerprint};
use interpreter::value::Value;
use rustc_hash::FxHashMap;

/// The position of a local state in its node's store (0 is the node's start).
pub type LocalId = u32;

/// The position of an event (action instance and `choose` script) in the search's event table.
pub type EventId = u32;

/// One visited local state.
#[derive(Debug, Clone)]
pub struct LocalState {
    /// The node's slice of the state vector.
    pub slice: Vec<Value>,
    /// The fewest events of this node that reach it.
    pub depth: u32,
    /// The fewest local (non-delivery) events among paths of that length.
    pub local_events: u32,
    /// Every (predecessor, event) that reached it.
    pub preds: Vec<(LocalId, EventId)>,
    /// Every (successor, event) recorded from it.
    pub succs: Vec<(LocalId, EventId)>,
    /// Whether its local events and sends were tried.
    pub expanded: bool,
    /// How many of the node's available deliveries were tried on it.
    pub cursor: usize,
    /// The deliveries consumed on every path found to it so far (sorted): they are not tried
    /// on it again (LMC §4.2, "duplicate messages").
    pub history: Vec<u32>,
    /// Deliveries to try again: they were skipped as consumed, and a new path to this state
    /// did not consume them.
    pub retry: Vec<u32>,
}

impl LocalState {
    /// Keeps in the history only what `history` (another path's, sorted) consumed too; the
    /// deliveries dropped are to be tried again. Whether anything was dropped.
    fn narrow(&mut self, history: &[u32]) -> bool {
        let dropped: Vec<u32> = self
            .history
            .iter()
            .copied()
            .filter(|d| history.binary_search(d).is_err())
            .collect();
        if dropped.is_empty() {
            return false;
        }
        self.history.retain(|d| history.binary_search(d).is_ok());
        self.retry.extend(dropped);
        true
    }
}

/// A node's visited local states.
#[derive(Debug, Default)]
pub struct NodeStore {
    /// The states, in discovery order.
    pub states: Vec<LocalState>,
    index: FxHashMap<Fingerprint, LocalId>,
    /// Deliveries (instance positions) that the network may make to this node, in the order
    /// they became available.
    pub available: Vec<u32>,
    /// (predecessor, event, successor) links recorded so far.
    pub links: u64,
}

impl NodeStore {
    /// Adds a local state reached from `pred` by `event` (or a start state), returning its id
    /// and whether it is new. When the state was known and its history shrank (this path did
    /// not consume what every earlier one did), the caller propagates the change to its
    /// successors ([`NodeStore::narrow_history`]).
    /// `delivery` is the delivery consumed by the step, if it was one; `steps` the actions the
    /// step executed (1, or more when eager sends followed the event).
    pub fn add(
        &mut self,
        slice: Vec<Value>,
        pred: Option<(LocalId, EventId, bool)>,
        delivery: Option<u32>,
        steps: u32,
    ) -> (LocalId, bool, bool) {
        let fp = fingerprint(&slice);
        let (depth, local_events, mut history) = match pred {
            Some((p, _, is_local)) => {
                let s = &self.states[p as usize];
                (
                    s.depth + steps,
                    s.local_events + u32::from(is_local),
                    s.history.clone(),
                )
            }
            None => (0, 0, Vec::new()),
        };
        if let Some(d) = delivery {
            if let Err(at) = history.binary_search(&d) {
                history.insert(at, d);
            }
        }
        if let Some(&id) = self.index.get(&fp) {
            if let Some((p, e, _)) = pred {
                if !self.states[p as usize].succs.contains(&(id, e)) {
                    self.states[p as usize].succs.push((id, e));
                    self.links += 1;
                }
                let s = &mut self.states[id as usize];
                if !s.preds.contains(&(p, e)) {
                    s.preds.push((p, e));
                }
                // Keep only what every path consumed; what this path did not consume may be
                // delivered here after all.
                let shrank = s.narrow(&history);
                return (id, false, shrank);
            }
            return (id, false, false);
        }
        let id = self.states.len() as LocalId;
        self.index.insert(fp, id);
        if let Some((p, e, _)) = pred {
            self.states[p as usize].succs.push((id, e));
            self.links += 1;
        }
        self.states.push(LocalState {
            slice,
            depth,
            local_events,
            preds: pred.map(|(p, e, _)| vec![(p, e)]).unwrap_or_default(),
            succs: Vec::new(),
            expanded: false,
            cursor: 0,
            history,
            retry: Vec::new(),
        });
        (id, true, false)
    }

    /// After state `from`'s history shrank: every successor's history becomes its meet with
    /// what the path through `from` consumed (`delivery_of` tells the delivery an event
    /// consumes), down the recorded links, so that a delivery some path did not consume is
    /// tried again on every state after it.
    pub fn narrow_history(&mut self, from: LocalId, delivery_of: impl Fn(EventId) -> Option<u32>) {
        let mut work = vec![from];
        while let Some(s) = work.pop() {
            for (t, e) in self.states[s as usize].succs.clone() {
                let mut h = self.states[s as usize].history.clone();
                if let Some(d) = delivery_of(e) {
                    if let Err(at) = h.binary_search(&d) {
                        h.insert(at, d);
                    }
                }
                if self.states[t as usize].narrow(&h) {
                    work.push(t);
                }
            }
        }
    }

    /// Bytes held by this store's states (values counted at their inline size).
    pub fn approx_bytes(&self) -> u64 {
        self.states
            .iter()
            .map(|s| {
                (std::mem::size_of::<LocalState>()
                    + s.slice.len() * std::mem::size_of::<Value>()
                    + (s.preds.len() + s.succs.len()) * 8
                    + 24) as u64
            })
            .sum::<u64>()
            + self.available.len() as u64 * 4
    }

    /// The id of the local state with this fingerprint, if it was visited.
    pub fn id_of_fingerprint(&self, fp: Fingerprint) -> Option<LocalId> {
        self.index.get(&fp).copied()
    }

    /// The id of a local state, if it was visited.
    pub fn id_of(&self, slice: &[Value]) -> Option<LocalId> {
        self.index.get(&fingerprint(slice)).copied()
    }
}
