//! What the server knows about one open document: the front end's diagnostics and symbol index
//! for a model (`.ioa`), or the universe checks for a `.universe` file, computed from the
//! editor's unsaved text of every open document.

use super::line_index::LineIndex;
use crate::cli::fs::OsFileSystem;
use ioa_lang::diagnostics::Diagnostic;
use ioa_lang::loader::{normalise, FileSystem, OverlayFileSystem};
use ioa_lang::source_map::SourceMap;
use ioa_lang::span::FileId;
use ioa_lang::symbols::SymbolIndex;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One analysed version of a document.
pub struct Analysis {
    /// The document's text, as analysed.
    pub text: String,
    /// Positions in `text`.
    pub lines: LineIndex,
    /// Every file read (the document, its imports, synthetic instances of generic automata).
    pub sources: SourceMap,
    /// The document's own file in `sources`.
    pub file: Option<FileId>,
    /// Everything the front end (or the universe reader) reported, in any file.
    pub diagnostics: Vec<Diagnostic>,
    /// Declarations and uses of names, for hover, definition, references and symbols.
    pub index: SymbolIndex,
    /// For a universe file: the models it was checked against (`None` for a model).
    pub checked_against: Option<Vec<PathBuf>>,
}

impl Analysis {
    /// Whether `path` was read for this analysis (so a change to it makes this one stale).
    pub fn read(&self, path: &Path) -> bool {
        let wanted = normalise(path);
        (0..self.sources.len())
            .any(|i| normalise(Path::new(self.sources.name(FileId(i as u32)))) == wanted)
    }
}

/// Analyses the document at `path` whose text is `open[path]`, reading every other open
/// document from `open` rather than from disk.
pub fn analyse(path: &Path, open: &HashMap<PathBuf, String>) -> Analysis {
    let mut overlay = OverlayFileSystem::new(&OsFileSystem);
    for (p, text) in open {
        overlay.replace(p, text.clone());
    }
    let text = open.get(path).cloned().unwrap_or_default();
    if path.extension().is_some_and(|e| e == "universe") {
        analyse_universe(path, text, &overlay)
    } else {
        analyse_model(path, text, &overlay)
    }
}

fn analyse_model(path: &Path, text: String, fs: &OverlayFileSystem) -> Analysis {
    let result = ioa_lang::check_files(&[path.to_path_buf()], fs);
    let index = SymbolIndex::build(&result.files, &result.sources);
    let file = find_file(&result.sources, path);
    Analysis {
        lines: LineIndex::new(&text),
        text,
        sources: result.sources,
        file,
        diagnostics: result.diagnostics,
        index,
        checked_against: None,
    }
}

/// A universe file is read as `ioa run` reads one found beside a model (lines for types and
/// actions the model lacks are skipped), against the model it belongs to: `NAME.ioa` for
/// `NAME.universe`, else every model of the folder that has no universe file of its own (a
/// folder's `default.universe`, `explore.universe` … serve several).
fn analyse_universe(path: &Path, text: String, fs: &OverlayFileSystem) -> Analysis {
    let mut sources = SourceMap::new();
    let file = sources.add(path.display().to_string(), text.clone());
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    let mut checked_against = Vec::new();
    for model in models_of_universe(path, fs) {
        let result = ioa_lang::check_files(std::slice::from_ref(&model), fs);
        let Some(spec) = result.spec else { continue };
        checked_against.push(model);
        let mut universe = interpreter::universe::Universe::default();
        if let Err(found) = universe.add_reporting(&spec, file, &text, true) {
            for d in found {
                if !diagnostics.contains(&d) {
                    diagnostics.push(d);
                }
            }
        }
    }
    Analysis {
        lines: LineIndex::new(&text),
        text,
        sources,
        file: Some(file),
        diagnostics,
        index: SymbolIndex::default(),
        checked_against: Some(checked_against),
    }
}

fn models_of_universe(path: &Path, fs: &OverlayFileSystem) -> Vec<PathBuf> {
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

/// The id of `path` among the files read.
pub fn find_file(sources: &SourceMap, path: &Path) -> Option<FileId> {
    let wanted = normalise(path);
    (0..sources.len() as u32)
        .map(FileId)
        .find(|&id| normalise(Path::new(sources.name(id))) == wanted)
}
