//! Pinned state counts and shortest counterexamples, one data file per model configuration.
//!
//! Every `tests/data/explore/*.case` file holds `%` comments and `key value` lines: `model`
//! (a path from the workspace root), `automaton`, and optionally `param NAME=VALUE`, `universe
//! LINE`, `universe-file PATH`, `symmetric TYPE`, `invariant NAME` (check only these),
//! `deadlock` (a state without successors is a violation), `max-depth N`, `max-states N`. The
//! outcome — verdict, counts, and the counterexample in the paper's log format — is an insta
//! snapshot beside this file, so a change in any count shows up as a snapshot diff. Every
//! counterexample is also replayed with the interpreter's `Runner::replay` on the unreduced
//! automaton and must end in the same violation.
//!
//! `tests/data/explore_slow/` holds the configurations that take minutes in a debug build
//! (Global1 with 3 nodes, 2 values and 2 ballots: 613,080 states). Run them with
//! `cargo test --release -p checker --test explore -- --ignored`.

mod common;

use checker::compiled::{flat, CompiledModel};
use checker::explore::{explore, Model, Options, Verdict};
use checker::model::{MachineModel, MachineStep};
use checker::reduction::PartialOrder;
use checker::symmetry::Symmetry;
use interpreter::runner::{Runner, Stop};
use interpreter::value::Printer;
use std::path::Path;

/// One configuration to explore.
#[derive(Default)]
struct Case {
    model: String,
    automaton: String,
    params: Vec<String>,
    universe: String,
    symmetric: Vec<String>,
    invariants: Vec<String>,
    deadlock: bool,
    max_depth: Option<u32>,
    max_states: Option<u64>,
}

fn parse_case(text: &str) -> Case {
    let mut case = Case::default();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('%') {
            continue;
        }
        let (key, value) = line.split_once(' ').unwrap_or((line, ""));
        let value = value.trim().to_string();
        match key {
            "model" => case.model = value,
            "automaton" => case.automaton = value,
            "param" => case.params.push(value),
            "universe" => {
                case.universe.push_str(&value);
                case.universe.push('\n');
            }
            "universe-file" => {
                let text = std::fs::read_to_string(common::workspace(&value))
                    .unwrap_or_else(|e| panic!("{value}: {e}"));
                case.universe.push_str(&text);
                case.universe.push('\n');
            }
            "symmetric" => case.symmetric.push(value),
            "invariant" => case.invariants.push(value),
            "deadlock" => case.deadlock = true,
            "max-depth" => case.max_depth = Some(value.parse().expect("a depth")),
            "max-states" => case.max_states = Some(value.parse().expect("a number")),
            _ => panic!("unknown key `{key}`"),
        }
    }
    case
}

/// Explores a case and describes the outcome.
fn run_case(case: &Case, threads: usize, batch: usize) -> String {
    run_case_guarded(case, threads, batch, true)
}

fn run_case_guarded(case: &Case, threads: usize, batch: usize, param_guards: bool) -> String {
    run_case_with(case, threads, batch, Engine::Interpreter { param_guards })
        .expect("the interpreter explores every case")
}

/// How a case is explored.
#[derive(Clone, Copy)]
enum Engine {
    Interpreter { param_guards: bool },
    Compiled,
}

