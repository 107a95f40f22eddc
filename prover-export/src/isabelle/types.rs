//! IOA types as HOL types, and the theory that declares the model's own types.
//!
//! Tuples become records (`record Ballot = Ballot_ordering :: int`), enumerations and unions
//! datatypes (a union tag with a selector and a discriminator), `Set` `'a set`, `Mset`
//! `'a multiset`, `Seq` `'a list`, `Array` total functions, `Map` partial functions
//! (`'a ⇀ 'b`), `Null` `'a option`. `Int` and `Nat` are both `int`: IOA's `Nat` is an integer
//! that must stay non-negative, which HOL's truncating `nat` would hide.

use super::names::{ident, TypeNames};
use ioa_lang::ir::{Spec, Type, TypeDefKind};

/// The HOL type for `ty`, parenthesised when it is not atomic.
pub fn hol_type(names: &TypeNames, ty: &Type) -> String {
    match ty {
        Type::Bool => "bool".into(),
        Type::Int | Type::Nat => "int".into(),
        Type::String => "string".into(),
        Type::Named(id) => names.type_name(id.0),
        _ => format!("({})", hol_type_bare(names, ty)),
    }
}

/// The HOL type for `ty` without outer parentheses (for a quoted type).
pub fn hol_type_bare(names: &TypeNames, ty: &Type) -> String {
    match ty {
        Type::Set(t) => format!("{} set", hol_type(names, t)),
        Type::Mset(t) => format!("{} multiset", hol_type(names, t)),
        Type::Seq(t) => format!("{} list", hol_type(names, t)),
        Type::Null(t) => format!("{} option", hol_type(names, t)),
        Type::Array(k, v) => format!(
            "{} \\<Rightarrow> {}",
            hol_type(names, k),
            hol_type(names, v)
        ),
        Type::Map(k, v) => format!(
            "{} \\<rightharpoonup> {}",
            hol_type(names, k),
            hol_type(names, v)
        ),
        Type::Infer(_) => "'a".into(),
        _ => hol_type(names, ty),
    }
}

/// "`x` is a finite value of type `ty`": every set in it is finite (a map's values too, not
/// its domain: see below), or `None` when values of `ty` are finite in HOL already. IOA's
/// `Set`, `Mset`, `Seq` and `Map` values are finite; HOL's `'a set` and `'a ⇀ 'b` may be
/// infinite (and `card` is 0 on an infinite set), so the export states it where it matters.
pub fn finite_term(names: &TypeNames, ty: &Type, x: &str) -> Option<String> {
    finite_at(names, ty, x, 0)
}

/// [`finite_term`] at nesting `depth`: the bound variables of a nested value are numbered by
/// depth (`k`, `k1`, …) so that an inner binder never captures an outer one, e.g. an
/// `Array[Node, Array[Vote, Set[Node]]]` is `∀k. ∀k1. finite (x k k1)`.
fn finite_at(names: &TypeNames, ty: &Type, x: &str, depth: usize) -> Option<String> {
    let inner = |t: &Type, v: &str| finite_at(names, t, v, depth + 1);
    let (e, k) = match depth {
        0 => ("e".to_string(), "k".to_string()),
        d => (format!("e{d}"), format!("k{d}")),
    };
    match ty {
        Type::Set(t) => Some(match inner(t, &e) {
            None => format!("finite {x}"),
            Some(f) => format!("finite {x} \\<and> (\\<forall>{e}\\<in>{x}. {f})"),
        }),
        Type::Mset(t) => inner(t, &e).map(|f| format!("(\\<forall>{e}\\<in>set_mset {x}. {f})")),
        Type::Seq(t) => inner(t, &e).map(|f| format!("(\\<forall>{e}\\<in>set {x}. {f})")),
        Type::Null(t) => {
            inner(t, &e).map(|f| format!("(\\<forall>{e}. {x} = Some {e} \\<longrightarrow> {f})"))
        }
        Type::Array(_, v) => {
            inner(v, &format!("({x} {k})")).map(|f| format!("(\\<forall>{k}. {f})"))
        }
        // A map's domain is not required finite: `constant(v)` defines every key, over key
        // types HOL sees as infinite (records of `int`), and a finite domain would make such a
        // start state impossible and every theorem about the automaton vacuous.
        Type::Map(_, v) => inner(v, &e)
            .map(|f| format!("(\\<forall>{k} {e}. {x} {k} = Some {e} \\<longrightarrow> {f})")),
        Type::Named(id) => {
            let spec = names.spec();
            match &spec.types[id.0 as usize].kind {
                TypeDefKind::Tuple(fields) => {
                    let parts: Vec<String> = fields
                        .iter()
                        .enumerate()
                        .filter_map(|(k, (_, t))| {
                            inner(t, &format!("({} {x})", names.field(id.0, k as u32)))
                        })
                        .collect();
                    (!parts.is_empty()).then(|| format!("({})", parts.join(" \\<and> ")))
                }
                TypeDefKind::Union(tags) => {
                    let parts: Vec<String> = tags
                        .iter()
                        .enumerate()
                        .filter_map(|(k, (_, t))| {
                            let k = k as u32;
                            inner(t, &format!("({} {x})", names.selector(id.0, k))).map(|f| {
                                format!(
                                    "({} {x} \\<longrightarrow> {f})",
                                    names.discriminator(id.0, k)
                                )
                            })
                        })
                        .collect();
                    (!parts.is_empty()).then(|| format!("({})", parts.join(" \\<and> ")))
                }
                TypeDefKind::Enumeration(_) => None,
            }
        }
        _ => None,
    }
}

