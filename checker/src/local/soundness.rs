//! The soundness check of LMC: is a preliminary violation — a combination of local states,
//! which may not be reachable together — reached by a real run?
//!
//! The paper (§4.1, `isStateSound`) enumerates, per node, the event sequences along the
//! predecessor links to its local state, and orders each combination of sequences greedily.
//! The number of combinations grows exponentially with depth, and it is the main cost the paper
//! reports (§5.2: about 10 s per call at depth 39). Here the same question is answered by a
//! *directed search of the real system*: best-first from the search's start state (fewest recorded transitions left to the targets first), executing
//! with the interpreter (network included) only the node transitions LMC recorded, and for a
//! node whose state the violation depends on, only those that can still lead to its local state
//! in the combination (its ancestors along the recorded links). Nodes the invariant does not
//! depend on (LMC-OPT leaves them free) may take any recorded transition. Every real run to the
//! combination uses recorded transitions only (LMC's local search over-approximates each node),
//! so the search finds one if one exists (not always the shortest) and every run it returns was executed
//! by the interpreter on the real system. Visited global states are kept, so interleavings that
//! reach the same state are not tried twice (the path enumeration's redundancy).
//!
//! With eager sends ([`super::eager`]) the stores hold closed local states: a node whose real
//! local state has sends pending is at the store state of its closure, and its pending sends
//! are steps of the search of their own, so the runs it finds include every send.
//!
//! A budget bounds the states one check may visit
//! ([`super::LocalOptions::max_sequences`]); a check that runs out leaves its preliminary
//! violation *unsettled*, and then the search does not claim the invariant holds.

use super::search::{Closed, Lmc};
use super::store::{EventId, LocalId};
use super::{LocalError, LocalVerdict};
use crate::fingerprint::{fingerprint, Fingerprint};
use crate::model::Scripted;
use interpreter::machine::State;
use interpreter::value::Value;
use rustc_hash::FxHashSet;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

