//! Reading a model: a root file and, transitively, the files it imports. The file system is a
//! trait so that this crate stays free of I/O; the `ioa` command supplies the real one and tests
//! supply a map.

use crate::ast::{Item, SourceFile};
use crate::diagnostics::{Diagnostic, IntoDiagnostic};
use crate::parse::parse_file;
use crate::source_map::SourceMap;
use crate::span::{FileId, Span};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Where source files come from.
pub trait FileSystem {
    /// Reads a file's text; the error is shown to the user.
    fn read(&self, path: &Path) -> Result<String, String>;
    /// A canonical key for the path, so a file imported twice is read once.
    fn canonical(&self, path: &Path) -> PathBuf;
}

/// A failure to read a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// A file named on the command line could not be read.
    RootUnreadable {
        /// The path.
        path: String,
        /// Why.
        reason: String,
    },
    /// An imported file could not be read.
    ImportUnreadable {
        /// The path as resolved.
        path: String,
        /// Why.
        reason: String,
        /// The `import` declaration.
        span: Span,
    },
}

impl IntoDiagnostic for LoadError {
    fn to_diagnostic(&self) -> Diagnostic {
        match self {
            LoadError::RootUnreadable { path, reason } => Diagnostic {
                code: "E0006",
                severity: crate::diagnostics::Severity::Error,
                message: format!("cannot read `{path}`: {reason}"),
                labels: vec![],
                notes: vec![],
                hint: Some("check the path; `ioa check` takes .ioa files".to_string()),
            },
            LoadError::ImportUnreadable { path, reason, span } => Diagnostic::error(
                "E0006",
                format!("cannot read imported file `{path}`: {reason}"),
                *span,
            )
            .with_hint("import paths are relative to the importing file"),
        }
    }
}

/// Every file of a model, parsed, with the diagnostics found while reading them.
pub struct Loaded {
    /// The text of every file read.
    pub sources: SourceMap,
    /// The parsed files, roots first, then imports in the order they were reached.
    pub files: Vec<(FileId, SourceFile)>,
    /// Read and syntax errors.
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads the root files and everything they import.
pub fn load(roots: &[PathBuf], fs: &dyn FileSystem) -> Loaded {
    let mut loaded = Loaded {
        sources: SourceMap::new(),
        files: Vec::new(),
        diagnostics: Vec::new(),
    };
    let mut seen: HashMap<PathBuf, ()> = HashMap::new();
    let mut queue: Vec<(PathBuf, Option<Span>)> = roots.iter().map(|p| (p.clone(), None)).collect();
    queue.reverse();
    while let Some((path, from)) = queue.pop() {
        let key = fs.canonical(&path);
        if seen.insert(key, ()).is_some() {
            continue;
        }
        let text = match fs.read(&path) {
            Ok(text) => text,
            Err(reason) => {
                let path = path.display().to_string();
                let error = match from {
                    None => LoadError::RootUnreadable { path, reason },
                    Some(span) => LoadError::ImportUnreadable { path, reason, span },
                };
                loaded.diagnostics.push(error.to_diagnostic());
                continue;
            }
        };
        // A byte-order mark is not part of the text.
        let text = text
            .strip_prefix('\u{feff}')
            .map(str::to_string)
            .unwrap_or(text);
        let file = loaded.sources.add(path.display().to_string(), text);
        match parse_file(file, loaded.sources.text(file)) {
            Ok(parsed) => {
                let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
                let mut imports: Vec<(PathBuf, Option<Span>)> = parsed
                    .items
                    .iter()
                    .filter_map(|item| match item {
                        Item::Import(import) => Some((dir.join(&import.path), Some(import.span))),
                        _ => None,
                    })
                    .collect();
                imports.reverse();
                queue.extend(imports);
                loaded.files.push((file, parsed));
            }
            Err(error) => loaded.diagnostics.push(error.to_diagnostic()),
        }
    }
    loaded
}

/// A file system backed by a map from paths to texts, for tests and for checking text that is
/// not on disk.
#[derive(Default)]
pub struct MemoryFileSystem {
    /// The files.
    pub files: HashMap<PathBuf, String>,
}

impl FileSystem for MemoryFileSystem {
    fn read(&self, path: &Path) -> Result<String, String> {
        self.files
            .get(&normalise(path))
            .cloned()
            .ok_or_else(|| "no such file".to_string())
    }

    fn canonical(&self, path: &Path) -> PathBuf {
        normalise(path)
    }
}

/// Removes `.` and folds `..` lexically.
pub fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// A file system with some files' text replaced: an editor's unsaved buffers over the disk, so
/// that a model is checked as the user sees it.
pub struct OverlayFileSystem<'a> {
    base: &'a (dyn FileSystem + Sync),
    /// Replaced texts, by the base's canonical path.
    replaced: HashMap<PathBuf, String>,
}

impl<'a> OverlayFileSystem<'a> {
    /// The base file system with nothing replaced yet.
    pub fn new(base: &'a (dyn FileSystem + Sync)) -> Self {
        OverlayFileSystem {
            base,
            replaced: HashMap::new(),
        }
    }

    /// `path` reads as `text` from now on.
    pub fn replace(&mut self, path: &Path, text: String) {
        let key = self.base.canonical(path);
        self.replaced.insert(key, text);
    }
}

impl FileSystem for OverlayFileSystem<'_> {
    fn read(&self, path: &Path) -> Result<String, String> {
        match self.replaced.get(&self.base.canonical(path)) {
            Some(text) => Ok(text.clone()),
            None => self.base.read(path),
        }
    }

    fn canonical(&self, path: &Path) -> PathBuf {
        self.base.canonical(path)
    }
}
