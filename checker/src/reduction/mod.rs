//! Partial-order reduction: in each state, only the enabled action instances of a stubborn set
//! are explored ([`stubborn`]), computed from what each instance reads and writes
//! ([`footprint`]). It is a filter on a model's successors ([`Reduced`] wraps any model whose
//! steps are [`MachineStep`]s: the interpreter's and the compiled engine's), not a search of
//! its own: the one exploration loop runs it.
//!
//! **What it preserves.** Every reachable state in which a checked invariant is false has an
//! equivalent reachable state in the reduced graph in which it is false too, and every
//! reachable deadlock is reached. That rests on three conditions:
//! - the stubborn-set conditions (see [`stubborn`]) over footprints taken from the text, in the
//!   state graph without its self-loops (a step back to the same state is never needed);
//! - *visibility* (see [`stubborn`]): an enabled instance of a reduced set that writes a slot
//!   an invariant reads brings every such instance into the set;
//! - the *cycle proviso*, in a form for breadth-first search: a state is expanded with a
//!   reduced set only when one of that set's steps reaches a state not visited at this level or
//!   before (the exploration loop tells, through [`Model::reduced_successors`]'s `seen`); that
//!   state is then one level deeper. When the smallest set found fails it, a larger stubborn
//!   set that passes it is used (any stubborn set will do), and only when none does is the
//!   state expanded fully. Why it suffices: take a path from a reduced state `s` to a
//!   violation. If it uses an instance of the set, moving that instance first gives a shorter
//!   path from a successor of `s`. If it does not, every enabled instance of the set commutes
//!   with it and is invisible, so the one reaching the next level leads to a state with a path
//!   of the same length to a violation, one level deeper. Path length, then distance to the
//!   last level, decreases at each step, so a violation is reached in the reduced graph.
//!
//!   When the text shows that the state graph has no cycles but self-loops ([`progress`]),
//!   no proviso is needed and every state takes the smallest set found: in the same argument,
//!   a step of the set leads to a state from which the longest path is shorter (the graph has
//!   no cycles and the step is not a self-loop), and that decreases instead. Then the search
//!   need not say which states it visited, so the reduction also runs where `seen` is missing.
//!
//! **Messages picked with `choose`.** A parameterless instance whose effect picks a message
//! (`lose`, `duplicate`) is analysed as one instance per message ([`split`]); a step of it is
//! told apart by the message it removed or added, which the model reads from its states
//! ([`SlotValues`]).
//!
//! Without `seen` (a visited set spilled to disk, whose `contains` may miss states; the
//! distributed explorer's partial knowledge) every state of a graph that may have cycles is
//! expanded fully: the proviso needs the exact answer.
//!
//! It does not preserve liveness properties as implemented here (that needs the proviso on
//! every cycle of *each* fairness class and a stronger visibility), so the liveness searches do
//! not use it.
//!
//! Paths found under reduction are paths of the unreduced machine (each step an enabled
//! instance of the state it leaves), re-executed by the interpreter like every other.

pub mod footprint;
pub mod progress;
pub mod split;
pub mod stable;
pub mod stubborn;

use crate::explore::Model;
use crate::fingerprint::Fingerprint;
use crate::model::MachineModel;
use crate::model::{action_instances, MachineStep};
use interpreter::error::EvalResult;
use interpreter::machine::Machine;
use interpreter::value::Value;
use ioa_lang::span::Span;
use split::Split;
use std::cell::OnceCell;
use std::sync::atomic::{AtomicU64, Ordering};
use stubborn::Stubborn;

/// The independence analysis of a machine, ready to choose reduced sets.
///
/// Its instances are the machine's ([`crate::model::action_instances`]'s numbering), except
/// that an instance that picks its message with `choose` is analysed as one instance per
/// message ([`split`]), numbered after the machine's.
pub struct PartialOrder {
    stubborn: Stubborn,
    /// How many precondition conjuncts stay false once false ([`stable`]).
    stays_false: usize,
    /// For each machine instance, its split, if it has one.
    splits: Vec<Option<Split>>,
    /// Whether the state graph may have cycles ([`progress`]): without, no cycle proviso.
    acyclicity: progress::Acyclicity,
}

