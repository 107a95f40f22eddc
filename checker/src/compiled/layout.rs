//! Finite types as ranks, and a machine's state as a flat vector of 64-bit words.
//!
//! The compiled engine represents every value it handles as one word: an `Int` (or `Nat`) as
//! itself, a `Char` as its code point, any other value of a finite type as its *rank*, its
//! position among the type's values, and a value of any other type (sequences, maps, reals,
//! unions…) as its id in the run's table of interned values (`intern.rs`). Ranks are built from the type's structure so that the common operations are
//! arithmetic: a tuple's rank is mixed-radix over its fields' ranks (first field most
//! significant), `nil` is 0 and `embed(x)` is 1 + rank(x), a small set (of a type with at most
//! 63 values) is the bit mask of its elements' ranks. A tuple type whose universe lists only some
//! tuples (`Prop = [1]..[3]`) is ranked by its position in that list, with a table from the
//! mixed-radix rank.
//!
//! The rank space of a type is always exactly its universe's carrier, so quantifiers range over
//! the same values as the interpreter's. A value outside it (an `Int` out of the universe's
//! range stored in a message) cannot be represented: evaluation reports
//! [`super::code::Fault`] and the caller falls back to the interpreter.
//!
//! A state is one word per scalar variable, one word per entry of an array over a finite index
//! type, and a bit set of ⌈n/64⌉ words for a set over a type with n > 63 values. Equal values
//! always have equal words, so word equality is value equality.

use interpreter::machine::Machine;
use interpreter::value::{ArrayValue, Value};
use ioa_lang::ir::{Type, TypeDefKind, TypeId};
use rustc_hash::FxHashMap;
use std::sync::Arc;

use super::intern::Interner;

/// Index of a finite type in [`Fins`].
pub type FinId = u32;

/// The most values a type may have to be an array index or the element type of a bit set.
pub const MAX_INDEXED: u64 = 1 << 16;

/// The most fields-product a listed tuple type's rank table may have.
const MAX_TABLE: u64 = 1 << 20;

/// How a finite type's values are ranked.
#[derive(Debug, Clone)]
pub enum FinKind {
    /// `false` = 0, `true` = 1.
    Bool,
    /// Constants by position.
    Enum(TypeId),
    /// The integers `lo ..= lo + card - 1` (a word holds the integer itself, the rank is
    /// `i - lo`).
    Int {
        /// The least.
        lo: i64,
    },
    /// `nil` = 0, `embed(x)` = 1 + rank(x).
    Null(FinId),
    /// Mixed radix over the fields (first field most significant), possibly through a list.
    Tuple {
        /// The declared type.
        ty: TypeId,
        /// The fields' finite types.
        fields: Vec<FinId>,
        /// The weight of each field's rank.
        strides: Vec<u64>,
        /// When the universe lists only some tuples: their mixed-radix ranks in list order, and
        /// for every mixed-radix rank its position in the list (or `u32::MAX`).
        listed: Option<Arc<Listed>>,
    },
    /// A bit mask of element ranks (element types of at most 63 values).
    Set(FinId),
    /// The characters `lo ..= lo + card - 1` by code point (a word holds the code point).
    Char {
        /// The least code point.
        lo: i64,
    },
}

/// A tuple type's explicit carrier.
#[derive(Debug)]
pub struct Listed {
    /// Position in the list → mixed-radix rank.
    pub to_product: Vec<u64>,
    /// Mixed-radix rank → position in the list, `u32::MAX` if not listed.
    pub to_rank: Vec<u32>,
}

/// A finite type.
#[derive(Debug, Clone)]
pub struct Fin {
    /// How many values it has (saturated for large set types, which are never enumerated).
    pub card: u64,
    /// How values are ranked.
    pub kind: FinKind,
}

