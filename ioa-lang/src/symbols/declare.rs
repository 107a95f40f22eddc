//! The first pass of the symbol index: every declaration of every file, before any body is
//! read.

use super::{first_line, AutomatonScope, Builder, SymbolKind};
use crate::ast::*;
use crate::span::Span;

impl Builder<'_> {
    pub(super) fn declare_item(&mut self, item: &Item) {
        match item {
            Item::Import(_) => {}
            Item::Type(decl) => {
                let head = first_line(&self.text(decl.span));
                let id = self.define(&decl.name, SymbolKind::Type, decl.span, head, None);
                self.declare_global(id);
                match &decl.def {
                    TypeDef::Enumeration(constants) => {
                        for constant in constants {
                            let signature = format!("{}: {}", constant.name, decl.name.name);
                            let c = self.define(
                                constant,
                                SymbolKind::EnumConstant,
                                constant.span,
                                signature,
                                Some(id),
                            );
                            self.declare_global(c);
                        }
                    }
                    TypeDef::Tuple(fields) | TypeDef::Union(fields) => {
                        for field in fields {
                            let signature = format!(
                                "{}.{}: {}",
                                decl.name.name,
                                field.name.name,
                                self.text(field.ty.span)
                            );
                            let span = field.name.span.to(field.ty.span);
                            let f = self.define(
                                &field.name,
                                SymbolKind::Field,
                                span,
                                signature,
                                Some(id),
                            );
                            self.fields
                                .entry(field.name.name.clone())
                                .or_default()
                                .push(f);
                        }
                    }
                    TypeDef::Alias(_) => {}
                }
            }
            Item::Automaton(decl) => self.declare_automaton(decl),
            Item::Invariant(decl) => {
                let signature = format!("invariant {} of {}", decl.name.name, decl.automaton.name);
                let id = self.define(
                    &decl.name,
                    SymbolKind::Invariant,
                    decl.span,
                    signature,
                    None,
                );
                self.declare_global(id);
            }
            Item::Liveness(decl) => {
                let signature = format!("liveness {} of {}", decl.name.name, decl.automaton.name);
                let id = self.define(&decl.name, SymbolKind::Liveness, decl.span, signature, None);
                self.declare_global(id);
            }
            Item::Simulation(decl) => {
                if let Some(name) = &decl.name {
                    let signature = format!(
                        "forward simulation {} from {} to {}",
                        name.name, decl.from.name, decl.to.name
                    );
                    let id = self.define(name, SymbolKind::Simulation, decl.span, signature, None);
                    self.declare_global(id);
                }
            }
            Item::Schedule(decl) => {
                if let Some(name) = &decl.name {
                    let target = decl
                        .target
                        .as_ref()
                        .map(|t| format!(" for {}", t.name))
                        .unwrap_or_default();
                    let signature = format!("schedule {}{target}", name.name);
                    let id = self.define(name, SymbolKind::Schedule, decl.span, signature, None);
                    self.declare_global(id);
                }
            }
        }
    }

    fn declare_automaton(&mut self, decl: &AutomatonDecl) {
        let head_end = match &decl.body {
            AutomatonBody::Primitive(_) | AutomatonBody::Composite(_) => decl
                .params
                .last()
                .map(|p| p.ty.span.end + 1)
                .unwrap_or(decl.name.span.end),
        };
        let head = Span {
            end: head_end.min(decl.span.end),
            ..decl.span
        };
        let id = self.define(
            &decl.name,
            SymbolKind::Automaton,
            decl.span,
            self.text(head),
            None,
        );
        self.declare_global(id);
        let mut scope = AutomatonScope::default();
        for param in &decl.params {
            let signature = format!("{}: {}", param.name.name, self.text(param.ty.span));
            let span = param.name.span.to(param.ty.span);
            let p = self.define(
                &param.name,
                SymbolKind::AutomatonParameter,
                span,
                signature,
                Some(id),
            );
            scope.members.entry(param.name.name.clone()).or_insert(p);
        }
        match &decl.body {
            AutomatonBody::Primitive(body) => {
                for entry in &body.signature {
                    let signature = format!("{} {}", entry.kind.keyword(), self.text(entry.span));
                    let a = self.define(
                        &entry.name,
                        SymbolKind::Action,
                        entry.span,
                        signature,
                        Some(id),
                    );
                    scope.actions.entry(entry.name.name.clone()).or_insert(a);
                }
                for state in &body.states {
                    let signature = format!("{}: {}", state.name.name, self.text(state.ty.span));
                    let v = self.define(
                        &state.name,
                        SymbolKind::StateVariable,
                        state.span,
                        signature,
                        Some(id),
                    );
                    scope.members.entry(state.name.name.clone()).or_insert(v);
                }
            }
            AutomatonBody::Composite(body) => {
                for component in &body.components {
                    let signature = self.text(component.span);
                    let c = self.define(
                        &component.name,
                        SymbolKind::Component,
                        component.span,
                        first_line(&signature),
                        Some(id),
                    );
                    scope
                        .members
                        .entry(component.name.name.clone())
                        .or_insert(c);
                    scope.component_automata.insert(
                        component.name.name.clone(),
                        component.automaton.name.clone(),
                    );
                }
            }
        }
        self.automata.entry(decl.name.name.clone()).or_insert(scope);
    }
}
