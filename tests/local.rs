//! Local model checking against the global explorer: on small instances (LCR on rings of 3 and
//! 4, correct and with planted bugs), `ioa explore --local` finds a violation exactly when the
//! global explorer does (LMC's completeness on these networks), says "verified" exactly when the
//! global explorer does, and every run it reports is accepted by `ioa replay` up to the same
//! kind of violation (its soundness). Where the invariants read no outbox, the local search
//! fires sends eagerly (`checker/src/local/eager.rs`): those cases check that it did, and that
//! with `--no-eager-sends` the verdict is the same. The LMC Paxos with quorums lowered to one
//! node violates Agreement with two proposals: LMC confirms it and its run replays (the global
//! explorer's side of that comparison needs a release build: an ignored test).

mod common;

use common::{ioa, scratch};
use std::path::Path;

/// The models, the invariants to check (empty: all of them), and whether eager sends apply
/// (they do not when an invariant reads the outbox `send`: SendHoldsOwnOrMax, QueueAboveOwnUid).
const CASES: &[(&str, &[&str], bool)] = &[
    ("examples/lcr/lcr.ioa", &[], false),
    (
        "examples/lcr/lcr.ioa",
        &["OnlyMaxChosen", "AtMostOneLeader", "LeaderHasMaxUid"],
        true,
    ),
    ("tests/data/local/lcr_smaller_elects.ioa", &[], false),
    (
        "tests/data/local/lcr_smaller_elects.ioa",
        &["AtMostOneLeader", "LeaderHasMaxUid"],
        true,
    ),
    ("tests/data/local/lcr_forward_all.ioa", &[], false),
    (
        "tests/data/local/lcr_forward_all.ioa",
        &["AtMostOneLeader"],
        true,
    ),
];

#[test]
fn local_and_global_agree_and_local_runs_replay() {
    for &(model, invariants, eager) in CASES {
        for n in ["3", "4"] {
            // The deep bug on a ring of 4 takes half a minute in a debug build; ring 3 shows it.
            if model.ends_with("forward_all.ioa") && !invariants.is_empty() && n == "4" {
                continue;
            }
            let param = format!("n={n}");
            let mut common = vec![model, "--automaton", "LCR", "--param", &param];
            for inv in invariants {
                common.extend(["--invariant", inv]);
            }
            let what = format!("{model} n={n} {invariants:?}");
            let mut global = vec!["explore"];
            global.extend(&common);
            global.push("--quiet");
            let (g_code, _, g_err) = ioa(&global);
            let trace = scratch(
                "local-tests",
                &format!(
                    "{}-{n}-{}.json",
                    Path::new(model).file_stem().unwrap().to_string_lossy(),
                    invariants.len()
                ),
            );
            let trace_arg = trace.display().to_string();
            let mut local = global.clone();
            local.extend(["--local", "--trace", &trace_arg]);
            // LCR's QueueHoldsOwnOrMax reads the channels: without the flag the local run is
            // incomplete (exit 3).
            if invariants.is_empty() {
                local.push("--skip-network-invariants");
            }
            let (l_code, _, l_err) = ioa(&local);
            assert_eq!(g_code, l_code, "{what}: global\n{g_err}\nlocal\n{l_err}");
            assert_eq!(
                l_err.contains("eager sends: on"),
                eager,
                "{what}: eager sends\n{l_err}"
            );
            if eager {
                let mut plain = global.clone();
                plain.extend(["--local", "--no-eager-sends"]);
                let (p_code, _, p_err) = ioa(&plain);
                assert_eq!(p_code, l_code, "{what}: --no-eager-sends\n{p_err}");
            }
            match l_code {
                0 => {
                    assert!(g_err.starts_with("verified"), "{what}: {g_err}");
                    assert!(
                        l_err.contains("\nverified:") || l_err.starts_with("verified:"),
                        "{what}: {l_err}"
                    );
                }
                1 => {
                    assert!(l_err.contains("confirmed violation"), "{what}: {l_err}");
                    let (r_code, _, r_err) = ioa(&["replay", &trace_arg]);
                    assert_eq!(r_code, 1, "{what}: replay\n{r_err}");
                    assert!(r_err.starts_with("error[E0521]"), "{what}: {r_err}");
                }
                other => panic!("{what}: exit {other}\n{l_err}"),
            }
        }
    }
}

/// The LMC Paxos with quorums of one node (`tests/data/local/lmc_paxos_low_majority.ioa`) and
/// two proposals violates Agreement: LMC confirms a violation and the run it prints replays to
/// the same violation (E0521). The global explorer needs a release build and two minutes to
/// reach the violation's depth (18 steps), so the comparison is the ignored test below.
#[test]
fn low_majority_paxos_violation_is_confirmed_and_replays() {
    let (err, replayed) = low_majority_run("low-majority-local.json", &["--local"]);
    assert!(err.contains("confirmed violation"), "{err}");
    assert!(err.contains("eager sends: on"), "{err}");
    assert!(
        replayed.starts_with("error[E0521]: invariant `Agreement` is violated"),
        "{replayed}"
    );
}

