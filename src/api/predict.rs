//! Consequence prediction (`ioa predict`) as data: the state variables a prediction's hash
//! ignores, and the JSON report. The search is `checker::predict`'s.

use super::numbers::{count, thousands};
use checker::predict::PredictReport;
use interpreter::machine::Machine;

/// The slots named by `--hash-ignore`: `x` in every member that has it, or `P[0].x`.
pub fn ignored_slots(machine: &Machine, names: &[String]) -> Result<Vec<usize>, String> {
    let slots = machine.slot_names();
    let mut out = Vec::new();
    for name in names {
        let hits: Vec<usize> = slots
            .iter()
            .enumerate()
            .filter(|(_, s)| *s == name || s.rsplit_once('.').is_some_and(|(_, v)| v == name))
            .map(|(k, _)| k)
            .collect();
        if hits.is_empty() {
            return Err(format!(
                "--hash-ignore: no state variable `{name}` (variables look like {})",
                slots.iter().take(3).cloned().collect::<Vec<_>>().join(", ")
            ));
        }
        out.extend(hits);
    }
    Ok(out)
}

/// The JSON report.
pub fn json(
    machine: &Machine,
    report: &PredictReport,
    bfs: Option<&PredictReport>,
) -> serde_json::Value {
    let one = |r: &PredictReport| {
        serde_json::json!({
            "predictions": r.predictions.iter().map(|p| serde_json::json!({
                "invariant": machine.spec.invariants[p.invariant].name,
                "steps": p.path.len(),
            })).collect::<Vec<_>>(),
            "states": r.stats.states,
            "transitions": r.stats.transitions,
            "local_skipped": r.stats.local_skipped,
            "depth": r.stats.depth,
            "complete": r.complete,
            "seconds": r.stats.elapsed.as_secs_f64(),
        })
    };
    serde_json::json!({
        "automaton": machine.spec.automata[machine.root.0 as usize].name,
        "consequence": one(report),
        "bfs": bfs.map(one),
    })
}

/// The text report's closing lines: the verdict from the state searched (`prefix_steps` steps
/// into the trace it came from), up to nine more predictions, and the search's counts.
pub fn summary(
    machine: &Machine,
    report: &PredictReport,
    prefix_steps: usize,
    max_depth: u32,
    quiet: bool,
) -> String {
    let s = &report.stats;
    let from = if prefix_steps == 0 {
        "the start state".to_string()
    } else {
        format!("state {prefix_steps} of the trace")
    };
    let verdict = match (report.predictions.len(), report.complete) {
        (0, true) => format!(
            "no violation predicted: every future of up to {} from {from} keeps every invariant",
            count(max_depth as u64, "step")
        ),
        (0, false) => format!("no violation predicted from {from} before the time limit"),
        (n, _) => format!(
            "{} predicted from {from}; the shortest takes {} (steps {} to {} above)",
            count(n as u64, "violation"),
            count(report.predictions[0].path.len() as u64, "step"),
            prefix_steps + 1,
            prefix_steps + report.predictions[0].path.len()
        ),
    };
    let mut out = format!("{verdict}\n");
    for p in report.predictions.iter().skip(1).take(9) {
        out.push_str(&format!(
            "  also: `{}` after {}\n",
            machine.spec.invariants[p.invariant].name,
            count(p.path.len() as u64, "step")
        ));
    }
    let time = if quiet {
        String::new()
    } else {
        format!(", {:.3} s", s.elapsed.as_secs_f64())
    };
    out.push_str(&format!(
        "consequence search: {} states, {} explored, {} local action instances not tried, depth {}{time}\n",
        thousands(s.states),
        count(s.transitions, "transition"),
        thousands(s.local_skipped),
        s.depth,
    ));
    out
}

/// The consequence search and plain breadth-first search side by side (`--compare-bfs`).
pub fn comparison(report: &PredictReport, bfs: &PredictReport, quiet: bool) -> String {
    let mut out = String::new();
    let (c, b) = (&report.stats, &bfs.stats);
    out.push_str(&format!(
        "{:<16} {:>16} {:>16}\n",
        "", "consequence", "breadth-first"
    ));
    for (name, x, y) in [
        ("states", thousands(c.states), thousands(b.states)),
        (
            "transitions",
            thousands(c.transitions),
            thousands(b.transitions),
        ),
        ("depth", c.depth.to_string(), b.depth.to_string()),
        (
            "violations",
            report.predictions.len().to_string(),
            bfs.predictions.len().to_string(),
        ),
        (
            "time (s)",
            format!("{:.3}", c.elapsed.as_secs_f64()),
            format!("{:.3}", b.elapsed.as_secs_f64()),
        ),
    ] {
        if quiet && name == "time (s)" {
            continue;
        }
        out.push_str(&format!("{name:<16} {x:>16} {y:>16}\n"));
    }
    if quiet {
        out.push_str(&format!(
            "breadth-first/consequence: {:.1}x the transitions\n",
            b.transitions as f64 / c.transitions.max(1) as f64
        ));
    } else if c.elapsed.as_secs_f64() > 0.0 {
        out.push_str(&format!(
            "breadth-first/consequence: {:.1}x the transitions, {:.1}x the time\n",
            b.transitions as f64 / c.transitions.max(1) as f64,
            b.elapsed.as_secs_f64() / c.elapsed.as_secs_f64()
        ));
    }
    out
}
