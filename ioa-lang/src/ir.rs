//! The typed core IR ([`Spec`]) that every later crate consumes.
//!
//! Names are gone: state variables are slots, locals are frame slots, types are resolved, and
//! operators are enums chosen by operand type. Spans stay, so any later stage can point back at
//! the source.

use crate::ast::{ActionKind, Quantifier};
use crate::span::Span;
use serde::Serialize;

/// Index of a user-declared type in [`Spec::types`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct TypeId(pub u32);

/// Index of an automaton in [`Spec::automata`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct AutomatonId(pub u32);

/// Index of an action in its automaton's [`Automaton::actions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct ActionId(pub u32);

/// A fully resolved type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Type {
    /// Booleans.
    Bool,
    /// Mathematical integers (64-bit, overflow is an error at run time).
    Int,
    /// Non-negative integers.
    Nat,
    /// Strings.
    String,
    /// Finite sets.
    Set(Box<Type>),
    /// Finite multisets.
    Mset(Box<Type>),
    /// Finite sequences.
    Seq(Box<Type>),
    /// Total functions from an index type (with a default value).
    Array(Box<Type>, Box<Type>),
    /// Finite partial maps.
    Map(Box<Type>, Box<Type>),
    /// A value or `nil`.
    Null(Box<Type>),
    /// A declared tuple, enumeration or union.
    Named(TypeId),
    /// A type still being inferred. Only the type checker creates these; no [`Spec`] returned
    /// by [`crate::check_files`] contains one.
    #[doc(hidden)]
    Infer(u32),
    /// Characters (the manual's `Char`), ordered by code point. (The variants added last
    /// keep the others' discriminants, so orders and hashes of existing types are unchanged.)
    Char,
    /// Exact rational numbers (the manual's `Real`, where arithmetic stays finite).
    Real,
}

/// A user-declared type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TypeDef {
    /// Its name.
    pub name: String,
    /// Tuple, enumeration or union.
    pub kind: TypeDefKind,
    /// The declaration.
    pub span: Span,
}

/// The shape of a declared type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum TypeDefKind {
    /// Named fields, in order.
    Tuple(Vec<(String, Type)>),
    /// Constants, in order.
    Enumeration(Vec<String>),
    /// Tags with their payload types, in order.
    Union(Vec<(String, Type)>),
}

/// The whole checked model.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Spec {
    /// Declared types (synonyms are resolved away).
    pub types: Vec<TypeDef>,
    /// Primitive and composite automata.
    pub automata: Vec<Automaton>,
    /// Invariants, in source order.
    pub invariants: Vec<Invariant>,
    /// Liveness properties, in source order.
    pub liveness: Vec<Liveness>,
    /// Forward simulations.
    pub simulations: Vec<Simulation>,
    /// Schedules.
    pub schedules: Vec<Schedule>,
}

/// A typed variable declaration (state variable, parameter, auxiliary or schedule variable).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VarDecl {
    /// The name, for printing.
    pub name: String,
    /// The type.
    pub ty: Type,
    /// The initial value, if any.
    pub init: Option<Expr>,
    /// The declaration.
    pub span: Span,
}

/// An automaton.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Automaton {
    /// Its name.
    pub name: String,
    /// Formal parameters (slots of [`VarRef::Param`]).
    pub params: Vec<VarDecl>,
    /// Its actions: declared (primitive) or derived from the components (composite).
    pub actions: Vec<Action>,
    /// Primitive or composite body.
    pub body: AutomatonBody,
    /// The declaration.
    pub span: Span,
}

/// An action of an automaton's signature.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Action {
    /// Its name.
    pub name: String,
    /// Input, output or internal (after hiding, for composites).
    pub kind: ActionKind,
    /// Parameters: their types, and for `const` parameters the fixed value.
    pub params: Vec<ActionParam>,
    /// The signature's `where` clause over the parameters (locals `0..params.len()`).
    pub where_clause: Option<Expr>,
    /// Locals needed to evaluate the `where` clause.
    pub n_locals: u32,
    /// The signature entry.
    pub span: Span,
}

/// One parameter of an action.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ActionParam {
    /// The name in the signature (or `_k` for a `const` parameter).
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// For a `const` parameter, the value it always has (over the automaton's parameters).
    pub fixed: Option<Expr>,
}

