//! The exploration loop: breadth-first search over the reachable states of a [`Model`], checking
//! every state, with limits, statistics and the shortest path to any state it reports.
//!
//! **This is the one exploration loop of the crate.** Strategies differ in the [`Model`] they
//! explore (a plain machine, a machine whose fingerprints are canonical under a symmetry, later
//! a local or consequence-predicting view of one) and in how they pick frontier states, not in
//! their own copies of a BFS: they reuse [`StateGraph`] (the visited set, keyed by fingerprint,
//! with the parent and step that first reached each state) and [`Frontier`] (one BFS level of
//! concrete states awaiting expansion), and report through [`Report`].
//!
//! How a level is processed, and why:
//! - The frontier is cut into batches (4,096 states). Every state is checked, its successors
//!   are computed and fingerprinted, and successors whose fingerprint is already visited are
//!   dropped as they are computed ([`Model::kept_successors`]). This is where nearly all the
//!   time goes (evaluating preconditions and effects).
//! - On one thread, each state's new successors are merged into the graph as soon as it is
//!   expanded, in frontier order, so the next state's successors are filtered against them.
//! - With worker threads and neither a state limit nor a memory budget, there is no merge:
//!   the workers insert into one concurrent visited set, each successor with the place a serial
//!   search takes it in, and the smallest place wins (`explore/parallel.rs`, [`table`]). Otherwise
//!   (state limit, memory budget) a batch is expanded in parallel (rayon) and merged by the
//!   calling thread in frontier order.
//! - Either way every run of the same model produces the same state numbering, the same
//!   statistics and the same counterexample, whatever the number of threads: a batch is always
//!   expanded whole (what a model counts as it expands, such as a reduction's savings, covers
//!   the same states), and the states found are numbered in the serial order.
//! - Every state is checked when its level is expanded, and the first failing state in
//!   frontier order is reported. Breadth-first order makes its path a shortest one.
//! - Limits (states, depth, time) are checked between batches, so a search stops cleanly and
//!   can say which levels it completed.
//! - A memory limit does not stop the search: when the visited set reaches it, the set moves
//!   to disk ([`spill`]) and the search goes on, with the same counts, numbering and
//!   counterexample as in memory.
//!
//! Two states with the same fingerprint are taken to be the same state (128-bit fingerprints,
//! see [`crate::fingerprint`]). Only fingerprints and parent links are kept for visited states;
//! concrete states are kept for the current and the next level only. A path is rebuilt from the
//! parent links as a list of steps, which the model can re-execute into a concrete trace.

mod parallel;
pub mod runs;
pub mod spill;
pub mod table;

use crate::fingerprint::{Fingerprint, FingerprintSet, PackedFingerprint};
use crate::memory;
use rayon::prelude::*;
use spill::{PathError, Settle, SpillGraph, SpillStats};
use std::path::Path;
use std::time::{Duration, Instant};

/// What an explorer needs from a system under exploration.
///
/// The explorer treats states as opaque: it asks for start states and successors, checks each
/// state once, and identifies states by [`Model::fingerprint`], which may be canonical under a
/// symmetry (two states with equal fingerprints are explored once).
pub trait Model: Sync {
    /// A concrete state.
    type State: Send + Sync;
    /// How a state was reached from its parent (or how a start state was built); enough to
    /// re-execute the step.
    type Step: Clone + Send + Sync;
    /// What a failed check names (for machines, an invariant).
    type Property: Clone + Send;
    /// An error while building, expanding or checking a state.
    type Error: Send;

    /// Appends every start state, each with the step that builds it.
    fn initial_states(&self, out: &mut Vec<(Self::Step, Self::State)>) -> Result<(), Self::Error>;

    /// Appends every successor of `state` with the step that reaches it. No successor at all
    /// means the state is deadlocked.
    fn successors(
        &self,
        state: &Self::State,
        out: &mut Vec<(Self::Step, Self::State)>,
    ) -> Result<(), Self::Error>;

    /// The successors a reduction keeps (by default all of them, as [`Model::successors`]).
    /// `seen` tells whether a state with this fingerprint was visited at an earlier or the
    /// current level (a state of the level being built answers no; without
    /// [`Model::asks_seen`], yes); `None` when the search cannot say exactly, and then a
    /// reduction that needs it must keep every successor (see [`crate::reduction`]).
    fn reduced_successors(
        &self,
        state: &Self::State,
        out: &mut Vec<(Self::Step, Self::State)>,
        seen: Option<&(dyn Fn(Fingerprint) -> bool + Sync)>,
    ) -> Result<(), Self::Error> {
        let mut all = Vec::new();
        self.successors(state, &mut all)?;
        self.reduce(state, all, out, seen)
    }

    /// Appends the successors [`Model::reduced_successors`] gives whose fingerprint `keep`
    /// accepts, each with that fingerprint and in the same order, and returns how many
    /// successors were computed (those `keep` refused included). A model may override this to
    /// test each successor as it is computed, so that one already visited is never kept (the
    /// compiled engine computes it in a reused buffer).
    fn kept_successors(
        &self,
        state: &Self::State,
        keep: &dyn Fn(Fingerprint) -> bool,
        seen: Option<&(dyn Fn(Fingerprint) -> bool + Sync)>,
        out: &mut Vec<(Fingerprint, Self::Step, Self::State)>,
    ) -> Result<u64, Self::Error> {
        let mut all = Vec::new();
        self.reduced_successors(state, &mut all, seen)?;
        Ok(keep_fresh(self, all, Vec::new(), keep, out))
    }

