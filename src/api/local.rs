//! Local model checking (`ioa explore --local`) as data: the report's lines and JSON, and the
//! global explorer run from the same state for `--compare-global`. The search is
//! `checker::local`'s.

use super::explore::ExploreError;
use super::numbers::{count, thousands};
use super::snapshot::{snapshot, Snapshot};
use checker::explore::{explore, Limit, Options, Verdict};
use checker::local::search::run_local;
use checker::local::{LocalError, LocalOptions, LocalReport, LocalVerdict};
use checker::model::MachineModel;
use interpreter::machine::{Machine, State};
use interpreter::runner::{RunReport, Stop};
use interpreter::trace::Trace;
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};

/// Whether eager sends were applied, and if not, why.
pub fn eager_line(report: &LocalReport) -> String {
    match &report.eager_sends {
        Ok(outboxes) => format!(
            "eager sends: on (outboxes {} drained as part of the event that fills them)",
            outboxes.join(", ")
        ),
        Err(reason) => format!("eager sends: off ({reason}); every send is explored as an event"),
    }
}

/// The nodes and the network, as the report's line says them.
pub fn nodes_line(report: &LocalReport) -> String {
    format!(
        "{} ({}), network {}",
        count(report.nodes.len() as u64, "node"),
        report.nodes.join(", "),
        if report.network.is_empty() {
            "none".into()
        } else {
            report.network.join(", ")
        }
    )
}

/// Which invariants are checked with LMC-OPT and which with LMC-GEN.
pub fn describe_strategy(machine: &Machine, report: &LocalReport) -> String {
    let names = |opt: bool| -> Vec<String> {
        report
            .optimised
            .iter()
            .filter(|(_, o)| *o == opt)
            .map(|(k, _)| machine.spec.invariants[*k].name.clone())
            .collect()
    };
    let (opt, gen) = (names(true), names(false));
    let mut parts = Vec::new();
    if !opt.is_empty() {
        parts.push(format!("LMC-OPT for {}", opt.join(", ")));
    }
    if !gen.is_empty() {
        parts.push(format!("LMC-GEN for {}", gen.join(", ")));
    }
    if parts.is_empty() {
        "no invariant to check".into()
    } else {
        parts.join("; ")
    }
}

/// The search's statistics, as the text report's lines.
pub fn stats_lines(report: &LocalReport) -> Vec<String> {
    let s = &report.stats;
    let per_node: Vec<String> = s.local_states.iter().map(|n| thousands(*n)).collect();
    let total = s.total_local_states();
    vec![
        format!(
            "local states {} = {} ({} per node); {} executed{}; {} sent, {} deliveries",
            thousands(total),
            per_node.join(" + "),
            if per_node.len() == 1 { "one node" } else { "one" },
            count(s.transitions, "transition"),
            if s.eager_sends > 0 {
                format!(" ({} eager sends)", thousands(s.eager_sends))
            } else {
                String::new()
            },
            count(s.messages, "message"),
            thousands(s.deliveries)
        )
        .replace(" (one per node)", ""),
        format!(
            "system states built {}, preliminary violations {}, soundness calls {}, states searched {}",
            thousands(s.system_states),
            thousands(s.preliminary),
            thousands(s.soundness_calls),
            thousands(s.sequences)
        ),
        format!(
            "event depth {} (per node {}); memory {} bytes ({} per local state)",
            s.event_depth(),
            s.node_depths
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            thousands(s.bytes),
            thousands(s.bytes / total.max(1))
        ),
    ]
}

/// The global explorer's figures for the comparison.
pub struct Global {
    /// `verified`, `violation`, `limit`, `deadlock` or `error`.
    pub verdict: &'static str,
    /// States stored.
    pub states: u64,
    /// Transitions taken.
    pub transitions: u64,
    /// The depth reached.
    pub depth: u32,
    /// Wall-clock time.
    pub seconds: f64,
}

/// Runs the global explorer from the snapshot with the same limits (`--compare-global`).
pub fn run_global(
    machine: &Machine,
    options: &Options,
    start: &super::snapshot::Snapshot,
) -> Global {
    let Ok(model) = MachineModel::new(machine, None) else {
        return Global {
            verdict: "error",
            states: 0,
            transitions: 0,
            depth: 0,
            seconds: 0.0,
        };
    };
    let from_live = FromState {
        inner: &model,
        start: start.state.clone(),
    };
    let report = explore(&from_live, options, &mut |_| {});
    Global {
        verdict: match report.verdict {
            Verdict::Verified => "verified",
            Verdict::Violated { .. } => "violation",
            Verdict::LimitReached(_) => "limit",
            Verdict::Deadlock { .. } => "deadlock",
            Verdict::Error { .. } => "error",
        },
        states: report.stats.distinct,
        transitions: report.stats.generated.saturating_sub(1),
        depth: report.stats.depth,
        seconds: report.stats.elapsed.as_secs_f64(),
    }
}

