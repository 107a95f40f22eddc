//! Which pairs of variables are related, and by what: the binary part of the grammar.
//!
//! Two variables are paired only if they can stand in one invariant (at most one index space
//! between them, so `∀ n: Node (voted[n] ⊆ ballots)` but not `voted[n]` with `val[b]`), and only
//! by relations their types admit:
//!
//! - numbers of the same comparability class (sizes of sets of one element type, or integers):
//!   order (`<`, `≤`, `=`) and linear relations — sizes of intersections take part only in
//!   unary invariants;
//! - sets of one element type: inclusion and equality, and disjointness;
//! - a value and a set of values of its type: membership;
//! - two values of one other type: equality.
//!
//! The key and value sets of an array or map (`keys(val)`, `values(val)`) are related only to
//! variables that do not depend on an index, so that their quantifier is the only one; the size
//! of a key set is related to nothing (it has unary invariants only).

use crate::track::{compare, linear, sets, Pair, Tracker};
use crate::vars::{compatible, Shape, Term, VarModel};
use ioa_lang::ir::Type;

/// Optional parts of the grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GrammarOptions {
    /// Propose `a·x + b·y + c = 0` (default: yes).
    pub linear: bool,
    /// Report bounds `x ≥ c` and `x ≤ c` only for constants `c` in this range. Daikon's default
    /// is −1 to 2: a larger bound (`size(succeeded) ≤ 12`) is nearly always an artefact of how
    /// long the runs were or how large the universe is.
    pub bounds: (i64, i64),
    /// Also propose conditional invariants, split on each value of each Boolean and
    /// enumeration variable (default: no).
    pub split: bool,
    /// Also propose conditional invariants split on whether some instance of an action is
    /// enabled ([`crate::preconditions`]; default: no). The model must have been given its
    /// action splits ([`crate::preconditions::add_action_splits`]).
    pub split_actions: bool,
}

impl Default for GrammarOptions {
    fn default() -> Self {
        GrammarOptions {
            linear: true,
            bounds: (-1, 2),
            split: false,
            split_actions: false,
        }
    }
}

/// The trackers for every related pair of variables of `model`.
pub fn pairs(model: &VarModel, options: GrammarOptions) -> Vec<Pair> {
    let mut out = Vec::new();
    let vars = &model.vars;
    for a in 0..vars.len() {
        for b in 0..vars.len() {
            if a == b {
                continue;
            }
            let (x, y) = (&vars[a], &vars[b]);
            if !x.proposes || !y.proposes || !x.relates || !y.relates {
                continue;
            }
            if !compatible(x.index, y.index) {
                continue;
            }
            let keyed = |v: &crate::vars::Var| matches!(v.term, Term::Keys(_) | Term::Values(_));
            if (keyed(x) && y.index.is_some()) || (keyed(y) && x.index.is_some()) {
                continue;
            }
            let mut push = |tracker| out.push(Pair { a, b, tracker });
            match (&x.shape, &y.shape) {
                // Symmetric relations are tracked once, for a < b.
                (Shape::Numeric, Shape::Numeric) if a < b && x.class == y.class => {
                    if x.is_intersection_size(model) || y.is_intersection_size(model) {
                        continue;
                    }
                    push(Tracker::Compare(compare::Compare::new(
                        x.floor(),
                        y.floor(),
                    )));
                    if options.linear {
                        push(Tracker::Linear(linear::Linear::default()));
                    }
                }
                (Shape::Set(e), Shape::Set(f)) if a < b && e == f => {
                    if keyed(x) && keyed(y) && matches!(x.term, Term::Values(_)) {
                        continue;
                    }
                    push(Tracker::SetRel(sets::SetRel::default()));
                    push(Tracker::Disjoint(sets::Disjoint::default()));
                }
                (Shape::Scalar | Shape::Numeric, Shape::Set(e)) if same_type(&x.ty, e) => {
                    push(Tracker::Member(sets::Member::default()));
                }
                (Shape::Scalar, Shape::Scalar) if a < b && x.ty == y.ty => {
                    push(Tracker::Equal(sets::Equal::default()));
                }
                _ => {}
            }
        }
    }
    out
}

/// Type equality with `Int` and `Nat` as one.
fn same_type(a: &Type, b: &Type) -> bool {
    let norm = |t: &Type| match t {
        Type::Nat => Type::Int,
        other => other.clone(),
    };
    norm(a) == norm(b)
}
