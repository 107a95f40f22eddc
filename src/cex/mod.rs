//! Honest counterexamples: every counterexample Z3 gives `ioa prove` for an invariant is
//! re-executed by the interpreter before it is printed. A step's counterexample must be a
//! pre-state in which every assumed invariant holds, with the action instance enabled there and
//! a post-state (under some resolution of the effect's `choose`s) in which the claimed invariant
//! is false; a start obligation's must be a start state (each initial value as the interpreter
//! computes it, the `so that` clause true) in which the invariant is false. Z3's model can fail
//! this (model completion, quantifiers over tuples read as uninterpreted sorts, a family's start
//! state): then the obligation is *unknown*, with the check that failed as the reason, never
//! *failed*.
//!
//! The check lives in the root package because it needs both the prover (the model's values)
//! and the interpreter (DESIGN.md §1: neither may depend on the other). It prints nothing.

pub mod values;

use interpreter::eval::Chooser;
use interpreter::machine::{Disabled, Machine, State};
use interpreter::universe::Universe;
use interpreter::value::{Printer, Value};
use ioa_lang::ir::{AutomatonBody, Spec};
use ioa_lang::source_map::SourceMap;
use ioa_lang::span::Span;
use prover_export::obligations::Section;
use prover_export::solve::model::Counterexample;
use prover_export::Obligation;
use std::collections::HashMap;
use values::Reader;

/// The most `choose` resolutions of one effect (or start state) the check tries.
const MAX_RESOLUTIONS: usize = 10_000;

/// What the interpreter made of a counterexample.
#[derive(Debug, Clone)]
pub enum Check {
    /// The interpreter confirms it: the values it checked, to print in place of Z3's.
    Confirmed(Confirmed),
    /// The interpreter rejects it (or cannot evaluate it): why, and the assumed invariant the
    /// pre-state falsifies when that is the reason.
    Rejected(Rejection),
}

/// Why the interpreter rejects a model.
#[derive(Debug, Clone)]
pub struct Rejection {
    /// The reason, as a sentence.
    pub reason: String,
    /// The assumed invariant false in the model's pre-state, when that is the reason.
    pub false_hypothesis: Option<String>,
}

impl From<String> for Rejection {
    fn from(reason: String) -> Self {
        Rejection {
            reason,
            false_hypothesis: None,
        }
    }
}

/// A confirmed counterexample, as the interpreter's values.
#[derive(Debug, Clone)]
pub struct Confirmed {
    /// The sections to print: Z3's, with every value shown replaced by the interpreter's.
    pub sections: Vec<(Section, Vec<(String, String)>)>,
    /// The universe the counterexample lives in (`Node = [0], [1]`), from Z3's model.
    pub universe: Vec<String>,
}

/// Re-executes `cex`, a counterexample Z3 gave for `ob`, with the interpreter. `None` when the
/// obligation is not one the interpreter can re-execute (a simulation's).
pub fn check(
    spec: &Spec,
    sources: &SourceMap,
    ob: &Obligation,
    cex: &Counterexample,
) -> Option<Check> {
    let replay = ob.replay.as_ref()?;
    let values = cex.replay.as_ref()?;
    // Set memberships the model leaves open are completed as non-members first, then (when
    // there are any) as members: the interpreter judges each completed state.
    let first = check_replay(spec, sources, replay, values, cex, false);
    let open = values.state.iter().any(values::has_open_members)
        || values.params.iter().any(values::has_open_members)
        || values.action.iter().any(values::has_open_members);
    Some(match first {
        Ok(c) => Check::Confirmed(c),
        Err(_) if open => match check_replay(spec, sources, replay, values, cex, true) {
            Ok(c) => Check::Confirmed(c),
            Err(second) => Check::Rejected(Rejection {
                reason: format!(
                    "{} (with the set memberships Z3's model leaves open completed as members; as non-members too)",
                    second.reason
                ),
                false_hypothesis: second.false_hypothesis,
            }),
        },
        Err(reason) => Check::Rejected(reason),
    })
}

