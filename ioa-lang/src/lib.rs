//! The IOA language: lexing, parsing, name resolution and type checking, lowering to the typed
//! core IR ([`ir::Spec`]) every later crate consumes, pretty printing, and diagnostics.
//!
//! This crate does no I/O: files reach it through the [`loader::FileSystem`] trait, and
//! diagnostics leave it as data ([`diagnostics::Diagnostic`]) or as rendered strings.

pub mod ast;
pub mod check;
pub mod compose;
pub mod diagnostics;
pub mod generics;
pub mod ir;
pub mod lexer;
pub mod loader;
pub mod parse;
pub mod pretty;
pub mod source_map;
pub mod span;
pub mod symbols;
mod unsupported;

use std::path::PathBuf;

/// The outcome of checking a model.
pub struct CheckResult {
    /// Every file read (for rendering diagnostics).
    pub sources: source_map::SourceMap,
    /// The checked model, when there were no errors.
    pub spec: Option<ir::Spec>,
    /// Syntax, read and type errors, in source order.
    pub diagnostics: Vec<diagnostics::Diagnostic>,
    /// Every file that parsed, as written (before generic automata are instantiated): what an
    /// editor's symbol index ([`symbols::SymbolIndex`]) is built from.
    pub files: Vec<(span::FileId, ast::SourceFile)>,
}

impl CheckResult {
    /// How many files were read.
    pub fn sources_count(&self) -> usize {
        self.sources.len()
    }
}

/// The stack the front end runs on: the parser and checker recurse over expressions, and a
/// generated model may nest thousands deep.
const FRONT_END_STACK: usize = 1 << 30;

/// Reads, parses and checks the given files (and their imports) as one model.
///
/// Runs on a thread with a large stack, so deeply nested input is checked, not a crash.
pub fn check_files(paths: &[PathBuf], fs: &(dyn loader::FileSystem + Sync)) -> CheckResult {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("ioa-check".into())
            .stack_size(FRONT_END_STACK)
            .spawn_scoped(scope, || check_files_here(paths, fs))
            .expect("a thread for the front end")
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

fn check_files_here(paths: &[PathBuf], fs: &dyn loader::FileSystem) -> CheckResult {
    let mut loaded = loader::load(paths, fs);
    let written = loaded.files.clone();
    let mut diagnostics = loaded.diagnostics;
    if !diagnostics.iter().any(|d| d.is_error()) {
        diagnostics.extend(generics::instantiate(
            &mut loaded.files,
            &mut loaded.sources,
        ));
    }
    let spec = if diagnostics.iter().any(|d| d.is_error()) {
        None
    } else {
        let (spec, mut more) = check::check(&loaded.files);
        diagnostics.append(&mut more);
        spec
    };
    CheckResult {
        sources: loaded.sources,
        spec,
        diagnostics,
        files: written,
    }
}
