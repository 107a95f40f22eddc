//! What `ioa infer` reports besides the invariants: the precision filter's summary and
//! comments, the validation on further runs, and the options that shape the grammar
//! (`--derive`, `--bounds`). Pure functions of the stages' results; the command prints them.

use super::fs::Appended;
use super::infer_filter::{self, Candidate, Filtered, Origin, Status};
use super::model::Model;
use super::runs::{RunChoice, Selected};
use daikon::validate::{self, Validation};
use daikon::{DeriveOptions, GrammarOptions};
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use ioa_lang::source_map::SourceMap;
use std::path::Path;

/// Why the proposals were not validated on further runs.
pub enum NotValidated {
    /// The proposals do not check when added to the model (a bug of the printer): the
    /// checker's diagnostics.
    DoNotCheck(Vec<Diagnostic>, SourceMap),
    /// A run of the validation failed (an evaluation error).
    Failed(Diagnostic),
}

/// The stage's one-line summary on standard error.
pub fn filter_summary(f: &Filtered, seconds: f64) -> String {
    let verified = f
        .kept
        .iter()
        .filter(|(_, s)| *s == Status::Verified)
        .count();
    let what = match (&f.exploration, &f.skipped) {
        (Some((_, pass)), _) => format!(
            "explored {} state(s) of the small instance ({}), refuted {}",
            pass.states,
            match (pass.complete, pass.limit) {
                (true, _) => "every reachable state".to_string(),
                (false, Some(checker::explore::Limit::States(n))) => {
                    format!("stopped by --explore-states {n} at depth {}", pass.depth)
                }
                (false, Some(checker::explore::Limit::Time(_))) => format!(
                    "stopped by the --explore-time safety limit at depth {}: what it refuted depends on the machine's load; raise --explore-time or lower --explore-states",
                    pass.depth
                ),
                (false, _) => format!("stopped at depth {}", pass.depth),
            },
            f.refuted.len()
        ),
        (None, Some(why)) => format!("exploration skipped: {why}"),
        (None, None) => "no exploration".to_string(),
    };
    let further = match &f.further {
        Some((plan, refuted)) => format!(
            "; {} further run(s) of {} step(s) and {} swarm run(s) refuted {}",
            plan.runs,
            plan.steps,
            plan.runs * infer_filter::SWARM_RUNS_PER_RUN,
            refuted.len()
        ),
        None => String::new(),
    };
    format!(
        "precision filter: {what}{further}; {} kept ({verified} verified on the small instance) \
         in {seconds:.2} s\n",
        f.kept.len()
    )
}

/// What the exploration did, as `%` comments after the header.
pub fn filter_text(f: &Filtered) -> String {
    let mut out = String::new();
    if f.templates_ill_typed + f.templates_sampled_out > 0 {
        out.push_str(&format!(
            "% templates from the program text: {} did not type-check, {} were refuted by a \
             reached state\n",
            f.templates_ill_typed, f.templates_sampled_out
        ));
    }
    match (&f.exploration, &f.skipped) {
        (Some((path, pass)), _) => {
            let universe = path
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "the runs' universe".to_string());
            out.push_str(&format!(
                "% small instance ({universe}): {} state(s), {}; {} candidate(s) refuted\n",
                pass.states,
                if pass.complete {
                    "every reachable state explored".to_string()
                } else {
                    format!(
                        "not finished (every state within {} step(s)), so nothing is verified",
                        pass.depth
                    )
                },
                f.refuted.len()
            ));
        }
        (None, Some(why)) => out.push_str(&format!("% small instance not explored: {why}\n")),
        (None, None) => {}
    }
    if let Some((plan, refuted)) = &f.further {
        out.push_str(&format!(
            "% further random runs: {} of at most {} step(s), seeds {}..{}, and {} swarm run(s) \
             (each without a random half of the inputs), seeds {}..{}; {} candidate(s) \
             refuted\n",
            plan.runs,
            plan.steps,
            plan.seed,
            plan.seed.wrapping_add(plan.runs.saturating_sub(1)),
            plan.runs * infer_filter::SWARM_RUNS_PER_RUN,
            plan.seed.wrapping_add(plan.runs),
            plan.seed.wrapping_add(
                plan.runs
                    .saturating_mul(infer_filter::SWARM_RUNS_PER_RUN + 1)
                    .saturating_sub(1)
            ),
            refuted.len()
        ));
    }
    out
}

