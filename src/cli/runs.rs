//! The runs that `ioa infer` and `ioa trace` feed on, chosen the same way for both: the
//! automaton's schedules (named, or all of them) and/or seeded random runs.

use super::model::{self, Model};
use interpreter::runner::{RunReport, Runner, Weights};
use interpreter::value::Value;
use ioa_lang::ir::{AutomatonId, Schedule};

/// Which runs a user asked for on the command line.
pub struct RunChoice {
    /// The automaton, if named.
    pub automaton: Option<String>,
    /// `NAME=VALUE` parameter values.
    pub params: Vec<String>,
    /// Schedules named with `--schedule`.
    pub schedules: Vec<String>,
    /// `--all-schedules`.
    pub all_schedules: bool,
    /// `--random`.
    pub random: bool,
    /// Random runs.
    pub runs: u64,
    /// Steps per random run (for schedules: at least 10,000 are allowed).
    pub steps: u64,
    /// Seed of the first random run; run k uses `seed + k`.
    pub seed: u64,
    /// `--weights NAME=WEIGHT,…`.
    pub weights: Option<String>,
}

/// The runs resolved against a model.
pub struct Selected<'a> {
    /// The automaton run.
    pub automaton: AutomatonId,
    /// Its name.
    pub name: String,
    /// Its parameter values.
    pub params: Vec<Value>,
    /// The schedules to run, in the model's order.
    pub schedules: Vec<&'a Schedule>,
    /// Whether to add random runs.
    pub random: bool,
    /// Their weights.
    pub weights: Weights,
}

/// One run's identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunId {
    /// A schedule, by name.
    Schedule(String),
    /// A random run, by seed.
    Random(u64),
}

impl RunId {
    /// How messages and witnesses name the run (`schedule NormalRun`, `random run, seed 3`).
    pub fn label(&self) -> String {
        match self {
            RunId::Schedule(s) => format!("schedule {s}"),
            RunId::Random(seed) => format!("random run, seed {seed}"),
        }
    }

    /// A file name stem for the run (`schedule-NormalRun`, `random-3`).
    pub fn file_stem(&self) -> String {
        match self {
            RunId::Schedule(s) => format!("schedule-{s}"),
            RunId::Random(seed) => format!("random-{seed}"),
        }
    }
}

/// Resolves `choice` against the model: the automaton (default: the one every schedule drives,
/// or the only one), its parameters, and the runs. Without `--schedule` and `--random`, every
/// schedule of the automaton is run and random runs are added; `--all-schedules` adds every
/// schedule to what else was asked for.
pub fn select<'a>(m: &'a Model, choice: &RunChoice) -> Result<Selected<'a>, String> {
    let weights = super::run::parse_weights(choice.weights.as_deref())?;
    let driven = m.spec.schedules.first().filter(|first| {
        m.spec
            .schedules
            .iter()
            .all(|s| s.automaton == first.automaton)
    });
    let hint = choice
        .schedules
        .first()
        .map(String::as_str)
        .or(driven.map(|s| s.name.as_str()));
    let automaton = model::pick_automaton(&m.spec, choice.automaton.as_deref(), hint)?;
    let params = model::params(&m.spec, automaton, &choice.params)?;
    let name = m.spec.automata[automaton.0 as usize].name.clone();
    let mut schedules = Vec::new();
    for wanted in &choice.schedules {
        match m.spec.schedules.iter().find(|s| &s.name == wanted) {
            Some(s) if s.automaton == automaton => schedules.push(s),
            Some(s) => {
                return Err(format!(
                    "schedule `{wanted}` drives `{}`, not `{name}`",
                    m.spec.automata[s.automaton.0 as usize].name
                ))
            }
            None => {
                let known: Vec<&str> = m.spec.schedules.iter().map(|s| s.name.as_str()).collect();
                let known = if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                };
                return Err(format!("no schedule `{wanted}`; the model has: {known}"));
            }
        }
    }
    let default = choice.schedules.is_empty() && !choice.random && !choice.all_schedules;
    if choice.all_schedules || default {
        schedules = m
            .spec
            .schedules
            .iter()
            .filter(|s| s.automaton == automaton)
            .collect();
        if schedules.is_empty() && choice.all_schedules {
            return Err(format!(
                "`{name}` has no schedule in the model: give --random [--runs R --steps N]"
            ));
        }
    }
    Ok(Selected {
        automaton,
        name,
        params,
        schedules,
        random: choice.random || default,
        weights,
    })
}

/// Runs every selected run in order (schedules first), handing each report to `each`; stops at
/// the first error `each` returns.
pub fn for_each_run(
    runner: &Runner,
    selected: &Selected,
    choice: &RunChoice,
    each: &mut dyn FnMut(RunId, RunReport) -> Result<(), String>,
) -> Result<(), String> {
    for s in &selected.schedules {
        let report = runner.schedule(s, choice.steps.max(10_000), &mut |_| true);
        each(RunId::Schedule(s.name.clone()), report)?;
    }
    if selected.random {
        for r in 0..choice.runs {
            let seed = choice.seed.wrapping_add(r);
            let report = runner.random(seed, choice.steps, &selected.weights, &mut |_| true);
            each(RunId::Random(seed), report)?;
        }
    }
    Ok(())
}
