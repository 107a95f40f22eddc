//! Differential tests over generated models (`tests/generator/mod.rs`): every way `ioa` reaches
//! a verdict about a model must agree with the others.
//! - the compiled engine and the interpreter: the same verdict line (counts, depth); and the
//!   compiled engine with its expressions as machine code (the default) or as word code
//!   (`--engine words`);
//! - one thread and two: the same verdict line;
//! - two processes of the distributed explorer (every [`DISTRIBUTED_EVERY`]-th model): the
//!   same verdict line as one thread;
//! - partial-order reduction (`--reduction por`) and full exploration: the same verdict (the
//!   stored counts differ), and a reduced counterexample replays; reduced on two processes
//!   (every [`DISTRIBUTED_EVERY`]-th model): the same verdict line as reduced on one;
//! - the interpreter's random runs and the explorer: every state a random run reaches is
//!   reachable, so a violation a random run finds after K steps is found by breadth-first
//!   exploration with a shortest counterexample of at most K steps, and a verified model has no
//!   violating random run;
//! - `ioa prove` and exploration: an invariant Z3 proves inductive (assuming nothing else) is
//!   never violated in an explored state, and an explored violation is never "proved";
//! - every counterexample replays (`ioa replay`) to the same violation.
//!
//! For composites (a family of nodes over a network of channels) also:
//! - local model checking (`--local`) and global exploration: LMC never says "verified" where
//!   global search finds a violation, never confirms one where it verifies, and its runs replay.
//!
//! A disagreement is reported on the smallest model found by shrinking the failing one
//! ([`generator::Model::shrink`]). The CI-sized run takes `DIFFERENTIAL_MODELS` primitive
//! models (default 200) and `DIFFERENTIAL_COMPOSITES` composites (default 12) from fixed
//! seeds; the nightly-sized run is `DIFFERENTIAL_MODELS=10000 cargo test --release --test
//! differential -- --ignored` (and 1,000 composites).

mod common;
mod generator;

use common::{ioa, scratch};
use generator::Model;
use std::net::TcpListener;
use std::process::{Command, Stdio};

