//! One timely worker's part of the breadth-first search.
//!
//! Every worker runs the same sequence of *rounds*. A round sends this worker's messages (each
//! to one worker, by timely's exchange on the destination), closes the round's timestamp and
//! steps the worker until the probe's frontier passes it: then every message of the round has
//! arrived everywhere. A BFS level is one round: each worker checks and expands the states it
//! owns ([`checker::explore::expand_state`], the single-process explorer's per-state work),
//! sends every successor to its owner (`fingerprint mod W`), and sends its [`Summary`] to all.
//! After the round every worker knows the same summaries and takes the same decision (stop on
//! the smallest-key event, stop at a global limit, or go on); owners then keep, per new
//! fingerprint, the candidate with the smallest key, which is the parent and state the
//! single-process explorer would have kept. A counterexample is rebuilt in further rounds:
//! the owner of the current state tells everyone its parent and step.

use crate::checkpoint::{self, Checkpointing, Saved};
use crate::links::Links;
use crate::wire::{
    fp_of, fp_words, Envelope, Event, Fp, Key, Message, SpillSummary, Summary, Wire,
};
use checker::explore::{expand_state_from, Expansion, Limit, Options};
use checker::fingerprint::{Fingerprint, PassThrough};
use checker::memory;
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::rc::Rc;
use std::time::{Duration, Instant};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::operators::{Exchange, Input, Inspect, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

type FpMap<V> = HashMap<Fingerprint, V, BuildHasherDefault<PassThrough>>;

/// How a distributed search ended (the same on every worker).
#[derive(Debug, Clone)]
pub enum Outcome<Step, Property> {
    /// Every reachable state was checked and none failed.
    Verified,
    /// A state fails a property; `path` (shortest, as one process finds it) leads to it.
    Violated {
        /// The property.
        property: Property,
        /// Steps from a start state.
        path: Vec<Step>,
    },
    /// A state has no successors and deadlocks were asked to be violations.
    Deadlock {
        /// Steps from a start state.
        path: Vec<Step>,
    },
    /// A limit stopped the search at a level boundary.
    LimitReached(Limit),
    /// Writing or reading a checkpoint failed (every worker stops).
    Stopped(String),
    /// Checking or expanding a state failed.
    Failed {
        /// The model's message.
        message: String,
        /// Steps to the state.
        path: Vec<Step>,
    },
}

/// One worker's counters at the end.
#[derive(Debug, Clone, Default)]
pub struct WorkerStats {
    /// The worker's index (process × workers per process + thread).
    pub worker: u64,
    /// Distinct states it owns.
    pub distinct: u64,
    /// States it checked and expanded.
    pub checked: u64,
    /// Successors it generated.
    pub generated: u64,
    /// Deadlocked states among its states.
    pub deadlocks: u64,
    /// Candidates it sent to other workers.
    pub sent: u64,
    /// Resident memory of its process at the end (bytes; 0 if unknown).
    pub resident: u64,
    /// What spilling its visited set did, with a memory limit.
    pub spill: Option<SpillSummary>,
    /// Its process's partial-order reduction counts ([`Wire::reduction_counts`]) when it
    /// sent its last summary.
    pub reduction: Option<[u64; 6]>,
}

/// What a distributed search reports (every worker has the same).
#[derive(Debug, Clone)]
pub struct SearchReport<Step, Property> {
    /// How it ended.
    pub outcome: Outcome<Step, Property>,
    /// Per worker, in worker order.
    pub workers: Vec<WorkerStats>,
    /// The deepest level expanded.
    pub depth: u32,
    /// The deepest level whose states were all checked and expanded.
    pub levels_completed: Option<u32>,
    /// Candidates sent between workers, per level.
    pub sent_per_level: Vec<u64>,
    /// Wall time of the search on this worker (since it started or resumed).
    pub elapsed: Duration,
    /// The level the search resumed at, if it did.
    pub resumed_at: Option<u32>,
    /// The levels checkpointed, in order.
    pub checkpoints: Vec<u32>,
}

/// Where the search stands after a level's round (the same on every worker).
#[derive(Debug, Clone)]
pub struct LevelProgress {
    /// The level just expanded.
    pub depth: u32,
    /// Distinct states stored by all workers before this level's new states.
    pub states: u64,
    /// States expanded in this level, by all workers.
    pub frontier: u64,
    /// Candidates sent between workers in this level.
    pub sent: u64,
    /// Time since the search started (or resumed) on this worker.
    pub elapsed: Duration,
}

/// The channel of rounds.
struct Rounds {
    input: InputHandle<u64, CapacityContainerBuilder<Vec<Envelope>>>,
    probe: ProbeHandle<u64>,
    inbox: Rc<RefCell<Vec<Envelope>>>,
    round: u64,
}

impl Rounds {
    fn new(worker: &mut Worker) -> Rounds {
        let mut input = InputHandle::new();
        let probe = ProbeHandle::new();
        let inbox: Rc<RefCell<Vec<Envelope>>> = Rc::default();
        let sink = Rc::clone(&inbox);
        worker.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut input)
                .container::<Vec<Envelope>>()
                .exchange(|e: &Envelope| e.0)
                .inspect(move |e: &Envelope| sink.borrow_mut().push(e.clone()))
                .probe_with(&probe);
        });
        Rounds {
            input,
            probe,
            inbox,
            round: 0,
        }
    }

    /// Sends `out` (destination, message), ends the round, and returns what this worker
    /// received in it.
    fn exchange(&mut self, worker: &mut Worker, out: Vec<(u64, Message)>) -> Vec<Message> {
        let round = self.round;
        for (to, m) in out {
            self.input.send((to, round, m));
        }
        self.round += 1;
        self.input.advance_to(self.round);
        while self.probe.less_than(self.input.time()) {
            worker.step_or_park(Some(Duration::from_millis(20)));
        }
        let mut inbox = self.inbox.borrow_mut();
        let (now, later): (Vec<Envelope>, Vec<Envelope>) =
            inbox.drain(..).partition(|e| e.1 == round);
        *inbox = later;
        now.into_iter().map(|e| e.2).collect()
    }
}

