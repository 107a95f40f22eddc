//! Models of classic distributed algorithms written from their textbook descriptions (issue
//! #40), under `tests/data/elsewhere/`: each a composite of node automata and network or channel
//! automata, correct or with a planted bug that its header comment describes. The table
//! [`CASES`] says, per model (and per choice of invariants), what every command must answer:
//!
//! - `ioa check` and `ioa fmt --check`: clean;
//! - `ioa run --random` (10 runs of 60 steps, seed 0): finds the planted safety bugs, not a
//!   violation in the correct models;
//! - `ioa explore` (global): verified or violated, with the state counts and counterexample
//!   lengths pinned in an insta snapshot of a short summary;
//! - `ioa explore --local` (LMC): **the same verdict as the global explorer**. LMC must never
//!   say "verified" (exit 0) where global exploration finds a violation, and on the correct
//!   models both say verified. Where LMC's local spaces are infinite ([`Case::lmc_unbounded`]),
//!   it must stop at its limit with exit 3 and never give a verdict;
//! - `ioa prove` where the invariants are meant to be inductive (the proved count pinned);
//! - `ioa pair` on the models' forward simulations;
//! - `ioa explore --liveness` and `ioa liveness` on their liveness properties;
//! - every trace written with `--trace` (or `--dead-trace`, `--traces`) is accepted by `ioa
//!   replay`: it re-executes every step, ending in the same invariant violation when it records
//!   one.

mod common;

use common::{ioa, scratch};
use std::path::Path;

/// What a command should conclude.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Exit 0: verified, proved, holds.
    Holds,
    /// Exit 1: a violation (of an invariant, a simulation, a liveness property).
    Violated,
}

use Verdict::{Holds, Violated};

impl Verdict {
    fn exit(self) -> i32 {
        match self {
            Holds => 0,
            Violated => 1,
        }
    }
}

/// One model with one choice of invariants, and what every command should say about it.
struct Case {
    /// A short name (the known-failure tests and the snapshot use it).
    name: &'static str,
    /// The model, under `tests/data/elsewhere/`.
    file: &'static str,
    /// The composite to run.
    automaton: &'static str,
    /// `--param` values.
    params: &'static [&'static str],
    /// `--invariant` selections (none: every invariant of the automaton).
    invariants: &'static [&'static str],
    /// The global explorer's verdict, which LMC must give too.
    verdict: Verdict,
    /// Why LMC cannot finish on this case (its local state spaces are infinite where the
    /// global one is not): it is then run under a time limit and must stop with exit 3, never
    /// with a verdict.
    lmc_unbounded: Option<&'static str>,
    /// What `ioa run --random --runs 10 --steps 60 --seed 0` finds (None: not run for this
    /// choice of invariants).
    random: Option<Verdict>,
    /// The number of obligations `ioa prove` must prove, all of them.
    prove: Option<u32>,
    /// Liveness properties and the exact check's verdict.
    liveness: &'static [(&'static str, Verdict)],
}

