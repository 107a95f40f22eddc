//! The invariant grammar ([`Kind`], [`Invariant`]) and what became of each candidate
//! ([`Finding`], [`Verdict`]).

use crate::vars::VarId;
use interpreter::value::Value;
use serde::Serialize;

/// The shape of an invariant. Unary kinds read `vars[0]`; binary kinds relate `vars[0]` (x, A)
/// to `vars[1]` (y, B).
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// `x = c`: the variable had one value.
    Const(Value),
    /// `x = c1 ∨ x = c2 [∨ x = c3]`: the variable had two or three values.
    OneOf(Vec<Value>),
    /// `x ≥ c`.
    Lower(i64),
    /// `x ≤ c`.
    Upper(i64),
    /// `x < y`.
    Less,
    /// `x ≤ y`.
    LessEq,
    /// `x = y`, for numbers, sets or any other values.
    Equal,
    /// `a·x + b·y + c = 0` (coefficients without common factor, `a > 0`).
    Linear(i64, i64, i64),
    /// `A ⊆ B`.
    Subset,
    /// `size(A ∩ B) = 0`.
    Disjoint,
    /// `x ∈ A`.
    Member,
}

impl Kind {
    /// A short stable name for JSON and messages.
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Const(_) => "constant",
            Kind::OneOf(_) => "one-of",
            Kind::Lower(_) => "lower-bound",
            Kind::Upper(_) => "upper-bound",
            Kind::Less => "less",
            Kind::LessEq => "less-or-equal",
            Kind::Equal => "equal",
            Kind::Linear(..) => "linear",
            Kind::Subset => "subset",
            Kind::Disjoint => "disjoint",
            Kind::Member => "member",
        }
    }

    /// The order kinds are listed in, among invariants over the same variables.
    pub fn rank(&self) -> u8 {
        match self {
            Kind::Const(_) => 0,
            Kind::OneOf(_) => 1,
            Kind::Lower(_) => 2,
            Kind::Upper(_) => 3,
            Kind::Equal => 4,
            Kind::Subset => 5,
            Kind::Disjoint => 6,
            Kind::Member => 7,
            Kind::Less => 8,
            Kind::LessEq => 9,
            Kind::Linear(..) => 10,
        }
    }
}

/// The premise of a conditional invariant: a Boolean or enumeration variable has one value
/// (`pc[i] = critical ⇒ …`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Condition {
    /// The variable tested.
    pub var: VarId,
    /// The value it has.
    pub value: Value,
}

/// One candidate invariant.
#[derive(Debug, Clone, PartialEq)]
pub struct Invariant {
    /// Its shape.
    pub kind: Kind,
    /// The variables it relates.
    pub vars: Vec<VarId>,
    /// For a conditional invariant, the premise (it was detected on the samples where it holds).
    pub condition: Option<Condition>,
}

impl Invariant {
    /// A unary invariant.
    pub fn unary(kind: Kind, x: VarId) -> Self {
        Invariant {
            kind,
            vars: vec![x],
            condition: None,
        }
    }

    /// Every variable it reads, the condition's included.
    pub fn all_vars(&self) -> Vec<VarId> {
        let mut out = self.vars.clone();
        if let Some(c) = &self.condition {
            out.push(c.var);
        }
        out
    }

    /// A binary invariant.
    pub fn binary(kind: Kind, x: VarId, y: VarId) -> Self {
        Invariant {
            kind,
            vars: vec![x, y],
            condition: None,
        }
    }
}

/// A sample that falsified a candidate: where it was and what the variables held.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Witness {
    /// The run (`schedule NormalRun`, `random run, seed 3`).
    pub trace: String,
    /// The state's position in the run (0 is the start state).
    pub state: usize,
    /// The step that led to the state, in the paper's log format.
    pub action: Option<String>,
    /// The quantified index, for an invariant over array elements (`n = [1]`).
    pub index: Option<String>,
    /// The variables' values in that state.
    pub values: Vec<(String, String)>,
}

/// Why a candidate is not reported.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Held on every sample and is unlikely to hold by chance: reported.
    Reported,
    /// A sample contradicts it.
    Falsified(Box<Witness>),
    /// Held on every sample, but too few informative samples make that convincing.
    Unjustified,
    /// Holds, but follows from other invariants (or from the types); `by` are the findings
    /// (indices into the report's list) it follows from.
    Suppressed {
        /// The findings it follows from (may be empty for type facts).
        by: Vec<usize>,
        /// The rule, in words.
        reason: String,
    },
    /// Holds, but cannot be written in IOA (e.g. needs an existential quantifier).
    Unprintable,
}

/// A candidate with its evidence and verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The candidate.
    pub invariant: Invariant,
    /// The number of informative samples counted for it.
    pub samples: u64,
    /// The chance that it held on those samples by accident, under its kind's model.
    pub probability: f64,
    /// The probability model, in words (`0.5^n`).
    pub model: &'static str,
    /// What became of it.
    pub verdict: Verdict,
}

impl Finding {
    /// Whether it held on every sample (reported, unjustified or suppressed).
    pub fn held(&self) -> bool {
        !matches!(self.verdict, Verdict::Falsified(_))
    }

    /// Whether it is (still) to be reported.
    pub fn reported(&self) -> bool {
        matches!(self.verdict, Verdict::Reported)
    }
}
