//! Stubborn sets over the footprints of [`super::footprint`]: in a state, a set of enabled
//! action instances whose exploration alone preserves every reachable invariant violation and
//! deadlock (with the visibility rule here and the cycle proviso of [`super::Reduced`]).
//!
//! **Steps that change nothing.** The sets are stubborn in the state graph *without its
//! self-loops*: a step from a state back to itself reaches nothing new, so dropping it keeps
//! every reachable state. This matters for inputs, which are always enabled: `init(i, v)` of a
//! node that has a value, or `fail(i)` of a crashed node, changes nothing, and as an enabled
//! instance it would drag every step of its node into every set. In that graph an instance is
//! *enabled* when one of its steps leads to another state, *looping* when its precondition
//! holds but every step returns to the state, and *disabled* otherwise.
//!
//! Two instances are *dependent* when one writes a slot the other reads or writes. A set `S` of
//! instances is stubborn in a state when
//! 1. every enabled instance in `S` brings every instance dependent on it into `S` — except
//!    that one other than the closure's seed (its *key*) does not bring the writers of places
//!    that only its conjuncts that stay false read ([`Footprint::permanent`]): such a writer can
//!    disable it, but only for good, so no run outside `S` ends with it, and the commutation
//!    below is needed only for runs that leave it enabled;
//! 2. every disabled instance in `S` brings every instance that writes one of its guard's slots
//!    into `S` (a necessary enabling set: it cannot become enabled while those slots keep
//!    their values) — or, when the model names the precondition conjunct that is false in the
//!    state (both engines do, for an instance with one controlling participant that has one
//!    transition for the action), only the writers of what that conjunct reads: it stays
//!    false, and the instance disabled, while those keep their values; and nothing at all when
//!    that conjunct stays false once false ([`super::stable`]: no step can enable it again);
//! 3. every looping instance in `S` brings every instance that writes a slot it reads or writes
//!    into `S` (its steps depend on nothing else, so while those keep their values its steps
//!    keep returning to their state).
//!
//! Then no sequence of instances outside `S` can disable the key, enable a disabled instance
//! of `S`, or fail to commute with an enabled instance of `S` that it leaves enabled
//! (Valmari's theorem, with the key as the one that must stay enabled), so exploring only
//! `S`'s enabled instances loses no deadlock. *Visibility*: an enabled visible instance (one that writes a slot an invariant
//! reads) brings every visible instance into `S`; then either no enabled instance of `S` is
//! visible, or no instance outside `S` is, and with the cycle proviso no reachable state in
//! which an invariant is false is lost.
//!
//! The closure is computed from each enabled instance in turn (at most [`MAX_SEEDS`] of them,
//! one per first-written slot, which tells processes apart), and the set with the fewest
//! enabled instances wins; the first seed in instance order wins ties, so the choice is a
//! function of the state and reruns agree. When the search refuses that set (the cycle
//! proviso of [`super::Reduced`]: none of its steps reaches a new state), the other seeds'
//! closures are offered, smallest first ([`Stubborn::ample_where`]), before all of the state's
//! instances are.

use super::footprint::{Conjunct, Footprint};
use ioa_lang::span::Span;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The most closures computed per state.
pub const MAX_SEEDS: usize = 24;

/// The most instance ids the precomputed lists of [`Stubborn::brings`] hold together (64 MiB).
const LISTED: usize = 16 << 20;

/// Up to this many instances, the lists of [`Stubborn::brings`] are bit sets and a closure
/// marks instances in a bit set: pushing a list is a few word operations rather than one
/// test per instance in it.
const BIT_SET_INSTANCES: usize = 4096;

/// The independence structure of a machine's instances. Places are whole slots (ids below
/// `n_slots`) and cells of set-valued slots (see [`super::footprint`]): a cell conflicts with
/// itself and with its whole slot, a whole slot with itself and every cell of it.
pub struct Stubborn {
    footprints: Vec<Footprint>,
    n_slots: usize,
    /// For each cell (id `n_slots + k`), its slot.
    slot_of: Vec<u32>,
    /// For each cell (id `n_slots + k`), the other cells of its slot it conflicts with (see
    /// [`super::footprint::Cells`]).
    overlaps: Vec<Vec<u32>>,
    /// For each slot, its cells' ids.
    cells_of: Vec<Vec<u32>>,
    /// For each slot, the instances that write it.
    writers: Vec<Vec<u32>>,
    /// For each slot, the instances that read it.
    readers: Vec<Vec<u32>>,
    /// For each instance, whether it writes a slot an invariant reads.
    visible: Vec<bool>,
    /// The visible instances.
    visible_list: Vec<u32>,
    /// For each instance, its controlling participants' conjuncts (see [`Conjunct`]; empty
    /// when not known).
    conjuncts: Vec<Vec<Conjunct>>,
    /// For each instance, what it brings into a closure (computed when first needed).
    brings: Vec<OnceLock<Option<Brings>>>,
    /// How many instance ids the lists of `brings` hold together (at most [`LISTED`]).
    listed: AtomicUsize,
}

