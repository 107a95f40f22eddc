//! End-to-end tests of `ioa trace`: runs chosen as `ioa infer` chooses them, written as Daikon
//! input (`--daikon DIR`) and as ITF traces (`--itf DIR`) without inferring. The files' format is
//! checked rule by rule in `daikon/tests/dtrace_format.rs`; here: that the command writes them,
//! that they hold every run, that `ioa infer --daikon` writes the same bytes, and that the ITF
//! traces replay.

mod common;

use common::{Outcome, ROOT};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The group of these tests' scratch directories.
const GROUP: &str = "trace-tests";

/// Runs `ioa ARGS… --color never` in the package root.
fn ioa(args: &[&str]) -> Outcome {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--color", "never"]);
    common::ioa_in(GROUP, &all)
}

/// A directory for one test's files, emptied first.
fn scratch(test: &str) -> PathBuf {
    common::scratch_dir(GROUP, test)
}

const CONS: &str = "examples/consensus/cons_schedules.ioa";

/// The number of records of each program point in a `.dtrace` file.
fn records(dtrace: &str) -> Vec<(String, usize)> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for record in dtrace.split("\n\n").skip(1) {
        let Some(name) = record.lines().next().filter(|l| !l.is_empty()) else {
            continue;
        };
        match counts.iter_mut().find(|(n, _)| n == name) {
            Some((_, c)) => *c += 1,
            None => counts.push((name.to_string(), 1)),
        }
    }
    counts
}