/// Explores a case with `engine` and describes the outcome; `Err` says why the compiled engine
/// does not take the model, or that it met a state it cannot handle.
fn run_case_with(
    case: &Case,
    threads: usize,
    batch: usize,
    engine: Engine,
) -> Result<String, String> {
    let (loaded, id, params) = load_case(case);
    let machine = loaded.machine(&case.automaton, params);
    let symmetric: Vec<&str> = case.symmetric.iter().map(|s| s.as_str()).collect();
    let options = Options {
        threads,
        batch,
        deadlock_is_violation: case.deadlock,
        max_depth: case.max_depth,
        max_states: case.max_states,
        ..Options::default()
    };
    let (model, verdict, path, s) = match engine {
        Engine::Interpreter { param_guards } => {
            let (model, report) = common::run_guarded(&machine, &symmetric, &options, param_guards);
            let (verdict, path) = describe(&machine, report.verdict, |e| format!("{e:?}"));
            (model, verdict, path, report.stats)
        }
        Engine::Compiled => {
            let (verdict, path, stats) =
                with_compiled(&loaded, id, &machine, &symmetric, |compiled| {
                    let report = explore(compiled, &options, &mut |_| {});
                    if let Verdict::Error { error, .. } = &report.verdict {
                        return Err(format!("fault: {error}"));
                    }
                    let (verdict, path) = describe(&machine, report.verdict, |e| format!("{e:?}"));
                    Ok((verdict, path, report.stats))
                })??;
            let model = MachineModel::new(&machine, None).expect("action instances");
            (model, verdict, path, stats)
        }
    };
    let s = &s;
    let mut out = String::new();
    out.push_str(&format!(
        "verdict: {verdict}\nstates: {}\ngenerated: {}\nchecked: {}\ndepth: {}\nlevels completed: {:?}\ndeadlocks: {}\n",
        s.distinct, s.generated, s.checked, s.depth, s.levels_completed, s.deadlocks
    ));
    if let Some(path) = path {
        let (trace, choices) = model.trace(&path).expect("the path re-executes");
        out.push_str(&format!("counterexample: {} step(s)\n", trace.steps.len()));
        for k in 1..=trace.steps.len() {
            out.push_str(&trace.log_line(&machine, k));
            out.push('\n');
        }
        let printer = Printer::new(&loaded.spec);
        let last = trace.states.last().expect("a state");
        let values: Vec<String> = machine
            .slot_names()
            .iter()
            .zip(last)
            .map(|(n, v)| format!("{n} = {}", printer.show(v)))
            .collect();
        out.push_str(&format!("last state: {}\n", values.join(", ")));
        // The trace replays on the unreduced automaton and ends in the same way.
        let replayed = Runner::new(&machine).replay(&trace, &choices);
        assert_eq!(replayed.trace.steps.len(), trace.steps.len());
        match (verdict.as_str(), &replayed.stop) {
            (v, Stop::InvariantViolated { invariant }) if v.starts_with("violated ") => {
                assert_eq!(
                    v,
                    format!("violated {}", machine.spec.invariants[*invariant].name)
                )
            }
            ("deadlock", Stop::Completed) => {}
            (_, stop) => panic!("the replay ended with {stop:?}"),
        }
    }
    Ok(out)
}

/// The case's model loaded (its invariants narrowed to the case's), the automaton explored,
/// and its parameter values.
fn load_case(
    case: &Case,
) -> (
    common::Loaded,
    ioa_lang::ir::AutomatonId,
    Vec<interpreter::value::Value>,
) {
    // Universe lines given later override earlier ones, as on the command line.
    let mut loaded = common::load(&case.model, &case.universe);
    // `invariant None` checks no invariant.
    if !case.invariants.is_empty() {
        loaded
            .spec
            .invariants
            .retain(|i| case.invariants.contains(&i.name));
    }
    let id = loaded.automaton(&case.automaton);
    let params: Vec<interpreter::value::Value> = loaded.spec.automata[id.0 as usize]
        .params
        .iter()
        .map(|p| {
            let text = case
                .params
                .iter()
                .find_map(|g| g.strip_prefix(&format!("{}=", p.name)))
                .unwrap_or_else(|| panic!("a value for parameter {}", p.name));
            let e = ioa_lang::parse::parse_expr(ioa_lang::span::FileId(u32::MAX), text)
                .expect("a parameter value");
            interpreter::universe::const_value(&loaded.spec, &e, &p.ty).expect("a constant")
        })
        .collect();
    (loaded, id, params)
}

