//! `ioa explore --liveness NAME`: the exact liveness check on a finite instance. Explores every
//! reachable state keeping every edge, then reports (a) the dead states, with the shortest
//! path to one and its critical transition, and (b) the nearest execution that never reaches
//! the goal under task fairness (or under none with `--no-fairness`), as a lasso whose last
//! state is state `k` again ("back to state k"). "Holds" is printed only when every reachable
//! state was expanded.
//!
//! Exit codes as `ioa explore`: 0 holds, 1 violated, 2 error, 3 a limit stopped the search.

use super::explore::{count, thousands, ExploreArgs, EXIT_ERROR, EXIT_LIMIT, EXIT_VIOLATION};
use super::model::Model;
use super::output::{print_diagnostics, print_stderr, print_stdout};
use super::Format;
use checker::explore::{Limit, Options};
use checker::liveness::exact::{self, Ending};
use interpreter::machine::Machine;
use ioa::api::liveness_common::{log_lines, state_diff, write_itf};
use ioa::api::liveness_exact::{check, Checked, ExactError, ExactOutcome, Start};
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

fn fail(m: &Model, diag: ioa_lang::diagnostics::Diagnostic, args: &ExploreArgs) -> ExitCode {
    print_diagnostics(&[diag], &m.sources, Format::Text, args.color);
    ExitCode::from(EXIT_ERROR)
}

