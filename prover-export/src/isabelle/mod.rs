//! The Isabelle/HOL export: a checked model as a directory of theories and a `ROOT` file.
//!
//! The parts, one job each: [`names`] (identifiers and escaping), [`types`] (types and the
//! types theory), [`expr`] (terms), [`effect`] and [`loops`] (effects as state terms and
//! relations), [`automaton`] (one automaton's theory), [`invariants`] (its invariants' theory),
//! [`simulation`] and [`proof`] (a forward simulation's theory and step proofs), [`base`] (the
//! fixed `IOA_Base` theory and `ROOT`), [`error`] (what can stop the export, as data).
//!
//! Nothing here does I/O: [`export`] returns file names and contents; `ioa export isabelle`
//! writes them.

pub mod automaton;
pub mod base;
pub mod effect;
pub mod error;
pub mod expr;
pub mod hints;
pub mod instances;
pub mod invariants;
pub mod loops;
pub mod names;
pub mod proof;
pub mod simulation;
pub mod types;

use automaton::{automaton_theory, AutomatonInfo};
use error::ExportError;
use ioa_lang::ir::{AutomatonBody, AutomatonId, Spec, TypeDefKind};
use names::TypeNames;

/// What to export.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Only this automaton (and its invariants).
    pub automaton: Option<String>,
    /// Only this simulation (and its two automata).
    pub simulation: Option<String>,
    /// Names the types theory and the session (usually the model file's stem).
    pub stem: String,
    /// What Z3 needed for each invariant step (empty: every leaf unfolds all invariants).
    pub hints: hints::Hints,
    /// State every claim, also those Z3 does not prove (their lemmas are then expected to fail
    /// in Isabelle): for checking that Isabelle rejects a wrong claim rather than trusting Z3.
    pub state_unproved: bool,
}

/// The files of an export.
#[derive(Debug, Clone)]
pub struct Export {
    /// File name (in the output directory) and contents, in dependency order, `ROOT` last.
    pub files: Vec<(String, String)>,
    /// Parts of the model that were skipped (composite automata), as warnings.
    pub warnings: Vec<ExportError>,
    /// The session name in `ROOT`.
    pub session: String,
}

fn uses_multiset(spec: &Spec) -> bool {
    let mut tys = Vec::new();
    for t in &spec.types {
        match &t.kind {
            TypeDefKind::Tuple(f) | TypeDefKind::Union(f) => tys.extend(f.iter().map(|(_, t)| t)),
            TypeDefKind::Enumeration(_) => {}
        }
    }
    for a in &spec.automata {
        tys.extend(
            a.actions
                .iter()
                .flat_map(|x| x.params.iter().map(|p| &p.ty)),
        );
        if let AutomatonBody::Primitive(p) = &a.body {
            tys.extend(p.state.iter().map(|v| &v.ty));
        }
    }
    tys.iter().any(|t| types::uses_multiset(t))
}

/// Exports the selected part of `spec`.
pub fn export(spec: &Spec, selection: &Selection) -> Result<Export, Vec<ExportError>> {
    let find_automaton = |name: &str| {
        spec.automata
            .iter()
            .position(|a| a.name == name)
            .map(|i| AutomatonId(i as u32))
            .ok_or_else(|| ExportError::NotFound {
                what: "automaton",
                name: name.to_string(),
                available: spec.automata.iter().map(|a| a.name.clone()).collect(),
            })
    };
    // Which automata (requested by name or not) and simulations.
    let mut wanted: Vec<(AutomatonId, bool)> = Vec::new();
    let mut sims = Vec::new();
    let mut errors = Vec::new();
    if let Some(name) = &selection.simulation {
        match spec.simulations.iter().find(|s| &s.name == name) {
            Some(s) => {
                wanted.push((s.from, true));
                wanted.push((s.to, true));
                sims.push(s);
            }
            None => errors.push(ExportError::NotFound {
                what: "simulation",
                name: name.clone(),
                available: spec.simulations.iter().map(|s| s.name.clone()).collect(),
            }),
        }
    }
    if let Some(name) = &selection.automaton {
        match find_automaton(name) {
            Ok(id) => wanted.push((id, true)),
            Err(e) => errors.push(e),
        }
    }
    if selection.automaton.is_none() && selection.simulation.is_none() {
        wanted.extend((0..spec.automata.len() as u32).map(|i| (AutomatonId(i), false)));
        let primitive = |id: AutomatonId| {
            matches!(
                spec.automata[id.0 as usize].body,
                AutomatonBody::Primitive(_)
            )
        };
        sims.extend(
            spec.simulations
                .iter()
                .filter(|s| primitive(s.from) && primitive(s.to)),
        );
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut seen = Vec::new();
    wanted.retain(|(id, _)| {
        let fresh = !seen.contains(id);
        seen.push(*id);
        fresh
    });

    let types = TypeNames::new(spec);
    let stem = names::part(&selection.stem);
    let types_theory = format!("{stem}_Types");
    let multiset = uses_multiset(spec);
    let mut files = vec![("IOA_Base.thy".to_string(), base::BASE_THEORY.to_string())];
    let mut theories = vec!["IOA_Base".to_string()];
    let imports = if multiset {
        "IOA_Base \"HOL-Library.Multiset\""
    } else {
        "IOA_Base"
    };
    files.push((
        format!("{types_theory}.thy"),
        format!(
            "theory {types_theory}\n  imports {imports}\nbegin\n\n{}end\n",
            types::type_declarations(&types)
        ),
    ));
    theories.push(types_theory.clone());

    let mut warnings = Vec::new();
    let mut infos: Vec<(AutomatonInfo, bool)> = Vec::new();
    for (id, requested) in wanted {
        let aut = &spec.automata[id.0 as usize];
        let AutomatonBody::Primitive(prim) = &aut.body else {
            let e = ExportError::Composite {
                name: aut.name.clone(),
                span: aut.span,
                requested,
            };
            if requested {
                errors.push(e);
            } else {
                warnings.push(e);
            }
            continue;
        };
        match automaton_theory(spec, &types, id, prim, &types_theory) {
            Ok((text, info)) => {
                files.push((format!("{}.thy", info.names.theory()), text));
                theories.push(info.names.theory());
                match invariants::invariants_theory(spec, &types, &info, &selection.hints) {
                    Ok(Some(text)) => {
                        files.push((format!("{}.thy", info.names.invariants_theory()), text));
                        theories.push(info.names.invariants_theory());
                        infos.push((info, true));
                    }
                    Ok(None) => infos.push((info, false)),
                    Err(e) => errors.push(e),
                }
            }
            Err(e) => errors.push(e),
        }
    }
    for sim in sims {
        let a = infos.iter().find(|(i, _)| i.id == sim.from);
        let b = infos.iter().find(|(i, _)| i.id == sim.to);
        let (Some((a, a_invs)), Some((b, _))) = (a, b) else {
            continue; // an automaton failed to export; its error is already reported
        };
        match simulation::simulation_theory(spec, &types, sim, a, b, *a_invs, &selection.hints) {
            Ok(text) => {
                let name = names::theory(&sim.name);
                files.push((format!("{name}.thy"), text));
                theories.push(name);
            }
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let session = format!("IOA_{stem}");
    files.push((
        "ROOT".to_string(),
        base::root(&session, &theories, multiset),
    ));
    Ok(Export {
        files,
        warnings,
        session,
    })
}
