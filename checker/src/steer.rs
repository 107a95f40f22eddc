//! Execution steering (CrystalBall §3.3, §4.3): a seeded random run of a composite that, every
//! few steps, predicts the consequences of its current state (or of a state some steps old, as
//! a node with stale knowledge would) and, when a future violates an invariant, installs a
//! *filter* on the first event on that path that a node controls — a local action it may
//! postpone, or a message delivery it may drop or postpone — after checking by a second
//! prediction that the filter removes the predicted violation. Environment actions (the
//! composite's inputs: client requests, crashes) and network actions (loss) are never filtered.
//! The *immediate safety check* executes a chosen step on a copy first and takes another if the
//! step would violate an invariant.
//!
//! Steps are drawn with the weights of `ioa run --random --weights`; an action of weight 0 never
//! happens in the run, so predictions leave it out too (it is the campaign's environment
//! assumption, e.g. no message loss in the second round of CrystalBall's Paxos scenario).
//!
//! Every choice comes from the seed, and predictions are bounded by a number of states (not by
//! time), so a seed gives the same run on every machine. A steered run is an ordinary run of the
//! model: its steps are executed by the interpreter and it is returned as a path.

use crate::model::{MachineError, MachineModel, MachineStep};
use crate::predict::{predict, PredictOptions};
use crate::system::{ActionClass, SystemView};
use interpreter::machine::State;
use interpreter::runner::Weights;
use ioa_lang::ast::ActionKind;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::{Duration, Instant};

/// How a run is steered.
#[derive(Debug, Clone)]
pub struct SteerOptions {
    /// Steps per run.
    pub steps: u64,
    /// Predict every this many steps (0: never, an unsteered run).
    pub predict_every: u64,
    /// How far predictions look.
    pub predict_depth: u32,
    /// States one prediction may visit.
    pub predict_states: u64,
    /// Predict from the state this many steps old.
    pub view_lag: usize,
    /// Execute each step on a copy first and refuse one that violates an invariant.
    pub immediate_check: bool,
    /// How steps are drawn: an action's weight is shared by its instances, as in
    /// `ioa run --random --weights` (default: every action weight 1).
    pub weights: Weights,
}

/// What one run did.
#[derive(Debug, Clone, Default)]
pub struct SteeredRun {
    /// The steps from the start state.
    pub path: Vec<MachineStep>,
    /// The invariant violated by the last state, if any.
    pub violated: Option<usize>,
    /// Predictions made.
    pub predictions: u64,
    /// Predictions that found a violating future.
    pub predicted_violations: u64,
    /// Filters installed (each checked by a second prediction).
    pub filters_installed: u64,
    /// Steps whose choice a filter changed (the step first drawn was filtered).
    pub steps_filtered: u64,
    /// Steps the immediate safety check refused.
    pub steps_refused: u64,
    /// Whether no enabled step was left (after filters and the check).
    pub stuck: bool,
    /// Time spent predicting.
    pub prediction_time: Duration,
}

/// The weight of each action instance of `model` under `weights`: the action's weight shared
/// by its instances, so that a random step picks actions as `ioa run --random` does.
pub fn instance_weights(model: &MachineModel, weights: &Weights) -> Vec<f64> {
    let machine = model.machine();
    let instances = model.instances();
    let mut per_action = std::collections::HashMap::new();
    for inst in instances {
        *per_action.entry(inst.action).or_insert(0u32) += 1;
    }
    instances
        .iter()
        .map(|inst| {
            let a = &machine.actions[inst.action];
            weights.of(&a.name, a.kind) / f64::from(per_action[&inst.action])
        })
        .collect()
}

