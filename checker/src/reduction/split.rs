//! Action instances that pick their message with `choose`, split into one instance per
//! message for the independence analysis.
//!
//! A network's loss and duplication are naturally written without parameters, the message
//! picked in the effect:
//!
//! ```text
//! internal losePrepare
//!   pre lossy ∧ prepares ≠ {}
//!   eff prepares := delete(choose m: PrepareTo where m ∈ prepares, prepares)
//! ```
//!
//! As one instance, `losePrepare` reads and writes the whole set, so it depends on every send
//! and every receipt through it, and partial-order reduction finds no small stubborn set in any
//! state with a message in flight. But its steps are those of one instance per message `c`:
//! enabled when `c ∈ prepares` (which implies `prepares ≠ {}`), removing `c` only. Those
//! *split instances* have the footprint of a message handler: the cells `(prepares, c)`.
//!
//! A step of the real instance is told apart by what it changed in the set (the one message it
//! removed or added); a step whose change is not one message makes the state expand fully.
//!
//! The shape recognised (anything else is not split):
//! - one participant, with one transition for the action, no parameters, `where` or `const`;
//! - the effect is one assignment `S := delete(choose m: T where C, S)` (or `insert`), with
//!   `S` a set-valued state variable and `T`'s carrier small;
//! - `C` is a conjunction of `m ∈ X` and `¬(m ∈ X)` over set-valued state variables `X`, and
//!   makes every choice change `S`: `m ∈ S` for `delete`, `¬(m ∈ S)` for `insert`;
//! - each conjunct of the precondition reads no state, or is implied by `C` for some `m`:
//!   `S ≠ {}` (with `m ∈ S` in `C`) or `¬(D ⊆ S)` (with `m ∈ D` and `¬(m ∈ S)` in `C`).

use interpreter::machine::Machine;
use interpreter::value::Value;
use ioa_lang::ir::{AutomatonBody, BinOp, Builtin, Expr, ExprKind, StmtKind, Type, UnOp, VarRef};
use rustc_hash::FxHashMap;

use super::footprint::{Cells, Footprint, Site};
use crate::model::ActionInstance;
use interpreter::int_bounds::conjuncts;

/// The most messages a split instance is split into.
const MAX_VALUES: usize = 4096;

/// One real instance split per message.
#[derive(Debug, Clone)]
pub struct Split {
    /// The set-valued slot the instance changes (the machine's numbering).
    pub slot: u32,
    /// The split instances' ids, by message.
    pub ids: FxHashMap<Value, u32>,
}

/// A membership test of the chosen local in a set-valued state slot.
struct Test {
    slot: u32,
    member: bool,
}