/// The candidates the exploration and the further runs refuted, as `%` comments.
pub fn refuted_text(f: &Filtered) -> String {
    let mut out = String::new();
    if !f.refuted.is_empty() {
        out.push_str("\n% Refuted by the exploration of the small instance:\n");
        for (c, why) in &f.refuted {
            let why = why
                .as_ref()
                .map(|e| format!(" (evaluation failed: {e})"))
                .unwrap_or_default();
            out.push_str(&format!("%   {}: {}{why}\n", c.name, c.text));
        }
    }
    if let Some((_, refuted)) = f.further.as_ref().filter(|(_, r)| !r.is_empty()) {
        out.push_str("\n% Refuted by the further random runs:\n");
        for (c, at) in refuted {
            out.push_str(&format!("%   {}: {} ({at})\n", c.name, c.text));
        }
    }
    out
}

/// The validation's outcome as `%` comments.
pub fn validation_text(v: &Validation) -> String {
    let mut out = format!(
        "\n% Validation on {} random run(s) of at most {} step(s), seeds {}..{}: {} state(s), {} \
         distinct.\n% {} of {} invariant(s) held in every state.\n",
        v.runs,
        v.steps,
        v.seed,
        v.seed + v.runs.saturating_sub(1),
        v.states,
        v.distinct_states,
        v.invariants.len() - v.violated(),
        v.invariants.len()
    );
    for c in v.invariants.iter().filter(|c| c.violating_states > 0) {
        let first = c
            .first
            .as_ref()
            .map(|f| {
                let at = match &f.action {
                    Some(a) => format!("after step {a}"),
                    None => "in the start state".to_string(),
                };
                let error = f
                    .error
                    .as_ref()
                    .map(|e| format!(" (evaluation failed: {e})"))
                    .unwrap_or_default();
                format!("; first in the run with seed {} {at}{error}", f.seed)
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "% {} is violated in {} run(s), {} distinct state(s){first}\n",
            c.name, c.violating_runs, c.violating_states
        ));
    }
    out
}

/// `--derive sizes,intersections,null-arrays,keys` (or `all`, `none`).
pub fn parse_derive(
    text: Option<&str>,
    compare_all_numbers: bool,
) -> Result<DeriveOptions, String> {
    let mut d = match text {
        None | Some("all") => DeriveOptions::all(),
        Some(list) => {
            let mut d = DeriveOptions::none();
            for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                match item {
                    "none" => {}
                    "all" => d = DeriveOptions::all(),
                    "sizes" => d.sizes = true,
                    "intersections" => d.intersections = true,
                    "null-arrays" => d.null_arrays = true,
                    "keys" => d.keys = true,
                    other => {
                        return Err(format!(
                            "--derive takes sizes, intersections, null-arrays, keys, all or none, not `{other}`"
                        ))
                    }
                }
            }
            d
        }
    };
    d.compare_all_numbers = compare_all_numbers;
    Ok(d)
}

/// `--bounds LOW..HIGH` (default: Daikon's −1..2).
pub fn parse_bounds(text: Option<&str>) -> Result<(i64, i64), String> {
    let Some(text) = text else {
        return Ok(GrammarOptions::default().bounds);
    };
    let bad = || format!("--bounds takes LOW..HIGH, such as -1..2, not `{text}`");
    let (low, high) = text.split_once("..").ok_or_else(bad)?;
    let low: i64 = low.trim().parse().map_err(|_| bad())?;
    let high: i64 = high.trim().parse().map_err(|_| bad())?;
    if low > high {
        return Err(bad());
    }
    Ok((low, high))
}
/// Appends the declarations to the model, checks it again and runs the validation.
pub fn check_on_runs(
    file: &Path,
    m: &Model,
    declarations: &str,
    names: &[String],
    plan: &validate::Plan,
) -> Result<Validation, NotValidated> {
    let fs = Appended::new(file, declarations.to_string());
    let checked = ioa_lang::check_files(&[file.to_path_buf()], &fs);
    let Some(spec) = checked.spec else {
        return Err(NotValidated::DoNotCheck(
            checked.diagnostics,
            checked.sources,
        ));
    };
    if names.is_empty() {
        return Ok(Validation {
            runs: plan.runs,
            steps: plan.steps,
            seed: plan.seed,
            states: 0,
            distinct_states: 0,
            invariants: vec![],
        });
    }
    validate::validate(&spec, &m.universe, plan, names)
        .map_err(|e| NotValidated::Failed(e.to_diagnostic()))
}