/// The body of an automaton.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum AutomatonBody {
    /// A primitive automaton.
    Primitive(Primitive),
    /// A composition.
    Composite(Composite),
}

/// A primitive automaton's states and transitions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Primitive {
    /// State variables (slots of [`VarRef::State`]).
    pub state: Vec<VarDecl>,
    /// `so that` on start states (over state and parameters).
    pub so_that: Option<Expr>,
    /// Locals needed by the initialisers and `so that`.
    pub init_locals: u32,
    /// Transitions; several may belong to one action (cases).
    pub transitions: Vec<Transition>,
    /// Tasks (not executed yet; kept for liveness work).
    pub tasks: Vec<Task>,
}

impl Primitive {
    /// The name a proof or a message gives transition `index` among its action's transitions:
    /// its `case` label, or for an unlabelled one of an action with several transitions its
    /// position among them (`#2`), or nothing for an action's only transition.
    pub fn case_name(&self, index: usize) -> Option<String> {
        let t = &self.transitions[index];
        if let Some(c) = &t.case {
            return Some(c.clone());
        }
        let same: Vec<usize> = (0..self.transitions.len())
            .filter(|&k| self.transitions[k].action == t.action)
            .collect();
        if same.len() < 2 {
            return None;
        }
        let pos = same.iter().position(|&k| k == index).unwrap_or(0);
        Some(format!("#{}", pos + 1))
    }
}

/// One transition definition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Transition {
    /// The action it defines.
    pub action: ActionId,
    /// The `case` label, if any.
    pub case: Option<String>,
    /// The action's parameters are locals `0..n`; a `const` argument becomes this check instead
    /// of a binding: `params[k]` must equal the expression.
    pub const_args: Vec<(u32, Expr)>,
    /// The transition's `where` clause.
    pub where_clause: Option<Expr>,
    /// The precondition, as a list of conjuncts so that a failure can name the one that failed.
    pub pre: Vec<Expr>,
    /// The effect.
    pub eff: Vec<Stmt>,
    /// Number of local slots (parameters first, then quantifier, loop and choose variables).
    pub n_locals: u32,
    /// Names of the locals, for messages.
    pub local_names: Vec<String>,
    /// The transition definition.
    pub span: Span,
}

/// A task: a set of action instances treated as one fairness class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Task {
    /// The actions in the task.
    pub actions: Vec<ActionId>,
    /// The task definition.
    pub span: Span,
}

/// A composition of automata.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Composite {
    /// The components (each possibly a family).
    pub components: Vec<Component>,
    /// For each of the composite's actions, which component actions take part.
    pub action_members: Vec<Vec<(u32, ActionId)>>,
    /// Hidden clauses.
    pub hidden: Vec<Hidden>,
    /// `network C, D`: the components that form the network, as indices into `components`;
    /// `None` when the composite has no such clause (the system view then takes the first
    /// component as the nodes and every other component as the network).
    pub network: Option<Network>,
}

/// `network C, D`: which components of a composite form the network.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Network {
    /// Indices into [`Composite::components`], in the order written.
    pub components: Vec<u32>,
    /// The clause.
    pub span: Span,
}

/// A component or indexed family of components.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Component {
    /// Its name.
    pub name: String,
    /// Index variables of a family (locals `0..indices.len()`).
    pub indices: Vec<VarDecl>,
    /// The automaton instantiated.
    pub automaton: AutomatonId,
    /// Arguments for the automaton's parameters (over the indices and the composite's
    /// parameters).
    pub args: Vec<Expr>,
    /// `where P` (over the indices and the composite's parameters): the members of the family
    /// that exist. `None`: every value of the index types.
    pub where_clause: Option<Expr>,
    /// Locals needed by the arguments and the `where` clause (the indices first).
    pub n_locals: u32,
    /// The declaration.
    pub span: Span,
}

/// `hidden name(args) where P`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hidden {
    /// The composite action hidden.
    pub action: ActionId,
    /// Argument checks: parameter `k` must equal the expression (over the bound names, which
    /// are locals `0..params`).
    pub const_args: Vec<(u32, Expr)>,
    /// The `where` clause.
    pub where_clause: Option<Expr>,
    /// Number of locals.
    pub n_locals: u32,
    /// The clause.
    pub span: Span,
}

