//! End-to-end tests of liveness checking: `ioa explore --liveness` (exact) and `ioa liveness`
//! (MaceMC walks).
//!
//! - `tests/data/liveness/cases/*.args`: the arguments of one run each (one per line); exit
//!   code, standard output and standard error are an insta snapshot. They pin the state counts
//!   (LCR's `LeaderElected` holds in all 39 and 120 states for n = 3 and 4), the dead paths,
//!   critical transitions and lassos, and the fairness cases.
//! - The planted LCR bug (`tests/data/liveness/lcr_drop_max.ioa`) is found by both searches,
//!   which name the same critical transition, on rings of 3 and 4 and for several seeds; the
//!   walks' answer is confirmed by an exact search, also when the walks are biased towards the
//!   bug (and without that search, the report says how sure the walks are).
//! - The same for a leads-to property (`tests/data/liveness/request.ioa`: a dropped request is
//!   never served).
//! - Fairness: a task enabled throughout a loop that an unfair scheduler could starve is not a
//!   violation under task fairness and is one without.
//! - Every trace either search writes is accepted by `ioa replay`, and a seed gives the same
//!   report twice.

mod common;

use common::{ioa, scratch};

#[test]
fn liveness_cases() {
    insta::glob!("data/liveness/cases/*.args", |path: &Path| {
        let text = std::fs::read_to_string(path).expect("readable");
        let args: Vec<&str> = text.lines().collect();
        let (code, stdout, stderr) = ioa(&args);
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let expected = match name {
            n if n.ends_with("holds")
                || n == "lcr_n3_chosen_reports"
                || n == "starve_fair"
                || n == "lcr_n3_walks" =>
            {
                0
            }
            "unknown_property" => 2,
            "walks_too_short" => 3,
            _ => 1,
        };
        assert_eq!(code, expected, "{name}:\n{stdout}{stderr}");
        insta::assert_snapshot!(format!(
            "exit code: {code}\n--- stdout\n{stdout}--- stderr\n{stderr}"
        ));
    });
}

/// The action of a log line `n: kind name(args) in automaton A`, without its position.
fn action_of(line: &str) -> String {
    line.split_once(": ")
        .map(|(_, rest)| rest.to_string())
        .unwrap_or_default()
}

/// The critical transition a report names (`critical transition…: n: action`).
fn critical(output: &str) -> Option<String> {
    output
        .lines()
        .find_map(|l| l.split_once("critical transition").map(|(_, rest)| rest))
        .and_then(|rest| rest.split_once(": ").map(|(_, line)| action_of(line)))
}

#[test]
fn exact_check_and_walks_name_the_same_critical_transition() {
    let model = "tests/data/liveness/lcr_drop_max.ioa";
    for n in ["3", "4"] {
        let param = format!("n={n}");
        let dead = scratch("liveness-tests", &format!("exact-dead-{n}.json"));
        let lasso = scratch("liveness-tests", &format!("exact-lasso-{n}.json"));
        let (code, out, err) = ioa(&[
            "explore",
            model,
            "--param",
            &param,
            "--liveness",
            "LeaderElected",
            "--dead-trace",
            &dead.display().to_string(),
            "--trace",
            &lasso.display().to_string(),
        ]);
        assert_eq!(code, 1, "{out}{err}");
        let exact = critical(&out).expect("the exact check names a critical transition");
        assert_eq!(exact, "internal flush(0) in automaton LCRDropMax");
        for file in [&dead, &lasso] {
            let (code, _, err) = ioa(&["replay", &file.display().to_string()]);
            assert_eq!(code, 0, "replay {}: {err}", file.display());
        }
        for seed in ["1", "2", "3", "4", "5"] {
            let dir = scratch("liveness-tests", &format!("walks-{n}-{seed}"));
            let (code, out, err) = ioa(&[
                "liveness",
                model,
                "--param",
                &param,
                "--property",
                "LeaderElected",
                "--seed",
                seed,
                "--traces",
                &dir.display().to_string(),
            ]);
            assert_eq!(code, 1, "n={n} seed {seed}:\n{out}{err}");
            // The exact search from the state after the critical transition confirms it (or
            // the walk ended there with no action enabled).
            assert!(
                err.contains("violated: LeaderElected fails: state ")
                    && err.contains(" cannot reach the goal ("),
                "{err}"
            );
            assert!(out.contains("how sure: certain: "), "{out}");
            assert_eq!(
                critical(&out).as_deref(),
                Some(exact.as_str()),
                "n={n} seed {seed}:\n{out}"
            );
            for file in ["dead.itf.json", "live.itf.json"] {
                let path = dir.join(file).display().to_string();
                let (code, _, err) = ioa(&["replay", &path]);
                assert_eq!(code, 0, "replay {path}: {err}");
            }
        }
    }
}

