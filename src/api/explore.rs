//! Exhaustive exploration of one automaton (`ioa explore` without `--local`, `--liveness` or
//! `--processes`): breadth first over every reachable state over finite universes, checking its
//! invariants in each, on the compiled engine when the model allows it and the interpreter
//! otherwise, with symmetry and partial-order reduction when asked for.
//!
//! The result is an [`Explored`]: the verdict, the statistics and, for a violation, deadlock or
//! error, the shortest path re-executed by the interpreter into a [`RunReport`] (every engine
//! and reduction is an optimisation; only the interpreter's run is reported). A caller that
//! shows progress passes an [`Observer`].

use super::model::Model;
use super::numbers::{bytes, count, mib, parse_duration, parse_memory, thousands};
use checker::compiled::code::Fault;
use checker::compiled::CompiledModel;
use checker::explore::spill::SpillStats;
use checker::explore::{explore_spilling_to, Report, Verdict as Found};
/// The limits, statistics and stopping reasons of a search (the checker's own types).
pub use checker::explore::{Limit, Options, Stats};
use checker::model::{MachineError, MachineModel, MachineStep};
use checker::reduction::{PartialOrder, PorStats, Reduced};
use checker::symmetry::Symmetry;
use interpreter::machine::Machine;
use interpreter::runner::{RunReport, Stop};
use interpreter::trace::Trace;
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use ioa_lang::ir::{AutomatonId, Spec};
use ioa_lang::source_map::SourceMap;
use std::borrow::Cow;
use std::path::PathBuf;

/// How states are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// Compiled when the model allows it, else the interpreter.
    #[default]
    Auto,
    /// Compiled, or a usage error saying why the model cannot be.
    Compiled,
    /// Compiled, with expressions walked as word code instead of run as machine code (the
    /// reference the native code is tested against), or a usage error.
    Words,
    /// The interpreter.
    Interpreter,
}

/// How one automaton's states are searched: reductions, engine and limits.
#[derive(Debug, Clone, Default)]
pub struct SearchSettings {
    /// Types whose universes are permuted by symmetry reduction (empty: no symmetry).
    pub symmetric: Vec<String>,
    /// Partial-order reduction (preserves invariants and deadlocks).
    pub partial_order: bool,
    /// Whether all reductions were asked for (`--reduction all`): the summary then says when
    /// no symmetric type was named.
    pub all_reductions: bool,
    /// The engine.
    pub engine: Engine,
    /// Threads, limits, memory and deadlock handling.
    pub options: Options,
    /// Where the visited set spills under a memory limit (default: the temporary directory).
    pub spill_dir: Option<PathBuf>,
    /// Without symmetric types: whether to find the types the model treats alike, for the
    /// report ([`ReductionSummary::detected_symmetric`]).
    pub detect_symmetry: bool,
}

/// What [`explore`] is asked to do with a loaded model.
#[derive(Debug, Clone, Default)]
pub struct ExploreRequest {
    /// The automaton (default: the only one).
    pub automaton: Option<String>,
    /// `NAME=VALUE` for the automaton's parameters.
    pub params: Vec<String>,
    /// Check only these invariants (default: every invariant of the automaton).
    pub invariants: Vec<String>,
    /// How the states are searched.
    pub search: SearchSettings,
}

/// Why an exploration did not run.
#[derive(Debug)]
pub enum ExploreError {
    /// The request does not fit the model (an unknown automaton or invariant, an engine the
    /// model cannot use): a message for the user.
    Usage(String),
    /// The model cannot be explored (its machine, symmetry or a re-executed path failed):
    /// diagnostics into the model's sources.
    Diagnostics(Vec<Diagnostic>),
}

/// What a search shows before it starts.
pub struct Start {
    /// Action instances of the automaton over its universe.
    pub instances: usize,
    /// How the states are explored: `compiled (12 words per state, stored in 16 bytes)` or `interpreted (…why…)`.
    pub engine: String,
}

/// Receives what happens during a search, for a front end that shows it as it goes.
pub trait Observer {
    /// The search is about to start.
    fn started(&mut self, _start: &Start) {}
    /// Statistics, called often (the observer decides how often to show them).
    fn progress(&mut self, _stats: &Stats) {}
    /// The compiled engine met a state it cannot represent after `states` states; the
    /// interpreter explores again from the start.
    fn fell_back(&mut self, _fault: &Fault, _states: u64) {}
    /// The compiled engine met an integer wider than packed states give it after `states`
    /// states; it explores again from the start with 64-bit integers.
    fn widened(&mut self, _states: u64) {}
}

