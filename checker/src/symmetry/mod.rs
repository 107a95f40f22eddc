//! Symmetry reduction: states that differ only by a permutation of the values of a type the user
//! declares symmetric (`ioa explore --symmetric Node`) are explored once.
//!
//! **What is permuted.** A symmetric type is a declared tuple or enumeration type with a finite
//! carrier (its universe, e.g. `Node = [0]..[2]`). A permutation π of the carrier acts on a state
//! by replacing every value of that type, wherever it occurs (set elements, array indices and
//! entries, tuple fields, union payloads…), guided by the declared types of the state
//! variables (`shape.rs`). The explorer keeps the concrete states it reaches and only *stores*
//! canonical fingerprints, so every path it reports is a path of the unreduced automaton and
//! replays as is.
//!
//! **The canonical form** (`canon.rs`, after graph canonisers such as nauty). The values of all
//! symmetric types are the *elements*. A state is turned once into a tree of hashes
//! (`tree.rs`) in which each element can be given any *image*; unordered collections hash as
//! sums, so the hash never depends on the order of a carrier. Then:
//! 1. *Refinement.* Elements are kept in an ordered partition, one cell per type to begin
//!    with. Each element of a cell with more than one is given a signature: the state's hash
//!    with every element imaged by its cell's colour and this one element marked. A cell splits
//!    by signature (ordered by signature value), and this repeats until no cell splits (colour
//!    refinement: after the first round an element is told apart by how it relates to the
//!    *classes* of the others, not only by its own place).
//! 2. *Interchangeable elements.* Two elements of one cell are interchangeable if swapping
//!    them leaves the state unchanged (the state's hash with carrier values as images, one
//!    swap away). Swaps compose, so this is an equivalence relation; its classes are found
//!    once per state, comparing each element with one member of each class.
//! 3. *Search.* If every cell holds only interchangeable elements, the partition gives the
//!    permutation (cell by cell, any order inside a cell) and the state's canonical
//!    fingerprint is the hash of the state under it. Otherwise the first cell with two classes
//!    is split: for one element of each class, that element is made a cell of its own before
//!    the others, the partition is refined again, and the search goes on below; the canonical
//!    fingerprint is the least hash over the *leaves* reached.
//!
//! **Why this is sound.** Every leaf hash is the hash of π(s) for some permutation π (the
//! hash, with carrier values as images, of the state whose element at position p has been
//! moved to the leaf's position of p). So two states get the same fingerprint only if a
//! permutation of one and a permutation of the other hash alike, that is (up to 128-bit hash
//! collisions, as for every fingerprint, see [`crate::fingerprint`]) only if they are
//! permutations of each other. This holds whatever the search visits, so it also holds when
//! the search is cut short.
//!
//! **Why it is exact** (symmetric states get the same fingerprint). Everything the search
//! decides on is invariant under permutations: signatures and colours depend on cells and
//! hashes, never on carrier order, so the cells of π(s) are the images of the cells of s; the
//! split cell is chosen by position among cells; the classes of interchangeable elements of
//! π(s) are the images of those of s. So the search tree of π(s) is the image of that of s and
//! reaches the same leaf hashes. Two shortcuts keep this: (a) inside a cell of interchangeable
//! elements every order gives the same hash (orders differ by swaps that leave s unchanged);
//! (b) of several interchangeable elements of the cell being split only one is tried: the
//! swap σ of two of them maps s to itself and the refined partition with one of them
//! singled out to the one with the other, so both subtrees reach the same leaf hashes.
//!
//! The steps run in a fixed order (one round of refinement, classes of interchangeable
//! elements, refinement to the end, search), each of them invariant, so the whole is. When no
//! cell needs splitting after the classes are found, the hash computed to find them (carrier
//! values imaged by position in the partition) *is* the leaf's, and no further pass is made.
//!
//! **The cap.** The search visits at most [`MAX_LEAVES`] leaves (720 = 6!) per state. Leaves
//! are distinct orderings of the elements, so a state whose types have at most 720 orderings
//! in all (one type of up to six values, or three and three) never needs more. Beyond the cap
//! the least hash of the leaves visited is used: still sound, but which leaves are visited then
//! depends on the carrier order, so symmetric states may be kept apart (never merged wrongly).
//! [`Symmetry::capped_states`] counts how often that happened, [`Symmetry::searched`] how many
//! leaves were visited. The search only branches on elements that refinement cannot tell apart
//! and that are not interchangeable (a directed 6-cycle needs 6 leaves, `k` disjoint pairs
//! `k!`); on the GROOVE Paxos model it never branches (pinned for eight acceptors in
//! `checker/tests/symmetry.rs`), so exact canonical forms cost the same for 12 acceptors as
//! for 3, and the cap is not reached.
//!
//! **Cost.** A canonicalisation builds the tree (one pass over the state's values), hashes it
//! in full two or three times, and rehashes only the nodes above the changed elements'
//! occurrences once per element per refinement round (once per class when classes are
//! known) and once per swap tested. Results are remembered by concrete fingerprint
//! (`memo.rs`), since breadth-first search meets the same concrete successor repeatedly.

