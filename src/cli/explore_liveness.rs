//! `ioa explore --liveness NAME`: the exact liveness check on a finite instance. Explores every
//! reachable state keeping every edge, then reports (a) the dead states, with the shortest
//! path to one and its critical transition, and (b) the nearest execution that never reaches
//! the goal under task fairness (or under none with `--no-fairness`), as a lasso whose last
//! state is state `k` again ("back to state k"). "Holds" is printed only when every reachable
//! state was expanded.
//!
//! Exit codes as `ioa explore`: 0 holds, 1 violated, 2 error, 3 a limit stopped the search.

use super::explore::{count, fail, ExploreArgs, EXIT_ERROR, EXIT_LIMIT, EXIT_VIOLATION};
use super::model::Model;
use super::output::{exit, print_json, print_stderr, print_stdout, Step};
use super::Format;
use checker::explore::Options;
use interpreter::machine::Machine;
use ioa::api::liveness_common::{write_itf, Replayed};
use ioa::api::liveness_exact::{check, ExactError, ExactOutcome, Start};
use ioa::api::liveness_exact_report::ExactView;
use std::path::PathBuf;
use std::process::ExitCode;

/// The options of the exact liveness check.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LivenessArgs {
    /// Check this liveness property exactly (dead states and fair cycles) instead of the
    /// invariants.
    #[arg(long, value_name = "NAME", conflicts_with = "local")]
    pub liveness: Option<String>,
    /// With --liveness: consider every execution, not only those fair to the automaton's
    /// tasks.
    #[arg(long, requires = "liveness")]
    pub no_fairness: bool,
    /// With --liveness: write the shortest path to a dead state as an ITF trace.
    #[arg(long, requires = "liveness", value_name = "FILE")]
    pub dead_trace: Option<PathBuf>,
}

/// Runs `ioa explore --liveness NAME`.
pub fn run(args: &ExploreArgs, m: &Model, machine: &Machine, options: Options) -> ExitCode {
    exit(check_exactly(args, m, machine, options))
}

/// Runs the check and reports its verdict.
fn check_exactly(
    args: &ExploreArgs,
    m: &Model,
    machine: &Machine,
    options: Options,
) -> Step<ExitCode> {
    let name = args.liveness.liveness.as_deref().unwrap_or_default();
    let fairness = !args.liveness.no_fairness;
    let aut = &m.spec.automata[machine.root.0 as usize].name;
    let text = args.format == Format::Text;
    let mut started = |s: &Start| {
        if text && !args.quiet {
            print_stderr(&start_line(name, aut, s, fairness));
        }
    };
    let (graph, outcome) = match check(machine, name, fairness, &options, &mut started) {
        Ok(x) => x,
        Err(ExactError::Usage(e)) => {
            print_stderr(&format!("error: {e}\n"));
            return Ok(ExitCode::from(EXIT_ERROR));
        }
        Err(ExactError::Diagnostic(d)) => return Ok(fail(&[d], m, args.color)),
    };
    let checked = match outcome {
        ExactOutcome::Checked(c) => c,
        ExactOutcome::Limit(limit) => {
            if text {
                print_stderr(&graph.limit_line(&limit));
            } else {
                print_json(&graph.limit_json(aut, name));
            }
            return Ok(ExitCode::from(EXIT_LIMIT));
        }
    };
    let view = ExactView {
        machine,
        name,
        fairness,
        checked: &checked,
    };
    let dead_file = args.liveness.dead_trace.as_ref();
    let dead = write_trace(args, m, machine, dead_file, view.dead_meta())?;
    let lasso = write_trace(args, m, machine, args.trace.as_ref(), view.lasso_meta())?;
    let holds = checked.report.holds();
    let code = ExitCode::from(if holds { 0 } else { EXIT_VIOLATION });
    if !text {
        print_json(&view.to_json(aut, &graph));
        return Ok(code);
    }
    if holds {
        print_stderr(&view.holds_line());
    } else {
        for line in view.violation_lines() {
            print_stdout(&line);
        }
        print_stderr(&view.violated_line());
        for (file, what) in [(lasso, "lasso"), (dead, "dead path")] {
            if let Some(file) = file {
                let file = file.display();
                print_stderr(&format!(
                    "{what} written to {file}; check it with `ioa replay {file}`\n"
                ));
            }
        }
    }
    if !args.quiet {
        print_stderr(&format!("{}\n", graph.timing()));
    }
    Ok(code)
}

/// The line that starts the check: property, automaton, instances, tasks, fairness.
fn start_line(name: &str, aut: &str, s: &Start, fairness: bool) -> String {
    format!(
        "checking {name} of {aut} ({}): {}, {}; {}\n",
        s.shape,
        count(s.instances as u64, "action instance"),
        count(s.tasks as u64, "task"),
        if fairness {
            "task fairness"
        } else {
            "no fairness"
        }
    )
}

/// Writes a path as an ITF trace when both a file and the path are there; the file written.
fn write_trace<'f>(
    args: &ExploreArgs,
    m: &Model,
    machine: &Machine,
    file: Option<&'f PathBuf>,
    path: Option<(&Replayed, serde_json::Value)>,
) -> Step<Option<&'f PathBuf>> {
    let (Some(file), Some((run, meta))) = (file, path) else {
        return Ok(None);
    };
    if let Err(e) = write_itf(file, m, machine, &args.file, &args.params, run, meta) {
        print_stderr(&format!("error: cannot write `{}`: {e}\n", file.display()));
        return Err(ExitCode::from(EXIT_ERROR));
    }
    Ok(Some(file))
}
