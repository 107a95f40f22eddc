//! End-to-end tests of composite automata across the commands: every case under
//! `tests/data/composite/cases/` is one `ioa` command line (a line per argument), whose first
//! line says the exit code and, for failures, the diagnostic code expected first
//! (`% expect: exit N[, CODE]`). The binary runs from the package root, as a user would; its
//! output is snapshotted (explorations with `--quiet`, which leaves out timings).

use std::path::Path;
use std::process::Command;

/// One case file.
struct Case {
    exit: i32,
    code: Option<String>,
    args: Vec<String>,
    text: String,
}

fn read_case(path: &Path) -> Case {
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

#[test]
fn composite_cases() {
    insta::glob!("data/composite/cases/*.case", |path| {
        let case = read_case(path);
        let out = Command::new(env!("CARGO_BIN_EXE_ioa"))
            .args(&case.args)
            .args(["--color", "never"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("ioa runs");
        let code = out.status.code().unwrap_or(-1);
        let both = format!(
            "exit code: {code}\n--- stdout\n{}--- stderr\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(code, case.exit, "{}:\n{both}", path.display());
        if let Some(expected) = &case.code {
            let first_error = both
                .lines()
                .find(|l| l.starts_with("error"))
                .unwrap_or_else(|| panic!("{}: no error line:\n{both}", path.display()));
            assert!(
                first_error.starts_with(&format!("error[{expected}]")),
                "{}: expected {expected} first:\n{both}",
                path.display()
            );
        }
        insta::with_settings!({ description => case.text.trim_end(), omit_expression => true }, {
            insta::assert_snapshot!(both);
        });
    });
}
