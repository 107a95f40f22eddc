//! `ioa verify` as a library call: from a model with no hand-written invariants to a checked
//! proof. Runs the automaton (its schedules and random runs), proposes candidates with the
//! detector and with templates read off the program text, drops those a reached state refutes
//! (and those an exhaustive exploration of a small instance refutes), runs the Houdini fixpoint
//! with Z3, and proves the simulation (or invariant) assuming the survivors, which come back as
//! an IOA file. Each stage's line goes to a [`VerifyObserver`] as it is reached.

use super::model::{self, Model};
use ::verify::explore_filter::{explore_filter, Explored, SearchEnd, SearchLimits};
use ::verify::fixpoint::{houdini, Dropped};
use ::verify::sample::{sample, Sampled};
use interpreter::machine::Machine;
use interpreter::runner::{Runner, Weights};
use interpreter::trace::Trace;
use interpreter::value::Value;
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use ioa_lang::ir::{AutomatonId, Spec};
use ioa_lang::source_map::SourceMap;
use prover_export::obligations::{invariant, simulation, Assumptions};
use prover_export::solve::{self, Budget, Verdict};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What `ioa verify` is asked to do (the model is loaded by the caller).
#[derive(Debug, Clone, Default)]
pub struct VerifyRequest {
    /// The .ioa model (with the simulation or invariant to prove; no invariants needed).
    pub file: PathBuf,
    /// The forward simulation to prove (default: the only one).
    pub simulation: Option<String>,
    /// Prove this invariant instead of a simulation.
    pub invariant: Option<String>,
    /// A value for an automaton parameter, `NAME=VALUE` (repeatable): runs and exploration
    /// use it; proofs hold for every value.
    pub params: Vec<String>,
    /// Random runs to learn from (besides the model's schedules).
    pub runs: u64,
    /// Steps per random run.
    pub steps: u64,
    /// Seed of the first random run; run k uses SEED + k.
    pub seed: u64,
    /// Z3 resource units (its deterministic `rlimit` count) one query of the fixpoint may
    /// spend: the survivors are the same at any machine load.
    pub rlimit: u64,
    /// Z3 resource units for one obligation checked on its own (the final proof, and
    /// candidates the fixpoint's shared solvers gave up on), shared by the portfolio.
    pub proof_rlimit: u64,
    /// Wall-clock safety limit in seconds for one query of the fixpoint (expiry is
    /// reported as a timeout; the budget is `--rlimit`).
    pub timeout: f64,
    /// Wall-clock safety limit in seconds for one obligation checked on its own.
    pub proof_timeout: f64,
    /// Write the invariants used to this IOA file (default: print them on stdout).
    pub output: Option<PathBuf>,
    /// Also prepare Isabelle/HOL theories of the model with the invariants found (see
    /// `ioa export isabelle`): the report carries what the caller writes.
    pub export_isabelle: bool,
    /// Use only the templates from the program text, not the detector.
    pub no_detector: bool,
    /// A small universe to explore exhaustively, refuting candidates (and looking for a
    /// counterexample to an invariant being proved); default: explore.universe beside the
    /// model, if there is one.
    pub explore_universe: Option<PathBuf>,
    /// States each search of the exploration may store: the limit that decides how far it
    /// goes, so that the same number refutes the same candidates on any machine and at any load.
    pub explore_states: u64,
    /// Wall-clock safety limit of the exploration, in seconds; what it covered still refutes,
    /// but when it stops the search before the state limit the survivors depend on the
    /// machine's speed and load (the report says so).
    pub explore_time: f64,
    /// Explore up to permutations of this type's values (repeatable; see `ioa explore`).
    pub explore_symmetric: Vec<String>,
    /// Skip the exploration.
    pub no_explore: bool,
}

/// Receives the pipeline's progress.
pub trait VerifyObserver {
    /// A stage's line (also kept in the report's `stages`).
    fn stage(&mut self, line: &str);
    /// A note (universe lines skipped).
    fn note(&mut self, text: &str);
    /// Warnings of the model checked with the candidates.
    fn warnings(&mut self, warnings: &[Diagnostic], sources: &SourceMap);
    /// Where a long stage is (not kept in the report: it carries times).
    fn progress(&mut self, _line: &str) {}
}