/// Compiles `machine` (automaton `id` of `loaded`) as `ioa explore` does — a composite through
/// its flattening — and hands the compiled model to `f`; or says why it does not compile.
fn with_compiled<R>(
    loaded: &common::Loaded,
    id: ioa_lang::ir::AutomatonId,
    machine: &interpreter::machine::Machine,
    symmetric: &[&str],
    f: impl FnOnce(&CompiledModel) -> R,
) -> Result<R, String> {
    let names: Vec<String> = symmetric.iter().map(|s| s.to_string()).collect();
    let symmetry = (!names.is_empty()).then(|| Symmetry::new(machine, &names).expect("a symmetry"));
    let flat_spec = flat::flat_spec(&loaded.spec, id).transpose()?;
    let flat_machine = match &flat_spec {
        Some(spec) => Some(
            interpreter::machine::Machine::new(
                spec,
                &loaded.universe,
                id,
                machine.root_params.clone(),
            )
            .map_err(|e| format!("{e:?}"))?,
        ),
        None => None,
    };
    let compiled = match &flat_machine {
        Some(fm) => flat::compile(machine, fm, &names)?,
        None => CompiledModel::new(machine, symmetry)?,
    };
    Ok(f(&compiled))
}

/// A verdict as text, and the path it reports.
fn describe<M: Model<Step = MachineStep, Property = usize>>(
    machine: &interpreter::machine::Machine,
    verdict: Verdict<M>,
    error: impl Fn(&M::Error) -> String,
) -> (String, Option<Vec<MachineStep>>) {
    match verdict {
        Verdict::Verified => ("verified".to_string(), None),
        Verdict::Violated { property, path } => (
            format!("violated {}", machine.spec.invariants[property].name),
            Some(path),
        ),
        Verdict::Deadlock { path } => ("deadlock".to_string(), Some(path)),
        Verdict::LimitReached(limit) => (format!("limit reached: {limit:?}"), None),
        Verdict::Error { error: e, path } => (format!("error: {}", error(&e)), Some(path)),
    }
}

/// The manual models as cases: each model's first `% explore:` line gives the automaton, the
/// parameters and universe lines (as `ioa explore` takes them), and `MODEL.universe` beside it
/// the rest of its universe.
fn manual_cases() -> Vec<(String, Case)> {
    let dir = common::workspace("tests/data/manual");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("the manual models")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ioa"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let name = path
                .file_stem()
                .expect("a name")
                .to_string_lossy()
                .to_string();
            let source = std::fs::read_to_string(&path).expect("a model");
            let mut case = Case {
                model: format!("tests/data/manual/{name}.ioa"),
                ..Case::default()
            };
            if let Ok(text) = std::fs::read_to_string(path.with_extension("universe")) {
                case.universe.push_str(&text);
                case.universe.push('\n');
            }
            let args: Vec<&str> = source
                .lines()
                .find_map(|l| l.strip_prefix("% explore:"))
                .map(|l| l.split_whitespace().collect())
                .unwrap_or_default();
            for pair in args.chunks(2) {
                match pair {
                    ["--automaton", a] => case.automaton = a.to_string(),
                    ["--param", p] => case.params.push(p.to_string()),
                    ["--universe", u] => {
                        case.universe.push_str(u);
                        case.universe.push('\n');
                    }
                    _ => panic!("{name}: unexpected explore arguments {pair:?}"),
                }
            }
            if case.automaton.is_empty() {
                let loaded = common::load(&case.model, &case.universe);
                case.automaton = loaded.spec.automata[0].name.clone();
            }
            (format!("manual/{name}"), case)
        })
        .collect()
}

