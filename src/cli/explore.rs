//! `ioa explore`: breadth-first exploration of every reachable state of an automaton over finite
//! universes, checking its invariants in every state; the shortest counterexample is printed in
//! the paper's log format and can be written as an ITF trace that `ioa replay` re-executes.
//!
//! Exit codes: 0 every reachable state was checked and every invariant holds; 1 a violation
//! (an invariant is false, or with `--deadlock` a state has no enabled action); 2 the command
//! line, the model or its evaluation is wrong; 3 a limit stopped the search first.

use super::model::{self, Model};
use super::output::{exit, print_diagnostics, print_json, print_stderr, print_stdout, usage, Step};
use super::{ColorChoice, Format};
use checker::compiled::code::Fault;
use checker::explore::Stats;
use interpreter::machine::Machine;
use interpreter::runner::RunReport;
use ioa::api::diagnose::stop_diagnostic;
use ioa::api::explore::{
    explore_machine, performance_line, progress_line, report_json, search_options, spill_line,
    verdict_text, ExploreError, Limits, Observer, Outcome, ReductionSummary, SearchSettings, Start,
    Verdict,
};
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use ioa_lang::ir::AutomatonId;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

pub(super) use ioa::api::numbers::{count, parse_duration, thousands};

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
    /// How states are computed: `compiled` (flat word states, expressions as machine code),
    /// `words` (compiled, expressions walked as word code), `interpreter`, or `auto` (compiled
    /// when the model allows it).
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
    /// Compiled, with expressions walked as word code rather than run as machine code (the
    /// reference the native code is tested against).
    Words,
    /// The interpreter.
    Interpreter,
}

pub(super) const EXIT_VIOLATION: u8 = 1;
pub(super) const EXIT_ERROR: u8 = 2;
pub(super) const EXIT_LIMIT: u8 = 3;

pub(super) fn fail(diags: &[Diagnostic], m: &Model, color: ColorChoice) -> ExitCode {
    print_diagnostics(diags, &m.sources, Format::Text, color);
    ExitCode::from(EXIT_ERROR)
}

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

/// Runs `ioa explore`.
pub fn run(args: ExploreArgs) -> ExitCode {
    exit(explore(args))
}

/// Checks the options, loads the model and hands the search to the explorer asked for.
fn explore(mut args: ExploreArgs) -> Step<ExitCode> {
    let por = reductions(&mut args)?;
    let (universe_file, universe) = (args.universe_file.as_deref(), &args.universe);
    let mut m = model::open(&args.file, universe_file, universe, args.color, EXIT_ERROR)?;
    let liveness = args.liveness.liveness.as_deref();
    let automaton =
        model::pick_for_property(&m.spec, args.automaton.as_deref(), liveness).map_err(usage)?;
    let params = model::params(&m.spec, automaton, &args.params).map_err(usage)?;
    ioa::api::explore::select_invariants(&mut m.spec, automaton, &args.invariants)
        .map_err(usage)?;
    // The same limits for every search: global, local (LMC), liveness and distributed.
    let limits = Limits {
        threads: args.threads,
        max_states: args.max_states,
        max_depth: args.max_depth,
        time_limit: args.time_limit.as_deref(),
        memory_limit: args.memory_limit.as_deref(),
        memory_ceiling: args.memory_ceiling.as_deref(),
        deadlock: args.deadlock,
    };
    let options = search_options(&limits).map_err(usage)?;
    if args.dist.distributed() {
        return Ok(super::explore_dist::run(
            args, m, automaton, params, options,
        ));
    }
    let machine = Machine::new(&m.spec, &m.universe, automaton, params.clone())
        .map_err(|e| fail(&[e.to_diagnostic()], &m, args.color))?;
    if args.liveness.liveness.is_some() {
        if !args.symmetric.is_empty() || matches!(args.engine, Engine::Compiled | Engine::Words) {
            return Err(usage(
                "--liveness explores with the interpreter and without symmetry reduction (its paths and lassos follow concrete states); drop --symmetric and --engine compiled or words".to_string(),
            ));
        }
        return Ok(super::explore_liveness::run(&args, &m, &machine, options));
    }
    if args.local.local {
        return Ok(super::explore_local::run(&args, &m, &machine, options));
    }
    let settings = SearchSettings {
        symmetric: args.symmetric.clone(),
        partial_order: por,
        all_reductions: matches!(args.reduction, Some(Reduction::All)),
        engine: match args.engine {
            Engine::Auto => ioa::api::explore::Engine::Auto,
            Engine::Compiled => ioa::api::explore::Engine::Compiled,
            Engine::Words => ioa::api::explore::Engine::Words,
            Engine::Interpreter => ioa::api::explore::Engine::Interpreter,
        },
        options,
        spill_dir: args.spill_dir.clone(),
        // Not when the user turned symmetry off (`--reduction none|por`).
        detect_symmetry: matches!(args.reduction, None | Some(Reduction::All)),
    };
    let n_inv = model::invariant_count(&m.spec, automaton);
    let mut shown = Shown::new(&args, &m, automaton, n_inv);
    let explored = explore_machine(&machine, &m.sources, &settings, &mut shown);
    shown.clear();
    match explored {
        Ok(x) => Ok(finish(
            &args,
            &m,
            &machine,
            &x.outcome,
            n_inv,
            None,
            Some(&x.reduction),
        )),
        Err(ExploreError::Usage(e)) => Err(usage(e)),
        Err(ExploreError::Diagnostics(d)) => Err(fail(&d, &m, args.color)),
    }
}