fn check_replay(
    spec: &Spec,
    sources: &SourceMap,
    replay: &prover_export::obligations::Replay,
    values: &prover_export::solve::model::ReplayValues,
    cex: &Counterexample,
    open_members_in: bool,
) -> Result<Confirmed, Rejection> {
    let aut = &spec.automata[replay.automaton.0 as usize];
    let AutomatonBody::Primitive(prim) = &aut.body else {
        return Err(
            String::from("the interpreter cannot re-execute a composite's obligation").into(),
        );
    };
    let unreadable = |what: &str, e: values::Unreadable| {
        format!("the interpreter cannot read Z3's model: {what} is {}", e.0)
    };
    // The universe first: open types' carriers are the model's elements.
    let mut reader = Reader {
        spec,
        carriers: HashMap::new(),
        open_members_in,
    };
    let mut universe = Universe::default();
    let mut universe_lines = Vec::new();
    let printer = Printer::new(spec);
    for (ty, elements) in &values.carriers {
        let mut converted: Vec<Value> = Vec::new();
        for e in elements {
            let v = reader
                .value(e, ty)
                .map_err(|e| unreadable("an element of the universe", e))?;
            if !converted.contains(&v) {
                converted.push(v);
            }
        }
        converted.sort();
        universe_lines.push(format!(
            "{} = {}",
            interpreter::universe::type_text(spec, ty),
            converted
                .iter()
                .map(|v| printer.show(v))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        universe.set_carrier(spec, ty, converted.clone());
        reader.carriers.insert(ty.clone(), converted);
    }
    let params: Vec<Value> = values
        .params
        .iter()
        .zip(&aut.params)
        .map(|(v, p)| {
            reader
                .value(v, &p.ty)
                .map_err(|e| unreadable(&format!("parameter `{}`", p.name), e))
        })
        .collect::<Result<_, _>>()?;
    let state: State = values
        .state
        .iter()
        .zip(&prim.state)
        .map(|(v, d)| {
            reader
                .value(v, &d.ty)
                .map_err(|e| unreadable(&format!("variable `{}`", d.name), e))
        })
        .collect::<Result<_, _>>()?;
    let machine = Machine::new(spec, &universe, replay.automaton, params.clone()).map_err(|e| {
        format!(
            "the interpreter cannot build the automaton: {}",
            message(&e)
        )
    })?;
    let claim = &spec.invariants[replay.claim];
    let holds = |name: &str, body: &ioa_lang::ir::Expr, n_locals: u32, st: &[Value]| {
        let mut locals = vec![Value::Bool(false); n_locals as usize + 1];
        machine.root_truth(body, st, &mut locals).map_err(|e| {
            format!(
                "the interpreter cannot evaluate `{name}` in Z3's state: {}",
                message(&e)
            )
        })
    };
    let Some(t_index) = replay.transition else {
        // A start obligation: the state must be a start state.
        is_start_state(&machine, prim, &state, sources)?;
        if holds(&claim.name, &claim.body, claim.n_locals, &state)? {
            return Err(format!(
                "the interpreter finds {} true in Z3's start state",
                claim.name
            )
            .into());
        }
        return Ok(Confirmed {
            sections: rewrite(cex, &prim.state, &params, &[], &state, None, &printer),
            universe: universe_lines,
        });
    };
    for k in &replay.assumed {
        let inv = &spec.invariants[*k];
        if !holds(&inv.name, &inv.body, inv.n_locals, &state)? {
            return Err(Rejection {
                reason: format!(
                    "Z3's model does not satisfy assumed invariant {} in the pre-state",
                    inv.name
                ),
                false_hypothesis: Some(inv.name.clone()),
            });
        }
    }
    let t = &prim.transitions[t_index];
    let sig = &aut.actions[t.action.0 as usize];
    let args: Vec<Value> = values
        .action
        .iter()
        .zip(&sig.params)
        .map(|(v, p)| {
            reader
                .value(v, &p.ty)
                .map_err(|e| unreadable(&format!("argument `{}`", p.name), e))
        })
        .collect::<Result<_, _>>()?;
    let plan = match machine.enabled(&state, t.action.0 as usize, &args, true) {
        Err(e) => {
            return Err(format!(
                "the interpreter cannot decide whether the step is enabled: {}",
                message(&e)
            )
            .into())
        }
        Ok(Err(why)) => return Err(not_enabled(&why, sources).into()),
        Ok(Ok(plan)) => plan,
    };
    // Every resolution of the effect's `choose`s, until one falsifies the claim.
    let mut script: Vec<u32> = Vec::new();
    for _ in 0..MAX_RESOLUTIONS {
        let mut chooser = Odometer::new(&script);
        let post = machine
            .execute(&state, plan.clone(), &mut chooser)
            .map_err(|e| format!("the interpreter's step fails: {}", message(&e)))?;
        if !holds(&claim.name, &claim.body, claim.n_locals, &post)? {
            return Ok(Confirmed {
                sections: rewrite(
                    cex,
                    &prim.state,
                    &params,
                    &args,
                    &state,
                    Some(&post),
                    &printer,
                ),
                universe: universe_lines,
            });
        }
        match chooser.next_script() {
            Some(next) => script = next,
            None => {
                return Err(format!(
                    "the interpreter's post-state satisfies the claim {}",
                    claim.name
                )
                .into())
            }
        }
    }
    Err(format!(
        "the interpreter tried {MAX_RESOLUTIONS} resolutions of the effect's `choose`s and the claim held after each"
    )
    .into())
}

/// Whether `state` is a start state: each initialised variable has the value its initialiser
/// gives (under some resolution of its `choose`s), every other one a value of its type, and
/// the `so that` clause holds.
fn is_start_state(
    machine: &Machine,
    prim: &ioa_lang::ir::Primitive,
    state: &[Value],
    sources: &SourceMap,
) -> Result<(), String> {
    let mut script: Vec<u32> = Vec::new();
    let mut first_mismatch = None;
    for _ in 0..MAX_RESOLUTIONS {
        let mut chooser = Odometer::new(&script);
        let declared = machine.declared_state(&mut chooser).map_err(|e| {
            format!(
                "the interpreter cannot compute the start state: {}",
                message(&e)
            )
        })?;
        let mismatch = declared
            .iter()
            .zip(state)
            .enumerate()
            .find(|(_, (d, s))| d.as_ref().is_some_and(|d| d != *s));
        match mismatch {
            None => {
                first_mismatch = None;
                break;
            }
            Some((k, (d, s))) => {
                if first_mismatch.is_none() {
                    let printer = Printer::new(machine.spec);
                    first_mismatch = Some(format!(
                        "Z3's start state is not a start state for the interpreter: `{}` starts as {} (`{}`), not {}",
                        prim.state[k].name,
                        printer.show(d.as_ref().expect("a declared value")),
                        prim.state[k]
                            .init
                            .as_ref()
                            .map(|e| sources.snippet(e.span))
                            .unwrap_or(""),
                        printer.show(s)
                    ));
                }
            }
        }
        match chooser.next_script() {
            Some(next) => script = next,
            None => break,
        }
    }
    if let Some(m) = first_mismatch {
        return Err(m);
    }
    match machine.so_that_holds(state) {
        Ok(None) => Ok(()),
        Ok(Some(span)) => Err(format!(
            "Z3's start state violates the `so that` clause `{}`",
            sources.snippet(span)
        )),
        Err(e) => Err(format!(
            "the interpreter cannot evaluate the `so that` clause: {}",
            message(&e)
        )),
    }
}

/// Why the step is not enabled, as one line.
fn not_enabled(why: &Disabled, sources: &SourceMap) -> String {
    match why {
        Disabled::Precondition { span, reads, .. } => {
            let mut s = format!(
                "the step is not enabled in the interpreter: `{}` is false",
                sources.snippet(*span).trim()
            );
            if !reads.is_empty() {
                let shown: Vec<String> = reads.iter().map(|(n, v)| format!("{n} = {v}")).collect();
                s.push_str(&format!(" ({})", shown.join(", ")));
            }
            s
        }
        Disabled::NoParticipant => {
            "the step is not enabled in the interpreter: no transition takes these arguments".into()
        }
        Disabled::SeveralControllers { names } => format!(
            "the step is not enabled in the interpreter: {} all control it",
            names.join(", ")
        ),
    }
}

/// A run error's one-line message.
fn message(e: &interpreter::error::RunError) -> String {
    use ioa_lang::diagnostics::IntoDiagnostic;
    e.to_diagnostic().message
}

/// Z3's sections with the interpreter's values: every variable shown keeps its place, with the
/// value the interpreter checked; the post-state lists what the interpreter's step changed.
fn rewrite(
    cex: &Counterexample,
    vars: &[ioa_lang::ir::VarDecl],
    params: &[Value],
    args: &[Value],
    pre: &[Value],
    post: Option<&[Value]>,
    printer: &Printer,
) -> Vec<(Section, Vec<(String, String)>)> {
    let slot = |name: &str| vars.iter().position(|v| v.name == name);
    let mut out: Vec<(Section, Vec<(String, String)>)> = Vec::new();
    let mut pre_shown: Vec<usize> = Vec::new();
    for (section, entries) in &cex.sections {
        let mut rows = Vec::new();
        match section {
            Section::Start | Section::Pre => {
                for (name, text) in entries {
                    match slot(name) {
                        Some(k) => {
                            pre_shown.push(k);
                            rows.push((name.clone(), printer.show(&pre[k])));
                        }
                        None => rows.push((name.clone(), text.clone())),
                    }
                }
            }
            Section::Params => {
                for ((name, _), v) in entries.iter().zip(params) {
                    rows.push((name.clone(), printer.show(v)));
                }
            }
            Section::Action => {
                for ((name, _), v) in entries.iter().zip(args) {
                    rows.push((name.clone(), printer.show(v)));
                }
            }
            // Rebuilt below from the interpreter's post-state.
            Section::Post => continue,
            _ => rows = entries.clone(),
        }
        out.push((*section, rows));
    }
    if let Some(post) = post {
        let changed: Vec<(String, String)> = pre_shown
            .iter()
            .filter(|&&k| post[k] != pre[k])
            .map(|&k| (vars[k].name.clone(), printer.show(&post[k])))
            .collect();
        out.push((Section::Post, changed));
    }
    out
}

/// A chooser that follows a script of candidate indices (then the first candidate) and can
/// name the next script, so that every resolution of a step's `choose`s is tried in turn.
struct Odometer<'a> {
    script: &'a [u32],
    made: Vec<(u32, u32)>,
}

impl<'a> Odometer<'a> {
    fn new(script: &'a [u32]) -> Self {
        Odometer {
            script,
            made: Vec::new(),
        }
    }

    /// The next script: raise the last choice that has another candidate.
    fn next_script(&self) -> Option<Vec<u32>> {
        let last = self.made.iter().rposition(|&(k, n)| k + 1 < n)?;
        let mut next: Vec<u32> = self.made[..last].iter().map(|&(k, _)| k).collect();
        next.push(self.made[last].0 + 1);
        Some(next)
    }
}

impl Chooser for Odometer<'_> {
    fn choose(
        &mut self,
        span: Span,
        candidates: &[Value],
    ) -> interpreter::error::EvalResult<Value> {
        let k = self.script.get(self.made.len()).copied().unwrap_or(0);
        let Some(v) = candidates.get(k as usize) else {
            return Err(interpreter::error::RunError::UnresolvedChoice { span });
        };
        self.made.push((k, candidates.len() as u32));
        Ok(v.clone())
    }
}
