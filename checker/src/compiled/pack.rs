//! A compiled state packed into as few 64-bit words as its layout allows, which is how the
//! search keeps the states it has yet to expand.
//!
//! The compiled code evaluates on one word per variable or array entry ([`super::layout`]),
//! but most of those words hold a boolean, a rank of a small type or a small bit set. Each
//! word gets a *field* of the bits its values need, fixed per model: a rank of a type of `n`
//! values takes ⌈log₂ n⌉ bits (none for a type of one value), a bounded integer type its
//! offset from the least, a character 21 bits, an interned id 32, an `Int` or `Nat` 16 (a
//! search that meets a wider integer explores again with 64-bit integers); the words of large
//! bit sets keep 64. Fields go widest first to the first packed word with room and never
//! straddle two, so packing and unpacking are a shift and a mask per field. The composite
//! Paxos's 56 words pack into 7 (56 bytes instead of 448), the GROOVE Paxos's 34 into 12.
//!
//! Packing never cuts a value: a word outside its field (which the compiled code never writes
//! for a finite type, since ranks are checked where they are made) is reported as
//! [`Fault::Unrepresentable`], or for an integer as [`Fault::WideInteger`].

use super::code::Fault;
use super::layout::{Fins, Layout, Repr, Slot};

/// A state as the search stores it: its words packed by the model's [`Packing`].
pub type Packed = Box<[u64]>;

/// Where one state word lives in the packed words.
#[derive(Debug, Clone, Copy)]
struct Field {
    /// The state word.
    word: u32,
    /// The field's lowest bit in its packed word.
    shift: u32,
    /// The field's bits, shifted down (all ones for a 64-bit field, none for a field of no
    /// bits, which sits in packed word 0, where packing checks that its word is the bias).
    mask: u64,
    /// The least value: a word is stored as its offset from it.
    bias: i64,
    /// Whether the word is an `Int` or `Nat` (whose field may be too narrow for a value).
    int: bool,
}

/// How a model's state words are packed.
#[derive(Debug, Clone)]
pub struct Packing {
    /// One per state word, grouped by packed word in order.
    fields: Vec<Field>,
    /// Where each packed word's fields end in `fields`.
    ends: Vec<u32>,
    /// The bits of an integer field.
    int_bits: u32,
}

/// The least word and how many values a word of `repr` may hold (`None`: any 64-bit word),
/// with integers in `int_bits` bits.
fn range(fins: &Fins, repr: Repr, int_bits: u32) -> Option<(i64, u64)> {
    match repr {
        Repr::Int if int_bits < 64 => Some((-(1 << (int_bits - 1)), 1 << int_bits)),
        Repr::Int => None,
        // Ids are 32-bit (`intern.rs`).
        Repr::Interned => Some((0, 1 << 32)),
        Repr::Char => Some((0, 0x11_0000)),
        Repr::Fin(f) => {
            let fin = fins.get(f);
            // An empty type has no word to hold; a saturated count is a set type too large
            // to enumerate, whose masks may use every bit.
            (fin.card > 0 && fin.card < u64::MAX).then(|| (fin.word(0), fin.card))
        }
    }
}

