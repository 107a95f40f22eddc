//! Command-line parsing (clap) and dispatch to the subcommands.

mod check;
mod fs;
mod output;

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
    }
}