const CASES: &[Case] = &[
    Case {
        name: "abp",
        file: "abp.ioa",
        automaton: "ABP",
        params: &["k=2"],
        invariants: &[],
        verdict: Holds,
        lmc_unbounded: None,
        random: Some(Holds),
        prove: None,
        liveness: &[],
    },
    Case {
        name: "abp_double_deliver",
        file: "abp_double_deliver.ioa",
        automaton: "ABPDoubleDeliver",
        params: &["k=2"],
        invariants: &[],
        verdict: Violated,
        lmc_unbounded: None,
        random: Some(Violated),
        prove: None,
        liveness: &[],
    },
    Case {
        name: "two_phase_commit",
        file: "two_phase_commit.ioa",
        automaton: "TwoPhaseCommit",
        params: &["n=2"],
        invariants: &[],
        verdict: Holds,
        lmc_unbounded: None,
        random: Some(Holds),
        prove: Some(90),
        liveness: &[("AllDecide", Holds)],
    },
    Case {
        name: "two_phase_commit_bug_tm",
        file: "two_phase_commit_bug.ioa",
        automaton: "TwoPhaseCommitBug",
        params: &["n=2"],
        invariants: &["TMCommitsOnAllYes"],
        verdict: Violated,
        lmc_unbounded: None,
        random: Some(Violated),
        prove: None,
        liveness: &[],
    },
    Case {
        name: "two_phase_commit_bug_agreement",
        file: "two_phase_commit_bug.ioa",
        automaton: "TwoPhaseCommitBug",
        params: &["n=2"],
        invariants: &["Agreement"],
        verdict: Violated,
        lmc_unbounded: None,
        random: None,
        prove: None,
        liveness: &[],
    },
    Case {
        name: "ping_echo",
        file: "ping_echo.ioa",
        automaton: "PingEcho",
        params: &["k=1"],
        invariants: &[],
        verdict: Holds,
        lmc_unbounded: None,
        random: Some(Holds),
        prove: Some(66),
        liveness: &[("FirstEchoHeard", Holds)],
    },
    Case {
        name: "ping_echo_bug",
        file: "ping_echo_bug.ioa",
        automaton: "PingEchoBug",
        params: &["k=1"],
        invariants: &[],
        verdict: Violated,
        lmc_unbounded: None,
        random: Some(Violated),
        prove: None,
        liveness: &[],
    },
    Case {
        name: "chandy_lamport",
        file: "chandy_lamport.ioa",
        automaton: "ChandyLamport",
        params: &[],
        invariants: &[],
        verdict: Holds,
        lmc_unbounded: Some("a process may receive any number of tokens along its own path (the real system conserves two), so its local space has no end"),
        random: Some(Holds),
        prove: Some(90),
        liveness: &[("SnapshotCompletes", Holds), ("SnapshotStarts", Holds)],
    },
    Case {
        name: "chandy_lamport_bug",
        file: "chandy_lamport_bug.ioa",
        automaton: "ChandyLamportBug",
        params: &[],
        invariants: &[],
        verdict: Violated,
        lmc_unbounded: None,
        random: Some(Violated),
        prove: None,
        liveness: &[],
    },
    Case {
        name: "chandy_lamport_bug_snapshot",
        file: "chandy_lamport_bug.ioa",
        automaton: "ChandyLamportBug",
        params: &[],
        invariants: &["SnapshotTotal"],
        verdict: Violated,
        lmc_unbounded: None,
        random: None,
        prove: None,
        liveness: &[],
    },
    Case {
        name: "lcr_n3",
        file: "lcr.ioa",
        automaton: "LCRRing",
        params: &["n=3"],
        invariants: &[],
        verdict: Holds,
        lmc_unbounded: None,
        random: Some(Holds),
        prove: None,
        liveness: &[("LeaderElected", Holds)],
    },
    Case {
        name: "lcr_n4",
        file: "lcr.ioa",
        automaton: "LCRRing",
        params: &["n=4"],
        invariants: &[],
        verdict: Holds,
        lmc_unbounded: None,
        random: None,
        prove: None,
        liveness: &[("LeaderElected", Holds)],
    },
    Case {
        name: "lcr_drop_max_n3",
        file: "lcr_drop_max.ioa",
        automaton: "LCRDropMax",
        params: &["n=3"],
        invariants: &[],
        verdict: Holds,
        lmc_unbounded: None,
        random: Some(Holds),
        prove: None,
        liveness: &[("LeaderElected", Violated)],
    },
    Case {
        name: "lcr_drop_max_n4",
        file: "lcr_drop_max.ioa",
        automaton: "LCRDropMax",
        params: &["n=4"],
        invariants: &[],
        verdict: Holds,
        lmc_unbounded: None,
        random: None,
        prove: None,
        liveness: &[("LeaderElected", Violated)],
    },
    Case {
        name: "floodmax",
        file: "floodmax.ioa",
        automaton: "FloodMax",
        params: &[],
        invariants: &[],
        verdict: Holds,
        lmc_unbounded: None,
        random: Some(Holds),
        prove: Some(20),
        liveness: &[("AllKnowMax", Holds)],
    },
    Case {
        name: "floodmax_bug",
        file: "floodmax_bug.ioa",
        automaton: "FloodMaxBug",
        params: &[],
        invariants: &[],
        verdict: Violated,
        lmc_unbounded: None,
        random: Some(Violated),
        prove: None,
        liveness: &[],
    },
    Case {
        name: "floodmax_bug_max_kept",
        file: "floodmax_bug.ioa",
        automaton: "FloodMaxBug",
        params: &[],
        invariants: &["MaxKept"],
        verdict: Violated,
        lmc_unbounded: None,
        random: None,
        prove: None,
        liveness: &[],
    },
    Case {
        name: "token_ring",
        file: "token_ring.ioa",
        automaton: "TokenRing",
        params: &["n=3"],
        invariants: &[],
        verdict: Holds,
        lmc_unbounded: None,
        random: Some(Holds),
        prove: Some(40),
        liveness: &[("Served", Holds)],
    },
    Case {
        name: "token_ring_bug",
        file: "token_ring_bug.ioa",
        automaton: "TokenRingBug",
        params: &["n=3"],
        invariants: &[],
        verdict: Violated,
        lmc_unbounded: None,
        random: Some(Violated),
        prove: None,
        liveness: &[],
    },
    Case {
        name: "token_ring_bug_mutex",
        file: "token_ring_bug.ioa",
        automaton: "TokenRingBug",
        params: &["n=3"],
        invariants: &["MutualExclusion"],
        verdict: Violated,
        lmc_unbounded: None,
        random: None,
        prove: None,
        liveness: &[],
    },
];

