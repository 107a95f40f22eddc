//! `ioa export isabelle DIR FILE`: writes a model's automata, invariants and forward
//! simulations as Isabelle/HOL theories with a `ROOT` file, so that `isabelle build -D DIR`
//! checks them.

use super::output::{print_diagnostics, print_stderr};
use super::{ColorChoice, Format};
use ioa::api::fs::OsFileSystem;
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic, Severity};
use prover_export::isabelle::Selection;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Options of `ioa export isabelle`.
#[derive(clap::Args)]
pub struct IsabelleArgs {
    /// The directory to write the theories to (created if missing).
    pub dir: PathBuf,
    /// The .ioa model.
    pub file: PathBuf,
    /// Export only this automaton and its invariants.
    #[arg(long)]
    pub automaton: Option<String>,
    /// Export only this forward simulation (with its two automata).
    #[arg(long)]
    pub simulation: Option<String>,
    /// Z3 resource units for an obligation the quick check for unsat cores does not
    /// settle; a claim Z3 does not prove within them is not stated as a lemma.
    #[arg(long, default_value_t = prover_export::isabelle::hints::RECHECK_RLIMIT)]
    pub rlimit: u64,
    /// State every claim as a lemma, also those Z3 does not prove (by default they are left
    /// out and named in a comment): Isabelle should then reject the wrong ones.
    #[arg(long)]
    pub state_unproved: bool,
    /// Colour the diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// Runs `ioa export isabelle`.
pub fn run(args: IsabelleArgs) -> ExitCode {
    let IsabelleArgs {
        dir,
        file,
        automaton,
        simulation,
        rlimit,
        state_unproved,
        color,
    } = args;
    let (dir, file, recheck_rlimit) = (dir.as_path(), file.as_path(), rlimit.max(1));
    let result = ioa_lang::check_files(&[file.to_path_buf()], &OsFileSystem);
    let Some(spec) = result.spec else {
        print_diagnostics(&result.diagnostics, &result.sources, Format::Text, color);
        return ExitCode::from(1);
    };
    // The theories describe one automaton each: composites are flattened first.
    let spec = match ioa_lang::compose::flatten(&spec) {
        Ok(flat) => flat,
        Err(errors) => {
            let diags: Vec<Diagnostic> = errors.iter().map(|e| e.to_diagnostic()).collect();
            print_diagnostics(&diags, &result.sources, Format::Text, color);
            return ExitCode::from(1);
        }
    };
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "model".into());
    let selection = Selection {
        automaton,
        simulation,
        stem,
        hints: Default::default(),
        state_unproved,
    };
    write_theories(
        dir,
        &spec,
        &result.sources,
        &selection,
        recheck_rlimit,
        color,
    )
}

/// Exports `spec` and writes the theories and ROOT into `dir` (also used by `ioa verify`).
pub fn write_theories(
    dir: &Path,
    spec: &ioa_lang::ir::Spec,
    sources: &ioa_lang::source_map::SourceMap,
    selection: &Selection,
    recheck_rlimit: u64,
    color: ColorChoice,
) -> ExitCode {
    let exported = match ioa::api::export::isabelle(spec, selection, recheck_rlimit) {
        Ok(e) => e,
        Err(diags) => {
            print_diagnostics(&diags, sources, Format::Text, color);
            print_stderr(&format!(
                "nothing written: {} error(s) stopped the Isabelle export\n",
                diags.len()
            ));
            return ExitCode::from(1);
        }
    };
    let warnings: Vec<Diagnostic> = exported
        .warnings
        .iter()
        .map(|e| e.to_diagnostic())
        .collect();
    print_diagnostics(&warnings, sources, Format::Text, color);
    if let Err(e) = std::fs::create_dir_all(dir) {
        return write_error(dir, &e, color);
    }
    for (name, text) in &exported.files {
        let path = dir.join(name);
        if let Err(e) = std::fs::write(&path, text) {
            return write_error(&path, &e, color);
        }
    }
    let theories: Vec<&str> = exported
        .files
        .iter()
        .filter_map(|(n, _)| n.strip_suffix(".thy"))
        .collect();
    print_stderr(&format!(
        "wrote {} theories and ROOT (session {}) to {}: {}\ncheck them with: isabelle build -D {}\n",
        theories.len(),
        exported.session,
        dir.display(),
        theories.join(", "),
        dir.display()
    ));
    ExitCode::SUCCESS
}

fn write_error(path: &Path, e: &std::io::Error, color: ColorChoice) -> ExitCode {
    let d = Diagnostic {
        code: "E1207",
        severity: Severity::Error,
        message: format!("cannot write `{}`: {e}", path.display()),
        labels: vec![],
        notes: vec![],
        hint: Some("give a directory you can write to".into()),
    };
    print_diagnostics(
        &[d],
        &ioa_lang::source_map::SourceMap::new(),
        Format::Text,
        color,
    );
    ExitCode::from(1)
}