impl Fin {
    /// The rank of a word of this type, or `None` if the word is outside the carrier.
    #[inline]
    pub fn rank(&self, word: i64) -> Option<u64> {
        match self.kind {
            FinKind::Int { lo } | FinKind::Char { lo } => {
                let r = word.checked_sub(lo)? as u64;
                (r < self.card).then_some(r)
            }
            _ => Some(word as u64),
        }
    }

    /// The word of the value with this rank.
    #[inline]
    pub fn word(&self, rank: u64) -> i64 {
        match self.kind {
            FinKind::Int { lo } | FinKind::Char { lo } => lo + rank as i64,
            _ => rank as i64,
        }
    }
}

/// Why a model cannot be compiled (the explorer then uses the interpreter).
pub type Unsupported = String;

/// Every finite type the compiled code uses.
pub struct Fins<'m, 's> {
    machine: &'m Machine<'s>,
    list: Vec<Fin>,
    by_type: FxHashMap<Type, FinId>,
    /// The values of types without a word layout of their own, by id.
    pub interner: Interner,
    /// The values of each finite type of at most [`MAX_TABLE_VALUES`] values, by rank (see
    /// [`Fins::tabulate`]): the interpreter's operations read them often.
    tables: Vec<Option<Arc<[Value]>>>,
}

/// The most values a finite type may have for [`Fins::tabulate`] to list them.
const MAX_TABLE_VALUES: u64 = 1 << 12;

impl<'m, 's> Fins<'m, 's> {
    /// No types yet.
    pub fn new(machine: &'m Machine<'s>) -> Self {
        Fins {
            machine,
            list: Vec::new(),
            by_type: FxHashMap::default(),
            interner: Interner::default(),
            tables: Vec::new(),
        }
    }

    /// Lists the values of every small finite type by rank, so that turning a word into a value
    /// ([`value_of_word`]) is a clone; called once the types are all built.
    pub fn tabulate(&mut self) {
        self.tables = (0..self.list.len())
            .map(|f| {
                let fin = &self.list[f];
                (fin.card <= MAX_TABLE_VALUES)
                    .then(|| (0..fin.card).map(|r| self.value_of(fin, r)).collect())
            })
            .collect();
    }

    /// The machine whose types these are.
    pub fn machine(&self) -> &'m Machine<'s> {
        self.machine
    }

    /// How many finite types there are.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// A finite type by id.
    pub fn get(&self, id: FinId) -> &Fin {
        &self.list[id as usize]
    }

    /// The type's name, for messages.
    pub fn name(&self, ty: &Type) -> String {
        interpreter::universe::type_text(self.machine.spec, ty)
    }

    /// The finite type of `ty`, built on first use.
    pub fn of(&mut self, ty: &Type) -> Result<FinId, Unsupported> {
        if let Some(&id) = self.by_type.get(ty) {
            return Ok(id);
        }
        let fin = self.build(ty)?;
        let id = self.list.len() as FinId;
        self.list.push(fin);
        self.by_type.insert(ty.clone(), id);
        Ok(id)
    }

    /// The universe's carrier of a type.
    pub fn carrier(&self, ty: &Type) -> Option<Arc<[Value]>> {
        self.machine.universe.carrier(self.machine.spec, ty)
    }

