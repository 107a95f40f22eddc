//! Printing diagnostics: the single place where they meet the terminal.

use super::{ColorChoice, Format};
use ioa_lang::diagnostics::{self, Diagnostic};
use ioa_lang::source_map::SourceMap;
use std::io::IsTerminal;

/// Prints diagnostics in the chosen format: text on stderr, JSON on stdout.
pub fn print_diagnostics(
    diags: &[Diagnostic],
    sources: &SourceMap,
    format: Format,
    color: ColorChoice,
) {
    match format {
        Format::Text => {
            let color = match color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => std::io::stderr().is_terminal(),
            };
            print_stderr(&diagnostics::render(diags, sources, color));
        }
        Format::Json => {
            let json: Vec<_> = diags
                .iter()
                .map(|d| diagnostics::to_json(d, sources))
                .collect();
            print_json(&json);
        }
    }
}

/// Prints to standard output, ignoring a closed pipe (`ioa … | head` must not panic).
pub fn print_stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

/// Prints a JSON document, pretty, on standard output.
pub fn print_json(json: &impl serde::Serialize) {
    print_stdout(&serde_json::to_string_pretty(json).expect("JSON of plain data"));
}

/// Prints `error: MESSAGE` for a request the model or the options do not fit, and returns exit
/// code 2 (every command's usage error).
pub fn usage(message: String) -> std::process::ExitCode {
    error(&message, 2)
}

/// Prints `error: MESSAGE` for a file that cannot be read or written, or a trace that does not
/// fit its model, and returns exit code 1.
pub fn failure(message: String) -> std::process::ExitCode {
    error(&message, 1)
}

/// Prints `error: MESSAGE` and returns exit code `code`.
pub fn error(message: &str, code: u8) -> std::process::ExitCode {
    print_stderr(&format!("error: {message}\n"));
    std::process::ExitCode::from(code)
}

/// Prints to standard error, ignoring a closed pipe.
pub fn print_stderr(text: &str) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// A step of a command that may end it early: `Err` holds the exit code, whatever had to be
/// said already printed (so a command's steps chain with `?`).
pub type Step<T> = Result<T, std::process::ExitCode>;

/// The exit code of a command written as [`Step`]s.
pub fn exit(result: Step<std::process::ExitCode>) -> std::process::ExitCode {
    result.unwrap_or_else(|code| code)
}

/// Prints diagnostics and returns exit code `code` (for `map_err`).
pub fn diagnostics_exit(
    diags: &[Diagnostic],
    sources: &SourceMap,
    color: ColorChoice,
    code: u8,
) -> std::process::ExitCode {
    print_diagnostics(diags, sources, Format::Text, color);
    std::process::ExitCode::from(code)
}