/// Why the pipeline stopped before a verdict.
pub enum VerifyError {
    /// The request does not fit the model, or a file could not be read or written.
    Usage(String),
    /// The model (or the model with the candidates) was rejected: diagnostics into `sources`.
    Diagnostics(Vec<Diagnostic>, SourceMap),
}

impl VerifyError {
    fn diagnostics(d: Diagnostic, sources: &SourceMap) -> Self {
        VerifyError::Diagnostics(vec![d], sources.clone())
    }
}

/// The Isabelle/HOL export `--export-isabelle` asked for: the model with the survivors as its
/// only candidate invariants, for the caller to write.
pub struct IsabelleExport {
    /// The flattened spec.
    pub spec: Spec,
    /// Its sources.
    pub sources: SourceMap,
    /// What to export.
    pub selection: prover_export::isabelle::Selection,
}

/// How the pipeline ended.
pub enum VerifyReport {
    /// The exploration found the invariant being proved false (the stages show the path).
    TargetViolated {
        /// The JSON report.
        json: serde_json::Value,
    },
    /// The proof was attempted.
    Finished {
        /// Whether every obligation was proved.
        ok: bool,
        /// The JSON report.
        json: serde_json::Value,
        /// The invariants used, as an IOA file.
        invariants: String,
        /// The Isabelle export, if asked for (boxed: a spec is large).
        isabelle: Option<Box<IsabelleExport>>,
    },
}

/// The stage lines: shown as they come and kept for the JSON report.
struct Stages<'o> {
    observer: &'o mut dyn VerifyObserver,
    log: Vec<String>,
}

impl Stages<'_> {
    fn say(&mut self, line: String) {
        self.observer.stage(&line);
        self.log.push(line);
    }
}

/// What is to be proved.
enum Target {
    Simulation(usize),
    Invariant(usize),
}

