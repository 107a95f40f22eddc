//! `ioa lsp` as an editor sees it: the binary runs as a separate process and the tests speak
//! JSON-RPC to it over its standard input and output (initialize, didOpen, didChange, requests,
//! shutdown, exit), as VS Code does. Positions go out and come back in UTF-16 code units; the
//! tests convert them with their own code and show the text a range covers, so a wrong
//! conversion shows up as the wrong word in a snapshot.

mod common;

use common::ROOT;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

/// How long one answer may take before the test fails (a debug build on a loaded machine).
const PATIENCE: Duration = Duration::from_secs(120);

/// A running `ioa lsp` and the messages it sent that nobody has read yet.
struct Session {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    unread: Vec<Value>,
    next_id: i64,
}

impl Session {
    /// Starts the server and completes the `initialize` handshake.
    fn start() -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ioa"))
            .arg("lsp")
            .current_dir(ROOT)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start `ioa lsp`");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (sender, incoming) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        let mut session = Session {
            child,
            stdin,
            incoming,
            unread: Vec::new(),
            next_id: 1,
        };
        let reply = session.request(
            "initialize",
            json!({ "processId": null, "rootUri": null, "capabilities": {} }),
        );
        let capabilities = &reply["capabilities"];
        for provider in [
            "hoverProvider",
            "definitionProvider",
            "referencesProvider",
            "documentSymbolProvider",
            "documentFormattingProvider",
            "codeActionProvider",
        ] {
            assert_eq!(
                capabilities[provider],
                json!(true),
                "{provider} in {capabilities}"
            );
        }
        session.notify("initialized", json!({}));
        session
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len())
            .expect("write to ioa lsp");
        self.stdin.flush().expect("flush to ioa lsp");
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and waits for its answer; a protocol error fails the test.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let reply = self.request_raw(method, params);
        assert!(reply.get("error").is_none(), "{method} failed: {reply}");
        reply["result"].clone()
    }

    fn request_raw(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        self.wait_for(|m| m["id"] == json!(id) && m.get("method").is_none())
    }

    /// The next message (read earlier or arriving now) that `wanted` accepts.
    fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(at) = self.unread.iter().position(&wanted) {
            return self.unread.remove(at);
        }
        loop {
            match self.incoming.recv_timeout(PATIENCE) {
                Ok(message) if wanted(&message) => return message,
                Ok(message) => self.unread.push(message),
                Err(RecvTimeoutError::Timeout) => {
                    panic!("`ioa lsp` did not answer within {PATIENCE:?}")
                }
                Err(RecvTimeoutError::Disconnected) => panic!("`ioa lsp` exited"),
            }
        }
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let message = self.wait_for(|m| {
            m["method"] == json!("textDocument/publishDiagnostics")
                && m["params"]["uri"] == json!(uri)
        });
        message["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Opens a file of the package as an editor does (its text in the message) and returns its
    /// URI and text.
    fn open(&mut self, path: &str) -> (String, String) {
        let text = std::fs::read_to_string(Path::new(ROOT).join(path)).expect("read test file");
        let uri = uri(path);
        let language = if path.ends_with(".universe") {
            "ioa-universe"
        } else {
            "ioa"
        };
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": language, "version": 1, "text": text } }),
        );
        (uri, text)
    }

    /// `shutdown` then `exit`; the server must end with status 0.
    fn finish(mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let status = self.child.wait().expect("wait for ioa lsp");
        assert!(status.success(), "`ioa lsp` ended with {status}");
    }
}

/// One `Content-Length`-framed message, or `None` at the end of the stream.
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

fn uri(path: &str) -> String {
    lsp_types::Url::from_file_path(Path::new(ROOT).join(path))
        .expect("absolute path")
        .to_string()
}

/// A package-relative path for a URI the server sent.
fn path_of(uri: &str) -> String {
    let path = lsp_types::Url::parse(uri)
        .expect("a URI")
        .to_file_path()
        .expect("a file URI");
    path.strip_prefix(ROOT)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}

/// The byte offset of an LSP position (UTF-16 code units), computed independently of the server.
fn offset(text: &str, line: u64, character: u64) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line as usize)
        .map(str::len)
        .sum();
    let mut units = 0;
    for (at, c) in text[line_start..].char_indices() {
        if units >= character || c == '\n' {
            return line_start + at;
        }
        units += c.len_utf16() as u64;
    }
    text.len()
}