    /// Appends the successors a reduction keeps of `all`, every successor of `state` (by
    /// default all of them): [`Model::reduced_successors`] for a caller that has computed the
    /// successors already.
    fn reduce(
        &self,
        state: &Self::State,
        all: Vec<(Self::Step, Self::State)>,
        out: &mut Vec<(Self::Step, Self::State)>,
        seen: Option<&(dyn Fn(Fingerprint) -> bool + Sync)>,
    ) -> Result<(), Self::Error> {
        let _ = (state, seen);
        out.extend(all);
        Ok(())
    }

    /// `child`, a successor of `parent`, is new to the search, which will store it under `fp`
    /// (its [`Model::fingerprint`]) and check it with [`Model::check_stored`] (after checking
    /// `parent`): a model may carry over what it knows from `parent` (the compiled engine,
    /// which invariants the step cannot have changed). By default nothing.
    fn storing(&self, parent: &Self::State, child: &Self::State, fp: Fingerprint) {
        let _ = (parent, child, fp);
    }

    /// Whether [`Model::reduced_successors`] uses `seen`: then the search keeps the
    /// fingerprints of the level it builds, to tell them from those of earlier levels.
    fn asks_seen(&self) -> bool {
        false
    }

    /// The first property `state` violates, if any.
    fn check(&self, state: &Self::State) -> Result<Option<Self::Property>, Self::Error>;

    /// [`Model::check`] of a state the search stored under `fp`, its fingerprint: the same
    /// answer, found with what [`Model::storing`] learnt under `fp` where the model keeps it.
    fn check_stored(
        &self,
        state: &Self::State,
        fp: Fingerprint,
    ) -> Result<Option<Self::Property>, Self::Error> {
        let _ = fp;
        self.check(state)
    }

    /// The state's fingerprint; states with equal fingerprints are explored once.
    fn fingerprint(&self, state: &Self::State) -> Fingerprint;
}

/// The position of a visited state in a [`StateGraph`] (in discovery order).
pub type StateId = u32;

/// The parent of a start state.
const NO_PARENT: StateId = StateId::MAX;

/// The parent and step that first reached each visited state, by id: what a path is rebuilt
/// from.
pub struct Links<Step> {
    parents: Vec<StateId>,
    steps: Vec<Step>,
}

impl<Step> Default for Links<Step> {
    fn default() -> Self {
        Links {
            parents: Vec::new(),
            steps: Vec::new(),
        }
    }
}

impl<Step: Clone> Links<Step> {
    /// The number of states recorded.
    pub fn len(&self) -> usize {
        self.parents.len()
    }

    /// Whether no state is recorded.
    pub fn is_empty(&self) -> bool {
        self.parents.is_empty()
    }

    /// Records the next state, reached from `parent` (none for a start state) by `step`;
    /// returns its id.
    pub fn push(&mut self, parent: Option<StateId>, step: Step) -> StateId {
        let id = self.parents.len() as StateId;
        self.parents.push(parent.unwrap_or(NO_PARENT));
        self.steps.push(step);
        id
    }

    /// Makes room for `more` further states.
    pub fn reserve(&mut self, more: usize) {
        self.parents.reserve(more);
        self.steps.reserve(more);
    }

    /// The steps from a start state to state `id`: the first builds the start state, each
    /// further one is a transition.
    pub fn path_to(&self, id: StateId) -> Vec<Step> {
        let mut path = Vec::new();
        let mut at = id;
        loop {
            path.push(self.steps[at as usize].clone());
            let parent = self.parents[at as usize];
            if parent == NO_PARENT {
                break;
            }
            at = parent;
        }
        path.reverse();
        path
    }

    /// The bytes the links hold, not counting heap data the steps point to.
    pub fn approx_bytes(&self) -> u64 {
        let links = self.parents.capacity() * std::mem::size_of::<StateId>();
        let steps = self.steps.capacity() * std::mem::size_of::<Step>();
        (links + steps) as u64
    }
}

/// Every state visited so far: its fingerprint, and the parent and step that first reached it.
pub struct StateGraph<Step> {
    seen: FingerprintSet,
    links: Links<Step>,
}

impl<Step: Clone> Default for StateGraph<Step> {
    fn default() -> Self {
        StateGraph {
            seen: FingerprintSet::default(),
            links: Links::default(),
        }
    }
}

impl<Step: Clone> StateGraph<Step> {
    /// The number of states visited.
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// Whether no state has been visited.
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// Whether a state with this fingerprint has been visited.
    pub fn contains(&self, fingerprint: Fingerprint) -> bool {
        self.seen.contains(&fingerprint)
    }

    /// Records a state reached from `parent` (none for a start state) by `step`; returns its id,
    /// or `None` if a state with this fingerprint was visited before.
    pub fn insert(
        &mut self,
        fingerprint: Fingerprint,
        parent: Option<StateId>,
        step: Step,
    ) -> Option<StateId> {
        if !self.seen.insert(fingerprint) {
            return None;
        }
        Some(self.links.push(parent, step))
    }

    /// The steps from a start state to state `id`: the first builds the start state, each
    /// further one is a transition.
    pub fn path_to(&self, id: StateId) -> Vec<Step> {
        self.links.path_to(id)
    }