/// Runs the whole pipeline on the loaded model `m` (see the module's documentation); each
/// stage's line goes to `observer` as it is reached and into the report.
pub fn verify(
    m: &Model,
    args: &VerifyRequest,
    observer: &mut dyn VerifyObserver,
) -> Result<VerifyReport, VerifyError> {
    let started = Instant::now();
    let (target, a) = pick_target(m, args).map_err(VerifyError::Usage)?;
    let a_name = m.spec.automata[a.0 as usize].name.clone();
    let params = model::params(&m.spec, a, &args.params).map_err(VerifyError::Usage)?;
    let query_budget = Budget::new(
        args.rlimit.max(1),
        Duration::from_secs_f64(args.timeout.max(0.001)),
    );
    let proof_budget = Budget::new(
        args.proof_rlimit.max(1),
        Duration::from_secs_f64(args.proof_timeout.max(0.001)),
    );
    let mut stages = Stages {
        observer,
        log: Vec::new(),
    };

    // 1. Runs: every schedule of A, then random runs.
    let machine = Machine::new(&m.spec, &m.universe, a, params.clone())
        .map_err(|e| VerifyError::diagnostics(e.to_diagnostic(), &m.sources))?;
    let traces = runs(m, &machine, a, args);
    let n_states: usize = traces.iter().map(|(_, t)| t.states.len()).sum();
    stages.say(format!(
        "runs of {a_name}: {} ({} schedule(s), {} random run(s) of {} steps from seed {}), {n_states} states",
        traces.len(),
        traces.len() as u64 - args.runs,
        args.runs,
        args.steps,
        args.seed
    ));

    // 2. Candidates: templates from the program text, and the detector's findings.
    let loaded = ioa_lang::loader::load(std::slice::from_ref(&args.file), &super::fs::OsFileSystem);
    let files: Vec<_> = loaded.files.into_iter().map(|(_, f)| f).collect();
    let templates = ::verify::lift::from_automaton(&files, &a_name);
    let mut texts: Vec<(String, String)> = templates
        .iter()
        .map(|c| (c.text.clone(), format!("template: {}", c.origin)))
        .collect();
    let n_templates = texts.len();
    if !args.no_detector {
        let report = daikon::infer(&machine, &traces, &daikon::Options::default());
        for d in &report.declarations {
            if !texts.iter().any(|(t, _)| t == &d.text) {
                texts.push((d.text.clone(), "detector".into()));
            }
        }
    }
    stages.say(format!(
        "candidates: {} ({n_templates} from the program text, {} from the detector)",
        texts.len(),
        texts.len() - n_templates
    ));

    // 3. Re-check them as declarations of a file importing the model.
    let (mut cm, names) = candidate_model(args, m, &a_name, &mut texts, &mut *stages.observer)
        .map_err(VerifyError::Usage)?;
    let cands: Vec<usize> = names
        .iter()
        .map(|n| {
            cm.spec
                .invariants
                .iter()
                .position(|i| &i.name == n)
                .expect("declared")
        })
        .collect();
    stages.say(format!("type-checked: {}", cands.len()));

    // 4. Drop candidates a reached state refutes.
    let cmachine = Machine::new(&cm.spec, &cm.universe, a, params.clone())
        .map_err(|e| VerifyError::diagnostics(e.to_diagnostic(), &cm.sources))?;
    let states: Vec<&[Value]> = traces
        .iter()
        .flat_map(|(_, t)| t.states.iter().map(|s| s.as_slice()))
        .collect();
    let sampled = sample(&cmachine, &cands, &states);
    let held: Vec<usize> = cands
        .iter()
        .zip(&sampled)
        .filter(|(_, s)| **s == Sampled::Held)
        .map(|(k, _)| *k)
        .collect();
    let errors = sampled
        .iter()
        .filter(|s| matches!(s, Sampled::Error(_)))
        .count();
    stages.say(format!(
        "true in every reached state: {} ({} refuted by a state, {errors} could not be evaluated)",
        held.len(),
        cands.len() - held.len() - errors
    ));

    // 4b. Explore a small instance: drop candidates it refutes, and look for a counterexample
    // to the invariant being proved.
    let mut held = held;
    let explore_file = args
        .explore_universe
        .clone()
        .or_else(|| Some(args.file.with_file_name("explore.universe")).filter(|p| p.exists()));
    if let (false, Some(path)) = (args.no_explore, explore_file) {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| VerifyError::Usage(format!("cannot read `{}`: {e}", path.display())))?;
        let id = cm.sources.add(path.display().to_string(), text.clone());
        let mut universe = interpreter::universe::Universe::default();
        // Read as every universe file is (`model::load`): lines for other models are skipped.
        match universe.add_reporting(&cm.spec, id, &text, true) {
            Ok(skipped) if !skipped.is_empty() => stages
                .observer
                .note(&model::universe_note(&path.display().to_string(), &skipped)),
            Ok(_) => {}
            Err(d) => return Err(VerifyError::Diagnostics(d, cm.sources.clone())),
        }
        let names: Vec<String> = held
            .iter()
            .map(|k| cm.spec.invariants[*k].name.clone())
            .collect();
        let target_name = match target {
            Target::Invariant(i) => Some(m.spec.invariants[i].name.clone()),
            Target::Simulation(_) => None,
        };
        let limits = SearchLimits {
            states: args.explore_states.max(1),
            time: Duration::from_secs_f64(args.explore_time.max(0.0)),
        };
        let explored_started = Instant::now();
        match explore_filter(
            &cm.spec,
            &universe,
            (a, &params),
            &names,
            target_name.as_deref(),
            &args.explore_symmetric,
            limits,
        ) {
            Err(e) => stages.say(format!("exploration of {} skipped: {e}", path.display())),
            Ok(Explored::TargetViolated { name, trace }) => {
                stages.say(format!(
                    "exploration of {}: `{name}` is false; a shortest counterexample ({} steps):",
                    path.display(),
                    trace.steps.len()
                ));
                let cmachine_ref = &cmachine;
                for k in 1..=trace.steps.len() {
                    stages.say(format!("  {}", trace.log_line(cmachine_ref, k)));
                }
                stages.say(format!("  `{name}` does not hold in the last state"));
                return Ok(VerifyReport::TargetViolated {
                    json: serde_json::json!({
                        "target": name, "ok": false, "stages": stages.log,
                    }),
                });
            }
            Ok(Explored::Filtered {
                refuted,
                states,
                end,
            }) => {
                held.retain(|k| {
                    !refuted
                        .iter()
                        .any(|(n, _)| n == &cm.spec.invariants[*k].name)
                });
                stages.say(format!(
                    "exploration of {} ({states} states, {}, {:.1} s): {} refuted, {} left",
                    path.display(),
                    match end {
                        SearchEnd::Complete => "every reachable state".to_string(),
                        SearchEnd::States(n) => format!("stopped by --explore-states {n}"),
                        SearchEnd::Time => format!(
                            "stopped by the --explore-time safety limit of {} s before \
                             --explore-states: what it covered depends on the machine's load",
                            args.explore_time
                        ),
                    },
                    explored_started.elapsed().as_secs_f64(),
                    refuted.len(),
                    held.len()
                ));
            }
        }
    }

    // The provers reason about one automaton: a composite is flattened (invariants keep their
    // positions and names, so candidate indices stay valid).
    let pspec = match ioa_lang::compose::flatten(&cm.spec) {
        Ok(flat) => flat,
        Err(errors) => {
            let diags: Vec<_> = errors.iter().map(|e| e.to_diagnostic()).collect();
            return Err(VerifyError::Diagnostics(diags, cm.sources.clone()));
        }
    };

    // 5. The Houdini fixpoint.
    let fp_started = Instant::now();
    stages.say(format!(
        "budgets: {} Z3 resource units per fixpoint query (--rlimit), {} per obligation (--proof-rlimit); wall-clock safety limits {} s and {} s",
        query_budget.rlimit,
        proof_budget.rlimit,
        query_budget.wall.as_secs_f64(),
        proof_budget.wall.as_secs_f64()
    ));
    let observer = &mut *stages.observer;
    let mut progress = |p: ::verify::fixpoint::Progress| {
        let when = if p.round == 0 {
            "the start states".to_string()
        } else {
            format!("round {}", p.round)
        };
        observer.progress(&format!(
            "  Houdini, after {when}: {} of {} candidates alive ({} solver queries, {:.0} s)",
            p.alive,
            p.of,
            p.queries,
            fp_started.elapsed().as_secs_f64()
        ));
    };
    let fp = houdini(&pspec, a, &held, query_budget, proof_budget, &mut progress)
        .map_err(|e| VerifyError::diagnostics(e.to_diagnostic(), &cm.sources))?;
    stages.say(format!(
        "Houdini fixpoint: {} inductive together after {} round(s) ({} dropped, {} solver queries, the largest {} units, {:.1} s)",
        fp.survivors.len(),
        fp.rounds,
        fp.dropped.len(),
        fp.queries,
        fp.largest_query,
        fp_started.elapsed().as_secs_f64()
    ));
    for (k, why) in &fp.dropped {
        let inv = &cm.spec.invariants[*k];
        let reason = match why {
            Dropped::Start { verdict } => format!("start: {verdict}"),
            Dropped::Step {
                round,
                transition,
                counterexample,
                wall_clock,
                ..
            } => format!(
                "round {round}: not preserved by {transition}{}",
                match (counterexample, wall_clock) {
                    (true, _) => "",
                    (false, false) => " (Z3 gave up within its budget)",
                    (false, true) => " (wall-clock safety limit)",
                }
            ),
        };
        let text = names
            .iter()
            .position(|n| n == &inv.name)
            .map(|p| texts[p].0.as_str())
            .unwrap_or("");
        stages.say(format!("  dropped {} ({reason}): {text}", inv.name));
        if let Dropped::Step {
            shown: Some(cex), ..
        } = why
        {
            for line in cex.lines() {
                stages.say(format!("      {line}"));
            }
        }
    }

    // 6. The proof of the target assuming the survivors.
    let survivors: Vec<String> = fp
        .survivors
        .iter()
        .map(|k| cm.spec.invariants[*k].name.clone())
        .collect();
    let obligations = match target {
        Target::Simulation(s) => {
            let name = &m.spec.simulations[s].name;
            let idx = cm
                .spec
                .simulations
                .iter()
                .position(|x| &x.name == name)
                .expect("same model");
            simulation::obligations(&pspec, idx, &Assumptions::Named(survivors.clone()))
        }
        Target::Invariant(i) => {
            let name = &m.spec.invariants[i].name;
            let idx = cm
                .spec
                .invariants
                .iter()
                .position(|x| &x.name == name)
                .expect("same model");
            let mut assumed = survivors.clone();
            assumed.push(name.clone());
            invariant::obligations(&pspec, idx, &Assumptions::Named(assumed))
        }
    };
    let obligations =
        obligations.map_err(|e| VerifyError::diagnostics(e.to_diagnostic(), &cm.sources))?;
    let mut proved = 0;
    let mut failures = Vec::new();
    let mut table = Vec::new();
    for ob in &obligations {
        let outcome = solve::check(&pspec, ob, &proof_budget);
        let word = outcome.verdict.word();
        table.push(serde_json::json!({
            "obligation": ob.name(),
            "verdict": word,
            "rlimit": outcome.rlimit,
            "ms": outcome.time.as_millis() as u64,
        }));
        match &outcome.verdict {
            Verdict::Proved => proved += 1,
            Verdict::Failed(cex) => failures.push((ob.name(), word, Some(cex.render()))),
            _ => failures.push((ob.name(), word, None)),
        }
    }
    let what = match target {
        Target::Simulation(s) => format!("simulation {}", m.spec.simulations[s].name),
        Target::Invariant(i) => format!("invariant {}", m.spec.invariants[i].name),
    };
    stages.say(format!(
        "proof of {what} assuming the {} survivor(s): {} obligation(s), {proved} proved, {} not",
        survivors.len(),
        obligations.len(),
        failures.len()
    ));
    for (name, word, cex) in &failures {
        stages.say(format!("  {name}: {word}"));
        if let Some(c) = cex {
            for line in c.lines() {
                stages.say(format!("    {line}"));
            }
        }
    }
    let total = started.elapsed().as_secs_f64();
    stages.say(format!("total time: {total:.1} s"));

    // 7. The invariants used, as an IOA file.
    let mut ioa = format!(
        "% Invariants of {a_name} found by `ioa verify` ({} of {} candidates survived the\n% Houdini fixpoint); inductive together.\n\nimport \"{}\"\n",
        survivors.len(),
        texts.len(),
        args.file
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default()
    );
    for k in &fp.survivors {
        let inv = &cm.spec.invariants[*k];
        let (text, origin) = &texts[names.iter().position(|n| n == &inv.name).expect("name")];
        ioa.push_str(&format!(
            "\n% {origin}\ninvariant {} of {a_name}:\n  {text}\n",
            inv.name
        ));
    }
    if let Some(path) = &args.output {
        if let Err(e) = std::fs::write(path, &ioa) {
            return Err(VerifyError::Usage(format!(
                "cannot write `{}`: {e}",
                path.display()
            )));
        }
        stages.say(format!("invariants used: written to {}", path.display()));
    }
    let isabelle = args.export_isabelle.then(|| {
        // The model with the survivors as its only candidate invariants.
        let mut spec = pspec.clone();
        let candidate_names: Vec<&String> = names.iter().collect();
        spec.invariants.retain(|i| {
            !candidate_names.contains(&&i.name)
                || fp
                    .survivors
                    .iter()
                    .any(|k| cm.spec.invariants[*k].name == i.name)
        });
        let selection = prover_export::isabelle::Selection {
            automaton: None,
            simulation: match target {
                Target::Simulation(s) => Some(m.spec.simulations[s].name.clone()),
                Target::Invariant(_) => None,
            },
            stem: args
                .file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "model".into()),
            hints: Default::default(),
            state_unproved: false,
        };
        Box::new(IsabelleExport {
            spec,
            sources: cm.sources.clone(),
            selection,
        })
    });
    let ok = failures.is_empty();
    let json = serde_json::json!({
        "target": what,
        "ok": ok,
        "stages": stages.log,
        "candidates": texts.len(),
        "survivors": fp.survivors.iter().map(|k| {
            let inv = &cm.spec.invariants[*k];
            let (text, origin) = &texts[names.iter().position(|n| n == &inv.name).expect("name")];
            serde_json::json!({ "name": inv.name, "text": text, "origin": origin })
        }).collect::<Vec<_>>(),
        "obligations": table,
        "seconds": total,
    });
    Ok(VerifyReport::Finished {
        ok,
        json,
        invariants: ioa,
        isabelle,
    })
}

