//! Remembered results of [`super::code::Interp`] nodes, by the words they read.
//!
//! An `Interp` node hands a piece of the IR to the interpreter: its inputs are turned from
//! words into values, the interpreter evaluates the expression, and the result is turned
//! back into a word (interning it if its type has no ranks). That is most of the cost of a
//! model whose sequences or nested arrays are interned (LCR's `head(send)`, Paxos's
//! `N[o].proposal[b]`), and the same inputs come back in state after state. The result is a
//! function of the input words alone: the expression reads nothing but its inputs and the
//! automaton's parameters, interned ids stand for one value each for the model's lifetime,
//! and an expression that holds a `choose` is not remembered inside an effect, where the
//! explorer's script resolves the choice (in a predicate a `choose` must have one candidate).
//! So each worker thread keeps a table from a node's id and its input words to its result
//! word; errors are not remembered (the interpreter reports them when it runs).
//!
//! Node ids come from one process-wide counter and are never reused, so a table that outlives
//! a model (a test explores many in one thread) can never answer for another model's node.
//! The table is emptied when it reaches [`MAX_ENTRIES`].

use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

/// Entries per thread before the table is emptied (at most about 45 MiB).
const MAX_ENTRIES: usize = 1 << 18;

/// Nodes that read more words than this are not remembered (the key would cost more than the
/// evaluation saves).
pub const MAX_KEY_WORDS: usize = 16;

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// A fresh node id, never handed out before in this process.
pub fn fresh_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// One thread's remembered results, and a buffer for building keys.
#[derive(Default)]
struct Table {
    results: FxHashMap<Box<[i64]>, i64>,
    /// For a node whose one `choose` an effect's script resolves: per key, a slot per
    /// candidate, with the result once it is known for that candidate.
    choices: FxHashMap<Box<[i64]>, Box<[Option<i64>]>>,
    key: Vec<i64>,
}

impl Table {
    /// Empties the tables when they hold [`MAX_ENTRIES`] entries.
    fn make_room(&mut self) {
        if self.results.len() + self.choices.len() >= MAX_ENTRIES {
            self.results.clear();
            self.choices.clear();
        }
    }
}

thread_local! {
    static TABLE: RefCell<Table> = RefCell::new(Table::default());
}

/// A key being built: a node's id, then its input words.
pub struct Key(Vec<i64>);

impl Key {
    /// Appends an input word.
    pub fn push(&mut self, w: i64) {
        self.0.push(w);
    }

    /// Appends input words.
    pub fn extend(&mut self, ws: &[i64]) {
        self.0.extend_from_slice(ws);
    }

    /// The input words (without the id).
    pub fn inputs(&self) -> &[i64] {
        &self.0[1..]
    }

    /// The remembered result for this key.
    pub fn get(&self) -> Option<i64> {
        TABLE.with(|t| t.borrow().results.get(&self.0[..]).copied())
    }

    /// Remembers `w` as the result for this key.
    pub fn insert(&self, w: i64) {
        TABLE.with(|t| {
            let mut t = t.borrow_mut();
            t.make_room();
            t.results.insert(self.0.clone().into_boxed_slice(), w);
        });
    }

    /// How many candidates the node's `choose` had with these inputs, if it was met before.
    pub fn candidates(&self) -> Option<usize> {
        TABLE.with(|t| t.borrow().choices.get(&self.0[..]).map(|r| r.len()))
    }

    /// The remembered result for these inputs when the `choose` takes candidate `k`.
    pub fn chosen(&self, k: usize) -> Option<i64> {
        TABLE.with(|t| {
            t.borrow()
                .choices
                .get(&self.0[..])
                .and_then(|r| r.get(k).copied().flatten())
        })
    }

    /// Remembers `w` as the result for these inputs when the `choose` takes candidate `k` of
    /// `n`.
    pub fn insert_chosen(&self, n: usize, k: usize, w: i64) {
        TABLE.with(|t| {
            let mut t = t.borrow_mut();
            if !t.choices.contains_key(&self.0[..]) {
                t.make_room();
            }
            let results = t
                .choices
                .entry(self.0.clone().into_boxed_slice())
                .or_insert_with(|| vec![None; n].into_boxed_slice());
            if results.len() == n && k < n {
                results[k] = Some(w);
            }
        });
    }
}

/// Runs `f` with an empty key for node `id` (the thread's buffer, lent out so that a nested
/// node's evaluation inside `f` gets a buffer of its own).
pub fn with_key<R>(id: u64, f: impl FnOnce(&mut Key) -> R) -> R {
    let mut buffer = TABLE.with(|t| std::mem::take(&mut t.borrow_mut().key));
    buffer.clear();
    buffer.push(id as i64);
    let mut key = Key(buffer);
    let result = f(&mut key);
    TABLE.with(|t| t.borrow_mut().key = key.0);
    result
}
