//! The type checker's errors, as data, and their diagnostics. Type names are carried already
//! printed (the checker knows the declared names; this module does not).

use crate::diagnostics::{Diagnostic, IntoDiagnostic};
use crate::span::Span;

/// An error found by name resolution or type checking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckError {
    /// E0101: a name that is not declared in scope.
    UndefinedName {
        /// The name.
        name: String,
        /// Where it is used.
        span: Span,
        /// A similar name that is in scope.
        suggestion: Option<String>,
    },
    /// E0102: a type name that is not declared.
    UndefinedType {
        /// The name.
        name: String,
        /// Where it is used.
        span: Span,
        /// A similar declared type.
        suggestion: Option<String>,
    },
    /// E0103: an automaton name that is not declared.
    UndefinedAutomaton {
        /// The name.
        name: String,
        /// Where it is used.
        span: Span,
        /// A similar automaton name.
        suggestion: Option<String>,
    },
    /// E0104: an action the automaton does not have.
    UndefinedAction {
        /// The action name.
        name: String,
        /// The automaton searched.
        automaton: String,
        /// Where it is used.
        span: Span,
        /// A similar action.
        suggestion: Option<String>,
    },
    /// E0105: a field the type does not have.
    NoSuchField {
        /// The type.
        ty: String,
        /// The field asked for.
        field: String,
        /// Where.
        span: Span,
        /// The fields the type has.
        fields: Vec<String>,
    },
    /// E0106: a function that is neither built in nor a union tag.
    UnknownFunction {
        /// The name.
        name: String,
        /// Where.
        span: Span,
        /// A similar built-in.
        suggestion: Option<String>,
    },
    /// E0107: a name declared twice in the same scope.
    Duplicate {
        /// What kind of thing (type, state variable, …).
        what: &'static str,
        /// The name.
        name: String,
        /// The second declaration.
        span: Span,
        /// The first declaration.
        previous: Span,
    },
    /// E0108: a type (or composition) defined in terms of itself.
    RecursiveType {
        /// "type" or "automaton".
        what: &'static str,
        /// The type or automaton.
        name: String,
        /// Its declaration.
        span: Span,
    },
    /// E0109: an automaton name used where no automaton's state can be read.
    QualifierNotAllowed {
        /// The automaton or component name.
        name: String,
        /// Where.
        span: Span,
    },
    /// E0201: the wrong number of arguments.
    WrongArity {
        /// What was applied (e.g. "action `init`").
        what: String,
        /// How many it takes.
        expected: usize,
        /// How many were given.
        found: usize,
        /// The application.
        span: Span,
    },
    /// E0202: the wrong number of type arguments.
    WrongTypeArity {
        /// The type constructor.
        name: String,
        /// How many it takes.
        expected: usize,
        /// How many were given.
        found: usize,
        /// The type expression.
        span: Span,
    },
    /// E0301: an expression of one type where another is needed.
    Mismatch {
        /// The type needed.
        expected: String,
        /// The type found.
        found: String,
        /// The expression.
        span: Span,
        /// What imposed the expected type, if it is elsewhere.
        because: Option<(Span, String)>,
    },
    /// E0302: an operator applied to a type it does not work on.
    BadOperand {
        /// The operator or function.
        op: String,
        /// The operand's type.
        ty: String,
        /// What the operator needs.
        needs: &'static str,
        /// The operand.
        span: Span,
    },
    /// E0303: a literal whose type nothing determines.
    CannotInfer {
        /// What kind of literal.
        what: &'static str,
        /// The literal.
        span: Span,
    },
    /// E0110: two signature entries of one action with different kinds that nothing
    /// tells apart (no `where` clause, no `const` parameter), or with different parameters.
    KindsOverlap {
        /// The action.
        action: String,
        /// The later entry.
        span: Span,
        /// The earlier entry.
        previous: Span,
        /// Its kind and the earlier entry's.
        kinds: (&'static str, &'static str),
        /// Whether the parameters differ (rather than the entries overlapping).
        params_differ: bool,
    },
    /// E0305: an enumeration constant several enumerations declare, where the types cannot
    /// tell which is meant.
    AmbiguousConstant {
        /// The constant.
        name: String,
        /// The enumerations that declare it.
        types: Vec<String>,
        /// The use.
        span: Span,
    },
    /// E0304: indexing a value that is not an array, map or sequence.
    NotIndexable {
        /// Its type.
        ty: String,
        /// The indexed expression.
        span: Span,
    },
    /// E0401: assignment to something that is not a variable of the right kind.
    AssignToNonState {
        /// The name.
        name: String,
        /// What it is (parameter, bound variable, …).
        what: &'static str,
        /// The assignment target.
        span: Span,
    },
    /// E0402: a precondition on an input action.
    PreOnInput {
        /// The action.
        action: String,
        /// The precondition.
        span: Span,
    },
    /// E0403: an action used with a different kind than declared.
    KindMismatch {
        /// The action.
        action: String,
        /// The declared kind.
        declared: &'static str,
        /// The kind written.
        used: &'static str,
        /// Where.
        span: Span,
    },
    /// E0405: a declared action with no transition.
    MissingTransition {
        /// The action.
        action: String,
        /// Its signature entry.
        span: Span,
    },
    /// E0406: two transitions for one action with the same `case` label.
    DuplicateTransition {
        /// The action.
        action: String,
        /// The second transition.
        span: Span,
        /// The first one.
        previous: Span,
    },
    /// E0407: a statement of a kind not allowed in this block.
    StatementNotAllowed {
        /// The statement keyword.
        stmt: &'static str,
        /// The block.
        place: &'static str,
        /// The statement.
        span: Span,
    },
    /// E0408: a proof block without an entry for an implementation action.
    MissingProofEntry {
        /// The action.
        action: String,
        /// The proof block's simulation.
        span: Span,
    },
    /// E0409: a schedule that does not say which automaton it drives.
    ScheduleWithoutTarget {
        /// The schedule.
        span: Span,
    },
    /// E0410: a `start` assignment to something other than a specification state variable.
    BadStartTarget {
        /// The specification automaton.
        spec: String,
        /// Whether it is a composite (whose state is its components').
        composite: bool,
        /// The target.
        span: Span,
    },
    /// E0411: components that declare the same action with different parameter types.
    ComponentActionConflict {
        /// The action.
        action: String,
        /// The later component.
        span: Span,
        /// The earlier declaration's parameter types.
        first: String,
        /// This declaration's parameter types.
        second: String,
    },
    /// E0413: an unqualified state variable in a simulation.
    Unqualified {
        /// The name.
        name: String,
        /// The automaton it belongs to.
        automaton: String,
        /// Where.
        span: Span,
    },
    /// E0414: a state variable read in a state variable's initial value.
    StateInInitializer {
        /// The name.
        name: String,
        /// Where.
        span: Span,
    },
    /// E0415: a `using` clause names something that is not an invariant of the automaton.
    UnknownInvariant {
        /// The name.
        name: String,
        /// The automaton whose invariants were searched.
        automaton: String,
        /// Where.
        span: Span,
        /// A similar invariant name.
        suggestion: Option<String>,
    },
    /// E0423: a proof entry's `using` names an invariant that its simulation's `using` does not
    /// list (an entry may only narrow the simulation's assumptions).
    EntryAssumesUnlisted {
        /// The invariant.
        name: String,
        /// The simulation.
        simulation: String,
        /// Where.
        span: Span,
    },
    /// W0421 (a warning): `hidden` names an action that no component controls: hiding turns an
    /// input from the environment into an internal action that nothing drives but the
    /// explorers, which then take it spontaneously.
    HiddenUncontrolled {
        /// The action.
        action: String,
        /// The composite.
        automaton: String,
        /// The components that take it as an input.
        takers: Vec<String>,
        /// The `hidden` entry.
        span: Span,
    },
    /// E0422: a name in a simulation's header given to parameters of different types.
    HeaderParamTypes {
        /// The name.
        name: String,
        /// The parameter it named first, with its type (`ABP.n: Int`).
        first: String,
        /// The parameter of another type, with its type.
        second: String,
        /// The second occurrence.
        span: Span,
    },
    /// E0420: a `network` clause names something that is not a component of the composite.
    NotAComponent {
        /// The name.
        name: String,
        /// The composite.
        automaton: String,
        /// The components it has.
        components: Vec<String>,
        /// Where.
        span: Span,
        /// A similar component name.
        suggestion: Option<String>,
    },
    /// E0306: a set comprehension over a type that no universe can make finite, with no bound
    /// guard at the front of its condition.
    UnboundedComprehension {
        /// The element type, as written.
        ty: String,
        /// The bound variable.
        var: String,
        /// The comprehension.
        span: Span,
    },
}