    fn build(&mut self, ty: &Type) -> Result<Fin, Unsupported> {
        let spec = self.machine.spec;
        let unbounded = || format!("type {} has no finite carrier", self.name(ty));
        Ok(match ty {
            Type::Bool => Fin {
                card: 2,
                kind: FinKind::Bool,
            },
            Type::Int | Type::Nat => {
                let carrier = self.carrier(ty).ok_or_else(unbounded)?;
                let ints: Vec<i64> = carrier.iter().filter_map(Value::as_int).collect();
                let lo = *ints.first().ok_or_else(unbounded)?;
                if ints.iter().enumerate().any(|(k, &i)| i != lo + k as i64) {
                    return Err(format!(
                        "the universe's {} is not a contiguous range",
                        self.name(ty)
                    ));
                }
                Fin {
                    card: ints.len() as u64,
                    kind: FinKind::Int { lo },
                }
            }
            Type::Char => {
                let carrier = self.carrier(ty).ok_or_else(unbounded)?;
                let points: Vec<i64> = carrier
                    .iter()
                    .filter_map(|v| match v {
                        Value::Char(c) => Some(*c as i64),
                        _ => None,
                    })
                    .collect();
                let lo = *points.first().ok_or_else(unbounded)?;
                if points.iter().enumerate().any(|(k, &c)| c != lo + k as i64) {
                    return Err(format!(
                        "the universe's {} is not a contiguous range",
                        self.name(ty)
                    ));
                }
                Fin {
                    card: points.len() as u64,
                    kind: FinKind::Char { lo },
                }
            }
            Type::Null(inner) => {
                let i = self.of(inner)?;
                Fin {
                    card: self.get(i).card + 1,
                    kind: FinKind::Null(i),
                }
            }
            Type::Set(elem) => {
                let e = self.of(elem)?;
                let n = self.get(e).card;
                if n > 63 {
                    return Err(format!(
                        "sets of {} ({n} values) are only supported as state variables",
                        self.name(elem)
                    ));
                }
                Fin {
                    card: 1u64.checked_shl(n as u32).unwrap_or(u64::MAX),
                    kind: FinKind::Set(e),
                }
            }
            Type::Named(id) => match &spec.types[id.0 as usize].kind {
                TypeDefKind::Enumeration(names) => {
                    let carrier = self.carrier(ty).ok_or_else(unbounded)?;
                    if carrier.len() != names.len() {
                        return Err(format!(
                            "the universe restricts enumeration {}",
                            self.name(ty)
                        ));
                    }
                    Fin {
                        card: names.len() as u64,
                        kind: FinKind::Enum(*id),
                    }
                }
                TypeDefKind::Tuple(fields) => self.tuple(*id, ty, fields)?,
                TypeDefKind::Union(_) => {
                    return Err(format!("union type {} is not compiled", self.name(ty)))
                }
            },
            _ => return Err(format!("type {} is not compiled", self.name(ty))),
        })
    }

    fn tuple(
        &mut self,
        id: TypeId,
        ty: &Type,
        fields: &[(String, Type)],
    ) -> Result<Fin, Unsupported> {
        let carrier = self
            .carrier(ty)
            .ok_or_else(|| format!("type {} has no finite carrier", self.name(ty)))?;
        let mut fins = Vec::new();
        for (k, (_, fty)) in fields.iter().enumerate() {
            let fin = if matches!(fty, Type::Int | Type::Nat) {
                // The range the listed tuples span in this field: the `Int` type's own when it
                // covers it, else its own (`Node = [0]..[11]` with `Int = -1..2`, or no
                // universe for `Int` at all).
                let ints = carrier.iter().filter_map(|v| match v {
                    Value::Tuple(xs) => xs.get(k).and_then(Value::as_int),
                    _ => None,
                });
                let (lo, hi) = ints.fold((i64::MAX, i64::MIN), |(l, h), i| (l.min(i), h.max(i)));
                let own = self.of(fty).ok().filter(|&f| {
                    let f = self.get(f);
                    lo > hi || (f.rank(lo).is_some() && f.rank(hi).is_some())
                });
                match own {
                    Some(f) => f,
                    None if lo <= hi && hi - lo < MAX_TABLE as i64 => {
                        self.list.push(Fin {
                            card: (hi - lo + 1) as u64,
                            kind: FinKind::Int { lo },
                        });
                        self.list.len() as FinId - 1
                    }
                    None => return Err(format!("type {} has no finite carrier", self.name(fty))),
                }
            } else {
                self.of(fty)?
            };
            fins.push(fin);
        }
        let mut strides = vec![0u64; fins.len()];
        let mut product: u64 = 1;
        for (k, f) in fins.iter().enumerate().rev() {
            strides[k] = product;
            product = product
                .checked_mul(self.get(*f).card)
                .ok_or_else(|| format!("type {} has too many values", self.name(ty)))?;
        }
        let mut kind = FinKind::Tuple {
            ty: id,
            fields: fins,
            strides,
            listed: None,
        };
        let full = carrier.len() as u64 == product;
        let provisional = Fin {
            card: product,
            kind: kind.clone(),
        };
        let mut to_product = Vec::with_capacity(carrier.len());
        for v in carrier.iter() {
            let r = self.rank_of(&provisional, v).ok_or_else(|| {
                format!(
                    "the universe of {} has values outside its fields' ranges",
                    self.name(ty)
                )
            })?;
            to_product.push(r);
        }
        if full && to_product.iter().enumerate().all(|(k, &r)| r == k as u64) {
            return Ok(provisional);
        }
        if product > MAX_TABLE {
            return Err(format!(
                "the universe of {} is a list over a large product",
                self.name(ty)
            ));
        }
        let mut to_rank = vec![u32::MAX; product as usize];
        for (k, &r) in to_product.iter().enumerate() {
            to_rank[r as usize] = k as u32;
        }
        let card = to_product.len() as u64;
        if let FinKind::Tuple { listed, .. } = &mut kind {
            *listed = Some(Arc::new(Listed {
                to_product,
                to_rank,
            }));
        }
        Ok(Fin { card, kind })
    }