/// `invariant NAME of A: P`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Invariant {
    /// Its name.
    pub name: String,
    /// The automaton.
    pub automaton: AutomatonId,
    /// The predicate.
    pub body: Expr,
    /// `using …`: the invariants (of the same automaton) its proof assumes, by name; `None`
    /// when not given (a prover then assumes every declared invariant).
    pub using: Option<Vec<String>>,
    /// Number of locals (quantified variables).
    pub n_locals: u32,
    /// The declaration.
    pub span: Span,
}

/// `liveness Name of A: …`: a property of the fair executions of an automaton, over state
/// predicates of that automaton (evaluated like invariants).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Liveness {
    /// Its name.
    pub name: String,
    /// The automaton.
    pub automaton: AutomatonId,
    /// `eventually P` or `P ↝ Q`.
    pub property: Temporal,
    /// Number of locals (quantified variables of either predicate).
    pub n_locals: u32,
    /// The declaration.
    pub span: Span,
}

/// The temporal shape of a [`Liveness`] property.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Temporal {
    /// Every fair execution reaches a state where the predicate holds.
    Eventually(Expr),
    /// Every state where the first predicate holds is followed (in every fair execution, at
    /// that state or later) by one where the second holds.
    LeadsTo(Expr, Expr),
}

impl Temporal {
    /// The predicate that must eventually hold (`P` of `eventually P`, `Q` of `P ↝ Q`).
    pub fn goal(&self) -> &Expr {
        match self {
            Temporal::Eventually(p) | Temporal::LeadsTo(_, p) => p,
        }
    }

    /// The predicate that starts an obligation (`P` of `P ↝ Q`); `None` for `eventually`,
    /// whose obligation starts in the start states.
    pub fn trigger(&self) -> Option<&Expr> {
        match self {
            Temporal::Eventually(_) => None,
            Temporal::LeadsTo(p, _) => Some(p),
        }
    }

    /// Both predicates, mutably (for passes that rewrite expressions).
    pub fn exprs_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Temporal::Eventually(p) => vec![p],
            Temporal::LeadsTo(p, q) => vec![p, q],
        }
    }
}

/// A forward simulation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Simulation {
    /// Its name (`A_to_B` when not given).
    pub name: String,
    /// The implementation.
    pub from: AutomatonId,
    /// The specification.
    pub to: AutomatonId,
    /// The names the header gives to the automata's parameters (`k` in
    /// `forward simulation from ABP(k) to Spec(k)`), in order of first appearance; empty when
    /// the header gives none. Every parameter a name is given to has the same value.
    pub params: Vec<SimParam>,
    /// The relation, over [`VarRef::Qualified`] names of both automata.
    pub relation: Expr,
    /// `using …`: the invariants of `from` its proof assumes, by name (`None`: all declared).
    pub using: Option<Vec<String>>,
    /// Locals needed by the relation.
    pub relation_locals: u32,
    /// The step correspondence.
    pub proof: Option<ProofBlock>,
    /// The declaration.
    pub span: Span,
}

/// A name in a simulation's header: `k` in `from ABP(k) to Spec(k)`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimParam {
    /// The name (read unqualified in the relation and the proof block).
    pub name: String,
    /// The type of the parameters it names.
    pub ty: Type,
    /// The automaton parameters it names, `(automaton, parameter position)`, implementation
    /// first; all of them have one value. A read of `k` is a [`VarRef::QualifiedParam`] of the
    /// first.
    pub binds: Vec<(AutomatonId, u32)>,
    /// Its first occurrence in the header.
    pub span: Span,
}

impl Simulation {
    /// The header name given to parameter `param` of automaton `automaton`, if any.
    pub fn header_param(&self, automaton: AutomatonId, param: u32) -> Option<&SimParam> {
        self.params
            .iter()
            .find(|p| p.binds.contains(&(automaton, param)))
    }

    /// The parameter that parameter `param` of `automaton` is one value with and that comes
    /// first in the header (itself when it is first, or when the header does not name it).
    pub fn representative(&self, automaton: AutomatonId, param: u32) -> (AutomatonId, u32) {
        self.header_param(automaton, param)
            .and_then(|p| p.binds.first().copied())
            .unwrap_or((automaton, param))
    }
}

/// A simulation's step correspondence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProofBlock {
    /// Auxiliary variables ([`VarRef::Aux`]).
    pub aux: Vec<VarDecl>,
    /// Assignments building the specification's start state.
    pub start: Vec<Stmt>,
    /// Locals needed by the start block.
    pub start_locals: u32,
    /// One entry per implementation action, indexed by [`ActionId`] of `from`.
    pub entries: Vec<Option<ProofEntry>>,
}

