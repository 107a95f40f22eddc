//! `ioa check`: parse and type-check files, print diagnostics, exit 1 if any is an error.
//!
//! Each file named on the command line is checked as its own model, together with the files it
//! imports (as a compiler checks translation units), so two example files may each declare a
//! simulation of the same name.

use super::output::{print_diagnostics, print_stderr, print_stdout};
use super::{fs::OsFileSystem, ColorChoice, Format};
use ioa_lang::diagnostics::Diagnostic;
use std::path::PathBuf;
use std::process::ExitCode;

/// Runs `ioa check`.
pub fn run(files: &[PathBuf], format: Format, color: ColorChoice) -> ExitCode {
    let mut errors = 0;
    let mut warnings = 0;
    let mut all: Vec<(ioa_lang::CheckResult, Vec<Diagnostic>)> = Vec::new();
    for file in files {
        let mut result = ioa_lang::check_files(std::slice::from_ref(file), &OsFileSystem);
        let diags = std::mem::take(&mut result.diagnostics);
        errors += diags.iter().filter(|d| d.is_error()).count();
        warnings += diags.iter().filter(|d| !d.is_error()).count();
        all.push((result, diags));
    }
    match format {
        Format::Text => {
            for (result, diags) in &all {
                print_diagnostics(diags, &result.sources, format, color);
            }
            if errors == 0 {
                let warned = match warnings {
                    0 => String::new(),
                    1 => ", 1 warning".to_string(),
                    n => format!(", {n} warnings"),
                };
                print_stderr(&format!(
                    "checked {} file(s): no errors{warned}\n",
                    files.len()
                ));
            } else {
                print_stderr(&format!("{errors} error(s)\n"));
            }
        }
        Format::Json => {
            let docs: Vec<serde_json::Value> = all
                .iter()
                .zip(files)
                .map(|((result, diags), file)| {
                    let list: Vec<_> = diags
                        .iter()
                        .map(|d| ioa_lang::diagnostics::to_json(d, &result.sources))
                        .collect();
                    serde_json::json!({
                        "file": file.display().to_string(),
                        "ok": !diags.iter().any(|d| d.is_error()),
                        "diagnostics": list,
                    })
                })
                .collect();
            let doc = serde_json::json!({ "ok": errors == 0, "errors": errors, "files": docs });
            print_stdout(&serde_json::to_string_pretty(&doc).expect("JSON of plain data"));
        }
    }
    if errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
