//! Paired execution (`ioa pair`) as data: the parameters of a simulation's two automata, and a
//! failed check of the paired run as a diagnostic or JSON. The run itself is `simrel`'s.

use interpreter::machine::{Disabled, Machine};
use interpreter::runner::RunReport;
use interpreter::trace::Trace;
use interpreter::value::Value;
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use ioa_lang::ir::{Simulation, Spec};
use simrel::{Check, Pair, PairFailure};

/// Runs the implementation with a step observer (a schedule, a seeded random run, or a list of
/// action instances).
pub type RunWith<'a> = dyn FnMut(&mut dyn FnMut(&Trace) -> bool) -> RunReport + 'a;

/// What one paired run ended with.
pub struct PairedRun {
    /// The implementation's run.
    pub trace: Trace,
    /// Its `choose` indices per step.
    pub choices: Vec<Vec<usize>>,
    /// The check that failed, if one did.
    pub failure: Option<PairFailure>,
    /// Another reason the implementation's run stopped (a disabled step, an error).
    pub other: Option<Diagnostic>,
    /// The specification's steps, in the paper's log format.
    pub b_log: Vec<String>,
}

impl PairedRun {
    /// Whether a check failed or the run stopped on a problem.
    pub fn failed(&self) -> bool {
        self.failure.is_some() || self.other.is_some()
    }

    /// Why the run failed, as a diagnostic: the failed check, or the other problem.
    pub fn diagnostic(&self, sim: &Simulation) -> Option<Diagnostic> {
        self.failure
            .as_ref()
            .map(|f| failure_diagnostic(sim, f))
            .or_else(|| self.other.clone())
    }
}

/// Runs the implementation `a` with `run` and, through the simulation's proof block, the
/// specification `b` in lockstep, checking each step; `show(k, trace, b_lines)` is called after
/// every step that passed its checks with the specification's new log lines.
pub fn paired_run(
    spec: &Spec,
    sim: &Simulation,
    a: &Machine,
    b: &Machine,
    run: &mut RunWith,
    show: &mut dyn FnMut(usize, &Trace, &[String]),
) -> PairedRun {
    let mut pair: Option<Pair> = None;
    let mut failure = None;
    let mut logged = 0;
    let mut on_step = |t: &Trace| -> bool {
        let k = t.steps.len();
        let result = if k == 0 {
            Pair::start(spec, sim, a, b, &t.states[0]).map(|p| pair = Some(p))
        } else {
            let s = &t.steps[k - 1];
            match pair.as_mut() {
                Some(p) => p.step(k, s.action, s.kind, &s.args, &t.states[k - 1], &t.states[k]),
                None => Ok(()),
            }
        };
        if result.is_ok() {
            let new: &[String] = pair.as_ref().map_or(&[], |p| &p.b_log[logged..]);
            show(k, t, new);
            logged += new.len();
        }
        match result {
            Ok(()) => true,
            Err(f) => {
                failure = Some(f);
                false
            }
        }
    };
    let report = run(&mut on_step);
    let other = if failure.is_none() {
        super::diagnose::stop_diagnostic(a, &report)
    } else {
        None
    };
    PairedRun {
        trace: report.trace,
        choices: report.choices,
        failure,
        other,
        b_log: pair.map(|p| p.b_log).unwrap_or_default(),
    }
}

/// An action instance of the implementation: the action and its arguments.
pub type Instance = (usize, Vec<Value>);

/// Shrinks a failed paired run to a shorter run of the implementation that still fails a check
/// (`again` re-runs a list of action instances paired); `None` when no shorter one fails.
pub fn shrink_paired(
    failed: &PairedRun,
    again: &mut dyn FnMut(&[Instance]) -> PairedRun,
) -> Option<PairedRun> {
    let steps: Vec<Instance> = failed
        .trace
        .steps
        .iter()
        .map(|s| (s.action, s.args.clone()))
        .collect();
    let mut fails = |list: &[Instance]| {
        let run = again(list);
        run.failed().then(|| {
            run.trace
                .steps
                .iter()
                .map(|s| (s.action, s.args.clone()))
                .collect()
        })
    };
    let short = interpreter::shrink::shrink(steps.clone(), 2_000, &mut fails);
    (short.len() < steps.len())
        .then(|| again(&short))
        .filter(PairedRun::failed)
}

/// The parameters of the two automata of a paired run.
pub struct PairParams {
    /// The implementation's values.
    pub a: Vec<interpreter::value::Value>,
    /// The specification's values.
    pub b: Vec<interpreter::value::Value>,
    /// The implementation's as `NAME=VALUE` in its own parameter names (what its trace records,
    /// for `ioa replay`).
    pub a_given: Vec<String>,
}

