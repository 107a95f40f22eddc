//! Differential tests over generated models (`tests/generator/mod.rs`): every way `ioa` reaches
//! a verdict about a model must agree with the others.
//! - the compiled engine and the interpreter: the same verdict line (counts, depth);
//! - one thread and two: the same verdict line;
//! - two processes of the distributed explorer (every [`DISTRIBUTED_EVERY`]-th model): the
//!   same verdict line as one thread;
//! - partial-order reduction (`--reduction por`) and full exploration: the same verdict (the
//!   stored counts differ), and a reduced counterexample replays;
//! - the interpreter's random runs and the explorer: every state a random run reaches is
//!   reachable, so a violation a random run finds after K steps is found by breadth-first
//!   exploration with a shortest counterexample of at most K steps, and a verified model has no
//!   violating random run;
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
use std::net::TcpListener;
use std::process::{Command, Stdio};

/// One model in this many also runs on two processes of the distributed explorer.
const DISTRIBUTED_EVERY: u64 = 10;

/// The verdict line of process 0 of a two-process exploration of `path`.
fn two_processes(path: &str, what: &str) -> (i32, String) {
    let listeners: Vec<TcpListener> = (0..2)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    let hosts = scratch("differential", &format!("{}.hosts", path.replace('/', "_")));
    let text: String = listeners
        .iter()
        .map(|l| format!("{}\n", l.local_addr().expect("address")))
        .collect();
    std::fs::write(&hosts, text).expect("hostfile");
    drop(listeners);
    let children: Vec<_> = (0..2)
        .map(|p| {
            Command::new(env!("CARGO_BIN_EXE_ioa"))
                .current_dir(common::ROOT)
                .env("NO_COLOR", "1")
                .args(["explore", path, "--quiet", "--max-states", "20000"])
                .args([
                    "--processes",
                    "2",
                    "--process",
                    &p.to_string(),
                    "--hostfile",
                ])
                .arg(&hosts)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("ioa starts")
        })
        .collect();
    let mut outs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("output"))
        .collect();
    let first = outs.remove(0);
    let err = String::from_utf8_lossy(&first.stderr).to_string();
    let code = first.status.code().unwrap_or(-1);
    assert!(
        code == 0 || code == 1 || code == 3,
        "{what}\ntwo processes:\n{err}"
    );
    (code, verdict(&err))
}

/// The step after which a random run stopped at a violation (0: in a start state).
fn random_violation_step(err: &str) -> Option<u64> {
    if err.contains("violated in the start state") || err.contains("violated in a start state") {
        return Some(0);
    }
    let after = err.split("violated after step ").nth(1)?;
    after
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// The length of the explorer's shortest counterexample.
fn shortest(err: &str) -> Option<u64> {
    let rest = err.split("shortest counterexample: ").nth(1)?;
    rest.split(' ').next()?.parse().ok()
}

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
    if model.seed % DISTRIBUTED_EVERY == 0 {
        let (d_code, d_verdict) = two_processes(&path, &what);
        assert_eq!(
            (i_code, verdict(&i_err)),
            (d_code, d_verdict),
            "{what}\n1 thread:\n{i_err}\ntwo processes differ"
        );
    }
    let (r_code, _, r_err) = explore(&["--threads", "1", "--reduction", "por"]);
    if i_code != 3 && r_code != 3 {
        assert_eq!(
            i_code, r_code,
            "{what}\nfull:\n{i_err}\npartial-order reduced:\n{r_err}"
        );
    }
    if r_code == 1 {
        let trace = scratch("differential", &format!("gen{}-por.json", model.seed));
        let trace = trace.display().to_string();
        let _ = explore(&["--threads", "1", "--reduction", "por", "--trace", &trace]);
        let (code, _, err) = ioa(&["replay", &trace]);
        assert_eq!(
            code, 1,
            "{what}\nreplay of the reduced counterexample:\n{err}"
        );
    }
    let seed = model.seed.to_string();
    let (w_code, _, w_err) = ioa(&[
        "run", &path, "--random", "--runs", "5", "--steps", "30", "--seed", &seed, "--quiet",
    ]);
    if i_code == 0 {
        assert_eq!(
            w_code, 0,
            "{what}\nverified, yet a random run stops:\n{w_err}"
        );
    }
    if let (1, Some(k)) = (i_code, random_violation_step(&w_err)) {
        let n = shortest(&i_err).unwrap_or_else(|| panic!("{what}\nno length in:\n{i_err}"));
        assert!(
            n <= k,
            "{what}\na random run violates after {k} steps, the explorer's shortest is {n}"
        );
    }
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
    let shortest = shortest(&i_err).map_or(String::new(), |n| format!(" (shortest {n})"));
    let random = random_violation_step(&w_err).map_or("random runs hold".to_string(), |k| {
        format!("random violation after {k}")
    });
    format!(
        "seed {}: explore exit {i_code}{shortest}, por exit {r_code}, {random}, prove {}",
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
