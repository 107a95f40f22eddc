//! What can stop the Isabelle export, as data (codes E12xx); `IntoDiagnostic` renders it.

use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic, Label, Severity};
use ioa_lang::span::Span;

/// An IOA construct the export has no HOL translation for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Construct {
    /// `while … do … od` in an effect.
    While,
    /// A `choose` that is not part of an effect statement (for instance in a precondition).
    ChooseOutsideEffect,
    /// A `choose` inside a loop body.
    ChooseInLoop,
    /// A `choose` whose condition contains another `choose`.
    NestedChoose,
    /// An assignment to a tuple's field inside a loop.
    FieldInLoop,
    /// A loop assigning inside an entry of a map or sequence.
    LoopIntoMapOrSequence,
    /// A loop over a multiset or sequence.
    LoopOverCollection,
    /// A component's state variable (`P[i].x`); only primitive automata are exported.
    ComponentVariable,
    /// A parameter of an automaton read in a simulation (`A.n`).
    QualifiedParameter,
    /// A proof block's or schedule's auxiliary variable.
    AuxiliaryVariable,
    /// A statement that only schedules and proof blocks contain (fire, ignore, yield) inside an
    /// effect.
    ScheduleStatement,
    /// A loop or assignment inside a proof block entry.
    ProofBlockStatement,
    /// A `fire` of an action of an automaton other than the simulation's specification.
    FireOfOtherAutomaton,
    /// An assignment of the `start` block that is not `B.x := value`.
    StartStatement,
    /// An assignment to a place that is not rooted in a state variable.
    AssignToNonState,
    /// An effect's `ensuring` clause (checked at run time only).
    Ensuring,
}

impl Construct {
    fn describe(&self) -> &'static str {
        match self {
            Construct::While => "`while` loops",
            Construct::Ensuring => "`ensuring` clauses on effects (checked at run time only)",
            Construct::ChooseOutsideEffect => "`choose` outside an effect statement",
            Construct::ChooseInLoop => "`choose` inside a loop",
            Construct::NestedChoose => "a `choose` inside the condition of another `choose`",
            Construct::FieldInLoop => "assignments to a tuple's field inside a loop",
            Construct::LoopIntoMapOrSequence => {
                "loops that assign inside an entry of a map or sequence"
            }
            Construct::LoopOverCollection => "loops over multisets and sequences",
            Construct::ComponentVariable => "state variables of components (`P[i].x`)",
            Construct::QualifiedParameter => "parameters of automata in simulations (`A.n`)",
            Construct::AuxiliaryVariable => "auxiliary variables of proof blocks",
            Construct::ScheduleStatement => "`fire`, `ignore` and `yield` inside an effect",
            Construct::ProofBlockStatement => "loops and assignments inside proof block entries",
            Construct::FireOfOtherAutomaton => {
                "firing actions of an automaton other than the specification"
            }
            Construct::StartStatement => "start blocks other than plain assignments `B.x := value`",
            Construct::AssignToNonState => "assignments to places other than state variables",
        }
    }

    fn hint(&self) -> &'static str {
        match self {
            Construct::While => "rewrite the loop as `for x in S do … od` with independent iterations",
            Construct::Ensuring => "state the property as an invariant, or drop the clause for the export",
            Construct::ChooseOutsideEffect
            | Construct::ChooseInLoop
            | Construct::NestedChoose => {
                "assign the chosen value to a state variable in a statement of its own, or state the choice as an existential in the precondition"
            }
            Construct::LoopOverCollection => {
                "loop over a set (`for x: T in S` with `S` a set, or `for x: T where P`), with a body of assignments that do not depend on each other"
            }
            Construct::FieldInLoop => "assign the whole tuple, `X[x] := [e1, e2]`, at the loop variable x",
            Construct::LoopIntoMapOrSequence => {
                "use an array indexed by the loop variable (`X[x] := e`) or a set (`X := insert(e, X)`)"
            }
            Construct::ComponentVariable => {
                "export the component automata one at a time with --automaton"
            }
            Construct::AuxiliaryVariable
            | Construct::QualifiedParameter
            | Construct::ProofBlockStatement
            | Construct::FireOfOtherAutomaton
            | Construct::StartStatement => {
                "use `ioa pair` to test this simulation; the Isabelle export handles proof blocks of nested if/elseif/else, fire and ignore"
            }
            Construct::ScheduleStatement | Construct::AssignToNonState => {
                "effects may assign only state variables"
            }
        }
    }
}

