//! `ioa prove`: build the proof obligations of a model's invariants and forward simulations,
//! check each with Z3 ([`ioa::api::prove`]), print the table (obligation, verdict, time) and
//! the counterexamples, and exit 0 only if every obligation is proved. Several files (a proof
//! chain such as Paxos → Global1 → Cons) are proved one after the other, with a total.

use super::output::{print_diagnostics, print_json, print_stderr, print_stdout};
use super::{ColorChoice, Format};
pub use ioa::api::prove::Selection;
use ioa::api::prove::{PrepareError, Prepared};
use prover_export::solve::Budget;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Options of `ioa prove`.
#[derive(clap::Args)]
pub struct ProveCli {
    /// The .ioa model; several files are proved one after the other (a chain of simulations
    /// whose files cannot be imported together), with a total at the end.
    #[arg(required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,
    /// Prove this forward simulation (repeatable; default: every simulation and invariant).
    #[arg(long = "simulation")]
    pub simulations: Vec<String>,
    /// Prove this invariant (repeatable; default: every simulation and invariant).
    #[arg(long = "invariant")]
    pub invariants: Vec<String>,
    /// Invariants assumed in pre-states, comma-separated, or `none` (default: every
    /// invariant declared of the automaton).
    #[arg(long)]
    pub assume: Option<String>,
    /// A value for a parameter, `NAME=VALUE` (repeatable): every obligation assumes that
    /// each automaton parameter called NAME (and each parameter a simulation's header calls
    /// NAME) has this value; the report's header lists the assumptions.
    #[arg(long = "param")]
    pub params: Vec<String>,
    /// Z3 resource units per obligation (its deterministic `rlimit` count, shared by the
    /// portfolio of strategies): the same budget gives the same verdicts on any machine
    /// and at any load.
    #[arg(long, default_value_t = prover_export::solve::budget::DEFAULT_PROVE_RLIMIT)]
    pub rlimit: u64,
    /// Wall-clock safety limit per obligation, in seconds; its expiry is reported as a
    /// timeout, a verdict that depends on the machine's load.
    #[arg(long, default_value_t = prover_export::solve::budget::DEFAULT_WALL_SECONDS)]
    pub timeout: f64,
    /// A text table or one JSON document.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Colour the diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

impl ProveCli {
    /// The arguments `run` takes.
    pub fn into_args(self) -> ProveArgs {
        let selections = self
            .files
            .into_iter()
            .map(|file| Selection {
                file,
                simulations: self.simulations.clone(),
                invariants: self.invariants.clone(),
                assume: self.assume.clone(),
                params: self.params.clone(),
            })
            .collect();
        ProveArgs {
            selections,
            rlimit: self.rlimit,
            timeout: self.timeout,
            format: self.format,
            color: self.color,
        }
    }
}

/// Arguments of `ioa prove`.
pub struct ProveArgs {
    /// What to prove, one selection per file.
    pub selections: Vec<Selection>,
    /// Z3 resource units per obligation (deterministic budget).
    pub rlimit: u64,
    /// Per-obligation wall-clock safety limit in seconds.
    pub timeout: f64,
    /// Text table or JSON.
    pub format: Format,
    /// Colour for diagnostics.
    pub color: ColorChoice,
}

/// Builds the selected obligations, or prints why not and returns the exit code (1 for a
/// model that does not check or has nothing to prove, 2 for a request that does not fit it).
pub fn obligations(sel: &Selection, color: ColorChoice) -> Result<Prepared, ExitCode> {
    ioa::api::prove::obligations(sel).map_err(|e| match e {
        PrepareError::Diagnostics(diags, sources) => {
            print_diagnostics(&diags, &sources, Format::Text, color);
            ExitCode::from(1)
        }
        PrepareError::Usage(message) => {
            print_stderr(&format!("error: {message}\n"));
            ExitCode::from(2)
        }
        PrepareError::NothingToProve => {
            print_stderr("nothing to prove: the model declares no invariant and no simulation\n");
            ExitCode::from(1)
        }
    })
}

/// Runs `ioa prove`: each file in turn; with several, a header before each and the totals
/// after (the JSON document is then `{"files": [...], "obligations", "proved", "seconds"}`).
pub fn run(args: ProveArgs) -> ExitCode {
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        print_stderr("error: --timeout must be a positive number of seconds\n");
        return ExitCode::from(2);
    }
    if args.rlimit == 0 {
        print_stderr("error: --rlimit must be a positive number of Z3 resource units\n");
        return ExitCode::from(2);
    }
    let budget = Budget::new(args.rlimit, Duration::from_secs_f64(args.timeout));
    let several = args.selections.len() > 1;
    let started = Instant::now();
    let (mut obligations, mut proved, mut documents) = (0, 0, Vec::new());
    for selection in &args.selections {
        let prepared = match self::obligations(selection, args.color) {
            Ok(x) => x,
            Err(code) => return code,
        };
        let report = ioa::api::prove::prove(&prepared, budget);
        obligations += report.rows.len();
        proved += report.proved();
        match args.format {
            Format::Text if several => print_stdout(&format!(
                "== {} ==\n{}\n",
                selection.file.display(),
                report.text()
            )),
            Format::Text => print_stdout(&report.text()),
            Format::Json if several => {
                let mut doc = report.to_json();
                doc["file"] = selection.file.display().to_string().into();
                documents.push(doc);
            }
            Format::Json => print_json(&report.to_json()),
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    match args.format {
        Format::Text if several => print_stdout(&format!(
            "all {} files: {proved} of {obligations} obligations proved in {seconds:.1} s\n",
            args.selections.len()
        )),
        Format::Json if several => print_json(&serde_json::json!({
            "files": documents,
            "obligations": obligations,
            "proved": proved,
            "seconds": seconds,
        })),
        _ => {}
    }
    if proved == obligations {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
