//! Swarm runs (`daikon::validate`, `Plan::swarm`) on the distributed Paxos: node 2 may crash,
//! and `fail` is always enabled, so in uniformly random runs it crashes early in every run and
//! its proposals are never seen. `N[[2]].cval = nil` (node 2 never proposes) is false, held in
//! the plain further runs `ioa infer` makes, and is broken by swarm runs with the same seeds
//! and length, in a run that left `fail` out.

mod common;

use common::*;
use daikon::validate::{swarm_omitted, validate, Plan};
use interpreter::machine::Machine;
use interpreter::universe::Universe;

const FALSE_CLAIM: &str = "invariant NodeTwoNeverProposes of Paxos: N[[2]].cval = nil\n";

fn paxos() -> (ioa_lang::ir::Spec, Universe) {
    let folder = consensus().join("../paxos");
    let spec =
        check(&folder.join("paxos.ioa"), Some(FALSE_CLAIM)).unwrap_or_else(|e| panic!("{e}"));
    let text = std::fs::read_to_string(folder.join("default.universe")).unwrap();
    let mut universe = Universe::default();
    universe
        .add(&spec, ioa_lang::span::FileId(0), &text, true)
        .expect("universe");
    (spec, universe)
}

fn plan(spec: &ioa_lang::ir::Spec, swarm: bool) -> Plan {
    Plan {
        automaton: automaton(spec, "Paxos"),
        params: vec![],
        runs: 30,
        steps: 400,
        seed: 1_000_000_000,
        weights: Default::default(),
        swarm,
    }
}

#[test]
fn swarm_runs_show_what_an_early_crash_hides() {
    let (spec, universe) = paxos();
    let names = vec!["NodeTwoNeverProposes".to_string()];
    let plain = validate(&spec, &universe, &plan(&spec, false), &names).unwrap();
    assert_eq!(plain.violated(), 0, "{:?}", plain.invariants);
    let swarm = validate(&spec, &universe, &plan(&spec, true), &names).unwrap();
    let first = swarm.invariants[0]
        .first
        .as_ref()
        .unwrap_or_else(|| panic!("no swarm run broke it: {:?}", swarm.invariants));
    assert!(first.omitted.contains(&"fail".to_string()), "{first:?}");
    assert!(
        first
            .action
            .as_deref()
            .unwrap_or("")
            .contains("propose([2]"),
        "{first:?}"
    );
}

#[test]
fn a_swarm_run_leaves_out_only_inputs_and_depends_only_on_its_seed() {
    let (spec, universe) = paxos();
    let machine = Machine::new(&spec, &universe, automaton(&spec, "Paxos"), vec![]).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..64 {
        let omitted = swarm_omitted(&machine, seed);
        assert_eq!(omitted, swarm_omitted(&machine, seed));
        for name in &omitted {
            assert!(["init", "fail"].contains(&name.as_str()), "{name}");
        }
        seen.insert(omitted);
    }
    // Paxos has two inputs: all four subsets occur.
    assert_eq!(seen.len(), 4, "{seen:?}");
}
