//! Data-driven tests of `ioa check`'s diagnostics.
//!
//! Every `.ioa` file under `tests/data/{parse,typeck}/{ok,err}/` is checked with
//! [`ioa_lang::check_files`], reading from disk with a path relative to the package root so that
//! rendered diagnostics (and the snapshots that record them) show stable paths.
//!
//! - Files under `ok/` must produce no errors.
//! - Files under `err/` must produce at least one error; their rendered diagnostics are recorded
//!   as insta snapshots (with the source text as the snapshot's description). Their first line is
//!   `% expect: CODE …`, and the first diagnostic must have that code.
//! - Together the `err/` files must exercise every diagnostic code the front end defines.
//!
//! Files under `tests/data/lib/` are imported by test inputs and are not inputs themselves.

use ioa_lang::diagnostics::{render, Diagnostic};
use ioa_lang::loader::{normalise, FileSystem};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The package root; test inputs are named relative to it.
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The directories holding inputs that must fail, relative to [`ROOT`].
const ERR_DIRS: [&str; 2] = ["tests/data/parse/err", "tests/data/typeck/err"];

/// The sources that define diagnostic codes, relative to [`ROOT`].
const CODE_SOURCES: [&str; 4] = [
    "ioa-lang/src/check/errors.rs",
    "ioa-lang/src/generics.rs",
    "ioa-lang/src/parse.rs",
    "ioa-lang/src/loader.rs",
];

/// Reads files from disk, resolving relative paths against the package root while keeping the
/// relative path as the file's name (so diagnostics do not show the machine's directories).
struct DiskFileSystem;

impl FileSystem for DiskFileSystem {
    fn read(&self, path: &Path) -> Result<String, String> {
        std::fs::read_to_string(Path::new(ROOT).join(path)).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            _ => e.to_string(),
        })
    }

    fn canonical(&self, path: &Path) -> PathBuf {
        normalise(path)
    }
}

/// One input, checked.
struct Checked {
    /// The path relative to the package root, with `/` separators.
    name: String,
    /// The file's text.
    source: String,
    /// Every diagnostic, in the order the checker reports them.
    diagnostics: Vec<Diagnostic>,
    /// The diagnostics rendered without colour.
    rendered: String,
}

impl Checked {
    fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }
}

/// Turns a path (absolute, as `insta::glob!` passes it, or already relative) into one relative to
/// the package root.
fn relative(path: &Path) -> PathBuf {
    let root = Path::new(ROOT);
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    path.strip_prefix(&root)
        .or_else(|_| path.strip_prefix(ROOT))
        .unwrap_or(path)
        .to_path_buf()
}

/// Checks one input as its own model, as `ioa check FILE` does.
fn check(path: &Path) -> Checked {
    let rel = relative(path);
    let name = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    let source = DiskFileSystem
        .read(&rel)
        .unwrap_or_else(|e| panic!("cannot read {name}: {e}"));
    let result = ioa_lang::check_files(&[PathBuf::from(&name)], &DiskFileSystem);
    let rendered = render(&result.diagnostics, &result.sources, false);
    Checked {
        name,
        source,
        diagnostics: result.diagnostics,
        rendered,
    }
}

/// The `.ioa` files directly in a directory (relative to the package root), sorted.
fn ioa_files(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join(dir))
        .unwrap_or_else(|e| panic!("cannot list {dir}: {e}"))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ioa"))
        .map(|p| Path::new(dir).join(p.file_name().expect("a file name")))
        .collect();
    files.sort();
    files
}

/// The code named by a first line `% expect: E0301 …`.
fn expected_code(source: &str) -> Option<&str> {
    source
        .lines()
        .next()?
        .strip_prefix('%')?
        .trim_start()
        .strip_prefix("expect:")?
        .split_whitespace()
        .next()
}

/// Every string literal `"E0…"` (a diagnostic code) in the given text.
fn codes_in(text: &str) -> BTreeSet<String> {
    let mut codes = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("\"E0") {
        let after = &rest[at + 1..];
        let code: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if after[code.len()..].starts_with('"') && code.len() == 5 {
            codes.insert(code);
        }
        rest = after;
    }
    codes
}

/// Asks insta to write multi-line metadata (the source text in the description) as YAML literal
/// blocks, so a snapshot shows the input as it is written rather than as one escaped line. This
/// only affects how new snapshots are written; comparison ignores metadata.
fn readable_snapshot_metadata() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if std::env::var_os("INSTA_YAML_BLOCK_STYLE").is_none() {
            std::env::set_var("INSTA_YAML_BLOCK_STYLE", "1");
        }
    });
}

/// An input that must be accepted: no errors.
fn assert_accepted(path: &Path) {
    let checked = check(path);
    assert!(
        checked.errors() == 0,
        "{} should check without errors, but got:\n{}",
        checked.name,
        checked.rendered
    );
}

