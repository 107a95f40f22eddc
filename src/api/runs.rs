//! The runs that `ioa infer` and `ioa trace` feed on, chosen the same way for both: the
//! automaton's schedules (named, or all of them) and/or seeded random runs.

use super::model::{self, Model};
use interpreter::runner::{RunReport, Runner, Weights};
use interpreter::value::Value;
use ioa_lang::diagnostics::Diagnostic;
use ioa_lang::ir::{AutomatonBody, AutomatonId, Schedule, Spec};

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

/// Resolves `choice` against the model: the automaton (named, or the named schedule's, or else
/// [`own_automaton`]), its parameters, and the runs. Without `--schedule` and `--random`, every
/// schedule of the automaton is run and random runs are added; `--all-schedules` adds every
/// schedule to what else was asked for.
pub fn select<'a>(m: &'a Model, choice: &RunChoice) -> Result<Selected<'a>, String> {
    let weights = parse_weights(choice.weights.as_deref())?;
    let automaton = match (choice.automaton.as_deref(), choice.schedules.first()) {
        (None, None) => own_automaton(&m.spec)?,
        (name, schedule) => model::pick_automaton(&m.spec, name, schedule.map(String::as_str))?,
    };
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

/// The automaton a file is about when none is named: the one the file itself declares, not
/// counting the components of its composites (`examples/paxos/paxos.ioa` declares `PaxosNode`,
/// `Network`, `Paxos` and `PaxosMonotone`; the first two are components). When it declares
/// several, the one its own schedules all drive, else the user must say. A file that declares
/// none (a file of schedules, `global1_schedules.ioa`) is about the automaton all its schedules
/// drive, or the model's only automaton.
pub fn own_automaton(spec: &Spec) -> Result<AutomatonId, String> {
    let root = ioa_lang::span::FileId(0);
    let components: Vec<AutomatonId> = spec
        .automata
        .iter()
        .filter_map(|a| match &a.body {
            AutomatonBody::Composite(c) => Some(c.components.iter().map(|k| k.automaton)),
            AutomatonBody::Primitive(_) => None,
        })
        .flatten()
        .collect();
    let own: Vec<AutomatonId> = (0..spec.automata.len())
        .map(|i| AutomatonId(i as u32))
        .filter(|a| spec.automata[a.0 as usize].span.file == root && !components.contains(a))
        .collect();
    let own_schedules: Vec<&Schedule> = spec
        .schedules
        .iter()
        .filter(|s| s.span.file == root)
        .collect();
    let driven = own_schedules
        .first()
        .map(|s| s.automaton)
        .filter(|a| own_schedules.iter().all(|s| s.automaton == *a));
    match own.as_slice() {
        [one] => Ok(*one),
        [] => {
            let all_driven = spec
                .schedules
                .first()
                .map(|s| s.automaton)
                .filter(|a| spec.schedules.iter().all(|s| s.automaton == *a));
            match driven.or(all_driven) {
                Some(a) => Ok(a),
                None => model::pick_automaton(spec, None, None),
            }
        }
        several => match driven.filter(|a| several.contains(a)) {
            Some(a) => Ok(a),
            None => {
                let names: Vec<&str> = several
                    .iter()
                    .map(|a| spec.automata[a.0 as usize].name.as_str())
                    .collect();
                Err(format!(
                    "the file declares {} automata: say which to run with --automaton ({})",
                    names.len(),
                    names.join(", ")
                ))
            }
        },
    }
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

/// Reads `--weights NAME=WEIGHT,…` (an action's name or kind, a non-negative number).
pub fn parse_weights(text: Option<&str>) -> Result<Weights, String> {
    let mut w = Weights::default();
    for item in text
        .unwrap_or("")
        .split(',')
        .filter(|s| !s.trim().is_empty())
    {
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| format!("--weights takes NAME=WEIGHT items, not `{item}`"))?;
        let v: f64 = value
            .trim()
            .parse()
            .map_err(|_| format!("`{value}` is not a number in --weights"))?;
        if !(v >= 0.0 && v.is_finite()) {
            return Err(format!(
                "weights must be non-negative numbers, not `{value}`"
            ));
        }
        w.by_name.push((name.trim().to_string(), v));
    }
    Ok(w)
}

/// The schedule `name`, which must drive `automaton`, or a message saying what the model has.
pub fn find_schedule<'s>(
    spec: &'s Spec,
    name: &str,
    automaton: AutomatonId,
) -> Result<&'s Schedule, String> {
    let Some(schedule) = spec.schedules.iter().find(|s| s.name == name) else {
        let known: Vec<&str> = spec.schedules.iter().map(|s| s.name.as_str()).collect();
        return Err(format!(
            "no schedule `{name}`; the model has: {}",
            known.join(", ")
        ));
    };
    if schedule.automaton != automaton {
        return Err(format!(
            "schedule `{name}` drives `{}`, not `{}`",
            spec.automata[schedule.automaton.0 as usize].name,
            spec.automata[automaton.0 as usize].name
        ));
    }
    Ok(schedule)
}

/// The spec without its invariants: the runs `ioa infer` and `ioa trace` make must not be cut
/// short by a violated invariant of the model.
pub fn without_invariants(spec: &Spec) -> Spec {
    let mut bare = spec.clone();
    bare.invariants.clear();
    bare
}

/// A run that stopped early (`ioa infer` and `ioa trace` still use its states): its label, its number of states, and the
/// diagnostic saying why.
pub struct StoppedRun {
    /// `schedule S` or `random run (seed N)`.
    pub label: String,
    /// The states it reached.
    pub states: usize,
    /// Why it stopped.
    pub diagnostic: Diagnostic,
}
