//! What is in scope while one body (a transition, an invariant, a schedule, …) is checked, and
//! which statements that body may contain.

use crate::ir::{AutomatonId, Type};
use crate::span::Span;

/// The kind of block being checked; it decides which statements and names are allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// A predicate (invariant, precondition, relation, `where`): no statements.
    Predicate,
    /// A state variable's initial value: parameters only.
    Initializer,
    /// A transition's effect.
    Effect,
    /// A schedule's program.
    Schedule,
    /// A proof block's `start` assignments.
    ProofStart,
    /// A proof block's entry.
    ProofEntry,
}

impl Mode {
    /// The block's name in messages.
    pub fn place(self) -> &'static str {
        match self {
            Mode::Predicate => "a predicate",
            Mode::Initializer => "an initial value",
            Mode::Effect => "a transition's effect",
            Mode::Schedule => "a schedule",
            Mode::ProofStart => "a proof block's `start`",
            Mode::ProofEntry => "a proof block's entry",
        }
    }
}

/// A local variable in scope.
#[derive(Debug, Clone)]
pub(crate) struct Local {
    pub name: String,
    pub slot: u32,
    pub ty: Type,
    /// Whether it may be assigned (never, for locals; kept for messages).
    pub what: &'static str,
}

/// One body's scope.
pub(crate) struct Body {
    pub mode: Mode,
    /// The automaton whose state and parameters unqualified names may read.
    pub automaton: Option<AutomatonId>,
    /// Whether unqualified state variables are visible (not in initial values).
    pub state_visible: bool,
    /// Whether unqualified state variables may be assigned.
    pub state_writable: bool,
    /// Automata whose state may be read as `A.x` (simulations).
    pub qualified: Vec<AutomatonId>,
    /// The automaton `A.x := …` may assign (the specification, in `start`).
    pub qualified_writable: Option<AutomatonId>,
    /// Names a simulation's header gives to automaton parameters: each reads the parameter
    /// (automaton, position) it names first.
    pub header_params: Vec<(String, Type, (AutomatonId, u32))>,
    /// Schedule or auxiliary variables (`VarRef::Aux`).
    pub aux: Vec<(String, Type, Span)>,
    /// Locals, innermost last.
    pub locals: Vec<Local>,
    /// Slots handed out so far.
    pub n_locals: u32,
    /// Names of all slots, for messages.
    pub local_names: Vec<String>,
    /// The automaton `fire` statements fire.
    pub fire_target: Option<AutomatonId>,
    /// Inside `det do … od`: `yield`s produce values of this type.
    pub yield_type: Option<Type>,
    /// Inside a `fire … det` block, where each `yield` answers a different `choose`.
    pub yield_any: bool,
    /// Inside a `det do … od` block of its own (blocks do not nest).
    pub in_det: bool,
}

impl Body {
    /// A body of the given mode with nothing in scope.
    pub fn new(mode: Mode) -> Body {
        Body {
            mode,
            automaton: None,
            state_visible: false,
            state_writable: false,
            qualified: Vec::new(),
            qualified_writable: None,
            header_params: Vec::new(),
            aux: Vec::new(),
            locals: Vec::new(),
            n_locals: 0,
            local_names: Vec::new(),
            fire_target: None,
            yield_type: None,
            yield_any: false,
            in_det: false,
        }
    }

    /// A body that reads (and, for effects, writes) the state of `automaton`.
    pub fn of_automaton(mode: Mode, automaton: AutomatonId) -> Body {
        let mut b = Body::new(mode);
        b.automaton = Some(automaton);
        b.state_visible = mode != Mode::Initializer;
        b.state_writable = mode == Mode::Effect;
        b
    }

    /// Binds a new local and returns its slot.
    pub fn bind(&mut self, name: &str, ty: Type, what: &'static str) -> u32 {
        let slot = self.n_locals;
        self.n_locals += 1;
        self.local_names.push(name.to_string());
        self.locals.push(Local {
            name: name.to_string(),
            slot,
            ty,
            what,
        });
        slot
    }

    /// The innermost local of that name.
    pub fn local(&self, name: &str) -> Option<&Local> {
        self.locals.iter().rev().find(|l| l.name == name)
    }

    /// Marks a scope boundary; pass the result to [`Body::pop_to`].
    pub fn mark(&self) -> usize {
        self.locals.len()
    }

    /// Leaves the scopes entered since `mark`.
    pub fn pop_to(&mut self, mark: usize) {
        self.locals.truncate(mark);
    }
}
