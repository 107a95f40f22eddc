//! The soundness suite of partial-order reduction (`ioa explore --reduction`), driven by
//! `tests/data/reduction/suite.txt`: models with planted bugs (lost and duplicated messages,
//! crashes at the wrong moment, wrong quorums, …) and their correct versions, from
//! `tests/data/elsewhere`, the examples and `tests/data/reduction`. Every model is explored
//! without reduction, with partial-order reduction on the compiled engine and on the
//! interpreter, with two threads, and with every reduction (`all`); the verdicts must be the
//! expected one, every counterexample found under reduction must replay (`ioa replay` ends in
//! the recorded violation, E0521), and the state counts are pinned in a snapshot (a change in
//! what the reduction saves shows there). Every `tests/data/manual` model with an `% explore:`
//! line must get the same verdict reduced and unreduced.

mod common;

use common::{ioa, scratch};
use std::path::Path;

/// One exploration's outcome, from `--format json`.
struct Outcome {
    code: i32,
    verdict: String,
    states: u64,
    steps: Option<u64>,
    stderr: String,
}

fn explore(args: &[&str]) -> Outcome {
    let mut cmd = vec!["explore"];
    cmd.extend(args);
    cmd.extend(["--format", "json", "--quiet"]);
    let (code, out, err) = ioa(&cmd);
    let json: serde_json::Value = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("ioa {}: no JSON report ({e}):\n{out}\n{err}", cmd.join(" ")));
    Outcome {
        code,
        verdict: json["verdict"].as_str().unwrap_or("?").to_string(),
        states: json["states"].as_u64().unwrap_or(0),
        steps: json["counterexample_steps"].as_u64(),
        stderr: err,
    }
}

/// `ioa replay FILE` re-executes the trace and ends in the violation it records.
fn assert_replays(file: &str, what: &str) {
    let (code, _, err) = ioa(&["replay", file]);
    assert_eq!(code, 1, "{what}: replay {file}:\n{err}");
    assert!(
        err.starts_with("error[E0521]"),
        "{what}: replay {file} should end in the recorded violation:\n{err}"
    );
}

#[test]
fn reduced_and_unreduced_explorers_agree_and_reduced_counterexamples_replay() {
    let suite =
        std::fs::read_to_string(Path::new(common::ROOT).join("tests/data/reduction/suite.txt"))
            .expect("the suite");
    let mut summary = String::new();
    let mut bugs = 0;
    for line in suite
        .lines()
        .filter(|l| !l.starts_with('%') && !l.trim().is_empty())
    {
        let parts: Vec<&str> = line.split('|').map(str::trim).collect();
        let [name, expected, args] = parts[..] else {
            panic!("suite line `{line}`: say NAME | EXPECTED | ARGUMENTS");
        };
        let base: Vec<&str> = args.split_whitespace().collect();
        let runs: [(&str, &[&str]); 5] = [
            ("none", &["--reduction", "none", "--threads", "1"]),
            ("por", &["--reduction", "por", "--threads", "1"]),
            (
                "por-interpreted",
                &[
                    "--reduction",
                    "por",
                    "--threads",
                    "1",
                    "--engine",
                    "interpreter",
                ],
            ),
            ("por-2-threads", &["--reduction", "por", "--threads", "2"]),
            ("all", &["--reduction", "all", "--threads", "1"]),
        ];
        let mut counts = Vec::new();
        for (label, extra) in runs {
            let what = format!("{name} ({label})");
            let trace = scratch("reduction", &format!("{name}-{label}.json"));
            let _ = std::fs::remove_file(&trace);
            let trace = trace.display().to_string();
            let mut args = base.clone();
            args.extend(extra);
            args.extend(["--trace", &trace]);
            let o = explore(&args);
            assert_eq!(o.verdict, expected, "{what}:\n{}", o.stderr);
            assert_eq!(
                o.code,
                if expected == "violation" { 1 } else { 0 },
                "{what}:\n{}",
                o.stderr
            );
            if expected == "violation" {
                assert_replays(&trace, &what);
            }
            let steps = o.steps.map(|s| format!(" ({s} steps)")).unwrap_or_default();
            counts.push(format!("{label} {}{steps}", o.states));
        }
        if expected == "violation" {
            bugs += 1;
        }
        summary.push_str(&format!("{name}: {expected}; {}\n", counts.join(", ")));
    }
    assert!(bugs >= 10, "only {bugs} planted bugs in the suite");
    insta::assert_snapshot!(summary);
}

