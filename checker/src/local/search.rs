//! The local search of LMC (Fig. 9 of the paper): per node, a store of visited local states;
//! each new local state has its local events and sends tried once, and every delivery
//! available to its node tried once (a delivery that becomes available later is tried on the
//! states that exist by then, and on later ones as they appear). A send grows the monotone
//! network and may make deliveries available. After each new local state, [`super::combine`]
//! checks the invariants on the system states it takes part in.

use super::events::{classify, EventClass};
use super::nodes::Nodes;
use super::shape::{qualifies, shape, Shape};
use super::store::{EventId, LocalId, NodeStore};
use super::{LocalError, LocalOptions, LocalReport, LocalStats, LocalVerdict};
use crate::explore::Limit;
use crate::model::{MachineModel, MachineStep, Scripted};
use crate::system::SystemView;
use interpreter::machine::{Machine, State};
use interpreter::value::Value;
use rustc_hash::{FxHashMap, FxHashSet};
use std::time::Instant;

/// A queued soundness check: the invariant and, per node, its target local states (`None`:
/// free).
pub(super) type QueuedCheck = (usize, Vec<Option<Vec<LocalId>>>);

/// Everything a local search holds.
pub struct Lmc<'a, 'm, 's> {
    pub(super) model: &'a MachineModel<'m, 's>,
    pub(super) machine: &'m Machine<'s>,
    pub(super) nodes: Nodes,
    pub(super) classes: Vec<EventClass>,
    pub(super) options: LocalOptions,
    /// The state the search starts from (a start state or a live state).
    pub(super) start: State,
    pub(super) stores: Vec<NodeStore>,
    /// Events: (instance position, `choose` script).
    pub(super) events: Vec<(u32, Box<[u32]>)>,
    event_index: FxHashMap<(u32, Box<[u32]>), EventId>,
    /// Per node: the positions of its local and send instances.
    node_events: Vec<Vec<u32>>,
    /// The action instances only the network takes part in (loss, duplication, the
    /// environment's inputs to the network).
    pub(super) network_only: Vec<u32>,
    /// Per network instance: the deliveries it controls, not yet available.
    pending_by_controller: FxHashMap<usize, Vec<u32>>,
    /// The network's monotone state (node slices are those of `start`).
    network: State,
    /// Sends seen: (network instance that took it, arguments).
    sent: FxHashSet<(usize, Vec<Value>)>,
    /// Sends applied to the monotone network: (action, arguments). Two actions may share
    /// arguments (`sendAccept(i, b, v)` and `sendLearn(i, b, v)`): each is applied.
    applied: FxHashSet<(usize, Vec<Value>)>,
    /// The send instances applied, in order (the network's inputs when its closure is searched).
    applied_sends: Vec<u32>,
    pub(super) node_masks: Vec<Vec<bool>>,
    network_mask: Vec<bool>,
    /// The invariants checked, with their LMC-OPT shapes.
    pub(super) invariants: Vec<(usize, Option<Shape<'s>>)>,
    /// Invariants left out: they read network state.
    left_out: Vec<(usize, String)>,
    pub(super) stats: LocalStats,
    /// LMC-OPT guards evaluated so far: (invariant, binder, node) to one verdict per local
    /// state, in id order.
    pub(super) guard_cache: FxHashMap<(usize, usize, usize), Vec<bool>>,
    /// LMC-OPT candidate groups: (invariant, node, binders naming it) to its index.
    /// Groups of preliminary violations the soundness check refused.
    pub(super) refused: Vec<super::soundness::Refused>,
    /// Queued soundness checks: (sum of depths, position in `pending_payload`), shallowest
    /// first.
    pub(super) pending: std::collections::BinaryHeap<std::cmp::Reverse<(u32, u64)>>,
    /// The queued checks' invariants and targets (taken when run).
    pub(super) pending_payload: Vec<Option<QueuedCheck>>,
    /// Every group queued so far: a group asked twice (the symmetric assignments of
    /// `∀ n, n'` name the same pair of nodes) is checked once.
    pub(super) queued: FxHashSet<QueuedCheck>,
    /// Time spent in soundness checks.
    pub(super) soundness_time: std::time::Duration,
    /// Whether the last soundness check ran out of its budget.
    pub(super) exhausted: bool,
    pub(super) class_cache: FxHashMap<(usize, usize, u64), super::combine::ClassIndex>,
    pub(super) bounded: bool,
    pub(super) started: Instant,
    /// Eager sends: per node, its drain-send instances, when the reduction applies
    /// ([`super::eager`]).
    pub(super) drains: Option<Vec<Vec<u32>>>,
    /// Per node, where its outboxes are in its local state.
    pub(super) outbox_slots: Vec<Vec<u32>>,
    /// The check's verdict, for the report.
    eager_sends: Result<Vec<String>, String>,
    /// Which deliveries may repeat along a path ([`super::redelivery`]).
    pub(super) redelivery: super::redelivery::Redelivery,
    /// Per node: the sends each recorded transition fired, by (source state, event).
    edge_sends: Vec<FxHashMap<(LocalId, EventId), Vec<u32>>>,
    /// Per node: the sends its start state's closure fired (eager sends).
    start_sends: Vec<Vec<u32>>,
    /// The soundness check's closures: a node's local state (by node and fingerprint) to the
    /// fingerprint of its closure under its drain sends and the drain sends enabled in it.
    pub(super) closed: FxHashMap<(usize, crate::fingerprint::Fingerprint), Closed>,
}

