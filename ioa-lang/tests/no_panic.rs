//! The front end must never panic: arbitrary bytes, and the examples mutated at random (bytes
//! replaced, lines dropped or repeated, tokens swapped), must produce diagnostics or a spec.
//!
//! The number of cases comes from `PROPTEST_CASES` (default below); the CI run is bounded, and
//! `PROPTEST_CASES=100000 cargo test -p ioa-lang --release --test no_panic` is the long run.

use ioa_lang::loader::MemoryFileSystem;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn examples() -> Vec<String> {
    let mut out = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    for dir in std::fs::read_dir(root).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(dir).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "ioa") {
                out.push(std::fs::read_to_string(f).unwrap());
            }
        }
    }
    out.sort();
    out
}

/// Checks one text as a file with no imports available.
fn check_text(text: &str) {
    let mut fs = MemoryFileSystem::default();
    fs.files
        .insert(PathBuf::from("input.ioa"), text.to_string());
    let result = ioa_lang::check_files(&[PathBuf::from("input.ioa")], &fs);
    // Rendering must not panic either, whatever the spans are.
    let _ = ioa_lang::diagnostics::render(&result.diagnostics, &result.sources, false);
    for d in &result.diagnostics {
        let _ = ioa_lang::diagnostics::to_json(d, &result.sources);
    }
}

/// One mutation of a text.
#[derive(Debug, Clone)]
enum Mutation {
    ReplaceByte(usize, u8),
    DeleteLine(usize),
    RepeatLine(usize),
    SwapWords(usize, usize),
    Truncate(usize),
    InsertToken(usize, &'static str),
}

const TOKENS: &[&str] = &[
    "od",
    "fi",
    "do",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ":=",
    "∀",
    "∃",
    "if",
    "then",
    "else",
    "for",
    "fire",
    "input",
    "output",
    "internal",
    "states",
    "transitions",
    "pre",
    "eff",
    ",",
    ";",
    ":",
    "nil",
    "choose",
    "where",
    "proof",
    "start",
    "ignore",
    "\\A",
    "/\\",
    "∈",
    "⊆",
    "-",
    "999999999999999999999",
    "\"",
    "%",
    "é",
    "\u{0}",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Mutation::ReplaceByte(p, b)),
        any::<usize>().prop_map(Mutation::DeleteLine),
        any::<usize>().prop_map(Mutation::RepeatLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapWords(a, b)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), proptest::sample::select(TOKENS))
            .prop_map(|(p, t)| Mutation::InsertToken(p, t)),
    ]
}

fn apply(text: &str, m: &Mutation) -> String {
    match m {
        Mutation::ReplaceByte(p, b) => {
            let mut bytes = text.as_bytes().to_vec();
            if !bytes.is_empty() {
                let n = bytes.len();
                bytes[p % n] = *b;
            }
            String::from_utf8_lossy(&bytes).into_owned()
        }
        Mutation::DeleteLine(p) | Mutation::RepeatLine(p) => {
            let mut lines: Vec<&str> = text.lines().collect();
            if !lines.is_empty() {
                let k = p % lines.len();
                if matches!(m, Mutation::DeleteLine(_)) {
                    lines.remove(k);
                } else {
                    lines.insert(k, lines[k]);
                }
            }
            lines.join("\n")
        }
        Mutation::SwapWords(a, b) => {
            let mut words: Vec<&str> = text.split(' ').collect();
            if !words.is_empty() {
                let n = words.len();
                words.swap(a % n, b % n);
            }
            words.join(" ")
        }
        Mutation::Truncate(p) => {
            let mut k = p % (text.len() + 1);
            while !text.is_char_boundary(k) {
                k -= 1;
            }
            text[..k].to_string()
        }
        Mutation::InsertToken(p, t) => {
            let mut k = p % (text.len() + 1);
            while !text.is_char_boundary(k) {
                k -= 1;
            }
            format!("{} {t} {}", &text[..k], &text[k..])
        }
    }
}

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(1500);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_bytes_do_not_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        check_text(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn mutated_examples_do_not_panic(which in any::<usize>(), mutations in proptest::collection::vec(mutation(), 1..4)) {
        let all = examples();
        let mut text = all[which % all.len()].clone();
        for m in &mutations {
            text = apply(&text, m);
        }
        check_text(&text);
    }
}
