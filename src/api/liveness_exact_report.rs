//! The words of the exact liveness check's report (`ioa explore --liveness NAME`): the line
//! for a search a limit stopped, the verdict lines, the dead path and the lasso as log lines,
//! the JSON document and the metadata of the traces written. The check itself is
//! [`super::liveness_exact::check`]'s; this module only reads what it returned.

use super::liveness_common::{log_lines, state_diff, Replayed};
use super::liveness_exact::{Checked, GraphSize};
use super::numbers::{count, thousands};
use checker::explore::Limit;
use checker::liveness::exact::{self, Ending};
use interpreter::machine::Machine;

impl GraphSize {
    /// The timing line: seconds, states, transitions.
    pub fn timing(&self) -> String {
        format!(
            "time {:.2} s, {} states, {} transitions",
            self.elapsed.as_secs_f64(),
            thousands(self.states as u64),
            thousands(self.transitions)
        )
    }

    /// The line for a search a limit stopped: there is no verdict.
    pub fn limit_line(&self, limit: &Limit) -> String {
        let which = match limit {
            Limit::States(n) => format!("the state limit ({} states)", thousands(*n)),
            Limit::Depth(d) => format!("the depth limit ({d}; deeper states exist)"),
            Limit::Time(t) => format!("the time limit ({:.0} s)", t.as_secs_f64()),
            Limit::Memory(_) => "the memory limit".to_string(),
            Limit::ProcessMemory(b) => format!(
                "the memory ceiling ({} bytes, {}% of this machine's memory unless --memory-ceiling)",
                b,
                checker::memory::DEFAULT_CEILING_PERCENT
            ),
        };
        format!(
            "stopped at {which} after {}: no verdict (liveness needs every reachable state)\n",
            count(self.states as u64, "state")
        )
    }

    /// The JSON document for a search a limit stopped.
    pub fn limit_json(&self, automaton: &str, name: &str) -> serde_json::Value {
        serde_json::json!({
            "automaton": automaton, "liveness": name, "verdict": "limit",
            "states": self.states, "transitions": self.transitions,
        })
    }
}

/// A finished exact check with what its report needs to name: the machine, the property and
/// whether fairness was assumed.
pub struct ExactView<'a, 's> {
    /// The automaton's machine (for log lines and states).
    pub machine: &'a Machine<'s>,
    /// The property's name.
    pub name: &'a str,
    /// Task fairness assumed.
    pub fairness: bool,
    /// What the check found.
    pub checked: &'a Checked,
}

