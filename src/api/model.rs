//! Loading a model: the checked spec with its universe (a universe file, `--universe` lines or
//! the text a trace recorded), and choosing the automaton and its parameters. Every problem is
//! returned as data (diagnostics or a message); nothing here prints.

use super::fs::OsFileSystem;
use interpreter::universe::Universe;
use interpreter::value::Value;
use ioa_lang::diagnostics::Diagnostic;
use ioa_lang::ir::{AutomatonId, Spec};
use ioa_lang::source_map::SourceMap;
use std::path::{Path, PathBuf};

/// A checked model ready to run.
pub struct Model {
    /// The spec.
    pub spec: Spec,
    /// All sources read (model files and universe text), for diagnostics.
    pub sources: SourceMap,
    /// Carriers.
    pub universe: Universe,
    /// The universe text used (recorded in traces so that replay uses the same).
    pub universe_text: String,
    /// The checker's warnings (a hidden input nobody controls changes what a run or an
    /// exploration does, so every command shows them).
    pub warnings: Vec<Diagnostic>,
    /// Lines of universe files skipped because the model lacks their type or action.
    pub skipped_universe_lines: Vec<SkippedUniverseLines>,
}

/// Lines of one universe file that name a type or action parameter the model lacks: a file
/// may serve several models (`default.universe` of a folder), so they are skipped, with a note.
#[derive(Debug, Clone)]
pub struct SkippedUniverseLines {
    /// The universe file, as named.
    pub file: String,
    /// The lines skipped.
    pub lines: Vec<String>,
}

impl SkippedUniverseLines {
    /// The note a command shows for them.
    pub fn note(&self) -> String {
        universe_note(&self.file, &self.lines)
    }
}

/// Why a model could not be loaded: the errors, the warnings the checker gave before them, and
/// the sources both point into.
pub struct LoadFailure {
    /// The checker's warnings (shown before the errors).
    pub warnings: Vec<Diagnostic>,
    /// The errors.
    pub errors: Vec<Diagnostic>,
    /// Every source read, for rendering.
    pub sources: SourceMap,
}

impl LoadFailure {
    /// The warnings and errors as text, without colour.
    pub fn render(&self) -> String {
        let mut all = self.warnings.clone();
        all.extend(self.errors.iter().cloned());
        ioa_lang::diagnostics::render(&all, &self.sources, false)
    }
}

/// The universe file used when none is given: `model.universe` beside `model.ioa`, or else
/// `default.universe` in the same folder.
pub fn default_universe_file(model: &Path) -> Option<PathBuf> {
    let own = model.with_extension("universe");
    let shared = model.with_file_name("default.universe");
    [own, shared].into_iter().find(|p| p.exists())
}

/// Checks the model and reads the universe (file first, then `--universe` lines).
pub fn load(
    file: &Path,
    universe_file: Option<&Path>,
    universe_lines: &[String],
    recorded_universe: Option<&str>,
) -> Result<Model, LoadFailure> {
    let result = ioa_lang::check_files(&[file.to_path_buf()], &OsFileSystem);
    let mut sources = result.sources;
    let Some(spec) = result.spec else {
        return Err(LoadFailure {
            warnings: vec![],
            errors: result.diagnostics,
            sources,
        });
    };
    // Warnings do not stop a command, but every command shows them.
    let warnings = result.diagnostics;
    // Each source of universe lines is its own file in the source map, so errors name it.
    let mut universe = Universe::default();
    let mut text = String::new();
    let mut errors = Vec::new();
    let mut skipped_lines = Vec::new();
    let mut add = |sources: &mut SourceMap,
                   universe: &mut Universe,
                   name: String,
                   body: String,
                   lenient: bool| {
        let id = sources.add(name.clone(), body.clone());
        match universe.add_reporting(&spec, id, &body, lenient) {
            Ok(skipped) if !skipped.is_empty() => skipped_lines.push((name, skipped)),
            Ok(_) => {}
            Err(mut d) => errors.append(&mut d),
        }
        text.push_str(&body);
        if !body.ends_with('\n') {
            text.push('\n');
        }
    };
    if let Some(recorded) = recorded_universe {
        add(
            &mut sources,
            &mut universe,
            "<universe recorded in the trace>".into(),
            recorded.to_string(),
            true,
        );
    } else {
        // One rule for every universe file, given or found beside the model: a file may be
        // shared by several models (`default.universe` of a folder), so lines for types and
        // actions this model lacks are skipped, with a note. `--universe` lines are the
        // user's own and must all apply.
        let path = universe_file
            .map(Path::to_path_buf)
            .or_else(|| default_universe_file(file));
        if let Some(path) = path {
            match std::fs::read_to_string(&path) {
                Ok(t) => add(
                    &mut sources,
                    &mut universe,
                    path.display().to_string(),
                    t,
                    true,
                ),
                Err(e) => {
                    let d = Diagnostic {
                        code: "E0006",
                        severity: ioa_lang::diagnostics::Severity::Error,
                        message: format!("cannot read universe file `{}`: {e}", path.display()),
                        labels: vec![],
                        notes: vec![],
                        hint: Some("give an existing file to --universe-file".into()),
                    };
                    return Err(LoadFailure {
                        warnings,
                        errors: vec![d],
                        sources,
                    });
                }
            }
        }
        for line in universe_lines {
            add(
                &mut sources,
                &mut universe,
                "--universe".into(),
                line.clone(),
                false,
            );
        }
    }
    if !errors.is_empty() {
        return Err(LoadFailure {
            warnings,
            errors,
            sources,
        });
    }
    let skipped_universe_lines = if recorded_universe.is_none() {
        skipped_lines
            .into_iter()
            .map(|(file, lines)| SkippedUniverseLines { file, lines })
            .collect()
    } else {
        vec![]
    };
    Ok(Model {
        spec,
        sources,
        universe,
        universe_text: text,
        warnings,
        skipped_universe_lines,
    })
}

