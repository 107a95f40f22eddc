//! Symmetry reduction: states that differ only by a permutation of the values of a type the user
//! declares symmetric (`ioa explore --symmetric Node`) are explored once.
//!
//! **What is permuted.** A symmetric type is a declared tuple or enumeration type with a finite
//! carrier (its universe, e.g. `Node = [0]..[2]`). A permutation π of the carrier acts on a state
//! by replacing every value of that type, wherever it occurs (set elements, array indices and
//! entries, tuple fields, union payloads…), guided by the declared types of the state
//! variables. The explorer keeps the concrete states it reaches and only *stores* canonical
//! fingerprints, so every path it reports is a path of the unreduced automaton and replays as is.
//!
//! **The canonical form.** For each element `e` of a symmetric type, a *signature* is the hash
//! of the state with `e` replaced by one marker and every other element (of every symmetric type)
//! by another. Collections are hashed as multisets of their parts' hashes, so a signature does
//! not depend on the order of the carrier, and the signature of π(e) in π(s) is the signature of
//! e in s. Elements are sorted by signature, and the canonical fingerprint is the least hash of
//! π(s) over every π that maps the elements, in that order, onto the carrier in its order;
//! elements with equal signatures (ties) are tried in every order. This is exact — two states
//! get the same canonical fingerprint if and only if one is a permutation of the other (up to
//! hash collisions) — whenever the ties need at most [`MAX_TIE_ORDERS`] orders, which is always
//! the case for one symmetric type of up to six elements (6! = 720). Beyond that, only the order of the
//! carrier breaks ties: the fingerprint is still that of a permutation of the state, so the
//! search stays sound and complete (it never merges states that are not symmetric) but may keep
//! some symmetric states apart.
//!
//! To hash a state under many permutations cheaply, it is first turned into a `Tree` once: its
//! parts that contain no symmetric value are hashed then and there, and each value of a
//! symmetric type becomes its carrier position, so each permutation costs one walk over a small
//! tree of hashes.
//!
//! **When it is sound.** The reduction is only correct if the automaton and its invariants treat
//! the type's values alike. [`Symmetry::new`] rejects models that single out values: literals of
//! the type (`[0]`, an enumeration constant), reading its fields (`n.location`, which can be
//! compared), automaton parameters and component indices of the type, and universe candidate
//! lists for action parameters (`abstain.B = …`) that are not closed under permutation. A
//! `for x in S` loop whose iterations depend on each other also breaks symmetry (it runs in
//! value order); that is not detected.

use crate::fingerprint::{fingerprint, Fingerprint};
use imbl::{OrdMap, OrdSet};
use interpreter::error::RunError;
use interpreter::machine::Machine;
use interpreter::value::{ArrayValue, Value};
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic, Severity};
use ioa_lang::ir::{
    AutomatonBody, Expr, ExprKind, PlaceStep, Spec, Stmt, StmtKind, Type, TypeDefKind, TypeId,
};
use ioa_lang::span::Span;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// The most orders of tied elements tried per state. 720 = 6!, so carriers of up to six
/// elements are always canonicalised exactly.
pub const MAX_TIE_ORDERS: u64 = 720;

/// Why a type cannot be used for symmetry reduction (codes E09xx).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SymmetryError {
    /// E0901: no declared type has this name.
    UnknownType {
        /// The name given.
        name: String,
    },
    /// E0902: the type is not a declared tuple or enumeration type.
    NotPermutable {
        /// The name given.
        name: String,
        /// Its declaration.
        span: Span,
    },
    /// E0903: the type has no finite carrier.
    Unbounded {
        /// The name given.
        name: String,
        /// The error the universe gave.
        error: RunError,
    },
    /// E0904: the model singles out values of the type, so permuting them is not a symmetry.
    Breaks {
        /// The type.
        name: String,
        /// Where.
        span: Span,
        /// How.
        how: Break,
    },
    /// E0905: the universe's candidates for an action parameter are not closed under
    /// permutations of the type.
    CandidatesNotClosed {
        /// The type.
        name: String,
        /// The action.
        action: String,
        /// The parameter.
        param: String,
    },
    /// E0906: a type refers to itself through the symmetric type's occurrences.
    Recursive {
        /// The recursive type.
        name: String,
    },
}

