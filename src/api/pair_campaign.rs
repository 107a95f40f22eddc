//! `ioa pair`'s choices and campaigns as data: the simulation and the schedule a paired run
//! uses, the campaign of seeded random paired runs (up to the first failure, shrunk, with its
//! `--report` file), and the JSON documents of its verdicts. Each paired run is
//! [`super::pair::paired_run`]'s.

use super::campaign::{self, CampaignReport, FailureRecord, RunRecord};
use super::pair::{failure_json, shrink_paired, PairedRun, RunWith};
use super::run::RandomRuns;
use interpreter::machine::Machine;
use interpreter::runner::Runner;
use ioa_lang::ir::{AutomatonId, Schedule, Simulation, Spec};
use ioa_lang::source_map::SourceMap;

/// The simulation `name` (default: the only one), or a message listing those the model has.
pub fn find_simulation<'s>(spec: &'s Spec, name: Option<&str>) -> Result<&'s Simulation, String> {
    let sim = match name {
        Some(n) => spec.simulations.iter().find(|s| s.name == n),
        None if spec.simulations.len() == 1 => spec.simulations.first(),
        None => None,
    };
    sim.ok_or_else(|| {
        let names: Vec<&str> = spec.simulations.iter().map(|s| s.name.as_str()).collect();
        format!(
            "say which simulation with --simulation NAME; the model has: {}",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        )
    })
}

/// The schedule `name` of the implementation `from`, or a message listing its schedules.
pub fn implementation_schedule<'s>(
    spec: &'s Spec,
    name: &str,
    from: AutomatonId,
) -> Result<&'s Schedule, String> {
    let mine = || spec.schedules.iter().filter(move |s| s.automaton == from);
    mine().find(|s| s.name == name).ok_or_else(|| {
        let known: Vec<&str> = mine().map(|s| s.name.as_str()).collect();
        format!(
            "no schedule `{name}` for `{}`; the model has: {}",
            spec.automata[from.0 as usize].name,
            known.join(", ")
        )
    })
}

/// How a campaign of paired runs ended.
pub enum PairedEnd {
    /// A run failed: the run (shrunk when a shorter one fails too), how it is named
    /// (`run 2 of 5 (seed 1)`), and its length before shrinking when it was shrunk.
    Failed {
        /// The failed run, shrunk if it could be.
        outcome: Box<PairedRun>,
        /// `run R of N (seed S)`.
        label: String,
        /// The failed run's length when it was shrunk.
        shrunk_from: Option<usize>,
    },
    /// Every step of every run matched.
    AllMatched {
        /// Runs made (by this shard).
        made: u64,
        /// Steps of the implementation in all.
        steps: usize,
        /// How often each action of the implementation ran, by name.
        per_action: Vec<(String, u64)>,
    },
}

/// Makes the campaign's paired runs of `a` (this shard's; the campaign is described as
/// `ioa run`'s is), stopping at the first that fails,
/// which is shrunk; writes the campaign report when asked (an `Err` says why it could not be).
/// `drive(run, log)` makes one paired run, `log` saying whether its steps are shown.
pub fn paired_campaign(
    sim: &Simulation,
    a: &Machine,
    c: &RandomRuns,
    drive: &mut dyn FnMut(&mut RunWith, bool) -> PairedRun,
) -> Result<PairedEnd, String> {
    let runner = Runner::new(a);
    let write_report = |records: Vec<RunRecord>, failure: Option<FailureRecord>| {
        let Some(path) = c.report else {
            return Ok(());
        };
        CampaignReport::new(
            "pair",
            c.campaign.clone(),
            c.runs,
            c.shard,
            records,
            failure,
        )
        .write(path)
    };
    let mut records = Vec::new();
    let (mut made, mut steps) = (0u64, 0usize);
    let mut fired = vec![0u64; a.actions.len()];
    for r in (0..c.runs).filter(|&r| campaign::mine(c.shard, r)) {
        made += 1;
        let seed = c.seed.wrapping_add(r);
        let o = drive(&mut |cb| runner.random(seed, c.steps, c.weights, cb), true);
        steps += o.trace.steps.len();
        records.push(RunRecord {
            run: r,
            seed,
            steps: o.trace.steps.len() as u64,
            outcome: if o.failed() { "failed" } else { "ok" }.to_string(),
        });
        for st in &o.trace.steps {
            fired[st.action] += 1;
        }
        if !o.failed() {
            continue;
        }
        let found = o.trace.steps.len();
        let shrunk = shrink_paired(&o, &mut |list| {
            drive(&mut |cb| runner.actions(list, cb), false)
        });
        let shown = shrunk.as_ref().unwrap_or(&o);
        let failure = FailureRecord {
            run: r,
            seed,
            detail: failure_detail(sim, a, shown, found, shrunk.is_some()),
        };
        write_report(std::mem::take(&mut records), Some(failure))?;
        let shrunk_from = shrunk.is_some().then_some(found);
        return Ok(PairedEnd::Failed {
            outcome: Box::new(shrunk.unwrap_or(o)),
            label: format!("run {} of {} (seed {seed})", r + 1, c.runs),
            shrunk_from,
        });
    }
    write_report(records, None)?;
    let per_action = a
        .actions
        .iter()
        .zip(&fired)
        .map(|(act, n)| (act.name.clone(), *n))
        .collect();
    Ok(PairedEnd::AllMatched {
        made,
        steps,
        per_action,
    })
}

/// The campaign report's detail of a failed run (`shown`, shrunk when `shrunk`, from `found`
/// steps).
fn failure_detail(
    sim: &Simulation,
    a: &Machine,
    shown: &PairedRun,
    found: usize,
    shrunk: bool,
) -> serde_json::Value {
    let diag = shown.diagnostic(sim);
    let steps = shown.trace.steps.len();
    serde_json::json!({
        "diagnostic": diag.map(|d| d.message),
        "failure": shown.failure.as_ref().map(failure_json),
        "failed_after": found,
        "shrunk_to": shrunk.then_some(steps),
        "log": (1..=steps).map(|k| shown.trace.log_line(a, k)).collect::<Vec<_>>(),
        "specification_steps": shown.b_log,
    })
}

/// The JSON document of a campaign in which every step matched.
pub fn all_matched_json(
    sim: &Simulation,
    made: u64,
    steps: usize,
    per_action: &[(String, u64)],
) -> serde_json::Value {
    let per_action: serde_json::Map<String, serde_json::Value> = per_action
        .iter()
        .map(|(n, k)| (n.clone(), serde_json::Value::from(*k)))
        .collect();
    serde_json::json!({
        "simulation": sim.name, "ok": true, "runs": made, "steps": steps,
        "steps_per_action": per_action,
    })
}

/// The JSON document of one paired run (`what` names it: `schedule S`, `run 2 of 5 …`).
pub fn paired_run_json(
    sim: &Simulation,
    a: &Machine,
    o: &PairedRun,
    what: &str,
    sources: &SourceMap,
) -> serde_json::Value {
    let steps = o.trace.steps.len();
    let lines: Vec<String> = (1..=steps).map(|k| o.trace.log_line(a, k)).collect();
    let diag = o.diagnostic(sim);
    serde_json::json!({
        "simulation": sim.name,
        "ok": diag.is_none(),
        "run": what,
        "steps": steps,
        "implementation_trace": lines,
        "specification_steps": o.b_log,
        "failure": o.failure.as_ref().map(failure_json),
        "diagnostic": diag.as_ref().map(|d| ioa_lang::diagnostics::to_json(d, sources)),
    })
}