//! **Families.** A composite's family indexed by a symmetric type (`P[i: RM]`) is moved by the
//! permutation as a whole: member `P[r]`'s variables become member `P[π(r)]`'s. Its members
//! appear in the tree as a bag of lists, each the member's index (an element) and its
//! variables, so the hash of the tree under images π is the hash of the permuted state
//! ([`Symmetry::describe`], `family.rs` for which families qualify).
//!
//! **When the reduction is correct for a model.** Only if the automaton and its invariants
//! treat the type's values alike. [`Symmetry::new`] rejects models that single out values
//! (`model_check.rs`): literals of the type (`[0]`, an enumeration constant), reading its
//! fields (`n.location`, which can be compared), automaton parameters and component indices
//! of the type (but for the families above and their members' index parameters), and universe candidate lists for action parameters (`abstain.B = …`) that are
//! not closed under permutation. A `for x in S` loop whose iterations depend on each other
//! also breaks symmetry (it runs in value order); that is not detected.

mod canon;
mod error;
mod family;
pub(crate) mod memo;
mod model_check;
mod shape;
mod tree;

pub use error::{Break, SymmetryError};

use crate::fingerprint::{fingerprint, Fingerprint};
use canon::{Canon, Canonical, Scratch, Tables};
use family::Family;
use interpreter::machine::Machine;
use interpreter::value::Value;
use ioa_lang::ir::{Type, TypeDefKind, TypeId};
use memo::Memo;
use rustc_hash::FxHashMap;
use shape::{shape_of, Shape};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use tree::{mix, Tree};

/// The most leaves the search visits per state (see the module documentation). 720 = 6!, so
/// one symmetric type of up to six values is always canonicalised exactly.
pub const MAX_LEAVES: u64 = 720;

/// One symmetric type.
struct SymmetricType {
    id: TypeId,
    carrier: Vec<Value>,
    /// The hash of each carrier value, as a plain value would be hashed.
    hashes: Vec<u128>,
    position: FxHashMap<Value, usize>,
}

/// The symmetry group of some types of a machine, and canonical fingerprints under it.
pub struct Symmetry {
    types: Vec<SymmetricType>,
    /// The shape of each state slot.
    slots: Vec<Shape>,
    /// The root composite's families whose members the permutations move (`family.rs`).
    families: Vec<Family>,
    /// The slots outside those families, in order.
    free: Vec<usize>,
    /// The automaton parameters of a symmetric type those families allow (automaton,
    /// parameter position).
    family_params: Vec<(usize, usize)>,
    /// The global index of each type's first element, and one past the last type's last.
    offsets: Vec<usize>,
    /// The hash of each carrier value, by global index.
    values: Vec<u128>,
    /// A colour for each cell and for a marked element in it, by the cell's global position.
    colours: Vec<u128>,
    marks: Vec<u128>,
    /// The most leaves the search visits per state.
    max_leaves: u64,
    /// How many canonicalisations stopped at `max_leaves`.
    capped: AtomicU64,
    /// How many states were canonicalised, and the leaves their searches visited.
    canonicalised: AtomicU64,
    leaves: AtomicU64,
    /// Canonical fingerprints of recently seen concrete states.
    memo: Memo,
}

/// Describes a state to the canonicaliser (see [`Symmetry::canonical_fingerprint_by`]).
pub struct TreeBuilder<'a> {
    tree: &'a mut Tree,
    offsets: &'a [usize],
    symmetry: &'a Symmetry,
}

/// Where the symmetric values are inside the values of one type (see
/// [`Symmetry::value_shape`]), for describing whole values to a [`TreeBuilder`].
pub struct ValueShape(Shape);