/// Why an instance is in a closure, which decides what it brings in.
#[derive(Debug, Clone, Copy)]
enum Why {
    /// It is enabled, and the closure's key instance (its seed): nothing outside the set may
    /// disable it.
    Key,
    /// It is enabled.
    Enabled,
    /// Its precondition holds but its steps return to the state.
    Looping,
    /// It is disabled, and no false conjunct is named.
    Guard,
    /// It is disabled by its `k`-th conjunct.
    Conjunct(usize),
}

/// The instances one instance brings into a stubborn closure, by its status (the rules of
/// [`Stubborn`]), each list ascending and without repeats: a function of the footprints alone,
/// so it is computed once rather than walked place by place in every closure.
struct Brings {
    /// The key: the instances that write or read what it writes, and those that write what it
    /// reads.
    key: Members,
    /// Enabled: the same, less the writers of what only its conjuncts that stay false read.
    enabled: Members,
    /// Looping: the writers of what it reads or writes.
    looping: Members,
    /// Disabled: the writers of what its guard reads.
    guard: Members,
    /// Disabled with a named false conjunct: the writers of what that conjunct reads, one list
    /// per conjunct (in [`Stubborn::conjuncts`] order).
    conjuncts: Box<[Members]>,
}

/// A list of instances: their ids, or, in a model of at most [`BIT_SET_INSTANCES`]
/// instances, a bit set over them.
enum Members {
    Ids(Box<[u32]>),
    Bits(Box<[u64]>),
}

impl Members {
    fn of(mut ids: Vec<u32>, n: usize) -> Members {
        if n <= BIT_SET_INSTANCES {
            let mut bits = vec![0u64; n.div_ceil(64)];
            for t in ids {
                bits[t as usize / 64] |= 1 << (t % 64);
            }
            return Members::Bits(bits.into());
        }
        ids.sort_unstable();
        ids.dedup();
        Members::Ids(ids.into())
    }

    /// Its size in instance ids (a bit set's in `u32` words).
    fn size(&self) -> usize {
        match self {
            Members::Ids(ids) => ids.len(),
            Members::Bits(bits) => bits.len() * 2,
        }
    }
}

impl Brings {
    fn list(&self, why: Why) -> &Members {
        match why {
            Why::Key => &self.key,
            Why::Enabled => &self.enabled,
            Why::Looping => &self.looping,
            Why::Guard => &self.guard,
            Why::Conjunct(k) => &self.conjuncts[k],
        }
    }
}

impl Stubborn {
    /// The structure for `footprints` over `n_slots` slots and the cells of `slot_of` (each
    /// cell's slot; `overlaps`, each cell's other conflicting cells, or empty when none do),
    /// with the invariants reading the slots `observed`.
    pub fn new(
        footprints: Vec<Footprint>,
        n_slots: usize,
        slot_of: Vec<u32>,
        mut overlaps: Vec<Vec<u32>>,
        observed: &[u32],
    ) -> Stubborn {
        overlaps.resize(slot_of.len(), Vec::new());
        let places = n_slots + slot_of.len();
        let mut writers = vec![Vec::new(); places];
        let mut readers = vec![Vec::new(); places];
        let mut cells_of = vec![Vec::new(); n_slots];
        for (k, &slot) in slot_of.iter().enumerate() {
            cells_of[slot as usize].push((n_slots + k) as u32);
        }
        // A write to a cell of an observed slot changes what the invariant reads.
        let mut watched = vec![false; places];
        for &s in observed {
            watched[s as usize] = true;
            for &c in &cells_of[s as usize] {
                watched[c as usize] = true;
            }
        }
        let mut visible = Vec::with_capacity(footprints.len());
        for (k, f) in footprints.iter().enumerate() {
            for &s in &f.writes {
                writers[s as usize].push(k as u32);
            }
            for &s in &f.reads {
                readers[s as usize].push(k as u32);
            }
            visible.push(f.writes.iter().any(|&s| watched[s as usize]));
        }
        let n = footprints.len();
        let visible_list = (0..visible.len() as u32)
            .filter(|&k| visible[k as usize])
            .collect();
        Stubborn {
            footprints,
            n_slots,
            slot_of,
            overlaps,
            cells_of,
            writers,
            readers,
            visible,
            visible_list,
            conjuncts: Vec::new(),
            brings: (0..n).map(|_| OnceLock::new()).collect(),
            listed: AtomicUsize::new(0),
        }
    }