/// A node's local state as the soundness check sees it with eager sends: its closure (by
/// fingerprint) and the drain sends enabled in it (its pending sends).
#[derive(Debug, Clone)]
pub(super) struct Closed {
    pub(super) closure: crate::fingerprint::Fingerprint,
    pub(super) pending: Vec<u32>,
}

/// Runs a local search from `start` (a start state of the model, or a state of a live run).
pub fn run_local(
    model: &MachineModel,
    start: State,
    options: LocalOptions,
) -> Result<LocalReport, LocalError> {
    let mut lmc = Lmc::new(model, start, options)?;
    let verdict = lmc.search()?;
    lmc.finish_stats();
    let optimised = lmc
        .invariants
        .iter()
        .map(|(k, s)| (*k, s.is_some()))
        .collect();
    Ok(LocalReport {
        verdict,
        nodes: lmc.nodes.nodes.iter().map(|n| n.name.clone()).collect(),
        network: lmc.nodes.network.clone(),
        left_out: lmc.left_out.clone(),
        eager_sends: lmc.eager_sends.clone(),
        stats: lmc.stats,
        optimised,
    })
}

impl<'a, 'm, 's> Lmc<'a, 'm, 's> {
    fn new(
        model: &'a MachineModel<'m, 's>,
        start: State,
        options: LocalOptions,
    ) -> Result<Self, LocalError> {
        let machine = model.machine();
        let view = SystemView::with_network(machine, options.network.as_deref())
            .map_err(LocalError::System)?;
        let nodes = Nodes::of(&view);
        let classes = classify(&view, model.instances())?;
        let spec = machine.spec;
        let chosen: Vec<usize> = match &options.invariants {
            Some(list) => list.clone(),
            None => (0..spec.invariants.len())
                .filter(|k| spec.invariants[*k].automaton == machine.root)
                .collect(),
        };
        let mut invariants = Vec::new();
        let mut left_out = Vec::new();
        for k in chosen {
            let inv = &spec.invariants[k];
            if let Err(e) = qualifies(machine, &nodes, inv) {
                if options.strict {
                    return Err(LocalError::NotLocal {
                        invariant: inv.name.clone(),
                        component: e.component,
                    });
                }
                left_out.push((k, e.component));
                continue;
            }
            let sh = if options.optimise {
                shape(machine, &nodes, inv)
            } else {
                None
            };
            invariants.push((k, sh));
        }
        if invariants.is_empty() && !left_out.is_empty() {
            return Err(LocalError::NothingToCheck {
                left_out: left_out
                    .iter()
                    .map(|(k, c)| (spec.invariants[*k].name.clone(), c.clone()))
                    .collect(),
            });
        }
        let eager = if options.eager_sends {
            let checked: Vec<usize> = invariants.iter().map(|(k, _)| *k).collect();
            super::eager::check(machine, &nodes, &classes, model.instances(), &checked)
        } else {
            super::eager::Eager::off("asked with --no-eager-sends")
        };
        let is_drain: FxHashSet<u32> = eager.drains.iter().flatten().flatten().copied().collect();
        let n = nodes.nodes.len();
        let mut node_events = vec![Vec::new(); n];
        let mut pending_by_controller: FxHashMap<usize, Vec<u32>> = FxHashMap::default();
        for (k, c) in classes.iter().enumerate() {
            match c {
                EventClass::Local { node } | EventClass::Send { node, .. }
                    if !is_drain.contains(&(k as u32)) =>
                {
                    node_events[*node].push(k as u32)
                }
                EventClass::Handler { controller, .. } => pending_by_controller
                    .entry(*controller)
                    .or_default()
                    .push(k as u32),
                _ => {}
            }
        }
        let node_masks = (0..n).map(|k| nodes.mask_of_node(k)).collect();
        let network_mask = nodes.mask_of_network();
        let mut network_only = Vec::new();
        for (k, c) in classes.iter().enumerate() {
            let inst = &model.instances()[k];
            if *c == EventClass::Other && !machine.participants(inst.action, &inst.args)?.is_empty()
            {
                network_only.push(k as u32);
            }
        }
        let redelivery =
            super::redelivery::probe(machine, model.instances(), &classes, &start, &network_mask)?;
        let stores: Vec<NodeStore> = (0..n).map(|_| NodeStore::default()).collect();
        let mut lmc = Lmc {
            model,
            machine,
            nodes,
            classes,
            options,
            network: start.clone(),
            start,
            stores,
            events: Vec::new(),
            event_index: FxHashMap::default(),
            node_events,
            pending_by_controller,
            sent: FxHashSet::default(),
            applied: FxHashSet::default(),
            applied_sends: Vec::new(),
            node_masks,
            network_mask,
            invariants,
            left_out,
            stats: LocalStats::default(),
            guard_cache: FxHashMap::default(),
            class_cache: FxHashMap::default(),
            refused: Vec::new(),
            exhausted: false,
            pending: Default::default(),
            pending_payload: Vec::new(),
            queued: FxHashSet::default(),
            soundness_time: Default::default(),
            bounded: false,
            started: Instant::now(),
            eager_sends: match &eager.reason {
                None => Ok(eager.outboxes.clone()),
                Some(r) => Err(r.clone()),
            },
            drains: eager.drains,
            outbox_slots: eager.outbox_slots,
            closed: FxHashMap::default(),
            redelivery,
            network_only,
            edge_sends: vec![FxHashMap::default(); n],
            start_sends: vec![Vec::new(); n],
        };
        // The start states (closed under eager sends, whose messages reach the network).
        for k in 0..n {
            let slice = lmc.nodes.local(k, &lmc.start);
            let (slice, fired) = lmc.close(k, slice, true)?;
            lmc.start_sends[k] = fired;
            lmc.stores[k].add(slice, None, None, 0);
        }
        let controllers: Vec<usize> = lmc.pending_by_controller.keys().copied().collect();
        for c in controllers {
            lmc.refresh_deliveries(c)?;
        }
        Ok(lmc)
    }