    /// The rank of a value of finite type `fin`, or `None` if it is outside the carrier.
    pub fn rank_of(&self, fin: &Fin, v: &Value) -> Option<u64> {
        match (&fin.kind, v) {
            (FinKind::Bool, Value::Bool(b)) => Some(*b as u64),
            (FinKind::Enum(_), Value::Enum(_, k)) => Some(*k as u64),
            (FinKind::Int { .. }, Value::Int(i)) => fin.rank(*i),
            (FinKind::Char { .. }, Value::Char(c)) => fin.rank(*c as i64),
            (FinKind::Null(_), Value::Nil) => Some(0),
            (FinKind::Null(i), Value::Embed(x)) => Some(1 + self.rank_of(self.get(*i), x)?),
            (
                FinKind::Tuple {
                    fields,
                    strides,
                    listed,
                    ..
                },
                Value::Tuple(xs),
            ) => {
                let mut r = 0;
                for ((f, s), x) in fields.iter().zip(strides).zip(xs.iter()) {
                    r += self.rank_of(self.get(*f), x)? * s;
                }
                match listed {
                    None => Some(r),
                    Some(l) => match *l.to_rank.get(r as usize)? {
                        u32::MAX => None,
                        k => Some(k as u64),
                    },
                }
            }
            (FinKind::Set(e), Value::Set(xs)) => {
                let mut mask = 0u64;
                for x in xs.iter() {
                    mask |= 1 << self.rank_of(self.get(*e), x)?;
                }
                Some(mask)
            }
            _ => None,
        }
    }

    /// The value of rank `r` of finite type `fin`.
    pub fn value_of(&self, fin: &Fin, r: u64) -> Value {
        match &fin.kind {
            FinKind::Bool => Value::Bool(r != 0),
            FinKind::Enum(id) => Value::Enum(*id, r as u32),
            FinKind::Int { lo } => Value::Int(lo + r as i64),
            FinKind::Char { lo } => char_value(lo + r as i64),
            FinKind::Null(i) => match r {
                0 => Value::Nil,
                _ => Value::Embed(Arc::new(self.value_of(self.get(*i), r - 1))),
            },
            FinKind::Tuple {
                fields,
                strides,
                listed,
                ..
            } => Value::Tuple(
                field_ranks(self, fields, strides, listed, r)
                    .map(|(f, fr)| self.value_of(self.get(f), fr))
                    .collect(),
            ),
            FinKind::Set(e) => {
                let e = self.get(*e);
                Value::Set(
                    (0..64)
                        .filter(|b| r >> b & 1 != 0)
                        .map(|b| self.value_of(e, b))
                        .collect(),
                )
            }
        }
    }
}

