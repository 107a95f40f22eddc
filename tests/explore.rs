//! End-to-end tests of `ioa explore`: the `ioa` binary is started from the package root with
//! relative paths, as a user would, and its exit code and output are checked.
//!
//! - Verdicts and their exit codes: verified (0), a violated invariant or a deadlock (1), a bad
//!   command line or model (2), a limit (3).
//! - The acceptance path of the explorer: a false invariant of Global1 is refuted by a shortest
//!   counterexample, written as an ITF trace that `ioa replay` re-executes up to the violation,
//!   with and without symmetry reduction.
//!
//! Output is snapshotted with `--quiet`, which leaves out the timing line; paths of temporary
//! files are shown as `$TMP/…`.

mod common;

use common::Outcome;
use std::path::{Path, PathBuf};

/// The group of these tests' scratch directories (written `$TMP` in their output).
const GROUP: &str = "explore-tests";

/// A directory for the files of one test, emptied first.
fn scratch(test: &str) -> PathBuf {
    common::scratch_dir(GROUP, test)
}

/// Runs `ioa ARGS…` in the package root.
fn ioa<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Outcome {
    common::ioa_in(GROUP, args)
}

/// `ioa explore ARGS… --color never`.
fn explore(args: &[&str]) -> Outcome {
    let mut all = vec!["explore"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--color", "never"]);
    ioa(&all)
}

const WRONG: &str = "examples/consensus/global1_wrong_invariant.ioa";

/// The false invariant `size(succeeded) ≤ 1` is refuted by a shortest counterexample (two nodes
/// initiate, the quorums are defined, two ballots are made, both nodes vote for both, both
/// succeed: 11 steps) found up to permutations of the nodes. The trace is a run of the
/// unreduced automaton: `ioa replay` re-executes it and stops at the same violation.
#[test]
fn a_false_invariant_is_refuted_and_the_trace_replays() {
    let dir = scratch("wrong_symmetric");
    let trace = dir.join("wrong.json");
    let o = explore(&[
        WRONG,
        "--automaton",
        "Global1",
        "--invariant",
        "AtMostOneSucceeded",
        "--universe",
        "Value = [1]",
        "--universe",
        "abstain.B = {[0]}",
        "--symmetric",
        "Node",
        "--trace",
        trace.to_str().expect("UTF-8"),
        "--quiet",
    ]);
    assert_eq!(o.code, 1, "{}", o.both());
    assert_eq!(o.stdout.lines().count(), 11, "{}", o.both());
    insta::assert_snapshot!(o.both());

    let r = ioa(&["replay", trace.to_str().expect("UTF-8"), "--color", "never"]);
    assert_eq!(r.code, 1, "{}", r.both());
    assert!(
        r.stderr.contains(
            "invariant `AtMostOneSucceeded` is violated after step 11: internal internalDecide"
        ),
        "{}",
        r.both()
    );
}

/// The same refutation without symmetry, on two nodes (whose only quorum is both of them).
#[test]
fn a_false_invariant_is_refuted_without_symmetry() {
    let dir = scratch("wrong_plain");
    let trace = dir.join("wrong.json");
    let o = explore(&[
        WRONG,
        "--automaton",
        "Global1",
        "--invariant",
        "AtMostOneSucceeded",
        "--universe",
        "Node = [0]..[1]",
        "--universe",
        "defineQuorums.S = {[0], [1]}",
        "--universe",
        "Value = [1]",
        "--trace",
        trace.to_str().expect("UTF-8"),
        "--quiet",
    ]);
    assert_eq!(o.code, 1, "{}", o.both());
    assert!(o.stderr.contains("shortest counterexample: 11 steps"));
    let r = ioa(&["replay", trace.to_str().expect("UTF-8")]);
    assert_eq!(r.code, 1, "{}", r.both());
    assert!(r
        .stderr
        .contains("`AtMostOneSucceeded` is violated after step 11"));
}

/// Peterson's algorithm: every invariant holds in all 92 reachable states (46 up to swapping
/// the processes); exit 0.
#[test]
fn peterson_is_verified() {
    let o = explore(&["examples/peterson/peterson.ioa", "--quiet"]);
    assert_eq!(o.code, 0, "{}", o.both());
    insta::assert_snapshot!(o.both());
    let o = explore(&[
        "examples/peterson/peterson.ioa",
        "--symmetric",
        "Pid",
        "--quiet",
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    assert!(o.stderr.contains("all 46 reachable states"), "{}", o.both());
}

/// The engine is chosen per model and said in the header; `--engine compiled` on a model
/// outside the compiled subset is an error that says why and what to do; the engines agree.
#[test]
fn the_engine_is_chosen_and_named() {
    let o = explore(&[
        "tests/data/compose/err/0711_unsolved_controller.ioa",
        "--automaton",
        "Clocks",
        "--param",
        "n=2",
        "--universe",
        "Int=0..2",
        "--engine",
        "compiled",
    ]);
    assert_eq!(o.code, 2, "{}", o.both());
    assert!(
        o.stderr
            .contains("--engine compiled: the composite's flattening failed: cannot flatten")
            && o.stderr.contains("--engine interpreter"),
        "{}",
        o.both()
    );
    let c = explore(&["examples/peterson/peterson.ioa", "--engine", "compiled"]);
    let i = explore(&["examples/peterson/peterson.ioa", "--engine", "interpreter"]);
    assert_eq!((c.code, i.code), (0, 0), "{}{}", c.both(), i.both());
    assert!(
        i.stderr.contains("3 invariants; interpreted\n"),
        "{}",
        i.both()
    );
    let verdict = |o: &Outcome| o.stderr.lines().nth(1).unwrap_or_default().to_string();
    assert_eq!(verdict(&c), verdict(&i));
    // The word code alone (no machine code): said in the header, the same verdict.
    let w = explore(&["examples/peterson/peterson.ioa", "--engine", "words"]);
    assert_eq!(w.code, 0, "{}", w.both());
    assert!(
        w.stderr.contains(
            "compiled (5 words per state, stored in 8 bytes, expressions as word code)\n"
        ),
        "{}",
        w.both()
    );
    assert!(
        c.stderr
            .contains("compiled (5 words per state, stored in 8 bytes)\n"),
        "{}",
        c.both()
    );
    assert_eq!(verdict(&w), verdict(&c));
}

/// A composite is compiled through its flattening: the header says so, the counts are the
/// interpreter's, and the counterexample is the same trace (written by re-executing the path
/// on the composite), which `ioa replay` re-executes.
#[test]
fn composites_compile_through_their_flattening() {
    const TOKENS: &str = "tests/data/explore/composite_tokens.ioa";
    let dir = scratch("composite_flattened");
    let run = |engine: &str, extra: &[&str]| {
        let trace = dir.join(format!("{engine}.itf.json"));
        let mut args = vec![TOKENS, "--automaton", "Pair", "--engine", engine, "--quiet"];
        args.extend_from_slice(extra);
        let trace_arg = trace.to_str().expect("UTF-8 path").to_string();
        let mut all: Vec<&str> = args.clone();
        all.extend_from_slice(&["--trace", &trace_arg]);
        (explore(&all), trace)
    };
    let (c, c_trace) = run("compiled", &[]);
    let (i, i_trace) = run("interpreter", &[]);
    assert_eq!((c.code, i.code), (1, 1), "{}{}", c.both(), i.both());
    assert!(
        c.stderr
            .contains("shortest counterexample: 2 steps (8 states stored, 10 generated, depth 2)"),
        "{}",
        c.both()
    );
    assert_eq!(c.stdout, i.stdout);
    let read = |p: &Path| std::fs::read_to_string(p).expect("trace written");
    assert_eq!(read(&c_trace), read(&i_trace), "the same trace");
    let replay = ioa(&["replay", c_trace.to_str().expect("UTF-8 path")]);
    assert_eq!(replay.code, 1, "{}", replay.both());
    assert!(
        replay
            .stderr
            .contains("invariant `FewTokens` is violated after step 2"),
        "{}",
        replay.both()
    );
    let header = explore(&[TOKENS, "--automaton", "Pair", "--invariant", "TokensKept"]);
    assert!(
        header
            .stderr
            .contains("compiled (4 words per state, stored in 8 bytes, the composite flattened)")
            && header
                .stderr
                .contains("all 10 reachable states (17 generated, depth 4"),
        "{}",
        header.both()
    );
    let header = explore(&[
        "examples/crystalball/query_service.ioa",
        "--automaton",
        "QueryService",
    ]);
    assert!(
        header.stderr.contains("the composite flattened")
            && header
                .stderr
                .contains("all 36 reachable states (61 generated, depth 10"),
        "{}",
        header.both()
    );
    // Sequences (LCR's channels) are interned: the composite compiles.
    let lcr = explore(&[
        "examples/lcr/lcr.ioa",
        "--automaton",
        "LCR",
        "--param",
        "n=3",
    ]);
    assert!(
        lcr.stderr
            .contains("compiled (32 words per state, stored in 88 bytes, the composite flattened)")
            && lcr
                .stderr
                .contains("all 7 invariants hold in all 40 reachable states"),
        "{}",
        lcr.both()
    );
    // Outside the compiled subset (a two-index family whose controller the arguments do not
    // name), the reason is said and the interpreter explores.
    let ring = explore(&[
        "tests/data/compose/err/0711_unsolved_controller.ioa",
        "--automaton",
        "Clocks",
        "--param",
        "n=2",
        "--universe",
        "Int=0..2",
    ]);
    assert!(
        ring.stderr
            .contains("interpreted (the composite's flattening failed: cannot flatten")
            && ring
                .stderr
                .contains("the invariant holds in all 1 reachable states"),
        "{}",
        ring.both()
    );
}

/// A state the compiled engine cannot represent (an `Int` beyond the universe stored in a
/// set) hands the search back to the interpreter, which says so and explores every state.
#[test]
fn the_compiled_engine_falls_back_to_the_interpreter() {
    let o = explore(&[
        "tests/data/explore/counter_beyond_universe.ioa",
        "--universe",
        "Int = 0..2",
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    assert!(o.stderr.contains("note: the compiled engine met a value outside its type's universe after 4 states; exploring again with the interpreter"), "{}", o.both());
    assert!(
        o.stderr.contains("in all 6 reachable states"),
        "{}",
        o.both()
    );
}

/// Packed states give an `Int` 16 bits at first (`checker/src/compiled/pack.rs`). A counter
/// that passes 32,767 stops that search, and the compiled engine (not the interpreter) explores
/// again with 64-bit integers: the interpreter's state count, verdict and shortest
/// counterexample, on one thread and on two.
#[test]
fn an_integer_wider_than_its_packed_field_widens_the_packing() {
    let model = "tests/data/explore/wide_counter.ioa";
    let interpreted = explore(&[
        model,
        "--universe",
        "Int = 0..1",
        "--quiet",
        "--engine",
        "interpreter",
    ]);
    assert_eq!(interpreted.code, 1, "{}", interpreted.both());
    for threads in ["1", "2"] {
        let o = explore(&[model, "--universe", "Int = 0..1", "--threads", threads]);
        assert_eq!(o.code, 1, "{}", o.both());
        assert!(
            o.stderr.contains("compiled (2 words per state, stored in 8 bytes)\n")
                && o.stderr.contains("note: an integer outside -32,768..32,767 after 10 states; exploring again with 64-bit integers in the stored states\n")
                && o.stderr.contains("shortest counterexample: 10 steps (47 states stored, 80 generated, depth 10)")
                && o.stderr.contains(interpreted.stderr.trim_end()),
            "{}",
            o.both()
        );
        assert_eq!(o.stdout, interpreted.stdout, "the same counterexample");
    }
}

/// Without `--quiet` the header and the timing line are printed too.
#[test]
fn statistics_are_reported() {
    let o = explore(&["examples/peterson/peterson.ioa", "--threads", "2"]);
    assert_eq!(o.code, 0, "{}", o.both());
    assert!(o.stderr.starts_with(
        "exploring Peterson: 18 action instances, 3 invariants; compiled (5 words per state, stored in 8 bytes)\n"
    ));
    let timing = o.stderr.lines().last().expect("a timing line");
    assert!(
        timing.starts_with("time ")
            && timing.contains("states/s")
            && timing.contains("bytes/state")
            && timing.ends_with("2 threads"),
        "{}",
        o.both()
    );
}

/// `--format json` prints the verdict and the counters as one JSON document.
#[test]
fn json_report() {
    let o = explore(&[
        "examples/lcr/lcr.ioa",
        "--automaton",
        "LCR",
        "--param",
        "n=3",
        "--universe",
        "Int = 0..2",
        "--format",
        "json",
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    let json: serde_json::Value = serde_json::from_str(&o.stdout).expect("JSON");
    assert_eq!(json["verdict"], "verified");
    assert_eq!(json["states"], 40);
    assert_eq!(json["depth"], 11);
    assert_eq!(json["deadlocks"], 1);
}

/// With `--deadlock`, the end of the LCR election (no action enabled) is a violation.
#[test]
fn deadlocks_can_be_violations() {
    let o = explore(&[
        "examples/lcr/lcr.ioa",
        "--automaton",
        "LCR",
        "--param",
        "n=3",
        "--universe",
        "Int = 0..2",
        "--deadlock",
        "--quiet",
    ]);
    assert_eq!(o.code, 1, "{}", o.both());
    insta::assert_snapshot!(o.both());
}

/// Every limit stops the search with exit code 3 and says how far it got.
#[test]
fn limits_stop_cleanly() {
    let base = [
        "examples/consensus/global1_invariants.ioa",
        "--automaton",
        "Global1",
        "--universe-file",
        "examples/consensus/explore.universe",
        "--quiet",
    ];
    let with = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        explore(&args)
    };
    let o = with(&["--max-depth", "3"]);
    assert_eq!(o.code, 3, "{}", o.both());
    insta::assert_snapshot!("depth_limit", o.both());
    let o = with(&["--max-states", "500"]);
    assert_eq!(o.code, 3, "{}", o.both());
    insta::assert_snapshot!("state_limit", o.both());
    let o = with(&["--time-limit", "0"]);
    assert_eq!(o.code, 3, "{}", o.both());
    assert!(
        o.stderr.contains("stopped at the time limit (0 s)"),
        "{}",
        o.both()
    );
    // A memory limit does not stop the search: the visited set spills to disk (tests/spill.rs).
    let o = with(&["--memory-limit", "1K", "--max-depth", "5"]);
    assert_eq!(o.code, 3, "{}", o.both());
    assert!(
        o.stderr.contains("stopped at the depth limit"),
        "{}",
        o.both()
    );
    assert!(
        o.stderr.contains("spilled the visited set to disk"),
        "{}",
        o.both()
    );
    // Without a memory limit, the process stops at its memory ceiling (by default 80% of the
    // machine's memory) with what it covered, instead of being killed by the kernel.
    let o = with(&["--memory-ceiling", "1K"]);
    assert_eq!(o.code, 3, "{}", o.both());
    assert!(
        o.stderr.contains("stopped at the memory ceiling (1000 B;"),
        "{}",
        o.both()
    );
    let o = with(&["--memory-ceiling", "lots"]);
    assert_eq!(o.code, 2, "{}", o.both());
}

/// A type the model singles out cannot be declared symmetric: Global1 compares ballots by
/// their `ordering` field.
#[test]
fn asymmetric_types_are_rejected() {
    let o = explore(&[
        "examples/consensus/global1_invariants.ioa",
        "--automaton",
        "Global1",
        "--universe-file",
        "examples/consensus/explore.universe",
        "--symmetric",
        "Ballot",
    ]);
    assert_eq!(o.code, 2, "{}", o.both());
    assert!(o.stderr.contains("error[E0904]: `Ballot` is not symmetric"));
    let o = explore(&["examples/peterson/peterson.ioa", "--symmetric", "Proc"]);
    assert_eq!(o.code, 2, "{}", o.both());
    insta::assert_snapshot!("unknown_symmetric_type", o.both());
}

/// Bad limits and models are errors (exit 2), not verdicts.
#[test]
fn errors_exit_with_2() {
    let o = explore(&["examples/peterson/peterson.ioa", "--time-limit", "soon"]);
    assert_eq!(o.code, 2, "{}", o.both());
    assert!(o.stderr.contains("--time-limit"));
    let o = explore(&[
        "examples/lcr/lcr.ioa",
        "--automaton",
        "LCR",
        "--param",
        "n=3",
        "--universe-file",
        "tests/data/run/empty.universe",
    ]);
    assert_eq!(o.code, 2, "{}", o.both());
    assert!(o.stderr.contains("error[E0505]"), "{}", o.both());
    let o = explore(&["examples/peterson/peterson.ioa", "--invariant", "Nope"]);
    assert_eq!(o.code, 2, "{}", o.both());
}

/// Faults in the compiled engine (`tests/data/compiled/faults/`: overflow, `.val` of nil, a
/// read outside an array's index type, tuples built outside their type): machine code, word
/// code and the interpreter print the same run, error and counts; only the header, and the
/// note of the compiled engine handing the search back, differ.
#[test]
fn machine_code_word_code_and_the_interpreter_agree_on_faults() {
    let mut files: Vec<_> = std::fs::read_dir("tests/data/compiled/faults")
        .expect("the fault models")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 4, "four fault models");
    let body = |o: &Outcome| {
        o.stderr
            .lines()
            .skip(1)
            .filter(|l| {
                !l.starts_with("note: the compiled engine")
                    && !l.starts_with("note: an integer outside")
                    && !l.starts_with("time ")
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    for file in files {
        let path = file.to_str().expect("UTF-8 path");
        let run = |engine: &str| explore(&[path, "--universe", "Int = 0..2", "--engine", engine]);
        let (c, w, i) = (run("compiled"), run("words"), run("interpreter"));
        // The same fault after as many states (the note), whichever code evaluates.
        let with_note = |o: &Outcome| {
            let lines: Vec<_> = o
                .stderr
                .lines()
                .skip(1)
                .filter(|l| !l.starts_with("time "))
                .collect();
            lines.join("\n")
        };
        assert_eq!(
            (c.code, with_note(&c)),
            (w.code, with_note(&w)),
            "{path}: machine code and word code"
        );
        assert_eq!(
            (c.code, body(&c)),
            (i.code, body(&i)),
            "{path}: compiled and interpreted"
        );
        let stem = file
            .file_stem()
            .expect("a name")
            .to_string_lossy()
            .to_string();
        insta::assert_snapshot!(
            format!("compiled_fault_{stem}"),
            format!("exit code: {}\n{}", c.code, body(&c))
        );
    }
}
