//! The independence analysis of partial-order reduction, read on models: which precondition
//! conjuncts it takes to stay false once false (`checker::reduction::stable`).

mod common;

use common::{workspace, Disk};

/// Every conjunct of the main file's primitive automata, with the verdict.
fn verdicts(file: &str) -> String {
    let result = ioa_lang::check_files(&[workspace(file)], &Disk);
    let spec = result.spec.expect("the model checks");
    let main = ioa_lang::span::FileId(0);
    let mut out = String::new();
    for c in checker::reduction::stable::classify(&spec) {
        if c.span.file != main {
            continue;
        }
        let text = result.sources.snippet(c.span);
        let verdict = if c.stays_false {
            "stays false"
        } else {
            "may become true"
        };
        out.push_str(&format!(
            "{}.{}: {text}  —  {verdict}\n",
            c.automaton, c.action
        ));
    }
    out
}

#[test]
fn stays_false_conjuncts_are_recognised() {
    insta::assert_snapshot!(verdicts("tests/data/reduction/stable_guards.ioa"));
}

#[test]
fn stays_false_conjuncts_of_the_composite_paxos() {
    insta::assert_snapshot!(verdicts("examples/paxos/paxos.ioa"));
}

/// The analysis of cycles (`checker::reduction::progress`) of automaton `name` of `file` over
/// `universe`: per action, how many of its instances each round found to make progress, and
/// how many may lie on a cycle.
fn rounds(
    file: &str,
    name: &str,
    params: Vec<interpreter::value::Value>,
    universe: &str,
) -> String {
    let loaded = common::load(file, universe);
    let machine = loaded.machine(name, params);
    let instances = checker::model::action_instances(&machine)
        .unwrap_or_else(|e| panic!("the instances of {name}: {e:?}"));
    let found = checker::reduction::progress::acyclicity(&machine, &instances);
    let mut per_action: std::collections::BTreeMap<(usize, &str), Vec<String>> = Default::default();
    for (k, i) in instances.iter().enumerate() {
        let verdict = match found.round_of[k] {
            Some(r) => format!("in round {r}"),
            None => "may lie on a cycle".to_string(),
        };
        per_action
            .entry((i.action, machine.actions[i.action].name.as_str()))
            .or_default()
            .push(verdict);
    }
    let mut out = format!(
        "{}: {}\n",
        name,
        if found.acyclic() {
            match found.rounds() {
                1 => "no cycles (1 round)".to_string(),
                n => format!("no cycles ({n} rounds)"),
            }
        } else {
            "may have cycles".to_string()
        }
    );
    for ((_, action), verdicts) in per_action {
        let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
        for v in verdicts {
            *counts.entry(v).or_default() += 1;
        }
        let list: Vec<String> = counts.iter().map(|(v, n)| format!("{n} {v}")).collect();
        out.push_str(&format!("  {action}: {}\n", list.join(", ")));
    }
    out
}

#[test]
fn cycles_of_the_composite_paxos() {
    let universe = "Node = [0]..[2]\nValue = [1]..[1]\nBallot = [0]..[1]\nfail.i = [2]\n";
    let mut out = rounds(
        "tests/data/reduction/paxos_reliable.ioa",
        "PaxosReliable",
        vec![],
        universe,
    );
    // The network that loses and duplicates: a stale message goes round for ever.
    out.push_str(&rounds(
        "examples/paxos/paxos.ioa",
        "Paxos",
        vec![],
        universe,
    ));
    insta::assert_snapshot!(out);
}

#[test]
fn cycles_of_small_models() {
    use interpreter::value::Value;
    let mut out = rounds("tests/data/reduction/ignoring.ioa", "Ignoring", vec![], "");
    out.push_str(&rounds(
        "tests/data/reduction/counters.ioa",
        "Counters",
        vec![Value::Int(3), Value::Int(2), Value::Bool(false)],
        "Int = 0..4",
    ));
    for (lossy, dup) in [(false, false), (true, false), (false, true)] {
        out.push_str(&format!("lossy={lossy} dup={dup}: "));
        out.push_str(&rounds(
            "tests/data/reduction/quorum_vote.ioa",
            "Vote",
            vec![
                Value::Int(2),
                Value::Bool(lossy),
                Value::Bool(dup),
                Value::Bool(false),
            ],
            "Int = 0..1\nfail.i = 1",
        ));
    }
    out.push_str(&rounds(
        "tests/data/elsewhere/two_phase_commit.ioa",
        "TwoPhaseCommit",
        vec![Value::Int(2)],
        "Int = 0..2",
    ));
    out.push_str(&rounds(
        "tests/data/elsewhere/lcr.ioa",
        "LCRRing",
        vec![Value::Int(3)],
        "Int = 0..3",
    ));
    out.push_str(&rounds(
        "tests/data/elsewhere/abp.ioa",
        "ABP",
        vec![Value::Int(2)],
        "Int = 0..2",
    ));
    insta::assert_snapshot!(out);
}

#[test]
fn cycles_of_look_alikes() {
    let mut out = String::new();
    for name in [
        "PingPong",
        "Countdown",
        "Reset",
        "Flag",
        "Latch",
        "Queue",
        "Consume",
        "Undone",
        "Stale",
        "Decide",
        "SkippedInput",
    ] {
        out.push_str(&rounds(
            "tests/data/reduction/cycles.ioa",
            name,
            vec![],
            "Int = 0..4",
        ));
    }
    insta::assert_snapshot!(out);
}
