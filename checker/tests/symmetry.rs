//! Symmetry reduction is exact and sound: on models small enough to enumerate, the number of
//! states explored under a symmetry equals the number of orbits of the unreduced reachable
//! states (computed by brute force over every permutation), a capped canonicalisation never
//! merges states that are not symmetric, and models that single out values are rejected.
//! Beyond six values, where brute force is out of reach, permuted states must get the same
//! representative and states with one fingerprint must have one representative, and counts
//! are pinned that Stateright's sorted-acceptor representative also gives.

mod common;

use checker::explore::{explore, Model, Options, Verdict};
use checker::fingerprint::Fingerprint;
use checker::model::MachineModel;
use checker::symmetry::{Break, Symmetry, SymmetryError};
use interpreter::machine::State;
use interpreter::value::Value;
use std::collections::BTreeSet;
use std::sync::Mutex;

/// A model that records every state it checks.
struct Recording<'a, M: Model> {
    inner: &'a M,
    states: Mutex<Vec<M::State>>,
}

impl<M: Model> Model for Recording<'_, M>
where
    M::State: Clone,
{
    type State = M::State;
    type Step = M::Step;
    type Property = M::Property;
    type Error = M::Error;
    fn initial_states(&self, out: &mut Vec<(M::Step, M::State)>) -> Result<(), M::Error> {
        self.inner.initial_states(out)
    }
    fn successors(&self, s: &M::State, out: &mut Vec<(M::Step, M::State)>) -> Result<(), M::Error> {
        self.inner.successors(s, out)
    }
    fn check(&self, s: &M::State) -> Result<Option<M::Property>, M::Error> {
        self.states.lock().expect("lock").push(s.clone());
        self.inner.check(s)
    }
    fn fingerprint(&self, s: &M::State) -> Fingerprint {
        self.inner.fingerprint(s)
    }
}

/// Every permutation of `0..n`.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            out.push(q);
        }
    }
    out
}

/// The number of orbits of `states` under every permutation of the symmetric types.
fn orbits(symmetry: &Symmetry, states: &[State]) -> usize {
    // Every combination of one permutation per type.
    let mut combos: Vec<Vec<Vec<usize>>> = vec![vec![]];
    for n in symmetry.carrier_sizes() {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                permutations(n).into_iter().map(move |p| {
                    let mut c = c.clone();
                    c.push(p);
                    c
                })
            })
            .collect();
    }
    let canonical: BTreeSet<Vec<Value>> = states
        .iter()
        .map(|s| {
            combos
                .iter()
                .map(|c| symmetry.permute(s, c))
                .min()
                .expect("one permutation at least")
        })
        .collect();
    canonical.len()
}

/// What exploring one model with several symmetries found.
struct Reduction {
    /// Reachable states without reduction.
    states: usize,
    /// For each set of symmetric types: orbits (brute force), and states explored with ties
    /// capped at one order.
    reduced: Vec<(usize, u64)>,
}

/// Explores `automaton` without symmetry, then with each set of symmetric types, checking that
/// the reduced count is the orbit count.
fn compare(file: &str, universe: &str, automaton: &str, symmetries: &[&[&str]]) -> Reduction {
    let loaded = common::load(file, universe);
    let machine = loaded.machine(automaton, vec![]);
    let plain = MachineModel::new(&machine, None).expect("instances");
    let recording = Recording {
        inner: &plain,
        states: Mutex::new(Vec::new()),
    };
    let report = explore(&recording, &Options::default(), &mut |_| {});
    assert!(matches!(report.verdict, Verdict::Verified));
    let states = recording.states.into_inner().expect("lock");
    assert_eq!(states.len() as u64, report.stats.distinct);

    let mut reduced = Vec::new();
    for types in symmetries {
        let names: Vec<String> = types.iter().map(|t| t.to_string()).collect();
        let symmetry = Symmetry::new(&machine, &names).expect("symmetric");
        let n_orbits = orbits(&symmetry, &states);
        let model = MachineModel::new(&machine, Some(symmetry)).expect("instances");
        let report = explore(&model, &Options::default(), &mut |_| {});
        assert!(matches!(report.verdict, Verdict::Verified));
        assert_eq!(
            report.stats.distinct as usize, n_orbits,
            "exact for {types:?}"
        );

        let capped = Symmetry::new(&machine, &names)
            .expect("symmetric")
            .with_max_leaves(1);
        let model = MachineModel::new(&machine, Some(capped)).expect("instances");
        let report = explore(&model, &Options::default(), &mut |_| {});
        assert!(matches!(report.verdict, Verdict::Verified));
        // Without trying the orders of tied elements, some symmetric states may stay apart,
        // but no two states that are not symmetric are merged.
        let capped = report.stats.distinct;
        assert!(
            (n_orbits as u64..=states.len() as u64).contains(&capped),
            "{capped}"
        );
        reduced.push((n_orbits, capped));
    }
    Reduction {
        states: states.len(),
        reduced,
    }
}