/// How a model singles out values of a symmetric type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Break {
    /// A literal value of the type.
    Literal,
    /// Reading a field of a value of the type.
    Field,
    /// An automaton parameter or component index of (or containing) the type.
    Parameter,
}

impl IntoDiagnostic for SymmetryError {
    fn to_diagnostic(&self) -> Diagnostic {
        let plain = |code, message: String, hint: &str| Diagnostic {
            code,
            severity: Severity::Error,
            message,
            labels: vec![],
            notes: vec![],
            hint: (!hint.is_empty()).then(|| hint.to_string()),
        };
        match self {
            SymmetryError::UnknownType { name } => plain(
                "E0901",
                format!("`--symmetric {name}`: the model declares no type `{name}`"),
                "name a declared tuple or enumeration type, such as `Node`",
            ),
            SymmetryError::NotPermutable { name, span } => Diagnostic::error(
                "E0902",
                format!("`--symmetric {name}`: only tuple and enumeration types can be symmetric"),
                *span,
            )
            .with_label_message("declared here"),
            SymmetryError::Unbounded { name, error } => {
                let mut d = error.to_diagnostic();
                d.message = format!("`--symmetric {name}`: {}", d.message);
                d
            }
            SymmetryError::Breaks { name, span, how } => {
                let (what, label) = match how {
                    Break::Literal => ("names a particular value", "a literal of the type"),
                    Break::Field => (
                        "reads the fields of its values",
                        "this reads a field, which can tell values apart",
                    ),
                    Break::Parameter => (
                        "has a parameter or component index of the type",
                        "a parameter of the type",
                    ),
                };
                Diagnostic::error(
                    "E0904",
                    format!("`{name}` is not symmetric: the model {what}"),
                    *span,
                )
                .with_label_message(label)
                .with_hint(format!(
                    "explore without `--symmetric {name}`, or write the model so that it treats all `{name}` values alike"
                ))
            }
            SymmetryError::CandidatesNotClosed {
                name,
                action,
                param,
            } => plain(
                "E0905",
                format!(
                    "`{name}` is not symmetric: the universe's candidates for `{action}.{param}` are not closed under permutations of `{name}`"
                ),
                "list every permutation of each candidate, or explore without --symmetric",
            ),
            SymmetryError::Recursive { name } => plain(
                "E0906",
                format!("type `{name}` is recursive; symmetry reduction does not support it"),
                "",
            ),
        }
    }
}

