//! Checking models: each file is its own model with the files it imports (as a compiler checks
//! translation units), and a universe file is checked against the models it serves. The
//! results are data — a [`CheckReport`] with every diagnostic and the sources they point into —
//! for `ioa check` to print and for the language server to publish.

use super::fs::OsFileSystem;
use ioa_lang::diagnostics::Diagnostic;
use ioa_lang::loader::FileSystem;
use ioa_lang::source_map::SourceMap;
use ioa_lang::span::FileId;
use ioa_lang::CheckResult;
use std::path::{Path, PathBuf};

/// One file checked as a model.
pub struct FileCheck {
    /// The file as named.
    pub path: PathBuf,
    /// The front end's result (spec, parsed files, sources); its `diagnostics` are moved into
    /// [`FileCheck::diagnostics`].
    pub result: CheckResult,
    /// Errors and warnings, in the order the front end found them.
    pub diagnostics: Vec<Diagnostic>,
}

impl FileCheck {
    /// Whether the file checked without errors (warnings allowed).
    pub fn ok(&self) -> bool {
        !self.diagnostics.iter().any(|d| d.is_error())
    }
}

/// Every file of an `ioa check`, with the counts of errors and warnings over all of them.
pub struct CheckReport {
    /// The files, in the order given.
    pub files: Vec<FileCheck>,
    /// Errors over all files.
    pub errors: usize,
    /// Warnings over all files.
    pub warnings: usize,
}

impl CheckReport {
    /// Whether no file has an error.
    pub fn ok(&self) -> bool {
        self.errors == 0
    }

    /// The closing line of the text report: `checked 2 file(s): no errors, 1 warning` or
    /// `3 error(s)`.
    pub fn summary(&self) -> String {
        if self.errors == 0 {
            let warned = match self.warnings {
                0 => String::new(),
                1 => ", 1 warning".to_string(),
                n => format!(", {n} warnings"),
            };
            format!("checked {} file(s): no errors{warned}\n", self.files.len())
        } else {
            format!("{} error(s)\n", self.errors)
        }
    }

    /// The report as one JSON document: `ok`, `errors`, and per file its diagnostics.
    pub fn to_json(&self) -> serde_json::Value {
        let docs: Vec<serde_json::Value> = self
            .files
            .iter()
            .map(|f| {
                let list: Vec<_> = f
                    .diagnostics
                    .iter()
                    .map(|d| ioa_lang::diagnostics::to_json(d, &f.result.sources))
                    .collect();
                serde_json::json!({
                    "file": f.path.display().to_string(),
                    "ok": f.ok(),
                    "diagnostics": list,
                })
            })
            .collect();
        serde_json::json!({ "ok": self.ok(), "errors": self.errors, "files": docs })
    }
}

/// Checks each file as its own model, reading from disk.
pub fn check_files(files: &[PathBuf]) -> CheckReport {
    check_files_in(files, &OsFileSystem)
}

/// Checks each file as its own model, reading through `fs` (an editor's unsaved buffers).
pub fn check_files_in(files: &[PathBuf], fs: &(dyn FileSystem + Sync)) -> CheckReport {
    let mut report = CheckReport {
        files: Vec::new(),
        errors: 0,
        warnings: 0,
    };
    for file in files {
        let mut result = ioa_lang::check_files(std::slice::from_ref(file), fs);
        let diagnostics = std::mem::take(&mut result.diagnostics);
        report.errors += diagnostics.iter().filter(|d| d.is_error()).count();
        report.warnings += diagnostics.iter().filter(|d| !d.is_error()).count();
        report.files.push(FileCheck {
            path: file.clone(),
            result,
            diagnostics,
        });
    }
    report
}

/// A universe file checked against the models it serves.
pub struct UniverseCheck {
    /// The universe text as the only source (diagnostics point into it).
    pub sources: SourceMap,
    /// Its id in `sources`.
    pub file: FileId,
    /// Problems with its lines, each once however many models share it.
    pub diagnostics: Vec<Diagnostic>,
    /// The models it was checked against (those that checked without errors).
    pub checked_against: Vec<PathBuf>,
}

/// Checks the universe file at `path` with text `text` as `ioa run` reads one found beside a
/// model (lines for types and actions the model lacks are skipped), against the models it
/// belongs to: `NAME.ioa` for `NAME.universe`, else every model of the folder that has no
/// universe file of its own (a folder's `default.universe`, `explore.universe` … serve
/// several).
pub fn check_universe(path: &Path, text: &str, fs: &(dyn FileSystem + Sync)) -> UniverseCheck {
    let mut sources = SourceMap::new();
    let file = sources.add(path.display().to_string(), text.to_string());
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    let mut checked_against = Vec::new();
    for model in models_of_universe(path, fs) {
        let result = ioa_lang::check_files(std::slice::from_ref(&model), fs);
        let Some(spec) = result.spec else { continue };
        checked_against.push(model);
        let mut universe = interpreter::universe::Universe::default();
        if let Err(found) = universe.add_reporting(&spec, file, text, true) {
            for d in found {
                if !diagnostics.contains(&d) {
                    diagnostics.push(d);
                }
            }
        }
    }
    UniverseCheck {
        sources,
        file,
        diagnostics,
        checked_against,
    }
}

/// The models a universe file serves (see [`check_universe`]).
fn models_of_universe(path: &Path, fs: &dyn FileSystem) -> Vec<PathBuf> {
    let own = path.with_extension("ioa");
    if fs.read(&own).is_ok() {
        return vec![own];
    }
    let Some(dir) = path.parent() else {
        return vec![];
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return vec![];
    };
    let mut models: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ioa"))
        .filter(|p| !p.with_extension("universe").exists())
        .collect();
    models.sort();
    models
}
