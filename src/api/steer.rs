//! Execution steering campaigns (`ioa run --random --steer`) as data: the tally of a campaign's
//! seeds run unsteered, steered, and steered with the immediate safety check. The runs are
//! `checker::steer`'s.

use super::explore::ExploreError;
use super::numbers::thousands;
use super::snapshot::{snapshot, Snapshot};
use checker::model::MachineModel;
use checker::steer::{instance_weights, steered_run, SteerOptions, SteeredRun};
use checker::system::SystemView;
use interpreter::machine::Machine;
use interpreter::runner::Weights;
use interpreter::trace::Trace;
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use std::path::Path;
use std::time::Duration;

/// The campaign's counts.
#[derive(Default)]
pub struct Tally {
    /// Seeds run.
    pub runs: u64,
    /// Unsteered runs with a violation.
    pub unsteered: u64,
    /// Steered runs with a violation.
    pub steered: u64,
    /// Runs steered with the immediate check that still had a violation.
    pub with_check: u64,
    /// Unsteered violations steering avoided.
    pub avoided_by_steering: u64,
    /// Unsteered violations the immediate check caught.
    pub avoided_by_check: u64,
    /// Steps of the runs steered with the check.
    pub steps: u64,
    /// Of those, steps a filter or the check changed.
    pub changed: u64,
    /// Predictions made.
    pub predictions: u64,
    /// Predictions that found a violating future.
    pub predicted: u64,
    /// Filters installed.
    pub filters: u64,
    /// Time spent predicting.
    pub time: Duration,
}

impl Tally {
    /// Counts one seed's three runs: unsteered, steered, steered with the check.
    pub fn add(&mut self, plain: &SteeredRun, steered: &SteeredRun, checked: &SteeredRun) {
        self.runs += 1;
        self.unsteered += u64::from(plain.violated.is_some());
        self.steered += u64::from(steered.violated.is_some());
        self.with_check += u64::from(checked.violated.is_some());
        if plain.violated.is_some() && checked.violated.is_none() {
            if checked.steps_refused > 0 {
                self.avoided_by_check += 1;
            } else {
                self.avoided_by_steering += 1;
            }
        }
        self.steps += checked.path.len() as u64;
        self.changed += checked.steps_filtered + checked.steps_refused;
        self.predictions += steered.predictions + checked.predictions;
        self.predicted += checked.predicted_violations;
        self.filters += checked.filters_installed;
        self.time += steered.prediction_time + checked.prediction_time;
    }

    /// The campaign's table, three lines (the time per prediction left out when `quiet`).
    pub fn text(&self, quiet: bool) -> String {
        let mut out = String::new();
        let pct = |a: u64, b: u64| {
            if b == 0 {
                "-".to_string()
            } else {
                format!("{:.1}%", 100.0 * a as f64 / b as f64)
            }
        };
        out.push_str(&format!(
            "runs with a violation: unsteered {} of {}, steered {}, steered with the immediate check {}\n",
            self.unsteered, self.runs, self.steered, self.with_check
        ));
        out.push_str(&format!(
            "of the {} unsteered violations: avoided by steering {} ({}), caught by the immediate check {} ({}), not avoided {}\n",
            self.unsteered,
            self.avoided_by_steering,
            pct(self.avoided_by_steering, self.unsteered),
            self.avoided_by_check,
            pct(self.avoided_by_check, self.unsteered),
            self.unsteered
                .saturating_sub(self.avoided_by_steering + self.avoided_by_check)
        ));
        let per_call = if quiet || self.predictions == 0 {
            String::new()
        } else {
            format!(
                "; {:.2} ms per prediction",
                self.time.as_secs_f64() * 1000.0 / self.predictions as f64
            )
        };
        out.push_str(&format!(
            "steps changed by filters or the check: {} of {} ({}); {} predictions, {} found a violating future, {} filters installed{per_call}\n",
            thousands(self.changed),
            thousands(self.steps),
            pct(self.changed, self.steps),
            thousands(self.predictions),
            thousands(self.predicted),
            thousands(self.filters),
        ));
        out
    }
}

/// A steering campaign: each seed run unsteered, steered, and steered with the immediate
/// safety check.
pub struct SteerSettings<'a> {
    /// Start from a state of this ITF trace (default: the start state).
    pub from: Option<&'a Path>,
    /// Which state of the trace (default: the last).
    pub at: Option<usize>,
    /// Seeds run.
    pub runs: u64,
    /// The first seed.
    pub seed: u64,
    /// How actions are drawn (`ioa run --random`'s weights).
    pub weights: &'a Weights,
    /// The steered runs' options (`predict_every` and `immediate_check` are set per variant).
    pub options: SteerOptions,
    /// Whether the first steered run is wanted as a trace.
    pub want_trace: bool,
}

/// A run from the model's start with its `choose` indices per step.
pub type TraceWithChoices = (Trace, Vec<Vec<usize>>);

/// What a campaign did.
pub struct SteerOutcome {
    /// The counts.
    pub tally: Tally,
    /// The first run steered with the check, from the model's start (when wanted), or the
    /// diagnostic of its re-execution.
    pub first: Option<Result<TraceWithChoices, Diagnostic>>,
}

/// Runs the campaign; `started` sees the state the runs start from before the first run.
pub fn steering_campaign(
    machine: &Machine,
    s: &SteerSettings,
    started: &mut dyn FnMut(&Snapshot),
) -> Result<SteerOutcome, ExploreError> {
    let machine_error = |e| super::diagnose::machine_error(e, "a step");
    let view = SystemView::new(machine).map_err(|errors| {
        ExploreError::Diagnostics(errors.iter().map(|e| e.to_diagnostic()).collect())
    })?;
    let model = MachineModel::new(machine, None)
        .map_err(|e| ExploreError::Diagnostics(vec![e.to_diagnostic()]))?;
    let start = snapshot(machine, &model, s.from, s.at).map_err(ExploreError::Usage)?;
    let weights = instance_weights(&model, s.weights);
    let plain = SteerOptions {
        predict_every: 0,
        immediate_check: false,
        ..s.options.clone()
    };
    let steered = SteerOptions {
        predict_every: s.options.predict_every,
        ..plain.clone()
    };
    let checked = SteerOptions {
        immediate_check: true,
        ..steered.clone()
    };
    started(&start);
    let mut tally = Tally::default();
    let mut first_steered: Option<SteeredRun> = None;
    for k in 0..s.runs {
        let seed = s.seed + k;
        let run = |o: &SteerOptions| steered_run(&model, &view, &start.state, &weights, seed, o);
        let (a, b, d) = match (run(&plain), run(&steered), run(&checked)) {
            (Ok(a), Ok(b), Ok(d)) => (a, b, d),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
                return Err(ExploreError::Diagnostics(vec![machine_error(e)]))
            }
        };
        tally.add(&a, &b, &d);
        if first_steered.is_none() {
            first_steered = Some(d);
        }
    }
    let first = first_steered.filter(|_| s.want_trace).map(|r| {
        model
            .trace_from(start.state.clone(), &r.path)
            .map(|(tail, tail_choices)| start.joined(tail, tail_choices))
            .map_err(machine_error)
    });
    Ok(SteerOutcome { tally, first })
}