fn did_you_mean(d: Diagnostic, suggestion: &Option<String>) -> Diagnostic {
    match suggestion {
        Some(s) => d
            .with_hint(format!("did you mean `{s}`?"))
            .with_primary_replacement(s.clone()),
        None => d,
    }
}

impl IntoDiagnostic for CheckError {
    fn to_diagnostic(&self) -> Diagnostic {
        use CheckError::*;
        match self {
            UndefinedName { name, span, suggestion } => did_you_mean(
                Diagnostic::error("E0101", format!("undefined name `{name}`"), *span)
                    .with_label_message("not declared in this scope"),
                suggestion,
            ),
            UndefinedType { name, span, suggestion } => did_you_mean(
                Diagnostic::error("E0102", format!("undefined type `{name}`"), *span)
                    .with_label_message("no type of this name")
                    .with_note("built-in types: Bool, Int, Nat, String, Set[T], Mset[T], Seq[T], Array[I, E], Map[K, V], Null[T]"),
                suggestion,
            ),
            UndefinedAutomaton { name, span, suggestion } => did_you_mean(
                Diagnostic::error("E0103", format!("undefined automaton `{name}`"), *span)
                    .with_label_message("no automaton of this name"),
                suggestion,
            ),
            UndefinedAction { name, automaton, span, suggestion } => did_you_mean(
                Diagnostic::error("E0104", format!("automaton `{automaton}` has no action `{name}`"), *span)
                    .with_label_message("not in the signature"),
                suggestion,
            ),
            NoSuchField { ty, field, span, fields } => {
                let d = Diagnostic::error("E0105", format!("type `{ty}` has no field `{field}`"), *span)
                    .with_label_message("unknown field");
                if fields.is_empty() {
                    d
                } else {
                    d.with_hint(format!("`{ty}` has: {}", fields.join(", ")))
                }
            }
            UnknownFunction { name, span, suggestion } => did_you_mean(
                Diagnostic::error("E0106", format!("unknown function `{name}`"), *span)
                    .with_label_message("neither built in nor a union tag")
                    .with_note("built-ins: insert, delete, size, constant, embed, head, tail, min, max, div, mod, abs, defined, update"),
                suggestion,
            ),
            Duplicate { what, name, span, previous } => {
                Diagnostic::error("E0107", format!("{what} `{name}` is declared twice"), *span)
                    .with_label_message("second declaration")
                    .with_secondary(*previous, "first declared here")
                    .with_hint("rename one of them")
            }
            RecursiveType { what, name, span } => {
                Diagnostic::error("E0108", format!("{what} `{name}` is defined in terms of itself"), *span).with_hint(
                    if *what == "type" {
                        "types must not contain themselves, directly or through other types"
                    } else {
                        "a composite automaton cannot contain itself, directly or through other composites"
                    },
                )
            }
            QualifierNotAllowed { name, span } => {
                Diagnostic::error("E0109", format!("`{name}` is not a value here"), *span)
                    .with_label_message("an automaton or component name")
                    .with_hint("`A.x` reads automaton A's state only in a simulation between A and another automaton; `P[i].x` reads a component's state only in an invariant or schedule of its composite")
            }
            WrongArity { what, expected, found, span } => Diagnostic::error(
                "E0201",
                format!("{what} takes {expected} argument(s) but got {found}"),
                *span,
            )
            .with_label_message(format!("expected {expected}")),
            WrongTypeArity { name, expected, found, span } => Diagnostic::error(
                "E0202",
                format!("type `{name}` takes {expected} type argument(s) but {found} were given"),
                *span,
            ),
            Mismatch { expected, found, span, because } => {
                let d = Diagnostic::error("E0301", format!("type mismatch: expected `{expected}`, found `{found}`"), *span)
                    .with_label_message(format!("this is `{found}`"));
                match because {
                    Some((s, why)) => d.with_secondary(*s, why.clone()),
                    None => d,
                }
            }
            BadOperand { op, ty, needs, span } => Diagnostic::error(
                "E0302",
                format!("`{op}` cannot be applied to `{ty}`"),
                *span,
            )
            .with_label_message(format!("`{op}` needs {needs}")),
            CannotInfer { what, span } => Diagnostic::error("E0303", format!("cannot tell the type of this {what}"), *span)
                .with_hint("use it where its type is known, e.g. assign it to a typed variable or pass it as a typed parameter"),
            KindsOverlap { action, span, previous, kinds, params_differ: true } => Diagnostic::error(
                "E0110",
                format!("the {} and {} entries of `{action}` take different parameters", kinds.0, kinds.1),
                *span,
            )
            .with_secondary(*previous, "the other entry")
            .with_hint("entries of one action name are one action: give them the same parameter types, or different names"),
            KindsOverlap { action, span, previous, kinds, params_differ: false } => Diagnostic::error(
                "E0110",
                format!("`{action}` is declared both {} and {} for the same parameters", kinds.0, kinds.1),
                *span,
            )
            .with_secondary(*previous, "the other entry")
            .with_note("the IOA manual requires an automaton's input, output and internal actions to be disjoint sets")
            .with_hint("an action may be an input for some parameter values and an output for others: give the entries `where` clauses (or `const` parameters) that tell them apart"),
            AmbiguousConstant { name, types, span } => Diagnostic::error(
                "E0305",
                format!("`{name}` is a constant of {}: the types here do not tell which", types.join(" and ")),
                *span,
            )
            .with_hint(format!(
                "qualify it with its enumeration: {}",
                types.iter().map(|t| format!("`{t}.{name}`")).collect::<Vec<_>>().join(" or ")
            )),
            NotIndexable { ty, span } => Diagnostic::error("E0304", format!("`{ty}` cannot be indexed"), *span)
                .with_label_message("not an array, map or sequence"),
            AssignToNonState { name, what, span } => Diagnostic::error("E0401", format!("cannot assign to `{name}`"), *span)
                .with_label_message(format!("`{name}` is {what}"))
                .with_hint("only state variables (and, in schedules and proof blocks, their own variables) can be assigned"),
            PreOnInput { action, span } => Diagnostic::error("E0402", format!("input action `{action}` has a precondition"), *span)
                .with_label_message("inputs are always enabled")
                .with_hint("test the condition in the effect with `if … then … fi` instead"),
            KindMismatch { action, declared, used, span } => Diagnostic::error(
                "E0403",
                format!("`{action}` is declared as an {declared} action but used as {used}"),
                *span,
            )
            .with_hint(format!("write `{declared} {action}`")),
            MissingTransition { action, span } => Diagnostic::error("E0405", format!("action `{action}` has no transition"), *span)
                .with_hint("add a transition for it under `transitions` (an input that does nothing can have an empty `eff`)"),
            DuplicateTransition { action, span, previous } => Diagnostic::error(
                "E0406",
                format!("action `{action}` has two transitions with the same `case` label"),
                *span,
            )
            .with_secondary(*previous, "the action's first transition")
            .with_hint("give each labelled transition of the action a distinct `case NAME` (labels are optional)"),
            StatementNotAllowed { stmt, place, span } => {
                Diagnostic::error("E0407", format!("`{stmt}` is not allowed in {place}"), *span).with_hint(match *stmt {
                    "fire" => "`fire` belongs in schedules and proof-block entries",
                    "while" => "`while` belongs in schedules",
                    "yield" => "`yield` belongs in a `det do … od` block",
                    "det do … od" => "a `det do … od` block of its own belongs in a schedule (inside a transition, give the `choose` its own `det`)",
                    _ => "see book/src/reference/language.md for which statements each block takes",
                })
            }
            MissingProofEntry { action, span } => Diagnostic::error(
                "E0408",
                format!("the proof block has no entry for action `{action}`"),
                *span,
            )
            .with_hint(format!("add `for KIND {action}(…) ignore` or an entry that fires specification actions")),
            ScheduleWithoutTarget { span } => Diagnostic::error("E0409", "schedule does not say which automaton it drives", *span)
                .with_hint("write `schedule NAME for AUTOMATON`"),
            BadStartTarget { spec, composite, span } => Diagnostic::error(
                "E0410",
                format!("a `start` assignment must set a state variable of `{spec}`"),
                *span,
            )
            .with_hint(if *composite {
                format!("write `{spec}.C.x := …` for a component `C`, or `{spec}.P[i].x := …` for a member of a family `P`")
            } else {
                format!("write `{spec}.x := …`")
            }),
            ComponentActionConflict { action, span, first, second } => Diagnostic::error(
                "E0411",
                format!("components disagree on the parameters of action `{action}`"),
                *span,
            )
            .with_note(format!("one declares ({first}), another ({second})")),
            Unqualified { name, automaton, span } => Diagnostic::error(
                "E0413",
                format!("state variable `{name}` must be qualified in a simulation"),
                *span,
            )
            .with_hint(format!("write `{automaton}.{name}`")),
            StateInInitializer { name, span } => Diagnostic::error(
                "E0414",
                format!("initial value reads state variable `{name}`"),
                *span,
            )
            .with_hint("initial values may use the automaton's parameters only; constrain several variables together with `so that`"),
            UnknownInvariant { name, automaton, span, suggestion } => did_you_mean(
                Diagnostic::error("E0415", format!("`{name}` is not an invariant of `{automaton}`"), *span)
                    .with_label_message("named in `using`")
                    .with_note("`using` lists the invariants of the automaton that a proof may assume"),
                suggestion,
            ),
            EntryAssumesUnlisted { name, simulation, span } => Diagnostic::error(
                "E0423",
                format!("`{name}` is not among the invariants `{simulation}` assumes"),
                *span,
            )
            .with_label_message("named in this step's `using`")
            .with_note("a proof entry's `using` narrows the simulation's assumptions to those its step needs; it cannot add one the simulation does not list")
            .with_hint(format!("add `{name}` to the `using` clause of the simulation's header, or leave it out here")),
            HiddenUncontrolled { action, automaton, takers, span } => Diagnostic::warning(
                "W0421",
                format!("`hidden` makes `{action}` an internal action of `{automaton}`, but no component controls it"),
                *span,
            )
            .with_label_message("hidden here")
            .with_note(format!(
                "{} {} `{action}` as an input only; hidden, it is an internal action that any run or exploration may take at any time, with any arguments",
                takers.join(", "),
                if takers.len() == 1 { "takes" } else { "take" }
            ))
            .with_hint(format!(
                "connect a component whose output is `{action}`, or leave `{action}` out of `hidden` so that it stays an input from the environment"
            )),
            HeaderParamTypes { name, first, second, span } => Diagnostic::error(
                "E0422",
                format!("`{name}` names parameters of different types"),
                *span,
            )
            .with_label_message(format!("`{second}`"))
            .with_note(format!("`{name}` already names `{first}`; a name given to several parameters in a simulation's header makes them one value"))
            .with_hint("give the parameters different names, or declare them with the same type"),
            NotAComponent { name, automaton, components, span, suggestion } => did_you_mean(
                Diagnostic::error("E0420", format!("`{name}` is not a component of `{automaton}`"), *span)
                    .with_label_message("named in `network`")
                    .with_note(format!("the components of `{automaton}` are: {}", components.join(", ")))
                    .with_note("`network` lists the components that form the network; the others are the nodes"),
                suggestion,
            ),
            UnboundedComprehension { ty, var, span } => Diagnostic::error(
                "E0306",
                format!("the set comprehension ranges over `{ty}`, which has no finite carrier"),
                *span,
            )
            .with_note("running, exploring and pairing build the set by trying every value of the element type; strings, characters, reals, sequences, multisets and maps have infinitely many")
            .with_hint(format!(
                "bound it by a set it draws from: `{{{var}: {ty} | {var} ∈ S ∧ …}}`, or range over an enumeration, a tuple type or `Int` (whose values a universe lists)"
            )),
        }
    }
}