/// What the reduction needs to read in a model's states: the value of a state variable (the
/// machine's numbering), to tell which message a step of a split instance picked, and which
/// precondition conjunct disables an instance.
pub trait SlotValues: Model {
    /// The value of slot `slot` in `state`, if the model can tell.
    fn slot_value(&self, state: &Self::State, slot: u32) -> Option<Value>;

    /// The span of the precondition conjunct (or transition `where` clause) that is false in
    /// `state` and so disables machine instance `instance`, if the model can tell: the first
    /// one, in the order the interpreter tries them.
    fn false_conjunct(&self, state: &Self::State, instance: usize) -> Option<Span>;

    /// Runs `f` with [`SlotValues::false_conjunct`] of `state` for any instance: a model that
    /// must decode its states to answer decodes this one once.
    fn with_false_conjuncts<R>(
        &self,
        state: &Self::State,
        f: impl FnOnce(&dyn Fn(usize) -> Option<Span>) -> R,
    ) -> R {
        f(&|instance| self.false_conjunct(state, instance))
    }
}

impl SlotValues for MachineModel<'_, '_> {
    fn slot_value(&self, state: &Self::State, slot: u32) -> Option<Value> {
        state.get(slot as usize).cloned()
    }

    fn false_conjunct(&self, state: &Self::State, instance: usize) -> Option<Span> {
        MachineModel::false_conjunct(self, state, instance).map(|(_, span)| span)
    }
}

impl SlotValues for crate::compiled::CompiledModel<'_, '_> {
    fn slot_value(&self, state: &Self::State, slot: u32) -> Option<Value> {
        crate::compiled::CompiledModel::slot_value(self, state, slot as usize)
    }

    fn false_conjunct(&self, state: &Self::State, instance: usize) -> Option<Span> {
        crate::compiled::CompiledModel::false_conjunct(self, state, instance)
    }

    fn with_false_conjuncts<R>(
        &self,
        state: &Self::State,
        f: impl FnOnce(&dyn Fn(usize) -> Option<Span>) -> R,
    ) -> R {
        crate::compiled::CompiledModel::with_false_conjuncts(self, state, f)
    }
}

impl PartialOrder {
    /// The analysis of `machine`'s action instances (numbered as
    /// [`crate::model::action_instances`] numbers them).
    pub fn new(machine: &Machine) -> EvalResult<PartialOrder> {
        let instances = action_instances(machine)?;
        let acyclicity = progress::acyclicity(machine, &instances);
        let footprint::Footprints {
            prints: mut footprints,
            conjuncts,
            mut cells,
        } = footprint::footprints(machine, &instances);
        let mut splits = vec![None; instances.len()];
        for (k, instance) in instances.iter().enumerate() {
            // An instance that never fires (its footprint is empty) stays as it is.
            if !footprints[k].has_participants {
                continue;
            }
            let Some((slot, parts)) = split::split(machine, instance, &mut cells) else {
                continue;
            };
            let mut ids = rustc_hash::FxHashMap::default();
            for (value, print) in parts {
                ids.insert(value, footprints.len() as u32);
                footprints.push(print);
            }
            // The instance itself is never enabled: its steps are its parts'.
            footprints[k] = footprint::Footprint::default();
            splits[k] = Some(Split { slot, ids });
        }
        let observed = footprint::invariant_reads(machine);
        let overlaps = cells.overlaps(machine.n_slots);
        let mut stable_spans: Vec<Span> = conjuncts
            .iter()
            .flatten()
            .filter(|c| c.stays_false)
            .map(|c| c.span)
            .collect();
        stable_spans.sort_unstable_by_key(|s| (s.file.0, s.start, s.end));
        stable_spans.dedup();
        let mut stubborn = Stubborn::new(
            footprints,
            machine.n_slots,
            cells.slot_of,
            overlaps,
            &observed,
        );
        stubborn.set_conjuncts(conjuncts);
        Ok(PartialOrder {
            stubborn,
            stays_false: stable_spans.len(),
            splits,
            acyclicity,
        })
    }

