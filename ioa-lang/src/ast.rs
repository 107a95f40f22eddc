//! The surface syntax tree, exactly as written (minus notation: Unicode and ASCII operators are
//! the same node). Every node carries its [`Span`]. Parentheses leave no node; the pretty printer
//! puts them back by precedence.

use crate::span::Span;
use serde::Serialize;

/// A name as written, with where it was written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Ident {
    /// The name's text.
    pub name: String,
    /// Where the name stands.
    pub span: Span,
}

/// One parsed file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceFile {
    /// The top-level declarations, in source order.
    pub items: Vec<Item>,
}

/// A top-level declaration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Item {
    /// `import "path"`.
    Import(Import),
    /// `type T = …`.
    Type(TypeDecl),
    /// `automaton A … `, primitive or composite.
    Automaton(AutomatonDecl),
    /// `invariant I of A: P`.
    Invariant(InvariantDecl),
    /// `liveness L of A: eventually P` or `liveness L of A: P ↝ Q`.
    Liveness(LivenessDecl),
    /// `forward simulation from A to B: R proof …`.
    Simulation(SimulationDecl),
    /// `schedule … do … od`.
    Schedule(ScheduleDecl),
}

/// `import "path"`: reads another file's declarations.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Import {
    /// The path as written, relative to the importing file.
    pub path: String,
    /// The whole declaration.
    pub span: Span,
}

/// `type Name = definition`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TypeDecl {
    /// The declared type's name.
    pub name: Ident,
    /// What the name stands for.
    pub def: TypeDef,
    /// The whole declaration.
    pub span: Span,
}

/// The right-hand side of a type declaration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum TypeDef {
    /// `tuple of f: T, g: U`.
    Tuple(Vec<Field>),
    /// `enumeration of a, b, c`.
    Enumeration(Vec<Ident>),
    /// `union of f: T, g: U`.
    Union(Vec<Field>),
    /// A synonym for another type.
    Alias(TypeExpr),
}

/// A named, typed field of a tuple or union type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    /// The field name.
    pub name: Ident,
    /// The field type.
    pub ty: TypeExpr,
}

/// A type as written: a name, possibly applied to type arguments (`Set[Node]`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TypeExpr {
    /// The type constructor or declared type name.
    pub name: Ident,
    /// Type arguments in brackets; empty for a plain name.
    pub args: Vec<TypeExpr>,
    /// The whole type expression.
    pub span: Span,
}

/// A formal parameter `name: Type`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Param {
    /// The parameter name.
    pub name: Ident,
    /// Its declared type.
    pub ty: TypeExpr,
}

/// The three kinds of action of an I/O automaton.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
pub enum ActionKind {
    /// Controlled by the environment; always enabled.
    Input,
    /// Controlled by the automaton and visible.
    Output,
    /// Controlled by the automaton and invisible.
    Internal,
}

impl ActionKind {
    /// The keyword that introduces this kind.
    pub fn keyword(self) -> &'static str {
        match self {
            ActionKind::Input => "input",
            ActionKind::Output => "output",
            ActionKind::Internal => "internal",
        }
    }
}

/// `automaton Name(params) …`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AutomatonDecl {
    /// The automaton's name.
    pub name: Ident,
    /// Formal parameters of the automaton.
    pub params: Vec<Param>,
    /// Primitive or composite body.
    pub body: AutomatonBody,
    /// The whole declaration.
    pub span: Span,
}

/// What an automaton is made of.
// Built once per declaration and never copied in bulk, so variant sizes do not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum AutomatonBody {
    /// Signature, states and transitions written out.
    Primitive(Primitive),
    /// The composition of other automata.
    Composite(Composite),
}

/// The body of a primitive automaton.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Primitive {
    /// The `signature` section.
    pub signature: Vec<SigEntry>,
    /// The `states` section.
    pub states: Vec<StateDecl>,
    /// `so that P` constraining the start states.
    pub so_that: Option<Expr>,
    /// The `transitions` section.
    pub transitions: Vec<Transition>,
    /// The `tasks` section (kept for liveness work; not executed).
    pub tasks: Vec<Task>,
}