/// The step correspondence for one implementation action.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProofEntry {
    /// The action's parameters are locals `0..n`.
    pub body: Option<Vec<Stmt>>,
    /// `using …`: the invariants of the implementation this step's obligations assume, by name
    /// (`None`: the simulation's).
    pub using: Option<Vec<String>>,
    /// Number of locals.
    pub n_locals: u32,
    /// The entry.
    pub span: Span,
}

/// A schedule (nondeterminism-resolution program).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Schedule {
    /// Its name.
    pub name: String,
    /// The automaton it drives.
    pub automaton: AutomatonId,
    /// Its variables ([`VarRef::Aux`]).
    pub vars: Vec<VarDecl>,
    /// The program.
    pub body: Vec<Stmt>,
    /// Number of locals.
    pub n_locals: u32,
    /// The declaration.
    pub span: Span,
}

/// A statement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stmt {
    /// What it does.
    pub kind: StmtKind,
    /// Where it is.
    pub span: Span,
}

/// Statements.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum StmtKind {
    /// `target := value`.
    Assign {
        /// The place assigned.
        target: Place,
        /// The value.
        value: Expr,
    },
    /// Conditional with `elseif` branches.
    If {
        /// Conditions and branches, in order.
        branches: Vec<(Expr, Vec<Stmt>)>,
        /// The `else` branch.
        otherwise: Vec<Stmt>,
    },
    /// `for x in S`: local `var` ranges over the collection's elements in value order.
    ForIn {
        /// The loop variable's local slot.
        var: u32,
        /// The collection.
        collection: Expr,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `for x: T where P`: local `var` ranges over the values of `ty` that satisfy `cond`.
    ForWhere {
        /// The loop variable's local slot.
        var: u32,
        /// The type ranged over.
        ty: Type,
        /// The condition.
        cond: Expr,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `while P do … od`.
    While {
        /// The condition.
        cond: Expr,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `fire KIND act(args)`.
    Fire {
        /// The automaton whose action is fired.
        automaton: AutomatonId,
        /// The action.
        action: ActionId,
        /// Its arguments.
        args: Vec<Expr>,
        /// Values for the step's `choose`s.
        det: Option<Vec<Stmt>>,
    },
    /// No step.
    Ignore,
    /// A value for a `choose`.
    Yield(Expr),
    /// An effect's `ensuring` predicate, checked when the effect has run (the checker saves the
    /// pre-state values it reads into locals first); false is a run-time error.
    Ensure(Expr),
}

/// An assignable place: a variable followed by fields and indices.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Place {
    /// The variable.
    pub root: VarRef,
    /// Field and index steps into it.
    pub path: Vec<PlaceStep>,
}

/// One step into a place.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum PlaceStep {
    /// A tuple field by position.
    Field(u32),
    /// An array or map entry.
    Index(Expr),
}

/// What a name refers to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum VarRef {
    /// A state variable of the automaton in scope.
    State(u32),
    /// A parameter of the automaton in scope.
    Param(u32),
    /// A local: action parameter, quantified, loop or chosen variable.
    Local(u32),
    /// An auxiliary variable of a proof block or a schedule variable.
    Aux(u32),
    /// A state variable of a named automaton (in simulations).
    Qualified {
        /// The automaton.
        automaton: AutomatonId,
        /// The state slot.
        slot: u32,
    },
    /// A parameter of a named automaton (`A.n` in simulations and proof blocks).
    QualifiedParam {
        /// The automaton.
        automaton: AutomatonId,
        /// The parameter's position.
        param: u32,
    },
    /// A state variable of a component of a composite: `P[i].x` in the composite's own
    /// invariants, `A.P[i].x` in a simulation or proof block.
    Component {
        /// The composite automaton.
        automaton: AutomatonId,
        /// The component's position.
        component: u32,
        /// The family indices.
        indices: Vec<Expr>,
        /// The state slot in the component's automaton.
        slot: u32,
    },
}

/// A typed expression.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Expr {
    /// Its shape.
    pub kind: ExprKind,
    /// Its type.
    pub ty: Type,
    /// Where it is.
    pub span: Span,
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum UnOp {
    /// Boolean negation.
    Not,
    /// Integer negation.
    Neg,
}