/// Where values of symmetric types occur inside a value of some type.
#[derive(Debug, Clone, PartialEq)]
enum Shape {
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

/// One symmetric type.
struct SymmetricType {
    id: TypeId,
    carrier: Vec<Value>,
    /// The hash of each carrier value, as a plain value would be hashed.
    hashes: Vec<u128>,
    position: FxHashMap<Value, usize>,
}

/// The symmetry group of some types of a machine, and canonical fingerprints under it.
pub struct Symmetry {
    types: Vec<SymmetricType>,
    /// The shape of each state slot.
    slots: Vec<Shape>,
    /// The most orders of tied elements tried per state.
    max_tie_orders: u64,
}

impl Symmetry {
    /// The symmetry that permutes each of the named types, after checking that the machine's
    /// automata and invariants treat their values alike.
    pub fn new(machine: &Machine, names: &[String]) -> Result<Symmetry, Vec<SymmetryError>> {
        let spec = machine.spec;
        let mut types = Vec::new();
        let mut errors = Vec::new();
        for name in names {
            let Some(pos) = spec.types.iter().position(|t| &t.name == name) else {
                errors.push(SymmetryError::UnknownType { name: name.clone() });
                continue;
            };
            let def = &spec.types[pos];
            if matches!(def.kind, TypeDefKind::Union(_)) {
                errors.push(SymmetryError::NotPermutable {
                    name: name.clone(),
                    span: def.span,
                });
                continue;
            }
            let id = TypeId(pos as u32);
            let carrier = match machine.carrier(&Type::Named(id), def.span) {
                Ok(c) => c.to_vec(),
                Err(error) => {
                    errors.push(SymmetryError::Unbounded {
                        name: name.clone(),
                        error,
                    });
                    continue;
                }
            };
            if types.iter().any(|t: &SymmetricType| t.id == id) {
                continue;
            }
            let position = carrier
                .iter()
                .enumerate()
                .map(|(i, v)| (v.clone(), i))
                .collect();
            let hashes = carrier
                .iter()
                .map(|v| fingerprint(std::slice::from_ref(v)))
                .collect();
            types.push(SymmetricType {
                id,
                carrier,
                hashes,
                position,
            });
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let ids: Vec<TypeId> = types.iter().map(|t| t.id).collect();
        let mut slots = Vec::new();
        for ty in machine.slot_types() {
            match shape_of(spec, &ids, &ty, &mut Vec::new()) {
                Ok(s) => slots.push(s),
                Err(name) => errors.push(SymmetryError::Recursive { name }),
            }
        }
        let symmetry = Symmetry {
            types,
            slots,
            max_tie_orders: MAX_TIE_ORDERS,
        };
        symmetry.check_model(machine, &mut errors);
        if errors.is_empty() {
            Ok(symmetry)
        } else {
            Err(errors)
        }
    }

    /// The same symmetry, trying at most `n` orders of tied elements per state (at least 1).
    /// Fewer orders make canonicalisation faster and less exact, never unsound.
    pub fn with_max_tie_orders(mut self, n: u64) -> Self {
        self.max_tie_orders = n.max(1);
        self
    }

    /// The number of values of each symmetric type, in the order they were named.
    pub fn carrier_sizes(&self) -> Vec<usize> {
        self.types.iter().map(|t| t.carrier.len()).collect()
    }

    /// The state with the values of each symmetric type `k` permuted: carrier position `p`
    /// becomes position `permutations[k][p]`.
    pub fn permute(&self, state: &[Value], permutations: &[Vec<usize>]) -> Vec<Value> {
        let of: Vec<Vec<Value>> = self
            .types
            .iter()
            .zip(permutations)
            .map(|(t, perm)| perm.iter().map(|&q| t.carrier[q].clone()).collect())
            .collect();
        state
            .iter()
            .zip(&self.slots)
            .map(|(v, s)| self.map(s, v, &of))
            .collect()
    }

    fn name(spec: &Spec, id: TypeId) -> String {
        spec.types[id.0 as usize].name.clone()
    }

    /// Whether `ty` mentions a symmetric type.
    fn mentions(&self, spec: &Spec, ty: &Type) -> Option<TypeId> {
        let ids: Vec<TypeId> = self.types.iter().map(|t| t.id).collect();
        match shape_of(spec, &ids, ty, &mut Vec::new()) {
            Ok(Shape::Plain) => None,
            Ok(shape) => Some(first_element(&shape).map_or(ids[0], |k| ids[k])),
            Err(_) => Some(ids[0]),
        }
    }

    /// Collects every construct of the machine that singles out a value of a symmetric type.
    fn check_model(&self, machine: &Machine, errors: &mut Vec<SymmetryError>) {
        let spec = machine.spec;
        let ids: Vec<TypeId> = self.types.iter().map(|t| t.id).collect();
        let mut exprs: Vec<&Expr> = Vec::new();
        let mut stmts: Vec<&Stmt> = Vec::new();
        let mut automata: Vec<usize> = machine
            .instances
            .iter()
            .map(|i| i.automaton.0 as usize)
            .collect();
        automata.push(machine.root.0 as usize);
        automata.sort_unstable();
        automata.dedup();
        for &a in &automata {
            let aut = &spec.automata[a];
            for p in &aut.params {
                if let Some(id) = self.mentions(spec, &p.ty) {
                    errors.push(SymmetryError::Breaks {
                        name: Self::name(spec, id),
                        span: p.span,
                        how: Break::Parameter,
                    });
                }
            }
            for act in &aut.actions {
                exprs.extend(&act.where_clause);
                exprs.extend(act.params.iter().filter_map(|p| p.fixed.as_ref()));
            }
            match &aut.body {
                AutomatonBody::Primitive(p) => {
                    exprs.extend(p.state.iter().filter_map(|v| v.init.as_ref()));
                    exprs.extend(&p.so_that);
                    for t in &p.transitions {
                        exprs.extend(t.const_args.iter().map(|(_, e)| e));
                        exprs.extend(&t.where_clause);
                        exprs.extend(&t.pre);
                        stmts.extend(&t.eff);
                    }
                }
                AutomatonBody::Composite(c) => {
                    for comp in &c.components {
                        for idx in &comp.indices {
                            if let Some(id) = self.mentions(spec, &idx.ty) {
                                errors.push(SymmetryError::Breaks {
                                    name: Self::name(spec, id),
                                    span: idx.span,
                                    how: Break::Parameter,
                                });
                            }
                        }
                        exprs.extend(&comp.args);
                    }
                    for h in &c.hidden {
                        exprs.extend(h.const_args.iter().map(|(_, e)| e));
                        exprs.extend(&h.where_clause);
                    }
                }
            }
        }
        for inv in &spec.invariants {
            if inv.automaton == machine.root {
                exprs.push(&inv.body);
            }
        }
        let mut visit = |e: &Expr| {
            let breaks = |ty: &Type| match ty {
                Type::Named(id) => ids.contains(id).then_some(*id),
                _ => None,
            };
            let found = match &e.kind {
                ExprKind::Tuple(_) | ExprKind::EnumConst(_) => {
                    breaks(&e.ty).map(|id| (id, Break::Literal))
                }
                ExprKind::Field(x, _) => breaks(&x.ty).map(|id| (id, Break::Field)),
                _ => None,
            };
            if let Some((id, how)) = found {
                errors.push(SymmetryError::Breaks {
                    name: Self::name(spec, id),
                    span: e.span,
                    how,
                });
            }
        };
        for e in exprs {
            walk_expr(e, &mut visit);
        }
        for s in stmts {
            walk_stmt(s, &mut visit);
        }
        // Universe candidates for action parameters must be closed under the group, which the
        // adjacent transpositions of each type generate.
        for action in &machine.actions {
            for (param, ty) in action.param_names.iter().zip(&action.param_types) {
                let Some(candidates) = machine.universe.param_candidates(&action.name, param)
                else {
                    continue;
                };
                let Some(id) = self.mentions(spec, ty) else {
                    continue;
                };
                let shape = match shape_of(spec, &ids, ty, &mut Vec::new()) {
                    Ok(s) => s,
                    Err(_) => continue,
                };
                let listed: OrdSet<Value> = candidates.iter().cloned().collect();
                let closed = (0..self.types.len()).all(|k| {
                    (1..self.types[k].carrier.len()).all(|i| {
                        let images = self.transposition(k, i - 1, i);
                        candidates
                            .iter()
                            .all(|c| listed.contains(&self.map(&shape, c, &images)))
                    })
                });
                if !closed {
                    errors.push(SymmetryError::CandidatesNotClosed {
                        name: Self::name(spec, id),
                        action: action.name.clone(),
                        param: param.clone(),
                    });
                }
            }
        }
    }

    /// The images of the permutation that swaps positions `a` and `b` of type `k`.
    fn transposition(&self, k: usize, a: usize, b: usize) -> Vec<Vec<Value>> {
        let mut of: Vec<Vec<Value>> = self.types.iter().map(|t| t.carrier.clone()).collect();
        of[k].swap(a, b);
        of
    }

    /// A value with every symmetric value replaced by its image (`of[k][p]` for position `p`
    /// of type `k`).
    fn map(&self, shape: &Shape, v: &Value, of: &[Vec<Value>]) -> Value {
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

    /// The state as a [`Tree`]: plain parts hashed once, symmetric values kept as positions.
    fn tree(&self, shape: &Shape, v: &Value) -> Tree {
        let leaf = |v: &Value| Tree::Leaf(fingerprint(std::slice::from_ref(v)));
        match (shape, v) {
            (Shape::Plain, _) => leaf(v),
            (Shape::Element(k), _) => match self.types[*k].position.get(v) {
                Some(&p) => Tree::Element(*k, p),
                None => leaf(v),
            },
            (Shape::Set(s), Value::Set(items)) => {
                Tree::Bag(1, items.iter().map(|x| self.tree(s, x)).collect())
            }
            (Shape::Mset(s), Value::Mset(items)) => Tree::Bag(
                2,
                items
                    .iter()
                    .map(|(x, n)| Tree::List(3, vec![self.tree(s, x), Tree::Leaf(*n as u128)]))
                    .collect(),
            ),
            (Shape::Seq(s), Value::Seq(items)) => {
                Tree::List(4, items.iter().map(|x| self.tree(s, x)).collect())
            }
            (Shape::Array(ks, vs), Value::Array(a)) => Tree::List(
                5,
                vec![
                    self.tree(vs, &a.default),
                    self.entries(ks, vs, a.entries.iter()),
                ],
            ),
            (Shape::Map(ks, vs), Value::Map(m)) => self.entries(ks, vs, m.iter()),
            (Shape::Null(s), Value::Embed(x)) => Tree::List(6, vec![self.tree(s, x)]),
            (Shape::Tuple(fields), Value::Tuple(xs)) => Tree::List(
                7,
                xs.iter()
                    .zip(fields)
                    .map(|(x, s)| self.tree(s, x))
                    .collect(),
            ),
            (Shape::Union(tags), Value::Union(_, tag, x)) => {
                Tree::List(8 + *tag as u64, vec![self.tree(&tags[*tag as usize], x)])
            }
            _ => leaf(v),
        }
    }

    /// Map or array entries: an unordered bag of key-value pairs.
    fn entries<'v>(
        &self,
        ks: &Shape,
        vs: &Shape,
        entries: impl Iterator<Item = (&'v Value, &'v Value)>,
    ) -> Tree {
        Tree::Bag(
            9,
            entries
                .map(|(k, x)| Tree::List(3, vec![self.tree(ks, k), self.tree(vs, x)]))
                .collect(),
        )
    }

    /// The fingerprint of the state (as trees) with symmetric values replaced by `images`.
    fn mapped_fingerprint(&self, trees: &[Tree], images: &[Vec<u128>]) -> Fingerprint {
        let mut h = mix(0, trees.len() as u128);
        for t in trees {
            h = mix(h, t.hash(images));
        }
        h
    }

    /// The fingerprint of the state's orbit under the symmetry (see the module documentation).
    pub fn canonical_fingerprint(&self, state: &[Value]) -> Fingerprint {
        let trees: Vec<Tree> = state
            .iter()
            .zip(&self.slots)
            .map(|(v, s)| self.tree(s, v))
            .collect();
        // Signatures: mark one element, blur the others.
        let blurred: Vec<Vec<u128>> = self
            .types
            .iter()
            .map(|t| vec![BLURRED; t.carrier.len()])
            .collect();
        let mut orders: Vec<Vec<usize>> = Vec::with_capacity(self.types.len());
        let mut groups: Vec<(usize, usize, usize)> = Vec::new();
        for (k, t) in self.types.iter().enumerate() {
            let mut signed: Vec<(Fingerprint, usize)> = (0..t.carrier.len())
                .map(|e| {
                    let mut images = blurred.clone();
                    images[k][e] = MARKED;
                    (self.mapped_fingerprint(&trees, &images), e)
                })
                .collect();
            signed.sort_unstable();
            let mut start = 0;
            for i in 1..=signed.len() {
                if i == signed.len() || signed[i].0 != signed[start].0 {
                    if i - start > 1 {
                        groups.push((k, start, i));
                    }
                    start = i;
                }
            }
            orders.push(signed.into_iter().map(|(_, e)| e).collect());
        }
        // How many orders the ties allow; beyond the cap only the carrier's order is used.
        let mut tie_orders: u64 = 1;
        for &(_, a, b) in &groups {
            for n in 1..=(b - a) as u64 {
                tie_orders = tie_orders.saturating_mul(n);
            }
        }
        if tie_orders > self.max_tie_orders {
            groups.clear();
        }
        let mut images: Vec<Vec<u128>> = blurred;
        let mut best: Option<Fingerprint> = None;
        loop {
            for (k, order) in orders.iter().enumerate() {
                for (rank, &e) in order.iter().enumerate() {
                    images[k][e] = self.types[k].hashes[rank];
                }
            }
            let fp = self.mapped_fingerprint(&trees, &images);
            best = Some(best.map_or(fp, |b| b.min(fp)));
            // The next order of the tied elements (an odometer over the groups).
            let mut advanced = false;
            for &(k, a, b) in groups.iter().rev() {
                if next_permutation(&mut orders[k][a..b]) {
                    advanced = true;
                    break;
                }
            }
            if !advanced {
                break;
            }
        }
        best.expect("at least one order")
    }
}

/// The image of the marked element when signatures are computed (any constant unlike a hash of
/// a carrier value will do).
const MARKED: u128 = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834;
/// The image of every other element when signatures are computed.
const BLURRED: u128 = 0x1082_276b_f3a2_7251_f86c_6a11_d0c1_8e95;

/// Combines two hashes (order matters).
fn mix(a: u128, b: u128) -> u128 {
    let mut bytes = [0u8; 32];
    bytes[..16].copy_from_slice(&a.to_le_bytes());
    bytes[16..].copy_from_slice(&b.to_le_bytes());
    xxhash_rust::xxh3::xxh3_128_with_seed(&bytes, crate::fingerprint::SEED)
}

/// A state prepared for hashing under many permutations: plain values are hashed once, values
/// of symmetric types are kept as carrier positions, and collections are hashed from their
/// parts (a set as the sum of its elements' hashes, so the hash does not depend on the order of
/// its elements after mapping).
enum Tree {
    /// A hashed plain value.
    Leaf(u128),
    /// The value at a carrier position of a symmetric type.
    Element(usize, usize),
    /// An ordered list of parts (sequences, tuples, pairs), with a tag.
    List(u64, Vec<Tree>),
    /// An unordered multiset of parts (sets, multisets, map entries), with a tag.
    Bag(u64, Vec<Tree>),
}

impl Tree {
    fn hash(&self, images: &[Vec<u128>]) -> u128 {
        match self {
            Tree::Leaf(h) => *h,
            Tree::Element(k, p) => images[*k][*p],
            Tree::List(tag, parts) => {
                let mut h = mix(*tag as u128, parts.len() as u128);
                for p in parts {
                    h = mix(h, p.hash(images));
                }
                h
            }
            Tree::Bag(tag, parts) => {
                let sum = parts
                    .iter()
                    .fold(0u128, |acc, p| acc.wrapping_add(p.hash(images)));
                mix(mix(*tag as u128, parts.len() as u128), sum)
            }
        }
    }
}

/// Rearranges `xs` into the next permutation in lexicographic order; at the last one, wraps to
/// the first (sorted) and returns false.
fn next_permutation(xs: &mut [usize]) -> bool {
    let n = xs.len();
    if n < 2 {
        return false;
    }
    let mut i = n - 1;
    while i > 0 && xs[i - 1] >= xs[i] {
        i -= 1;
    }
    if i == 0 {
        xs.reverse();
        return false;
    }
    let mut j = n - 1;
    while xs[j] <= xs[i - 1] {
        j -= 1;
    }
    xs.swap(i - 1, j);
    xs[i..].reverse();
    true
}

/// The first symmetric type a shape contains.
fn first_element(shape: &Shape) -> Option<usize> {
    match shape {
        Shape::Plain => None,
        Shape::Element(k) => Some(*k),
        Shape::Set(s) | Shape::Mset(s) | Shape::Seq(s) | Shape::Null(s) => first_element(s),
        Shape::Array(a, b) | Shape::Map(a, b) => first_element(a).or_else(|| first_element(b)),
        Shape::Tuple(xs) | Shape::Union(xs) => xs.iter().find_map(first_element),
    }
}

/// Where the symmetric types `ids` occur in `ty`; `Err` names a recursive type.
fn shape_of(
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
        Type::Bool | Type::Int | Type::Nat | Type::String | Type::Infer(_) => Shape::Plain,
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

/// Calls `f` on `e` and every expression inside it (including `det` blocks of `choose`).
fn walk_expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Var(ioa_lang::ir::VarRef::Component { indices, .. }) => {
            indices.iter().for_each(|x| walk_expr(x, f))
        }
        ExprKind::Var(_)
        | ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Str(_)
        | ExprKind::Nil
        | ExprKind::EnumConst(_) => {}
        ExprKind::Tuple(xs) | ExprKind::Collection(xs) | ExprKind::Call(_, xs) => {
            xs.iter().for_each(|x| walk_expr(x, f))
        }
        ExprKind::Unary(_, x)
        | ExprKind::Field(x, _)
        | ExprKind::NullVal(x)
        | ExprKind::UnionPayload(x, _)
        | ExprKind::UnionNew(_, x)
        | ExprKind::Is(x, _)
        | ExprKind::Quant(_, _, x) => walk_expr(x, f),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
            walk_expr(a, f);
            walk_expr(b, f);
        }
        ExprKind::Cond(a, b, c) => {
            walk_expr(a, f);
            walk_expr(b, f);
            walk_expr(c, f);
        }
        ExprKind::Choose { cond, det, .. } => {
            if let Some(c) = cond {
                walk_expr(c, f);
            }
            for s in det.iter().flatten() {
                walk_stmt(s, f);
            }
        }
    }
}

