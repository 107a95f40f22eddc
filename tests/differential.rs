//! Differential tests over generated models (`tests/generator/mod.rs`): every way `ioa` reaches
//! a verdict about a model must agree with the others.
//! - the compiled engine and the interpreter: the same verdict line (counts, depth);
//! - one thread and two: the same verdict line;
//! - `ioa prove` and exploration: an invariant Z3 proves inductive (assuming nothing else) is
//!   never violated in an explored state, and an explored violation is never "proved";
//! - every counterexample replays (`ioa replay`) to the same violation.
//!
//! The CI-sized run takes `DIFFERENTIAL_MODELS` models (default 200) from a fixed seed; the
//! nightly-sized run is `DIFFERENTIAL_MODELS=10000 cargo test --release --test differential --
//! --ignored`.

mod common;
mod generator;

use common::{ioa, scratch};
use generator::Model;

fn models(default: u64) -> u64 {
    std::env::var("DIFFERENTIAL_MODELS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The verdict line of an exploration (`verified: …` or `shortest counterexample: …`).
fn verdict(err: &str) -> String {
    err.lines()
        .find(|l| {
            l.starts_with("verified")
                || l.starts_with("shortest counterexample")
                || l.starts_with("stopped")
        })
        .unwrap_or("")
        .to_string()
}

/// Runs the comparisons on one model; returns a line describing it, or panics naming the seed.
fn compare(model: &Model) -> String {
    let file = scratch("differential", &format!("gen{}.ioa", model.seed));
    std::fs::write(&file, &model.text).expect("write model");
    let path = file.display().to_string();
    let what = format!("seed {}:\n{}", model.seed, model.text);
    let (code, _, err) = ioa(&["check", &path]);
    assert_eq!(code, 0, "{what}\n{err}");
    let explore = |extra: &[&str]| {
        let mut args = vec!["explore", &path[..], "--quiet", "--max-states", "20000"];
        args.extend(extra);
        ioa(&args)
    };
    let (i_code, _, i_err) = explore(&["--engine", "interpreter", "--threads", "1"]);
    let (c_code, _, c_err) = explore(&["--threads", "1"]);
    assert_eq!(
        i_code, c_code,
        "{what}\ninterpreted:\n{i_err}\ncompiled:\n{c_err}"
    );
    assert_eq!(
        verdict(&i_err),
        verdict(&c_err),
        "{what}\ninterpreted:\n{i_err}\nauto:\n{c_err}"
    );
    let (t_code, _, t_err) = explore(&["--threads", "2"]);
    assert_eq!(
        i_code, t_code,
        "{what}\n1 thread:\n{i_err}\n2 threads:\n{t_err}"
    );
    assert_eq!(
        verdict(&i_err),
        verdict(&t_err),
        "{what}\n1 thread:\n{i_err}\n2 threads:\n{t_err}"
    );
    if i_code == 1 {
        let trace = scratch("differential", &format!("gen{}.json", model.seed));
        let trace = trace.display().to_string();
        let (_, _, _) = explore(&["--trace", &trace]);
        let (r_code, _, r_err) = ioa(&["replay", &trace]);
        assert_eq!(r_code, 1, "{what}\nreplay:\n{r_err}");
    }
    let (p_code, p_out, p_err) = ioa(&["prove", &path, "--assume", "none", "--rlimit", "2000000"]);
    let proved = p_code == 0;
    if proved {
        assert_ne!(
            i_code, 1,
            "{what}\nproved, yet exploration violates it:\n{p_out}{p_err}\n{i_err}"
        );
    }
    format!(
        "seed {}: explore exit {i_code}, prove {}",
        model.seed,
        if proved { "proved" } else { "not proved" }
    )
}

fn run(first: u64, count: u64) -> Vec<String> {
    (first..first + count)
        .map(|seed| compare(&Model::generate(seed)))
        .collect()
}

#[test]
fn generated_models_agree_across_engines_threads_and_the_prover() {
    let lines = run(0, models(200));
    // The generator makes both kinds: verified and violated models, proved and unproved ones.
    let violated = lines.iter().filter(|l| l.contains("exit 1")).count();
    let verified = lines.iter().filter(|l| l.contains("exit 0")).count();
    let proved = lines.iter().filter(|l| l.ends_with("prove proved")).count();
    assert!(violated > 0 && verified > 0 && proved > 0, "{lines:#?}");
    insta::assert_snapshot!(format!(
        "{} models: {verified} verified, {violated} violated, {proved} proved inductive\n{}",
        lines.len(),
        lines.join("\n")
    ));
}

/// The nightly-sized run: `DIFFERENTIAL_MODELS=10000 cargo test --release --test differential
/// -- --ignored` (seeds from 1,000,000 on, apart from the CI run's).
#[test]
#[ignore]
fn nightly_generated_models_agree() {
    let lines = run(1_000_000, models(10_000));
    eprintln!("{} models agreed", lines.len());
}