/// Adds the invariant templates read off the program text of automaton `aut_name` in `file`
/// to the candidates (those not already proposed), named `PREFIX<n>` from `first` on, skipping
/// names in `taken`.
pub fn add_templates(
    candidates: &mut Vec<Candidate>,
    file: &Path,
    aut_name: &str,
    prefix: &str,
    first: usize,
    taken: &[String],
) {
    let loaded = ioa_lang::loader::load(&[file.to_path_buf()], &super::fs::OsFileSystem);
    let files: Vec<_> = loaded.files.into_iter().map(|(_, f)| f).collect();
    let mut next = first;
    for t in ::verify::templates::from_program(&files, aut_name) {
        if candidates.iter().any(|c| c.text == t.text) {
            continue;
        }
        let mut name = format!("{prefix}{next}");
        while taken.contains(&name) {
            next += 1;
            name = format!("{prefix}{next}");
        }
        next += 1;
        candidates.push(Candidate {
            name,
            text: t.text,
            origin: Origin::Template(t.origin),
        });
    }
}

/// A printed invariant: its name, its predicate on one line, and its whole declaration.
pub type Printed = (String, String, String);

/// The invariants `ioa infer` prints, after the precision filter if one ran.
pub struct Chosen {
    /// Name, predicate and declaration of each.
    pub printed: Vec<Printed>,
    /// The filter's standing of each (none without a filter).
    pub statuses: Vec<Option<Status>>,
    /// The templates kept, as JSON.
    pub templates: Vec<serde_json::Value>,
}

/// The invariants to print: the detector's (and, after the filter, the templates' it kept);
/// the report's declarations are narrowed to the detector's survivors.
pub fn choose_printed(
    report: &mut daikon::Report,
    filtered: Option<&Filtered>,
    aut_name: &str,
) -> Chosen {
    let filtered = &filtered;
    let (printed, statuses): (Vec<Printed>, Vec<Option<Status>>) = match filtered {
        None => (
            report
                .declarations
                .iter()
                .map(|d| (d.name.clone(), d.text.clone(), d.declaration.clone()))
                .collect(),
            vec![None; report.declarations.len()],
        ),
        Some(f) => f
            .kept
            .iter()
            .map(|(c, s)| {
                let declaration = match c.origin {
                    Origin::Detector(k) => report.declarations[k].declaration.clone(),
                    Origin::Template(_) => {
                        format!("invariant {} of {aut_name}:\n  {}", c.name, c.text)
                    }
                };
                ((c.name.clone(), c.text.clone(), declaration), Some(*s))
            })
            .unzip(),
    };
    let template_json: Vec<serde_json::Value> = filtered
        .iter()
        .flat_map(|f| f.kept.iter())
        .filter_map(|(c, s)| match &c.origin {
            Origin::Template(origin) => Some(serde_json::json!({
                "name": c.name, "text": c.text, "origin": origin, "status": s.text(),
            })),
            Origin::Detector(_) => None,
        })
        .collect();
    if let Some(f) = &filtered {
        let keep: Vec<usize> = f
            .kept
            .iter()
            .filter_map(|(c, _)| match c.origin {
                Origin::Detector(k) => Some(k),
                Origin::Template(_) => None,
            })
            .collect();
        let mut k = 0;
        report.declarations.retain(|_| {
            k += 1;
            keep.contains(&(k - 1))
        });
    }
    Chosen {
        printed,
        statuses,
        templates: template_json,
    }
}

/// Adds the precision filter's results to the JSON report: each invariant's standing, the
/// templates kept, what the exploration and the further runs refuted, and the exploration.
pub fn add_filter_json(
    json: &mut serde_json::Value,
    f: &Filtered,
    template_json: Vec<serde_json::Value>,
) {
    json["templates"] = template_json.into();
    json["refuted_by_exploration"] = f
        .refuted
        .iter()
        .map(|(c, why)| serde_json::json!({"name": c.name, "text": c.text, "error": why}))
        .collect::<Vec<_>>()
        .into();
    json["refuted_by_further_runs"] = f
        .further
        .iter()
        .flat_map(|(_, refuted)| refuted)
        .map(|(c, at)| serde_json::json!({"name": c.name, "text": c.text, "first": at}))
        .collect::<Vec<_>>()
        .into();
    json["exploration"] = match &f.exploration {
        Some((path, pass)) => serde_json::json!({
            "universe": path.as_ref().map(|p| p.display().to_string()),
            "states": pass.states,
            "depth": pass.depth,
            "complete": pass.complete,
        }),
        None => serde_json::Value::Null,
    };
}

