//! Canonical labelling of one state: colour refinement, interchangeable elements, and a search
//! over individualisations (the scheme of graph canonisers such as nauty, on a [`Tree`]).
//!
//! Elements of all symmetric types are numbered globally: type `k`'s carrier positions are
//! `offset[k]..offset[k] + n_k`. A [`Partition`] orders them into *cells*; the initial one has
//! one cell per type, and cells never cross types. The soundness and exactness argument is in
//! the documentation of [`super`].

use super::tree::{Cache, Tree};

/// The constants a canonicalisation needs, precomputed once by [`super::Symmetry`].
pub(super) struct Tables<'a> {
    /// The hash of each carrier value, by global position (a leaf's images).
    pub values: &'a [u128],
    /// A colour for each cell, by the global position the cell starts at.
    pub colours: &'a [u128],
    /// The colour of a marked element of the cell starting at each position.
    pub marks: &'a [u128],
    /// The global position each type starts at, and one past the last type's end.
    pub offsets: &'a [usize],
    /// The most leaves to visit.
    pub max_leaves: u64,
}

/// An ordered partition of the elements.
#[derive(Clone)]
struct Partition {
    /// The elements, cell after cell.
    order: Vec<u32>,
    /// For each element, the position in `order` its cell starts at (which names the cell).
    cell: Vec<u32>,
}

impl Partition {
    /// One cell per type.
    fn initial(offsets: &[usize]) -> Partition {
        let n = offsets.last().copied().unwrap_or(0);
        let mut cell = vec![0u32; n];
        for w in offsets.windows(2) {
            for c in &mut cell[w[0]..w[1]] {
                *c = w[0] as u32;
            }
        }
        Partition {
            order: (0..n as u32).collect(),
            cell,
        }
    }

    /// The end of the cell starting at position `start`.
    fn end(&self, start: usize) -> usize {
        let mut j = start + 1;
        while j < self.order.len() && self.cell[self.order[j] as usize] == start as u32 {
            j += 1;
        }
        j
    }

    /// Makes element `e` of the cell `start..end` a cell of its own, first of the cell.
    fn individualise(&mut self, start: usize, end: usize, e: u32) {
        if let Some(i) = self.order[start..end].iter().position(|&x| x == e) {
            self.order[start..=start + i].rotate_right(1);
        }
        for &x in &self.order[start + 1..end] {
            self.cell[x as usize] = start as u32 + 1;
        }
        self.cell[e as usize] = start as u32;
    }
}

/// The outcome of canonicalising one state.
pub(super) struct Canonical {
    /// The least leaf hash found: the hash of a permutation of the state.
    pub fingerprint: u128,
    /// For each element, its position in the permutation that gives `fingerprint`.
    pub positions: Vec<u32>,
    /// Whether the search stopped at the leaf cap (the result is then not exact).
    pub capped: bool,
    /// The leaves visited.
    pub leaves: u64,
}

/// Buffers reused from state to state (one per worker thread).
#[derive(Default)]
pub(super) struct Scratch {
    images: Vec<u128>,
    cache: Cache,
    signatures: Vec<u128>,
    /// For each element, the first element of its class of interchangeable elements.
    block: Vec<u32>,
    /// For each class, the signature computed for it in the current cell, and which cell
    /// (a counter) that was.
    block_signature: Vec<u128>,
    block_stamp: Vec<u64>,
    stamp: u64,
}

/// The work area of one canonicalisation.
pub(super) struct Canon<'a> {
    tree: &'a Tree,
    tables: Tables<'a>,
    s: &'a mut Scratch,
    leaves: u64,
    capped: bool,
    best: Option<(u128, Vec<u32>)>,
}

impl<'a> Canon<'a> {
    /// Canonicalises the state `tree`.
    pub(super) fn run(tree: &'a Tree, tables: Tables<'a>, s: &'a mut Scratch) -> Canonical {
        let n = tables.offsets.last().copied().unwrap_or(0);
        s.images.clear();
        s.images.resize(n, 0);
        s.signatures.clear();
        s.signatures.resize(n, 0);
        s.block.clear();
        s.block.extend(0..n as u32);
        s.block_signature.clear();
        s.block_signature.resize(n, 0);
        s.block_stamp.clear();
        s.block_stamp.resize(n, 0);
        s.stamp = 0;
        let mut canon = Canon {
            tree,
            tables,
            s,
            leaves: 0,
            capped: false,
            best: None,
        };
        let mut p = Partition::initial(canon.tables.offsets);
        // One round tells most elements apart; the classes of interchangeable elements are
        // then found within the smaller cells, and further rounds skip cells of one class.
        let split = canon.refine_round(&mut p);
        let provisional = canon.find_blocks(&p);
        match (provisional, canon.target(&p)) {
            // Every cell holds interchangeable elements only: the hash find_blocks computed
            // is the leaf's (cells need no further refinement, and orders inside them agree).
            (Some(h), None) => canon.record(h, &p),
            _ => {
                if split {
                    canon.refine(&mut p);
                }
                canon.search(p);
            }
        }
        let (fingerprint, positions) = canon.best.unwrap_or((0, Vec::new()));
        Canonical {
            fingerprint,
            positions,
            capped: canon.capped,
            leaves: canon.leaves,
        }
    }

