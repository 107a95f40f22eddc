//! What the end-to-end tests share: running the `ioa` binary in the package root (no colour,
//! no backtraces, a panic fails the test), scratch files under Cargo's target temporary
//! directory, reading the ITF traces the commands write, and the `.case` files of the
//! data-driven command-line tests.

#![allow(dead_code)] // each test binary uses its own part of this module

use std::path::{Path, PathBuf};
use std::process::Command;

/// The package root; the binary runs here, so paths in its output are relative.
pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Runs `ioa ARGS… --color never` in the package root: exit code, standard output and standard
/// error, with the package root written `$ROOT`. Fails the test if `ioa` panicked.
pub fn ioa(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ioa"))
        .args(args)
        .args(["--color", "never"])
        .current_dir(ROOT)
        .env("NO_COLOR", "1")
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("start ioa");
    let code = out.status.code().unwrap_or(-1);
    let stdout = String::from_utf8_lossy(&out.stdout).replace(ROOT, "$ROOT");
    let stderr = String::from_utf8_lossy(&out.stderr).replace(ROOT, "$ROOT");
    assert!(
        !stderr.contains("panicked") && code != 101,
        "ioa panicked:\n{stderr}"
    );
    assert_no_debug_rendering(args, &stdout, &stderr);
    (code, stdout, stderr)
}

/// What a Rust `{:?}` rendering of the tool's own data looks like in output: no command may
/// print one (errors are rendered as diagnostics, values in IOA syntax).
const DEBUG_RENDERINGS: &[&str] = &["{ span:", "Span {", "Some(", "None,", "Err(", "Ok("];

/// Fails the test if the output of `ioa ARGS…` contains a Rust debug rendering.
pub fn assert_no_debug_rendering<S: AsRef<std::ffi::OsStr>>(
    args: &[S],
    stdout: &str,
    stderr: &str,
) {
    for pattern in DEBUG_RENDERINGS {
        for (name, text) in [("stdout", stdout), ("stderr", stderr)] {
            assert!(
                !text.contains(pattern),
                "`ioa {}` printed a Rust debug rendering (`{pattern}`) on {name}:\n{text}",
                args.iter()
                    .map(|a| a.as_ref().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
    }
}

/// What one run of the binary did.
pub struct Outcome {
    /// The exit code (-1 when killed by a signal).
    pub code: i32,
    /// Standard output, with the package root and the test group's scratch directory replaced.
    pub stdout: String,
    /// Standard error, likewise.
    pub stderr: String,
}

impl Outcome {
    /// Standard output and standard error, labelled, for snapshots.
    pub fn both(&self) -> String {
        labelled(self.code, &self.stdout, &self.stderr)
    }
}

/// Runs `ioa ARGS…` in the package root (no colour, no backtraces) for the tests of `group`:
/// the package root is written `$ROOT` and the group's scratch directory (see
/// [`scratch_dir`]) `$TMP`. Fails the test if `ioa` panicked.
pub fn ioa_in<S: AsRef<std::ffi::OsStr>>(group: &str, args: &[S]) -> Outcome {
    let out = Command::new(env!("CARGO_BIN_EXE_ioa"))
        .args(args)
        .current_dir(ROOT)
        .env("NO_COLOR", "1")
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("start ioa");
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join(group);
    let normalise = |b: &[u8]| {
        String::from_utf8_lossy(b)
            .replace(tmp.to_str().expect("UTF-8 path"), "$TMP")
            .replace(ROOT, "$ROOT")
    };
    let o = Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: normalise(&out.stdout),
        stderr: normalise(&out.stderr),
    };
    assert!(
        !o.stderr.contains("panicked") && o.code != 101,
        "ioa panicked:\n{}",
        o.both()
    );
    assert_no_debug_rendering(args, &o.stdout, &o.stderr);
    o
}

/// A directory for the files of test `test` in the group `group` of Cargo's target temporary
/// directory, emptied first.
pub fn scratch_dir(group: &str, test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(group)
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch directory");
    dir
}

/// The counters of an `ioa explore --format json` report that must not depend on how the
/// search ran (one process or several, the visited set in memory or spilled to disk).
pub const EXPLORE_COUNTS: [&str; 6] = [
    "states",
    "generated",
    "checked",
    "depth",
    "levels_completed",
    "deadlocks",
];

/// Exit code and both outputs in one labelled text, for snapshots.
pub fn labelled(code: i32, stdout: &str, stderr: &str) -> String {
    format!("exit code: {code}\n--- stdout\n{stdout}--- stderr\n{stderr}")
}

/// A scratch file `name` in the directory `group` of Cargo's target temporary directory.
pub fn scratch(group: &str, name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(group);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir.join(name)
}

/// An ITF trace file, parsed.
pub fn itf(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read trace")).expect("ITF JSON")
}

/// The action names of an ITF trace's steps.
pub fn actions(trace: &Path) -> Vec<String> {
    itf(trace)["states"].as_array().expect("states")[1..]
        .iter()
        .map(|s| s["#meta"]["action"]["name"].as_str().unwrap().to_string())
        .collect()
}

/// One case file of the data-driven command-line tests (`tests/data/*/cases/*.case`): its first
/// line is `% expect: exit N[, CODE]`, then `%` comments and the arguments of `ioa`, one per line.
pub struct Case {
    /// The expected exit code.
    pub exit: i32,
    /// The diagnostic code expected on the first error line, if the case names one.
    pub code: Option<String>,
    /// The arguments of `ioa`.
    pub args: Vec<String>,
    /// The whole file, shown as the snapshot's description.
    pub text: String,
}

impl Case {
    /// Reads and parses a case file.
    pub fn read(path: &Path) -> Case {
        let text = std::fs::read_to_string(path).expect("read case");
        let first = text.lines().next().unwrap_or("");
        let expect = first.strip_prefix("% expect: exit ").unwrap_or_else(|| {
            panic!(
                "{}: first line must be `% expect: exit N[, CODE]`",
                path.display()
            )
        });
        let (exit, code) = match expect.split_once(',') {
            Some((e, c)) => (e.trim(), Some(c.trim().to_string())),
            None => (expect.trim(), None),
        };
        let args = text
            .lines()
            .filter(|l| !l.starts_with('%') && !l.is_empty())
            .map(String::from)
            .collect();
        Case {
            exit: exit.parse().expect("exit code"),
            code,
            args,
            text,
        }
    }

    /// Checks that `output` has an error line and, when the case names a diagnostic code, that
    /// the first error line carries it.
    pub fn assert_first_error(&self, path: &Path, output: &str) {
        let first_error = output
            .lines()
            .find(|l| l.starts_with("error"))
            .unwrap_or_else(|| panic!("{}: no error line:\n{output}", path.display()));
        if let Some(code) = &self.code {
            assert!(
                first_error.starts_with(&format!("error[{code}]")),
                "{}: expected {code} first:\n{output}",
                path.display()
            );
        }
    }
}