/// The fields' types and ranks of the tuple of rank `r` (of a tuple type with these fields,
/// strides and list).
pub fn field_ranks<'a>(
    fins: &'a Fins,
    fields: &'a [FinId],
    strides: &'a [u64],
    listed: &Option<Arc<Listed>>,
    r: u64,
) -> impl Iterator<Item = (FinId, u64)> + 'a {
    let p = match listed {
        None => r,
        Some(l) => l.to_product[r as usize],
    };
    fields
        .iter()
        .zip(strides)
        .map(move |(f, s)| (*f, (p / s) % fins.get(*f).card))
}

/// The character of a code point (one that came from a character: words of `Char` values are
/// only ever made from characters).
fn char_value(point: i64) -> Value {
    Value::Char(
        u32::try_from(point)
            .ok()
            .and_then(char::from_u32)
            .unwrap_or(char::REPLACEMENT_CHARACTER),
    )
}

/// How a type's values are held in words: the integer itself, a rank, or an interned id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repr {
    /// `Int` or `Nat`: the integer.
    Int,
    /// `Char`: the code point.
    Char,
    /// Any other finite type: the rank.
    Fin(FinId),
    /// Any other type: the id of the value in [`Fins::interner`].
    Interned,
}

/// Where and how a state variable is stored.
#[derive(Debug, Clone)]
pub enum Slot {
    /// One word.
    Word {
        /// Its position.
        offset: u32,
        /// How the word holds the value.
        repr: Repr,
        /// Whether the variable is a `Nat` (assignments of negative integers fail).
        nat: bool,
    },
    /// One word per index value, in rank order.
    Array {
        /// The first entry's position.
        offset: u32,
        /// The index type.
        index: FinId,
        /// How an entry is held.
        elem: Repr,
        /// The array's default (arrays are compiled only while every state shares it).
        default: Option<Value>,
        /// For the variable of a component family in a flattened composite: which index
        /// ranks are members. Reading or writing another entry is the composite's error
        /// (E0515, no such member), so the compiled code stops there with a fault.
        members: Option<Arc<Vec<bool>>>,
    },
    /// A bit set of element ranks over `words` words.
    BigSet {
        /// The first word's position.
        offset: u32,
        /// The element type.
        elem: FinId,
        /// How many words.
        words: u32,
    },
}

/// The word representation of a value of `ty` (one that is not a set or array state
/// variable): integers and characters as themselves, values of finite types by rank, and
/// everything else interned.
pub fn repr_of(fins: &mut Fins, ty: &Type) -> Repr {
    match ty {
        Type::Int | Type::Nat => Repr::Int,
        Type::Char => Repr::Char,
        _ => match fins.of(ty) {
            Ok(f) => Repr::Fin(f),
            Err(_) => Repr::Interned,
        },
    }
}

/// The word of a value under `repr`, or `None` if it is outside the carrier.
pub fn word_of(fins: &Fins, repr: Repr, v: &Value) -> Option<i64> {
    match (repr, v) {
        (Repr::Int, Value::Int(i)) => Some(*i),
        (Repr::Char, Value::Char(c)) => Some(*c as i64),
        (Repr::Int | Repr::Char, _) => None,
        (Repr::Fin(f), v) => fins.rank_of(fins.get(f), v).map(|r| r as i64),
        (Repr::Interned, v) => Some(fins.interner.intern(v.clone())),
    }
}

/// The value of a word under `repr`.
pub fn value_of_word(fins: &Fins, repr: Repr, w: i64) -> Value {
    match repr {
        Repr::Int => Value::Int(w),
        Repr::Char => char_value(w),
        Repr::Fin(f) => match fins.tables.get(f as usize) {
            Some(Some(table)) => table[w as usize].clone(),
            _ => fins.value_of(fins.get(f), w as u64),
        },
        Repr::Interned => fins.interner.value(w),
    }
}

