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

fn to_unicode(text: &str) -> String {
    // Only used on files already in ASCII: the reverse of `to_ascii` for the backslash forms.
    let mut out = text.to_string();
    for (u, a) in SPELLINGS.iter().filter(|(_, a)| a.trim().starts_with('\\')) {
        out = out.replace(a.trim(), u);
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

#[test]
fn ascii_lcr_model_lowers_like_its_unicode_spelling() {
    let ascii = lowered("lcr", "lcr.ioa", |t| t.to_string());
    let unicode = lowered("lcr", "lcr.ioa", to_unicode);
    assert_eq!(ascii, unicode);
}

#[test]
fn the_transliteration_really_changes_the_text() {
    let text = std::fs::read_to_string(examples_dir().join("consensus/global1.ioa")).unwrap();
    let ascii = to_ascii(&text);
    assert!(text.contains('∀') && !ascii.contains('∀') && ascii.contains("\\A"));
}
