//! Command-line parsing (clap) and dispatch to the subcommands.

mod check;
mod fmt;
mod fs;
mod model;
mod output;
mod pair;
mod replay;
mod run;

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
    Run {
        /// The .ioa model.
        file: PathBuf,
        /// The automaton to run (default: the schedule's, or the only one).
        #[arg(long)]
        automaton: Option<String>,
        /// A value for an automaton parameter, `NAME=VALUE` (repeatable).
        #[arg(long = "param")]
        params: Vec<String>,
        /// Run this schedule (an NDR program in the model).
        #[arg(long, conflicts_with = "random")]
        schedule: Option<String>,
        /// Pick enabled action instances at random.
        #[arg(long)]
        random: bool,
        /// Steps per random run; for schedules, the most steps and loop iterations allowed.
        #[arg(long, default_value_t = 1000)]
        steps: u64,
        /// Seed of the (first) random run; run k uses SEED + k.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Number of random runs.
        #[arg(long, default_value_t = 1)]
        runs: u64,
        /// Bias random runs: `NAME=WEIGHT,…` by action name or kind (input, output, internal).
        #[arg(long)]
        weights: Option<String>,
        /// A universe line such as `Node = [0]..[2]` or `abstain.B = {[0]}, {[1]}` (repeatable).
        #[arg(long)]
        universe: Vec<String>,
        /// A universe file (default: MODEL.universe beside the model, if it exists).
        #[arg(long)]
        universe_file: Option<PathBuf>,
        /// Write the run as an ITF JSON trace.
        #[arg(long)]
        trace: Option<PathBuf>,
        /// Print every step of random runs in the paper's log format.
        #[arg(long)]
        log: bool,
        /// Print only the summary (and the steps before a failure).
        #[arg(long)]
        quiet: bool,
        /// Colour the diagnostics.
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
    },
    /// Paired execution: run a simulation's implementation and, through its proof block, its
    /// specification in lockstep, checking enabledness, external traces and the relation.
    Pair {
        /// The .ioa model (with both automata and the simulation).
        file: PathBuf,
        /// The simulation (default: the only one).
        #[arg(long)]
        simulation: Option<String>,
        /// Drive the implementation with this schedule.
        #[arg(long, conflicts_with = "random")]
        schedule: Option<String>,
        /// Drive the implementation with random runs.
        #[arg(long)]
        random: bool,
        /// Number of random runs.
        #[arg(long, default_value_t = 1)]
        runs: u64,
        /// Steps per random run (and the most a schedule may take).
        #[arg(long, default_value_t = 1000)]
        steps: u64,
        /// Seed of the first random run; run k uses SEED + k.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// A universe line (repeatable); see `ioa run --help`.
        #[arg(long)]
        universe: Vec<String>,
        /// A universe file (default: MODEL.universe or default.universe beside the model).
        #[arg(long)]
        universe_file: Option<PathBuf>,
        /// Report as text (stderr) or JSON (stdout).
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Colour the diagnostics.
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
    },
    /// Re-execute a trace written by `ioa run --trace` and confirm every step.
    Replay {
        /// The ITF JSON trace.
        trace: PathBuf,
        /// The model, if not the one the trace names.
        #[arg(long)]
        model: Option<PathBuf>,
        /// Colour the diagnostics.
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
    },
    /// Print IOA files in the canonical form (Unicode operators, two-space indentation).
    Fmt {
        /// The .ioa files to format.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Do not print; exit 1 if any file is not already in canonical form.
        #[arg(long, conflicts_with = "write")]
        check: bool,
        /// Rewrite the files in place.
        #[arg(long)]
        write: bool,
        /// Colour the diagnostics for files that do not parse.
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
    },
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
        Command::Run {
            file,
            automaton,
            params,
            schedule,
            random,
            steps,
            seed,
            runs,
            weights,
            universe,
            universe_file,
            trace,
            log,
            quiet,
            color,
        } => run::run(run::RunArgs {
            file,
            automaton,
            params,
            schedule,
            random,
            steps,
            seed,
            runs,
            weights,
            universe,
            universe_file,
            trace,
            log,
            quiet,
            color,
        }),
        Command::Pair {
            file,
            simulation,
            schedule,
            random,
            runs,
            steps,
            seed,
            universe,
            universe_file,
            format,
            color,
        } => pair::run(pair::PairArgs {
            file,
            simulation,
            schedule,
            random,
            runs,
            steps,
            seed,
            universe,
            universe_file,
            format,
            color,
        }),
        Command::Replay {
            trace,
            model,
            color,
        } => replay::run(&trace, model.as_ref(), color),
        Command::Fmt {
            files,
            check,
            write,
            color,
        } => {
            let mode = if check {
                fmt::FmtMode::Check
            } else if write {
                fmt::FmtMode::Write
            } else {
                fmt::FmtMode::Print
            };
            fmt::run(&files, mode, color)
        }
    }
}
