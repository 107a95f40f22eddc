//! Command-line parsing (clap) and dispatch to the subcommands.

mod check;
mod explore;
mod explore_dist;
mod explore_liveness;
mod explore_local;
mod export_isabelle;
mod export_smt;
mod fmt;
mod infer;
mod liveness;
mod merge;
mod model;
mod output;
mod pair;
mod predict;
mod prove;
mod replay;
mod run;
mod serve;
mod steer;
mod system;
mod trace;
mod verify;
mod view;

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// A toolkit for I/O automata: check models written in the IOA language, and (as they are built)
/// run, pair, infer invariants, prove and explore them.
#[derive(Parser)]
#[command(name = "ioa", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// How diagnostics and reports are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    /// Human-readable text with source excerpts.
    #[default]
    Text,
    /// One JSON document on standard output.
    Json,
}

/// When to colour the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorChoice {
    /// Colour when standard error is a terminal.
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and type-check IOA files (and the files they import); exit 1 on any error.
    Check {
        /// The .ioa files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print diagnostics as text (on stderr) or as JSON (on stdout).
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Colour the text diagnostics.
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
    },
    /// Execute an automaton under a schedule or at random, checking its invariants on every state.
    Run(run::RunArgs),
    /// Paired execution: run a simulation's implementation and, through its proof block, its
    /// specification in lockstep, checking enabledness, external traces and the relation.
    Pair(pair::PairArgs),
    /// Infer likely invariants of an automaton from runs (schedules and/or random), Daikon-style,
    /// and print them as IOA `invariant` declarations.
    Infer(infer::InferArgs),
    /// Run an automaton under schedules and/or at random (as `ioa infer` does) and write the runs
    /// for other tools: Daikon's .decls/.dtrace (--daikon DIR) and/or ITF JSON (--itf DIR).
    Trace(trace::TraceArgs),
    /// Explore every reachable state of an automaton over finite universes (breadth first),
    /// checking its invariants in each; exit 0 verified, 1 violation, 2 error, 3 limit reached.
    Explore(Box<explore::ExploreArgs>),
    /// Show a composite as a distributed system: its nodes (with their slots in the state
    /// vector), the network, the message actions and the class of every action instance
    /// (message handler, send, local, network).
    System(system::SystemArgs),
    /// Draw a trace (from `ioa run`, `pair`, `explore`) as a self-contained HTML page: a
    /// message-sequence chart, the steps, and each state with its diff from the previous one.
    View(view::ViewArgs),
    /// Explore a model in the browser: fire enabled actions, step back and forward, see the
    /// invariants' verdicts and the path as a sequence chart, save the path as an ITF trace.
    Serve(serve::ServeArgs),
    /// A language server over standard input and output for editors (diagnostics as you type,
    /// hover, go to definition, references, outline, formatting, quick fixes); the VS Code
    /// extension under editors/vscode starts it.
    Lsp,
    /// Consequence prediction (CrystalBall): from the start state or a state of a recorded
    /// run, which futures of up to --max-depth steps violate an invariant. Local actions of a
    /// node already seen in the same local state are not expanded again; deliveries always are.
    Predict(predict::PredictArgs),
    /// Search for liveness bugs the MaceMC way: breadth first to a depth, then random walks
    /// from there; on a walk that never reaches the goal, find the critical transition (the
    /// step after which the goal is unreachable). Verdicts are "suspected", never proofs.
    Liveness(liveness::LivenessSearchArgs),
    /// Merge the `--report` files of a campaign's shards (`ioa run --random`, `ioa pair
    /// --random`, `ioa liveness` with `--shard I/N`) into the report the whole campaign would
    /// have written, byte for byte.
    Merge(merge::MergeArgs),
    /// Find the invariants a proof needs and prove it: run the automaton, propose candidates
    /// (the detector and templates from the program text), drop those a reached state refutes,
    /// keep the inductive ones (Houdini with Z3), and prove the simulation or invariant.
    Verify(verify::VerifyArgs),
    /// Re-execute a trace written by `ioa run --trace` and confirm every step.
    Replay(replay::ReplayArgs),
    /// Print IOA files in the canonical form (Unicode operators, two-space indentation).
    Fmt(fmt::FmtArgs),
    /// Prove invariants and forward simulations with Z3: print each proof obligation with its
    /// verdict (proved, failed with a counterexample, unknown, timeout) and time; exit 0 only if
    /// all are proved.
    Prove(prove::ProveCli),
    /// Export proof obligations or a whole model for other tools.
    Export {
        #[command(subcommand)]
        target: ExportTarget,
    },
}