    /// The bytes the graph holds (fingerprint table, parent links and steps), not counting
    /// heap data the steps point to.
    pub fn approx_bytes(&self) -> u64 {
        let table = self.seen.capacity() * (std::mem::size_of::<Fingerprint>() + 1);
        table as u64 + self.links.approx_bytes()
    }
}

/// One breadth-first level: the states at one distance from the start states, awaiting
/// expansion, with their ids in the [`StateGraph`].
pub struct Frontier<State> {
    /// The distance from the start states (0 for start states).
    pub depth: u32,
    /// The states with their fingerprints, in discovery order.
    pub states: Vec<(StateId, PackedFingerprint, State)>,
}

/// Limits on a search. Every limit stops the search cleanly between batches.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// Stop once this many distinct states are stored.
    pub max_states: Option<u64>,
    /// Explore states up to this distance from the start states.
    pub max_depth: Option<u32>,
    /// Stop after this much time.
    pub time_limit: Option<Duration>,
    /// The memory budget of the visited set (bytes): when its tables reach it they move to
    /// disk and the search goes on ([`spill`]). The frontier's states are not counted.
    pub memory_limit: Option<u64>,
    /// A ceiling on the whole process's resident memory (bytes): reaching it stops the search
    /// with [`Limit::ProcessMemory`] and what it covered, before the machine runs out (the
    /// command sets it from [`crate::memory::default_ceiling`] when no memory limit is given).
    pub process_memory_ceiling: Option<u64>,
    /// Report a state without successors as a violation (otherwise deadlocks are counted).
    pub deadlock_is_violation: bool,
    /// States expanded per parallel batch; 0 means the default (4096).
    pub batch: usize,
}

/// Which limit stopped a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// `max_states` distinct states were stored.
    States(u64),
    /// States beyond `max_depth` exist.
    Depth(u32),
    /// The time limit passed.
    Time(Duration),
    /// The visited set reached its memory budget (bytes) and could not be spilled to disk
    /// ([`Stats::spill`] says why).
    Memory(u64),
    /// The process's resident memory reached the ceiling (bytes) of
    /// [`Options::process_memory_ceiling`].
    ProcessMemory(u64),
}

/// Counters of a search, reported as it goes and at the end.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Successors computed (start states included), duplicates included.
    pub generated: u64,
    /// Distinct states stored.
    pub distinct: u64,
    /// States checked and expanded.
    pub checked: u64,
    /// The deepest level reached (start states are level 0).
    pub depth: u32,
    /// The deepest level whose states were all checked and expanded.
    pub levels_completed: Option<u32>,
    /// States without successors.
    pub deadlocks: u64,
    /// States in the level being expanded.
    pub frontier: u64,
    /// Time since the search started.
    pub elapsed: Duration,
    /// Worker threads.
    pub threads: usize,
    /// Resident memory when the search started, if known.
    pub resident_at_start: Option<u64>,
    /// The most resident memory seen between batches, if known.
    pub peak_resident: Option<u64>,
    /// Bytes held by the visited-state graph (its in-memory part when it spills).
    pub graph_bytes: u64,
    /// What spilling the visited set to disk did, when there is a memory limit.
    pub spill: Option<SpillStats>,
}

impl Stats {
    /// Distinct states per second.
    pub fn states_per_second(&self) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            self.distinct as f64 / secs
        } else {
            0.0
        }
    }

    /// Memory per distinct state: resident growth if known, else the graph's own bytes.
    pub fn bytes_per_state(&self) -> f64 {
        if self.distinct == 0 {
            return 0.0;
        }
        let bytes = match (self.resident_at_start, self.peak_resident) {
            (Some(a), Some(b)) if b > a => b - a,
            _ => self.graph_bytes,
        };
        bytes as f64 / self.distinct as f64
    }
}

/// How a search ended.
pub enum Verdict<M: Model> {
    /// Every reachable state was checked and none failed.
    Verified,
    /// A state fails a property; `path` leads to it (shortest).
    Violated {
        /// The property.
        property: M::Property,
        /// Steps from a start state to the failing state.
        path: Vec<M::Step>,
    },
    /// A state has no successors and deadlocks were asked to be violations.
    Deadlock {
        /// Steps from a start state to the deadlocked state.
        path: Vec<M::Step>,
    },
    /// A limit stopped the search first.
    LimitReached(Limit),
    /// Building, expanding or checking a state failed.
    Error {
        /// What went wrong.
        error: M::Error,
        /// Steps to the state being expanded or checked (empty for start states).
        path: Vec<M::Step>,
    },
}

/// The outcome of a search.
pub struct Report<M: Model> {
    /// How it ended.
    pub verdict: Verdict<M>,
    /// Its counters.
    pub stats: Stats,
}

/// What expanding one frontier state produced.
pub enum Expansion<M: Model> {
    /// The state violates this property.
    Violated(M::Property),
    /// Checking or expanding the state failed.
    Failed(M::Error),
    /// The state holds; its successors.
    Expanded {
        /// Successors computed (duplicates included); 0 means the state is deadlocked.
        generated: u64,
        /// The successors `keep` kept, with their fingerprints, in the model's order.
        fresh: Vec<(Fingerprint, M::Step, M::State)>,
    },
}