/// Whether `ty` mentions a multiset (so the theories need HOL-Library's `Multiset`).
pub fn uses_multiset(ty: &Type) -> bool {
    match ty {
        Type::Mset(_) => true,
        Type::Set(t) | Type::Seq(t) | Type::Null(t) => uses_multiset(t),
        Type::Array(k, v) | Type::Map(k, v) => uses_multiset(k) || uses_multiset(v),
        _ => false,
    }
}

fn named_deps(ty: &Type, out: &mut Vec<u32>) {
    match ty {
        Type::Named(id) => out.push(id.0),
        Type::Set(t) | Type::Mset(t) | Type::Seq(t) | Type::Null(t) => named_deps(t, out),
        Type::Array(k, v) | Type::Map(k, v) => {
            named_deps(k, out);
            named_deps(v, out);
        }
        _ => {}
    }
}

/// The declared types in an order where each comes after the types it mentions (the checker
/// rejects recursive types, so this always exists; a cycle would be left in source order).
fn declaration_order(spec: &Spec) -> Vec<u32> {
    let n = spec.types.len();
    let mut done = vec![false; n];
    let mut order = Vec::new();
    fn visit(
        spec: &Spec,
        id: u32,
        done: &mut [bool],
        on_path: &mut Vec<u32>,
        order: &mut Vec<u32>,
    ) {
        if done[id as usize] || on_path.contains(&id) {
            return;
        }
        on_path.push(id);
        let mut deps = Vec::new();
        match &spec.types[id as usize].kind {
            TypeDefKind::Tuple(fields) => fields.iter().for_each(|(_, t)| named_deps(t, &mut deps)),
            TypeDefKind::Union(tags) => tags.iter().for_each(|(_, t)| named_deps(t, &mut deps)),
            TypeDefKind::Enumeration(_) => {}
        }
        for d in deps {
            visit(spec, d, done, on_path, order);
        }
        on_path.pop();
        done[id as usize] = true;
        order.push(id);
    }
    for id in 0..n as u32 {
        visit(spec, id, &mut done, &mut Vec::new(), &mut order);
    }
    order
}

/// The declarations of the model's types, in dependency order.
pub fn type_declarations(names: &TypeNames) -> String {
    let spec = names.spec();
    let mut out = String::new();
    for id in declaration_order(spec) {
        let def = &spec.types[id as usize];
        let name = names.type_name(id);
        out.push_str(&format!("text \\<open>IOA type `{}`.\\<close>\n", def.name));
        match &def.kind {
            TypeDefKind::Tuple(fields) => {
                out.push_str(&format!("record {name} =\n"));
                for (k, (_, ty)) in fields.iter().enumerate() {
                    out.push_str(&format!(
                        "  {} :: \"{}\"\n",
                        names.field(id, k as u32),
                        hol_type_bare(names, ty)
                    ));
                }
                if let [(_, Type::Int)] = fields.as_slice() {
                    out.push_str(&index_range_lemmas(&name, &names.field(id, 0)));
                }
            }
            TypeDefKind::Enumeration(consts) => {
                let alts: Vec<String> = (0..consts.len() as u32)
                    .map(|k| names.constructor(id, k))
                    .collect();
                out.push_str(&format!("datatype {name} = {}\n", alts.join(" | ")));
            }
            TypeDefKind::Union(tags) => {
                let alts: Vec<String> = tags
                    .iter()
                    .enumerate()
                    .map(|(k, (_, ty))| {
                        let k = k as u32;
                        format!(
                            "{}: {} ({}: \"{}\")",
                            names.discriminator(id, k),
                            names.constructor(id, k),
                            names.selector(id, k),
                            hol_type_bare(names, ty)
                        )
                    })
                    .collect();
                out.push_str(&format!("datatype {name} =\n    {}\n", alts.join("\n  | ")));
            }
        }
        out.push('\n');
    }
    out
}

/// The lemmas that make a range of a one-integer record finite (`{x::Node. 0 ≤ Node_location x ∧
/// Node_location x < 3}`), as a broadcast `for j: Node where 0 ≤ j.location ∧ j.location < n`
/// builds one: HOL's record of an `int` is infinite, its range by the field is not.
fn index_range_lemmas(name: &str, field: &str) -> String {
    format!(
        "\nlemma {field}_inj: \"inj ({field} :: {name} \\<Rightarrow> int)\"\n  by (rule injI) simp\n\n\
         lemmas {name}_finite_range [simp] = finite_int_field_range[OF {field}_inj]\n"
    )
}

/// The comment naming an IOA type in generated text (`Set[Node]`).
pub fn ioa_type(spec: &Spec, ty: &Type) -> String {
    match ty {
        Type::Bool => "Bool".into(),
        Type::Int => "Int".into(),
        Type::Nat => "Nat".into(),
        Type::String => "String".into(),
        Type::Char => "Char".into(),
        Type::Real => "Real".into(),
        Type::Set(t) => format!("Set[{}]", ioa_type(spec, t)),
        Type::Mset(t) => format!("Mset[{}]", ioa_type(spec, t)),
        Type::Seq(t) => format!("Seq[{}]", ioa_type(spec, t)),
        Type::Null(t) => format!("Null[{}]", ioa_type(spec, t)),
        Type::Array(k, v) => format!("Array[{}, {}]", ioa_type(spec, k), ioa_type(spec, v)),
        Type::Map(k, v) => format!("Map[{}, {}]", ioa_type(spec, k), ioa_type(spec, v)),
        Type::Named(id) => spec.types[id.0 as usize].name.clone(),
        Type::Infer(_) => "?".into(),
    }
}

/// An identifier-safe name is what [`ident`] gives; re-exported for the theory writers.
pub fn type_ident(raw: &str) -> String {
    ident(raw)
}
