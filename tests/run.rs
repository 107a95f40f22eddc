//! End-to-end tests of `ioa run` and `ioa replay`: the `ioa` binary is started as a user would
//! start it, from the package root with relative paths, and its exit code, standard output and
//! standard error are checked.
//!
//! - One helper per feature: the paper's §4 schedule, the Global1 schedule suite with the paper's
//!   invariants, a schedule that fires a disabled action (Cons `TwiceChooseVal`), determinism and
//!   replay of long random runs, the planted bug of `global1_planted_bug.ioa` found by random
//!   runs, LCR under random schedules, and corrupted traces given to `ioa replay`.
//! - Bad command lines are data: every `tests/data/run/cases/*.case` file holds `% expect: exit N[,
//!   CODE]` on its first line, `%` comments, then the arguments of `ioa`, one per line. Its output
//!   is recorded as an insta snapshot.
//! - Tests marked `#[ignore]` pin bugs that are known and not fixed yet; each says what is wrong.
//!   Run them with `cargo test --test run -- --ignored`.
//!
//! Snapshots hold no machine-specific text: paths are relative to the package root, temporary
//! files are shown as `$TMP/…`, and colour is off.

mod common;

use common::{Case, Outcome};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::ROOT;

/// The group of these tests' scratch directories (written `$TMP` in their output).
const GROUP: &str = "run-tests";

/// A directory for the trace files of one test, emptied first.
fn scratch(test: &str) -> PathBuf {
    common::scratch_dir(GROUP, test)
}

/// Runs `ioa ARGS…` in the package root. Temporary paths in the output become `$TMP`.
fn ioa<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Outcome {
    common::ioa_in(GROUP, args)
}

/// `ioa run ARGS… --color never`.
fn run(args: &[&str]) -> Outcome {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--color", "never"]);
    ioa(&all)
}