/// The split of instance `instance` when it has the recognised shape: the set's slot, and for
/// each message its footprint.
pub fn split(
    machine: &Machine,
    instance: &ActionInstance,
    cells: &mut Cells,
) -> Option<(u32, Vec<(Value, Footprint)>)> {
    if !instance.args.is_empty() {
        return None;
    }
    let spec = machine.spec;
    let participants = machine.participants(instance.action, &instance.args).ok()?;
    let [(inst, _)] = participants.as_slice() else {
        return None;
    };
    let i = &machine.instances[*inst];
    let AutomatonBody::Primitive(prim) = &spec.automata[i.automaton.0 as usize].body else {
        return None;
    };
    let own = &spec.automata[i.automaton.0 as usize].actions;
    let name = &machine.actions[instance.action].name;
    let mut transitions = prim
        .transitions
        .iter()
        .filter(|t| own[t.action.0 as usize].name == *name);
    let t = transitions.next()?;
    if transitions.next().is_some()
        || !t.const_args.is_empty()
        || t.where_clause.is_some()
        || t.eff.len() != 1
    {
        return None;
    }
    let StmtKind::Assign { target, value } = &t.eff[0].kind else {
        return None;
    };
    let (VarRef::State(slot), true) = (&target.root, target.path.is_empty()) else {
        return None;
    };
    let slot = *slot;
    let ExprKind::Call(builtin @ (Builtin::Insert | Builtin::Delete), xs) = &value.kind else {
        return None;
    };
    let [chosen, set] = xs.as_slice() else {
        return None;
    };
    if state_slot(set) != Some(slot) {
        return None;
    }
    let ExprKind::Choose {
        var,
        cond: Some(cond),
        det: None,
    } = &chosen.kind
    else {
        return None;
    };
    let mut tests = Vec::new();
    tests_of(cond, *var, &mut tests)?;
    let changes = match builtin {
        Builtin::Delete => tests.iter().any(|x| x.slot == slot && x.member),
        _ => tests.iter().any(|x| x.slot == slot && !x.member),
    };
    if !changes {
        return None;
    }
    let offset = i.offset as u32;
    let site = Site::without_args(machine, i, t.n_locals);
    for e in t.pre.iter().flat_map(conjuncts) {
        // Any other conjunct must read no state and hold (one that is false makes the
        // instance never fire, which the footprints handle before splitting).
        if !implied(e, slot, &tests) && site.fixed_value(e) != Some(Value::Bool(true)) {
            return None;
        }
    }
    let carrier = machine.carrier(&chosen.ty, chosen.span).ok()?;
    if carrier.len() > MAX_VALUES {
        return None;
    }
    let n = machine.n_slots;
    let prints = carrier
        .iter()
        .map(|c| {
            let mut guard: Vec<u32> = tests
                .iter()
                .map(|x| cells.id(n, offset + x.slot, c.clone()))
                .collect();
            guard.sort_unstable();
            guard.dedup();
            let write = cells.id(n, offset + slot, c.clone());
            let footprint = Footprint {
                reads: guard.clone(),
                guard,
                writes: vec![write],
                has_participants: true,
                permanent: Vec::new(),
            };
            (c.clone(), footprint)
        })
        .collect();
    Some((offset + slot, prints))
}

/// The state slot `e` is, when it is a set-valued state variable.
fn state_slot(e: &Expr) -> Option<u32> {
    match (&e.kind, &e.ty) {
        (ExprKind::Var(VarRef::State(s)), Type::Set(_)) => Some(*s),
        _ => None,
    }
}

/// The membership tests of local `var` that `cond` is a conjunction of; `None` for any other
/// shape.
fn tests_of(cond: &Expr, var: u32, out: &mut Vec<Test>) -> Option<()> {
    let is_var = |e: &Expr| matches!(e.kind, ExprKind::Var(VarRef::Local(k)) if k == var);
    match &cond.kind {
        ExprKind::Binary(BinOp::And, a, b) => {
            tests_of(a, var, out)?;
            tests_of(b, var, out)
        }
        ExprKind::Binary(op @ (BinOp::In | BinOp::NotIn), x, set) if is_var(x) => {
            out.push(Test {
                slot: state_slot(set)?,
                member: *op == BinOp::In,
            });
            Some(())
        }
        ExprKind::Unary(UnOp::Not, inner) => match &inner.kind {
            ExprKind::Binary(op @ (BinOp::In | BinOp::NotIn), x, set) if is_var(x) => {
                out.push(Test {
                    slot: state_slot(set)?,
                    member: *op == BinOp::NotIn,
                });
                Some(())
            }
            _ => None,
        },
        _ => None,
    }
}

/// Whether precondition conjunct `e` holds whenever some message satisfies `tests`: `S ≠ {}`
/// when `m ∈ S` is a test; `¬(D ⊆ S)` when `m ∈ D` and `¬(m ∈ S)` are.
fn implied(e: &Expr, slot: u32, tests: &[Test]) -> bool {
    let has = |s: u32, member: bool| tests.iter().any(|x| x.slot == s && x.member == member);
    match &e.kind {
        ExprKind::Binary(BinOp::Neq, a, b) => {
            let empty = |x: &Expr| matches!(&x.kind, ExprKind::Collection(xs) if xs.is_empty());
            let set = match (state_slot(a), state_slot(b)) {
                (Some(s), None) if empty(b) => s,
                (None, Some(s)) if empty(a) => s,
                _ => return false,
            };
            has(set, true)
        }
        ExprKind::Unary(UnOp::Not, inner) => match &inner.kind {
            ExprKind::Binary(BinOp::SubsetEq, d, s) => match (state_slot(d), state_slot(s)) {
                (Some(d), Some(s)) => s == slot && has(d, true) && has(s, false),
                _ => false,
            },
            _ => false,
        },
        _ => false,
    }
}
