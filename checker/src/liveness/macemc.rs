//! MaceMC's liveness search (Killian et al., §4): breadth-first search to a depth bound, then
//! random walks of up to `d_max` steps from the states at the bound; a walk that never reaches
//! the goal is a *suspected dead path*, and FindCriticalTransition (Alg. 2) looks for the step
//! after which the goal can no longer be reached.
//!
//! **FindCriticalTransition.** `Recovers(i)` runs `k` walks of up to `d_max` steps from state
//! `i` of the path and says whether one reaches the goal. Phase 1 doubles `d` from the walk's
//! start until `Recovers(d)` fails (the path is dead by state `d`) or `d` passes half the path
//! (case C2: the walk was too short to tell a dead state from a slow one; raise `d_max`).
//! Phase 2 bisects between the last recovering state and the first dead one; the step into
//! the first dead state is the critical transition (case C1), and the recovering walk from the
//! state before it is the live path that shares the dead path's prefix. Where the paper stops
//! with C2 when the walk's first state is already dead, this search also bisects the
//! breadth-first prefix (known exactly) down to the state where the obligation started, and
//! answers C2 only if that state is dead too.
//!
//! **Confirmation.** A walk that reaches the goal proves that its first state is live, but `k`
//! walks that do not only suggest that it is dead: where the goal is reachable only through
//! unlikely choices (walks biased towards a bug, a race to be won at several processes), all
//! `k` can miss it, and the bisection then blames a step before the real critical transition.
//! So once the walks have placed the transition, the state after it is searched exactly,
//! breadth first over every successor, while the search's budget of states lasts
//! ([`SearchOptions::confirm_states`]). A search that exhausts the state's reachable states
//! without a goal state makes it dead for certain. One that finds a goal state makes it live
//! (its path is the live path), and the bisection goes on above it up to a state known dead
//! (live states form a prefix of a path: a state that can reach the goal is reached from every
//! earlier one). One that runs out of budget leaves the walks' verdict standing. The answer
//! says how sure it is ([`Evidence`]): how many of `k` walks reached the goal from the states
//! before and after the critical transition, and what the exact search found. Where the walks
//! recover past half the path (C2), the exact search from the last state may still find it dead
//! (then the bisection runs up to it) or live ([`Critical::NotDead`]: the walks are too short).
//!
//! For `P ↝ Q` a walk runs its whole length and is suspected dead when an obligation (a state
//! where `P` holds and `Q` does not) is still open at its end; the obligation's first state
//! bounds the bisection from below.
//!
//! **Invariants.** The walks from the frontier also check the automaton's invariants in every
//! state they visit (as `ioa run --random` does): a state that breaks one ends the search with
//! that violation, a path from a start state the interpreter re-executes.
//!
//! Every random choice comes from the search's seed (ChaCha8): one generator hands each walk
//! its own seed, so the same seed, model and options give the same report. Walk `w` from the
//! frontier takes the generator's `w`-th output (its stream position is set, not reached by
//! drawing), and FindCriticalTransition draws on from there: so a *shard* that makes only the
//! walks `w ≡ I (mod N)` ([`SearchOptions::shard`]) gives each of them, and the critical
//! transition of the first dead one, exactly as the whole search would (`ioa liveness
//! --shard`).

use super::graph::{self, GraphOptions};
use super::{LivenessError, Path, Property};
use crate::explore::{Limit, Model, StateId};
use crate::fingerprint::{fingerprint, Fingerprint};
use crate::model::{MachineModel, MachineStep};
use interpreter::machine::State;
use interpreter::runner::Weights;
use interpreter::walk::{Walk, WalkEnd, Walker};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashMap;
use std::time::{Duration, Instant};

/// The options of a search.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// The breadth-first search's depth bound (walks start from states at this depth).
    pub bfs_depth: u32,
    /// Walks from the bound before giving up (spread round robin over its states).
    pub walks: u64,
    /// The longest walk (`d_max`).
    pub depth_max: u64,
    /// Walks per state in `Recovers` (the paper's `k`).
    pub recover_walks: u64,
    /// States the exact searches that confirm a dead verdict may store, in all (0: none).
    pub confirm_states: u64,
    /// The seed of every random choice.
    pub seed: u64,
    /// Weights of actions in walks (MaceMC's biased walks).
    pub weights: Weights,
    /// Bound on the states of the breadth-first search.
    pub max_states: Option<u64>,
    /// Stop starting walks after this long.
    pub time_limit: Option<Duration>,
    /// Make only the walks `w` with `w mod count = index`, as `(index, count)`.
    pub shard: Option<(u64, u64)>,
}

