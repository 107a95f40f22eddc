//! Proving with Z3 (`ioa prove`, and the obligations `ioa export smt` writes): the proof
//! obligations of a model's invariants and forward simulations, each checked with Z3 under a
//! deterministic resource budget, every counterexample re-executed by the interpreter
//! ([`crate::cex`]) before it is reported. The result is a [`ProveReport`] with a text and a
//! JSON form; an obligation is *proved* only when Z3 said unsat.

use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use ioa_lang::ir::Spec;
use ioa_lang::source_map::SourceMap;
use prover_export::solve::{self, Budget, Verdict};
use prover_export::{Assumptions, EncodeError, Obligation};
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::fs::OsFileSystem;

/// What `ioa prove` and `ioa export smt` select.
pub struct Selection {
    /// The model.
    pub file: PathBuf,
    /// Simulations to prove, by name.
    pub simulations: Vec<String>,
    /// Invariants to prove, by name.
    pub invariants: Vec<String>,
    /// `--assume`: the invariants assumed in pre-states (default: all declared).
    pub assume: Option<String>,
    /// `--param NAME=VALUE`: parameter values every obligation assumes.
    pub params: Vec<String>,
}

/// The obligations of a selection, with what they are about.
pub struct Prepared {
    /// The spec they were built from (flattened, with the `--param` values fixed).
    pub spec: Spec,
    /// The obligations, in the order of the model's invariants and simulations.
    pub obligations: Vec<Obligation>,
    /// The `--param` assumptions, as `A.n = 3`.
    pub params: Vec<String>,
    /// The model's sources (for the interpreter's check of counterexamples).
    pub sources: SourceMap,
}

/// Why no obligation was built.
pub enum PrepareError {
    /// The model does not check, cannot be flattened where it must, or an obligation cannot be
    /// encoded: diagnostics into `sources`.
    Diagnostics(Vec<Diagnostic>, SourceMap),
    /// The request does not fit the model (an unknown name, a bad `--param`).
    Usage(String),
    /// The model declares no invariant and no simulation.
    NothingToProve,
}

/// Checks the model and builds the selected obligations, or says why not.
pub fn obligations(sel: &Selection) -> Result<Prepared, PrepareError> {
    let result = ioa_lang::check_files(std::slice::from_ref(&sel.file), &OsFileSystem);
    let sources = result.sources;
    let Some(spec) = result.spec else {
        return Err(PrepareError::Diagnostics(result.diagnostics, sources));
    };
    // The provers reason about one automaton: composites are flattened first. A composite
    // that cannot be flattened matters only when something selected is about it.
    let (mut spec, flatten_errors) = ioa_lang::compose::flatten_what_can_be(&spec);
    let params =
        super::prove_params::fix_params(&mut spec, &sel.params).map_err(PrepareError::Usage)?;
    let assume = match &sel.assume {
        None => Assumptions::AsDeclared,
        Some(list) if list.trim() == "none" => Assumptions::Named(vec![]),
        Some(list) => Assumptions::Named(
            list.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
        ),
    };
    let everything = sel.simulations.is_empty() && sel.invariants.is_empty();
    let mut invs = Vec::new();
    for name in &sel.invariants {
        match spec.invariants.iter().position(|i| &i.name == name) {
            Some(k) => invs.push(k),
            None => return Err(unknown("invariant", name, &spec)),
        }
    }
    let mut sims = Vec::new();
    for name in &sel.simulations {
        match spec.simulations.iter().position(|s| &s.name == name) {
            Some(k) => sims.push(k),
            None => return Err(unknown("simulation", name, &spec)),
        }
    }
    if everything {
        invs = (0..spec.invariants.len()).collect();
        sims = (0..spec.simulations.len()).collect();
    }
    let composite = |a: ioa_lang::ir::AutomatonId| {
        matches!(
            spec.automata[a.0 as usize].body,
            ioa_lang::ir::AutomatonBody::Composite(_)
        )
    };
    let needs_composite = invs
        .iter()
        .any(|k| composite(spec.invariants[*k].automaton))
        || sims.iter().any(|k| {
            let sim = &spec.simulations[*k];
            composite(sim.from) || composite(sim.to)
        });
    if needs_composite && !flatten_errors.is_empty() {
        return Err(PrepareError::Diagnostics(
            flatten_errors.iter().map(|e| e.to_diagnostic()).collect(),
            sources,
        ));
    }
    let mut out = Vec::new();
    let mut errors: Vec<EncodeError> = Vec::new();
    for k in invs {
        match prover_export::obligations::invariant::obligations(&spec, k, &assume) {
            Ok(obs) => out.extend(obs),
            Err(e) => errors.push(e),
        }
    }
    for k in sims {
        match prover_export::obligations::simulation::obligations(&spec, k, &assume) {
            Ok(obs) => out.extend(obs),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(PrepareError::Diagnostics(
            errors.iter().map(|e| e.to_diagnostic()).collect(),
            sources,
        ));
    }
    if out.is_empty() {
        return Err(PrepareError::NothingToProve);
    }
    Ok(Prepared {
        spec,
        obligations: out,
        params,
        sources,
    })
}

fn unknown(what: &str, name: &str, spec: &Spec) -> PrepareError {
    let known: Vec<&str> = if what == "invariant" {
        spec.invariants.iter().map(|i| i.name.as_str()).collect()
    } else {
        spec.simulations.iter().map(|s| s.name.as_str()).collect()
    };
    PrepareError::Usage(format!(
        "no {what} named `{name}` in the model\n  = hint: the model declares: {}",
        if known.is_empty() {
            "none".to_string()
        } else {
            known.join(", ")
        }
    ))
}

/// One obligation with Z3's outcome and the interpreter's check of its counterexample.
pub type Row<'o> = (&'o Obligation, solve::Outcome, Option<Checked>);

