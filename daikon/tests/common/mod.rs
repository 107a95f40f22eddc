//! Shared helpers for the daikon tests: loading the bundled consensus models with their default
//! universe, and collecting schedule and random runs.

#![allow(dead_code)]

use interpreter::machine::Machine;
use interpreter::runner::{Runner, Weights};
use interpreter::trace::Trace;
use interpreter::universe::Universe;
use ioa_lang::ir::{AutomatonId, Spec};
use ioa_lang::loader::FileSystem;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The disk, with extra text appended to some files (for round trips).
pub struct Disk {
    /// Text appended to a file, by canonical path.
    pub appended: HashMap<PathBuf, String>,
}

impl FileSystem for Disk {
    fn read(&self, path: &Path) -> Result<String, String> {
        let mut text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        if let Some(extra) = self.appended.get(&self.canonical(path)) {
            text.push('\n');
            text.push_str(extra);
        }
        Ok(text)
    }
    fn canonical(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| ioa_lang::loader::normalise(path))
    }
}

/// The folder of the consensus examples.
pub fn consensus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/consensus")
}

/// Checks a model, with `extra` appended to it.
pub fn check(file: &Path, extra: Option<&str>) -> Result<Spec, String> {
    let mut appended = HashMap::new();
    if let Some(e) = extra {
        appended.insert(std::fs::canonicalize(file).unwrap(), e.to_string());
    }
    let result = ioa_lang::check_files(&[file.to_path_buf()], &Disk { appended });
    match result.spec {
        Some(s) => Ok(s),
        None => Err(ioa_lang::diagnostics::render(
            &result.diagnostics,
            &result.sources,
            false,
        )),
    }
}

/// Checks a model and keeps its source text (for splitting on action preconditions).
pub fn check_with_sources(file: &Path) -> (Spec, ioa_lang::source_map::SourceMap) {
    let result = ioa_lang::check_files(
        &[file.to_path_buf()],
        &Disk {
            appended: HashMap::new(),
        },
    );
    let rendered = ioa_lang::diagnostics::render(&result.diagnostics, &result.sources, false);
    let spec = result.spec.unwrap_or_else(|| panic!("{rendered}"));
    (spec, result.sources)
}

/// A checked model with its universe.
pub struct Loaded {
    pub spec: Spec,
    pub universe: Universe,
}

/// Loads `file` (in the consensus folder) with `universe_text`.
pub fn load(file: &str, universe_text: &str) -> Loaded {
    let spec = check(&consensus().join(file), None).expect("the example checks");
    let mut universe = Universe::default();
    universe
        .add(&spec, ioa_lang::span::FileId(0), universe_text, true)
        .expect("universe");
    Loaded { spec, universe }
}

/// The default universe of the consensus examples (3 nodes, 20 ballots, 3 values).
pub fn default_universe() -> String {
    std::fs::read_to_string(consensus().join("default.universe")).unwrap()
}

/// The automaton called `name`.
pub fn automaton(spec: &Spec, name: &str) -> AutomatonId {
    AutomatonId(spec.automata.iter().position(|a| a.name == name).unwrap() as u32)
}

/// Every schedule of `automaton` in the model, run to its end.
pub fn schedule_runs(machine: &Machine) -> Vec<(String, Trace)> {
    let runner = Runner::new(machine);
    machine
        .spec
        .schedules
        .iter()
        .filter(|s| s.automaton == machine.root)
        .map(|s| {
            let report = runner.schedule(s, 10_000, &mut |_| true);
            (format!("schedule {}", s.name), report.trace)
        })
        .collect()
}

/// `runs` random runs of `steps` steps from seeds `seed`, `seed + 1`, ….
pub fn random_runs(machine: &Machine, runs: u64, steps: u64, seed: u64) -> Vec<(String, Trace)> {
    let runner = Runner::new(machine);
    (0..runs)
        .map(|r| {
            let report = runner.random(seed + r, steps, &Weights::default(), &mut |_| true);
            (format!("random run, seed {}", seed + r), report.trace)
        })
        .collect()
}
