//! End-to-end tests of seed-sharded campaigns: `--shard I/N --report FILE` on `ioa run --random`,
//! `ioa pair --random` and `ioa liveness`, and `ioa merge`.
//!
//! Every `tests/data/campaign/*.args` file holds `%` comments, then the arguments of one
//! campaign (one per line). The campaign is run whole with `--report`, then as 3 shards, and the
//! shards' reports are merged: the merged report must equal the whole one byte for byte. The
//! merged report's verdict, first failure and totals are an insta snapshot (they pin the run
//! and seed of the first failure and the step counts).

mod common;

use std::path::{Path, PathBuf};

/// The group of these tests' scratch directories.
const GROUP: &str = "campaign-tests";

/// Runs `ioa ARGS…`; returns the exit code and standard error.
fn ioa(args: &[&str]) -> (i32, String) {
    let o = common::ioa_in(GROUP, args);
    (o.code, o.stderr)
}

/// A directory for one campaign's reports, emptied first.
fn scratch(case: &str) -> PathBuf {
    common::scratch_dir(GROUP, case)
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

#[test]
fn three_shards_merge_to_the_whole_campaign() {
    insta::glob!("data/campaign/*.args", |path: &Path| {
        let text = std::fs::read_to_string(path).expect("readable");
        let args: Vec<&str> = text.lines().filter(|l| !l.starts_with('%')).collect();
        let name = path.file_stem().and_then(|s| s.to_str()).expect("name");
        let dir = scratch(name);

        let whole = dir.join("whole.json");
        let mut with_report = args.clone();
        with_report.extend(["--report", path_str(&whole)]);
        let (code, stderr) = ioa(&with_report);
        assert_eq!(
            code, 1,
            "{name}: the campaign finds its planted bug\n{stderr}"
        );

        let mut shards = Vec::new();
        for i in 0..3 {
            let report = dir.join(format!("shard{i}.json"));
            let shard = format!("{i}/3");
            let mut a = args.clone();
            a.extend(["--shard", &shard, "--report", path_str(&report)]);
            let (code, stderr) = ioa(&a);
            assert!(code == 0 || code == 1, "{name} shard {shard}:\n{stderr}");
            shards.push(report);
        }
        let merged = dir.join("merged.json");
        let mut m = vec!["merge", "-o", path_str(&merged)];
        // The order of the reports does not matter.
        m.extend(shards.iter().rev().map(|p| path_str(p)));
        let (code, stderr) = ioa(&m);
        assert_eq!(code, 1, "{name}: merge says a run failed\n{stderr}");

        let whole_text = std::fs::read_to_string(&whole).expect("whole report");
        let merged_text = std::fs::read_to_string(&merged).expect("merged report");
        assert_eq!(merged_text, whole_text, "{name}: merged ≠ whole");

        let doc: serde_json::Value = serde_json::from_str(&merged_text).expect("JSON");
        let summary = serde_json::json!({
            "verdict": doc["verdict"],
            "first_failure": { "run": doc["failure"]["run"], "seed": doc["failure"]["seed"] },
            "diagnostic": doc["failure"]["detail"]["diagnostic"],
            "failed_after": doc["failure"]["detail"]["failed_after"],
            "shrunk_to": doc["failure"]["detail"]["shrunk_to"],
            "critical": doc["failure"]["detail"]["critical"],
            "totals": doc["totals"],
        });
        insta::assert_snapshot!(format!(
            "{}\n--- merge\n{stderr}",
            serde_json::to_string_pretty(&summary).expect("JSON")
        ));
    });
}

/// Shards that do not add up are refused with a reason.
#[test]
fn merge_refuses_reports_that_do_not_add_up() {
    let dir = scratch("refused");
    let base = [
        "run",
        "examples/consensus/global1_planted_bug.ioa",
        "--automaton",
        "Global1Bug",
        "--random",
        "--runs",
        "3",
        "--steps",
        "20",
        "--quiet",
    ];
    let mut reports = Vec::new();
    for (i, seed) in [(0, "0"), (1, "0"), (1, "5")] {
        let report = dir.join(format!("s{i}-{seed}.json"));
        let shard = format!("{i}/2");
        let mut a = base.to_vec();
        a.extend([
            "--seed",
            seed,
            "--shard",
            &shard,
            "--report",
            path_str(&report),
        ]);
        let (code, stderr) = ioa(&a);
        assert_eq!(code, 0, "{stderr}");
        reports.push(report);
    }
    let (code, stderr) = ioa(&["merge", path_str(&reports[0])]);
    assert_eq!(
        (code, stderr.as_str()),
        (2, "error: shard 1/2 is missing\n")
    );
    let (code, stderr) = ioa(&["merge", path_str(&reports[0]), path_str(&reports[2])]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("are reports of different campaigns"),
        "{stderr}"
    );
    let (code, stderr) = ioa(&["merge", path_str(&reports[0]), path_str(&reports[1])]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr,
        "merged 2 reports of run: 3 run(s), 60 step(s), none failed\n"
    );
    let (code, stderr) = ioa(&["merge", "Cargo.toml"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("is not a campaign report (line 1"),
        "{stderr}"
    );
}
