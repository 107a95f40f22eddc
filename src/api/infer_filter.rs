//! `ioa infer`'s precision stage: the detector's proposals (and, with `--templates`, the
//! candidates `ioa verify` reads off the program text) are re-checked as declarations of the
//! model, templates are dropped where a reached state refutes them, and all are then checked in
//! one exploration of a small instance (`verify::small_instance`). A candidate the exploration
//! refutes is not printed; a survivor is *verified on the small instance* when the exploration
//! covered every reachable state, and *statistical only* otherwise. Last, the survivors are
//! checked on further random runs, longer than the inference's and with seeds of their own
//! (`--refute-runs`): a small instance cannot show what needs more values (a second ballot's
//! round), and longer runs reach what the inference's did not. As many *swarm* runs follow
//! (`daikon::validate`), each leaving out a random subset of the input actions: a node that
//! may crash crashes early in nearly every uniformly random run, and only runs whose
//! environment never crashes it show what it does alive.

use super::fs::{Appended, OsFileSystem};
use super::model::{self, Model};
use daikon::validate;
use interpreter::machine::Machine;
use interpreter::universe::Universe;
use interpreter::value::Value;
use ioa_lang::ir::{AutomatonId, Spec};
use ioa_lang::loader::FileSystem;
use ioa_lang::span::FileId;
use std::path::{Path, PathBuf};
use std::time::Duration;
use verify::small_instance::{refute_all, Bounds, Pass};

/// Swarm runs per plain further run.
pub const SWARM_RUNS_PER_RUN: u64 = 3;

/// Where a candidate came from.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// The detector's declaration at this position of the report.
    Detector(usize),
    /// A program-text template, with where it was read.
    Template(String),
}

/// One candidate: its declared name, predicate and origin.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// `Inv_3`.
    pub name: String,
    /// The predicate, on one line.
    pub text: String,
    /// Where it came from.
    pub origin: Origin,
}

/// How a printed invariant stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// It held in every reachable state of the small instance.
    Verified,
    /// Only the runs (and an unfinished exploration) support it.
    Statistical,
}

impl Status {
    /// How the output says it.
    pub fn text(self) -> &'static str {
        match self {
            Status::Verified => "verified on the small instance",
            Status::Statistical => "statistical only",
        }
    }
}

/// The outcome of the stage.
pub struct Filtered {
    /// The candidates kept, with their standing.
    pub kept: Vec<(Candidate, Status)>,
    /// Templates a reached state refuted (count).
    pub templates_sampled_out: usize,
    /// Templates that did not type-check (count).
    pub templates_ill_typed: usize,
    /// Candidates the exploration refuted, with the evaluation error if that was why.
    pub refuted: Vec<(Candidate, Option<String>)>,
    /// The exploration, if one ran: its universe file (or `None` for the runs' universe) and
    /// what it did.
    pub exploration: Option<(Option<PathBuf>, Pass)>,
    /// Why no exploration ran, if none did though one was asked for.
    pub skipped: Option<String>,
    /// The further random runs, if any ran: what they were and the candidates they refuted,
    /// each with where it first failed.
    pub further: Option<(validate::Plan, Vec<(Candidate, String)>)>,
    /// Lines of the exploration's universe file that the model has no use for (shown as a
    /// note).
    pub skipped_universe_lines: Option<model::SkippedUniverseLines>,
}

/// Options of the exploration.
pub struct Exploring {
    /// `--explore-universe`.
    pub universe: Option<PathBuf>,
    /// `--explore-time`.
    pub time: f64,
    /// `--explore-depth`.
    pub depth: Option<u32>,
    /// `--explore-states`.
    pub states: Option<u64>,
}