    /// The loop: until no store changes, or a violation is confirmed, or a limit is reached.
    fn search(&mut self) -> Result<LocalVerdict, LocalError> {
        // The start combination itself.
        if let Some(v) = self.check_start()? {
            return Ok(v);
        }
        if let Some(v) = self.settle_some(true)? {
            return Ok(v);
        }
        let mut changed = true;
        let mut ticks = 0u64;
        while changed {
            changed = false;
            for n in 0..self.nodes.nodes.len() {
                // The states this node has now; those its events add wait for the next round, so
                // that every node advances a layer per round (with repeated deliveries a node's
                // local space may be infinite, and must not starve the others).
                let mut i = 0;
                let end = self.stores[n].states.len();
                while i < end {
                    ticks += 1;
                    if ticks % 64 == 0 {
                        if let Some(limit) = self.limit_reached() {
                            return Ok(LocalVerdict::Limit(limit));
                        }
                    }
                    let id = i as LocalId;
                    if !self.stores[n].states[i].expanded {
                        self.stores[n].states[i].expanded = true;
                        changed = true;
                        for k in self.node_events[n].clone() {
                            if let Some(v) = self.step(n, id, k)? {
                                return Ok(v);
                            }
                        }
                    }
                    while self.stores[n].states[i].cursor < self.stores[n].available.len() {
                        let c = self.stores[n].states[i].cursor;
                        self.stores[n].states[i].cursor = c + 1;
                        changed = true;
                        let k = self.stores[n].available[c];
                        if !self.redelivery.repeat[k as usize]
                            && self.stores[n].states[i].history.binary_search(&k).is_ok()
                        {
                            continue;
                        }
                        if let Some(v) = self.step(n, id, k)? {
                            return Ok(v);
                        }
                    }
                    while let Some(k) = self.stores[n].states[i].retry.pop() {
                        changed = true;
                        if let Some(v) = self.step(n, id, k)? {
                            return Ok(v);
                        }
                    }
                    if let Some(v) = self.settle_some(false)? {
                        return Ok(v);
                    }
                    i += 1;
                }
            }
            if let Some(v) = self.settle_some(true)? {
                return Ok(v);
            }
            changed |= !self.pending.is_empty();
            // The refused preliminary violations, against the transitions recorded since.
            if let Some(v) = self.recheck_refused()? {
                return Ok(v);
            }
            // Everything explored: the network's own steps, then the at-most-once rule.
            if !changed {
                changed = self.network_steps()?;
            }
            if !changed {
                changed = self.allow_repeats();
            }
        }
        Ok(LocalVerdict::NoViolation {
            bounded: self.bounded,
        })
    }