/// An observer that shows nothing.
impl Observer for () {}

/// The verdict of a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Every reachable state was checked and every invariant holds.
    Verified,
    /// A limit stopped the search first.
    LimitReached(Limit),
    /// The invariant (index into `Spec::invariants`) is false in a reachable state.
    Violated {
        /// The invariant.
        invariant: usize,
    },
    /// A reachable state has no enabled action (with deadlocks asked to be violations).
    Deadlock,
    /// Building, expanding or checking a state failed.
    Error,
}

impl Verdict {
    /// `verified`, `limit`, `violation`, `deadlock` or `error`, as the JSON report names it.
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Verified => "verified",
            Verdict::LimitReached(_) => "limit",
            Verdict::Violated { .. } => "violation",
            Verdict::Deadlock => "deadlock",
            Verdict::Error => "error",
        }
    }
}

/// A search's verdict with the interpreter's run to the reported state.
pub struct Outcome {
    /// The verdict.
    pub verdict: Verdict,
    /// Counts, depth, time and memory.
    pub stats: Stats,
    /// For a violation, deadlock or error: the path re-executed by the interpreter (its stop
    /// says what went wrong).
    pub counterexample: Option<RunReport>,
    /// The counterexample's steps in the paper's log format (`1: internal makeBallot([0]) in
    /// automaton Global1`).
    pub log: Vec<String>,
}

impl Outcome {
    /// Whether every reachable state was checked and every invariant holds.
    pub fn verified(&self) -> bool {
        self.verdict == Verdict::Verified
    }
}

/// What the reductions of a search did.
#[derive(Debug, Clone)]
pub struct ReductionSummary {
    /// The symmetric types.
    pub symmetric: Vec<String>,
    /// Partial-order reduction: its analysis and what it did.
    pub partial_order: Option<PorSummary>,
    /// `--reduction all` without a symmetric type.
    pub all_without_symmetry: bool,
    /// Without `--symmetric`: the types the model treats alike, which it could name
    /// ([`Symmetry::detect`]).
    pub detected_symmetric: Vec<String>,
}

impl ReductionSummary {
    fn new(settings: &SearchSettings, order: Option<&PartialOrder>, stats: PorStats) -> Self {
        Self::of(
            settings.symmetric.clone(),
            settings.all_reductions,
            order,
            stats,
        )
    }

    /// What the reductions did: symmetry in `symmetric`, partial-order reduction by `order`
    /// with `stats` (`all`: `--reduction all` was asked for).
    pub fn of(
        symmetric: Vec<String>,
        all: bool,
        order: Option<&PartialOrder>,
        stats: PorStats,
    ) -> Self {
        ReductionSummary {
            all_without_symmetry: all && symmetric.is_empty(),
            detected_symmetric: Vec::new(),
            symmetric,
            partial_order: order.map(|o| PorSummary {
                instances: o.instances(),
                visible: o.visible_instances(),
                split: o.split_instances(),
                stays_false: o.stays_false_conjuncts(),
                acyclic_rounds: o.acyclicity().acyclic().then(|| o.acyclicity().rounds()),
                stats,
            }),
        }
    }

    /// Whether some state was expanded with a reduced set (so the states stored are not all
    /// the reachable ones).
    pub fn por_reduced(&self) -> bool {
        self.partial_order
            .as_ref()
            .is_some_and(|p| p.stats.reduced_states > 0)
    }

