//! Where values of symmetric types occur inside a state: the [`Shape`] of each declared type,
//! computed once from the types, and permuting a value along its shape. Everything that walks
//! a state in search of symmetric values (permuting it, turning it into a hashing tree) is
//! guided by these shapes, so that values of other types are never looked at twice.

use super::tree::{mix, Tree};
use super::Symmetry;
use crate::fingerprint::fingerprint;
use imbl::OrdMap;
use interpreter::value::{ArrayValue, Value};
use ioa_lang::ir::{Spec, Type, TypeDefKind, TypeId};
use std::sync::Arc;

/// Where values of symmetric types occur inside a value of some type.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Shape {
    /// No symmetric values inside: kept as is.
    Plain,
    /// A value of symmetric type `k`.
    Element(usize),
    Set(Box<Shape>),
    Mset(Box<Shape>),
    Seq(Box<Shape>),
    Array(Box<Shape>, Box<Shape>),
    Map(Box<Shape>, Box<Shape>),
    Null(Box<Shape>),
    Tuple(Vec<Shape>),
    Union(Vec<Shape>),
}

impl Symmetry {
    /// A value with every symmetric value replaced by its image (`of[k][p]` for position `p`
    /// of type `k`).
    pub(super) fn map(&self, shape: &Shape, v: &Value, of: &[Vec<Value>]) -> Value {
        match (shape, v) {
            (Shape::Plain, _) => v.clone(),
            (Shape::Element(k), _) => match self.types[*k].position.get(v) {
                Some(&p) => of[*k][p].clone(),
                None => v.clone(),
            },
            (Shape::Set(s), Value::Set(items)) => {
                Value::Set(items.iter().map(|x| self.map(s, x, of)).collect())
            }
            (Shape::Mset(s), Value::Mset(items)) => {
                let mut out = OrdMap::new();
                for (x, n) in items {
                    *out.entry(self.map(s, x, of)).or_insert(0) += n;
                }
                Value::Mset(out)
            }
            (Shape::Seq(s), Value::Seq(items)) => {
                Value::seq(items.iter().map(|x| self.map(s, x, of)).collect())
            }
            (Shape::Array(ks, vs), Value::Array(a)) => {
                let default = self.map(vs, &a.default, of);
                let entries = a
                    .entries
                    .iter()
                    .map(|(k, x)| (self.map(ks, k, of), self.map(vs, x, of)))
                    .collect();
                Value::Array(Arc::new(ArrayValue { default, entries }))
            }
            (Shape::Map(ks, vs), Value::Map(m)) => Value::Map(
                m.iter()
                    .map(|(k, x)| (self.map(ks, k, of), self.map(vs, x, of)))
                    .collect(),
            ),
            (Shape::Null(s), Value::Embed(x)) => Value::Embed(Arc::new(self.map(s, x, of))),
            (Shape::Tuple(fields), Value::Tuple(xs)) => Value::Tuple(
                xs.iter()
                    .zip(fields)
                    .map(|(x, s)| self.map(s, x, of))
                    .collect(),
            ),
            (Shape::Union(tags), Value::Union(id, tag, x)) => {
                Value::Union(*id, *tag, Arc::new(self.map(&tags[*tag as usize], x, of)))
            }
            _ => v.clone(),
        }
    }
}

/// The first symmetric type a shape contains.
pub(super) fn first_element(shape: &Shape) -> Option<usize> {
    match shape {
        Shape::Plain => None,
        Shape::Element(k) => Some(*k),
        Shape::Set(s) | Shape::Mset(s) | Shape::Seq(s) | Shape::Null(s) => first_element(s),
        Shape::Array(a, b) | Shape::Map(a, b) => first_element(a).or_else(|| first_element(b)),
        Shape::Tuple(xs) | Shape::Union(xs) => xs.iter().find_map(first_element),
    }
}

