//! Compiled states described to the symmetry canonicaliser without decoding them.
//!
//! [`Symmetry`] canonicalises a tree of lists, bags, plain leaves and symmetric elements. For
//! interpreter states it builds that tree from values; here it is built from words, guided by
//! a plan per finite type computed once: a type without symmetric values inside is a plain leaf
//! (its word), a symmetric type's value is the element at its rank (ranks are carrier
//! positions, as the symmetry numbers them), and tuples, `Null`s, sets and arrays that contain
//! symmetric values are lists and bags of their parts. Permuting a state's symmetric values
//! permutes the elements of its tree and nothing else, which is all the canonicaliser needs
//! (see `symmetry/mod.rs`).

use super::layout::{field_ranks, word_of, FinId, FinKind, Fins, Layout, Listed, Repr, Slot};
use crate::symmetry::{mix_hash, Symmetry, TreeBuilder, ValueShape};
use ioa_lang::ir::Type;
use std::sync::Arc;

/// How a finite type's values appear in the tree.
enum Plan {
    /// A leaf: no symmetric value inside.
    Plain,
    /// An element of symmetric type `k`.
    Element(usize),
    /// `nil` or a list of the inner value.
    Null(FinId),
    /// A list of the fields.
    Tuple {
        fields: Vec<FinId>,
        strides: Vec<u64>,
        listed: Option<Arc<Listed>>,
    },
    /// A bag of the elements.
    Set(FinId),
}

/// How a word that holds an interned id appears: its value's hash as a leaf, or the value
/// described along its type's shape when it contains symmetric values. (Never the id itself,
/// which depends on the run.)
enum Interned {
    Leaf,
    Value(ValueShape),
}

/// How an array entry appears.
enum Entry {
    /// A plain word.
    Word,
    /// A value of a finite type that contains symmetric values.
    Fin(FinId),
    /// An interned value.
    Interned(Interned),
}

/// How each state variable appears in the tree.
enum SlotPlan {
    /// Words hashed as one leaf.
    Plain { offset: u32, words: u32 },
    /// One word of a finite type that contains symmetric values.
    Word { offset: u32, fin: FinId },
    /// One word that holds an interned id.
    Interned { offset: u32, plan: Interned },
    /// A bag of (index, entry) pairs; entries equal to `skip` are left out (a plain default,
    /// which no permutation changes).
    Array {
        offset: u32,
        index: FinId,
        elem: Entry,
        skip: Option<i64>,
    },
    /// A bag of elements.
    BigSet {
        offset: u32,
        elem: FinId,
        words: u32,
    },
}

/// The plans for one compiled model and symmetry.
pub struct SymTree {
    plans: Vec<Plan>,
    slots: Vec<SlotPlan>,
}

impl SymTree {
    /// Plans the tree of every finite type and state variable.
    pub fn new(fins: &Fins, list_len: usize, layout: &Layout, symmetry: &Symmetry) -> SymTree {
        let mut plans: Vec<Plan> = Vec::with_capacity(list_len);
        // Fins only refer to fins built before them, so one pass in id order sees parts first.
        for id in 0..list_len as FinId {
            let fin = fins.get(id);
            let symmetric = |f: FinId, plans: &[Plan]| !matches!(plans[f as usize], Plan::Plain);
            let plan = match &fin.kind {
                FinKind::Enum(ty) => match symmetry.type_index(*ty) {
                    Some(k) => Plan::Element(k),
                    None => Plan::Plain,
                },
                FinKind::Tuple {
                    ty,
                    fields,
                    strides,
                    listed,
                } => match symmetry.type_index(*ty) {
                    Some(k) => Plan::Element(k),
                    None if fields.iter().any(|f| symmetric(*f, &plans)) => Plan::Tuple {
                        fields: fields.clone(),
                        strides: strides.clone(),
                        listed: listed.clone(),
                    },
                    None => Plan::Plain,
                },
                FinKind::Null(i) if symmetric(*i, &plans) => Plan::Null(*i),
                FinKind::Set(e) if symmetric(*e, &plans) => Plan::Set(*e),
                _ => Plan::Plain,
            };
            plans.push(plan);
        }
        let contains = |f: FinId| !matches!(plans[f as usize], Plan::Plain);
        let spec = fins.machine().spec;
        let interned = |ty: &Type| match symmetry.value_shape(spec, ty) {
            Some(shape) => Interned::Value(shape),
            None => Interned::Leaf,
        };
        let slots = layout
            .slots
            .iter()
            .zip(&layout.types)
            .map(|(slot, ty)| match slot {
                Slot::Word {
                    offset,
                    repr: Repr::Interned,
                    ..
                } => SlotPlan::Interned {
                    offset: *offset,
                    plan: interned(ty),
                },
                Slot::Word {
                    offset,
                    repr: Repr::Fin(f),
                    ..
                } if contains(*f) => SlotPlan::Word {
                    offset: *offset,
                    fin: *f,
                },
                Slot::Word { offset, .. } => SlotPlan::Plain {
                    offset: *offset,
                    words: 1,
                },
                Slot::Array {
                    offset,
                    index,
                    elem: repr,
                    default,
                    ..
                } => {
                    let elem = match (repr, ty) {
                        (Repr::Fin(f), _) if contains(*f) => Entry::Fin(*f),
                        (Repr::Interned, Type::Array(_, e)) => Entry::Interned(interned(e)),
                        _ => Entry::Word,
                    };
                    let words = fins.get(*index).card as u32;
                    if !contains(*index) && matches!(elem, Entry::Word) {
                        SlotPlan::Plain {
                            offset: *offset,
                            words,
                        }
                    } else {
                        let skip = match (&elem, default) {
                            (Entry::Word, Some(d)) => word_of(fins, *repr, d),
                            _ => None,
                        };
                        SlotPlan::Array {
                            offset: *offset,
                            index: *index,
                            elem,
                            skip,
                        }
                    }
                }
                Slot::BigSet {
                    offset,
                    elem,
                    words,
                } => {
                    if contains(*elem) {
                        SlotPlan::BigSet {
                            offset: *offset,
                            elem: *elem,
                            words: *words,
                        }
                    } else {
                        SlotPlan::Plain {
                            offset: *offset,
                            words: *words,
                        }
                    }
                }
            })
            .collect();
        SymTree { plans, slots }
    }

