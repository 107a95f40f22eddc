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
