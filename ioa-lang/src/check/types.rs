//! Type inference for the checker: [`Type::Infer`] variables with constraints, unification, and
//! printing types with their declared names.
//!
//! Polymorphic literals get a variable: `{}` and `{a, b}` may be a set, multiset or sequence,
//! `[a, b]` may be any declared tuple type of that shape, `constant(v)` any array or map with
//! entries of `v`'s type. Context (an assignment, an action parameter, the other side of `=`)
//! settles them; what context never settles is defaulted (collections to `Set`) or reported.

use crate::ir::{Type, TypeDef, TypeDefKind, TypeId};
use crate::span::Span;
use rustc_hash::FxHashMap;

/// What an inference variable is known to be.
#[derive(Debug, Clone)]
pub enum VarKind {
    /// Nothing yet.
    Any,
    /// A set, multiset or sequence of the given element type.
    Collection(Type),
    /// A declared tuple type with these component types.
    Tuple(Vec<Type>),
    /// An array or map with these key and value types.
    Indexable(Type, Type),
    /// One of these enumerations (a constant several enumerations declare).
    Enum(Vec<TypeId>),
}

#[derive(Debug, Clone)]
struct VarInfo {
    binding: Option<Type>,
    kind: VarKind,
    origin: Span,
}

/// Why two types did not unify (the checker turns it into a diagnostic).
#[derive(Debug)]
pub struct Mismatch;

/// The inference state.
#[derive(Default)]
pub struct Unifier {
    vars: Vec<VarInfo>,
    /// For the variable of each overloaded enumeration constant: its name and, per candidate
    /// enumeration, its index there.
    enum_sites: FxHashMap<u32, (String, Vec<(TypeId, u32)>)>,
}

impl Unifier {
    /// A fresh variable with a constraint, created for the expression at `origin`.
    pub fn fresh(&mut self, kind: VarKind, origin: Span) -> Type {
        self.vars.push(VarInfo {
            binding: None,
            kind,
            origin,
        });
        Type::Infer(self.vars.len() as u32 - 1)
    }

    /// A variable for an enumeration constant that several enumerations declare.
    pub fn fresh_enum(&mut self, name: &str, candidates: Vec<(TypeId, u32)>, origin: Span) -> Type {
        let kind = VarKind::Enum(candidates.iter().map(|c| c.0).collect());
        let t = self.fresh(kind, origin);
        if let Type::Infer(v) = t {
            self.enum_sites.insert(v, (name.to_string(), candidates));
        }
        t
    }

    /// The name and candidates of an overloaded constant's variable.
    pub fn enum_site(&self, var: u32) -> Option<&(String, Vec<(TypeId, u32)>)> {
        self.enum_sites.get(&var)
    }

    /// The index of an overloaded constant in the enumeration its variable settled on.
    pub fn enum_index(&self, var: u32) -> Option<u32> {
        let (_, cands) = self.enum_sites.get(&var)?;
        match self.resolve(&Type::Infer(var)) {
            Type::Named(id) => cands.iter().find(|c| c.0 == id).map(|c| c.1),
            _ => None,
        }
    }

    /// Follows variable bindings at the top of `t`.
    pub fn shallow(&self, t: &Type) -> Type {
        let mut t = t.clone();
        while let Type::Infer(v) = t {
            match &self.vars[v as usize].binding {
                Some(b) => t = b.clone(),
                None => return t,
            }
        }
        t
    }

    /// The constraint on an unbound variable.
    pub fn kind_of(&self, t: &Type) -> Option<&VarKind> {
        match self.shallow(t) {
            Type::Infer(v) => Some(&self.vars[v as usize].kind),
            _ => None,
        }
    }

    /// Substitutes every bound variable in `t`.
    pub fn resolve(&self, t: &Type) -> Type {
        match self.shallow(t) {
            Type::Set(e) => Type::Set(Box::new(self.resolve(&e))),
            Type::Mset(e) => Type::Mset(Box::new(self.resolve(&e))),
            Type::Seq(e) => Type::Seq(Box::new(self.resolve(&e))),
            Type::Null(e) => Type::Null(Box::new(self.resolve(&e))),
            Type::Array(k, v) => {
                Type::Array(Box::new(self.resolve(&k)), Box::new(self.resolve(&v)))
            }
            Type::Map(k, v) => Type::Map(Box::new(self.resolve(&k)), Box::new(self.resolve(&v))),
            other => other,
        }
    }