impl Lmc<'_, '_, '_> {
    /// Confirms (or not) the preliminary violations of invariant `k` by the combinations in
    /// `targets`: for each node, the local states it may be in (`None`: the node is free). A
    /// group of combinations (every choice of one state per node) is checked by one directed
    /// search; a refused group is remembered and checked again once nodes have recorded new
    /// transitions (see [`Self::recheck_refused`]).
    ///
    /// The check is queued, not run at once: [`Self::settle_some`] runs queued checks, the
    /// shallowest first (the sum of the constrained nodes' depths), while they have taken no
    /// more work than the local search (states searched against transitions executed), so that refusing preliminary violations does not
    /// starve the exploration that reaches the real ones.
    pub(super) fn confirm(
        &mut self,
        k: usize,
        targets: &[Option<Vec<LocalId>>],
    ) -> Result<Option<LocalVerdict>, LocalError> {
        let depth: u32 = targets
            .iter()
            .enumerate()
            .filter_map(|(n, t)| {
                t.as_ref().map(|ts| {
                    ts.iter()
                        .map(|&x| self.stores[n].states[x as usize].depth)
                        .min()
                        .unwrap_or(0)
                })
            })
            .sum();
        if !self.queued.insert((k, targets.to_vec())) {
            return Ok(None);
        }
        let seq = self.pending_payload.len() as u64;
        self.pending_payload.push(Some((k, targets.to_vec())));
        self.pending.push(Reverse((depth, seq)));
        Ok(None)
    }

    /// Runs queued soundness checks while their time does not exceed the local search's
    /// (`all`: every queued check).
    pub(super) fn settle_some(&mut self, all: bool) -> Result<Option<LocalVerdict>, LocalError> {
        while let Some(&Reverse((_, seq))) = self.pending.peek() {
            // Work, not time, so that runs are reproducible: global states the checks
            // searched against node transitions the local search executed.
            if !all && self.stats.sequences > self.stats.transitions {
                break;
            }
            self.pending.pop();
            let Some((k, targets)) = self.pending_payload[seq as usize].take() else {
                continue;
            };
            let t = std::time::Instant::now();
            let found = self.check_now(k, &targets);
            self.soundness_time += t.elapsed();
            if let Some(v) = found? {
                return Ok(Some(v));
            }
        }
        Ok(None)
    }

    /// Runs one soundness check now; a refused group is remembered.
    fn check_now(
        &mut self,
        k: usize,
        targets: &[Option<Vec<LocalId>>],
    ) -> Result<Option<LocalVerdict>, LocalError> {
        self.exhausted = false;
        let found = self.directed_search(k, targets)?;
        if found.is_none() && !self.exhausted {
            self.refused.push(Refused {
                invariant: k,
                targets: targets.to_vec(),
                links: self.total_links(),
            });
        }
        Ok(found)
    }

    /// Transitions recorded in every node's store so far.
    pub(super) fn total_links(&self) -> u64 {
        self.stores.iter().map(|s| s.links).sum()
    }

    /// Checks again every refused group whose check saw fewer recorded transitions than there
    /// are now: a run to it may use them (LMC §4.2 notes that a check made before every
    /// predecessor link is known can miss a real run; the paper leaves that gap, this closes
    /// it).
    pub(super) fn recheck_refused(&mut self) -> Result<Option<LocalVerdict>, LocalError> {
        let now = self.total_links();
        let mut k = 0;
        while k < self.refused.len() {
            if self.refused[k].links < now {
                let r = self.refused[k].clone();
                self.stats.rechecks += 1;
                self.exhausted = false;
                if let Some(v) = self.directed_search(r.invariant, &r.targets)? {
                    return Ok(Some(v));
                }
                if self.exhausted {
                    // Unsettled now: counted, not checked again.
                    self.refused.swap_remove(k);
                    continue;
                }
                self.refused[k].links = now;
            }
            k += 1;
        }
        Ok(None)
    }

    /// The directed search of the real system for a state in which every constrained node is
    /// in one of its target states and invariant `k` is false.
    pub(super) fn directed_search(
        &mut self,
        k: usize,
        targets: &[Option<Vec<LocalId>>],
    ) -> Result<Option<LocalVerdict>, LocalError> {
        self.stats.soundness_calls += 1;
        // For each constrained node, its targets and the local states from which one of them
        // is reachable.
        let goal: Vec<Option<Vec<bool>>> = targets
            .iter()
            .enumerate()
            .map(|(n, c)| {
                c.as_ref().map(|ts| {
                    let mut g = vec![false; self.stores[n].states.len()];
                    for &t in ts {
                        g[t as usize] = true;
                    }
                    g
                })
            })
            .collect();
        // Per constrained node, the fewest recorded transitions from each local state to a
        // target (`u32::MAX`: none reaches one).
        let distance: Vec<Option<Vec<u32>>> = targets
            .iter()
            .enumerate()
            .map(|(n, c)| c.as_ref().map(|ts| self.distances(n, ts)))
            .collect();
        let budget = self.options.max_sequences;
        let mut visited: FxHashSet<Fingerprint> = FxHashSet::default();
        // Global states, with their parent and the event that reached them.
        let mut states: Vec<(State, u32, EventId)> = vec![(self.start.clone(), u32::MAX, 0)];
        visited.insert(fingerprint(&self.start));
        // Best first: the global state whose constrained nodes are fewest recorded transitions
        // from their targets (the greedy order of the paper's `isSequenceValid`, which advances
        // the constrained nodes' sequences; a free node moves when they wait for its messages),
        // the newest among equals (depth first). The visited set makes a refusal exhaustive all
        // the same.
        let model = self.model;
        let remaining = |here: &[Option<LocalId>]| -> u32 {
            let mut sum = 0u32;
            for (n, d) in distance.iter().enumerate() {
                if let Some(d) = d {
                    sum = sum.saturating_add(here[n].map_or(u32::MAX, |h| d[h as usize]));
                }
            }
            sum
        };
        let mut frontier: BinaryHeap<Reverse<(u32, Reverse<u32>)>> = BinaryHeap::new();
        let start = self.start.clone();
        let here0 = self.here(&start)?;
        frontier.push(Reverse((remaining(&here0), Reverse(0))));
        while let Some(Reverse((_, Reverse(at)))) = frontier.pop() {
            let state = states[at as usize].0.clone();
            let here = self.here(&state)?;
            let at_goal = here.iter().zip(&goal).all(|(h, g)| match (h, g) {
                (_, None) => true,
                (Some(h), Some(g)) => g[*h as usize],
                (None, Some(_)) => false,
            });
            if at_goal && !self.holds(k, &state)? {
                return Ok(Some(LocalVerdict::Violated {
                    invariant: k,
                    run: self.run_of(&path(&states, at)),
                }));
            }
            // The network's own actions (loss, duplication, inputs from the environment) are
            // steps of the real system too: a run may need a duplicate or a message that no
            // node sent.
            let mut network_moves: Vec<EventId> = Vec::new();
            for net in self.network_only.clone() {
                let inst = &model.instances()[net as usize];
                let mut script: Vec<u32> = Vec::new();
                loop {
                    let Ok(plan) = self
                        .machine
                        .enabled(&state, inst.action, &inst.args, false)?
                    else {
                        break;
                    };
                    let mut ch = Scripted::new(&script);
                    if self.machine.execute(&state, plan, &mut ch).is_err() {
                        break;
                    }
                    network_moves.push(self.intern(net, script.clone().into()));
                    match ch.next_script() {
                        Some(next) => script = next,
                        None => break,
                    }
                }
            }
            let mut moves: Vec<EventId> = network_moves;
            for n in 0..targets.len() {
                let Some(id) = here[n] else { continue };
                // Eager sends: the node's pending sends are steps of their own here, taken
                // at any time (they leave the node's closure, so its store state, unchanged).
                if self.drains.is_some() {
                    let local = self.nodes.local(n, &state);
                    for k in self.closed_of(n, local)?.pending.clone() {
                        moves.push(self.intern(k, Box::new([])));
                    }
                }
                for (next, e) in self.stores[n].states[id as usize].succs.clone() {
                    if let Some(d) = &distance[n] {
                        if d[next as usize] == u32::MAX {
                            continue;
                        }
                    }
                    moves.push(e);
                }
            }
            {
                for e in moves {
                    let (instance, script) = &self.events[e as usize];
                    let inst = &model.instances()[*instance as usize];
                    let Ok(plan) = self
                        .machine
                        .enabled(&state, inst.action, &inst.args, false)?
                    else {
                        continue;
                    };
                    let mut ch = Scripted::new(script);
                    let Ok(after) = self.machine.execute(&state, plan, &mut ch) else {
                        continue;
                    };
                    if !visited.insert(fingerprint(&after)) {
                        continue;
                    }
                    self.stats.sequences += 1;
                    if self.stats.sequences % 256 == 0 {
                        if let Some(limit) = self.limit_reached() {
                            self.stats.unsettled += 1;
                            return Ok(Some(LocalVerdict::Limit(limit)));
                        }
                    }
                    if visited.len() as u64 > budget {
                        self.stats.unsettled += 1;
                        self.exhausted = true;
                        return Ok(None);
                    }
                    let left = remaining(&self.here(&after)?);
                    states.push((after, at, e));
                    frontier.push(Reverse((left, Reverse(states.len() as u32 - 1))));
                }
            }
        }
        Ok(None)
    }

    /// The store state of every node in a global state: of its local state's closure under its
    /// drain sends when eager sends are on, else of the local state itself.
    fn here(&mut self, state: &State) -> Result<Vec<Option<LocalId>>, LocalError> {
        let mut out = Vec::with_capacity(self.stores.len());
        for n in 0..self.stores.len() {
            let local = self.nodes.local(n, state);
            if self.drains.is_none() {
                out.push(self.stores[n].id_of(&local));
                continue;
            }
            let closure = self.closed_of(n, local)?.closure;
            out.push(self.stores[n].id_of_fingerprint(closure));
        }
        Ok(out)
    }

    /// The closure and the pending sends of node `n`'s local state `local` (cached).
    fn closed_of(&mut self, n: usize, local: Vec<Value>) -> Result<&Closed, LocalError> {
        let key = (n, fingerprint(&local));
        if !self.closed.contains_key(&key) {
            let mut pending = Vec::new();
            if !super::eager::outboxes_empty(&local, &self.outbox_slots[n]) {
                let mut global = self.start.clone();
                self.nodes.put(n, &local, &mut global);
                for &k in self.drains.iter().flat_map(|d| &d[n]) {
                    let inst = &self.model.instances()[k as usize];
                    if self
                        .machine
                        .enabled_among(
                            &global,
                            inst.action,
                            &inst.args,
                            false,
                            Some(&self.node_masks[n]),
                        )?
                        .is_ok()
                    {
                        pending.push(k);
                    }
                }
            }
            let (closed, _) = self.close(n, local, false)?;
            self.closed.insert(
                key,
                Closed {
                    closure: fingerprint(&closed),
                    pending,
                },
            );
        }
        Ok(&self.closed[&key])
    }

    /// Per local state of node `n`, the fewest recorded transitions to one of `targets`
    /// (`u32::MAX`: none reaches one): a breadth-first search backwards along the predecessor
    /// links.
    fn distances(&self, n: usize, targets: &[LocalId]) -> Vec<u32> {
        let store = &self.stores[n];
        let mut dist = vec![u32::MAX; store.states.len()];
        let mut queue = std::collections::VecDeque::new();
        for &t in targets {
            dist[t as usize] = 0;
            queue.push_back(t);
        }
        while let Some(s) = queue.pop_front() {
            let d = dist[s as usize] + 1;
            for &(p, _) in &store.states[s as usize].preds {
                if dist[p as usize] == u32::MAX {
                    dist[p as usize] = d;
                    queue.push_back(p);
                }
            }
        }
        dist
    }

    fn holds(&self, k: usize, state: &[Value]) -> Result<bool, LocalError> {
        let inv = &self.machine.spec.invariants[k];
        let mut locals = vec![Value::Bool(false); inv.n_locals as usize + 1];
        Ok(self.machine.root_truth(&inv.body, state, &mut locals)?)
    }
}

/// A group of preliminary violations the soundness check refused, kept to be checked again.
#[derive(Debug, Clone)]
pub(super) struct Refused {
    invariant: usize,
    targets: Vec<Option<Vec<LocalId>>>,
    /// Recorded transitions when it was last checked.
    links: u64,
}

/// The events from the start to state `at` of the directed search.
fn path(states: &[(State, u32, EventId)], mut at: u32) -> Vec<EventId> {
    let mut out = Vec::new();
    while states[at as usize].1 != u32::MAX {
        out.push(states[at as usize].2);
        at = states[at as usize].1;
    }
    out.reverse();
    out
}
