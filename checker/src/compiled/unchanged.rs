//! Invariants known to hold in a state because it differs from a checked parent only in
//! words they do not read.
//!
//! An invariant's value is a function of the state words it reads (and of the automaton's
//! parameters and interned values, which no step changes). So when every invariant held in a
//! state `s` and a step leads to `s'` without changing any word an invariant reads, that
//! invariant holds in `s'` too, and checking `s'` need not evaluate it. The composite Paxos
//! checks 27 invariants in every state, most of which read a few of its variables, while a
//! step changes one node and the network.
//!
//! Soundness rests on two records. (1) Which state last passed every invariant on this thread
//! ([`Unchanged::passed`], by its words and the model's identity): a successor is
//! marked only when the search stores it as new ([`crate::explore::Model::storing`]) right
//! after checking its parent, so a successor of a parent that was not checked, or that
//! violates an invariant, gets no mark (and duplicates of visited states, most of what is
//! generated, cost nothing). (2) A bounded
//! cache from a successor's words (by hash) to the invariants known to hold in it; a lost
//! entry only means evaluating again. The read sets come from the invariants' text: every
//! state variable named in the body; a body that reads state in another way is always
//! evaluated.

use super::layout::{Fins, Layout};
use crate::ir_walk::walk_expr;
use crate::symmetry::memo::Memo;
use ioa_lang::ir::{ExprKind, Spec, VarRef};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use xxhash_rust::xxh3::xxh3_128_with_seed;

/// The invariants (by position, the first 128) that reading unchanged words keeps true.
pub(super) struct Unchanged {
    /// For each invariant, the state variables it reads as a bit set; `None`: not known.
    reads: Vec<Option<Vec<u64>>>,
    /// The state variable each word belongs to.
    word_slot: Vec<u32>,
    /// How many state variables.
    n_slots: usize,
    /// Which invariants are known to hold in a state, by the hash of its words.
    holding: Memo,
    /// This model's identity, for the record of the last state checked.
    id: u64,
}

/// Fewer invariants with known read sets than this, and nothing is marked: the two hashes and
/// the cache entry per stored state cost more than the evaluations they save (the GROOVE
/// Paxos, 2 invariants: 1.13× the CPU time with marks; the composite Paxos, 27: 0.86×).
const MIN_INVARIANTS: usize = 4;

/// The cache of known-true invariants holds at most 256 × 2^this entries of 32 bytes (4 MiB):
/// with the 32 MiB of the symmetry's memo, the composite Paxos within 16 steps (58,440 states)
/// took 860 bytes per state instead of 642.
const CACHE_SHARD_BITS: u32 = 9;

/// Numbers the models, so that one thread's record of a checked state is never taken for a
/// state of another model with the same words.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The model and the words of the state that last passed every invariant on this thread
    /// (compared word by word with each parent, which is cheaper than hashing it).
    static PASSED: RefCell<(u64, Vec<i64>)> = const { RefCell::new((0, Vec::new())) };
    /// A byte buffer for hashing words.
    static BYTES: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The changed state variables of one successor, as a bit set.
    static CHANGED: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// A hash of a state's words (ids of interned values as they are: the record lives as long as
/// the run).
fn words_hash(state: &[i64]) -> u128 {
    BYTES.with(|b| {
        let bytes = &mut b.borrow_mut();
        bytes.clear();
        for w in state {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        // Never 0, which the cache and the record take for "none".
        xxh3_128_with_seed(bytes, crate::fingerprint::SEED) | 1
    })
}

impl Unchanged {
    /// The read sets of `invariants` (positions in `spec.invariants`) over `layout`'s words.
    pub(super) fn new(spec: &Spec, invariants: &[usize], layout: &Layout, fins: &Fins) -> Self {
        let n_slots = layout.slots.len();
        let mut word_slot = vec![0u32; layout.words];
        for s in 0..n_slots {
            let (offset, words) = layout.slot_words(fins, s as u32);
            for w in offset..offset + words {
                if let Some(x) = word_slot.get_mut(w) {
                    *x = s as u32;
                }
            }
        }
        let reads: Vec<Option<Vec<u64>>> = invariants
            .iter()
            .take(128)
            .map(|&k| {
                let mut bits = vec![0u64; n_slots.div_ceil(64)];
                let mut known = true;
                walk_expr(&spec.invariants[k].body, &mut |e| match &e.kind {
                    ExprKind::Var(VarRef::State(s)) if (*s as usize) < n_slots => {
                        bits[*s as usize / 64] |= 1 << (*s % 64);
                    }
                    ExprKind::Var(
                        VarRef::State(_)
                        | VarRef::Qualified { .. }
                        | VarRef::Component { .. }
                        | VarRef::Aux(_),
                    ) => known = false,
                    _ => {}
                });
                known.then_some(bits)
            })
            .collect();
        let known = reads.iter().filter(|r| r.is_some()).count();
        let reads = if known >= MIN_INVARIANTS {
            reads
        } else {
            Vec::new()
        };
        Unchanged {
            reads,
            word_slot,
            n_slots,
            holding: Memo::with_shard_bits(CACHE_SHARD_BITS),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// The invariants known to hold in `state` (bit `i` for position `i`).
    pub(super) fn known(&self, state: &[i64]) -> u128 {
        if self.reads.is_empty() {
            return 0;
        }
        self.holding.get(words_hash(state)).unwrap_or(0)
    }

    /// Records that every invariant held in `state`.
    pub(super) fn passed(&self, state: &[i64]) {
        if self.reads.is_empty() {
            return;
        }
        PASSED.with(|p| {
            let passed = &mut p.borrow_mut();
            passed.0 = self.id;
            passed.1.clear();
            passed.1.extend_from_slice(state);
        });
    }

    /// Marks in `child`, a successor of `parent`, the invariants that read no word the step
    /// changed, when `parent` is the state that last passed every invariant on this thread.
    pub(super) fn note_successor(&self, parent: &[i64], child: &[i64]) {
        if self.reads.iter().all(Option::is_none)
            || !PASSED.with(|p| {
                let passed = p.borrow();
                passed.0 == self.id && passed.1 == parent
            })
        {
            return;
        }
        let mask = CHANGED.with(|c| {
            let changed = &mut c.borrow_mut();
            changed.clear();
            changed.resize(self.n_slots.div_ceil(64), 0);
            for (w, (a, b)) in parent.iter().zip(child.iter()).enumerate() {
                if a != b {
                    let s = self.word_slot[w] as usize;
                    changed[s / 64] |= 1 << (s % 64);
                }
            }
            let mut mask = 0u128;
            for (i, reads) in self.reads.iter().enumerate() {
                let Some(reads) = reads else { continue };
                if !reads.iter().zip(changed.iter()).any(|(r, c)| r & c != 0) {
                    mask |= 1 << i;
                }
            }
            mask
        });
        if mask != 0 {
            let key = words_hash(child);
            let old = self.holding.get(key).unwrap_or(0);
            self.holding.put(key, old | mask);
        }
    }
}
