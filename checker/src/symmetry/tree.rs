//! A state prepared for hashing under many relabellings of its symmetric values.
//!
//! Canonicalising a state hashes it again and again, each time with the elements of the
//! symmetric types replaced by other *images* (colours while refining, a swap of two elements
//! to test whether they are interchangeable, carrier values at a leaf of the search). A
//! [`Tree`] is built once per state so that each of those hashes is cheap:
//! - parts that contain no symmetric value are hashed once, into leaves;
//! - each symmetric value becomes its global element index (see `canon.rs`);
//! - collections are hashed from their parts: unordered ones (sets, multisets, map and array
//!   entries) as the wrapping sum of their parts' hashes, so a hash does not depend on the
//!   order the relabelled elements would be stored in; ordered ones (tuples, sequences) as the
//!   sum of their parts each rotated by its position; either sum is then mixed with the
//!   collection's tag and length;
//! - every node knows its parent and every element its occurrences, so that after one full
//!   pass ([`Tree::fill`]) a hash with a few images changed ([`Tree::rehash`]) only revisits
//!   the nodes above those elements' occurrences, adjusting each sum by what changed.
//!
//! Nodes are stored in post-order (children before their parent), the root last.

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

/// The parent of the root.
const NONE: u32 = u32::MAX;

/// Combines two hashes (order matters): `mix(a, b)` is a bijection in `b` for a fixed `a`
/// and in `a` for a fixed `b` (each step below is invertible), and mixes every input bit into
/// every output bit (multiply, then fold the high half into the low one, twice).
pub(super) fn mix(a: u128, b: u128) -> u128 {
    const K: u128 = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834;
    const M0: u128 = 0x2d35_8dcc_aa6c_78a5_8bb8_4b93_962e_acc9 | 1;
    const M1: u128 = 0x4f1b_bcdc_bfa5_3e0b_d6e8_feb8_6659_fd93 | 1;
    let mut x = (a ^ K).wrapping_mul(M0) ^ b;
    x ^= x >> 64;
    x = x.wrapping_mul(M1);
    x ^= x >> 64;
    x = x.wrapping_mul(M0);
    x ^ (x >> 64)
}

/// A state as a tree of hashes (see the module documentation).
#[derive(Default)]
pub(super) struct Tree {
    nodes: Vec<Kind>,
    /// Each node's parent ([`NONE`] for the root) and its position among the parent's parts.
    parent: Vec<u32>,
    slot: Vec<u32>,
    kids: Vec<u32>,
    /// For each element, the nodes where it occurs.
    occurrences: Vec<Vec<u32>>,
    /// Nodes built but not yet given a parent (the builder's stack).
    pending: Vec<u32>,
}

/// Where a list or bag's parts start on the builder's stack.
pub(super) struct Open(usize);

impl Tree {
    /// Forgets every node, keeping the memory.
    pub(super) fn clear(&mut self) {
        self.nodes.clear();
        self.parent.clear();
        self.slot.clear();
        self.kids.clear();
        self.occurrences.iter_mut().for_each(Vec::clear);
        self.pending.clear();
    }

    /// Adds a leaf with a precomputed hash.
    pub(super) fn leaf(&mut self, hash: u128) {
        self.push(Kind::Leaf(hash));
    }

    /// Adds an occurrence of element `e`.
    pub(super) fn element(&mut self, e: usize) {
        if self.occurrences.len() <= e {
            self.occurrences.resize_with(e + 1, Vec::new);
        }
        self.occurrences[e].push(self.nodes.len() as u32);
        self.push(Kind::Element(e as u32));
    }

    /// Starts a list or a bag: the nodes added until [`Tree::close`] are its parts.
    pub(super) fn open(&self) -> Open {
        Open(self.pending.len())
    }

    /// Ends a list (`ordered`) or bag with tag `tag` whose parts were added since `open`.
    pub(super) fn close(&mut self, open: Open, tag: u64, ordered: bool) {
        let start = self.kids.len() as u32;
        let len = (self.pending.len() - open.0) as u32;
        let me = self.nodes.len() as u32;
        for (i, &c) in self.pending[open.0..].iter().enumerate() {
            self.parent[c as usize] = me;
            self.slot[c as usize] = i as u32;
        }
        self.kids.extend(self.pending.drain(open.0..));
        let seed = mix(tag as u128, len as u128);
        self.push(if ordered {
            Kind::List { seed, start, len }
        } else {
            Kind::Bag { seed, start, len }
        });
    }

