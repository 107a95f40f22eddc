//! `ioa verify`: from a model with no hand-written invariants to a checked proof
//! ([`ioa::api::verify`]): prints each stage's line as it is reached, then the invariants used
//! (or the JSON report), and writes the Isabelle theories when asked.

use super::model;
use super::output::{print_diagnostics, print_json, print_stderr, print_stdout};
use super::{ColorChoice, Format};
use ioa::api::verify::{VerifyError, VerifyObserver, VerifyReport, VerifyRequest};
use ioa_lang::diagnostics::Diagnostic;
use ioa_lang::source_map::SourceMap;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `ioa verify`.
#[derive(clap::Args)]
pub struct VerifyArgs {
    /// The .ioa model (with the simulation or invariant to prove; no invariants needed).
    pub file: PathBuf,
    /// The forward simulation to prove (default: the only one).
    #[arg(long, conflicts_with = "invariant")]
    pub simulation: Option<String>,
    /// Prove this invariant instead of a simulation.
    #[arg(long)]
    pub invariant: Option<String>,
    /// A value for an automaton parameter, `NAME=VALUE` (repeatable): runs and exploration
    /// use it; proofs hold for every value.
    #[arg(long = "param")]
    pub params: Vec<String>,
    /// Random runs to learn from (besides the model's schedules).
    #[arg(long, default_value_t = 20)]
    pub runs: u64,
    /// Steps per random run.
    #[arg(long, default_value_t = 200)]
    pub steps: u64,
    /// Seed of the first random run; run k uses SEED + k.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// A universe line such as `Node = [0]..[2]` (repeatable); see `ioa run --help`.
    #[arg(long)]
    pub universe: Vec<String>,
    /// A universe file (default: MODEL.universe or default.universe beside the model).
    #[arg(long)]
    pub universe_file: Option<PathBuf>,
    /// Z3 resource units (its deterministic `rlimit` count) one query of the fixpoint may
    /// spend: the survivors are the same at any machine load.
    #[arg(long, default_value_t = prover_export::solve::budget::DEFAULT_QUERY_RLIMIT)]
    pub rlimit: u64,
    /// Z3 resource units for one obligation checked on its own (the final proof, and
    /// candidates the fixpoint's shared solvers gave up on), shared by the portfolio.
    #[arg(long, default_value_t = prover_export::solve::budget::DEFAULT_PROVE_RLIMIT)]
    pub proof_rlimit: u64,
    /// Wall-clock safety limit in seconds for one query of the fixpoint (expiry is
    /// reported as a timeout; the budget is `--rlimit`).
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
    /// Wall-clock safety limit in seconds for one obligation checked on its own.
    #[arg(long, default_value_t = prover_export::solve::budget::DEFAULT_WALL_SECONDS)]
    pub proof_timeout: f64,
    /// Write the invariants used to this IOA file (default: print them on stdout).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Also write Isabelle/HOL theories of the model with the invariants found (see
    /// `ioa export isabelle`).
    #[arg(long, value_name = "DIR")]
    pub export_isabelle: Option<PathBuf>,
    /// Use only the templates from the program text, not the detector.
    #[arg(long)]
    pub no_detector: bool,
    /// A small universe to explore exhaustively, refuting candidates (and looking for a
    /// counterexample to an invariant being proved); default: explore.universe beside the
    /// model, if there is one.
    #[arg(long)]
    pub explore_universe: Option<PathBuf>,
    /// States each search of the exploration may store: the limit that decides how far it
    /// goes, so that the same number refutes the same candidates on any machine and at any load.
    #[arg(long, default_value_t = 50_000)]
    pub explore_states: u64,
    /// Wall-clock safety limit of the exploration, in seconds; what it covered still refutes,
    /// but when it stops the search before the state limit the survivors depend on the
    /// machine's speed and load (the report says so).
    #[arg(long, default_value_t = 120.0)]
    pub explore_time: f64,
    /// Explore up to permutations of this type's values (repeatable; see `ioa explore`).
    #[arg(long)]
    pub explore_symmetric: Vec<String>,
    /// Skip the exploration.
    #[arg(long)]
    pub no_explore: bool,
    /// Print the report as text or as one JSON document.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Colour the diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// Prints the stages on the text format; notes and warnings always.
struct Shown(Format);

impl VerifyObserver for Shown {
    fn stage(&mut self, line: &str) {
        if self.0 == Format::Text {
            print_stderr(&format!("{line}\n"));
        }
    }

    fn note(&mut self, text: &str) {
        print_stderr(text);
    }

    fn progress(&mut self, line: &str) {
        if self.0 == Format::Text {
            print_stderr(&format!("{line}\n"));
        }
    }

    fn warnings(&mut self, warnings: &[Diagnostic], sources: &SourceMap) {
        if !warnings.is_empty() {
            print_diagnostics(warnings, sources, Format::Text, ColorChoice::Auto);
        }
    }
}

/// Runs `ioa verify`.
pub fn run(args: VerifyArgs) -> ExitCode {
    let (universe_file, universe) = (args.universe_file.as_deref(), &args.universe);
    let m = match model::open(&args.file, universe_file, universe, args.color, 1) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let request = VerifyRequest {
        file: args.file.clone(),
        simulation: args.simulation.clone(),
        invariant: args.invariant.clone(),
        params: args.params.clone(),
        runs: args.runs,
        steps: args.steps,
        seed: args.seed,
        rlimit: args.rlimit,
        proof_rlimit: args.proof_rlimit,
        timeout: args.timeout,
        proof_timeout: args.proof_timeout,
        output: args.output.clone(),
        export_isabelle: args.export_isabelle.is_some(),
        no_detector: args.no_detector,
        explore_universe: args.explore_universe.clone(),
        explore_states: args.explore_states,
        explore_time: args.explore_time,
        explore_symmetric: args.explore_symmetric.clone(),
        no_explore: args.no_explore,
    };
    let report = match ioa::api::verify::verify(&m, &request, &mut Shown(args.format)) {
        Ok(r) => r,
        Err(VerifyError::Usage(e)) => {
            print_stderr(&format!("error: {e}\n"));
            return ExitCode::from(2);
        }
        Err(VerifyError::Diagnostics(d, s)) => return model::fail(&d, &s, args.color),
    };
    let json = |doc: &serde_json::Value| {
        if args.format == Format::Json {
            print_json(doc);
        }
    };
    match report {
        VerifyReport::TargetViolated { json: doc } => {
            json(&doc);
            ExitCode::from(1)
        }
        VerifyReport::Finished {
            ok,
            json: doc,
            invariants,
            isabelle,
        } => {
            if let (Some(dir), Some(x)) = (&args.export_isabelle, isabelle) {
                let code = super::export_isabelle::write_theories(
                    dir,
                    &x.spec,
                    &x.sources,
                    &x.selection,
                    args.proof_rlimit.max(1),
                    args.color,
                );
                if code != ExitCode::SUCCESS {
                    return code;
                }
            }
            json(&doc);
            if args.format == Format::Text && args.output.is_none() {
                print_stdout(&invariants);
            }
            if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
    }
}
