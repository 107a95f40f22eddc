//! Loading example models for the checker's tests.
#![allow(dead_code)]

use checker::explore::{explore, Options, Report};
use checker::model::MachineModel;
use checker::symmetry::Symmetry;
use interpreter::machine::Machine;
use interpreter::universe::Universe;
use interpreter::value::Value;
use ioa_lang::ir::{AutomatonId, Spec};
use ioa_lang::loader::FileSystem;
use std::path::{Path, PathBuf};

/// The real file system.
pub struct Disk;

impl FileSystem for Disk {
    fn read(&self, path: &Path) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    }
    fn canonical(&self, path: &Path) -> PathBuf {
        ioa_lang::loader::normalise(path)
    }
}

/// A path relative to the workspace root.
pub fn workspace(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

/// A checked model with its universe.
pub struct Loaded {
    pub spec: Spec,
    pub universe: Universe,
}

/// Checks `file` (relative to the workspace root) and reads `universe` lines.
pub fn load(file: &str, universe: &str) -> Loaded {
    let result = ioa_lang::check_files(&[workspace(file)], &Disk);
    let spec = result
        .spec
        .unwrap_or_else(|| panic!("{file} checks: {:?}", result.diagnostics));
    let universe = Universe::parse(&spec, ioa_lang::span::FileId(9999), universe)
        .unwrap_or_else(|d| panic!("universe parses: {d:?}"));
    Loaded { spec, universe }
}

impl Loaded {
    /// The automaton called `name`.
    pub fn automaton(&self, name: &str) -> AutomatonId {
        AutomatonId(
            self.spec
                .automata
                .iter()
                .position(|a| a.name == name)
                .expect("automaton") as u32,
        )
    }

    /// The machine for automaton `name` with parameters `params`.
    pub fn machine(&self, name: &str, params: Vec<Value>) -> Machine<'_> {
        Machine::new(&self.spec, &self.universe, self.automaton(name), params).expect("machine")
    }
}

/// Explores a machine, optionally symmetric in `symmetric`.
pub fn run<'m, 's>(
    machine: &'m Machine<'s>,
    symmetric: &[&str],
    options: &Options,
) -> (MachineModel<'m, 's>, Report<MachineModel<'m, 's>>) {
    run_guarded(machine, symmetric, options, true)
}

/// [`run`], choosing whether instances excluded by a parameter guard are skipped.
pub fn run_guarded<'m, 's>(
    machine: &'m Machine<'s>,
    symmetric: &[&str],
    options: &Options,
    param_guards: bool,
) -> (MachineModel<'m, 's>, Report<MachineModel<'m, 's>>) {
    let symmetry = (!symmetric.is_empty()).then(|| {
        let names: Vec<String> = symmetric.iter().map(|s| s.to_string()).collect();
        Symmetry::new(machine, &names).unwrap_or_else(|e| panic!("symmetric: {e:?}"))
    });
    let mut model = MachineModel::new(machine, symmetry).expect("action instances");
    if !param_guards {
        model = model.without_param_guards();
    }
    let report = explore(&model, options, &mut |_| {});
    (model, report)
}
