//! State by state, the compiled engine computes what the interpreter computes: for every state
//! the interpreter's model reaches (breadth first, up to a bound), the state encodes and
//! decodes back to itself, the compiled successors are the encoded interpreter successors
//! (same steps, same order), and the same invariant fails or none does — with expressions run
//! as machine code (the default) and walked as word code (`with_word_code`) alike. `explore.rs` compares
//! whole searches; this pins the step function itself, on states the search would never
//! compare directly.

mod common;

use checker::compiled::CompiledModel;
use checker::explore::Model;
use checker::model::MachineModel;
use interpreter::value::Value;
use std::collections::{HashSet, VecDeque};

/// Checks exactly `bound` states of `automaton` in `model` under `universe`.
fn agree(model: &str, universe: &str, automaton: &str, params: Vec<Value>, bound: usize) {
    let checked = agree_within(model, universe, automaton, params, bound);
    assert_eq!(checked, bound, "{model}: fewer states than the bound");
}

/// Checks up to `bound` states of `automaton` in `model` under `universe`; how many.
fn agree_within(
    model: &str,
    universe: &str,
    automaton: &str,
    params: Vec<Value>,
    bound: usize,
) -> usize {
    let loaded = common::load(model, universe);
    let machine = loaded.machine(automaton, params);
    let interpreted = MachineModel::new(&machine, None).expect("action instances");
    let compiled = CompiledModel::new(&machine, None).expect("the model compiles");
    let word_code = checker::compiled::with_word_code(|| CompiledModel::new(&machine, None))
        .expect("the model compiles");
    assert_eq!(word_code.native_functions(), 0, "word code only");
    let mut starts = Vec::new();
    interpreted
        .initial_states(&mut starts)
        .expect("start states");
    let mut queue: VecDeque<Vec<Value>> = starts.into_iter().map(|(_, s)| s).collect();
    let mut seen = HashSet::new();
    let mut checked = 0;
    while let Some(state) = queue.pop_front() {
        if checked == bound {
            break;
        }
        if !seen.insert(state.clone()) {
            continue;
        }
        checked += 1;
        let words = compiled
            .encode(&state)
            .expect("every reached state encodes");
        assert_eq!(compiled.decode(&words), state, "decode(encode(s)) = s");
        assert_eq!(
            compiled.check(&words).expect("invariants evaluate"),
            interpreted.check(&state).expect("invariants evaluate"),
            "the same invariant fails"
        );
        let mut by_interpreter = Vec::new();
        interpreted
            .successors(&state, &mut by_interpreter)
            .expect("successors");
        let mut by_compiled = Vec::new();
        compiled
            .successors(&words, &mut by_compiled)
            .expect("compiled successors");
        let expected: Vec<_> = by_interpreter
            .iter()
            .map(|(step, next)| (step.clone(), compiled.encode(next).expect("encodes")))
            .collect();
        assert_eq!(by_compiled, expected, "the same successors, in order");
        // The word-code model interns values in its own table, so it encodes for itself.
        let its_words = word_code.encode(&state).expect("encodes");
        let mut by_word_code = Vec::new();
        word_code
            .successors(&its_words, &mut by_word_code)
            .expect("word code successors");
        let its_expected: Vec<_> = by_interpreter
            .iter()
            .map(|(step, next)| (step.clone(), word_code.encode(next).expect("encodes")))
            .collect();
        assert_eq!(by_word_code, its_expected, "word code: the same successors");
        assert_eq!(
            word_code.check(&its_words).expect("invariants evaluate"),
            compiled.check(&words).expect("invariants evaluate"),
            "machine code and word code: the same invariant fails"
        );
        queue.extend(by_interpreter.into_iter().map(|(_, s)| s));
    }
    checked
}

#[test]
fn groove_paxos_steps_agree() {
    let universe = "Prop = [1]..[3]\nAcc = [0]..[2]\nInt = -1..3\n";
    agree(
        "examples/groove_paxos/paxos.ioa",
        universe,
        "Paxos",
        vec![Value::Int(2)],
        3_000,
    );
    // Low majority: states where `Agreement` fails are reached and must be reported alike.
    agree(
        "examples/groove_paxos/paxos.ioa",
        universe,
        "Paxos",
        vec![Value::Int(1)],
        3_000,
    );
}

