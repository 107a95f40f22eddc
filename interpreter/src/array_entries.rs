//! The entries of an array value that differ from its default, as a vector sorted by key.
//!
//! Arrays are indexed by small finite types (nodes, ballots, rounds), so they hold a handful of
//! entries, and every array value already sits behind its own `Arc`. A persistent B-tree
//! (`imbl::OrdMap`, used here before) copied a whole node of 16 slots for each update and
//! allocated it afresh; a sorted vector copies just the entries there are and is searched by
//! bisection. Profiling `ioa explore` on the GROOVE-vs-SPIN Paxos model put 12% of the time in
//! array updates before this change.
//!
//! Order, equality and hashing are those of the ordered map it replaced (the entries in key
//! order, each hashed as its key then its value), so fingerprints and value order did not
//! change.

use crate::value::Value;
use std::hash::{Hash, Hasher};

/// Key-sorted `(index, value)` pairs with distinct keys.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct ArrayEntries {
    sorted: Vec<(Value, Value)>,
}

impl ArrayEntries {
    /// No entries.
    pub fn new() -> Self {
        ArrayEntries { sorted: Vec::new() }
    }

    /// The value at `key`, if it has an entry.
    pub fn get(&self, key: &Value) -> Option<&Value> {
        self.sorted
            .binary_search_by(|(k, _)| k.cmp(key))
            .ok()
            .map(|i| &self.sorted[i].1)
    }

    /// A copy with `key` set to `value`.
    pub fn update(&self, key: Value, value: Value) -> Self {
        let mut sorted = Vec::with_capacity(self.sorted.len() + 1);
        match self.sorted.binary_search_by(|(k, _)| k.cmp(&key)) {
            Ok(i) => {
                sorted.extend_from_slice(&self.sorted[..i]);
                sorted.push((key, value));
                sorted.extend_from_slice(&self.sorted[i + 1..]);
            }
            Err(i) => {
                sorted.extend_from_slice(&self.sorted[..i]);
                sorted.push((key, value));
                sorted.extend_from_slice(&self.sorted[i..]);
            }
        }
        ArrayEntries { sorted }
    }

    /// A copy without an entry for `key`.
    pub fn without(&self, key: &Value) -> Self {
        match self.sorted.binary_search_by(|(k, _)| k.cmp(key)) {
            Ok(i) => {
                let mut sorted = Vec::with_capacity(self.sorted.len() - 1);
                sorted.extend_from_slice(&self.sorted[..i]);
                sorted.extend_from_slice(&self.sorted[i + 1..]);
                ArrayEntries { sorted }
            }
            Err(_) => self.clone(),
        }
    }

    /// The entries in key order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&Value, &Value)> + '_ {
        self.sorted.iter().map(|(k, v)| (k, v))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &Value> + '_ {
        self.sorted.iter().map(|(k, _)| k)
    }

    /// The values in key order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = &Value> + '_ {
        self.sorted.iter().map(|(_, v)| v)
    }

    /// How many entries there are.
    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }
}

/// Collects pairs in any order; a later pair for the same key wins, as with a map.
impl FromIterator<(Value, Value)> for ArrayEntries {
    fn from_iter<I: IntoIterator<Item = (Value, Value)>>(iter: I) -> Self {
        let mut sorted: Vec<(Value, Value)> = iter.into_iter().collect();
        // Stable, so equal keys keep their order and the last one is kept below.
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        let mut deduped: Vec<(Value, Value)> = Vec::with_capacity(sorted.len());
        for (k, v) in sorted {
            match deduped.last_mut() {
                Some(last) if last.0 == k => last.1 = v,
                _ => deduped.push((k, v)),
            }
        }
        ArrayEntries { sorted: deduped }
    }
}

impl Hash for ArrayEntries {
    fn hash<H: Hasher>(&self, state: &mut H) {
        for (k, v) in &self.sorted {
            k.hash(state);
            v.hash(state);
        }
    }
}

impl std::fmt::Debug for ArrayEntries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use imbl::OrdMap;
    use std::hash::DefaultHasher;

    fn hash_of(x: &impl Hash) -> u64 {
        let mut h = DefaultHasher::new();
        x.hash(&mut h);
        h.finish()
    }

    /// Updates, removals, lookups, order and hashes agree with the ordered map.
    #[test]
    fn behaves_like_an_ordered_map() {
        let mut map: OrdMap<Value, Value> = OrdMap::new();
        let mut entries = ArrayEntries::new();
        let script = [(3, 1), (1, 2), (3, 5), (7, 0), (1, -1), (4, 4), (7, 9)];
        for (step, &(k, v)) in script.iter().enumerate() {
            let (k, v) = (Value::Int(k), Value::Int(v));
            if step % 3 == 2 {
                map = map.without(&k);
                entries = entries.without(&k);
            } else {
                map = map.update(k.clone(), v.clone());
                entries = entries.update(k, v);
            }
            let listed: Vec<_> = entries.iter().collect();
            let expected: Vec<_> = map.iter().collect();
            assert_eq!(listed, expected);
            assert_eq!(hash_of(&entries), hash_of(&map));
            for probe in 0..9 {
                assert_eq!(entries.get(&Value::Int(probe)), map.get(&Value::Int(probe)));
            }
        }
        let collected: ArrayEntries = map
            .iter()
            .rev()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        assert_eq!(collected, entries);
        let smaller = entries.without(&Value::Int(4));
        assert_eq!(
            smaller.cmp(&entries),
            map.without(&Value::Int(4)).cmp(&map),
            "order as the map's"
        );
    }
}
