//! IOA types as SMT sorts. Tuples, enumerations, unions and `Null[T]` become algebraic
//! datatypes; `Set[T]` is `(Array T Bool)`, `Mset[T]` is `(Array T Int)`, `Array[K, V]` is
//! `(Array K V)`, `Map[K, V]` is `(Array K Null_V)` (absent keys map to `nil`), `Seq[T]` is Z3's
//! `(Seq T)`. Open types such as `Node = tuple of location: Int` are therefore unbounded: a proof
//! holds for every number of nodes, not for the interpreter's finite universe.

use super::symbol;
use ioa_lang::ir::{Spec, Type, TypeDefKind, TypeId};
use std::collections::BTreeSet;

/// The datatypes an encoding uses, collected as sorts are asked for.
#[derive(Debug, Clone, Default)]
pub struct SortTable {
    named: BTreeSet<TypeId>,
    nulls: BTreeSet<Type>,
}

impl SortTable {
    /// The SMT sort of `ty`, registering the datatypes it needs.
    pub fn sort(&mut self, spec: &Spec, ty: &Type) -> String {
        match ty {
            Type::Bool => "Bool".into(),
            Type::Int | Type::Nat | Type::Infer(_) => "Int".into(),
            Type::String => "String".into(),
            Type::Set(t) => format!("(Array {} Bool)", self.sort(spec, t)),
            Type::Mset(t) => format!("(Array {} Int)", self.sort(spec, t)),
            Type::Seq(t) => format!("(Seq {})", self.sort(spec, t)),
            Type::Array(k, v) => format!("(Array {} {})", self.sort(spec, k), self.sort(spec, v)),
            Type::Map(k, v) => {
                let null = Type::Null(v.clone());
                format!("(Array {} {})", self.sort(spec, k), self.sort(spec, &null))
            }
            Type::Null(t) => {
                if self.nulls.insert(ty.clone()) {
                    self.sort(spec, t);
                }
                null_name(spec, t)
            }
            Type::Named(id) => {
                if self.named.insert(*id) {
                    let fields: Vec<Type> = match &spec.types[id.0 as usize].kind {
                        TypeDefKind::Tuple(f) | TypeDefKind::Union(f) => {
                            f.iter().map(|(_, t)| t.clone()).collect()
                        }
                        TypeDefKind::Enumeration(_) => vec![],
                    };
                    for f in fields {
                        self.sort(spec, &f);
                    }
                }
                named_sort(spec, *id)
            }
        }
    }

    /// `(declare-datatypes …)` for everything registered, or nothing.
    pub fn declarations(&self, spec: &Spec) -> String {
        let mut heads = Vec::new();
        let mut bodies = Vec::new();
        let mut scratch = SortTable::default();
        for id in &self.named {
            let name = named_sort(spec, *id);
            heads.push(format!("({name} 0)"));
            let def = &spec.types[id.0 as usize];
            let body = match &def.kind {
                TypeDefKind::Tuple(fields) => {
                    let fs: Vec<String> = fields
                        .iter()
                        .map(|(f, t)| {
                            format!("({} {})", field_accessor(spec, *id, f), scratch.sort(spec, t))
                        })
                        .collect();
                    format!("(({} {}))", tuple_constructor(spec, *id), fs.join(" "))
                }
                TypeDefKind::Enumeration(names) => {
                    let cs: Vec<String> = names
                        .iter()
                        .map(|n| format!("({})", enum_constructor(spec, *id, n)))
                        .collect();
                    format!("({})", cs.join(" "))
                }
                TypeDefKind::Union(tags) => {
                    let cs: Vec<String> = tags
                        .iter()
                        .map(|(tag, t)| {
                            format!(
                                "({} ({} {}))",
                                union_constructor(spec, *id, tag),
                                union_accessor(spec, *id, tag),
                                scratch.sort(spec, t)
                            )
                        })
                        .collect();
                    format!("({})", cs.join(" "))
                }
            };
            bodies.push(body);
        }
        for null in &self.nulls {
            let Type::Null(inner) = null else { continue };
            let name = null_name(spec, inner);
            heads.push(format!("({name} 0)"));
            bodies.push(format!(
                "((nil_{m}) (embed_{m} (val_{m} {s})))",
                m = mangle(spec, inner),
                s = scratch.sort(spec, inner)
            ));
        }
        if heads.is_empty() {
            return String::new();
        }
        let mut out = String::from("(declare-datatypes (");
        out.push_str(&heads.join(" "));
        out.push_str(")\n  (");
        out.push_str(&bodies.join("\n   "));
        out.push_str("))\n");
        out
    }
}

/// A flat name for a type, used inside datatype and function names.
pub fn mangle(spec: &Spec, ty: &Type) -> String {
    match ty {
        Type::Bool => "Bool".into(),
        Type::Int | Type::Nat | Type::Infer(_) => "Int".into(),
        Type::String => "String".into(),
        Type::Set(t) => format!("Set_{}", mangle(spec, t)),
        Type::Mset(t) => format!("Mset_{}", mangle(spec, t)),
        Type::Seq(t) => format!("Seq_{}", mangle(spec, t)),
        Type::Array(k, v) => format!("Array_{}_{}", mangle(spec, k), mangle(spec, v)),
        Type::Map(k, v) => format!("Map_{}_{}", mangle(spec, k), mangle(spec, v)),
        Type::Null(t) => format!("Null_{}", mangle(spec, t)),
        Type::Named(id) => named_sort(spec, *id),
    }
}

/// The sort of `Null[t]`.
pub fn null_name(spec: &Spec, t: &Type) -> String {
    format!("Null_{}", mangle(spec, t))
}

/// The sort of a declared type.
pub fn named_sort(spec: &Spec, id: TypeId) -> String {
    symbol(&spec.types[id.0 as usize].name)
}

/// The constructor of a tuple type.
pub fn tuple_constructor(spec: &Spec, id: TypeId) -> String {
    format!("mk_{}", named_sort(spec, id))
}

/// The accessor of a tuple field.
pub fn field_accessor(spec: &Spec, id: TypeId, field: &str) -> String {
    format!("{}.{}", named_sort(spec, id), symbol(field))
}

/// The constructor of an enumeration constant.
pub fn enum_constructor(spec: &Spec, id: TypeId, name: &str) -> String {
    format!("{}.{}", named_sort(spec, id), symbol(name))
}

/// The constructor of a union tag.
pub fn union_constructor(spec: &Spec, id: TypeId, tag: &str) -> String {
    format!("{}.{}", named_sort(spec, id), symbol(tag))
}

/// The accessor of a union tag's payload.
pub fn union_accessor(spec: &Spec, id: TypeId, tag: &str) -> String {
    format!("{}.{}.val", named_sort(spec, id), symbol(tag))
}