/// The state layout: a slot per state variable.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The slots, by state variable.
    pub slots: Vec<Slot>,
    /// The declared types of the state variables.
    pub types: Vec<Type>,
    /// Total words.
    pub words: usize,
    /// The positions of the words that hold interned ids, in order.
    pub interned: Vec<u32>,
}

impl Layout {
    /// Lays out the variables of a primitive machine.
    pub fn new(fins: &mut Fins, types: &[Type]) -> Result<Layout, Unsupported> {
        let mut slots = Vec::new();
        let mut words = 0usize;
        let mut interned = Vec::new();
        for ty in types {
            let offset = words as u32;
            let indexed = |fins: &mut Fins, t: &Type| {
                fins.of(t).ok().filter(|&f| fins.get(f).card <= MAX_INDEXED)
            };
            let slot = match ty {
                Type::Array(index, elem) if indexed(fins, index).is_some() => {
                    let index = indexed(fins, index).expect("checked");
                    let n = fins.get(index).card as usize;
                    let elem = repr_of(fins, elem);
                    if elem == Repr::Interned {
                        interned.extend(offset..offset + n as u32);
                    }
                    words += n;
                    Slot::Array {
                        offset,
                        index,
                        elem,
                        default: None,
                        members: None,
                    }
                }
                Type::Set(elem) if indexed(fins, elem).is_some_and(|e| fins.get(e).card > 63) => {
                    let e = indexed(fins, elem).expect("checked");
                    let w = fins.get(e).card.div_ceil(64) as u32;
                    words += w as usize;
                    Slot::BigSet {
                        offset,
                        elem: e,
                        words: w,
                    }
                }
                _ => {
                    let repr = repr_of(fins, ty);
                    if repr == Repr::Interned {
                        interned.push(offset);
                    }
                    words += 1;
                    Slot::Word {
                        offset,
                        repr,
                        nat: *ty == Type::Nat,
                    }
                }
            };
            slots.push(slot);
        }
        Ok(Layout {
            slots,
            types: types.to_vec(),
            words,
            interned,
        })
    }

    /// Marks array slot `slot` as a component family's variable whose members are the index
    /// values `members` (see [`Slot::Array`]); `None` if it is not an array or a member is
    /// outside the index type.
    pub fn set_members(&mut self, fins: &Fins, slot: usize, members: &[Value]) -> Option<()> {
        let Slot::Array {
            index, members: m, ..
        } = &mut self.slots[slot]
        else {
            return None;
        };
        let fin = fins.get(*index);
        let mut mask = vec![false; fin.card as usize];
        for v in members {
            mask[fins.rank_of(fin, v)? as usize] = true;
        }
        *m = Some(Arc::new(mask));
        Some(())
    }

    /// Records the default of every array variable from a start state (arrays are compiled
    /// only while every state shares their default); `None` if `state` has another one.
    pub fn record_defaults(&mut self, state: &[Value]) -> Option<()> {
        for (slot, v) in self.slots.iter_mut().zip(state) {
            if let Slot::Array { default, .. } = slot {
                let Value::Array(a) = v else { return None };
                match default {
                    None => *default = Some(a.default.clone()),
                    Some(d) if *d != a.default => return None,
                    Some(_) => {}
                }
            }
        }
        Some(())
    }

    /// Encodes an interpreter state; `None` if a value is outside what the layout can hold
    /// (including an array whose default is not the recorded one).
    pub fn encode(&self, fins: &Fins, state: &[Value]) -> Option<Box<[i64]>> {
        let mut out = vec![0i64; self.words];
        for (k, v) in state.iter().enumerate().take(self.slots.len()) {
            self.encode_slot(fins, k, v, &mut out)?;
        }
        Some(out.into())
    }