/// An input that must be rejected: at least one error, and the rendered diagnostics match the
/// recorded snapshot `diagnostics__{snapshot}@{file name}.snap` (which carries the source text as
/// its description).
fn assert_rejected_and_snapshot(snapshot: &str, path: &Path) {
    readable_snapshot_metadata();
    let checked = check(path);
    assert!(
        checked.errors() > 0,
        "{} should be rejected, but it checks without errors",
        checked.name
    );
    let rendered = checked.rendered;
    insta::with_settings!({
        description => checked.source,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(snapshot, rendered);
    });
}

#[test]
fn parse_ok_files_are_accepted() {
    insta::glob!("data/parse/ok/*.ioa", assert_accepted);
}

#[test]
fn typeck_ok_files_are_accepted() {
    insta::glob!("data/typeck/ok/*.ioa", assert_accepted);
}

#[test]
fn parse_err() {
    insta::glob!("data/parse/err/*.ioa", |path| {
        assert_rejected_and_snapshot("parse_err", path)
    });
}

#[test]
fn typeck_err() {
    insta::glob!("data/typeck/err/*.ioa", |path| {
        assert_rejected_and_snapshot("typeck_err", path)
    });
}

/// Files under `typeck/warn/` check without errors but with warnings, recorded like errors.
#[test]
fn typeck_warn() {
    insta::glob!("data/typeck/warn/*.ioa", |path| {
        readable_snapshot_metadata();
        let checked = check(path);
        assert_eq!(
            checked.errors(),
            0,
            "{}: {}",
            checked.name,
            checked.rendered
        );
        assert!(
            checked.rendered.contains("warning["),
            "{} should warn: {}",
            checked.name,
            checked.rendered
        );
        insta::with_settings!({
            description => checked.source,
            omit_expression => true,
        }, {
            insta::assert_snapshot!("typeck_warn", checked.rendered);
        });
    });
}

#[test]
fn err_files_report_the_expected_code_first() {
    let mut problems = Vec::new();
    for dir in ERR_DIRS {
        for path in ioa_files(dir) {
            let checked = check(&path);
            let Some(expected) = expected_code(&checked.source) else {
                problems.push(format!(
                    "{}: the first line is not `% expect: CODE …`",
                    checked.name
                ));
                continue;
            };
            match checked.diagnostics.first() {
                Some(d) if d.code == expected => {}
                Some(d) => problems.push(format!(
                    "{}: expected {expected} first, got {}:\n{}",
                    checked.name, d.code, checked.rendered
                )),
                None => problems.push(format!(
                    "{}: expected {expected}, got no diagnostics",
                    checked.name
                )),
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn err_files_cover_every_diagnostic_code() {
    let mut defined = BTreeSet::new();
    for source in CODE_SOURCES {
        let text = std::fs::read_to_string(Path::new(ROOT).join(source))
            .unwrap_or_else(|e| panic!("cannot read {source}: {e}"));
        defined.extend(codes_in(&text));
    }
    assert!(
        defined.len() > 20,
        "found only {defined:?} in {CODE_SOURCES:?}; has the code scan broken?"
    );
    let mut exercised = BTreeSet::new();
    for dir in ERR_DIRS {
        for path in ioa_files(dir) {
            let text = std::fs::read_to_string(Path::new(ROOT).join(&path)).expect("readable");
            if let Some(code) = expected_code(&text) {
                exercised.insert(code.to_string());
            }
        }
    }
    let missing: Vec<_> = defined.difference(&exercised).collect();
    let unknown: Vec<_> = exercised.difference(&defined).collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "codes with no err file: {missing:?}; codes expected by err files but defined nowhere: {unknown:?}"
    );
}

#[test]
fn every_input_starts_with_a_comment() {
    let dirs = [
        "tests/data/parse/ok",
        "tests/data/parse/err",
        "tests/data/typeck/ok",
        "tests/data/typeck/err",
        "tests/data/lib",
    ];
    let mut problems = Vec::new();
    for dir in dirs {
        for path in ioa_files(dir) {
            let text = std::fs::read_to_string(Path::new(ROOT).join(&path)).expect("readable");
            if !text.starts_with('%') {
                problems.push(path.display().to_string());
            }
        }
    }
    assert!(
        problems.is_empty(),
        "these inputs do not start with a `%` comment saying what they test: {problems:?}"
    );
}

#[test]
fn unreadable_root_file_is_reported_without_a_location() {
    let name = "tests/data/no_such_input.ioa";
    let result = ioa_lang::check_files(&[PathBuf::from(name)], &DiskFileSystem);
    let codes: Vec<_> = result.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["E0006"]);
    assert!(result.spec.is_none());
    let rendered = render(&result.diagnostics, &result.sources, false);
    insta::assert_snapshot!(rendered);
}
