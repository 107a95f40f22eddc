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
            print_stdout(&serde_json::to_string_pretty(&json).expect("JSON of plain data"));
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

/// Prints to standard error, ignoring a closed pipe.
pub fn print_stderr(text: &str) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}
