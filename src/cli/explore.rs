//! `ioa explore`: breadth-first exploration of every reachable state of an automaton over finite
//! universes, checking its invariants in every state; the shortest counterexample is printed in
//! the paper's log format and can be written as an ITF trace that `ioa replay` re-executes.
//!
//! Exit codes: 0 every reachable state was checked and every invariant holds; 1 a violation
//! (an invariant is false, or with `--deadlock` a state has no enabled action); 2 the command
//! line, the model or its evaluation is wrong; 3 a limit stopped the search first.

use super::model::{self, Model};
use super::output::{print_diagnostics, print_stderr, print_stdout};
use super::{ColorChoice, Format};
use checker::compiled::code::Fault;
use checker::compiled::CompiledModel;
use checker::explore::spill::SpillStats;
use checker::explore::{explore_spilling_to, Limit, Options, Report, Stats, Verdict};
use checker::model::{MachineError, MachineModel, MachineStep};
use checker::reduction::{PartialOrder, PorStats, Reduced};
use checker::symmetry::Symmetry;
use interpreter::machine::Machine;
use interpreter::runner::{RunReport, Stop};
use interpreter::trace::Trace;
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use ioa_lang::ir::AutomatonId;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Options of `ioa explore`.
#[derive(clap::Args)]
pub struct ExploreArgs {
    /// The .ioa model.
    pub file: PathBuf,
    /// The automaton (default: the only one).
    #[arg(long)]
    pub automaton: Option<String>,
    /// A value for an automaton parameter, `NAME=VALUE` (repeatable).
    #[arg(long = "param")]
    pub params: Vec<String>,
    /// A universe line such as `Node = [0]..[2]` (repeatable); see `ioa run --help`.
    #[arg(long)]
    pub universe: Vec<String>,
    /// A universe file (default: MODEL.universe or default.universe beside the model).
    #[arg(long)]
    pub universe_file: Option<PathBuf>,
    /// Reduce by symmetry: states that differ by a permutation of this type's universe are
    /// explored once (repeatable).
    #[arg(long)]
    pub symmetric: Vec<String>,
    /// Which reductions run: `none`; `por` (partial-order reduction: only a stubborn set of the
    /// enabled action instances is explored in each state; invariants and deadlocks are
    /// preserved); `symmetry` (the types of --symmetric); `all` (both). Without the option:
    /// symmetry when --symmetric names a type, no partial-order reduction.
    #[arg(long, value_enum)]
    pub reduction: Option<Reduction>,
    /// Check only this invariant (repeatable; default: every invariant of the automaton).
    #[arg(long = "invariant")]
    pub invariants: Vec<String>,
    /// Report a state where no action is enabled as a violation.
    #[arg(long)]
    pub deadlock: bool,
    /// Stop after this many distinct states (with --local: local states of all nodes together;
    /// with --processes the count is checked between levels, so the level under way is
    /// finished first and may take the run past N).
    #[arg(long)]
    pub max_states: Option<u64>,
    /// Do not explore beyond this depth (number of steps from a start state).
    #[arg(long)]
    pub max_depth: Option<u32>,
    /// Stop after this long (`90`, `90s`, `5m`, `2h`).
    #[arg(long)]
    pub time_limit: Option<String>,
    /// Memory for the visited set (`64MiB`, `1.5GiB`, `500MB`; MiB without a unit): when it is
    /// reached the visited set moves to disk and the search goes on (same counts, slower).
    #[arg(long)]
    pub memory_limit: Option<String>,
    /// Without --memory-limit: stop (exit 3, with what was covered) when the process's resident
    /// memory reaches this (`2GiB`; default: 80% of the machine's memory), rather than be killed
    /// by the kernel.
    #[arg(long, value_name = "SIZE", conflicts_with = "memory_limit")]
    pub memory_ceiling: Option<String>,
    /// Where the visited set spills under `--memory-limit` (a fresh directory inside DIR,
    /// removed at the end; default: the system's temporary directory).
    #[arg(long, value_name = "DIR")]
    pub spill_dir: Option<PathBuf>,
    /// Worker threads (default: every core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// How states are computed: `compiled` (flat word states, for primitive automata over
    /// finite types), `interpreter`, or `auto` (compiled when the model allows it).
    #[arg(long, value_enum, default_value_t = Engine::Auto)]
    pub engine: Engine,
    /// Write the shortest counterexample as an ITF JSON trace (for `ioa replay`).
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Write the counterexample as a self-contained HTML page (as `ioa view` draws it).
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Local model checking (LMC) and its options.
    #[command(flatten)]
    pub local: super::explore_local::LocalArgs,
    /// The exact liveness check and its options.
    #[command(flatten)]
    pub liveness: super::explore_liveness::LivenessArgs,
    /// Distributed exploration over several processes (timely dataflow).
    #[command(flatten)]
    pub dist: super::explore_dist::DistArgs,
    /// Print a progress line every ten seconds even when standard error is not a terminal.
    #[arg(long)]
    pub progress: bool,
    /// Print only the verdict and counterexample, no timing.
    #[arg(long)]
    pub quiet: bool,
    /// Print the report as text or as one JSON document.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Colour the diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// Which reductions `ioa explore` applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Reduction {
    /// Every state is explored.
    None,
    /// Partial-order reduction only.
    Por,
    /// Symmetry reduction only (needs --symmetric).
    Symmetry,
    /// Partial-order and symmetry reduction (symmetry when --symmetric names a type).
    All,
}

