//! The symbol index over every example model: every declaration's name span and every
//! resolved use must cover exactly the name it stands for (a reference to `voted` is written
//! `voted`), and the counts of declarations and uses of each example are pinned.

use ioa_lang::loader::FileSystem;
use ioa_lang::symbols::SymbolIndex;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The disk, for the test only (the crate itself does no I/O).
struct Disk;

impl FileSystem for Disk {
    fn read(&self, path: &Path) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    }

    fn canonical(&self, path: &Path) -> PathBuf {
        ioa_lang::loader::normalise(path)
    }
}

fn examples() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut files = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        if dir.is_dir() {
            for file in std::fs::read_dir(&dir).unwrap() {
                let file = file.unwrap().path();
                if file.extension().is_some_and(|e| e == "ioa") {
                    files.push(file);
                }
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_name_span_covers_its_name() {
    let mut counts = String::new();
    for path in examples() {
        let result = ioa_lang::check_files(std::slice::from_ref(&path), &Disk);
        let index = SymbolIndex::build(&result.files, &result.sources);
        for d in &index.definitions {
            assert_eq!(
                result.sources.snippet(d.name_span),
                d.name,
                "{}: {d:?}",
                path.display()
            );
        }
        for r in &index.references {
            let target = &index.definitions[r.target];
            assert_eq!(
                result.sources.snippet(r.span),
                target.name,
                "{}: use at {:?} resolved to {target:?}",
                path.display(),
                result.sources.line_col(r.span.file, r.span.start)
            );
        }
        let name = path
            .strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples"))
            .unwrap();
        writeln!(
            counts,
            "{}: {} declarations, {} uses",
            name.display(),
            index.definitions.len(),
            index.references.len()
        )
        .unwrap();
    }
    insta::assert_snapshot!("example_symbol_counts", counts);
}
