//! On Cons (the consensus specification), agreement is found: `size(chosen) ≤ 1`, with
//! validity (`chosen ⊆ proposed`) and `decided ⊆ initiated`.

mod common;

use common::*;
use interpreter::machine::Machine;

#[test]
fn cons_agreement_is_found() {
    let mut loaded = load("cons_schedules.ioa", &default_universe());
    loaded.spec.invariants.clear();
    let id = automaton(&loaded.spec, "Cons");
    let machine = Machine::new(&loaded.spec, &loaded.universe, id, vec![]).unwrap();
    let mut traces = schedule_runs(&machine);
    traces.extend(random_runs(&machine, 30, 50, 0));
    let report = daikon::infer(&machine, &traces, &daikon::Options::default());
    println!("{}{}", report.ioa(), report.explain());
    let texts: Vec<&str> = report
        .declarations
        .iter()
        .map(|d| d.text.as_str())
        .collect();
    for wanted in [
        "size(chosen) ≤ 1",
        "chosen ⊆ proposed",
        "decided ⊆ initiated",
    ] {
        assert!(texts.contains(&wanted), "missing `{wanted}` in {texts:#?}");
    }
}
