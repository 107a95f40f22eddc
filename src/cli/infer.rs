//! `ioa infer`: run an automaton under schedules and/or at random, propose likely invariants of
//! its state (the `daikon` crate), print them as IOA `invariant` declarations (or JSON), and on
//! request write the runs for Daikon itself (`--daikon DIR`) or check the proposals on further
//! random runs (`--validate RUNS`).

use super::model::{self, Model};
use super::output::{diagnostics_exit, exit, failure, print_diagnostics, print_json};
use super::output::{print_stderr, print_stdout, usage, Step};
use super::{ColorChoice, Format, RunsArgs};
use daikon::transitions::ActionFacts;
use daikon::validate::Validation;
use daikon::{Report, VarModel};
use interpreter::machine::Machine;
use ioa::api::infer::{
    add_templates, check_on_runs, choose_printed, detector_candidates, detector_options,
    filter_summary, further_plan, inferred_line, json_report, text_report, validation_plan, Chosen,
    NotValidated,
};
use ioa::api::infer_filter::{self, Exploring, Filtered};
use ioa::api::infer_sample::{sample, Collect};
use ioa::api::runs::{self, RunChoice, Selected, StoppedRun};
use ioa_lang::diagnostics::IntoDiagnostic;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Options of `ioa infer`.
#[derive(clap::Args)]
pub struct InferArgs {
    /// The .ioa model.
    pub file: PathBuf,
    #[command(flatten)]
    pub runs: RunsArgs,
    /// Report an invariant only if the chance that it held by accident is below 1 − this.
    #[arg(long, default_value_t = 0.99)]
    pub confidence: f64,
    /// Also say why every dropped candidate was dropped (as `%` comments, or in JSON).
    #[arg(long)]
    pub explain: bool,
    /// Print IOA declarations (text) or a JSON report.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Also write the runs as Daikon input: DIR/A.decls and DIR/A.dtrace.
    #[arg(long, value_name = "DIR")]
    pub daikon: Option<PathBuf>,
    /// Also report per-action pre/post facts (`x' = x + 1`, `A ⊆ A'`, unchanged variables).
    #[arg(long)]
    pub transitions: bool,
    /// Name the declarations PREFIX1, PREFIX2, ….
    #[arg(long, default_value = "Inv_")]
    pub prefix: String,
    /// Derived variables: a comma-separated list of sizes, intersections, null-arrays, keys
    /// (the indices of an array or map whose entry is not the start default), or all (the
    /// default) or none.
    #[arg(long)]
    pub derive: Option<String>,
    /// Compare sizes of sets of different element types too (Daikon's comparability none).
    #[arg(long)]
    pub compare_all_numbers: bool,
    /// Do not propose linear relations a·x + b·y + c = 0.
    #[arg(long)]
    pub no_linear: bool,
    /// Report bounds x ≥ c and x ≤ c only for constants c in LOW..HIGH (default -1..2).
    #[arg(long, value_name = "LOW..HIGH", allow_hyphen_values = true)]
    pub bounds: Option<String>,
    /// Also propose conditional invariants: `c = v ⇒ …`, split on every value of every
    /// Boolean and enumeration variable, and `(∃ params (pre)) ⇒ …`, split on whether some
    /// instance of an action is enabled.
    #[arg(long)]
    pub split: bool,
    /// Check the inferred invariants on this many further random runs (exit 1 if one fails).
    #[arg(long, value_name = "RUNS")]
    pub validate: Option<u64>,
    /// Seed of the first validation run (default: just after the inference runs' seeds).
    #[arg(long)]
    pub validate_seed: Option<u64>,
    /// Do not filter the proposals by exploring a small instance (every printed invariant is
    /// then statistical only).
    #[arg(long)]
    pub no_explore: bool,
    /// The small instance's universe (default: explore.universe beside the model, else the
    /// runs' universe).
    #[arg(long, value_name = "FILE")]
    pub explore_universe: Option<PathBuf>,
    /// Wall-clock safety limit of the small instance's exploration, in seconds: when it stops
    /// the search before the state limit, what the exploration refuted depends on the
    /// machine's speed and load (the summary says so).
    #[arg(long, value_name = "SECS", default_value_t = 120.0)]
    pub explore_time: f64,
    /// Explore the small instance only this many steps deep.
    #[arg(long, value_name = "STEPS")]
    pub explore_depth: Option<u32>,
    /// Store at most this many states of the small instance: the bound that decides how far
    /// the exploration goes, so that the same command proposes the same invariants on any
    /// machine and at any load.
    #[arg(long, value_name = "N", default_value_t = 50_000)]
    pub explore_states: u64,
    /// After the small instance's exploration, check the survivors on this many further random
    /// runs, each four times as long as the inference's (seeds far from the inference's and
    /// the validation's), and three times as many swarm runs (each leaves out every input
    /// action with probability 1/2 and weighs the others at random), and drop the ones a run
    /// refutes; 0 skips the stage.
    #[arg(long, value_name = "RUNS", default_value_t = 100)]
    pub refute_runs: u64,
    /// Also propose the candidates `ioa verify` reads off the program text (what a
    /// precondition checked stays true of what the effect wrote), kept if every reached
    /// state and the small instance's exploration agree (primitive automata).
    #[arg(long)]
    pub templates: bool,
    /// Colour the diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// Runs `ioa infer`.
pub fn run(args: InferArgs) -> ExitCode {
    exit(infer(&args))
}

/// Runs the detector on the chosen runs, filters and validates what it proposes, and prints it.
fn infer(args: &InferArgs) -> Step<ExitCode> {
    let options = detector_options(
        args.confidence,
        args.derive.as_deref(),
        args.compare_all_numbers,
        args.bounds.as_deref(),
        !args.no_linear,
        args.split,
        &args.prefix,
    )
    .map_err(usage)?;
    let (universe_file, universe) = (args.runs.universe_file.as_deref(), &args.runs.universe);
    let m = model::open(&args.file, universe_file, universe, args.color, 1)?;
    let choice = args.runs.choice();
    let selected = runs::select(&m, &choice).map_err(usage)?;
    // Runs ignore the model's own invariants: a violation must not cut a sample run short.
    let bare = runs::without_invariants(&m.spec);
    let machine = Machine::new(
        &bare,
        &m.universe,
        selected.automaton,
        selected.params.clone(),
    )
    .map_err(|e| model::fail(&[e.to_diagnostic()], &m.sources, args.color))?;
    let started = Instant::now();
    let mut vars = VarModel::new(&machine, options.derive);
    if options.grammar.split_actions {
        daikon::preconditions::add_action_splits(&mut vars, &machine, &m.sources);
    }
    let collect = Collect {
        transitions: args.transitions,
        reached: args.templates,
        daikon: args.daikon.as_deref(),
    };
    let precision = Precision {
        args,
        m: &m,
        selected: &selected,
        choice: &choice,
    };
    let mut stopped = |s| precision.warn_stopped(s);
    let (samples, written) = sample(
        &machine,
        &vars,
        options.grammar,
        &selected,
        &choice,
        &collect,
        &mut stopped,
    )
    .map_err(failure)?;
    if let Some(paths) = written {
        print_stderr(&format!("wrote {}\n", paths.join(" and ")));
    }
    let taken: Vec<String> = m.spec.invariants.iter().map(|i| i.name.clone()).collect();
    let mut report = Report::build(&bare, &vars, &samples.engine, &options, &taken);
    let seconds = started.elapsed().as_secs_f64();
    print_stderr(&inferred_line(&report, &selected.name, seconds));
    let filtered = precision.filter(&report, &taken, &samples.reached)?;
    // What is printed: the detector's survivors (in the report, for JSON) and the templates'.
    let chosen = choose_printed(&mut report, filtered.as_ref(), &selected.name);
    let facts = samples
        .transitions
        .as_ref()
        .map(|t| t.facts(args.confidence));
    let validation = precision.validate(&chosen)?;
    let facts = facts.as_deref();
    Ok(precision.print(
        &report,
        &chosen,
        filtered.as_ref(),
        facts,
        validation.as_ref(),
    ))
}

/// What the stages after the detector need: the options, the model and the runs chosen.
struct Precision<'a> {
    args: &'a InferArgs,
    m: &'a Model,
    selected: &'a Selected<'a>,
    choice: &'a RunChoice,
}