    /// Whether the cell `i..j` holds elements of two classes of interchangeable elements.
    fn mixed(&self, p: &Partition, i: usize, j: usize) -> bool {
        let first = self.s.block[p.order[i] as usize];
        p.order[i + 1..j]
            .iter()
            .any(|&e| self.s.block[e as usize] != first)
    }

    /// Splits cells until they are stable.
    fn refine(&mut self, p: &mut Partition) {
        while self.refine_round(p) {}
    }

    /// One round of refinement; returns whether a cell split. Each element of a cell that
    /// holds two classes is given a signature: the state's hash with every element coloured by
    /// its cell and this one marked (interchangeable elements get the same one, so it is
    /// computed once per class); the cell splits by signature. A cell of one class cannot
    /// split (swapping two of its elements maps the state and the colouring to themselves).
    fn refine_round(&mut self, p: &mut Partition) -> bool {
        let n = p.order.len();
        let mut cells: Vec<(usize, usize)> = Vec::new();
        let mut i = 0;
        while i < n {
            let j = p.end(i);
            if j - i > 1 && self.mixed(p, i, j) {
                cells.push((i, j));
            }
            i = j;
        }
        if cells.is_empty() {
            return false;
        }
        let s = &mut *self.s;
        for e in 0..n {
            s.images[e] = self.tables.colours[p.cell[e] as usize];
        }
        self.tree.fill(&s.images, &mut s.cache);
        for &(i, j) in &cells {
            s.stamp += 1;
            for &e in &p.order[i..j] {
                let e = e as usize;
                let class = s.block[e] as usize;
                if s.block_stamp[class] == s.stamp {
                    s.signatures[e] = s.block_signature[class];
                    continue;
                }
                s.images[e] = self.tables.marks[i];
                let signature = self.tree.rehash(&s.images, &[e], &mut s.cache);
                s.images[e] = self.tables.colours[i];
                s.signatures[e] = signature;
                s.block_signature[class] = signature;
                s.block_stamp[class] = s.stamp;
            }
        }
        let mut split = false;
        for &(i, j) in &cells {
            let signatures = &s.signatures;
            p.order[i..j].sort_unstable_by_key(|&e| (signatures[e as usize], e));
            let mut start = i;
            for t in i..j {
                let e = p.order[t] as usize;
                if t > i && signatures[e] != signatures[p.order[t - 1] as usize] {
                    start = t;
                    split = true;
                }
                p.cell[e] = start as u32;
            }
        }
        split
    }

    /// Groups the elements of each cell into classes of interchangeable elements: `x` and `y`
    /// are interchangeable if swapping them leaves the state unchanged. Such swaps compose, so
    /// this is an equivalence relation and comparing each element with one member of each
    /// class found so far suffices. The state is hashed with each element imaged by the
    /// carrier value at its position in `p` (any one-to-one images would do), so the hash it
    /// returns (none if every cell is a singleton, when there is nothing to compare) is the
    /// leaf hash of `p` if `p` is a leaf.
    fn find_blocks(&mut self, p: &Partition) -> Option<u128> {
        let n = p.order.len();
        let mut cells: Vec<(usize, usize)> = Vec::new();
        let mut i = 0;
        while i < n {
            let j = p.end(i);
            if j - i > 1 {
                cells.push((i, j));
            }
            i = j;
        }
        if cells.is_empty() {
            return None;
        }
        let s = &mut *self.s;
        for (pos, &e) in p.order.iter().enumerate() {
            s.images[e as usize] = self.tables.values[pos];
        }
        let identity = self.tree.fill(&s.images, &mut s.cache);
        let mut firsts: Vec<u32> = Vec::new();
        for (i, j) in cells {
            firsts.clear();
            for &e in &p.order[i..j] {
                let found = firsts.iter().copied().find(|&r| {
                    let (x, y) = (e as usize, r as usize);
                    s.images.swap(x, y);
                    let h = self.tree.rehash(&s.images, &[x, y], &mut s.cache);
                    s.images.swap(x, y);
                    h == identity
                });
                match found {
                    Some(r) => s.block[e as usize] = r,
                    None => firsts.push(e),
                }
            }
        }
        Some(identity)
    }

    /// The first cell (in order) that holds elements of two classes, if any.
    fn target(&self, p: &Partition) -> Option<(usize, usize)> {
        let mut i = 0;
        while i < p.order.len() {
            let j = p.end(i);
            if j - i > 1 && self.mixed(p, i, j) {
                return Some((i, j));
            }
            i = j;
        }
        None
    }

