//! Differential test of flattening (`ioa_lang::compose`): a composite run by the interpreter's
//! `Machine` and its flattened primitive automaton run in lockstep on random runs must have the
//! same enabled action instances (with the same kinds) and, after each step, states that agree
//! once the composite's state is laid out as the flat one (`P.x` = the array of every member's
//! `x`). Runs LCR with n = 3 and 4 and `tests/data/compose/pool.ioa` (a two-case input, an input
//! every family member takes through a loop, a hidden action, an index-dependent initial value).

mod common;

use common::{ioa, ROOT};
use interpreter::eval::NoChoice;
use interpreter::family::members;
use interpreter::machine::{Machine, State};
use interpreter::universe::Universe;
use interpreter::value::{ArrayValue, Value};
use ioa_lang::compose::{flat_name, flatten};
use ioa_lang::ir::{AutomatonBody, AutomatonId, Spec};
use ioa_lang::loader::{normalise, FileSystem};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};

struct Disk;

impl FileSystem for Disk {
    fn read(&self, path: &Path) -> Result<String, String> {
        std::fs::read_to_string(Path::new(ROOT).join(path)).map_err(|e| e.to_string())
    }
    fn canonical(&self, path: &Path) -> PathBuf {
        normalise(path)
    }
}

fn load(file: &str) -> (Spec, Universe) {
    let result = ioa_lang::check_files(&[PathBuf::from(file)], &Disk);
    let spec = result.spec.expect("the model checks");
    // MODEL.universe beside the model, or else the folder's default.universe (as `ioa` reads).
    let path = Path::new(ROOT).join(file);
    let text = std::fs::read_to_string(path.with_extension("universe"))
        .or_else(|_| std::fs::read_to_string(path.with_file_name("default.universe")))
        .expect("a universe file beside the model");
    let universe = Universe::parse(&spec, ioa_lang::span::FileId(0), &text).expect("universe");
    (spec, universe)
}

/// Where the composite's members' variables go in the flat state.
struct Mapping {
    /// For each flat slot: the composite slots of the members, with their index values
    /// (`None` for a single component).
    slots: Vec<Vec<(usize, Option<Value>)>>,
}

impl Mapping {
    fn new(spec: &Spec, flat: &Spec, machine: &Machine, universe: &Universe) -> Mapping {
        let AutomatonBody::Composite(c) = &spec.automata[machine.root.0 as usize].body else {
            panic!("a composite");
        };
        let AutomatonBody::Primitive(fp) = &flat.automata[machine.root.0 as usize].body else {
            panic!("flattened");
        };
        let mut slots = vec![Vec::new(); fp.state.len()];
        for (ci, comp) in c.components.iter().enumerate() {
            let AutomatonBody::Primitive(p) = &spec.automata[comp.automaton.0 as usize].body else {
                panic!("primitive components");
            };
            assert!(comp.indices.len() <= 1, "the test maps one index");
            for idx in members(spec, universe, comp, &machine.root_params).expect("members") {
                let inst = machine
                    .component_instance(ci as u32, &idx)
                    .expect("a member");
                let offset = machine.instances[inst].offset;
                for (x, v) in p.state.iter().enumerate() {
                    let name = flat_name(&comp.name, &v.name);
                    let flat_slot = fp
                        .state
                        .iter()
                        .position(|d| d.name == name)
                        .expect("a flat variable per component variable");
                    slots[flat_slot].push((offset + x, idx.first().cloned()));
                }
            }
        }
        Mapping { slots }
    }

    /// The composite state in the flat layout; a family's entries outside the family take the
    /// value of its first member in `defaults` (the start state), and never change.
    fn map(&self, state: &[Value], defaults: &[Value]) -> State {
        self.slots
            .iter()
            .zip(defaults)
            .map(|(members, default)| match members.first() {
                Some((slot, None)) => state[*slot].clone(),
                _ => {
                    let mut array = Value::constant_array(default.clone());
                    for (slot, idx) in members {
                        let Value::Array(a) = &array else {
                            unreachable!()
                        };
                        let a: &ArrayValue = a;
                        array = Value::array_set(a, idx.clone().unwrap(), state[*slot].clone());
                    }
                    array
                }
            })
            .collect()
    }
}

/// Every action instance of the root over the universe's carriers.
fn instances(machine: &Machine) -> Vec<(usize, Vec<Value>)> {
    let mut out = Vec::new();
    for (a, act) in machine.actions.iter().enumerate() {
        let mut combos: Vec<Vec<Value>> = vec![vec![]];
        for ty in &act.param_types {
            let carrier = machine
                .carrier(ty, ioa_lang::span::Span::default())
                .expect("a carrier");
            combos = combos
                .into_iter()
                .flat_map(|p| {
                    carrier.iter().map(move |v| {
                        let mut q = p.clone();
                        q.push(v.clone());
                        q
                    })
                })
                .collect();
        }
        out.extend(combos.into_iter().map(|args| (a, args)));
    }
    out
}