/// Where the symmetric types `ids` occur in `ty`; `Err` names a recursive type.
pub(super) fn shape_of(
    spec: &Spec,
    ids: &[TypeId],
    ty: &Type,
    visiting: &mut Vec<TypeId>,
) -> Result<Shape, String> {
    let wrap = |inner: Shape, make: fn(Box<Shape>) -> Shape| {
        if inner == Shape::Plain {
            Shape::Plain
        } else {
            make(Box::new(inner))
        }
    };
    Ok(match ty {
        Type::Bool
        | Type::Int
        | Type::Nat
        | Type::String
        | Type::Char
        | Type::Real
        | Type::Infer(_) => Shape::Plain,
        Type::Set(t) => wrap(shape_of(spec, ids, t, visiting)?, Shape::Set),
        Type::Mset(t) => wrap(shape_of(spec, ids, t, visiting)?, Shape::Mset),
        Type::Seq(t) => wrap(shape_of(spec, ids, t, visiting)?, Shape::Seq),
        Type::Null(t) => wrap(shape_of(spec, ids, t, visiting)?, Shape::Null),
        Type::Array(k, v) | Type::Map(k, v) => {
            let ks = shape_of(spec, ids, k, visiting)?;
            let vs = shape_of(spec, ids, v, visiting)?;
            if ks == Shape::Plain && vs == Shape::Plain {
                Shape::Plain
            } else if matches!(ty, Type::Array(..)) {
                Shape::Array(Box::new(ks), Box::new(vs))
            } else {
                Shape::Map(Box::new(ks), Box::new(vs))
            }
        }
        Type::Named(id) => {
            if let Some(k) = ids.iter().position(|x| x == id) {
                return Ok(Shape::Element(k));
            }
            if visiting.contains(id) {
                return Err(spec.types[id.0 as usize].name.clone());
            }
            visiting.push(*id);
            let shape = match &spec.types[id.0 as usize].kind {
                TypeDefKind::Enumeration(_) => Shape::Plain,
                TypeDefKind::Tuple(fields) => {
                    let fs: Result<Vec<Shape>, String> = fields
                        .iter()
                        .map(|(_, t)| shape_of(spec, ids, t, visiting))
                        .collect();
                    let fs = fs?;
                    if fs.iter().all(|s| *s == Shape::Plain) {
                        Shape::Plain
                    } else {
                        Shape::Tuple(fs)
                    }
                }
                TypeDefKind::Union(tags) => {
                    let ts: Result<Vec<Shape>, String> = tags
                        .iter()
                        .map(|(_, t)| shape_of(spec, ids, t, visiting))
                        .collect();
                    let ts = ts?;
                    if ts.iter().all(|s| *s == Shape::Plain) {
                        Shape::Plain
                    } else {
                        Shape::Union(ts)
                    }
                }
            };
            visiting.pop();
            shape
        }
    })
}

impl Symmetry {
    /// Adds `v`, of shape `shape`, to `tree`: plain parts as hashed leaves, symmetric values
    /// as their global element index.
    pub(super) fn build(&self, shape: &Shape, v: &Value, tree: &mut Tree) {
        match (shape, v) {
            (Shape::Plain, _) => tree.leaf(plain(v)),
            (Shape::Element(k), _) => match self.types[*k].position.get(v) {
                Some(&p) => tree.element(self.offsets[*k] + p),
                None => tree.leaf(plain(v)),
            },
            (Shape::Set(s), Value::Set(items)) => {
                let open = tree.open();
                items.iter().for_each(|x| self.build(s, x, tree));
                tree.close(open, 1, false);
            }
            (Shape::Mset(s), Value::Mset(items)) => {
                let open = tree.open();
                for (x, n) in items {
                    let pair = tree.open();
                    self.build(s, x, tree);
                    tree.leaf(*n as u128);
                    tree.close(pair, 3, true);
                }
                tree.close(open, 2, false);
            }
            (Shape::Seq(s), Value::Seq(items)) => {
                let open = tree.open();
                items.iter().for_each(|x| self.build(s, x, tree));
                tree.close(open, 4, true);
            }
            (Shape::Array(ks, vs), Value::Array(a)) => {
                let open = tree.open();
                self.build(vs, &a.default, tree);
                self.entries(ks, vs, a.entries.iter(), tree);
                tree.close(open, 5, true);
            }
            (Shape::Map(ks, vs), Value::Map(m)) => self.entries(ks, vs, m.iter(), tree),
            (Shape::Null(s), Value::Embed(x)) => {
                let open = tree.open();
                self.build(s, x, tree);
                tree.close(open, 6, true);
            }
            (Shape::Tuple(fields), Value::Tuple(xs)) => {
                let open = tree.open();
                xs.iter()
                    .zip(fields)
                    .for_each(|(x, s)| self.build(s, x, tree));
                tree.close(open, 7, true);
            }
            (Shape::Union(tags), Value::Union(_, tag, x)) => {
                let open = tree.open();
                match tags.get(*tag as usize) {
                    Some(s) => self.build(s, x, tree),
                    None => tree.leaf(plain(x)),
                }
                tree.close(open, 8 + *tag as u64, true);
            }
            _ => tree.leaf(plain(v)),
        }
    }

    /// Map or array entries: an unordered bag of key-value pairs.
    fn entries<'v>(
        &self,
        ks: &Shape,
        vs: &Shape,
        entries: impl Iterator<Item = (&'v Value, &'v Value)>,
        tree: &mut Tree,
    ) {
        let open = tree.open();
        for (k, x) in entries {
            let pair = tree.open();
            self.build(ks, k, tree);
            self.build(vs, x, tree);
            tree.close(pair, 3, true);
        }
        tree.close(open, 9, false);
    }
}

/// The hash of a value that holds no symmetric value: small scalars directly (they are most of
/// a state's leaves), anything else by its fingerprint.
fn plain(v: &Value) -> u128 {
    match v {
        Value::Int(i) => mix(1, *i as u64 as u128),
        Value::Bool(b) => mix(2, *b as u128),
        Value::Nil => mix(3, 0),
        Value::Enum(t, p) => mix(4, ((t.0 as u128) << 32) | *p as u128),
        _ => mix(5, fingerprint(std::slice::from_ref(v))),
    }
}