/// Binary operators, resolved by operand type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum BinOp {
    /// `⇔`.
    Iff,
    /// `⇒` (short-circuit).
    Implies,
    /// `∨` (short-circuit).
    Or,
    /// `∧` (short-circuit).
    And,
    /// Equality of any type.
    Eq,
    /// Inequality of any type.
    Neq,
    /// Integer `<`.
    Lt,
    /// Integer `≤`.
    Le,
    /// Integer `>`.
    Gt,
    /// Integer `≥`.
    Ge,
    /// Integer `+`.
    Add,
    /// Integer `-`.
    Sub,
    /// Integer `*`.
    Mul,
    /// Integer division (floor).
    Div,
    /// Integer remainder (non-negative).
    Mod,
    /// Membership in a set, multiset or sequence.
    In,
    /// Non-membership.
    NotIn,
    /// Subset or equal (sets and multisets).
    SubsetEq,
    /// Proper subset.
    Subset,
    /// Union (sets; sum for multisets).
    Union,
    /// Intersection.
    Intersect,
    /// Difference.
    Difference,
    /// Append an element to a sequence.
    Append,
    /// Put an element in front of a sequence (`e ⊣ s`).
    Prepend,
    /// One sequence followed by another (`s || t`).
    Concat,
}

/// Built-in functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Builtin {
    /// `insert(x, S)`.
    Insert,
    /// `delete(x, S)`.
    Delete,
    /// `size(S)`.
    Size,
    /// `constant(v)`: the array or map with every entry `v`.
    Constant,
    /// `embed(v)`: into `Null[T]`.
    Embed,
    /// `head(s)`.
    Head,
    /// `tail(s)`.
    Tail,
    /// `min(a, b)`.
    Min,
    /// `max(a, b)`.
    Max,
    /// `min(S)` of a set of integers.
    SetMin,
    /// `max(S)` of a set of integers.
    SetMax,
    /// `abs(a)`.
    Abs,
    /// `defined(m, k)`: whether a map has the key.
    Defined,
    /// `update(m, k, v)`.
    Update,
    /// `empty`: the map with no entries.
    Empty,
    /// `last(s)`: a sequence's last element.
    Last,
    /// `init(s)`: a sequence without its last element.
    Init,
    /// `count(x, M)`: how many times a multiset holds `x`.
    Count,
}

/// The shapes of expressions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ExprKind {
    /// A variable.
    Var(VarRef),
    /// An integer.
    Int(i64),
    /// A Boolean.
    Bool(bool),
    /// A string.
    Str(String),
    /// `nil`.
    Nil,
    /// An enumeration constant (by position).
    EnumConst(u32),
    /// A tuple of the expression's (named tuple) type.
    Tuple(Vec<Expr>),
    /// A set, multiset or sequence literal, per the expression's type.
    Collection(Vec<Expr>),
    /// Unary operator.
    Unary(UnOp, Box<Expr>),
    /// Binary operator.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// Tuple field by position.
    Field(Box<Expr>, u32),
    /// The value inside a non-nil `Null`.
    NullVal(Box<Expr>),
    /// The payload of a union value with the given tag (error if the tag differs).
    UnionPayload(Box<Expr>, u32),
    /// A union value with the given tag.
    UnionNew(u32, Box<Expr>),
    /// Whether a union value has the given tag.
    Is(Box<Expr>, u32),
    /// Array, map or sequence lookup.
    Index(Box<Expr>, Box<Expr>),
    /// A built-in function.
    Call(Builtin, Vec<Expr>),
    /// A quantifier over locals with their types.
    Quant(Quantifier, Vec<(u32, Type)>, Box<Expr>),
    /// `if c then a else b`.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `choose x: T where P`.
    Choose {
        /// The chosen local.
        var: u32,
        /// The condition.
        cond: Option<Box<Expr>>,
        /// How to resolve it when executing.
        det: Option<Vec<Stmt>>,
    },
    /// `{x: T | P}`: the set of the values of the element type (the expression's type is
    /// `Set[T]`) that satisfy `cond`. Executing it needs a finite carrier for `T` (or a bound
    /// guard `x ∈ S ∧ …` at the front of `cond`), as a quantifier over `T` does.
    SetComp {
        /// The bound local.
        var: u32,
        /// The element type.
        elem: Type,
        /// The condition.
        cond: Box<Expr>,
    },
}