/// How one walk from the frontier ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalkOutcome {
    /// It reached the goal (`eventually`), or ran its length with no obligation left open.
    Live,
    /// It is a suspected dead path.
    Dead,
    /// It reached a state that breaks an invariant.
    Broken,
}

/// One walk from the frontier.
#[derive(Debug, Clone)]
pub struct WalkRecord {
    /// Its number (from 0; walks go round robin over the frontier).
    pub walk: u64,
    /// The seed it was drawn with.
    pub seed: u64,
    /// Its steps.
    pub steps: u64,
    /// How it ended.
    pub outcome: WalkOutcome,
}

/// What an exact search from one state of a dead path found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exact {
    /// A goal state is reachable: it was found after storing `states` states.
    Reaches {
        /// States stored.
        states: u64,
    },
    /// Every state reachable from it (`states` of them) was explored and none is a goal
    /// state: the state is dead, for certain.
    Never {
        /// States stored.
        states: u64,
    },
    /// The search's budget ran out after `states` states: nothing is known.
    Budget {
        /// States stored.
        states: u64,
    },
}

/// What is known about one state of a dead path: its walks and the exact search from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evidence {
    /// The state's position on the path.
    pub state: usize,
    /// Walks from it.
    pub walks: u64,
    /// How many of them reached the goal.
    pub reached: u64,
    /// The exact search from it, if one ran.
    pub exact: Option<Exact>,
}

impl Evidence {
    /// Whether the state is known to be live (a walk or the exact search reached the goal).
    pub fn live(&self) -> bool {
        self.reached > 0 || matches!(self.exact, Some(Exact::Reaches { .. }))
    }

    /// Whether the state is known to be dead (the exact search explored all it reaches).
    pub fn dead(&self) -> bool {
        matches!(self.exact, Some(Exact::Never { .. }))
    }
}

/// What FindCriticalTransition concluded.
#[derive(Debug, Clone)]
pub enum Critical {
    /// C1: the path is dead from state `step` on (for certain when `after.dead()`, else with
    /// high probability); step `step` is the critical transition.
    Found {
        /// The critical step (it leads from state `step - 1` to state `step`).
        step: usize,
        /// A path that shares the dead path's first `step - 1` steps and reaches the goal.
        live: Path,
        /// What is known about state `step - 1` (live: a path from it reaches the goal).
        before: Evidence,
        /// What is known about state `step`.
        after: Evidence,
    },
    /// C2: the path was still recovering at state `at`, past half its length: the walks were
    /// too short to decide (raise `d_max`).
    TooShort {
        /// The last state tried.
        at: usize,
    },
    /// C2: the state where the obligation started is already dead (or `d_max` is far too
    /// small): there is no transition to blame.
    DeadAtStart {
        /// That state.
        at: usize,
        /// What is known about it (certain when `evidence.dead()`).
        evidence: Evidence,
    },
    /// C2: the exact search found the goal reachable from the walk's last state: the path is
    /// not dead, the walk was too short (raise `d_max`).
    NotDead {
        /// What is known about the last state.
        evidence: Evidence,
    },
}

/// A suspected dead path.
#[derive(Debug, Clone)]
pub struct DeadPath {
    /// Start step, breadth-first prefix, then the walk.
    pub path: Path,
    /// The number of the walk that found it.
    pub walk: u64,
    /// The state where the walk started.
    pub walk_start: usize,
    /// The state where the obligation that is never met started.
    pub obligation_at: usize,
    /// Whether the walk ended in a state with no enabled action (rather than at `d_max`).
    pub deadlocked: bool,
    /// FindCriticalTransition's answer.
    pub critical: Critical,
}

/// An invariant a walk found broken.
#[derive(Debug, Clone)]
pub struct BrokenInvariant {
    /// The walk's number.
    pub walk: u64,
    /// The invariant's position in the spec's invariants.
    pub invariant: usize,
    /// Start step, breadth-first prefix, then the walk up to the state that breaks it.
    pub path: Path,
}