/// One action declared in a signature.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SigEntry {
    /// Input, output or internal.
    pub kind: ActionKind,
    /// The action name.
    pub name: Ident,
    /// Its parameters.
    pub params: Vec<SigParam>,
    /// `where P` restricting the parameters.
    pub where_clause: Option<Expr>,
    /// The whole entry.
    pub span: Span,
}

/// A parameter of a signature entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum SigParam {
    /// `name: Type`.
    Formal(Param),
    /// `const e`: the parameter always equals `e`.
    Const(Expr),
}

/// A state variable `name: Type [:= init]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StateDecl {
    /// The variable name.
    pub name: Ident,
    /// Its type.
    pub ty: TypeExpr,
    /// Its initial value, if given.
    pub init: Option<Expr>,
    /// The whole declaration.
    pub span: Span,
}

/// One transition definition (one case of one action).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Transition {
    /// The action's kind, which must match the signature.
    pub kind: ActionKind,
    /// The action's name.
    pub name: Ident,
    /// The parameters as named here.
    pub args: Vec<ActionArg>,
    /// `case NAME` when an action has several transitions.
    pub case: Option<Ident>,
    /// `where P`.
    pub where_clause: Option<Expr>,
    /// `pre P`.
    pub pre: Option<Expr>,
    /// `eff …`.
    pub eff: Vec<Stmt>,
    /// `ensuring P`: a predicate over the pre-state (plain names) and the post-state (primed
    /// names, `x'`) that the effect must make true.
    pub ensuring: Option<Expr>,
    /// The whole transition.
    pub span: Span,
}

/// A parameter position in a transition head, proof entry or hidden clause.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ActionArg {
    /// A name bound to the parameter, optionally with its type.
    Bind {
        /// The bound name.
        name: Ident,
        /// The type as written, if any.
        ty: Option<TypeExpr>,
    },
    /// `const e`: the parameter must equal `e`.
    Const(Expr),
}

/// One task `{ a(x), b for x: T where P }`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Task {
    /// The actions in the task, with argument patterns.
    pub actions: Vec<TaskAction>,
    /// Variables ranging over the task's actions.
    pub bound: Vec<Param>,
    /// A restriction on the bound variables.
    pub where_clause: Option<Expr>,
    /// The whole task.
    pub span: Span,
}

/// An action named in a task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskAction {
    /// The action name.
    pub name: Ident,
    /// Its arguments, if written.
    pub args: Vec<Expr>,
}

/// The body of a composite automaton.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Composite {
    /// The components, each possibly an indexed family.
    pub components: Vec<ComponentDecl>,
    /// `network C, D`: which components form the network (the rest are the nodes); `None`
    /// when the clause is absent.
    pub network: Option<NetworkClause>,
    /// Actions hidden by the composition.
    pub hidden: Vec<HiddenEntry>,
}

/// `network C, D` in a composite: the components that form the network of a distributed
/// system (the others are its nodes).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NetworkClause {
    /// The components named, in order.
    pub components: Vec<Ident>,
    /// The whole clause.
    pub span: Span,
}

/// `Name[i: T]: Automaton(args) where P`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComponentDecl {
    /// The component's (or family's) name.
    pub name: Ident,
    /// Index parameters of a family; empty for a single component.
    pub indices: Vec<Param>,
    /// The automaton instantiated.
    pub automaton: Ident,
    /// Arguments for the automaton's parameters.
    pub args: Vec<Expr>,
    /// `where P` over the indices: which members of the family exist.
    pub where_clause: Option<Expr>,
    /// The whole declaration.
    pub span: Span,
}

/// `name(args) where P` in a `hidden` clause.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HiddenEntry {
    /// The action hidden.
    pub name: Ident,
    /// Argument patterns; empty hides every instance.
    pub args: Vec<ActionArg>,
    /// A restriction on the arguments.
    pub where_clause: Option<Expr>,
    /// The whole entry.
    pub span: Span,
}

/// `invariant Name of A: P`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InvariantDecl {
    /// The invariant's name.
    pub name: Ident,
    /// The automaton it is about.
    pub automaton: Ident,
    /// `using I1, I2`: the invariants its proof assumes (none given: all declared).
    pub using: Option<Vec<Ident>>,
    /// The predicate on states.
    pub body: Expr,
    /// The whole declaration.
    pub span: Span,
}

