//! Data-driven tests of the prover library: every model in `tests/data/prove/` is checked, its
//! obligations generated and run through Z3, and the verdicts (with counterexamples, or the
//! encoding error) are snapshotted. The files say in their first comment what they show.

mod common;

use ioa_lang::diagnostics::IntoDiagnostic;
use prover_export::obligations::{invariant, simulation};
use prover_export::solve::{self, budget, Budget, Verdict};
use prover_export::Assumptions;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Every obligation's name and verdict, then the counterexamples (or the encoding error).
fn report(path: &Path) -> String {
    let result = ioa_lang::check_files(&[path.to_path_buf()], &common::Disk);
    let spec = result.spec.expect("test models type-check");
    let mut obligations = Vec::new();
    for k in 0..spec.invariants.len() {
        match invariant::obligations(&spec, k, &Assumptions::AsDeclared) {
            Ok(o) => obligations.extend(o),
            Err(e) => return format!("error: {}", e.to_diagnostic().message),
        }
    }
    for k in 0..spec.simulations.len() {
        match simulation::obligations(&spec, k, &Assumptions::AsDeclared) {
            Ok(o) => obligations.extend(o),
            Err(e) => return format!("error: {}", e.to_diagnostic().message),
        }
    }
    let mut table = String::new();
    let mut details = String::new();
    for ob in &obligations {
        let outcome = solve::check(
            &spec,
            ob,
            &Budget::new(budget::DEFAULT_PROVE_RLIMIT, Duration::from_secs(120)),
        );
        table.push_str(&format!("{}: {}\n", ob.name(), outcome.verdict.word()));
        if let Verdict::Failed(cex) = &outcome.verdict {
            details.push_str(&format!("\n{}:\n{}", ob.name(), cex.render()));
        }
    }
    table + &details
}

#[test]
fn prove_data() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/prove");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("test data")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ioa"))
        .collect();
    files.sort();
    assert!(files.len() >= 6);
    for f in files {
        let name = f.file_stem().unwrap().to_string_lossy().to_string();
        insta::assert_snapshot!(name, report(&f));
    }
}

/// The Houdini API: over Global1's transitions, a false candidate (`size(succeeded) ≤ 1`) is
/// dropped and the invariants that are inductive together survive. (Inv3 may be dropped here:
/// under `check_assumptions` Z3 runs incrementally and can answer unknown on its `abstain` step,
/// which the fixpoint treats as not preserved; `ioa prove`'s portfolio proves it.)
#[test]
fn houdini_fixpoint_drops_the_wrong_candidate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/consensus");
    let result = ioa_lang::check_files(&[root.join("global1_wrong_invariant.ioa")], &common::Disk);
    let spec = result.spec.expect("the example type-checks");
    let global1 = spec.invariants[0].automaton;
    let ours: Vec<&ioa_lang::ir::Invariant> = spec
        .invariants
        .iter()
        .filter(|i| i.automaton == global1)
        .collect();
    let names: Vec<&str> = ours.iter().map(|i| i.name.as_str()).collect();
    let bodies: Vec<&ioa_lang::ir::Expr> = ours.iter().map(|i| &i.body).collect();
    let checker = prover_export::houdini::CandidateChecker::new(
        &spec,
        global1,
        &bodies,
        Budget::new(budget::DEFAULT_QUERY_RLIMIT, Duration::from_secs(60)),
    )
    .expect("Global1 encodes");
    assert_eq!(checker.n_transitions(), 9);
    let all: Vec<usize> = (0..bodies.len()).collect();
    let survivors: Vec<&str> = checker.fixpoint(&all).iter().map(|k| names[*k]).collect();
    assert!(!survivors.contains(&"AtMostOneSucceeded"), "{survivors:?}");
    for needed in [
        "Inv1",
        "Inv2",
        "Inv4",
        "Inv6",
        "QuorumsIntersect",
        "DeadAbstained",
    ] {
        assert!(
            survivors.contains(&needed),
            "{needed} dropped: {survivors:?}"
        );
    }
}
