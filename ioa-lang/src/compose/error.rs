//! What flattening a composite cannot do, as data (codes E07xx); `ioa` renders them.

use crate::diagnostics::{Diagnostic, IntoDiagnostic};
use crate::span::Span;

/// Why a composite could not be turned into one primitive automaton.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FlattenError {
    /// A member of a family with several indices controls an action (output or internal) but
    /// its indices are not the values of the action's `const` parameters, so the flat
    /// transition would have to choose them (E0711; a one-index family's member is found by a
    /// loop).
    UnsolvedController {
        /// The action.
        action: String,
        /// The family.
        component: String,
        /// The component declaration.
        span: Span,
    },
    /// `hidden a(…) where …` hides only some instances of an action; a primitive automaton
    /// gives each action one kind (E0712).
    PartialHiding {
        /// The action.
        action: String,
        /// The `hidden` clause.
        span: Span,
    },
    /// A family with several indices takes an action as input without `const` parameters
    /// naming every index (E0713).
    UnsolvedMultiIndex {
        /// The action.
        action: String,
        /// The family.
        component: String,
        /// The component declaration.
        span: Span,
    },
}

impl IntoDiagnostic for FlattenError {
    fn to_diagnostic(&self) -> Diagnostic {
        match self {
            FlattenError::UnsolvedController {
                action,
                component,
                span,
            } => Diagnostic::error(
                "E0711",
                format!(
                    "cannot flatten: which member of `{component}` controls `{action}` is not \
                     given by the action's arguments"
                ),
                *span,
            )
            .with_note(
                "the prover works on the composite flattened into one automaton, where a family \
                 member's index is read off a `const` parameter that its automaton's signature \
                 sets to the index (`output send(const i, …)` in `P[i: Int]: Process(i, …)`)",
            )
            .with_hint(format!(
                "pass the index to the automaton and make it a `const` parameter of `{action}`"
            )),
            FlattenError::PartialHiding { action, span } => Diagnostic::error(
                "E0712",
                format!("cannot flatten: this clause hides only some instances of `{action}`"),
                *span,
            )
            .with_note("a primitive automaton gives every instance of an action the same kind")
            .with_hint(format!(
                "hide `{action}` as a whole, or give the hidden instances an action of their own"
            )),
            FlattenError::UnsolvedMultiIndex {
                action,
                component,
                span,
            } => Diagnostic::error(
                "E0713",
                format!(
                    "cannot flatten: the members of `{component}` that take `{action}` are not \
                     given by the action's arguments"
                ),
                *span,
            )
            .with_note(
                "a family with several indices takes part in a flat step only when `const` \
                 parameters of the action name every index",
            )
            .with_hint("index the family by one value (a tuple), or pass the indices as `const` parameters"),
        }
    }
}
