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

/// `unsafe` code lives in `checker/src/compiled/native.rs` only (ARCHITECTURE.md): every other
/// Rust file of the workspace is free of it.
#[test]
fn unsafe_code_lives_in_the_native_module_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut offenders = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" && name != "node_modules" {
                    stack.push(path);
                }
            } else if name.ends_with(".rs") {
                let rel = path.strip_prefix(root).unwrap().display().to_string();
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                let says_unsafe = text
                    .lines()
                    .filter(|l| !l.trim_start().starts_with("//"))
                    .any(|l| l.contains("unsafe ") || l.contains("unsafe_code"));
                if says_unsafe
                    && rel != "checker/src/compiled/native.rs"
                    && rel != "tests/architecture.rs"
                {
                    offenders.push(rel);
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "unsafe code outside the native module: {offenders:?}"
    );
}