/// Checks the model with `candidates` appended as declarations of automaton `a_name`, dropping
/// (and counting) the ones whose line has an error; returns the spec.
fn check_candidates(
    file: &Path,
    a_name: &str,
    candidates: &mut Vec<Candidate>,
) -> Result<(Spec, usize), String> {
    let model_len = OsFileSystem.read(file)?.len() + 1;
    let mut dropped = 0;
    for _round in 0..5 {
        let mut text = String::new();
        let mut starts = Vec::new();
        for c in candidates.iter() {
            starts.push(model_len + text.len());
            text.push_str(&format!("invariant {} of {a_name}: {}\n", c.name, c.text));
        }
        let fs = Appended::new(file, text);
        let checked = ioa_lang::check_files(&[file.to_path_buf()], &fs);
        if let Some(spec) = checked.spec {
            return Ok((spec, dropped));
        }
        let bad: Vec<usize> = checked
            .diagnostics
            .iter()
            .flat_map(|d| d.labels.iter())
            .filter(|l| l.span.file == FileId(0) && l.span.start as usize >= model_len)
            .map(|l| starts.partition_point(|s| *s <= l.span.start as usize) - 1)
            .collect();
        if bad.is_empty() {
            return Err(checked
                .diagnostics
                .first()
                .map(|d| d.message.clone())
                .unwrap_or_else(|| "the candidates do not check".into()));
        }
        let mut k = 0;
        candidates.retain(|_| {
            k += 1;
            let keep = !bad.contains(&(k - 1));
            if !keep {
                dropped += 1;
            }
            keep
        });
    }
    Err("the candidates still do not check after five rounds of dropping bad ones".into())
}

/// Runs the stage on `candidates` (detector first, then templates) of automaton `a` with
/// parameters `params`; `states` are the reached states (for sampling templates); `further`
/// are the random runs the survivors are checked on last.
#[allow(clippy::too_many_arguments)]
pub fn filter(
    file: &Path,
    m: &Model,
    a: AutomatonId,
    params: &[Value],
    candidates: Vec<Candidate>,
    states: &[Vec<Value>],
    exploring: Option<&Exploring>,
    further: Option<validate::Plan>,
) -> Result<Filtered, String> {
    let (mut filtered, spec) = explore_stage(file, m, a, params, candidates, states, exploring)?;
    if let Some(plan) = further.filter(|p| p.runs > 0) {
        // The plain runs, then three times as many swarm runs (seeds after theirs), which leave
        // out random subsets of the inputs and weigh the actions at random, and so reach what
        // a busy environment and uniform scheduling hide. A swarm run that leaves out the
        // input everything waits for stops at once, so they cost less than plain ones.
        let swarm = validate::Plan {
            seed: plan.seed.wrapping_add(plan.runs),
            runs: plan.runs.saturating_mul(SWARM_RUNS_PER_RUN),
            swarm: true,
            ..plan.clone()
        };
        let mut refuted = Vec::new();
        for p in [&plan, &swarm] {
            let names: Vec<String> = filtered.kept.iter().map(|(c, _)| c.name.clone()).collect();
            if names.is_empty() {
                break;
            }
            let checked = validate::validate(&spec, &m.universe, p, &names)
                .map_err(|e| ioa_lang::diagnostics::IntoDiagnostic::to_diagnostic(&e).message)?;
            filtered.kept.retain(|(c, _)| {
                let failed = checked
                    .invariants
                    .iter()
                    .find(|k| k.name == c.name)
                    .and_then(|k| k.first.as_ref());
                match failed {
                    Some(v) => {
                        refuted.push((c.clone(), violation_text(v)));
                        false
                    }
                    None => true,
                }
            });
        }
        filtered.further = Some((plan, refuted));
    }
    Ok(filtered)
}

/// Where a further run broke a candidate: its seed (and the inputs a swarm run left out) and the
/// step.
fn violation_text(v: &validate::Violation) -> String {
    let at = match (&v.action, &v.error) {
        (_, Some(e)) => format!("state {}, evaluation failed: {e}", v.state),
        (Some(a), None) => format!("after step {a}"),
        (None, None) => "in the start state".to_string(),
    };
    let swarm = if v.omitted.is_empty() {
        String::new()
    } else {
        format!(" (swarm run without {})", v.omitted.join(", "))
    };
    format!("seed {}{swarm}, {at}", v.seed)
}

