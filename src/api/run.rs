//! Runs (`ioa run`) as data: shrinking a random run that violated an invariant to a shorter
//! run that violates the same one, and the campaign of seeded random runs. The runs themselves are the interpreter's `Runner`'s.

use super::campaign::{self, CampaignReport, FailureRecord, RunRecord, Shard};
use interpreter::machine::Machine;
use interpreter::runner::{RunReport, Runner, Stop, Weights};
use interpreter::trace::Trace;
use std::path::Path;

/// A campaign of seeded random runs (`ioa run --random`): run k uses seed `seed + k`.
pub struct RandomRuns<'a> {
    /// Runs in the whole campaign.
    pub runs: u64,
    /// The first run's seed.
    pub seed: u64,
    /// Steps per run.
    pub steps: u64,
    /// How actions are drawn.
    pub weights: &'a Weights,
    /// The shard of the campaign this process makes (`--shard I/N`).
    pub shard: Option<Shard>,
    /// Where the campaign report goes (`--report FILE`).
    pub report: Option<&'a Path>,
    /// What the campaign is, for its report (every option that decides the runs).
    pub campaign: serde_json::Value,
}

/// The run a campaign stopped at: the first that failed, or the only one.
pub struct Stopped {
    /// Its number in the campaign.
    pub run: u64,
    /// Its seed.
    pub seed: u64,
    /// The run (shrunk when it failed and a shorter run fails the same way).
    pub report: RunReport,
    /// The trace's metadata (`seed`, `shrunk`).
    pub meta: serde_json::Value,
    /// How the run is named in messages (`seed 3, shrunk`).
    pub what: String,
    /// The failed run's length when it was shrunk.
    pub shrunk_from: Option<usize>,
}

/// How a campaign ended.
pub enum RandomEnd {
    /// A run failed (or the campaign was one run).
    Stopped(Box<Stopped>),
    /// Every run kept every invariant.
    AllHeld {
        /// Runs made (by this shard).
        made: u64,
        /// Steps in all.
        total_steps: u64,
        /// Runs that ended with no action enabled.
        deadlocks: u64,
    },
}

/// Makes the campaign's runs (this shard's), stopping at the first that fails; writes the
/// campaign report when asked (an `Err` says why it could not be written). `on_step` sees the
/// trace after every step.
pub fn random_runs(
    machine: &Machine,
    runner: &Runner,
    c: &RandomRuns,
    on_step: &mut dyn FnMut(&Trace),
) -> Result<RandomEnd, String> {
    let write_report = |records: Vec<RunRecord>, failure: Option<FailureRecord>| {
        let Some(path) = c.report else {
            return Ok(());
        };
        CampaignReport::new("run", c.campaign.clone(), c.runs, c.shard, records, failure)
            .write(path)
    };
    let mut records = Vec::new();
    let mut total_steps = 0u64;
    let mut deadlocks = 0u64;
    let mut made = 0u64;
    for r in (0..c.runs).filter(|&r| campaign::mine(c.shard, r)) {
        made += 1;
        let seed = c.seed.wrapping_add(r);
        let report = runner.random(seed, c.steps, c.weights, &mut |t| {
            on_step(t);
            true
        });
        total_steps += report.trace.steps.len() as u64;
        if matches!(report.stop, Stop::Deadlock) {
            deadlocks += 1;
        }
        records.push(RunRecord {
            run: r,
            seed,
            steps: report.trace.steps.len() as u64,
            outcome: match (&report.stop, report.ok()) {
                (_, false) => "failed",
                (Stop::Deadlock, _) => "deadlock",
                _ => "ok",
            }
            .to_string(),
        });
        if report.ok() && c.runs != 1 {
            continue;
        }
        let found = report.trace.steps.len();
        let (report, meta, what, shrunk_from) = match shrink_violation(runner, &report) {
            Some(short) => (
                short,
                serde_json::json!({ "seed": seed, "shrunk": true }),
                format!("seed {seed}, shrunk"),
                Some(found),
            ),
            None => (
                report,
                serde_json::json!({ "seed": seed }),
                format!("seed {seed}"),
                None,
            ),
        };
        if !report.ok() {
            let message = super::diagnose::stop_diagnostic(machine, &report).map(|d| d.message);
            let steps = report.trace.steps.len();
            let detail = serde_json::json!({
                "diagnostic": message,
                "failed_after": found,
                "shrunk_to": shrunk_from.map(|_| steps),
                "log": (1..=steps).map(|k| report.trace.log_line(machine, k)).collect::<Vec<_>>(),
            });
            let failure = FailureRecord {
                run: r,
                seed,
                detail,
            };
            write_report(std::mem::take(&mut records), Some(failure))?;
        } else {
            write_report(records.clone(), None)?;
        }
        return Ok(RandomEnd::Stopped(Box::new(Stopped {
            run: r,
            seed,
            report,
            meta,
            what,
            shrunk_from,
        })));
    }
    write_report(records, None)?;
    Ok(RandomEnd::AllHeld {
        made,
        total_steps,
        deadlocks,
    })
}

/// Shrinks a random run that violated an invariant to a shorter run violating the same one.
pub fn shrink_violation(runner: &Runner, report: &RunReport) -> Option<RunReport> {
    let Stop::InvariantViolated { invariant } = report.stop else {
        return None;
    };
    let steps: Vec<(usize, Vec<interpreter::value::Value>)> = report
        .trace
        .steps
        .iter()
        .map(|s| (s.action, s.args.clone()))
        .collect();
    let mut replay = |list: &[(usize, Vec<interpreter::value::Value>)]| {
        let r = runner.actions(list, &mut |_| true);
        match r.stop {
            Stop::InvariantViolated { invariant: k } if k == invariant => Some(
                r.trace
                    .steps
                    .iter()
                    .map(|s| (s.action, s.args.clone()))
                    .collect(),
            ),
            _ => None,
        }
    };
    let short = interpreter::shrink::shrink(steps.clone(), 2_000, &mut replay);
    if short.len() >= steps.len() {
        return None;
    }
    let r = runner.actions(&short, &mut |_| true);
    matches!(r.stop, Stop::InvariantViolated { .. }).then_some(r)
}
