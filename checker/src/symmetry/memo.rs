//! A bounded cache of canonical fingerprints, keyed by the concrete state's fingerprint (also
//! used by the compiled engine for the invariants known to hold in a state,
//! `compiled/unchanged.rs`).
//!
//! Breadth-first search reaches the same concrete state many times (independent steps taken
//! in either order lead to one state), and each time its successors are fingerprinted. A
//! concrete fingerprint costs one pass over the state's values; a canonical one several passes
//! over its hash tree, so remembering recent results saves most repeated canonicalisations.
//!
//! The cache is direct-mapped (one entry per slot, a newer result replaces an older one) and
//! split into shards, each behind its own lock, so worker threads rarely wait for each other.
//! A hit returns what canonicalising the state would return (the canonical fingerprint is a
//! function of the state), so the cache changes no result, only the time taken; two states
//! are taken to be equal when their concrete fingerprints are, as the explorer does anyway.

use std::sync::Mutex;

/// Entries per shard at most (a power of two), and shards: 2^20 entries of 32 bytes, 32 MiB at
/// most. A shard starts with 2^[`FIRST_BITS`] entries when first written and doubles (keeping
/// what it held) whenever it has taken twice as many results as it has entries, so small
/// searches do not pay for zeroing 32 MiB.
const SHARD_BITS: u32 = 12;
const FIRST_BITS: u32 = 6;
const SHARDS: usize = 256;

/// One shard: its entries and how many results it took since it last grew.
#[derive(Default)]
struct Shard {
    entries: Vec<(u128, u128)>,
    puts: usize,
}

/// Canonical fingerprints of recently canonicalised states.
pub(crate) struct Memo {
    shards: Vec<Mutex<Shard>>,
    /// Entries per shard at most (a power of two).
    max_per_shard: usize,
}

impl Memo {
    /// An empty cache.
    pub(crate) fn new() -> Memo {
        Memo::with_shard_bits(SHARD_BITS)
    }

    /// An empty cache of at most 2^`bits` entries per shard (at least 2^[`FIRST_BITS`]).
    pub(crate) fn with_shard_bits(bits: u32) -> Memo {
        Memo {
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(),
            max_per_shard: 1 << bits.max(FIRST_BITS),
        }
    }

    /// Where `key` is kept: its shard, and its slot in a shard of `len` entries.
    fn place(key: u128, len: usize) -> (usize, usize) {
        let low = key as u64;
        let shard = (low as usize) % SHARDS;
        let slot = ((low >> 32) as usize) & len.wrapping_sub(1);
        (shard, slot)
    }

    /// The canonical fingerprint recorded for the concrete fingerprint `key`, if still there.
    pub(crate) fn get(&self, key: u128) -> Option<u128> {
        let (shard, _) = Self::place(key, 0);
        let s = self.shards[shard].lock().ok()?;
        let (_, slot) = Self::place(key, s.entries.len());
        let &(k, v) = s.entries.get(slot)?;
        (k == key && key != 0).then_some(v)
    }

    /// Records the canonical fingerprint `value` of the concrete fingerprint `key`.
    pub(crate) fn put(&self, key: u128, value: u128) {
        let (shard, _) = Self::place(key, 0);
        if let Ok(mut s) = self.shards[shard].lock() {
            let len = s.entries.len();
            if len == 0 || (s.puts > 2 * len && len < self.max_per_shard) {
                let grown = if len == 0 { 1 << FIRST_BITS } else { 2 * len };
                let old = std::mem::replace(&mut s.entries, vec![(0, 0); grown]);
                for (k, v) in old.into_iter().filter(|&(k, _)| k != 0) {
                    let (_, slot) = Self::place(k, grown);
                    s.entries[slot] = (k, v);
                }
                s.puts = 0;
            }
            s.puts += 1;
            let (_, slot) = Self::place(key, s.entries.len());
            s.entries[slot] = (key, value);
        }
    }
}
