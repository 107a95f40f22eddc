//! A small WebDriver (W3C) client for the browser tests: starts `chromedriver` on a free
//! loopback port, opens headless Chromium sessions, and sends the handful of commands the tests
//! need (navigate, find, click, keys, run a script) as JSON over HTTP/1.1. Written against the
//! standard library because the tests need six commands and no async runtime.

use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The W3C element reference key.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A running chromedriver, stopped when dropped.
pub struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `program --version` runs.
fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The Chromium binary (its full path, as chromedriver wants it), if installed.
pub fn chromium() -> Option<String> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
        .find(|p| p.is_file() && runs(&p.display().to_string()))
        .map(|p| p.display().to_string())
}

/// One HTTP request; the status and the body (by `Content-Length`, chunks, or to the end).
pub fn http(port: u16, method: &str, path: &str, body: Option<&Value>) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    // Read the head, then as much body as it announces (servers may keep the connection open).
    let mut raw = Vec::new();
    let mut buf = [0u8; 65536];
    let head_end = loop {
        if let Some(i) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = stream.read(&mut buf).expect("read");
        assert!(n > 0, "the connection closed before the response head");
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..head_end]).to_string();
    let status = head[9..12].parse().expect("a status");
    let header = |name: &str| {
        head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    };
    let mut body = raw[head_end + 4..].to_vec();
    if let Some(len) = header("content-length").and_then(|v| v.parse::<usize>().ok()) {
        while body.len() < len {
            let n = stream.read(&mut buf).expect("read");
            if n == 0 {
                break;
            }
            body.extend_from_slice(&buf[..n]);
        }
        body.truncate(len);
        return (status, String::from_utf8_lossy(&body).to_string());
    }
    let chunked = header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
    if !chunked {
        stream.read_to_end(&mut body).expect("read");
        return (status, String::from_utf8_lossy(&body).to_string());
    }
    // Chunked: read until the last chunk arrives.
    while !body.ends_with(b"0\r\n\r\n") {
        let n = stream.read(&mut buf).expect("read");
        if n == 0 {
            break;
        }
        body.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&body).to_string();
    let (mut out, mut rest) = (String::new(), text.as_str());
    while let Some((size, after)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&after[..n]);
        rest = &after[n + 2..];
    }
    (status, out)
}

impl Driver {
    /// Starts chromedriver, or says why not (`None` when Chromium or chromedriver is missing).
    pub fn start() -> Option<Driver> {
        if chromium().is_none() || !runs("chromedriver") {
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let driver = Driver { child, port };
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(driver)
    }

    /// A headless Chromium session; `extra` are more command-line switches.
    pub fn session(&self, extra: &[&str]) -> Session {
        let mut args = vec![
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--window-size=1400,900",
        ];
        args.extend_from_slice(extra);
        let caps = json!({ "capabilities": { "alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": { "binary": chromium().unwrap_or_else(|| "chromium".into()), "args": args }
        }}});
        let (status, body) = http(self.port, "POST", "/session", Some(&caps));
        assert_eq!(status, 200, "new session: {body}");
        let v: Value = serde_json::from_str(&body).expect("JSON");
        Session {
            port: self.port,
            id: v["value"]["sessionId"]
                .as_str()
                .expect("a session id")
                .to_string(),
        }
    }
}

/// One browser session, closed when dropped.
pub struct Session {
    port: u16,
    id: String,
}

impl Drop for Session {
    fn drop(&mut self) {
        http(self.port, "DELETE", &format!("/session/{}", self.id), None);
    }
}

impl Session {
    fn cmd(&self, method: &str, path: &str, body: Value) -> Value {
        let (status, text) = http(
            self.port,
            method,
            &format!("/session/{}{path}", self.id),
            (method == "POST").then_some(&body),
        );
        let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        assert_eq!(status, 200, "{method} {path}: {text}");
        v["value"].clone()
    }

    /// Opens `url` and waits for its load event.
    pub fn goto(&self, url: &str) {
        self.cmd("POST", "/url", json!({ "url": url }));
    }

    /// The elements matching a CSS selector.
    pub fn find_all(&self, css: &str) -> Vec<String> {
        self.cmd(
            "POST",
            "/elements",
            json!({ "using": "css selector", "value": css }),
        )
        .as_array()
        .expect("a list")
        .iter()
        .map(|e| e[ELEMENT].as_str().expect("an element").to_string())
        .collect()
    }

    /// Clicks the first element matching a CSS selector (scrolled into view first).
    pub fn click(&self, css: &str) {
        let el = self.find_all(css);
        let el = el.first().unwrap_or_else(|| panic!("no element `{css}`"));
        self.cmd("POST", &format!("/element/{el}/click"), json!({}));
    }

    /// Presses and releases one key (a WebDriver key code such as `\u{E015}`, arrow down).
    pub fn key(&self, key: &str) {
        self.cmd(
            "POST",
            "/actions",
            json!({ "actions": [{ "type": "key", "id": "keyboard", "actions": [
                { "type": "keyDown", "value": key }, { "type": "keyUp", "value": key }
            ]}]}),
        );
    }

    /// Runs a script (`return …;`) in the page.
    pub fn script(&self, body: &str) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            json!({ "script": body, "args": [] }),
        )
    }

    /// Runs an asynchronous script: the last argument is the callback to call with the result.
    pub fn script_async(&self, body: &str) -> Value {
        self.cmd(
            "POST",
            "/execute/async",
            json!({ "script": body, "args": [] }),
        )
    }

    /// Polls `condition` (a script returning a boolean) until it holds, for up to 10 s.
    pub fn wait_for(&self, condition: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.script(condition) != Value::Bool(true) {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for `{condition}`"
            );
            std::thread::sleep(Duration::from_millis(30));
        }
    }
}
