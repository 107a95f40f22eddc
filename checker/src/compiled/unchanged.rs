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
//! generated, cost nothing). (2) A bounded cache from the fingerprint the search stores a
//! successor under to the invariants known to hold in it, read when the search checks the
//! state stored under that fingerprint ([`crate::explore::Model::check_stored`]); a lost entry
//! only means evaluating again. Two states with one fingerprint are one state to the search (or,
//! under symmetry, images of each other under a permutation that keeps every invariant's
//! value), so what holds in one holds in the other. The read sets come from the invariants'
//! text: every state variable named in the body; a body that reads state in another way is
//! always evaluated.

use super::layout::{Fins, Layout};
use crate::fingerprint::Fingerprint;
use crate::ir_walk::walk_expr;
use crate::symmetry::memo::Memo;
use ioa_lang::ir::{ExprKind, Spec, VarRef};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

/// The invariants (by position, the first 128) that reading unchanged words keeps true.
pub(super) struct Unchanged {
    /// The invariants whose read sets are known (bit `i` for position `i`); 0: nothing is
    /// ever marked.
    markable: u128,
    /// For each state word, the markable invariants that read it (that read its variable).
    readers: Vec<u128>,
    /// Which invariants are known to hold in a state, by its fingerprint.
    holding: Memo,
    /// This model's identity, for the record of the last state checked.
    id: u64,
}

/// Fewer invariants with known read sets than this, and nothing is marked: the cache entry per
/// stored state costs more than the evaluations it saves (the GROOVE Paxos, 2 invariants:
/// 1.13× the CPU time with marks; the composite Paxos, 27: 0.86×).
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
}

/// The cache's key for a fingerprint (never 0, which the cache takes for "none").
fn key(fp: Fingerprint) -> u128 {
    fp.max(1)
}

impl Unchanged {
    /// The read sets of `invariants` (positions in `spec.invariants`) over `layout`'s words.
    pub(super) fn new(spec: &Spec, invariants: &[usize], layout: &Layout, fins: &Fins) -> Self {
        let n_slots = layout.slots.len();
        // For each state variable, the invariants that read it.
        let mut slot_readers = vec![0u128; n_slots];
        let mut markable = 0u128;
        for (i, &k) in invariants.iter().take(128).enumerate() {
            let mut reads = Vec::new();
            let mut known = true;
            walk_expr(&spec.invariants[k].body, &mut |e| match &e.kind {
                ExprKind::Var(VarRef::State(s)) if (*s as usize) < n_slots => reads.push(*s),
                ExprKind::Var(
                    VarRef::State(_)
                    | VarRef::Qualified { .. }
                    | VarRef::Component { .. }
                    | VarRef::Aux(_),
                ) => known = false,
                _ => {}
            });
            if known {
                markable |= 1 << i;
                for s in reads {
                    slot_readers[s as usize] |= 1 << i;
                }
            }
        }
        if (markable.count_ones() as usize) < MIN_INVARIANTS {
            markable = 0;
        }
        // A word of no variable (none today) marks nothing when it changes.
        let mut readers = vec![u128::MAX; layout.words];
        for (s, &r) in slot_readers.iter().enumerate() {
            let (offset, words) = layout.slot_words(fins, s as u32);
            for w in offset..offset + words {
                if let Some(x) = readers.get_mut(w) {
                    *x = r;
                }
            }
        }
        Unchanged {
            markable,
            readers,
            holding: Memo::with_shard_bits(CACHE_SHARD_BITS),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// Whether successors are ever marked (enough invariants have known read sets).
    pub(super) fn marks(&self) -> bool {
        self.markable != 0
    }

    /// The invariants known to hold in the state stored under `fp` (bit `i` for position `i`).
    pub(super) fn known(&self, fp: Fingerprint) -> u128 {
        if self.markable == 0 {
            return 0;
        }
        self.holding.get(key(fp)).unwrap_or(0)
    }

    /// Records that every invariant held in `state`.
    pub(super) fn passed(&self, state: &[i64]) {
        if self.markable == 0 {
            return;
        }
        PASSED.with(|p| {
            let passed = &mut p.borrow_mut();
            passed.0 = self.id;
            passed.1.clear();
            passed.1.extend_from_slice(state);
        });
    }

    /// Marks in `child`, a successor of `parent` to be stored under `fp`, the invariants that
    /// read no word the step changed, when `parent` is the state that last passed every
    /// invariant on this thread.
    pub(super) fn note_successor(&self, parent: &[i64], child: &[i64], fp: Fingerprint) {
        if self.markable == 0
            || !PASSED.with(|p| {
                let passed = p.borrow();
                passed.0 == self.id && passed.1 == parent
            })
        {
            return;
        }
        let mut touched = 0u128;
        for ((a, b), r) in parent.iter().zip(child).zip(&self.readers) {
            if a != b {
                touched |= r;
            }
        }
        let mask = self.markable & !touched;
        // The search stores a fingerprint once, so there is rarely an earlier mark to keep
        // (when two parents of one batch reach it, either's mark is true of it).
        if mask != 0 {
            self.holding.put(key(fp), mask);
        }
    }
}