/// Which reductions run: symmetry only over declared types, partial-order reduction only where
/// it preserves what is checked (invariants and deadlocks, not liveness). Clears `--symmetric`
/// when the reduction leaves symmetry out; returns whether partial-order reduction runs.
fn reductions(args: &mut ExploreArgs) -> Step<bool> {
    let por = matches!(args.reduction, Some(Reduction::Por | Reduction::All));
    match args.reduction {
        Some(Reduction::None | Reduction::Por) => args.symmetric.clear(),
        Some(Reduction::Symmetry) if args.symmetric.is_empty() => {
            return Err(usage(
                "--reduction symmetry: name the symmetric type with --symmetric TYPE".to_string(),
            ))
        }
        _ => {}
    }
    let refused = if !por {
        None
    } else if args.liveness.liveness.is_some() {
        Some("--liveness: partial-order reduction here preserves invariants and deadlocks, not liveness properties; use --reduction none or symmetry")
    } else if args.local.local {
        Some("--local: local model checking does not take partial-order reduction; use --reduction none")
    } else {
        None
    };
    match refused {
        Some(message) => Err(usage(message.to_string())),
        None => Ok(por),
    }
}

/// Shows a search as it goes: the first line, progress (on a terminal, one line rewritten in
/// place every second; elsewhere only with --progress, one line every ten seconds) and the
/// compiled engine's fallback to the interpreter.
struct Shown<'a> {
    args: &'a ExploreArgs,
    m: &'a Model,
    automaton: AutomatonId,
    n_inv: usize,
    terminal: bool,
    show_progress: bool,
    every: Duration,
    last: Instant,
    line_shown: bool,
}

impl<'a> Shown<'a> {
    fn new(args: &'a ExploreArgs, m: &'a Model, automaton: AutomatonId, n_inv: usize) -> Self {
        let terminal = std::io::stderr().is_terminal();
        Shown {
            args,
            m,
            automaton,
            n_inv,
            terminal,
            show_progress: !args.quiet && (args.progress || terminal),
            every: Duration::from_secs(if terminal { 1 } else { 10 }),
            last: Instant::now(),
            line_shown: false,
        }
    }

    /// Erases the progress line rewritten in place, if one is shown.
    fn clear(&mut self) {
        if std::mem::take(&mut self.line_shown) {
            print_stderr("\r\x1b[2K");
        }
    }
}

impl Observer for Shown<'_> {
    fn started(&mut self, start: &Start) {
        let (args, m) = (self.args, self.m);
        print_start(
            args,
            m,
            self.automaton,
            start.instances,
            self.n_inv,
            &start.engine,
        );
        self.last = Instant::now();
    }

    fn progress(&mut self, stats: &Stats) {
        if self.show_progress && self.last.elapsed() >= self.every {
            self.last = Instant::now();
            if self.terminal {
                print_stderr(&format!("\r\x1b[2K{}", progress_line(stats)));
                self.line_shown = true;
            } else {
                print_stderr(&format!("{}\n", progress_line(stats)));
            }
        }
    }

    fn widened(&mut self, states: u64) {
        self.clear();
        if !self.args.quiet && self.args.format == Format::Text {
            print_stderr(&format!(
                "note: an integer outside -32,768..32,767 after {}; exploring again with 64-bit integers in the stored states\n",
                count(states, "state")
            ));
        }
    }

    fn fell_back(&mut self, fault: &Fault, states: u64) {
        self.clear();
        if !self.args.quiet && self.args.format == Format::Text {
            print_stderr(&format!(
                "note: the compiled engine met {fault} after {}; exploring again with the interpreter\n",
                count(states, "state")
            ));
        }
    }
}