    /// Makes `a` and `b` the same type. `Int` and `Nat` are compatible (a negative `Nat` is a
    /// run-time error).
    pub fn unify(&mut self, a: &Type, b: &Type, types: &[TypeDef]) -> Result<(), Mismatch> {
        let a = self.shallow(a);
        let b = self.shallow(b);
        match (&a, &b) {
            (Type::Infer(x), Type::Infer(y)) if x == y => Ok(()),
            (Type::Infer(x), Type::Infer(y)) => {
                let (x, y) = (*x as usize, *y as usize);
                let kx = self.vars[x].kind.clone();
                let ky = self.vars[y].kind.clone();
                let merged = self.merge_kinds(kx, ky, types)?;
                self.vars[x].binding = Some(b.clone());
                self.vars[y].kind = merged;
                Ok(())
            }
            (Type::Infer(x), other) | (other, Type::Infer(x)) => {
                let x = *x as usize;
                let kind = self.vars[x].kind.clone();
                if occurs(x as u32, other, self) {
                    return Err(Mismatch);
                }
                // Check the constraint first, so a failed unification leaves the variable
                // unbound and messages show what it really is.
                self.check_kind(&kind, other, types)?;
                self.vars[x].binding = Some(other.clone());
                Ok(())
            }
            (Type::Int | Type::Nat, Type::Int | Type::Nat) => Ok(()),
            (Type::Set(x), Type::Set(y))
            | (Type::Mset(x), Type::Mset(y))
            | (Type::Seq(x), Type::Seq(y))
            | (Type::Null(x), Type::Null(y)) => self.unify(x, y, types),
            (Type::Array(k1, v1), Type::Array(k2, v2)) | (Type::Map(k1, v1), Type::Map(k2, v2)) => {
                self.unify(k1, k2, types)?;
                self.unify(v1, v2, types)
            }
            (x, y) if x == y => Ok(()),
            _ => Err(Mismatch),
        }
    }

    fn merge_kinds(
        &mut self,
        a: VarKind,
        b: VarKind,
        types: &[TypeDef],
    ) -> Result<VarKind, Mismatch> {
        Ok(match (a, b) {
            (VarKind::Any, k) | (k, VarKind::Any) => k,
            (VarKind::Collection(x), VarKind::Collection(y)) => {
                self.unify(&x, &y, types)?;
                VarKind::Collection(x)
            }
            (VarKind::Tuple(xs), VarKind::Tuple(ys)) => {
                if xs.len() != ys.len() {
                    return Err(Mismatch);
                }
                for (x, y) in xs.iter().zip(&ys) {
                    self.unify(x, y, types)?;
                }
                VarKind::Tuple(xs)
            }
            (VarKind::Indexable(k1, v1), VarKind::Indexable(k2, v2)) => {
                self.unify(&k1, &k2, types)?;
                self.unify(&v1, &v2, types)?;
                VarKind::Indexable(k1, v1)
            }
            (VarKind::Enum(xs), VarKind::Enum(ys)) => {
                let both: Vec<TypeId> = xs.into_iter().filter(|x| ys.contains(x)).collect();
                if both.is_empty() {
                    return Err(Mismatch);
                }
                VarKind::Enum(both)
            }
            _ => return Err(Mismatch),
        })
    }

    fn check_kind(&mut self, kind: &VarKind, t: &Type, types: &[TypeDef]) -> Result<(), Mismatch> {
        match kind {
            VarKind::Any => Ok(()),
            VarKind::Collection(elem) => match t {
                Type::Set(e) | Type::Mset(e) | Type::Seq(e) => self.unify(elem, e, types),
                _ => Err(Mismatch),
            },
            VarKind::Tuple(parts) => match t {
                Type::Named(id) => match &types[id.0 as usize].kind {
                    TypeDefKind::Tuple(fields) if fields.len() == parts.len() => {
                        for (p, (_, f)) in parts.iter().zip(fields) {
                            self.unify(p, f, types)?;
                        }
                        Ok(())
                    }
                    _ => Err(Mismatch),
                },
                _ => Err(Mismatch),
            },
            VarKind::Indexable(k, v) => match t {
                Type::Array(k2, v2) | Type::Map(k2, v2) => {
                    self.unify(k, k2, types)?;
                    self.unify(v, v2, types)
                }
                _ => Err(Mismatch),
            },
            VarKind::Enum(ids) => match t {
                Type::Named(id) if ids.contains(id) => Ok(()),
                _ => Err(Mismatch),
            },
        }
    }