/// What `ioa export` writes.
#[derive(Subcommand)]
enum ExportTarget {
    /// One SMT-LIB2 file per proof obligation (`z3 FILE.smt2` prints unsat when it holds).
    Smt(export_smt::SmtArgs),
    /// Isabelle/HOL theories (automata, invariants as `invariant A I` lemmas, forward
    /// simulations with proof scripts shaped like their proof blocks) and a ROOT file; check
    /// them with `isabelle build -D DIR`.
    Isabelle(export_isabelle::IsabelleArgs),
}

/// How `ioa infer` and `ioa trace` choose their runs.
#[derive(clap::Args)]
pub(crate) struct RunsArgs {
    /// The automaton (default: the one the file itself declares, components of its composites
    /// aside; in a file that declares none, the one every schedule drives, or the only one).
    #[arg(long)]
    automaton: Option<String>,
    /// A value for an automaton parameter, `NAME=VALUE` (repeatable).
    #[arg(long = "param")]
    params: Vec<String>,
    /// Run this schedule (repeatable); without --schedule and --random, every schedule of the
    /// automaton is run and random runs are added.
    #[arg(long = "schedule")]
    schedules: Vec<String>,
    /// Run every schedule of the automaton (with --random: schedules and random runs).
    #[arg(long)]
    all_schedules: bool,
    /// Add random runs.
    #[arg(long)]
    random: bool,
    /// Number of random runs.
    #[arg(long, default_value_t = 100)]
    runs: u64,
    /// Steps per random run (for schedules: the most steps and loop iterations allowed, at
    /// least 10,000).
    #[arg(long, default_value_t = 100)]
    steps: u64,
    /// Seed of the first random run; run k uses SEED + k.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Bias random runs: `NAME=WEIGHT,…` by action name or kind (input, output, internal).
    #[arg(long)]
    weights: Option<String>,
    /// A universe line such as `Node = [0]..[2]` (repeatable); see `ioa run --help`.
    #[arg(long)]
    universe: Vec<String>,
    /// A universe file (default: MODEL.universe or default.universe beside the model); lines
    /// for types and actions the model lacks are skipped with a note.
    #[arg(long)]
    universe_file: Option<PathBuf>,
}

impl RunsArgs {
    pub(crate) fn choice(&self) -> ioa::api::runs::RunChoice {
        ioa::api::runs::RunChoice {
            automaton: self.automaton.clone(),
            params: self.params.clone(),
            schedules: self.schedules.clone(),
            all_schedules: self.all_schedules,
            random: self.random,
            runs: self.runs,
            steps: self.steps,
            seed: self.seed,
            weights: self.weights.clone(),
        }
    }
}

/// Parses the command line and runs the chosen subcommand.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check {
            files,
            format,
            color,
        } => check::run(&files, format, color),
        Command::Run(args) => run::run(args),
        Command::Pair(args) => pair::run(args),
        Command::Explore(args) => explore::run(*args),
        Command::System(args) => system::run(args),
        Command::View(args) => view::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Lsp => crate::lsp::run(),
        Command::Predict(args) => predict::run(args),
        Command::Liveness(args) => liveness::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Infer(args) => infer::run(args),
        Command::Trace(args) => trace::run(args),
        Command::Fmt(args) => fmt::run(args),
        Command::Prove(args) => prove::run(args.into_args()),
        Command::Export {
            target: ExportTarget::Smt(args),
        } => export_smt::run(args),
        Command::Export {
            target: ExportTarget::Isabelle(args),
        } => export_isabelle::run(args),
    }
}
