//! Type parameters of automata (`automaton Channel(Msg: Type)`), instantiated in composites
//! (`C: Channel(Frame)`, `C[i: Int]: Channel(Seq[Int], i)`), as the IOA manual writes them.
//!
//! They are removed before checking, by instantiation: every distinct use of a generic
//! automaton with type arguments becomes a copy of its declaration, named `Channel_Frame`,
//! whose text is the original's with each type parameter replaced (token by token, so names
//! inside other words are untouched) by the argument's text, and without the type parameters in
//! its header; the component then names the copy with the value arguments alone. The checker,
//! and everything after it, sees ordinary automata. A copy is a file of its own in the source
//! map (`<Channel(Frame)>`), so a type error inside the generic body points at the instance's
//! text, which names the argument in place of the parameter.

use crate::ast::{AutomatonBody, AutomatonDecl, Expr, ExprKind, Item, SourceFile};
use crate::diagnostics::Diagnostic;
use crate::lexer::{Lexer, Token};
use crate::source_map::SourceMap;
use crate::span::{FileId, Span};
use std::collections::BTreeMap;

/// The type of a type parameter, as written in a header.
pub const TYPE_KIND: &str = "Type";

/// How deep instances may name other generic instances (a generic composite of generic
/// components); deeper is a recursion, reported.
const MAX_ROUNDS: usize = 8;

/// Replaces every use of a generic automaton in a composite by an instance, and leaves the
/// generic declarations out. Diagnostics (E0430–E0432) for arguments that are not types, wrong
/// counts, and recursion.
pub fn instantiate(
    files: &mut Vec<(FileId, SourceFile)>,
    sources: &mut SourceMap,
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let generics: BTreeMap<String, (FileId, AutomatonDecl)> = files
        .iter()
        .flat_map(|(id, f)| f.items.iter().map(move |i| (*id, i)))
        .filter_map(|(id, item)| match item {
            Item::Automaton(a) if is_generic(a) => Some((a.name.name.clone(), (id, a.clone()))),
            _ => None,
        })
        .collect();
    if generics.is_empty() {
        return diagnostics;
    }
    let mut made: BTreeMap<String, ()> = BTreeMap::new();
    let mut pending: Vec<usize> = (0..files.len()).collect();
    for round in 0..=MAX_ROUNDS {
        let mut added = Vec::new();
        for &k in &pending {
            let mut new_files = Vec::new();
            let (_, file) = &mut files[k];
            for item in &mut file.items {
                let Item::Automaton(a) = item else { continue };
                if is_generic(a) {
                    continue;
                }
                let outer = a.name.name.clone();
                let AutomatonBody::Composite(c) = &mut a.body else {
                    continue;
                };
                for comp in &mut c.components {
                    let Some((gfile, generic)) = generics.get(&comp.automaton.name) else {
                        continue;
                    };
                    match instance(generic, *gfile, &comp.args, comp.span, sources) {
                        Ok((name, text, value_args)) => {
                            if round == MAX_ROUNDS {
                                diagnostics.push(
                                    Diagnostic::error(
                                        "E0432",
                                        format!(
                                            "generic automata instantiated {MAX_ROUNDS} levels deep (`{outer}` is one): a generic automaton contains an instance of itself"
                                        ),
                                        comp.span,
                                    )
                                    .with_label_message(format!("`{}` instantiated here", generic.name.name))
                                    .with_hint("a generic automaton cannot contain an instance of itself, directly or through others"),
                                );
                                continue;
                            }
                            comp.automaton.name = name.clone();
                            comp.args = value_args;
                            if made.insert(name.clone(), ()).is_none() {
                                new_files.push((name, text));
                            }
                        }
                        Err(d) => diagnostics.push(d),
                    }
                }
            }
            for (name, text) in new_files {
                let id = sources.add(format!("<{name}>"), text.clone());
                match crate::parse::parse_file(id, &text) {
                    Ok(parsed) => added.push((id, parsed)),
                    Err(e) => {
                        diagnostics.push(crate::diagnostics::IntoDiagnostic::to_diagnostic(&e))
                    }
                }
            }
        }
        if added.is_empty() {
            break;
        }
        pending = (files.len()..files.len() + added.len()).collect();
        files.extend(added);
    }
    for (_, f) in files.iter_mut() {
        f.items
            .retain(|i| !matches!(i, Item::Automaton(a) if is_generic(a)));
    }
    diagnostics
}