/// Checks a state (stored under `fp`) and computes its successors, keeping those whose
/// fingerprint `keep` accepts. This is the work of one state in every explorer: the loop below
/// keeps successors not yet in its graph, the distributed explorer (crate `distributed`) those
/// not known to be visited by this worker.
pub fn expand_state<M: Model>(
    model: &M,
    (state, fp): (&M::State, Fingerprint),
    keep: &dyn Fn(Fingerprint) -> bool,
) -> Expansion<M> {
    expand_state_reducing(model, (state, fp), keep, None)
}

/// [`expand_state`] with the reduction's successors ([`Model::reduced_successors`]); `seen`
/// answers exactly whether a fingerprint was visited (see there).
pub fn expand_state_reducing<M: Model>(
    model: &M,
    stored: (&M::State, Fingerprint),
    keep: &dyn Fn(Fingerprint) -> bool,
    seen: Option<&(dyn Fn(Fingerprint) -> bool + Sync)>,
) -> Expansion<M> {
    expand_state_from(model, stored, None, keep, seen)
}

/// [`expand_state_reducing`] with the state's successors computed already (`Some`, all of
/// them), or not (`None`).
pub fn expand_state_from<M: Model>(
    model: &M,
    (state, fp): (&M::State, Fingerprint),
    all: Option<Vec<(M::Step, M::State)>>,
    keep: &dyn Fn(Fingerprint) -> bool,
    seen: Option<&(dyn Fn(Fingerprint) -> bool + Sync)>,
) -> Expansion<M> {
    match model.check_stored(state, fp) {
        Ok(None) => {}
        Ok(Some(p)) => return Expansion::Violated(p),
        Err(e) => return Expansion::Failed(e),
    }
    let mut fresh = Vec::new();
    let result = match all {
        Some(all) => {
            let mut successors = Vec::new();
            model
                .reduce(state, all, &mut successors, seen)
                .map(|()| keep_fresh(model, successors, Vec::new(), keep, &mut fresh))
        }
        None => model.kept_successors(state, keep, seen, &mut fresh),
    };
    let generated = match result {
        Ok(generated) => generated,
        Err(e) => return Expansion::Failed(e),
    };
    for (fp, _, next) in &fresh {
        model.storing(state, next, *fp);
    }
    Expansion::Expanded { generated, fresh }
}

/// Appends the successors of `all` whose fingerprint `keep` accepts, with it; returns how many
/// `all` had. `known` holds fingerprints computed already, in the same order (`None`, or
/// nothing at the end, where not), which are not computed again.
pub(crate) fn keep_fresh<M: Model + ?Sized>(
    model: &M,
    all: Vec<(M::Step, M::State)>,
    known: Vec<Option<Fingerprint>>,
    keep: &dyn Fn(Fingerprint) -> bool,
    out: &mut Vec<(Fingerprint, M::Step, M::State)>,
) -> u64 {
    let generated = all.len() as u64;
    let mut known = known.into_iter();
    out.extend(all.into_iter().filter_map(|(step, next)| {
        let fp = known
            .next()
            .flatten()
            .unwrap_or_else(|| model.fingerprint(&next));
        keep(fp).then_some((fp, step, next))
    }));
    generated
}

/// The visited set as the loop uses it: all in memory, or under a memory budget with the
/// overflow on disk. Both number states in discovery order and keep the first parent in
/// frontier order, so both give the same counts, ids and paths.
enum Visited<M: Model> {
    Memory {
        graph: StateGraph<M::Step>,
        /// At the depth limit: whether a successor not yet visited was found.
        cut_off: bool,
        /// The states of the level being built (when the model asks, see
        /// [`Model::reduced_successors`]): visited, but not at the current level or before.
        next_level: Option<FingerprintSet>,
    },
    Spilled(Box<SpillGraph<M::State>>),
}

/// Why the loop must stop while merging successors.
enum Stop {
    /// The state limit.
    States(u64),
    /// Spilling failed (the message).
    Spill(String),
}

impl From<Settle> for Stop {
    fn from(s: Settle) -> Stop {
        match s {
            Settle::States(n) => Stop::States(n),
            Settle::Io(e) => Stop::Spill(e),
        }
    }
}

impl<M: Model> Visited<M> {
    /// A new level begins: the states of the one just built are now of the current level.
    fn start_level(&mut self) {
        if let Visited::Memory {
            next_level: Some(level),
            ..
        } = self
        {
            level.clear();
        }
    }

    fn len(&self) -> u64 {
        match self {
            Visited::Memory { graph, .. } => graph.len() as u64,
            Visited::Spilled(g) => g.len(),
        }
    }

    /// Whether the state is known to be visited (a spilled set may still find it on disk).
    fn contains(&self, fp: Fingerprint) -> bool {
        match self {
            Visited::Memory { graph, .. } => graph.contains(fp),
            Visited::Spilled(g) => g.contains(fp),
        }
    }

