//! What the targets share: a bundled model checked once.

use ioa_lang::ir::Spec;
use ioa_lang::loader::MemoryFileSystem;
use std::path::PathBuf;

/// Global1 of the Paxos paper with Cons imported, checked.
pub fn global1() -> Spec {
    let mut fs = MemoryFileSystem::default();
    for (name, text) in [
        (
            "cons.ioa",
            include_str!("../../examples/consensus/cons.ioa"),
        ),
        (
            "global1.ioa",
            include_str!("../../examples/consensus/global1.ioa"),
        ),
    ] {
        fs.files.insert(PathBuf::from(name), text.to_string());
    }
    let result = ioa_lang::check_files(&[PathBuf::from("global1.ioa")], &fs);
    result.spec.expect("the bundled model checks")
}
