//! Differential test of `size` on large sets: the SMT encoding (an uninterpreted function with
//! the axioms of finite cardinality, or an exact formula against a literal) against the
//! interpreter's count, on concrete states over a universe of 60 nodes (node ids up to 59) whose sets have up
//! to 6 elements (beyond the 2 and 3 elements of the portfolio's bounded searches; with 12 Z3
//! did not decide `size` of a concrete set within 20 M units). IOA's sets are
//! finite, and this pins that the encoding assumes exactly that: on every state, each invariant
//! of `tests/data/size/sizes.ioa` is true for Z3 exactly when the interpreter says so (Z3 must
//! prove the interpreter's verdict: an unknown is a failure too).

mod common;

use interpreter::machine::Machine;
use interpreter::universe::Universe;
use interpreter::value::Value;
use ioa_lang::ir::{AutomatonId, Type, TypeDefKind};
use prover_export::obligations::invariant::{invariant_term, step_encoding};
use prover_export::smt::expr::Encoder;
use std::path::Path;
use z3::SatResult;

/// A node `[k]`.
fn node(k: i64) -> Value {
    Value::Tuple(vec![Value::Int(k)].into())
}

/// The set of nodes `[lo]..[hi - 1]`.
fn nodes(lo: i64, hi: i64) -> Value {
    Value::Set((lo..hi).map(node).collect())
}

/// A set of nodes as an SMT term.
fn set_term(enc: &mut Encoder, node_ty: &Type, v: &Value) -> String {
    let Type::Named(id) = node_ty else {
        panic!("Node is a tuple type")
    };
    let set_ty = Type::Set(Box::new(node_ty.clone()));
    let sort = enc.sort(&set_ty);
    let Value::Set(items) = v else {
        panic!("a set")
    };
    let mut out = format!("((as const {sort}) false)");
    for x in items.iter() {
        let Value::Tuple(fields) = x else {
            panic!("a node")
        };
        let Value::Int(k) = fields[0] else {
            panic!("an Int field")
        };
        let e = enc.tuple(*id, vec![prover_export::smt::expr::int(k)]);
        let e = enc.boxed(node_ty, e);
        out = format!("(store {out} {e} true)");
    }
    out
}

/// Z3 recurses over deep terms (nested stores); test threads have small stacks.
#[test]
fn size_agrees_with_the_interpreter_on_large_sets() {
    common::on_large_stack(differential);
}

fn differential() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/size/sizes.ioa");
    let result = ioa_lang::check_files(&[path], &common::Disk);
    let spec = result.spec.expect("the model type-checks");
    let a = AutomatonId(0);
    let mut sources = result.sources;
    let text = "Node = [0]..[59]\n";
    let file = sources.add("<universe>", text);
    let mut universe = Universe::default();
    universe.add(&spec, file, text, false).expect("universe");
    let machine = Machine::new(&spec, &universe, a, vec![]).expect("machine");
    let node_ty = Type::Named(ioa_lang::ir::TypeId(
        spec.types
            .iter()
            .position(|t| t.name == "Node")
            .expect("Node") as u32,
    ));
    assert!(matches!(
        spec.types[spec.types.iter().position(|t| t.name == "Node").unwrap()].kind,
        TypeDefKind::Tuple(_)
    ));
    // (S, A, B, n): large sets, majorities that do and do not meet, wrong and right counts.
    let states = [
        (nodes(0, 5), nodes(0, 3), nodes(3, 5), 5),
        (nodes(0, 5), nodes(0, 3), nodes(2, 5), 5),
        (nodes(0, 6), nodes(0, 3), nodes(3, 6), 5),
        (nodes(40, 46), nodes(40, 42), nodes(43, 46), 6),
        (nodes(53, 57), nodes(53, 55), nodes(55, 57), 5),
        (nodes(50, 54), nodes(0, 3), nodes(51, 52), 4),
        (nodes(0, 0), nodes(0, 0), nodes(0, 0), 0),
    ];
    let (mut true_verdicts, mut false_verdicts) = (0, 0);
    for (k, (s, x, y, n)) in states.iter().enumerate() {
        let state = vec![s.clone(), x.clone(), y.clone(), Value::Int(*n)];
        let step = step_encoding(&spec, a, 0).expect("encodes");
        let mut enc = step.encoder.clone();
        let vars = step.pre.state(a).to_vec();
        let mut facts = Vec::new();
        for (slot, v) in state.iter().enumerate().take(3) {
            facts.push(format!(
                "(= {} {})",
                vars[slot],
                set_term(&mut enc, &node_ty, v)
            ));
        }
        facts.push(format!(
            "(= {} {})",
            vars[3],
            prover_export::smt::expr::int(*n)
        ));
        let terms: Vec<String> = spec
            .invariants
            .iter()
            .map(|inv| invariant_term(&mut enc, &inv.body, &step.pre).expect("encodes"))
            .collect();
        for f in &facts {
            enc.script.assert(f);
        }
        let base = enc.finish();
        for (inv, t) in spec.invariants.iter().zip(&terms) {
            let mut locals = vec![Value::Int(0); inv.n_locals as usize];
            let truth = machine
                .root_truth(&inv.body, &state, &mut locals)
                .expect("the interpreter evaluates it");
            let script = if truth {
                true_verdicts += 1;
                format!("{base}(assert (not {t}))\n")
            } else {
                false_verdicts += 1;
                format!("{base}(assert {t})\n")
            };
            assert_eq!(
                common::check(&script, "rlimit", 20_000_000),
                SatResult::Unsat,
                "state {k}: Z3 does not show that {} is {truth}",
                inv.name
            );
        }
    }
    // Both verdicts occur, so neither side can pass by always saying the same.
    assert_eq!((true_verdicts, false_verdicts), (57, 13));
}