/// The machine's model started from a given state (the local search's start).
struct FromState<'a, 'm, 's> {
    inner: &'a MachineModel<'m, 's>,
    start: State,
}

impl checker::explore::Model for FromState<'_, '_, '_> {
    type State = State;
    type Step = checker::model::MachineStep;
    type Property = usize;
    type Error = checker::model::MachineError;
    fn initial_states(&self, out: &mut Vec<(Self::Step, State)>) -> Result<(), Self::Error> {
        let step = checker::model::MachineStep {
            instance: checker::model::MachineStep::START,
            choices: Box::new([]),
        };
        out.push((step, self.start.clone()));
        Ok(())
    }
    fn successors(&self, s: &State, out: &mut Vec<(Self::Step, State)>) -> Result<(), Self::Error> {
        self.inner.successors(s, out)
    }
    fn check(&self, s: &State) -> Result<Option<usize>, Self::Error> {
        self.inner.check(s)
    }
    fn fingerprint(&self, s: &State) -> checker::fingerprint::Fingerprint {
        self.inner.fingerprint(s)
    }
}

/// The local and the global searches side by side (`--compare-global`).
pub fn comparison(report: &LocalReport, g: &Global) -> String {
    let s = &report.stats;
    let local_verdict = match &report.verdict {
        LocalVerdict::NoViolation { bounded: false } if s.unsettled == 0 => "verified",
        LocalVerdict::NoViolation { .. } => "no violation",
        LocalVerdict::Violated { .. } => "violation",
        LocalVerdict::Limit(_) => "limit",
    };
    let rows = [
        ("verdict", local_verdict.to_string(), g.verdict.to_string()),
        (
            "states",
            format!("{} local", thousands(s.total_local_states())),
            format!("{} global", thousands(g.states)),
        ),
        (
            "transitions",
            thousands(s.transitions),
            thousands(g.transitions),
        ),
        (
            "depth (events)",
            s.event_depth().to_string(),
            g.depth.to_string(),
        ),
        (
            "time (s)",
            format!("{:.3}", s.elapsed.as_secs_f64()),
            format!("{:.3}", g.seconds),
        ),
    ];
    let mut out = format!("{:<16} {:>16} {:>16}\n", "", "local", "global");
    for (name, l, gl) in rows {
        out.push_str(&format!("{name:<16} {l:>16} {gl:>16}\n"));
    }
    if s.transitions > 0 && g.transitions > 0 {
        out.push_str(&format!(
            "global/local: {:.1}x the transitions, {:.1}x the time\n",
            g.transitions as f64 / s.transitions as f64,
            g.seconds / s.elapsed.as_secs_f64().max(1e-9)
        ));
    }
    out
}

/// The JSON report.
pub fn json(
    machine: &Machine,
    report: &LocalReport,
    run: Option<&RunReport>,
    global: &Option<Global>,
) -> serde_json::Value {
    let s = &report.stats;
    serde_json::json!({
        "automaton": machine.spec.automata[machine.root.0 as usize].name,
        "verdict": match &report.verdict {
            LocalVerdict::NoViolation { bounded: false } if s.unsettled == 0 => "verified",
            LocalVerdict::NoViolation { .. } => "no_violation",
            LocalVerdict::Violated { .. } => "violation",
            LocalVerdict::Limit(_) => "limit",
        },
        "invariant": match &report.verdict {
            LocalVerdict::Violated { invariant, .. } => Some(machine.spec.invariants[*invariant].name.clone()),
            _ => None,
        },
        "run_steps": run.map(|r| r.trace.steps.len()),
        "local_states": s.local_states,
        "transitions": s.transitions,
        "eager_sends_fired": s.eager_sends,
        "messages": s.messages,
        "system_states": s.system_states,
        "preliminary_violations": s.preliminary,
        "soundness_calls": s.soundness_calls,
        "sequences": s.sequences,
        "unsettled": s.unsettled,
        "eager_sends": match &report.eager_sends {
            Ok(outboxes) => serde_json::json!({ "applied": true, "outboxes": outboxes }),
            Err(reason) => serde_json::json!({ "applied": false, "reason": reason }),
        },
        "event_depth": s.event_depth(),
        "bytes": s.bytes,
        "seconds": s.elapsed.as_secs_f64(),
        "global": global.as_ref().map(|g| serde_json::json!({
            "verdict": g.verdict,
            "states": g.states,
            "transitions": g.transitions,
            "depth": g.depth,
            "seconds": g.seconds,
        })),
    })
}

