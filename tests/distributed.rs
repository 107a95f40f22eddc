//! End-to-end tests of distributed exploration (`ioa explore --processes 2 --process P
//! --hostfile F`): two processes on loopback against the single-process explorer.
//!
//! - Every `tests/data/distributed/cases/*.args` file holds `%` comments, then the arguments of
//!   `ioa explore` (one per line). The model is explored by one process and by two, each with
//!   `--format json --trace FILE`: verdict, distinct states, generated states, depth and levels
//!   completed must be equal when every state was explored or a depth limit stopped both, and
//!   a counterexample must be the same trace, state for state. The two-process JSON (with the
//!   per-worker counters) is an insta snapshot, which pins the counts.
//! - A process killed mid-run makes the other stop with an error naming it (no hang).
//! - A bad hostfile is an error naming the file and line.

mod common;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn ioa() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ioa"));
    c.current_dir(common::ROOT)
        .env("NO_COLOR", "1")
        .env_remove("RUST_BACKTRACE");
    c
}

fn scratch(case: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("distributed-tests")
        .join(case);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// A hostfile of `n` free loopback ports.
fn hostfile(dir: &Path, n: usize) -> PathBuf {
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    let text: String = listeners
        .iter()
        .map(|l| format!("{}\n", l.local_addr().expect("address")))
        .collect();
    let path = dir.join("hosts");
    std::fs::write(&path, text).expect("hostfile written");
    path
}

/// Waits for a process, killing it after `limit`.
fn wait(mut child: Child, limit: Duration) -> Output {
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("a process hung for {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().expect("output")
}

/// Starts `processes` processes of `ioa explore ARGS… --processes N --process P --hostfile H`.
fn cluster(args: &[&str], dir: &Path, processes: usize, extra: &[&[&str]]) -> Vec<Child> {
    let hosts = hostfile(dir, processes);
    (0..processes)
        .map(|p| {
            let mut c = ioa();
            c.arg("explore")
                .args(args)
                .args(["--processes", &processes.to_string()])
                .args(["--process", &p.to_string()])
                .arg("--hostfile")
                .arg(&hosts)
                .args(extra.get(p).copied().unwrap_or(&[]))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            c.spawn().expect("ioa starts")
        })
        .collect()
}

fn json_of(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}):\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn two_processes_explore_as_one() {
    insta::glob!("data/distributed/cases/*.args", |path: &Path| {
        let text = std::fs::read_to_string(path).expect("readable");
        let args: Vec<&str> = text.lines().filter(|l| !l.starts_with('%')).collect();
        let name = path.file_stem().and_then(|s| s.to_str()).expect("name");
        let dir = scratch(name);

        let single_trace = dir.join("single.itf.json");
        let single = ioa()
            .arg("explore")
            .args(&args)
            .args(["--format", "json", "--trace"])
            .arg(&single_trace)
            .output()
            .expect("ioa runs");
        let single_json = json_of(&single);

        let dist_trace = dir.join("dist.itf.json");
        let trace_arg = dist_trace.to_str().expect("UTF-8").to_string();
        let extra: [&[&str]; 2] = [&["--format", "json", "--trace", &trace_arg], &["--quiet"]];
        let children = cluster(&args, &dir, 2, &extra);
        let outs: Vec<Output> = children
            .into_iter()
            .map(|c| wait(c, Duration::from_secs(120)))
            .collect();
        let dist_json = json_of(&outs[0]);
        assert_eq!(
            outs[0].status.code(),
            single.status.code(),
            "{name}: exit codes\n{}",
            String::from_utf8_lossy(&outs[0].stderr)
        );
        assert_eq!(
            outs[1].status.code(),
            single.status.code(),
            "{name}: process 1"
        );

        for field in ["verdict", "invariant", "counterexample_steps", "limit"] {
            assert_eq!(dist_json[field], single_json[field], "{name}: {field}");
        }
        if single_json["verdict"] == "violation" {
            // The same shortest counterexample, state for state.
            let read = |p: &Path| -> serde_json::Value {
                serde_json::from_slice(&std::fs::read(p).expect("trace written")).expect("JSON")
            };
            let (a, b) = (read(&single_trace), read(&dist_trace));
            assert_eq!(a["states"], b["states"], "{name}: counterexamples differ");
            let replay = ioa()
                .arg("replay")
                .arg(&dist_trace)
                .output()
                .expect("replay runs");
            assert_eq!(
                replay.status.code(),
                Some(1),
                "{name}: replay shows the violation"
            );
        } else {
            for field in common::EXPLORE_COUNTS {
                assert_eq!(dist_json[field], single_json[field], "{name}: {field}");
            }
        }
        let mut pinned = dist_json.clone();
        for volatile in ["seconds", "states_per_second", "bytes_per_state", "trace"] {
            pinned[volatile] = serde_json::Value::Null;
        }
        if pinned["spill"].is_object() {
            pinned["spill"]["disk_seconds"] = serde_json::Value::Null;
        }
        if let Some(workers) = pinned["distributed"]["workers"].as_array_mut() {
            for w in workers {
                w["resident_bytes"] = serde_json::Value::Null;
            }
        }
        insta::assert_snapshot!(serde_json::to_string_pretty(&pinned).expect("JSON"));
    });
}

#[test]
fn a_killed_process_stops_the_others_with_its_name() {
    let dir = scratch("killed");
    // 3 proposers and 3 acceptors: 770,377 states, far more than a few seconds of work.
    let args = [
        "examples/groove_paxos/paxos.ioa",
        "--param",
        "maj=2",
        "--universe",
        "Prop = [1]..[3]",
        "--universe",
        "Acc = [0]..[2]",
    ];
    let mut children = cluster(&args, &dir, 2, &[]);
    std::thread::sleep(Duration::from_secs(4));
    let mut second = children.pop().expect("process 1");
    let first = children.pop().expect("process 0");
    assert!(
        second.try_wait().expect("wait").is_none(),
        "process 1 ended before it was killed"
    );
    second.kill().expect("process 1 killed");
    let _ = second.wait();
    let out = wait(first, Duration::from_secs(60));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    // Usually the receiving thread sees the closed socket first ("reading data: socket closed");
    // the sending one may see it first ("writing data: …").
    assert!(
        stderr.contains("error: lost process 1 (worker 1): "),
        "{stderr}"
    );
    assert!(
        stderr.contains("; the search stopped on every process that is left\n"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_bad_hostfile_names_its_line() {
    let out = ioa()
        .args([
            "explore",
            "examples/groove_paxos/paxos.ioa",
            "--param",
            "maj=2",
            "--processes",
            "2",
            "--hostfile",
            "tests/data/distributed/bad.hosts",
        ])
        .output()
        .expect("ioa runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: tests/data/distributed/bad.hosts:3: `node2` is not an address; each line of a hostfile is `host:port` (say `127.0.0.1:2101`), one per process in process order\n"
    );
    let out = ioa()
        .args([
            "explore",
            "examples/groove_paxos/paxos.ioa",
            "--param",
            "maj=2",
            "--processes",
            "2",
            "--process",
            "2",
        ])
        .output()
        .expect("ioa runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --process must be below --processes (2 is not below 2)\n"
    );
}

/// A search killed (SIGKILL) after a checkpoint and resumed from it reports the counts of an
/// uninterrupted search; resuming a finished search's last checkpoint gives its counterexample.
#[test]
fn a_killed_search_resumes_from_its_checkpoint() {
    let dir = scratch("resume");
    let checkpoints = dir.join("checkpoints");
    let cp = checkpoints.to_str().expect("UTF-8");
    // 3 proposers, 3 acceptors, symmetric in Acc: 139,270 states (README table), depth 25.
    let args = [
        "explore",
        "examples/groove_paxos/paxos.ioa",
        "--param",
        "maj=2",
        "--universe",
        "Prop = [1]..[3]",
        "--universe",
        "Acc = [0]..[2]",
        "--symmetric",
        "Acc",
        "--format",
        "json",
    ];
    let mut first = ioa()
        .args(args)
        .args(["--checkpoint", cp, "--checkpoint-every", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ioa starts");
    // Kill it once a checkpoint past level 8 is complete.
    let started = Instant::now();
    let level = loop {
        let done = std::fs::read_dir(&checkpoints).ok().and_then(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().to_string();
                    let d: u32 = name.strip_prefix("level-")?.parse().ok()?;
                    e.path().join("worker-0.bin").is_file().then_some(d)
                })
                .max()
        });
        if let Some(d) = done.filter(|&d| d >= 8) {
            break d;
        }
        assert!(
            first.try_wait().expect("wait").is_none(),
            "the search ended before it could be killed"
        );
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no checkpoint"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    first.kill().expect("killed");
    let _ = first.wait();
    let resumed = ioa()
        .args(args)
        .args(["--resume", cp, "--checkpoint", cp])
        .output()
        .expect("ioa runs");
    let resumed_json = json_of(&resumed);
    let whole = ioa().args(args).output().expect("ioa runs");
    let whole_json = json_of(&whole);
    assert_eq!(resumed.status.code(), Some(0), "{level}");
    for field in [
        "verdict",
        "states",
        "generated",
        "checked",
        "depth",
        "levels_completed",
    ] {
        assert_eq!(
            resumed_json[field], whole_json[field],
            "{field} (killed at level {level})"
        );
    }
    assert_eq!(resumed_json["states"], 139_270);

    // The counterexample of a low majority, through its last checkpoint.
    let low = dir.join("low");
    let low_cp = low.to_str().expect("UTF-8");
    let low_args = [
        "explore",
        "examples/groove_paxos/paxos.ioa",
        "--param",
        "maj=1",
        "--symmetric",
        "Acc",
    ];
    let a = ioa()
        .args(low_args)
        .args(["--checkpoint", low_cp, "--checkpoint-every", "0"])
        .output()
        .expect("ioa runs");
    let b = ioa()
        .args(low_args)
        .args(["--resume", low_cp])
        .output()
        .expect("ioa runs");
    assert_eq!(a.status.code(), Some(1));
    assert_eq!(b.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&a.stdout),
        String::from_utf8_lossy(&b.stdout)
    );
    assert_eq!(String::from_utf8_lossy(&a.stdout).lines().count(), 10);
    assert!(String::from_utf8_lossy(&b.stderr).contains("resumed at level 10 from"));
}

/// Explores `args` with one process of the single-process explorer and with clusters of 1, 2
/// and 4 processes over loopback; every run must report the same verdict, distinct states,
/// generated states and depth. Returns the single-process report.
fn explores_alike_on_1_2_and_4_processes(name: &str, args: &[&str]) -> serde_json::Value {
    let single = ioa()
        .arg("explore")
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("ioa runs");
    let single_json = json_of(&single);
    for n in [1usize, 2, 4] {
        let dir = scratch(&format!("{name}-{n}"));
        let extra: Vec<[&str; 2]> = (0..n).map(|_| ["--format", "json"]).collect();
        let extra: Vec<&[&str]> = extra.iter().map(|e| e.as_slice()).collect();
        let children = cluster(args, &dir, n, &extra);
        let outs: Vec<Output> = children
            .into_iter()
            .map(|c| wait(c, Duration::from_secs(1200)))
            .collect();
        for (p, out) in outs.iter().enumerate() {
            let json = json_of(out);
            for field in [
                "verdict",
                "states",
                "generated",
                "depth",
                "levels_completed",
            ] {
                assert_eq!(
                    json[field], single_json[field],
                    "{name}: {field} with {n} processes (process {p})"
                );
            }
        }
    }
    single_json
}

/// Explores the acceptance's 2P/5A Paxos (high majority) with `extra` arguments on 1, 2 and 4
/// processes (see [`explores_alike_on_1_2_and_4_processes`]); the search must verify the model.
/// Returns the single-process report.
fn two_proposers_five_acceptors(name: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "examples/groove_paxos/paxos.ioa",
        "--param",
        "maj=3",
        "--universe",
        "Acc = [0]..[4]",
    ];
    args.extend(extra);
    let json = explores_alike_on_1_2_and_4_processes(name, &args);
    assert_eq!(json["verdict"], "verified");
    json
}

/// The acceptance's 2P/5A, high majority, with acceptor symmetry: 1, 2 and 4 processes give
/// the single-process explorer's counts and depth (pinned).
#[test]
fn two_proposers_five_acceptors_symmetric_on_1_2_and_4_processes() {
    let json = two_proposers_five_acceptors("2p5a-sym", &["--symmetric", "Acc"]);
    insta::assert_snapshot!(format!(
        "{} states, {} generated, depth {}",
        json["states"], json["generated"], json["depth"]
    ));
}

/// The same without symmetry (too slow for a debug build under load: run it with `cargo test
/// --release --test distributed -- --ignored`).
#[test]
#[ignore]
fn two_proposers_five_acceptors_on_1_2_and_4_processes() {
    let json = two_proposers_five_acceptors("2p5a", &[]);
    insta::assert_snapshot!(format!(
        "{} states, {} generated, depth {}",
        json["states"], json["generated"], json["depth"]
    ));
}

/// A model whose states hold interned values (the primitive Paxos's union-typed messages):
/// a checkpoint holds the values, not this process's ids, so a resumed search (a new process,
/// a new table of values) reports what the search that wrote it reported.
#[test]
fn interned_values_survive_a_checkpoint() {
    let dir = scratch("interned");
    let checkpoints = dir.join("checkpoints");
    let cp = checkpoints.to_str().expect("UTF-8");
    let args = [
        "explore",
        "examples/paxos/paxos_primitive.ioa",
        "--automaton",
        "Paxos",
        "--universe-file",
        "examples/paxos/explore.universe",
        "--max-depth",
        "9",
        "--format",
        "json",
    ];
    // A state limit (not part of a checkpoint's identity) stops the first search at level 8;
    // the resumed one reads that level's states back and explores to the depth limit.
    let (first, resumed) = stop_and_resume(&args, cp, "150", Some(3));
    assert_eq!(resumed["states"], 334);
    // The first search stopped early: the rest came from the states read back.
    assert!(first["states"].as_u64().expect("a count") < 334);
}

/// Explores `args` (with `--format json`) stopped by `--max-states max_states` with a
/// checkpoint at every level in `cp` (exit 3), resumes it, and checks that the resumed search
/// exits with `code` and reports the whole search's verdict and counts; the first and the
/// resumed JSON reports.
fn stop_and_resume(
    args: &[&str],
    cp: &str,
    max_states: &str,
    code: Option<i32>,
) -> (serde_json::Value, serde_json::Value) {
    let first = ioa()
        .args(args)
        .args(["--max-states", max_states])
        .args(["--checkpoint", cp, "--checkpoint-every", "0"])
        .output()
        .expect("ioa runs");
    assert_eq!(first.status.code(), Some(3));
    let resumed = ioa()
        .args(args)
        .args(["--resume", cp])
        .output()
        .expect("ioa runs");
    let whole = ioa().args(args).output().expect("ioa runs");
    let (whole_json, resumed_json) = (json_of(&whole), json_of(&resumed));
    assert_eq!(resumed.status.code(), code);
    for field in ["verdict", "states", "generated", "checked", "depth"] {
        assert_eq!(resumed_json[field], whole_json[field], "{field}");
    }
    (json_of(&first), resumed_json)
}

/// Partial-order reduction with checkpoints: a reduced search stopped by a state limit and
/// resumed from its checkpoint reports what the whole reduced search reports (the one-shot
/// vote of the reduction suite: 22,453 states of 574,512 reachable).
#[test]
fn a_reduced_search_checkpoints_and_resumes() {
    let dir = scratch("reduced");
    let checkpoints = dir.join("checkpoints");
    let cp = checkpoints.to_str().expect("UTF-8");
    let args = [
        "explore",
        "tests/data/reduction/quorum_vote.ioa",
        "--automaton",
        "Vote",
        "--param",
        "n=3",
        "--param",
        "lossy=false",
        "--param",
        "dup=false",
        "--param",
        "bug=false",
        "--universe",
        "Int=0..2",
        "--universe",
        "fail.i=2",
        "--reduction",
        "por",
        "--format",
        "json",
    ];
    let (first, resumed) = stop_and_resume(&args, cp, "2000", Some(0));
    assert!(first["states"].as_u64().expect("a count") < 22_453);
    assert_eq!(resumed["states"], 22_453);
    assert!(resumed["reduction"]["por"]["reduced_states"].as_u64() > Some(0));
}

/// LCR with 5 processes, a composite (compiled through its flattening): 364 states, depth 19.
const LCR5: [&str; 6] = [
    "explore",
    "examples/lcr/lcr.ioa",
    "--automaton",
    "LCR",
    "--param",
    "n=5",
];

#[test]
fn a_composite_checkpoints_and_resumes() {
    let dir = scratch("composite");
    let cp = dir.join("cp");
    let cp = cp.to_str().expect("UTF-8");
    let first = ioa()
        .args(LCR5)
        .args([
            "--checkpoint",
            cp,
            "--checkpoint-every",
            "0",
            "--max-depth",
            "10",
        ])
        .output()
        .expect("ioa runs");
    let err = String::from_utf8_lossy(&first.stderr);
    assert_eq!(first.status.code(), Some(3), "{err}");
    assert!(err.contains("the last, at level 11"), "{err}");
    let resumed = ioa()
        .args(LCR5)
        .args(["--max-depth", "10", "--resume", cp])
        .output()
        .expect("ioa runs");
    let err = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(3), "{err}");
    assert!(err.contains("resumed at level 11"), "{err}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_stops_the_search_and_keeps_the_last_checkpoint() {
    let dir = scratch("full-disk");
    let cp = dir.join("cp");
    // Level 5's file is written aside first: make that write fail as on a full disk.
    std::fs::create_dir_all(cp.join("level-5")).expect("level folder");
    std::os::unix::fs::symlink("/dev/full", cp.join("level-5").join("worker-0.tmp"))
        .expect("symlink to /dev/full");
    let cp_s = cp.to_str().expect("UTF-8");
    let out = ioa()
        .args(LCR5)
        .args(["--checkpoint", cp_s, "--checkpoint-every", "0"])
        .output()
        .expect("ioa runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert!(
        err.contains("the checkpoint of level 4") && err.contains("--resume"),
        "{err}"
    );
    std::fs::remove_file(cp.join("level-5").join("worker-0.tmp")).expect("unlink");
    let resumed = ioa()
        .args(LCR5)
        .args(["--resume", cp_s, "--format", "json"])
        .output()
        .expect("ioa runs");
    let whole = ioa()
        .args(LCR5)
        .args(["--format", "json"])
        .output()
        .expect("ioa runs");
    assert_eq!(resumed.status.code(), Some(0));
    let (r, w) = (json_of(&resumed), json_of(&whole));
    for field in ["verdict", "states", "generated", "depth"] {
        assert_eq!(r[field], w[field], "{field}");
    }
}

#[test]
fn a_damaged_cut_or_foreign_checkpoint_is_refused_clearly() {
    let dir = scratch("damaged");
    let cp = dir.join("cp");
    let cp_s = cp.to_str().expect("UTF-8");
    let made = ioa()
        .args(LCR5)
        .args([
            "--checkpoint",
            cp_s,
            "--checkpoint-every",
            "0",
            "--max-depth",
            "6",
        ])
        .output()
        .expect("ioa runs");
    assert_eq!(made.status.code(), Some(3));
    let file = cp.join("level-7").join("worker-0.bin");
    let good = std::fs::read(&file).expect("the level-7 checkpoint");
    let resume = |args: &[&str]| {
        let out = ioa()
            .args(args)
            .args(["--max-depth", "6", "--resume", cp_s])
            .output()
            .expect("ioa runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let mut damaged = good.clone();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 0x5a;
    std::fs::write(&file, &damaged).expect("write");
    let (code, err) = resume(&LCR5);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is damaged"), "{err}");
    std::fs::write(&file, &good[..good.len() / 3]).expect("write");
    let (code, err) = resume(&LCR5);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is cut short"), "{err}");
    std::fs::write(&file, b"level 7, but not a checkpoint\n").expect("write");
    let (code, err) = resume(&LCR5);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is not a checkpoint of ioa explore"), "{err}");
    std::fs::write(&file, &good).expect("write");
    let mut other = LCR5;
    other[5] = "n=4";
    let (code, err) = resume(&other);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is a checkpoint of another search"), "{err}");
    let (code, err) = resume(&LCR5);
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains("resumed at level 7"), "{err}");
}
