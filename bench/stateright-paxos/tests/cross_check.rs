//! Cross-check: the Stateright version of the GROOVE-vs-SPIN Paxos model and `ioa explore` on
//! `examples/groove_paxos/paxos.ioa` reach the same number of distinct states, without symmetry
//! and with acceptor symmetry (both canonical forms are exact: one state per orbit). The counts
//! are also pinned (for both of ioa's engines, compiled and interpreted), and they are the counts SPIN reports for `bench/promela/paxos.pml` with
//! `-DNOREDUCE` (`bench/run.sh`).

#[path = "../shared/checked.rs"]
mod checked;

use checker::compiled::CompiledModel;
use checker::explore::{explore, Options, Verdict};
use checker::model::MachineModel;
use checker::symmetry::Symmetry;
use interpreter::machine::Machine;
use interpreter::universe::Universe;
use interpreter::value::Value;
use ioa_lang::ir::AutomatonId;
use ioa_lang::loader::FileSystem;
use stateright_paxos::Paxos;
use std::path::{Path, PathBuf};

struct Disk;

impl FileSystem for Disk {
    fn read(&self, path: &Path) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    }
    fn canonical(&self, path: &Path) -> PathBuf {
        ioa_lang::loader::normalise(path)
    }
}

/// Distinct states `ioa explore` stores for `proposers`/`acceptors`/`maj`, and whether both
/// invariants held.
fn ioa_count(proposers: usize, acceptors: usize, maj: i64, symmetric: bool) -> (u64, bool) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let result = ioa_lang::check_files(&[root.join("examples/groove_paxos/paxos.ioa")], &Disk);
    let spec = result.spec.expect("paxos.ioa checks");
    let universe = format!(
        "Prop = [1]..[{proposers}]\nAcc = [0]..[{}]\nInt = -1..{proposers}\n",
        acceptors - 1
    );
    let universe =
        Universe::parse(&spec, ioa_lang::span::FileId(9999), &universe).expect("universe parses");
    let id = spec
        .automata
        .iter()
        .position(|a| a.name == "Paxos")
        .expect("automaton Paxos");
    let machine = Machine::new(
        &spec,
        &universe,
        AutomatonId(id as u32),
        vec![Value::Int(maj)],
    )
    .expect("machine");
    let symmetry = || {
        symmetric.then(|| Symmetry::new(&machine, &["Acc".to_string()]).expect("Acc is symmetric"))
    };
    let model = MachineModel::new(&machine, symmetry()).expect("action instances");
    let report = explore(&model, &Options::default(), &mut |_| {});
    let interpreted = (
        report.stats.distinct,
        matches!(report.verdict, Verdict::Verified),
    );
    // `ioa explore` compiles this model by default: the compiled engine must agree.
    let compiled = CompiledModel::new(&machine, symmetry()).expect("paxos.ioa compiles");
    let report = explore(&compiled, &Options::default(), &mut |_| {});
    assert_eq!(
        (
            report.stats.distinct,
            matches!(report.verdict, Verdict::Verified)
        ),
        interpreted,
        "compiled and interpreted engines, {proposers}P/{acceptors}A"
    );
    interpreted
}

/// Stateright's distinct-state count, and whether both properties held.
fn stateright_count(
    proposers: usize,
    acceptors: usize,
    maj: usize,
    symmetric: bool,
) -> (u64, bool) {
    let outcome = checked::check(Paxos::new(proposers, acceptors, maj), symmetric, 2);
    (outcome.unique as u64, outcome.violation.is_none())
}

#[test]
fn same_counts_without_symmetry() {
    // proposers, acceptors, maj (high), distinct states
    for (p, a, maj, states) in [(2, 2, 2, 177), (2, 3, 2, 5_649), (3, 2, 2, 4_588)] {
        let ioa = ioa_count(p, a, maj as i64, false);
        let stateright = stateright_count(p, a, maj, false);
        assert_eq!(ioa, (states, true), "ioa, {p}P/{a}A");
        assert_eq!(stateright, (states, true), "stateright, {p}P/{a}A");
    }
}

#[test]
fn same_counts_with_acceptor_symmetry() {
    for (p, a, maj, states) in [(2, 2, 2, 117), (2, 3, 2, 1_213), (3, 2, 2, 2_674)] {
        let ioa = ioa_count(p, a, maj as i64, true);
        let stateright = stateright_count(p, a, maj, true);
        assert_eq!(ioa, (states, true), "ioa, {p}P/{a}A, --symmetric Acc");
        assert_eq!(
            stateright,
            (states, true),
            "stateright, {p}P/{a}A, symmetric"
        );
    }
}

/// With the majority too low, both find that agreement fails.
#[test]
fn low_majority_is_refuted_by_both() {
    let outcome = checked::check(Paxos::new(2, 3, 1), false, 1);
    assert_eq!(outcome.violation, Some(("agreement", 10)));
    let (_, verified) = ioa_count(2, 3, 1, false);
    assert!(!verified);
}