/// The position of the `occurrence`-th `name` on 1-based `line`, in UTF-16 code units.
fn position_of(text: &str, line: usize, name: &str, occurrence: usize) -> Value {
    let line_text = text.lines().nth(line - 1).expect("line in file");
    let byte = line_text
        .match_indices(name)
        .nth(occurrence - 1)
        .unwrap_or_else(|| panic!("no {occurrence}. `{name}` on line {line}: {line_text}"))
        .0;
    json!({ "line": line - 1, "character": line_text[..byte].encode_utf16().count() })
}

/// `file:line:column `text`` for a location: what an editor would jump to and highlight.
fn show_location(location: &Value) -> String {
    let path = path_of(location["uri"].as_str().expect("uri"));
    let text = std::fs::read_to_string(Path::new(ROOT).join(&path)).unwrap_or_default();
    show_range(&path, &text, &location["range"])
}

fn show_range(path: &str, text: &str, range: &Value) -> String {
    let at = |p: &Value| {
        offset(
            text,
            p["line"].as_u64().unwrap(),
            p["character"].as_u64().unwrap(),
        )
    };
    let (start, end) = (at(&range["start"]), at(&range["end"]));
    format!(
        "{path}:{}:{} `{}`",
        range["start"]["line"].as_u64().unwrap() + 1,
        text[text[..start].rfind('\n').map_or(0, |n| n + 1)..start]
            .chars()
            .count()
            + 1,
        &text[start..end]
    )
}

fn show_diagnostics(path: &str, text: &str, diagnostics: &[Value]) -> String {
    diagnostics
        .iter()
        .map(|d| {
            let related: String = d["relatedInformation"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| {
                    format!(
                        "  related: {} {}\n",
                        show_location(&r["location"]),
                        r["message"]
                    )
                })
                .collect();
            format!(
                "{} {} {}\n  {}\n{related}",
                show_range(path, text, &d["range"]),
                d["severity"],
                d["code"].as_str().unwrap_or("-"),
                d["message"].as_str().unwrap_or("").replace('\n', "\n  ")
            )
        })
        .collect()
}

/// The seed paper's Fig. 2 type error (`aNode ∈ quorums`, a `Node` tested against a
/// `Set[Set[Node]]`) arrives on open at line 87, on `aNode`, with `ioa check`'s code E0301.
#[test]
fn opening_the_seed_papers_type_error_shows_it_at_its_line() {
    let mut session = Session::start();
    let path = "tests/data/typeck/err/0001_paper_anode_in_quorums.ioa";
    let (uri, text) = session.open(path);
    let diagnostics = session.diagnostics(&uri);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(
        diagnostics[0]["range"]["start"]["line"],
        json!(86),
        "line 87, 0-based"
    );
    assert_eq!(diagnostics[0]["code"], json!("E0301"));
    insta::assert_snapshot!(
        "seed_paper_type_error",
        show_diagnostics(path, &text, &diagnostics)
    );
    session.finish();
}

/// Hover, go to definition and find references over `tests/data/lsp/queries.txt`.
#[test]
fn hover_definition_and_references_answer_the_queries() {
    let queries =
        std::fs::read_to_string(Path::new(ROOT).join("tests/data/lsp/queries.txt")).unwrap();
    let mut session = Session::start();
    let mut opened: std::collections::HashMap<String, (String, String)> = Default::default();
    let mut report = String::new();
    for query in queries
        .lines()
        .filter(|l| !l.starts_with('%') && !l.trim().is_empty())
    {
        let words: Vec<&str> = query.split_whitespace().collect();
        let (kind, path, line, name) = (words[0], words[1], words[2].parse().unwrap(), words[3]);
        let occurrence = words.get(4).map_or(1, |n| n.parse().unwrap());
        if !opened.contains_key(path) {
            let (uri, text) = session.open(path);
            let diagnostics = session.diagnostics(&uri);
            assert!(diagnostics.is_empty(), "{path}: {diagnostics:?}");
            opened.insert(path.to_string(), (uri, text));
        }
        let (uri, text) = &opened[path];
        let position = position_of(text, line, name, occurrence);
        let at = json!({ "textDocument": { "uri": uri }, "position": position });
        report.push_str(&format!("{query}\n"));
        let answer = match kind {
            "hover" => {
                let hover = session.request("textDocument/hover", at);
                hover["contents"]["value"]
                    .as_str()
                    .unwrap_or("(nothing)")
                    .to_string()
            }
            "definition" => {
                let location = session.request("textDocument/definition", at);
                assert!(!location.is_null(), "{query}: no definition");
                show_location(&location)
            }
            "references" => {
                let mut params = at;
                params["context"] = json!({ "includeDeclaration": true });
                let locations = session.request("textDocument/references", params);
                let shown: Vec<String> = locations
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(show_location)
                    .collect();
                format!("{} locations\n{}", shown.len(), shown.join("\n"))
            }
            other => panic!("unknown query kind {other}"),
        };
        assert!(answer != "(nothing)", "{query}: no hover");
        report.push_str(&format!("  {}\n\n", answer.replace('\n', "\n  ")));
    }
    insta::assert_snapshot!("queries", report);
    session.finish();
}