    /// Writes the words of value `v` of state variable `slot` into `out`; `None` if the value
    /// is outside what the slot can hold.
    pub fn encode_slot(&self, fins: &Fins, slot: usize, v: &Value, out: &mut [i64]) -> Option<()> {
        match &self.slots[slot] {
            Slot::Word { offset, repr, .. } => out[*offset as usize] = word_of(fins, *repr, v)?,
            Slot::Array {
                offset,
                index,
                elem,
                default,
                ..
            } => {
                let Value::Array(a) = v else { return None };
                if default.as_ref() != Some(&a.default) {
                    return None;
                }
                let index = fins.get(*index);
                let base = word_of(fins, *elem, &a.default)?;
                out[*offset as usize..][..index.card as usize].fill(base);
                for (k, x) in a.entries.iter() {
                    let r = fins.rank_of(index, k)?;
                    out[*offset as usize + r as usize] = word_of(fins, *elem, x)?;
                }
            }
            Slot::BigSet {
                offset,
                elem,
                words,
            } => {
                let Value::Set(xs) = v else { return None };
                out[*offset as usize..][..*words as usize].fill(0);
                for x in xs.iter() {
                    let r = fins.rank_of(fins.get(*elem), x)? as usize;
                    out[*offset as usize + r / 64] |= 1 << (r % 64);
                }
            }
        }
        Some(())
    }

    /// Decodes a state into interpreter values.
    pub fn decode(&self, fins: &Fins, words: &[i64]) -> Vec<Value> {
        (0..self.slots.len())
            .map(|k| self.decode_slot(fins, k, words))
            .collect()
    }

    /// Where state variable `slot`'s words are: the first one's position and how many.
    pub fn slot_words(&self, fins: &Fins, slot: u32) -> (usize, usize) {
        match &self.slots[slot as usize] {
            Slot::Word { offset, .. } => (*offset as usize, 1),
            Slot::Array { offset, index, .. } => (*offset as usize, fins.get(*index).card as usize),
            Slot::BigSet { offset, words, .. } => (*offset as usize, *words as usize),
        }
    }

    /// The interpreter's value of state variable `slot`.
    pub fn decode_slot(&self, fins: &Fins, slot: usize, words: &[i64]) -> Value {
        match &self.slots[slot] {
            Slot::Word { offset, repr, .. } => value_of_word(fins, *repr, words[*offset as usize]),
            Slot::Array {
                offset,
                index,
                elem,
                default,
                ..
            } => {
                let default = default.clone().unwrap_or(Value::Nil);
                let index = fins.get(*index);
                let mut a = Arc::new(ArrayValue {
                    default: default.clone(),
                    entries: Default::default(),
                });
                for r in 0..index.card {
                    let x = value_of_word(fins, *elem, words[*offset as usize + r as usize]);
                    if x != default {
                        if let Value::Array(b) = Value::array_set(&a, fins.value_of(index, r), x) {
                            a = b;
                        }
                    }
                }
                Value::Array(a)
            }
            Slot::BigSet {
                offset,
                elem,
                words: n,
            } => {
                let e = fins.get(*elem);
                let bits = &words[*offset as usize..][..*n as usize];
                Value::Set(
                    (0..e.card)
                        .filter(|r| bits[(r / 64) as usize] as u64 >> (r % 64) & 1 != 0)
                        .map(|r| fins.value_of(e, r))
                        .collect(),
                )
            }
        }
    }

    /// The value of a component family's variable as the composite's code may read it: a map
    /// from each member's index to its entry, so that reading a non-member is an error there
    /// too (see [`Slot::Array`]); the array itself for any other variable.
    pub fn decode_slot_for_reading(&self, fins: &Fins, slot: usize, words: &[i64]) -> Value {
        match &self.slots[slot] {
            Slot::Array {
                offset,
                index,
                elem,
                members: Some(mask),
                ..
            } => {
                let index = fins.get(*index);
                Value::Map(
                    mask.iter()
                        .enumerate()
                        .filter(|(_, m)| **m)
                        .map(|(r, _)| {
                            (
                                fins.value_of(index, r as u64),
                                value_of_word(fins, *elem, words[*offset as usize + r]),
                            )
                        })
                        .collect(),
                )
            }
            _ => self.decode_slot(fins, slot, words),
        }
    }
}