#[test]
fn peterson_reduces_to_its_orbits() {
    let r = compare(
        "examples/peterson/peterson.ioa",
        "",
        "Peterson",
        &[&["Pid"]],
    );
    assert_eq!((r.states, r.reduced[0].0), (92, 46));
}

/// A composite's family indexed by the symmetric type: the members move with their indices.
#[test]
fn a_family_of_resource_managers_reduces_to_its_orbits() {
    let file = "tests/data/symmetry/tpc_family.ioa";
    let r = compare(file, "RM = [0]..[2]\n", "TwoPhaseCommit", &[&["RM"]]);
    assert_eq!((r.states, r.reduced[0].0), (621, 139));
    let r = compare(file, "RM = [0]..[3]\n", "TwoPhaseCommit", &[&["RM"]]);
    assert_eq!((r.states, r.reduced[0].0), (6545, 460));
}

/// The types `--symmetric` would accept are found without being named: those that occur in
/// the state and that nothing singles a value of out.
#[test]
fn symmetric_types_are_detected() {
    let detected = |file: &str, universe: &str, automaton: &str| {
        let loaded = common::load(file, universe);
        Symmetry::detect(&loaded.machine(automaton, vec![]))
    };
    let tpc = "tests/data/symmetry/tpc_family.ioa";
    assert_eq!(detected(tpc, "RM = [0]..[2]\n", "TwoPhaseCommit"), ["RM"]);
    let breaks = "tests/data/symmetry/tpc_family_breaks.ioa";
    let none: [&str; 0] = [];
    assert_eq!(
        detected(breaks, "RM = [0]..[2]\n", "TwoPhaseCommitShy"),
        none
    );
    assert_eq!(
        detected(breaks, "RM = [0]..[2]\n", "TwoPhaseCommitPartial"),
        none
    );
    assert_eq!(
        detected("examples/peterson/peterson.ioa", "", "Peterson"),
        ["Pid"]
    );
    // Ballots are compared by their ordering field.
    let universe = "Node = [0]..[2]\nValue = [1]..[2]\nBallot = [0]..[1]\n";
    let global1 = "examples/consensus/global1_invariants.ioa";
    assert_eq!(detected(global1, universe, "Global1"), ["Node", "Value"]);
}

/// Families that leave a value out, or members that single one out, are refused.
#[test]
fn families_that_single_out_values_are_rejected() {
    let file = "tests/data/symmetry/tpc_family_breaks.ioa";
    let universe = "RM = [0]..[2]\n";
    let errors = rejected(file, universe, "TwoPhaseCommitPartial", "RM");
    assert!(errors.iter().any(|e| matches!(
        e,
        SymmetryError::Breaks {
            how: Break::Family,
            ..
        }
    )));
    let errors = rejected(file, universe, "TwoPhaseCommitShy", "RM");
    assert!(matches!(
        &errors[..],
        [SymmetryError::Breaks {
            how: Break::Field,
            ..
        }]
    ));
}

#[test]
fn global1_reduces_to_its_orbits() {
    let universe = "Node = [0]..[2]\nValue = [1]..[2]\nBallot = [0]..[0]\n\
                    defineQuorums.S = {[0], [1], [2]}\nabstain.B = {[0]}\n";
    let r = compare(
        "examples/consensus/global1_invariants.ioa",
        universe,
        "Global1",
        &[&["Node"], &["Node", "Value"]],
    );
    assert_eq!(r.states, 10_952);
    assert_eq!(r.reduced[0].0, 2_568);
    assert_eq!(r.reduced[1].0, 1_460);
}

/// A small deterministic generator of permutations (a linear congruential generator driving
/// Fisher–Yates shuffles).
struct Shuffler(u64);

impl Shuffler {
    fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut p: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            p.swap(i, (self.0 >> 33) as usize % (i + 1));
        }
        p
    }
}

/// The GROOVE Paxos model with `proposers` and `acceptors`, high majority.
fn paxos(proposers: usize, acceptors: usize) -> common::Loaded {
    common::load(
        "examples/groove_paxos/paxos.ioa",
        &format!(
            "Prop = [1]..[{proposers}]\nAcc = [0]..[{}]\nInt = -1..{proposers}\n",
            acceptors - 1
        ),
    )
}