    /// The text report's `reductions: …` line (empty when no reduction ran).
    pub fn text(&self) -> String {
        let mut parts = Vec::new();
        if !self.symmetric.is_empty() {
            parts.push(format!(
                "symmetry in {} (states equal up to a permutation stored once)",
                self.symmetric.join(", ")
            ));
        }
        if let Some(PorSummary {
            instances,
            visible,
            split,
            stays_false,
            acyclic_rounds,
            stats,
        }) = &self.partial_order
        {
            let expanded = stats.reduced_states + stats.full_states;
            let split = match split {
                0 => String::new(),
                n => format!(
                    "; {} that {} message with `choose` analysed once per message",
                    count(*n as u64, "instance"),
                    if *n == 1 { "picks its" } else { "pick their" }
                ),
            };
            let stays_false = match stays_false {
                0 => String::new(),
                n => format!(
                    "; {} that {} false once false",
                    count(*n as u64, "precondition conjunct"),
                    if *n == 1 { "stays" } else { "stay" }
                ),
            };
            let acyclic = match acyclic_rounds {
                None => String::new(),
                Some(rounds) => format!(
                    "; no cycle proviso: the state graph has no cycles ({} of the analysis)",
                    count(*rounds as u64, "round")
                ),
            };
            let mut text = format!(
                "partial-order reduction: {} of {} expanded with a stubborn set, {} not explored ({} of {} action instances visible to the invariants{split}{stays_false}{acyclic}",
                thousands(stats.reduced_states),
                count(expanded, "state"),
                count(stats.pruned_successors, "successor"),
                thousands(*visible as u64),
                thousands(*instances as u64),
            );
            if stats.proviso_larger > 0 {
                text.push_str(&format!(
                    "; {} with a larger set than the smallest found, which reached no new state",
                    count(stats.proviso_larger, "state")
                ));
            }
            if stats.proviso_full > 0 {
                text.push_str(&format!(
                    "; {} expanded fully by the cycle proviso",
                    count(stats.proviso_full, "state")
                ));
            }
            text.push(')');
            if stats.unchecked_full > 0 {
                text.push_str(&format!(
                    "; off in {}: under --memory-limit the visited set may be on disk and cannot say exactly which states were visited (the cycle proviso needs it)",
                    count(stats.unchecked_full, "state")
                ));
            }
            parts.push(text);
        }
        if self.all_without_symmetry {
            parts.push("no symmetry (no --symmetric type)".to_string());
        }
        let mut text = if parts.is_empty() {
            String::new()
        } else {
            format!("reductions: {}\n", parts.join("; "))
        };
        if !self.detected_symmetric.is_empty() {
            let flags: Vec<String> = self
                .detected_symmetric
                .iter()
                .map(|t| format!("--symmetric {t}"))
                .collect();
            text.push_str(&format!(
                "symmetry: this model accepts `{}` (no literal, field read or parameter singles out a value of {}), which stores one state per permutation\n",
                flags.join(" "),
                self.detected_symmetric.join(" or ")
            ));
        }
        text
    }

    /// The JSON report's `reduction` object.
    pub fn json(&self) -> serde_json::Value {
        let mut ran = Vec::new();
        if !self.symmetric.is_empty() {
            ran.push("symmetry");
        }
        if self.partial_order.is_some() {
            ran.push("por");
        }
        serde_json::json!({
            "ran": ran,
            "symmetric": self.symmetric,
            "detected_symmetric": self.detected_symmetric,
            "por": self.partial_order.as_ref().map(|PorSummary { instances, visible, split, stays_false, acyclic_rounds, stats }| serde_json::json!({
                "instances": instances,
                "visible_instances": visible,
                "split_instances": split,
                "stays_false_conjuncts": stays_false,
                "acyclic": acyclic_rounds.is_some(),
                "acyclic_rounds": acyclic_rounds,
                "reduced_states": stats.reduced_states,
                "full_states": stats.full_states,
                "proviso_full_states": stats.proviso_full,
                "proviso_larger_states": stats.proviso_larger,
                "unchecked_full_states": stats.unchecked_full,
                "pruned_successors": stats.pruned_successors,
            })),
        })
    }
}

/// Partial-order reduction's analysis of a model, and what it did in a search.
#[derive(Debug, Clone)]
pub struct PorSummary {
    /// Instances analysed: the machine's, with split ones counted per message.
    pub instances: usize,
    /// Of those, the ones that write what an invariant reads.
    pub visible: usize,
    /// Machine instances that pick their message with `choose`, analysed per message.
    pub split: usize,
    /// Precondition conjuncts that stay false once false.
    pub stays_false: usize,
    /// When the analysis of cycles found none, in how many rounds (then no cycle proviso).
    pub acyclic_rounds: Option<usize>,
    /// What the reduction did.
    pub stats: PorStats,
}

/// A finished exploration.
pub struct Explored {
    /// The automaton explored.
    pub automaton: AutomatonId,
    /// The verdict, statistics and counterexample.
    pub outcome: Outcome,
    /// What the reductions did.
    pub reduction: ReductionSummary,
    /// Action instances and the engine, as announced when the search started.
    pub start: Start,
}

