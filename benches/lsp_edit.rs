//! Per-change latency of `ioa lsp` on the distributed Paxos model (examples/paxos/paxos.ioa,
//! 417 lines importing cons.ioa and global1.ioa: about 600 lines of model): the time from
//! sending a `didChange` with the edited text to receiving its `publishDiagnostics`, as an
//! editor would measure it. The edits alternate between one that breaks the model (a misspelt
//! state variable, so the checker reports E0101 with a quick fix) and the original text.
//!
//! `cargo bench --bench lsp_edit` (release build); `-- N` sets the number of changes (default
//! 60). Prints the median, 90th percentile and maximum in milliseconds, for all changes and
//! separately for the breaking and the restoring ones.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

fn main() {
    let changes: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(60);
    let root = env!("CARGO_MANIFEST_DIR");
    let path = Path::new(root).join("examples/paxos/paxos.ioa");
    let text = std::fs::read_to_string(&path).expect("read paxos.ioa");
    let broken = text.replacen("N[n].decision ≠ nil", "N[n].decison ≠ nil", 1);
    assert_ne!(broken, text, "the edit must change the text");
    let uri = format!("file://{}", path.display());

    let mut child = Command::new(env!("CARGO_BIN_EXE_ioa"))
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start ioa lsp");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |message: Value| {
        let body = message.to_string();
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        stdin.flush().unwrap();
    };
    let mut diagnostics_count = || loop {
        let message = read_message(&mut stdout).expect("ioa lsp ended");
        if message["method"] == json!("textDocument/publishDiagnostics") {
            return message["params"]["diagnostics"]
                .as_array()
                .map_or(0, Vec::len);
        }
    };
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"processId": null, "rootUri": null, "capabilities": {}}}));
    send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument":
                {"uri": uri, "languageId": "ioa", "version": 1, "text": text}}}),
    );
    assert_eq!(diagnostics_count(), 0, "paxos.ioa checks");

    let mut millis = Vec::with_capacity(changes);
    for change in 0..changes {
        let (body, expected) = if change % 2 == 0 {
            (&broken, 1)
        } else {
            (&text, 0)
        };
        let started = Instant::now();
        send(
            json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                    "textDocument": {"uri": uri, "version": change + 2},
                    "contentChanges": [{"text": body}]}}),
        );
        let count = diagnostics_count();
        millis.push(started.elapsed().as_secs_f64() * 1e3);
        assert_eq!(count, expected, "change {change}");
    }
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": null}));
    send(json!({"jsonrpc": "2.0", "method": "exit", "params": null}));
    let _ = child.wait();

    // Even changes break the model (the checker stops at the error), odd ones restore it (a
    // full check, the slower case).
    let breaking: Vec<f64> = millis.iter().step_by(2).copied().collect();
    let restoring: Vec<f64> = millis.iter().skip(1).step_by(2).copied().collect();
    for (what, times) in [
        ("all", millis),
        ("breaking", breaking),
        ("restoring", restoring),
    ] {
        let mut times = times;
        times.sort_by(f64::total_cmp);
        let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
        println!(
            "ioa lsp, examples/paxos/paxos.ioa, {what} changes ({}): per change median {:.1} ms, p90 {:.1} ms, max {:.1} ms",
            times.len(),
            at(0.5),
            at(0.9),
            times[times.len() - 1]
        );
    }
}

fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}
