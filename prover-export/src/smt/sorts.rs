//! IOA types as SMT sorts. Declared tuple types (`Node = tuple of location: Int`) become
//! uninterpreted sorts with one function per field, a constructor function, and the axiom that
//! a tuple is determined by its fields: a datatype over `Int` would be exact too, but Z3's
//! model-based quantifier instantiation then cannot build counterexamples, while over an
//! uninterpreted sort it finds them at once. Enumerations, unions and `Null[T]` become
//! algebraic datatypes; `Set[T]` is `(Array T Bool)`, `Mset[T]` is `(Array T Int)`, `Array[K, V]` is
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
    boxed: BTreeSet<Type>,
    /// Tuple types whose fields or constructor the obligation mentions.
    fields_used: BTreeSet<TypeId>,
    /// Tuple types built inside a quantifier (from a bound variable), whose constructor needs
    /// the general fact that its fields are its arguments: a ground tuple gets that fact as
    /// asserted equalities (see `Encoder::tuple`), a tuple built from a bound variable (a
    /// broadcast loop's `[j, [b, v]]`) has no ground term to state it of.
    built_under_binder: BTreeSet<TypeId>,
}

/// Whether values of `ty` are *boxed* where they are elements, keys or bound variables: a set,
/// multiset, sequence, array or map there is an object of an uninterpreted sort, mapped to its
/// value by `M.of` (with `M.obj` its inverse). Z3 decides quantifiers over uninterpreted sorts
/// (model-based instantiation) but gives up on quantifiers over arrays, and `∃ q: Set[Node]`
/// is everywhere in quorum reasoning. Every set can be an object, so nothing is lost.
pub fn is_boxed(ty: &Type) -> bool {
    matches!(
        ty,
        Type::Set(_) | Type::Mset(_) | Type::Seq(_) | Type::Array(..) | Type::Map(..)
    )
}