/// The `.case` files of a directory under `tests/`, by name.
fn case_files(dir: &str) -> Vec<(String, Case)> {
    let mut paths: Vec<_> = std::fs::read_dir(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests")
            .join(dir),
    )
    .expect("a case directory")
    .map(|e| e.expect("an entry").path())
    .filter(|p| p.extension().is_some_and(|x| x == "case"))
    .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let case = parse_case(&std::fs::read_to_string(&path).expect("case file"));
            let name = path
                .file_stem()
                .expect("a name")
                .to_string_lossy()
                .to_string();
            (format!("{dir}/{name}"), case)
        })
        .collect()
}

/// The compiled engine explores exactly the interpreter's state space: on every case it
/// takes, the same verdict, counts, depth and counterexample (re-executed and replayed by the
/// interpreter). The cases are the pinned ones, `data/compiled/` (one or more configurations
/// of every example under `examples/`, on small universes) and every model of
/// `tests/data/manual/`. Which cases it takes, and why not the others, is a snapshot.
#[test]
fn compiled_engine_agrees_with_the_interpreter() {
    let mut coverage = String::new();
    let mut cases = case_files("data/explore");
    cases.extend(case_files("data/compiled"));
    cases.extend(manual_cases());
    for (name, case) in cases {
        match run_case_with(&case, 2, 0, Engine::Compiled) {
            Ok(compiled) => {
                let interpreted = run_case_guarded(&case, 2, 0, true);
                assert_eq!(compiled, interpreted, "{name}");
                let states = compiled.lines().nth(1).unwrap_or_default().to_string();
                coverage.push_str(&format!("{name}: compiled, {states}\n"));
            }
            Err(why) => coverage.push_str(&format!("{name}: interpreted ({why})\n")),
        }
    }
    insta::assert_snapshot!(coverage);
}

/// Partial-order reduction asks the model which precondition conjunct disables an instance
/// (its writers are then a necessary enabling set): the compiled engine must name the one the
/// interpreter names, or the reduced state spaces of the two engines would differ (and a
/// conjunct named that is not false would be unsound). Checked, for every action instance
/// the reduction asks about, in the first 400 states
/// (breadth first) of every case the compiled engine takes.
#[test]
fn both_engines_name_the_same_false_conjunct() {
    let mut cases = case_files("data/explore");
    cases.extend(case_files("data/compiled"));
    cases.extend(manual_cases());
    let mut asked = 0u64;
    let mut named = 0u64;
    for (name, case) in cases {
        if !case.symmetric.is_empty() {
            continue;
        }
        let (loaded, id, params) = load_case(&case);
        let machine = loaded.machine(&case.automaton, params);
        let Ok(interpreted) = MachineModel::new(&machine, None) else {
            continue;
        };
        let order = PartialOrder::new(&machine).expect("the analysis");
        let _ = with_compiled(&loaded, id, &machine, &[], |compiled| {
            let mut frontier = Vec::new();
            compiled
                .initial_states(&mut frontier)
                .expect("start states");
            let mut seen = std::collections::HashSet::new();
            let mut k = 0;
            while k < frontier.len() && seen.len() < 400 {
                let state = frontier[k].1.clone();
                k += 1;
                if !seen.insert(state.clone()) {
                    continue;
                }
                let Some(values) = compiled.machine_values(&state) else {
                    continue;
                };
                for t in 0..compiled.instance_count() {
                    let by_code = compiled.false_conjunct(&state, t);
                    let by_interpreter = interpreted.false_conjunct(&values, t).map(|(_, s)| s);
                    // Where the reduction asks (one controlling participant with one case),
                    // the same one.
                    if order.names_conjuncts(t) {
                        assert_eq!(
                            by_code, by_interpreter,
                            "{name}: instance {t} in state {values:?}"
                        );
                    }
                    asked += u64::from(order.names_conjuncts(t));
                    named += u64::from(by_code.is_some());
                }
                if compiled.successors(&state, &mut frontier).is_err() {
                    break;
                }
            }
        });
    }
    // Enough of them to mean something.
    assert!(
        asked > 10_000 && named > 10_000,
        "{asked} asked, {named} named"
    );
}