/// A state this worker owns and will expand.
struct Owned<S> {
    key: Key,
    fp: Fingerprint,
    state: S,
}

/// Runs this worker's part of the search.
pub fn run<M: Wire>(
    worker: &mut Worker,
    model: &M,
    options: &Options,
    cp: &Checkpointing,
    progress: Option<&(dyn Fn(&LevelProgress) + Send + Sync)>,
) -> SearchReport<M::Step, M::Property> {
    let started = Instant::now();
    let me = worker.index() as u64;
    let peers = worker.peers() as u64;
    let owner = |fp: Fingerprint| (fp % peers as u128) as u64;
    let mut rounds = Rounds::new(worker);
    // Parent and step of every state this worker owns (none for start states).
    let mut mine = Summary::default();
    // A worker that cannot spill says so in its first summary, and every worker stops then.
    let mut links = Links::new(options.memory_limit, cp.spill_dir.as_deref()).unwrap_or_else(|e| {
        mine.spill_error = Some(e);
        Links::new(None, None).expect("no spill directory to make")
    });
    let mut frontier: Vec<Owned<M::State>> = Vec::new();
    let mut sent_per_level = Vec::new();

    // Start states: every worker computes them and keeps those it owns.
    let mut starts = Vec::new();
    let start_error = model.initial_states(&mut starts).err();
    for (k, (step, state)) in starts.into_iter().enumerate() {
        if me == 0 {
            mine.generated += 1;
        }
        let fp = model.fingerprint(&state);
        if owner(fp) == me && !links.in_memory(fp) {
            links.insert(fp, (None, model.step_words(&step)));
            frontier.push(Owned {
                key: vec![k as u32],
                fp,
                state,
            });
        }
    }
    let mut resumed_at = None;
    let mut checkpoints = Vec::new();
    let finish =
        |outcome, workers, depth, levels_completed, sent_per_level, resumed_at, checkpoints| {
            SearchReport {
                outcome,
                workers,
                depth,
                levels_completed,
                sent_per_level,
                elapsed: started.elapsed(),
                resumed_at,
                checkpoints,
            }
        };
    // A start state that fails to compute, or a checkpoint that cannot be resumed, stops the
    // search before its first level.
    let mut early_stop = start_error.map(|e| Outcome::Failed {
        message: model.error_text(&e),
        path: Vec::new(),
    });
    let mut depth: u32 = 0;
    let mut levels_completed = None;
    // The checkpoint written last, kept until every worker has written the next one.
    let mut previous: Option<u32> = None;
    if let (None, Some(dir)) = (&early_stop, &cp.resume) {
        match resume(worker, &mut rounds, model, dir, cp, me, peers) {
            Ok(saved) => {
                for (fp, parent, step) in saved.links {
                    links.insert(fp_of(fp), (parent.map(fp_of), step));
                }
                frontier = saved
                    .frontier
                    .into_iter()
                    .map(|(key, fp, state)| Owned {
                        key,
                        fp: fp_of(fp),
                        state: model.state_from(state),
                    })
                    .collect();
                mine = saved.summary;
                depth = saved.depth;
                levels_completed = saved.levels_completed;
                sent_per_level = saved.sent_per_level;
                resumed_at = Some(depth);
                if cp.dir.as_deref() == Some(dir.as_path()) {
                    previous = Some(depth);
                }
            }
            Err(message) => early_stop = Some(Outcome::Stopped(message)),
        }
    }
    if let Some(outcome) = early_stop {
        return finish(
            outcome,
            Vec::new(),
            0,
            None,
            sent_per_level,
            None,
            checkpoints,
        );
    }
    let mut checkpoint_now = false;
    let mut last_checkpoint = Instant::now();
    loop {
        mine.checkpoint_error = None;
        let mut written = None;
        let all_links = match (&cp.dir, checkpoint_now) {
            (Some(_), true) => links.all(),
            _ => Ok(Vec::new()),
        };
        if let (Some(dir), true, Err(e)) = (&cp.dir, checkpoint_now, &all_links) {
            mine.checkpoint_error = Some(format!("{e} (for a checkpoint in `{}`)", dir.display()));
        }
        if let (Some(dir), true, Ok(all_links)) = (&cp.dir, checkpoint_now, all_links) {
            let saved = Saved {
                identity: cp.identity.clone(),
                peers,
                depth,
                levels_completed,
                summary: mine.clone(),
                sent_per_level: sent_per_level.clone(),
                links: all_links
                    .into_iter()
                    .map(|(fp, (parent, step))| (fp_words(fp), parent.map(fp_words), step))
                    .collect(),
                frontier: frontier
                    .iter()
                    .map(|o| (o.key.clone(), fp_words(o.fp), model.state_words(&o.state)))
                    .collect(),
            };
            match checkpoint::write(dir, me, &saved) {
                Ok(()) => {
                    written = Some(depth);
                    checkpoints.push(depth);
                }
                Err(e) => {
                    let kept = match checkpoints.last() {
                        Some(d) => format!(
                            "; the checkpoint of level {d} in `{}` is intact: fix the cause and continue with --resume {}",
                            dir.display(),
                            dir.display()
                        ),
                        None => "; no earlier checkpoint was written".to_string(),
                    };
                    mine.checkpoint_error = Some(format!("{e}{kept}"));
                }
            }
            last_checkpoint = Instant::now();
        }
        let at_depth_limit = options.max_depth.is_some_and(|d| depth >= d);
        // Expand the level (frontier in key order, as one process would).
        frontier.sort_by(|a, b| a.key.cmp(&b.key));
        mine.frontier = frontier.len() as u64;
        mine.stop = None;
        let mut outgoing: FpMap<(u64, Message)> = FpMap::default();
        // Partial-order reduction's cycle proviso asks whether a successor was visited at this
        // level or before (`Model::reduced_successors`). Only its owner knows, so the owners
        // are asked first, in two rounds of their own ([`unvisited_elsewhere`]). This level's
        // states are in `links` and the next level's arrive after the level's round, so the
        // answer is the one process's, whatever the number of workers; a state that may be on
        // disk counts as visited (which only expands more states fully).
        let (elsewhere, mut computed) = if model.asks_seen() && peers > 1 {
            unvisited_elsewhere(worker, &mut rounds, model, &frontier, &links, me, peers)
        } else {
            (FpMap::default(), Vec::new())
        };
        computed.resize_with(frontier.len(), || None);
        let seen = |fp: Fingerprint| match owner(fp) == me {
            true => !links.surely_unvisited(fp),
            false => !elsewhere.contains_key(&fp),
        };
        let seen: Option<&(dyn Fn(Fingerprint) -> bool + Sync)> =
            model.asks_seen().then_some(&seen);
        for (owned, all) in frontier.drain(..).zip(computed) {
            mine.checked += 1;
            let keep = |fp: Fingerprint| owner(fp) != me || !links.in_memory(fp);
            let (generated, fresh) =
                match expand_state_from(model, (&owned.state, owned.fp), all, &keep, seen) {
                    Expansion::Violated(p) => {
                        if mine.stop.is_none() {
                            let event = Event::Violated(model.property_word(&p));
                            mine.stop = Some((owned.key, fp_words(owned.fp), event));
                        }
                        continue;
                    }
                    Expansion::Failed(e) => {
                        if mine.stop.is_none() {
                            let event = Event::Failed(model.error_text(&e));
                            mine.stop = Some((owned.key, fp_words(owned.fp), event));
                        }
                        continue;
                    }
                    Expansion::Expanded { generated, fresh } => (generated, fresh),
                };
            mine.generated += generated;
            if generated == 0 {
                mine.deadlocks += 1;
                if options.deadlock_is_violation && mine.stop.is_none() {
                    mine.stop = Some((owned.key.clone(), fp_words(owned.fp), Event::Deadlock));
                }
            }
            if mine.stop.is_some() {
                // A stop in this level is decided by key; successors no longer matter.
                continue;
            }
            for (j, (fp, step, state)) in fresh.into_iter().enumerate() {
                let mut key = owned.key.clone();
                key.push(j as u32);
                // Of several candidates for one state from this worker, the smallest key goes.
                let better = match outgoing.get(&fp) {
                    Some((_, Message::Candidate { key: k, .. })) => key < *k,
                    _ => true,
                };
                if better {
                    let message = Message::Candidate {
                        fp: fp_words(fp),
                        parent: fp_words(owned.fp),
                        key,
                        step: model.step_words(&step),
                        state: model.state_words(&state),
                    };
                    outgoing.insert(fp, (owner(fp), message));
                }
            }
        }
        let out_now = outgoing.values().filter(|(to, _)| *to != me).count() as u64;
        mine.sent += out_now;
        mine.sent_now = out_now;
        mine.out_of_time = options.time_limit.is_some_and(|t| started.elapsed() >= t);
        mine.resident = memory::resident_bytes().unwrap_or(0);
        mine.distinct = links.len();
        mine.spill = links.stats().map(|s| SpillSummary {
            limit: s.limit,
            spills: s.spills,
            states_on_disk: s.states_on_disk,
            runs: s.runs as u64,
            merges: s.merges,
            bytes_on_disk: s.bytes_on_disk,
            bytes_written: s.bytes_written,
            bytes_read: s.bytes_read,
            disk_seconds: s.disk_time.as_secs_f64(),
        });
        mine.wants_checkpoint = cp.dir.is_some() && last_checkpoint.elapsed() >= cp.every;
        mine.reduction = model.reduction_counts().map(Vec::from);
        let mut out: Vec<(u64, Message)> = outgoing.into_values().collect();
        for to in 0..peers {
            out.push((
                to,
                Message::Summary {
                    from: me,
                    summary: mine.clone(),
                },
            ));
        }
        let received = rounds.exchange(worker, out);
        mine.cut_off = false;
        // Every worker has written this level's checkpoint: the previous one can go.
        if let (Some(dir), Some(d)) = (&cp.dir, written) {
            if let Some(p) = previous.replace(d) {
                if p != d {
                    checkpoint::remove(dir, p, me);
                }
            }
        }

        // Every worker now holds every summary: the same decision everywhere.
        let mut summaries = vec![Summary::default(); peers as usize];
        let mut candidates = Vec::new();
        for m in received {
            match m {
                Message::Summary { from, summary } => summaries[from as usize] = summary,
                c @ Message::Candidate { .. } => candidates.push(c),
                _ => {}
            }
        }
        checkpoint_now = summaries.iter().any(|s| s.wants_checkpoint);
        let spill_error = summaries.iter().enumerate().find_map(|(k, s)| {
            s.spill_error
                .as_ref()
                .map(|e| format!("worker {k}: the visited set could not spill to disk: {e}"))
        });
        if let Some(e) = summaries
            .iter()
            .find_map(|s| s.checkpoint_error.clone())
            .or(spill_error)
        {
            let outcome = Outcome::Stopped(e);
            return finish(
                outcome,
                Vec::new(),
                depth,
                levels_completed,
                sent_per_level,
                resumed_at,
                checkpoints,
            );
        }
        sent_per_level.push(summaries.iter().map(|s| s.sent_now).sum::<u64>());
        let workers: Vec<WorkerStats> = summaries
            .iter()
            .enumerate()
            .map(|(k, s)| WorkerStats {
                worker: k as u64,
                distinct: s.distinct,
                checked: s.checked,
                generated: s.generated,
                deadlocks: s.deadlocks,
                sent: s.sent,
                resident: s.resident,
                spill: s.spill.clone(),
                reduction: s
                    .reduction
                    .as_deref()
                    .and_then(|c| <[u64; 6]>::try_from(c).ok()),
            })
            .collect();
        let total_frontier: u64 = summaries.iter().map(|s| s.frontier).sum();
        let distinct: u64 = summaries.iter().map(|s| s.distinct).sum();
        if let Some((_, fp, event)) = summaries
            .iter()
            .filter_map(|s| s.stop.clone())
            .min_by(|a, b| a.0.cmp(&b.0))
        {
            let path = rebuild(worker, &mut rounds, model, &mut links, me, peers, fp);
            let outcome = match event {
                Event::Violated(p) => Outcome::Violated {
                    property: model.property_from(p),
                    path,
                },
                Event::Deadlock => Outcome::Deadlock { path },
                Event::Failed(message) => Outcome::Failed { message, path },
            };
            return finish(
                outcome,
                workers,
                depth,
                levels_completed,
                sent_per_level,
                resumed_at,
                checkpoints,
            );
        }
        if total_frontier > 0 {
            levels_completed = Some(depth);
        } else {
            // The previous round expanded nothing: either every state was expanded, or the
            // depth limit held the next level back.
            let outcome = if summaries.iter().any(|s| s.cut_off) {
                Outcome::LimitReached(Limit::Depth(depth.saturating_sub(1)))
            } else {
                Outcome::Verified
            };
            let depth = depth.saturating_sub(1);
            return finish(
                outcome,
                workers,
                depth,
                levels_completed,
                sent_per_level,
                resumed_at,
                checkpoints,
            );
        }
        let limit = if summaries.iter().any(|s| s.out_of_time) {
            options.time_limit.map(Limit::Time)
        } else {
            options
                .max_states
                .filter(|&n| distinct >= n)
                .map(Limit::States)
        };
        if let Some(limit) = limit {
            return finish(
                Outcome::LimitReached(limit),
                workers,
                depth,
                levels_completed,
                sent_per_level,
                resumed_at,
                checkpoints,
            );
        }
        if let Some(progress) = progress {
            progress(&LevelProgress {
                depth,
                states: distinct,
                frontier: total_frontier,
                sent: sent_per_level.last().copied().unwrap_or(0),
                elapsed: started.elapsed(),
            });
        }
        // Keep, per new state, the candidate with the smallest key.
        let mut best: FpMap<(Key, Fp, Vec<u32>, Vec<i64>)> = FpMap::default();
        for c in candidates {
            let Message::Candidate {
                fp,
                parent,
                key,
                step,
                state,
            } = c
            else {
                continue;
            };
            let fp = fp_of(fp);
            if links.in_memory(fp) {
                continue;
            }
            match best.get(&fp) {
                Some((k, ..)) if *k <= key => {}
                _ => {
                    best.insert(fp, (key, parent, step, state));
                }
            }
        }
        // Of the candidates not in memory, those on disk were visited at earlier levels.
        if let Err(e) = links.drop_spilled(&mut best) {
            mine.spill_error = Some(e);
        }
        if at_depth_limit {
            mine.cut_off = !best.is_empty();
        } else {
            for (fp, (key, parent, step, state)) in best {
                links.insert(fp, (Some(fp_of(parent)), step));
                frontier.push(Owned {
                    key,
                    fp,
                    state: model.state_from(state),
                });
            }
            if let Err(e) = links.keep_within_budget() {
                mine.spill_error = Some(e);
            }
        }
        depth += 1;
    }
}