    /// Whether the reduction asks the model which precondition conjunct disables machine
    /// instance `t` ([`SlotValues::false_conjunct`]).
    pub fn names_conjuncts(&self, t: usize) -> bool {
        self.stubborn.names_conjuncts(t)
    }

    /// The instance of the analysis a step from `state` to `next` belongs to: its machine
    /// instance, or for a split instance the part of the message it removed or added (`None`
    /// when that is not one message).
    fn analysed<M: SlotValues<Step = MachineStep>>(
        &self,
        model: &M,
        step: &MachineStep,
        state: &M::State,
        next: &M::State,
    ) -> Option<u32> {
        let Some(split) = self.splits.get(step.instance as usize)? else {
            return Some(step.instance);
        };
        let (Value::Set(before), Value::Set(after)) = (
            model.slot_value(state, split.slot)?,
            model.slot_value(next, split.slot)?,
        ) else {
            return None;
        };
        let message = if before.len() == after.len() + 1 {
            before.iter().find(|x| !after.contains(*x))?
        } else if after.len() == before.len() + 1 {
            after.iter().find(|x| !before.contains(*x))?
        } else {
            return None;
        };
        split.ids.get(message).copied()
    }

    /// The number of instances that write a slot an invariant reads (never deferred).
    pub fn visible_instances(&self) -> usize {
        self.stubborn.visible_count()
    }

    /// The number of machine instances analysed per message ([`split`]).
    pub fn split_instances(&self) -> usize {
        self.splits.iter().filter(|s| s.is_some()).count()
    }

    /// The number of precondition conjuncts (of the automata's text) found to stay false once
    /// false, whose instances bring nothing into a stubborn set while they are false.
    pub fn stays_false_conjuncts(&self) -> usize {
        self.stays_false
    }

    /// What the analysis of cycles found ([`progress`]): when the state graph has none but
    /// self-loops, every state is expanded with the smallest stubborn set found, whatever the
    /// search visited.
    pub fn acyclicity(&self) -> &progress::Acyclicity {
        &self.acyclicity
    }

    /// The number of action instances analysed (a split instance counts once per message).
    pub fn instances(&self) -> usize {
        self.stubborn.footprints().len()
    }

    /// The stubborn-set structure.
    pub fn stubborn(&self) -> &Stubborn {
        &self.stubborn
    }
}

/// What the reduction did in a search.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PorStats {
    /// States expanded with a reduced set.
    pub reduced_states: u64,
    /// States expanded fully: one enabled instance or fewer, no smaller stubborn set without
    /// visible instances, or the reduced set failed the cycle proviso.
    pub full_states: u64,
    /// Of those, the states where the cycle proviso forced full expansion.
    pub proviso_full: u64,
    /// States expanded fully because the search could not say which states it visited.
    pub unchecked_full: u64,
    /// Successors computed but not explored.
    pub pruned_successors: u64,
    /// Of the states expanded with a reduced set, those where the cycle proviso refused the
    /// smallest set found and a larger one (still smaller than all) was used.
    pub proviso_larger: u64,
}

#[derive(Default)]
struct Counters {
    reduced_states: AtomicU64,
    full_states: AtomicU64,
    proviso_full: AtomicU64,
    unchecked_full: AtomicU64,
    pruned_successors: AtomicU64,
    proviso_larger: AtomicU64,
}

/// A model explored with partial-order reduction (or without, when `order` is `None`: then it
/// is the model itself).
pub struct Reduced<'a, M> {
    inner: &'a M,
    order: Option<&'a PartialOrder>,
    counters: Counters,
}

impl<'a, M> Reduced<'a, M> {
    /// `inner` reduced by `order` (none: not reduced).
    pub fn new(inner: &'a M, order: Option<&'a PartialOrder>) -> Self {
        Reduced {
            inner,
            order,
            counters: Counters::default(),
        }
    }