/// `liveness Name of A: eventually P` or `liveness Name of A: P ↝ Q`: a property of the
/// automaton's fair executions (under its tasks), checked by `ioa explore --liveness` and
/// `ioa liveness`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LivenessDecl {
    /// The property's name.
    pub name: Ident,
    /// The automaton it is about.
    pub automaton: Ident,
    /// What must eventually happen.
    pub property: Temporal,
    /// The whole declaration.
    pub span: Span,
}

/// The temporal shape of a liveness property, over state predicates.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Temporal {
    /// `eventually P`: every fair execution reaches a state where `P` holds.
    Eventually(Expr),
    /// `P ↝ Q` (P leads to Q): every state where `P` holds is followed, in every fair
    /// execution, by a state (itself or a later one) where `Q` holds.
    LeadsTo(Expr, Expr),
}

/// `forward simulation [Name] from A[(k, …)] to B[(k, …)]: R [proof …]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimulationDecl {
    /// The name given, if any (otherwise `A_to_B`).
    pub name: Option<Ident>,
    /// The implementation automaton.
    pub from: Ident,
    /// `from A(k, …)`: names for the implementation's parameters, one per parameter, in order.
    pub from_args: Option<Vec<Ident>>,
    /// The specification automaton.
    pub to: Ident,
    /// `to B(k, …)`: names for the specification's parameters. A name that both lists give
    /// makes the parameters it names one and the same value.
    pub to_args: Option<Vec<Ident>>,
    /// `using I1, I2`: the implementation's invariants its proof assumes.
    pub using: Option<Vec<Ident>>,
    /// The relation between their states.
    pub relation: Expr,
    /// The step correspondence.
    pub proof: Option<ProofBlock>,
    /// The whole declaration.
    pub span: Span,
}

/// The `proof` block of a forward simulation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProofBlock {
    /// Auxiliary variables.
    pub states: Vec<StateDecl>,
    /// Assignments that build the specification's start state.
    pub start: Vec<Stmt>,
    /// One entry per implementation action.
    pub entries: Vec<ProofEntry>,
    /// The whole block.
    pub span: Span,
}

/// `for KIND act(params) do … od` or `… ignore`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProofEntry {
    /// The implementation action's kind.
    pub kind: ActionKind,
    /// The implementation action's name.
    pub name: Ident,
    /// Names for its parameters.
    pub args: Vec<ActionArg>,
    /// `using I1, I2`: the invariants of the implementation this step's obligations assume,
    /// a subset of the simulation's (none given: the simulation's).
    pub using: Option<Vec<Ident>>,
    /// The body; `None` for `ignore`.
    pub body: Option<Vec<Stmt>>,
    /// The whole entry.
    pub span: Span,
}

/// `schedule [Name] [for A] [states …] do … od`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScheduleDecl {
    /// The schedule's name, if given.
    pub name: Option<Ident>,
    /// The automaton it drives, if named.
    pub target: Option<Ident>,
    /// The schedule's own variables.
    pub states: Vec<StateDecl>,
    /// The NDR program.
    pub body: Vec<Stmt>,
    /// The whole declaration.
    pub span: Span,
}

/// A statement with its span.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stmt {
    /// What the statement does.
    pub kind: StmtKind,
    /// The whole statement.
    pub span: Span,
}