/// Explores the automaton `request` names in the loaded model `m` (the one-call form of
/// [`select_invariants`] and [`explore_machine`]).
pub fn explore(m: &Model, request: &ExploreRequest) -> Result<Explored, ExploreError> {
    let automaton = super::model::pick_automaton(&m.spec, request.automaton.as_deref(), None)
        .map_err(ExploreError::Usage)?;
    let params =
        super::model::params(&m.spec, automaton, &request.params).map_err(ExploreError::Usage)?;
    let spec = if request.invariants.is_empty() {
        Cow::Borrowed(&m.spec)
    } else {
        let mut spec = m.spec.clone();
        select_invariants(&mut spec, automaton, &request.invariants)
            .map_err(ExploreError::Usage)?;
        Cow::Owned(spec)
    };
    let machine = Machine::new(&spec, &m.universe, automaton, params)
        .map_err(|e| ExploreError::Diagnostics(vec![e.to_diagnostic()]))?;
    explore_machine(&machine, &m.sources, &request.search, &mut ())
}

/// Keeps only the invariants named (every one must be an invariant of `automaton`).
pub fn select_invariants(
    spec: &mut Spec,
    automaton: AutomatonId,
    names: &[String],
) -> Result<(), String> {
    if names.is_empty() {
        return Ok(());
    }
    for name in names {
        if !spec
            .invariants
            .iter()
            .any(|i| &i.name == name && i.automaton == automaton)
        {
            let known: Vec<&str> = spec
                .invariants
                .iter()
                .filter(|i| i.automaton == automaton)
                .map(|i| i.name.as_str())
                .collect();
            return Err(format!(
                "no invariant `{name}` of this automaton; it has: {}",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ));
        }
    }
    spec.invariants.retain(|i| names.contains(&i.name));
    Ok(())
}

/// Explores `machine`'s reachable states; `sources` are the model's (for the places named in
/// diagnostics and engine refusals).
pub fn explore_machine(
    machine: &Machine,
    sources: &SourceMap,
    settings: &SearchSettings,
    observer: &mut dyn Observer,
) -> Result<Explored, ExploreError> {
    let diagnostics = |d: Diagnostic| ExploreError::Diagnostics(vec![d]);
    let make_symmetry = || -> Result<Option<Symmetry>, ExploreError> {
        if settings.symmetric.is_empty() {
            return Ok(None);
        }
        Symmetry::new(machine, &settings.symmetric)
            .map(Some)
            .map_err(|errors| {
                ExploreError::Diagnostics(errors.iter().map(|e| e.to_diagnostic()).collect())
            })
    };
    let symmetry = make_symmetry()?;
    let detected = if settings.detect_symmetry && settings.symmetric.is_empty() {
        Symmetry::detect(machine)
    } else {
        Vec::new()
    };
    // The compiled engine when asked for and the model allows it; the interpreter's model is
    // needed in any case, to turn a reported path into a trace.
    // A composite compiles through its flattening (checker::compiled::flat).
    let flat = match settings.engine {
        Engine::Interpreter => None,
        _ => checker::compiled::flat::flat_spec(machine.spec, machine.root),
    };
    let flat_machine = match &flat {
        Some(Ok(spec)) => Some(
            Machine::new(
                spec,
                machine.universe,
                machine.root,
                machine.root_params.clone(),
            )
            .map_err(|e| format!("its flattening does not run: {}", e.to_diagnostic().message)),
        ),
        Some(Err(reason)) => Some(Err(reason.clone())),
        None => None,
    };
    let compile = || match &flat_machine {
        Some(Ok(flat)) => checker::compiled::flat::compile(machine, flat, &settings.symmetric)
            .map_err(|r| refusal(sources, r)),
        Some(Err(reason)) => Err(reason.clone()),
        None => CompiledModel::new(machine, symmetry).map_err(|r| refusal(sources, r)),
    };
    let compiled = if settings.engine == Engine::Words {
        checker::compiled::with_word_code(compile)
    } else {
        compile()
    };
    let (compiled, engine) = match settings.engine {
        Engine::Interpreter => (None, "interpreted".to_string()),
        Engine::Auto | Engine::Compiled | Engine::Words => match compiled {
            Ok(c) => {
                let flat = if flat_machine.is_some() {
                    ", the composite flattened"
                } else {
                    ""
                };
                // Expressions run as machine code unless none does (`--engine words`, or a
                // machine Cranelift has no back end for).
                let code = match c.native_functions() {
                    0 => ", expressions as word code",
                    _ => "",
                };
                let note = format!(
                    "compiled ({} words per state, stored in {} bytes{flat}{code})",
                    c.words_per_state(),
                    8 * c.packed_words_per_state()
                );
                (Some(c), note)
            }
            Err(reason) if settings.engine != Engine::Auto => {
                return Err(ExploreError::Usage(format!(
                    "--engine {}: {reason}; `--engine interpreter` explores this model",
                    if settings.engine == Engine::Words {
                        "words"
                    } else {
                        "compiled"
                    }
                )))
            }
            Err(reason) => (None, format!("interpreted ({reason})")),
        },
    };
    let interpreted_symmetry = if compiled.is_some() {
        None
    } else {
        make_symmetry()?
    };
    let mut explorer = MachineModel::new(machine, interpreted_symmetry)
        .map_err(|e| diagnostics(e.to_diagnostic()))?;
    let order = if settings.partial_order {
        Some(PartialOrder::new(machine).map_err(|e| diagnostics(e.to_diagnostic()))?)
    } else {
        None
    };
    let start = Start {
        instances: explorer.instances().len(),
        engine,
    };
    observer.started(&start);
    let spill_dir = settings.spill_dir.as_deref();
    let options = &settings.options;
    let finished = |explorer: &MachineModel, report, stats: PorStats| {
        Ok(Explored {
            automaton: machine.root,
            outcome: conclude(explorer, report).map_err(diagnostics)?,
            reduction: ReductionSummary {
                detected_symmetric: detected.clone(),
                ..ReductionSummary::new(settings, order.as_ref(), stats)
            },
            start: Start {
                instances: start.instances,
                engine: start.engine.clone(),
            },
        })
    };
    if let Some(mut compiled) = compiled {
        loop {
            let reduced = Reduced::new(&compiled, order.as_ref());
            let report = explore_spilling_to(&reduced, options, spill_dir, &mut |s: &Stats| {
                observer.progress(s)
            });
            match machine_report(report) {
                Ok(report) => return finished(&explorer, report, reduced.stats()),
                Err((Fault::WideInteger, stats)) if !compiled.wide_integers() => {
                    observer.widened(stats.distinct);
                    compiled = compiled.with_wide_integers();
                }
                Err((fault, stats)) => {
                    observer.fell_back(&fault, stats.distinct);
                    break;
                }
            }
        }
        // The interpreter's model, now with the symmetry, explores from the start.
        explorer = MachineModel::new(machine, make_symmetry()?)
            .map_err(|e| diagnostics(e.to_diagnostic()))?;
    }
    let reduced = Reduced::new(&explorer, order.as_ref());
    let report = plain_report(explore_spilling_to(
        &reduced,
        options,
        spill_dir,
        &mut |s: &Stats| observer.progress(s),
    ));
    finished(&explorer, report, reduced.stats())
}