/// The simulation or invariant to prove, and the automaton whose invariants are sought.
fn pick_target(m: &Model, args: &VerifyRequest) -> Result<(Target, AutomatonId), String> {
    if let Some(name) = &args.invariant {
        let k = m
            .spec
            .invariants
            .iter()
            .position(|i| &i.name == name)
            .ok_or_else(|| format!("no invariant `{name}` in the model"))?;
        return Ok((Target::Invariant(k), m.spec.invariants[k].automaton));
    }
    let sims = &m.spec.simulations;
    let k = match &args.simulation {
        Some(n) => sims.iter().position(|s| &s.name == n),
        None if sims.len() == 1 => Some(0),
        None => None,
    };
    let Some(k) = k else {
        let names: Vec<&str> = sims.iter().map(|s| s.name.as_str()).collect();
        return Err(format!(
            "say what to prove with --simulation NAME or --invariant NAME; the model's simulations: {}",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ));
    };
    Ok((Target::Simulation(k), sims[k].from))
}

/// The model's schedules for `a`, then random runs.
fn runs(
    m: &Model,
    machine: &Machine,
    a: AutomatonId,
    args: &VerifyRequest,
) -> Vec<(String, Trace)> {
    let runner = Runner::new(machine);
    let mut out = Vec::new();
    for s in m.spec.schedules.iter().filter(|s| s.automaton == a) {
        let report = runner.schedule(s, args.steps.max(10_000), &mut |_| true);
        out.push((format!("schedule {}", s.name), report.trace));
    }
    for r in 0..args.runs {
        let seed = args.seed.wrapping_add(r);
        let report = runner.random(seed, args.steps, &Weights::default(), &mut |_| true);
        out.push((format!("random seed {seed}"), report.trace));
    }
    out
}