    /// Takes a successor of `parent` (`None`: a start state). With `insert`, a new state is
    /// stored and appended to `next` (now, or when the spilled set settles it); without, only
    /// whether it is new is noted (at the depth limit). A new state beyond `max_states` stops
    /// the search.
    fn offer(
        &mut self,
        (fp, step, state): (Fingerprint, M::Step, M::State),
        parent: Option<StateId>,
        insert: bool,
        max_states: u64,
        next: &mut Vec<(StateId, PackedFingerprint, M::State)>,
    ) -> Result<(), Stop> {
        match self {
            Visited::Memory {
                graph,
                cut_off,
                next_level,
            } => {
                if !insert {
                    *cut_off |= !graph.contains(fp);
                    return Ok(());
                }
                if graph.len() as u64 >= max_states && !graph.contains(fp) {
                    return Err(Stop::States(max_states));
                }
                if let Some(id) = graph.insert(fp, parent, step) {
                    if let Some(level) = next_level {
                        level.insert(fp);
                    }
                    next.push((id, fp.into(), state));
                }
                Ok(())
            }
            Visited::Spilled(g) => {
                g.offer(fp, parent, insert.then_some(state));
                // Settle as soon as the pending states might pass the state limit, so that it
                // stops the search at the state where the in-memory set would.
                if insert && g.len() + g.pending() as u64 > max_states {
                    g.settle(true, max_states, next)?;
                }
                Ok(())
            }
        }
    }

    /// Settles pending states (a spilled set); returns whether any offered state was new
    /// (with `insert` false: at the depth limit).
    fn settle(
        &mut self,
        insert: bool,
        max_states: u64,
        next: &mut Vec<(StateId, PackedFingerprint, M::State)>,
    ) -> Result<bool, Stop> {
        match self {
            Visited::Memory { cut_off, .. } => Ok(std::mem::take(cut_off)),
            Visited::Spilled(g) => Ok(g.settle(insert, max_states, next)?),
        }
    }

    /// Spills the set to disk if it reached its budget, settling the pending states first
    /// (as [`Visited::settle`] does, whose answer it returns).
    fn keep_within_budget(
        &mut self,
        insert: bool,
        max_states: u64,
        next: &mut Vec<(StateId, PackedFingerprint, M::State)>,
    ) -> Result<bool, Stop> {
        if let Visited::Spilled(g) = self {
            if g.over_budget() {
                let any = g.settle(insert, max_states, next)?;
                g.spill().map_err(Stop::Spill)?;
                return Ok(any);
            }
        }
        Ok(false)
    }

    fn approx_bytes(&self) -> u64 {
        match self {
            Visited::Memory { graph, .. } => graph.approx_bytes(),
            Visited::Spilled(g) => g.approx_bytes(),
        }
    }

    fn path_to(&mut self, model: &M, id: StateId) -> Result<Vec<M::Step>, PathError<M::Error>> {
        match self {
            Visited::Memory { graph, .. } => Ok(graph.path_to(id)),
            Visited::Spilled(g) => g.path_to(model, id),
        }
    }
}

/// Checks a state and computes its successors not yet visited.
/// An in-memory visited set answers exactly whether a state was visited (every state of an
/// earlier or the current level is in it), which partial-order reduction's cycle proviso needs;
/// a spilled one may miss states on disk, so it does not answer.
fn expand<M: Model>(
    model: &M,
    visited: &Visited<M>,
    stored: (&M::State, Fingerprint),
) -> Expansion<M> {
    match visited {
        Visited::Memory {
            graph, next_level, ..
        } => {
            let seen =
                |fp| graph.contains(fp) && next_level.as_ref().is_none_or(|l| !l.contains(&fp));
            expand_state_reducing(model, stored, &|fp| !graph.contains(fp), Some(&seen))
        }
        Visited::Spilled(_) => expand_state(model, stored, &|fp| !visited.contains(fp)),
    }
}

/// Before a batch: updates the elapsed time and the peak resident memory, and says whether the
/// time limit or the process memory ceiling stops the search.
fn limit_between_batches(options: &Options, stats: &mut Stats, started: Instant) -> Option<Limit> {
    stats.elapsed = started.elapsed();
    let resident = memory::resident_bytes();
    if let (Some(r), Some(p)) = (resident, stats.peak_resident) {
        stats.peak_resident = Some(r.max(p));
    }
    if let Some(t) = options.time_limit.filter(|&t| stats.elapsed >= t) {
        return Some(Limit::Time(t));
    }
    match (options.process_memory_ceiling, resident) {
        (Some(ceiling), Some(r)) if r >= ceiling => Some(Limit::ProcessMemory(ceiling)),
        _ => None,
    }
}

/// Expands states of a batch whose outcomes no longer matter (after a stop in the batch, on
/// one thread: `inline`), for what the model counts as it expands.
fn expand_rest<M: Model>(
    model: &M,
    visited: &Visited<M>,
    inline: bool,
    rest: &[(StateId, PackedFingerprint, M::State)],
) {
    if inline {
        for (_, fp, state) in rest {
            drop(expand(model, visited, (state, (*fp).into())));
        }
    }
}

/// The worker threads.
enum Workers {
    Pool(rayon::ThreadPool),
    Inline,
}

impl Workers {
    fn new(threads: usize) -> Workers {
        let threads = if threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            threads
        };
        if threads <= 1 {
            return Workers::Inline;
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_or(Workers::Inline, Workers::Pool)
    }

    fn threads(&self) -> usize {
        match self {
            Workers::Pool(p) => p.current_num_threads(),
            Workers::Inline => 1,
        }
    }

    /// Drops `items` on the worker threads (freeing a level's states, which the workers
    /// allocated, is otherwise a serial pass on the calling thread).
    fn drop_all<T: Send>(&self, items: Vec<T>) {
        match self {
            Workers::Pool(pool) => {
                pool.install(|| items.into_par_iter().with_min_len(1024).for_each(drop))
            }
            Workers::Inline => drop(items),
        }
    }

