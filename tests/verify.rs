//! End-to-end tests of `ioa verify`: from Global1 → Cons with no hand-written invariants, the
//! candidates that survive include the paper's Inv4 and Inv6 (which Daikon could not propose);
//! on the planted bug, the exploration stage hands back a shortest counterexample.
//!
//! Solver verdicts under a time limit depend on the machine's load, so these tests pin the
//! deterministic stages (runs, candidates, survivors of the runs) and the invariants Z3 keeps
//! quickly, not the time-limited verdicts.

use std::process::Command;

struct Output {
    code: i32,
    stdout: String,
    stderr: String,
}

fn verify(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_ioa"))
        .arg("verify")
        .args(args)
        .args(["--color", "never"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("ioa runs");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The report of a run with `--format json`.
fn json(o: &Output) -> serde_json::Value {
    serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", o.stderr))
}

/// The stage lines of a JSON report.
fn stages(json: &serde_json::Value) -> Vec<&str> {
    json["stages"]
        .as_array()
        .expect("stages")
        .iter()
        .filter_map(|s| s.as_str())
        .collect()
}

#[test]
fn global1_to_cons_needs_no_hand_written_invariants() {
    let isabelle = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("verify-isabelle");
    let _ = std::fs::remove_dir_all(&isabelle);
    let o = verify(&[
        "examples/consensus/global1_to_cons.ioa",
        "--runs",
        "8",
        "--steps",
        "150",
        "--no-explore",
        "--export-isabelle",
        isabelle.to_str().expect("UTF-8"),
        "--format",
        "json",
    ]);
    let json = json(&o);
    let stages = stages(&json);
    // The deterministic stages, pinned.
    insta::assert_snapshot!("global1_stages", stages[..4].join("\n"));
    let survivors: Vec<&str> = json["survivors"]
        .as_array()
        .expect("survivors")
        .iter()
        .filter_map(|s| s["text"].as_str())
        .collect();
    for needed in [
        // Inv4, from assignVal's precondition.
        "∀ b: Ballot (val[b] ≠ nil ⇒ ∀ b': Ballot (b'.ordering < b.ordering ⇒ val[b'] = embed(val[b].val) ∨ b' ∈ dead))",
        // Inv6, from internalDecide's precondition.
        "∀ b: Ballot (b ∈ succeeded ⇒ ∃ q: Set[Node] (q ∈ quorums ∧ ∀ j: Node (j ∈ q ⇒ b ∈ voted[j])))",
        // Inv2, from assignVal's precondition.
        "∀ b: Ballot (val[b] ≠ nil ⇒ val[b].val ∈ proposed)",
        // Inv1, from abstain's precondition.
        "∀ i: Node (voted[i] ∩ abstained[i] = {})",
        // Any two quorums intersect.
        "∀ q1: Set[Node] (q1 ∈ quorums ⇒ ∀ q2: Set[Node] (q2 ∈ quorums ⇒ q1 ∩ q2 ≠ {}))",
    ] {
        assert!(
            survivors.contains(&needed),
            "{needed} is not among the survivors:\n{}\n{}",
            survivors.join("\n"),
            o.stderr
        );
    }
    // The theories carry the invariants found.
    let theory = std::fs::read_to_string(isabelle.join("Global1_Invariants.thy"))
        .expect("Global1_Invariants.thy written");
    assert!(theory.contains("Cand"), "{theory}");
}

#[test]
fn a_planted_bug_gets_a_counterexample() {
    let o = verify(&[
        "examples/consensus/global1_planted_bug.ioa",
        "--invariant",
        "Agreement",
        "--runs",
        "4",
        "--steps",
        "100",
        "--explore-universe",
        "tests/data/verify/two_nodes.universe",
        "--explore-symmetric",
        "Node",
        "--explore-time",
        "600",
    ]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    let from = o.stderr.find("exploration of").expect("exploration stage");
    insta::assert_snapshot!("planted_bug_counterexample", &o.stderr[from..]);
}

#[test]
fn bad_requests_are_usage_errors() {
    let o = verify(&[
        "examples/consensus/global1_to_cons.ioa",
        "--invariant",
        "Nope",
    ]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("no invariant `Nope`"), "{}", o.stderr);
    let o = verify(&["examples/consensus/global1.ioa"]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("--simulation NAME or --invariant NAME"),
        "{}",
        o.stderr
    );
}

/// What `ioa verify` decided, without times: survivors, the fixpoint's stage lines (times
/// removed) and each obligation's verdict and resource units.
fn decisions(o: &Output) -> String {
    let json = json(o);
    let mut out = String::new();
    for s in json["survivors"].as_array().expect("survivors") {
        out.push_str(&format!("survivor {}\n", s["text"]));
    }
    for line in json["stages"].as_array().expect("stages") {
        let line = line.as_str().unwrap_or("");
        if let Some((head, tail)) = line
            .strip_prefix("exploration of")
            .and_then(|l| l.split_once("): "))
        {
            // The exploration's time is the last figure in its parentheses.
            let head = head.rsplit_once(", ").map_or(head, |(a, _)| a);
            out.push_str(&format!("exploration of{head}): {tail}\n"));
        } else if line.starts_with("Houdini") || line.trim_start().starts_with("dropped") {
            // The fixpoint's time is the last figure of its line.
            out.push_str(line.rsplit_once(", ").map_or(line, |(a, _)| a));
            out.push('\n');
        }
    }
    for ob in json["obligations"].as_array().expect("obligations") {
        out.push_str(&format!(
            "{}: {} ({})\n",
            ob["obligation"], ob["verdict"], ob["rlimit"]
        ));
    }
    out
}

#[test]
fn the_same_budgets_give_the_same_survivors_at_any_load() {
    let args = [
        "examples/consensus/cons.ioa",
        "--invariant",
        "Agreement",
        "--runs",
        "2",
        "--steps",
        "40",
        // The exploration bounded by states, not time: its refutations must not depend on load.
        "--explore-states",
        "500",
        "--rlimit",
        "1000000",
        "--proof-rlimit",
        "2000000",
        "--format",
        "json",
    ];
    let idle = decisions(&verify(&args));
    assert_eq!(decisions(&verify(&args)), idle, "two runs differ");
    let mut load: Vec<std::process::Child> = (0..2)
        .map(|_| {
            Command::new("yes")
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("`yes` runs")
        })
        .collect();
    let loaded = decisions(&verify(&args));
    for child in &mut load {
        let _ = child.kill();
        let _ = child.wait();
    }
    assert_eq!(loaded, idle, "a run beside two CPU-bound processes differs");
    assert!(idle.contains("survivor"), "{idle}");
    assert!(idle.contains("Houdini fixpoint"), "{idle}");
    assert!(idle.contains("stopped by --explore-states 500"), "{idle}");
}

#[test]
fn a_composite_gets_its_components_templates() {
    let o = verify(&[
        "examples/lcr/lcr.ioa",
        "--invariant",
        "LeaderHasMaxUid",
        "--param",
        "n=3",
        "--runs",
        "4",
        "--steps",
        "100",
        "--format",
        "json",
    ]);
    let report = json(&o);
    let stages = stages(&report);
    // The process's templates, restated over the ring: `P[i].status = chosen ⇒ …`.
    assert!(
        stages[1].contains("4 from the program text"),
        "{}",
        stages[1]
    );
    insta::assert_snapshot!("lcr_composite", decisions(&o));
}
