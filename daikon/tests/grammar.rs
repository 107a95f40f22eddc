//! The grammar on two small automata made to exercise it: `tests/data/infer/counter.ioa`
//! (linear relations, equality sets, constants, bounds, inclusion, membership, disjointness and a
//! `Null`-valued array, with the suppression of what follows from them) and `shapes.ioa` (one-of,
//! a bound that is returned to, order, set equality, an empty set and constant sizes).

mod common;

use common::*;
use interpreter::machine::Machine;
use interpreter::universe::Universe;
use std::path::Path;

fn counter_report(options: &daikon::Options) -> daikon::Report {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/infer");
    let spec = check(&dir.join("counter.ioa"), None).unwrap();
    let text = std::fs::read_to_string(dir.join("counter.universe")).unwrap();
    let universe = Universe::parse(&spec, ioa_lang::span::FileId(0), &text).unwrap();
    let id = automaton(&spec, "Counter");
    let machine = Machine::new(&spec, &universe, id, vec![]).unwrap();
    let traces = random_runs(&machine, 60, 40, 0);
    daikon::infer(&machine, &traces, options)
}

fn texts(report: &daikon::Report) -> Vec<String> {
    report.declarations.iter().map(|d| d.text.clone()).collect()
}

#[test]
fn the_grammar_finds_what_the_counter_keeps() {
    let report = counter_report(&daikon::Options::default());
    println!("{}{}", report.ioa(), report.explain());
    let found = texts(&report);
    for wanted in [
        "flag = true",
        "x = z",
        "y = 2 * x + 1",
        "held ⊆ seen",
        "last ∈ seen",
        "size(held ∩ gone) = 0",
        "∀ i: Item (owner[i] ≠ nil ⇔ i ∈ held)",
    ] {
        assert!(
            found.iter().any(|t| t == wanted),
            "missing `{wanted}` in {found:#?}"
        );
    }
    // Said of x, its equal's leader, only; and implied by the type or by other invariants.
    for unwanted in [
        "y = 2 * z + 1",
        "size(held) ≤ size(seen)",
        "phase = busy ∨ phase = done ∨ phase = idle",
        "size(held) ≥ 0",
    ] {
        assert!(
            !found.iter().any(|t| t == unwanted),
            "unexpected `{unwanted}`"
        );
    }
}

#[test]
fn explanations_name_the_reason() {
    let report = counter_report(&daikon::Options::default());
    let explained = report.explain();
    assert!(
        explained.contains("suppressed: y = 2 * z + 1 — follows from Inv_"),
        "{explained}"
    );
    assert!(
        explained.contains("unjustified: x ≥ 0 — 1 informative sample(s)"),
        "{explained}"
    );
    assert!(
        explained.contains("falsified: x = 0 — in random run, seed 0"),
        "{explained}"
    );
    assert!(
        explained.contains("implied by the type: these are all its values"),
        "{explained}"
    );
}

#[test]
fn a_low_confidence_reports_more() {
    let low = counter_report(&daikon::Options {
        confidence: 0.4,
        ..daikon::Options::default()
    });
    let usual = counter_report(&daikon::Options::default());
    assert!(texts(&low).contains(&"x ≥ 0".to_string()));
    assert!(usual.declarations.len() < low.declarations.len());
}

#[test]
fn counter_invariants_check_when_appended() {
    let report = counter_report(&daikon::Options::default());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/infer");
    check(&dir.join("counter.ioa"), Some(&report.ioa())).unwrap_or_else(|e| panic!("{e}"));
}

/// The rest of the grammar, on `tests/data/infer/shapes.ioa`: every declaration, in order.
#[test]
fn the_grammar_finds_what_shapes_keeps() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/infer");
    let spec = check(&dir.join("shapes.ioa"), None).unwrap();
    let text = std::fs::read_to_string(dir.join("shapes.universe")).unwrap();
    let universe = Universe::parse(&spec, ioa_lang::span::FileId(0), &text).unwrap();
    let id = automaton(&spec, "Shapes");
    let machine = Machine::new(&spec, &universe, id, vec![]).unwrap();
    let traces = random_runs(&machine, 60, 40, 0);
    let report = daikon::infer(&machine, &traces, &daikon::Options::default());
    assert_eq!(
        texts(&report),
        [
            "m = 0 ∨ m = 3 ∨ m = 7",
            "d ≥ -1",
            "lo < hi",
            "mode = low ∨ mode = high",
            "pair = mirror",
            "∀ i: Item (lim[i] ≤ cap[i])",
            "dropped = {}",
            "size(pair) = 2",
        ]
    );
    let explained = report.explain();
    assert!(
        explained.contains("suppressed: size(mirror) = 2 — follows from Inv_5 (pair = mirror)"),
        "{explained}"
    );
    check(&dir.join("shapes.ioa"), Some(&report.ioa())).unwrap_or_else(|e| panic!("{e}"));
}