impl SortTable {
    /// The SMT sort of `ty`, registering the datatypes it needs.
    pub fn sort(&mut self, spec: &Spec, ty: &Type) -> String {
        match ty {
            Type::Bool => "Bool".into(),
            // A character is its code point.
            Type::Int | Type::Nat | Type::Char | Type::Infer(_) => "Int".into(),
            Type::Real => "Real".into(),
            Type::String => "String".into(),
            Type::Set(t) => format!("(Array {} Bool)", self.elem_sort(spec, t)),
            Type::Mset(t) => format!("(Array {} Int)", self.elem_sort(spec, t)),
            Type::Seq(t) => format!("(Seq {})", self.sort(spec, t)),
            Type::Array(k, v) => match &**v {
                // `Array[K, Set[T]]` is a relation `(Array K T Bool)`: Z3 builds models for
                // quantified formulas over it, not over arrays of arrays.
                Type::Set(t) => format!(
                    "(Array {} {} Bool)",
                    self.elem_sort(spec, k),
                    self.elem_sort(spec, t)
                ),
                _ => format!("(Array {} {})", self.elem_sort(spec, k), self.sort(spec, v)),
            },
            Type::Map(k, v) => {
                let null = Type::Null(v.clone());
                format!(
                    "(Array {} {})",
                    self.elem_sort(spec, k),
                    self.sort(spec, &null)
                )
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

    /// Records that the obligation reads a field of, or builds, a value of tuple type `id`.
    pub fn use_fields(&mut self, id: TypeId) {
        self.fields_used.insert(id);
    }

    /// Records that the obligation builds a value of tuple type `id` from a bound variable.
    pub fn use_constructor_under_binder(&mut self, id: TypeId) {
        self.fields_used.insert(id);
        self.built_under_binder.insert(id);
    }

    /// The sort of `ty` as an element, key or bound variable: an object sort if it is boxed.
    pub fn elem_sort(&mut self, spec: &Spec, ty: &Type) -> String {
        if is_boxed(ty) {
            if self.boxed.insert(ty.clone()) {
                self.sort(spec, ty);
            }
            obj_sort(spec, ty)
        } else {
            self.sort(spec, ty)
        }
    }

    /// Declarations of everything registered: object sorts, datatypes, then the functions
    /// between objects and values.
    pub fn declarations(&self, spec: &Spec) -> String {
        // Declarations in the order of their names, not of the model's type ids: the same
        // obligation then has the same text whichever file declares it, and Z3's search (and
        // resource count) depends on the order of declarations.
        let mut out = String::new();
        let mut boxed: Vec<String> = self.boxed.iter().map(|b| obj_sort(spec, b)).collect();
        boxed.sort();
        for b in &boxed {
            out.push_str(&format!("(declare-sort {b} 0)\n"));
        }
        let mut tuples: Vec<TypeId> = self
            .named
            .iter()
            .copied()
            .filter(|id| matches!(spec.types[id.0 as usize].kind, TypeDefKind::Tuple(_)))
            .collect();
        tuples.sort_by_key(|id| named_sort(spec, *id));
        for id in &tuples {
            out.push_str(&format!("(declare-sort {} 0)\n", named_sort(spec, *id)));
        }
        out.push_str(&self.datatypes(spec));
        let mut scratch = self.clone();
        for id in &tuples {
            let TypeDefKind::Tuple(fields) = &spec.types[id.0 as usize].kind else {
                continue;
            };
            let t = named_sort(spec, *id);
            let mut sorts = Vec::new();
            let mut same = Vec::new();
            let mut pattern = String::new();
            for (f, fty) in fields {
                let acc = field_accessor(spec, *id, f);
                let s = scratch.sort(spec, fty);
                out.push_str(&format!("(declare-fun {acc} ({t}) {s})\n"));
                if pattern.is_empty() {
                    pattern = format!(" :pattern (({acc} t) ({acc} u))");
                }
                same.push(format!("(= ({acc} t) ({acc} u))"));
                sorts.push(s);
            }
            let ctor = tuple_constructor(spec, *id);
            out.push_str(&format!("(declare-fun {ctor} ({}) {t})\n", sorts.join(" ")));
            if self.built_under_binder.contains(id) && !sorts.is_empty() {
                let args: Vec<String> = (0..sorts.len()).map(|k| format!("f{k}")).collect();
                let binders: Vec<String> = args
                    .iter()
                    .zip(&sorts)
                    .map(|(a, s)| format!("({a} {s})"))
                    .collect();
                let built = format!("({ctor} {})", args.join(" "));
                let facts: Vec<String> = fields
                    .iter()
                    .zip(&args)
                    .map(|((f, _), a)| {
                        format!("(= ({} {built}) {a})", field_accessor(spec, *id, f))
                    })
                    .collect();
                out.push_str(&format!(
                    "(assert (forall ({}) (! {} :pattern ({built}))))\n",
                    binders.join(" "),
                    super::and(&facts)
                ));
            }
            // A tuple is its fields: two with equal fields are equal. Stated only when the
            // obligation mentions the fields: otherwise nothing can tell tuples apart but
            // equality, the axiom changes no verdict, and it slows Z3's model search.
            if !self.fields_used.contains(id) {
                continue;
            }
            let same = super::and(&same);
            out.push_str(&format!(
                "(assert (forall ((t {t}) (u {t})) (! (=> {same} (= t u)){pattern})))\n"
            ));
        }
        for b in &self.boxed {
            let m = mangle(spec, b);
            let o = obj_sort(spec, b);
            let v = scratch.sort(spec, b);
            if let Type::Set(t) = b {
                // A set object is its membership predicate `has` (a function returning an
                // array would defeat Z3's model search again).
                let e = scratch.elem_sort(spec, t);
                out.push_str(&format!(
                    "(declare-fun {m}.has ({o} {e}) Bool)\n(declare-fun {m}.obj ({v}) {o})\n"
                ));
                continue;
            }
            out.push_str(&format!(
                "(declare-fun {m}.of ({o}) {v})\n(declare-fun {m}.obj ({v}) {o})\n\
                 (assert (forall ((o {o})) (! (= ({m}.obj ({m}.of o)) o) :pattern (({m}.of o)))))\n"
            ));
        }
        out
    }

    fn datatypes(&self, spec: &Spec) -> String {
        let mut heads = Vec::new();
        let mut bodies = Vec::new();
        let mut scratch = SortTable::default();
        for id in &self.named {
            let name = named_sort(spec, *id);
            let def = &spec.types[id.0 as usize];
            if matches!(def.kind, TypeDefKind::Tuple(_)) {
                continue;
            }
            heads.push(format!("({name} 0)"));
            let body = match &def.kind {
                TypeDefKind::Tuple(_) => continue,
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
        Type::Char => "Char".into(),
        Type::Real => "Real".into(),
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

/// Whether `ty` is `Array[K, Set[T]]`, encoded as a relation; returns `K` and `T`.
pub fn relation(ty: &Type) -> Option<(&Type, &Type)> {
    match ty {
        Type::Array(k, v) => match &**v {
            Type::Set(t) => Some((k, t)),
            _ => None,
        },
        _ => None,
    }
}

/// The object sort standing for boxed values of `ty`.
pub fn obj_sort(spec: &Spec, ty: &Type) -> String {
    format!("Obj_{}", mangle(spec, ty))
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