/// Agrees with every worker on the deepest checkpoint level all of them have, and loads this
/// worker's; every worker gets the same error if any cannot.
fn resume<M: Wire>(
    worker: &mut Worker,
    rounds: &mut Rounds,
    _model: &M,
    dir: &std::path::Path,
    cp: &Checkpointing,
    me: u64,
    peers: u64,
) -> Result<Saved, String> {
    let mine = checkpoint::levels(dir, me);
    let out = (0..peers)
        .map(|to| {
            (
                to,
                Message::Levels {
                    from: me,
                    levels: mine.clone(),
                },
            )
        })
        .collect();
    let mut all: Vec<Vec<u32>> = vec![Vec::new(); peers as usize];
    for m in rounds.exchange(worker, out) {
        if let Message::Levels { from, levels } = m {
            all[from as usize] = levels;
        }
    }
    let common = mine
        .iter()
        .rev()
        .find(|d| all.iter().all(|l| l.contains(d)))
        .copied();
    let loaded = match common {
        None => Err(format!(
            "`{}` holds no checkpoint level that all {peers} workers wrote (a checkpoint of a search with as many workers is needed)",
            dir.display()
        )),
        Some(d) => checkpoint::read(dir, d, me).and_then(|saved| {
            if saved.identity != cp.identity {
                Err(format!(
                    "`{}` is a checkpoint of another search (model, parameters, universe or options differ)",
                    dir.display()
                ))
            } else if saved.peers != peers {
                Err(format!(
                    "`{}` was written by {} workers, not {peers}",
                    dir.display(),
                    saved.peers
                ))
            } else {
                Ok(saved)
            }
        }),
    };
    let error = loaded.as_ref().err().cloned();
    let out = (0..peers)
        .map(|to| {
            (
                to,
                Message::Loaded {
                    from: me,
                    error: error.clone(),
                },
            )
        })
        .collect();
    let mut first = None;
    for m in rounds.exchange(worker, out) {
        if let Message::Loaded {
            from,
            error: Some(e),
        } = m
        {
            if first.as_ref().is_none_or(|(f, _)| from < *f) {
                first = Some((from, e));
            }
        }
    }
    match first {
        Some((_, e)) => Err(e),
        None => loaded,
    }
}