/// How many composites: `DIFFERENTIAL_COMPOSITES`, else `default`.
fn composites_count(default: u64) -> u64 {
    std::env::var("DIFFERENTIAL_COMPOSITES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One model in this many also runs on two processes of the distributed explorer.
const DISTRIBUTED_EVERY: u64 = 10;

/// The verdict line of process 0 of a two-process exploration of `path`.
/// `None` when the model is one the distributed explorer refuses (it is not compiled).
fn two_processes(selected: &[&str], what: &str) -> Option<(i32, String)> {
    let listeners: Vec<TcpListener> = (0..2)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    let hosts = scratch(
        "differential",
        &format!("{}.hosts", selected[0].replace('/', "_")),
    );
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
                .arg("explore")
                .args(selected)
                .args(["--quiet", "--max-states", "20000"])
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
    if code == 2 && err.contains("--processes needs the compiled engine") {
        return None;
    }
    assert!(
        code == 0 || code == 1 || code == 3,
        "{what}\ntwo processes:\n{err}"
    );
    Some((code, verdict(&err)))
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

/// The length of the explorer's shortest counterexample (in the reduced state space, under
/// partial-order reduction).
fn shortest(err: &str) -> Option<u64> {
    let rest = err
        .split("shortest counterexample: ")
        .nth(1)
        .or_else(|| err.split("(shortest in the reduced state space): ").nth(1))?;
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
                || l.starts_with("counterexample (shortest in the reduced state space)")
                || l.starts_with("stopped")
        })
        .unwrap_or("")
        .to_string()
}

/// Runs the comparisons on one model; returns a line describing it, or panics naming the seed.
fn compare(model: &Model) -> String {
    let stem = format!(
        "{}{}",
        if model.is_composite() { "comp" } else { "gen" },
        model.seed
    );
    let file = scratch("differential", &format!("{stem}.ioa"));
    let text = model.text();
    std::fs::write(&file, &text).expect("write model");
    if let Some(universe) = model.universe() {
        std::fs::write(file.with_extension("universe"), universe).expect("write universe");
    }
    let path = file.display().to_string();
    let model_args = model.args();
    let selected: Vec<&str> = std::iter::once(&path[..])
        .chain(model_args.iter().map(String::as_str))
        .collect();
    let what = format!("seed {} ({}):\n{text}", model.seed, model_args.join(" "));
    let (code, _, err) = ioa(&["check", &path]);
    assert_eq!(code, 0, "{what}\n{err}");
    let explore = |extra: &[&str]| {
        let mut args = vec!["explore"];
        args.extend(&selected);
        args.extend(["--quiet", "--max-states", "20000"]);
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
    let (w_code, _, w_err) = explore(&["--engine", "words", "--threads", "1"]);
    // A model outside the compiled subset is a usage error with `--engine words`.
    if !(w_code == 2 && w_err.contains("--engine words:")) {
        assert_eq!(
            (c_code, verdict(&c_err)),
            (w_code, verdict(&w_err)),
            "{what}\nmachine code:\n{c_err}\nword code:\n{w_err}"
        );
    }
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
    if model.seed % DISTRIBUTED_EVERY == 0 && i_code != 3 {
        // Verified: the same line (every state counted once over the processes); violated:
        // the same shortest length (where the processes stop in the level differs).
        if let Some((d_code, d_verdict)) = two_processes(&selected, &what) {
            // Stopped at the state limit: the distributed explorer checks it between levels
            // (`--max-states` says so), so only the exit code is compared.
            let key = |code: i32, line: &str| match code {
                1 => shortest(line).map(|n| n.to_string()).unwrap_or_default(),
                3 => String::new(),
                _ => line.to_string(),
            };
            assert_eq!(
                (i_code, key(i_code, &verdict(&i_err))),
                (d_code, key(d_code, &d_verdict)),
                "{what}\n1 thread:\n{i_err}\ntwo processes:\n{d_verdict}"
            );
        }
    }
    let (r_code, _, r_err) = explore(&["--threads", "1", "--reduction", "por"]);
    if i_code != 3 && r_code != 3 {
        assert_eq!(
            i_code, r_code,
            "{what}\nfull:\n{i_err}\npartial-order reduced:\n{r_err}"
        );
    }
    if model.seed % DISTRIBUTED_EVERY == 0 && r_code != 3 {
        // Reduced over two processes: the owners answer the cycle proviso, so the reduced
        // state space is the one process's (the same line when verified).
        let mut reduced = selected.clone();
        reduced.extend(["--reduction", "por"]);
        if let Some((d_code, d_verdict)) = two_processes(&reduced, &what) {
            let key = |code: i32, line: &str| match code {
                1 => shortest(line).map(|n| n.to_string()).unwrap_or_default(),
                _ => line.to_string(),
            };
            assert_eq!(
                (r_code, key(r_code, &verdict(&r_err))),
                (d_code, key(d_code, &d_verdict)),
                "{what}\nreduced, one process:\n{r_err}\nreduced, two processes:\n{d_verdict}"
            );
        }
    }
    if r_code == 1 {
        let trace = scratch("differential", &format!("{stem}-por.json"));
        let trace = trace.display().to_string();
        let _ = explore(&["--threads", "1", "--reduction", "por", "--trace", &trace]);
        let (code, _, err) = ioa(&["replay", &trace]);
        assert_eq!(
            code, 1,
            "{what}\nreplay of the reduced counterexample:\n{err}"
        );
    }
    let seed = model.seed.to_string();
    let mut walk = vec!["run"];
    walk.extend(&selected);
    walk.extend([
        "--random", "--runs", "5", "--steps", "30", "--seed", &seed, "--quiet",
    ]);
    let (w_code, _, w_err) = ioa(&walk);
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
        let trace = scratch("differential", &format!("{stem}.json"));
        let trace = trace.display().to_string();
        let (_, _, _) = explore(&["--trace", &trace]);
        let (r_code, _, r_err) = ioa(&["replay", &trace]);
        assert_eq!(r_code, 1, "{what}\nreplay:\n{r_err}");
    }
    let shortest = shortest(&i_err).map_or(String::new(), |n| format!(" (shortest {n})"));
    let random = random_violation_step(&w_err).map_or("random runs hold".to_string(), |k| {
        format!("random violation after {k}")
    });
    let last = if model.is_composite() {
        local(&selected, i_code, &stem, &what)
    } else {
        prove(&path, i_code, &i_err, &what)
    };
    format!(
        "seed {}: explore exit {i_code}{shortest}, por exit {r_code}, {random}, {last}",
        model.seed
    )
}

/// `ioa prove` against exploration: an invariant proved inductive is never violated.
fn prove(path: &str, i_code: i32, i_err: &str, what: &str) -> String {
    let (p_code, p_out, p_err) = ioa(&["prove", path, "--assume", "none", "--rlimit", "2000000"]);
    let proved = p_code == 0;
    if proved {
        assert_ne!(
            i_code, 1,
            "{what}\nproved, yet exploration violates it:\n{p_out}{p_err}\n{i_err}"
        );
    }
    format!("prove {}", if proved { "proved" } else { "not proved" })
}

/// Local model checking against global exploration: LMC never says "verified" where global
/// search finds a violation, a violation it confirms is one global search finds too, and its
/// run replays.
fn local(selected: &[&str], g_code: i32, stem: &str, what: &str) -> String {
    let trace = scratch("differential", &format!("{stem}-lmc.json"));
    let trace = trace.display().to_string();
    let mut args = vec!["explore"];
    args.extend(selected);
    args.extend([
        "--local",
        "--quiet",
        "--max-states",
        "20000",
        "--trace",
        &trace,
    ]);
    let (l_code, _, l_err) = ioa(&args);
    assert!(
        [0, 1, 3].contains(&l_code),
        "{what}\nLMC exit {l_code}:\n{l_err}"
    );
    if g_code == 1 {
        assert_ne!(
            l_code, 0,
            "{what}\nLMC says verified, global exploration finds a violation:\n{l_err}"
        );
    }
    if l_code == 1 {
        assert_ne!(
            g_code, 0,
            "{what}\nLMC confirms a violation, global exploration verifies:\n{l_err}"
        );
        let (code, _, err) = ioa(&["replay", &trace]);
        assert_eq!(code, 1, "{what}\nreplay of LMC's run:\n{err}");
    }
    format!("lmc exit {l_code}")
}

/// Runs `compare` on `model`; on a disagreement, shrinks the model (keeping edits that still
/// disagree) and fails with the smallest one.
fn compare_or_shrink(model: Model) -> String {
    let quiet = |m: &Model| std::panic::catch_unwind(|| compare(m));
    let first = match quiet(&model) {
        Ok(line) => return line,
        Err(e) => e,
    };
    let mut smallest = model;
    'edits: loop {
        for candidate in smallest.shrink() {
            if quiet(&candidate).is_err() {
                smallest = candidate;
                continue 'edits;
            }
        }
        break;
    }
    let message = first
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| first.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    panic!(
        "disagreement on seed {} ({}); shrunk to:\n{}\nfirst failure:\n{message}",
        smallest.seed,
        smallest.args().join(" "),
        smallest.text()
    );
}