/// Counters of a search.
#[derive(Debug, Clone, Default)]
pub struct SearchStats {
    /// States stored by the breadth-first search.
    pub bfs_states: u64,
    /// Whether the breadth-first search stopped at a limit other than the depth bound.
    pub bfs_limit: Option<Limit>,
    /// States the walks started from.
    pub frontier: u64,
    /// Walks from the frontier.
    pub walks: u64,
    /// Walks run by FindCriticalTransition.
    pub recover_walks: u64,
    /// Exact searches run to confirm a dead verdict, and the states they stored.
    pub exact_searches: u64,
    /// States stored by those searches.
    pub exact_states: u64,
    /// Steps taken by all walks.
    pub steps: u64,
    /// Time spent walking (both kinds).
    pub walk_time: Duration,
    /// Total time.
    pub elapsed: Duration,
}

/// The outcome of a search.
#[derive(Debug, Clone)]
pub struct SearchReport {
    /// The first suspected dead path, if a walk found one.
    pub dead: Option<DeadPath>,
    /// An invariant a walk found broken (the search stops there, before any dead path).
    pub broken: Option<BrokenInvariant>,
    /// Whether the time limit stopped the walks.
    pub timed_out: bool,
    /// Every walk from the frontier, in order.
    pub walk_log: Vec<WalkRecord>,
    /// The counters.
    pub stats: SearchStats,
}

/// Turns walk steps into explorer steps.
struct Steps {
    /// Per action, the position of its first instance in the model's list.
    offsets: Vec<u32>,
}

impl Steps {
    fn new(model: &MachineModel) -> Steps {
        let n_actions = model.machine().actions.len();
        let mut offsets = vec![u32::MAX; n_actions];
        for (k, inst) in model.instances().iter().enumerate().rev() {
            offsets[inst.action] = k as u32;
        }
        Steps { offsets }
    }

    fn of(&self, walk: &Walk) -> Vec<MachineStep> {
        walk.steps
            .iter()
            .map(|s| MachineStep {
                instance: self.offsets[s.action] + s.index as u32,
                choices: s.picks.iter().map(|&p| p as u32).collect(),
            })
            .collect()
    }
}

/// The search.
struct Search<'a, 'm, 's> {
    model: &'a MachineModel<'m, 's>,
    property: &'a Property<'s>,
    walker: Walker<'m, 's>,
    steps: Steps,
    options: &'a SearchOptions,
    seeds: ChaCha8Rng,
    /// The seed the last walk was drawn with.
    last_seed: u64,
    /// States the exact searches may still store.
    confirm_left: u64,
    stats: SearchStats,
}

/// What a probe of one path state found, and the path from it to the goal if it is live.
struct Probe {
    evidence: Evidence,
    live: Option<Vec<MachineStep>>,
}

