//! The visited set that every worker thread inserts into at once, so that a search with several
//! threads has no serial merge (see `explore/parallel.rs`).
//!
//! Each entry is a 128-bit fingerprint with a 64-bit *key*: the place of the step that first
//! reached the state in the order a one-thread search would take it (its parent's id and the
//! step's rank among the parent's successors). Threads insert in whatever order they run; an
//! entry keeps the smallest key offered (`fetch_min`), so when a level is done each state's key
//! names the parent and step a serial search would have recorded, whatever the number of
//! threads. The key also tells the level an entry was made in (its parent's id), which answers
//! partial-order reduction's question "visited at an earlier or the current level?" exactly
//! while the next level is being inserted.
//!
//! Why not a concurrent map crate (dashmap, papaya, scc): they lock shards or box entries, and
//! this table holds tens of millions of entries in 24 bytes each, claimed with one
//! compare-and-swap; it only ever grows, and only between batches, when no thread is inside it.
//!
//! Layout: open addressing with linear probing over a power-of-two array of slots, indexed by
//! the fingerprint's low word (already uniformly distributed). A slot's high word is 0 while
//! empty and 1 (`BUSY`) while a thread is writing it; fingerprints whose high word is 0 or 1 are
//! stored with 2 added to it, which merges them with another fingerprint at odds of 2⁻⁶³.

use crate::fingerprint::Fingerprint;
use bytemuck::Zeroable;
use rayon::prelude::*;
use std::hint::spin_loop;
use std::sync::atomic::{AtomicU64, Ordering};

/// The high word of a slot being written.
const BUSY: u64 = 1;

/// The high words that mark slots, not fingerprints.
const RESERVED: u64 = 2;

/// The most slots an offer looks at: an entry is never stored further from its first slot, so
/// a lookup can stop there too, and a table so full that a probe runs this long refuses new
/// entries until it grows. (At the half load [`Table::grow`] keeps, a run of 256 taken slots
/// is far less likely than a fingerprint collision.)
const MAX_PROBES: usize = 256;

/// One entry: zeroed when empty (a new table is zeroed memory from the system, whose pages are
/// cleared when first touched, by whichever thread inserts there).
#[derive(Default, Zeroable)]
struct Slot {
    hi: AtomicU64,
    lo: AtomicU64,
    key: AtomicU64,
}

/// What [`Table::offer`] did with a fingerprint and its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// The state is new: keep the successor.
    New,
    /// The state was offered before, and this key is the smallest so far: keep the successor.
    /// It holds the key it replaced (the same key when offered again), whose successor is now
    /// a repeat.
    Won(u64),
    /// A smaller key was offered before: the successor is a repeat.
    Lost,
    /// The state is not stored and the table is too crowded to take it before it grows: keep
    /// the successor and offer it again after [`Table::grow`].
    Full,
}

/// A fixed-capacity concurrent set of fingerprints with their smallest keys.
pub struct Table {
    slots: Box<[Slot]>,
    mask: usize,
    /// Entries stored, as counted by [`Table::stored`] and [`Table::grow`].
    len: usize,
}

impl Table {
    /// A table with [`Table::room`] for at least `entries` fingerprints.
    pub fn with_room(entries: usize) -> Table {
        let capacity = (entries.max(1024) * 2).next_power_of_two();
        Table {
            slots: bytemuck::zeroed_slice_box(capacity),
            mask: capacity - 1,
            len: 0,
        }
    }

    /// The number of fingerprints stored.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no fingerprint is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many more fingerprints fit while at most half the slots are taken (probes stay
    /// short; inserts are only refused at 15/16).
    pub fn room(&self) -> usize {
        (self.slots.len() / 2).saturating_sub(self.len)
    }

    /// The bytes the slots take.
    pub fn bytes(&self) -> u64 {
        (self.slots.len() * std::mem::size_of::<Slot>()) as u64
    }

    fn split(fp: Fingerprint) -> (u64, u64) {
        let hi = (fp >> 64) as u64;
        let hi = if hi < RESERVED { hi + RESERVED } else { hi };
        (hi, fp as u64)
    }

    /// Offers `fp` reached with `key`: stores it if new, lowers its key if `key` is smaller.
    /// The caller counts the [`Offer::New`] answers and hands them to [`Table::stored`] (a
    /// shared counter updated at every insert would move between the cores' caches).
    pub fn offer(&self, fp: Fingerprint, key: u64) -> Offer {
        let (hi, lo) = Self::split(fp);
        let home = lo as usize & self.mask;
        for probe in 0..MAX_PROBES {
            let slot = &self.slots[(home + probe) & self.mask];
            let mut seen = slot.hi.load(Ordering::Acquire);
            if seen == 0 {
                match slot
                    .hi
                    .compare_exchange(0, BUSY, Ordering::Acquire, Ordering::Acquire)
                {
                    Ok(_) => {
                        slot.lo.store(lo, Ordering::Relaxed);
                        slot.key.store(key, Ordering::Relaxed);
                        slot.hi.store(hi, Ordering::Release);
                        return Offer::New;
                    }
                    Err(now) => seen = now,
                }
            }
            while seen == BUSY {
                spin_loop();
                seen = slot.hi.load(Ordering::Acquire);
            }
            if seen == hi && slot.lo.load(Ordering::Relaxed) == lo {
                // Most repeats carry a larger key: a plain load answers them without taking
                // the cache line from the other cores.
                if key > slot.key.load(Ordering::Acquire) {
                    return Offer::Lost;
                }
                let before = slot.key.fetch_min(key, Ordering::AcqRel);
                return if key <= before {
                    Offer::Won(before)
                } else {
                    Offer::Lost
                };
            }
        }
        Offer::Full
    }

