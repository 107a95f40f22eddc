//! Random runs keep enabledness of action instances across steps and re-check only the
//! invariants that read a changed variable. This test runs the examples listed in
//! `tests/data/incremental.txt` both ways, from the same seeds, and requires the same trace,
//! choices and stop: the dependency analysis must never let a stale answer through.

use interpreter::machine::Machine;
use interpreter::runner::{Runner, Weights};
use interpreter::universe::Universe;
use interpreter::value::Value;
use ioa_lang::ir::AutomatonId;
use ioa_lang::loader::FileSystem;
use std::path::{Path, PathBuf};

struct Disk;

impl FileSystem for Disk {
    fn read(&self, path: &Path) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    }
    fn canonical(&self, path: &Path) -> PathBuf {
        ioa_lang::loader::normalise(path)
    }
}

fn check(line: &str, root: &Path) -> Vec<String> {
    let cols: Vec<&str> = line.split('|').map(str::trim).collect();
    let [model, automaton, universe_file, extra, params, steps, seeds] = cols[..] else {
        panic!("seven columns expected: {line}");
    };
    let result = ioa_lang::check_files(&[root.join(model)], &Disk);
    let spec = result.spec.unwrap_or_else(|| panic!("{model} checks"));
    let mut text = match universe_file {
        "-" => String::new(),
        f => std::fs::read_to_string(root.join(f)).expect("universe file"),
    };
    text.push('\n');
    text.push_str(&extra.replace(';', "\n"));
    let mut universe = Universe::default();
    universe
        .add(&spec, ioa_lang::span::FileId(0), &text, true)
        .expect("universe parses");
    let id = AutomatonId(
        spec.automata
            .iter()
            .position(|a| a.name == automaton)
            .expect("automaton") as u32,
    );
    let params: Vec<Value> = params
        .split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|p| Value::Int(p.trim().parse().expect("integer parameter")))
        .collect();
    let machine = Machine::new(&spec, &universe, id, params).expect("machine");
    let runner = Runner::new(&machine);
    let steps: u64 = steps.parse().expect("steps");
    let seeds: u64 = seeds.parse().expect("seeds");
    let mut outcomes = Vec::new();
    for seed in 1..=seeds {
        let fast = runner.random(seed, steps, &Weights::default(), &mut |_| true);
        let slow = runner.random_uncached(seed, steps, &Weights::default(), &mut |_| true);
        assert_eq!(
            fast.trace.steps, slow.trace.steps,
            "{model} seed {seed}: steps differ"
        );
        assert_eq!(
            fast.trace.states, slow.trace.states,
            "{model} seed {seed}: states differ"
        );
        assert_eq!(fast.choices, slow.choices, "{model} seed {seed}");
        let (a, b) = (format!("{:?}", fast.stop), format!("{:?}", slow.stop));
        assert_eq!(a, b, "{model} seed {seed}: stops differ");
        let stop = a
            .split([' ', '{', '('])
            .next()
            .unwrap_or_default()
            .to_string();
        outcomes.push(format!(
            "{automaton} seed {seed}: {} steps, {stop}",
            fast.trace.steps.len()
        ));
    }
    outcomes
}

#[test]
fn incremental_random_runs_match_the_reference() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let list = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/incremental.txt"),
    )
    .expect("list");
    let mut outcomes = Vec::new();
    for line in list.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('%') {
            continue;
        }
        outcomes.extend(check(line, &root));
    }
    insta::assert_snapshot!(outcomes.join("\n"));
}
