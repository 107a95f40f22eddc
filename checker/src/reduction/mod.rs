//! Partial-order reduction: in each state, only the enabled action instances of a stubborn set
//! are explored ([`stubborn`]), computed from what each instance reads and writes
//! ([`footprint`]). It is a filter on a model's successors ([`Reduced`] wraps any model whose
//! steps are [`MachineStep`]s: the interpreter's and the compiled engine's), not a search of
//! its own: the one exploration loop runs it.
//!
//! **What it preserves.** Every reachable state in which a checked invariant is false has an
//! equivalent reachable state in the reduced graph in which it is false too, and every
//! reachable deadlock is reached. That rests on three conditions:
//! - the stubborn-set conditions (see [`stubborn`]) over footprints taken from the text;
//! - *visibility*: a reduced set never holds an instance that writes a slot an invariant reads;
//! - the *cycle proviso* (breadth-first form): a state is expanded with a reduced set only when
//!   none of that set's successors was visited before (the exploration loop tells, through
//!   [`Model::reduced_successors`]'s `seen`). In a breadth-first search, every cycle of the
//!   reduced graph has an edge back to an earlier or the same level, whose target was visited
//!   when its source was expanded, so every cycle has a fully expanded state and no instance
//!   is deferred forever.
//!
//! Without `seen` (a visited set spilled to disk, whose `contains` may miss states; the
//! distributed explorer's partial knowledge) every state is expanded fully: reduction needs the
//! exact answer.
//!
//! It does not preserve liveness properties as implemented here (that needs the proviso on
//! every cycle of *each* fairness class and a stronger visibility), so the liveness searches do
//! not use it.
//!
//! Paths found under reduction are paths of the unreduced machine (each step an enabled
//! instance of the state it leaves), re-executed by the interpreter like every other.

pub mod footprint;
pub mod stubborn;

use crate::explore::Model;
use crate::fingerprint::Fingerprint;
use crate::model::{action_instances, MachineStep};
use interpreter::error::EvalResult;
use interpreter::machine::Machine;
use std::sync::atomic::{AtomicU64, Ordering};
use stubborn::Stubborn;

/// The independence analysis of a machine, ready to choose reduced sets.
pub struct PartialOrder {
    stubborn: Stubborn,
}

impl PartialOrder {
    /// The analysis of `machine`'s action instances (numbered as
    /// [`crate::model::action_instances`] numbers them).
    pub fn new(machine: &Machine) -> EvalResult<PartialOrder> {
        let instances = action_instances(machine)?;
        let (footprints, cells) = footprint::footprints(machine, &instances);
        let observed = footprint::invariant_reads(machine);
        Ok(PartialOrder {
            stubborn: Stubborn::new(footprints, machine.n_slots, cells.slot_of, &observed),
        })
    }

    /// The number of instances that write a slot an invariant reads (never deferred).
    pub fn visible_instances(&self) -> usize {
        self.stubborn.visible_count()
    }

    /// The number of action instances analysed.
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
}

#[derive(Default)]
struct Counters {
    reduced_states: AtomicU64,
    full_states: AtomicU64,
    proviso_full: AtomicU64,
    unchecked_full: AtomicU64,
    pruned_successors: AtomicU64,
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
        }
    }
}

impl<M: Model<Step = MachineStep>> Model for Reduced<'_, M> {
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

    fn reduced_successors(
        &self,
        state: &M::State,
        out: &mut Vec<(MachineStep, M::State)>,
        seen: Option<&(dyn Fn(Fingerprint) -> bool + Sync)>,
    ) -> Result<(), M::Error> {
        let Some(order) = self.order else {
            return self.inner.successors(state, out);
        };
        let c = &self.counters;
        let Some(seen) = seen else {
            c.unchecked_full.fetch_add(1, Ordering::Relaxed);
            c.full_states.fetch_add(1, Ordering::Relaxed);
            return self.inner.successors(state, out);
        };
        let mut all = Vec::new();
        self.inner.successors(state, &mut all)?;
        let mut enabled: Vec<u32> = all.iter().map(|(s, _)| s.instance).collect();
        enabled.sort_unstable();
        enabled.dedup();
        let Some(ample) = order.stubborn.ample(&enabled) else {
            c.full_states.fetch_add(1, Ordering::Relaxed);
            out.extend(all);
            return Ok(());
        };
        let in_ample = |s: &MachineStep| ample.binary_search(&s.instance).is_ok();
        // The cycle proviso: a reduced set whose successor was visited before is not used.
        let closes_a_cycle = all
            .iter()
            .filter(|(s, _)| in_ample(s))
            .any(|(_, next)| seen(self.inner.fingerprint(next)));
        if closes_a_cycle {
            c.proviso_full.fetch_add(1, Ordering::Relaxed);
            c.full_states.fetch_add(1, Ordering::Relaxed);
            out.extend(all);
            return Ok(());
        }
        let before = all.len();
        let kept: Vec<_> = all.into_iter().filter(|(s, _)| in_ample(s)).collect();
        c.reduced_states.fetch_add(1, Ordering::Relaxed);
        c.pruned_successors
            .fetch_add((before - kept.len()) as u64, Ordering::Relaxed);
        out.extend(kept);
        Ok(())
    }

    fn check(&self, state: &M::State) -> Result<Option<M::Property>, M::Error> {
        self.inner.check(state)
    }

    fn fingerprint(&self, state: &M::State) -> Fingerprint {
        self.inner.fingerprint(state)
    }
}
