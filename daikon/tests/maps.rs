//! Maps over finite key types, the non-default keys of arrays and maps, and splitting on action
//! preconditions, on `tests/data/infer/maps.ioa`; and keys missing from a map, on states made by
//! hand (a map built with `constant(v)` has every key, so runs never lack one).

mod common;

use common::*;
use imbl::OrdMap;
use interpreter::machine::Machine;
use interpreter::trace::{Trace, TraceStep};
use interpreter::universe::Universe;
use interpreter::value::Value;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/infer")
        .join(name)
}

fn texts(report: &daikon::Report) -> Vec<String> {
    report.declarations.iter().map(|d| d.text.clone()).collect()
}

fn board(split: bool) -> daikon::Report {
    let (spec, sources) = check_with_sources(&data("maps.ioa"));
    let universe = Universe::default();
    let machine = Machine::new(&spec, &universe, automaton(&spec, "Board"), vec![]).unwrap();
    let traces = random_runs(&machine, 60, 40, 0);
    let mut options = daikon::Options::default();
    options.grammar.split_actions = split;
    daikon::infer_with_sources(&machine, Some(&sources), &traces, &options)
}

/// Every unconditional declaration, in order: map elements under `defined`, the non-default
/// keys of a map and of two arrays, the non-`nil` keys of a map, and at most one locked slot.
#[test]
fn maps_and_key_sets_give_what_the_board_keeps() {
    let report = board(false);
    println!("{}{}", report.ioa(), report.explain());
    assert_eq!(
        texts(&report),
        [
            "owned ⊆ touched",
            "∀ s: Slot (defined(load, s) ∧ load[s] ≠ 0 ⇒ s ∈ touched)",
            "∀ s: Slot (hits[s] ≠ 0 ⇒ s ∈ touched)",
            "∀ s: Slot (locked[s] ⇒ s ∈ touched)",
            "∀ s: Slot (defined(owner, s) ∧ owner[s] ≠ nil ⇔ s ∈ touched)",
            "∀ s: Slot (defined(load, s) ∧ defined(limit, s) ⇒ load[s] ≤ limit[s])",
            "∀ s: Slot, s3: Slot (locked[s] ∧ locked[s3] ⇒ s = s3)",
        ]
    );
    // The type and the universe bound key-set sizes; the grammar says so rather than printing.
    let explained = report.explain();
    assert!(
        explained.contains("suppressed: size(keys(hits)) ≤ 3 — implied by the universe"),
        "{explained}"
    );
    check(&data("maps.ioa"), Some(&report.ioa())).unwrap_or_else(|e| panic!("{e}"));
}

/// With action splits: while work can be done, the board is open and a slot was touched; the
/// precondition's own variables (`owned`, `load`, `limit`) are not restated.
#[test]
fn action_preconditions_split_the_board() {
    let report = board(true);
    println!("{}{}", report.ioa(), report.explain());
    let found = texts(&report);
    for wanted in [
        "∃ s: Slot (s ∈ owned ∧ load[s] < limit[s]) ⇒ isOpen = true",
        "∃ s: Slot (s ∈ owned ∧ load[s] < limit[s]) ⇒ size(touched) ≥ 1",
        "∃ s: Slot (locked[s]) ⇒ isOpen = true",
    ] {
        assert!(
            found.iter().any(|t| t == wanted),
            "missing `{wanted}` in {found:#?}"
        );
    }
    assert!(
        !found.iter().any(|t| t.ends_with("⇒ size(owned) ≥ 1")),
        "a restated precondition in {found:#?}"
    );
    assert!(
        report
            .explain()
            .contains("it is about what the precondition of release reads (owned), not news"),
        "{}",
        report.explain()
    );
    // `open` (pre ¬isOpen) is split on too; claim's premise mentions isOpen itself.
    assert_eq!(report.counts.conditions, 7);
    check(&data("maps.ioa"), Some(&report.ioa())).unwrap_or_else(|e| panic!("{e}"));
}

const PARTIAL: &str = "
type Key = enumeration of k0, k1, k2

automaton Partial
  signature
    internal bump(k: Key)
  states
    m: Map[Key, Int] := constant(0),
    seen: Set[Key] := {}
  transitions
    internal bump(k)
      eff m[k] := m[k] + 1;
          seen := insert(k, seen)
";

/// A map value with the given entries (keys `k0`, `k1`, `k2` by position).
fn map_of(spec: &ioa_lang::ir::Spec, entries: &[(u32, i64)]) -> Value {
    let key_type =
        ioa_lang::ir::TypeId(spec.types.iter().position(|t| t.name == "Key").unwrap() as u32);
    let mut m = OrdMap::new();
    for (k, v) in entries {
        m.insert(Value::Enum(key_type, *k), Value::Int(*v));
    }
    Value::Map(m)
}

fn set_of(spec: &ioa_lang::ir::Spec, keys: &[u32]) -> Value {
    let key_type =
        ioa_lang::ir::TypeId(spec.types.iter().position(|t| t.name == "Key").unwrap() as u32);
    Value::Set(keys.iter().map(|k| Value::Enum(key_type, *k)).collect())
}