impl ExactView<'_, '_> {
    /// `under task fairness` or `without fairness`.
    fn fairness_words(&self) -> &'static str {
        if self.fairness {
            "under task fairness"
        } else {
            "without fairness"
        }
    }

    /// What the counts leave out: goal states not expanded, cycles fairness excluded.
    fn caveats(&self) -> String {
        let c = self.checked;
        // For `eventually P` the goal states are not expanded (what follows the goal cannot
        // matter), so the states reachable only past the goal are not counted: say so, since
        // `ioa explore` counts every reachable state.
        let unexpanded = if c.expand_goal || c.goal_states == 0 {
            String::new()
        } else {
            format!(
                "; {}, not expanded: states reachable only past the goal are not explored, so `ioa explore` may count more",
                count(c.goal_states, "goal state")
            )
        };
        let excluded = &c.report.excluded;
        if excluded.components == 0 {
            return unexpanded;
        }
        let starved: Vec<&str> = excluded
            .starved
            .iter()
            .map(|&t| c.task_names[t as usize].as_str())
            .collect();
        format!(
            "{unexpanded}; {} avoiding the goal excluded by fairness, e.g. {} enabled throughout and never taken",
            count(excluded.components, "cycle"),
            starved.join(", ")
        )
    }

    /// The critical transition's log line (or why there is none).
    fn critical_line(&self, d: &exact::Dead, r: &Replayed) -> String {
        match d.critical {
            Some(k) => r.trace.log_line(self.machine, k),
            None => "none: the obligation's first state is already dead".to_string(),
        }
    }

    /// The lasso's loop start, when it loops.
    fn loop_start(&self) -> Option<usize> {
        self.checked
            .report
            .violation
            .as_ref()
            .and_then(|v| match v.ending {
                Ending::Loop { loop_start } => Some(loop_start),
                Ending::Stops => None,
            })
    }

    /// The `liveness` metadata of the dead path's trace, when there is a dead path.
    pub fn dead_meta(&self) -> Option<(&Replayed, serde_json::Value)> {
        let (d, r) = (
            self.checked.report.dead.as_ref()?,
            self.checked.dead.as_ref()?,
        );
        let meta = serde_json::json!({
            "property": self.name, "kind": "dead", "critical": d.critical,
            "obligation": d.obligation_at,
        });
        Some((r, meta))
    }

    /// The `liveness` metadata of the lasso's trace, when there is a lasso.
    pub fn lasso_meta(&self) -> Option<(&Replayed, serde_json::Value)> {
        let v = self.checked.report.violation.as_ref()?;
        let r = self.checked.lasso.as_ref()?;
        let meta = serde_json::json!({
            "property": self.name, "kind": "lasso", "loop_start": self.loop_start(),
            "fairness": self.fairness, "obligation": v.obligation_at,
        });
        Some((r, meta))
    }

    /// The JSON document.
    pub fn to_json(&self, automaton: &str, graph: &GraphSize) -> serde_json::Value {
        let c = self.checked;
        let report = &c.report;
        serde_json::json!({
            "automaton": automaton,
            "liveness": self.name,
            "fairness": self.fairness,
            "verdict": if report.holds() { "holds" } else { "violated" },
            "states": report.states,
            "goal_states": c.goal_states,
            "goal_states_expanded": c.expand_goal,
            "region": report.region,
            "transitions": graph.transitions,
            "dead_states": report.dead.as_ref().map_or(0, |d| d.count),
            "critical": report.dead.as_ref().zip(c.dead.as_ref()).map(|(d, r)| self.critical_line(d, r)),
            "dead_path_steps": c.dead.as_ref().map(|r| r.trace.steps.len()),
            "lasso_steps": c.lasso.as_ref().map(|r| r.trace.steps.len()),
            "loop_start": self.loop_start(),
            "excluded_by_fairness": report.excluded.components,
            "exhausted": c.exhausted,
            "seconds": graph.elapsed.as_secs_f64(),
        })
    }

    /// The verdict line when the property holds.
    pub fn holds_line(&self) -> String {
        let c = self.checked;
        let states = if c.expand_goal || c.goal_states == 0 {
            "states"
        } else {
            "states explored"
        };
        format!(
            "holds: {} holds in all {} {states} {} ({} on the way to the goal{})\n",
            self.name,
            thousands(c.report.states),
            self.fairness_words(),
            count(c.report.region, "state"),
            self.caveats()
        )
    }

    /// The verdict line when the property fails.
    pub fn violated_line(&self) -> String {
        format!(
            "violated: {} fails {} ({} explored{})\n",
            self.name,
            self.fairness_words(),
            count(self.checked.report.states, "state"),
            self.caveats()
        )
    }

    /// The lines on standard output when the property fails: the dead path with its critical
    /// transition, the execution that never reaches the goal, and the notes on exhausted
    /// universes.
    pub fn violation_lines(&self) -> Vec<String> {
        let (c, machine) = (self.checked, self.machine);
        let mut out = Vec::new();
        if let (Some(d), Some(r)) = (&c.report.dead, &c.dead) {
            out.push(format!(
                "dead states: {} of {} cannot reach the goal; shortest path to one:",
                thousands(d.count),
                thousands(c.report.states)
            ));
            out.push(
                log_lines(machine, &r.trace, 1, r.trace.steps.len())
                    .trim_end()
                    .to_string(),
            );
            out.push(format!("critical transition: {}", self.critical_line(d, r)));
            if let Some(k) = d.critical {
                out.push(format!("state change at step {k}:"));
                let diff = state_diff(machine, &r.trace.states[k - 1], &r.trace.states[k]);
                out.push(diff.trim_end().to_string());
            }
        }
        if let (Some(v), Some(r)) = (&c.report.violation, &c.lasso) {
            out.extend(self.lasso_lines(v.ending, r));
        }
        for note in &c.exhausted {
            out.push(format!("where the system stops short of the goal, {note}"));
        }
        out
    }

    /// The execution that never reaches the goal: a lasso, or a path that stops.
    fn lasso_lines(&self, ending: Ending, r: &Replayed) -> Vec<String> {
        let fairness_words = self.fairness_words();
        let steps = r.trace.steps.len();
        let log = || {
            log_lines(self.machine, &r.trace, 1, steps)
                .trim_end()
                .to_string()
        };
        match ending {
            Ending::Loop { loop_start } => vec![
                format!(
                    "execution never reaching the goal {fairness_words} (lasso, {}):",
                    count(steps as u64, "step")
                ),
                log(),
                format!(
                    "back to state {loop_start} (a loop of {})",
                    count((steps - loop_start) as u64, "step")
                ),
            ],
            Ending::Stops => {
                let why = if self.fairness {
                    "no task is enabled"
                } else {
                    "no action is enabled"
                };
                if steps == 0 {
                    return vec![format!(
                        "execution never reaching the goal {fairness_words}: it stops in a start state ({why}; only the environment could move it)"
                    )];
                }
                vec![
                    format!(
                        "execution never reaching the goal {fairness_words} ({}), then stops: {why}",
                        count(steps as u64, "step"),
                    ),
                    log(),
                ]
            }
        }
    }
}
