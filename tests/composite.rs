//! End-to-end tests of composite automata across the commands: every case under
//! `tests/data/composite/cases/` is one `ioa` command line (a line per argument), whose first
//! line says the exit code and, for failures, the diagnostic code expected first
//! (`% expect: exit N[, CODE]`). The binary runs from the package root, as a user would; its
//! output is snapshotted (explorations with `--quiet`, which leaves out timings).

mod common;

use common::{ioa, labelled, Case};

#[test]
fn composite_cases() {
    insta::glob!("data/composite/cases/*.case", |path| {
        let case = Case::read(path);
        let args: Vec<&str> = case.args.iter().map(String::as_str).collect();
        let (code, stdout, stderr) = ioa(&args);
        let both = labelled(code, &stdout, &stderr);
        assert_eq!(code, case.exit, "{}:\n{both}", path.display());
        if case.code.is_some() {
            case.assert_first_error(path, &both);
        }
        insta::with_settings!({ description => case.text.trim_end(), omit_expression => true }, {
            insta::assert_snapshot!(both);
        });
    });
}