impl Search<'_, '_, '_> {
    fn walk(
        &mut self,
        from: &State,
        goal: &mut dyn FnMut(&[interpreter::value::Value]) -> Result<bool, LivenessError>,
    ) -> Result<Walk, LivenessError> {
        let seed = self.seeds.next_u64();
        self.last_seed = seed;
        let started = Instant::now();
        let mut failure = None;
        let mut test = |s: &[interpreter::value::Value]| match goal(s) {
            Ok(b) => Ok(b),
            Err(e) => {
                failure = Some(e);
                Ok(true)
            }
        };
        let walk = self
            .walker
            .walk(from, seed, self.options.depth_max, &mut test)
            .map_err(LivenessError::Walk);
        self.stats.walk_time += started.elapsed();
        if let Some(e) = failure {
            return Err(e);
        }
        let walk = walk?;
        self.stats.steps += walk.steps.len() as u64;
        Ok(walk)
    }

    /// `Recovers(i)`: a walk from `state` that reaches the goal, among `k`, and how many walks
    /// it took.
    fn recovers(&mut self, state: &State) -> Result<(Option<Walk>, u64), LivenessError> {
        let machine = self.model.machine();
        let property = *self.property;
        let k = self.options.recover_walks.max(1);
        for tried in 1..=k {
            self.stats.recover_walks += 1;
            let walk = self.walk(state, &mut |s| property.goal(machine, s))?;
            if walk.end == WalkEnd::Goal {
                return Ok((Some(walk), tried));
            }
        }
        Ok((None, k))
    }

    /// Breadth first from `state` over every successor until a goal state is found, every
    /// reachable state is explored, or the budget runs out. A goal state's path from `state`
    /// comes with [`Exact::Reaches`].
    fn exact(&mut self, state: &State) -> Result<(Exact, Option<Vec<MachineStep>>), LivenessError> {
        let machine = self.model.machine();
        let budget = self.confirm_left;
        self.stats.exact_searches += 1;
        let mut ids: FxHashMap<Fingerprint, usize> = FxHashMap::default();
        // Per stored state: its parent and the step from it.
        let mut links: Vec<Option<(usize, MachineStep)>> = vec![None];
        ids.insert(fingerprint(state), 0);
        let mut frontier = vec![(0usize, state.clone())];
        let mut out = Vec::new();
        let mut found = None;
        let mut exhausted = false;
        'search: while !frontier.is_empty() {
            let mut next = Vec::new();
            for (id, s) in &frontier {
                out.clear();
                self.model
                    .successors(s, &mut out)
                    .map_err(LivenessError::Machine)?;
                for (step, succ) in out.drain(..) {
                    let fp = fingerprint(&succ);
                    if ids.contains_key(&fp) {
                        continue;
                    }
                    if links.len() as u64 >= budget {
                        exhausted = true;
                        break 'search;
                    }
                    let new = links.len();
                    ids.insert(fp, new);
                    links.push(Some((*id, step)));
                    if self.property.goal(machine, &succ)? {
                        found = Some(new);
                        break 'search;
                    }
                    next.push((new, succ));
                }
            }
            frontier = next;
        }
        let states = links.len() as u64;
        self.stats.exact_states += states;
        self.confirm_left = self.confirm_left.saturating_sub(states);
        Ok(match found {
            Some(mut at) => {
                let mut steps = Vec::new();
                while let Some((parent, step)) = links[at].take() {
                    steps.push(step);
                    at = parent;
                }
                steps.reverse();
                (Exact::Reaches { states }, Some(steps))
            }
            None if exhausted => (Exact::Budget { states }, None),
            None => (Exact::Never { states }, None),
        })
    }

    /// Whether state `at` of a dead path is live, by `k` walks.
    fn probe(&mut self, states: &[State], at: usize) -> Result<Probe, LivenessError> {
        let (walk, tried) = self.recovers(&states[at])?;
        Ok(Probe {
            evidence: Evidence {
                state: at,
                walks: tried,
                reached: u64::from(walk.is_some()),
                exact: None,
            },
            live: walk.map(|w| self.steps.of(&w)),
        })
    }

    /// FindCriticalTransition over the states of a suspected dead path: the walks place the
    /// transition, then the exact search checks the state after it (while the budget lasts);
    /// a state it finds live moves the search past it, up to a state known dead.
    fn critical(
        &mut self,
        path: &Path,
        states: &[State],
        walk_start: usize,
        obligation_at: usize,
        deadlocked: bool,
    ) -> Result<Critical, LivenessError> {
        let last = states.len() - 1;
        // A walk that ended where no action is enabled ended in a dead state.
        let stuck = Evidence {
            state: last,
            walks: 0,
            reached: 0,
            exact: Some(Exact::Never { states: 1 }),
        };
        // The last live state known, with its evidence and path to the goal.
        let mut live: Option<(Evidence, Vec<MachineStep>)> = None;
        let mut d = walk_start.max(obligation_at).max(1).min(last);
        // Phase 1: exponential search. A walk that ended where no action is enabled ended in
        // a dead state: its last state bounds the search, and no walk was too short.
        let (mut hi, mut hi_evidence) = loop {
            if deadlocked && d >= last {
                break (last, stuck);
            }
            if !deadlocked && d > last / 2 && d > obligation_at {
                // The walks recover too far along the path to tell. The exact search may
                // still settle the last state: live (the path is not dead at all) or dead
                // (then bisect up to it).
                if self.confirm_left > 0 {
                    let (exact, _) = self.exact(&states[last])?;
                    let evidence = Evidence {
                        state: last,
                        walks: 0,
                        reached: 0,
                        exact: Some(exact),
                    };
                    match exact {
                        Exact::Reaches { .. } => return Ok(Critical::NotDead { evidence }),
                        Exact::Never { .. } => break (last, evidence),
                        Exact::Budget { .. } => {}
                    }
                }
                return Ok(Critical::TooShort { at: d });
            }
            let probe = self.probe(states, d)?;
            match probe.live {
                Some(w) => {
                    live = Some((probe.evidence, w));
                    d = (2 * d).max(d + 1);
                    if deadlocked {
                        d = d.min(last);
                    }
                }
                None => break (d, probe.evidence),
            }
        };
        if live.is_none() {
            // Nothing recovered: the obligation's first state is the last hope.
            let mut evidence = if hi == obligation_at {
                hi_evidence
            } else {
                let probe = self.probe(states, obligation_at)?;
                if let Some(w) = probe.live {
                    live = Some((probe.evidence, w));
                }
                probe.evidence
            };
            if live.is_none() {
                if self.confirm_left > 0 && !evidence.dead() {
                    let (exact, path) = self.exact(&states[obligation_at])?;
                    evidence.exact = Some(exact);
                    if let Some(p) = path {
                        live = Some((evidence, p));
                    }
                }
                if live.is_none() {
                    return Ok(Critical::DeadAtStart {
                        at: obligation_at,
                        evidence,
                    });
                }
            }
        }
        let (mut lo_evidence, mut live_walk) = live.expect("set above");
        let mut lo = lo_evidence.state;
        loop {
            // Phase 2: binary search between a live state and a dead one.
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                let probe = self.probe(states, mid)?;
                match probe.live {
                    Some(w) => {
                        lo = mid;
                        lo_evidence = probe.evidence;
                        live_walk = w;
                    }
                    None => {
                        hi = mid;
                        hi_evidence = probe.evidence;
                    }
                }
            }
            // Confirm the state after the step: dead for certain, or live after all.
            if hi_evidence.dead() || self.confirm_left == 0 {
                break;
            }
            let (exact, path) = self.exact(&states[hi])?;
            hi_evidence.exact = Some(exact);
            let Some(p) = path else { break };
            // The walks missed the goal from state `hi`: the critical step is later.
            lo = hi;
            lo_evidence = hi_evidence;
            live_walk = p;
            if lo >= last {
                return Ok(Critical::NotDead {
                    evidence: lo_evidence,
                });
            }
            hi = last;
            hi_evidence = if deadlocked {
                stuck
            } else {
                let probe = self.probe(states, last)?;
                if probe.live.is_some() {
                    return Ok(Critical::NotDead {
                        evidence: probe.evidence,
                    });
                }
                probe.evidence
            };
        }
        // How easily the state before the step recovers: the rest of its k walks.
        let k = self.options.recover_walks.max(1);
        let mut before = lo_evidence;
        for _ in before.walks..k {
            before.walks += 1;
            before.reached += u64::from(self.recovers_once(&states[lo])?);
        }
        let mut live_path: Path = path[..=lo].to_vec();
        live_path.extend(live_walk);
        Ok(Critical::Found {
            step: hi,
            live: live_path,
            before,
            after: hi_evidence,
        })
    }

    /// One walk from `state`: whether it reaches the goal.
    fn recovers_once(&mut self, state: &State) -> Result<bool, LivenessError> {
        let machine = self.model.machine();
        let property = *self.property;
        self.stats.recover_walks += 1;
        let walk = self.walk(state, &mut |s| property.goal(machine, s))?;
        Ok(walk.end == WalkEnd::Goal)
    }
}