    /// Settles every unbound variable: collections default to `Set`; a tuple literal that
    /// matches exactly one declared tuple type takes it. Returns the spans of literals whose
    /// type could not be settled.
    /// Literals whose origin `lenient` accepts take any type of the right shape (the first
    /// declared tuple type of their arity, or `Bool`) instead of being reported.
    pub fn settle(
        &mut self,
        types: &[TypeDef],
        lenient: &dyn Fn(Span) -> bool,
    ) -> Vec<(Span, VarKindName, u32)> {
        let mut unsettled = Vec::new();
        loop {
            let mut progress = false;
            for v in 0..self.vars.len() {
                if self.vars[v].binding.is_some() {
                    continue;
                }
                let kind = self.vars[v].kind.clone();
                let loose = lenient(self.vars[v].origin);
                let choice = match &kind {
                    VarKind::Collection(e) => Some(Type::Set(Box::new(e.clone()))),
                    VarKind::Tuple(parts) if loose => first_tuple_type(parts.len(), types),
                    VarKind::Tuple(parts) => unique_tuple_type(parts.len(), types),
                    VarKind::Any if loose => Some(Type::Bool),
                    VarKind::Enum(ids) if loose => ids.first().map(|id| Type::Named(*id)),
                    _ => None,
                };
                if let Some(t) = choice {
                    if self.unify(&Type::Infer(v as u32), &t, types).is_ok() {
                        progress = true;
                    }
                }
            }
            if !progress {
                break;
            }
        }
        for (v, info) in self.vars.iter().enumerate() {
            if info.binding.is_none() {
                let what = match info.kind {
                    VarKind::Any => VarKindName::Value,
                    VarKind::Collection(_) => VarKindName::Collection,
                    VarKind::Tuple(_) => VarKindName::Tuple,
                    VarKind::Indexable(..) => VarKindName::Indexable,
                    VarKind::Enum(_) => VarKindName::Constant,
                };
                unsettled.push((info.origin, what, v as u32));
            }
        }
        unsettled
    }
}

/// What kind of literal could not be typed (for the message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarKindName {
    /// Any value (`nil`, `choose`).
    Value,
    /// `{…}`.
    Collection,
    /// `[…]`.
    Tuple,
    /// `constant(…)`.
    Indexable,
    /// An enumeration constant several enumerations declare.
    Constant,
}

fn first_tuple_type(arity: usize, types: &[TypeDef]) -> Option<Type> {
    types
        .iter()
        .position(|t| matches!(&t.kind, TypeDefKind::Tuple(f) if f.len() == arity))
        .map(|i| Type::Named(crate::ir::TypeId(i as u32)))
}

fn unique_tuple_type(arity: usize, types: &[TypeDef]) -> Option<Type> {
    let mut found = None;
    for (i, t) in types.iter().enumerate() {
        if let TypeDefKind::Tuple(fields) = &t.kind {
            if fields.len() == arity {
                if found.is_some() {
                    return None;
                }
                found = Some(Type::Named(crate::ir::TypeId(i as u32)));
            }
        }
    }
    found
}

fn occurs(var: u32, t: &Type, u: &Unifier) -> bool {
    match u.shallow(t) {
        Type::Infer(v) => v == var,
        Type::Set(e) | Type::Mset(e) | Type::Seq(e) | Type::Null(e) => occurs(var, &e, u),
        Type::Array(k, v) | Type::Map(k, v) => occurs(var, &k, u) || occurs(var, &v, u),
        _ => false,
    }
}

/// Prints a type as the user would write it.
pub fn type_name(t: &Type, types: &[TypeDef], u: &Unifier) -> String {
    match u.shallow(t) {
        Type::Bool => "Bool".into(),
        Type::Int => "Int".into(),
        Type::Nat => "Nat".into(),
        Type::String => "String".into(),
        Type::Char => "Char".into(),
        Type::Real => "Real".into(),
        Type::Set(e) => format!("Set[{}]", type_name(&e, types, u)),
        Type::Mset(e) => format!("Mset[{}]", type_name(&e, types, u)),
        Type::Seq(e) => format!("Seq[{}]", type_name(&e, types, u)),
        Type::Null(e) => format!("Null[{}]", type_name(&e, types, u)),
        Type::Array(k, v) => format!(
            "Array[{}, {}]",
            type_name(&k, types, u),
            type_name(&v, types, u)
        ),
        Type::Map(k, v) => format!(
            "Map[{}, {}]",
            type_name(&k, types, u),
            type_name(&v, types, u)
        ),
        Type::Named(id) => types[id.0 as usize].name.clone(),
        Type::Infer(v) => match &u.vars[v as usize].kind {
            VarKind::Any => "?".into(),
            VarKind::Collection(e) => {
                format!("a set, multiset or sequence of {}", type_name(e, types, u))
            }
            VarKind::Tuple(parts) => format!(
                "a tuple [{}]",
                parts
                    .iter()
                    .map(|p| type_name(p, types, u))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            VarKind::Indexable(k, v) => format!(
                "an array or map from {} to {}",
                type_name(k, types, u),
                type_name(v, types, u)
            ),
            VarKind::Enum(ids) => ids
                .iter()
                .map(|id| types[id.0 as usize].name.clone())
                .collect::<Vec<_>>()
                .join(" or "),
        },
    }
}