/// A search's report turned into an [`Outcome`]: the path to the reported state re-executed by
/// the interpreter (a path that does not re-execute is a bug in ioa, reported as a diagnostic).
pub fn conclude(
    explorer: &MachineModel,
    report: Report<MachineModel>,
) -> Result<Outcome, Diagnostic> {
    let (verdict, found) = match report.verdict {
        Found::Verified => (Verdict::Verified, None),
        Found::LimitReached(l) => (Verdict::LimitReached(l), None),
        Found::Violated { property, path } => (
            Verdict::Violated {
                invariant: property,
            },
            Some((
                path,
                Stop::InvariantViolated {
                    invariant: property,
                },
            )),
        ),
        Found::Deadlock { path } => (Verdict::Deadlock, Some((path, Stop::Deadlock))),
        Found::Error { error, path } => {
            let stop = match error {
                MachineError::Start(e) => Stop::Error(e),
                MachineError::Step { error, .. } => Stop::StepError(error),
                MachineError::Invariant { invariant, error } => {
                    Stop::InvariantError { invariant, error }
                }
                MachineError::Diverged { step } => Stop::ReplayMismatch {
                    step,
                    what: "re-executing the path gave another state".into(),
                },
            };
            (Verdict::Error, Some((path, stop)))
        }
    };
    let counterexample = match found {
        Some((path, stop)) => Some(rebuild(explorer, &path, stop)?),
        None => None,
    };
    let log = counterexample
        .as_ref()
        .map(|r| {
            (1..=r.trace.steps.len())
                .map(|k| r.trace.log_line(explorer.machine(), k))
                .collect()
        })
        .unwrap_or_default();
    Ok(Outcome {
        verdict,
        stats: report.stats,
        counterexample,
        log,
    })
}

