//! A state to start a search from: a start state of the model, or state K of a recorded ITF
//! trace (`--from TRACE --at K`, the "live state" of local model checking and consequence
//! prediction), with the run that led to it so that a reported run can be written as one trace
//! from the model's start that `ioa replay` accepts.

use checker::model::MachineModel;
use interpreter::machine::{Machine, State};
use interpreter::runner::RunReport;
use interpreter::trace::Trace;
use std::path::Path;

/// Where a search starts.
pub struct Snapshot {
    /// The state.
    pub state: State,
    /// The run from the model's start to it (no steps for a start state).
    pub prefix: Trace,
    /// The `choose` indices of the prefix's steps (and its start state), as traces record them.
    pub prefix_choices: Vec<Vec<usize>>,
}

impl Snapshot {
    /// The run `prefix` + `steps` (a trace starting at the snapshot) as one trace from the
    /// model's start.
    pub fn extend(&self, tail: Trace, tail_choices: Vec<Vec<usize>>, report: &mut RunReport) {
        (report.trace, report.choices) = self.joined(tail, tail_choices);
    }

    /// The run `prefix` + `tail` and its choices, as one trace from the model's start.
    pub fn joined(&self, tail: Trace, tail_choices: Vec<Vec<usize>>) -> (Trace, Vec<Vec<usize>>) {
        let mut full = self.prefix.clone();
        let mut choices = self.prefix_choices.clone();
        full.steps.extend(tail.steps);
        full.states.extend(tail.states.into_iter().skip(1));
        choices.extend(tail_choices);
        (full, choices)
    }
}

/// The first start state of the model, or state `at` (default: the last) of the trace at
/// `from`; an `Err` says what is wrong with the request (a usage error).
pub fn snapshot(
    machine: &Machine,
    model: &MachineModel,
    from: Option<&Path>,
    at: Option<usize>,
) -> Result<Snapshot, String> {
    let Some(path) = from else {
        let mut starts = Vec::new();
        if checker::explore::Model::initial_states(model, &mut starts).is_err() {
            return Err("cannot build the start state".into());
        }
        let Some((_, state)) = starts.into_iter().next() else {
            return Err("the automaton has no start state".into());
        };
        return Ok(Snapshot {
            prefix: Trace::start(state.clone()),
            state,
            prefix_choices: vec![vec![]],
        });
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--from: cannot read `{}`: {e}", path.display()))?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("--from: `{}` is not JSON: {e}", path.display()))?;
    let trace = super::itf::read_trace(machine, &json).map_err(|e| {
        format!(
            "--from: `{}` is not a trace of this model and parameters: {e}",
            path.display()
        )
    })?;
    let last = trace.states.len() - 1;
    let at = at.unwrap_or(last);
    if at > last {
        return Err(format!("--at {at}: the trace has states 0 to {last}"));
    }
    let choices: Vec<Vec<usize>> =
        serde_json::from_value(json["#meta"]["choices"].clone()).unwrap_or_default();
    let mut prefix = trace.clone();
    prefix.states.truncate(at + 1);
    prefix.steps.truncate(at);
    let mut prefix_choices = choices;
    prefix_choices.resize(at + 1, vec![]);
    prefix_choices.truncate(at + 1);
    Ok(Snapshot {
        state: trace.states[at].clone(),
        prefix,
        prefix_choices,
    })
}