/// Issue #40: walks biased towards the bug (`--weights flush=10`) recover from the state before
/// `flush(0)` with probability 1/11 only, so all ten recovery walks from it fail about 39% of the
/// time and the bisection used to blame an earlier step (the delivery of the maximum to process
/// 0, or "no walk recovers even from state 0"). Every dead verdict of the walks is now confirmed
/// by an exact search from that state, which finds the goal from the wrongly blamed states: the
/// critical transition is `flush(0)` for every seed, and the report says it is certain. Without
/// the exact search (`--confirm-states 0`) the old answer comes back, marked "not confirmed",
/// with the bound on how likely a live state would have fooled the walks.
#[test]
fn biased_walks_name_the_right_critical_transition_or_say_how_sure() {
    let model = "tests/data/liveness/lcr_drop_max.ioa";
    let common = [
        "liveness",
        model,
        "--param",
        "n=4",
        "--property",
        "LeaderElected",
        "--weights",
        "flush=10",
        "--quiet",
    ];
    for seed in ["1", "2", "3", "4", "5", "6"] {
        let mut args = common.to_vec();
        args.extend(["--seed", seed]);
        let (code, out, err) = ioa(&args);
        assert_eq!(code, 1, "seed {seed}:\n{out}{err}");
        assert_eq!(
            critical(&out).as_deref(),
            Some("internal flush(0) in automaton LCRDropMax"),
            "seed {seed}:\n{out}"
        );
        assert!(out.contains("how sure: certain: "), "seed {seed}:\n{out}");
    }
    // Seed 7 without the exact search: the walks blame the delivery of the maximum.
    let mut args = common.to_vec();
    args.extend(["--seed", "7", "--confirm-states", "0"]);
    let (code, out, err) = ioa(&args);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        critical(&out).as_deref(),
        Some("internal receive(3, 0, 3) in automaton LCRDropMax"),
        "{out}"
    );
    assert!(
        out.contains("how sure: not confirmed: ")
            && out.contains("were it live, a walk from it would reach the goal with probability under 26% (95% confidence)"),
        "{out}"
    );
    assert!(err.contains("not confirmed); not a proof"), "{err}");
}

#[test]
fn leads_to_bug_has_the_same_critical_transition_both_ways() {
    let model = "tests/data/liveness/request.ioa";
    let (code, out, err) = ioa(&["explore", model, "--liveness", "RequestsServed"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        critical(&out).as_deref(),
        Some("internal drop() in automaton Server")
    );
    for seed in ["1", "2", "3"] {
        let (code, walks, err) = ioa(&[
            "liveness",
            model,
            "--property",
            "RequestsServed",
            "--bfs-depth",
            "2",
            "--depth-max",
            "40",
            "--seed",
            seed,
        ]);
        assert_eq!(code, 1, "seed {seed}: {walks}{err}");
        assert_eq!(critical(&walks), critical(&out), "seed {seed}: {walks}");
    }
}

#[test]
fn fairness_excludes_a_starved_task_only_when_on() {
    let model = "tests/data/liveness/starve.ioa";
    let common = [
        "explore",
        model,
        "--automaton",
        "Starve",
        "--liveness",
        "Finishes",
    ];
    let (code, _, err) = ioa(&common);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("holds in all 4 states explored under task fairness")
            && err.contains("Starve {finish} enabled throughout and never taken"),
        "{err}"
    );
    let mut unfair = common.to_vec();
    unfair.push("--no-fairness");
    let trace = scratch("liveness-tests", "starve-unfair.json");
    let trace_arg = trace.display().to_string();
    unfair.extend(["--trace", &trace_arg]);
    let (code, out, err) = ioa(&unfair);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("back to state 0"), "{out}");
    let (code, _, err) = ioa(&["replay", &trace_arg]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_seed_gives_the_same_report() {
    let args = [
        "liveness",
        "tests/data/liveness/lcr_drop_max.ioa",
        "--param",
        "n=4",
        "--property",
        "LeaderElected",
        "--seed",
        "11",
        "--quiet",
    ];
    assert_eq!(ioa(&args), ioa(&args));
}

/// "Every initiated node eventually decides" holds exactly on the composite Paxos's small
/// instance (`examples/paxos/liveness.universe`: three nodes, one ballot, one value, node [2]
/// may crash, no loss or duplication): 257,948 states. Ignored in default runs: about a minute
/// in a release build, several in a debug one.
#[test]
#[ignore]
fn paxos_initiated_nodes_decide_holds_exactly() {
    let (code, _, stderr) = ioa(&[
        "explore",
        "examples/paxos/paxos_liveness.ioa",
        "--automaton",
        "PaxosQuiet",
        "--liveness",
        "InitiatedNodesDecide",
        "--universe-file",
        "examples/paxos/liveness.universe",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains(
            "holds: InitiatedNodesDecide holds in all 257,948 states explored under task fairness"
        ),
        "{stderr}"
    );
}