impl Precision<'_> {
    /// Says that a run stopped early (its states are still used) and why.
    fn warn_stopped(&self, s: StoppedRun) {
        let (label, states) = (s.label, s.states);
        print_stderr(&format!(
            "warning: {label} stopped early; its {states} state(s) are used\n"
        ));
        print_diagnostics(
            &[s.diagnostic],
            &self.m.sources,
            Format::Text,
            self.args.color,
        );
    }

    /// Prints the report (text or JSON); exit 1 when the validation refuted an invariant.
    fn print(
        &self,
        report: &Report,
        chosen: &Chosen,
        filtered: Option<&Filtered>,
        facts: Option<&[ActionFacts]>,
        validation: Option<&Validation>,
    ) -> ExitCode {
        let args = self.args;
        match args.format {
            Format::Text => {
                let facts = facts.map(|f| (f, args.confidence));
                let text = text_report(report, chosen, filtered, args.explain, facts, validation);
                print_stdout(text.trim_end());
            }
            Format::Json => print_json(&json_report(
                report,
                chosen,
                filtered,
                facts,
                validation,
                args.explain,
            )),
        }
        match validation {
            Some(v) if v.violated() > 0 => ExitCode::from(1),
            _ => ExitCode::SUCCESS,
        }
    }

    /// The precision stage: the templates, the small instance's exploration and the further
    /// runs (none with `--no-explore` and without `--templates`).
    fn filter(
        &self,
        report: &Report,
        taken: &[String],
        reached: &[Vec<interpreter::value::Value>],
    ) -> Step<Option<Filtered>> {
        let (args, selected) = (self.args, self.selected);
        if args.no_explore && !args.templates {
            return Ok(None);
        }
        let mut candidates = detector_candidates(report);
        if args.templates {
            let first = report.declarations.len() + 1;
            let (file, prefix) = (&args.file, &args.prefix);
            add_templates(&mut candidates, file, &selected.name, prefix, first, taken);
        }
        let exploring = (!args.no_explore).then(|| Exploring {
            universe: args.explore_universe.clone(),
            time: args.explore_time,
            depth: args.explore_depth,
            states: Some(args.explore_states.max(1)),
        });
        let filter_started = Instant::now();
        let further = further_plan(selected, self.choice, args.refute_runs);
        let f = infer_filter::filter(
            &args.file,
            self.m,
            selected.automaton,
            &selected.params,
            candidates,
            reached,
            exploring.as_ref(),
            Some(further),
        )
        .map_err(|e| failure(format!("the precision filter failed: {e}")))?;
        if let Some(skipped) = &f.skipped_universe_lines {
            print_stderr(&skipped.note());
        }
        print_stderr(&filter_summary(&f, filter_started.elapsed().as_secs_f64()));
        Ok(Some(f))
    }

    /// `--validate RUNS`: the printed invariants checked on further random runs.
    fn validate(&self, chosen: &Chosen) -> Step<Option<Validation>> {
        let (args, m) = (self.args, self.m);
        let Some(runs) = args.validate else {
            return Ok(None);
        };
        let plan = validation_plan(self.selected, self.choice, runs, args.validate_seed);
        let text = chosen.declarations_text();
        match check_on_runs(&args.file, m, &text, &chosen.names(), &plan) {
            Ok(v) => Ok(Some(v)),
            Err(NotValidated::DoNotCheck(d, s)) => {
                print_stderr(
                    "error: the inferred invariants do not check when added to the model\n",
                );
                Err(diagnostics_exit(&d, &s, args.color, 1))
            }
            Err(NotValidated::Failed(d)) => Err(model::fail(&[d], &m.sources, args.color)),
        }
    }
}