/// The forward simulations: file, `--param`, and whether 20 random paired runs pass.
const PAIRS: &[(&str, &str, Verdict)] = &[
    ("abp_to_stream.ioa", "k=2", Holds),
    ("abp_double_deliver_to_stream.ioa", "k=2", Violated),
    ("lcr_elects.ioa", "n=3", Holds),
    ("lcr_elects.ioa", "n=4", Holds),
];

const DIR: &str = "tests/data/elsewhere";

fn path(file: &str) -> String {
    format!("{DIR}/{file}")
}

impl Case {
    /// The model, automaton, parameters and invariants as arguments.
    fn model_args(&self) -> Vec<String> {
        let mut args = vec![path(self.file), "--automaton".into(), self.automaton.into()];
        for p in self.params {
            args.extend(["--param".into(), p.to_string()]);
        }
        for i in self.invariants {
            args.extend(["--invariant".into(), i.to_string()]);
        }
        args
    }

    /// The model without the invariant selection (for commands that take none).
    fn model_only(&self) -> Vec<String> {
        let mut args = vec![path(self.file), "--automaton".into(), self.automaton.into()];
        for p in self.params {
            args.extend(["--param".into(), p.to_string()]);
        }
        args
    }
}

fn run(args: &[String]) -> (i32, String, String) {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    ioa(&refs)
}

/// A trace file for `what` of `case`, emptied first.
fn trace_file(case: &str, what: &str) -> String {
    let file = scratch("elsewhere-tests", &format!("{case}-{what}.json"));
    let _ = std::fs::remove_file(&file);
    file.display().to_string()
}

/// `ioa replay FILE` accepts the trace: it re-executes every step, and either nothing fails
/// or the trace ends in the invariant violation it records (E0521), as `expect_violation` says.
fn assert_replays(file: &str, expect_violation: bool, what: &str) {
    let (code, _, err) = ioa(&["replay", file]);
    if expect_violation {
        assert_eq!(code, 1, "{what}: replay {file}:\n{err}");
        assert!(
            err.starts_with("error[E0521]"),
            "{what}: replay {file} should end in the recorded violation:\n{err}"
        );
    } else {
        assert_eq!(code, 0, "{what}: replay {file}:\n{err}");
    }
}

#[test]
fn every_model_checks_clean_and_is_formatted() {
    let mut models = 0;
    let mut files: Vec<String> = std::fs::read_dir(DIR)
        .expect("the models' folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".ioa"))
        .collect();
    files.sort();
    for file in &files {
        let p = path(file);
        let (code, _, err) = ioa(&["check", &p]);
        assert_eq!(code, 0, "{p}:\n{err}");
        let (code, _, err) = ioa(&["fmt", "--check", &p]);
        assert_eq!(code, 0, "{p} is not in ioa fmt's canonical form:\n{err}");
        let text = std::fs::read_to_string(Path::new(common::ROOT).join(&p)).expect("read");
        assert!(text.starts_with("% "), "{p}: no header comment");
        if !text.contains("\nforward simulation ") {
            models += 1;
            let variants =
                std::fs::read_to_string(Path::new(common::ROOT).join("tests/textbook_variants.rs"))
                    .expect("tests/textbook_variants.rs");
            assert!(
                CASES.iter().any(|c| c.file == file) || variants.contains(&format!("\"{file}\"")),
                "{p} has no case in the table (nor in tests/textbook_variants.rs)"
            );
        }
    }
    assert!(models >= 12, "only {models} models");
    for case in CASES {
        assert!(files.iter().any(|f| f == case.file), "{}", case.file);
    }
}

#[test]
fn random_runs_find_the_planted_bugs_only() {
    for case in CASES {
        let Some(expected) = case.random else {
            continue;
        };
        let trace = trace_file(case.name, "random");
        let mut args = vec!["run".to_string()];
        args.extend(case.model_only());
        args.extend(
            [
                "--random", "--runs", "10", "--steps", "60", "--seed", "0", "--trace", &trace,
            ]
            .map(String::from),
        );
        let (code, out, err) = run(&args);
        assert_eq!(code, expected.exit(), "{}:\n{out}{err}", case.name);
        if expected == Violated {
            assert_replays(&trace, true, case.name);
        }
    }
}

/// The summary line of a global exploration: its verdict and counts.
fn global_summary(case: &Case, code: i32, err: &str) -> String {
    let line = |prefix: &str| {
        err.lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("{}: no `{prefix}` line:\n{err}", case.name))
            .to_string()
    };
    if code == 0 {
        line("verified:")
    } else {
        let violated = line("error[E0521]: ");
        let invariant = violated
            .split('`')
            .nth(1)
            .unwrap_or_else(|| panic!("{violated}"));
        format!(
            "violated: `{invariant}`; {}",
            line("shortest counterexample:")
        )
    }
}