/// The global explorer finds the low-majority violation too, at the same depth as the run LMC
/// confirms (both 18 steps: breadth-first search finds a shortest one, and LMC's run is one).
/// Ignored: 137 s in a release build at load 7 (244,559 states, 2,142,164 transitions; LMC: 5,084
/// transitions, 4.3 s in a debug build). `cargo test --release --test local -- --ignored`.
#[test]
#[ignore]
fn low_majority_paxos_violation_is_found_by_global_search_too() {
    let (_, replayed) = low_majority_run("low-majority-global.json", &["--quiet"]);
    assert!(replayed.contains("is violated after step 18"), "{replayed}");
}

/// `ioa explore` (with `extra` options) on the Paxos with quorums of one node and two
/// proposals, which must find a violation; its trace is replayed, which must fail too. Returns
/// the two standard errors.
fn low_majority_run(trace_name: &str, extra: &[&str]) -> (String, String) {
    let trace = scratch("local-tests", trace_name);
    let trace_arg = trace.display().to_string();
    let mut args = vec![
        "explore",
        "tests/data/local/lmc_paxos_low_majority.ioa",
        "--automaton",
        "LmcPaxos",
        "--param",
        "proposers=2",
        "--trace",
        &trace_arg,
    ];
    args.extend(extra);
    let (code, _, err) = ioa(&args);
    assert_eq!(code, 1, "{err}");
    let (r_code, _, r_err) = ioa(&["replay", &trace_arg]);
    assert_eq!(r_code, 1, "{r_err}");
    (err, r_err)
}

/// Models that exposed wrong local verdicts (issue: LMC said "verified" where global
/// exploration finds a violation): a duplicated ping on a network that keeps messages, an
/// alternating-bit receiver that takes a resent frame twice (two copies of one frame on the
/// channel), and a two-phase commit whose coordinator sits beside the participants' family (the
/// invariant reads both; a vote from outside the family needs the network's own action). Each
/// runs correct and with its planted bug; local and global exploration must agree, and every
/// local run must replay to the same violation.
const ELSEWHERE: &[(&str, &str, &[&str])] = &[
    (
        "tests/data/elsewhere/ping_echo_dup.ioa",
        "PingEcho",
        &["--param", "fixed=true"],
    ),
    (
        "tests/data/elsewhere/ping_echo_dup.ioa",
        "PingEcho",
        &["--param", "fixed=false"],
    ),
    (
        "tests/data/elsewhere/abp_retransmit.ioa",
        "ABP",
        &["--param", "fixed=true", "--universe", "Int = 0..2"],
    ),
    (
        "tests/data/elsewhere/abp_retransmit.ioa",
        "ABP",
        &["--param", "fixed=false", "--universe", "Int = 0..2"],
    ),
    (
        "tests/data/elsewhere/tpc_coordinator.ioa",
        "TPC",
        &[
            "--param",
            "n=2",
            "--param",
            "fixed=true",
            "--universe",
            "Int = 0..2",
        ],
    ),
    (
        "tests/data/elsewhere/tpc_coordinator.ioa",
        "TPC",
        &[
            "--param",
            "n=2",
            "--param",
            "fixed=false",
            "--universe",
            "Int = 0..2",
        ],
    ),
];

#[test]
fn local_verdicts_on_duplicates_and_coordinators_match_global() {
    let mut seen = Vec::new();
    for (k, &(model, automaton, extra)) in ELSEWHERE.iter().enumerate() {
        let mut global = vec!["explore", model, "--automaton", automaton, "--quiet"];
        global.extend(extra);
        let (g_code, _, g_err) = ioa(&global);
        let trace = scratch("local-tests", &format!("elsewhere-{k}.json"));
        let trace_arg = trace.display().to_string();
        let mut local = global.clone();
        local.extend(["--local", "--trace", &trace_arg]);
        let (l_code, _, l_err) = ioa(&local);
        let what = format!("{model} {extra:?}");
        assert_eq!(g_code, l_code, "{what}: global\n{g_err}\nlocal\n{l_err}");
        if l_code == 1 {
            let (r_code, _, r_err) = ioa(&["replay", &trace_arg]);
            assert_eq!(r_code, 1, "{what}: replay\n{r_err}");
            assert!(r_err.starts_with("error[E0521]"), "{what}: {r_err}");
        }
        seen.push(format!("{what}: exit {l_code}"));
    }
    insta::assert_snapshot!(seen.join("\n"));
}

/// An invariant that reads only network state leaves local model checking nothing to check: it
/// refuses (exit 2) instead of answering; `--network` can name the network instead.
#[test]
fn nothing_to_check_is_refused_and_network_can_be_named() {
    let (code, _, err) = ioa(&[
        "explore",
        "examples/lcr/lcr.ioa",
        "--automaton",
        "LCR",
        "--param",
        "n=3",
        "--local",
        "--invariant",
        "QueueHoldsOwnOrMax",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("reads the network component `C`"), "{err}");
    let (code, _, err) = ioa(&[
        "explore",
        "tests/data/elsewhere/tpc_coordinator.ioa",
        "--automaton",
        "TPC",
        "--param",
        "n=2",
        "--param",
        "fixed=true",
        "--universe",
        "Int = 0..2",
        "--local",
        "--network",
        "P,N",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nothing to check"), "{err}");
    let (code, _, err) = ioa(&[
        "explore",
        "tests/data/elsewhere/tpc_coordinator.ioa",
        "--automaton",
        "TPC",
        "--param",
        "n=2",
        "--param",
        "fixed=true",
        "--universe",
        "Int = 0..2",
        "--local",
        "--network",
        "Q",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("E0704"), "{err}");
    assert!(!err.contains("Span {"), "{err}");
}