    /// The limit that stops the search now, if one does: the memory ceiling, the number of
    /// local states, or the time limit.
    pub(super) fn limit_reached(&self) -> Option<Limit> {
        if let Some(c) = self.options.memory_ceiling {
            if crate::memory::resident_bytes().is_some_and(|r| r >= c) {
                return Some(Limit::ProcessMemory(c));
            }
        }
        if let Some(max) = self.options.max_states {
            let stored: u64 = self.stores.iter().map(|s| s.states.len() as u64).sum();
            if stored >= max {
                return Some(Limit::States(max));
            }
        }
        let t = self.options.time_limit?;
        (self.started.elapsed() >= t).then_some(Limit::Time(t))
    }

    /// Tries instance `k` on local state `id` of node `n`, with every resolution of its
    /// `choose`s; records the successors and checks the invariants on new ones.
    fn step(&mut self, n: usize, id: LocalId, k: u32) -> Result<Option<LocalVerdict>, LocalError> {
        let is_delivery = matches!(self.classes[k as usize], EventClass::Handler { .. });
        let here = &self.stores[n].states[id as usize];
        if self.options.max_depth.is_some_and(|d| here.depth >= d)
            || (!is_delivery
                && self
                    .options
                    .max_local_events
                    .is_some_and(|b| here.local_events >= b))
        {
            self.bounded = true;
            return Ok(None);
        }
        let model = self.model;
        let inst = &model.instances()[k as usize];
        let mut global = self.start.clone();
        self.nodes.put(n, &here.slice, &mut global);
        let mask = self.node_masks[n].clone();
        let plan =
            self.machine
                .enabled_among(&global, inst.action, &inst.args, false, Some(&mask))?;
        let Ok(mut plan) = plan.map(Some) else {
            return Ok(None);
        };
        let mut script: Vec<u32> = Vec::new();
        loop {
            let p = match plan.take() {
                Some(p) => p,
                None => match self.machine.enabled_among(
                    &global,
                    inst.action,
                    &inst.args,
                    false,
                    Some(&mask),
                )? {
                    Ok(p) => p,
                    Err(_) => break,
                },
            };
            let mut ch = Scripted::new(&script);
            let next = self.machine.execute(&global, p, &mut ch)?;
            self.stats.transitions += 1;
            let event = self.intern(k, script.clone().into());
            let (slice, fired) = self.close(n, self.nodes.local(n, &next), true)?;
            let delivery = is_delivery.then_some(k);
            let steps = 1 + fired.len() as u32;
            let mut sends = fired;
            let (new_id, fresh, shrank) =
                self.stores[n].add(slice, Some((id, event, !is_delivery)), delivery, steps);
            if shrank {
                let (events, classes) = (&self.events, &self.classes);
                self.stores[n].narrow_history(new_id, |e| {
                    let k = events[e as usize].0;
                    matches!(classes[k as usize], EventClass::Handler { .. }).then_some(k)
                });
            }
            if let EventClass::Send { takers, .. } = &self.classes[k as usize] {
                sends.insert(0, k);
                let takers = takers.clone();
                self.send(k, &takers)?;
            }
            if !sends.is_empty() {
                self.edge_sends[n].insert((id, event), sends);
            }
            if fresh {
                if let Some(v) = self.check_new(n, new_id)? {
                    return Ok(Some(v));
                }
            }
            match ch.next_script() {
                Some(s) => script = s,
                None => break,
            }
        }
        Ok(None)
    }