/// Every obligation of a selection checked.
pub struct ProveReport<'p> {
    /// The obligations in order, with their outcomes.
    pub rows: Vec<Row<'p>>,
    /// Wall-clock time of the whole run.
    pub total: Duration,
    /// The budget each obligation had.
    pub budget: Budget,
    /// The `--param` assumptions, as `A.n = 3`.
    pub params: Vec<String>,
}

/// Checks every obligation of `prepared` with Z3 under `budget`. Obligations are independent
/// and each verdict depends only on its own text and budget (a fresh Z3 context, a resource
/// count rather than a clock), so they are checked on every core at once; the rows keep the
/// obligations' order. Every counterexample is re-executed by the interpreter before it is
/// reported: one it rejects makes the obligation unknown.
pub fn prove(prepared: &Prepared, budget: Budget) -> ProveReport<'_> {
    let started = Instant::now();
    let (spec, sources) = (&prepared.spec, &prepared.sources);
    let rows: Vec<_> = prepared
        .obligations
        .par_iter()
        .map(|ob| {
            let outcome = solve::check(spec, ob, &budget);
            honest(spec, sources, ob, outcome, &budget)
        })
        .collect();
    ProveReport {
        rows,
        total: started.elapsed(),
        budget,
        params: prepared.params.clone(),
    }
}

impl ProveReport<'_> {
    /// How many obligations were proved.
    pub fn proved(&self) -> usize {
        self.rows
            .iter()
            .filter(|(_, o, _)| matches!(o.verdict, Verdict::Proved))
            .count()
    }

    /// Whether every obligation was proved.
    pub fn all_proved(&self) -> bool {
        self.proved() == self.rows.len()
    }

    /// The text report: the budget, a table (obligation, verdict, resource units, time), the
    /// hypotheses each proof used, every counterexample and reason, and the totals.
    pub fn text(&self) -> String {
        let (rows, total, budget, params) = (&self.rows, self.total, &self.budget, &self.params);
        text_report(rows, total, budget, params)
    }

    /// The JSON report.
    pub fn to_json(&self) -> serde_json::Value {
        json_report(self)
    }
}

