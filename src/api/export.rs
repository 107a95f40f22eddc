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