/// Runs `ioa explore --liveness NAME`.
pub fn run(args: &ExploreArgs, m: &Model, machine: &Machine, options: Options) -> ExitCode {
    let name = args.liveness.liveness.as_deref().unwrap_or_default();
    let fairness = !args.liveness.no_fairness;
    let aut = &m.spec.automata[machine.root.0 as usize].name;
    let text = args.format == Format::Text;
    let mut started = |s: &Start| {
        if text && !args.quiet {
            print_stderr(&format!(
                "checking {name} of {aut} ({}): {}, {}; {}\n",
                s.shape,
                count(s.instances as u64, "action instance"),
                count(s.tasks as u64, "task"),
                if fairness {
                    "task fairness"
                } else {
                    "no fairness"
                }
            ));
        }
    };
    let (graph, outcome) = match check(machine, name, fairness, &options, &mut started) {
        Ok(x) => x,
        Err(ExactError::Usage(e)) => {
            print_stderr(&format!("error: {e}\n"));
            return ExitCode::from(EXIT_ERROR);
        }
        Err(ExactError::Diagnostic(d)) => return fail(m, d, args),
    };
    let timing = format!(
        "time {:.2} s, {} states, {} transitions",
        graph.elapsed.as_secs_f64(),
        thousands(graph.states as u64),
        thousands(graph.transitions)
    );
    let checked = match outcome {
        ExactOutcome::Checked(c) => c,
        ExactOutcome::Limit(limit) => {
            let which = match limit {
            Limit::States(n) => format!("the state limit ({} states)", thousands(n)),
            Limit::Depth(d) => format!("the depth limit ({d}; deeper states exist)"),
            Limit::Time(t) => format!("the time limit ({:.0} s)", t.as_secs_f64()),
            Limit::Memory(_) => "the memory limit".to_string(),
            Limit::ProcessMemory(b) => format!(
                "the memory ceiling ({} bytes, {}% of this machine's memory unless --memory-ceiling)",
                b,
                checker::memory::DEFAULT_CEILING_PERCENT
            ),
        };
            if args.format == Format::Json {
                let json = serde_json::json!({
                    "automaton": aut, "liveness": name, "verdict": "limit",
                    "states": graph.states, "transitions": graph.transitions,
                });
                print_stdout(&serde_json::to_string_pretty(&json).expect("plain data"));
            } else {
                print_stderr(&format!(
                "stopped at {which} after {}: no verdict (liveness needs every reachable state)\n",
                count(graph.states as u64, "state")
            ));
            }
            return ExitCode::from(EXIT_LIMIT);
        }
    };
    let Checked {
        report,
        task_names,
        dead,
        lasso,
        exhausted,
        expand_goal,
        goal_states,
    } = *checked;
    // For `eventually P` the goal states are not expanded (what follows the goal cannot
    // matter), so the states reachable only past the goal are not counted: say so, since
    // `ioa explore` counts every reachable state.
    let unexpanded = if expand_goal || goal_states == 0 {
        String::new()
    } else {
        format!(
            "; {}, not expanded: states reachable only past the goal are not explored, so `ioa explore` may count more",
            count(goal_states, "goal state")
        )
    };
    let fairness_words = if fairness {
        "under task fairness"
    } else {
        "without fairness"
    };

    if let (Some(d), Some(r)) = (&report.dead, &dead) {
        if let Some(file) = &args.liveness.dead_trace {
            let meta = serde_json::json!({
                "property": name, "kind": "dead", "critical": d.critical,
                "obligation": d.obligation_at,
            });
            if let Err(e) = write_itf(file, m, machine, &args.file, &args.params, r, meta) {
                print_stderr(&format!("error: cannot write `{}`: {e}\n", file.display()));
                return ExitCode::from(EXIT_ERROR);
            }
        }
    }
    if let (Some(v), Some(r)) = (&report.violation, &lasso) {
        if let Some(file) = &args.trace {
            let loop_start = match v.ending {
                Ending::Loop { loop_start } => Some(loop_start),
                Ending::Stops => None,
            };
            let meta = serde_json::json!({
                "property": name, "kind": "lasso", "loop_start": loop_start,
                "fairness": fairness, "obligation": v.obligation_at,
            });
            if let Err(e) = write_itf(file, m, machine, &args.file, &args.params, r, meta) {
                print_stderr(&format!("error: cannot write `{}`: {e}\n", file.display()));
                return ExitCode::from(EXIT_ERROR);
            }
        }
    }
    let critical_line = |d: &exact::Dead, r: &ioa::api::liveness_common::Replayed| match d.critical
    {
        Some(k) => r.trace.log_line(machine, k),
        None => "none: the obligation's first state is already dead".to_string(),
    };

    if args.format == Format::Json {
        let json = serde_json::json!({
            "automaton": aut,
            "liveness": name,
            "fairness": fairness,
            "verdict": if report.holds() { "holds" } else { "violated" },
            "states": report.states,
            "goal_states": goal_states,
            "goal_states_expanded": expand_goal,
            "region": report.region,
            "transitions": graph.transitions,
            "dead_states": report.dead.as_ref().map_or(0, |d| d.count),
            "critical": report.dead.as_ref().zip(dead.as_ref()).map(|(d, r)| critical_line(d, r)),
            "dead_path_steps": dead.as_ref().map(|r| r.trace.steps.len()),
            "lasso_steps": lasso.as_ref().map(|r| r.trace.steps.len()),
            "loop_start": report.violation.as_ref().and_then(|v| match v.ending {
                Ending::Loop { loop_start } => Some(loop_start),
                Ending::Stops => None,
            }),
            "excluded_by_fairness": report.excluded.components,
            "exhausted": exhausted,
            "seconds": graph.elapsed.as_secs_f64(),
        });
        print_stdout(&serde_json::to_string_pretty(&json).expect("plain data"));
        return if report.holds() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(EXIT_VIOLATION)
        };
    }

    let excluded = if report.excluded.components > 0 {
        let starved: Vec<&str> = report
            .excluded
            .starved
            .iter()
            .map(|&t| task_names[t as usize].as_str())
            .collect();
        format!(
            "; {} avoiding the goal excluded by fairness, e.g. {} enabled throughout and never taken",
            count(report.excluded.components, "cycle"),
            starved.join(", ")
        )
    } else {
        String::new()
    };
    if report.holds() {
        let states = if expand_goal || goal_states == 0 {
            "states"
        } else {
            "states explored"
        };
        print_stderr(&format!(
            "holds: {name} holds in all {} {states} {fairness_words} ({} on the way to the goal{unexpanded}{excluded})\n",
            thousands(report.states),
            count(report.region, "state")
        ));
        if !args.quiet {
            print_stderr(&format!("{timing}\n"));
        }
        return ExitCode::SUCCESS;
    }
    if let (Some(d), Some(r)) = (&report.dead, &dead) {
        print_stdout(&format!(
            "dead states: {} of {} cannot reach the goal; shortest path to one:",
            thousands(d.count),
            thousands(report.states)
        ));
        print_stdout(log_lines(machine, &r.trace, 1, r.trace.steps.len()).trim_end());
        print_stdout(&format!("critical transition: {}", critical_line(d, r)));
        if let Some(k) = d.critical {
            print_stdout(&format!("state change at step {k}:"));
            print_stdout(
                state_diff(machine, &r.trace.states[k - 1], &r.trace.states[k]).trim_end(),
            );
        }
    }
    if let (Some(v), Some(r)) = (&report.violation, &lasso) {
        let steps = r.trace.steps.len();
        match v.ending {
            Ending::Loop { loop_start } => {
                print_stdout(&format!(
                    "execution never reaching the goal {fairness_words} (lasso, {}):",
                    count(steps as u64, "step")
                ));
                print_stdout(log_lines(machine, &r.trace, 1, steps).trim_end());
                print_stdout(&format!(
                    "back to state {loop_start} (a loop of {})",
                    count((steps - loop_start) as u64, "step")
                ));
            }
            Ending::Stops => {
                let why = if fairness {
                    "no task is enabled"
                } else {
                    "no action is enabled"
                };
                if steps == 0 {
                    print_stdout(&format!(
                        "execution never reaching the goal {fairness_words}: it stops in a start state ({why}; only the environment could move it)"
                    ));
                } else {
                    print_stdout(&format!(
                        "execution never reaching the goal {fairness_words} ({}), then stops: {why}",
                        count(steps as u64, "step"),
                    ));
                    print_stdout(log_lines(machine, &r.trace, 1, steps).trim_end());
                }
            }
        }
    }
    for note in &exhausted {
        print_stdout(&format!("where the system stops short of the goal, {note}"));
    }
    print_stderr(&format!(
        "violated: {name} fails {fairness_words} ({} explored{unexpanded}{excluded})\n",
        count(report.states, "state"),
    ));
    for (file, what) in [
        (args.trace.as_ref().filter(|_| lasso.is_some()), "lasso"),
        (
            args.liveness.dead_trace.as_ref().filter(|_| dead.is_some()),
            "dead path",
        ),
    ] {
        if let Some(file) = file {
            print_stderr(&format!(
                "{what} written to {}; check it with `ioa replay {}`\n",
                file.display(),
                file.display()
            ));
        }
    }
    if !args.quiet {
        print_stderr(&format!("{timing}\n"));
    }
    ExitCode::from(EXIT_VIOLATION)
}
