//! Inputs the fuzz targets (fuzz/README.md) found or that stress the same readers, replayed
//! through the command a user would run: every one is a diagnostic (exit 1 or 2) or a result,
//! never a panic (`common::ioa` fails the test on one) or a debug rendering.
//! `tests/data/fuzz/check/*.ioa` go through `ioa check`, `tests/data/fuzz/universe/*` through
//! `ioa explore` of Global1 with that universe file.

mod common;

use common::ioa;

fn inputs(dir: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(format!("{}/{dir}", common::ROOT))
        .expect("the corpus folder")
        .map(|e| format!("{dir}/{}", e.expect("entry").file_name().to_string_lossy()))
        .collect();
    out.sort();
    assert!(!out.is_empty(), "{dir} is empty");
    out
}

#[test]
fn front_end_inputs_are_diagnosed() {
    for file in inputs("tests/data/fuzz/check") {
        let (code, _, err) = ioa(&["check", &file]);
        assert!(code == 0 || code == 1, "{file}: exit {code}\n{err}");
    }
}

#[test]
fn universe_inputs_are_diagnosed() {
    for file in inputs("tests/data/fuzz/universe") {
        let (code, _, err) = ioa(&[
            "explore",
            "examples/consensus/global1.ioa",
            "--universe-file",
            &file,
            "--max-states",
            "100",
            "--quiet",
        ]);
        assert!((0..=3).contains(&code), "{file}: exit {code}\n{err}");
        assert!(err.contains("error[E05"), "{file}: {err}");
    }
}
