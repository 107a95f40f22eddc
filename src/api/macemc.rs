//! MaceMC's liveness search (`ioa liveness`) as data: the evidence about a dead path's states
//! as JSON, and how confident the search is that a state is dead. The search is
//! `checker::liveness::macemc`'s. Also the campaign report's records and the throughput line.

use super::campaign::{FailureRecord, RunRecord};
use super::liveness_common::{log_lines, replay};
use super::numbers::{count, thousands};
use checker::liveness::macemc::{
    Critical, Evidence, Exact, SearchReport, SearchStats, WalkOutcome,
};
use checker::model::MachineModel;
use ioa_lang::diagnostics::Diagnostic;

/// The evidence about one state of a dead path, for the JSON report.
pub fn evidence_json(e: &Evidence) -> serde_json::Value {
    let exact = e.exact.map(|x| match x {
        Exact::Reaches { states } => serde_json::json!({ "reaches": states }),
        Exact::Never { states } => serde_json::json!({ "never": states }),
        Exact::Budget { states } => serde_json::json!({ "budget": states }),
    });
    serde_json::json!({
        "state": e.state, "walks": e.walks, "reached": e.reached, "exact": exact,
    })
}

/// How sure a critical transition is: what the walks and the exact search found from the
/// states before (`before`) and after (`after`) it.
pub fn confidence(before: &Evidence, after: &Evidence, k: u64, confirm_states: u64) -> String {
    let b = before.state;
    let a = after.state;
    let before_text = match (before.reached, before.exact) {
        (0, Some(Exact::Reaches { states })) => format!(
            "state {b} is live (no walk of {} from it reached the goal, the exact search did after {})",
            before.walks,
            count(states, "state")
        ),
        (r, _) => format!(
            "state {b} is live ({r} of {} from it reached the goal)",
            count(before.walks, "walk")
        ),
    };
    let after_walks = format!(
        "none of {} from it reached the goal",
        count(after.walks, "walk")
    );
    match after.exact {
        // A walk that ended where no action is enabled: its last state is dead as it stands.
        Some(Exact::Never { .. }) if after.walks == 0 => {
            format!("certain: {before_text}; state {a} is dead (no action is enabled in it)")
        }
        Some(Exact::Never { states }) => format!(
            "certain: {before_text}; state {a} is dead ({after_walks}, and the exact search explored all {} reachable from it)",
            count(states, "state")
        ),
        other => {
            let why = match other {
                Some(Exact::Budget { states }) => format!(
                    "the exact search from it stopped at {} (--confirm-states)",
                    count(states, "state")
                ),
                _ if confirm_states == 0 => "no exact search (--confirm-states 0)".to_string(),
                _ => "the exact search's budget was spent (--confirm-states)".to_string(),
            };
            // Were state a live with recovery probability p, k failed walks have probability
            // (1 - p)^k; at most 5% when p ≥ 1 - 0.05^(1/k).
            let walks = after.walks.max(k).max(1) as f64;
            let bound = 100.0 * (1.0 - 0.05f64.powf(1.0 / walks));
            format!(
                "not confirmed: {before_text}; state {a} is dead only by its walks ({after_walks}; {why}): were it live, a walk from it would reach the goal with probability under {bound:.0}% (95% confidence)"
            )
        }
    }
}

/// The campaign report's lines for a search (`--report FILE`): one record per walk, and the
/// failure (a broken invariant or a dead path, re-executed) with its log.
pub fn campaign_records(
    model: &MachineModel,
    report: &SearchReport,
) -> Result<(Vec<RunRecord>, Option<FailureRecord>), Diagnostic> {
    let machine = model.machine();
    let stats = &report.stats;
    let records = report
        .walk_log
        .iter()
        .map(|w| RunRecord {
            run: w.walk,
            seed: w.seed,
            steps: w.steps,
            outcome: match w.outcome {
                WalkOutcome::Live => "live",
                WalkOutcome::Dead => "dead",
                WalkOutcome::Broken => "invariant",
            }
            .to_string(),
        })
        .collect();
    let failure = match (&report.broken, &report.dead) {
        (Some(broken), _) => {
            let run = replay(model, &broken.path)?;
            let steps = run.trace.steps.len();
            let seed = report
                .walk_log
                .iter()
                .find(|w| w.walk == broken.walk)
                .map_or(0, |w| w.seed);
            Some(FailureRecord {
                run: broken.walk,
                seed,
                detail: serde_json::json!({
                    "invariant": machine.spec.invariants[broken.invariant].name,
                    "log": log_lines(machine, &run.trace, 1, steps).lines().collect::<Vec<_>>(),
                }),
            })
        }
        (None, None) => None,
        (None, Some(dead)) => {
            let run = replay(model, &dead.path)?;
            let steps = run.trace.steps.len();
            let critical = match &dead.critical {
                Critical::Found {
                    step,
                    live,
                    before,
                    after,
                } => serde_json::json!({
                    "found": {
                        "step": step,
                        "live_path_steps": live.len() - 1,
                        "before": evidence_json(before),
                        "after": evidence_json(after),
                    }
                }),
                Critical::TooShort { at } => serde_json::json!({ "too_short": at }),
                Critical::DeadAtStart { at, evidence } => serde_json::json!({
                    "dead_at_start": at, "evidence": evidence_json(evidence)
                }),
                Critical::NotDead { .. } => serde_json::json!("not_dead"),
            };
            let seed = report
                .walk_log
                .iter()
                .find(|w| w.walk == dead.walk)
                .map_or(0, |w| w.seed);
            Some(FailureRecord {
                run: dead.walk,
                seed,
                detail: serde_json::json!({
                    "walk_start": dead.walk_start,
                    "obligation_at": dead.obligation_at,
                    "deadlocked": dead.deadlocked,
                    "critical": critical,
                    "recover_walks": stats.recover_walks,
                    "log": log_lines(machine, &run.trace, 1, steps).lines().collect::<Vec<_>>(),
                }),
            })
        }
    };
    Ok((records, failure))
}