/// Writes the candidates as invariants `Cand1 …` of a file that imports the model, checks it,
/// and drops candidates the checker rejects (until the rest check). Returns the checked model
/// and the surviving declarations' names (`texts` is trimmed to match).
fn candidate_model(
    args: &VerifyRequest,
    m: &Model,
    a_name: &str,
    texts: &mut Vec<(String, String)>,
    observer: &mut dyn VerifyObserver,
) -> Result<(Model, Vec<String>), String> {
    let model_path = std::fs::canonicalize(&args.file)
        .map_err(|e| format!("cannot read `{}`: {e}", args.file.display()))?;
    let dir = std::env::temp_dir().join(format!("ioa-verify-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    let path = dir.join("candidates.ioa");
    for _attempt in 0..5 {
        let mut file = format!("import \"{}\"\n", model_path.display());
        let names: Vec<String> = (1..=texts.len()).map(|k| format!("Cand{k}")).collect();
        for (name, (text, _)) in names.iter().zip(texts.iter()) {
            file.push_str(&format!("invariant {name} of {a_name}: {text}\n"));
        }
        std::fs::write(&path, &file)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        let loaded = model::load(&path, None, &[], Some(&m.universe_text));
        match loaded {
            Ok(cm) => {
                observer.warnings(&cm.warnings, &cm.sources);
                let _ = std::fs::remove_dir_all(&dir);
                return Ok((cm, names));
            }
            Err(failure) => {
                observer.warnings(&failure.warnings, &failure.sources);
                let (diags, sources) = (failure.errors, failure.sources);
                // Drop every candidate whose line has an error.
                let bad: Vec<usize> = diags
                    .iter()
                    .flat_map(|d| d.labels.iter())
                    .filter(|l| sources.name(l.span.file).ends_with("candidates.ioa"))
                    .map(|l| sources.line_col(l.span.file, l.span.start).line)
                    .filter(|line| *line >= 2)
                    .map(|line| line - 2)
                    .collect();
                if bad.is_empty() {
                    let _ = std::fs::remove_dir_all(&dir);
                    return Err(format!(
                        "the model's candidates do not check: {}",
                        diags.first().map(|d| d.message.clone()).unwrap_or_default()
                    ));
                }
                let mut k = 0;
                texts.retain(|_| {
                    k += 1;
                    !bad.contains(&(k - 1))
                });
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Err("the candidates still do not check after five rounds of dropping bad ones".into())
}
