//! `ioa infer`: run an automaton under schedules and/or at random, propose likely invariants of
//! its state (the `daikon` crate), print them as IOA `invariant` declarations (or JSON), and on
//! request write the runs for Daikon itself (`--daikon DIR`) or check the proposals on further
//! random runs (`--validate RUNS`).

use super::model;
use super::output::{failure, print_diagnostics, print_stderr, print_stdout, usage};
use super::{ColorChoice, Format, RunsArgs};
use daikon::validate;
use daikon::{Engine, GrammarOptions, Options, Report, VarModel};
use interpreter::machine::Machine;
use interpreter::runner::Runner;
use ioa::api::infer::{
    add_filter_json, add_templates, check_on_runs, choose_printed, filter_summary, parse_bounds,
    parse_derive, text_report, NotValidated,
};
use ioa::api::infer_filter::{self, Candidate, Exploring, Origin};
use ioa::api::runs::{self, RunId};
use ioa::api::trace_files::DaikonFiles;
use ioa_lang::diagnostics::IntoDiagnostic;
use std::path::PathBuf;
use std::process::ExitCode;

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
    if !(args.confidence > 0.0 && args.confidence < 1.0) {
        return usage(format!(
            "--confidence must lie strictly between 0 and 1, not {}",
            args.confidence
        ));
    }
    let derive = match parse_derive(args.derive.as_deref(), args.compare_all_numbers) {
        Ok(d) => d,
        Err(e) => return usage(e),
    };
    let bounds = match parse_bounds(args.bounds.as_deref()) {
        Ok(b) => b,
        Err(e) => return usage(e),
    };
    let m = match model::load(
        &args.file,
        args.runs.universe_file.as_deref(),
        &args.runs.universe,
        None,
    ) {
        Ok(m) => m,
        Err((d, s)) => return model::fail(&d, &s, args.color),
    };
    let choice = args.runs.choice();
    let selected = match runs::select(&m, &choice) {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    let (automaton, params, weights) = (
        selected.automaton,
        selected.params.clone(),
        selected.weights.clone(),
    );
    let aut_name = selected.name.clone();
    // Runs ignore the model's own invariants: a violation must not cut a sample run short.
    let mut bare = m.spec.clone();
    bare.invariants.clear();
    let machine = match Machine::new(&bare, &m.universe, automaton, params.clone()) {
        Ok(x) => x,
        Err(e) => return model::fail(&[e.to_diagnostic()], &m.sources, args.color),
    };
    let options = Options {
        confidence: args.confidence,
        derive,
        grammar: GrammarOptions {
            linear: !args.no_linear,
            bounds,
            split: args.split,
            split_actions: args.split,
        },
        prefix: args.prefix.clone(),
    };
    let started = std::time::Instant::now();
    let mut model_vars = VarModel::new(&machine, options.derive);
    if options.grammar.split_actions {
        daikon::preconditions::add_action_splits(&mut model_vars, &machine, &m.sources);
    }
    let mut engine = Engine::new(&machine, &model_vars, options.grammar);
    let mut daikon_out = match args
        .daikon
        .as_deref()
        .map(|d| DaikonFiles::create(d, &machine))
    {
        Some(Ok(d)) => Some(d),
        Some(Err(e)) => {
            print_stderr(&format!("error: {e}\n"));
            return ExitCode::from(1);
        }
        None => None,
    };
    let mut transitions = args
        .transitions
        .then(|| daikon::transitions::Transitions::new(&machine, &model_vars));
    let runner = Runner::new(&machine);
    // Templates are sampled on the reached states (distinct ones suffice).
    let mut reached: Vec<Vec<interpreter::value::Value>> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut feed = |id: RunId, report: interpreter::runner::RunReport| -> Result<(), String> {
        let label = id.label();
        if let Some(d) = ioa::api::diagnose::stop_diagnostic(&machine, &report) {
            print_stderr(&format!(
                "warning: {label} stopped early; its {} state(s) are used\n",
                report.trace.states.len()
            ));
            print_diagnostics(&[d], &m.sources, Format::Text, args.color);
        }
        engine.add_trace(&label, &report.trace);
        if args.templates {
            for state in &report.trace.states {
                if seen.insert(state.clone()) {
                    reached.push(state.clone());
                }
            }
        }
        if let Some(t) = transitions.as_mut() {
            t.add_trace(&report.trace);
        }
        if let Some(d) = daikon_out.as_mut() {
            d.trace(&report.trace)?;
        }
        Ok(())
    };
    if let Err(e) = runs::for_each_run(&runner, &selected, &choice, &mut feed) {
        return failure(e);
    }
    if let Some(d) = daikon_out.take() {
        match d.finish() {
            Ok(paths) => print_stderr(&format!("wrote {}\n", paths.join(" and "))),
            Err(e) => return failure(e),
        }
    }
    let taken: Vec<String> = m.spec.invariants.iter().map(|i| i.name.clone()).collect();
    let mut report = Report::build(&bare, &model_vars, &engine, &options, &taken);
    let elapsed = started.elapsed().as_secs_f64();
    let c = report.counts;
    print_stderr(&format!(
        "inferred {} invariant(s) of {aut_name} from {} run(s): {} state(s), {} distinct; {} \
         variable(s), {} candidate(s) in {elapsed:.2} s\n",
        report.declarations.len(),
        c.traces,
        c.states,
        c.samples,
        c.variables,
        report.findings.len(),
    ));
    // The precision stage: templates, and the small instance's exploration.
    let mut candidates: Vec<Candidate> = report
        .declarations
        .iter()
        .enumerate()
        .map(|(k, d)| Candidate {
            name: d.name.clone(),
            text: d.text.clone(),
            origin: Origin::Detector(k),
        })
        .collect();
    if args.templates {
        let first = report.declarations.len() + 1;
        add_templates(
            &mut candidates,
            &args.file,
            &aut_name,
            &args.prefix,
            first,
            &taken,
        );
    }
    let filtered = if args.no_explore && !args.templates {
        None
    } else {
        let exploring = (!args.no_explore).then(|| Exploring {
            universe: args.explore_universe.clone(),
            time: args.explore_time,
            depth: args.explore_depth,
            states: Some(args.explore_states.max(1)),
        });
        let filter_started = std::time::Instant::now();
        // Further runs: four times as long, seeds a billion past the inference's (the
        // validation's follow the inference's directly).
        let further = validate::Plan {
            automaton,
            params: params.clone(),
            runs: args.refute_runs,
            steps: choice.steps.saturating_mul(4),
            seed: choice.seed.wrapping_add(1_000_000_000),
            weights: weights.clone(),
            swarm: false,
        };
        let f = match infer_filter::filter(
            &args.file,
            &m,
            automaton,
            &params,
            candidates,
            &reached,
            exploring.as_ref(),
            Some(further),
        ) {
            Ok(f) => f,
            Err(e) => return failure(format!("the precision filter failed: {e}")),
        };
        if let Some(skipped) = &f.skipped_universe_lines {
            print_stderr(&skipped.note());
        }
        print_stderr(&filter_summary(&f, filter_started.elapsed().as_secs_f64()));
        Some(f)
    };
    // What is printed: the detector's survivors (in the report, for JSON) and the templates'.
    let chosen = choose_printed(&mut report, filtered.as_ref(), &aut_name);
    let (printed, template_json) = (&chosen.printed, chosen.templates.clone());
    let declarations_text: String = printed
        .iter()
        .map(|(_, _, d)| format!("{d}\n"))
        .collect::<Vec<_>>()
        .join("\n");
    let facts = transitions.as_ref().map(|t| t.facts(args.confidence));
    let validation = match args.validate {
        Some(runs) => {
            let plan = validate::Plan {
                automaton,
                params,
                runs,
                steps: choice.steps,
                seed: args
                    .validate_seed
                    .unwrap_or_else(|| choice.seed.wrapping_add(choice.runs)),
                weights,
                swarm: false,
            };
            let names: Vec<String> = printed.iter().map(|(n, _, _)| n.clone()).collect();
            match check_on_runs(&args.file, &m, &declarations_text, &names, &plan) {
                Ok(v) => Some(v),
                Err(NotValidated::DoNotCheck(d, s)) => {
                    print_stderr(
                        "error: the inferred invariants do not check when added to the model\n",
                    );
                    print_diagnostics(&d, &s, Format::Text, args.color);
                    return ExitCode::from(1);
                }
                Err(NotValidated::Failed(d)) => return model::fail(&[d], &m.sources, args.color),
            }
        }
        None => None,
    };
    match args.format {
        Format::Text => {
            let text = text_report(
                &report,
                &chosen,
                filtered.as_ref(),
                args.explain,
                facts.as_deref().map(|f| (f, args.confidence)),
                validation.as_ref(),
            );
            print_stdout(text.trim_end());
        }
        Format::Json => {
            let mut json = report.to_json(args.explain);
            if let Some(f) = &filtered {
                if let Some(list) = json["invariants"].as_array_mut() {
                    for inv in list.iter_mut() {
                        let status = f
                            .kept
                            .iter()
                            .find(|(c, _)| inv["name"] == c.name.as_str())
                            .map(|(_, s)| s.text());
                        inv["status"] = status.into();
                    }
                }
                add_filter_json(&mut json, f, template_json);
            }
            if let Some(f) = &facts {
                json["transitions"] = serde_json::to_value(f).unwrap_or_default();
            }
            if let Some(v) = &validation {
                json["validation"] = serde_json::to_value(v).unwrap_or_default();
            }
            print_stdout(&serde_json::to_string_pretty(&json).expect("JSON of plain data"));
        }
    }
    match &validation {
        Some(v) if v.violated() > 0 => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    }
}
