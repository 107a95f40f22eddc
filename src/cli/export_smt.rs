//! `ioa export smt FILE DIR`: one SMT-LIB2 file per proof obligation, runnable by any solver
//! that reads Z3's set operations (`z3 FILE.smt2` prints `unsat` when the obligation holds).

use super::output::{print_stderr, print_stdout};
use super::prove::{obligations, Selection};
use super::ColorChoice;
use std::path::Path;
use std::process::ExitCode;

/// A file name for an obligation: its name with spaces and punctuation as `_`/`.`.
pub fn file_name(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' => out.push(c),
            ' ' => out.push('.'),
            _ => out.push('_'),
        }
    }
    format!("{out}.smt2")
}

/// Runs `ioa export smt`.
pub fn run(selection: Selection, dir: &Path, color: ColorChoice) -> ExitCode {
    let obs = match obligations(&selection, color) {
        Ok(x) => x.obligations,
        Err(code) => return code,
    };
    if let Err(e) = std::fs::create_dir_all(dir) {
        print_stderr(&format!("error: cannot create {}: {e}\n", dir.display()));
        return ExitCode::from(1);
    }
    for ob in &obs {
        let path = dir.join(file_name(&ob.name()));
        if let Err(e) = std::fs::write(&path, ob.smt2_file()) {
            print_stderr(&format!("error: cannot write {}: {e}\n", path.display()));
            return ExitCode::from(1);
        }
    }
    print_stdout(&format!(
        "wrote {} SMT-LIB2 file(s) to {} (`z3 FILE` prints unsat when the obligation is proved)",
        obs.len(),
        dir.display()
    ));
    ExitCode::SUCCESS
}
