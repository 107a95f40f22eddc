//! Name resolution and type checking, elaborating the surface AST straight into the typed IR.
//!
//! The work is split by what is being checked: `decls` (types and automata), `expr` and
//! `stmt` (bodies), `toplevel` (invariants, simulations, schedules), with [`types`] doing
//! inference and [`finish`] replacing the last inference variables once everything is known.
//! Errors are collected as [`CheckError`] values and never stop the whole check: each body is
//! checked as far as it can be.

mod bounded;
mod decls;
mod errors;
mod expr;
pub mod finish;
mod scope;
mod stmt;
mod toplevel;
pub mod types;

pub use errors::CheckError;

use crate::ast::{self, SourceFile};
use crate::diagnostics::{Diagnostic, IntoDiagnostic};
use crate::ir::{self, AutomatonId, Spec, Type, TypeId};
use crate::span::{FileId, Span};
use rustc_hash::FxHashMap;
use types::{type_name, Unifier};

/// What a type name stands for while types are being declared.
#[derive(Clone)]
enum TypeEntry {
    /// A declared tuple, enumeration or union.
    Named(TypeId),
    /// A synonym, resolved.
    Alias(Type),
}

/// The checker's global tables and the IR being built.
pub(crate) struct Checker {
    spec: Spec,
    errors: Vec<CheckError>,
    /// Findings that do not reject the model (their diagnostics are warnings).
    warnings: Vec<CheckError>,
    unifier: Unifier,
    type_names: FxHashMap<String, (TypeEntry, Span)>,
    /// Enumeration constants by name: several enumerations may share a constant, and the
    /// expected type decides which is meant.
    enum_consts: FxHashMap<String, Vec<(TypeId, u32, Span)>>,
    union_tags: FxHashMap<String, (TypeId, u32, Span)>,
    automaton_names: FxHashMap<String, AutomatonId>,
    /// For each automaton, its state variables by name (primitive automata only).
    state_names: Vec<FxHashMap<String, u32>>,
    /// For each automaton, its component names (composite automata only).
    component_names: Vec<FxHashMap<String, u32>>,
    /// `yield`s in a fired step's `det` block: their types come from the `choose`s they answer
    /// at run time, so literals in them may stay ambiguous.
    free_yields: Vec<Span>,
}

/// Checks parsed files together (imports already read) and lowers them to a [`Spec`].
///
/// Returns the spec only when there are no errors.
pub fn check(files: &[(FileId, SourceFile)]) -> (Option<Spec>, Vec<Diagnostic>) {
    let mut checker = Checker {
        spec: Spec::default(),
        errors: Vec::new(),
        warnings: Vec::new(),
        unifier: Unifier::default(),
        type_names: FxHashMap::default(),
        enum_consts: FxHashMap::default(),
        union_tags: FxHashMap::default(),
        automaton_names: FxHashMap::default(),
        state_names: Vec::new(),
        component_names: Vec::new(),
        free_yields: Vec::new(),
    };
    let items: Vec<&ast::Item> = files.iter().flat_map(|(_, f)| f.items.iter()).collect();
    checker.declare_types(&items);
    checker.declare_automata(&items);
    checker.check_automaton_bodies(&items);
    checker.check_toplevel(files);
    if checker.errors.is_empty() {
        checker.finish();
    }
    let mut diagnostics: Vec<Diagnostic> = checker
        .errors
        .iter()
        .chain(&checker.warnings)
        .map(|e| e.to_diagnostic())
        .collect();
    diagnostics.sort_by_key(|d| d.primary_span().map(|s| (s.file, s.start)));
    if diagnostics.iter().any(|d| d.is_error()) {
        (None, diagnostics)
    } else {
        (Some(checker.spec), diagnostics)
    }
}

impl Checker {
    fn error(&mut self, e: CheckError) {
        self.errors.push(e);
    }

    /// Prints a type for a message.
    fn show(&self, t: &Type) -> String {
        type_name(t, &self.spec.types, &self.unifier)
    }

    /// Unifies the type of `e` with `expected`, reporting a mismatch at `e`.
    fn expect(&mut self, e: &ir::Expr, expected: &Type) {
        self.expect_because(e, expected, None);
    }

    fn expect_because(&mut self, e: &ir::Expr, expected: &Type, because: Option<(Span, String)>) {
        if self
            .unifier
            .unify(&e.ty, expected, &self.spec.types)
            .is_err()
        {
            let error = CheckError::Mismatch {
                expected: self.show(expected),
                found: self.show(&e.ty),
                span: e.span,
                because,
            };
            self.error(error);
        }
    }