/// Prints the outcome, writes the trace, and returns the exit code; `distributed` is the
/// per-worker part of a distributed search's JSON report.
pub(super) fn finish(
    args: &ExploreArgs,
    m: &Model,
    machine: &Machine,
    outcome: &Outcome,
    n_inv: usize,
    distributed: Option<serde_json::Value>,
    reduction: Option<&ReductionSummary>,
) -> ExitCode {
    let code = ExitCode::from(match &outcome.verdict {
        Verdict::Verified => 0,
        Verdict::LimitReached(_) => EXIT_LIMIT,
        Verdict::Violated { .. } | Verdict::Deadlock => EXIT_VIOLATION,
        Verdict::Error => EXIT_ERROR,
    });
    let run_report = outcome.counterexample.as_ref();
    let (written, after) = match write_counterexample(args, m, machine, run_report) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if args.format == Format::Json {
        let written = written.map(|p| p.display().to_string());
        let per_worker = distributed.clone();
        print_json(&report_json(
            machine,
            outcome,
            &args.symmetric,
            written,
            per_worker,
            reduction,
        ));
        if let Some(d) = run_report.and_then(|r| stop_diagnostic(machine, r)) {
            print_diagnostics(&[d], &m.sources, Format::Text, args.color);
        }
        return code;
    }
    let por_reduced = reduction.is_some_and(|r| r.por_reduced());
    let verdict = verdict_text(outcome, n_inv, por_reduced, args.memory_ceiling.is_some());
    if let (Verdict::Violated { .. } | Verdict::Deadlock | Verdict::Error, Some(r)) =
        (&outcome.verdict, run_report)
    {
        for line in &outcome.log {
            print_stdout(line);
        }
        match stop_diagnostic(machine, r) {
            Some(d) => print_diagnostics(&[d], &m.sources, Format::Text, args.color),
            None => print_stderr(&format!(
                "error: the state after step {} has no enabled action (deadlock)\n",
                r.trace.steps.len()
            )),
        }
    }
    print_stderr(&verdict);
    let spill = outcome.stats.spill.as_ref();
    if let Some(line) = spill.and_then(|s| spill_line(s, args.quiet, distributed.is_some())) {
        print_stderr(&line);
    }
    if let Some(file) = written {
        let file_text = file.display();
        print_stderr(&format!(
            "trace written to {file_text}; check it with `ioa replay {file_text}`\n"
        ));
        if args.html.is_none() {
            print_stderr(&super::view::hint(file));
        }
    }
    print_stderr(&after);
    if let Some(r) = reduction.filter(|_| !args.quiet) {
        print_stderr(&r.text());
    }
    if !args.quiet {
        print_stderr(&format!("{}\n", performance_line(&outcome.stats)));
    }
    code
}

/// Writes the counterexample's trace and page when asked (or says there is none): the trace
/// file written and what to print after the verdict.
fn write_counterexample<'a>(
    args: &'a ExploreArgs,
    m: &Model,
    machine: &Machine,
    run_report: Option<&RunReport>,
) -> Step<(Option<&'a PathBuf>, String)> {
    let asked = args.trace.is_some() || args.html.is_some();
    let Some(r) = run_report else {
        if asked && args.format == Format::Text {
            print_stderr("no trace written: there is no counterexample\n");
        }
        return Ok((None, String::new()));
    };
    let doc = trace_meta(args, m, machine, r);
    let (trace, html) = (args.trace.as_deref(), args.html.as_deref());
    match super::view::write_run_files(trace, html, machine, &r.trace, &doc, false) {
        Ok(after) => Ok((args.trace.as_ref(), after)),
        Err(e) => {
            print_stderr(&format!("error: {e}\n"));
            Err(ExitCode::from(EXIT_ERROR))
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
    ioa::api::itf::meta_doc(
        machine,
        ioa::api::itf::TraceMeta {
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