/// Runs one seeded random run from `start`, steered by `options` (unsteered when
/// `predict_every` is 0 and the immediate check is off); `weights` from [`instance_weights`].
pub fn steered_run(
    model: &MachineModel,
    view: &SystemView,
    start: &State,
    weights: &[f64],
    seed: u64,
    options: &SteerOptions,
) -> Result<SteeredRun, MachineError> {
    let machine = model.machine();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut state = start.clone();
    let mut history: Vec<State> = vec![state.clone()];
    let mut out = SteeredRun::default();
    let mut filters: Vec<u32> = Vec::new();
    // What the run never draws, prediction never explores.
    let never: Vec<u32> = (0..weights.len() as u32)
        .filter(|&k| weights[k as usize] <= 0.0)
        .collect();
    let mut successors = Vec::new();
    for step in 0..options.steps {
        if options.predict_every > 0 && step % options.predict_every == 0 {
            let view_state = history[history.len().saturating_sub(1 + options.view_lag)].clone();
            let started = Instant::now();
            filters = steer(model, view, view_state, options, &never, &mut out)?;
            out.prediction_time += started.elapsed();
        }
        successors.clear();
        crate::explore::Model::successors(model, &state, &mut successors)?;
        if successors.is_empty() {
            break;
        }
        // Draw among the enabled steps by weight; filtered ones and refused ones are drawn
        // around.
        let mut candidates: Vec<(usize, f64)> = (0..successors.len())
            .map(|k| (k, weights[successors[k].0.instance as usize]))
            .filter(|&(_, w)| w > 0.0)
            .collect();
        let chosen = loop {
            let total: f64 = candidates.iter().map(|c| c.1).sum();
            if candidates.is_empty() || total <= 0.0 {
                out.stuck = true;
                break None;
            }
            let mut r = rng.random_range(0.0..total);
            let mut at = candidates.len() - 1;
            for (k, c) in candidates.iter().enumerate() {
                if r < c.1 {
                    at = k;
                    break;
                }
                r -= c.1;
            }
            let (pick, _) = candidates.swap_remove(at);
            let (mstep, next) = &successors[pick];
            if filters.contains(&mstep.instance) {
                out.steps_filtered += 1;
                continue;
            }
            if options.immediate_check
                && machine
                    .failing_invariant(next)
                    .map_err(|(invariant, error)| MachineError::Invariant { invariant, error })?
                    .is_some()
            {
                out.steps_refused += 1;
                continue;
            }
            break Some(pick);
        };
        let Some(pick) = chosen else { break };
        let (mstep, next) = successors.swap_remove(pick);
        out.path.push(mstep);
        state = next;
        history.push(state.clone());
        if let Some(k) = machine
            .failing_invariant(&state)
            .map_err(|(invariant, error)| MachineError::Invariant { invariant, error })?
        {
            out.violated = Some(k);
            break;
        }
    }
    Ok(out)
}

/// One prediction from `from`: the filters to apply until the next one.
fn steer(
    model: &MachineModel,
    view: &SystemView,
    from: State,
    options: &SteerOptions,
    never: &[u32],
    out: &mut SteeredRun,
) -> Result<Vec<u32>, MachineError> {
    let mut popts = PredictOptions {
        max_depth: Some(options.predict_depth),
        prune: true,
        max_violations: 1,
        max_states: options.predict_states,
        blocked: never.to_vec(),
        ..PredictOptions::default()
    };
    out.predictions += 1;
    let report = predict(model, view, from.clone(), &popts)?;
    let Some(p) = report.predictions.first() else {
        return Ok(Vec::new());
    };
    out.predicted_violations += 1;
    // Candidate filters: events on the path a node controls, first first.
    for step in &p.path {
        let k = step.instance as usize;
        if !node_controls(model, view, k) {
            continue;
        }
        popts.blocked = never.to_vec();
        popts.blocked.push(step.instance);
        let again = predict(model, view, from.clone(), &popts)?;
        if again.predictions.is_empty() {
            out.filters_installed += 1;
            return Ok(vec![step.instance]);
        }
    }
    Ok(Vec::new())
}

/// Whether instance `k` is an event a node may postpone or drop: a node's local action that is
/// not an input from the environment, or a delivery to a node.
fn node_controls(model: &MachineModel, view: &SystemView, k: usize) -> bool {
    match view.classes[k] {
        Some(ActionClass::MessageHandler { .. }) => true,
        Some(ActionClass::Local { .. }) => {
            let inst = &model.instances()[k];
            model
                .machine()
                .kind_of(inst.action, &inst.args)
                .is_ok_and(|kind| kind != ActionKind::Input)
        }
        _ => false,
    }
}