/// On Paxos with eight acceptors (8! orders, beyond any cap), every state explored, permuted
/// in several ways, keeps its canonical fingerprint and representative; states that share a
/// fingerprint share a representative (so none were merged that are not permutations of each
/// other, whatever the hash); and no canonicalisation needed the leaf cap.
#[test]
fn representatives_are_exact_beyond_six_values() {
    let loaded = paxos(2, 8);
    let machine = loaded.machine("Paxos", vec![Value::Int(5)]);
    let names = vec!["Acc".to_string(), "Prop".to_string()];
    let symmetry = Symmetry::new(&machine, &names).expect("symmetric");
    let model = MachineModel::new(&machine, Some(symmetry)).expect("instances");
    let recording = Recording {
        inner: &model,
        states: Mutex::new(Vec::new()),
    };
    let options = Options {
        max_states: Some(1_500),
        ..Options::default()
    };
    explore(&recording, &options, &mut |_| {});
    let states = recording.states.into_inner().expect("lock");
    assert!(states.len() > 1_000, "{}", states.len());
    let symmetry = Symmetry::new(&machine, &names).expect("symmetric");
    let mut shuffler = Shuffler(7);
    let mut representatives: std::collections::HashMap<Fingerprint, Vec<Value>> =
        std::collections::HashMap::new();
    for s in &states {
        let fingerprint = symmetry.canonical_fingerprint(s);
        let representative = symmetry.representative(s);
        let first = representatives
            .entry(fingerprint)
            .or_insert_with(|| representative.clone());
        assert_eq!(
            *first, representative,
            "one fingerprint, two representatives"
        );
        for _ in 0..3 {
            let permutation = vec![shuffler.permutation(8), shuffler.permutation(2)];
            let permuted = symmetry.permute(s, &permutation);
            assert_eq!(symmetry.canonical_fingerprint(&permuted), fingerprint);
            assert_eq!(symmetry.representative(&permuted), representative);
        }
    }
    // Every state explored is in its own orbit.
    assert_eq!(representatives.len(), states.len());
    assert_eq!(symmetry.capped_states(), 0);
    // Refinement and interchangeable acceptors leave nothing to search on this model.
    let (canonicalised, leaves) = symmetry.searched();
    assert!(canonicalised >= states.len() as u64);
    assert_eq!(leaves, canonicalised);
}

/// Distinct states `ioa explore` stores for Paxos with `proposers`, `acceptors` and majority
/// `maj`, symmetric in `types`.
fn paxos_count(proposers: usize, acceptors: usize, maj: i64, types: &[&str]) -> u64 {
    let loaded = paxos(proposers, acceptors);
    let machine = loaded.machine("Paxos", vec![Value::Int(maj)]);
    let (_, report) = common::run(&machine, types, &Options::default());
    assert!(matches!(report.verdict, Verdict::Verified));
    report.stats.distinct
}

/// Counts with more than six acceptors, each the count Stateright's sorted-acceptor
/// representative gives for `bench/stateright-paxos` (`cargo run --release -p stateright-paxos
/// --example check -- 1 8 5 --symmetric`: 110 states; `2 7 4`: 176,801).
#[test]
fn acceptor_symmetry_beyond_six_values_matches_stateright() {
    assert_eq!(paxos_count(1, 8, 5, &["Acc"]), 110);
}

/// The same for two proposers and seven acceptors; a minute in a debug build, so run it with
/// `cargo test --release -p checker --test symmetry -- --ignored`.
#[test]
#[ignore]
fn acceptor_symmetry_of_seven_acceptors_matches_stateright() {
    assert_eq!(paxos_count(2, 7, 4, &["Acc"]), 176_801);
}

fn rejected(file: &str, universe: &str, automaton: &str, ty: &str) -> Vec<SymmetryError> {
    let loaded = common::load(file, universe);
    let machine = loaded.machine(automaton, vec![]);
    match Symmetry::new(&machine, &[ty.to_string()]) {
        Ok(_) => panic!("`{ty}` accepted as symmetric"),
        Err(e) => e,
    }
}

#[test]
fn models_that_single_out_values_are_rejected() {
    let universe = "Node = [0]..[2]\nValue = [1]..[2]\nBallot = [0]..[1]\n";
    let global1 = "examples/consensus/global1_invariants.ioa";
    // Ballots are compared by their ordering field.
    let errors = rejected(global1, universe, "Global1", "Ballot");
    assert!(errors.iter().all(|e| matches!(
        e,
        SymmetryError::Breaks {
            how: Break::Field,
            ..
        }
    )));
    assert!(!errors.is_empty());
    // Quorum candidates that name particular nodes.
    let errors = rejected(
        global1,
        &format!("{universe}defineQuorums.S = {{[0], [1]}}\n"),
        "Global1",
        "Node",
    );
    assert!(matches!(
        &errors[..],
        [SymmetryError::CandidatesNotClosed { action, .. }] if action == "defineQuorums"
    ));
    // No such type; not a tuple or enumeration.
    let errors = rejected(global1, universe, "Global1", "Nodes");
    assert!(matches!(&errors[..], [SymmetryError::UnknownType { .. }]));
    // LCR's processes are indexed by Int, which is not a declared type.
    let errors = rejected("examples/lcr/lcr.ioa", "Int = 0..2\n", "Channel", "Int");
    assert!(matches!(&errors[..], [SymmetryError::UnknownType { .. }]));
}
