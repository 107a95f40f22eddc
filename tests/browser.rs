//! The trace page and the explorer in a real headless Chromium, driven through chromedriver
//! (`tests/webdriver/mod.rs`). Skipped, with a message, when Chromium or chromedriver is not
//! installed (Debian: `apt-get install chromium chromium-driver`; `.ci/run` installs them).
//!
//! - The Paxos planted-bug counterexample (`ioa pair … --schedule LastPromiseWins --trace`):
//!   one lifeline per node, one arrow per delivered message, clicking step k's numbered line
//!   in the chart (the page's step list) and the arrow keys show state k with exactly the variables step k changed
//!   highlighted, and hiding a lifeline hides its arrows.
//! - The page loads with the network disabled and fetches nothing.
//! - A 10,000-step trace page: the time from navigation to the page being ready is printed,
//!   and only a generous bound (10 s) is asserted.
//! - `ioa serve`: the page fires a given sequence of steps, the saved path replays.

mod common;
mod webdriver;

use common::{ioa, itf, scratch, ROOT};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use webdriver::{Driver, Session};

/// One browser at a time: the machine is small.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// WebDriver's code for the arrow-down key.
const ARROW_DOWN: &str = "\u{E015}";

/// The driver, or `None` after saying why the test is skipped.
fn driver(test: &str) -> Option<Driver> {
    let d = Driver::start();
    if d.is_none() {
        eprintln!(
            "skipping {test}: Chromium and chromedriver are not installed \
             (apt-get install chromium chromium-driver)"
        );
    }
    d
}

