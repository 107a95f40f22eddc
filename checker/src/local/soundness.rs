//! The soundness check of LMC (§4.1, `isStateSound` and `isSequenceValid`): a preliminary
//! violation is a combination of local states, which may not be reachable together. For each
//! node, the event sequences that reach its local state are read off the predecessor links;
//! for each combination of sequences, the events are ordered greedily — repeatedly take the
//! first node whose next event is enabled — by executing them with the interpreter on the real
//! system from the search's start state, network included. If every event is taken, the run is
//! real; it is reported only if the state it ends in violates the invariant.
//!
//! Nodes whose state the invariant does not depend on (LMC-OPT leaves them free) take each of
//! their local states in turn, the start first. The number of sequences tried per preliminary
//! violation is bounded ([`super::LocalOptions::max_sequences`]).

use super::combine::advance;
use super::search::Lmc;
use super::store::{EventId, LocalId};
use super::{LocalError, LocalVerdict};
use crate::model::Scripted;
use interpreter::value::Value;

impl Lmc<'_, '_, '_> {
    /// Confirms (or not) a preliminary violation of invariant `k` by the combination `chosen`.
    pub(super) fn confirm(
        &mut self,
        k: usize,
        chosen: &[Option<LocalId>],
    ) -> Result<Option<LocalVerdict>, LocalError> {
        self.stats.soundness_calls += 1;
        let mut budget = self.options.max_sequences;
        let free: Vec<usize> = (0..chosen.len()).filter(|n| chosen[*n].is_none()).collect();
        let sizes: Vec<usize> = free.iter().map(|&n| self.stores[n].states.len()).collect();
        let mut pick = vec![0usize; free.len()];
        loop {
            let mut full: Vec<LocalId> = chosen.iter().map(|c| c.unwrap_or(0)).collect();
            for (x, &n) in free.iter().enumerate() {
                full[n] = pick[x] as LocalId;
            }
            if let Some(run) = self.try_targets(k, &full, &mut budget)? {
                return Ok(Some(LocalVerdict::Violated {
                    invariant: k,
                    run: self.run_of(&run),
                }));
            }
            if budget == 0 {
                self.stats.unsettled += 1;
                return Ok(None);
            }
            if !advance(&mut pick, &sizes, None) {
                if self.paths_capped {
                    self.stats.unsettled += 1;
                }
                return Ok(None);
            }
        }
    }

    /// Tries the combinations of per-node sequences reaching `full`.
    fn try_targets(
        &mut self,
        k: usize,
        full: &[LocalId],
        budget: &mut u64,
    ) -> Result<Option<Vec<EventId>>, LocalError> {
        let cap = self.options.max_paths_per_node;
        let paths: Vec<Vec<Vec<EventId>>> = full
            .iter()
            .enumerate()
            .map(|(n, &t)| self.stores[n].paths_to(t, cap))
            .collect();
        if paths.iter().any(|p| p.len() >= cap) {
            self.paths_capped = true;
        }
        if paths.iter().any(|p| p.is_empty()) {
            return Ok(None);
        }
        let sizes: Vec<usize> = paths.iter().map(|p| p.len()).collect();
        let mut pick = vec![0usize; paths.len()];
        loop {
            if *budget == 0 {
                return Ok(None);
            }
            *budget -= 1;
            self.stats.sequences += 1;
            let seqs: Vec<&[EventId]> = pick
                .iter()
                .enumerate()
                .map(|(n, &p)| paths[n][p].as_slice())
                .collect();
            if let Some(run) = self.greedy(k, &seqs)? {
                return Ok(Some(run));
            }
            if !advance(&mut pick, &sizes, None) {
                return Ok(None);
            }
        }
    }

    /// Orders the nodes' sequences greedily into a real run; `Some` if every event was taken
    /// and the final state violates invariant `k`.
    fn greedy(&self, k: usize, seqs: &[&[EventId]]) -> Result<Option<Vec<EventId>>, LocalError> {
        let mut state = self.start.clone();
        let mut pos = vec![0usize; seqs.len()];
        let mut run = Vec::new();
        let model = self.model;
        loop {
            let mut progress = false;
            for (n, seq) in seqs.iter().enumerate() {
                let Some(&e) = seq.get(pos[n]) else {
                    continue;
                };
                let (instance, script) = &self.events[e as usize];
                let inst = &model.instances()[*instance as usize];
                let Ok(plan) = self
                    .machine
                    .enabled(&state, inst.action, &inst.args, false)?
                else {
                    continue;
                };
                let mut ch = Scripted::new(script);
                state = self.machine.execute(&state, plan, &mut ch)?;
                run.push(e);
                pos[n] += 1;
                progress = true;
            }
            if !progress {
                break;
            }
        }
        if pos.iter().zip(seqs).any(|(p, s)| *p < s.len()) {
            return Ok(None);
        }
        let inv = &self.machine.spec.invariants[k];
        let mut locals = vec![Value::Bool(false); inv.n_locals as usize + 1];
        if self.machine.root_truth(&inv.body, &state, &mut locals)? {
            return Ok(None);
        }
        Ok(Some(run))
    }
}
