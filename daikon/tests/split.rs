//! Conditional invariants (splitting on Boolean and enumeration variables, `--split`): on
//! Peterson's algorithm each program counter value fixes the process's flag.

mod common;

use common::*;
use interpreter::machine::Machine;
use interpreter::universe::Universe;
use std::path::Path;

fn peterson(split: bool) -> daikon::Report {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/peterson/peterson.ioa");
    let spec = check(&file, None).unwrap();
    let universe = Universe::default();
    let id = automaton(&spec, "Peterson");
    let machine = Machine::new(&spec, &universe, id, vec![]).unwrap();
    let traces = random_runs(&machine, 50, 100, 0);
    let mut options = daikon::Options::default();
    options.grammar.split = split;
    daikon::infer(&machine, &traces, &options)
}

#[test]
fn program_counters_fix_the_flags() {
    let report = peterson(true);
    println!("{}", report.ioa());
    let texts: Vec<&str> = report
        .declarations
        .iter()
        .map(|d| d.text.as_str())
        .collect();
    for wanted in [
        "∀ p: Pid (pc[p] = critical ⇒ flag[p] = true)",
        "∀ p: Pid (pc[p] = remainder ⇒ flag[p] = false)",
        "∀ p: Pid (¬flag[p] ⇒ pc[p] = remainder ∨ pc[p] = trySetFlag ∨ pc[p] = leaveExit)",
    ] {
        assert!(texts.contains(&wanted), "missing `{wanted}` in {texts:#?}");
    }
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/peterson/peterson.ioa");
    check(&file, Some(&report.ioa())).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn without_splitting_there_are_no_implications() {
    let report = peterson(false);
    assert!(report.declarations.iter().all(|d| !d.text.contains('⇒')));
    assert_eq!(report.counts.conditions, 0);
}