#[test]
fn global1_steps_agree() {
    let universe =
        std::fs::read_to_string(common::workspace("examples/consensus/explore.universe"))
            .expect("universe file");
    agree(
        "examples/consensus/global1_invariants.ioa",
        &universe,
        "Global1",
        vec![],
        2_000,
    );
}

#[test]
fn peterson_and_cons_steps_agree() {
    agree("examples/peterson/peterson.ioa", "", "Peterson", vec![], 92);
    agree(
        "examples/consensus/cons.ioa",
        "Node = [0]..[2]\nValue = [1]..[3]\n",
        "Cons",
        vec![],
        2_000,
    );
}

/// Models whose states hold interned values (sequences, maps, multisets, strings, reals,
/// union values) or characters, and whose effects assign into maps, check `ensuring`
/// clauses and loop over sequences: every reachable state round-trips, and the step function
/// and invariants agree state by state.
#[test]
fn manual_models_with_interned_values_step_alike() {
    for (model, universe, automaton, bound) in [
        ("tests/data/manual/fifo_queue.ioa", "Int = 0..1", "", 200),
        ("tests/data/manual/bakery.ioa", "Int = 0..4", "", 200),
        ("tests/data/manual/ballot_box.ioa", "", "", 200),
        ("tests/data/manual/bank_transfer.ioa", "Int = 0..3", "", 200),
        ("tests/data/manual/averaging.ioa", "Int = 0..2", "", 200),
        (
            "tests/data/manual/char_scanner.ioa",
            "Char = 'a'..'d'\nInt = 0..3",
            "",
            200,
        ),
        ("tests/data/manual/string_log.ioa", "", "", 200),
        (
            "tests/data/manual/vending_machine.ioa",
            "Int = 0..2",
            "",
            200,
        ),
        ("tests/data/manual/stack.ioa", "Int = 0..1", "", 200),
        ("tests/data/manual/mset_channel.ioa", "Int = 0..1", "", 200),
        ("tests/data/manual/choose_leader.ioa", "Int = 0..2", "", 200),
    ] {
        let loaded = common::load(model, universe);
        let name = if automaton.is_empty() {
            loaded.spec.automata[0].name.clone()
        } else {
            automaton.to_string()
        };
        drop(loaded);
        let checked = agree_within(model, universe, &name, vec![], bound);
        assert!(checked > 1, "{model}: {checked} states");
    }
}

/// Interned ids depend on the order values are met (threads race for them), fingerprints must
/// not: two models that interned the same states in opposite orders give every state the same
/// fingerprint, though its words differ.
#[test]
fn fingerprints_do_not_depend_on_interning_order() {
    let loaded = common::load("tests/data/manual/fifo_queue.ioa", "Int = 0..1");
    let name = loaded.spec.automata[0].name.clone();
    let machine = loaded.machine(&name, vec![]);
    let interpreted = MachineModel::new(&machine, None).expect("action instances");
    let mut states = Vec::new();
    interpreted
        .initial_states(&mut states)
        .expect("start states");
    let mut frontier: Vec<Vec<Value>> = states.into_iter().map(|(_, s)| s).collect();
    let mut all = Vec::new();
    for _ in 0..4 {
        let mut next = Vec::new();
        for s in &frontier {
            let mut out = Vec::new();
            interpreted.successors(s, &mut out).expect("successors");
            next.extend(out.into_iter().map(|(_, s)| s));
        }
        all.extend(frontier);
        frontier = next;
    }
    let a = CompiledModel::new(&machine, None).expect("the model compiles");
    let b = CompiledModel::new(&machine, None).expect("the model compiles");
    let by_a: Vec<_> = all.iter().map(|s| a.encode(s).expect("encodes")).collect();
    let by_b: Vec<_> = all
        .iter()
        .rev()
        .map(|s| b.encode(s).expect("encodes"))
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    assert!(
        by_a.iter().zip(&by_b).any(|(x, y)| x != y),
        "ids differ somewhere"
    );
    for ((s, x), y) in all.iter().zip(&by_a).zip(&by_b) {
        assert_eq!(a.fingerprint(x), b.fingerprint(y), "{s:?}");
        assert_eq!(a.decode(x), *s);
        assert_eq!(b.decode(y), *s);
        // Portable words (what other processes and checkpoints read) carry the values.
        let moved = b
            .from_portable_words(&a.portable_words(x))
            .expect("portable words");
        assert_eq!(b.decode(&moved), *s);
        assert_eq!(b.fingerprint(&moved), a.fingerprint(x));
    }
}