    /// Each instance's conjuncts (the machine's instances first, in order). Only those that
    /// read fewer places than the whole guard are kept: naming another one saves nothing, and
    /// asking the model which one is false costs an evaluation.
    pub fn set_conjuncts(&mut self, mut conjuncts: Vec<Vec<Conjunct>>) {
        for (t, list) in conjuncts.iter_mut().enumerate() {
            let guard = self.footprints.get(t).map_or(0, |f| f.guard.len());
            if !list.iter().any(|c| c.stays_false || c.places.len() < guard) {
                list.clear();
            }
        }
        self.conjuncts = conjuncts;
        self.brings = (0..self.footprints.len())
            .map(|_| OnceLock::new())
            .collect();
        self.listed = AtomicUsize::new(0);
    }

    /// What instance `t` brings into a closure, unless the lists of the instances met so far
    /// hold [`LISTED`] ids already (a model whose every instance depends on every other has
    /// lists quadratic in their number): then the closure walks the places itself.
    fn brings(&self, t: u32) -> Option<&Brings> {
        self.brings[t as usize]
            .get_or_init(|| {
                if self.listed.load(Ordering::Relaxed) >= LISTED {
                    return None;
                }
                let n = self.footprints.len();
                let list = |why: Why| -> Members {
                    let mut out = Vec::new();
                    self.each_brought(t, why, &mut |u| out.push(u));
                    Members::of(out, n)
                };
                let conjuncts = self.conjuncts.get(t as usize).map_or(0, Vec::len);
                let brings = Brings {
                    key: list(Why::Key),
                    enabled: list(Why::Enabled),
                    looping: list(Why::Looping),
                    guard: list(Why::Guard),
                    conjuncts: (0..conjuncts).map(|k| list(Why::Conjunct(k))).collect(),
                };
                let size = brings.key.size()
                    + brings.enabled.size()
                    + brings.looping.size()
                    + brings.guard.size()
                    + brings.conjuncts.iter().map(Members::size).sum::<usize>();
                self.listed.fetch_add(size, Ordering::Relaxed);
                Some(brings)
            })
            .as_ref()
    }

    /// Passes `f` every instance that `t` brings into a closure for reason `why` (the rules of
    /// [`Stubborn`]), possibly several times.
    fn each_brought(&self, t: u32, why: Why, f: &mut dyn FnMut(u32)) {
        let fp = &self.footprints[t as usize];
        match why {
            // Dependent instances: those that write or read what `t` writes, and those that
            // write what `t` reads.
            Why::Key => {
                self.each_related(&fp.writes, true, f);
                self.each_related(&fp.reads, false, f);
            }
            // The same, less those that can only disable `t` for good: writers of what only
            // conjuncts that stay false read.
            Why::Enabled => {
                self.each_related(&fp.writes, true, f);
                if fp.permanent.is_empty() {
                    self.each_related(&fp.reads, false, f);
                } else {
                    let mut reads = fp.reads.clone();
                    reads.retain(|p| fp.permanent.binary_search(p).is_err());
                    self.each_related(&reads, false, f);
                }
            }
            // Its steps change nothing here; a step of it changes something only after what
            // it reads or writes has changed: the instances that write those places are a
            // necessary enabling set.
            Why::Looping => {
                self.each_related(&fp.reads, false, f);
                self.each_related(&fp.writes, false, f);
            }
            // A necessary enabling set: the instances that write what the whole guard reads,
            // or what the conjunct the model names false reads.
            Why::Guard => self.each_related(&fp.guard, false, f),
            // Nothing makes a conjunct that stays false true again.
            Why::Conjunct(k) => {
                let conjunct = &self.conjuncts[t as usize][k];
                if !conjunct.stays_false {
                    self.each_related(&conjunct.places, false, f)
                }
            }
        }
    }

