//! Why a type cannot be declared symmetric: [`SymmetryError`] (codes E09xx) and its
//! diagnostics. Kept apart from the checks that find these errors (`model_check.rs`) so that
//! the error data and its rendering are in one place.

use interpreter::error::RunError;
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic, Severity};
use ioa_lang::span::Span;

/// Why a type cannot be used for symmetry reduction (codes E09xx).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SymmetryError {
    /// E0901: no declared type has this name.
    UnknownType {
        /// The name given.
        name: String,
    },
    /// E0902: the type is not a declared tuple or enumeration type.
    NotPermutable {
        /// The name given.
        name: String,
        /// Its declaration.
        span: Span,
    },
    /// E0903: the type has no finite carrier.
    Unbounded {
        /// The name given.
        name: String,
        /// The error the universe gave.
        error: RunError,
    },
    /// E0904: the model singles out values of the type, so permuting them is not a symmetry.
    Breaks {
        /// The type.
        name: String,
        /// Where.
        span: Span,
        /// How.
        how: Break,
    },
    /// E0905: the universe's candidates for an action parameter are not closed under
    /// permutations of the type.
    CandidatesNotClosed {
        /// The type.
        name: String,
        /// The action.
        action: String,
        /// The parameter.
        param: String,
    },
    /// E0906: a type refers to itself through the symmetric type's occurrences.
    Recursive {
        /// The recursive type.
        name: String,
    },
}

/// How a model singles out values of a symmetric type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Break {
    /// A literal value of the type.
    Literal,
    /// Reading a field of a value of the type.
    Field,
    /// An automaton parameter or component index of (or containing) the type.
    Parameter,
    /// A family indexed by the type without one member per value, each a primitive
    /// automaton (see `family.rs`).
    Family,
}

impl IntoDiagnostic for SymmetryError {
    fn to_diagnostic(&self) -> Diagnostic {
        let plain = |code, message: String, hint: &str| Diagnostic {
            code,
            severity: Severity::Error,
            message,
            labels: vec![],
            notes: vec![],
            hint: (!hint.is_empty()).then(|| hint.to_string()),
        };
        match self {
            SymmetryError::UnknownType { name } => plain(
                "E0901",
                format!("`--symmetric {name}`: the model declares no type `{name}`"),
                "name a declared tuple or enumeration type, such as `Node`",
            ),
            SymmetryError::NotPermutable { name, span } => Diagnostic::error(
                "E0902",
                format!("`--symmetric {name}`: only tuple and enumeration types can be symmetric"),
                *span,
            )
            .with_label_message("declared here"),
            SymmetryError::Unbounded { name, error } => {
                let mut d = error.to_diagnostic();
                d.message = format!("`--symmetric {name}`: {}", d.message);
                d
            }
            SymmetryError::Breaks { name, span, how } => {
                let (what, label) = match how {
                    Break::Literal => ("names a particular value", "a literal of the type"),
                    Break::Field => (
                        "reads the fields of its values",
                        "this reads a field, which can tell values apart",
                    ),
                    Break::Parameter => (
                        "has a parameter or component index of the type",
                        "a parameter of the type",
                    ),
                    Break::Family => (
                        "has a family indexed by the type that does not have one member per value, each a primitive automaton",
                        "permuting the type would move members that do not exist, or composites",
                    ),
                };
                Diagnostic::error(
                    "E0904",
                    format!("`{name}` is not symmetric: the model {what}"),
                    *span,
                )
                .with_label_message(label)
                .with_hint(format!(
                    "explore without `--symmetric {name}`, or write the model so that it treats all `{name}` values alike"
                ))
            }
            SymmetryError::CandidatesNotClosed {
                name,
                action,
                param,
            } => plain(
                "E0905",
                format!(
                    "`{name}` is not symmetric: the universe's candidates for `{action}.{param}` are not closed under permutations of `{name}`"
                ),
                "list every permutation of each candidate, or explore without --symmetric",
            ),
            SymmetryError::Recursive { name } => plain(
                "E0906",
                format!("type `{name}` is recursive; symmetry reduction does not support it"),
                "",
            ),
        }
    }
}