/// A composite that reads a member outside its family is the composite's error (E0515), not
/// the flattening's default entry: the compiled engine stops with a fault there, so `ioa
/// explore` explores with the interpreter and reports the error (it used to verify).
#[test]
fn a_read_outside_a_family_is_not_a_default_entry() {
    let case = parse_case(
        "model checker/tests/data/models/outside_family.ioa\nautomaton Pair\nuniverse Int = 0..2\n",
    );
    assert_eq!(
        run_case_with(&case, 1, 0, Engine::Compiled).expect_err("a fault"),
        "fault: a read of a component family member that does not exist"
    );
    assert!(
        interpreted_error(&case).contains("NoSuchMember"),
        "the interpreter reports E0515"
    );
    // A map read at a missing key is the interpreter's error too.
    let case = parse_case(
        "model checker/tests/data/models/missing_key.ioa\nautomaton Lookup\nuniverse Int = 0..2\n",
    );
    assert_eq!(
        run_case_with(&case, 1, 0, Engine::Compiled).expect_err("a fault"),
        "fault: an error in the evaluation of a sequence, map or other interned value"
    );
    assert!(interpreted_error(&case).contains("a map lookup of a missing key"));
}

/// A guard that faults for one instance of a screened run: the run's generated function
/// leaves the fault to the step, and the compiled engine stops with it where the interpreter
/// stops with E0504.
#[test]
fn a_fault_in_a_screened_guard_is_the_steps() {
    let case = parse_case(
        "model checker/tests/data/models/guard_fault.ioa\nautomaton Lookup\nuniverse Int = 0..2\n",
    );
    let loaded = common::load(&case.model, &case.universe);
    let machine = loaded.machine(&case.automaton, vec![]);
    let compiled = CompiledModel::new(&machine, None).expect("compiles");
    assert_eq!(
        compiled.screened_in_runs(),
        3,
        "look's three instances, in one run"
    );
    assert_eq!(
        run_case_with(&case, 1, 0, Engine::Compiled).expect_err("a fault"),
        "fault: an error in the evaluation of a sequence, map or other interned value"
    );
    assert!(interpreted_error(&case).contains("a map lookup of a missing key"));
}

/// The error the interpreter's search stops with on `case` (an automaton without parameters).
fn interpreted_error(case: &Case) -> String {
    let loaded = common::load(&case.model, &case.universe);
    let machine = loaded.machine(&case.automaton, vec![]);
    let (_, report) = common::run(&machine, &[], &Options::default());
    match report.verdict {
        Verdict::Error { error, .. } => format!("{error:?}"),
        _ => panic!("{}: the interpreter reports no error", case.model),
    }
}

#[test]
fn pinned_counts_and_counterexamples() {
    insta::glob!("data/explore/*.case", |path: &Path| {
        let case = parse_case(&std::fs::read_to_string(path).expect("case file"));
        insta::assert_snapshot!(run_case(&case, 0, 0));
    });
}

/// Skipping the instances a parameter guard excludes (`x ∈ S` first in a precondition) is an
/// optimisation only: every count and counterexample is the same without it.
#[test]
fn param_guards_change_no_outcome() {
    insta::glob!("data/explore/*.case", |path: &Path| {
        let case = parse_case(&std::fs::read_to_string(path).expect("case file"));
        assert_eq!(
            run_case_guarded(&case, 0, 0, true),
            run_case_guarded(&case, 0, 0, false),
            "{}",
            path.display()
        );
    });
}

/// The slow configurations; run them in release mode (see the module documentation).
#[test]
#[ignore]
fn pinned_counts_of_large_models() {
    insta::glob!("data/explore_slow/*.case", |path: &Path| {
        let case = parse_case(&std::fs::read_to_string(path).expect("case file"));
        insta::assert_snapshot!(run_case(&case, 0, 0));
    });
}

