//! The set of loaded source files, so that a [`Span`] can be turned into a
//! file name, line and column.

use crate::span::{FileId, Span};
use codespan_reporting::files::{Files, SimpleFiles};

/// Every file read for one run of the front end.
#[derive(Default, Clone)]
pub struct SourceMap {
    files: SimpleFiles<String, String>,
}

/// A 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct LineCol {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file and returns its id.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        FileId(self.files.add(name.into(), text.into()) as u32)
    }

    /// How many files are loaded.
    pub fn len(&self) -> usize {
        let mut n = 0;
        while self.files.get(n).is_ok() {
            n += 1;
        }
        n
    }

    /// Whether no file is loaded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The file's display name.
    pub fn name(&self, file: FileId) -> &str {
        self.files
            .get(file.0 as usize)
            .map(|f| f.name().as_str())
            .unwrap_or("<unknown>")
    }

    /// The file's text.
    pub fn text(&self, file: FileId) -> &str {
        self.files
            .get(file.0 as usize)
            .map(|f| f.source().as_str())
            .unwrap_or("")
    }

    /// The source text a span covers.
    pub fn snippet(&self, span: Span) -> &str {
        self.text(span.file).get(span.range()).unwrap_or("")
    }

    /// The 1-based line and column of a byte offset.
    pub fn line_col(&self, file: FileId, offset: u32) -> LineCol {
        match self.files.location(file.0 as usize, offset as usize) {
            Ok(loc) => LineCol {
                line: loc.line_number,
                column: loc.column_number,
            },
            Err(_) => LineCol { line: 1, column: 1 },
        }
    }

    /// The codespan file database, for rendering.
    pub(crate) fn files(&self) -> &SimpleFiles<String, String> {
        &self.files
    }
}
