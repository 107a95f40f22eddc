//! `ioa check`: print [`ioa::api::check`]'s report (diagnostics as text on stderr or one JSON
//! document on stdout) and exit 1 if any file has an error.

use super::output::{print_diagnostics, print_json, print_stderr};
use super::{ColorChoice, Format};
use std::path::PathBuf;
use std::process::ExitCode;

/// Runs `ioa check`.
pub fn run(files: &[PathBuf], format: Format, color: ColorChoice) -> ExitCode {
    let report = ioa::api::check::check_files(files);
    match format {
        Format::Text => {
            for file in &report.files {
                print_diagnostics(&file.diagnostics, &file.result.sources, format, color);
            }
            print_stderr(&report.summary());
        }
        Format::Json => print_json(&report.to_json()),
    }
    if report.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