/// The note for universe lines skipped because the model lacks their type or action.
pub fn universe_note(file: &str, lines: &[String]) -> String {
    let names: Vec<String> = lines.iter().map(|l| format!("`{l}`")).collect();
    format!(
        "note: {file}: ignored the line(s) for {} (no such type or action parameter in this \
         model; a universe file may serve several models)\n",
        names.join(", ")
    )
}

/// Finds the automaton to run: named, or the schedule's, or the only one.
pub fn pick_automaton(
    spec: &Spec,
    name: Option<&str>,
    schedule: Option<&str>,
) -> Result<AutomatonId, String> {
    if let Some(n) = name {
        return spec
            .automata
            .iter()
            .position(|a| a.name == n)
            .map(|i| AutomatonId(i as u32))
            .ok_or_else(|| format!("no automaton `{n}`; the model has: {}", names(spec)));
    }
    if let Some(s) = schedule {
        return match spec.schedules.iter().find(|x| x.name == s) {
            Some(sch) => Ok(sch.automaton),
            None => {
                let known: Vec<&str> = spec.schedules.iter().map(|x| x.name.as_str()).collect();
                Err(format!(
                    "no schedule `{s}`; the model has: {}",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ))
            }
        };
    }
    match spec.automata.len() {
        1 => Ok(AutomatonId(0)),
        _ => Err(format!(
            "say which automaton to run with --automaton; the model has: {}",
            names(spec)
        )),
    }
}

/// The automaton to explore or search for a liveness property: the one named, else the one the
/// property is declared of (when exactly one declares a property of that name), else the only
/// automaton of the model. `ioa explore --liveness` and `ioa liveness` choose alike.
pub fn pick_for_property(
    spec: &Spec,
    name: Option<&str>,
    property: Option<&str>,
) -> Result<AutomatonId, String> {
    let of_property = property.and_then(|p| {
        let mut owners = spec.liveness.iter().filter(|l| l.name == p);
        match (owners.next(), owners.next()) {
            (Some(l), None) => Some(spec.automata[l.automaton.0 as usize].name.as_str()),
            _ => None,
        }
    });
    pick_automaton(spec, name.or(of_property), None)
}

fn names(spec: &Spec) -> String {
    spec.automata
        .iter()
        .map(|a| a.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// How many invariants the model declares of `automaton`.
pub fn invariant_count(spec: &Spec, automaton: AutomatonId) -> usize {
    spec.invariants
        .iter()
        .filter(|i| i.automaton == automaton)
        .count()
}

/// Parses `--param NAME=VALUE` for the automaton's parameters.
pub fn params(spec: &Spec, a: AutomatonId, given: &[String]) -> Result<Vec<Value>, String> {
    let aut = &spec.automata[a.0 as usize];
    let mut out = Vec::new();
    for p in &aut.params {
        let text = given
            .iter()
            .find_map(|g| {
                g.split_once('=')
                    .filter(|(n, _)| n.trim() == p.name)
                    .map(|(_, v)| v.trim().to_string())
            })
            .ok_or_else(|| {
                format!(
                    "automaton `{}` needs a value for its parameter `{}`: add `--param {}=VALUE`",
                    aut.name, p.name, p.name
                )
            })?;
        let expr = ioa_lang::parse::parse_expr(ioa_lang::span::FileId(u32::MAX), &text)
            .map_err(|_| format!("`{text}` is not a value"))?;
        let v = interpreter::universe::const_value(spec, &expr, &p.ty)
            .map_err(|(_, m)| format!("--param {}: {m}", p.name))?;
        out.push(v);
    }
    for g in given {
        let name = g.split_once('=').map(|(n, _)| n.trim()).unwrap_or(g);
        if !aut.params.iter().any(|p| p.name == name) {
            return Err(format!(
                "automaton `{}` has no parameter `{name}`",
                aut.name
            ));
        }
    }
    Ok(out)
}
