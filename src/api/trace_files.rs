//! Writing runs to files as they come in, for `ioa trace` and `ioa infer --daikon`: Daikon's
//! `DIR/A.decls` and `DIR/A.dtrace` (one pair for all runs), and one ITF JSON trace per run
//! that `ioa replay` reads back.

use super::model::Model;
use super::runs::RunId;
use daikon::dtrace::DaikonWriter;
use interpreter::machine::Machine;
use interpreter::runner::RunReport;
use interpreter::trace::Trace;
use std::io::Write;
use std::path::{Path, PathBuf};

fn open(p: &Path) -> Result<std::io::BufWriter<std::fs::File>, String> {
    std::fs::File::create(p)
        .map(std::io::BufWriter::new)
        .map_err(|e| format!("cannot write `{}`: {e}", p.display()))
}

fn make_dir(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))
}

/// `DIR/A.decls` and `DIR/A.dtrace`, written as the runs come in.
pub struct DaikonFiles<'m, 's> {
    writer: DaikonWriter<'m, 's>,
    dtrace: std::io::BufWriter<std::fs::File>,
    paths: Vec<String>,
}

impl<'m, 's> DaikonFiles<'m, 's> {
    /// Creates the directory and both files, and writes the declarations.
    pub fn create(dir: &Path, machine: &'m Machine<'s>) -> Result<Self, String> {
        make_dir(dir)?;
        let name = &machine.spec.automata[machine.root.0 as usize].name;
        let decls_path = dir.join(format!("{name}.decls"));
        let dtrace_path = dir.join(format!("{name}.dtrace"));
        let writer = DaikonWriter::new(machine);
        let mut decls = open(&decls_path)?;
        writer
            .write_decls(&mut decls)
            .and_then(|_| decls.flush())
            .map_err(|e| format!("cannot write `{}`: {e}", decls_path.display()))?;
        let mut dtrace = open(&dtrace_path)?;
        writer
            .write_header(&mut dtrace)
            .map_err(|e| format!("cannot write `{}`: {e}", dtrace_path.display()))?;
        Ok(DaikonFiles {
            writer,
            dtrace,
            paths: vec![
                decls_path.display().to_string(),
                dtrace_path.display().to_string(),
            ],
        })
    }

    /// Appends one run's samples.
    pub fn trace(&mut self, trace: &Trace) -> Result<(), String> {
        self.writer
            .write_trace(trace, &mut self.dtrace)
            .map_err(|e| format!("cannot write `{}`: {e}", self.paths[1]))
    }

    /// Flushes the samples; returns the paths written.
    pub fn finish(mut self) -> Result<Vec<String>, String> {
        self.dtrace
            .flush()
            .map_err(|e| format!("cannot write `{}`: {e}", self.paths[1]))?;
        Ok(self.paths)
    }
}

/// One ITF JSON trace per run in a directory, each replayable with `ioa replay`.
pub struct ItfFiles {
    dir: PathBuf,
    model: PathBuf,
    params: Vec<String>,
    universe: String,
    /// The files written so far.
    pub written: Vec<String>,
}

impl ItfFiles {
    /// Creates the directory; `file` and `params` are recorded in every trace for replay.
    pub fn create(dir: &Path, file: &Path, m: &Model, params: &[String]) -> Result<Self, String> {
        make_dir(dir)?;
        Ok(ItfFiles {
            dir: dir.to_path_buf(),
            model: file.to_path_buf(),
            params: params.to_vec(),
            universe: m.universe_text.clone(),
            written: Vec::new(),
        })
    }

    /// Writes `DIR/<run>.itf.json`.
    pub fn trace(
        &mut self,
        id: &RunId,
        machine: &Machine,
        report: &RunReport,
    ) -> Result<(), String> {
        let path = self.dir.join(format!("{}.itf.json", id.file_stem()));
        super::itf::write_trace(
            &path,
            machine,
            &report.trace,
            super::itf::TraceMeta {
                model: &self.model,
                params: &self.params,
                universe: &self.universe,
                choices: &report.choices,
                extra: serde_json::json!({ "description": id.label() }),
            },
        )
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        self.written.push(path.display().to_string());
        Ok(())
    }
}

/// What `ioa trace` wrote: the runs, their states and steps, and the files (the Daikon pair
/// still to be finished).
pub struct Traced<'m, 's> {
    /// Runs made.
    pub runs: u64,
    /// States in all.
    pub states: u64,
    /// Steps in all.
    pub steps: u64,
    /// The Daikon files (`finish` writes the last of them).
    pub daikon: Option<DaikonFiles<'m, 's>>,
    /// The ITF traces written.
    pub itf: Option<ItfFiles>,
}

/// Where `ioa trace` writes: the Daikon folder, the ITF folder, and what every ITF trace
/// records for replay (the model file and the `--param` values as given).
pub struct TraceDirs<'a> {
    /// `--daikon DIR`.
    pub daikon: Option<&'a Path>,
    /// `--itf DIR`.
    pub itf: Option<&'a Path>,
    /// The model file.
    pub file: &'a Path,
    /// `--param` as given.
    pub params: &'a [String],
}

/// Makes the chosen runs of `machine` and writes each as it comes in; `stopped` hears of each
/// run that stopped early (its states are written all the same).
pub fn trace_runs<'m, 's>(
    machine: &'m Machine<'s>,
    m: &Model,
    selected: &super::runs::Selected,
    choice: &super::runs::RunChoice,
    dirs: &TraceDirs,
    stopped: &mut dyn FnMut(super::runs::StoppedRun),
) -> Result<Traced<'m, 's>, String> {
    let mut traced = Traced {
        runs: 0,
        states: 0,
        steps: 0,
        daikon: dirs
            .daikon
            .map(|d| DaikonFiles::create(d, machine))
            .transpose()?,
        itf: (dirs.itf)
            .map(|d| ItfFiles::create(d, dirs.file, m, dirs.params))
            .transpose()?,
    };
    let runner = interpreter::runner::Runner::new(machine);
    let mut each = |id: RunId, report: RunReport| -> Result<(), String> {
        if let Some(diagnostic) = super::diagnose::stop_diagnostic(machine, &report) {
            let (label, states) = (id.label(), report.trace.states.len());
            stopped(super::runs::StoppedRun {
                label,
                states,
                diagnostic,
            });
        }
        traced.runs += 1;
        traced.states += report.trace.states.len() as u64;
        traced.steps += report.trace.steps.len() as u64;
        if let Some(d) = traced.daikon.as_mut() {
            d.trace(&report.trace)?;
        }
        if let Some(f) = traced.itf.as_mut() {
            f.trace(&id, machine, &report)?;
        }
        Ok(())
    };
    super::runs::for_each_run(&runner, selected, choice, &mut each)?;
    Ok(traced)
}