/// The text report: the header, the filter's comments, each invariant (with its standing),
/// what was refuted, and on request the explanation, the transition facts (with their
/// confidence) and the validation.
pub fn text_report(
    report: &daikon::Report,
    chosen: &Chosen,
    filtered: Option<&Filtered>,
    explain: bool,
    facts: Option<(&[daikon::transitions::ActionFacts], f64)>,
    validation: Option<&Validation>,
) -> String {
    let mut text = report.ioa_header(chosen.printed.len());
    if let Some(f) = filtered {
        text.push_str(&filter_text(f));
    }
    for ((_, _, declaration), status) in chosen.printed.iter().zip(&chosen.statuses) {
        text.push('\n');
        if let Some(s) = status {
            text.push_str(&format!("% {}\n", s.text()));
        }
        text.push_str(declaration);
        text.push('\n');
    }
    if let Some(f) = filtered {
        text.push_str(&refuted_text(f));
    }
    if explain {
        text.push_str(&report.explain());
    }
    if let Some((f, confidence)) = facts {
        text.push_str(&daikon::transitions::facts_text(f, confidence));
    }
    if let Some(v) = validation {
        text.push_str(&validation_text(v));
    }
    text
}

/// The detector's options: `--confidence` (strictly between 0 and 1), `--derive` (with
/// `--compare-all-numbers`), `--bounds`, `--no-linear`, `--split` and `--prefix`, or a message
/// for a usage error.
pub fn detector_options(
    confidence: f64,
    derive: Option<&str>,
    compare_all_numbers: bool,
    bounds: Option<&str>,
    linear: bool,
    split: bool,
    prefix: &str,
) -> Result<daikon::Options, String> {
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(format!(
            "--confidence must lie strictly between 0 and 1, not {confidence}"
        ));
    }
    Ok(daikon::Options {
        confidence,
        derive: parse_derive(derive, compare_all_numbers)?,
        grammar: GrammarOptions {
            linear,
            bounds: parse_bounds(bounds)?,
            split,
            split_actions: split,
        },
        prefix: prefix.to_string(),
    })
}

/// The line on standard error after the detector: how many invariants of `aut_name` from how
/// many runs, states, variables and candidates, in how long.
pub fn inferred_line(report: &daikon::Report, aut_name: &str, seconds: f64) -> String {
    let c = report.counts;
    format!(
        "inferred {} invariant(s) of {aut_name} from {} run(s): {} state(s), {} distinct; {} \
         variable(s), {} candidate(s) in {seconds:.2} s\n",
        report.declarations.len(),
        c.traces,
        c.states,
        c.samples,
        c.variables,
        report.findings.len(),
    )
}

/// The detector's proposals as the precision filter's candidates.
pub fn detector_candidates(report: &daikon::Report) -> Vec<Candidate> {
    report
        .declarations
        .iter()
        .enumerate()
        .map(|(k, d)| Candidate {
            name: d.name.clone(),
            text: d.text.clone(),
            origin: Origin::Detector(k),
        })
        .collect()
}

/// The precision filter's further runs: `runs` runs four times as long as the inference's,
/// seeds a billion past the inference's (the validation's follow the inference's directly).
pub fn further_plan(selected: &Selected, choice: &RunChoice, runs: u64) -> validate::Plan {
    validate::Plan {
        automaton: selected.automaton,
        params: selected.params.clone(),
        runs,
        steps: choice.steps.saturating_mul(4),
        seed: choice.seed.wrapping_add(1_000_000_000),
        weights: selected.weights.clone(),
        swarm: false,
    }
}

/// The validation's runs (`--validate RUNS`): as long as the inference's, from `seed` or else
/// just after the inference's seeds.
pub fn validation_plan(
    selected: &Selected,
    choice: &RunChoice,
    runs: u64,
    seed: Option<u64>,
) -> validate::Plan {
    validate::Plan {
        automaton: selected.automaton,
        params: selected.params.clone(),
        runs,
        steps: choice.steps,
        seed: seed.unwrap_or_else(|| choice.seed.wrapping_add(choice.runs)),
        weights: selected.weights.clone(),
        swarm: false,
    }
}

impl Chosen {
    /// The printed declarations as text to append to the model.
    pub fn declarations_text(&self) -> String {
        self.printed
            .iter()
            .map(|(_, _, d)| format!("{d}\n"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The printed invariants' names.
    pub fn names(&self) -> Vec<String> {
        self.printed.iter().map(|(n, _, _)| n.clone()).collect()
    }
}

/// The JSON report: the detector's, with each invariant's standing and the filter's results,
/// the transition facts and the validation when there are.
pub fn json_report(
    report: &daikon::Report,
    chosen: &Chosen,
    filtered: Option<&Filtered>,
    facts: Option<&[daikon::transitions::ActionFacts]>,
    validation: Option<&Validation>,
    explain: bool,
) -> serde_json::Value {
    let mut json = report.to_json(explain);
    if let Some(f) = filtered {
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
        add_filter_json(&mut json, f, chosen.templates.clone());
    }
    if let Some(f) = facts {
        json["transitions"] = serde_json::to_value(f).unwrap_or_default();
    }
    if let Some(v) = validation {
        json["validation"] = serde_json::to_value(v).unwrap_or_default();
    }
    json
}
