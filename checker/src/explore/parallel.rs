//! The exploration loop of [`super`] for several threads, without a serial merge: every worker
//! inserts the successors it computes into one concurrent visited set ([`Table`]) and keeps the
//! states it computed, so a state is freed by the thread that allocated it and no thread waits
//! for another between batches.
//!
//! It visits the same states as the one-thread loop, numbers them the same, records the same
//! parents and reports the same verdict, counterexample and counts:
//! - A successor is offered to the table with its *key*, the place a serial search would take
//!   it in (its parent's id, then its rank among the parent's successors), and the table keeps
//!   the smallest key of each state. When a level is done, a worker's successor whose key is
//!   its state's key is the one a serial search would have stored; the others are dropped.
//! - The survivors are numbered in key order (a merge of the workers' sorted lists, which only
//!   moves pointers), so ids, parents and the next level's order are those of a serial search.
//! - A level is expanded in batches of the same positions as the serial loop's, and after each
//!   the states' outcomes are read in frontier order: the first violation, error or deadlock
//!   found stops the search with the counts the serial loop has at that state (the states
//!   stored by then are those whose key comes from an earlier parent).
//! - Partial-order reduction asks whether a state was visited at an earlier or the current
//!   level: its key's parent answers, since entries of the level being built have parents in
//!   the current level and keep them.
//!
//! The loop takes searches without a state limit or a memory budget (the serial loop keeps
//! those, whose stopping points are defined state by state).

use super::table::{Offer, Table};
use super::{
    expand_state_reducing, limit_between_batches, Expansion, Limit, Links, Model, Options, Report,
    StateId, Stats, Verdict,
};
use crate::fingerprint::{Fingerprint, PackedFingerprint};
use crossbeam_utils::CachePadded;
use rayon::prelude::*;
use rustc_hash::FxHashSet;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// A state of the level being expanded: its id, fingerprint and value.
type Entry<M> = (StateId, PackedFingerprint, <M as Model>::State);

/// A successor kept by a worker, with its key.
struct Found<M: Model> {
    key: u64,
    fp: PackedFingerprint,
    step: M::Step,
    state: M::State,
}

/// What checking and expanding one state of a batch gave (its successors are in `found`).
enum Outcome<M: Model> {
    Expanded(u64),
    Violated(M::Property),
    Failed(M::Error),
}

/// What one worker thread collects, locked only by itself while a batch runs.
struct Lane<M: Model> {
    /// Successors kept for the next level, in the order found.
    found: Vec<Found<M>>,
    /// The outcomes of this batch's states it expanded, by position in the level.
    outcomes: Vec<(usize, Outcome<M>)>,
    /// Whether a successor of this batch was kept because the table was full.
    unresolved: bool,
    /// Where this batch's successors start in `found`.
    batch_start: usize,
    /// The keys of the successors of the state being expanded (reused).
    keys: Vec<u64>,
    /// States this thread stored in the table during the batch.
    stored: usize,
    /// The keys its offers replaced in the level (their successors are repeats).
    losers: Vec<u64>,
}

impl<M: Model> Default for Lane<M> {
    fn default() -> Self {
        Lane {
            found: Vec::new(),
            outcomes: Vec::new(),
            unresolved: false,
            batch_start: 0,
            keys: Vec::new(),
            stored: 0,
            losers: Vec::new(),
        }
    }
}

/// The key of the `rank`-th successor of state `parent` (`None`: the `rank`-th start state).
fn key(parent: Option<StateId>, rank: u32) -> u64 {
    let high = parent.map_or(0, |p| p as u64 + 1);
    high << 32 | rank as u64
}

/// The parent a key names.
fn parent_of(key: u64) -> Option<StateId> {
    (key >> 32).checked_sub(1).map(|p| p as StateId)
}

/// The smallest key of any successor of state `id` or a later one.
fn first_key_of(id: StateId) -> u64 {
    key(Some(id), 0)
}

