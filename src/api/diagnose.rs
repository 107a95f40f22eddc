//! Diagnostics for runs and searches that stopped on a problem: a disabled step, a violated
//! invariant, an evaluation error, a path that did not re-execute. Every command that shows a
//! run (`ioa run`, `replay`, `explore`, `pair`, the liveness searches) reports through these.

use checker::model::MachineError;
use interpreter::machine::{collect_reads, Disabled, Machine};
use interpreter::runner::{RunReport, Stop};
use interpreter::value::Printer;
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use ioa_lang::ir::VarRef;

/// The diagnostic for a run that stopped on a problem.
pub fn stop_diagnostic(machine: &Machine, report: &RunReport) -> Option<Diagnostic> {
    let printer = Printer::new(machine.spec);
    let step = report.trace.steps.len();
    Some(match &report.stop {
        Stop::Completed | Stop::Deadlock | Stop::Halted => return None,
        Stop::NotEnabled {
            action,
            reason,
            span,
        } => match reason {
            Disabled::Precondition {
                instance,
                span: conj,
                reads,
            } => {
                let inst = &machine.instances[*instance].name;
                let mut d = Diagnostic::error(
                    "E0520",
                    format!("step {}: `{}` is not enabled", step + 1, strip_step(action)),
                    *conj,
                )
                .with_label_message(format!("this part of {inst}'s precondition is false"));
                if *span != Default::default() {
                    d = d.with_secondary(*span, "fired here");
                }
                d.with_note(format!(
                    "values: {}",
                    reads
                        .iter()
                        .map(|(n, v)| format!("{n} = {v}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
            Disabled::NoParticipant => Diagnostic::error(
                "E0520",
                format!(
                    "step {}: `{}` is not an action of any component with these arguments",
                    step + 1,
                    strip_step(action)
                ),
                *span,
            ),
            Disabled::SeveralControllers { names } => Diagnostic::error(
                "E0520",
                format!(
                    "step {}: `{}` is controlled by several components: {}",
                    step + 1,
                    strip_step(action),
                    names.join(", ")
                ),
                *span,
            ),
        },
        Stop::InvariantViolated { invariant } => {
            let inv = &machine.spec.invariants[*invariant];
            let state = report.trace.states.last().expect("non-empty");
            let names = machine.slot_names();
            let mut reads = Vec::new();
            collect_reads(&inv.body, &mut |r| {
                if let VarRef::State(s) = r {
                    let n = &names[*s as usize];
                    let line = format!("{n} = {}", printer.show(&state[*s as usize]));
                    if !reads.contains(&line) {
                        reads.push(line);
                    }
                }
            });
            let after = if step == 0 {
                "in the start state".to_string()
            } else {
                format!(
                    "after step {step}: {}",
                    strip_step(&report.trace.log_line(machine, step))
                )
            };
            Diagnostic::error(
                "E0521",
                format!("invariant `{}` is violated {after}", inv.name),
                inv.span,
            )
            .with_label_message("this invariant is false")
            .with_note(format!(
                "values: {}",
                if reads.is_empty() {
                    "(see the trace)".to_string()
                } else {
                    reads.join(", ")
                }
            ))
        }
        Stop::StartRejected { span } => {
            Diagnostic::error("E0522", "the start state does not satisfy `so that`", *span)
        }
        Stop::StepError(e) => {
            let mut d = e.to_diagnostic();
            d.notes.push(format!("during step {}", step + 1));
            d
        }
        Stop::InvariantError { invariant, error } => {
            let inv = &machine.spec.invariants[*invariant];
            let mut d = error.to_diagnostic();
            let when = if step == 0 {
                "in the start state".to_string()
            } else {
                format!("after step {step}")
            };
            d.notes
                .push(format!("while checking invariant `{}` {when}", inv.name));
            d
        }
        Stop::Error(e) => {
            let mut d = e.to_diagnostic();
            d.notes.push(if report.trace.states.is_empty() {
                "while building the start state".into()
            } else {
                format!("after {step} completed step(s)")
            });
            d
        }
        Stop::ReplayMismatch { step, what } => Diagnostic {
            code: "E0523",
            severity: ioa_lang::diagnostics::Severity::Error,
            message: format!("the trace does not replay at step {step}: {what}"),
            labels: vec![],
            notes: vec![],
            hint: Some(
                "the model, universe or parameters changed since the trace was recorded".into(),
            ),
        },
    })
}

fn strip_step(line: &str) -> &str {
    line.split_once(": ").map(|(_, rest)| rest).unwrap_or(line)
}

/// A search's error as a diagnostic; `what` names the path being re-executed when that
/// diverged (a bug in ioa).
pub fn machine_error(e: MachineError, what: &str) -> Diagnostic {
    match e {
        MachineError::Start(e)
        | MachineError::Step { error: e, .. }
        | MachineError::Invariant { error: e, .. } => e.to_diagnostic(),
        MachineError::Diverged { step } => Diagnostic {
            code: "E0523",
            severity: ioa_lang::diagnostics::Severity::Error,
            message: format!("re-executing {what} diverged at step {step}"),
            labels: vec![],
            notes: vec![],
            hint: Some("this is a bug in ioa: please report it with the model".into()),
        },
    }
}