/// Runs the composite and its flattening in lockstep; returns (steps, instances compared).
fn lockstep(file: &str, name: &str, n: i64, seeds: u64, steps: usize) -> (usize, usize) {
    let (spec, universe) = load(file);
    let flat = flatten(&spec).expect("flattens");
    let root = AutomatonId(
        spec.automata
            .iter()
            .position(|a| a.name == name)
            .expect("the composite") as u32,
    );
    let params = vec![Value::Int(n)];
    let comp = Machine::new(&spec, &universe, root, params.clone()).expect("machine");
    let prim = Machine::new(&flat, &universe, root, params).expect("flat machine");
    let mapping = Mapping::new(&spec, &flat, &comp, &universe);
    let all = instances(&comp);
    let (mut n_steps, mut n_compared) = (0, 0);
    for seed in 0..seeds {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut state = comp.initial_state(&mut NoChoice).expect("start");
        let defaults: Vec<Value> = mapping
            .slots
            .iter()
            .map(|m| state[m[0].0].clone())
            .collect();
        let mut flat_state = mapping.map(&state, &defaults);
        for step in 0..steps {
            let mut enabled = Vec::new();
            for (a, args) in &all {
                let c = comp
                    .enabled(&state, *a, args, false)
                    .expect("composite enabled");
                let f = prim
                    .enabled(&flat_state, *a, args, false)
                    .expect("flat enabled");
                let what = || {
                    format!(
                        "{file} n={n} seed {seed} step {step}: {}{args:?}",
                        comp.actions[*a].name
                    )
                };
                assert_eq!(c.is_ok(), f.is_ok(), "enabledness differs at {}", what());
                n_compared += 1;
                if let (Ok(cp), Ok(fp)) = (c, f) {
                    assert_eq!(
                        comp.kind_of(*a, args).unwrap(),
                        prim.kind_of(*a, args).unwrap(),
                        "kinds differ at {}",
                        what()
                    );
                    enabled.push((*a, args.clone(), cp, fp));
                }
            }
            if enabled.is_empty() {
                break;
            }
            let (a, args, cp, fp) = enabled.swap_remove(rng.random_range(0..enabled.len()));
            state = comp
                .execute(&state, cp, &mut NoChoice)
                .expect("composite step");
            flat_state = prim
                .execute(&flat_state, fp, &mut NoChoice)
                .expect("flat step");
            assert_eq!(
                mapping.map(&state, &defaults),
                flat_state,
                "{file} n={n} seed {seed} step {step}: states differ after {}{args:?}",
                comp.actions[a].name
            );
            n_steps += 1;
        }
    }
    (n_steps, n_compared)
}

#[test]
fn lcr_and_its_flattening_agree_step_by_step() {
    for n in [3, 4] {
        let (steps, compared) = lockstep("examples/lcr/lcr.ioa", "LCR", n, 10, 60);
        eprintln!("LCR n={n}: {steps} steps, {compared} instances compared");
        // LCR elects its leader in a bounded number of steps and then stops: every run ends
        // when nothing is enabled, after the same number of steps whatever the order.
        assert!(steps >= 10 * 10, "too few steps ({steps})");
    }
}

#[test]
fn pool_and_its_flattening_agree_step_by_step() {
    for n in [2, 3] {
        let (steps, compared) = lockstep("tests/data/compose/pool.ioa", "Pool", n, 10, 80);
        eprintln!("Pool n={n}: {steps} steps, {compared} instances compared");
        assert_eq!(steps, 10 * 80, "the pool never stops");
    }
}

/// A family whose controlling member the arguments do not name (`recv(const mod(i + 1, n))`):
/// the flat transition loops over the family, and steps as the composite does.
#[test]
fn a_relay_ring_and_its_flattening_agree_step_by_step() {
    for n in [3, 4] {
        let (steps, compared) = lockstep("tests/data/compose/relay.ioa", "Ring", n, 3, 40);
        eprintln!("Ring n={n}: {steps} steps, {compared} instances compared");
        // The baton makes 4 hops, each a send and a receipt, then stops.
        assert_eq!(steps, 3 * 8, "each run hands the baton on four times");
    }
}