/// How `ioa explore` computes states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// Compiled when the model allows it, else the interpreter.
    Auto,
    /// Compiled, or an error saying why the model cannot be.
    Compiled,
    /// The interpreter.
    Interpreter,
}

pub(super) const EXIT_VIOLATION: u8 = 1;
pub(super) const EXIT_ERROR: u8 = 2;
pub(super) const EXIT_LIMIT: u8 = 3;

pub(super) fn usage(message: String) -> ExitCode {
    print_stderr(&format!("error: {message}\n"));
    ExitCode::from(EXIT_ERROR)
}

pub(super) fn fail(diags: &[Diagnostic], m: &Model, color: ColorChoice) -> ExitCode {
    print_diagnostics(diags, &m.sources, Format::Text, color);
    ExitCode::from(EXIT_ERROR)
}

/// Parses `30`, `30s`, `5m`, `2h` (seconds by default).
pub(super) fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (number, unit) = match t.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => (&t[..i], &t[i..]),
        None => (t, "s"),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (say 90, 90s, 5m or 2h)"))?;
    let scale = match unit {
        "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(format!("`{text}`: the unit must be s, m or h")),
    };
    if !(value >= 0.0 && value.is_finite()) {
        return Err(format!("`{text}` is not a duration"));
    }
    Ok(Duration::from_secs_f64(value * scale))
}

/// Parses an amount of memory as `bytesize` reads it (`64MiB`, `1.5GiB`, `500MB`, `2G`; `K`,
/// `M`, `G` are powers of 1000, `KiB`, `MiB`, `GiB` of 1024); a number without a unit is MiB.
pub(super) fn parse_memory(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let bytes = match t.parse::<f64>() {
        Ok(mib) => (mib * (1u64 << 20) as f64) as u64,
        Err(_) => t
            .parse::<bytesize::ByteSize>()
            .map_err(|_| format!("`{text}` is not an amount of memory (say 64MiB, 512MB or 2GiB)"))?
            .as_u64(),
    };
    if bytes == 0 {
        return Err(format!("`{text}` is no memory at all"));
    }
    Ok(bytes)
}

/// An amount of memory, `1.5 MiB`.
pub(super) fn bytes(n: u64) -> String {
    bytesize::ByteSize::b(n).display().iec().to_string()
}