    /// The model reduced.
    pub fn inner(&self) -> &'a M {
        self.inner
    }

    /// What the reduction did so far.
    pub fn stats(&self) -> PorStats {
        let c = &self.counters;
        PorStats {
            reduced_states: c.reduced_states.load(Ordering::Relaxed),
            full_states: c.full_states.load(Ordering::Relaxed),
            proviso_full: c.proviso_full.load(Ordering::Relaxed),
            unchecked_full: c.unchecked_full.load(Ordering::Relaxed),
            pruned_successors: c.pruned_successors.load(Ordering::Relaxed),
            proviso_larger: c.proviso_larger.load(Ordering::Relaxed),
        }
    }
}

impl<M: SlotValues<Step = MachineStep>> Reduced<'_, M>
where
    M::State: PartialEq,
{
    /// The successors of `all` the reduction keeps, in their order, with the fingerprints it
    /// computed for them, in the same order (the cycle proviso's; `None` where it did not, and
    /// possibly none at all).
    #[allow(clippy::type_complexity)]
    fn choose(
        &self,
        state: &M::State,
        all: Vec<(MachineStep, M::State)>,
        seen: Option<&(dyn Fn(Fingerprint) -> bool + Sync)>,
    ) -> (Vec<(MachineStep, M::State)>, Vec<Option<Fingerprint>>) {
        let Some(order) = self.order else {
            return (all, Vec::new());
        };
        let c = &self.counters;
        // Without cycles, the proviso is not needed ([`progress`]); with them, it needs to
        // know exactly which states were visited.
        let proviso = if order.acyclicity.acyclic() {
            None
        } else if let Some(seen) = seen {
            Some(seen)
        } else {
            c.unchecked_full.fetch_add(1, Ordering::Relaxed);
            c.full_states.fetch_add(1, Ordering::Relaxed);
            return (all, Vec::new());
        };
        // Which instances lead elsewhere, and which only back to this state (see
        // [`stubborn`]: the sets are stubborn in the graph without self-loops).
        // A self-loop is a step to an equal state (not one equal up to a symmetry: the
        // stubborn-set conditions are about the concrete graph).
        let moves: Vec<bool> = all.iter().map(|(_, next)| next != state).collect();
        let mut analysed = Vec::with_capacity(all.len());
        for (step, next) in &all {
            match order.analysed(self.inner, step, state, next) {
                Some(id) => analysed.push(id),
                None => {
                    c.full_states.fetch_add(1, Ordering::Relaxed);
                    return (all, Vec::new());
                }
            }
        }
        let mut enabled: Vec<u32> = Vec::new();
        let mut looping: Vec<u32> = Vec::new();
        for (&id, &moves) in analysed.iter().zip(&moves) {
            if moves {
                enabled.push(id);
            } else {
                looping.push(id);
            }
        }
        enabled.sort_unstable();
        enabled.dedup();
        looping.sort_unstable();
        looping.dedup();
        looping.retain(|t| enabled.binary_search(t).is_err());
        // The conjunct that disables an instance, asked of the model (a smaller necessary
        // enabling set than its whole guard's); each instance once per state, since the
        // closures of several seeds meet it.
        // The cycle proviso: a reduced set is used only when one of its steps reaches a state
        // not visited before, which the search puts one level deeper (see the module's note).
        // When the smallest set found fails it, a larger one may pass. Each kept step's
        // fingerprint is computed once, here.
        let mut prints: Vec<Option<Fingerprint>> = vec![None; all.len()];
        let mut refused = 0;
        let ample = self.inner.with_false_conjuncts(state, |named| {
            let asked: Vec<OnceCell<Option<Span>>> =
                (0..order.splits.len()).map(|_| OnceCell::new()).collect();
            let false_conjunct = |t: u32| -> Option<Span> {
                *asked.get(t as usize)?.get_or_init(|| named(t as usize))
            };
            order
                .stubborn
                .ample_where(&enabled, &looping, &false_conjunct, &mut |set: &[u32]| {
                    let Some(seen) = proviso else {
                        return true;
                    };
                    for (k, (&id, &moves)) in analysed.iter().zip(&moves).enumerate() {
                        if moves && set.binary_search(&id).is_ok() {
                            let f =
                                *prints[k].get_or_insert_with(|| self.inner.fingerprint(&all[k].1));
                            if !seen(f) {
                                return true;
                            }
                        }
                    }
                    refused += 1;
                    false
                })
        });
        let Some(ample) = ample else {
            if refused > 0 {
                c.proviso_full.fetch_add(1, Ordering::Relaxed);
            }
            c.full_states.fetch_add(1, Ordering::Relaxed);
            return (all, prints);
        };
        if refused > 0 {
            c.proviso_larger.fetch_add(1, Ordering::Relaxed);
        }
        let kept = |id: u32, moves: bool| moves && ample.binary_search(&id).is_ok();
        for (k, (&id, &moves)) in analysed.iter().zip(&moves).enumerate() {
            if kept(id, moves) {
                prints[k].get_or_insert_with(|| self.inner.fingerprint(&all[k].1));
            } else {
                prints[k] = None;
            }
        }
        let before = all.len();
        let (reduced, fps): (Vec<_>, Vec<_>) = all
            .into_iter()
            .zip(prints)
            .filter(|(_, fp)| fp.is_some())
            .unzip();
        c.reduced_states.fetch_add(1, Ordering::Relaxed);
        c.pruned_successors
            .fetch_add((before - reduced.len()) as u64, Ordering::Relaxed);
        (reduced, fps)
    }
}

