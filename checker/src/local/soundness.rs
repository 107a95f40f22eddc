//! The soundness check of LMC: is a preliminary violation — a combination of local states,
//! which may not be reachable together — reached by a real run?
//!
//! The paper (§4.1, `isStateSound`) enumerates, per node, the event sequences along the
//! predecessor links to its local state, and orders each combination of sequences greedily.
//! The number of combinations grows exponentially with depth, and it is the main cost the paper
//! reports (§5.2: about 10 s per call at depth 39). Here the same question is answered by a
//! *directed search of the real system*: breadth-first from the search's start state, executing
//! with the interpreter (network included) only the node transitions LMC recorded, and for a
//! node whose state the violation depends on, only those that can still lead to its local state
//! in the combination (its ancestors along the recorded links). Nodes the invariant does not
//! depend on (LMC-OPT leaves them free) may take any recorded transition. Every real run to the
//! combination uses recorded transitions only (LMC's local search over-approximates each node),
//! so the search finds one if one exists — the shortest — and every run it returns was executed
//! by the interpreter on the real system. Visited global states are kept, so interleavings that
//! reach the same state are not tried twice (the path enumeration's redundancy).
//!
//! A budget bounds the states one check may visit
//! ([`super::LocalOptions::max_sequences`]); a check that runs out leaves its preliminary
//! violation *unsettled*, and then the search does not claim the invariant holds.

use super::search::Lmc;
use super::store::{EventId, LocalId};
use super::{LocalError, LocalVerdict};
use crate::fingerprint::{fingerprint, Fingerprint};
use crate::model::Scripted;
use interpreter::machine::State;
use interpreter::value::Value;
use rustc_hash::FxHashSet;
use std::collections::VecDeque;

impl Lmc<'_, '_, '_> {
    /// Confirms (or not) a preliminary violation of invariant `k` by the combination `chosen`
    /// (`None`: the node is free).
    pub(super) fn confirm(
        &mut self,
        k: usize,
        chosen: &[Option<LocalId>],
    ) -> Result<Option<LocalVerdict>, LocalError> {
        self.stats.soundness_calls += 1;
        // For each constrained node, the local states from which its target is reachable.
        let allowed: Vec<Option<Vec<bool>>> = chosen
            .iter()
            .enumerate()
            .map(|(n, c)| c.map(|t| self.ancestors(n, t)))
            .collect();
        let budget = self.options.max_sequences;
        let mut visited: FxHashSet<Fingerprint> = FxHashSet::default();
        // Global states, with their parent and the event that reached them.
        let mut states: Vec<(State, u32, EventId)> = vec![(self.start.clone(), u32::MAX, 0)];
        visited.insert(fingerprint(&self.start));
        let mut queue = VecDeque::from([0u32]);
        let model = self.model;
        while let Some(at) = queue.pop_front() {
            let state = states[at as usize].0.clone();
            let here: Vec<Option<LocalId>> = (0..chosen.len())
                .map(|n| self.stores[n].id_of(&self.nodes.local(n, &state)))
                .collect();
            if here.iter().zip(chosen).all(|(h, c)| c.is_none() || h == c)
                && !self.holds(k, &state)?
            {
                return Ok(Some(LocalVerdict::Violated {
                    invariant: k,
                    run: self.run_of(&path(&states, at)),
                }));
            }
            for n in 0..chosen.len() {
                let Some(id) = here[n] else { continue };
                let succs = self.stores[n].states[id as usize].succs.clone();
                for (next, e) in succs {
                    if let Some(ok) = &allowed[n] {
                        if !ok[next as usize] {
                            continue;
                        }
                    }
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
                        if let Some(limit) = self.time_limit() {
                            self.stats.unsettled += 1;
                            return Ok(Some(LocalVerdict::Limit(limit)));
                        }
                    }
                    if visited.len() as u64 > budget {
                        self.stats.unsettled += 1;
                        return Ok(None);
                    }
                    states.push((after, at, e));
                    queue.push_back(states.len() as u32 - 1);
                }
            }
        }
        Ok(None)
    }

    /// The local states of node `n` from which `target` is reachable by recorded transitions.
    fn ancestors(&self, n: usize, target: LocalId) -> Vec<bool> {
        let store = &self.stores[n];
        let mut ok = vec![false; store.states.len()];
        ok[target as usize] = true;
        let mut stack = vec![target];
        while let Some(s) = stack.pop() {
            for &(p, _) in &store.states[s as usize].preds {
                if !ok[p as usize] {
                    ok[p as usize] = true;
                    stack.push(p);
                }
            }
        }
        ok
    }

    fn holds(&self, k: usize, state: &[Value]) -> Result<bool, LocalError> {
        let inv = &self.machine.spec.invariants[k];
        let mut locals = vec![Value::Bool(false); inv.n_locals as usize + 1];
        Ok(self.machine.root_truth(&inv.body, state, &mut locals)?)
    }
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