    /// The closure of node `n`'s local state `slice` under its drain sends (the slice itself
    /// when eager sends are off), and the sends it fired. With `apply`, the sends are counted as
    /// transitions and applied to the monotone network.
    pub(super) fn close(
        &mut self,
        n: usize,
        slice: Vec<Value>,
        apply: bool,
    ) -> Result<(Vec<Value>, Vec<u32>), LocalError> {
        let Some(drains) = self.drains.as_ref().map(|d| d[n].clone()) else {
            return Ok((slice, Vec::new()));
        };
        if drains.is_empty() || super::eager::outboxes_empty(&slice, &self.outbox_slots[n]) {
            return Ok((slice, Vec::new()));
        }
        let mut global = self.start.clone();
        self.nodes.put(n, &slice, &mut global);
        let mut fired = Vec::new();
        loop {
            let mut any = false;
            for &k in &drains {
                let inst = &self.model.instances()[k as usize];
                let plan = self.machine.enabled_among(
                    &global,
                    inst.action,
                    &inst.args,
                    false,
                    Some(&self.node_masks[n]),
                )?;
                let Ok(plan) = plan else { continue };
                global = self
                    .machine
                    .execute(&global, plan, &mut interpreter::eval::NoChoice)?;
                fired.push(k);
                any = true;
                if apply {
                    self.stats.transitions += 1;
                    self.stats.eager_sends += 1;
                    if let EventClass::Send { takers, .. } = &self.classes[k as usize] {
                        let takers = takers.clone();
                        self.send(k, &takers)?;
                    }
                }
            }
            if !any {
                break;
            }
        }
        Ok((self.nodes.local(n, &global), fired))
    }

    /// At the end of the exploration, the network's own actions (an input from the environment
    /// that the network takes, a duplication) taken on the monotone network: a delivery one of
    /// them makes possible is made available (and the soundness check takes the same actions
    /// on the real system). One step, and a second after a step that made something possible.
    /// Whether anything became available.
    fn network_steps(&mut self) -> Result<bool, LocalError> {
        let mut changed = false;
        let mut frontier = vec![(self.network.clone(), 0u32)];
        while let Some((state, depth)) = frontier.pop() {
            for k in self.network_only.clone() {
                let inst = &self.model.instances()[k as usize];
                let mut script: Vec<u32> = Vec::new();
                loop {
                    let Ok(plan) = self.machine.enabled_among(
                        &state,
                        inst.action,
                        &inst.args,
                        false,
                        Some(&self.network_mask),
                    )?
                    else {
                        break;
                    };
                    let mut ch = Scripted::new(&script);
                    let Ok(after) = self.machine.execute(&state, plan, &mut ch) else {
                        break;
                    };
                    if self.make_available_in(&after)? {
                        changed = true;
                        self.stats.network_steps += 1;
                        if depth == 0 {
                            frontier.push((after, 1));
                        }
                    }
                    match ch.next_script() {
                        Some(next) => script = next,
                        None => break,
                    }
                }
            }
        }
        Ok(changed)
    }

