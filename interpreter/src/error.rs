//! Run-time errors, as data, with their diagnostics (codes E05xx).

use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use ioa_lang::span::Span;

/// Something that went wrong while evaluating or executing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError {
    /// E0501: integer overflow.
    Overflow {
        /// The operation.
        span: Span,
    },
    /// E0502: a negative value for a `Nat`.
    NegativeNat {
        /// The assignment or binding.
        span: Span,
        /// The value.
        value: i64,
    },
    /// E0503: division or remainder by zero.
    DivisionByZero {
        /// The operation.
        span: Span,
    },
    /// E0504: `.val` of `nil`, `head` of an empty sequence, a payload of the wrong union tag,
    /// `min` of an empty set, or a missing map key.
    Undefined {
        /// The expression.
        span: Span,
        /// What was undefined.
        what: &'static str,
    },
    /// E0505: a quantifier, `choose`, loop or parameter over a type with no finite carrier.
    Unbounded {
        /// The binder.
        span: Span,
        /// The type.
        ty: String,
    },
    /// E0506: a `choose` with no value satisfying its condition.
    EmptyChoice {
        /// The `choose`.
        span: Span,
    },
    /// E0507: a `choose` that nothing resolved while running a schedule.
    UnresolvedChoice {
        /// The `choose`.
        span: Span,
    },
    /// E0508: a `det` value that does not satisfy the `choose`'s condition.
    BadYield {
        /// The `choose`.
        span: Span,
        /// The value yielded.
        value: String,
    },
    /// E0509: a schedule that ran past its limit of steps and loop iterations (`--steps`).
    LoopLimit {
        /// The loop.
        span: Span,
        /// The limit.
        limit: u64,
    },
    /// E0516: an effect that left its `ensuring` predicate false.
    EnsuringFailed {
        /// The predicate.
        span: Span,
    },
    /// E0514: a component family bounded only by its `where` clause with too many members.
    FamilyTooLarge {
        /// The component declaration.
        span: Span,
        /// The lowest index the clause allows.
        low: i64,
        /// The highest.
        high: i64,
    },
    /// E0515: a read of `P[i].x` where the family `P` has no member `i`.
    NoSuchMember {
        /// The read.
        span: Span,
        /// The member, as written with its index values (`P[5]`).
        member: String,
    },
    /// E0517: an action instance that two signature entries of different kinds accept (the
    /// manual requires the input, output and internal actions to be disjoint).
    KindsOverlap {
        /// The instance, as a log line would show it (`send(1, 1)`).
        instance: String,
        /// The instance of the automaton (`Node[1]`, or the automaton's name).
        automaton: String,
        /// The entry that accepted it first.
        first: Span,
        /// The other entry.
        second: Span,
    },
}

impl IntoDiagnostic for RunError {
    fn to_diagnostic(&self) -> Diagnostic {
        match self {
            RunError::Overflow { span } => Diagnostic::error("E0501", "integer overflow", *span)
                .with_label_message("the result does not fit in 64 bits")
                .with_hint("integers are 64-bit; bound the values your schedule or universe uses"),
            RunError::NegativeNat { span, value } => {
                Diagnostic::error("E0502", format!("a `Nat` cannot be negative (got {value})"), *span)
            }
            RunError::EnsuringFailed { span } => Diagnostic::error("E0516", "the effect does not ensure its `ensuring` predicate", *span)
                .with_label_message("false after the effect ran")
                .with_hint("in `ensuring`, plain names are the pre-state and primed names (`x'`) the post-state"),
            RunError::DivisionByZero { span } => Diagnostic::error("E0503", "division by zero", *span),
            RunError::Undefined { span, what } => Diagnostic::error("E0504", format!("undefined value: {what}"), *span)
                .with_hint("guard the expression, e.g. `x ≠ nil ⇒ x.val …` (∧, ∨ and ⇒ evaluate left to right and stop early)"),
            RunError::Unbounded { span, ty } => Diagnostic::error("E0505", format!("cannot range over type `{ty}`: it has no finite universe"), *span)
                .with_label_message("this ranges over every value of the type")
                .with_hint(format!("give `{ty}` a universe (`--universe '{ty} = …'` or a universe file), or bound the variable with a guard such as `x ∈ S ∧ …`")),
            RunError::EmptyChoice { span } => Diagnostic::error("E0506", "no value satisfies this `choose`", *span),
            RunError::UnresolvedChoice { span } => Diagnostic::error("E0507", "this `choose` was not resolved", *span)
                .with_hint("in a schedule, resolve it with `fire … det do yield VALUE od`"),
            RunError::BadYield { span, value } => Diagnostic::error("E0508", format!("the value `{value}` yielded by `det` does not satisfy this `choose`"), *span),
            RunError::FamilyTooLarge { span, low, high } => Diagnostic::error("E0514", format!("this component family would have {} members ({low} ..= {high})", (*high as i128) - (*low as i128) + 1), *span)
                .with_hint("bound the index more tightly in the `where` clause, or give its type a universe"),
            RunError::NoSuchMember { span, member } => Diagnostic::error("E0515", format!("there is no component `{member}`"), *span)
                .with_label_message("this reads a member outside the family")
                .with_hint("the family's `where` clause (or the index type's universe) decides which members exist; guard the read, e.g. `0 ≤ i ∧ i < n ⇒ P[i].x …`"),
            RunError::KindsOverlap { instance, automaton, first, second } => Diagnostic::error(
                "E0517",
                format!("`{instance}` of {automaton} is accepted by two signature entries of different kinds"),
                *second,
            )
            .with_secondary(*first, "this entry accepts it too")
            .with_note("the IOA manual requires an automaton's input, output and internal actions to be disjoint sets")
            .with_hint("make the entries' `where` clauses exclude each other"),
            RunError::LoopLimit { span, limit } => Diagnostic::error("E0509", format!("the schedule used up its limit of {limit} steps and loop iterations"), *span)
                .with_label_message("the limit was reached here")
                .with_hint("raise the limit with --steps, or check the loop condition"),
        }
    }
}

/// Evaluation results.
pub type EvalResult<T> = Result<T, RunError>;