fn text_report(rows: &[Row], total: Duration, budget: &Budget, params: &[String]) -> String {
    let width = rows
        .iter()
        .map(|(o, _, _)| o.name().chars().count())
        .max()
        .unwrap_or(10)
        .max(10);
    let mut out = format!(
        "budget per obligation: {} Z3 resource units (--rlimit); wall-clock safety limit {} s (--timeout)\n\n",
        budget.rlimit,
        budget.wall.as_secs_f64()
    );
    if !params.is_empty() {
        out.insert_str(
            0,
            &format!(
                "every obligation assumes (--param): {}\n",
                params.join(", ")
            ),
        );
    }
    out.push_str(&format!(
        "{:<width$}  {:<9}  {:>11}  {:>8}\n",
        "obligation", "verdict", "rlimit", "time"
    ));
    for (ob, o, _) in rows {
        out.push_str(&format!(
            "{:<width$}  {:<9}  {:>11}  {:>5} ms\n",
            ob.name(),
            o.verdict.word(),
            o.rlimit,
            o.time.as_millis()
        ));
    }
    let with_hypotheses: Vec<_> = rows
        .iter()
        .filter(|(ob, o, _)| matches!(o.verdict, Verdict::Proved) && !ob.hypotheses.is_empty())
        .collect();
    if !with_hypotheses.is_empty() {
        out.push_str("\nhypotheses each proof used (Z3's unsat core):\n");
        for (ob, o, _) in with_hypotheses {
            let used = match &o.core {
                None => "not named (the proof was too costly to repeat with tracked hypotheses)"
                    .to_string(),
                Some(core) if core.is_empty() => {
                    "none (the step alone implies the goal)".to_string()
                }
                Some(core) => core.join(", "),
            };
            out.push_str(&format!("  {:<width$}  {used}\n", ob.name()));
        }
    }
    for (ob, o, checked) in rows {
        match &o.verdict {
            Verdict::Proved => {}
            Verdict::Failed(cex) => {
                out.push_str(&format!("\n{} failed", ob.name()));
                if let (Some(k), Some(a)) = (ob.action_kind, &ob.action) {
                    out.push_str(&format!(" ({k} {a})"));
                }
                if !ob.assumed.is_empty() {
                    out.push_str(&format!(", assuming {}", ob.assumed.join(", ")));
                }
                out.push_str(":\n");
                if let Some(c) = checked {
                    out.push_str(&c.text_header());
                }
                out.push_str(&cex.render());
            }
            Verdict::Unknown(_) if matches!(checked, Some(Checked::Rejected { .. })) => {
                if let Some(c) = checked {
                    out.push_str(&format!("\n{}: {}", ob.name(), c.text_header()));
                }
            }
            Verdict::Unknown(reason) => {
                out.push_str(&format!("\n{}: Z3 gave up: {reason}\n", ob.name()));
            }
            Verdict::Exhausted => {
                out.push_str(&format!(
                    "\n{}: no answer within the budget of {} Z3 resource units (--rlimit)\n",
                    ob.name(),
                    budget.rlimit
                ));
            }
            Verdict::Timeout => {
                out.push_str(&format!(
                    "\n{}: stopped by the wall-clock safety limit of {} s (--timeout) before its budget was spent; this depends on the machine's load\n",
                    ob.name(),
                    budget.wall.as_secs_f64()
                ));
            }
        }
    }
    let count = |w: &str| {
        rows.iter()
            .filter(|(_, o, _)| o.verdict.word() == w)
            .count()
    };
    out.push_str(&format!(
        "\n{} obligation(s): {} proved, {} failed, {} unknown, {} exhausted, {} timeout; {:.2} s\n",
        rows.len(),
        count("proved"),
        count("failed"),
        count("unknown"),
        count("exhausted"),
        count("timeout"),
        total.as_secs_f64()
    ));
    out
}

fn json_report(report: &ProveReport) -> serde_json::Value {
    let (rows, budget, params, total) =
        (&report.rows, &report.budget, &report.params, report.total);
    let proved = report.proved();
    let list: Vec<serde_json::Value> = rows
        .iter()
        .map(|(ob, o, checked)| {
            let mut v = serde_json::json!({
                "obligation": ob.name(),
                "target": ob.target,
                "action": ob.action,
                "case": ob.case,
                "assumed": ob.assumed,
                "verdict": o.verdict.word(),
                "used": serde_json::json!(o.core),
                "rlimit": o.rlimit,
                "time_ms": o.time.as_secs_f64() * 1000.0,
            });
            match &o.verdict {
                Verdict::Failed(cex) => {
                    v["failed_goals"] = serde_json::json!(cex.failed);
                    let sections: Vec<serde_json::Value> = cex
                        .sections
                        .iter()
                        .map(|(s, vars)| {
                            serde_json::json!({
                                "section": format!("{s:?}"),
                                "values": vars.iter().map(|(n, x)| serde_json::json!({"name": n, "value": x})).collect::<Vec<_>>(),
                            })
                        })
                        .collect();
                    v["counterexample"] = serde_json::json!(sections);
                }
                Verdict::Unknown(reason) => v["reason"] = serde_json::json!(reason),
                _ => {}
            }
            if let Some(c) = checked {
                v["interpreter_check"] = c.json();
            }
            v
        })
        .collect();
    serde_json::json!({
        "ok": proved == rows.len(),
        "obligations": rows.len(),
        "proved": proved,
        "params": params,
        "rlimit": budget.rlimit,
        "timeout_s": budget.wall.as_secs_f64(),
        "total_ms": total.as_secs_f64() * 1000.0,
        "results": list,
    })
}