/// The verdict line of a search that confirmed no violation (it held, was bounded, or stopped
/// at a limit); `skip_network_invariants` is `--skip-network-invariants`.
pub fn verdict_line(
    machine: &Machine,
    report: &LocalReport,
    skip_network_invariants: bool,
) -> String {
    let s = &report.stats;
    match &report.verdict {
        LocalVerdict::NoViolation { bounded } => {
            let n_inv = report.optimised.len();
            let (what, verb) = match n_inv {
                0 => ("no invariant was checked".to_string(), "holds"),
                1 => ("the invariant".to_string(), "holds"),
                n if report.left_out.is_empty() => (format!("all {n} invariants"), "hold"),
                n => (format!("the {n} invariants checked"), "hold"),
            };
            if n_inv == 0 {
                format!(
                    "no invariant to check: every local state explored{}\n",
                    if *bounded { " within the bounds" } else { "" }
                )
            } else if *bounded {
                format!(
                    "no violation within the bounds: {what} held in every combination checked; deeper local states exist (raise --max-depth or --max-local-events)\n"
                )
            } else if s.unsettled > 0 {
                format!(
                    "no violation confirmed, but {} preliminary violation(s) were not settled (the soundness check's budget ran out; raise --max-sequences)\n",
                    s.unsettled
                )
            } else {
                let left_out: Vec<&str> = report
                    .left_out
                    .iter()
                    .map(|(k, _)| machine.spec.invariants[*k].name.as_str())
                    .collect();
                if skip_network_invariants && !left_out.is_empty() {
                    format!(
                        "verified: {what} {verb} in every reachable system state (every local state explored, {} combinations built); left out as asked: {}\n",
                        thousands(s.system_states),
                        left_out.join(", ")
                    )
                } else if left_out.is_empty() {
                    format!(
                        "verified: {what} {verb} in every reachable system state (every local state explored, {} combinations built)\n",
                        thousands(s.system_states)
                    )
                } else {
                    format!(
                        "incomplete: {what} {verb} in every reachable system state (every local state explored, {} combinations built), but {} {} not checked ({} network state: check {} with the global explorer{})\n",
                        thousands(s.system_states),
                        left_out.join(", "),
                        if left_out.len() == 1 { "was" } else { "were" },
                        if left_out.len() == 1 { "it reads" } else { "they read" },
                        if left_out.len() == 1 { "it" } else { "them" },
                        if skip_network_invariants { "" } else { ", or pass --skip-network-invariants to accept this" }
                    )
                }
            }
        }
        LocalVerdict::Limit(Limit::Time(t)) => format!(
            "stopped at the time limit ({:.0} s): no violation confirmed so far\n",
            t.as_secs_f64()
        ),
        LocalVerdict::Limit(Limit::ProcessMemory(b)) => format!(
            "stopped at the memory ceiling ({b} bytes of resident memory): no violation confirmed so far\n"
        ),
        LocalVerdict::Limit(Limit::States(n)) => format!(
            "stopped at the state limit ({} local states): no violation confirmed so far\n",
            crate::api::numbers::thousands(*n)
        ),
        LocalVerdict::Limit(_) => {
            String::from("stopped at a limit: no violation confirmed so far\n")
        }
        LocalVerdict::Violated { .. } => String::new(),
    }
}

/// What local model checking is asked to do besides the limits.
pub struct LocalSettings<'a> {
    /// Start from state `at` of this ITF trace instead of the start state.
    pub from: Option<&'a std::path::Path>,
    /// Which state of the trace (default: the last).
    pub at: Option<usize>,
    /// The network components (empty: the system view's).
    pub network: &'a [String],
    /// Local events per node at most.
    pub max_local_events: Option<u32>,
    /// The soundness check's budget.
    pub max_sequences: u64,
    /// LMC-GEN for every invariant (no LMC-OPT).
    pub all_combinations: bool,
    /// Invariants were named: one that reads the network is an error, not left out.
    pub strict: bool,
    /// Explore every send as an event.
    pub no_eager_sends: bool,
}

/// A finished local search.
pub struct LocalChecked {
    /// The search's report.
    pub report: LocalReport,
    /// The state it started from, with the run that led to it.
    pub start: Snapshot,
    /// For a confirmed violation: the run from the model's start, re-executed.
    pub confirmed: Option<RunReport>,
}