/// Workers expand states in parallel but states are numbered in the serial order (merged in
/// frontier order, or inserted with their serial place as key), so the numbering, the counts
/// and the counterexample do not depend on threads or batch sizes. `wide` has a level larger
/// than the concurrent visited set's first size (refused entries are offered again after it
/// grows) and its violation is the level's last state; its batches stay the default.
#[test]
fn outcome_does_not_depend_on_threads_or_batches() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/explore/wide.case"),
    )
    .expect("case file");
    let case = parse_case(&text);
    let one = run_case(&case, 1, 0);
    assert_eq!(one, run_case(&case, 2, 0), "wide");
    for threads in [1, 2] {
        let compiled = run_case_with(&case, threads, 0, Engine::Compiled).expect("compiled");
        assert_eq!(one, compiled, "wide, compiled, {threads} threads");
    }
    for name in ["global1_depth_limit", "lcr3_deadlock"] {
        let text = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/explore/{name}.case")),
        )
        .expect("case file");
        let case = parse_case(&text);
        let one = run_case(&case, 1, 0);
        assert_eq!(one, run_case(&case, 3, 7), "{name}");
        assert_eq!(one, run_case(&case, 2, 1), "{name}");
        // The compiled engine too, whose threads intern values in any order.
        let compiled = run_case_with(&case, 1, 0, Engine::Compiled).expect("compiled");
        assert_eq!(one, compiled, "{name}");
        for (threads, batch) in [(3, 7), (2, 1)] {
            let again = run_case_with(&case, threads, batch, Engine::Compiled).expect("compiled");
            assert_eq!(one, again, "{name}");
        }
    }
}

/// A trace whose step makes a single-candidate choice before a multi-candidate one replays:
/// the record holds an index for every choice, and `Runner::replay` consumes one for
/// single-candidate choices too (it used to skip them and replay the recorded `[0, 1]` as
/// `[0, 0]`).
#[test]
fn replay_follows_choices_after_a_single_candidate() {
    let case = parse_case(
        "model checker/tests/data/models/singleton_choice.ioa\nautomaton Choices\nuniverse Int = 0..2\n",
    );
    // `run_case` replays every counterexample and panics if the replay diverges.
    run_case(&case, 1, 0);
}

/// The guards the test above relies on are found where they should be: `m ∈ accepts` binds
/// `m` of `onAccept(a, m)` and `onLearn(m)`; `propose(p)` (pre `phase[p] = idle`) has none.
#[test]
fn param_guards_are_found_in_the_groove_paxos_model() {
    let universe =
        std::fs::read_to_string(common::workspace("examples/groove_paxos/paxos.universe"))
            .expect("universe file");
    let loaded = common::load("examples/groove_paxos/paxos.ioa", &universe);
    let machine = loaded.machine("Paxos", vec![interpreter::value::Value::Int(2)]);
    let guarded: Vec<(String, usize)> = (0..machine.actions.len())
        .filter_map(|a| {
            machine
                .param_guard(a)
                .map(|g| (machine.actions[a].name.clone(), g.param))
        })
        .collect();
    assert_eq!(
        guarded,
        vec![("onAccept".to_string(), 1), ("onLearn".to_string(), 0)]
    );
}

/// A construct the compiled engine refuses is named by a sentence and its place (the
/// assignment whose index has a `choose`, line 15), and the interpreter explores the model.
#[test]
fn a_refusal_names_its_place() {
    let loaded = common::load(
        "checker/tests/data/models/refused_choose_index.ioa",
        "Int = 0..2",
    );
    let machine = loaded.machine("Marks", vec![]);
    let refusal = CompiledModel::new(&machine, None)
        .err()
        .expect("the model is refused");
    assert_eq!(
        refusal.reason,
        "a `choose` in an assignment's index is not compiled"
    );
    let span = refusal.span.expect("a place");
    let text = std::fs::read_to_string(common::workspace(
        "checker/tests/data/models/refused_choose_index.ioa",
    ))
    .expect("the model");
    assert!(text[span.start as usize..].starts_with("marks[choose k"));
    let (_, report) = common::run(&machine, &[], &Options::default());
    assert!(matches!(report.verdict, Verdict::Verified));
}

