//! A bounded cache of canonical fingerprints, keyed by the concrete state's fingerprint.
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

/// Entries per shard (a power of two), and shards: 2^20 entries of 32 bytes, 32 MiB at most;
/// a shard is allocated when first written.
const SHARD_BITS: u32 = 12;
const SHARDS: usize = 256;

/// Canonical fingerprints of recently canonicalised states.
pub(super) struct Memo {
    shards: Vec<Mutex<Vec<(u128, u128)>>>,
}

impl Memo {
    /// An empty cache.
    pub(super) fn new() -> Memo {
        Memo {
            shards: (0..SHARDS).map(|_| Mutex::new(Vec::new())).collect(),
        }
    }

    /// Where `key` is kept: its shard and slot.
    fn place(key: u128) -> (usize, usize) {
        let low = key as u64;
        let shard = (low as usize) % SHARDS;
        let slot = ((low >> 32) as usize) & ((1 << SHARD_BITS) - 1);
        (shard, slot)
    }

    /// The canonical fingerprint recorded for the concrete fingerprint `key`, if still there.
    pub(super) fn get(&self, key: u128) -> Option<u128> {
        let (shard, slot) = Self::place(key);
        let entries = self.shards[shard].lock().ok()?;
        let &(k, v) = entries.get(slot)?;
        (k == key && key != 0).then_some(v)
    }

    /// Records the canonical fingerprint `value` of the concrete fingerprint `key`.
    pub(super) fn put(&self, key: u128, value: u128) {
        let (shard, slot) = Self::place(key);
        if let Ok(mut entries) = self.shards[shard].lock() {
            if entries.is_empty() {
                entries.resize(1 << SHARD_BITS, (0, 0));
            }
            entries[slot] = (key, value);
        }
    }
}