    /// Describes state `st` to the canonicaliser.
    pub fn build(&self, fins: &Fins, st: &[i64], b: &mut TreeBuilder) {
        b.describe(|i, b| self.slot(fins, st, i, b));
    }

    /// Describes state variable `i` of state `st`.
    fn slot(&self, fins: &Fins, st: &[i64], i: usize, b: &mut TreeBuilder) {
        match &self.slots[i] {
            SlotPlan::Plain { offset, words } => {
                let part = &st[*offset as usize..][..*words as usize];
                b.leaf(if part.len() == 1 {
                    mix_hash(1, part[0] as u64 as u128)
                } else {
                    hash_words(part)
                });
            }
            SlotPlan::Word { offset, fin } => {
                self.value(fins, *fin, st[*offset as usize] as u64, b)
            }
            SlotPlan::Interned { offset, plan } => {
                interned_value(fins, plan, st[*offset as usize], b)
            }
            SlotPlan::Array {
                offset,
                index,
                elem,
                skip,
            } => {
                let entries = b.open();
                let n = fins.get(*index).card;
                for r in 0..n {
                    let w = st[*offset as usize + r as usize];
                    if Some(w) == *skip {
                        continue;
                    }
                    let pair = b.open();
                    self.value(fins, *index, r, b);
                    match elem {
                        Entry::Fin(f) => self.value(fins, *f, w as u64, b),
                        Entry::Word => b.leaf(mix_hash(1, w as u64 as u128)),
                        Entry::Interned(plan) => interned_value(fins, plan, w, b),
                    }
                    b.close(pair, 3, true);
                }
                b.close(entries, 9, false);
            }
            SlotPlan::BigSet {
                offset,
                elem,
                words,
            } => {
                let set = b.open();
                for (k, &w) in st[*offset as usize..][..*words as usize].iter().enumerate() {
                    let mut m = w as u64;
                    while m != 0 {
                        let r = (k * 64) as u64 + m.trailing_zeros() as u64;
                        m &= m - 1;
                        self.value(fins, *elem, r, b);
                    }
                }
                b.close(set, 1, false);
            }
        }
    }

    /// Describes the value of rank `r` of finite type `fin`.
    fn value(&self, fins: &Fins, fin: FinId, r: u64, b: &mut TreeBuilder) {
        match &self.plans[fin as usize] {
            Plan::Plain => b.leaf(mix_hash(2 + fin as u128, r as u128)),
            Plan::Element(k) => b.element(*k, r as usize),
            Plan::Null(inner) => {
                if r == 0 {
                    b.leaf(mix_hash(3, 0));
                } else {
                    let open = b.open();
                    self.value(fins, *inner, r - 1, b);
                    b.close(open, 6, true);
                }
            }
            Plan::Tuple {
                fields,
                strides,
                listed,
            } => {
                let open = b.open();
                for (f, fr) in field_ranks(fins, fields, strides, listed, r) {
                    self.value(fins, f, fr, b);
                }
                b.close(open, 7, true);
            }
            Plan::Set(e) => {
                let open = b.open();
                let mut m = r;
                while m != 0 {
                    let bit = m.trailing_zeros() as u64;
                    m &= m - 1;
                    self.value(fins, *e, bit, b);
                }
                b.close(open, 1, false);
            }
        }
    }
}

/// Describes the interned value of id `w`.
fn interned_value(fins: &Fins, plan: &Interned, w: i64, b: &mut TreeBuilder) {
    match plan {
        Interned::Leaf => b.leaf(mix_hash(10, fins.interner.hash(w))),
        Interned::Value(shape) => b.value(shape, &fins.interner.value(w)),
    }
}

/// One leaf for several words.
fn hash_words(words: &[i64]) -> u128 {
    let mut bytes = Vec::with_capacity(words.len() * 8);
    for w in words {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    crate::fingerprint::hash_bytes(&bytes)
}