/// Re-executes the path to the reported state into a run report that `ioa run`'s printing and
/// trace writing understand.
fn rebuild(
    explorer: &MachineModel,
    path: &[MachineStep],
    stop: Stop,
) -> Result<RunReport, Diagnostic> {
    if path.is_empty() {
        // Building the start states failed: there is no state to show.
        return Ok(RunReport {
            trace: Trace::start(vec![]),
            stop,
            choices: vec![],
        });
    }
    match explorer.trace(path) {
        Ok((trace, choices)) => Ok(RunReport {
            trace,
            stop,
            choices,
        }),
        Err(e) => Err(super::diagnose::machine_error(e, "the counterexample")),
    }
}

/// A report of the interpreter's model seen through a reduction, as the model's own.
fn plain_report<M>(report: Report<M>) -> Report<MachineModel<'static, 'static>>
where
    M: checker::explore::Model<Step = MachineStep, Property = usize, Error = MachineError>,
{
    let verdict = match report.verdict {
        Found::Verified => Found::Verified,
        Found::LimitReached(l) => Found::LimitReached(l),
        Found::Violated { property, path } => Found::Violated { property, path },
        Found::Deadlock { path } => Found::Deadlock { path },
        Found::Error { error, path } => Found::Error { error, path },
    };
    Report {
        verdict,
        stats: report.stats,
    }
}

/// The compiled engine's report as the interpreter's model would have made it (same steps and
/// properties), or the fault that stopped it.
#[allow(clippy::result_large_err)]
fn machine_report<M>(
    report: Report<M>,
) -> Result<Report<MachineModel<'static, 'static>>, (Fault, Stats)>
where
    M: checker::explore::Model<Step = MachineStep, Property = usize, Error = Fault>,
{
    let verdict = match report.verdict {
        Found::Verified => Found::Verified,
        Found::LimitReached(l) => Found::LimitReached(l),
        Found::Violated { property, path } => Found::Violated { property, path },
        Found::Deadlock { path } => Found::Deadlock { path },
        Found::Error { error, .. } => return Err((error, report.stats)),
    };
    Ok(Report {
        verdict,
        stats: report.stats,
    })
}

/// Why the compiled engine does not take the model, with the place of the construct that is
/// the reason (`file:line:column`) when there is one.
pub fn refusal(sources: &SourceMap, r: checker::compiled::Refusal) -> String {
    match r.span {
        Some(span) => {
            let at = sources.line_col(span.file, span.start);
            format!(
                "{}, at {}:{}:{}",
                r.reason,
                sources.name(span.file),
                at.line,
                at.column
            )
        }
        None => r.reason,
    }
}

/// The progress line.
pub fn progress_line(stats: &Stats) -> String {
    let memory = stats
        .peak_resident
        .map(|b| format!(", {}", mib(b)))
        .unwrap_or_default();
    format!(
        "depth {}: {} states ({} generated), {} in this level, {:.0} states/s{memory}",
        stats.depth,
        thousands(stats.distinct),
        thousands(stats.generated),
        thousands(stats.frontier),
        stats.states_per_second()
    )
}

/// A statement of how far a stopped search got. Under partial-order reduction the levels are
/// those of the reduced state space: it keeps every reachable violation, but not at its depth.
pub fn coverage(stats: &Stats, por_reduced: bool) -> String {
    let levels = match stats.levels_completed {
        Some(d) if por_reduced => format!(
            "every state of the reduced state space within {} of a start state was checked (the reduction keeps every violation, not its depth)",
            count(d as u64, "step")
        ),
        Some(d) => format!(
            "every state within {} of a start state was checked",
            count(d as u64, "step")
        ),
        None => "not all start states were checked".to_string(),
    };
    format!(
        "{} checked ({} stored, {} generated); {levels}",
        count(stats.checked, "state"),
        thousands(stats.distinct),
        thousands(stats.generated)
    )
}

/// What spilling did and cost, if it happened: the counts are the same on every run of the same
/// search; the time (left out with `--quiet`) is the time spent in disk work.
pub fn spill_line(spill: &SpillStats, quiet: bool, per_worker: bool) -> Option<String> {
    if spill.spills == 0 {
        return None;
    }
    let time = if quiet {
        String::new()
    } else {
        format!(", {:.2} s of disk work", spill.disk_time.as_secs_f64())
    };
    Some(format!(
        "spilled the visited set to disk {} (memory limit {}{}): {} in {} ({}) and their links, {} on disk; {} written, {} read{time}\n",
        count(spill.spills, "time"),
        bytes(spill.limit),
        if per_worker { " per worker" } else { "" },
        count(spill.states_on_disk, "state"),
        count(spill.runs as u64, "sorted run"),
        count(spill.merges, "merge"),
        bytes(spill.bytes_on_disk),
        bytes(spill.bytes_written),
        bytes(spill.bytes_read),
    ))
}

