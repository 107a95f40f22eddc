//! End-to-end tests of the language gaps of issue #40, on the models of
//! `tests/data/elsewhere/sim/`: a parameter shared by both sides of a simulation
//! (`from Ticker(k) to Bounded(k)`) in `ioa prove` and `ioa pair`; `ioa prove --param`;
//! assigning a composite specification's component state in a proof block's `start`; and loops
//! inside the members of a family, for the prover and the Isabelle export.

mod common;
#[allow(dead_code)] // only the structural check, not its self-test
mod isabelle_check;

use common::ioa;
use std::collections::BTreeMap;

/// One `ioa prove` at a time (the machine's cores are shared).
static ONE_PROVER: std::sync::Mutex<()> = std::sync::Mutex::new(());

const SHARED: &str = "tests/data/elsewhere/sim/shared_param.ioa";
const FIXED: &str = "tests/data/elsewhere/sim/fixed_param.ioa";

/// `ioa prove ARGS… --format json`: the exit code, `obligation: verdict` per line, and the
/// `--param` assumptions the report lists.
fn prove(args: &[&str]) -> (i32, String, Vec<String>) {
    let _alone = ONE_PROVER.lock().unwrap_or_else(|e| e.into_inner());
    let mut all = vec!["prove"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json", "--timeout", "120"]);
    let (code, stdout, stderr) = ioa(&all);
    let json: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("JSON report ({e}): {stdout}\n{stderr}"));
    let table = json["results"]
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
        .collect();
    let params = json["params"]
        .as_array()
        .expect("params")
        .iter()
        .map(|p| p.as_str().unwrap_or("?").to_string())
        .collect();
    (code, table, params)
}

/// The text report from its first counterexample to the summary line (no times).
fn counterexamples(args: &[&str]) -> String {
    let _alone = ONE_PROVER.lock().unwrap_or_else(|e| e.into_inner());
    let mut all = vec!["prove"];
    all.extend_from_slice(args);
    let (_, stdout, _) = ioa(&all);
    let header: String = stdout
        .lines()
        .take_while(|l| !l.starts_with("budget"))
        .map(|l| format!("{l}\n"))
        .collect();
    let from = stdout.find(" failed (").map_or(stdout.len(), |k| {
        stdout[..k].rfind("\n\n").map_or(0, |n| n + 2)
    });
    let to = stdout
        .rfind(" obligation(s): ")
        .and_then(|k| stdout[..k].rfind("\n\n"))
        .unwrap_or(stdout.len());
    format!("{header}{}", &stdout[from.min(to)..to])
}