/// The first invariant of the root that `state` breaks, if any.
fn broken_invariant(
    model: &MachineModel,
    state: &[interpreter::value::Value],
) -> Result<Option<usize>, LivenessError> {
    model
        .machine()
        .failing_invariant(state)
        .map_err(|(_, e)| LivenessError::Predicate(e))
}

/// Where the obligation still open at the end of `states` started, if one is.
fn open_obligation(
    property: &Property,
    model: &MachineModel,
    states: &[State],
) -> Result<Option<usize>, LivenessError> {
    let machine = model.machine();
    let eventually = property.liveness.property.trigger().is_none();
    let mut open = None;
    for (k, s) in states.iter().enumerate() {
        let goal = property.goal(machine, s)?;
        if goal {
            open = None;
            if eventually {
                return Ok(None);
            }
        } else if open.is_none() && (eventually || property.trigger(machine, s)?) {
            open = Some(k);
        }
    }
    Ok(open)
}

/// Runs the search.
pub fn search(
    model: &MachineModel,
    property: &Property,
    options: &SearchOptions,
) -> Result<SearchReport, LivenessError> {
    let started = Instant::now();
    let machine = model.machine();
    let eventually = property.liveness.property.trigger().is_none();
    let graph_options = GraphOptions {
        max_states: options.max_states,
        max_depth: Some(options.bfs_depth),
        time_limit: options.time_limit,
    };
    let (graph, limit) = graph::build(model, property, &graph_options)?;
    let mut stats = SearchStats {
        bfs_states: graph.len() as u64,
        bfs_limit: limit.filter(|l| !matches!(l, Limit::Depth(_))),
        ..SearchStats::default()
    };
    let frontier: Vec<(StateId, State)> = graph
        .last_level
        .iter()
        .filter(|(id, _)| !eventually || !graph.goal[*id as usize])
        .cloned()
        .collect();
    stats.frontier = frontier.len() as u64;
    let walker = Walker::new(machine, &options.weights).map_err(LivenessError::Walk)?;
    let mut search = Search {
        model,
        property,
        walker,
        steps: Steps::new(model),
        options,
        seeds: ChaCha8Rng::seed_from_u64(options.seed),
        last_seed: 0,
        confirm_left: options.confirm_states,
        stats,
    };
    let mut dead = None;
    let mut broken = None;
    let mut timed_out = false;
    let mut walk_log = Vec::new();
    if !frontier.is_empty() {
        let mine = |w: u64| options.shard.is_none_or(|(i, n)| w % n == i);
        for w in (0..options.walks).filter(|&w| mine(w)) {
            if options.time_limit.is_some_and(|t| started.elapsed() >= t) {
                timed_out = true;
                break;
            }
            let (id, state) = &frontier[(w % frontier.len() as u64) as usize];
            search.stats.walks += 1;
            // Each `next_u64` takes two 32-bit words of the stream.
            search.seeds.set_word_pos(2 * w as u128);
            // A walk stops at a state that breaks an invariant, or at the goal (for `P ↝ Q`
            // it runs its whole length: an obligation may open after the goal held).
            let mut broke = None;
            let walk = search.walk(state, &mut |s| {
                if let Some(k) = broken_invariant(model, s)? {
                    broke = Some(k);
                    return Ok(true);
                }
                if eventually {
                    property.goal(machine, s)
                } else {
                    Ok(false)
                }
            })?;
            let mut record = WalkRecord {
                walk: w,
                seed: search.last_seed,
                steps: walk.steps.len() as u64,
                outcome: WalkOutcome::Live,
            };
            let mut path = graph.tree.path_to(*id);
            let walk_start = path.len() - 1;
            path.extend(search.steps.of(&walk));
            if let Some(invariant) = broke {
                record.outcome = WalkOutcome::Broken;
                walk_log.push(record);
                broken = Some(BrokenInvariant {
                    walk: w,
                    invariant,
                    path,
                });
                break;
            }
            if walk.end == WalkEnd::Goal {
                walk_log.push(record);
                continue;
            }
            let (trace, _) = model.trace(&path).map_err(LivenessError::Machine)?;
            let Some(obligation_at) = open_obligation(property, model, &trace.states)? else {
                walk_log.push(record);
                continue;
            };
            record.outcome = WalkOutcome::Dead;
            walk_log.push(record);
            let deadlocked = walk.end == WalkEnd::Deadlock;
            let critical =
                search.critical(&path, &trace.states, walk_start, obligation_at, deadlocked)?;
            dead = Some(DeadPath {
                walk: w,
                path,
                walk_start,
                obligation_at,
                deadlocked,
                critical,
            });
            break;
        }
    }
    let mut stats = search.stats;
    stats.elapsed = started.elapsed();
    Ok(SearchReport {
        dead,
        broken,
        timed_out,
        walk_log,
        stats,
    })
}
