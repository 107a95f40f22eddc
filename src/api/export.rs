//! Exporting a model for other tools: what the Isabelle/HOL theories cannot state yet, found
//! before the exporter runs. The exporters are `prover-export`'s.

use ioa_lang::diagnostics::Diagnostic;

/// The IOA manual's constructs that the theories cannot state yet (E1201, as the exporter's own
/// unsupported constructs): the types `Char` and `Real`, and an action that is an input for
/// some parameters and an output for others (one HOL action constructor per name).
pub fn beyond_hol(spec: &ioa_lang::ir::Spec) -> Vec<Diagnostic> {
    use ioa_lang::ir::{AutomatonBody, Type};
    fn mentions(t: &Type) -> Option<&'static str> {
        match t {
            Type::Char => Some("the type `Char`"),
            Type::Real => Some("the type `Real`"),
            Type::Set(e) | Type::Mset(e) | Type::Seq(e) | Type::Null(e) => mentions(e),
            Type::Array(k, v) | Type::Map(k, v) => mentions(k).or_else(|| mentions(v)),
            _ => None,
        }
    }
    let unsupported = |what: &str, span| {
        Diagnostic::error(
            "E1201",
            format!("the Isabelle export does not support {what}"),
            span,
        )
        .with_label_message("not translated")
        .with_hint("check this model with `ioa prove` (Z3) or `ioa explore` instead")
    };
    let mut out = Vec::new();
    for t in &spec.types {
        let fields = match &t.kind {
            ioa_lang::ir::TypeDefKind::Tuple(fs) | ioa_lang::ir::TypeDefKind::Union(fs) => fs,
            ioa_lang::ir::TypeDefKind::Enumeration(_) => continue,
        };
        if let Some(what) = fields.iter().find_map(|(_, ty)| mentions(ty)) {
            out.push(unsupported(what, t.span));
        }
    }
    for a in &spec.automata {
        let mut vars: Vec<&ioa_lang::ir::VarDecl> = a.params.iter().collect();
        if let AutomatonBody::Primitive(p) = &a.body {
            vars.extend(&p.state);
        }
        for v in vars {
            if let Some(what) = mentions(&v.ty) {
                out.push(unsupported(what, v.span));
            }
        }
        for (k, act) in a.actions.iter().enumerate() {
            if let Some(what) = act.params.iter().find_map(|p| mentions(&p.ty)) {
                out.push(unsupported(what, act.span));
            } else if a.actions[..k].iter().any(|x| x.name == act.name) {
                out.push(unsupported(
                    "an action that is an input for some parameters and an output (or internal) for others",
                    act.span,
                ));
            }
        }
    }
    out
}

/// Z3 resource units per obligation when the Isabelle export asks for unsat cores.
const HINT_RLIMIT: u64 = 300_000;

/// Exports `spec` as Isabelle/HOL theories, with the leaves shaped by Z3's unsat cores (unless
/// the selection brings its hints); the errors (what the theories cannot state, and the
/// translation's errors) come back as diagnostics.
pub fn isabelle(
    spec: &ioa_lang::ir::Spec,
    selection: &prover_export::isabelle::Selection,
    recheck_rlimit: u64,
) -> Result<prover_export::isabelle::Export, Vec<Diagnostic>> {
    use ioa_lang::diagnostics::IntoDiagnostic;
    use prover_export::isabelle::export;
    fn to_diagnostics<E: IntoDiagnostic>(errors: Vec<E>) -> Vec<Diagnostic> {
        errors.iter().map(|e| e.to_diagnostic()).collect()
    }
    // Checked first: the exporter has no translation of these types to fall back on.
    let blocked = beyond_hol(spec);
    if !blocked.is_empty() {
        return Err(blocked);
    }
    // A translation error does not depend on what Z3 answers: found before asking it (the
    // hints take seconds to minutes on a large model).
    export(spec, selection).map_err(to_diagnostics)?;
    // What Z3 needed for each invariant step (its unsat cores) shapes the Isabelle leaves.
    // A small budget (most proofs take under 20 000 units): an obligation Z3 does not
    // settle within it gets every assumed invariant in its leaf, so the export stays quick.
    // A recheck budget below it lowers it too (a quick export that states less).
    let budget = prover_export::solve::budget::Budget::new(
        HINT_RLIMIT.min(recheck_rlimit),
        std::time::Duration::from_secs(10),
    );
    let mut selection = selection.clone();
    if selection.hints.is_empty() {
        selection.hints =
            prover_export::isabelle::hints::Hints::from_z3(spec, &budget, recheck_rlimit);
    }
    if selection.state_unproved {
        selection.hints.state_every_claim();
    }
    export(spec, &selection).map_err(to_diagnostics)
}
