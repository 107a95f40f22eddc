//! Consequence prediction (`ioa predict`) as data: the state variables a prediction's hash
//! ignores, and the JSON report. The search is `checker::predict`'s.

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
