//! A state prepared for hashing under many relabellings of its symmetric values.
//!
//! Canonicalising a state hashes it again and again, each time with the elements of the
//! symmetric types replaced by other *images* (colours while refining, a swap of two elements
//! to test whether they are interchangeable, carrier values at a leaf of the search). A
//! [`Tree`] is built once per state so that each of those hashes is cheap:
//! - parts that contain no symmetric value are hashed once, into leaves;
//! - each symmetric value becomes its global element index (see `canon.rs`);
//! - collections are hashed from their parts, unordered ones (sets, multisets, map and array
//!   entries) as the wrapping sum of their parts' hashes, so a hash does not depend on the
//!   order the relabelled elements would be stored in;
//! - every node records which elements occur below it (a bit mask), so that after one full
//!   pass ([`Tree::fill`]) a hash with a few images changed ([`Tree::rehash`]) only revisits
//!   the nodes above those elements' occurrences.
//!
//! Nodes are stored in post-order (children before their parent), the root last.

use xxhash_rust::xxh3::xxh3_128_with_seed;

/// What a node is.
#[derive(Clone, Copy)]
enum Kind {
    /// A hashed plain value.
    Leaf(u128),
    /// A symmetric value: its global element index.
    Element(u32),
    /// An ordered list of parts (sequences, tuples, pairs); `seed` hashes its tag and length.
    List { seed: u128, start: u32, len: u32 },
    /// An unordered multiset of parts (sets, multisets, map entries).
    Bag { seed: u128, start: u32, len: u32 },
}

/// One node and the elements that occur below it.
#[derive(Clone, Copy)]
struct Node {
    kind: Kind,
    /// Bit `e` is set if element `e` occurs below (every bit for elements past 127).
    mask: u128,
}

/// The bit mask of element `e`: elements past the 128th share every bit, so a change to one of
/// them revisits every node that holds any of them (correct, only slower).
pub(super) fn bit(e: usize) -> u128 {
    if e < 128 {
        1u128 << e
    } else {
        u128::MAX
    }
}

/// Combines two hashes (order matters).
pub(super) fn mix(a: u128, b: u128) -> u128 {
    let mut bytes = [0u8; 32];
    bytes[..16].copy_from_slice(&a.to_le_bytes());
    bytes[16..].copy_from_slice(&b.to_le_bytes());
    xxh3_128_with_seed(&bytes, crate::fingerprint::SEED)
}

/// A state as a tree of hashes (see the module documentation).
#[derive(Default)]
pub(super) struct Tree {
    nodes: Vec<Node>,
    kids: Vec<u32>,
    /// Nodes built but not yet given a parent (the builder's stack).
    pending: Vec<u32>,
}

/// Where a list or bag's parts start on the builder's stack.
pub(super) struct Open(usize);

impl Tree {
    /// Adds a leaf with a precomputed hash.
    pub(super) fn leaf(&mut self, hash: u128) {
        self.push(Node {
            kind: Kind::Leaf(hash),
            mask: 0,
        });
    }

    /// Adds an occurrence of element `e`.
    pub(super) fn element(&mut self, e: usize) {
        self.push(Node {
            kind: Kind::Element(e as u32),
            mask: bit(e),
        });
    }

    /// Starts a list or a bag: the nodes added until [`Tree::close`] are its parts.
    pub(super) fn open(&self) -> Open {
        Open(self.pending.len())
    }

    /// Ends a list (`ordered`) or bag with tag `tag` whose parts were added since `open`.
    pub(super) fn close(&mut self, open: Open, tag: u64, ordered: bool) {
        let start = self.kids.len() as u32;
        let len = (self.pending.len() - open.0) as u32;
        let mut mask = 0;
        for &c in &self.pending[open.0..] {
            mask |= self.nodes[c as usize].mask;
        }
        self.kids.extend(self.pending.drain(open.0..));
        let seed = mix(tag as u128, len as u128);
        let kind = if ordered {
            Kind::List { seed, start, len }
        } else {
            Kind::Bag { seed, start, len }
        };
        self.push(Node { kind, mask });
    }

    fn push(&mut self, node: Node) {
        self.pending.push(self.nodes.len() as u32);
        self.nodes.push(node);
    }

    /// The number of nodes.
    pub(super) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Hashes every node with element `e` replaced by `images[e]`, into `cache` (one entry per
    /// node); returns the root's hash.
    pub(super) fn fill(&self, images: &[u128], cache: &mut Vec<u128>) -> u128 {
        cache.clear();
        for node in &self.nodes {
            let h = match node.kind {
                Kind::Leaf(h) => h,
                Kind::Element(e) => images[e as usize],
                Kind::List { seed, start, len } => {
                    let kids = &self.kids[start as usize..(start + len) as usize];
                    kids.iter().fold(seed, |h, &c| mix(h, cache[c as usize]))
                }
                Kind::Bag { seed, start, len } => {
                    let kids = &self.kids[start as usize..(start + len) as usize];
                    let sum = kids
                        .iter()
                        .fold(0u128, |s, &c| s.wrapping_add(cache[c as usize]));
                    mix(seed, sum)
                }
            };
            cache.push(h);
        }
        cache.last().copied().unwrap_or(0)
    }

    /// The root's hash with `images`, given `cache` filled by [`Tree::fill`] with images that
    /// differ from `images` only at the elements in `changed`.
    pub(super) fn rehash(&self, images: &[u128], changed: u128, cache: &[u128]) -> u128 {
        match self.nodes.len() {
            0 => 0,
            n => self.rehash_node(n - 1, images, changed, cache),
        }
    }

    fn rehash_node(&self, n: usize, images: &[u128], changed: u128, cache: &[u128]) -> u128 {
        let node = &self.nodes[n];
        if node.mask & changed == 0 {
            return cache[n];
        }
        match node.kind {
            Kind::Leaf(h) => h,
            Kind::Element(e) => images[e as usize],
            Kind::List { seed, start, len } => {
                let kids = &self.kids[start as usize..(start + len) as usize];
                kids.iter().fold(seed, |h, &c| {
                    mix(h, self.rehash_node(c as usize, images, changed, cache))
                })
            }
            Kind::Bag { seed, start, len } => {
                let kids = &self.kids[start as usize..(start + len) as usize];
                let sum = kids.iter().fold(0u128, |s, &c| {
                    s.wrapping_add(self.rehash_node(c as usize, images, changed, cache))
                });
                mix(seed, sum)
            }
        }
    }
}