/// Calls `f` on every expression of a statement.
fn walk_stmt(s: &Stmt, f: &mut dyn FnMut(&Expr)) {
    match &s.kind {
        StmtKind::Assign { target, value } => {
            for step in &target.path {
                if let PlaceStep::Index(e) = step {
                    walk_expr(e, f);
                }
            }
            walk_expr(value, f);
        }
        StmtKind::If {
            branches,
            otherwise,
        } => {
            for (c, body) in branches {
                walk_expr(c, f);
                body.iter().for_each(|x| walk_stmt(x, f));
            }
            otherwise.iter().for_each(|x| walk_stmt(x, f));
        }
        StmtKind::ForIn {
            collection, body, ..
        } => {
            walk_expr(collection, f);
            body.iter().for_each(|x| walk_stmt(x, f));
        }
        StmtKind::ForWhere { cond, body, .. } | StmtKind::While { cond, body } => {
            walk_expr(cond, f);
            body.iter().for_each(|x| walk_stmt(x, f));
        }
        StmtKind::Fire { args, det, .. } => {
            args.iter().for_each(|x| walk_expr(x, f));
            for s in det.iter().flatten() {
                walk_stmt(s, f);
            }
        }
        StmtKind::Yield(e) => walk_expr(e, f),
        StmtKind::Ignore => {}
    }
}

#[cfg(test)]
mod tests {
    use super::next_permutation;

    #[test]
    fn permutations_cycle_through_every_order() {
        let mut xs = [0, 1, 2];
        let mut seen = vec![xs];
        while next_permutation(&mut xs) {
            seen.push(xs);
        }
        assert_eq!(seen.len(), 6);
        assert_eq!(xs, [0, 1, 2]);
    }
}