/// Clocks that all offer `tick(k)`: with one member it ticks up to its bound; with two, every
/// instance has two controllers and is disabled, in the composite and in its flattening.
#[test]
fn clocks_sharing_an_output_and_their_flattening_agree_step_by_step() {
    let (steps, _) = lockstep("tests/data/compose/clocks.ioa", "Clocks", 1, 2, 10);
    assert_eq!(steps, 2 * 3, "one clock ticks three times");
    let (steps, compared) = lockstep("tests/data/compose/clocks.ioa", "Clocks", 2, 2, 10);
    assert_eq!(
        steps, 0,
        "two clocks control every tick: nothing is enabled"
    );
    assert!(compared > 0);
}

/// `obligation: verdict` lines of a JSON report (times vary, verdicts must not).
fn verdicts(json: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(json).expect("a JSON report");
    v["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            format!(
                "{}: {}\n",
                r["obligation"].as_str().unwrap_or("?"),
                r["verdict"].as_str().unwrap_or("?")
            )
        })
        .collect()
}

#[test]
fn ioa_prove_proves_lcrs_three_invariants_on_the_flattened_ring() {
    // Every obligation of the file, the lemmas' own included (each assumes every declared
    // invariant in its pre-state): the steps that pop a buffer need `tail(s)`'s positions
    // related to those of `s`, which the uninterpreted `tail` of the SMT encoding gives.
    let (code, out, err) = ioa(&["prove", "examples/lcr/lcr.ioa", "--format", "json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    insta::assert_snapshot!("lcr_prove", verdicts(&out));
}

#[test]
fn ioa_prove_proves_the_pool() {
    let (code, out, err) = ioa(&[
        "prove",
        "tests/data/compose/pool.ioa",
        "--timeout",
        "120",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    insta::assert_snapshot!("pool_prove", verdicts(&out));
}

#[test]
fn ioa_export_smt_writes_one_file_per_obligation_of_lcr() {
    let dir = std::env::temp_dir().join(format!("ioa-compose-smt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (code, out, err) = ioa(&[
        "export",
        "smt",
        dir.to_str().unwrap(),
        "examples/lcr/lcr.ioa",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("written")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let _ = std::fs::remove_dir_all(&dir);
    // 7 invariants × (start + 5 transitions: receive and send each have the controller's case
    // and the composite-input case, leader has one).
    assert_eq!(names.len(), 42);
    insta::assert_snapshot!("lcr_smt_files", names.join("\n"));
}

#[test]
fn what_cannot_be_flattened_is_a_diagnostic_at_the_source() {
    let dir = Path::new(ROOT).join("tests/data/compose/err");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("err inputs")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ioa"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 3);
    for path in files {
        let rel = path
            .strip_prefix(ROOT)
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let expected = path.file_name().unwrap().to_str().unwrap()[..4].to_string();
        let (code, out, err) = ioa(&["prove", &rel]);
        assert_eq!(code, 1, "{out}\n{err}");
        assert!(err.contains(&format!("error[E{expected}]")), "{err}");
        assert_eq!(err.matches("error[").count(), 1, "reported once: {err}");
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        insta::assert_snapshot!(name, err);
    }
}

#[test]
fn a_composite_of_a_composite_is_flattened_inside_out() {
    let (code, out, err) = ioa(&[
        "prove",
        "tests/data/compose/nested.ioa",
        "--timeout",
        "120",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let table = verdicts(&out);
    // Pool's invariant (8 obligations) and Site's: start, and per action the cases of the
    // flattened Pool (each now a case of component Q) plus the monitor's input-only case.
    assert_eq!(table.lines().count(), 8 + 9, "{table}");
    assert!(
        table.contains("Seen step assign case Q.D: proved"),
        "{table}"
    );
    assert!(
        table.contains("Seen step assign case input: proved"),
        "{table}"
    );
}

#[test]
fn ioa_verify_runs_a_composite_and_proves_on_its_flattening() {
    // The runs use n = 3; the Houdini fixpoint and the proof are about every n, so the
    // detector's per-process facts (`P[0].u = 0`) fail at the start (for n = 0 there is no
    // P[0]) and the property is not proved without the file's lemmas: an honest "not proved".
    // (The process's templates, lifted to the ring, come first and take the first numbers.)
    let (code, out, err) = ioa(&[
        "verify",
        "examples/lcr/lcr.ioa",
        "--invariant",
        "LeaderHasMaxUid",
        "--param",
        "n=3",
    ]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        err.contains("runs of LCR: 21 (1 schedule(s), 20 random run(s)"),
        "{err}"
    );
    assert!(err.contains("(start: failed): P[0].u = 0"), "{err}");
    assert!(
        err.contains("LeaderHasMaxUid step receive case C: failed"),
        "{err}"
    );
    // Without a value for n the command says what is missing instead of running.
    let (code, _, err) = ioa(&[
        "verify",
        "examples/lcr/lcr.ioa",
        "--invariant",
        "LeaderHasMaxUid",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains('n'), "{err}");
}