    fn push(&mut self, kind: Kind) {
        self.pending.push(self.nodes.len() as u32);
        self.nodes.push(kind);
        self.parent.push(NONE);
        self.slot.push(0);
    }

    /// Hashes every node with element `e` replaced by `images[e]`, into `cache`; returns the
    /// root's hash.
    pub(super) fn fill(&self, images: &[u128], cache: &mut Cache) -> u128 {
        let n = self.nodes.len();
        cache.hash.clear();
        cache.sum.clear();
        cache.part.clear();
        cache.part.resize(n, 0);
        if cache.delta.len() < n {
            cache.delta.resize(n, 0);
            cache.touched.resize(n, false);
        }
        for &kind in &self.nodes {
            let (h, sum) = match kind {
                Kind::Leaf(h) => (h, 0),
                Kind::Element(e) => (images[e as usize], 0),
                Kind::List { seed, start, len } | Kind::Bag { seed, start, len } => {
                    let ordered = matches!(kind, Kind::List { .. });
                    let kids = &self.kids[start as usize..(start + len) as usize];
                    let mut sum = 0u128;
                    for (i, &c) in kids.iter().enumerate() {
                        let part = part(ordered, i, cache.hash[c as usize]);
                        cache.part[c as usize] = part;
                        sum = sum.wrapping_add(part);
                    }
                    (mix(seed, sum), sum)
                }
            };
            cache.hash.push(h);
            cache.sum.push(sum);
        }
        cache.hash.last().copied().unwrap_or(0)
    }

    /// The root's hash with `images`, given `cache` filled by [`Tree::fill`] with images that
    /// differ from `images` only at the elements `changed`. Only the nodes above their
    /// occurrences are hashed again, children before parents, each passing the change of what
    /// it adds to its parent's sum up to the parent.
    pub(super) fn rehash(&self, images: &[u128], changed: &[usize], cache: &mut Cache) -> u128 {
        let Some(root) = self.nodes.len().checked_sub(1) else {
            return 0;
        };
        let mut affected = std::mem::take(&mut cache.affected);
        affected.clear();
        for &e in changed {
            for &at in self.occurrences.get(e).map_or(&[][..], |o| &o[..]) {
                let mut n = at;
                while n != NONE && !cache.touched[n as usize] {
                    cache.touched[n as usize] = true;
                    affected.push(n);
                    n = self.parent[n as usize];
                }
            }
        }
        affected.sort_unstable();
        let mut root_hash = cache.hash[root];
        for &n in &affected {
            let n = n as usize;
            let h = match self.nodes[n] {
                Kind::Leaf(h) => h,
                Kind::Element(e) => images[e as usize],
                Kind::List { seed, .. } | Kind::Bag { seed, .. } => {
                    mix(seed, cache.sum[n].wrapping_add(cache.delta[n]))
                }
            };
            let p = self.parent[n];
            if p == NONE {
                root_hash = h;
            } else {
                let ordered = matches!(self.nodes[p as usize], Kind::List { .. });
                let change = part(ordered, self.slot[n] as usize, h).wrapping_sub(cache.part[n]);
                cache.delta[p as usize] = cache.delta[p as usize].wrapping_add(change);
            }
        }
        for &n in &affected {
            cache.delta[n as usize] = 0;
            cache.touched[n as usize] = false;
        }
        cache.affected = affected;
        root_hash
    }
}

/// What part `i` with hash `h` adds to its list's (`ordered`) or bag's sum: a bag adds its
/// parts' hashes; a list rotates each of its first 128 parts by a different amount (37 is odd,
/// so `37 i mod 128` differs for each) and mixes the others with their position, so parts do
/// not commute. Both are bijections in `h`, and the list's hash mixes the sum.
fn part(ordered: bool, i: usize, h: u128) -> u128 {
    match (ordered, i) {
        (false, _) => h,
        (true, 0..128) => h.rotate_left((i as u32 * 37) % 128),
        (true, _) => mix(i as u128, h),
    }
}

/// The hashes [`Tree::fill`] computes, kept for [`Tree::rehash`], and its work area.
#[derive(Default)]
pub(super) struct Cache {
    /// Each node's hash.
    hash: Vec<u128>,
    /// Each list or bag's sum of parts.
    sum: Vec<u128>,
    /// What each node adds to its parent's sum.
    part: Vec<u128>,
    /// While rehashing: the change to each node's sum (zero outside a rehash).
    delta: Vec<u128>,
    /// While rehashing: the nodes above a changed element (false outside a rehash).
    touched: Vec<bool>,
    affected: Vec<u32>,
}