/// What the interpreter's check made of a counterexample Z3 gave (see `ioa::cex`).
pub enum Checked {
    /// Confirmed: the counterexample printed is the interpreter's.
    Confirmed {
        /// A start obligation (else a step).
        start: bool,
        /// The universe it lives in.
        universe: Vec<String>,
    },
    /// Rejected: the obligation is unknown; Z3's model as it read it is kept for JSON.
    Rejected {
        /// The check that failed.
        reason: String,
        /// Z3's model.
        model: prover_export::solve::model::Counterexample,
    },
    /// A simulation's counterexample: not re-executed.
    NotReexecuted,
}

impl Checked {
    /// The lines printed above the counterexample (or, rejected, after the obligation's name).
    pub fn text_header(&self) -> String {
        match self {
            Checked::Confirmed { start, universe } => {
                let mut s = if *start {
                    "  checked by the interpreter: a start state in which the invariant is false\n"
                        .to_string()
                } else {
                    "  checked by the interpreter: a pre-state satisfying the hypotheses (not necessarily reachable), the step enabled in it, the invariant false after it\n"
                        .to_string()
                };
                if !universe.is_empty() {
                    s.push_str(&format!("  in the universe: {}\n", universe.join("; ")));
                }
                s
            }
            Checked::Rejected { reason, .. } => format!(
                "unknown: the interpreter does not confirm Z3's model as a counterexample: {reason}\n"
            ),
            Checked::NotReexecuted => {
                "  not re-executed by the interpreter (simulation counterexamples are Z3's model as read)\n"
                    .to_string()
            }
        }
    }

    /// The check's result as JSON.
    pub fn json(&self) -> serde_json::Value {
        match self {
            Checked::Confirmed { universe, .. } => serde_json::json!({
                "result": "confirmed",
                "universe": universe,
            }),
            Checked::Rejected { reason, model } => serde_json::json!({
                "result": "rejected",
                "reason": reason,
                "z3_model": model.sections.iter().map(|(s, vars)| serde_json::json!({
                    "section": format!("{s:?}"),
                    "values": vars.iter().map(|(n, x)| serde_json::json!({"name": n, "value": x})).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            }),
            Checked::NotReexecuted => serde_json::json!({"result": "not re-executed"}),
        }
    }
}

/// An outcome whose counterexample the interpreter has checked: confirmed, it is printed with
/// the interpreter's values; rejected, the verdict becomes unknown with the reason.
fn honest<'o>(
    spec: &Spec,
    sources: &SourceMap,
    ob: &'o Obligation,
    outcome: solve::Outcome,
    budget: &Budget,
) -> Row<'o> {
    let Verdict::Failed(first) = &outcome.verdict else {
        if matches!(outcome.verdict, Verdict::Exhausted | Verdict::Unknown(_)) {
            if let Some(row) = grow_hypotheses(spec, sources, ob, &outcome, budget) {
                return row;
            }
        }
        return (ob, outcome, None);
    };
    let mut cex = first;
    let mut check = crate::cex::check(spec, sources, ob, cex);
    // A model the interpreter does not confirm may be one the prover cannot read back whole
    // (functions Z3's model-based instantiation defines through projections): models over
    // small universes are finite tables, so they are asked for and checked in turn.
    let small;
    if matches!(check, Some(crate::cex::Check::Rejected(_))) {
        small = solve::small_counterexamples(spec, ob, budget);
        for other in &small {
            let again = crate::cex::check(spec, sources, ob, other);
            if matches!(again, Some(crate::cex::Check::Confirmed(_))) {
                cex = other;
                check = again;
                break;
            }
        }
    }
    match check {
        None => (ob, outcome, Some(Checked::NotReexecuted)),
        Some(crate::cex::Check::Confirmed(c)) => {
            let cex = cex.clone();
            confirmed(ob, outcome, &cex, c)
        }
        Some(crate::cex::Check::Rejected(crate::cex::Rejection { reason, .. })) => {
            let model = cex.clone();
            let outcome = solve::Outcome {
                verdict: Verdict::Unknown(format!(
                    "the interpreter does not confirm Z3's model as a counterexample: {reason}"
                )),
                ..outcome
            };
            (ob, outcome, Some(Checked::Rejected { reason, model }))
        }
    }
}

/// The row of a counterexample the interpreter confirmed: printed with its values.
fn confirmed<'o>(
    ob: &'o Obligation,
    outcome: solve::Outcome,
    cex: &prover_export::solve::model::Counterexample,
    c: crate::cex::Confirmed,
) -> Row<'o> {
    let start = ob.replay.as_ref().is_some_and(|r| r.transition.is_none());
    let checked = prover_export::solve::model::Counterexample {
        failed: cex.failed.clone(),
        sections: c.sections,
        replay: cex.replay.clone(),
    };
    let outcome = solve::Outcome {
        verdict: Verdict::Failed(checked),
        ..outcome
    };
    let note = Checked::Confirmed {
        start,
        universe: c.universe,
    };
    (ob, outcome, Some(note))
}