/// How many successor states [`unvisited_elsewhere`] keeps for the expansion that follows;
/// the successors of the frontier's later states are computed a second time.
const KEPT_SUCCESSORS: usize = 1 << 18;

/// The successors of this worker's `frontier` that other workers own and have surely not
/// visited: each owner is asked about the successors it owns (one round) and answers (a second
/// round); every worker takes part in both rounds. Also, for each frontier state in order,
/// its successors, while they number at most [`KEPT_SUCCESSORS`] in all (`None` past them,
/// and for a state whose successors fail: it is reported when it is expanded).
#[allow(clippy::type_complexity)]
fn unvisited_elsewhere<M: Wire>(
    worker: &mut Worker,
    rounds: &mut Rounds,
    model: &M,
    frontier: &[Owned<M::State>],
    links: &Links,
    me: u64,
    peers: u64,
) -> (FpMap<()>, Vec<Option<Vec<(M::Step, M::State)>>>) {
    let owner = |fp: Fingerprint| (fp % peers as u128) as u64;
    let mut asks: Vec<Vec<Fp>> = vec![Vec::new(); peers as usize];
    let mut asked: FpMap<()> = FpMap::default();
    let mut computed = Vec::new();
    let mut kept = 0;
    for owned in frontier {
        let mut successors = Vec::new();
        if model.successors(&owned.state, &mut successors).is_err() {
            computed.push(None);
            continue;
        }
        for (_, next) in &successors {
            let fp = model.fingerprint(next);
            if owner(fp) != me && asked.insert(fp, ()).is_none() {
                asks[owner(fp) as usize].push(fp_words(fp));
            }
        }
        kept += successors.len();
        computed.push((kept <= KEPT_SUCCESSORS).then_some(successors));
    }
    let out = asks
        .into_iter()
        .enumerate()
        .filter(|(_, fps)| !fps.is_empty())
        .map(|(to, fps)| (to as u64, Message::Ask { from: me, fps }))
        .collect();
    let mut answers = Vec::new();
    for m in rounds.exchange(worker, out) {
        if let Message::Ask { from, fps } = m {
            let fps: Vec<Fp> = fps
                .into_iter()
                .filter(|&fp| links.surely_unvisited(fp_of(fp)))
                .collect();
            answers.push((from, Message::Unvisited { fps }));
        }
    }
    let mut unvisited = FpMap::default();
    for m in rounds.exchange(worker, answers) {
        if let Message::Unvisited { fps } = m {
            unvisited.extend(fps.into_iter().map(|fp| (fp_of(fp), ())));
        }
    }
    (unvisited, computed)
}

