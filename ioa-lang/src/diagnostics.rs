//! Diagnostics: the one shape every phase's errors take before they reach a user, and the one
//! place they are rendered (as text with source excerpts, or as JSON).
//!
//! Each phase keeps its own error enum (data, no formatted strings); the [`IntoDiagnostic`] trait
//! turns one into a [`Diagnostic`] with a stable code.

use crate::source_map::{LineCol, SourceMap};
use crate::span::Span;
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label as CsLabel};
use codespan_reporting::term::{self, termcolor::Buffer};
use serde::Serialize;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The input is rejected.
    Error,
    /// The input is accepted, but probably not what was meant.
    Warning,
}

/// A source location with a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What is said about it (may be empty).
    pub message: String,
    /// The primary label is the one the diagnostic is "at".
    pub primary: bool,
    /// Text that should replace the labelled source, when the diagnostic's hint is mechanical
    /// ("did you mean `counter`?"): the language server offers it as a quick fix.
    pub replacement: Option<String>,
}

/// One message for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// A stable code such as `E0301`.
    pub code: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// The headline.
    pub message: String,
    /// Source locations; the first primary one is where the diagnostic is reported.
    pub labels: Vec<Label>,
    /// Extra facts.
    pub notes: Vec<String>,
    /// What to do about it.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// An error with a primary label.
    pub fn error(code: &'static str, message: impl Into<String>, span: Span) -> Self {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            labels: vec![Label {
                span,
                message: String::new(),
                primary: true,
                replacement: None,
            }],
            notes: vec![],
            hint: None,
        }
    }

    /// A warning with a primary label.
    pub fn warning(code: &'static str, message: impl Into<String>, span: Span) -> Self {
        let mut d = Self::error(code, message, span);
        d.severity = Severity::Warning;
        d
    }

    /// Sets the primary label's message.
    pub fn with_label_message(mut self, message: impl Into<String>) -> Self {
        if let Some(l) = self.labels.iter_mut().find(|l| l.primary) {
            l.message = message.into();
        }
        self
    }

    /// Adds a secondary label.
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: false,
            replacement: None,
        });
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Sets the hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Proposes `text` in place of the primary label's source.
    pub fn with_primary_replacement(mut self, text: impl Into<String>) -> Self {
        if let Some(l) = self.labels.iter_mut().find(|l| l.primary) {
            l.replacement = Some(text.into());
        }
        self
    }

    /// The primary span.
    pub fn primary_span(&self) -> Option<Span> {
        self.labels.iter().find(|l| l.primary).map(|l| l.span)
    }

    /// Whether this diagnostic rejects the input.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Turns a phase's error value into a diagnostic.
pub trait IntoDiagnostic {
    /// The diagnostic for this error.
    fn to_diagnostic(&self) -> Diagnostic;
}

/// Renders diagnostics as text with source excerpts, as a compiler would.
pub fn render(diagnostics: &[Diagnostic], sources: &SourceMap, color: bool) -> String {
    let mut buffer = if color {
        Buffer::ansi()
    } else {
        Buffer::no_color()
    };
    let config = term::Config::default();
    for d in diagnostics {
        let cs = to_codespan(d);
        // Rendering into memory cannot fail for files we own; a failure would only drop the
        // excerpt, so fall back to the one-line form.
        if term::emit_to_write_style(&mut buffer, &config, sources.files(), &cs).is_err() {
            let line = one_line(d, sources);
            buffer.clear();
            return line;
        }
    }
    String::from_utf8_lossy(buffer.as_slice()).into_owned()
}

fn to_codespan(d: &Diagnostic) -> CsDiagnostic<usize> {
    let base = match d.severity {
        Severity::Error => CsDiagnostic::error(),
        Severity::Warning => CsDiagnostic::warning(),
    };
    let labels = d
        .labels
        .iter()
        .map(|l| {
            let label = if l.primary {
                CsLabel::primary(l.span.file.0 as usize, l.span.range())
            } else {
                CsLabel::secondary(l.span.file.0 as usize, l.span.range())
            };
            label.with_message(l.message.clone())
        })
        .collect();
    let mut notes = d.notes.clone();
    if let Some(h) = &d.hint {
        notes.push(format!("hint: {h}"));
    }
    base.with_code(d.code)
        .with_message(d.message.clone())
        .with_labels(labels)
        .with_notes(notes)
}

/// `file:line:col: error[CODE]: message`, for logs.
pub fn one_line(d: &Diagnostic, sources: &SourceMap) -> String {
    let severity = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    match d.primary_span() {
        Some(span) => {
            let lc = sources.line_col(span.file, span.start);
            format!(
                "{}:{}:{}: {severity}[{}]: {}",
                sources.name(span.file),
                lc.line,
                lc.column,
                d.code,
                d.message
            )
        }
        None => format!("{severity}[{}]: {}", d.code, d.message),
    }
}

/// The machine-readable form of a diagnostic.
#[derive(Debug, Serialize)]
pub struct JsonDiagnostic {
    /// The stable code.
    pub code: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// The headline.
    pub message: String,
    /// The file of the primary label.
    pub file: Option<String>,
    /// Start of the primary label.
    pub start: Option<LineCol>,
    /// End of the primary label.
    pub end: Option<LineCol>,
    /// Every label, with positions.
    pub labels: Vec<JsonLabel>,
    /// Extra facts.
    pub notes: Vec<String>,
    /// What to do about it.
    pub hint: Option<String>,
}

/// A label in JSON form.
#[derive(Debug, Serialize)]
pub struct JsonLabel {
    /// File name.
    pub file: String,
    /// Start position.
    pub start: LineCol,
    /// End position.
    pub end: LineCol,
    /// Message.
    pub message: String,
    /// Whether it is the primary label.
    pub primary: bool,
}

/// Converts a diagnostic to its JSON form.
pub fn to_json(d: &Diagnostic, sources: &SourceMap) -> JsonDiagnostic {
    let labels: Vec<JsonLabel> = d
        .labels
        .iter()
        .map(|l| JsonLabel {
            file: sources.name(l.span.file).to_string(),
            start: sources.line_col(l.span.file, l.span.start),
            end: sources.line_col(l.span.file, l.span.end),
            message: l.message.clone(),
            primary: l.primary,
        })
        .collect();
    let primary = labels.iter().find(|l| l.primary);
    JsonDiagnostic {
        code: d.code,
        severity: d.severity,
        message: d.message.clone(),
        file: primary.map(|l| l.file.clone()),
        start: primary.map(|l| l.start),
        end: primary.map(|l| l.end),
        labels,
        notes: d.notes.clone(),
        hint: d.hint.clone(),
    }
}