/// The templates' sampling and the small instance's exploration; also the spec with the
/// candidates declared.
#[allow(clippy::too_many_arguments)]
fn explore_stage(
    file: &Path,
    m: &Model,
    a: AutomatonId,
    params: &[Value],
    mut candidates: Vec<Candidate>,
    states: &[Vec<Value>],
    exploring: Option<&Exploring>,
) -> Result<(Filtered, Spec), String> {
    let a_name = m.spec.automata[a.0 as usize].name.clone();
    let (spec, ill_typed) = check_candidates(file, &a_name, &mut candidates)?;
    let index = |name: &str| {
        spec.invariants
            .iter()
            .position(|i| i.name == name && i.automaton == a)
            .expect("a checked candidate is declared")
    };
    // Templates must hold in every reached state.
    let machine = Machine::new(&spec, &m.universe, a, params.to_vec())
        .map_err(|e| ioa_lang::diagnostics::IntoDiagnostic::to_diagnostic(&e).message)?;
    let templates: Vec<usize> = candidates
        .iter()
        .filter(|c| matches!(c.origin, Origin::Template(_)))
        .map(|c| index(&c.name))
        .collect();
    let refs: Vec<&[Value]> = states.iter().map(|s| s.as_slice()).collect();
    let sampled = verify::sample::sample(&machine, &templates, &refs);
    let out: Vec<String> = templates
        .iter()
        .zip(&sampled)
        .filter(|(_, s)| **s != verify::sample::Sampled::Held)
        .map(|(k, _)| spec.invariants[*k].name.clone())
        .collect();
    candidates.retain(|c| !out.contains(&c.name));
    let mut filtered = Filtered {
        kept: vec![],
        templates_sampled_out: out.len(),
        templates_ill_typed: ill_typed,
        refuted: vec![],
        exploration: None,
        skipped: None,
        further: None,
        skipped_universe_lines: None,
    };
    let Some(ex) = exploring else {
        filtered.kept = candidates
            .into_iter()
            .map(|c| (c, Status::Statistical))
            .collect();
        return Ok((filtered, spec));
    };
    // The small instance: the file given, explore.universe beside the model, or the runs'.
    let path = ex
        .universe
        .clone()
        .or_else(|| Some(file.with_file_name("explore.universe")).filter(|p| p.exists()));
    let text = match &path {
        Some(p) => {
            std::fs::read_to_string(p).map_err(|e| format!("cannot read `{}`: {e}", p.display()))?
        }
        None => m.universe_text.clone(),
    };
    let mut universe = Universe::default();
    match universe.add_reporting(&spec, FileId(u32::MAX), &text, true) {
        Ok(skipped) if !skipped.is_empty() => {
            if let Some(p) = &path {
                filtered.skipped_universe_lines = Some(model::SkippedUniverseLines {
                    file: p.display().to_string(),
                    lines: skipped,
                });
            }
        }
        Ok(_) => {}
        Err(d) => {
            let what = path
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "the runs' universe".into());
            return Err(format!(
                "{what}: {}",
                d.first().map(|d| d.message.clone()).unwrap_or_default()
            ));
        }
    }
    let names: Vec<String> = candidates.iter().map(|c| c.name.clone()).collect();
    let bounds = Bounds {
        time: Some(Duration::from_secs_f64(ex.time.max(0.0))),
        depth: ex.depth,
        states: ex.states,
    };
    let pass = match refute_all(&spec, &universe, (a, params), &names, bounds) {
        Ok(p) => p,
        Err(e) => {
            filtered.skipped = Some(e);
            filtered.kept = candidates
                .into_iter()
                .map(|c| (c, Status::Statistical))
                .collect();
            return Ok((filtered, spec));
        }
    };
    let status = if pass.complete {
        Status::Verified
    } else {
        Status::Statistical
    };
    for c in candidates {
        match pass.refuted.iter().find(|(n, _)| *n == c.name) {
            Some((_, why)) => filtered.refuted.push((c, why.clone())),
            None => filtered.kept.push((c, status)),
        }
    }
    filtered.exploration = Some((path, pass));
    Ok((filtered, spec))
}