    /// Passes `f` every instance that writes a place conflicting with one of `places` (and,
    /// `with_readers`, every one that reads such a place), possibly several times.
    fn each_related(&self, places: &[u32], with_readers: bool, f: &mut dyn FnMut(u32)) {
        let mut related = Vec::new();
        for &p in places {
            self.related(p, &mut related);
            for &q in &related {
                self.writers[q as usize].iter().for_each(|&u| f(u));
                if with_readers {
                    self.readers[q as usize].iter().for_each(|&u| f(u));
                }
            }
        }
    }

    /// Which conjunct of instance `t` is the one at span `named`, if known. The span names it:
    /// an instance's conjuncts are those of its one controlling participant (see
    /// [`super::footprint::Conjunct`]).
    fn conjunct_at(&self, t: u32, named: Option<Span>) -> Option<usize> {
        let span = named?;
        self.conjuncts
            .get(t as usize)?
            .iter()
            .position(|c| c.span == span)
    }

    /// Whether a false conjunct of instance `t` is asked for (it has conjuncts that read less
    /// than its whole guard).
    pub fn names_conjuncts(&self, t: usize) -> bool {
        self.conjuncts.get(t).is_some_and(|list| !list.is_empty())
    }

    /// How many instances write a slot some invariant reads.
    pub fn visible_count(&self) -> usize {
        self.visible.iter().filter(|&&v| v).count()
    }

    /// The instances' footprints.
    pub fn footprints(&self) -> &[Footprint] {
        &self.footprints
    }

    /// A smallest stubborn set found for a state whose enabled instances are `enabled`
    /// (ascending): its enabled instances, ascending; `None` when none found is smaller than all
    /// of `enabled`. `looping` (ascending) are the instances whose precondition holds but whose
    /// every step returns to the state (see [`Stubborn`]'s note on steps that change nothing).
    pub fn ample(
        &self,
        enabled: &[u32],
        looping: &[u32],
        false_conjunct: &dyn Fn(u32) -> Option<Span>,
    ) -> Option<Vec<u32>> {
        self.ample_where(enabled, looping, false_conjunct, &mut |_| true)
    }

    /// [`Stubborn::ample`], the set also `accept`ed: the smallest set found if accepted, or
    /// else the smallest accepted closure of the other seeds (the cycle proviso's choice: a
    /// set that reaches a new state).
    pub fn ample_where(
        &self,
        enabled: &[u32],
        looping: &[u32],
        false_conjunct: &dyn Fn(u32) -> Option<Span>,
        accept: &mut dyn FnMut(&[u32]) -> bool,
    ) -> Option<Vec<u32>> {
        if enabled.len() <= 1 {
            return None;
        }
        let n = self.footprints.len();
        let mut state = vec![Status::Disabled; n];
        for &t in enabled {
            state[t as usize] = Status::Enabled;
        }
        for &t in looping {
            state[t as usize] = Status::Looping;
        }
        // One seed per process-like group: instances whose first written slot was tried
        // already give (nearly) the same closure.
        let mut seeds: Vec<u32> = Vec::new();
        let mut tried_first_writes: Vec<u32> = Vec::new();
        for &seed in enabled {
            if let Some(&f) = self.footprints[seed as usize].writes.first() {
                if tried_first_writes.contains(&f) {
                    continue;
                }
                tried_first_writes.push(f);
            }
            if seeds.len() == MAX_SEEDS {
                break;
            }
            seeds.push(seed);
        }
        let mut best: Option<Vec<u32>> = None;
        let mut scratch = Scratch::new(n);
        for &seed in &seeds {
            let bound = best.as_ref().map_or(enabled.len(), |b| b.len());
            if let Some(set) = self.closure(seed, &state, bound, &mut scratch, false_conjunct) {
                let done = set.len() == 1;
                best = Some(set);
                if done {
                    break;
                }
            }
        }
        let best = best?;
        if accept(&best) {
            return Some(best);
        }
        let mut others: Vec<Vec<u32>> = seeds
            .iter()
            .filter_map(|&seed| {
                self.closure(seed, &state, enabled.len(), &mut scratch, false_conjunct)
            })
            .filter(|set| *set != best)
            .collect();
        // Smallest first; among equals, the first seed's (a stable sort).
        others.sort_by_key(Vec::len);
        others.dedup();
        others.into_iter().find(|set| accept(set))
    }