    /// Resolves a written type.
    fn resolve_type(&mut self, t: &ast::TypeExpr) -> Type {
        let builtin_arity = match t.name.name.as_str() {
            "Bool" | "Int" | "Nat" | "String" | "Char" | "Real" => Some(0),
            "Set" | "Mset" | "Seq" | "Null" => Some(1),
            "Array" | "Map" => Some(2),
            _ => None,
        };
        if let Some(arity) = builtin_arity {
            if t.args.len() != arity {
                self.error(CheckError::WrongTypeArity {
                    name: t.name.name.clone(),
                    expected: arity,
                    found: t.args.len(),
                    span: t.span,
                });
                return self.unifier.fresh(types::VarKind::Any, t.span);
            }
            let args: Vec<Type> = t.args.iter().map(|a| self.resolve_type(a)).collect();
            let b = |i: usize| Box::new(args[i].clone());
            return match t.name.name.as_str() {
                "Bool" => Type::Bool,
                "Int" => Type::Int,
                "Nat" => Type::Nat,
                "String" => Type::String,
                "Char" => Type::Char,
                "Real" => Type::Real,
                "Set" => Type::Set(b(0)),
                "Mset" => Type::Mset(b(0)),
                "Seq" => Type::Seq(b(0)),
                "Null" => Type::Null(b(0)),
                "Array" => Type::Array(b(0), b(1)),
                _ => Type::Map(b(0), b(1)),
            };
        }
        match self.type_names.get(&t.name.name).cloned() {
            Some((entry, _)) => {
                if !t.args.is_empty() {
                    self.error(CheckError::WrongTypeArity {
                        name: t.name.name.clone(),
                        expected: 0,
                        found: t.args.len(),
                        span: t.span,
                    });
                }
                match entry {
                    TypeEntry::Named(id) => Type::Named(id),
                    TypeEntry::Alias(t) => t,
                }
            }
            None => {
                let mut candidates: Vec<&str> =
                    self.type_names.keys().map(|s| s.as_str()).collect();
                candidates.extend([
                    "Bool", "Int", "Nat", "String", "Char", "Real", "Set", "Mset", "Seq", "Array",
                    "Map", "Null",
                ]);
                let suggestion = suggest(&t.name.name, candidates);
                self.error(CheckError::UndefinedType {
                    name: t.name.name.clone(),
                    span: t.name.span,
                    suggestion,
                });
                self.unifier.fresh(types::VarKind::Any, t.span)
            }
        }
    }

    /// Looks up an automaton by name, reporting it if missing.
    fn automaton(&mut self, name: &ast::Ident) -> Option<AutomatonId> {
        match self.automaton_names.get(&name.name) {
            Some(id) => Some(*id),
            None => {
                let suggestion =
                    suggest(&name.name, self.automaton_names.keys().map(|s| s.as_str()));
                self.error(CheckError::UndefinedAutomaton {
                    name: name.name.clone(),
                    span: name.span,
                    suggestion,
                });
                None
            }
        }
    }

    /// Finds the entry of kind `kind` of an action, or (when the automaton declares none of that
    /// kind) any entry of that name, for the caller to report the kind mismatch.
    fn action_of_kind(
        &mut self,
        automaton: AutomatonId,
        name: &ast::Ident,
        kind: ast::ActionKind,
    ) -> Option<ir::ActionId> {
        let aut = &self.spec.automata[automaton.0 as usize];
        match aut
            .actions
            .iter()
            .position(|a| a.name == name.name && a.kind == kind)
        {
            Some(i) => Some(ir::ActionId(i as u32)),
            None => self.action(automaton, name),
        }
    }

    /// Finds an action of an automaton by name, reporting it if missing.
    fn action(&mut self, automaton: AutomatonId, name: &ast::Ident) -> Option<ir::ActionId> {
        let aut = &self.spec.automata[automaton.0 as usize];
        if let Some(i) = aut.actions.iter().position(|a| a.name == name.name) {
            return Some(ir::ActionId(i as u32));
        }
        let suggestion = suggest(&name.name, aut.actions.iter().map(|a| a.name.as_str()));
        let automaton = aut.name.clone();
        self.error(CheckError::UndefinedAction {
            name: name.name.clone(),
            automaton,
            span: name.span,
            suggestion,
        });
        None
    }
}

/// The closest candidate to `name` by edit distance, if close enough to be a likely typo.
pub(crate) fn suggest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (strsim::levenshtein(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, c)| c.to_string())
}
