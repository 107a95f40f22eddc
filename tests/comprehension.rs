//! End-to-end tests of set comprehensions `{x: T | P}` through every engine, on the models of
//! `tests/data/comprehension/`: a seeded random run keeps the invariants, the interpreter and
//! the compiled engine explore the same 50 states, Z3 proves the invariants stated with
//! comprehensions (and refutes a false one with counterexamples the interpreter re-checks), and
//! the Isabelle export writes them as `Collect`. The parser and type checker's cases (including
//! E0306, a comprehension over a type with no finite carrier) are in `tests/data/parse/ok`,
//! `tests/data/typeck/ok` and `tests/data/typeck/err`, run by `tests/diagnostics.rs`.

mod common;

use common::{ioa_in, Outcome};

const GROUP: &str = "comprehension-tests";
const VOTES: &str = "tests/data/comprehension/votes.ioa";
const WRONG: &str = "tests/data/comprehension/votes_wrong.ioa";

fn ioa(args: &[&str]) -> Outcome {
    ioa_in(GROUP, args)
}

/// The line of `text` that starts with `prefix`, or the whole output in the panic message.
fn line<'a>(text: &'a str, prefix: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting with {prefix:?} in:\n{text}"))
}

/// A random run from a printed seed recomputes the comprehensions at every step and keeps both
/// invariants (`missing` is the voters not yet voted, `unused` the colours not yet used).
#[test]
fn a_seeded_random_run_keeps_the_invariants() {
    let o = ioa(&["run", VOTES, "--random", "--seed", "7", "--steps", "12"]);
    assert_eq!(o.code, 0, "{}", o.both());
    assert!(
        o.both()
            .contains("seed 7: 12 step(s); all 2 invariant(s) held in 13 state(s)"),
        "{}",
        o.both()
    );
}

/// Both engines explore the same 50 states: 2³ vote patterns × the colours used, where the
/// compiled engine hands each comprehension to the interpreter's evaluator.
#[test]
fn both_engines_explore_the_same_states() {
    let mut verdicts = Vec::new();
    for engine in ["interpreter", "compiled"] {
        let o = ioa(&["explore", VOTES, "--engine", engine]);
        assert_eq!(o.code, 0, "{engine}: {}", o.both());
        let verdict = line(&o.stderr, "verified:").to_string();
        verdicts.push(verdict);
    }
    assert_eq!(
        verdicts[0],
        "verified: all 2 invariants hold in all 50 reachable states (458 generated, depth 3, no deadlock)"
    );
    assert_eq!(verdicts[0], verdicts[1]);
}

/// A false invariant over a comprehension is violated after the third vote.
#[test]
fn exploring_finds_the_false_invariant() {
    let o = ioa(&["explore", WRONG]);
    assert_eq!(o.code, 1, "{}", o.both());
    assert!(
        o.stderr
            .contains("error[E0521]: invariant `SomeoneMissing` is violated after step 3"),
        "{}",
        o.both()
    );
}

/// `name: verdict` per obligation of a JSON report.
fn verdicts(json: &serde_json::Value) -> String {
    json["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            format!(
                "{}: {}\n",
                r["obligation"].as_str().unwrap_or("?"),
                r["verdict"].as_str().unwrap_or("?")
            )
        })
        .collect()
}

fn prove(args: &[&str]) -> (i32, serde_json::Value, Outcome) {
    let mut all = vec!["prove"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json", "--color", "never"]);
    let o = ioa(&all);
    let json = serde_json::from_str(&o.stdout)
        .unwrap_or_else(|e| panic!("JSON report ({e}): {}", o.both()));
    (o.code, json, o)
}

/// Z3 proves both invariants (a comprehension is a λ-array; membership in one is its
/// condition), start and every step: 6 of 6.
#[test]
fn the_invariants_prove() {
    let (code, json, o) = prove(&[VOTES]);
    assert_eq!(code, 0, "{}", o.both());
    insta::assert_snapshot!(verdicts(&json), @r"
    MissingAreTheOthers start: proved
    MissingAreTheOthers step vote: proved
    MissingAreTheOthers step reset: proved
    UnusedColours start: proved
    UnusedColours step vote: proved
    UnusedColours step reset: proved
    ");
}

/// The false invariant fails at the start (Z3's open `Node` type need not hold the locations
/// 0 to 2) and at `vote`; each counterexample is re-executed by the interpreter first.
#[test]
fn the_false_invariant_fails_with_checked_counterexamples() {
    let (code, json, o) = prove(&[WRONG, "--invariant", "SomeoneMissing"]);
    assert_eq!(code, 1, "{}", o.both());
    insta::assert_snapshot!(verdicts(&json), @r"
    SomeoneMissing start: failed
    SomeoneMissing step vote: failed
    SomeoneMissing step reset: proved
    ");
    let text = ioa(&[
        "prove",
        WRONG,
        "--invariant",
        "SomeoneMissing",
        "--color",
        "never",
    ]);
    assert_eq!(
        text.both().matches("checked by the interpreter:").count(),
        2,
        "{}",
        text.both()
    );
}

/// The Isabelle export states a comprehension as `Collect` of a typed λ.
#[test]
fn the_isabelle_export_writes_collect() {
    let dir = common::scratch_dir(GROUP, "isabelle");
    let o = ioa(&[
        "export",
        "isabelle",
        dir.to_str().expect("utf-8 path"),
        VOTES,
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    let theory = std::fs::read_to_string(dir.join("Votes_Invariants.thy")).expect("theory");
    assert!(
        theory.contains("(Collect (\\<lambda>(n0::Node). (((0 \\<le> (Node_location n0)) \\<and> ((Node_location n0) < 3)) \\<and> (n0 \\<notin> (Votes_voted \\<sigma>)))))"),
        "{theory}"
    );
}