/// The outline of Global1: types, the automaton with its actions and state variables.
#[test]
fn document_symbols_outline_a_model() {
    let mut session = Session::start();
    let path = "examples/consensus/global1.ioa";
    let (uri, text) = session.open(path);
    assert!(session.diagnostics(&uri).is_empty());
    let symbols = session.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": uri } }),
    );
    fn show(out: &mut String, path: &str, text: &str, symbol: &Value, depth: usize) {
        out.push_str(&format!(
            "{}{} (kind {}) {} — {}\n",
            "  ".repeat(depth),
            symbol["name"].as_str().unwrap(),
            symbol["kind"],
            show_range(path, text, &symbol["selectionRange"])
                .rsplit_once(' ')
                .unwrap()
                .0,
            symbol["detail"].as_str().unwrap_or("")
        ));
        for child in symbol["children"].as_array().into_iter().flatten() {
            show(out, path, text, child, depth + 1);
        }
    }
    let mut out = String::new();
    for symbol in symbols.as_array().unwrap() {
        show(&mut out, path, &text, symbol, 0);
    }
    insta::assert_snapshot!("symbols", out);
    session.finish();
}

/// Formatting returns exactly what `ioa fmt` prints for the file.
#[test]
fn formatting_gives_what_ioa_fmt_gives() {
    let mut session = Session::start();
    let path = "tests/data/lsp/unformatted.ioa";
    let (uri, text) = session.open(path);
    let edits = session.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": uri }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    let edits = edits.as_array().expect("edits");
    assert_eq!(edits.len(), 1, "one edit replacing the document");
    let range = &edits[0]["range"];
    let start = offset(
        &text,
        range["start"]["line"].as_u64().unwrap(),
        range["start"]["character"].as_u64().unwrap(),
    );
    let end = offset(
        &text,
        range["end"]["line"].as_u64().unwrap(),
        range["end"]["character"].as_u64().unwrap(),
    );
    let formatted = format!(
        "{}{}{}",
        &text[..start],
        edits[0]["newText"].as_str().unwrap(),
        &text[end..]
    );
    let (code, fmt_stdout, _) = common::ioa(&["fmt", path]);
    assert_eq!(code, 0);
    assert_eq!(
        formatted.trim_end(),
        fmt_stdout.trim_end(),
        "the server and `ioa fmt` disagree"
    );
    insta::assert_snapshot!("formatted", formatted);
    // The formatted text is canonical: formatting it again changes nothing.
    session.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [{ "text": formatted }] }),
    );
    let again = session.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": uri }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    assert_eq!(again, json!([]));
    session.finish();
}

/// A "did you mean" hint becomes a quick fix that replaces the misspelt name only; applying it
/// (as the editor would, with didChange) clears the diagnostic.
#[test]
fn did_you_mean_is_a_quick_fix() {
    let mut session = Session::start();
    let path = "tests/data/lsp/misspelt.ioa";
    let (uri, text) = session.open(path);
    let diagnostics = session.diagnostics(&uri);
    assert_eq!(diagnostics.len(), 1);
    let actions = session.request(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": uri },
            "range": diagnostics[0]["range"],
            "context": { "diagnostics": diagnostics },
        }),
    );
    let actions = actions.as_array().expect("actions");
    assert_eq!(actions.len(), 1, "{actions:?}");
    let edit = &actions[0]["edit"]["changes"][&uri][0];
    let report = format!(
        "{}\n{}\n{} -> {}\n",
        show_diagnostics(path, &text, &diagnostics),
        actions[0]["title"].as_str().unwrap(),
        show_range(path, &text, &edit["range"]),
        edit["newText"]
    );
    insta::assert_snapshot!("quick_fix", report);
    let range = &edit["range"];
    let start = offset(
        &text,
        range["start"]["line"].as_u64().unwrap(),
        range["start"]["character"].as_u64().unwrap(),
    );
    let end = offset(
        &text,
        range["end"]["line"].as_u64().unwrap(),
        range["end"]["character"].as_u64().unwrap(),
    );
    let fixed = format!(
        "{}{}{}",
        &text[..start],
        edit["newText"].as_str().unwrap(),
        &text[end..]
    );
    session.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [{ "text": fixed }] }),
    );
    assert_eq!(session.diagnostics(&uri), Vec::<Value>::new());
    session.finish();
}

