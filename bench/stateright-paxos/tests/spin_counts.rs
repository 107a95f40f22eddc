//! The Promela peer (`bench/promela/paxos.pml`) stores exactly the states `ioa explore` and the
//! Stateright model reach (`cross_check.rs` pins the same numbers): SPIN generates a verifier
//! (`pan`) per configuration, compiled with `gcc -DSAFETY -DNOREDUCE` (no partial-order
//! reduction). Needs the Debian package `spin` and a C compiler (`.ci/run` installs them).

use std::path::Path;
use std::process::Command;

/// SPIN's "states, stored" and whether it found an assertion violation.
fn spin_count(proposers: usize, acceptors: usize, maj: usize) -> (u64, bool) {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../promela/paxos.pml");
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("spin-{proposers}-{acceptors}-{maj}"));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let run = |program: &str, args: &[String]| {
        let out = Command::new(program)
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {program} (apt-get install spin gcc): {e}"));
        assert!(
            out.status.success() || program == "./pan",
            "{program} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    run(
        "spin",
        &[
            "-a".into(),
            format!("-DNP={proposers}"),
            format!("-DNA={acceptors}"),
            format!("-DMAJ={maj}"),
            model.display().to_string(),
        ],
    );
    let args: Vec<String> = ["-O1", "-w", "-DSAFETY", "-DNOREDUCE", "-o", "pan", "pan.c"]
        .map(String::from)
        .to_vec();
    run("gcc", &args);
    let out = run("./pan", &["-m1000".into(), "-w20".into()]);
    let stored = out
        .lines()
        .find(|l| l.contains("states, stored"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no state count in pan's output:\n{out}"));
    (stored, out.contains("assertion violated"))
}

#[test]
fn spin_stores_the_same_states() {
    for (p, a, maj, states) in [(2, 2, 2, 177), (2, 3, 2, 5_649), (3, 2, 2, 4_588)] {
        assert_eq!(spin_count(p, a, maj), (states, false), "{p}P/{a}A");
    }
}

#[test]
fn spin_refutes_the_low_majority() {
    assert!(spin_count(2, 3, 1).1);
}