/// What spilling did, as JSON.
pub fn spill_json(spill: &SpillStats) -> serde_json::Value {
    serde_json::json!({
        "limit": spill.limit,
        "spills": spill.spills,
        "states_on_disk": spill.states_on_disk,
        "runs": spill.runs,
        "merges": spill.merges,
        "bytes_on_disk": spill.bytes_on_disk,
        "bytes_written": spill.bytes_written,
        "bytes_read": spill.bytes_read,
        "disk_seconds": spill.disk_time.as_secs_f64(),
        "error": spill.error,
    })
}

/// The limit that stopped a search, as JSON.
pub fn limit_json(limit: &Limit) -> serde_json::Value {
    match limit {
        Limit::States(n) => serde_json::json!({ "states": n }),
        Limit::Depth(d) => serde_json::json!({ "depth": d }),
        Limit::Time(t) => serde_json::json!({ "seconds": t.as_secs_f64() }),
        Limit::Memory(b) => serde_json::json!({ "bytes": b }),
        Limit::ProcessMemory(b) => serde_json::json!({ "process_bytes": b }),
    }
}

/// The closing line of a text report: time, rates, memory per state and threads.
pub fn performance_line(stats: &Stats) -> String {
    format!(
        "time {:.2} s, {} states/s ({} generated/s), {} bytes/state, {}",
        stats.elapsed.as_secs_f64(),
        thousands(stats.states_per_second() as u64),
        thousands((stats.generated as f64 / stats.elapsed.as_secs_f64().max(1e-9)) as u64),
        thousands(stats.bytes_per_state() as u64),
        count(stats.threads as u64, "thread")
    )
}

/// The JSON report of a search of `machine`; `trace` is the file the counterexample was written
/// to, `distributed` the per-worker part of a distributed search.
pub fn report_json(
    machine: &Machine,
    outcome: &Outcome,
    symmetric: &[String],
    trace: Option<String>,
    distributed: Option<serde_json::Value>,
    reduction: Option<&ReductionSummary>,
) -> serde_json::Value {
    let stats = &outcome.stats;
    let aut_name = &machine.spec.automata[machine.root.0 as usize].name;
    let verdict = outcome.verdict.name();
    let run_report = outcome.counterexample.as_ref();
    let limit = match &outcome.verdict {
        Verdict::LimitReached(l) => Some(limit_json(l)),
        _ => None,
    };
    serde_json::json!({
        "automaton": aut_name,
        "verdict": verdict,
        "limit": limit,
        "invariant": match &outcome.verdict {
            Verdict::Violated { invariant } => Some(machine.spec.invariants[*invariant].name.clone()),
            _ => None,
        },
        "counterexample_steps": run_report.map(|r| r.trace.steps.len()),
        "symmetric": symmetric,
        "states": stats.distinct,
        "generated": stats.generated,
        "checked": stats.checked,
        "depth": stats.depth,
        "levels_completed": stats.levels_completed,
        "deadlocks": stats.deadlocks,
        "seconds": stats.elapsed.as_secs_f64(),
        "states_per_second": stats.states_per_second(),
        "bytes_per_state": stats.bytes_per_state(),
        "threads": stats.threads,
        "trace": trace,
        "distributed": distributed,
        "reduction": reduction.map(ReductionSummary::json),
        "spill": stats.spill.as_ref().map(spill_json),
    })
}