/// An open list or bag of a [`TreeBuilder`].
pub struct Opened(tree::Open);

impl TreeBuilder<'_> {
    /// A value without symmetric parts, by a hash that tells it apart from the other values
    /// that can occur in its place.
    pub fn leaf(&mut self, hash: u128) {
        self.tree.leaf(hash);
    }

    /// Value `position` of the carrier of symmetric type `index` (see [`Symmetry::type_index`]).
    pub fn element(&mut self, index: usize, position: usize) {
        self.tree.element(self.offsets[index] + position);
    }

    /// A whole interpreter value of a type with this shape, described as the interpreter's
    /// model describes values (so interned values of the compiled engine reduce alike).
    pub fn value(&mut self, shape: &ValueShape, v: &Value) {
        self.symmetry.build(&shape.0, v, self.tree);
    }

    /// Describes a whole state, one state variable at a time (`slot` describes variable
    /// `i`), in the order the symmetry needs (see [`Symmetry::describe`]).
    pub fn describe(&mut self, slot: impl FnMut(usize, &mut TreeBuilder)) {
        let symmetry = self.symmetry;
        symmetry.describe(self, slot);
    }

    /// Starts a list or bag.
    pub fn open(&mut self) -> Opened {
        Opened(self.tree.open())
    }

    /// Ends a list (`ordered`) or bag; `tag` tells kinds of lists and bags apart.
    pub fn close(&mut self, open: Opened, tag: u64, ordered: bool) {
        self.tree.close(open.0, tag, ordered);
    }
}

/// Mixes two hashes into one (for the leaves a [`TreeBuilder`] is given).
pub fn mix_hash(a: u128, b: u128) -> u128 {
    mix(a, b)
}

thread_local! {
    /// Each worker thread's tree and canonicalisation buffers, reused from state to state.
    static SCRATCH: RefCell<(Tree, Scratch)> = RefCell::new((Tree::default(), Scratch::default()));
}

/// Seeds of the cell colours and of the marks (any constants unlike each other will do).
const COLOUR: u128 = 0x1082_276b_f3a2_7251_f86c_6a11_d0c1_8e95;
const MARK: u128 = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834;