fn run(first: u64, count: u64) -> Vec<String> {
    (first..first + count)
        .map(|seed| compare_or_shrink(Model::generate(seed)))
        .collect()
}

fn run_composites(first: u64, count: u64) -> Vec<String> {
    (first..first + count)
        .map(|seed| compare_or_shrink(Model::composite(seed)))
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

#[test]
fn generated_composites_agree_across_engines_and_with_local_model_checking() {
    let lines = run_composites(0, composites_count(12));
    let violated = lines
        .iter()
        .filter(|l| l.contains("explore exit 1"))
        .count();
    let verified = lines
        .iter()
        .filter(|l| l.contains("explore exit 0"))
        .count();
    let lmc_verified = lines.iter().filter(|l| l.ends_with("lmc exit 0")).count();
    assert!(
        violated > 0 && verified > 0 && lmc_verified > 0,
        "{lines:#?}"
    );
    insta::assert_snapshot!(format!(
        "{} composites: {verified} verified, {violated} violated, {lmc_verified} verified by LMC\n{}",
        lines.len(),
        lines.join("\n")
    ));
}

/// The first seed of the nightly-sized run: `DIFFERENTIAL_FIRST`, else 1,000,000 (apart from the
/// CI run's seeds), so that a long run can be continued in pieces.
fn first_seed() -> u64 {
    std::env::var("DIFFERENTIAL_FIRST")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000)
}

/// Counts the kinds of verdict among `lines` so far: (verified, violated, proved inductive or
/// verified by LMC).
fn tally(lines: &[String]) -> (usize, usize, usize) {
    let count = |what: &str| lines.iter().filter(|l| l.contains(what)).count();
    let third = lines
        .iter()
        .filter(|l| l.ends_with("prove proved") || l.ends_with("lmc exit 0"))
        .count();
    (count("explore exit 0"), count("explore exit 1"), third)
}

/// The nightly-sized run: `DIFFERENTIAL_MODELS=10000 cargo test --release --test differential
/// -- --ignored` (1,000 composites, or `DIFFERENTIAL_COMPOSITES`). Progress is printed every 100
/// models with the seed reached, so an interrupted run can go on from `DIFFERENTIAL_FIRST`.
#[test]
#[ignore]
fn nightly_generated_models_agree() {
    let first = first_seed();
    nightly_batch(
        first,
        models(10_000),
        100,
        "models",
        "proved inductive",
        Model::generate,
    );
    nightly_batch(
        first,
        composites_count(1_000),
        50,
        "composites",
        "verified by LMC",
        Model::composite,
    );
}

/// Compares the models of seeds `first..first + count` made by `make`, printing the tally every
/// `every` models (with the seed reached) and at the end; `third` names the third count (proved
/// inductive for primitive models, verified by LMC for composites).
fn nightly_batch(
    first: u64,
    count: u64,
    every: usize,
    what: &str,
    third: &str,
    make: fn(u64) -> Model,
) {
    let mut lines = Vec::new();
    let report = |lines: &[String], upto: Option<u64>| {
        let (verified, violated, other) = tally(lines);
        let range = upto.map_or(String::new(), |seed| format!(" {first}..={seed}:"));
        eprintln!(
            "{what}{range} {} agreed ({verified} verified, {violated} violated, {other} {third})",
            lines.len()
        );
    };
    for seed in first..first + count {
        lines.push(compare_or_shrink(make(seed)));
        if lines.len() % every == 0 {
            report(&lines, Some(seed));
        }
    }
    report(&lines, None);
}