    /// Completes the search below a refined partition: a leaf if every cell holds
    /// interchangeable elements only, else a branch for each class of the target cell.
    fn search(&mut self, p: Partition) {
        let Some((i, j)) = self.target(&p) else {
            self.leaf(&p);
            return;
        };
        let mut tried: Vec<u32> = Vec::new();
        for t in i..j {
            let e = p.order[t];
            let class = self.s.block[e as usize];
            if tried.contains(&class) {
                continue;
            }
            if self.leaves >= self.tables.max_leaves {
                self.capped = true;
                return;
            }
            tried.push(class);
            let mut q = p.clone();
            q.individualise(i, j, e);
            self.refine(&mut q);
            self.search(q);
        }
    }

    /// Hashes the state with each element replaced by the carrier value at its position.
    fn leaf(&mut self, p: &Partition) {
        let s = &mut *self.s;
        for (pos, &e) in p.order.iter().enumerate() {
            s.images[e as usize] = self.tables.values[pos];
        }
        let h = self.tree.fill(&s.images, &mut s.cache);
        self.record(h, p);
    }

    /// Counts a leaf of hash `h`, keeping it if it is the least so far.
    fn record(&mut self, h: u128, p: &Partition) {
        self.leaves += 1;
        if self.best.as_ref().is_none_or(|(b, _)| h < *b) {
            let mut positions = vec![0u32; p.order.len()];
            for (pos, &e) in p.order.iter().enumerate() {
                positions[e as usize] = pos as u32;
            }
            self.best = Some((h, positions));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tree::{mix, Tree};
    use super::*;

    /// A directed graph on six vertices (one symmetric type) as a set of edges.
    fn graph(edges: &[(usize, usize)]) -> Tree {
        let mut tree = Tree::default();
        let set = tree.open();
        for &(a, b) in edges {
            let pair = tree.open();
            tree.element(a);
            tree.element(b);
            tree.close(pair, 3, true);
        }
        tree.close(set, 1, false);
        tree
    }

    /// Canonicalises a graph on six vertices.
    fn canonical(edges: &[(usize, usize)], max_leaves: u64) -> Canonical {
        let values: Vec<u128> = (0..6).map(|i| mix(7, i)).collect();
        let colours: Vec<u128> = (0..6).map(|i| mix(8, i)).collect();
        let marks: Vec<u128> = (0..6).map(|i| mix(9, i)).collect();
        let tables = Tables {
            values: &values,
            colours: &colours,
            marks: &marks,
            offsets: &[0, 6],
            max_leaves,
        };
        Canon::run(&graph(edges), tables, &mut Scratch::default())
    }

    /// Relabels the vertices of a graph.
    fn relabel(edges: &[(usize, usize)], to: [usize; 6]) -> Vec<(usize, usize)> {
        edges.iter().map(|&(a, b)| (to[a], to[b])).collect()
    }

    #[test]
    fn graphs_refinement_cannot_tell_apart_are_told_apart_by_the_search() {
        // A directed 6-cycle and two directed triangles: every vertex has one edge in and one
        // out, so refinement leaves one cell, and no swap of two vertices maps either graph
        // to itself, so the search must branch.
        let cycle = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)];
        let triangles = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)];
        let c = canonical(&cycle, 720);
        let t = canonical(&triangles, 720);
        assert!(!c.capped && !t.capped);
        // Six first choices; in the triangles, the other triangle needs three more.
        assert_eq!((c.leaves, t.leaves), (6, 18));
        assert_ne!(c.fingerprint, t.fingerprint);
        for to in [[3, 0, 5, 1, 4, 2], [5, 4, 3, 2, 1, 0], [1, 2, 3, 4, 5, 0]] {
            assert_eq!(
                canonical(&relabel(&cycle, to), 720).fingerprint,
                c.fingerprint
            );
            assert_eq!(
                canonical(&relabel(&triangles, to), 720).fingerprint,
                t.fingerprint
            );
        }
        // Capped at one leaf, the search stops early and says so.
        let capped = canonical(&cycle, 1);
        assert!(capped.capped);
        assert_eq!(capped.leaves, 1);
    }

    #[test]
    fn only_interchangeable_elements_spare_the_search() {
        // Three disjoint edges: refinement splits sources from targets, but no swap of two
        // vertices maps the graph to itself (only swaps of whole edges do), so the search
        // branches 3 × 2 times; every labelling gets the same hash.
        let edges = [(0, 1), (2, 3), (4, 5)];
        let c = canonical(&edges, 720);
        assert_eq!(c.leaves, 6);
        let relabelled = canonical(&relabel(&edges, [5, 2, 1, 0, 3, 4]), 720);
        assert_eq!(relabelled.fingerprint, c.fingerprint);
        // Loops on every vertex: any two vertices are interchangeable.
        let loops = canonical(&[(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5)], 720);
        assert_eq!(loops.leaves, 1);
    }
}