/// The search's throughput line: walks, steps, rates, exact searches and time.
pub fn throughput(stats: &SearchStats) -> String {
    let walks_total = stats.walks + stats.recover_walks;
    let secs = stats.walk_time.as_secs_f64().max(1e-9);
    let exact = if stats.exact_searches > 0 {
        let searches = match stats.exact_searches {
            1 => "1 exact search".to_string(),
            n => format!("{} exact searches", thousands(n)),
        };
        format!(
            "; {searches} to confirm ({} stored)",
            count(stats.exact_states, "state")
        )
    } else {
        String::new()
    };
    format!(
        "{} ({} from the frontier, {} in FindCriticalTransition), {} steps; {} walks/s, {} steps/s{exact}; time {:.2} s",
        count(walks_total, "walk"),
        thousands(stats.walks),
        thousands(stats.recover_walks),
        thousands(stats.steps),
        thousands((walks_total as f64 / secs) as u64),
        thousands((stats.steps as f64 / secs) as u64),
        stats.elapsed.as_secs_f64()
    )
}

/// The verdict on a dead path whose critical transition (step `step`, logged as `line`) was
/// placed: violated when the exact search confirmed the state after it dead, else suspected.
pub fn found_verdict(
    name: &str,
    step: usize,
    line: &str,
    after: &Evidence,
    walk: u64,
    walks: u64,
    depth_max: u64,
) -> String {
    match after.exact {
        Some(Exact::Never { .. }) if after.walks == 0 => format!(
            "violated: {name} fails: state {step} cannot reach the goal (no action is enabled in it; the dead path came from walk {} of at most {} steps); critical transition {line}",
            walk + 1,
            depth_max
        ),
        Some(Exact::Never { states }) => format!(
            "violated: {name} fails: state {step} cannot reach the goal (the exact search explored all {} reachable from it; the dead path came from walk {} of at most {} steps); critical transition {line}",
            count(states, "state"),
            walk + 1,
            depth_max
        ),
        _ => format!(
            "suspected dead after {} of length {}: {name} fails (critical transition {line}, not confirmed); not a proof",
            count(walks, "walk"),
            depth_max
        ),
    }
}

/// The verdict on a dead path whose critical transition could not be placed: `(true, …)` when
/// the property is violated from the obligation's start, `(false, …)` for C2 (the walks are too
/// short). A `Found` critical transition is [`found_verdict`]'s.
pub fn unplaced_verdict(name: &str, critical: &Critical) -> (bool, String) {
    match critical {
        Critical::Found { .. } => (true, String::new()),
        Critical::TooShort { at } => (
            false,
            format!(
                "C2: state {at} still recovers past half the path; the walks are too short to place the critical transition (raise --depth-max)"
            ),
        ),
        Critical::DeadAtStart { at, evidence } => match evidence.exact {
            Some(Exact::Never { states }) => (
                true,
                format!(
                    "violated: {name} fails from the start: state {at}, where the obligation starts, cannot reach the goal (the exact search explored all {} reachable from it); there is no critical transition",
                    count(states, "state")
                ),
            ),
            _ => (
                false,
                format!(
                    "C2: no walk recovers even from state {at}, where the obligation starts: the critical transition cannot be placed (raise --depth-max, or the property fails from the start)"
                ),
            ),
        },
        Critical::NotDead { evidence } => (
            false,
            format!(
                "C2: the path is not dead: from its last state, state {}, {}; the walks are too short (raise --depth-max)",
                evidence.state,
                match evidence.exact {
                    Some(Exact::Reaches { states }) => format!(
                        "the exact search reaches the goal (after {})",
                        count(states, "state")
                    ),
                    _ => "a walk reaches the goal".to_string(),
                },
            ),
        ),
    }
}