/// The invariants the compiled engine skips in a successor (`compiled/unchanged.rs`) are
/// those its checked parent passed and the step left alone: a violation carried over from a
/// violating parent, or caused by the step, is still reported.
#[test]
fn unchanged_invariants_are_skipped_only_after_the_parent_passed() {
    let loaded = common::load("tests/data/compiled/unchanged.ioa", "Int = 0..5\n");
    let machine = loaded.machine("Two", vec![]);
    let compiled = CompiledModel::new(&machine, None).expect("the model compiles");
    let small = loaded
        .spec
        .invariants
        .iter()
        .position(|i| i.name == "Small")
        .expect("Small");
    let words = |x: i64, y: i64| {
        compiled
            .encode(&[Value::Int(x), Value::Int(y)])
            .expect("encodes")
    };
    let storing = |m: &CompiledModel, parent: (i64, i64), child: (i64, i64)| {
        let child = words(child.0, child.1);
        m.storing(&words(parent.0, parent.1), &child, m.fingerprint(&child))
    };
    let check = |m: &CompiledModel, x: i64, y: i64| {
        let state = words(x, y);
        m.check_stored(&state, m.fingerprint(&state))
            .expect("evaluates")
    };
    // A parent that passes: its successor by bumpY passes, by breakX fails.
    assert_eq!(check(&compiled, 0, 0), None);
    storing(&compiled, (0, 0), (0, 1));
    storing(&compiled, (0, 0), (5, 0));
    assert_eq!(check(&compiled, 0, 1), None);
    assert_eq!(check(&compiled, 5, 0), Some(small));
    // A parent that fails: bumpY leaves x alone, and the successor fails too.
    assert_eq!(check(&compiled, 5, 0), Some(small));
    storing(&compiled, (5, 0), (5, 1));
    assert_eq!(check(&compiled, 5, 1), Some(small));
    // Successors stored before their parent was checked get no mark either.
    let fresh = CompiledModel::new(&machine, None).expect("the model compiles");
    storing(&fresh, (5, 1), (5, 2));
    assert_eq!(check(&fresh, 5, 2), Some(small));
}

/// The search stores states packed (`compiled/pack.rs`): Peterson's 5 words (two program
/// counters of 9 values, two flags, `turn`) take 11 bits of one word, every reachable state
/// round-trips through them (above), and a word outside its field (a program counter of 16,
/// a flag of 2, a negative rank) is refused rather than cut.
#[test]
fn states_are_packed_and_a_word_outside_its_type_is_refused() {
    let loaded = common::load("examples/peterson/peterson.ioa", "");
    let machine = loaded.machine("Peterson", vec![]);
    let compiled = CompiledModel::new(&machine, None).expect("the model compiles");
    assert_eq!(compiled.words_per_state(), 5);
    assert_eq!(compiled.packed_words_per_state(), 1);
    let state = compiled
        .from_portable_words(&[8, 3, 1, 0, 1])
        .expect("ranks within their types");
    assert_eq!(state.len(), 1);
    assert_eq!(compiled.portable_words(&state), vec![8, 3, 1, 0, 1]);
    for outside in [
        [16, 0, 0, 0, 0],
        [0, 0, 2, 0, 0],
        [0, 0, 0, 0, 2],
        [0, -1, 0, 0, 0],
    ] {
        assert!(
            compiled.from_portable_words(&outside).is_err(),
            "{outside:?} has a word outside its type"
        );
    }
}