/// `ioa replay TRACE --color never`.
fn replay(trace: &Path) -> Outcome {
    ioa(&[
        "replay".as_ref(),
        trace.as_os_str(),
        "--color".as_ref(),
        "never".as_ref(),
    ])
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

// ---------------------------------------------------------------------------------------------
// The paper's §4 schedule
// ---------------------------------------------------------------------------------------------

/// Section 4 of the paper: with `Node = [0]..[5]` the `Paper` schedule of global1.ioa prints
/// exactly five log lines on standard output, and a summary on standard error.
#[test]
fn paper_schedule_prints_the_five_log_lines() {
    let o = run(&[
        "examples/consensus/global1.ioa",
        "--schedule",
        "Paper",
        "--universe",
        "Node = [0]..[5]",
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    assert_eq!(o.stdout.lines().count(), 5, "{}", o.both());
    insta::assert_snapshot!(o.both());
}

// ---------------------------------------------------------------------------------------------
// The Global1 schedule suite with the paper's invariants
// ---------------------------------------------------------------------------------------------

/// Every schedule of global1_schedules.ioa, run through global1_suite.ioa (which adds Inv1–Inv6
/// and the helper invariants), with the number of steps it takes.
const SUITE: [(&str, usize); 6] = [
    ("NormalRun", 13),
    ("Failures", 13),
    ("Abstentions", 18),
    ("LaterBallotKeepsValue", 20),
    ("DecideBeforeValue", 17),
    ("ManyBallots", 38),
];

/// The invariants of Global1 in global1_invariants.ioa: Inv1–Inv6, QuorumsIntersect,
/// DeadAbstained, DecidedInitiated.
const GLOBAL1_INVARIANTS: usize = 9;

/// Runs one suite schedule and checks its summary line.
fn assert_suite_schedule(name: &str, steps: usize) {
    let o = run(&[
        "examples/consensus/global1_suite.ioa",
        "--schedule",
        name,
        "--quiet",
    ]);
    assert_eq!(o.code, 0, "schedule {name}:\n{}", o.both());
    assert_eq!(o.stdout, "", "--quiet prints no log lines");
    assert_eq!(
        o.stderr,
        format!(
            "schedule {name}: {steps} step(s); all {GLOBAL1_INVARIANTS} invariant(s) held in {} state(s)\n",
            steps + 1
        ),
        "schedule {name}"
    );
}

#[test]
fn every_global1_suite_schedule_keeps_every_invariant() {
    for (name, steps) in SUITE {
        assert_suite_schedule(name, steps);
    }
}

/// Without `--quiet` the suite's log lines go to standard output, one per step.
#[test]
fn suite_schedule_logs_every_step() {
    let o = run(&[
        "examples/consensus/global1_suite.ioa",
        "--schedule",
        "NormalRun",
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    insta::assert_snapshot!(o.stdout);
}

/// The paper's schedule, imported into the suite, also keeps the invariants.
#[test]
fn paper_schedule_keeps_the_invariants_of_the_suite() {
    let o = run(&[
        "examples/consensus/global1_suite.ioa",
        "--schedule",
        "Paper",
        "--universe",
        "Node = [0]..[5]",
        "--quiet",
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    assert_eq!(
        o.stderr,
        "schedule Paper: 5 step(s); all 9 invariant(s) held in 6 state(s)\n"
    );
}

// ---------------------------------------------------------------------------------------------
// A schedule that fires a disabled action
// ---------------------------------------------------------------------------------------------

/// Cons has no Ballot and no abstain, so the shared default.universe beside cons.ioa does not fit
/// it; the Cons schedules run with their own universe.
const CONS_UNIVERSE: &str = "tests/data/run/cons.universe";

#[test]
fn cons_schedules_that_are_enabled_complete() {
    for (name, steps) in [("ConsNormalRun", 7), ("ConsFailures", 7)] {
        let o = run(&[
            "examples/consensus/cons_schedules.ioa",
            "--universe-file",
            CONS_UNIVERSE,
            "--schedule",
            name,
            "--quiet",
        ]);
        assert_eq!(o.code, 0, "{name}:\n{}", o.both());
        assert_eq!(
            o.stderr,
            format!(
                "schedule {name}: {steps} step(s); all 3 invariant(s) held in {} state(s)\n",
                steps + 1
            )
        );
    }
}

/// The second `chooseVal` fails `chosen = {}`: exit 1, and a diagnostic that names the step,
/// the action with its arguments, the false conjunct with its file:line:col, the `fire`
/// statement, and the values the conjunct reads.
#[test]
fn twice_choose_val_stops_at_the_second_choose_val() {
    let o = run(&[
        "examples/consensus/cons_schedules.ioa",
        "--universe-file",
        CONS_UNIVERSE,
        "--schedule",
        "TwiceChooseVal",
    ]);
    assert_eq!(o.code, 1, "{}", o.both());
    assert_eq!(
        o.stdout.lines().count(),
        3,
        "three steps were taken:\n{}",
        o.both()
    );
    assert!(o.stderr.contains(
        "error[E0520]: step 4: `internal chooseVal([2]) in automaton Cons` is not enabled"
    ));
    assert!(o.stderr.contains("examples/consensus/cons.ioa:"));
    assert!(o.stderr.contains("chosen = {}"));
    assert!(o.stderr.contains("values: chosen = {[1]}"));
    assert!(o
        .stderr
        .ends_with("schedule TwiceChooseVal: stopped after 3 step(s)\n"));
    insta::assert_snapshot!(o.stderr);
}

// ---------------------------------------------------------------------------------------------
// Random runs: determinism and replay
// ---------------------------------------------------------------------------------------------

/// The steps of the determinism test. The acceptance check uses `--steps 100000`, which takes
/// minutes in a debug build; it is done by hand with the release binary:
///   ioa run examples/consensus/global1_suite.ioa --automaton Global1 --random \
///     --steps 100000 --seed 7 --quiet --trace a.itf.json   (twice, then cmp, then ioa replay)
/// Here 3,000 steps keep the test to seconds.
const RANDOM_STEPS: &str = "3000";

/// A random run is a function of its seed: two runs of Global1 with `--seed 7` write
/// byte-identical traces, and `ioa replay` accepts the trace.
#[test]
fn random_runs_are_deterministic_and_replay() {
    let dir = scratch("deterministic");
    let mut traces = Vec::new();
    for k in ["a", "b"] {
        let trace = dir.join(format!("{k}.itf.json"));
        let o = run(&[
            "examples/consensus/global1_suite.ioa",
            "--automaton",
            "Global1",
            "--random",
            "--steps",
            RANDOM_STEPS,
            "--seed",
            "7",
            "--quiet",
            "--trace",
            path_str(&trace),
        ]);
        assert_eq!(o.code, 0, "{}", o.both());
        assert_eq!(o.stdout, "");
        assert_eq!(
            o.stderr,
            format!(
                "random run of Global1: seed 7, {RANDOM_STEPS} step(s) per run, 1 run(s)\n\
                 seed 7: {RANDOM_STEPS} step(s); all 9 invariant(s) held in 3001 state(s)\n"
            )
        );
        traces.push(std::fs::read(&trace).expect("trace written"));
    }
    assert!(
        traces[0] == traces[1],
        "two runs with seed 7 wrote different traces"
    );
    // The traces are identical, so replaying one replays both.
    let o = replay(&dir.join("a.itf.json"));
    assert_eq!(o.code, 0, "{}", o.both());
    assert_eq!(
        o.stderr,
        format!("replayed {RANDOM_STEPS} step(s) of Global1: every step enabled, every state as recorded\n")
    );
    // The trace is ITF: it names its format, model, automaton, seed and universe.
    let json: serde_json::Value = serde_json::from_slice(&traces[0]).expect("JSON");
    let meta = &json["#meta"];
    assert_eq!(meta["format"], "ITF");
    // The model is recorded by absolute path, so the trace replays from any folder.
    assert!(
        meta["source"].as_str().is_some_and(
            |p| p.starts_with('/') && p.ends_with("examples/consensus/global1_suite.ioa")
        )
    );
    assert_eq!(meta["automaton"], "Global1");
    assert_eq!(meta["seed"], 7);
    assert!(meta["universe"]
        .as_str()
        .is_some_and(|u| u.contains("Ballot = [0]..[19]")));
    assert_eq!(json["states"].as_array().map(Vec::len), Some(3001));
}

/// A different seed gives a different run.
#[test]
fn different_seeds_give_different_runs() {
    let log = |seed: &str| {
        let o = run(&[
            "examples/consensus/global1_suite.ioa",
            "--automaton",
            "Global1",
            "--random",
            "--steps",
            "30",
            "--seed",
            seed,
            "--log",
        ]);
        assert_eq!(o.code, 0, "{}", o.both());
        assert_eq!(o.stdout.lines().count(), 30);
        o.stdout
    };
    assert_ne!(log("7"), log("8"));
    assert_eq!(log("7"), log("7"));
}

// ---------------------------------------------------------------------------------------------
// The planted bug
// ---------------------------------------------------------------------------------------------

const PLANTED: &str = "examples/consensus/global1_planted_bug.ioa";

/// Where random runs find the planted bug (assignVal without its ∀ b' clause) with
/// `--random --runs 1000 --steps 200 --seed 0` and no weights: run 4, seed 3, after step 91,
/// when a second ballot with another value succeeds.
const PLANTED_SEED: u64 = 3;
const PLANTED_RUN: u64 = 4;
const PLANTED_STEP: usize = 91;
/// The length of the run the shrinker makes of it.
const PLANTED_SHRUNK: usize = 11;

#[test]
fn planted_bug_is_found_by_random_runs_and_replays() {
    let dir = scratch("planted");
    let trace = dir.join("bug.itf.json");
    let o = run(&[
        PLANTED,
        "--automaton",
        "Global1Bug",
        "--random",
        "--runs",
        "1000",
        "--steps",
        "200",
        "--seed",
        "0",
        "--quiet",
        "--trace",
        path_str(&trace),
    ]);
    assert_eq!(o.code, 1, "{}", o.both());
    // The failing run is shrunk before it is shown: 91 steps to 11.
    assert!(o.stderr.contains(&format!(
        "run {PLANTED_RUN} of 1000 (seed {PLANTED_SEED}) failed after {PLANTED_STEP} step(s); shrunk to {PLANTED_SHRUNK} step(s):\n"
    )), "{}", o.both());
    let violated = format!("error[E0521]: invariant `Agreement` is violated after step {PLANTED_SHRUNK}: internal internalDecide(");
    assert!(o.stderr.contains(&violated), "{}", o.both());
    assert!(o.stderr.contains(&format!(
        "found by run {PLANTED_RUN} of 1000 (seed {PLANTED_SEED}); rerun it with `--seed {PLANTED_SEED} --runs 1`\n"
    )));
    assert_eq!(o.stdout.lines().count(), PLANTED_SHRUNK, "{}", o.stdout);
    insta::assert_snapshot!("planted_bug_run", o.both());

    // The trace holds the shrunk run, up to the violating state.
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&trace).expect("trace written")).expect("JSON");
    assert_eq!(json["#meta"]["seed"], PLANTED_SEED);
    assert_eq!(
        json["states"].as_array().map(Vec::len),
        Some(PLANTED_SHRUNK + 1)
    );

    // Replay re-executes every step, and the violation shows again: the same diagnostic, exit 1.
    let r = replay(&trace);
    assert_eq!(r.code, 1, "{}", r.both());
    assert!(r.stderr.contains(&violated), "{}", r.both());
    assert!(
        !r.stderr.contains("E0523"),
        "the trace replays: {}",
        r.both()
    );
    insta::assert_snapshot!("planted_bug_replay", r.both());

    // The seed that found it finds it again on its own.
    let again = run(&[
        PLANTED,
        "--automaton",
        "Global1Bug",
        "--random",
        "--runs",
        "1",
        "--steps",
        "200",
        "--seed",
        &PLANTED_SEED.to_string(),
        "--quiet",
    ]);
    assert_eq!(again.code, 1);
    assert!(again.stderr.contains(&violated));
}

/// The paper's Inv4 catches the same bug much sooner: it ranges over every ballot of the
/// universe, so the first assignVal of a ballot above [0] breaks it (run 1, step 7).
#[test]
fn planted_bug_breaks_inv4_at_the_first_assign_val() {
    let o = run(&[
        "tests/data/run/models/planted_bug_inv4.ioa",
        "--universe-file",
        "examples/consensus/default.universe",
        "--automaton",
        "Global1Bug",
        "--random",
        "--runs",
        "1000",
        "--steps",
        "200",
        "--seed",
        "0",
        "--quiet",
    ]);
    assert_eq!(o.code, 1, "{}", o.both());
    assert!(o.stderr.contains(
        "error[E0521]: invariant `Inv4` is violated after step 3: internal assignVal([3], [2]) in automaton Global1Bug"
    ), "{}", o.both());
    assert!(o
        .stderr
        .contains("run 1 of 1000 (seed 0) failed after 7 step(s); shrunk to 3 step(s)"));
    assert!(o
        .stderr
        .contains("found by run 1 of 1000 (seed 0); rerun it with `--seed 0 --runs 1`"));
}

/// The correct Global1 keeps the paper's invariants (Inv4 among them) under random runs of the
/// same length from the same seeds as the bug hunt: the bug is the missing clause, not the
/// invariants or the universe.
#[test]
fn correct_global1_survives_the_runs_that_find_the_bug() {
    let o = run(&[
        "examples/consensus/global1_suite.ioa",
        "--automaton",
        "Global1",
        "--random",
        "--runs",
        "20",
        "--steps",
        "200",
        "--seed",
        "0",
        "--quiet",
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    assert!(o.stderr.ends_with(
        "20 run(s), 4000 step(s) in all (0 ended with no action enabled): all 9 invariant(s) held\n"
    ), "{}", o.both());
}

// ---------------------------------------------------------------------------------------------
// LCR: a composite under random schedules
// ---------------------------------------------------------------------------------------------

#[test]
fn lcr_random_runs_keep_their_invariants() {
    let o = run(&[
        "examples/lcr/lcr.ioa",
        "--automaton",
        "LCR",
        "--param",
        "n=3",
        "--universe",
        "Int = 0..2",
        "--random",
        "--runs",
        "20",
        "--steps",
        "200",
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    assert_eq!(
        o.stderr,
        "random run of LCR: seed 0, 200 step(s) per run, 20 run(s)\n\
         20 run(s), 220 step(s) in all (20 ended with no action enabled): all 7 invariant(s) held\n"
    );
}

#[test]
fn lcr_ring_schedule_elects_process_2() {
    let o = run(&[
        "examples/lcr/lcr.ioa",
        "--param",
        "n=3",
        "--universe",
        "Int = 0..2",
        "--schedule",
        "Ring",
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    insta::assert_snapshot!(o.both());
}

/// LCR needs a universe for Int: its components are indexed by Int.
#[test]
fn lcr_without_an_int_universe_is_unbounded() {
    let o = run(&[
        "examples/lcr/lcr.ioa",
        "--automaton",
        "LCR",
        "--param",
        "n=3",
        "--random",
        "--universe-file",
        "tests/data/run/empty.universe",
    ]);
    assert_eq!(o.code, 1, "{}", o.both());
    assert!(o.stderr.contains("error[E0505]"));
    assert!(o.stderr.contains("examples/lcr/lcr.ioa:"));
}

// ---------------------------------------------------------------------------------------------
// Bad input, one data file per case
// ---------------------------------------------------------------------------------------------

/// Every case exits with its expected code, without panicking, with its diagnostic code first
/// (when it names one), a location when the problem has one in a file, and its output recorded.
#[test]
fn bad_input_is_reported() {
    insta::glob!("data/run/cases/*.case", |path| {
        let case = Case::read(path);
        let mut args = case.args.clone();
        if args[0] == "run" || args[0] == "replay" {
            args.extend(["--color".to_string(), "never".to_string()]);
        }
        let o = ioa(&args);
        assert_eq!(o.code, case.exit, "{}:\n{}", path.display(), o.both());
        case.assert_first_error(path, &o.stderr);
        insta::with_settings!({ description => case.text.trim_end(), omit_expression => true }, {
            insta::assert_snapshot!(o.both());
        });
    });
}

// ---------------------------------------------------------------------------------------------
// Corrupted traces
// ---------------------------------------------------------------------------------------------

type Mutation = fn(&mut serde_json::Value);

/// Ways to damage the NormalRun trace (14 states: the start state and 13 steps; step 5 is
/// makeBallot([0]), step 6 assignVal([0], [2])).
const CORRUPTIONS: [(&str, i32, Mutation); 12] = [
    ("state_value_changed", 1, |j| {
        j["states"][5]["proposed"] = serde_json::json!({ "#set": [{ "value": 9 }] })
    }),
    ("start_state_changed", 1, |j| {
        j["states"][0]["failed"] = serde_json::json!({ "#set": [{ "location": 1 }] })
    }),
    ("step_removed", 1, |j| {
        j["states"].as_array_mut().expect("states").remove(7);
    }),
    ("step_not_enabled", 1, |j| {
        j["states"][4]["#meta"]["action"] = serde_json::json!({ "name": "internalDecide", "kind": "internal", "args": [{ "ordering": 0 }] })
    }),
    ("unknown_action", 1, |j| {
        j["states"][3]["#meta"]["action"]["name"] = "propose".into()
    }),
    ("argument_of_wrong_type", 1, |j| {
        j["states"][3]["#meta"]["action"]["args"][0] = 0.into()
    }),
    ("extra_argument", 1, |j| {
        j["states"][3]["#meta"]["action"]["args"]
            .as_array_mut()
            .expect("args")
            .push(1.into())
    }),
    ("action_missing", 1, |j| {
        j["states"][4]["#meta"]
            .as_object_mut()
            .expect("meta")
            .remove("action");
    }),
    ("variable_missing", 1, |j| {
        j["states"][2]
            .as_object_mut()
            .expect("state")
            .remove("ballots");
    }),
    ("no_states", 1, |j| j["states"] = serde_json::json!([])),
    ("model_not_named", 1, |j| {
        j["#meta"].as_object_mut().expect("meta").remove("source");
    }),
    ("automaton_unknown", 1, |j| {
        j["#meta"]["automaton"] = "Nope".into()
    }),
];

#[test]
fn corrupted_traces_are_rejected() {
    let dir = scratch("corrupted");
    let good = dir.join("good.itf.json");
    let o = run(&[
        "examples/consensus/global1_suite.ioa",
        "--schedule",
        "NormalRun",
        "--quiet",
        "--trace",
        path_str(&good),
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    let r = replay(&good);
    assert_eq!(r.code, 0, "{}", r.both());
    assert_eq!(
        r.stderr,
        "replayed 13 step(s) of Global1: every step enabled, every state as recorded\n"
    );
    let original: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&good).expect("read")).expect("JSON");
    let mut report = String::new();
    for (name, exit, mutate) in CORRUPTIONS {
        let mut j = original.clone();
        mutate(&mut j);
        let path = dir.join(format!("{name}.itf.json"));
        std::fs::write(&path, serde_json::to_string(&j).expect("JSON")).expect("write");
        let r = replay(&path);
        assert_eq!(r.code, exit, "{name}:\n{}", r.both());
        assert!(
            r.stderr.starts_with("error"),
            "{name}: no error:\n{}",
            r.both()
        );
        report.push_str(&format!("=== {name}\n{}\n", r.both()));
    }
    insta::assert_snapshot!(report);
}

// ---------------------------------------------------------------------------------------------
// Known bugs (see the doc comment at the top)
// ---------------------------------------------------------------------------------------------

/// An action instance that no component of a composite has (process 1 sends only to process 2)
/// is taken as an enabled step that changes nothing, in schedules and in random runs.
#[test]
fn regression_action_instance_with_no_participant_is_not_enabled() {
    let o = run(&[
        "tests/data/run/models/lcr_phantom_step.ioa",
        "--param",
        "n=3",
        "--universe",
        "Int = 0..2",
        "--schedule",
        "Phantom",
    ]);
    assert_eq!(o.code, 1, "{}", o.both());
    assert!(o.stderr.contains("error[E0520]"), "{}", o.both());
}

/// Random LCR runs should only ever send along the ring: send(i, i + 1 mod 3, m).
#[test]
fn regression_lcr_random_steps_follow_the_ring() {
    let o = run(&[
        "examples/lcr/lcr.ioa",
        "--automaton",
        "LCR",
        "--param",
        "n=3",
        "--universe",
        "Int = 0..2",
        "--random",
        "--steps",
        "40",
        "--log",
    ]);
    for line in o.stdout.lines() {
        for (i, j) in [(0, 2), (1, 0), (2, 1), (0, 0), (1, 1), (2, 2)] {
            assert!(
                !line.contains(&format!("send({i}, {j},"))
                    && !line.contains(&format!("receive({i}, {j},")),
                "off-ring step: {line}"
            );
        }
    }
}

/// A universe range whose width does not fit in 64 bits panics (`attempt to subtract with
/// overflow` in universe.rs) instead of reporting E0512.
#[test]
fn regression_huge_universe_range_is_an_error_not_a_panic() {
    let out = Command::new(env!("CARGO_BIN_EXE_ioa"))
        .args([
            "run",
            "examples/consensus/global1.ioa",
            "--schedule",
            "Paper",
            "--universe",
            "Int = -9223372036854775807..9223372036854775807",
        ])
        .current_dir(ROOT)
        .output()
        .expect("start ioa");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("E0512"));
}

/// `--schedule NoSuch` on a model with several automata asks for `--automaton` instead of
/// saying that there is no such schedule.
#[test]
fn regression_unknown_schedule_is_named_as_such() {
    let o = run(&[
        "examples/consensus/global1_suite.ioa",
        "--schedule",
        "NoSuch",
    ]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("no schedule `NoSuch`"), "{}", o.both());
}

/// The default.universe beside cons.ioa names Ballot and abstain.B, which Cons does not have,
/// so `ioa run examples/consensus/cons.ioa` fails before it starts.
#[test]
fn regression_cons_runs_with_the_default_universe() {
    let o = run(&["examples/consensus/cons.ioa", "--random", "--steps", "50"]);
    assert_eq!(o.code, 0, "{}", o.both());
}

/// An empty universe line (`Node =`) silently makes Node empty, so every `∀ n: Node` holds
/// vacuously and every action with a Node parameter disappears from random runs.
#[test]
fn regression_empty_universe_is_rejected() {
    let o = run(&[
        "examples/consensus/global1_suite.ioa",
        "--automaton",
        "Global1",
        "--random",
        "--steps",
        "10",
        "--universe",
        "Node =",
    ]);
    assert_eq!(o.code, 1, "{}", o.both());
}

/// The step budget of a schedule is reported as "loop ran more than 0 times".
#[test]
fn regression_schedule_budget_names_the_limit() {
    let o = run(&[
        "examples/consensus/global1_suite.ioa",
        "--schedule",
        "ManyBallots",
        "--steps",
        "10",
    ]);
    assert!(!o.stderr.contains("more than 0 times"), "{}", o.both());
    assert!(o.stderr.contains("10"), "{}", o.both());
}

/// An error in the first step of a schedule is reported "while building the start state": the
/// note is chosen by the number of steps completed (0), not by where the error happened.
#[test]
fn regression_error_in_the_first_step_names_step_1() {
    let o = run(&[
        "tests/data/run/models/choose.ioa",
        "--schedule",
        "Unresolved",
        "--universe",
        "Int = 0..9",
    ]);
    assert_eq!(o.code, 1, "{}", o.both());
    assert!(o.stderr.contains("during step 1"), "{}", o.both());
    assert!(!o.stderr.contains("start state"), "{}", o.both());
}

/// An invariant that cannot be evaluated in the start state is reported "while building the
/// start state", although the start state was built; the note should name the invariant.
#[test]
fn regression_invariant_error_names_the_invariant() {
    let o = run(&[
        "tests/data/run/models/unbounded_quantifier.ioa",
        "--schedule",
        "TwoTicks",
    ]);
    assert_eq!(o.code, 1, "{}", o.both());
    assert!(
        !o.stderr.contains("while building the start state"),
        "{}",
        o.both()
    );
    assert!(o.stderr.contains("SomeIntAbove"), "{}", o.both());
}

/// The log of a schedule (and `--log` of a random run) should end with the step after which an
/// invariant fails; it stops one step short, although `--quiet` shows that step.
#[test]
fn regression_log_shows_the_violating_step() {
    for mode in [
        &["--schedule", "ThreeTicks"][..],
        &["--random", "--log"][..],
    ] {
        let mut args = vec!["tests/data/run/models/violation.ioa"];
        args.extend_from_slice(mode);
        let o = run(&args);
        assert_eq!(o.code, 1, "{}", o.both());
        assert!(
            o.stdout.contains("2: internal tick() in automaton Count"),
            "{mode:?}:\n{}",
            o.both()
        );
    }
}