/// Diagnostics follow the editor's unsaved text: an edit that breaks the model reports at the
/// edit (after Unicode operators on the line), an edit that repairs it clears the report.
#[test]
fn diagnostics_follow_changes() {
    let mut session = Session::start();
    let path = "examples/consensus/global1_invariants.ioa";
    let (uri, text) = session.open(path);
    assert!(session.diagnostics(&uri).is_empty());
    let broken = text.replacen(
        "size(voted[anIndex] ∩ abstained[anIndex])",
        "size(voted[anIndex] ∩ abstaned[anIndex])",
        1,
    );
    assert_ne!(broken, text);
    session.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [{ "text": broken }] }),
    );
    let diagnostics = session.diagnostics(&uri);
    insta::assert_snapshot!(
        "after_change",
        show_diagnostics(path, &broken, &diagnostics)
    );
    session.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 3 }, "contentChanges": [{ "text": text }] }),
    );
    assert_eq!(session.diagnostics(&uri), Vec::<Value>::new());
    session.finish();
}

/// A universe file is checked against the model beside it, with `ioa run`'s codes.
#[test]
fn universe_files_are_checked_against_their_model() {
    let mut session = Session::start();
    let path = "tests/data/lsp/universe/ring.universe";
    let (uri, text) = session.open(path);
    let diagnostics = session.diagnostics(&uri);
    insta::assert_snapshot!("universe", show_diagnostics(path, &text, &diagnostics));
    session.finish();
}

/// Half-typed text is normal in an editor: a syntax error is reported at its place, requests on
/// the broken document get empty answers rather than errors, and the server keeps serving.
#[test]
fn a_syntax_error_is_reported_and_the_server_keeps_answering() {
    let mut session = Session::start();
    let path = "tests/data/lsp/misspelt.ioa";
    let (uri, text) = session.open(path);
    session.diagnostics(&uri);
    let broken = text.replacen("eff counter := counter + 1", "eff counter := counter +", 1);
    session.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [{ "text": broken }] }),
    );
    let diagnostics = session.diagnostics(&uri);
    insta::assert_snapshot!(
        "syntax_error",
        show_diagnostics(path, &broken, &diagnostics)
    );
    let at = json!({ "textDocument": { "uri": uri }, "position": { "line": 9, "character": 8 } });
    assert_eq!(
        session.request("textDocument/hover", at.clone()),
        Value::Null
    );
    assert_eq!(session.request("textDocument/definition", at), Value::Null);
    let formatting = session.request_raw(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": uri }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    assert!(
        formatting["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("cannot format:"),
        "{formatting}"
    );
    let unknown = session.request_raw("textDocument/rename", json!({}));
    assert_eq!(unknown["error"]["code"], json!(-32601), "method not found");
    session.finish();
}

/// Documents see each other's unsaved text: breaking the open global1.ioa re-checks the open
/// global1_invariants.ioa that imports it, which shows the error at its `import`; repairing it
/// clears both.
#[test]
fn an_unsaved_import_is_checked_as_the_editor_shows_it() {
    let mut session = Session::start();
    let (importer, importer_text) = session.open("examples/consensus/global1_invariants.ioa");
    assert!(session.diagnostics(&importer).is_empty());
    let (imported, text) = session.open("examples/consensus/global1.ioa");
    assert!(session.diagnostics(&imported).is_empty());
    // Opening a file the importer reads re-checks the importer too.
    assert!(session.diagnostics(&importer).is_empty());
    let broken = text.replacen("pre quorums = {}", "pre quorum = {}", 1);
    assert_ne!(broken, text);
    session.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": imported, "version": 2 }, "contentChanges": [{ "text": broken }] }),
    );
    let own = session.diagnostics(&imported);
    let seen_by_importer = session.diagnostics(&importer);
    let report = format!(
        "{}{}",
        show_diagnostics("examples/consensus/global1.ioa", &broken, &own),
        show_diagnostics(
            "examples/consensus/global1_invariants.ioa",
            &importer_text,
            &seen_by_importer
        )
    );
    insta::assert_snapshot!("unsaved_import", report);
    session.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": imported, "version": 3 }, "contentChanges": [{ "text": text }] }),
    );
    assert!(session.diagnostics(&imported).is_empty());
    assert!(session.diagnostics(&importer).is_empty());
    session.finish();
}
