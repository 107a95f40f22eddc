//! Drawing a random enabled action instance, for random runs (`ioa run --random`) and the
//! liveness explorer's random walks.
//!
//! Each action instance has a weight (its action's, from `--weights`, default 1), and a draw
//! picks an enabled instance with probability proportional to its weight. A draw first tries
//! instances at random and rejects the disabled ones, remembering each instance's enabledness
//! until a step changes a variable its action's preconditions read. An action (with at most
//! 4,096 instances) whose instances were rejected as often as it has instances since then is
//! listed: its enabled instances are collected, and later draws pick from that list directly.
//! So a run that has settled, where few instances are enabled and steps change little, costs
//! one draw per step instead of many rejections, while a run whose steps keep changing the
//! variables decides only the instances it draws. The draws depend on what is remembered, but
//! the remembered answers are exact: a run that decides everything afresh in every state takes
//! the same steps (`Runner::random_uncached`, compared in `interpreter/tests/incremental.rs`).

use crate::error::{EvalResult, RunError};
use crate::machine::{Machine, Plan};
use crate::param_guard::{Allowed, ParamGuard};
use crate::runner::Weights;
use crate::value::Value;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::borrow::Cow;
use std::sync::Arc;

/// Actions with at most this many instances are drawn from the list of their enabled ones.
const MAX_LISTED_INSTANCES: f64 = 4_096.0;

/// Actions with more instances than this are decided afresh at every draw.
const MAX_CACHED_INSTANCES: f64 = 65_536.0;

/// How often a drawn instance of an unlisted action may be disabled before every instance
/// is enumerated instead.
const REJECTIONS: usize = 64;

/// Draws random enabled action instances.
pub(crate) struct Sampler<'s> {
    /// Per action, the candidate values of each parameter.
    carriers: Vec<Vec<Arc<[Value]>>>,
    /// Per action, how many instances it has.
    counts: Vec<f64>,
    /// Per action, the weight of one instance.
    per: Vec<f64>,
    /// Per action, whether it has few enough instances to be listed.
    listable: Vec<bool>,
    /// Per action, the parameter its precondition's first conjunct bounds, if any: listing
    /// skips the instances outside the bound without deciding them.
    guards: Vec<Option<ParamGuard<'s>>>,
}