    /// The enabled instances of the stubborn closure of `seed`, or `None` when it holds at least
    /// `bound` enabled ones.
    fn closure(
        &self,
        seed: u32,
        state: &[Status],
        bound: usize,
        scratch: &mut Scratch,
        false_conjunct: &dyn Fn(u32) -> Option<Span>,
    ) -> Option<Vec<u32>> {
        scratch.reset();
        let mut found = Vec::new();
        let mut visible_added = false;
        scratch.push(seed);
        while let Some(t) = scratch.queue.pop() {
            let why = match state[t as usize] {
                Status::Enabled => {
                    if self.visible[t as usize] && !visible_added {
                        visible_added = true;
                        for &u in &self.visible_list {
                            scratch.push(u);
                        }
                    }
                    found.push(t);
                    if found.len() >= bound {
                        return None;
                    }
                    // The seed is the key instance.
                    if t == seed {
                        Why::Key
                    } else {
                        Why::Enabled
                    }
                }
                Status::Looping => Why::Looping,
                Status::Disabled if self.footprints[t as usize].has_participants => {
                    // The conjunct the model names false, if it names one.
                    let named = match self.conjuncts.get(t as usize) {
                        Some(list) if !list.is_empty() => false_conjunct(t),
                        _ => None,
                    };
                    self.conjunct_at(t, named).map_or(Why::Guard, Why::Conjunct)
                }
                Status::Disabled => continue,
            };
            match self.brings(t) {
                Some(b) => scratch.push_all(b.list(why)),
                None => self.each_brought(t, why, &mut |u| scratch.push(u)),
            }
        }
        found.sort_unstable();
        Some(found)
    }

    /// The places that conflict with place `p`: itself, and its slot and overlapping cells (a
    /// cell) or its cells (a whole slot).
    fn related(&self, p: u32, out: &mut Vec<u32>) {
        out.clear();
        out.push(p);
        if (p as usize) < self.n_slots {
            out.extend(&self.cells_of[p as usize]);
        } else {
            out.push(self.slot_of[p as usize - self.n_slots]);
            out.extend(&self.overlaps[p as usize - self.n_slots]);
        }
    }
}

/// What an instance can do in the state a stubborn set is computed for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// Some step of it leads to another state.
    Enabled,
    /// Its precondition holds, but every step of it leads back to the state.
    Looping,
    /// Its precondition is false.
    Disabled,
}

/// The marks of one closure.
struct Scratch {
    /// In a model of more than [`BIT_SET_INSTANCES`] instances, `mark[t] == round`: instance
    /// `t` is in the closure being computed (a new closure starts a new round, so nothing is
    /// cleared between closures).
    mark: Vec<u32>,
    round: u32,
    /// In a model of at most [`BIT_SET_INSTANCES`] instances, the closure's instances as bits
    /// (cleared for each closure).
    bits: Vec<u64>,
    queue: Vec<u32>,
}

impl Scratch {
    fn new(n: usize) -> Scratch {
        let small = n <= BIT_SET_INSTANCES;
        Scratch {
            mark: if small { Vec::new() } else { vec![0; n] },
            round: 0,
            bits: if small {
                vec![0; n.div_ceil(64)]
            } else {
                Vec::new()
            },
            queue: Vec::new(),
        }
    }