impl Symmetry {
    /// The symmetry that permutes each of the named types, after checking that the machine's
    /// automata and invariants treat their values alike.
    pub fn new(machine: &Machine, names: &[String]) -> Result<Symmetry, Vec<SymmetryError>> {
        let spec = machine.spec;
        let mut types = Vec::new();
        let mut errors = Vec::new();
        for name in names {
            let Some(pos) = spec.types.iter().position(|t| &t.name == name) else {
                errors.push(SymmetryError::UnknownType { name: name.clone() });
                continue;
            };
            let def = &spec.types[pos];
            if matches!(def.kind, TypeDefKind::Union(_)) {
                errors.push(SymmetryError::NotPermutable {
                    name: name.clone(),
                    span: def.span,
                });
                continue;
            }
            let id = TypeId(pos as u32);
            let carrier = match machine.carrier(&Type::Named(id), def.span) {
                Ok(c) => c.to_vec(),
                Err(error) => {
                    errors.push(SymmetryError::Unbounded {
                        name: name.clone(),
                        error,
                    });
                    continue;
                }
            };
            if types.iter().any(|t: &SymmetricType| t.id == id) {
                continue;
            }
            let position = carrier
                .iter()
                .enumerate()
                .map(|(i, v)| (v.clone(), i))
                .collect();
            let hashes = carrier
                .iter()
                .map(|v| fingerprint(std::slice::from_ref(v)))
                .collect();
            types.push(SymmetricType {
                id,
                carrier,
                hashes,
                position,
            });
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let (families, family_params) = family::families(machine, &types, &mut errors);
        let mut in_family = vec![false; machine.slot_types().len()];
        for f in &families {
            for r in &f.slots {
                in_family[r.clone()].iter_mut().for_each(|x| *x = true);
            }
        }
        let free = (0..in_family.len()).filter(|&i| !in_family[i]).collect();
        let ids: Vec<TypeId> = types.iter().map(|t| t.id).collect();
        let mut slots = Vec::new();
        for ty in machine.slot_types() {
            match shape_of(spec, &ids, &ty, &mut Vec::new()) {
                Ok(s) => slots.push(s),
                Err(name) => errors.push(SymmetryError::Recursive { name }),
            }
        }
        let mut offsets = vec![0];
        let mut values = Vec::new();
        for t in &types {
            offsets.push(offsets[offsets.len() - 1] + t.carrier.len());
            values.extend(&t.hashes);
        }
        let colours = (0..values.len() as u128).map(|i| mix(COLOUR, i)).collect();
        let marks = (0..values.len() as u128).map(|i| mix(MARK, i)).collect();
        let symmetry = Symmetry {
            types,
            slots,
            families,
            free,
            family_params,
            offsets,
            values,
            colours,
            marks,
            max_leaves: MAX_LEAVES,
            capped: AtomicU64::new(0),
            canonicalised: AtomicU64::new(0),
            leaves: AtomicU64::new(0),
            memo: Memo::new(),
        };
        symmetry.check_model(machine, &mut errors);
        if errors.is_empty() {
            Ok(symmetry)
        } else {
            Err(errors)
        }
    }

    /// The declared tuple and enumeration types that occur in the machine's state and that
    /// [`Symmetry::new`] accepts, each on its own: the types the model treats alike, which
    /// `--symmetric` could name.
    pub fn detect(machine: &Machine) -> Vec<String> {
        let spec = machine.spec;
        let slot_types = machine.slot_types();
        spec.types
            .iter()
            .enumerate()
            .filter(|(_, t)| !matches!(t.kind, TypeDefKind::Union(_)))
            .filter(|(k, _)| {
                let id = [TypeId(*k as u32)];
                slot_types
                    .iter()
                    .any(|ty| !matches!(shape_of(spec, &id, ty, &mut Vec::new()), Ok(Shape::Plain)))
            })
            .filter(|(_, t)| Symmetry::new(machine, std::slice::from_ref(&t.name)).is_ok())
            .map(|(_, t)| t.name.clone())
            .collect()
    }

    /// The same symmetry, visiting at most `n` leaves per state (at least 1). Fewer leaves make
    /// canonicalisation faster and less exact, never unsound.
    pub fn with_max_leaves(mut self, n: u64) -> Self {
        self.max_leaves = n.max(1);
        self
    }

    /// How many canonicalisations so far stopped at the leaf cap (and so may have kept a state
    /// apart from a symmetric one).
    pub fn capped_states(&self) -> u64 {
        self.capped.load(Ordering::Relaxed)
    }

    /// How many states were canonicalised so far (states whose canonical fingerprint was
    /// remembered are not counted again), and how many leaves their searches visited in all:
    /// one leaf per state means no search had to branch.
    pub fn searched(&self) -> (u64, u64) {
        (
            self.canonicalised.load(Ordering::Relaxed),
            self.leaves.load(Ordering::Relaxed),
        )
    }

    /// The number of values of each symmetric type, in the order they were named.
    pub fn carrier_sizes(&self) -> Vec<usize> {
        self.types.iter().map(|t| t.carrier.len()).collect()
    }

    /// The state with the values of each symmetric type `k` permuted: carrier position `p`
    /// becomes position `permutations[k][p]`.
    pub fn permute(&self, state: &[Value], permutations: &[Vec<usize>]) -> Vec<Value> {
        let of: Vec<Vec<Value>> = self
            .types
            .iter()
            .zip(permutations)
            .map(|(t, perm)| perm.iter().map(|&q| t.carrier[q].clone()).collect())
            .collect();
        let mut out: Vec<Value> = state
            .iter()
            .zip(&self.slots)
            .map(|(v, s)| self.map(s, v, &of))
            .collect();
        // A family's member at position p moves to position permutations[k][p].
        for f in &self.families {
            for (p, from) in f.slots.iter().enumerate() {
                let to = &f.slots[permutations[f.k][p]];
                for (a, b) in from.clone().zip(to.clone()) {
                    out[b] = self.map(&self.slots[a], &state[a], &of);
                }
            }
        }
        out
    }

    /// Describes a state to the canonicaliser, one state slot at a time (`slot` describes
    /// slot `i`): the slots outside the families the permutations move, in order, then each
    /// such family as a bag of its members, each a list of its index and its slots (see
    /// `family.rs`). Without such families, just the list of the slots.
    pub fn describe(&self, b: &mut TreeBuilder, mut slot: impl FnMut(usize, &mut TreeBuilder)) {
        let state = b.open();
        for &i in &self.free {
            slot(i, b);
        }
        for f in &self.families {
            let bag = b.open();
            for (p, slots) in f.slots.iter().enumerate() {
                let member = b.open();
                b.element(f.k, p);
                for i in slots.clone() {
                    slot(i, b);
                }
                b.close(member, 11, true);
            }
            b.close(bag, 12, false);
        }
        b.close(state, 0, true);
    }

    /// Canonicalises a state.
    fn canonical(&self, state: &[Value]) -> Canonical {
        self.canonical_with(|tree| {
            let mut b = TreeBuilder {
                tree,
                offsets: &self.offsets,
                symmetry: self,
            };
            self.describe(&mut b, |i, b| self.build(&self.slots[i], &state[i], b.tree));
        })
    }

    /// Canonicalises the state whose tree `build` makes.
    fn canonical_with(&self, build: impl FnOnce(&mut Tree)) -> Canonical {
        SCRATCH.with(|scratch| {
            let (tree, scratch) = &mut *scratch.borrow_mut();
            tree.clear();
            build(tree);
            let tables = Tables {
                values: &self.values,
                colours: &self.colours,
                marks: &self.marks,
                offsets: &self.offsets,
                max_leaves: self.max_leaves,
            };
            let canonical = Canon::run(tree, tables, scratch);
            if canonical.capped {
                self.capped.fetch_add(1, Ordering::Relaxed);
            }
            self.canonicalised.fetch_add(1, Ordering::Relaxed);
            self.leaves.fetch_add(canonical.leaves, Ordering::Relaxed);
            canonical
        })
    }

    /// The fingerprint of the state's orbit under the symmetry (see the module documentation).
    pub fn canonical_fingerprint(&self, state: &[Value]) -> Fingerprint {
        let key = fingerprint(state);
        if let Some(canonical) = self.memo.get(key) {
            return canonical;
        }
        let canonical = self.canonical(state).fingerprint;
        self.memo.put(key, canonical);
        canonical
    }

    /// Where the symmetric values are inside values of `ty`; `None` when there are none.
    pub fn value_shape(&self, spec: &ioa_lang::ir::Spec, ty: &Type) -> Option<ValueShape> {
        let ids: Vec<TypeId> = self.types.iter().map(|t| t.id).collect();
        match shape_of(spec, &ids, ty, &mut Vec::new()) {
            Ok(Shape::Plain) | Err(_) => None,
            Ok(shape) => Some(ValueShape(shape)),
        }
    }

    /// The position among the symmetric types of declared type `id`, if it is one.
    pub fn type_index(&self, id: TypeId) -> Option<usize> {
        self.types.iter().position(|t| t.id == id)
    }

    /// The fingerprint of the orbit of a state held in another form than interpreter values
    /// (the compiled engine's words): `build` describes the state to a [`TreeBuilder`], as
    /// lists (ordered), bags (unordered), plain leaves and symmetric elements, so that
    /// permuting the state's symmetric values permutes the elements and nothing else. `key`
    /// identifies the concrete state (its plain fingerprint), for the memo.
    pub fn canonical_fingerprint_by(
        &self,
        key: Fingerprint,
        build: impl FnOnce(&mut TreeBuilder),
    ) -> Fingerprint {
        if let Some(canonical) = self.memo.get(key) {
            return canonical;
        }
        let canonical = self
            .canonical_with(|tree| {
                build(&mut TreeBuilder {
                    tree,
                    offsets: &self.offsets,
                    symmetry: self,
                })
            })
            .fingerprint;
        self.memo.put(key, canonical);
        canonical
    }

    /// The permutation that takes the state to its orbit's representative, in the form
    /// [`Symmetry::permute`] takes: for each type, the new position of each carrier position.
    pub fn canonical_permutation(&self, state: &[Value]) -> Vec<Vec<usize>> {
        let positions = self.canonical(state).positions;
        self.offsets
            .windows(2)
            .map(|w| {
                (w[0]..w[1])
                    .map(|e| positions.get(e).map_or(e, |&p| p as usize) - w[0])
                    .collect()
            })
            .collect()
    }

    /// The representative of the state's orbit: the state permuted as
    /// [`Symmetry::canonical_permutation`] says. Two states have the same canonical fingerprint
    /// exactly when they have the same representative (up to hash collisions).
    pub fn representative(&self, state: &[Value]) -> Vec<Value> {
        self.permute(state, &self.canonical_permutation(state))
    }
}