/// `1234567` as `1,234,567`.
pub(super) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1 invariant`, `3 invariants`.
/// The text report's first line, on standard error (not with `--quiet` or `--format json`):
/// the automaton, its action instances and invariants, the symmetry, then `engine`, how the
/// states are explored.
pub(super) fn print_start(
    args: &ExploreArgs,
    m: &Model,
    automaton: AutomatonId,
    instances: usize,
    n_inv: usize,
    engine: &str,
) {
    if args.quiet || args.format != Format::Text {
        return;
    }
    let aut_name = &m.spec.automata[automaton.0 as usize].name;
    let symmetric = if args.symmetric.is_empty() {
        String::new()
    } else {
        format!(", symmetric in {}", args.symmetric.join(", "))
    };
    print_stderr(&format!(
        "exploring {aut_name}: {}, {}{symmetric}; {engine}\n",
        count(instances as u64, "action instance"),
        count(n_inv as u64, "invariant")
    ));
}

pub(super) fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", thousands(n))
    }
}

pub(super) fn mib(bytes: u64) -> String {
    format!("{:.0} MiB", bytes as f64 / (1u64 << 20) as f64)
}

/// The progress line.
fn progress_line(stats: &Stats) -> String {
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

/// Runs `ioa explore`.
pub fn run(mut args: ExploreArgs) -> ExitCode {
    // Which reductions run: symmetry only over declared types, partial-order reduction only
    // where it preserves what is checked (invariants and deadlocks, not liveness).
    let por = matches!(args.reduction, Some(Reduction::Por | Reduction::All));
    match args.reduction {
        Some(Reduction::None | Reduction::Por) => args.symmetric.clear(),
        Some(Reduction::Symmetry) if args.symmetric.is_empty() => {
            return usage(
                "--reduction symmetry: name the symmetric type with --symmetric TYPE".to_string(),
            )
        }
        _ => {}
    }
    if por && args.liveness.liveness.is_some() {
        return usage(
            "--liveness: partial-order reduction here preserves invariants and deadlocks, not liveness properties; use --reduction none or symmetry".to_string(),
        );
    }
    if por && args.local.local {
        return usage(
            "--local: local model checking does not take partial-order reduction; use --reduction none".to_string(),
        );
    }
    if por
        && (args.dist.processes.is_some()
            || args.dist.checkpoint.is_some()
            || args.dist.resume.is_some())
    {
        return usage(
            "--reduction por/all: the distributed explorer and checkpoints do not know exactly which states were visited, which the cycle proviso needs; use --reduction none or symmetry".to_string(),
        );
    }
    let mut m = match model::load(
        &args.file,
        args.universe_file.as_deref(),
        &args.universe,
        None,
    ) {
        Ok(m) => m,
        Err((d, s)) => {
            print_diagnostics(&d, &s, Format::Text, args.color);
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let automaton = match model::pick_for_property(
        &m.spec,
        args.automaton.as_deref(),
        args.liveness.liveness.as_deref(),
    ) {
        Ok(a) => a,
        Err(e) => return usage(e),
    };
    let params = match model::params(&m.spec, automaton, &args.params) {
        Ok(p) => p,
        Err(e) => return usage(e),
    };
    if !args.invariants.is_empty() {
        for name in &args.invariants {
            if !m
                .spec
                .invariants
                .iter()
                .any(|i| &i.name == name && i.automaton == automaton)
            {
                let known: Vec<&str> = m
                    .spec
                    .invariants
                    .iter()
                    .filter(|i| i.automaton == automaton)
                    .map(|i| i.name.as_str())
                    .collect();
                return usage(format!(
                    "no invariant `{name}` of this automaton; it has: {}",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ));
            }
        }
        let keep = &args.invariants;
        m.spec.invariants.retain(|i| keep.contains(&i.name));
    }
    let time_limit = match args.time_limit.as_deref().map(parse_duration).transpose() {
        Ok(t) => t,
        Err(e) => return usage(format!("--time-limit: {e}")),
    };
    let memory_limit = match args.memory_limit.as_deref().map(parse_memory).transpose() {
        Ok(t) => t,
        Err(e) => return usage(format!("--memory-limit: {e}")),
    };
    let memory_ceiling = match args.memory_ceiling.as_deref().map(parse_memory).transpose() {
        Ok(t) => t,
        Err(e) => return usage(format!("--memory-ceiling: {e}")),
    };
    // The same limits for every search: global, local (LMC), liveness and distributed.
    let options = Options {
        threads: args.threads,
        max_states: args.max_states,
        max_depth: args.max_depth,
        time_limit,
        memory_limit,
        // Without --memory-limit, a ceiling on the process keeps the kernel from killing the
        // run: it stops with what it covered instead.
        process_memory_ceiling: if memory_limit.is_none() {
            memory_ceiling.or_else(checker::memory::default_ceiling)
        } else {
            None
        },
        deadlock_is_violation: args.deadlock,
        batch: 0,
    };
    if args.dist.processes.is_some() || args.dist.checkpoint.is_some() || args.dist.resume.is_some()
    {
        return super::explore_dist::run(args, m, automaton, params, options);
    }
    let machine = match Machine::new(&m.spec, &m.universe, automaton, params.clone()) {
        Ok(mach) => mach,
        Err(e) => return fail(&[e.to_diagnostic()], &m, args.color),
    };
    if args.liveness.liveness.is_some() {
        if !args.symmetric.is_empty() || args.engine == Engine::Compiled {
            return usage(
                "--liveness explores with the interpreter and without symmetry reduction (its paths and lassos follow concrete states); drop --symmetric and --engine compiled".to_string(),
            );
        }
        return super::explore_liveness::run(&args, &m, &machine, options);
    }
    if args.local.local {
        return super::explore_local::run(&args, &m, &machine, options);
    }
    let make_symmetry = || -> Result<Option<Symmetry>, ExitCode> {
        if args.symmetric.is_empty() {
            return Ok(None);
        }
        Symmetry::new(&machine, &args.symmetric)
            .map(Some)
            .map_err(|errors| {
                let diags: Vec<Diagnostic> = errors.iter().map(|e| e.to_diagnostic()).collect();
                fail(&diags, &m, args.color)
            })
    };
    let symmetry = match make_symmetry() {
        Ok(s) => s,
        Err(code) => return code,
    };
    // The compiled engine when asked for and the model allows it; the interpreter's model is
    // needed in any case, to turn a reported path into a trace.
    // A composite compiles through its flattening (checker::compiled::flat).
    let flat = match args.engine {
        Engine::Interpreter => None,
        _ => checker::compiled::flat::flat_spec(&m.spec, automaton, !args.symmetric.is_empty()),
    };
    let flat_machine = match &flat {
        Some(Ok(spec)) => Some(
            Machine::new(spec, &m.universe, automaton, params)
                .map_err(|e| format!("its flattening does not run: {}", e.to_diagnostic().message)),
        ),
        Some(Err(reason)) => Some(Err(reason.clone())),
        None => None,
    };
    let compiled = match &flat_machine {
        Some(Ok(flat)) => {
            checker::compiled::flat::compile(&machine, flat).map_err(|r| refusal(&m, r))
        }
        Some(Err(reason)) => Err(reason.clone()),
        None => CompiledModel::new(&machine, symmetry).map_err(|r| refusal(&m, r)),
    };
    let (compiled, engine_note) = match args.engine {
        Engine::Interpreter => (None, "interpreted".to_string()),
        Engine::Auto | Engine::Compiled => match compiled {
            Ok(c) => {
                let flat = if flat_machine.is_some() {
                    ", the composite flattened"
                } else {
                    ""
                };
                let note = format!("compiled ({} words per state{flat})", c.words_per_state());
                (Some(c), note)
            }
            Err(reason) if args.engine == Engine::Compiled => {
                return usage(format!(
                    "--engine compiled: {reason}; `--engine interpreter` explores this model"
                ))
            }
            Err(reason) => (None, format!("interpreted ({reason})")),
        },
    };
    let interpreted_symmetry = if compiled.is_some() {
        None
    } else {
        match make_symmetry() {
            Ok(s) => s,
            Err(code) => return code,
        }
    };
    let mut explorer = match MachineModel::new(&machine, interpreted_symmetry) {
        Ok(x) => x,
        Err(e) => return fail(&[e.to_diagnostic()], &m, args.color),
    };
    let order = if por {
        match PartialOrder::new(&machine) {
            Ok(o) => Some(o),
            Err(e) => return fail(&[e.to_diagnostic()], &m, args.color),
        }
    } else {
        None
    };

    let n_inv = model::invariant_count(&m.spec, automaton);
    print_start(
        &args,
        &m,
        automaton,
        explorer.instances().len(),
        n_inv,
        &engine_note,
    );

    // Progress: on a terminal, one line rewritten in place every second; elsewhere only with
    // --progress, one line every ten seconds.
    let terminal = std::io::stderr().is_terminal();
    let show_progress = !args.quiet && (args.progress || terminal);
    let every = if terminal {
        Duration::from_secs(1)
    } else {
        Duration::from_secs(10)
    };
    let mut last = Instant::now();
    let shown = std::cell::Cell::new(false);
    let mut on_progress = |stats: &Stats| {
        if show_progress && last.elapsed() >= every {
            last = Instant::now();
            if terminal {
                print_stderr(&format!("\r\x1b[2K{}", progress_line(stats)));
                shown.set(true);
            } else {
                print_stderr(&format!("{}\n", progress_line(stats)));
            }
        }
    };
    if let Some(compiled) = compiled {
        let spill_dir = args.spill_dir.as_deref();
        let reduced = Reduced::new(&compiled, order.as_ref());
        let report = machine_report(explore_spilling_to(
            &reduced,
            &options,
            spill_dir,
            &mut on_progress,
        ));
        if shown.replace(false) {
            print_stderr("\r\x1b[2K");
        }
        let (fault, stats) = match report {
            Ok(report) => {
                let note = reduction_note(&args, order.as_ref(), reduced.stats());
                return finish(&args, &m, &explorer, &report, n_inv, None, Some(note));
            }
            Err(stopped) => stopped,
        };
        if !args.quiet && args.format == Format::Text {
            print_stderr(&format!(
                "note: the compiled engine met {fault} after {}; exploring again with the interpreter\n",
                count(stats.distinct, "state")
            ));
        }
        // The interpreter's model, now with the symmetry, explores from the start.
        let symmetry = match make_symmetry() {
            Ok(s) => s,
            Err(code) => return code,
        };
        explorer = match MachineModel::new(&machine, symmetry) {
            Ok(x) => x,
            Err(e) => return fail(&[e.to_diagnostic()], &m, args.color),
        };
    }
    let spill_dir = args.spill_dir.as_deref();
    let reduced = Reduced::new(&explorer, order.as_ref());
    let report = plain_report(explore_spilling_to(
        &reduced,
        &options,
        spill_dir,
        &mut on_progress,
    ));
    if shown.get() {
        print_stderr("\r\x1b[2K");
    }
    let note = reduction_note(&args, order.as_ref(), reduced.stats());
    finish(&args, &m, &explorer, &report, n_inv, None, Some(note))
}

/// What the reductions of a search did: a line for the text report and a JSON object.
pub(super) struct ReductionNote {
    text: String,
    json: serde_json::Value,
    /// Whether some state was expanded with a reduced set (so the states stored are not all
    /// the reachable ones).
    por_reduced: bool,
}

fn reduction_note(
    args: &ExploreArgs,
    order: Option<&PartialOrder>,
    stats: PorStats,
) -> ReductionNote {
    let mut ran = Vec::new();
    let mut parts = Vec::new();
    if !args.symmetric.is_empty() {
        ran.push("symmetry");
        parts.push(format!(
            "symmetry in {} (states equal up to a permutation stored once)",
            args.symmetric.join(", ")
        ));
    }
    if let Some(order) = order {
        ran.push("por");
        let expanded = stats.reduced_states + stats.full_states;
        let mut text = format!(
            "partial-order reduction: {} of {} expanded with a stubborn set, {} not explored ({} of {} action instances visible to the invariants",
            thousands(stats.reduced_states),
            count(expanded, "state"),
            count(stats.pruned_successors, "successor"),
            thousands(order.visible_instances() as u64),
            thousands(order.instances() as u64),
        );
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
    if matches!(args.reduction, Some(Reduction::All)) && args.symmetric.is_empty() {
        parts.push("no symmetry (no --symmetric type)".to_string());
    }
    let text = if parts.is_empty() {
        String::new()
    } else {
        format!("reductions: {}\n", parts.join("; "))
    };
    let json = serde_json::json!({
        "ran": ran,
        "symmetric": args.symmetric,
        "por": order.map(|o| serde_json::json!({
            "instances": o.instances(),
            "visible_instances": o.visible_instances(),
            "reduced_states": stats.reduced_states,
            "full_states": stats.full_states,
            "proviso_full_states": stats.proviso_full,
            "unchecked_full_states": stats.unchecked_full,
            "pruned_successors": stats.pruned_successors,
        })),
    });
    ReductionNote {
        text,
        json,
        por_reduced: stats.reduced_states > 0,
    }
}

/// A report of the interpreter's model seen through a reduction, as the model's own.
fn plain_report<M>(report: Report<M>) -> Report<MachineModel<'static, 'static>>
where
    M: checker::explore::Model<Step = MachineStep, Property = usize, Error = MachineError>,
{
    let verdict = match report.verdict {
        Verdict::Verified => Verdict::Verified,
        Verdict::LimitReached(l) => Verdict::LimitReached(l),
        Verdict::Violated { property, path } => Verdict::Violated { property, path },
        Verdict::Deadlock { path } => Verdict::Deadlock { path },
        Verdict::Error { error, path } => Verdict::Error { error, path },
    };
    Report {
        verdict,
        stats: report.stats,
    }
}

/// Why the compiled engine does not take the model, with the place of the construct that is
/// the reason (`file:line:column`) when there is one.
pub(super) fn refusal(m: &Model, r: checker::compiled::Refusal) -> String {
    match r.span {
        Some(span) => {
            let at = m.sources.line_col(span.file, span.start);
            format!(
                "{}, at {}:{}:{}",
                r.reason,
                m.sources.name(span.file),
                at.line,
                at.column
            )
        }
        None => r.reason,
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
        Verdict::Verified => Verdict::Verified,
        Verdict::LimitReached(l) => Verdict::LimitReached(l),
        Verdict::Violated { property, path } => Verdict::Violated { property, path },
        Verdict::Deadlock { path } => Verdict::Deadlock { path },
        Verdict::Error { error, .. } => return Err((error, report.stats)),
    };
    Ok(Report {
        verdict,
        stats: report.stats,
    })
}

/// A statement of how far a stopped search got.
fn coverage(stats: &Stats) -> String {
    let levels = match stats.levels_completed {
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

/// Prints the outcome, writes the trace, and returns the exit code; `distributed` is the
/// per-worker part of a distributed search's JSON report.
pub(super) fn finish(
    args: &ExploreArgs,
    m: &Model,
    explorer: &MachineModel,
    report: &Report<MachineModel>,
    n_inv: usize,
    distributed: Option<serde_json::Value>,
    reduction: Option<ReductionNote>,
) -> ExitCode {
    let por_reduced = reduction.as_ref().is_some_and(|r| r.por_reduced);
    let machine = explorer.machine();
    let stats = &report.stats;
    let aut_name = &machine.spec.automata[machine.root.0 as usize].name;
    let deadlocks = match stats.deadlocks {
        0 => "no deadlock".to_string(),
        n => format!("{} without successors", count(n, "state")),
    };
    let performance = format!(
        "time {:.2} s, {} states/s ({} generated/s), {} bytes/state, {}",
        stats.elapsed.as_secs_f64(),
        thousands(stats.states_per_second() as u64),
        thousands((stats.generated as f64 / stats.elapsed.as_secs_f64().max(1e-9)) as u64),
        thousands(stats.bytes_per_state() as u64),
        count(stats.threads as u64, "thread")
    );
    // The trace to the reported state, and the stop that describes it.
    let (path, stop, code, verdict) = match &report.verdict {
        Verdict::Verified => (None, None, ExitCode::SUCCESS, "verified"),
        Verdict::LimitReached(_) => (None, None, ExitCode::from(EXIT_LIMIT), "limit"),
        Verdict::Violated { property, path } => (
            Some(path),
            Some(Stop::InvariantViolated {
                invariant: *property,
            }),
            ExitCode::from(EXIT_VIOLATION),
            "violation",
        ),
        Verdict::Deadlock { path } => (
            Some(path),
            Some(Stop::Deadlock),
            ExitCode::from(EXIT_VIOLATION),
            "deadlock",
        ),
        Verdict::Error { error, path } => {
            let stop = match error {
                MachineError::Start(e) => Stop::Error(e.clone()),
                MachineError::Step { error, .. } => Stop::StepError(error.clone()),
                MachineError::Invariant { invariant, error } => Stop::InvariantError {
                    invariant: *invariant,
                    error: error.clone(),
                },
                MachineError::Diverged { step } => Stop::ReplayMismatch {
                    step: *step,
                    what: "re-executing the path gave another state".into(),
                },
            };
            (Some(path), Some(stop), ExitCode::from(EXIT_ERROR), "error")
        }
    };
    let mut run_report = None;
    if let (Some(path), Some(stop)) = (path, stop) {
        match rebuild(explorer, path, stop) {
            Ok(r) => run_report = Some(r),
            Err(d) => {
                print_diagnostics(&[d], &m.sources, Format::Text, args.color);
                return ExitCode::from(EXIT_ERROR);
            }
        }
    }
    let mut written = None;
    let mut after = String::new();
    if (args.trace.is_some() || args.html.is_some())
        && run_report.is_none()
        && args.format == Format::Text
    {
        print_stderr("no trace written: there is no counterexample\n");
    }
    if let Some(r) = &run_report {
        let doc = trace_meta(args, m, machine, r);
        match super::view::write_run_files(
            args.trace.as_deref(),
            args.html.as_deref(),
            machine,
            &r.trace,
            &doc,
            false,
        ) {
            Ok(a) => after = a,
            Err(e) => {
                print_stderr(&format!("error: {e}\n"));
                return ExitCode::from(EXIT_ERROR);
            }
        }
        written = args.trace.as_ref();
    }

    if args.format == Format::Json {
        let limit = match &report.verdict {
            Verdict::LimitReached(l) => Some(limit_json(l)),
            _ => None,
        };
        let json = serde_json::json!({
            "automaton": aut_name,
            "verdict": verdict,
            "limit": limit,
            "invariant": match &report.verdict {
                Verdict::Violated { property, .. } => Some(machine.spec.invariants[*property].name.clone()),
                _ => None,
            },
            "counterexample_steps": run_report.as_ref().map(|r| r.trace.steps.len()),
            "symmetric": args.symmetric,
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
            "trace": written.map(|p| p.display().to_string()),
            "distributed": distributed,
            "reduction": reduction.as_ref().map(|r| r.json.clone()),
            "spill": stats.spill.as_ref().map(spill_json),
        });
        print_stdout(&serde_json::to_string_pretty(&json).expect("JSON of plain data"));
        if let Some(r) = &run_report {
            if let Some(d) = super::run::stop_diagnostic(machine, r) {
                print_diagnostics(&[d], &m.sources, Format::Text, args.color);
            }
        }
        return code;
    }

    match &report.verdict {
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
            print_stderr(&format!(
                "verified: {all} all {} {which} ({} generated, depth {}, {deadlocks})\n",
                thousands(stats.distinct),
                thousands(stats.generated),
                stats.depth
            ));
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
                    if args.memory_ceiling.is_some() {
                        String::new()
                    } else {
                        format!(
                            ", {}% of this machine's memory",
                            checker::memory::DEFAULT_CEILING_PERCENT
                        )
                    }
                ),
            };
            print_stderr(&format!(
                "stopped at {which}: {}; no invariant failed\n",
                coverage(stats)
            ));
        }
        _ => {
            let r = run_report.as_ref().expect("a path was rebuilt");
            let steps = r.trace.steps.len();
            for k in 1..=steps {
                print_stdout(&r.trace.log_line(machine, k));
            }
            match super::run::stop_diagnostic(machine, r) {
                Some(d) => print_diagnostics(&[d], &m.sources, Format::Text, args.color),
                None => print_stderr(&format!(
                    "error: the state after step {steps} has no enabled action (deadlock)\n"
                )),
            }
            let what = match &report.verdict {
                Verdict::Error { .. } => "the search stopped on an error after",
                Verdict::Deadlock { .. } => "shortest path to a deadlock:",
                _ if por_reduced => "counterexample (shortest in the reduced state space):",
                _ => "shortest counterexample:",
            };
            print_stderr(&format!(
                "{what} {} ({} stored, {} generated, depth {})\n",
                count(steps as u64, "step"),
                count(stats.distinct, "state"),
                thousands(stats.generated),
                stats.depth
            ));
        }
    }
    let per_worker = distributed.is_some();
    if let Some(line) = stats
        .spill
        .as_ref()
        .and_then(|s| spill_line(s, args.quiet, per_worker))
    {
        print_stderr(&line);
    }
    if let Some(file) = written {
        print_stderr(&format!(
            "trace written to {}; check it with `ioa replay {}`\n",
            file.display(),
            file.display()
        ));
        if args.html.is_none() {
            print_stderr(&super::view::hint(file));
        }
    }
    print_stderr(&after);
    if let Some(r) = reduction.as_ref().filter(|_| !args.quiet) {
        print_stderr(&r.text);
    }
    if !args.quiet {
        print_stderr(&format!("{performance}\n"));
    }
    code
}

/// What spilling did and cost, if it happened: the counts are the same on every run of the same
/// search; the time (left out with `--quiet`) is the time spent in disk work.
pub(super) fn spill_line(spill: &SpillStats, quiet: bool, per_worker: bool) -> Option<String> {
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
pub(super) fn spill_json(spill: &SpillStats) -> serde_json::Value {
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

fn limit_json(limit: &Limit) -> serde_json::Value {
    match limit {
        Limit::States(n) => serde_json::json!({ "states": n }),
        Limit::Depth(d) => serde_json::json!({ "depth": d }),
        Limit::Time(t) => serde_json::json!({ "seconds": t.as_secs_f64() }),
        Limit::Memory(b) => serde_json::json!({ "bytes": b }),
        Limit::ProcessMemory(b) => serde_json::json!({ "process_bytes": b }),
    }
}

/// A search's error as a diagnostic; `what` names the path being re-executed when that
/// diverged (a bug in ioa).
pub(super) fn machine_error(e: MachineError, what: &str) -> Diagnostic {
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
        Err(e) => {
            let error = machine_error(e, "the counterexample");
            Err(error)
        }
    }
}

/// The counterexample's `#meta`: the metadata `ioa replay` needs (the same fields `ioa run
/// --trace` writes), and how it was found.
fn trace_meta(
    args: &ExploreArgs,
    m: &Model,
    machine: &Machine,
    report: &RunReport,
) -> serde_json::Value {
    super::itf::meta_doc(
        machine,
        super::itf::TraceMeta {
            model: &args.file,
            params: &args.params,
            universe: &m.universe_text,
            choices: &report.choices,
            extra: serde_json::json!({
                "explore": {
                    "symmetric": args.symmetric,
                    "invariants": args.invariants,
                    "shortest": true,
                }
            }),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_memory_amounts_parse() {
        assert_eq!(parse_duration("90").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("5m").unwrap(), Duration::from_secs(300));
        assert_eq!(parse_duration("1.5h").unwrap(), Duration::from_secs(5400));
        assert!(parse_duration("5 weeks").is_err());
        assert_eq!(parse_memory("512").unwrap(), 512 << 20);
        assert_eq!(parse_memory("2G").unwrap(), 2_000_000_000);
        assert_eq!(parse_memory("2GiB").unwrap(), 2 << 30);
        assert_eq!(parse_memory("64MiB").unwrap(), 64 << 20);
        assert_eq!(parse_memory("1K").unwrap(), 1000);
        assert!(parse_memory("lots").is_err());
        assert!(parse_memory("0").is_err());
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(12), "12");
    }
}