    /// Counts `new` entries stored since the last call ([`Offer::New`] answers).
    pub fn stored(&mut self, new: usize) {
        self.len += new;
    }

    /// The smallest key offered for `fp`, if it is stored.
    pub fn key(&self, fp: Fingerprint) -> Option<u64> {
        let (hi, lo) = Self::split(fp);
        let home = lo as usize & self.mask;
        for probe in 0..MAX_PROBES {
            let slot = &self.slots[(home + probe) & self.mask];
            let mut seen = slot.hi.load(Ordering::Acquire);
            while seen == BUSY {
                spin_loop();
                seen = slot.hi.load(Ordering::Acquire);
            }
            if seen == 0 {
                return None;
            }
            if seen == hi && slot.lo.load(Ordering::Relaxed) == lo {
                return Some(slot.key.load(Ordering::Acquire));
            }
        }
        None
    }

    /// Makes room for at least `more` further fingerprints (no thread may be using the table).
    /// The entries move in parallel (on the rayon pool the caller runs in).
    pub fn grow(&mut self, more: usize) {
        if self.room() >= more {
            return;
        }
        let mut entries = self.len + more;
        loop {
            if let Some(bigger) = self.moved(entries) {
                *self = bigger;
                return;
            }
            entries *= 2;
        }
    }

    /// The entries in a table with room for `entries`, unless one lands further than
    /// [`MAX_PROBES`] from its first slot.
    fn moved(&self, entries: usize) -> Option<Table> {
        let mut bigger = Table::with_room(entries);
        let fits = self.slots.par_iter().with_min_len(4096).all(|slot| {
            let hi = slot.hi.load(Ordering::Relaxed);
            if hi == 0 {
                return true;
            }
            let lo = slot.lo.load(Ordering::Relaxed);
            let home = lo as usize & bigger.mask;
            (0..MAX_PROBES).any(|probe| {
                let to = &bigger.slots[(home + probe) & bigger.mask];
                let claimed = to
                    .hi
                    .compare_exchange(0, hi, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok();
                if claimed {
                    to.lo.store(lo, Ordering::Relaxed);
                    to.key
                        .store(slot.key.load(Ordering::Relaxed), Ordering::Relaxed);
                }
                claimed
            })
        });
        bigger.len = self.len;
        fits.then_some(bigger)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn keeps_the_smallest_key_whatever_the_order() {
        let table = Table::with_room(100);
        let fp: Fingerprint = 0xABCD_u128 << 64 | 7;
        assert_eq!(table.offer(fp, 9), Offer::New);
        assert_eq!(table.offer(fp, 12), Offer::Lost);
        assert_eq!(table.offer(fp, 4), Offer::Won(9));
        assert_eq!(table.offer(fp, 4), Offer::Won(4));
        assert_eq!(table.key(fp), Some(4));
        assert_eq!(table.key(fp + 1), None);
    }

    #[test]
    fn reserved_high_words_and_colliding_low_words_are_told_apart() {
        let mut table = Table::with_room(10);
        // Same low word (same first slot), high words 0, 1 and 5.
        let fps = [3u128, 1u128 << 64 | 3, 5u128 << 64 | 3];
        for (k, &fp) in fps.iter().enumerate() {
            assert_eq!(table.offer(fp, k as u64), Offer::New);
        }
        table.stored(3);
        table.grow(5000);
        for (k, &fp) in fps.iter().enumerate() {
            assert_eq!(table.key(fp), Some(k as u64));
        }
        assert_eq!(table.len(), 3);
    }

    #[test]
    fn refuses_new_entries_when_crowded_and_takes_them_after_growing() {
        let mut table = Table::with_room(1);
        // Fingerprints that all start at slot 0.
        let at_zero = |n: u128| (n + 7) << 64;
        let mut stored = 0;
        while table.offer(at_zero(stored), 1) == Offer::New {
            stored += 1;
        }
        assert_eq!(stored as usize, MAX_PROBES);
        table.stored(MAX_PROBES);
        // A stored fingerprint still answers; a new one is refused until the table grows.
        assert_eq!(table.offer(at_zero(5), 0), Offer::Won(1));
        assert_eq!(table.key(at_zero(stored)), None);
        assert_eq!(table.offer(at_zero(stored), 1), Offer::Full);
        assert_eq!(table.offer(1, 1), Offer::New);
        table.stored(1);
        table.grow(table.room() + 1);
        assert_eq!(table.key(at_zero(5)), Some(0));
        assert_eq!(table.key(1), Some(1));
        assert_eq!(table.len(), MAX_PROBES + 1);
    }

    #[test]
    fn threads_inserting_at_once_agree_on_one_entry_and_its_smallest_key() {
        let mut table = Table::with_room(50_000);
        let new = AtomicUsize::new(0);
        // Every fingerprint offered by several threads with different keys.
        (0..200_000u64).into_par_iter().for_each(|i| {
            let n = (i % 40_000) as u128;
            let fp = n.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835);
            if table.offer(fp, i) == Offer::New {
                new.fetch_add(1, Ordering::Relaxed);
            }
        });
        table.stored(new.into_inner());
        assert_eq!(table.len(), 40_000);
        for n in 0..40_000u128 {
            let fp = n.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835);
            assert_eq!(table.key(fp), Some(n as u64));
        }
    }
}
