//! End-to-end tests of `ioa serve`'s JSON API (docs/serve.md): the binary is started on a free
//! port on loopback and driven over HTTP — LCR fired step by step (by position and by action),
//! back and forward, the path saved as ITF and accepted by `ioa replay`; a recorded Paxos
//! counterexample followed with `--from` shows the broken invariant; malformed requests are
//! 400s with a JSON error and the server keeps serving; a port in use and a trace of another
//! model are clear errors.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A running `ioa serve`, stopped when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(args: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ioa"))
        .arg("serve")
        .args(args)
        .args(["--port", "0", "--color", "never"])
        .current_dir(ROOT)
        .stderr(Stdio::piped())
        .spawn()
        .expect("start ioa serve");
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("no address in `{line}`"))
        .to_string();
    assert!(addr.starts_with("127.0.0.1:"), "{line}");
    Server { child, addr }
}

/// One HTTP/1.1 request; the status and the body.
fn request(s: &Server, method: &str, path: &str, body: &str) -> (u16, String) {
    request_at(&s.addr, method, path, body)
}

/// One HTTP/1.1 request to `addr`; the status and the body.
fn request_at(addr: &str, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        addr,
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    stream.read_to_string(&mut out).unwrap();
    let status = out[9..12].parse().unwrap();
    let body = out
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap();
    (status, body)
}

fn json(s: &Server, method: &str, path: &str, body: &str) -> (u16, serde_json::Value) {
    let (status, text) = request(s, method, path, body);
    (
        status,
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}")),
    )
}

