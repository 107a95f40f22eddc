//! The front end on arbitrary text: parsing, checking and rendering the diagnostics must never
//! panic, whatever the input.
#![no_main]

use ioa_lang::loader::MemoryFileSystem;
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut fs = MemoryFileSystem::default();
    fs.files
        .insert(PathBuf::from("input.ioa"), text.to_string());
    let result = ioa_lang::check_files(&[PathBuf::from("input.ioa")], &fs);
    let _ = ioa_lang::diagnostics::render(&result.diagnostics, &result.sources, false);
    for d in &result.diagnostics {
        let _ = ioa_lang::diagnostics::to_json(d, &result.sources);
    }
    // A checked model also prints and re-checks (the `ioa fmt` round trip).
    if result.spec.is_some() {
        if let Ok(file) = ioa_lang::parse::parse_file(ioa_lang::span::FileId(0), text) {
            let _ = ioa_lang::pretty::print_file(&file);
        }
    }
});
