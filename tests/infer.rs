//! End-to-end tests of `ioa infer`: the binary is started from the package root, as a user
//! would, on the consensus examples (the paper's Global1 and Cons) and on
//! `tests/data/infer/counter.ioa` and `maps.ioa` (maps, key sets, action splits).

mod common;

use common::{Outcome, ROOT};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The group of these tests' scratch directories.
const GROUP: &str = "infer-tests";

/// Runs `ioa infer ARGS… --no-explore` in the package root: the detector alone, whose output
/// does not depend on how far a time-bounded exploration gets. The precision stage's tests use
/// [`infer_explored`].
fn infer(args: &[&str]) -> Outcome {
    let mut with = args.to_vec();
    with.push("--no-explore");
    infer_explored(&with)
}

/// Runs `ioa infer ARGS…` in the package root.
fn infer_explored(args: &[&str]) -> Outcome {
    let mut all = vec!["infer"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--color", "never"]);
    common::ioa_in(GROUP, &all)
}

/// A directory for one test's files, emptied first.
fn scratch(test: &str) -> PathBuf {
    common::scratch_dir(GROUP, test)
}

const GLOBAL1: &str = "examples/consensus/global1_schedules.ioa";

/// The acceptance run: the schedule suite and 100 random runs of 100 steps (3 nodes, 20
/// ballots, from default.universe), which is what `ioa infer` does without options.
fn global1(extra: &[&str]) -> Outcome {
    let mut args = vec![GLOBAL1];
    args.extend_from_slice(extra);
    infer(&args)
}

#[test]
fn global1_yields_the_papers_inv1_inv2_inv3_inv5() {
    let o = global1(&["--transitions"]);
    // And, as pre/post facts: a ballot's value is written once, a new ballot is one more.
    for wanted in [
        "% assignVal(b, v): ",
        "%   ∀ b: Ballot (val[b] ≠ nil ⇒ val'[b] = val[b])",
        "%   size(ballots') = size(ballots) + 1",
        "%   ∀ n: Node (voted[n] ⊆ voted'[n])",
    ] {
        assert!(
            o.stdout.contains(wanted),
            "missing `{wanted}`:\n{}",
            o.both()
        );
    }
    assert_eq!(o.code, 0, "{}", o.both());
    for wanted in [
        "∀ n: Node (size(voted[n] ∩ abstained[n]) = 0)",
        "∀ b: Ballot (val[b] ≠ nil ⇒ val[b].val ∈ proposed)",
        "size(succeeded ∩ dead) = 0",
        "succeeded ⊆ ballots",
        "decided ⊆ initiated",
        // The nodes that voted or abstained (non-default keys of voted and abstained).
        "∀ n: Node (voted[n] ≠ {} ⇒ n ∈ initiated)",
        "∀ n: Node (abstained[n] ≠ {} ⇒ n ∈ initiated)",
    ] {
        assert!(
            o.stdout.contains(wanted),
            "missing `{wanted}`:\n{}",
            o.both()
        );
    }
    assert!(o.stdout.starts_with("% ioa infer: "), "{}", o.both());
    assert!(
        o.stderr
            .contains("inferred 9 invariant(s) of Global1 from 107 run(s)"),
        "{}",
        o.both()
    );
}

#[test]
fn global1_output_checks_when_added_to_the_model() {
    let o = global1(&[]);
    let dir = scratch("global1_output_checks");
    let model = Path::new(ROOT).join(GLOBAL1);
    let file = dir.join("with_invariants.ioa");
    let text = format!("import \"{}\"\n\n{}\n", model.display(), o.stdout);
    std::fs::write(&file, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ioa"))
        .args(["check", file.to_str().unwrap(), "--color", "never"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn global1_invariants_hold_on_further_runs() {
    let o = global1(&["--validate", "100"]);
    assert_eq!(o.code, 0, "{}", o.both());
    assert!(
        o.stdout
            .contains("% Validation on 100 random run(s) of at most 100 step(s), seeds 100..199"),
        "{}",
        o.both()
    );
    assert!(
        o.stdout
            .contains("% 9 of 9 invariant(s) held in every state."),
        "{}",
        o.both()
    );
}

#[test]
fn cons_agreement() {
    let o = infer(&[
        "examples/consensus/cons_schedules.ioa",
        "--automaton",
        "Cons",
        "--all-schedules",
        "--random",
        "--runs",
        "30",
        "--steps",
        "50",
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    for wanted in [
        "size(chosen) ≤ 1",
        "chosen ⊆ proposed",
        "decided ⊆ initiated",
    ] {
        assert!(
            o.stdout.contains(wanted),
            "missing `{wanted}`:\n{}",
            o.both()
        );
    }
}

/// With the default runs (schedules and 100 random runs of 100 steps) Cons gives exactly its
/// three invariants: `size(decided ∩ failed) ≤ 2`, which held in those runs only because none had
/// every node decide and fail, is dropped as a bound on an intersection's size.
#[test]
fn cons_default_runs_give_exactly_its_invariants() {
    let o = infer(&[
        "examples/consensus/cons_schedules.ioa",
        "--automaton",
        "Cons",
        "--explain",
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    let declared: Vec<&str> = o
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("invariant"))
        .filter(|l| l.starts_with("  "))
        .map(str::trim)
        .collect();
    assert_eq!(
        declared,
        [
            "decided ⊆ initiated",
            "chosen ⊆ proposed",
            "size(chosen) ≤ 1"
        ],
        "{}",
        o.both()
    );
    assert!(
        o.stderr.contains("inferred 3 invariant(s) of Cons"),
        "{}",
        o.both()
    );
    assert!(
        o.stdout.contains(
            "suppressed: size(decided ∩ failed) ≤ 2 — an intersection's size is reported only as \
             disjointness"
        ),
        "{}",
        o.both()
    );
}

#[test]
fn json_lists_invariants_and_with_explain_the_dropped() {
    let o = infer(&[
        "tests/data/infer/counter.ioa",
        "--random",
        "--runs",
        "60",
        "--steps",
        "40",
        "--format",
        "json",
        "--explain",
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    let json: serde_json::Value = serde_json::from_str(&o.stdout).expect("JSON");
    let invariants = json["invariants"].as_array().unwrap();
    assert!(invariants
        .iter()
        .any(|i| i["text"] == "y = 2 * x + 1" && i["kind"] == "linear"));
    assert!(invariants
        .iter()
        .all(|i| i["name"].as_str().unwrap().starts_with("Inv_")));
    let dropped = json["dropped"].as_array().unwrap();
    for verdict in ["falsified", "unjustified", "suppressed"] {
        assert!(
            dropped.iter().any(|d| d["verdict"] == verdict),
            "no {verdict} candidate"
        );
    }
    let falsified = dropped
        .iter()
        .find(|d| d["verdict"] == "falsified")
        .unwrap();
    assert!(falsified["witness"]["trace"]
        .as_str()
        .unwrap()
        .starts_with("random run, seed"));
}

#[test]
fn explain_comments_keep_the_output_ioa() {
    let o = infer(&[
        "tests/data/infer/counter.ioa",
        "--random",
        "--runs",
        "60",
        "--steps",
        "40",
        "--explain",
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    assert!(
        o.stdout
            .contains("% suppressed: y = 2 * z + 1 — follows from Inv_"),
        "{}",
        o.both()
    );
    for line in o.stdout.lines() {
        assert!(
            line.is_empty()
                || line.starts_with('%')
                || line.starts_with("invariant ")
                || line.starts_with("  "),
            "not IOA: {line}"
        );
    }
}

#[test]
fn daikon_files_are_written() {
    let dir = scratch("daikon_files");
    let o = infer(&[
        GLOBAL1,
        "--automaton",
        "Global1",
        "--schedule",
        "NormalRun",
        "--daikon",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    let decls = std::fs::read_to_string(dir.join("Global1.decls")).unwrap();
    let dtrace = std::fs::read_to_string(dir.join("Global1.dtrace")).unwrap();
    assert!(decls.starts_with("decl-version 2.0\n"));
    assert!(decls.contains("ppt Global1:::OBJECT\nppt-type object\n"));
    assert!(decls.contains("ppt Global1.vote(Node,Ballot):::ENTER\nppt-type enter\n"));
    assert!(dtrace.contains("\nGlobal1:::OBJECT\ninitiated\n"));
    assert!(o.stderr.contains("Global1.decls"), "{}", o.both());
}

#[test]
fn bad_options_are_usage_errors() {
    let o = infer(&[GLOBAL1, "--confidence", "1.5"]);
    assert_eq!(o.code, 2, "{}", o.both());
    assert!(o
        .stderr
        .contains("--confidence must lie strictly between 0 and 1"));
    let o = infer(&[GLOBAL1, "--derive", "sizes,squares"]);
    assert_eq!(o.code, 2, "{}", o.both());
    assert!(o.stderr.contains("not `squares`"));
    let o = infer(&["examples/consensus/cons.ioa", "--all-schedules"]);
    assert_eq!(o.code, 2, "{}", o.both());
    assert!(
        o.stderr.contains("`Cons` has no schedule in the model"),
        "{}",
        o.both()
    );
    let o = infer(&[GLOBAL1, "--schedule", "Nope"]);
    assert_eq!(o.code, 2, "{}", o.both());
}

/// `--transitions` on the counter model: each action's pre/post facts, as reviewed in the
/// snapshot (tick moves x, y and z by 1, 2 and 1; grab only grows held and seen; give moves an
/// item from held to gone; finish changes only the phase).
#[test]
fn transitions_give_each_actions_pre_post_facts() {
    let o = infer(&[
        "tests/data/infer/counter.ioa",
        "--random",
        "--runs",
        "30",
        "--steps",
        "30",
        "--transitions",
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    let facts = o
        .stdout
        .split_once("% Pre/post facts")
        .map(|(_, rest)| format!("% Pre/post facts{rest}"))
        .unwrap_or_else(|| panic!("no pre/post facts:\n{}", o.both()));
    insta::assert_snapshot!(facts);
    let o = infer(&[
        "tests/data/infer/counter.ioa",
        "--random",
        "--runs",
        "30",
        "--steps",
        "30",
        "--transitions",
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&o.stdout).expect("JSON");
    let tick = &json["transitions"][0];
    assert_eq!(tick["action"], "tick");
    assert_eq!(tick["facts"][0], "x' = x + 1");
    assert_eq!(tick["justified"], true);
}

/// Without enough distinct steps an action's facts are withheld, and the output says so.
#[test]
fn transitions_of_rare_actions_are_withheld() {
    let o = infer(&[
        "tests/data/infer/counter.ioa",
        "--random",
        "--runs",
        "1",
        "--steps",
        "4",
        "--seed",
        "7",
        "--transitions",
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    assert!(o.stdout.contains("too few to report"), "{}", o.both());
}

/// The maps model with `--split`: map elements under `defined`, non-default keys of a map and
/// of arrays, at most one locked slot, and implications on Booleans and on action
/// preconditions — every declaration, as reviewed in the snapshot. All of them hold on 50
/// further runs.
#[test]
fn maps_key_sets_and_action_splits() {
    let args = [
        "tests/data/infer/maps.ioa",
        "--random",
        "--runs",
        "60",
        "--steps",
        "40",
        "--split",
    ];
    let o = infer(&args);
    assert_eq!(o.code, 0, "{}", o.both());
    insta::assert_snapshot!(o.stdout);
    let mut validate = args.to_vec();
    validate.extend(["--validate", "50"]);
    let o = infer(&validate);
    assert_eq!(o.code, 0, "{}", o.both());
    assert!(
        o.stdout
            .contains("% 26 of 26 invariant(s) held in every state."),
        "{}",
        o.both()
    );
}

/// Global1 (`examples/consensus/global1.ioa`, its `Paper` schedule and 100 random runs) with
/// `--split`: the action-precondition implications, as reviewed in the snapshot (each is
/// classified in daikon/README.md). The output checks when appended and holds on 100 more runs.
#[test]
fn global1_action_splits() {
    let o = infer(&[
        "examples/consensus/global1.ioa",
        "--split",
        "--validate",
        "100",
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    assert!(
        o.stdout
            .contains("% 16 of 16 invariant(s) held in every state."),
        "{}",
        o.both()
    );
    let declarations = o
        .stdout
        .split_once("\n% Validation")
        .map(|(d, _)| d.to_string())
        .unwrap_or_else(|| panic!("no validation:\n{}", o.both()));
    insta::assert_snapshot!(declarations);
}

/// `--derive keys` alone gives the key sets of arrays without `Null` entries, and nothing else
/// derived; `--derive none` gives none.
#[test]
fn derive_keys_alone() {
    let common = [
        "tests/data/infer/maps.ioa",
        "--random",
        "--runs",
        "60",
        "--steps",
        "40",
    ];
    let mut keys = common.to_vec();
    keys.extend(["--derive", "keys"]);
    let o = infer(&keys);
    assert_eq!(o.code, 0, "{}", o.both());
    assert!(
        o.stdout.contains("∀ s: Slot (hits[s] ≠ 0 ⇒ s ∈ touched)"),
        "{}",
        o.both()
    );
    let mut none = common.to_vec();
    none.extend(["--derive", "none"]);
    let o = infer(&none);
    assert_eq!(o.code, 0, "{}", o.both());
    assert!(!o.stdout.contains("≠ 0 ⇒"), "{}", o.both());
}

/// The precision stage on Cons (random runs only): the detector also proposes `size(decided) ≤
/// 2`, false (all three nodes can decide); the exploration of the folder's `explore.universe`
/// (its `Ballot` lines skipped with a note) covers every reachable state, refutes it, and the
/// model's own three invariants are verified on the small instance.
#[test]
fn a_complete_exploration_verifies_the_survivors() {
    let o = infer_explored(&[
        "examples/consensus/cons_schedules.ioa",
        "--automaton",
        "Cons",
        "--random",
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    assert!(
        o.stderr.contains(
            "precision filter: explored 888 state(s) of the small instance (every reachable \
             state), refuted 1; 100 further run(s) of 400 step(s) and 300 swarm run(s) refuted 0; 3 kept (3 verified \
             on the small instance)"
        ),
        "{}",
        o.both()
    );
    insta::assert_snapshot!(o.stdout);
}

/// On Global1's schedule suite alone the detector proposes `∀ n: Node (size(abstained[n]) ≤
/// size(ballots))`, which is false (a node may abstain from a ballot not yet made): an
/// exploration of the small instance four steps deep refutes it, and the rest, not covered by
/// an exploration of every state, are statistical only.
#[test]
fn a_bounded_exploration_refutes_and_marks_the_rest_statistical() {
    let o = infer_explored(&[GLOBAL1, "--all-schedules", "--explore-depth", "4"]);
    assert_eq!(o.code, 0, "{}", o.both());
    assert!(
        o.stderr.contains(
            "precision filter: explored 1344 state(s) of the small instance (stopped at depth \
             4), refuted 1; 100 further run(s) of 400 step(s) and 300 swarm run(s) refuted 1; 6 \
             kept (0 verified on the small instance)"
        ),
        "{}",
        o.both()
    );
    assert!(!o.stdout.contains("% verified on the small instance"));
    insta::assert_snapshot!(o.stdout);
    // With --no-explore the false proposal is printed.
    let o = infer(&[GLOBAL1, "--all-schedules"]);
    assert!(
        o.stdout
            .contains("∀ n: Node (size(abstained[n]) ≤ size(ballots))"),
        "{}",
        o.both()
    );
}

/// `--templates` adds the candidates `ioa verify` reads off the program text; on Global1 the
/// output then holds all six of the paper's invariants (Inv4 and Inv6 from the templates).
#[test]
fn templates_complete_the_papers_six_invariants() {
    let o = infer_explored(&[GLOBAL1, "--templates", "--explore-depth", "3"]);
    assert_eq!(o.code, 0, "{}", o.both());
    for (name, text) in [
        ("Inv1", "∀ n: Node (size(voted[n] ∩ abstained[n]) = 0)"),
        ("Inv2", "∀ b: Ballot (val[b] ≠ nil ⇒ val[b].val ∈ proposed)"),
        ("Inv3", "size(succeeded ∩ dead) = 0"),
        (
            "Inv4",
            "∀ b: Ballot (val[b] ≠ nil ⇒ ∀ b': Ballot (b'.ordering < b.ordering ⇒ val[b'] = \
             embed(val[b].val) ∨ b' ∈ dead))",
        ),
        ("Inv5", "succeeded ⊆ ballots"),
        (
            "Inv6",
            "∀ b: Ballot (b ∈ succeeded ⇒ ∃ q: Set[Node] (q ∈ quorums ∧ ∀ j: Node (j ∈ q ⇒ b \
             ∈ voted[j])))",
        ),
    ] {
        assert!(o.stdout.contains(text), "{name} missing:\n{}", o.both());
    }
    assert!(
        o.stdout
            .contains("% templates from the program text: 0 did not type-check, 10 were refuted by a reached state"),
        "{}",
        o.both()
    );
    // Templates are re-checked with the rest: the whole output checks as part of the model.
    let o = infer_explored(&[
        GLOBAL1,
        "--templates",
        "--explore-depth",
        "3",
        "--validate",
        "5",
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    assert!(
        o.stdout
            .contains("% 24 of 24 invariant(s) held in every state."),
        "{}",
        o.both()
    );
}

/// A state bound makes the precision stage's exploration stop at the same place on every run
/// (unlike `--explore-time`): the same survivors, and the summary says which limit stopped it.
#[test]
fn a_state_bound_gives_the_same_survivors_every_time() {
    let args = [GLOBAL1, "--explore-states", "3000", "--refute-runs", "0"];
    let first = infer_explored(&args);
    assert_eq!(first.code, 0, "{}", first.both());
    assert!(
        first
            .stderr
            .contains("explored 3000 state(s) of the small instance (stopped by --explore-states 3000 at depth 4)"),
        "{}",
        first.both()
    );
    let second = infer_explored(&args);
    assert_eq!(second.stdout, first.stdout);
}
