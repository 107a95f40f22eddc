//! Feeding `ioa infer`'s runs to the invariant detector: every run's states go to the daikon
//! engine, and on request to the per-action transition facts (`--transitions`), to the list
//! of distinct reached states the templates are sampled on (`--templates`) and to the Daikon
//! files (`--daikon DIR`). The runs themselves are [`super::runs`]'s.

use super::runs::{self, RunId, Selected, StoppedRun};
use super::trace_files::DaikonFiles;
use daikon::transitions::Transitions;
use daikon::{Engine, GrammarOptions, VarModel};
use interpreter::machine::Machine;
use interpreter::runner::{RunReport, Runner};
use interpreter::value::Value;
use std::collections::HashSet;
use std::path::Path;

/// What the runs fed: the detector's engine and what else was asked for.
pub struct Samples<'m, 's> {
    /// The invariant detector, fed every run's states.
    pub engine: Engine<'m, 's>,
    /// Per-action pre/post facts (`--transitions`).
    pub transitions: Option<Transitions<'m>>,
    /// The distinct states reached (kept for `--templates` only).
    pub reached: Vec<Vec<Value>>,
}

/// What to collect besides the engine's samples.
pub struct Collect<'a> {
    /// Per-action transition facts.
    pub transitions: bool,
    /// The distinct reached states.
    pub reached: bool,
    /// The folder of the Daikon files.
    pub daikon: Option<&'a Path>,
}

/// Makes the chosen runs of `machine` and feeds them; `stopped` hears of each run that stopped
/// early. Returns the samples and the Daikon files written, or a message (a file that could not
/// be written).
pub fn sample<'m, 's>(
    machine: &'m Machine<'s>,
    vars: &'m VarModel,
    grammar: GrammarOptions,
    selected: &Selected,
    choice: &runs::RunChoice,
    collect: &Collect,
    stopped: &mut dyn FnMut(StoppedRun),
) -> Result<(Samples<'m, 's>, Option<Vec<String>>), String> {
    let mut samples = Samples {
        engine: Engine::new(machine, vars, grammar),
        transitions: collect.transitions.then(|| Transitions::new(machine, vars)),
        reached: Vec::new(),
    };
    let mut daikon = collect
        .daikon
        .map(|d| DaikonFiles::create(d, machine))
        .transpose()?;
    // Templates are sampled on the reached states (distinct ones suffice).
    let mut seen = HashSet::new();
    let mut feed = |id: RunId, report: RunReport| -> Result<(), String> {
        let label = id.label();
        if let Some(diagnostic) = super::diagnose::stop_diagnostic(machine, &report) {
            let states = report.trace.states.len();
            stopped(StoppedRun {
                label: label.clone(),
                states,
                diagnostic,
            });
        }
        samples.engine.add_trace(&label, &report.trace);
        if collect.reached {
            for state in &report.trace.states {
                if seen.insert(state.clone()) {
                    samples.reached.push(state.clone());
                }
            }
        }
        if let Some(t) = samples.transitions.as_mut() {
            t.add_trace(&report.trace);
        }
        if let Some(d) = daikon.as_mut() {
            d.trace(&report.trace)?;
        }
        Ok(())
    };
    runs::for_each_run(&Runner::new(machine), selected, choice, &mut feed)?;
    let written = daikon.map(DaikonFiles::finish).transpose()?;
    Ok((samples, written))
}