/// Each search of [`grow_hypotheses`] may spend this fraction of the obligation's budget.
const GROW_SHARE: u64 = 100;

/// The search for a counterexample to a step the portfolio left undecided: Z3 is asked with only
/// some hypotheses assumed (first the claim itself, when it is assumed), and the interpreter
/// checks its model against all of them. A hypothesis the model falsifies joins the assumed
/// ones and Z3 is asked again; a model that satisfies every hypothesis, enables the step and
/// falsifies the claim is a counterexample (the interpreter's check is the same as for any
/// other). Unsat from some hypotheses is a proof from all. Any other answer ends the search,
/// and the portfolio's verdict stands. Each of a round's searches spends at most
/// 1/[`GROW_SHARE`] of the budget, and the rounds together at most the budget once more, all
/// counted in Z3's resource units like the rest.
fn grow_hypotheses<'o>(
    spec: &Spec,
    sources: &SourceMap,
    ob: &'o Obligation,
    outcome: &solve::Outcome,
    budget: &Budget,
) -> Option<Row<'o>> {
    let replay = ob.replay.as_ref()?;
    replay.transition?;
    let claim = &spec.invariants[replay.claim].name;
    let mut only: Vec<String> = ob
        .hypotheses
        .iter()
        .map(|(label, _)| label.clone())
        .filter(|label| label == claim)
        .collect();
    let units = (budget.rlimit / GROW_SHARE).max(1);
    let started = std::time::Instant::now();
    let mut spent = 0;
    for _ in 0..=ob.hypotheses.len() {
        if spent >= budget.rlimit {
            return None;
        }
        // A model is worth returning when the interpreter confirms it or names a hypothesis
        // not yet assumed; otherwise the search tries its next configuration. The check of
        // the model returned is kept, not made again.
        let mut last = None;
        let mut useful = |m: &prover_export::solve::model::Counterexample| {
            let check = crate::cex::check(spec, sources, ob, m);
            let worth = match &check {
                Some(crate::cex::Check::Confirmed(_)) => true,
                Some(crate::cex::Check::Rejected(r)) => r
                    .false_hypothesis
                    .as_ref()
                    .is_some_and(|h| !only.contains(h)),
                None => false,
            };
            last = check;
            worth
        };
        let (answer, used) =
            solve::check_assuming_only(spec, ob, units, budget.wall, &only, &mut useful);
        spent += used;
        let after = |verdict, core| solve::Outcome {
            verdict,
            core,
            rlimit: outcome.rlimit + spent,
            time: outcome.time + started.elapsed(),
        };
        match (answer, last) {
            (solve::Partial::Proved(core), _) => {
                return Some((ob, after(Verdict::Proved, core), None))
            }
            (solve::Partial::Model(cex), Some(crate::cex::Check::Confirmed(c))) => {
                let failed = Verdict::Failed(cex.clone());
                return Some(confirmed(ob, after(failed, None), &cex, c));
            }
            (
                solve::Partial::Model(_),
                Some(crate::cex::Check::Rejected(crate::cex::Rejection {
                    false_hypothesis: Some(h),
                    ..
                })),
            ) => only.push(h),
            _ => return None,
        }
    }
    None
}