impl<'s> Sampler<'s> {
    /// A sampler for `machine`'s actions weighted by `weights`.
    pub(crate) fn new(machine: &Machine<'s>, weights: &Weights) -> EvalResult<Sampler<'s>> {
        let mut carriers = Vec::new();
        let mut counts = Vec::new();
        let mut per = Vec::new();
        for a in &machine.actions {
            let mut cs = Vec::new();
            let mut count = 1.0;
            for (ty, name) in a.param_types.iter().zip(&a.param_names) {
                let c = match machine.universe.param_candidates(&a.name, name) {
                    Some(c) => c,
                    None => machine.carrier(
                        ty,
                        machine.spec.automata[machine.root.0 as usize]
                            .actions
                            .iter()
                            .find(|x| x.name == a.name)
                            .map(|x| x.span)
                            .unwrap_or_default(),
                    )?,
                };
                count *= c.len() as f64;
                cs.push(c);
            }
            carriers.push(cs);
            counts.push(count);
            per.push(weights.of(&a.name, a.kind));
        }
        let listable = counts.iter().map(|&n| n <= MAX_LISTED_INSTANCES).collect();
        let guards = (0..counts.len()).map(|a| machine.param_guard(a)).collect();
        Ok(Sampler {
            carriers,
            counts,
            per,
            listable,
            guards,
        })
    }

    /// The arguments of instance `index` of `action` (first parameter varying fastest).
    fn args(&self, action: usize, mut index: u64) -> Vec<Value> {
        let mut out = Vec::with_capacity(self.carriers[action].len());
        for c in &self.carriers[action] {
            let n = c.len() as u64;
            out.push(c[(index % n) as usize].clone());
            index /= n;
        }
        out
    }

    /// The value of parameter `param` in instance `index` of `action`.
    fn arg(&self, action: usize, mut index: u64, param: usize) -> &Value {
        let carriers = &self.carriers[action];
        for c in &carriers[..param] {
            index /= c.len() as u64;
        }
        let c = &carriers[param];
        &c[(index % c.len() as u64) as usize]
    }

    /// The status of instance `index` of `action` in `state`, from the cache when it is still
    /// valid (deciding and recording it otherwise); `None` when the action is not cached.
    fn status<'c>(
        &self,
        machine: &Machine,
        state: &[Value],
        action: usize,
        index: u64,
        cache: &'c mut Cache,
    ) -> Option<&'c Status> {
        let generation = cache.generation[action];
        let statuses = cache.status[action].as_mut()?;
        let (decided_at, status) = &mut statuses[index as usize];
        if *decided_at != generation || !cache.incremental {
            let args = self.args(action, index);
            *status = match machine.enabled(state, action, &args, false) {
                Ok(Ok(plan)) => Status::Enabled(plan),
                Ok(Err(_)) => Status::Disabled,
                Err(e) => Status::Failed(e),
            };
            *decided_at = generation;
        }
        Some(status)
    }

    /// Whether instance `index` of `action` is enabled in `state` (an error if deciding fails).
    fn decide(
        &self,
        machine: &Machine,
        state: &[Value],
        action: usize,
        index: u64,
        cache: &mut Cache,
    ) -> EvalResult<bool> {
        match self.status(machine, state, action, index, cache) {
            None => {
                let args = self.args(action, index);
                Ok(machine.enabled(state, action, &args, false)?.is_ok())
            }
            Some(Status::Enabled(_)) => Ok(true),
            Some(Status::Disabled) => Ok(false),
            Some(Status::Failed(e)) => Err(e.clone()),
        }
    }

    /// Brings the list of `action`'s candidates up to date: every instance not known to be
    /// disabled (those whose deciding failed are kept, and report the failure if drawn).
    fn list(&self, machine: &Machine, state: &[Value], action: usize, cache: &mut Cache) {
        let generation = cache.generation[action];
        if cache.listed[action].0 == generation {
            return;
        }
        let guard = self.guards[action]
            .as_ref()
            .map(|g| (g.param, machine.allowed(state, g)))
            .filter(|(_, allowed)| !matches!(allowed, Allowed::Any));
        let mut candidates = std::mem::take(&mut cache.listed[action].1);
        candidates.clear();
        for index in 0..self.counts[action] as u32 {
            if let (Some((param, allowed)), Some(statuses)) = (&guard, &mut cache.status[action]) {
                if !allowed.admits(self.arg(action, index as u64, *param)) {
                    // The first conjunct is false: disabled, as deciding would find.
                    statuses[index as usize] = (generation, Status::Disabled);
                    continue;
                }
            }
            let status = self.status(machine, state, action, index as u64, cache);
            if !matches!(status, Some(Status::Disabled)) {
                candidates.push(index);
            }
        }
        cache.listed[action] = (generation, candidates);
        cache.weights[action] = self.weight(action, cache);
    }

    /// The weight of `action`'s candidates: its listed instances, or all of them while it has
    /// no up-to-date list.
    fn weight(&self, action: usize, cache: &Cache) -> f64 {
        let n = if cache.fresh(action) {
            cache.listed[action].1.len() as f64
        } else {
            self.counts[action]
        };
        self.per[action] * n
    }

    /// The drawn instance's arguments and its plan: borrowed from the cache when it holds
    /// one, made afresh otherwise.
    pub(crate) fn take<'c>(
        &self,
        machine: &Machine,
        state: &[Value],
        action: usize,
        index: u64,
        cache: &'c Cache,
    ) -> EvalResult<(Vec<Value>, Cow<'c, Plan>)> {
        let args = self.args(action, index);
        let cached = cache.status[action]
            .as_ref()
            .map(|s| &s[index as usize])
            .filter(|(decided_at, _)| *decided_at == cache.generation[action]);
        let plan = match cached {
            Some((_, Status::Enabled(plan))) => Cow::Borrowed(plan),
            _ => Cow::Owned(
                machine
                    .enabled(state, action, &args, false)?
                    .expect("enabled a moment ago"),
            ),
        };
        Ok((args, plan))
    }

    /// Draws an enabled action instance: the action and the instance's index among the
    /// action's instances (first parameter varying fastest, as `checker` numbers them).
    ///
    /// Each try draws an action by the weight of its candidates (its listed instances, or all
    /// of them while it has no list) and then one of those candidates; an instance drawn
    /// outside a list may be disabled, and then the try fails. Every try takes an enabled
    /// instance with probability proportional to its weight, so the instance taken has the
    /// distribution of a draw from the enabled instances alone. An action whose instances were
    /// rejected often enough since the last step that touched its preconditions is listed.
    pub(crate) fn pick_instance(
        &self,
        machine: &Machine,
        state: &[Value],
        rng: &mut ChaCha8Rng,
        cache: &mut Cache,
    ) -> EvalResult<Option<(usize, u64)>> {
        if !cache.incremental {
            // The reference: every list the cache still trusts is rebuilt from fresh decisions.
            for action in 0..self.counts.len() {
                if cache.fresh(action) {
                    cache.listed[action].0 = 0;
                    self.list(machine, state, action, cache);
                }
            }
        }
        let mut total = cache.total();
        for _ in 0..REJECTIONS {
            if total <= 0.0 {
                return Ok(None);
            }
            let action = draw(&cache.weights, rng.random_range(0.0..total));
            if cache.fresh(action) {
                let list = &cache.listed[action].1;
                let index = list[rng.random_range(0..list.len())] as u64;
                // A candidate whose deciding failed reports the failure, as drawing it would.
                self.decide(machine, state, action, index, cache)?;
                return Ok(Some((action, index)));
            }
            let index = rng.random_range(0..self.counts[action] as u64);
            if self.decide(machine, state, action, index, cache)? {
                return Ok(Some((action, index)));
            }
            if self.listable[action] && cache.reject(action) as f64 >= self.counts[action] {
                self.list(machine, state, action, cache);
                total = cache.total();
            }
        }
        for action in 0..self.counts.len() {
            if self.listable[action] && self.per[action] > 0.0 {
                self.list(machine, state, action, cache);
            }
        }
        self.pick_enumerated(machine, state, rng, cache)
    }

    /// Few instances of the unlisted actions are enabled: enumerates them all (at most a
    /// million per action) and picks one, or a listed candidate, by weight.
    fn pick_enumerated(
        &self,
        machine: &Machine,
        state: &[Value],
        rng: &mut ChaCha8Rng,
        cache: &mut Cache,
    ) -> EvalResult<Option<(usize, u64)>> {
        let mut enabled: Vec<(usize, u64)> = Vec::new();
        for action in 0..self.counts.len() {
            if self.per[action] <= 0.0 {
                continue;
            }
            if cache.fresh(action) {
                let listed = &cache.listed[action].1;
                enabled.extend(listed.iter().map(|&i| (action, i as u64)));
                continue;
            }
            for index in 0..(self.counts[action] as u64).min(1_000_000) {
                if self.decide(machine, state, action, index, cache)? {
                    enabled.push((action, index));
                }
            }
        }
        let total: f64 = enabled.iter().map(|e| self.per[e.0]).sum();
        if enabled.is_empty() || total <= 0.0 {
            return Ok(None);
        }
        let mut r = rng.random_range(0.0..total);
        let mut chosen = enabled[enabled.len() - 1];
        for &e in &enabled {
            if r < self.per[e.0] {
                chosen = e;
                break;
            }
            r -= self.per[e.0];
        }
        self.decide(machine, state, chosen.0, chosen.1, cache)?;
        Ok(Some(chosen))
    }
}