#[test]
fn global_exploration_verdicts_and_counts() {
    let mut summary = String::new();
    for case in CASES {
        let trace = trace_file(case.name, "global");
        let mut args = vec!["explore".to_string()];
        args.extend(case.model_args());
        args.extend(["--threads", "1", "--quiet", "--trace", &trace].map(String::from));
        let (code, out, err) = run(&args);
        assert_eq!(code, case.verdict.exit(), "{}:\n{out}{err}", case.name);
        summary.push_str(&format!(
            "{} ({} {}{}{}): {}\n",
            case.name,
            case.file,
            case.automaton,
            if case.params.is_empty() {
                String::new()
            } else {
                format!(" {}", case.params.join(" "))
            },
            if case.invariants.is_empty() {
                String::new()
            } else {
                format!(" --invariant {}", case.invariants.join(","))
            },
            global_summary(case, code, &err)
        ));
        if case.verdict == Violated {
            assert_replays(&trace, true, case.name);
        }
    }
    insta::assert_snapshot!(summary);
}

/// `ioa explore --local` on `case` must give the global explorer's verdict, and the run it
/// confirms must replay to the same kind of violation.
fn check_local(case: &Case) {
    let trace = trace_file(case.name, "local");
    let mut args = vec!["explore".to_string()];
    args.extend(case.model_args());
    args.extend(["--local", "--quiet", "--trace", &trace].map(String::from));
    // Invariants over network state cannot be checked locally: for a correct model, the ones
    // over nodes must be verified (the others are global exploration's).
    if case.verdict == Holds {
        args.push("--skip-network-invariants".to_string());
    }
    if let Some(why) = case.lmc_unbounded {
        // A state limit stops it too (it once was not passed to LMC at all).
        let mut capped = args.clone();
        capped.extend(["--max-states", "200"].map(String::from));
        let (code, out, err) = run(&capped);
        assert_eq!(
            code, 3,
            "{} ({why}): --max-states must stop LMC:\n{out}{err}",
            case.name
        );
        assert!(
            err.contains("stopped at the state limit (200 local states)"),
            "{}: {err}",
            case.name
        );
        args.extend(["--time-limit", "3s"].map(String::from));
        let (code, out, err) = run(&args);
        assert_eq!(
            code, 3,
            "{} ({why}): LMC must stop at its limit:\n{out}{err}",
            case.name
        );
        assert!(
            err.contains("stopped at the time limit"),
            "{}: {err}",
            case.name
        );
        return;
    }
    let (code, out, err) = run(&args);
    assert_eq!(
        code,
        case.verdict.exit(),
        "{}: LMC's verdict is not the global explorer's ({:?}):\n{out}{err}",
        case.name,
        case.verdict
    );
    match case.verdict {
        Holds => assert!(
            err.contains("verified") || err.contains("no invariant to check"),
            "{}: {err}",
            case.name
        ),
        Violated => {
            assert!(err.contains("confirmed violation"), "{}: {err}", case.name);
            assert_replays(&trace, true, case.name);
        }
    }
}

#[test]
fn local_model_checking_agrees_with_global() {
    for case in CASES {
        check_local(case);
    }
}