    /// Moves every pending delivery that its controller could make in network state `state` to
    /// its node's available list; whether there was one.
    fn make_available_in(&mut self, state: &State) -> Result<bool, LocalError> {
        let controllers: Vec<usize> = self.pending_by_controller.keys().copied().collect();
        let mut any = false;
        for c in controllers {
            let Some(pending) = self.pending_by_controller.remove(&c) else {
                continue;
            };
            let mut only = vec![false; self.network_mask.len()];
            only[c] = true;
            let mut still = Vec::new();
            for k in pending {
                let inst = &self.model.instances()[k as usize];
                let enabled = self
                    .machine
                    .enabled_among(state, inst.action, &inst.args, false, Some(&only))?
                    .is_ok();
                match self.classes[k as usize] {
                    EventClass::Handler { node, .. } if enabled => {
                        self.stores[node].available.push(k);
                        self.stats.deliveries += 1;
                        // Made possible without a send: it may come again.
                        self.redelivery.repeat[k as usize] = true;
                        any = true;
                    }
                    _ => still.push(k),
                }
            }
            self.pending_by_controller.insert(c, still);
        }
        Ok(any)
    }

    /// At the end of the exploration, the check of [`super::redelivery`]: each delivery still
    /// taken at most once along a path whose sends may go out twice in all is allowed to repeat,
    /// and retried on every state that had skipped it. Whether anything changed.
    fn allow_repeats(&mut self) -> bool {
        if self.redelivery.fed_by.is_empty() {
            return false;
        }
        let (events, classes, repeat) = (&self.events, &self.classes, &self.redelivery.repeat);
        let once_delivery = |e: u32| {
            let k = events[e as usize].0;
            (matches!(classes[k as usize], EventClass::Handler { .. }) && !repeat[k as usize])
                .then_some(k)
        };
        let mult = super::redelivery::multiplicities(
            &self.stores,
            &self.edge_sends,
            &self.start_sends,
            self.classes.len(),
            &once_delivery,
        );
        let flipped: Vec<u32> = self
            .redelivery
            .fed_by
            .iter()
            .filter(|(_, sends)| {
                sends
                    .iter()
                    .map(|&s| u32::from(mult[s as usize]))
                    .sum::<u32>()
                    >= 2
            })
            .map(|(&k, _)| k)
            .collect();
        for &k in &flipped {
            self.redelivery.fed_by.remove(&k);
            self.redelivery.repeat[k as usize] = true;
            let EventClass::Handler { node, .. } = self.classes[k as usize] else {
                continue;
            };
            for st in &mut self.stores[node].states {
                if st.history.binary_search(&k).is_ok() {
                    st.retry.push(k);
                }
            }
        }
        !flipped.is_empty()
    }

    pub(super) fn intern(&mut self, instance: u32, script: Box<[u32]>) -> EventId {
        let key = (instance, script);
        if let Some(&e) = self.event_index.get(&key) {
            return e;
        }
        let e = self.events.len() as EventId;
        self.events.push(key.clone());
        self.event_index.insert(key, e);
        e
    }

    /// A node sent instance `k`: apply it to the monotone network (once) and make the
    /// deliveries it enables available.
    fn send(&mut self, k: u32, takers: &[usize]) -> Result<(), LocalError> {
        let inst = &self.model.instances()[k as usize];
        if !self.applied.insert((inst.action, inst.args.clone())) {
            return Ok(());
        }
        self.applied_sends.push(k);
        for &t in takers {
            self.sent.insert((t, inst.args.clone()));
        }
        self.stats.messages += 1;
        if let Ok(plan) = self.machine.enabled_among(
            &self.network,
            inst.action,
            &inst.args,
            false,
            Some(&self.network_mask),
        )? {
            self.network = self
                .machine
                .execute(&self.network, plan, &mut interpreter::eval::NoChoice)
                .unwrap_or_else(|_| self.network.clone());
        }
        for &t in takers {
            self.refresh_deliveries(t)?;
        }
        Ok(())
    }