/// Partial-order reduction keeps every verdict: on every case that runs to the end (one or
/// more configurations of every example under `examples/`, on small universes; the manual
/// models are `tests/reduction.rs`'s), the reduced search reaches the unreduced one's verdict,
/// and a counterexample it finds re-executes on the unreduced automaton and ends in a
/// violation. The compiled engine explores where it takes the case, the interpreter elsewhere.
/// The counts, and whether the analysis found the graph free of cycles, are a snapshot.
#[test]
fn the_reduced_search_keeps_every_verdict() {
    let mut cases = case_files("data/explore");
    cases.extend(case_files("data/compiled"));
    let mut summary = String::new();
    for (name, case) in cases {
        let (loaded, id, params) = load_case(&case);
        let machine = loaded.machine(&case.automaton, params);
        let interpreted = MachineModel::new(&machine, None).expect("action instances");
        let order = PartialOrder::new(&machine).expect("the analysis");
        let options = Options {
            threads: 2,
            deadlock_is_violation: case.deadlock,
            max_depth: case.max_depth,
            max_states: case.max_states,
            ..Options::default()
        };
        let symmetric: Vec<&str> = case.symmetric.iter().map(|s| s.as_str()).collect();
        // Each verdict's kind, the states stored, and a violation's path.
        fn outcome<M: Model<Step = MachineStep, Property = usize>>(
            model: &M,
            options: &Options,
        ) -> (&'static str, u64, Option<Vec<MachineStep>>) {
            let report = explore(model, options, &mut |_| {});
            let (kind, path) = match report.verdict {
                Verdict::Verified => ("verified", None),
                Verdict::Violated { path, .. } => ("violated", Some(path)),
                Verdict::Deadlock { path } => ("deadlock", Some(path)),
                Verdict::LimitReached(_) => ("limit", None),
                Verdict::Error { .. } => ("error", None),
            };
            (kind, report.stats.distinct, path)
        }
        let runs = with_compiled(&loaded, id, &machine, &symmetric, |compiled| {
            let full = outcome(compiled, &options);
            let reduced = outcome(
                &checker::reduction::Reduced::new(compiled, Some(&order)),
                &options,
            );
            (full, reduced, "compiled")
        });
        let (full, reduced, engine) = runs.unwrap_or_else(|_| {
            let full = outcome(&interpreted, &options);
            let reduced = outcome(
                &checker::reduction::Reduced::new(&interpreted, Some(&order)),
                &options,
            );
            (full, reduced, "interpreted")
        });
        // Within a depth limit, a violation the full search finds may lie deeper in the
        // reduced space: then the reduced search stops at the limit too.
        let deeper = full.0 == "violated" && reduced.0 == "limit" && case.max_depth.is_some();
        assert!(
            full.0 == reduced.0 || deeper,
            "{name}: {} against {}",
            full.0,
            reduced.0
        );
        if let Some(path) = &reduced.2 {
            let (trace, choices) = interpreted.trace(path).expect("the path re-executes");
            let replayed = Runner::new(&machine).replay(&trace, &choices);
            assert!(
                matches!(
                    replayed.stop,
                    Stop::InvariantViolated { .. } | Stop::Completed
                ),
                "{name}: the reduced counterexample replays, ending with {:?}",
                replayed.stop
            );
        }
        summary.push_str(&format!(
            "{name}: {}, {} states; {}, {} reduced ({engine}; {})\n",
            full.0,
            full.1,
            reduced.0,
            reduced.1,
            if order.acyclicity().acyclic() {
                "no cycles"
            } else {
                "may have cycles"
            }
        ));
    }
    insta::assert_snapshot!(summary);
}
