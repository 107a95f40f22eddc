//! Interned values: a per-run table that gives each distinct value of a type without a fixed
//! word layout (sequences, maps, multisets, strings, reals, union values, sets of large or open
//! element types…) a one-word id.
//!
//! **Why.** The compiled engine's states are flat word vectors: equal words must mean equal
//! values, and a successor must be a copy of words. A value that does not fit a fixed number of
//! words is stored once in this table (hash-consed), and the state holds its id; equal values
//! get equal ids, so word equality stays value equality. The word code hands such values to
//! the interpreter's own operations (`code.rs`, [`super::code::Interp`]), so their semantics
//! are the interpreter's.
//!
//! **Determinism.** Ids depend on the order in which threads meet values, so nothing that
//! leaves a run may depend on them: each entry keeps the value's 128-bit hash (the fingerprint
//! of the value alone, [`crate::fingerprint::fingerprint`]), and state fingerprints and
//! symmetry trees hash that instead of the id (see `mod.rs` and `sym_tree.rs`). A state's
//! fingerprint is then the same on every run, whatever the thread count.
//!
//! **Identity.** Values are looked up by that hash: two distinct values with the same 128-bit
//! hash would share an id. That is the assumption every fingerprint already makes (see
//! [`crate::fingerprint`]); debug builds check it.
//!
//! **Threads.** Workers share the table behind a read-write lock: reads (an id's value or hash)
//! take the shared lock, a new value the exclusive one. Values are never removed during a run.

use crate::fingerprint::{fingerprint, Fingerprint, PassThrough};
use interpreter::value::Value;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::RwLock;

/// The table behind the lock.
#[derive(Default)]
struct Table {
    /// Each id's value and hash.
    values: Vec<(Value, Fingerprint)>,
    /// Each hash's id.
    ids: HashMap<Fingerprint, u32, BuildHasherDefault<PassThrough>>,
}

/// The interned values of one compiled model.
#[derive(Default)]
pub struct Interner {
    table: RwLock<Table>,
}

impl Interner {
    /// The id of `value`, adding it if it is new.
    pub fn intern(&self, value: Value) -> i64 {
        let hash = fingerprint(std::slice::from_ref(&value));
        {
            let table = self
                .table
                .read()
                .expect("the intern table is never poisoned");
            if let Some(&id) = table.ids.get(&hash) {
                debug_assert!(table.values[id as usize].0 == value, "a hash collision");
                return id as i64;
            }
        }
        let mut table = self
            .table
            .write()
            .expect("the intern table is never poisoned");
        if let Some(&id) = table.ids.get(&hash) {
            return id as i64;
        }
        let id = table.values.len() as u32;
        table.values.push((value, hash));
        table.ids.insert(hash, id);
        id as i64
    }

    /// The value of an id this table gave.
    pub fn value(&self, id: i64) -> Value {
        let table = self
            .table
            .read()
            .expect("the intern table is never poisoned");
        table.values[id as usize].0.clone()
    }

    /// The hash of the value of an id this table gave (what fingerprints use in its place).
    pub fn hash(&self, id: i64) -> Fingerprint {
        let table = self
            .table
            .read()
            .expect("the intern table is never poisoned");
        table.values[id as usize].1
    }

    /// Calls `f` with the hash of each id's value, in order, under one lock.
    pub fn each_hash(&self, ids: impl Iterator<Item = i64>, mut f: impl FnMut(Fingerprint)) {
        let table = self
            .table
            .read()
            .expect("the intern table is never poisoned");
        for id in ids {
            f(table.values[id as usize].1);
        }
    }

    /// How many values have been interned.
    pub fn len(&self) -> usize {
        self.table
            .read()
            .expect("the intern table is never poisoned")
            .values
            .len()
    }

    /// Whether no value has been interned.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_values_get_equal_ids_and_hashes_do_not_depend_on_order() {
        let a = Interner::default();
        let b = Interner::default();
        let x = Value::Str("x".into());
        let y = Value::Int(7);
        let (ax, ay) = (a.intern(x.clone()), a.intern(y.clone()));
        let (by, bx) = (b.intern(y.clone()), b.intern(x.clone()));
        assert_eq!(a.intern(x.clone()), ax);
        assert_ne!(ax, ay);
        assert_eq!(a.value(ax), x);
        assert_eq!(a.hash(ax), b.hash(bx));
        assert_eq!(a.hash(ay), b.hash(by));
        assert_eq!(a.len(), 2);
    }
}
