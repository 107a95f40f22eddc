//! Execution steering campaigns (`ioa run --random --steer`) as data: the tally of a campaign's
//! seeds run unsteered, steered, and steered with the immediate safety check. The runs are
//! `checker::steer`'s.

use super::numbers::thousands;
use checker::steer::SteeredRun;
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