impl Packing {
    /// The packing of `layout`'s words, with integers in `int_bits` bits (64, or a narrower
    /// width that [`Packing::pack`] may find too narrow).
    pub fn new(fins: &Fins, layout: &Layout, int_bits: u32) -> Packing {
        let mut ranges = vec![None; layout.words];
        let mut ints = vec![false; layout.words];
        for slot in &layout.slots {
            match slot {
                Slot::Word { offset, repr, .. } => {
                    ranges[*offset as usize] = range(fins, *repr, int_bits);
                    ints[*offset as usize] = *repr == Repr::Int;
                }
                Slot::Array {
                    offset,
                    index,
                    elem,
                    ..
                } => {
                    let n = fins.get(*index).card as usize;
                    let r = range(fins, *elem, int_bits);
                    let at = *offset as usize..*offset as usize + n;
                    ranges[at.clone()].fill(r);
                    ints[at].fill(*elem == Repr::Int);
                }
                // Every bit of a large set's words may be set.
                Slot::BigSet { .. } => {}
            }
        }
        let widths: Vec<(i64, u32)> = ranges
            .into_iter()
            .map(|r| match r {
                Some((lo, card)) => (lo, 64 - (card - 1).leading_zeros()),
                None => (0, 64),
            })
            .collect();
        // First fit, widest first: each field goes to the first packed word with room.
        let mut order: Vec<usize> = (0..widths.len()).collect();
        order.sort_by_key(|&k| std::cmp::Reverse(widths[k].1));
        let mut used: Vec<u32> = Vec::new();
        // (packed word, field) for each state word.
        let mut placed = vec![(0u32, None); widths.len()];
        for k in order {
            let (bias, bits) = widths[k];
            let int = ints[k];
            let word = k as u32;
            if bits == 0 {
                // A shift by 64 would overflow.
                let field = Field {
                    word,
                    shift: 0,
                    mask: 0,
                    bias,
                    int,
                };
                placed[k] = (0, Some(field));
                continue;
            }
            let at = match used.iter().position(|&u| u + bits <= 64) {
                Some(w) => w,
                None => {
                    used.push(0);
                    used.len() - 1
                }
            };
            let mask = if bits == 64 {
                u64::MAX
            } else {
                (1 << bits) - 1
            };
            let shift = used[at];
            placed[k] = (
                at as u32,
                Some(Field {
                    word,
                    shift,
                    mask,
                    bias,
                    int,
                }),
            );
            used[at] += bits;
        }
        placed.sort_by_key(|&(at, _)| at);
        // At least one word, which a field of no bits reads.
        let words = used.len().max(1) as u32;
        let ends = (0..words)
            .map(|w| placed.partition_point(|&(at, _)| at <= w) as u32)
            .collect();
        let fields = placed
            .into_iter()
            .map(|(_, f)| f.expect("placed"))
            .collect();
        Packing {
            fields,
            ends,
            int_bits,
        }
    }

    /// Packed words per state.
    pub fn words(&self) -> usize {
        self.ends.len()
    }

    /// The bits of an integer field.
    pub fn int_bits(&self) -> u32 {
        self.int_bits
    }

    /// `state`'s words packed, or, for a word outside its field, [`Fault::WideInteger`] (an
    /// integer) or [`Fault::Unrepresentable`] (any other word).
    pub fn pack(&self, state: &[i64]) -> Result<Packed, Fault> {
        let mut out = Vec::with_capacity(self.ends.len());
        // Any bit outside a field's mask: checked once, after the loop.
        let mut outside = 0u64;
        let mut start = 0;
        for &end in &self.ends {
            let mut packed = 0u64;
            for f in &self.fields[start..end as usize] {
                let v = state[f.word as usize].wrapping_sub(f.bias) as u64;
                outside |= v & !f.mask;
                packed |= v << f.shift;
            }
            out.push(packed);
            start = end as usize;
        }
        if outside != 0 {
            let int = self.fields.iter().any(|f| {
                f.int && state[f.word as usize].wrapping_sub(f.bias) as u64 & !f.mask != 0
            });
            return Err(if int {
                Fault::WideInteger
            } else {
                Fault::Unrepresentable
            });
        }
        Ok(out.into_boxed_slice())
    }

    /// The words of `packed` into `out`, which is resized to the layout's words.
    pub fn unpack_into(&self, packed: &[u64], out: &mut Vec<i64>) {
        out.resize(self.fields.len(), 0);
        let mut start = 0;
        for (&end, &bits) in self.ends.iter().zip(packed) {
            for f in &self.fields[start..end as usize] {
                out[f.word as usize] = (((bits >> f.shift) & f.mask) as i64).wrapping_add(f.bias);
            }
            start = end as usize;
        }
    }
}