/// The parameter values of the implementation and the specification. A name of the
/// simulation's header (`k` of `from ABP(k) to Spec(k)`) gives its value to every parameter it
/// names; any other `NAME=VALUE` goes to whichever of the two automata declares a parameter
/// `NAME` that the header does not name (both, if both do). A name that matches nothing, and a
/// parameter named by the header but given by its own name, are errors.
pub fn pair_params(
    spec: &ioa_lang::ir::Spec,
    sim: &ioa_lang::ir::Simulation,
    given: &[String],
) -> Result<PairParams, String> {
    let sides = [sim.from, sim.to];
    let mut mine: [Vec<String>; 2] = Default::default();
    for g in given {
        let (name, value) = match g.split_once('=') {
            Some((n, v)) => (n.trim(), v.trim()),
            None => (g.trim(), ""),
        };
        if let Some(p) = sim.params.iter().find(|p| p.name == name) {
            for &(a, k) in &p.binds {
                let own = &spec.automata[a.0 as usize].params[k as usize].name;
                for (side, id) in sides.iter().enumerate() {
                    if *id == a {
                        mine[side].push(format!("{own}={value}"));
                    }
                }
            }
            continue;
        }
        let mut found = false;
        for (side, id) in sides.iter().enumerate() {
            let aut = &spec.automata[id.0 as usize];
            let Some(k) = aut.params.iter().position(|p| p.name == name) else {
                continue;
            };
            if let Some(h) = sim.header_param(*id, k as u32) {
                return Err(format!(
                    "parameter `{name}` of `{}` is `{}` in the header of simulation `{}`: give `--param {}=VALUE`",
                    aut.name, h.name, sim.name, h.name
                ));
            }
            mine[side].push(g.clone());
            found = true;
        }
        if !found {
            let header = if sim.params.is_empty() {
                String::new()
            } else {
                let names: Vec<&str> = sim.params.iter().map(|p| p.name.as_str()).collect();
                format!(", and the simulation's header names {}", names.join(", "))
            };
            return Err(format!(
                "neither `{}` nor `{}` has a parameter `{name}`{header}",
                spec.automata[sim.from.0 as usize].name, spec.automata[sim.to.0 as usize].name
            ));
        }
    }
    for p in &sim.params {
        let named = p.binds.iter().any(|&(a, k)| {
            let own = &spec.automata[a.0 as usize].params[k as usize].name;
            sides.iter().enumerate().any(|(side, id)| {
                *id == a
                    && mine[side]
                        .iter()
                        .any(|g| g.split_once('=').is_some_and(|(n, _)| n.trim() == own))
            })
        });
        if !named {
            return Err(format!(
                "simulation `{}` needs a value for its parameter `{}`: add `--param {}=VALUE`",
                sim.name, p.name, p.name
            ));
        }
    }
    Ok(PairParams {
        a: super::model::params(spec, sim.from, &mine[0])?,
        b: super::model::params(spec, sim.to, &mine[1])?,
        a_given: mine[0].clone(),
    })
}

/// A failed check as JSON (`ioa pair --format json`).
pub fn failure_json(f: &PairFailure) -> serde_json::Value {
    let (kind, detail) = match &f.check {
        Check::StartNotStartState {
            variable,
            declared,
            given,
        } => (
            "start-not-start-state",
            serde_json::json!({ "variable": variable, "declared": declared, "given": given }),
        ),
        Check::NotEnabled { action, reason, .. } => (
            "not-enabled",
            serde_json::json!({ "action": action, "values": reads(reason) }),
        ),
        Check::TraceMismatch { expected, fired } => (
            "trace-mismatch",
            serde_json::json!({ "expected": expected, "fired": fired }),
        ),
        Check::Relation { values, .. } => ("relation", serde_json::json!({ "values": values })),
        Check::Error(e) => (
            "error",
            serde_json::json!({ "message": e.to_diagnostic().message }),
        ),
    };
    serde_json::json!({ "step": f.step, "action": f.action, "check": kind, "detail": detail })
}

/// The values a false precondition read.
fn reads(reason: &Disabled) -> Vec<(String, String)> {
    match reason {
        Disabled::Precondition { reads, .. } => reads.clone(),
        _ => vec![],
    }
}

/// The diagnostic for a failed check.
pub fn failure_diagnostic(sim: &ioa_lang::ir::Simulation, f: &PairFailure) -> Diagnostic {
    let at = match &f.action {
        Some(a) => format!("step {} ({a})", f.step),
        None => "the start".to_string(),
    };
    match &f.check {
        Check::StartNotStartState {
            variable,
            declared,
            given,
        } => Diagnostic::error(
            "E0530",
            format!("at {at}: the start block does not build a start state of the specification"),
            sim.span,
        )
        .with_note(format!(
            "{variable} must start as {declared}, but the start block gives {given}"
        )),
        Check::NotEnabled {
            action,
            reason,
            fire,
        } => {
            let mut d = match reason {
                Disabled::Precondition { span, reads, .. } => Diagnostic::error("E0531", format!("at {at}: the proof block fires `{action}`, which is not enabled"), *span)
                    .with_label_message("this part of its precondition is false")
                    .with_note(format!("values: {}", reads.iter().map(|(n, v)| format!("{n} = {v}")).collect::<Vec<_>>().join(", "))),
                _ => Diagnostic::error("E0531", format!("at {at}: the proof block fires `{action}`, which is not an action instance of the specification"), *fire),
            };
            d = d.with_secondary(*fire, "fired here");
            d
        }
        Check::TraceMismatch { expected, fired } => Diagnostic::error(
            "E0532",
            format!("at {at}: the fired actions' external trace differs from the implementation's"),
            sim.span,
        )
        .with_note(format!(
            "the implementation's external action(s): [{}]",
            expected.join(", ")
        ))
        .with_note(format!(
            "the proof block fired external action(s): [{}]",
            fired.join(", ")
        )),
        Check::Relation { conjunct, values } => Diagnostic::error(
            "E0533",
            format!("at {at}: the simulation relation does not hold"),
            *conjunct,
        )
        .with_label_message("this conjunct is false")
        .with_note(format!(
            "values: {}",
            values
                .iter()
                .map(|(n, v)| format!("{n} = {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        Check::Error(e) => {
            let mut d = e.to_diagnostic();
            d.notes.push(format!("at {at}"));
            d
        }
    }
}
