//! What the server knows about one open document: the front end's diagnostics and symbol index
//! for a model (`.ioa`), or the universe checks for a `.universe` file, computed from the
//! editor's unsaved text of every open document.

use super::line_index::LineIndex;
use ioa::api::fs::OsFileSystem;
use ioa_lang::diagnostics::Diagnostic;
use ioa_lang::loader::{normalise, OverlayFileSystem};
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
    let checked = ioa::api::check::check_files_in(&[path.to_path_buf()], fs)
        .files
        .pop()
        .expect("one file checked");
    let result = checked.result;
    let index = SymbolIndex::build(&result.files, &result.sources);
    let file = find_file(&result.sources, path);
    Analysis {
        lines: LineIndex::new(&text),
        text,
        sources: result.sources,
        file,
        diagnostics: checked.diagnostics,
        index,
        checked_against: None,
    }
}

/// A universe file is checked as [`ioa::api::check::check_universe`] does.
fn analyse_universe(path: &Path, text: String, fs: &OverlayFileSystem) -> Analysis {
    let checked = ioa::api::check::check_universe(path, &text, fs);
    Analysis {
        lines: LineIndex::new(&text),
        text,
        sources: checked.sources,
        file: Some(checked.file),
        diagnostics: checked.diagnostics,
        index: SymbolIndex::default(),
        checked_against: Some(checked.checked_against),
    }
}

/// The id of `path` among the files read.
pub fn find_file(sources: &SourceMap, path: &Path) -> Option<FileId> {
    let wanted = normalise(path);
    (0..sources.len() as u32)
        .map(FileId)
        .find(|&id| normalise(Path::new(sources.name(id))) == wanted)
}
