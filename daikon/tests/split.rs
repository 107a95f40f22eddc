//! Conditional invariants (splitting on Boolean and enumeration variables and on action
//! preconditions, `--split`): on Peterson's algorithm each program counter value fixes the
//! process's flag, and the process `turn` names has its flag up while another is past `setTurn`.

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

/// Without splitting nothing is conditional (the one implication left is the key-set relation
/// `∀ p: Pid (flag[p] ⇒ pc[p] ≠ remainder)`, non-default keys of flag within those of pc).
#[test]
fn without_splitting_there_are_no_implications() {
    let report = peterson(false);
    let conditional = report
        .declarations
        .iter()
        .filter(|d| report.findings[d.finding].invariant.condition.is_some())
        .count();
    assert_eq!(conditional, 0);
    let implications: Vec<&str> = report
        .declarations
        .iter()
        .map(|d| d.text.as_str())
        .filter(|t| t.contains('⇒'))
        .collect();
    assert_eq!(implications, ["∀ p: Pid (flag[p] ⇒ pc[p] ≠ remainder)"]);
    assert_eq!(report.counts.conditions, 0);
}

/// Splitting on action preconditions as well: while a process is past setting its turn, the
/// process that `turn` names has its flag up. The implications check when appended.
#[test]
fn action_preconditions_split_peterson() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/peterson/peterson.ioa");
    let (spec, sources) = check_with_sources(&file);
    let universe = Universe::default();
    let machine = Machine::new(&spec, &universe, automaton(&spec, "Peterson"), vec![]).unwrap();
    let traces = random_runs(&machine, 50, 100, 0);
    let mut options = daikon::Options::default();
    options.grammar.split_actions = true;
    let report = daikon::infer_with_sources(&machine, Some(&sources), &traces, &options);
    println!("{}", report.ioa());
    let texts: Vec<&str> = report
        .declarations
        .iter()
        .map(|d| d.text.as_str())
        .collect();
    assert!(
        texts.contains(&"∃ i: Pid (pc[i] = critical) ⇒ flag[turn]"),
        "{texts:#?}"
    );
    check(&file, Some(&report.ioa())).unwrap_or_else(|e| panic!("{e}"));
}