/// Runs local model checking on `machine` from a start state or a trace's state; a confirmed
/// violation is re-executed from the model's start into a run.
pub fn check_local(
    machine: &Machine,
    options: &Options,
    s: &LocalSettings,
) -> Result<LocalChecked, ExploreError> {
    let diagnostics = |d: Diagnostic| ExploreError::Diagnostics(vec![d]);
    let model = MachineModel::new(machine, None).map_err(|e| diagnostics(e.to_diagnostic()))?;
    let start = snapshot(machine, &model, s.from, s.at).map_err(ExploreError::Usage)?;
    let network = if s.network.is_empty() {
        None
    } else {
        Some(
            checker::system::resolve_network(machine, s.network)
                .map_err(|e| diagnostics(e.to_diagnostic()))?,
        )
    };
    let local_options = LocalOptions {
        network,
        invariants: None,
        max_depth: options.max_depth,
        max_local_events: s.max_local_events,
        max_states: options.max_states,
        time_limit: options.time_limit,
        memory_ceiling: options.process_memory_ceiling,
        max_sequences: s.max_sequences,
        optimise: !s.all_combinations,
        strict: s.strict,
        eager_sends: !s.no_eager_sends,
    };
    let report = run_local(&model, start.state.clone(), local_options).map_err(local_error)?;
    let confirmed = match &report.verdict {
        LocalVerdict::Violated { invariant, run } => {
            let (trace, choices) = model.trace_from(start.state.clone(), run).map_err(|_| {
                ExploreError::Usage("re-executing the confirmed run diverged (a bug in ioa: please report it with the model)".into())
            })?;
            let mut r = RunReport {
                trace: Trace::start(vec![]),
                stop: Stop::InvariantViolated {
                    invariant: *invariant,
                },
                choices: vec![],
            };
            start.extend(trace, choices, &mut r);
            Some(r)
        }
        _ => None,
    };
    Ok(LocalChecked {
        report,
        start,
        confirmed,
    })
}

/// A local search's error as the command reports it.
fn local_error(e: LocalError) -> ExploreError {
    match e {
        LocalError::Run(e) => ExploreError::Diagnostics(vec![e.to_diagnostic()]),
        LocalError::System(errors) => {
            let diags: Vec<_> = errors.iter().map(|e| e.to_diagnostic()).collect();
            ExploreError::Diagnostics(diags)
        }
        LocalError::NotLocal {
            invariant,
            component,
        } => ExploreError::Usage(format!(
            "--local: invariant `{invariant}` reads the network component `{component}`; local model checking checks invariants over node states only (name only node-state invariants with --invariant, say which components are the network with --network, or check it with the global explorer: leave out --local)"
        )),
        LocalError::NothingToCheck { left_out } => {
            let list: Vec<String> = left_out
                .iter()
                .map(|(i, c)| format!("`{i}` reads `{c}`"))
                .collect();
            ExploreError::Usage(format!(
                "--local: nothing to check: every invariant reads network state ({}); local model checking combines node states only. Check them with the global explorer (leave out --local), or say which components are the network with --network (see `ioa system`)",
                list.join(", ")
            ))
        }
    }
}

/// How a local check ends, for the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conclusion {
    /// Every invariant checked holds in every combination of reachable node states.
    Verified,
    /// A violation was confirmed by the interpreter.
    Violated,
    /// A bound, an unsettled preliminary violation or an invariant left out unasked (without
    /// `--skip-network-invariants`) leaves the check incomplete.
    Incomplete,
}

/// The check's conclusion; `skip_network_invariants` says that the invariants left out were
/// left out on request.
pub fn conclusion(report: &LocalReport, skip_network_invariants: bool) -> Conclusion {
    match &report.verdict {
        LocalVerdict::Violated { .. } => Conclusion::Violated,
        LocalVerdict::Limit(_) => Conclusion::Incomplete,
        LocalVerdict::NoViolation { .. }
            if report.verified()
                || (skip_network_invariants
                    && report.stats.unsettled == 0
                    && matches!(report.verdict, LocalVerdict::NoViolation { bounded: false })) =>
        {
            Conclusion::Verified
        }
        LocalVerdict::NoViolation { .. } => Conclusion::Incomplete,
    }
}

/// The lines about invariants not checked because they read network state: notes when they
/// were left out on request, else warnings.
pub fn left_out_lines(
    machine: &Machine,
    report: &LocalReport,
    skip_network_invariants: bool,
) -> Vec<String> {
    let severity = if skip_network_invariants {
        "note"
    } else {
        "warning"
    };
    report
        .left_out
        .iter()
        .map(|(k, component)| {
            format!(
                "{severity}: invariant `{}` is not checked: it reads the network component `{component}`, and local model checking combines node states only\n",
                machine.spec.invariants[*k].name
            )
        })
        .collect()
}
