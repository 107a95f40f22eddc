//! `ioa export smt FILE DIR`: one SMT-LIB2 file per proof obligation, runnable by any solver
//! that reads Z3's set operations (`z3 FILE.smt2` prints `unsat` when the obligation holds).

use super::output::{print_stderr, print_stdout};
use super::prove::{obligations, Selection};
use super::ColorChoice;
use std::path::PathBuf;
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

/// Options of `ioa export smt`.
#[derive(clap::Args)]
pub struct SmtArgs {
    /// The folder to write into (created if missing).
    pub dir: PathBuf,
    /// The .ioa model.
    pub file: PathBuf,
    /// Only this forward simulation (repeatable).
    #[arg(long = "simulation")]
    pub simulations: Vec<String>,
    /// Only this invariant (repeatable).
    #[arg(long = "invariant")]
    pub invariants: Vec<String>,
    /// Invariants assumed in pre-states, comma-separated, or `none` (default: all declared).
    #[arg(long)]
    pub assume: Option<String>,
    /// A value for a parameter, `NAME=VALUE` (repeatable), assumed by every obligation
    /// (as `ioa prove --param`).
    #[arg(long = "param")]
    pub params: Vec<String>,
    /// Colour the diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// Runs `ioa export smt`.
pub fn run(args: SmtArgs) -> ExitCode {
    let (dir, color) = (args.dir.as_path(), args.color);
    let selection = Selection {
        file: args.file,
        simulations: args.simulations,
        invariants: args.invariants,
        assume: args.assume,
        params: args.params,
    };
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