pub use crate::loop_nest::LoopProblem;

/// An error (or, for skipped automata, a warning) of the Isabelle export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportError {
    /// A construct the export does not translate (E1201).
    Unsupported {
        /// What.
        construct: Construct,
        /// Where.
        span: Span,
    },
    /// A `for` loop whose iterations may depend on their order (E1202).
    OrderDependentLoop {
        /// Why.
        problem: LoopProblem,
        /// The loop.
        span: Span,
        /// The offending statement.
        at: Span,
    },
    /// A composite automaton, which the export does not translate (E1203). A warning when it
    /// was only part of the model, an error when asked for by name.
    Composite {
        /// Its name.
        name: String,
        /// Its declaration.
        span: Span,
        /// Whether the user asked for it (error) or it was skipped (warning).
        requested: bool,
    },
    /// `--automaton` or `--simulation` names nothing in the model (E1204).
    NotFound {
        /// `automaton` or `simulation`.
        what: &'static str,
        /// The name given.
        name: String,
        /// The names there are.
        available: Vec<String>,
    },
    /// A specification variable that the `start` block leaves unset and that has no initial
    /// value (E1205).
    StartUnset {
        /// The variable.
        var: String,
        /// The simulation.
        span: Span,
    },
    /// An external action of both automata whose parameter types differ (E1206).
    ExternalMismatch {
        /// The action.
        action: String,
        /// The simulation.
        span: Span,
    },
}

impl IntoDiagnostic for ExportError {
    fn to_diagnostic(&self) -> Diagnostic {
        match self {
            ExportError::Unsupported { construct, span } => Diagnostic::error(
                "E1201",
                format!(
                    "the Isabelle export does not support {}",
                    construct.describe()
                ),
                *span,
            )
            .with_label_message("not translated")
            .with_hint(construct.hint()),
            ExportError::OrderDependentLoop { problem, span, at } => Diagnostic::error(
                "E1202",
                format!(
                    "this loop's iterations may depend on their order: {}",
                    problem.reason()
                ),
                *span,
            )
            .with_label_message("the loop")
            .with_secondary(*at, problem.label())
            .with_note("the export turns a loop into one simultaneous update, which is only right when no iteration sees another's writes")
            .with_hint(problem.hint()),
            ExportError::Composite {
                name,
                span,
                requested,
            } => {
                let message = format!("composite automaton `{name}` is not exported to Isabelle");
                let d = if *requested {
                    Diagnostic::error("E1203", message, *span)
                } else {
                    Diagnostic::warning("E1203", message, *span)
                };
                d.with_note("its invariants and the simulations it takes part in are skipped as well")
                    .with_hint("export its component automata one at a time with --automaton")
            }
            ExportError::NotFound {
                what,
                name,
                available,
            } => Diagnostic {
                code: "E1204",
                severity: Severity::Error,
                message: format!("no {what} named `{name}` in the model"),
                labels: Vec::<Label>::new(),
                notes: vec![if available.is_empty() {
                    format!("the model declares no {what}")
                } else {
                    format!("the model declares: {}", available.join(", "))
                }],
                hint: Some(format!("give one of the declared names to --{what}")),
            },
            ExportError::StartUnset { var, span } => Diagnostic::error(
                "E1205",
                format!("the start block leaves `{var}` unset, and it has no initial value"),
                *span,
            )
            .with_hint(format!("assign `{var}` in the proof block's start section")),
            ExportError::ExternalMismatch { action, span } => Diagnostic::error(
                "E1206",
                format!("external action `{action}` has different parameter types in the two automata"),
                *span,
            )
            .with_hint("external actions of the implementation and the specification must agree to compare traces"),
        }
    }
}
