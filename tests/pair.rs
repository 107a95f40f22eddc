//! End-to-end tests of `ioa pair`: paired execution of Global1 and Cons through Fig. 3's proof
//! block, the §6 naive block's two problems, random runs with shrinking, and JSON reports.

use std::process::Command;

struct Output {
    code: i32,
    stdout: String,
    stderr: String,
}

fn pair(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_ioa"))
        .arg("pair")
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

const FIG3: &str = "examples/consensus/global1_to_cons.ioa";
const NAIVE: &str = "examples/consensus/global1_to_cons_naive.ioa";
const GUARDED: &str = "examples/consensus/global1_to_cons_naive_guarded.ioa";

#[test]
fn fig3_block_passes_every_suite_schedule() {
    for (schedule, steps) in [
        ("NormalRun", 13),
        ("Failures", 13),
        ("Abstentions", 18),
        ("LaterBallotKeepsValue", 20),
        ("DecideBeforeValue", 17),
        ("ManyBallots", 38),
    ] {
        let o = pair(&[FIG3, "--schedule", schedule]);
        assert_eq!(o.code, 0, "{schedule}: {}", o.stderr);
        assert_eq!(
            o.stderr,
            format!("paired execution of simulation Global1_to_Cons (schedule {schedule}): {steps} step(s) matched, the relation held throughout\n")
        );
    }
}

/// The full acceptance run (1,000 runs of 1,000 steps) takes about a minute in a release build;
/// this debug-build test runs a smaller share of it from the same first seed.
#[test]
fn fig3_block_passes_random_runs() {
    let o = pair(&[
        FIG3, "--random", "--runs", "40", "--steps", "200", "--seed", "1",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("40 random run(s), 8000 step(s) of Global1: every step matched"),
        "{}",
        o.stderr
    );
}

/// §6, first problem: executing internalDecide twice makes chooseVal's precondition fail.
#[test]
fn naive_block_fires_choose_val_twice() {
    let o = pair(&[NAIVE, "--schedule", "LaterBallotKeepsValue"]);
    assert_eq!(o.code, 1);
    insta::assert_snapshot!("naive_twice", format!("{}{}", o.stdout, o.stderr));
}

/// §6, second problem, on its own: a ballot that succeeds before it has a value makes the
/// relation fail after assignVal.
#[test]
fn naive_block_misses_the_value_assigned_after_success() {
    let o = pair(&[GUARDED, "--schedule", "DecideBeforeValue"]);
    assert_eq!(o.code, 1);
    assert!(o.stderr.contains("error[E0533]: at step 8 (internal assignVal([0], [2])): the simulation relation does not hold"), "{}", o.stderr);
    insta::assert_snapshot!(
        "naive_after_assign_val",
        format!("{}{}", o.stdout, o.stderr)
    );
}

/// Without the guard, the same schedule stops earlier: the naive block reads the value of a
/// ballot that has none.
#[test]
fn naive_block_reads_the_value_of_a_ballot_without_one() {
    let o = pair(&[NAIVE, "--schedule", "DecideBeforeValue"]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr
            .contains("error[E0504]: undefined value: `.val` of `nil`"),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr
            .contains("at step 7 (internal internalDecide([0]))"),
        "{}",
        o.stderr
    );
}

/// Random runs find a failure of the naive block and shrink it.
#[test]
fn random_runs_find_and_shrink_a_naive_block_failure() {
    let o = pair(&[
        NAIVE, "--random", "--runs", "100", "--steps", "300", "--seed", "1",
    ]);
    assert_eq!(o.code, 1);
    insta::assert_snapshot!("naive_random_shrunk", format!("{}{}", o.stdout, o.stderr));
}

#[test]
fn failures_are_reported_as_json() {
    let o = pair(&[
        NAIVE,
        "--schedule",
        "LaterBallotKeepsValue",
        "--format",
        "json",
    ]);
    assert_eq!(o.code, 1);
    let json: serde_json::Value = serde_json::from_str(&o.stdout).expect("JSON on stdout");
    assert_eq!(json["ok"], false);
    assert_eq!(json["failure"]["check"], "not-enabled");
    assert_eq!(json["failure"]["step"], 14);
    assert_eq!(
        json["failure"]["detail"]["action"],
        "internal chooseVal([1])"
    );
    assert_eq!(json["diagnostic"]["code"], "E0531");
    assert_eq!(
        json["implementation_trace"].as_array().map(Vec::len),
        Some(14)
    );
}

#[test]
fn bad_requests_are_usage_errors() {
    let o = pair(&[FIG3, "--schedule", "NoSuch"]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("no schedule `NoSuch` for `Global1`"),
        "{}",
        o.stderr
    );
    let o = pair(&[FIG3, "--simulation", "Nope", "--schedule", "NormalRun"]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("the model has: Global1_to_Cons"),
        "{}",
        o.stderr
    );
    let o = pair(&[FIG3]);
    assert_eq!(o.code, 2);
}
