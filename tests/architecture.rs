//! ARCHITECTURE.md must stay true: every path it names in backticks exists.

use std::path::Path;

#[test]
fn every_path_named_in_architecture_md_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let mut checked = 0;
    let mut missing = Vec::new();
    for (i, chunk) in text.split('`').enumerate() {
        // Odd chunks are inside backticks.
        if i % 2 == 0 || chunk.contains(' ') || chunk.contains('{') || chunk.contains('*') {
            continue;
        }
        let looks_like_path = chunk.contains('/')
            || [".rs", ".md", ".lalrpop", ".toml"]
                .iter()
                .any(|e| chunk.ends_with(e));
        if !looks_like_path || chunk.contains("::") {
            continue;
        }
        checked += 1;
        if !root.join(chunk).exists() {
            missing.push(chunk.to_string());
        }
    }
    assert!(
        checked >= 20,
        "only {checked} paths found; did the format change?"
    );
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names missing paths: {missing:?}"
    );
}
