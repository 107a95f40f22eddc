//! Checking invariants on system states built from node-local states (LMC §4.1, "creating
//! system states"): when a node reaches a new local state, the combinations it takes part in
//! are built, all of them (LMC-GEN) or only those the invariant's shape says can violate it
//! (LMC-OPT, see [`super::shape`]). A combination that violates an invariant is a
//! *preliminary* violation, handed to [`super::soundness`].

use super::search::Lmc;
use super::shape::Shape;
use super::store::LocalId;
use super::{LocalError, LocalVerdict};
use interpreter::machine::State;
use interpreter::value::Value;
use rustc_hash::FxHashMap;

impl Lmc<'_, '_, '_> {
    /// The system state made of these local states (one per node); nodes without one keep the
    /// search's start state.
    pub(super) fn compose(&self, chosen: &[Option<LocalId>]) -> State {
        let mut state = self.start.clone();
        for (n, c) in chosen.iter().enumerate() {
            if let Some(id) = c {
                self.nodes
                    .put(n, &self.stores[n].states[*id as usize].slice, &mut state);
            }
        }
        state
    }

    /// Checks the start combination (every node in its first local state).
    pub(super) fn check_start(&mut self) -> Result<Option<LocalVerdict>, LocalError> {
        let all = vec![Some(0); self.nodes.nodes.len()];
        let state = self.compose(&all);
        for (k, _) in self.invariants.clone() {
            self.stats.system_states += 1;
            if !self.invariant_holds(k, &state)? {
                self.stats.preliminary += 1;
                let targets: Vec<Option<Vec<LocalId>>> =
                    all.iter().map(|c| c.map(|t| vec![t])).collect();
                if let Some(v) = self.confirm(k, &targets)? {
                    return Ok(Some(v));
                }
            }
        }
        Ok(None)
    }

    /// Every 256 system states, whether the time limit has passed.
    fn time_check(&self) -> Option<LocalVerdict> {
        if self.stats.system_states % 256 != 0 {
            return None;
        }
        self.limit_reached().map(LocalVerdict::Limit)
    }

    fn invariant_holds(&self, k: usize, state: &[Value]) -> Result<bool, LocalError> {
        let inv = &self.machine.spec.invariants[k];
        let mut locals = vec![Value::Bool(false); inv.n_locals as usize + 1];
        Ok(self.machine.root_truth(&inv.body, state, &mut locals)?)
    }

    /// Checks the invariants on the combinations that node `n`'s new local state `id` takes
    /// part in.
    pub(super) fn check_new(
        &mut self,
        n: usize,
        id: LocalId,
    ) -> Result<Option<LocalVerdict>, LocalError> {
        for idx in 0..self.invariants.len() {
            let (k, shape) = self.invariants[idx].clone();
            let found = match &shape {
                Some(sh) => self.check_opt(k, sh, n, id)?,
                None => self.check_gen(k, n, id)?,
            };
            if let Some(v) = found {
                return Ok(Some(v));
            }
        }
        Ok(None)
    }

    /// LMC-GEN: every combination of the other nodes' local states with `id` at node `n`.
    fn check_gen(
        &mut self,
        k: usize,
        n: usize,
        id: LocalId,
    ) -> Result<Option<LocalVerdict>, LocalError> {
        let sizes: Vec<usize> = self.stores.iter().map(|s| s.states.len()).collect();
        let mut pick = vec![0usize; sizes.len()];
        pick[n] = id as usize;
        loop {
            let chosen: Vec<Option<LocalId>> = pick.iter().map(|p| Some(*p as LocalId)).collect();
            let state = self.compose(&chosen);
            self.stats.system_states += 1;
            if let Some(v) = self.time_check() {
                return Ok(Some(v));
            }
            if !self.invariant_holds(k, &state)? {
                self.stats.preliminary += 1;
                let targets: Vec<Option<Vec<LocalId>>> =
                    chosen.iter().map(|c| c.map(|t| vec![t])).collect();
                if let Some(v) = self.confirm(k, &targets)? {
                    return Ok(Some(v));
                }
            }
            if !advance(&mut pick, &sizes, Some(n)) {
                return Ok(None);
            }
        }
    }

    /// Whether binder `g.binder`'s guard holds of node `g.node`'s local state `g.id`,
    /// evaluated once per (invariant, binder, node, local state) and remembered.
    fn guard_holds(&mut self, shape: &Shape, g: GuardAt) -> Result<bool, LocalError> {
        let key = (g.invariant, g.binder, g.node);
        let known = self
            .guard_cache
            .get(&key)
            .and_then(|v| v.get(g.id as usize).copied());
        if let Some(b) = known {
            return Ok(b);
        }
        let upto = self.guard_cache.get(&key).map_or(0, Vec::len);
        let mut fresh = Vec::with_capacity(g.id as usize + 1 - upto);
        for t in upto as LocalId..=g.id {
            fresh.push(self.eval_guard(shape, GuardAt { id: t, ..g })?);
        }
        let v = self.guard_cache.entry(key).or_default();
        v.extend(fresh);
        Ok(v[g.id as usize])
    }

    /// Brings node `u`'s [`ClassIndex`] for the binders in `mask` up to date.
    fn extend_classes(
        &mut self,
        k: usize,
        shape: &Shape,
        binder_node: &[usize],
        u: usize,
        mask: u64,
    ) -> Result<(), LocalError> {
        let len = self.stores[u].states.len() as LocalId;
        let from = self.class_cache.get(&(k, u, mask)).map_or(0, |c| c.upto);
        let mut added = Vec::new();
        for t in from..len {
            let mut all = true;
            for (j, &w) in binder_node.iter().enumerate() {
                let at = GuardAt {
                    invariant: k,
                    binder: j,
                    node: u,
                    id: t,
                };
                if w == u && !self.guard_holds(shape, at)? {
                    all = false;
                    break;
                }
            }
            if all {
                let slice = &self.stores[u].states[t as usize].slice;
                let key: Vec<Value> = match &shape.reads {
                    Some(reads) => reads.iter().map(|&r| slice[r as usize].clone()).collect(),
                    // Reads not known: every state is its own group.
                    None => slice.clone(),
                };
                added.push((key, t));
            }
        }
        let index = self.class_cache.entry((k, u, mask)).or_default();
        index.upto = len;
        for (key, t) in added {
            match index.keys.get(&key) {
                Some(&c) => index.classes[c].push(t),
                None => {
                    index.keys.insert(key, index.classes.len());
                    index.classes.push(vec![t]);
                }
            }
        }
        Ok(())
    }

    /// Evaluates binder `g.binder`'s guard on node `g.node`'s local state `g.id`.
    fn eval_guard(&self, shape: &Shape, g: GuardAt) -> Result<bool, LocalError> {
        let mut chosen = vec![None; self.nodes.nodes.len()];
        chosen[g.node] = Some(g.id);
        let state = self.compose(&chosen);
        let inv = &self.machine.spec.invariants[g.invariant];
        let mut locals = vec![Value::Bool(false); inv.n_locals as usize + 1];
        locals[shape.binders[g.binder] as usize] = self.node_index(g.node);
        for g in &shape.guards[g.binder] {
            if !self.machine.root_truth(g, &state, &mut locals)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn node_index(&self, n: usize) -> Value {
        self.nodes.nodes[n].indices[0].clone()
    }

    /// LMC-OPT: only assignments of nodes to the invariant's binders in which some binder names
    /// node `n` (in state `id`) and every binder's guard holds of its node's state.
    fn check_opt(
        &mut self,
        k: usize,
        shape: &Shape,
        n: usize,
        id: LocalId,
    ) -> Result<Option<LocalVerdict>, LocalError> {
        // Only the members of the family the binders range over; a node outside it (a
        // coordinator beside the family) is in no assignment, so its new state changes nothing.
        if !shape.candidates.contains(&n) {
            return Ok(None);
        }
        let n_candidates = shape.candidates.len();
        let n_binders = shape.binders.len();
        let mut pick = vec![0usize; n_binders];
        loop {
            let binder_node: Vec<usize> = pick.iter().map(|&p| shape.candidates[p]).collect();
            if binder_node.contains(&n)
                && self.assignment_may_violate(k, shape, &binder_node, n, id)?
            {
                if let Some(v) = self.check_assignment(k, shape, &binder_node, n, id)? {
                    return Ok(Some(v));
                }
            }
            if !advance(&mut pick, &vec![n_candidates; n_binders], None) {
                return Ok(None);
            }
        }
    }

    /// Whether every binder assigned to node `n` has its guard hold in `id` (the other nodes'
    /// guards are checked per state in [`Self::check_assignment`]).
    fn assignment_may_violate(
        &mut self,
        k: usize,
        shape: &Shape,
        binder_node: &[usize],
        n: usize,
        id: LocalId,
    ) -> Result<bool, LocalError> {
        for (j, &u) in binder_node.iter().enumerate() {
            let at = GuardAt {
                invariant: k,
                binder: j,
                node: n,
                id,
            };
            if u == n && !self.guard_holds(shape, at)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Every choice of local states for the other nodes the binders name (states whose guards
    /// hold), with `id` at node `n`; checks `G ⇒ R` with the binders bound.
    fn check_assignment(
        &mut self,
        k: usize,
        shape: &Shape,
        binder_node: &[usize],
        n: usize,
        id: LocalId,
    ) -> Result<Option<LocalVerdict>, LocalError> {
        let mut others: Vec<usize> = binder_node.iter().copied().filter(|u| *u != n).collect();
        others.sort_unstable();
        others.dedup();
        // For each other node, its states whose guards (for every binder naming it) hold,
        // grouped by the values of the slots the invariant reads: the invariant is evaluated
        // once per group, and only a violating group's states become preliminary violations.
        let mut candidates: Vec<Vec<Vec<LocalId>>> = Vec::new();
        for &u in &others {
            let mask: u64 = binder_node
                .iter()
                .enumerate()
                .filter(|(_, &w)| w == u)
                .map(|(j, _)| 1u64 << j)
                .sum();
            self.extend_classes(k, shape, binder_node, u, mask)?;
            let classes = &self.class_cache[&(k, u, mask)].classes;
            if classes.is_empty() {
                return Ok(None);
            }
            candidates.push(classes.clone());
        }
        let sizes: Vec<usize> = candidates.iter().map(|c| c.len()).collect();
        let mut pick = vec![0usize; sizes.len()];
        let inv = &self.machine.spec.invariants[k];
        loop {
            let mut chosen = vec![None; self.nodes.nodes.len()];
            chosen[n] = Some(id);
            for (x, &u) in others.iter().enumerate() {
                chosen[u] = Some(candidates[x][pick[x]][0]);
            }
            let state = self.compose(&chosen);
            let mut locals = vec![Value::Bool(false); inv.n_locals as usize + 1];
            for (j, &u) in binder_node.iter().enumerate() {
                locals[shape.binders[j] as usize] = self.node_index(u);
            }
            self.stats.system_states += 1;
            if let Some(v) = self.time_check() {
                return Ok(Some(v));
            }
            if !self.machine.root_truth(shape.body, &state, &mut locals)? {
                // Every member of the chosen groups violates it too: one soundness check for
                // the whole group.
                let mut targets: Vec<Option<Vec<LocalId>>> = vec![None; chosen.len()];
                targets[n] = Some(vec![id]);
                let mut count = 1u64;
                for (x, &u) in others.iter().enumerate() {
                    let g = &candidates[x][pick[x]];
                    count *= g.len() as u64;
                    targets[u] = Some(g.clone());
                }
                self.stats.preliminary += count;
                if let Some(v) = self.confirm(k, &targets)? {
                    return Ok(Some(v));
                }
            }
            if !advance(&mut pick, &sizes, None) {
                return Ok(None);
            }
        }
    }
}

/// Where an LMC-OPT guard is evaluated: invariant `invariant`'s binder `binder` bound to node
/// `node` in its local state `id`.
#[derive(Debug, Clone, Copy)]
struct GuardAt {
    invariant: usize,
    binder: usize,
    node: usize,
    id: LocalId,
}

/// One node's local states whose guards hold (for a set of binders of one invariant), grouped
/// by the values of the node slots the invariant reads; built incrementally as states appear.
#[derive(Debug, Default)]
pub(super) struct ClassIndex {
    /// States up to this id are in.
    upto: LocalId,
    keys: FxHashMap<Vec<Value>, usize>,
    /// The groups, each in id order.
    pub classes: Vec<Vec<LocalId>>,
}

/// The next combination in odometer order (position `fixed` stays); false after the last.
pub(super) fn advance(pick: &mut [usize], sizes: &[usize], fixed: Option<usize>) -> bool {
    for p in 0..pick.len() {
        if Some(p) == fixed {
            continue;
        }
        pick[p] += 1;
        if pick[p] < sizes[p] {
            return true;
        }
        pick[p] = 0;
    }
    false
}