fn path_lines(j: &serde_json::Value) -> Vec<&str> {
    j["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect()
}

#[test]
fn lcr_is_explored_step_by_step_and_the_saved_path_replays() {
    let s = serve(&[
        "examples/lcr/lcr.ioa",
        "--automaton",
        "LCR",
        "--param",
        "n=3",
    ]);
    let (status, page) = request(&s, "GET", "/", "");
    assert_eq!(status, 200);
    assert!(page.contains("<title>ioa serve: LCR</title>"));
    let (status, st) = json(&s, "GET", "/api/state", "");
    assert_eq!(status, 200);
    assert_eq!(st["step"], 0);
    let enabled: Vec<&str> = st["enabled"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["line"].as_str().unwrap())
        .collect();
    assert_eq!(
        enabled,
        [
            "internal send(0, 1, 0)",
            "internal send(1, 2, 1)",
            "internal send(2, 0, 2)"
        ]
    );
    let invariants = st["invariants"].as_array().unwrap();
    assert_eq!(invariants.len(), 7);
    assert!(invariants.iter().all(|i| i["holds"] == true));
    // By position, then by action and ITF arguments.
    let (_, st) = json(&s, "POST", "/api/fire", r#"{"index": 0}"#);
    assert_eq!(st["step"], 1);
    let changed: Vec<&str> = st["vars"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["changed"] == true)
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(changed, ["P[0].send", "C[0].queue"]);
    let (status, st) = json(
        &s,
        "POST",
        "/api/fire",
        r#"{"action": "receive", "args": [0, 1, 0]}"#,
    );
    assert_eq!(status, 200);
    let (_, st2) = json(
        &s,
        "POST",
        "/api/fire",
        r#"{"action": "send", "args": [1, 2, 1]}"#,
    );
    assert_eq!(path_lines(&st2).len(), 3);
    assert_eq!(st["step"], 2);
    // Back and forward.
    let (_, b) = json(&s, "POST", "/api/back", "");
    assert_eq!(
        (b["step"].as_u64(), b["can_forward"].as_bool()),
        (Some(2), Some(true))
    );
    let (_, f) = json(&s, "POST", "/api/forward", "");
    assert_eq!(path_lines(&f), path_lines(&st2));
    // The chart of the path: one arrow (the one delivery).
    assert_eq!(
        f["chart"]
            .as_str()
            .unwrap()
            .matches("<line class=\"msg")
            .count(),
        1
    );
    // Saved, it replays.
    let (status, itf) = request(&s, "GET", "/api/trace", "");
    assert_eq!(status, 200);
    let file = Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-lcr-path.itf.json");
    std::fs::write(&file, itf).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ioa"))
        .args(["replay", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "replayed 3 step(s) of LCR: every step enabled, every state as recorded\n"
    );
}

#[test]
fn malformed_requests_are_400s_and_the_server_carries_on() {
    let s = serve(&[
        "examples/lcr/lcr.ioa",
        "--automaton",
        "LCR",
        "--param",
        "n=3",
    ]);
    let cases: &[(&str, &str, &str, u16, &str)] = &[
        (
            "POST",
            "/api/fire",
            "{not json",
            400,
            "the request body is not JSON",
        ),
        ("POST", "/api/fire", "[1, 2]", 400, "must be a JSON object"),
        ("POST", "/api/fire", "{}", 400, "give `index`"),
        (
            "POST",
            "/api/fire",
            r#"{"index": -1}"#,
            400,
            "non-negative integer",
        ),
        (
            "POST",
            "/api/fire",
            r#"{"index": 99}"#,
            409,
            "there are 3 enabled step(s) here; no step 99",
        ),
        (
            "POST",
            "/api/fire",
            r#"{"action": "jump", "args": []}"#,
            400,
            "no action `jump`",
        ),
        (
            "POST",
            "/api/fire",
            r#"{"action": "send", "args": [0]}"#,
            400,
            "takes 3 argument(s), 1 given",
        ),
        (
            "POST",
            "/api/fire",
            r#"{"action": "send", "args": ["a", 1, 0]}"#,
            400,
            "is not a value of the expected type",
        ),
        (
            "POST",
            "/api/fire",
            r#"{"action": "receive", "args": [0, 1, 0]}"#,
            409,
            "is not enabled here",
        ),
        (
            "POST",
            "/api/start",
            r#"{"index": 5}"#,
            400,
            "number of start states, 1",
        ),
        (
            "GET",
            "/api/fire",
            "",
            405,
            "GET is not allowed on /api/fire",
        ),
        ("GET", "/etc/passwd", "", 404, "no such page"),
    ];
    for (method, path, body, status, message) in cases {
        let (got, j) = json(&s, method, path, body);
        assert_eq!(got, *status, "{method} {path} {body}: {j}");
        assert!(
            j["error"].as_str().unwrap().contains(message),
            "{method} {path} {body}: {j}"
        );
    }
    let (status, st) = json(&s, "GET", "/api/state", "");
    assert_eq!((status, st["step"].as_u64()), (200, Some(0)));
}

#[test]
fn a_recorded_counterexample_is_followed_and_its_broken_invariant_shown() {
    let trace = Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-paxos-bug.itf.json");
    let t = trace.to_str().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ioa"))
        .args([
            "run",
            "examples/paxos/paxos_planted_bug.ioa",
            "--schedule",
            "LastPromiseWins",
            "--trace",
            t,
        ])
        .current_dir(ROOT)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let s = serve(&[
        "examples/paxos/paxos_planted_bug.ioa",
        "--automaton",
        "PaxosBug",
        "--from",
        t,
    ]);
    let (_, st) = json(&s, "GET", "/api/state", "");
    assert_eq!(st["step"], 33);
    let broken: Vec<&str> = st["invariants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["holds"] == false)
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(broken, ["ChosenAgreement"]);
    let (_, b) = json(&s, "POST", "/api/back", "");
    assert!(b["invariants"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["holds"] == true));
}

/// Runs `ioa serve ARGS…` expecting it to stop at once; its exit code and standard error.
fn refused(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ioa"))
        .arg("serve")
        .args(args)
        .args(["--color", "never"])
        .current_dir(ROOT)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn a_port_in_use_and_a_trace_of_another_model_are_clear_errors() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let (code, err) = refused(&[
        "examples/lcr/lcr.ioa",
        "--automaton",
        "LCR",
        "--param",
        "n=3",
        "--port",
        &port,
    ]);
    assert_eq!(code, Some(1));
    assert!(
        err.starts_with(&format!("error: cannot listen on 127.0.0.1:{port}:")),
        "{err}"
    );
    assert!(err.contains("choose another with --port"), "{err}");
    let (code, err) = refused(&[
        "examples/lcr/lcr.ioa",
        "--automaton",
        "LCR",
        "--param",
        "n=3",
        "--from",
        "tests/data/local/global1_normal_run.json",
    ]);
    assert_eq!(code, Some(1));
    assert!(err.starts_with("error: tests/data/local/global1_normal_run.json is not a trace of LCR here: state 0 has no variable"), "{err}");
}

/// 100 clients at once on loopback (bounded: each makes 5 requests, all within 120 s): every
/// request is answered with a 200 and well-formed JSON, the slow or silent clients among them
/// (a connection that sends half a request and waits) do not stop the others, and the server
/// keeps serving afterwards.
#[test]
fn a_hundred_concurrent_clients_are_all_answered_and_the_server_keeps_serving() {
    let s = serve(&[
        "examples/lcr/lcr.ioa",
        "--automaton",
        "LCR",
        "--param",
        "n=3",
    ]);
    let started = std::time::Instant::now();
    // Ten connections that send half a request and stall while the others are served.
    let stalled: Vec<TcpStream> = (0..10)
        .map(|_| {
            let mut c = TcpStream::connect(&s.addr).expect("connect");
            write!(c, "GET /api/state HTTP/1.1\r\nHost: x\r\n").expect("half a request");
            c
        })
        .collect();
    let addr = s.addr.clone();
    let clients: Vec<std::thread::JoinHandle<Vec<u16>>> = (0..100)
        .map(|k| {
            let addr = addr.clone();
            std::thread::spawn(move || {
                let mut codes = Vec::new();
                for r in 0..5 {
                    let (code, text) = if (k + r) % 2 == 0 {
                        request_at(&addr, "GET", "/api/state", "")
                    } else {
                        request_at(&addr, "GET", "/api/trace", "")
                    };
                    if code == 200 {
                        serde_json::from_str::<serde_json::Value>(&text)
                            .unwrap_or_else(|e| panic!("client {k}: {e}: {text}"));
                    }
                    codes.push(code);
                }
                codes
            })
        })
        .collect();
    let mut answered = 0;
    for c in clients {
        let codes = c.join().expect("a client thread");
        assert!(codes.iter().all(|&c| c == 200), "{codes:?}");
        answered += codes.len();
    }
    assert_eq!(answered, 500);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(120),
        "500 requests took {:?}",
        started.elapsed()
    );
    drop(stalled);
    let (status, st) = json(&s, "GET", "/api/state", "");
    assert_eq!(status, 200);
    assert_eq!(st["step"], 0);
}

/// The request sequences kept from the `serve` fuzz target (`tests/data/fuzz/serve/`, one
/// request per line, `METHOD PATH BODY`; fuzz/README.md) sent over HTTP to a Global1 session:
/// every answer is a status of the API with a JSON body, and the server still serves after
/// each sequence. Lines that are not an HTTP request line (a method that is not a token, a
/// path with spaces) are the fuzzer's and are skipped here.
#[test]
fn the_fuzz_targets_request_sequences_get_json_answers() {
    let dir = Path::new(ROOT).join("tests/data/fuzz/serve");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 4, "{}", dir.display());
    let mut sent = 0;
    for file in files {
        let s = serve(&[
            "examples/consensus/global1.ioa",
            "--automaton",
            "Global1",
            "--universe-file",
            "examples/consensus/explore.universe",
        ]);
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines().take(64) {
            let mut parts = line.splitn(3, ' ');
            let (method, path, body) = (
                parts.next().unwrap_or(""),
                parts.next().unwrap_or(""),
                parts.next().unwrap_or(""),
            );
            let token = !method.is_empty() && method.bytes().all(|b| b.is_ascii_alphabetic());
            if !token || !path.starts_with('/') || !path.bytes().all(|b| b.is_ascii_graphic()) {
                continue;
            }
            let (status, answer) = request(&s, method, path, body);
            sent += 1;
            assert!(
                [200, 400, 404, 405, 409].contains(&status),
                "{}: `{line}` answered {status}: {answer}",
                file.display()
            );
            let route = path.split(['?', '#']).next().unwrap_or("");
            if !(status == 200 && (route == "/" || route == "/index.html")) {
                serde_json::from_str::<serde_json::Value>(&answer)
                    .unwrap_or_else(|e| panic!("{}: `{line}`: {e}: {answer}", file.display()));
            }
        }
        let (status, _) = json(&s, "GET", "/api/state", "");
        assert_eq!(status, 200, "{}", file.display());
    }
    assert!(sent >= 20, "only {sent} requests sent");
}