#[test]
fn cons_runs_are_written_for_daikon() {
    let dir = scratch("cons_daikon");
    let d = dir.to_str().unwrap();
    let o = ioa(&[
        "trace",
        CONS,
        "--automaton",
        "Cons",
        "--all-schedules",
        "--random",
        "--runs",
        "5",
        "--steps",
        "20",
        "--daikon",
        d,
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    let decls = std::fs::read_to_string(dir.join("Cons.decls")).unwrap();
    let dtrace = std::fs::read_to_string(dir.join("Cons.dtrace")).unwrap();
    assert!(decls.starts_with("decl-version 2.0\n"), "{decls}");
    // One program point for the state and an entry and an exit per action, children of it.
    let ppts: Vec<&str> = decls
        .lines()
        .filter_map(|l| l.strip_prefix("ppt "))
        .collect();
    assert_eq!(ppts[0], "Cons:::OBJECT");
    for pair in ppts[1..].chunks(2) {
        let procedure = pair[0].strip_suffix(":::ENTER").expect("an entry");
        assert_eq!(pair[1], format!("{procedure}:::EXIT1"), "{ppts:?}");
    }
    assert_eq!(ppts.len(), 1 + 2 * 4, "{ppts:?}");
    assert_eq!(
        decls.matches("parent parent Cons:::OBJECT 1\n").count(),
        2 * 4,
        "{decls}"
    );
    // Sets are arrays without duplicates or order.
    assert!(
        decls
            .contains("variable chosen[..]\n  var-kind array\n  enclosing-var chosen\n  array 1\n"),
        "{decls}"
    );
    assert!(decls.contains("  flags no_dups not_ordered\n"), "{decls}");
    // Every state and every step is a record.
    let counts = records(&dtrace);
    let states: usize = counts
        .iter()
        .filter(|(n, _)| n.ends_with(":::OBJECT"))
        .map(|(_, c)| c)
        .sum();
    let steps: usize = counts
        .iter()
        .filter(|(n, _)| n.ends_with(":::ENTER"))
        .map(|(_, c)| c)
        .sum();
    let summary = format!("{steps} step(s), {states} state(s)");
    assert!(o.stderr.contains(&summary), "{summary}\n{}", o.both());
    assert!(o.stderr.contains("random seeds 0..4"), "{}", o.both());

    // `ioa infer --daikon` on the same runs writes the same files.
    let dir2 = scratch("cons_daikon_infer");
    let o = ioa(&[
        "infer",
        CONS,
        "--automaton",
        "Cons",
        "--all-schedules",
        "--random",
        "--runs",
        "5",
        "--steps",
        "20",
        "--daikon",
        dir2.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    assert_eq!(
        std::fs::read_to_string(dir2.join("Cons.decls")).unwrap(),
        decls
    );
    assert_eq!(
        std::fs::read_to_string(dir2.join("Cons.dtrace")).unwrap(),
        dtrace
    );
}

#[test]
fn itf_traces_replay() {
    let dir = scratch("global1_itf");
    let d = dir.to_str().unwrap();
    let o = ioa(&[
        "trace",
        "examples/consensus/global1_schedules.ioa",
        "--schedule",
        "NormalRun",
        "--random",
        "--runs",
        "2",
        "--steps",
        "30",
        "--seed",
        "5",
        "--itf",
        d,
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    assert!(o.stderr.contains("wrote 3 ITF trace(s)"), "{}", o.both());
    for name in [
        "schedule-NormalRun.itf.json",
        "random-5.itf.json",
        "random-6.itf.json",
    ] {
        let path = dir.join(name);
        let r = ioa(&["replay", path.to_str().unwrap()]);
        assert_eq!(r.code, 0, "{name}: {}", r.both());
    }
}

#[test]
fn bad_requests_are_explained() {
    let o = ioa(&["trace", CONS, "--automaton", "Cons", "--random"]);
    assert_eq!(o.code, 2, "{}", o.both());
    assert!(o.stderr.contains("nothing to write"), "{}", o.both());
    let dir = scratch("bad");
    let o = ioa(&[
        "trace",
        CONS,
        "--schedule",
        "Nope",
        "--daikon",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 2, "{}", o.both());
    assert!(o.stderr.contains("no schedule `Nope`"), "{}", o.both());
    let o = ioa(&["trace", "no/such/model.ioa", "--itf", dir.to_str().unwrap()]);
    assert_eq!(o.code, 1, "{}", o.both());
}

/// The whole export of a tiny model, pinned: the layout Daikon reads with its default flags
/// (the state's point, an entry and an exit per action linked to it by `parent` records, one
/// nonce per step), comparability by declared type (`Node.id` and `Value.value` are different
/// numbers), and the synthetic intersection of the two `Set[Node]` variables.
#[test]
fn tiny_model_export_is_pinned() {
    let dir = scratch("tiny_daikon");
    let o = ioa(&[
        "trace",
        "tests/data/trace/tiny.ioa",
        "--schedule",
        "TwoSteps",
        "--daikon",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    assert!(
        o.stderr
            .contains("traced 1 run(s) of Tiny: 2 step(s), 3 state(s)"),
        "{}",
        o.both()
    );
    let decls = std::fs::read_to_string(dir.join("Tiny.decls")).unwrap();
    let dtrace = std::fs::read_to_string(dir.join("Tiny.dtrace")).unwrap();
    insta::assert_snapshot!("tiny_decls", decls);
    insta::assert_snapshot!("tiny_dtrace", dtrace);
}

/// Says on the terminal (past the test harness's capture) why a test did nothing.
fn skip(message: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED: {message}");
}

/// The invariants Daikon printed, by program point.
fn daikon_points(output: &str) -> Vec<(String, Vec<String>)> {
    output
        .split("===========================================================================\n")
        .skip(1)
        .map(|block| {
            let mut lines = block.lines().filter(|l| !l.is_empty());
            let name = lines.next().unwrap_or_default().to_string();
            let invariants = lines
                .take_while(|l| !l.starts_with("Exiting Daikon"))
                .map(String::from)
                .collect();
            (name, invariants)
        })
        .collect()
}

/// The real Daikon, with its default flags, on what `ioa trace` writes for Global1's default
/// runs: it must match every entry with its exit, print invariants at the state's point and at
/// every action's entry and exit, state the paper's Inv1, Inv2, Inv3 and Inv5 in its own
/// notation, and never relate two kinds of ids. Daikon is in no package registry: set
/// `DAIKON_JAR` to its jar (or to a class path, `classes:lib/*`) to run this test.
#[test]
fn real_daikon_finds_the_papers_invariants_with_default_flags() {
    let Ok(jar) = std::env::var("DAIKON_JAR") else {
        skip(
            "real_daikon_finds_the_papers_invariants_with_default_flags: DAIKON_JAR is not set \
             (point it at daikon.jar to run the real Daikon on the export)",
        );
        return;
    };
    // Daikon runs in the scratch directory: make a relative class path absolute.
    let jar = std::env::join_paths(std::env::split_paths(&jar).map(|p| Path::new(ROOT).join(p)))
        .expect("a class path");
    let dir = scratch("global1_real_daikon");
    let o = ioa(&[
        "trace",
        "examples/consensus/global1_schedules.ioa",
        "--daikon",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 0, "{}", o.both());
    let out = Command::new("java")
        .args(["-Xmx2g", "-cp"])
        .arg(&jar)
        .arg("daikon.Daikon")
        .args(["Global1.decls", "Global1.dtrace"])
        // Daikon writes Global1.inv.gz where it runs.
        .current_dir(&dir)
        .output()
        .expect("start java");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let all = format!("{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{all}");
    assert!(!text.contains("No return from procedure"), "{all}");
    let points = daikon_points(&text);
    let find = |name: &str| {
        points
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, i)| i)
            .unwrap_or_else(|| panic!("no point {name} in\n{all}"))
    };
    for action in [
        "abstain(Node,Set[Ballot])",
        "assignVal(Ballot,Value)",
        "decide(Node,Value)",
        "defineQuorums(Set[Node])",
        "fail(Node)",
        "init(Node,Value)",
        "internalDecide(Ballot)",
        "makeBallot(Ballot)",
        "vote(Node,Ballot)",
    ] {
        for point in ["ENTER", "EXIT"] {
            let name = format!("Global1.{action}:::{point}");
            assert!(!find(&name).is_empty(), "nothing at {name}\n{all}");
        }
    }
    let state = find("Global1:::OBJECT");
    let has = |line: &str| state.iter().any(|l| l == line);
    // Inv2: ∀ b (val[b] ≠ nil ⇒ val[b].val ∈ proposed), one line per ballot given a value.
    assert!(has("val[[0]].val in proposed[]"), "Inv2 in\n{all}");
    // Inv3: succeeded ∩ dead = {}.
    assert!(
        has("intersection(succeeded,dead)[] == []"),
        "Inv3 in\n{all}"
    );
    // Inv5: succeeded ⊆ ballots, as succeeded = ballots ∩ succeeded.
    assert!(
        has("succeeded == intersection(ballots,succeeded)"),
        "Inv5 in\n{all}"
    );
    // Inv1: voted[n] ∩ abstained[n] = {}, for each node: empty like succeeded ∩ dead.
    for n in 0..3 {
        let inter = format!("intersection(voted[[{n}]],abstained[[{n}]])[]");
        assert!(
            has(&format!("{inter} == []"))
                || has(&format!("intersection(succeeded,dead)[] == {inter}")),
            "Inv1 for node {n} in\n{all}"
        );
    }
    // Comparability by type: no invariant relates node ids, ballot numbers and values.
    for (point, invariants) in &points {
        for i in invariants {
            let kinds = [".location", ".ordering", ".value"]
                .iter()
                .filter(|k| i.contains(*k))
                .count();
            assert!(kinds <= 1, "{point}: `{i}` relates two kinds of ids");
        }
    }
}

/// Without `--automaton`, a file is about the automaton it declares itself (components of its
/// composites aside), not one it imports: `paxos_planted_bug.ioa` imports Global1 and its
/// `Paper` schedule but declares `PaxosBug`; `paxos.ioa` declares two top-level automata and
/// must be told which.
#[test]
fn the_files_own_automaton_is_the_default() {
    let dir = scratch("own_automaton");
    let d = dir.to_str().unwrap();
    let run = |file: &str| {
        ioa(&[
            "trace", file, "--random", "--runs", "1", "--steps", "3", "--itf", d,
        ])
    };
    let o = run("examples/paxos/paxos_planted_bug.ioa");
    assert_eq!(o.code, 0, "{}", o.both());
    assert!(
        o.stderr.contains("traced 1 run(s) of PaxosBug"),
        "{}",
        o.both()
    );
    let o = run("examples/consensus/global1.ioa");
    assert!(
        o.stderr.contains("traced 1 run(s) of Global1"),
        "{}",
        o.both()
    );
    // A file of schedules declares no automaton: the one they drive.
    let o = run("examples/paxos/paxos_schedules.ioa");
    assert!(
        o.stderr.contains("traced 1 run(s) of Paxos ("),
        "{}",
        o.both()
    );
    let o = run("examples/paxos/paxos.ioa");
    assert_eq!(o.code, 2, "{}", o.both());
    assert!(
        o.stderr.contains(
            "the file declares 2 automata: say which to run with --automaton (Paxos, \
             PaxosMonotone)"
        ),
        "{}",
        o.both()
    );
    let o = ioa(&[
        "infer",
        "examples/paxos/paxos.ioa",
        "--random",
        "--runs",
        "1",
    ]);
    assert_eq!(o.code, 2, "{}", o.both());
}

/// One rule for universe files, given or found beside the model, in every command: lines for
/// types and actions the model lacks are skipped with a note (Cons has no `Ballot`; the folder's
/// files serve Global1 too). Lines given with `--universe` must all apply.
#[test]
fn universe_files_are_read_alike_by_every_command() {
    let dir = scratch("universe_rule");
    let d = dir.to_str().unwrap();
    let cons = "examples/consensus/cons.ioa";
    let file = "examples/consensus/explore.universe";
    let note = "note: examples/consensus/explore.universe: ignored the line(s) for `Ballot`, \
                `defineQuorums.S`, `abstain.B`";
    for args in [
        vec![
            "run",
            cons,
            "--random",
            "--steps",
            "5",
            "--universe-file",
            file,
        ],
        vec![
            "trace",
            cons,
            "--runs",
            "1",
            "--itf",
            d,
            "--universe-file",
            file,
        ],
        vec!["infer", cons, "--runs", "1", "--universe-file", file],
        vec!["explore", cons, "--universe-file", file],
    ] {
        let o = ioa(&args);
        assert_eq!(o.code, 0, "{args:?}: {}", o.both());
        assert!(o.stderr.contains(note), "{args:?}: {}", o.both());
    }
    // The folder's default.universe, found by itself, is read the same way.
    let o = ioa(&["explore", cons]);
    assert_eq!(o.code, 0, "{}", o.both());
    assert!(
        o.stderr
            .contains("default.universe: ignored the line(s) for `Ballot`, `abstain.B`"),
        "{}",
        o.both()
    );
    // A command-line line is the user's own: an unknown type there is an error.
    let o = ioa(&["explore", cons, "--universe", "Ballot = [0]..[1]"]);
    assert_eq!(o.code, 2, "{}", o.both());
    assert!(o.stderr.contains("E0511"), "{}", o.both());
}
