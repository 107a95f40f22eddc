//! The model options shared by subcommands that run one automaton, and loading a model the way
//! every command shows it: the checker's warnings and the notes on skipped universe lines
//! printed, the errors handed back for the command to print.

use super::output::{diagnostics_exit, print_diagnostics, print_stderr, usage, Step};
use super::{ColorChoice, Format};
use interpreter::value::Value;
pub use ioa::api::model::{invariant_count, params, pick_automaton, pick_for_property, Model};
use ioa_lang::diagnostics::Diagnostic;
use ioa_lang::ir::AutomatonId;
use ioa_lang::source_map::SourceMap;
use std::path::{Path, PathBuf};

/// The model-selection options shared by subcommands that run one automaton (flattened into
/// their `#[derive(clap::Args)]` structs): the file, the automaton, its parameters, the universe.
#[derive(clap::Args, Debug, Clone)]
pub struct ModelArgs {
    /// The .ioa model.
    pub file: PathBuf,
    /// The automaton (needed when the model declares more than one).
    #[arg(long)]
    pub automaton: Option<String>,
    /// A value for an automaton parameter, `NAME=VALUE` (repeatable).
    #[arg(long = "param")]
    pub params: Vec<String>,
    /// A universe line such as `Int = 0..7` (repeatable); see `ioa run --help`.
    #[arg(long)]
    pub universe: Vec<String>,
    /// A universe file (default: MODEL.universe or default.universe beside the model).
    #[arg(long)]
    pub universe_file: Option<PathBuf>,
}

impl ModelArgs {
    /// Loads the model (its errors printed, exit code `code`) and picks the automaton and its
    /// parameters (a usage error when they do not fit).
    pub fn open(&self, color: ColorChoice, code: u8) -> Step<(Model, AutomatonId, Vec<Value>)> {
        let m = open(
            &self.file,
            self.universe_file.as_deref(),
            &self.universe,
            color,
            code,
        )?;
        let automaton = pick_automaton(&m.spec, self.automaton.as_deref(), None).map_err(usage)?;
        let params = params(&m.spec, automaton, &self.params).map_err(usage)?;
        Ok((m, automaton, params))
    }
}

/// Prints diagnostics and returns exit code 1.
pub fn fail(
    diags: &[Diagnostic],
    sources: &SourceMap,
    color: ColorChoice,
) -> std::process::ExitCode {
    print_diagnostics(diags, sources, Format::Text, color);
    std::process::ExitCode::from(1)
}

/// Loads the model ([`ioa::api::model::load`]), printing its warnings and universe notes; the
/// errors come back for the command to print with its own colour and exit code.
pub fn load(
    file: &Path,
    universe_file: Option<&Path>,
    universe_lines: &[String],
    recorded_universe: Option<&str>,
) -> Result<Model, (Vec<Diagnostic>, SourceMap)> {
    match ioa::api::model::load(file, universe_file, universe_lines, recorded_universe) {
        Ok(m) => {
            show_warnings(&m.warnings, &m.sources);
            for skipped in &m.skipped_universe_lines {
                print_stderr(&skipped.note());
            }
            Ok(m)
        }
        Err(failure) => {
            show_warnings(&failure.warnings, &failure.sources);
            Err((failure.errors, failure.sources))
        }
    }
}

/// Loads the model as [`load`] does; when it cannot be loaded, prints the errors and ends the
/// command with exit code `code`.
pub fn open(
    file: &Path,
    universe_file: Option<&Path>,
    universe_lines: &[String],
    color: ColorChoice,
    code: u8,
) -> Step<Model> {
    load(file, universe_file, universe_lines, None)
        .map_err(|(d, s)| diagnostics_exit(&d, &s, color, code))
}

/// Warnings do not stop a command, but every command shows them.
fn show_warnings(warnings: &[Diagnostic], sources: &SourceMap) {
    if !warnings.is_empty() {
        print_diagnostics(warnings, sources, Format::Text, ColorChoice::Auto);
    }
}