    fn reset(&mut self) {
        self.bits.iter_mut().for_each(|b| *b = 0);
        self.round = self.round.wrapping_add(1);
        if self.round == 0 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.round = 1;
        }
        self.queue.clear();
    }

    fn push(&mut self, t: u32) {
        if self.mark.is_empty() {
            let (w, bit) = (t as usize / 64, 1u64 << (t % 64));
            if self.bits[w] & bit == 0 {
                self.bits[w] |= bit;
                self.queue.push(t);
            }
            return;
        }
        let m = &mut self.mark[t as usize];
        if *m != self.round {
            *m = self.round;
            self.queue.push(t);
        }
    }

    /// Pushes every instance of `members` not in the closure yet.
    fn push_all(&mut self, members: &Members) {
        match members {
            Members::Ids(ids) => ids.iter().for_each(|&u| self.push(u)),
            Members::Bits(bits) => {
                for (w, (&add, have)) in bits.iter().zip(self.bits.iter_mut()).enumerate() {
                    let mut new = add & !*have;
                    *have |= new;
                    while new != 0 {
                        let b = new.trailing_zeros();
                        self.queue.push((w * 64) as u32 + b);
                        new &= new - 1;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn print(guard: &[u32], reads: &[u32], writes: &[u32]) -> Footprint {
        let mut reads = [reads, guard].concat();
        reads.sort_unstable();
        reads.dedup();
        Footprint {
            guard: guard.to_vec(),
            reads,
            writes: writes.to_vec(),
            has_participants: true,
            permanent: Vec::new(),
        }
    }

    #[test]
    fn independent_instances_are_taken_one_at_a_time() {
        // Two workers on slots 0 and 1, each one instance.
        let s = Stubborn::new(
            vec![print(&[0], &[0], &[0]), print(&[1], &[1], &[1])],
            2,
            vec![],
            vec![],
            &[],
        );
        assert_eq!(s.ample(&[0, 1], &[], &|_| None), Some(vec![0]));
        assert_eq!(
            s.ample(&[1], &[], &|_| None),
            None,
            "one enabled instance: nothing to reduce"
        );
    }

    #[test]
    fn a_disabled_instance_brings_the_writers_of_its_guard() {
        // 0 writes slot 0; 1 (disabled) is guarded by slot 0 and writes slot 1, which 2 reads;
        // 3 is on its own slot 2.
        let s = Stubborn::new(
            vec![
                print(&[], &[], &[0]),
                print(&[0], &[], &[1]),
                print(&[1], &[1], &[1]),
                print(&[2], &[2], &[2]),
            ],
            3,
            vec![],
            vec![],
            &[],
        );
        // From 2: its dependent 1 is disabled, whose enabler 0 joins; 3 stays out.
        assert_eq!(s.ample(&[0, 2, 3], &[], &|_| None), Some(vec![0]));
        assert_eq!(s.closure_of(2, &[0, 2, 3]), vec![0, 2]);
    }

    #[test]
    fn a_named_false_conjunct_brings_only_its_own_writers() {
        // 0 writes slot 0, 1 writes slot 1, 3 writes slot 2; 2 (disabled) is guarded by slots
        // 0 and 1 and writes slot 2, which 3 reads.
        let mut s = Stubborn::new(
            vec![
                print(&[0], &[0], &[0]),
                print(&[1], &[1], &[1]),
                print(&[0, 1], &[], &[2]),
                print(&[2], &[2], &[2]),
            ],
            3,
            vec![],
            vec![],
            &[],
        );
        let span = |k: usize| Span::new(ioa_lang::span::FileId(0), k, k + 1);
        let conjunct = |k: usize, places: &[u32]| Conjunct {
            span: span(k),
            places: places.to_vec(),
            stays_false: false,
        };
        s.set_conjuncts(vec![
            vec![],
            vec![],
            vec![conjunct(10, &[0]), conjunct(20, &[1])],
            vec![],
        ]);
        // Without a named conjunct, 3's dependent 2 brings the writers of both its slots (and
        // so does 0's reader 2).
        assert_eq!(s.ample(&[0, 1, 3], &[], &|_| None), Some(vec![0, 1]));
        let mut scratch = Scratch::new(4);
        let all = s.closure(
            3,
            &enabled_at(4, &[0, 1, 3]),
            usize::MAX,
            &mut scratch,
            &|_| None,
        );
        assert_eq!(all, Some(vec![0, 1, 3]));
        // With the conjunct on slot 1 named false, only 1 joins.
        let named = |t: u32| (t == 2).then(|| span(20));
        let some = s.closure(
            3,
            &enabled_at(4, &[0, 1, 3]),
            usize::MAX,
            &mut scratch,
            &named,
        );
        assert_eq!(some, Some(vec![1, 3]));
        // A span the instance does not have falls back to the whole guard.
        let unknown = |t: u32| (t == 2).then(|| span(30));
        let all = s.closure(
            3,
            &enabled_at(4, &[0, 1, 3]),
            usize::MAX,
            &mut scratch,
            &unknown,
        );
        assert_eq!(all, Some(vec![0, 1, 3]));
        // Past the lists' budget the closure walks the places itself, with the same results.
        // Every seed's closure, for each conjunct of 2 named false (or none).
        let every = |s: &Stubborn, scratch: &mut Scratch| -> Vec<Vec<Option<Vec<u32>>>> {
            [None, Some(span(10)), Some(span(20)), Some(span(30))]
                .into_iter()
                .map(|named| {
                    let named = move |t: u32| if t == 2 { named } else { None };
                    let state = enabled_at(4, &[0, 1, 3]);
                    (0..4)
                        .map(|seed| s.closure(seed, &state, usize::MAX, scratch, &named))
                        .collect()
                })
                .collect()
        };
        let lists = every(&s, &mut scratch);
        s.set_conjuncts(s.conjuncts.clone());
        s.listed.store(LISTED, Ordering::Relaxed);
        let walked = every(&s, &mut scratch);
        assert!(s
            .brings
            .iter()
            .all(|b| b.get().is_some_and(Option::is_none)));
        assert_eq!(walked, lists);
    }

    fn enabled_at(n: usize, enabled: &[u32]) -> Vec<Status> {
        let mut state = vec![Status::Disabled; n];
        for &t in enabled {
            state[t as usize] = Status::Enabled;
        }
        state
    }

    #[test]
    fn an_input_that_changes_nothing_brings_only_the_writers_of_what_it_touches() {
        // Two nodes (slots 0 and 1). 0 and 1 are node steps; 2 is node 0's input, which reads
        // and writes slot 0 (like `init`) and here returns to the state; 3 writes slot 2 only.
        let s = Stubborn::new(
            vec![
                print(&[0], &[0], &[0]),
                print(&[1], &[1], &[1]),
                print(&[], &[0], &[0]),
                print(&[2], &[2], &[2]),
            ],
            3,
            vec![],
            vec![],
            &[],
        );
        // Looping, the input joins node 0's set (it writes slot 0) but is not one of the set's
        // steps, and it brings only the writers of slot 0: the set is node 0's step alone.
        assert_eq!(s.ample(&[0, 1, 3], &[2], &|_| None), Some(vec![0]));
        // Enabled, it is a step of node 0's set, which then holds two steps; node 1's single
        // step is the smaller set.
        assert_eq!(s.closure_of(0, &[0, 1, 2, 3]), vec![0, 2]);
        assert_eq!(s.ample(&[0, 1, 2, 3], &[], &|_| None), Some(vec![1]));
    }

    #[test]
    fn a_visible_instance_brings_every_visible_instance() {
        // Slots 0 and 1 are both observed; 0 and 1 are independent but both visible.
        let s = Stubborn::new(
            vec![
                print(&[0], &[0], &[0]),
                print(&[1], &[1], &[1]),
                print(&[2], &[2], &[2]),
            ],
            3,
            vec![],
            vec![],
            &[0, 1],
        );
        assert_eq!(s.visible_count(), 2);
        assert_eq!(s.closure_of(0, &[0, 1, 2]), vec![0, 1]);
        assert_eq!(s.ample(&[0, 1, 2], &[], &|_| None), Some(vec![2]));
    }

    #[test]
    fn cells_of_one_set_are_independent_but_not_of_the_whole_set() {
        // Slot 0 is a set with cells 2 (element a) and 3 (element b); instance 0 inserts a,
        // instance 1 inserts b.
        let inserts = vec![print(&[], &[], &[2]), print(&[], &[], &[3])];
        let s = Stubborn::new(inserts.clone(), 2, vec![0, 0], vec![], &[]);
        assert_eq!(s.closure_of(0, &[0, 1]), vec![0]);
        // Instance 2 reads the set's size (the whole slot 0) and writes slot 1: both inserts
        // are dependent on it, so the closure of one insert holds the other.
        let mut with_size = inserts;
        with_size.push(print(&[0], &[0], &[1]));
        let s = Stubborn::new(with_size, 2, vec![0, 0], vec![], &[]);
        assert_eq!(s.closure_of(0, &[0, 1]), vec![0, 1]);
        // An observed set makes a write to any of its cells visible.
        let s = Stubborn::new(vec![print(&[], &[], &[2])], 2, vec![0, 0], vec![], &[0]);
        assert_eq!(s.visible_count(), 1);
    }

    #[test]
    fn a_refused_set_gives_way_to_the_next_smallest() {
        // Three independent workers; worker 1 has two steps on its slot.
        let s = Stubborn::new(
            vec![
                print(&[0], &[0], &[0]),
                print(&[1], &[1], &[1]),
                print(&[1], &[1], &[1]),
                print(&[2], &[2], &[2]),
            ],
            3,
            vec![],
            vec![],
            &[],
        );
        assert_eq!(s.ample(&[0, 1, 2, 3], &[], &|_| None), Some(vec![0]));
        // The proviso refuses {0}: the next smallest, {3}, comes before {1, 2}.
        let mut offered = Vec::new();
        let set = s.ample_where(&[0, 1, 2, 3], &[], &|_| None, &mut |set| {
            offered.push(set.to_vec());
            set != [0]
        });
        assert_eq!(set, Some(vec![3]));
        assert_eq!(offered, vec![vec![0], vec![3]]);
        // Refusing every set but all of the instances gives none.
        assert_eq!(
            s.ample_where(&[0, 1, 2, 3], &[], &|_| None, &mut |_| false),
            None
        );
    }

    #[test]
    fn a_conjunct_that_stays_false_brings_nothing() {
        // 0 writes slot 0; 1 (disabled) reads slots 0 and 1 in its guard, and writes slot 2,
        // which 2 reads; 3 writes slot 1.
        let mut s = Stubborn::new(
            vec![
                print(&[], &[0], &[0]),
                print(&[0, 1], &[0, 1], &[2]),
                print(&[2], &[2], &[3]),
                print(&[], &[], &[1]),
            ],
            4,
            vec![],
            vec![],
            &[],
        );
        let span = Span::new(ioa_lang::span::FileId(0), 7, 8);
        // Named false, a conjunct on slot 1 brings its writer 3 into 2's closure.
        s.set_conjuncts(vec![
            vec![],
            vec![Conjunct {
                span,
                places: vec![1],
                stays_false: false,
            }],
            vec![],
            vec![],
        ]);
        assert_eq!(s.closure_of_named(2, &[0, 2, 3], Some(span)), vec![2, 3]);
        // Staying false, it brings nothing: 2 is a set on its own.
        s.set_conjuncts(vec![
            vec![],
            vec![Conjunct {
                span,
                places: vec![],
                stays_false: true,
            }],
            vec![],
            vec![],
        ]);
        assert_eq!(s.closure_of_named(2, &[0, 2, 3], Some(span)), vec![2]);
    }

    #[test]
    fn only_the_key_brings_what_can_disable_it_for_good() {
        // 0 (a crashable node's send) writes slot 0 and is guarded by slot 1 through a
        // conjunct that stays false; 1 (the crash) writes slot 1; 2 reads slot 0.
        let mut send = print(&[1], &[1], &[0]);
        send.permanent = vec![1];
        let s = Stubborn::new(
            vec![send, print(&[], &[], &[1]), print(&[], &[0], &[2])],
            3,
            vec![],
            vec![],
            &[],
        );
        // From 2, the send joins as a dependent, not its crash: the crash can only disable
        // it for good, so no run outside the set ends with the send.
        assert_eq!(s.closure_of(2, &[0, 1, 2]), vec![0, 2]);
        // As the key, nothing outside the set may disable it: the crash joins.
        assert_eq!(s.closure_of(0, &[0, 1, 2]), vec![0, 1, 2]);
    }

    #[test]
    fn a_pattern_cell_conflicts_with_the_cells_it_matches() {
        // Slot 0 is a set; cell 1 is its element [a, x] for some x (a pattern), cell 2 the
        // element [a, b], cell 3 the element [c, b]. Instance 0 writes the pattern; 1 and 2
        // write the two elements.
        let overlaps = vec![vec![2], vec![1], vec![]];
        let s = Stubborn::new(
            vec![
                print(&[], &[], &[1]),
                print(&[], &[], &[2]),
                print(&[], &[], &[3]),
            ],
            1,
            vec![0, 0, 0],
            overlaps,
            &[],
        );
        assert_eq!(s.closure_of(0, &[0, 1, 2]), vec![0, 1]);
        assert_eq!(s.closure_of(2, &[0, 1, 2]), vec![2]);
    }

    impl Stubborn {
        /// The enabled instances of the closure of `seed`, without a bound.
        fn closure_of(&self, seed: u32, enabled: &[u32]) -> Vec<u32> {
            self.closure_of_named(seed, enabled, None)
        }

        /// [`Stubborn::closure_of`], the model naming `named` false in every disabled
        /// instance.
        fn closure_of_named(&self, seed: u32, enabled: &[u32], named: Option<Span>) -> Vec<u32> {
            let mut state = vec![Status::Disabled; self.footprints.len()];
            for &t in enabled {
                state[t as usize] = Status::Enabled;
            }
            let mut scratch = Scratch::new(self.footprints.len());
            self.closure(seed, &state, usize::MAX, &mut scratch, &|_| named)
                .expect("unbounded")
        }
    }
}
