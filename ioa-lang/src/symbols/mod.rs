//! An editor's view of a model: every declared name (automata, types, enumeration constants,
//! fields, actions, state variables, parameters, components, invariants, simulations,
//! schedules, bound variables) with where it is declared, and every use of a name resolved to
//! its declaration. The language server answers hover, go to definition, find references and
//! document symbols from it.
//!
//! The index is built from the surface syntax tree as written, so it exists for a model with
//! type errors too (the checker stops at the first file with errors; an editor must not).
//! Resolution follows the checker's scopes: bound variables (transition parameters,
//! quantifiers, `for`, `choose`) shadow the automaton's parameters and state variables, which
//! shadow the global names; `A.x` and `P[i].x` look `x` up in automaton `A` or in the
//! automaton of component `P`. A name that resolves to nothing is left out rather than guessed
//! (the checker reports it); a field name is resolved only when one declared type has it.
//!
//! Two passes over every file: `declare.rs` records the declarations (so that a use may come
//! before its declaration, or in another file), `resolve.rs` walks the bodies with scopes.

mod declare;
mod resolve;

use crate::ast::*;
use crate::source_map::SourceMap;
use crate::span::{FileId, Span};
use rustc_hash::FxHashMap;

/// What kind of thing a name declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    /// `type T = …`.
    Type,
    /// A constant of an enumeration.
    EnumConstant,
    /// A field of a tuple type or a tag of a union.
    Field,
    /// `automaton A`.
    Automaton,
    /// A parameter of an automaton.
    AutomatonParameter,
    /// An action of a signature.
    Action,
    /// A state variable (of an automaton, a proof block or a schedule).
    StateVariable,
    /// A component of a composite.
    Component,
    /// `invariant I`.
    Invariant,
    /// `liveness L`.
    Liveness,
    /// `forward simulation S`.
    Simulation,
    /// `schedule S`.
    Schedule,
    /// A variable bound by a transition head, quantifier, loop, `choose` or family index.
    BoundVariable,
}

impl SymbolKind {
    /// How the kind reads in a sentence ("state variable").
    pub fn describe(self) -> &'static str {
        match self {
            SymbolKind::Type => "type",
            SymbolKind::EnumConstant => "enumeration constant",
            SymbolKind::Field => "field",
            SymbolKind::Automaton => "automaton",
            SymbolKind::AutomatonParameter => "automaton parameter",
            SymbolKind::Action => "action",
            SymbolKind::StateVariable => "state variable",
            SymbolKind::Component => "component",
            SymbolKind::Invariant => "invariant",
            SymbolKind::Liveness => "liveness property",
            SymbolKind::Simulation => "forward simulation",
            SymbolKind::Schedule => "schedule",
            SymbolKind::BoundVariable => "bound variable",
        }
    }
}

/// Index of a [`Definition`] in [`SymbolIndex::definitions`].
pub type DefinitionId = usize;

/// One declared name.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Definition {
    /// The name.
    pub name: String,
    /// What it declares.
    pub kind: SymbolKind,
    /// Where the name is written in its declaration.
    pub name_span: Span,
    /// The whole declaration.
    pub full_span: Span,
    /// The declaration's head as source text: `voted: Array[Node, Set[Ballot]]`,
    /// `internal makeBallot(b: Ballot)`, `automaton Global1`.
    pub signature: String,
    /// The declaration this one sits in (an automaton for its actions and variables).
    pub parent: Option<DefinitionId>,
}

/// A use of a name, resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Reference {
    /// Where the name is used.
    pub span: Span,
    /// What it refers to.
    pub target: DefinitionId,
}

/// Every declaration and resolved use of a model's files.
#[derive(Debug, Default, serde::Serialize)]
pub struct SymbolIndex {
    /// Declarations in source order (a parent before its children).
    pub definitions: Vec<Definition>,
    /// Uses (declarations themselves are not listed here).
    pub references: Vec<Reference>,
}

impl SymbolIndex {
    /// Builds the index of parsed files (as [`crate::CheckResult::files`] holds them).
    pub fn build(files: &[(FileId, SourceFile)], sources: &SourceMap) -> SymbolIndex {
        let mut builder = Builder {
            sources,
            index: SymbolIndex::default(),
            globals: FxHashMap::default(),
            automata: FxHashMap::default(),
            fields: FxHashMap::default(),
            locals: Vec::new(),
        };
        for (_, file) in files {
            for item in &file.items {
                builder.declare_item(item);
            }
        }
        for (_, file) in files {
            for item in &file.items {
                builder.resolve_item(item);
            }
        }
        builder.index
    }