#[test]
fn manual_models_get_the_same_verdict_with_and_without_reduction() {
    let mut compared = 0;
    let dir = Path::new(common::ROOT).join("tests/data/manual");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the manual models")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ioa"))
        .collect();
    files.sort();
    let mut summary = String::new();
    for path in files {
        let source = std::fs::read_to_string(&path).expect("read");
        let name = format!(
            "tests/data/manual/{}",
            path.file_name().expect("name").to_string_lossy()
        );
        let extra: Vec<&str> = source
            .lines()
            .find_map(|l| l.strip_prefix("% explore:"))
            .map(|l| l.split_whitespace().collect())
            .unwrap_or_default();
        let mut outcomes = Vec::new();
        for reduction in ["none", "por", "all"] {
            let mut args = vec![name.as_str(), "--threads", "1", "--reduction", reduction];
            args.extend(&extra);
            outcomes.push(explore(&args));
        }
        for o in &outcomes[1..] {
            assert_eq!(o.verdict, outcomes[0].verdict, "{name}:\n{}", o.stderr);
            assert_eq!(o.code, outcomes[0].code, "{name}:\n{}", o.stderr);
            assert!(
                o.states <= outcomes[0].states,
                "{name}: reduction grew the search"
            );
        }
        summary.push_str(&format!(
            "{name}: {}; none {}, por {}, all {}\n",
            outcomes[0].verdict, outcomes[0].states, outcomes[1].states, outcomes[2].states
        ));
        compared += 1;
    }
    assert!(compared >= 25, "only {compared} manual models");
    insta::assert_snapshot!(summary);
}

#[test]
fn reduction_options_that_would_be_unsound_are_refused() {
    let lcr = "examples/lcr/lcr.ioa";
    let (code, _, err) = ioa(&[
        "explore",
        lcr,
        "--automaton",
        "LCR",
        "--param",
        "n=3",
        "--reduction",
        "por",
        "--liveness",
        "x",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not liveness"), "{err}");
    let (code, _, err) = ioa(&[
        "explore",
        lcr,
        "--automaton",
        "LCR",
        "--param",
        "n=3",
        "--reduction",
        "symmetry",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--symmetric"), "{err}");
    let (code, _, err) = ioa(&[
        "explore",
        lcr,
        "--automaton",
        "LCR",
        "--param",
        "n=3",
        "--reduction",
        "por",
        "--local",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("local model checking"), "{err}");
}

/// The two-ballot composite Paxos of issue 37 over the reliable network, within 22 steps (the
/// whole space, 37,694,208 states with partial-order reduction, is a benchmark row,
/// `paxos_reliable2` of `bench/reduction.sh`): the reduction takes no cycle proviso, and one
/// and two threads store the same states.
#[test]
fn the_two_ballot_paxos_is_reduced_without_a_cycle_proviso() {
    let args = [
        "tests/data/reduction/paxos_reliable.ioa",
        "--automaton",
        "PaxosReliable",
        "--universe",
        "Node = [0]..[2]",
        "--universe",
        "Value = [1]..[1]",
        "--universe",
        "Ballot = [0]..[1]",
        "--universe",
        "fail.i = [2]",
        "--reduction",
        "por",
        "--max-depth",
        "22",
    ];
    for threads in ["1", "2"] {
        let mut cmd = vec!["explore"];
        cmd.extend(args);
        cmd.extend(["--threads", threads, "--format", "json", "--quiet"]);
        let (_, out, err) = ioa(&cmd);
        let json: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("no JSON ({e}):\n{err}"));
        assert_eq!(json["states"], 94_793, "{threads} threads");
        let por = &json["reduction"]["por"];
        assert_eq!(por["acyclic"], true);
        assert_eq!(por["proviso_full_states"], 0);
        assert_eq!(por["proviso_larger_states"], 0);
    }
}
