//! Why an obligation could not be generated: constructs the encoding does not support, and loops
//! whose iterations depend on each other. Errors are data; `ioa` renders them.

pub use crate::loop_nest::LoopProblem;
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use ioa_lang::span::Span;

/// An error while turning the model into proof obligations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodeError {
    /// A construct the SMT encoding has no translation for.
    Unsupported {
        /// What the construct is.
        what: &'static str,
        /// Where it is.
        span: Span,
    },
    /// A `for` loop whose iterations may read what others write, or write the same place.
    OrderDependentLoop {
        /// Why.
        problem: LoopProblem,
        /// The loop.
        span: Span,
        /// The statement or expression at fault.
        at: Span,
    },
    /// A name given on the command line or in `using` that is not declared.
    UnknownName {
        /// What kind of thing was looked up.
        what: &'static str,
        /// The name.
        name: String,
        /// Where the lookup was made (the simulation or invariant).
        span: Span,
    },
}

impl IntoDiagnostic for EncodeError {
    fn to_diagnostic(&self) -> Diagnostic {
        match self {
            EncodeError::Unsupported { what, span } => Diagnostic::error(
                "E0601",
                format!("the prover cannot encode {what}"),
                *span,
            )
            .with_hint("rewrite it with sets, arrays, tuples and quantifiers, or check this part by `ioa run`/`ioa explore`"),
            EncodeError::OrderDependentLoop { problem, span, at } => Diagnostic::error(
                "E0602",
                format!(
                    "the iterations of this loop may depend on each other: {}",
                    problem.reason()
                ),
                *span,
            )
            .with_label_message("the loop")
            .with_secondary(*at, problem.label())
            .with_note("the prover turns a loop into one simultaneous update, which is only right when no iteration sees what another writes")
            .with_hint(problem.hint()),
            EncodeError::UnknownName { what, name, span } => Diagnostic::error(
                "E0603",
                format!("no {what} named `{name}`"),
                *span,
            ),
        }
    }
}
