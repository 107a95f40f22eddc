//! The same model written with the papers' Unicode operators and with IOA's ASCII operators must
//! lower to identical IR (spans aside).

use ioa_lang::loader::MemoryFileSystem;
use std::path::{Path, PathBuf};

/// Unicode operators and their ASCII spellings.
const SPELLINGS: &[(&str, &str)] = &[
    ("∀", "\\A"),
    ("∃", "\\E"),
    ("∧", "/\\"),
    ("∨", "\\/"),
    ("¬", "~"),
    ("⇔", "<=>"),
    ("⇒", "=>"),
    ("≠", "~="),
    ("≤", "<="),
    ("≥", ">="),
    ("∉", " \\notin "),
    ("∈", " \\in "),
    ("∪", " \\union "),
    ("∩", " \\intersect "),
    ("⊆", " \\subseteq "),
    ("⊂", " \\subset "),
    ("⊢", "|-"),
    ("−", "-"),
];

fn to_ascii(text: &str) -> String {
    let mut out = text.to_string();
    for (u, a) in SPELLINGS {
        out = out.replace(u, a);
    }
    out
}

fn strip_spans(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            map.remove("span");
            map.values_mut().for_each(strip_spans);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(strip_spans),
        _ => {}
    }
}

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// Loads every file of an example directory into memory, transformed.
fn lowered(dir: &str, root: &str, transform: fn(&str) -> String) -> serde_json::Value {
    let mut fs = MemoryFileSystem::default();
    for entry in std::fs::read_dir(examples_dir().join(dir)).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "ioa") {
            let text = std::fs::read_to_string(&path).unwrap();
            let name = path.file_name().unwrap();
            fs.files.insert(Path::new(dir).join(name), transform(&text));
        }
    }
    let result = ioa_lang::check_files(&[Path::new(dir).join(root)], &fs);
    let rendered = ioa_lang::diagnostics::render(&result.diagnostics, &result.sources, false);
    let spec = result
        .spec
        .unwrap_or_else(|| panic!("{dir}/{root} must check:\n{rendered}"));
    let mut value = serde_json::to_value(&spec).unwrap();
    strip_spans(&mut value);
    value
}

#[test]
fn unicode_and_ascii_consensus_models_lower_to_identical_ir() {
    for root in [
        "cons.ioa",
        "global1.ioa",
        "global1_invariants.ioa",
        "global1_schedules.ioa",
        "global1_to_cons.ioa",
        "global1_to_cons_naive.ioa",
    ] {
        let unicode = lowered("consensus", root, |t| t.to_string());
        let ascii = lowered("consensus", root, to_ascii);
        assert_eq!(
            unicode, ascii,
            "{root}: ASCII and Unicode spellings lower differently"
        );
    }
}

/// Lowers one self-contained file given as text.
fn lowered_text(name: &str, text: &str) -> serde_json::Value {
    let mut fs = MemoryFileSystem::default();
    fs.files.insert(PathBuf::from(name), text.to_string());
    let result = ioa_lang::check_files(&[PathBuf::from(name)], &fs);
    let rendered = ioa_lang::diagnostics::render(&result.diagnostics, &result.sources, false);
    let spec = result
        .spec
        .unwrap_or_else(|| panic!("{name} must check:\n{rendered}"));
    let mut value = serde_json::to_value(&spec).unwrap();
    strip_spans(&mut value);
    value
}

#[test]
fn ascii_lcr_model_lowers_like_the_unicode_example() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let unicode = std::fs::read_to_string(root.join("examples/lcr/lcr.ioa")).unwrap();
    let ascii =
        std::fs::read_to_string(root.join("tests/data/parse/ok/0017_lcr_ascii.ioa")).unwrap();
    assert!(
        ascii.contains("/\\") && !ascii.contains('∧'),
        "the test file must use ASCII operators"
    );
    assert!(
        unicode.contains('∧'),
        "the example must use Unicode operators"
    );
    assert_eq!(
        lowered_text("lcr.ioa", &unicode),
        lowered_text("lcr.ioa", &ascii)
    );
}

#[test]
fn the_transliteration_really_changes_the_text() {
    let text = std::fs::read_to_string(examples_dir().join("consensus/global1.ioa")).unwrap();
    let ascii = to_ascii(&text);
    assert!(text.contains('∀') && !ascii.contains('∀') && ascii.contains("\\A"));
}