/// The statements of effects, proof entries and schedules (which ones are allowed where is
/// checked after parsing).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum StmtKind {
    /// `lhs [: T] := rhs`.
    Assign {
        /// A variable, `a[i]`, `t.f`, or a qualified `B.x`.
        lhs: Expr,
        /// A type annotation (allowed in proof `start` blocks).
        ty: Option<TypeExpr>,
        /// The value assigned.
        rhs: Expr,
    },
    /// `if c1 then … elseif c2 then … else … fi`.
    If {
        /// Conditions with their branches, in order.
        branches: Vec<(Expr, Vec<Stmt>)>,
        /// The `else` branch.
        otherwise: Option<Vec<Stmt>>,
    },
    /// `for x: T in S do … od`.
    ForIn {
        /// The loop variable.
        var: Param,
        /// The collection iterated.
        collection: Expr,
        /// The loop body.
        body: Vec<Stmt>,
    },
    /// `for x: T where P do … od`.
    ForWhere {
        /// The loop variable.
        var: Param,
        /// The condition selecting values.
        cond: Expr,
        /// The loop body.
        body: Vec<Stmt>,
    },
    /// `while P do … od` (schedules only).
    While {
        /// The loop condition.
        cond: Expr,
        /// The loop body.
        body: Vec<Stmt>,
    },
    /// `fire KIND act(args) [det do … od]`.
    Fire {
        /// The fired action's kind.
        kind: ActionKind,
        /// The fired action's name.
        name: Ident,
        /// Its arguments.
        args: Vec<Expr>,
        /// Values for the `choose`s of the fired step.
        det: Option<Vec<Stmt>>,
    },
    /// `ignore`: no step.
    Ignore,
    /// `yield e` inside a `det` block.
    Yield(Expr),
    /// `det do … od` as a statement of its own (schedules): its `yield`s resolve the `choose`s
    /// of the steps fired after it, in order.
    Det(Vec<Stmt>),
}

/// An expression with its span.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Expr {
    /// The expression's shape.
    pub kind: ExprKind,
    /// The whole expression (without surrounding parentheses).
    pub span: Span,
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum UnOp {
    /// `¬`.
    Not,
    /// Arithmetic `-`.
    Neg,
}

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum BinOp {
    /// `⇔`.
    Iff,
    /// `⇒`.
    Implies,
    /// `∨`.
    Or,
    /// `∧`.
    And,
    /// `=`.
    Eq,
    /// `≠`.
    Neq,
    /// `<`.
    Lt,
    /// `≤`.
    Le,
    /// `>`.
    Gt,
    /// `≥`.
    Ge,
    /// `∈`.
    In,
    /// `∉`.
    NotIn,
    /// `⊆`.
    SubsetEq,
    /// `⊂`.
    Subset,
    /// `+`.
    Add,
    /// `-` (subtraction or set difference).
    Sub,
    /// `∪`.
    Union,
    /// `⊢` (append to a sequence).
    Append,
    /// `⊣` (put an element in front of a sequence).
    Prepend,
    /// `||` (one sequence followed by another).
    Concat,
    /// `*`.
    Mul,
    /// `∩`.
    Intersect,
    /// `div`.
    Div,
    /// `mod`.
    Mod,
    /// `/` (division of `Real`s).
    Slash,
}

/// Quantifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Quantifier {
    /// `∀`.
    ForAll,
    /// `∃`.
    Exists,
}

/// The shapes of expressions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ExprKind {
    /// A name: a variable, parameter, enumeration constant, or automaton/component name.
    Name(Ident),
    /// An integer literal.
    Int(i64),
    /// `true` or `false`.
    Bool(bool),
    /// A string literal.
    Str(String),
    /// A decimal literal (`2.50`): its digits (`250`) and how many follow the point (`2`).
    Real(i64, u32),
    /// A character literal (`'a'`, `'\n'`): the manual's `Char`.
    Char(char),
    /// `nil`.
    Nil,
    /// `[a, b]`.
    Tuple(Vec<Expr>),
    /// `{a, b}` or `{}`.
    SetLit(Vec<Expr>),
    /// `op e`.
    Unary(UnOp, Box<Expr>),
    /// `l op r`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `e.f`.
    Field(Box<Expr>, Ident),
    /// `e[i, …]`.
    Index(Box<Expr>, Vec<Expr>),
    /// `f(args)`: a built-in or a union constructor.
    Call(Ident, Vec<Expr>),
    /// `e is tag`.
    Is(Box<Expr>, Ident),
    /// `∀ x: T, y: U (body)`.
    Quant(Quantifier, Vec<Param>, Box<Expr>),
    /// `if c then a else b`.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `choose x: T [where P] [det do … od]`.
    Choose {
        /// The chosen variable.
        var: Param,
        /// The condition it must satisfy.
        cond: Option<Box<Expr>>,
        /// How to resolve the choice when executing.
        det: Option<Vec<Stmt>>,
    },
    /// `{x: T | P}`: the set of the values of `T` that satisfy `P`.
    SetComp {
        /// The bound variable and the type it ranges over.
        var: Param,
        /// The condition an element satisfies.
        cond: Box<Expr>,
    },
}
