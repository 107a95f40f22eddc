//! End-to-end tests of `ioa explore --memory-limit`: a visited set far over its budget spills
//! to disk and the search reports what the in-memory search reports.
//!
//! Every `tests/data/spill/cases/*.args` file holds `%` comments, then the arguments of `ioa
//! explore` (one per line). Each case is explored in memory and with `--memory-limit 1KiB`
//! (a budget of a few dozen states, so the visited set spills at every batch), both with
//! `--format json --trace FILE`: verdict, limit, distinct, generated and checked states, depth,
//! levels completed, deadlocks and the counterexample (the ITF file, byte for byte) must be
//! equal, spilling must have happened, and the spill directory must be left empty. The spilled
//! run's text report (`--quiet`: counts, counterexample and the spill line, no timing) is an
//! insta snapshot, which pins the numbers.

mod common;

use common::{ioa, labelled};

/// The memory budget of the spilled runs.
const TINY: &str = "1KiB";

fn json(stdout: &str, stderr: &str) -> serde_json::Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{stdout}\n{stderr}"))
}

/// The fields that must not depend on where the visited set lives.
fn outcome(report: &serde_json::Value) -> serde_json::Value {
    let keys = ["verdict", "limit", "invariant", "counterexample_steps"];
    keys.iter()
        .chain(&common::EXPLORE_COUNTS)
        .map(|k| (k.to_string(), report[*k].clone()))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

#[test]
fn a_spilled_search_reports_what_the_in_memory_one_does() {
    insta::glob!("data/spill/cases/*.args", |path: &std::path::Path| {
        let text = std::fs::read_to_string(path).expect("readable");
        let args: Vec<&str> = text.lines().filter(|l| !l.starts_with('%')).collect();
        let name = path.file_stem().and_then(|s| s.to_str()).expect("name");
        let dir = common::scratch("spill-tests", name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        let spill_dir = dir.join("spill");
        std::fs::create_dir_all(&spill_dir).expect("spill directory");

        let memory_trace = dir.join("memory.itf.json");
        let mut memory_args = vec!["explore"];
        memory_args.extend(&args);
        memory_args.extend(["--format", "json", "--trace"]);
        memory_args.push(memory_trace.to_str().expect("UTF-8"));
        let (memory_code, out, err) = ioa(&memory_args);
        let memory = json(&out, &err);
        assert!(memory["spill"].is_null(), "{memory}");

        let spilled_trace = dir.join("spilled.itf.json");
        let spill_args = [
            "--memory-limit",
            TINY,
            "--spill-dir",
            spill_dir.to_str().expect("UTF-8"),
        ];
        let mut spilled_args = vec!["explore"];
        spilled_args.extend(&args);
        spilled_args.extend(spill_args);
        spilled_args.extend(["--format", "json", "--trace"]);
        spilled_args.push(spilled_trace.to_str().expect("UTF-8"));
        let (spilled_code, out, err) = ioa(&spilled_args);
        let spilled = json(&out, &err);

        assert_eq!(spilled_code, memory_code, "{err}");
        assert_eq!(outcome(&spilled), outcome(&memory), "{name}");
        let spill = &spilled["spill"];
        assert!(spill["spills"].as_u64().unwrap_or(0) > 0, "{spill}");
        assert!(spill["states_on_disk"].as_u64().unwrap_or(0) > 0, "{spill}");
        assert!(spill["error"].is_null(), "{spill}");
        match (memory_trace.exists(), spilled_trace.exists()) {
            (true, true) => assert_eq!(
                std::fs::read_to_string(&spilled_trace).expect("trace"),
                std::fs::read_to_string(&memory_trace).expect("trace"),
                "{name}: the counterexamples differ"
            ),
            (false, false) => {}
            other => panic!("{name}: one search wrote a trace and the other not: {other:?}"),
        }
        let left: Vec<_> = std::fs::read_dir(&spill_dir).expect("listed").collect();
        assert!(left.is_empty(), "spill files left behind: {left:?}");

        let mut text_args = vec!["explore"];
        text_args.extend(&args);
        text_args.extend(spill_args);
        text_args.push("--quiet");
        let (code, stdout, stderr) = ioa(&text_args);
        insta::assert_snapshot!(labelled(code, &stdout, &stderr));
    });
}

/// A spill directory that cannot be made (here: inside a file) stops the search at the memory limit and says
/// why, instead of exploring on in memory.
#[test]
fn a_spill_directory_that_cannot_be_used_is_a_clear_stop() {
    let (code, stdout, stderr) = ioa(&[
        "explore",
        "examples/groove_paxos/paxos.ioa",
        "--param",
        "maj=2",
        "--memory-limit",
        TINY,
        "--spill-dir",
        "tests/data/spill/cases/high_2p3a.args/spill",
        "--quiet",
    ]);
    insta::assert_snapshot!(labelled(code, &stdout, &stderr));
}

/// Amounts of memory that are not amounts are usage errors.
#[test]
fn a_bad_memory_limit_is_a_usage_error() {
    let (code, _, stderr) = ioa(&[
        "explore",
        "examples/groove_paxos/paxos.ioa",
        "--param",
        "maj=2",
        "--memory-limit",
        "lots",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--memory-limit: `lots` is not an amount of memory (say 64MiB"),
        "{stderr}"
    );
}