/// The position whose share of the total of `weights` holds `r`.
fn draw(weights: &[f64], mut r: f64) -> usize {
    let mut last = 0;
    for (k, &w) in weights.iter().enumerate() {
        if w <= 0.0 {
            continue;
        }
        if r < w {
            return k;
        }
        r -= w;
        last = k;
    }
    last // rounding took `r` past the end
}

/// What a run knew about one action instance when it last decided it.
enum Status {
    /// Not enabled.
    Disabled,
    /// Enabled, with the plan for taking it.
    Enabled(Plan),
    /// Deciding failed (reported if the instance is drawn).
    Failed(RunError),
}

/// Enabledness of action instances, kept across steps: a step invalidates only the actions
/// whose preconditions read a variable it changed, so an action's list of enabled instances is
/// rebuilt only then, and drawing an unlisted instance usually costs a lookup.
pub(crate) struct Cache {
    /// Per action, a status per instance index with the generation of the action it was
    /// decided in (`None`: too many instances to keep).
    status: Vec<Option<Vec<(u64, Status)>>>,
    /// Per action, how many times its statuses were invalidated: a status decided in an
    /// earlier generation is stale, so invalidating costs one increment, not a sweep.
    generation: Vec<u64>,
    /// Per action, the generation its candidates were listed in, and the candidates.
    listed: Vec<(u64, Vec<u32>)>,
    /// Per action, the generation and how many of its drawn instances were disabled in it.
    rejected: Vec<(u64, u32)>,
    /// Per action, the weight of its candidates ([`Sampler::weight`]): set when it is listed
    /// and when a step invalidates it.
    weights: Vec<f64>,
    /// Per action, the weight of all its instances: its weight while it has no up-to-date list.
    unlisted: Vec<f64>,
    /// Whether statuses are kept from one state to the next (else every state is decided
    /// afresh: the reference the kept statuses must agree with).
    incremental: bool,
}

