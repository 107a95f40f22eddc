//! Classic distributed algorithms modelled from their textbook descriptions, outside the
//! project's own examples (`tests/data/elsewhere/`, each correct with `fixed=true` and with a
//! planted bug with `fixed=false`), through every command that applies: `ioa check` (clean),
//! random runs, global exploration (verdict and counts pinned), local model checking (the same
//! verdict as global exploration: never "verified" where a violation exists), liveness where a
//! model states a property, and `ioa replay` of every counterexample either explorer prints.

mod common;

use common::{ioa, scratch};

/// One model: file, automaton, parameters and universe, a liveness property with its expected
/// verdict per variant (correct, bug), and whether the bug is a safety bug (its exploration
/// finds an invariant violated) or only a liveness bug.
struct Model {
    file: &'static str,
    automaton: &'static str,
    args: &'static [&'static str],
    liveness: Option<(&'static str, [i32; 2])>,
    safety_bug: bool,
}

const MODELS: &[Model] = &[
    Model {
        file: "ping_echo_dup.ioa",
        automaton: "PingEcho",
        args: &[],
        liveness: None,
        safety_bug: true,
    },
    Model {
        file: "abp_retransmit.ioa",
        automaton: "ABP",
        args: &["--universe", "Int=0..2"],
        liveness: None,
        safety_bug: true,
    },
    Model {
        file: "tpc_coordinator.ioa",
        automaton: "TPC",
        args: &["--param", "n=2", "--universe", "Int=0..2"],
        liveness: None,
        safety_bug: true,
    },
    Model {
        file: "snapshot_tokens.ioa",
        automaton: "Snapshot",
        args: &["--universe", "Int=0..2"],
        liveness: Some(("SnapshotFinishes", [0, 0])),
        safety_bug: true,
    },
    Model {
        file: "token_ring_mutex.ioa",
        automaton: "TokenRing",
        args: &["--param", "n=3", "--universe", "Int=-1..3"],
        liveness: None,
        safety_bug: true,
    },
    Model {
        file: "floodmax_line.ioa",
        automaton: "FloodMax",
        args: &["--param", "n=3", "--universe", "Int=-1..3"],
        liveness: None,
        safety_bug: true,
    },
    Model {
        file: "reliable_broadcast.ioa",
        automaton: "Broadcast",
        args: &["--param", "n=3", "--universe", "Int=0..2"],
        liveness: None,
        safety_bug: true,
    },
    Model {
        file: "primary_backup.ioa",
        automaton: "Replication",
        args: &["--universe", "Int=0..2"],
        liveness: None,
        safety_bug: true,
    },
    Model {
        file: "lock_server.ioa",
        automaton: "LockService",
        args: &["--param", "n=2", "--universe", "Int=0..2"],
        liveness: None,
        safety_bug: true,
    },
    Model {
        file: "stop_and_wait.ioa",
        automaton: "StopAndWait",
        args: &["--universe", "Int=0..3"],
        liveness: None,
        safety_bug: true,
    },
    Model {
        file: "echo_wave.ioa",
        automaton: "Echo",
        args: &["--param", "n=4", "--universe", "Int=0..3"],
        liveness: Some(("Decides", [0, 0])),
        safety_bug: true,
    },
    Model {
        file: "lcr_election.ioa",
        automaton: "LCRElection",
        args: &["--param", "n=3", "--universe", "Int=0..3"],
        liveness: Some(("LeaderElected", [0, 1])),
        safety_bug: false,
    },
];

/// The line of `text` starting with one of `starts`, or "" when none does.
fn line<'a>(text: &'a str, starts: &[&str]) -> &'a str {
    text.lines()
        .find(|l| starts.iter().any(|s| l.starts_with(s)))
        .unwrap_or("")
}

#[test]
fn textbook_models_agree_across_explorers() {
    let mut summary = Vec::new();
    for (k, m) in MODELS.iter().enumerate() {
        let path = format!("tests/data/elsewhere/{}", m.file);
        let (code, _, err) = ioa(&["check", &path]);
        assert_eq!(code, 0, "{path}: {err}");
        assert!(!err.contains("warning["), "{path}: {err}");
        for (variant, fixed) in [(0usize, "fixed=true"), (1, "fixed=false")] {
            let what = format!("{} {fixed}", m.file);
            let mut base = vec![&path[..], "--automaton", m.automaton, "--param", fixed];
            base.extend(m.args);
            // Random runs: a run may or may not meet the bug, but never fails otherwise.
            let mut run = vec!["run"];
            run.extend(&base);
            run.extend(["--random", "--runs", "5", "--steps", "30", "--seed", "1"]);
            let (code, _, err) = ioa(&run);
            assert!(
                code == 0 || (code == 1 && variant == 1),
                "{what}: run exit {code}\n{err}"
            );
            // Global exploration.
            let g_trace = scratch("elsewhere", &format!("{k}-{variant}-global.json"));
            let g_trace = g_trace.display().to_string();
            let mut global = vec!["explore"];
            global.extend(&base);
            global.extend(["--threads", "1", "--quiet", "--trace", &g_trace]);
            let (g_code, _, g_err) = ioa(&global);
            let expected = if variant == 1 && m.safety_bug { 1 } else { 0 };
            assert_eq!(g_code, expected, "{what}: global\n{g_err}");
            // Local model checking: the same verdict.
            let l_trace = scratch("elsewhere", &format!("{k}-{variant}-local.json"));
            let l_trace = l_trace.display().to_string();
            let mut local = vec!["explore"];
            local.extend(&base);
            local.extend(["--local", "--quiet", "--trace", &l_trace]);
            let (l_code, _, l_err) = ioa(&local);
            assert_eq!(
                l_code, g_code,
                "{what}: local disagrees with global\n{l_err}\nglobal:\n{g_err}"
            );
            if g_code == 1 {
                for (who, trace) in [("global", &g_trace), ("local", &l_trace)] {
                    let (r_code, _, r_err) = ioa(&["replay", trace]);
                    assert_eq!(r_code, 1, "{what}: {who} trace replay\n{r_err}");
                    assert!(r_err.starts_with("error[E0521]"), "{what}: {who}: {r_err}");
                }
            }
            summary.push(format!(
                "{what}\n  global: {}\n  local: {} | {}",
                line(&g_err, &["verified", "shortest counterexample"]),
                line(&l_err, &["verified", "confirmed violation"]),
                line(&l_err, &["local states"])
            ));
            if let Some((name, expected)) = m.liveness {
                let mut live = vec!["explore"];
                live.extend(&base);
                live.extend(["--liveness", name, "--quiet"]);
                let (code, _, err) = ioa(&live);
                assert_eq!(code, expected[variant], "{what}: liveness {name}\n{err}");
                summary.push(format!(
                    "  liveness {name}: {}",
                    line(&err, &["holds", "violated"])
                ));
            }
        }
    }
    insta::assert_snapshot!(summary.join("\n"));
}