fn url(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// The variables that differ between states `k - 1` and `k` of an ITF trace.
fn changed(trace: &Value, k: usize) -> Vec<String> {
    let states = trace["states"].as_array().unwrap();
    trace["vars"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .filter(|v| states[k - 1][v] != states[k][v])
        .map(String::from)
        .collect()
}

/// The highlighted variables of the state panel, and its heading.
fn shown(s: &Session) -> (Vec<String>, String) {
    let v = s.script(
        "return [[...document.querySelectorAll('#state tr.changed')].map(r => r.dataset.var), \
         document.querySelector('#state div').textContent];",
    );
    let vars = v[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect();
    (vars, v[1].as_str().unwrap().to_string())
}

#[test]
fn planted_bug_chart_and_state_diffs() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(d) = driver("planted_bug_chart_and_state_diffs") else {
        return;
    };
    let trace = scratch("browser-tests", "paxos_bug_pair.itf.json");
    let page = scratch("browser-tests", "paxos_bug_pair.html");
    let (code, _, _) = ioa(&[
        "pair",
        "examples/paxos/paxos_planted_bug.ioa",
        "--schedule",
        "LastPromiseWins",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "the planted bug breaks the simulation");
    let (code, _, err) = ioa(&[
        "view",
        trace.to_str().unwrap(),
        "-o",
        page.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let t = itf(&trace);
    let delivered = t["states"].as_array().unwrap()[1..]
        .iter()
        .filter(|s| {
            s["#meta"]["action"]["name"]
                .as_str()
                .unwrap()
                .starts_with("recv")
        })
        .count();

    let s = d.session(&[]);
    s.goto(&url(&page));
    let lanes = s.script(
        "return [...document.querySelectorAll('svg .lane .head')].map(t => t.textContent);",
    );
    assert_eq!(lanes, serde_json::json!(["N[[0]]", "N[[1]]", "N[[2]]"]));
    let arrows = s.find_all("svg line.msg").len();
    eprintln!("planted-bug pair trace: {delivered} delivered messages, {arrows} arrows");
    assert_eq!(arrows, delivered);
    assert_eq!(delivered, 13);
    // The failing step is selected at first.
    assert_eq!(shown(&s).1.split(',').next().unwrap(), "state 30");

    // Click the lines of steps 12 and 20, then step down with the keyboard.
    s.click("#s12");
    let (vars, head) = shown(&s);
    assert!(
        head.starts_with("state 12, after internal recvPromise"),
        "{head}"
    );
    assert_eq!(vars, changed(&t, 12));
    assert!(!vars.is_empty());
    s.click("#s20");
    assert_eq!(shown(&s).0, changed(&t, 20));
    s.key(ARROW_DOWN);
    let (vars, head) = shown(&s);
    assert!(head.starts_with("state 21,"), "{head}");
    assert_eq!(vars, changed(&t, 21));
    assert_eq!(s.script("return location.hash;"), "#step=21");

    // Hiding N[[0]] hides the arrows it sends or receives, and only those.
    s.click("#filter input[data-lane='0']");
    let visible = s.script(
        "return [...document.querySelectorAll('svg line.msg')].filter(l => getComputedStyle(l).display !== 'none').length;",
    );
    let untouched = s.script(
        "return [...document.querySelectorAll('svg line.msg')].filter(l => !l.classList.contains('l0')).length;",
    );
    assert_eq!(visible, untouched);
    assert!(visible.as_u64().unwrap() < arrows as u64);
}

#[test]
fn the_page_loads_with_the_network_disabled() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(d) = driver("the_page_loads_with_the_network_disabled") else {
        return;
    };
    let trace = scratch("browser-tests", "lcr_offline.itf.json");
    let page = scratch("browser-tests", "lcr_offline.html");
    ioa(&[
        "run",
        "examples/lcr/lcr.ioa",
        "--schedule",
        "Ring",
        "--param",
        "n=3",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    ioa(&[
        "view",
        trace.to_str().unwrap(),
        "-o",
        page.to_str().unwrap(),
    ]);
    // Every host resolves to nothing and every request goes to a closed proxy.
    let s = d.session(&[
        "--proxy-server=http://127.0.0.1:9",
        "--host-resolver-rules=MAP * ~NOTFOUND",
    ]);
    s.goto(&url(&page));
    assert_eq!(s.script("return document.body.dataset.ready;"), "1");
    assert_eq!(
        s.script("return performance.getEntriesByType('resource').length;"),
        0
    );
    assert_eq!(s.find_all("svg line.msg").len(), 5);
    assert_eq!(s.find_all("svg text.lbl").len(), 12);
}

#[test]
fn a_ten_thousand_step_page_opens_quickly() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(d) = driver("a_ten_thousand_step_page_opens_quickly") else {
        return;
    };
    let trace = scratch("browser-tests", "ping_10k.itf.json");
    let page = scratch("browser-tests", "ping_10k.html");
    let (code, _, err) = ioa(&[
        "run",
        "tests/data/view/lossy_ping.ioa",
        "--automaton",
        "LossyPing",
        "--param",
        "n=3",
        "--random",
        "--steps",
        "10000",
        "--seed",
        "3",
        "--weights",
        "crash=0.0002,request=0.2",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = ioa(&[
        "view",
        trace.to_str().unwrap(),
        "-o",
        page.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let t = itf(&trace);
    let delivered = t["states"].as_array().unwrap()[1..]
        .iter()
        .filter(|s| s["#meta"]["action"]["name"] == "deliver")
        .count();
    let s = d.session(&[]);
    let started = std::time::Instant::now();
    s.goto(&url(&page));
    let wall = started.elapsed().as_secs_f64() * 1000.0;
    let ready = s
        .script("return performance.getEntriesByName('ioa-ready')[0].startTime;")
        .as_f64()
        .expect("the page marks when it is ready");
    let load = s
        .script("return performance.getEntriesByType('navigation')[0].loadEventEnd;")
        .as_f64()
        .unwrap();
    eprintln!(
        "10,000-step page ({} bytes, {delivered} arrows): ready {ready:.0} ms after navigation start, \
         load event ended at {load:.0} ms, navigation command {wall:.0} ms",
        std::fs::metadata(&page).unwrap().len()
    );
    assert_eq!(s.find_all("svg text.lbl").len(), 10_001);
    assert_eq!(s.find_all("svg line.msg").len(), delivered);
    assert!(ready < 10_000.0, "the page took {ready:.0} ms");
    // Stepping to the end still works.
    s.key("\u{E010}");
    assert!(shown(&s).1.starts_with("state 10000,"));
}

#[test]
fn the_explorer_fires_steps_and_saves_a_path_that_replays() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(d) = driver("the_explorer_fires_steps_and_saves_a_path_that_replays") else {
        return;
    };
    let mut server = Command::new(env!("CARGO_BIN_EXE_ioa"))
        .args([
            "serve",
            "examples/lcr/lcr.ioa",
            "--automaton",
            "LCR",
            "--param",
            "n=3",
            "--port",
            "0",
        ])
        .current_dir(ROOT)
        .stderr(Stdio::piped())
        .spawn()
        .expect("start ioa serve");
    let mut line = String::new();
    BufReader::new(server.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .expect("an address")
        .to_string();
    let result = std::panic::catch_unwind(|| {
        let s = d.session(&[]);
        s.goto(&base);
        s.wait_for("return document.body.dataset.step === '0';");
        let steps = [
            "internal send(0, 1, 0)",
            "internal send(2, 0, 2)",
            "internal receive(0, 1, 0)",
            "internal receive(2, 0, 2)",
        ];
        for (k, line) in steps.iter().enumerate() {
            let link = s.script(&format!(
                "return [...document.querySelectorAll('#enabled a')].find(a => a.textContent === {line:?}) ? 1 : 0;"
            ));
            assert_eq!(link, 1, "`{line}` is not offered at step {k}");
            s.script(&format!(
                "[...document.querySelectorAll('#enabled a')].find(a => a.textContent === {line:?}).dataset.pick = '1';"
            ));
            s.click("#enabled a[data-pick='1']");
            s.wait_for(&format!(
                "return document.body.dataset.step === '{}';",
                k + 1
            ));
        }
        // Back and forward through the buttons.
        s.click("#back");
        s.wait_for("return document.body.dataset.step === '3';");
        s.click("#forward");
        s.wait_for("return document.body.dataset.step === '4';");
        assert_eq!(s.find_all("#invariants li.holds").len(), 7);
        assert_eq!(s.find_all("#chart svg line.msg").len(), 2);
        // "Save this path": what the link downloads.
        let saved = s.script_async(
            "const done = arguments[arguments.length - 1];\
             fetch(document.getElementById('save').href).then(r => r.text()).then(done);",
        );
        let file = scratch("browser-tests", "explorer_path.itf.json");
        std::fs::write(&file, saved.as_str().unwrap()).unwrap();
        let (code, _, err) = ioa(&["replay", file.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            err,
            "replayed 4 step(s) of LCR: every step enabled, every state as recorded\n"
        );
    });
    let _ = server.kill();
    let _ = server.wait();
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}