/// Explores `model` as [`super::explore`] does, with the workers of `pool`; `stats` holds the
/// counters set so far.
pub(super) fn explore<M: Model>(
    model: &M,
    options: &Options,
    pool: &rayon::ThreadPool,
    batch_size: usize,
    mut stats: Stats,
    started: Instant,
    progress: &mut dyn FnMut(&Stats),
) -> Report<M> {
    let threads = pool.current_num_threads();
    let mut table = Table::with_room(1 << 10);
    let mut links: Links<M::Step> = Links::default();
    // Each lane on its own cache lines: a worker writes its lane at every successor.
    let lanes: Vec<CachePadded<Mutex<Lane<M>>>> =
        (0..threads).map(|_| CachePadded::default()).collect();
    let finish = |verdict: Verdict<M>, mut stats: Stats, distinct: u64, bytes: u64| {
        stats.elapsed = started.elapsed();
        stats.distinct = distinct;
        stats.graph_bytes = bytes;
        Report { verdict, stats }
    };

    // The start states, in lane 0.
    let mut start = Vec::new();
    if let Err(error) = model.initial_states(&mut start) {
        let verdict = Verdict::Error {
            error,
            path: Vec::new(),
        };
        return finish(verdict, stats, 0, 0);
    }
    let mut own: Vec<Vec<Entry<M>>> = (0..threads).map(|_| Vec::new()).collect();
    let mut order: Vec<(u32, u32)> = Vec::new();
    let mut spare: Vec<Vec<Entry<M>>> = (0..threads).map(|_| Vec::new()).collect();
    let mut spare_order: Vec<(u32, u32)> = Vec::new();
    for (rank, (step, state)) in start.into_iter().enumerate() {
        stats.generated += 1;
        let fp = model.fingerprint(&state);
        if table.offer(fp, key(None, rank as u32)) == Offer::New {
            table.stored(1);
            let id = links.push(None, step);
            order.push((0, own[0].len() as u32));
            own[0].push((id, fp.into(), state));
        }
    }

    let mut depth = 0;
    let mut level_base: StateId = 0;
    while !order.is_empty() {
        stats.depth = depth;
        stats.frontier = order.len() as u64;
        let at_depth_limit = options.max_depth.is_some_and(|d| depth >= d);
        let cut_off = AtomicBool::new(false);
        let mut refused_losers = Vec::new();
        for lo in (0..order.len()).step_by(batch_size) {
            let hi = (lo + batch_size).min(order.len());
            if let Some(limit) = limit_between_batches(options, &mut stats, started) {
                let bytes = table.bytes() + links.approx_bytes();
                let verdict = Verdict::LimitReached(limit);
                return finish(verdict, stats, table.len() as u64, bytes);
            }
            // Room for this batch's successors at the rate seen so far (a batch that needs
            // more is refused and offered again below).
            let per_state = stats.generated / stats.checked.max(1) + 1;
            let more = ((hi - lo) as u64 * per_state * 2) as usize;
            pool.install(|| table.grow(more));
            let seen =
                |fp: Fingerprint| table.key(fp).is_some_and(|k| k >> 32 <= level_base as u64);

            let expand_one = |lane: &mut Lane<M>, pos: usize| {
                let (l, i) = order[pos];
                let (id, fp, state) = &own[l as usize][i as usize];
                let rank = Cell::new(0u32);
                let full = Cell::new(false);
                let stored = Cell::new(0);
                let losers = RefCell::new(std::mem::take(&mut lane.losers));
                let keys = RefCell::new(std::mem::take(&mut lane.keys));
                let keep = |fp: Fingerprint| {
                    let key = key(Some(*id), rank.get());
                    rank.set(rank.get() + 1);
                    let kept = if at_depth_limit {
                        if table.key(fp).is_none() {
                            cut_off.store(true, Ordering::Relaxed);
                        }
                        false
                    } else {
                        match table.offer(fp, key) {
                            Offer::New => {
                                stored.set(stored.get() + 1);
                                true
                            }
                            Offer::Won(replaced) => {
                                if replaced != key {
                                    losers.borrow_mut().push(replaced);
                                }
                                true
                            }
                            Offer::Lost => false,
                            Offer::Full => {
                                full.set(true);
                                true
                            }
                        }
                    };
                    if kept {
                        keys.borrow_mut().push(key);
                    }
                    kept
                };
                let expansion =
                    expand_state_reducing(model, (state, (*fp).into()), &keep, Some(&seen));
                let mut keys = keys.into_inner();
                let outcome = match expansion {
                    Expansion::Violated(p) => Outcome::Violated(p),
                    Expansion::Failed(e) => Outcome::Failed(e),
                    Expansion::Expanded { generated, fresh } => {
                        debug_assert_eq!(fresh.len(), keys.len());
                        for ((fp, step, state), &key) in fresh.into_iter().zip(&keys) {
                            let fp = fp.into();
                            lane.found.push(Found {
                                key,
                                fp,
                                step,
                                state,
                            });
                        }
                        Outcome::Expanded(generated)
                    }
                };
                lane.losers = losers.into_inner();
                lane.unresolved |= full.get();
                lane.stored += stored.get();
                lane.outcomes.push((pos, outcome));
                keys.clear();
                lane.keys = keys;
            };
            for lane in &lanes {
                let mut lane = lane.lock().unwrap();
                lane.batch_start = lane.found.len();
                lane.unresolved = false;
            }
            pool.install(|| {
                (lo..hi).into_par_iter().with_max_len(16).for_each_init(
                    || {
                        lanes[rayon::current_thread_index().unwrap_or(0)]
                            .lock()
                            .unwrap()
                    },
                    |lane, pos| expand_one(lane, pos),
                )
            });

            // The outcomes in frontier order, as the serial loop reads them.
            let mut outcomes: Vec<Option<Outcome<M>>> = (lo..hi).map(|_| None).collect();
            for lane in &lanes {
                let mut lane = lane.lock().unwrap();
                for (pos, outcome) in lane.outcomes.drain(..) {
                    outcomes[pos - lo] = Some(outcome);
                }
                table.stored(std::mem::take(&mut lane.stored));
            }
            for (pos, outcome) in (lo..).zip(outcomes) {
                let outcome = outcome.expect("every state of the batch has an outcome");
                stats.checked += 1;
                let id = level_base + pos as StateId;
                let stop = match outcome {
                    Outcome::Violated(property) => Some(Verdict::Violated {
                        property,
                        path: links.path_to(id),
                    }),
                    Outcome::Failed(error) => Some(Verdict::Error {
                        error,
                        path: links.path_to(id),
                    }),
                    Outcome::Expanded(generated) => {
                        stats.generated += generated;
                        if generated == 0 {
                            stats.deadlocks += 1;
                        }
                        (generated == 0 && options.deadlock_is_violation).then(|| {
                            Verdict::Deadlock {
                                path: links.path_to(id),
                            }
                        })
                    }
                };
                if let Some(verdict) = stop {
                    // The serial loop has stored the states found from earlier parents.
                    let before = first_key_of(id + 1);
                    let found: usize = lanes
                        .iter()
                        .map(|lane| {
                            let lane = lane.lock().unwrap();
                            lane.found
                                .iter()
                                .filter(|f| f.key < before && table.key(f.fp.into()) == Some(f.key))
                                .count()
                        })
                        .sum();
                    let distinct = (links.len() + found) as u64;
                    let bytes = table.bytes() + links.approx_bytes();
                    return finish(verdict, stats, distinct, bytes);
                }
            }
            // Successors the full table refused are offered again once it has grown.
            let mut refused = Vec::new();
            for lane in &lanes {
                let lane = lane.lock().unwrap();
                if lane.unresolved {
                    refused.extend(
                        lane.found[lane.batch_start..]
                            .iter()
                            .map(|f| (Fingerprint::from(f.fp), f.key)),
                    );
                }
            }
            if !refused.is_empty() {
                pool.install(|| table.grow(refused.len()));
                for (fp, key) in refused {
                    loop {
                        match table.offer(fp, key) {
                            Offer::New => table.stored(1),
                            Offer::Won(replaced) => {
                                if replaced != key {
                                    refused_losers.push(replaced);
                                }
                            }
                            Offer::Lost => {}
                            Offer::Full => {
                                let more = table.room() + 1;
                                pool.install(|| table.grow(more));
                                continue;
                            }
                        }
                        break;
                    }
                }
            }
            stats.distinct = table.len() as u64;
            stats.elapsed = started.elapsed();
            stats.graph_bytes = table.bytes() + links.approx_bytes();
            progress(&stats);
        }
        stats.levels_completed = Some(depth);
        if at_depth_limit {
            let verdict = if cut_off.load(Ordering::Relaxed) {
                Verdict::LimitReached(Limit::Depth(depth))
            } else {
                Verdict::Verified
            };
            let bytes = table.bytes() + links.approx_bytes();
            return finish(verdict, stats, links.len() as u64, bytes);
        }

        // Each worker keeps the successors a serial search would have stored, in key order;
        // the merge numbers them.
        // A successor loses when a smaller key replaced its own, and whoever replaced it noted
        // that (rare: a repeat found first from a later parent), so no lookup is needed.
        let mut losers: FxHashSet<u64> = refused_losers.drain(..).collect();
        for lane in &lanes {
            losers.extend(lane.lock().unwrap().losers.drain(..));
        }
        pool.broadcast(|ctx| {
            let mut lane = lanes[ctx.index()].lock().unwrap();
            if !losers.is_empty() {
                lane.found.retain(|f| !losers.contains(&f.key));
            }
            lane.found.sort_unstable_by_key(|f| f.key);
        });
        // Buffers are reused from level to level (a lane's list, and the lists and order of
        // the level before last), so the merge does not fault in fresh pages.
        let mut locked: Vec<_> = lanes.iter().map(|lane| lane.lock().unwrap()).collect();
        let found: usize = locked.iter().map(|lane| lane.found.len()).sum();
        // State ids are 32-bit, as in the serial loop, whose state limit is at most this.
        let most = StateId::MAX as usize - 1;
        if links.len() + found > most {
            drop(locked);
            let bytes = table.bytes() + links.approx_bytes();
            let verdict = Verdict::LimitReached(Limit::States(most as u64));
            return finish(verdict, stats, links.len() as u64, bytes);
        }
        let mut next = std::mem::take(&mut spare);
        let mut next_order = std::mem::take(&mut spare_order);
        for (list, lane) in next.iter_mut().zip(&locked) {
            list.reserve(lane.found.len());
        }
        next_order.reserve(found);
        links.reserve(next_order.capacity());
        // While this thread numbers the survivors, each worker frees the states it allocated
        // for the level just expanded.
        let old: Vec<Mutex<Vec<Entry<M>>>> = std::mem::take(&mut own)
            .into_iter()
            .map(Mutex::new)
            .collect();
        pool.in_place_scope(|scope| {
            scope.spawn_broadcast(|_, ctx| old[ctx.index()].lock().unwrap().clear());
            let mut lists: Vec<_> = locked
                .iter_mut()
                .map(|lane| lane.found.drain(..).peekable())
                .collect();
            loop {
                let first = lists
                    .iter_mut()
                    .enumerate()
                    .filter_map(|(l, list)| list.peek().map(|f| (f.key, l)))
                    .min();
                let Some((_, l)) = first else { break };
                let f = lists[l].next().expect("a list with a first successor");
                let id = links.push(parent_of(f.key), f.step);
                next_order.push((l as u32, next[l].len() as u32));
                next[l].push((id, f.fp, f.state));
            }
        });
        own = next;
        drop(locked);
        level_base += order.len() as StateId;
        spare_order = std::mem::replace(&mut order, next_order);
        spare_order.clear();
        spare = old
            .into_iter()
            .map(|list| list.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect();
        depth += 1;
    }
    stats.frontier = 0;
    let bytes = table.bytes() + links.approx_bytes();
    finish(Verdict::Verified, stats, links.len() as u64, bytes)
}
