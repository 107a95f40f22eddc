//! Runs (`ioa run`) as data: shrinking a random run that violated an invariant to a shorter
//! run that violates the same one. The runs themselves are the interpreter's `Runner`'s.

use interpreter::runner::{RunReport, Runner, Stop};

/// Shrinks a random run that violated an invariant to a shorter run violating the same one.
pub fn shrink_violation(runner: &Runner, report: &RunReport) -> Option<RunReport> {
    let Stop::InvariantViolated { invariant } = report.stop else {
        return None;
    };
    let steps: Vec<(usize, Vec<interpreter::value::Value>)> = report
        .trace
        .steps
        .iter()
        .map(|s| (s.action, s.args.clone()))
        .collect();
    let mut replay = |list: &[(usize, Vec<interpreter::value::Value>)]| {
        let r = runner.actions(list, &mut |_| true);
        match r.stop {
            Stop::InvariantViolated { invariant: k } if k == invariant => Some(
                r.trace
                    .steps
                    .iter()
                    .map(|s| (s.action, s.args.clone()))
                    .collect(),
            ),
            _ => None,
        }
    };
    let short = interpreter::shrink::shrink(steps.clone(), 2_000, &mut replay);
    if short.len() >= steps.len() {
        return None;
    }
    let r = runner.actions(&short, &mut |_| true);
    matches!(r.stop, Stop::InvariantViolated { .. }).then_some(r)
}