    /// The declaration named or used at `offset` of `file`.
    pub fn definition_at(&self, file: FileId, offset: u32) -> Option<DefinitionId> {
        let covers = |span: &Span| span.file == file && span.start <= offset && offset <= span.end;
        self.references
            .iter()
            .find(|r| covers(&r.span))
            .map(|r| r.target)
            .or_else(|| self.definitions.iter().position(|d| covers(&d.name_span)))
    }

    /// Every use of a declaration, in source order of the index.
    pub fn references_to(&self, target: DefinitionId) -> impl Iterator<Item = Span> + '_ {
        self.references
            .iter()
            .filter(move |r| r.target == target)
            .map(|r| r.span)
    }

    /// The declarations written in `file`, except bound variables (an outline).
    pub fn outline(&self, file: FileId) -> impl Iterator<Item = (DefinitionId, &Definition)> {
        self.definitions
            .iter()
            .enumerate()
            .filter(move |(_, d)| d.name_span.file == file && d.kind != SymbolKind::BoundVariable)
    }
}

/// What an automaton declares, by name.
#[derive(Default)]
struct AutomatonScope {
    members: FxHashMap<String, DefinitionId>,
    actions: FxHashMap<String, DefinitionId>,
    /// Component name → the automaton it instantiates.
    component_automata: FxHashMap<String, String>,
}

struct Builder<'a> {
    sources: &'a SourceMap,
    index: SymbolIndex,
    /// Types, enumeration constants, automata, invariants, simulations, schedules.
    globals: FxHashMap<String, DefinitionId>,
    automata: FxHashMap<String, AutomatonScope>,
    /// Field name → declarations of a field of that name.
    fields: FxHashMap<String, Vec<DefinitionId>>,
    /// Bound variables in scope, innermost last.
    locals: Vec<(String, DefinitionId)>,
}

/// Where a bare name is looked up, besides bound variables and globals.
#[derive(Clone, Copy, Default)]
struct Scope<'s> {
    /// Automata whose members (parameters, state variables, components) are visible, first wins.
    automata: [Option<&'s str>; 2],
    /// Extra state (a proof block's or a schedule's own variables), by name.
    extra: Option<&'s FxHashMap<String, DefinitionId>>,
    /// The automaton whose actions `fire` and a transition head name.
    fire_target: Option<&'s str>,
}

impl Builder<'_> {
    fn define(
        &mut self,
        name: &Ident,
        kind: SymbolKind,
        full_span: Span,
        signature: String,
        parent: Option<DefinitionId>,
    ) -> DefinitionId {
        self.index.definitions.push(Definition {
            name: name.name.clone(),
            kind,
            name_span: name.span,
            full_span,
            signature,
            parent,
        });
        self.index.definitions.len() - 1
    }

    fn text(&self, span: Span) -> String {
        squash(self.sources.snippet(span))
    }

    fn refer(&mut self, span: Span, target: Option<DefinitionId>) {
        if let Some(target) = target {
            self.index.references.push(Reference { span, target });
        }
    }

    fn declare_global(&mut self, id: DefinitionId) {
        let name = self.index.definitions[id].name.clone();
        self.globals.entry(name).or_insert(id);
    }

    fn local(&self, name: &str) -> Option<DefinitionId> {
        self.locals
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, id)| *id)
    }

    fn lookup(&self, name: &str, scope: Scope) -> Option<DefinitionId> {
        self.local(name)
            .or_else(|| scope.extra.and_then(|extra| extra.get(name).copied()))
            .or_else(|| {
                scope
                    .automata
                    .into_iter()
                    .flatten()
                    .find_map(|a| self.member(a, name))
            })
            .or_else(|| self.globals.get(name).copied())
    }

    fn member(&self, automaton: &str, name: &str) -> Option<DefinitionId> {
        self.automata.get(automaton)?.members.get(name).copied()
    }

    fn action(&self, automaton: &str, name: &str) -> Option<DefinitionId> {
        self.automata.get(automaton)?.actions.get(name).copied()
    }

    fn global(&self, name: &str, kind: SymbolKind) -> Option<DefinitionId> {
        self.globals
            .get(name)
            .copied()
            .filter(|id| self.index.definitions[*id].kind == kind)
    }

    fn unique_field(&self, name: &str) -> Option<DefinitionId> {
        match self.fields.get(name).map(Vec::as_slice) {
            Some([only]) => Some(*only),
            _ => None,
        }
    }
}

/// Source text on one line with runs of white space as one space.
fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most the first 120 characters, for a declaration's head.
fn first_line(text: &str) -> String {
    match text.char_indices().nth(120) {
        Some((cut, _)) => format!("{} …", &text[..cut]),
        None => text.to_string(),
    }
}