impl<M: SlotValues<Step = MachineStep>> Model for Reduced<'_, M>
where
    M::State: PartialEq,
{
    type State = M::State;
    type Step = MachineStep;
    type Property = M::Property;
    type Error = M::Error;

    fn initial_states(&self, out: &mut Vec<(MachineStep, M::State)>) -> Result<(), M::Error> {
        self.inner.initial_states(out)
    }

    fn successors(
        &self,
        state: &M::State,
        out: &mut Vec<(MachineStep, M::State)>,
    ) -> Result<(), M::Error> {
        self.inner.successors(state, out)
    }

    fn storing(&self, parent: &M::State, child: &M::State, fp: Fingerprint) {
        self.inner.storing(parent, child, fp)
    }

    fn kept_successors(
        &self,
        state: &M::State,
        keep: &dyn Fn(Fingerprint) -> bool,
        seen: Option<&(dyn Fn(Fingerprint) -> bool + Sync)>,
        out: &mut Vec<(Fingerprint, MachineStep, M::State)>,
    ) -> Result<u64, M::Error> {
        if self.order.is_none() {
            // Nothing to reduce: the inner model may filter as it computes.
            return self.inner.kept_successors(state, keep, seen, out);
        }
        let mut all = Vec::new();
        self.inner.successors(state, &mut all)?;
        // The fingerprints the cycle proviso computed are not computed again.
        let (chosen, fps) = self.choose(state, all, seen);
        Ok(crate::explore::keep_fresh(self, chosen, fps, keep, out))
    }

    fn reduce(
        &self,
        state: &M::State,
        all: Vec<(MachineStep, M::State)>,
        out: &mut Vec<(MachineStep, M::State)>,
        seen: Option<&(dyn Fn(Fingerprint) -> bool + Sync)>,
    ) -> Result<(), M::Error> {
        out.extend(self.choose(state, all, seen).0);
        Ok(())
    }

    fn asks_seen(&self) -> bool {
        // Only the cycle proviso asks, and a graph without cycles needs none.
        self.order.is_some_and(|o| !o.acyclicity.acyclic())
    }

    fn check(&self, state: &M::State) -> Result<Option<M::Property>, M::Error> {
        self.inner.check(state)
    }

    fn check_stored(
        &self,
        state: &M::State,
        fp: Fingerprint,
    ) -> Result<Option<M::Property>, M::Error> {
        self.inner.check_stored(state, fp)
    }

    fn fingerprint(&self, state: &M::State) -> Fingerprint {
        self.inner.fingerprint(state)
    }
}