    fn expand_all<M: Model>(
        &self,
        model: &M,
        visited: &Visited<M>,
        batch: &[(StateId, PackedFingerprint, M::State)],
    ) -> Vec<Expansion<M>> {
        match self {
            Workers::Pool(pool) => pool.install(|| {
                batch
                    .par_iter()
                    .with_max_len(16)
                    .map(|(_, fp, s)| expand(model, visited, (s, (*fp).into())))
                    .collect()
            }),
            Workers::Inline => batch
                .iter()
                .map(|(_, fp, s)| expand(model, visited, (s, (*fp).into())))
                .collect(),
        }
    }
}

/// Explores every state reachable in `model`, breadth first, within `options`' limits.
/// `progress` is called between batches (on the calling thread) with the counters so far.
/// With a memory limit, the visited set spills to the system's temporary directory.
pub fn explore<M: Model>(
    model: &M,
    options: &Options,
    progress: &mut dyn FnMut(&Stats),
) -> Report<M> {
    explore_spilling_to(model, options, None, progress)
}

/// [`explore`], spilling the visited set (when `options.memory_limit` is set) to a fresh
/// directory inside `spill_dir` (default: the system's temporary directory), removed at the end.
pub fn explore_spilling_to<M: Model>(
    model: &M,
    options: &Options,
    spill_dir: Option<&Path>,
    progress: &mut dyn FnMut(&Stats),
) -> Report<M> {
    let started = Instant::now();
    let workers = Workers::new(options.threads);
    let batch_size = if options.batch == 0 {
        4096
    } else {
        options.batch
    };
    let mut stats = Stats {
        threads: workers.threads(),
        resident_at_start: memory::resident_bytes(),
        ..Stats::default()
    };
    stats.peak_resident = stats.resident_at_start;
    if let Workers::Pool(pool) = &workers {
        if options.memory_limit.is_none() && options.max_states.is_none() {
            return parallel::explore(model, options, pool, batch_size, stats, started, progress);
        }
    }
    let mut visited: Visited<M> = match options.memory_limit {
        None => Visited::Memory {
            graph: StateGraph::default(),
            cut_off: false,
            next_level: model.asks_seen().then(FingerprintSet::default),
        },
        Some(limit) => match SpillGraph::new(spill_dir, limit) {
            Ok(g) => Visited::Spilled(Box::new(g)),
            Err(error) => {
                stats.elapsed = started.elapsed();
                stats.spill = Some(SpillStats {
                    limit,
                    error: Some(error),
                    ..SpillStats::default()
                });
                return Report {
                    verdict: Verdict::LimitReached(Limit::Memory(limit)),
                    stats,
                };
            }
        },
    };
    // Ends the search: states still pending are settled first, so that the counts are the
    // in-memory set's at the same point.
    let finish = |mut verdict: Verdict<M>, mut stats: Stats, visited: &mut Visited<M>| {
        let mut error = None;
        if let Visited::Spilled(g) = visited {
            if let Err(Settle::Io(e)) = g.settle(true, u64::MAX, &mut Vec::new()) {
                error = Some(e);
            }
        }
        stats.elapsed = started.elapsed();
        stats.distinct = visited.len();
        stats.graph_bytes = visited.approx_bytes();
        if let Visited::Spilled(g) = visited {
            let mut spill = g.stats();
            spill.error = error.or_else(|| stats.spill.take().and_then(|s| s.error));
            if spill.error.is_some() {
                verdict = Verdict::LimitReached(Limit::Memory(spill.limit));
            }
            stats.spill = Some(spill);
        }
        Report { verdict, stats }
    };
    // A stop while merging, as a verdict.
    let stopped = |stop: Stop, stats: &mut Stats| match stop {
        Stop::States(n) => Verdict::LimitReached(Limit::States(n)),
        Stop::Spill(error) => {
            stats.spill = Some(SpillStats {
                error: Some(error),
                ..SpillStats::default()
            });
            Verdict::LimitReached(Limit::Memory(options.memory_limit.unwrap_or(0)))
        }
    };
    // The path to a reported state, or the verdict that replaces the report if it cannot be
    // rebuilt (only possible for a spilled set).
    let path_or = |visited: &mut Visited<M>, id: StateId, stats: &mut Stats| {
        visited.path_to(model, id).map_err(|e| match e {
            PathError::Model(error) => Verdict::Error {
                error,
                path: Vec::new(),
            },
            PathError::Spill(error) => stopped(Stop::Spill(error), stats),
        })
    };

    let mut start = Vec::new();
    if let Err(error) = model.initial_states(&mut start) {
        let verdict = Verdict::Error {
            error,
            path: Vec::new(),
        };
        return finish(verdict, stats, &mut visited);
    }
    let mut frontier = Frontier {
        depth: 0,
        states: Vec::new(),
    };
    let mut offered = Ok(());
    for (step, state) in start {
        stats.generated += 1;
        let fp = model.fingerprint(&state);
        let next = &mut frontier.states;
        offered =
            offered.and_then(|()| visited.offer((fp, step, state), None, true, u64::MAX, next));
    }
    let settled = offered.and_then(|()| visited.settle(true, u64::MAX, &mut frontier.states));
    if let Err(stop) = settled {
        let verdict = stopped(stop, &mut stats);
        return finish(verdict, stats, &mut visited);
    }
    visited.start_level();
    let max_states = options
        .max_states
        .unwrap_or(u64::MAX)
        .min(StateId::MAX as u64 - 1);

    while !frontier.states.is_empty() {
        let depth = frontier.depth;
        stats.depth = depth;
        stats.frontier = frontier.states.len() as u64;
        // At the depth limit, successors are only looked at to learn whether the limit cut
        // anything off.
        let at_depth_limit = options.max_depth.is_some_and(|d| depth >= d);
        let mut cut_off = false;
        let mut next = Frontier {
            depth: depth + 1,
            states: Vec::new(),
        };
        for batch in frontier.states.chunks(batch_size) {
            if let Some(limit) = limit_between_batches(options, &mut stats, started) {
                return finish(Verdict::LimitReached(limit), stats, &mut visited);
            }
            // With worker threads the batch is expanded first, then merged; on one thread each
            // state is merged as soon as it is expanded, so the next state's successors are
            // filtered against it too (same merge order, fewer repeats carried).
            let mut pooled = match &workers {
                Workers::Pool(_) => Some(workers.expand_all(model, &visited, batch).into_iter()),
                Workers::Inline => None,
            };
            let mut stop = None;
            for (at, (id, fp, state)) in batch.iter().enumerate() {
                let expansion = match &mut pooled {
                    Some(expanded) => expanded.next().expect("one expansion per state"),
                    None => expand(model, &visited, (state, (*fp).into())),
                };
                stats.checked += 1;
                let (generated, fresh) = match expansion {
                    Expansion::Violated(property) => {
                        stop = Some((at, Ok((*id, Some(property)))));
                        break;
                    }
                    Expansion::Failed(error) => {
                        stop = Some((at, Err((*id, error))));
                        break;
                    }
                    Expansion::Expanded { generated, fresh } => (generated, fresh),
                };
                stats.generated += generated;
                if generated == 0 {
                    stats.deadlocks += 1;
                    if options.deadlock_is_violation {
                        stop = Some((at, Ok((*id, None))));
                        break;
                    }
                }
                for candidate in fresh {
                    let offered = visited.offer(
                        candidate,
                        Some(*id),
                        !at_depth_limit,
                        max_states,
                        &mut next.states,
                    );
                    if let Err(stop) = offered {
                        expand_rest(model, &visited, pooled.is_none(), &batch[at + 1..]);
                        let verdict = stopped(stop, &mut stats);
                        return finish(verdict, stats, &mut visited);
                    }
                }
            }
            if let Some((at, found)) = stop {
                // The rest of the batch is expanded as with worker threads, so that what the
                // model counts (reductions) is the same for any number of threads.
                expand_rest(model, &visited, pooled.is_none(), &batch[at + 1..]);
                let (id, verdict) = match found {
                    Ok((id, Some(property))) => (id, Ok(property)),
                    Ok((id, None)) => (id, Err(None)),
                    Err((id, error)) => (id, Err(Some(error))),
                };
                let verdict = match (path_or(&mut visited, id, &mut stats), verdict) {
                    (Err(v), _) => v,
                    (Ok(path), Ok(property)) => Verdict::Violated { property, path },
                    (Ok(path), Err(None)) => Verdict::Deadlock { path },
                    (Ok(path), Err(Some(error))) => Verdict::Error { error, path },
                };
                return finish(verdict, stats, &mut visited);
            }
            match visited.keep_within_budget(!at_depth_limit, max_states, &mut next.states) {
                Ok(any) => cut_off |= any,
                Err(stop) => {
                    let verdict = stopped(stop, &mut stats);
                    return finish(verdict, stats, &mut visited);
                }
            }
            stats.distinct = visited.len();
            stats.elapsed = started.elapsed();
            stats.graph_bytes = visited.approx_bytes();
            progress(&stats);
        }
        match visited.settle(!at_depth_limit, max_states, &mut next.states) {
            Ok(any) => cut_off |= any,
            Err(stop) => {
                let verdict = stopped(stop, &mut stats);
                return finish(verdict, stats, &mut visited);
            }
        }
        stats.levels_completed = Some(depth);
        visited.start_level();
        if at_depth_limit {
            let verdict = if cut_off {
                Verdict::LimitReached(Limit::Depth(depth))
            } else {
                Verdict::Verified
            };
            return finish(verdict, stats, &mut visited);
        }
        workers.drop_all(std::mem::replace(&mut frontier, next).states);
    }
    stats.frontier = 0;
    finish(Verdict::Verified, stats, &mut visited)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counting modulo `n` with steps +1 and +2, and a property "never reaches `bad`".
    struct Counter {
        n: u64,
        bad: Option<u64>,
    }

    impl Model for Counter {
        type State = u64;
        type Step = u64;
        type Property = &'static str;
        type Error = ();

        fn initial_states(&self, out: &mut Vec<(u64, u64)>) -> Result<(), ()> {
            out.push((0, 0));
            Ok(())
        }
        fn successors(&self, s: &u64, out: &mut Vec<(u64, u64)>) -> Result<(), ()> {
            out.push((1, (s + 1) % self.n));
            out.push((2, (s + 2) % self.n));
            if self.n > 100 {
                // Jumps back to earlier levels, so that a spilled search meets old states.
                out.push((3, (s * 7) % self.n));
                out.push((4, s / 3));
            }
            Ok(())
        }
        fn check(&self, s: &u64) -> Result<Option<&'static str>, ()> {
            Ok((Some(*s) == self.bad).then_some("bad"))
        }
        fn fingerprint(&self, s: &u64) -> Fingerprint {
            crate::fingerprint::fingerprint(&[interpreter::value::Value::Int(*s as i64)])
        }
    }

    #[test]
    fn finds_every_state_and_the_shortest_path() {
        let options = Options {
            threads: 2,
            batch: 3,
            ..Options::default()
        };
        let report = explore(&Counter { n: 50, bad: None }, &options, &mut |_| {});
        assert!(matches!(report.verdict, Verdict::Verified));
        assert_eq!(report.stats.distinct, 50);
        assert_eq!(report.stats.generated, 101);
        assert_eq!(report.stats.levels_completed, Some(25));

        let report = explore(
            &Counter {
                n: 50,
                bad: Some(7),
            },
            &options,
            &mut |_| {},
        );
        match report.verdict {
            Verdict::Violated { path, .. } => assert_eq!(path, vec![0, 1, 2, 2, 2]),
            _ => panic!("7 is reachable"),
        }
    }

    #[test]
    fn limits_stop_the_search() {
        let model = Counter { n: 50, bad: None };
        let options = Options {
            max_depth: Some(3),
            ..Options::default()
        };
        let report = explore(&model, &options, &mut |_| {});
        assert!(matches!(
            report.verdict,
            Verdict::LimitReached(Limit::Depth(3))
        ));
        assert_eq!(report.stats.distinct, 7);
        let options = Options {
            max_states: Some(10),
            batch: 1,
            ..Options::default()
        };
        let report = explore(&model, &options, &mut |_| {});
        assert!(matches!(
            report.verdict,
            Verdict::LimitReached(Limit::States(10))
        ));
        assert_eq!(report.stats.distinct, 10);
    }

    /// What a report says, for comparing two searches.
    fn outcome(report: &Report<Counter>) -> String {
        let verdict = match &report.verdict {
            Verdict::Verified => "verified".to_string(),
            Verdict::Violated { path, .. } => format!("violated {path:?}"),
            Verdict::Deadlock { path } => format!("deadlock {path:?}"),
            Verdict::LimitReached(l) => format!("limit {l:?}"),
            Verdict::Error { path, .. } => format!("error {path:?}"),
        };
        let s = &report.stats;
        format!(
            "{verdict}; distinct {} generated {} checked {} depth {} levels {:?} deadlocks {}",
            s.distinct, s.generated, s.checked, s.depth, s.levels_completed, s.deadlocks
        )
    }

    #[test]
    fn a_spilled_search_reports_what_the_in_memory_one_does() {
        let bad = Some(19_999);
        // The depth at which the violation is found: a depth limit there cuts the search in
        // the level where the violation is.
        let found_at = explore(
            &Counter { n: 20_000, bad },
            &Options::default(),
            &mut |_| {},
        )
        .stats
        .depth;
        let cases = [
            (None, None, None),
            (bad, None, None),
            (None, Some(5_000), None),
            (None, Some(1), None),
            (None, None, Some(4)),
            (bad, Some(12_345), None),
            (bad, None, Some(found_at)),
        ]
        .map(|(bad, max_states, max_depth)| (Counter { n: 20_000, bad }, max_states, max_depth));
        for (model, max_states, max_depth) in &cases {
            for (threads, batch) in [(1, 0), (2, 7)] {
                let options = Options {
                    threads,
                    batch,
                    max_states: *max_states,
                    max_depth: *max_depth,
                    ..Options::default()
                };
                let memory = explore(model, &options, &mut |_| {});
                assert!(memory.stats.spill.is_none());
                for limit in [1u64, 3_000, 40_000, 1 << 30] {
                    let spilled = explore(
                        model,
                        &Options {
                            memory_limit: Some(limit),
                            ..options.clone()
                        },
                        &mut |_| {},
                    );
                    assert_eq!(outcome(&spilled), outcome(&memory), "limit {limit}");
                    let spill = spilled.stats.spill.as_ref().expect("spill statistics");
                    assert!(spill.error.is_none(), "{:?}", spill.error);
                    if limit == 1 && memory.stats.distinct > 100 {
                        assert!(spill.spills >= 3 && spill.runs >= 1, "{spill:?}");
                        assert!(spill.states_on_disk > 0 && spill.merges > 0, "{spill:?}");
                    }
                    if limit == 1 << 30 {
                        assert_eq!(spill.spills, 0);
                    }
                }
            }
        }
    }

    #[test]
    fn a_spill_directory_that_cannot_be_made_stops_the_search_with_the_reason() {
        let options = Options {
            memory_limit: Some(1),
            ..Options::default()
        };
        // A directory inside a file cannot be made.
        let file = tempfile::NamedTempFile::new().expect("a temporary file");
        let missing = file.path().join("spill");
        let missing = missing.as_path();
        let report = explore_spilling_to(
            &Counter { n: 50, bad: None },
            &options,
            Some(missing),
            &mut |_| {},
        );
        assert!(matches!(
            report.verdict,
            Verdict::LimitReached(Limit::Memory(1))
        ));
        let error = report.stats.spill.and_then(|s| s.error).expect("a reason");
        assert!(error.contains("cannot create"), "{error}");
    }
}