/// The verdict line of a text report: verified, stopped at a limit, or the counterexample's
/// length; `memory_ceiling_given` says whether the ceiling was the user's.
pub fn verdict_text(
    outcome: &Outcome,
    n_inv: usize,
    por_reduced: bool,
    memory_ceiling_given: bool,
) -> String {
    let stats = &outcome.stats;
    let deadlocks = match stats.deadlocks {
        0 => "no deadlock".to_string(),
        n => format!("{} without successors", count(n, "state")),
    };
    match &outcome.verdict {
        Verdict::Verified => {
            let all = match n_inv {
                0 => "no invariant to check in".to_string(),
                1 => "the invariant holds in".to_string(),
                n => format!("all {n} invariants hold in"),
            };
            let which = if por_reduced {
                "states of the reduced state space (which preserves every reachable violation and deadlock)"
            } else {
                "reachable states"
            };
            format!(
                "verified: {all} all {} {which} ({} generated, depth {}, {deadlocks})\n",
                thousands(stats.distinct),
                thousands(stats.generated),
                stats.depth
            )
        }
        Verdict::LimitReached(limit) => {
            let which = match limit {
                Limit::States(n) => format!("the state limit ({} states)", thousands(*n)),
                Limit::Depth(d) => format!("the depth limit ({d}; deeper states exist)"),
                Limit::Time(t) => format!("the time limit ({:.0} s)", t.as_secs_f64()),
                Limit::Memory(b) => {
                    let why = stats
                        .spill
                        .as_ref()
                        .and_then(|s| s.error.as_deref())
                        .map(|e| format!(": the visited set could not spill to disk ({e})"))
                        .unwrap_or_else(|| {
                            // A distributed search stops when a process's resident memory
                            // passes the limit.
                            " of resident memory in a process".to_string()
                        });
                    format!("the memory limit ({}){why}", bytes(*b))
                }
                Limit::ProcessMemory(b) => format!(
                    "the memory ceiling ({}{}; with --memory-limit the visited set spills to disk instead)",
                    bytes(*b),
                    if memory_ceiling_given {
                        String::new()
                    } else {
                        format!(
                            ", {}% of this machine's memory",
                            checker::memory::DEFAULT_CEILING_PERCENT
                        )
                    }
                ),
            };
            format!(
                "stopped at {which}: {}; no invariant failed\n",
                coverage(stats, por_reduced)
            )
        }
        _ => {
            let steps = outcome
                .counterexample
                .as_ref()
                .map_or(0, |r| r.trace.steps.len());
            let what = match &outcome.verdict {
                Verdict::Error => "the search stopped on an error after",
                Verdict::Deadlock => "shortest path to a deadlock:",
                _ if por_reduced => "counterexample (shortest in the reduced state space):",
                _ => "shortest counterexample:",
            };
            format!(
                "{what} {} ({} stored, {} generated, depth {})\n",
                count(steps as u64, "step"),
                count(stats.distinct, "state"),
                thousands(stats.generated),
                stats.depth
            )
        }
    }
}

/// The limits of a search as the user wrote them (`--time-limit 5m`, `--memory-limit 64MiB`).
#[derive(Debug, Clone, Default)]
pub struct Limits<'a> {
    /// Worker threads (0: every core).
    pub threads: usize,
    /// Stop after this many distinct states.
    pub max_states: Option<u64>,
    /// Do not explore beyond this depth.
    pub max_depth: Option<u32>,
    /// `90`, `90s`, `5m`, `2h`.
    pub time_limit: Option<&'a str>,
    /// Memory for the visited set before it spills to disk.
    pub memory_limit: Option<&'a str>,
    /// Without a memory limit: the process's resident memory at which the search stops
    /// (default: a share of the machine's memory).
    pub memory_ceiling: Option<&'a str>,
    /// Report a state without successors as a violation.
    pub deadlock: bool,
}

/// The search options for `l`, the same for every search (global, local, liveness,
/// distributed); an `Err` names the option that does not read.
pub fn search_options(l: &Limits) -> Result<Options, String> {
    let time_limit = match l.time_limit.map(parse_duration).transpose() {
        Ok(t) => t,
        Err(e) => return Err(format!("--time-limit: {e}")),
    };
    let memory_limit = match l.memory_limit.map(parse_memory).transpose() {
        Ok(t) => t,
        Err(e) => return Err(format!("--memory-limit: {e}")),
    };
    let memory_ceiling = match l.memory_ceiling.map(parse_memory).transpose() {
        Ok(t) => t,
        Err(e) => return Err(format!("--memory-ceiling: {e}")),
    };
    Ok(Options {
        threads: l.threads,
        max_states: l.max_states,
        max_depth: l.max_depth,
        time_limit,
        memory_limit,
        // Without --memory-limit, a ceiling on the process keeps the kernel from killing the
        // run: it stops with what it covered instead.
        process_memory_ceiling: if memory_limit.is_none() {
            memory_ceiling.or_else(checker::memory::default_ceiling)
        } else {
            None
        },
        deadlock_is_violation: l.deadlock,
        batch: 0,
    })
}