#[test]
fn a_parameter_named_in_both_headers_is_one_value_for_the_prover() {
    let (code, table, params) = prove(&[SHARED]);
    assert_eq!(code, 1, "Unrelated must fail");
    assert!(params.is_empty());
    insta::assert_snapshot!(table, @r"
    CountNonNegative start: proved
    CountNonNegative step tick: proved
    TickerToBounded start: proved
    TickerToBounded step tick: proved
    Unrelated start: proved
    Unrelated step tick: failed
    ");
}

#[test]
fn unrelated_parameters_give_a_counterexample_that_shows_them() {
    let text = counterexamples(&[SHARED, "--simulation", "Unrelated"]);
    assert!(text.contains("parameters:"), "{text}");
    assert!(
        text.contains("Ticker.n = ") && text.contains("Bounded.limit = "),
        "{text}"
    );
    assert!(
        text.contains("false: output tick is enabled where it is fired"),
        "{text}"
    );
}

#[test]
fn paired_runs_instantiate_both_automata_with_the_header_parameter() {
    let (code, _, stderr) = ioa(&[
        "pair",
        SHARED,
        "--simulation",
        "TickerToBounded",
        "--param",
        "k=2",
        "--random",
        "--runs",
        "20",
        "--steps",
        "10",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("every step matched"), "{stderr}");
    // The same runs against unrelated bounds fail where Ticker goes past Bounded's.
    let (code, _, stderr) = ioa(&[
        "pair",
        SHARED,
        "--simulation",
        "Unrelated",
        "--param",
        "k=2",
        "--param",
        "j=1",
        "--random",
        "--runs",
        "20",
        "--steps",
        "10",
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("E0531"), "{stderr}");
}

#[test]
fn paired_runs_take_header_names_only() {
    let pair = |params: &[&str]| {
        let mut args = vec![
            "pair",
            SHARED,
            "--simulation",
            "TickerToBounded",
            "--random",
        ];
        for p in params {
            args.extend_from_slice(&["--param", p]);
        }
        let (code, _, stderr) = ioa(&args);
        format!("exit {code}: {stderr}")
    };
    insta::assert_snapshot!(pair(&["n=2"]), @"exit 2: error: parameter `n` of `Ticker` is `k` in the header of simulation `TickerToBounded`: give `--param k=VALUE`");
    insta::assert_snapshot!(pair(&[]), @"exit 2: error: simulation `TickerToBounded` needs a value for its parameter `k`: add `--param k=VALUE`");
    insta::assert_snapshot!(pair(&["q=1"]), @"exit 2: error: neither `Ticker` nor `Bounded` has a parameter `q`, and the simulation's header names k");
}

#[test]
fn prove_param_makes_an_invariant_of_one_instance_provable() {
    let (code, table, params) = prove(&[FIXED, "--param", "n=3"]);
    assert_eq!(code, 0, "{table}");
    assert_eq!(params, ["TokenRing.n = 3"]);
    insta::assert_snapshot!(table, @r"
    InFirstThree start: proved
    InFirstThree step pass: proved
    ");
    // n = 4: the step fails.
    let (code, table, _) = prove(&[FIXED, "--param", "n=4"]);
    assert_eq!(code, 1, "{table}");
    assert!(table.contains("InFirstThree step pass: failed"), "{table}");
    // Any n: Z3's model takes n = 0, where SMT's `mod` is some number and the interpreter's a
    // division by zero, so the interpreter does not confirm it (src/cex): unknown, not failed.
    let (code, table, _) = prove(&[FIXED]);
    assert_eq!(code, 1, "{table}");
    assert!(table.contains("InFirstThree step pass: unknown"), "{table}");
}

#[test]
fn prove_param_prints_the_assumption_and_the_parameters_of_a_counterexample() {
    insta::assert_snapshot!(counterexamples(&[FIXED, "--param", "n=4"]), @r"
    every obligation assumes (--param): TokenRing.n = 4
    InFirstThree step pass failed (internal pass), assuming InFirstThree:
      checked by the interpreter: a pre-state satisfying the hypotheses (not necessarily reachable), the step enabled in it, the invariant false after it
      false: InFirstThree holds after the step
      parameters:
        n = 4
      pre-state:
        at = 2
      post-state (changed):
        at = 3
    ");
}

#[test]
fn prove_param_fixes_the_shared_value_of_a_simulation() {
    // `k` is the header's name: it fixes Ticker.n and Bounded.limit (one SMT constant).
    let (code, table, params) =
        prove(&[SHARED, "--simulation", "TickerToBounded", "--param", "k=2"]);
    assert_eq!(code, 0, "{table}");
    assert_eq!(params, ["Ticker.n = 2", "Bounded.limit = 2"]);
}

#[test]
fn contradictory_or_unknown_parameter_values_are_refused() {
    let refused = |args: &[&str]| {
        let mut all = vec!["prove"];
        all.extend_from_slice(args);
        let (code, stdout, stderr) = ioa(&all);
        assert!(stdout.is_empty(), "{stdout}");
        format!("exit {code}: {stderr}")
    };
    // Both values would be assumed of one SMT constant: every obligation would hold vacuously.
    insta::assert_snapshot!(refused(&[SHARED, "--param", "n=2", "--param", "limit=3"]), @"exit 2: error: --param: Ticker.n = 2 but Bounded.limit = 3, which the header of simulation `TickerToBounded` makes one value `k`");
    insta::assert_snapshot!(refused(&[FIXED, "--param", "n=3", "--param", "n=4"]), @"exit 2: error: --param n: TokenRing.n is given two values, 3 and 4");
    insta::assert_snapshot!(refused(&[FIXED, "--param", "m=3"]), @"exit 2: error: --param m: no automaton has a parameter `m`, and no simulation's header names one");
    insta::assert_snapshot!(refused(&[FIXED, "--param", "n=yes"]), @"exit 2: error: --param n (for TokenRing.n): this value does not have type `Int`");
}

const COMPOSITE_START: &str = "tests/data/elsewhere/sim/composite_start.ioa";

/// A copy of `model` (with its universe file) in the scratch directory, with `from` replaced by
/// `to` (which must occur).
fn mutated(model: &str, name: &str, from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(std::path::Path::new(common::ROOT).join(model))
        .expect("read the model");
    assert!(text.contains(from), "{from}");
    let dir = common::scratch_dir("sim_gaps", name);
    let path = dir.join(format!("{name}.ioa"));
    std::fs::write(&path, text.replace(from, to)).expect("write the mutant");
    let universe = std::path::Path::new(common::ROOT).join(model.replace(".ioa", ".universe"));
    if universe.exists() {
        std::fs::copy(&universe, dir.join(format!("{name}.universe"))).expect("copy the universe");
    }
    path.to_string_lossy().into_owned()
}

#[test]
fn a_start_block_builds_a_composite_specifications_state_for_pair_and_prove() {
    let (code, _, stderr) = ioa(&[
        "pair",
        COMPOSITE_START,
        "--param",
        "n=3",
        "--random",
        "--runs",
        "30",
        "--steps",
        "20",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("every step matched"), "{stderr}");
    let (code, table, _) = prove(&[COMPOSITE_START]);
    assert_eq!(code, 0, "{table}");
    insta::assert_snapshot!(table, @r"
    RegistersToBank start: proved
    RegistersToBank step bump: proved
    ");
}

#[test]
fn a_wrong_component_start_value_is_refuted_by_pair_and_prove() {
    // Tally must start with Registers' last (-1), not 0.
    let model = mutated(
        COMPOSITE_START,
        "wrong_tally_start",
        "Bank.Tally.last := Registers.last",
        "Bank.Tally.last := 0",
    );
    let (code, _, stderr) = ioa(&["pair", &model, "--param", "n=3", "--random"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("E0533") && stderr.contains("at the start"),
        "{stderr}"
    );
    let (code, table, _) = prove(&[&model]);
    assert_eq!(code, 1, "{table}");
    assert!(table.contains("RegistersToBank start: failed"), "{table}");
    // Without the members' start values, Bank's cells may start anywhere.
    let model = mutated(
        COMPOSITE_START,
        "no_cell_start",
        "    for i: Int where 0 ≤ i ∧ i < n do\n      Bank.C[i].value := Registers.reg[i]\n    od;\n",
        "",
    );
    let (code, _, stderr) = ioa(&["pair", &model, "--param", "n=3", "--random"]);
    assert_eq!(code, 1, "{stderr}");
    let (code, table, _) = prove(&[&model]);
    assert_eq!(code, 1, "{table}");
    assert!(table.contains("RegistersToBank start: failed"), "{table}");
}

/// `ioa export isabelle` of `model` into a scratch directory: exit code, standard error, and
/// the theories written.
fn export_isabelle(model: &str, test: &str) -> (i32, String, BTreeMap<String, String>) {
    let dir = common::scratch_dir("sim_gaps_isabelle", test);
    let _alone = ONE_PROVER.lock().unwrap_or_else(|e| e.into_inner());
    let (code, _, stderr) = ioa(&["export", "isabelle", dir.to_str().expect("UTF-8"), model]);
    let mut files = BTreeMap::new();
    for e in std::fs::read_dir(&dir)
        .expect("the export directory")
        .flatten()
    {
        let name = e.file_name().to_string_lossy().into_owned();
        files.insert(
            name,
            std::fs::read_to_string(e.path()).expect("a text file"),
        );
    }
    (code, stderr, files)
}

#[test]
fn loops_inside_family_members_are_proved_and_exported() {
    let model = "tests/data/elsewhere/sim/family_loops.ioa";
    let (code, table, _) = prove(&[model]);
    assert_eq!(code, 0, "{table}");
    insta::assert_snapshot!(table, @r"
    MarkedSeen start: proved
    MarkedSeen step tell: proved
    MarkedSeen step mark case P: proved
    MarkedSeen step clear case P: proved
    SeenAlike start: proved
    SeenAlike step tell: proved
    SeenAlike step mark case P: proved
    SeenAlike step clear case P: proved
    HitsNonNegative start: proved
    HitsNonNegative step tell: proved
    HitsNonNegative step mark case P: proved
    HitsNonNegative step clear case P: proved
    ");
    let (code, stderr, files) = export_isabelle(model, "family_loops");
    assert_eq!(code, 0, "{stderr}");
    let problems = isabelle_check::check_export(&files);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The family's loop over its members holds the member's loop: one simultaneous update.
    let board = &files["Board.thy"];
    assert!(
        board.contains(
            "Board_P_seen := (\\<lambda>i_3. (((Board_P_seen \\<sigma>) i_3) \\<union> {x_5."
        ),
        "{board}"
    );
}

/// Models the provers refuse (E0602, E1202), each with the rewrite its hint suggests.
const REFUSED_LOOPS: [&str; 4] = [
    "loop_reads_written",
    "loop_count",
    "loop_max",
    "family_count",
];

#[test]
fn refused_loops_say_why_and_suggest_what_is_accepted() {
    let mut diagnostics = String::new();
    for name in REFUSED_LOOPS {
        let model = format!("tests/data/elsewhere/sim/{name}.ioa");
        let (code, stdout, stderr) = {
            let _alone = ONE_PROVER.lock().unwrap_or_else(|e| e.into_inner());
            ioa(&["prove", &model])
        };
        assert_eq!(code, 1, "{stdout}{stderr}");
        assert!(stderr.contains("error[E0602]"), "{stderr}");
        diagnostics.push_str(&stderr);
        let (code, stderr, _) = export_isabelle(&model, name);
        assert_eq!(code, 1, "{stderr}");
        assert!(stderr.contains("error[E1202]"), "{stderr}");
        assert!(stderr.contains("hint: "), "{stderr}");
    }
    insta::assert_snapshot!(diagnostics);
}

#[test]
fn the_rewrites_the_loop_hints_suggest_check_prove_and_export() {
    for name in REFUSED_LOOPS {
        let model = format!("tests/data/elsewhere/sim/{name}_fixed.ioa");
        let (code, _, stderr) = ioa(&["check", &model]);
        assert_eq!(code, 0, "{name}: {stderr}");
        let (code, table, _) = prove(&[&model]);
        assert_eq!(code, 0, "{name}: {table}");
        assert!(!table.contains("failed"), "{name}: {table}");
        let (code, stderr, files) = export_isabelle(&model, &format!("{name}_fixed"));
        assert_eq!(code, 0, "{name}: {stderr}");
        let problems = isabelle_check::check_export(&files);
        assert!(problems.is_empty(), "{name}: {}", problems.join("\n"));
    }
}