/// Keys a map lacks are never looked at: `m[k] ≥ 1` held at every defined key (the missing
/// ones would have read as anything), the key set is the defined keys, and every printed
/// invariant evaluates without error in a state whose map lacks keys.
#[test]
fn missing_map_keys_are_skipped_and_guarded() {
    let dir = std::env::temp_dir().join(format!("daikon-maps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("partial.ioa");
    std::fs::write(&file, PARTIAL).unwrap();
    let spec = check(&file, None).unwrap();
    let universe = Universe::default();
    let machine = Machine::new(&spec, &universe, automaton(&spec, "Partial"), vec![]).unwrap();
    // Runs of maps that grow key by key, each key's count at least 1 once it is there, and
    // `seen` the set of defined keys.
    let mut traces = Vec::new();
    let orders: [[u32; 3]; 4] = [[0, 1, 2], [2, 1, 0], [1, 0, 2], [0, 2, 1]];
    for (r, order) in orders.iter().enumerate() {
        let mut entries: Vec<(u32, i64)> = Vec::new();
        let mut state = vec![map_of(&spec, &[]), set_of(&spec, &[])];
        let mut trace = Trace::start(state.clone());
        for step in 0..9 {
            let k = order[step % 3];
            match entries.iter_mut().find(|(key, _)| *key == k) {
                Some(e) => e.1 += (step as i64 + r as i64) % 3,
                None => entries.push((k, 1 + (step as i64 + r as i64) % 2)),
            }
            let keys: Vec<u32> = entries.iter().map(|(k, _)| *k).collect();
            state = vec![map_of(&spec, &entries), set_of(&spec, &keys)];
            trace.states.push(state.clone());
            trace.steps.push(TraceStep {
                action: 0,
                kind: ioa_lang::ast::ActionKind::Internal,
                args: vec![Value::Enum(ioa_lang::ir::TypeId(0), k)],
            });
        }
        traces.push((format!("made-up run {r}"), trace));
    }
    let options = daikon::Options {
        confidence: 0.9,
        ..daikon::Options::default()
    };
    let report = daikon::infer(&machine, &traces, &options);
    println!("{}{}", report.ioa(), report.explain());
    let found = texts(&report);
    for wanted in [
        "∀ k: Key (defined(m, k) ⇒ m[k] ≥ 1)",
        "∀ k: Key (defined(m, k) ∧ m[k] ≠ 0 ⇔ k ∈ seen)",
    ] {
        assert!(
            found.iter().any(|t| t == wanted),
            "missing `{wanted}` in {found:#?}"
        );
    }
    // The declarations check, and none fails to evaluate where keys are missing.
    let with = check(&file, Some(&report.ioa())).unwrap_or_else(|e| panic!("{e}"));
    let machine = Machine::new(&with, &universe, automaton(&with, "Partial"), vec![]).unwrap();
    let partial = vec![map_of(&with, &[(1, 2)]), set_of(&with, &[1])];
    assert_eq!(
        machine.failing_invariant(&partial).map_err(|(k, _)| k),
        Ok(None)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

const FRAGILE: &str = "
automaton Fragile
  signature
    internal up,
             down,
             probe
  states
    x: Int := 1
  transitions
    internal up
      pre x < 3
      eff x := x + 1
    internal down
      pre x > 0
      eff x := x - 1
    internal probe
      pre 6 div x > 2
";

/// An action whose precondition fails to evaluate in some reached state (`6 div x` at `x = 0`)
/// is not split on: its printed premise would fail there too. The others still are.
#[test]
fn a_precondition_that_fails_to_evaluate_abandons_its_split() {
    let dir = std::env::temp_dir().join(format!("daikon-fragile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("fragile.ioa");
    std::fs::write(&file, FRAGILE).unwrap();
    let (spec, sources) = check_with_sources(&file);
    let universe = Universe::default();
    let machine = Machine::new(&spec, &universe, automaton(&spec, "Fragile"), vec![]).unwrap();
    // Runs of up and down only, through x = 0 (probe's precondition fails there).
    let runner = interpreter::runner::Runner::new(&machine);
    let (up, down) = (0usize, 1usize);
    let mut traces = Vec::new();
    for r in 0..12 {
        let mut list = Vec::new();
        for k in 0..10 {
            let step = if (k + r) % 4 < 2 { down } else { up };
            list.push((step, vec![]));
        }
        let report = runner.actions(&list, &mut |_| true);
        traces.push((format!("run {r}"), report.trace));
    }
    let mut options = daikon::Options::default();
    options.grammar.split_actions = true;
    options.confidence = 0.9;
    let report = daikon::infer_with_sources(&machine, Some(&sources), &traces, &options);
    println!("{}{}", report.ioa(), report.explain());
    assert!(
        report.findings.iter().all(|f| f
            .invariant
            .condition
            .as_ref()
            .is_none_or(|c| report.var_name(c.var) != "enabled(probe)")),
        "probe was split on"
    );
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.invariant.condition.is_some()),
        "nothing was split on"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