    /// Moves the deliveries of network instance `controller` that the network may now make to
    /// their nodes' available lists: those the monotone network enables, and those enabled in
    /// its closure ([`Self::closure_deliveries`]).
    fn refresh_deliveries(&mut self, controller: usize) -> Result<(), LocalError> {
        let Some(pending) = self.pending_by_controller.remove(&controller) else {
            return Ok(());
        };
        let mut only = vec![false; self.network_mask.len()];
        only[controller] = true;
        let mut still = Vec::new();
        for k in pending {
            let inst = &self.model.instances()[k as usize];
            let matched = self.sent.contains(&(controller, inst.args.clone()))
                || self
                    .machine
                    .enabled_among(&self.network, inst.action, &inst.args, false, Some(&only))?
                    .is_ok();
            if matched {
                self.make_available(k);
            } else {
                still.push(k);
            }
        }
        if !still.is_empty() {
            let reachable = self.closure_deliveries(controller)?;
            still.retain(|&k| {
                let keep = reachable.as_ref().is_some_and(|r| !r.contains(&k));
                if !keep {
                    self.make_available(k);
                }
                keep
            });
        }
        self.pending_by_controller.insert(controller, still);
        Ok(())
    }

    fn make_available(&mut self, k: u32) {
        if let EventClass::Handler { node, .. } = self.classes[k as usize] {
            self.stores[node].available.push(k);
            self.stats.deliveries += 1;
        }
    }

    /// The deliveries of network instance `controller` enabled somewhere in the closure of the
    /// monotone network under its own steps: its deliveries taken (a channel that must hand
    /// over a token before its marker) and the network's own actions. The monotone state alone
    /// applies each send once and never consumes, so a delivery that needs an earlier one taken
    /// first would never become available, and LMC would miss every run through it. Where the
    /// network's state depends on the order of its sends ([`super::redelivery::Redelivery::
    /// order_dependent`]), the closure starts over from the network's start state and takes
    /// each send seen at most once, in every order. `None` when the closure is larger than
    /// [`super::redelivery::PROBE_STATES`]: then every delivery counts as possible (more local
    /// states, never fewer).
    fn closure_deliveries(&self, controller: usize) -> Result<Option<FxHashSet<u32>>, LocalError> {
        let mut moves: Vec<u32> = Vec::new();
        for (k, c) in self.classes.iter().enumerate() {
            match c {
                EventClass::Handler { controller: c, .. } if *c == controller => {
                    moves.push(k as u32)
                }
                _ => {}
            }
        }
        moves.extend(self.network_only.iter().copied());
        let ordered = self.redelivery.order_dependent.contains(&controller);
        let once: Vec<u32> = if ordered {
            self.applied_sends
                .iter()
                .copied()
                .filter(|&s| {
                    matches!(&self.classes[s as usize], EventClass::Send { takers, .. } if takers.contains(&controller))
                })
                .collect()
        } else {
            Vec::new()
        };
        Ok(super::redelivery::enabled_in_closure(
            self.machine,
            self.model.instances(),
            if ordered { &self.start } else { &self.network },
            &moves,
            &once,
            &self.network_mask,
        )?)
    }

    fn finish_stats(&mut self) {
        self.stats.local_states = self.stores.iter().map(|s| s.states.len() as u64).collect();
        self.stats.node_depths = self
            .stores
            .iter()
            .map(|s| s.states.iter().map(|x| x.depth).max().unwrap_or(0))
            .collect();
        let network_bytes = self.sent.len() as u64
            * (std::mem::size_of::<(usize, Vec<Value>)>() as u64 + 64)
            + self.events.len() as u64 * 32;
        self.stats.bytes =
            self.stores.iter().map(|s| s.approx_bytes()).sum::<u64>() + network_bytes;
        self.stats.elapsed = self.started.elapsed();
    }

    /// The run of a confirmed violation, as model steps from the search's start state.
    pub(super) fn run_of(&self, events: &[EventId]) -> Vec<MachineStep> {
        events
            .iter()
            .map(|&e| {
                let (instance, choices) = &self.events[e as usize];
                MachineStep {
                    instance: *instance,
                    choices: choices.clone(),
                }
            })
            .collect()
    }
}
