//! End-to-end tests of consequence prediction (`ioa predict`) and execution steering (`ioa run
//! --random --steer`) on the bundled examples: the `ioa` binary is started as a user would start
//! it, from the package root with relative paths.
//!
//! The cases are data: every `tests/data/predict/cases/*.case` file holds `% expect: exit N` on
//! its first line, `%` comments, then the arguments of `ioa`, one per line. Its output is
//! recorded as an insta snapshot, and besides:
//! - `% pin: TEXT` lines name text the output must contain (the numbers that matter: states,
//!   transitions, violations, runs avoided), so a changed count fails with its line named;
//! - `% replay: exit N` says that the trace the case writes (the argument after `--trace`) is
//!   given to `ioa replay`, which must exit with N (1: it re-executes to the same violation).
//!
//! `$TMP` in an argument is this group's scratch directory, where the test first records the
//! runs the cases start from: `last_promise_wins.json` (the planted Paxos bug's
//! `LastPromiseWins` schedule) and `round1.json` (its `CrystalBallRound1` schedule under
//! `examples/paxos/steer.universe`). Every random choice comes from the seed a case gives.

mod common;

use common::{Case, Outcome};
use std::path::Path;

/// The group of these tests' scratch directories (written `$TMP` in their output).
const GROUP: &str = "predict-tests";

/// Runs `ioa ARGS… --color never` in the package root. Temporary paths become `$TMP`.
fn ioa(args: &[String]) -> Outcome {
    let mut all = args.to_vec();
    all.extend(["--color".to_string(), "never".to_string()]);
    common::ioa_in(GROUP, &all)
}

/// Records the runs the cases start from (the schedules stop where their invariant breaks, so
/// `ioa run` exits 1 for `LastPromiseWins`; the trace is written all the same).
fn record_runs(tmp: &Path) {
    let runs = [
        ("LastPromiseWins", None, "last_promise_wins.json", 1),
        (
            "CrystalBallRound1",
            Some("examples/paxos/steer.universe"),
            "round1.json",
            0,
        ),
    ];
    for (schedule, universe, file, exit) in runs {
        let trace = tmp.join(file).display().to_string();
        let mut args: Vec<String> = ["run", "examples/paxos/paxos_planted_bug.ioa"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.extend(["--schedule".into(), schedule.into(), "--quiet".into()]);
        args.extend(["--trace".into(), trace]);
        if let Some(u) = universe {
            args.extend(["--universe-file".into(), u.into()]);
        }
        let o = ioa(&args);
        assert_eq!(o.code, exit, "recording {schedule}:\n{}", o.both());
    }
}

/// The lines of a case file that start with `% KEY: `, without the prefix.
fn case_lines<'c>(case: &'c Case, key: &str) -> Vec<&'c str> {
    let prefix = format!("% {key}: ");
    case.text
        .lines()
        .filter_map(|l| l.strip_prefix(prefix.as_str()))
        .collect()
}

#[test]
fn prediction_and_steering_cases() {
    let tmp = common::scratch_dir(GROUP, "cases");
    record_runs(&tmp);
    let tmp_text = tmp.display().to_string();
    insta::glob!("data/predict/cases/*.case", |path| {
        let case = Case::read(path);
        let args: Vec<String> = case
            .args
            .iter()
            .map(|a| a.replace("$TMP", &tmp_text))
            .collect();
        let o = ioa(&args);
        let both = o.both();
        assert_eq!(o.code, case.exit, "{}:\n{both}", path.display());
        for pin in case_lines(&case, "pin") {
            assert!(
                both.contains(pin),
                "{}: no `{pin}` in\n{both}",
                path.display()
            );
        }
        if let Some(expected) = case_lines(&case, "replay").first() {
            let at = args.iter().position(|a| a == "--trace").expect("--trace");
            let replayed = ioa(&["replay".to_string(), args[at + 1].clone()]);
            let code = expected.trim_start_matches("exit ").parse::<i32>();
            assert_eq!(
                Ok(replayed.code),
                code,
                "{}:\n{}",
                path.display(),
                replayed.both()
            );
        }
        if case.exit == 2 {
            assert!(o.stderr.contains("error"), "{}:\n{both}", path.display());
        }
        insta::with_settings!({ description => case.text.trim_end(), omit_expression => true }, {
            insta::assert_snapshot!(both);
        });
    });
}