#[test]
fn proofs_of_the_inductive_invariants() {
    for case in CASES {
        let Some(n) = case.prove else { continue };
        let (code, out, err) = ioa(&["prove", &path(case.file)]);
        assert_eq!(code, 0, "{}:\n{out}{err}", case.name);
        let line = format!("{n} obligation(s): {n} proved, 0 failed");
        assert!(
            out.contains(&line) || err.contains(&line),
            "{}: expected `{line}`:\n{out}{err}",
            case.name
        );
    }
}

#[test]
fn paired_execution_of_the_simulations() {
    for &(file, param, expected) in PAIRS {
        let what = format!("{file} {param}");
        let trace = trace_file(&file.replace(".ioa", ""), &format!("pair-{param}"));
        let p = path(file);
        let (code, out, err) = ioa(&[
            "pair", &p, "--random", "--runs", "20", "--steps", "60", "--seed", "0", "--param",
            param, "--trace", &trace,
        ]);
        assert_eq!(code, expected.exit(), "{what}:\n{out}{err}");
        if expected == Violated {
            // The implementation's run, shrunk: the double delivery also breaks InOrder.
            assert_replays(&trace, true, &what);
        }
    }
}

#[test]
fn liveness_exact_and_walks() {
    let mut summary = String::new();
    for case in CASES {
        for &(property, expected) in case.liveness {
            let what = format!("{} {property}", case.name);
            let lasso = trace_file(case.name, &format!("{property}-lasso"));
            let dead = trace_file(case.name, &format!("{property}-dead"));
            let mut args = vec!["explore".to_string()];
            args.extend(case.model_only());
            args.extend(
                [
                    "--liveness",
                    property,
                    "--quiet",
                    "--trace",
                    &lasso,
                    "--dead-trace",
                    &dead,
                ]
                .map(String::from),
            );
            let (code, out, err) = run(&args);
            assert_eq!(code, expected.exit(), "{what}:\n{out}{err}");
            let verdict = err
                .lines()
                .find(|l| l.starts_with("holds:") || l.starts_with("violated:"))
                .unwrap_or_else(|| panic!("{what}: no verdict:\n{err}"));
            summary.push_str(&format!("{what}: {verdict}\n"));
            for file in [&lasso, &dead] {
                if Path::new(file).exists() {
                    assert_replays(file, false, &what);
                }
            }
            if expected == Violated {
                // The walks find the dead path too, and the exact search confirms the
                // critical transition they place.
                let dir = scratch(
                    "elsewhere-tests",
                    &format!("{}-{property}-walks", case.name),
                );
                let dir_arg = dir.display().to_string();
                let mut args = vec!["liveness".to_string()];
                args.extend(case.model_only());
                args.extend(
                    [
                        "--property",
                        property,
                        "--seed",
                        "1",
                        "--quiet",
                        "--traces",
                        &dir_arg,
                    ]
                    .map(String::from),
                );
                let (code, out, err) = run(&args);
                assert_eq!(code, 1, "{what} walks:\n{out}{err}");
                assert!(out.contains("how sure: certain: "), "{what}:\n{out}");
                for file in ["dead.itf.json", "live.itf.json"] {
                    assert_replays(&dir.join(file).display().to_string(), false, &what);
                }
            }
        }
    }
    insta::assert_snapshot!(summary);
}

/// Issue #40: on the Chandy–Lamport snapshot, `ioa explore --liveness` counts fewer states than
/// `ioa explore`, because it does not expand the goal states of `eventually`; the report says
/// how many goal states there are and that the states past them are not explored.
#[test]
fn liveness_state_counts_say_what_they_count() {
    let model = path("chandy_lamport.ioa");
    let common = [model.as_str(), "--automaton", "ChandyLamport", "--quiet"];
    let mut plain = vec!["explore"];
    plain.extend(common);
    let (code, _, err) = ioa(&plain);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("in all 582 reachable states"), "{err}");
    let mut live = vec!["explore"];
    live.extend(common);
    live.extend(["--liveness", "SnapshotStarts"]);
    let (code, _, err) = ioa(&live);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("holds in all 30 states explored under task fairness (10 states on the way to the goal; 20 goal states, not expanded: states reachable only past the goal are not explored, so `ioa explore` may count more"),
        "{err}"
    );
    // JSON says the same.
    live.extend(["--format", "json"]);
    let (_, out, _) = ioa(&live);
    let json: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(json["states"], 30);
    assert_eq!(json["goal_states"], 20);
    assert_eq!(json["goal_states_expanded"], false);
}
