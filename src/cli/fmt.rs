//! `ioa fmt`: print files in the canonical form, check that they are, or rewrite them.

use super::output::{print_diagnostics, print_stderr, print_stdout};
use super::{ColorChoice, Format};
use ioa::api::fs::OsFileSystem;
use ioa_lang::diagnostics::IntoDiagnostic;
use ioa_lang::loader::FileSystem;
use ioa_lang::source_map::SourceMap;
use std::path::PathBuf;
use std::process::ExitCode;

/// What `ioa fmt` does with the canonical text.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum FmtMode {
    /// Print it on standard output.
    Print,
    /// Report files that differ from it; exit 1 if any does.
    Check,
    /// Write it back to the file.
    Write,
}

/// Options of `ioa fmt`.
#[derive(clap::Args)]
pub struct FmtArgs {
    /// The .ioa files to format.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Do not print; exit 1 if any file is not already in canonical form.
    #[arg(long, conflicts_with = "write")]
    pub check: bool,
    /// Rewrite the files in place.
    #[arg(long)]
    pub write: bool,
    /// Colour the diagnostics for files that do not parse.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// Runs `ioa fmt`.
pub fn run(args: FmtArgs) -> ExitCode {
    let (files, color) = (&args.files, args.color);
    let mode = if args.check {
        FmtMode::Check
    } else if args.write {
        FmtMode::Write
    } else {
        FmtMode::Print
    };
    let mut failed = false;
    for path in files {
        let text = match OsFileSystem.read(path) {
            Ok(t) => t,
            Err(reason) => {
                let error = ioa_lang::loader::LoadError::RootUnreadable {
                    path: path.display().to_string(),
                    reason,
                };
                print_diagnostics(
                    &[error.to_diagnostic()],
                    &SourceMap::new(),
                    Format::Text,
                    color,
                );
                failed = true;
                continue;
            }
        };
        let mut sources = SourceMap::new();
        let file = sources.add(path.display().to_string(), text.clone());
        let formatted = match ioa_lang::parse::parse_file(file, &text) {
            Ok(ast) => ioa_lang::pretty::format_source(&ast, &text),
            Err(e) => {
                print_diagnostics(&[e.to_diagnostic()], &sources, Format::Text, color);
                failed = true;
                continue;
            }
        };
        match mode {
            FmtMode::Print => print_stdout(formatted.trim_end_matches('\n')),
            FmtMode::Check => {
                if formatted != text {
                    failed = true;
                    let line = first_difference(&text, &formatted);
                    print_stderr(&format!(
                        "{}: not in canonical form (first difference at line {line}); run `ioa fmt --write {}`\n",
                        path.display(),
                        path.display()
                    ));
                }
            }
            FmtMode::Write => {
                if formatted != text {
                    if let Err(e) = std::fs::write(path, &formatted) {
                        print_stderr(&format!("{}: cannot write: {e}\n", path.display()));
                        failed = true;
                    }
                }
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn first_difference(a: &str, b: &str) -> usize {
    a.lines()
        .zip(b.lines())
        .position(|(x, y)| x != y)
        .unwrap_or_else(|| a.lines().count().min(b.lines().count()))
        + 1
}
