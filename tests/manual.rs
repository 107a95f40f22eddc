//! The conformance suite of the IOA manual's style (issue 19): every model under
//! `tests/data/manual/` is written the way the IOA manual and Lynch's book write automata, and
//! must
//!
//! 1. check clean (`ioa check`),
//! 2. survive the `ioa fmt` round trip: the formatted text checks clean and formats to itself,
//! 3. verify at least one invariant by exhaustive exploration on a small universe
//!    (`ioa explore`, exit 0, "verified"), with the state counts pinned by an insta snapshot.
//!
//! A model's first `% explore:` line gives the explorer's arguments (`--automaton A --param
//! n=3`, split at spaces); its universe is `MODEL.universe` beside it when it needs one.

mod common;

use common::{ioa, ROOT};
use std::path::{Path, PathBuf};

/// The model's path relative to the package root.
fn relative(path: &Path) -> String {
    let root = Path::new(ROOT)
        .canonicalize()
        .unwrap_or_else(|_| PathBuf::from(ROOT));
    path.strip_prefix(&root)
        .or_else(|_| path.strip_prefix(ROOT))
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

#[test]
fn manual_models_check_format_and_verify() {
    let mut count = 0;
    insta::glob!("data/manual/*.ioa", |path: &Path| {
        count += 1;
        let name = relative(path);
        let source = std::fs::read_to_string(path).expect("read model");

        let (code, _, err) = ioa(&["check", &name]);
        assert_eq!(code, 0, "{name} does not check clean:\n{err}");

        // The fmt round trip: the canonical text checks and is a fixed point.
        let (code, formatted, err) = ioa(&["fmt", &name]);
        assert_eq!(code, 0, "{name}: ioa fmt failed:\n{err}");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("manual-fmt");
        std::fs::create_dir_all(&dir).expect("scratch directory");
        let copy = dir.join(path.file_name().expect("file name"));
        std::fs::write(&copy, &formatted).expect("write formatted copy");
        let copy = copy.to_string_lossy().into_owned();
        let (code, _, err) = ioa(&["check", &copy]);
        assert_eq!(code, 0, "{name}: the formatted text does not check:\n{err}");
        let (code, again, _) = ioa(&["fmt", &copy]);
        assert_eq!(code, 0);
        assert_eq!(formatted, again, "{name}: ioa fmt is not a fixed point");

        // Exhaustive exploration of its invariants.
        let args: Vec<&str> = source
            .lines()
            .find_map(|l| l.strip_prefix("% explore:"))
            .map(|l| l.split_whitespace().collect())
            .unwrap_or_default();
        let mut cmd = vec!["explore", name.as_str(), "--quiet", "--threads", "1"];
        cmd.extend(args);
        let (code, out, err) = ioa(&cmd);
        let out = format!("{out}{err}");
        assert_eq!(code, 0, "{name}: not verified:\n{out}");
        assert!(out.contains("verified"), "{name}: {out}");
        insta::assert_snapshot!(format!("$ ioa {}\n{out}", cmd.join(" ")));
    });
    assert!(count >= 25, "the suite has {count} models, fewer than 25");
}

/// The manual's schedule language: `det do … od` blocks of their own queue values for the
/// `choose`s of the steps fired after them (after a fired step's own `det` values). The draws
/// of `Draws` are 2, 2 and 0 exactly when the announcements `2, 2, 0` are enabled, so the
/// run completing proves the order; `OutOfRange` yields a value its `choose` rejects.
#[test]
fn det_blocks_resolve_the_choices_of_later_steps() {
    let model = "tests/data/manual/lottery_schedule.ioa";
    let (code, out, err) = ioa(&["run", model, "--schedule", "Draws"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("det_blocks_draws", out);
    let (code, out, err) = ioa(&["run", model, "--schedule", "OutOfRange"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("det_blocks_out_of_range", format!("{out}--- stderr\n{err}"));
}

/// One action an input for some parameter values and an output for others (the manual's
/// signature entries told apart by `where` clauses): the explorer checks, over the parameters'
/// universe and before exploring, that no instance is accepted by two entries (E0517).
#[test]
fn overlapping_signature_entries_are_found_before_exploring() {
    let model = "tests/data/manual/errors/kinds_overlap.ioa";
    let (code, out, err) = ioa(&[
        "explore",
        model,
        "--param",
        "me=1",
        "--universe",
        "Int=0..2",
    ]);
    assert_ne!(code, 0, "{out}");
    insta::assert_snapshot!("kinds_overlap", err);
}

/// Mixed-kind actions reach the prover: a primitive's input and output entries of `msg` are
/// proved as two obligations named by their kind, and a composite whose nodes pass a token by
/// one action that is one node's output and the next node's input is proved on its flattening.
#[test]
fn mixed_kind_actions_are_proved() {
    let (code, out, err) = ioa(&["prove", "tests/data/manual/relay_node.ioa"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("ForwardedBounded step msg (input)"), "{out}");
    assert!(out.contains("ForwardedBounded step msg (output)"), "{out}");
    assert!(out.contains("3 obligation(s): 3 proved"), "{out}");
    let (code, out, err) = ioa(&["prove", "tests/data/manual/direct_ring.ioa"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("4 obligation(s): 4 proved"), "{out}");
}

/// `Char`: characters are proved as code points (the counterexamples show them as literals),
/// and the Isabelle export names `Char` and mixed-kind actions as unsupported (E1201) rather
/// than writing theories that do not build.
#[test]
fn chars_prove_and_the_isabelle_export_names_what_it_cannot_state() {
    let (code, out, err) = ioa(&["prove", "tests/data/manual/char_scanner.ioa"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("6 obligation(s): 6 proved"), "{out}");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("manual-isabelle");
    let dir = dir.to_string_lossy().into_owned();
    for model in ["char_scanner", "direct_ring"] {
        let file = format!("tests/data/manual/{model}.ioa");
        let (code, _, err) = ioa(&["export", "isabelle", &dir, &file]);
        assert_eq!(code, 1, "{err}");
        insta::assert_snapshot!(format!("isabelle_{model}"), err);
    }
}

/// `Real`: exact rationals. The averaging agents are proved (linear real arithmetic in Z3) and
/// a false invariant's counterexample prints the value as the decimal it is (`y = 0.75`).
#[test]
fn reals_are_exact_in_the_explorer_and_the_prover() {
    let (code, out, err) = ioa(&["prove", "tests/data/manual/averaging.ioa"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("8 obligation(s): 8 proved"), "{out}");
    let (code, out, err) = ioa(&[
        "explore",
        "tests/data/manual/errors/averaging_bad.ioa",
        "--quiet",
        "--threads",
        "1",
        "--universe",
        "Int=0..2",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    insta::assert_snapshot!("averaging_bad", format!("{out}--- stderr\n{err}"));
}

/// Three models written from the IOA manual's examples as a newcomer would write them, before
/// looking at what `ioa` accepts (`tests/data/manual/independent/`). What they needed that
/// `ioa` lacked was implemented: grouped parameters (`SeqChannel(i, j: Int)`). Each checks
/// clean and survives the `ioa fmt` round trip. The voting composite is finite and verified;
/// the channel's sequence numbers and the lock server's grant count grow without bound as
/// written, so they are explored to depth 6 (an honest bounded result, exit code 3) and the
/// voting invariant is also proved by Z3.
#[test]
fn independently_written_models() {
    let cases: [(&str, &[&str]); 3] = [
        (
            "seqno_channel",
            &[
                "--param",
                "i=0",
                "--param",
                "j=1",
                "--universe",
                "Int=0..1",
                "--max-depth",
                "6",
            ],
        ),
        (
            "lock_server",
            &[
                "--param",
                "n=2",
                "--universe",
                "Int=0..1",
                "--max-depth",
                "6",
            ],
        ),
        (
            "voting",
            &[
                "--automaton",
                "Election",
                "--param",
                "n=2",
                "--universe",
                "Int=0..1",
            ],
        ),
    ];
    let mut report = String::new();
    for (model, args) in cases {
        let name = format!("tests/data/manual/independent/{model}.ioa");
        let (code, _, err) = ioa(&["check", &name]);
        assert_eq!(code, 0, "{name} does not check clean:\n{err}");
        let (code, formatted, err) = ioa(&["fmt", &name]);
        assert_eq!(code, 0, "{name}: ioa fmt failed:\n{err}");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("manual-independent");
        std::fs::create_dir_all(&dir).expect("scratch directory");
        let copy = dir.join(format!("{model}.ioa"));
        std::fs::write(&copy, &formatted).expect("write formatted copy");
        let copy = copy.to_string_lossy().into_owned();
        let (code, again, err) = ioa(&["fmt", &copy]);
        assert_eq!(
            code, 0,
            "{name}: the formatted text does not format:\n{err}"
        );
        assert_eq!(formatted, again, "{name}: ioa fmt is not a fixed point");
        let mut cmd = vec!["explore", name.as_str(), "--quiet", "--threads", "1"];
        cmd.extend(args);
        let (code, out, err) = ioa(&cmd);
        report.push_str(&format!(
            "$ ioa {}\nexit {code}\n{out}{err}\n",
            cmd.join(" ")
        ));
    }
    insta::assert_snapshot!("independently_written_models", report);
    let (code, out, err) = ioa(&["prove", "tests/data/manual/independent/voting.ioa"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("4 obligation(s): 4 proved"), "{out}");
}