/// Rebuilds the path to the state `fp`: in each round the state's owner sends everyone its
/// parent and step. A state on disk has no step: then the path is replayed from its chain of
/// fingerprints (the same steps; every worker sees the same links and replays alike).
fn rebuild<M: Wire>(
    worker: &mut Worker,
    rounds: &mut Rounds,
    model: &M,
    links: &mut Links,
    me: u64,
    peers: u64,
    fp: Fp,
) -> Vec<M::Step> {
    let mut steps = Vec::new();
    let mut chain = Vec::new();
    let mut at = Some(fp_of(fp));
    while let Some(fp) = at {
        chain.push(fp);
        let mut out = Vec::new();
        if (fp % peers as u128) as u64 == me {
            // A link that cannot be read ends the chain here; the replay then fails and says so.
            let (parent, step) = links.get(fp).ok().flatten().unwrap_or((None, Vec::new()));
            for to in 0..peers {
                out.push((
                    to,
                    Message::Link {
                        parent: parent.map(fp_words),
                        step: step.clone(),
                    },
                ));
            }
        }
        let received = rounds.exchange(worker, out);
        at = None;
        for m in received {
            if let Message::Link { parent, step } = m {
                steps.push(step);
                at = parent.map(fp_of);
            }
        }
    }
    chain.reverse();
    steps.reverse();
    if steps.iter().all(|s| !s.is_empty()) {
        return steps.iter().map(|s| model.step_from(s)).collect();
    }
    checker::explore::spill::replay(model, &chain, "reported").unwrap_or_default()
}
