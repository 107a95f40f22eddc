//! Program-text candidates for a composite automaton, lifted from its components.
//!
//! A composite has no transitions of its own to read templates from: its steps are its
//! components' steps. So each component automaton's candidates ([`crate::templates`]) are
//! restated over the composite's state: a component's state variable `x` becomes `C.x` for a
//! single component `C` and `P[k].x` for a member of a family `P[i: I]`, the component's
//! automaton parameters become the arguments the composite gives them, and a family's
//! candidate holds for every member, `∀ k: I (where-clause ⇒ …)`. What the component knew
//! about its own variables is then a candidate about the whole system, filtered like every
//! other candidate (runs, exploration, Houdini), so a lifted candidate that some other
//! component's step breaks is simply dropped.

use crate::templates::{mentions, substitute, Candidate};
use ioa_lang::ast::{
    AutomatonBody, AutomatonDecl, BinOp, ComponentDecl, Expr, ExprKind, Ident, Item, Param,
    SourceFile,
};
use ioa_lang::pretty::{print_expr, print_type};
use ioa_lang::span::FileId;

/// Candidates for automaton `automaton` of the parsed `files`: its own templates when it is
/// primitive, its components' lifted ones when it is a composite.
pub fn from_automaton(files: &[SourceFile], automaton: &str) -> Vec<Candidate> {
    let Some(decl) = find(files, automaton) else {
        return Vec::new();
    };
    let composite = match &decl.body {
        AutomatonBody::Primitive(_) => return crate::templates::from_program(files, automaton),
        AutomatonBody::Composite(c) => c,
    };
    let mut out: Vec<Candidate> = Vec::new();
    for component in &composite.components {
        let Some(inner) = find(files, &component.automaton.name) else {
            continue;
        };
        // A generic automaton's candidates name its type parameters, which only an
        // instance's copy knows; a composite component's variables (`Q.D.sent`) cannot be
        // named in an invariant of the outer composite.
        let AutomatonBody::Primitive(body) = &inner.body else {
            continue;
        };
        if inner
            .params
            .iter()
            .any(|p| p.ty.name.name == ioa_lang::generics::TYPE_KIND)
        {
            continue;
        }
        let vars: Vec<String> = body.states.iter().map(|s| s.name.name.clone()).collect();
        for c in crate::templates::from_program(files, &component.automaton.name) {
            let Some(text) = lift(&c.text, component, inner, &vars) else {
                continue;
            };
            if !out.iter().any(|o| o.text == text) {
                out.push(Candidate {
                    text,
                    origin: format!("{} of {}", c.origin, component.name.name),
                });
            }
        }
    }
    out
}

/// The declaration of automaton `name`.
fn find<'a>(files: &'a [SourceFile], name: &str) -> Option<&'a AutomatonDecl> {
    files
        .iter()
        .flat_map(|f| &f.items)
        .find_map(|item| match item {
            Item::Automaton(a) if a.name.name == name => Some(a),
            _ => None,
        })
}

/// `text`, a candidate of the component's automaton `inner`, restated over the composite.
fn lift(
    text: &str,
    component: &ComponentDecl,
    inner: &AutomatonDecl,
    vars: &[String],
) -> Option<String> {
    let body = ioa_lang::parse::parse_expr(FileId(0), text).ok()?;
    let span = body.span;
    // Fresh names for the family's indices: names the candidate uses nowhere.
    let indices: Vec<(Param, Expr)> = component
        .indices
        .iter()
        .map(|p| {
            let mut name = p.name.name.clone();
            while uses(text, &name) {
                name.push('\'');
            }
            let fresh = Ident {
                name,
                span: p.name.span,
            };
            let param = Param {
                name: fresh.clone(),
                ty: p.ty.clone(),
            };
            let var = Expr {
                kind: ExprKind::Name(fresh),
                span,
            };
            (param, var)
        })
        .collect();
    let rename = |e: &Expr| {
        component
            .indices
            .iter()
            .zip(&indices)
            .fold(e.clone(), |e, (p, (_, var))| {
                substitute(&e, &p.name.name, var)
            })
    };
    // The component's own variables, read through the composite.
    let member = Expr {
        kind: if indices.is_empty() {
            ExprKind::Name(component.name.clone())
        } else {
            ExprKind::Index(
                Box::new(Expr {
                    kind: ExprKind::Name(component.name.clone()),
                    span,
                }),
                indices.iter().map(|(_, v)| v.clone()).collect(),
            )
        },
        span,
    };
    let mut body = body;
    for x in vars {
        if mentions(&body, x) {
            let read = Expr {
                kind: ExprKind::Field(
                    Box::new(member.clone()),
                    Ident {
                        name: x.clone(),
                        span,
                    },
                ),
                span,
            };
            body = substitute(&body, x, &read);
        }
    }
    // Its parameters, as the composite instantiates them.
    if inner.params.len() != component.args.len() {
        return None;
    }
    for (formal, actual) in inner.params.iter().zip(&component.args) {
        if mentions(&body, &formal.name.name) {
            body = substitute(&body, &formal.name.name, &rename(actual));
        }
    }
    if indices.is_empty() {
        return Some(print_expr(&body));
    }
    let body = match &component.where_clause {
        Some(w) => Expr {
            kind: ExprKind::Binary(BinOp::Implies, Box::new(rename(w)), Box::new(body)),
            span,
        },
        None => body,
    };
    let binders: Vec<String> = indices
        .iter()
        .map(|(p, _)| format!("{}: {}", p.name.name, print_type(&p.ty)))
        .collect();
    Some(format!("∀ {} ({})", binders.join(", "), print_expr(&body)))
}

/// Whether `name` occurs in `text` as a whole word (free, bound, or as a field name).
fn uses(text: &str, name: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\''))
        .any(|w| w == name)
}