impl Cache {
    /// An empty cache for `sampler`'s actions; `incremental` keeps statuses across steps.
    pub(crate) fn new(sampler: &Sampler, incremental: bool) -> Cache {
        let unlisted: Vec<f64> = (0..sampler.counts.len())
            .map(|action| sampler.per[action] * sampler.counts[action])
            .collect();
        Cache {
            status: sampler
                .counts
                .iter()
                .map(|&n| {
                    // Generation 0 is never current: every status starts stale.
                    (n <= MAX_CACHED_INSTANCES)
                        .then(|| (0..n as usize).map(|_| (0, Status::Disabled)).collect())
                })
                .collect(),
            generation: vec![1; sampler.counts.len()],
            listed: vec![(0, Vec::new()); sampler.counts.len()],
            rejected: vec![(0, 0); sampler.counts.len()],
            weights: unlisted.clone(),
            unlisted,
            incremental,
        }
    }

    /// Forgets what a step that changed the slots marked in `changed` may have changed.
    pub(crate) fn invalidate_with(&mut self, machine: &Machine, changed: &[bool]) {
        for (action, generation) in self.generation.iter_mut().enumerate() {
            if machine.action_reads(action).touched(changed) {
                *generation += 1;
                // No list is up to date now: every instance is a candidate.
                self.weights[action] = self.unlisted[action];
            }
        }
    }

    /// The sum of the actions' weights, added in action order so that it does not depend on
    /// the run's history.
    fn total(&self) -> f64 {
        self.weights.iter().sum()
    }

    /// Whether `action`'s list of candidates is up to date.
    fn fresh(&self, action: usize) -> bool {
        self.listed[action].0 == self.generation[action]
    }

    /// Counts a disabled draw of `action`: how many there were in its current generation.
    fn reject(&mut self, action: usize) -> u32 {
        let generation = self.generation[action];
        let (at, n) = &mut self.rejected[action];
        if *at != generation {
            *at = generation;
            *n = 0;
        }
        *n += 1;
        *n
    }
}