/// Whether an automaton has a type parameter.
fn is_generic(a: &AutomatonDecl) -> bool {
    a.params
        .iter()
        .any(|p| p.ty.name.name == TYPE_KIND && p.ty.args.is_empty())
}

/// The instance of `generic` for a component's arguments: its name, its text, and the value
/// arguments left for the component.
fn instance(
    generic: &AutomatonDecl,
    file: FileId,
    args: &[Expr],
    use_span: Span,
    sources: &SourceMap,
) -> Result<(String, String, Vec<Expr>), Diagnostic> {
    if args.len() != generic.params.len() {
        return Err(Diagnostic::error(
            "E0431",
            format!(
                "`{}` takes {} argument(s) ({} of them types), not {}",
                generic.name.name,
                generic.params.len(),
                generic
                    .params
                    .iter()
                    .filter(|p| p.ty.name.name == TYPE_KIND)
                    .count(),
                args.len()
            ),
            use_span,
        )
        .with_hint(format!(
            "write `{}({})`",
            generic.name.name,
            generic
                .params
                .iter()
                .map(|p| p.name.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let mut subst: Vec<(String, String)> = Vec::new();
    let mut value_args = Vec::new();
    let mut value_params = Vec::new();
    let text = sources.text(file);
    for (p, a) in generic.params.iter().zip(args) {
        if p.ty.name.name == TYPE_KIND && p.ty.args.is_empty() {
            let Some(ty) = type_text(a) else {
                return Err(Diagnostic::error(
                    "E0430",
                    format!(
                        "`{}` is a type parameter of `{}`: its argument must be a type",
                        p.name.name, generic.name.name
                    ),
                    a.span,
                )
                .with_label_message("not a type")
                .with_hint("give a type name, such as `Int`, `Frame` or `Seq[Int]`"));
            };
            subst.push((p.name.name.clone(), ty));
        } else {
            value_args.push(a.clone());
            value_params.push(&text[p.name.span.start as usize..p.ty.span.end as usize]);
        }
    }
    let shown: Vec<&str> = subst.iter().map(|(_, t)| t.as_str()).collect();
    let name = format!(
        "{}_{}",
        generic.name.name,
        shown
            .iter()
            .map(|t| t.replace(['[', ','], "_").replace([']', ' '], ""))
            .collect::<Vec<_>>()
            .join("_")
    );
    // The text after the header's closing parenthesis, with each type parameter replaced.
    let decl = &text[generic.span.start as usize..generic.span.end as usize];
    let after_params = generic
        .params
        .last()
        .map_or(0, |p| p.ty.span.end - generic.span.start) as usize;
    let close = decl[after_params..]
        .find(')')
        .map_or(after_params, |k| after_params + k + 1);
    let body = &decl[close..];
    let mut out = String::with_capacity(decl.len() + 64);
    out.push_str("automaton ");
    out.push_str(&name);
    if !value_params.is_empty() {
        out.push('(');
        out.push_str(&value_params.join(", "));
        out.push(')');
    }
    let mut at = 0;
    for (start, token, end) in Lexer::new(body).flatten() {
        if let Token::Ident(id) = token {
            if let Some((_, ty)) = subst.iter().find(|(p, _)| p == id) {
                out.push_str(&body[at..start]);
                out.push_str(ty);
                at = end;
            }
        }
    }
    out.push_str(&body[at..]);
    out.push('\n');
    Ok((name, out, value_args))
}

/// The text of a type written as an argument: a name (`Frame`) or a name applied to types
/// (`Seq[Int]`, `Map[Node, Int]`).
fn type_text(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Name(n) => Some(n.name.clone()),
        ExprKind::Index(base, args) => {
            let base = type_text(base)?;
            let args: Option<Vec<String>> = args.iter().map(type_text).collect();
            Some(format!("{base}[{}]", args?.join(", ")))
        }
        _ => None,
    }
}
