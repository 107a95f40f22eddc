//! The answers to an editor's questions about an analysed document: diagnostics, hover, go to
//! definition, find references, document symbols, formatting and quick fixes. Pure functions
//! of an [`Analysis`]; the protocol loop in `mod.rs` does the talking.

use super::analysis::Analysis;
use super::line_index::LineIndex;
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic, Severity};
use ioa_lang::loader::normalise;
use ioa_lang::span::{FileId, Span};
use ioa_lang::symbols::{Definition, DefinitionId, SymbolKind};
use lsp_types as lsp;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Where a span lies, as the protocol says it; `None` for text that is in no file on disk (a
/// generic automaton's instance).
pub fn location(analysis: &Analysis, span: Span) -> Option<lsp::Location> {
    let name = analysis.sources.name(span.file);
    if name.starts_with('<') {
        return None;
    }
    let path = absolute(Path::new(name));
    let uri = lsp::Url::from_file_path(&path).ok()?;
    let range = if Some(span.file) == analysis.file {
        analysis.lines.range(&analysis.text, span.start, span.end)
    } else {
        let text = analysis.sources.text(span.file);
        LineIndex::new(text).range(text, span.start, span.end)
    };
    Some(lsp::Location::new(uri, range))
}

fn absolute(path: &Path) -> PathBuf {
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    normalise(&path)
}

/// The diagnostics to show in the document: its own, and one per imported file with errors,
/// at the `import` that reads it (the front end stops at a file with errors).
pub fn diagnostics(analysis: &Analysis, uri: &lsp::Url) -> Vec<lsp::Diagnostic> {
    let mut out = Vec::new();
    let mut reported_imports: HashMap<FileId, ()> = HashMap::new();
    for d in &analysis.diagnostics {
        let primary = d.primary_span();
        match primary {
            Some(span) if Some(span.file) != analysis.file => {
                // An error in an imported file: point at the document's first line that says
                // `import`, with the imported file's position in the message.
                if d.severity != Severity::Error || reported_imports.insert(span.file, ()).is_some()
                {
                    continue;
                }
                let Some(at) = location(analysis, span) else {
                    continue;
                };
                let import_range = import_line(analysis);
                out.push(lsp::Diagnostic {
                    range: import_range,
                    severity: Some(lsp::DiagnosticSeverity::ERROR),
                    code: Some(lsp::NumberOrString::String(d.code.to_string())),
                    source: Some("ioa".into()),
                    message: format!(
                        "in {}:{}:{}: {}",
                        beside_document(analysis, span.file),
                        at.range.start.line + 1,
                        at.range.start.character + 1,
                        d.message
                    ),
                    related_information: Some(vec![lsp::DiagnosticRelatedInformation {
                        location: at,
                        message: d.message.clone(),
                    }]),
                    ..Default::default()
                });
            }
            _ => out.push(convert(analysis, d, uri)),
        }
    }
    if analysis.checked_against.as_ref().is_some_and(Vec::is_empty) {
        out.push(lsp::Diagnostic {
            range: lsp::Range::default(),
            severity: Some(lsp::DiagnosticSeverity::INFORMATION),
            source: Some("ioa".into()),
            message: "no model beside this universe file checks without errors, so its lines were not checked".into(),
            ..Default::default()
        });
    }
    out
}

/// A file's name as seen from the document's folder (`global1.ioa`, `../consensus/cons.ioa`);
/// absolute when neither the folder nor its parent contains it.
fn beside_document(analysis: &Analysis, file: FileId) -> String {
    let path = normalise(Path::new(analysis.sources.name(file)));
    let folder = analysis
        .file
        .and_then(|f| Path::new(analysis.sources.name(f)).parent().map(normalise));
    match folder {
        Some(folder) => match path.strip_prefix(&folder) {
            Ok(relative) => relative.display().to_string(),
            Err(_) => match (
                folder.parent(),
                path.strip_prefix(folder.parent().unwrap_or(&folder)),
            ) {
                (Some(_), Ok(relative)) => format!("../{}", relative.display()),
                _ => path.display().to_string(),
            },
        },
        None => path.display().to_string(),
    }
}

fn import_line(analysis: &Analysis) -> lsp::Range {
    // The first line that starts with `import` (comments may mention the word earlier).
    let mut offset = 0;
    for line in analysis.text.split_inclusive('\n') {
        let code = line.trim_start();
        if code.starts_with("import") {
            let start = offset + (line.len() - code.len());
            let end = start + line.trim_end().len() - (line.len() - code.len());
            return analysis
                .lines
                .range(&analysis.text, start as u32, end as u32);
        }
        offset += line.len();
    }
    lsp::Range::default()
}

/// One front-end diagnostic in the protocol's form: the headline, the primary label's message,
/// notes and the hint in the message; secondary labels as related information.
fn convert(analysis: &Analysis, d: &Diagnostic, uri: &lsp::Url) -> lsp::Diagnostic {
    let range = match d.primary_span() {
        Some(span) => analysis.lines.range(&analysis.text, span.start, span.end),
        None => lsp::Range::default(),
    };
    let mut message = d.message.clone();
    if let Some(label) = d.labels.iter().find(|l| l.primary && !l.message.is_empty()) {
        message.push_str(&format!(": {}", label.message));
    }
    for note in &d.notes {
        message.push_str(&format!("\nnote: {note}"));
    }
    if let Some(hint) = &d.hint {
        message.push_str(&format!("\nhint: {hint}"));
    }
    let related: Vec<_> = d
        .labels
        .iter()
        .filter(|l| !l.primary)
        .filter_map(|l| {
            let mut location = location(analysis, l.span)?;
            if Some(l.span.file) == analysis.file {
                location.uri = uri.clone();
            }
            Some(lsp::DiagnosticRelatedInformation {
                location,
                message: if l.message.is_empty() {
                    d.message.clone()
                } else {
                    l.message.clone()
                },
            })
        })
        .collect();
    lsp::Diagnostic {
        range,
        severity: Some(match d.severity {
            Severity::Error => lsp::DiagnosticSeverity::ERROR,
            Severity::Warning => lsp::DiagnosticSeverity::WARNING,
        }),
        code: Some(lsp::NumberOrString::String(d.code.to_string())),
        source: Some("ioa".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..Default::default()
    }
}

/// The declaration at a position of the document.
fn definition_at(analysis: &Analysis, position: lsp::Position) -> Option<DefinitionId> {
    let file = analysis.file?;
    let offset = analysis.lines.offset(&analysis.text, position);
    analysis.index.definition_at(file, offset)
}

/// Hover: the declaration's head (with the name's type) and what it is.
pub fn hover(analysis: &Analysis, position: lsp::Position) -> Option<lsp::Hover> {
    let id = definition_at(analysis, position)?;
    let definition = &analysis.index.definitions[id];
    let mut text = format!(
        "```ioa\n{}\n```\n{}",
        definition.signature,
        definition.kind.describe()
    );
    if let Some(parent) = definition.parent {
        let parent = &analysis.index.definitions[parent];
        text.push_str(&format!(" of {} `{}`", parent.kind.describe(), parent.name));
    }
    Some(lsp::Hover {
        contents: lsp::HoverContents::Markup(lsp::MarkupContent {
            kind: lsp::MarkupKind::Markdown,
            value: text,
        }),
        range: None,
    })
}

/// Go to definition.
pub fn definition(analysis: &Analysis, position: lsp::Position) -> Option<lsp::Location> {
    let id = definition_at(analysis, position)?;
    location(analysis, analysis.index.definitions[id].name_span)
}

/// Find references (the declaration too when the editor asks for it).
pub fn references(
    analysis: &Analysis,
    position: lsp::Position,
    include_declaration: bool,
) -> Vec<lsp::Location> {
    let Some(id) = definition_at(analysis, position) else {
        return vec![];
    };
    let declaration = include_declaration.then_some(analysis.index.definitions[id].name_span);
    declaration
        .into_iter()
        .chain(analysis.index.references_to(id))
        .filter_map(|span| location(analysis, span))
        .collect()
}

/// The outline: top-level declarations with their members as children.
pub fn document_symbols(analysis: &Analysis) -> Vec<lsp::DocumentSymbol> {
    let Some(file) = analysis.file else {
        return vec![];
    };
    let outline: Vec<(DefinitionId, &Definition)> = analysis.index.outline(file).collect();
    let symbol = |d: &Definition| {
        #[allow(deprecated)] // `deprecated` is a required field of the protocol's struct.
        lsp::DocumentSymbol {
            name: d.name.clone(),
            detail: Some(d.signature.clone()),
            kind: symbol_kind(d.kind),
            tags: None,
            deprecated: None,
            range: analysis
                .lines
                .range(&analysis.text, d.full_span.start, d.full_span.end),
            selection_range: analysis.lines.range(
                &analysis.text,
                d.name_span.start,
                d.name_span.end,
            ),
            children: None,
        }
    };
    let mut top: Vec<lsp::DocumentSymbol> = Vec::new();
    let mut top_ids: HashMap<DefinitionId, usize> = HashMap::new();
    for (id, d) in &outline {
        match d.parent.and_then(|p| top_ids.get(&p).copied()) {
            Some(at) => top[at]
                .children
                .get_or_insert_with(Vec::new)
                .push(symbol(d)),
            None => {
                top_ids.insert(*id, top.len());
                top.push(symbol(d));
            }
        }
    }
    top
}

fn symbol_kind(kind: SymbolKind) -> lsp::SymbolKind {
    match kind {
        SymbolKind::Type => lsp::SymbolKind::STRUCT,
        SymbolKind::EnumConstant => lsp::SymbolKind::ENUM_MEMBER,
        SymbolKind::Field => lsp::SymbolKind::FIELD,
        SymbolKind::Automaton => lsp::SymbolKind::CLASS,
        SymbolKind::AutomatonParameter => lsp::SymbolKind::TYPE_PARAMETER,
        SymbolKind::Action => lsp::SymbolKind::METHOD,
        SymbolKind::StateVariable => lsp::SymbolKind::FIELD,
        SymbolKind::Component => lsp::SymbolKind::OBJECT,
        SymbolKind::Invariant => lsp::SymbolKind::PROPERTY,
        SymbolKind::Liveness => lsp::SymbolKind::EVENT,
        SymbolKind::Simulation => lsp::SymbolKind::INTERFACE,
        SymbolKind::Schedule => lsp::SymbolKind::FUNCTION,
        SymbolKind::BoundVariable => lsp::SymbolKind::VARIABLE,
    }
}

/// Formatting: `ioa fmt`'s canonical text as one edit, or the syntax error that prevents it.
pub fn formatting(analysis: &Analysis) -> Result<Vec<lsp::TextEdit>, String> {
    let mut sources = ioa_lang::source_map::SourceMap::new();
    let file = sources.add("<document>", analysis.text.clone());
    let ast = ioa_lang::parse::parse_file(file, &analysis.text)
        .map_err(|e| ioa_lang::diagnostics::one_line(&e.to_diagnostic(), &sources))?;
    let formatted = ioa_lang::pretty::format_source(&ast, &analysis.text);
    if formatted == analysis.text {
        return Ok(vec![]);
    }
    Ok(vec![lsp::TextEdit::new(
        analysis.lines.whole(&analysis.text),
        formatted,
    )])
}

/// Quick fixes: the label replacements of diagnostics whose span meets `range` ("did you mean
/// `proposed`?" becomes "Replace with `proposed`"). A replacement is offered only for a span
/// that covers one name, so that a fix never rewrites more than the misspelt word.
pub fn code_actions(
    analysis: &Analysis,
    uri: &lsp::Url,
    range: lsp::Range,
) -> Vec<lsp::CodeActionOrCommand> {
    let Some(file) = analysis.file else {
        return vec![];
    };
    let start = analysis.lines.offset(&analysis.text, range.start);
    let end = analysis.lines.offset(&analysis.text, range.end);
    let mut actions = Vec::new();
    for d in &analysis.diagnostics {
        for label in d.labels.iter().filter(|l| l.replacement.is_some()) {
            let span = label.span;
            let text = label.replacement.clone().unwrap_or_default();
            if span.file != file || span.end < start || span.start > end {
                continue;
            }
            let covered = &analysis.text[span.range()];
            if covered.is_empty() || !covered.chars().all(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let edit = lsp::TextEdit::new(
                analysis.lines.range(&analysis.text, span.start, span.end),
                text.clone(),
            );
            let diagnostic = convert(analysis, d, uri);
            actions.push(lsp::CodeActionOrCommand::CodeAction(lsp::CodeAction {
                title: format!("Replace `{covered}` with `{text}`"),
                kind: Some(lsp::CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![diagnostic]),
                edit: Some(lsp::WorkspaceEdit {
                    changes: Some(HashMap::from([(uri.clone(), vec![edit])])),
                    ..Default::default()
                }),
                is_preferred: Some(true),
                ..Default::default()
            }));
        }
    }
    actions
}
