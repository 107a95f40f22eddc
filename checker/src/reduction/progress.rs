//! Whether a machine's state graph has cycles (other than steps back to the same state), from
//! the automaton text: when it has none, partial-order reduction needs no cycle proviso
//! ([`super`]'s note), and any stubborn set will do in every state.
//!
//! The cycle proviso exists for one failure: a reduced search that goes round a cycle for ever
//! while an instance outside every set on it waits. In a graph without cycles that cannot
//! happen. Protocols over reliable networks are often like that — every step consumes a message,
//! raises a ballot or fills in a decision — and there the proviso is pure cost: in the composite
//! Paxos with two ballots it refuses the smallest set in more than a third of the states,
//! because the graph is not graded (two runs of 2 and 4 steps end in the same state), so a
//! set whose steps all lead to states already stored is common and harmless.
//!
//! **The argument.** Give each state variable an order from its type: `false < true`, integers
//! by value, sets and multisets by inclusion, sequences by length, `nil` below every
//! `embed(…)`, arrays and tuples field by field. An assignment *moves* its variable up or down
//! when its shape says so whatever the state (`insert(e, S)` up, `delete(e, S)` and `{}` down,
//! `x + 1` up, `nil` down, `x := e` under a known `e > x` up, ...), and it moves it *strictly*
//! when a fact known at that point (a precondition conjunct or an enclosing `if` condition,
//! nothing it reads assigned since) says the value changes (`delete(e, S)` under `e ∈ S`,
//! `embed(v)` under `x = nil`). Anything else moves its variable anyhow.
//!
//! An action instance *makes progress* among a set of instances T when every way through its
//! participants' effects (each branch of each `if`, one per participant, their product)
//! either moves strictly, in its direction, a variable that no instance of T moves the other way
//! or anyhow; or moves only such variables (so, as moves in a partial order, it changes the
//! state only by moving one of them strictly). No cycle of T-steps contains a step of such an
//! instance: the variable would have to come back. Starting from T = every instance, the
//! instances that make progress are removed, and again, until nothing changes; if nothing is
//! left, no cycle exists (the first instance of a cycle to be removed would have been on a cycle
//! of the T of its round).
//!
//! In the composite Paxos over a reliable network, `prepare` raises `cbal` (which only
//! `prepare` writes); then nothing adds to the network's `prepares`, so each `recvPrepare`
//! consumes one; then `sendPromise` only empties `outPromises`; and so on: five rounds.
//! Over a network that duplicates, a stale message can be received and duplicated for ever,
//! and the analysis says so.
//!
//! Anything it cannot read (another automaton's variable, `fire`, too many branches) leaves
//! the instance in T: the answer is "may have cycles", never a wrong "has none".

use interpreter::int_bounds::conjuncts;
use interpreter::machine::Machine;
use interpreter::value::Value;
use ioa_lang::ast::ActionKind;
use ioa_lang::ir::{
    AutomatonBody, BinOp, Builtin, Expr, ExprKind, Place, PlaceStep, Stmt, StmtKind, Type, UnOp,
    VarRef,
};

use super::footprint::Site;
use super::stable::{reads, same, Var};
use crate::model::ActionInstance;

/// Which way an assignment moves its variable, in the order of the variable's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dir {
    Up,
    Down,
    /// Either way, or to a value neither above nor below.
    Any,
}

/// One assignment on one way through an instance's effects: the machine slot it assigns, the
/// direction, and whether it surely changes the value.
#[derive(Debug, Clone, Copy)]
struct Move {
    slot: u32,
    dir: Dir,
    strict: bool,
}

/// The most ways through one instance's effects that are followed; more, and the instance is
/// taken to be able to lie on a cycle.
const MAX_WAYS: usize = 256;

/// What the analysis found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acyclicity {
    /// For each instance, the round that found it makes progress (from 1; see the module's
    /// note), or `None` when it may lie on a cycle.
    pub round_of: Vec<Option<usize>>,
    acyclic: bool,
}

impl Acyclicity {
    /// Whether the state graph has no cycles other than self-loops.
    pub fn acyclic(&self) -> bool {
        self.acyclic
    }

    /// How many rounds removed instances.
    pub fn rounds(&self) -> usize {
        self.round_of.iter().flatten().copied().max().unwrap_or(0)
    }
}

/// The analysis of `machine`, whose action instances are `instances`.
pub fn acyclicity(machine: &Machine, instances: &[ActionInstance]) -> Acyclicity {
    let ways: Vec<Option<Vec<Vec<Move>>>> = instances.iter().map(|i| ways(machine, i)).collect();
    let mut open: Vec<usize> = (0..instances.len()).collect();
    let mut round_of = vec![None; instances.len()];
    let mut round = 1;
    loop {
        // The directions the instances still open move each slot in (any way at all, while
        // one whose effects cannot be read is open).
        let unreadable = open.iter().any(|&k| ways[k].is_none());
        let mut up = vec![!unreadable; machine.n_slots];
        let mut down = vec![!unreadable; machine.n_slots];
        for &k in &open {
            for m in ways[k].iter().flatten().flatten() {
                let s = m.slot as usize;
                match m.dir {
                    Dir::Up => down[s] = false,
                    Dir::Down => up[s] = false,
                    Dir::Any => {
                        up[s] = false;
                        down[s] = false;
                    }
                }
            }
        }
        let valid = |slot: u32, dir: Dir| match dir {
            Dir::Up => up[slot as usize],
            Dir::Down => down[slot as usize],
            Dir::Any => false,
        };
        let before = open.len();
        open.retain(|&k| match &ways[k] {
            Some(ways) if ways.iter().all(|w| progresses(w, &valid)) => {
                round_of[k] = Some(round);
                false
            }
            _ => true,
        });
        if open.len() == before {
            break;
        }
        round += 1;
    }
    Acyclicity {
        acyclic: open.is_empty(),
        round_of,
    }
}

/// Whether one way through an instance's effects, if it changes the state, moves some variable
/// strictly in a direction `valid` allows.
fn progresses(way: &[Move], valid: &dyn Fn(u32, Dir) -> bool) -> bool {
    // A slot assigned in one direction only (every move of it), allowed.
    let steady = |slot: u32| {
        let mut dirs = way.iter().filter(|m| m.slot == slot).map(|m| m.dir);
        let first = dirs.next().expect("a slot of the way");
        dirs.all(|d| d == first) && valid(slot, first)
    };
    way.iter().any(|m| m.strict && steady(m.slot)) || way.iter().all(|m| steady(m.slot))
}

/// Every way through the effects of `instance`'s participants (the product over participants
/// of each one's ways); `None` when some effect cannot be read.
fn ways(machine: &Machine, instance: &ActionInstance) -> Option<Vec<Vec<Move>>> {
    let spec = machine.spec;
    let participants = machine.participants(instance.action, &instance.args).ok()?;
    let name = &machine.actions[instance.action].name;
    let mut product: Vec<Vec<Move>> = vec![Vec::new()];
    for (inst, kind) in &participants {
        let i = &machine.instances[*inst];
        let automaton = &spec.automata[i.automaton.0 as usize];
        let AutomatonBody::Primitive(prim) = &automaton.body else {
            return None;
        };
        let transitions = || {
            prim.transitions
                .iter()
                .filter(|t| automaton.actions[t.action.0 as usize].name == *name)
        };
        let mut own_ways: Vec<Vec<Move>> = Vec::new();
        let mut has_transition = false;
        for t in transitions() {
            has_transition = true;
            let n_args = automaton.actions[t.action.0 as usize].params.len() as u32;
            let site = Site::new(machine, i, &instance.args, n_args, t.n_locals);
            if site.never_fires(&t.pre) {
                continue;
            }
            let mut walk = Walk {
                site: &site,
                offset: i.offset as u32,
                ways: Vec::new(),
                unreadable: false,
            };
            let facts = t
                .where_clause
                .iter()
                .chain(&t.pre)
                .flat_map(conjuncts)
                .map(|e| (e, 0))
                .collect();
            walk.run(vec![&t.eff], facts, Vec::new(), Vec::new());
            if walk.unreadable {
                return None;
            }
            own_ways.extend(walk.ways);
        }
        // A participant without a transition for the action does nothing, and so does an
        // input none of whose transitions applies (a `where` clause or a `const` argument
        // leaves the arguments out).
        let may_skip = *kind == ActionKind::Input
            && transitions().any(|t| t.where_clause.is_some() || !t.const_args.is_empty());
        if !has_transition || may_skip {
            own_ways.push(Vec::new());
        }
        let mut next = Vec::new();
        for a in &product {
            for b in &own_ways {
                next.push(a.iter().chain(b).copied().collect());
            }
        }
        if next.len() > MAX_WAYS {
            return None;
        }
        // No way through one participant (it never fires): the instance is never enabled.
        product = next;
    }
    Some(product)
}

/// Follows the ways through one transition's effect.
struct Walk<'a, 'b> {
    site: &'b Site<'a>,
    offset: u32,
    ways: Vec<Vec<Move>>,
    unreadable: bool,
}

impl<'e> Walk<'_, '_> {
    /// Follows the statements of `rest` (the innermost block last), with `facts` known, each
    /// from the time `written` had so many entries, and the moves of the way so far.
    fn run(
        &mut self,
        mut rest: Vec<&'e [Stmt]>,
        facts: Vec<(&'e Expr, usize)>,
        mut written: Vec<Var>,
        mut way: Vec<Move>,
    ) {
        loop {
            if self.unreadable {
                return;
            }
            let Some(block) = rest.pop() else {
                if self.ways.len() >= MAX_WAYS {
                    self.unreadable = true;
                } else {
                    self.ways.push(way);
                }
                return;
            };
            let Some((s, tail)) = block.split_first() else {
                continue;
            };
            rest.push(tail);
            match &s.kind {
                StmtKind::Assign { target, value } => {
                    self.assign(target, value, &facts, &mut written, false, &mut way)
                }
                StmtKind::If {
                    branches,
                    otherwise,
                } => {
                    let mut taken: Vec<(Option<&'e Expr>, &'e [Stmt])> = Vec::new();
                    let mut settled = false;
                    for (c, body) in branches {
                        match self.site.fixed_value(c) {
                            Some(Value::Bool(false)) => {}
                            Some(Value::Bool(true)) => {
                                taken.push((None, body));
                                settled = true;
                                break;
                            }
                            _ => taken.push((Some(c), body)),
                        }
                    }
                    if !settled {
                        taken.push((None, otherwise));
                    }
                    for (c, body) in taken {
                        let mut facts = facts.clone();
                        if let Some(c) = c {
                            facts.extend(conjuncts(c).into_iter().map(|e| (e, written.len())));
                        }
                        let mut rest = rest.clone();
                        rest.push(body);
                        self.run(rest, facts, written.clone(), way.clone());
                    }
                    return;
                }
                StmtKind::ForIn { var, body, .. } | StmtKind::ForWhere { var, body, .. } => {
                    written.push(Var::Local(*var));
                    self.repeated(body, &mut written, &mut way);
                }
                StmtKind::While { body, .. } => self.repeated(body, &mut written, &mut way),
                StmtKind::Fire { .. } => self.unreadable = true,
                StmtKind::Ignore | StmtKind::Yield(_) | StmtKind::Ensure(_) => {}
            }
        }
    }

    /// The moves of a loop's body, run any number of times: every assignment of every branch,
    /// none of them strict, without facts (an earlier iteration may have changed what they
    /// read).
    fn repeated(&mut self, body: &'e [Stmt], written: &mut Vec<Var>, way: &mut Vec<Move>) {
        for s in body {
            match &s.kind {
                StmtKind::Assign { target, value } => {
                    self.assign(target, value, &[], written, true, way)
                }
                StmtKind::If {
                    branches,
                    otherwise,
                } => {
                    for (_, b) in branches {
                        self.repeated(b, written, way);
                    }
                    self.repeated(otherwise, written, way);
                }
                StmtKind::ForIn { var, body, .. } | StmtKind::ForWhere { var, body, .. } => {
                    written.push(Var::Local(*var));
                    self.repeated(body, written, way);
                }
                StmtKind::While { body, .. } => self.repeated(body, written, way),
                StmtKind::Fire { .. } => self.unreadable = true,
                StmtKind::Ignore | StmtKind::Yield(_) | StmtKind::Ensure(_) => {}
            }
        }
    }

    /// Adds the move of `target := value` to `way` (nothing for a local; unreadable for
    /// another automaton's variable), and its variable to `written`.
    fn assign(
        &mut self,
        target: &Place,
        value: &Expr,
        facts: &[(&'e Expr, usize)],
        written: &mut Vec<Var>,
        in_loop: bool,
        way: &mut Vec<Move>,
    ) {
        let slot = match target.root {
            VarRef::State(x) => self.offset + x,
            VarRef::Local(k) => {
                written.push(Var::Local(k));
                return;
            }
            _ => {
                self.unreadable = true;
                return;
            }
        };
        // A fact still true: nothing it reads assigned since it held.
        let usable: Vec<&Expr> = facts
            .iter()
            .filter(|(f, since)| {
                reads(f).is_some_and(|vars| vars.iter().all(|v| !written[*since..].contains(v)))
            })
            .map(|(f, _)| *f)
            .collect();
        if let Some((dir, strict)) = direction(target, value, &usable) {
            way.push(Move {
                slot,
                dir,
                strict: strict && !in_loop,
            });
        }
        if let VarRef::State(x) = target.root {
            written.push(Var::State(x));
        }
    }
}

/// Whether `e` reads the place `target` assigns (the same variable, fields and indices).
fn is_place(e: &Expr, target: &Place) -> bool {
    fn go(e: &Expr, root: &VarRef, path: &[PlaceStep]) -> bool {
        match path.split_last() {
            None => matches!(&e.kind, ExprKind::Var(r) if r == root),
            Some((PlaceStep::Field(i), outer)) => {
                matches!(&e.kind, ExprKind::Field(x, j) if j == i && go(x, root, outer))
            }
            Some((PlaceStep::Index(k), outer)) => {
                matches!(&e.kind, ExprKind::Index(x, k2) if same(k, k2) && go(x, root, outer))
            }
        }
    }
    go(e, &target.root, &target.path)
}

/// The direction `target := value` moves the target in (`None`: it does not change it), and
/// whether `facts` say it surely changes it.
fn direction(target: &Place, value: &Expr, facts: &[&Expr]) -> Option<(Dir, bool)> {
    let here = |e: &Expr| is_place(e, target);
    let known = |f: &dyn Fn(&Expr) -> bool| facts.iter().any(|e| f(e));
    // `¬here`, `here = false`.
    let is_false = |e: &Expr| match &e.kind {
        ExprKind::Unary(UnOp::Not, x) => here(x),
        ExprKind::Binary(BinOp::Eq, a, b) => {
            (here(a) && matches!(b.kind, ExprKind::Bool(false)))
                || (here(b) && matches!(a.kind, ExprKind::Bool(false)))
        }
        _ => false,
    };
    // `x ∈ here` for an `x` like `element`.
    let member = |e: &Expr, element: &Expr| matches!(&e.kind, ExprKind::Binary(BinOp::In, x, s) if here(s) && same(x, element));
    let not_member = |e: &Expr, element: &Expr| match &e.kind {
        ExprKind::Binary(BinOp::NotIn, x, s) => here(s) && same(x, element),
        ExprKind::Unary(UnOp::Not, inner) => member(inner, element),
        _ => false,
    };
    // `here = nil` (`is_nil`) or `here ≠ nil`.
    let nil_test = |e: &Expr, is_nil: bool| match &e.kind {
        ExprKind::Binary(op @ (BinOp::Eq | BinOp::Neq), a, b) if (*op == BinOp::Eq) == is_nil => {
            (here(a) && matches!(b.kind, ExprKind::Nil))
                || (here(b) && matches!(a.kind, ExprKind::Nil))
        }
        _ => false,
    };
    let literal = |e: &Expr| match e.kind {
        ExprKind::Int(c) => Some(c),
        _ => None,
    };
    if here(value) {
        return None;
    }
    let moved = match &value.kind {
        ExprKind::Bool(true) => (Dir::Up, known(&is_false)),
        ExprKind::Bool(false) => (Dir::Down, known(&|e| here(e))),
        ExprKind::Nil => (Dir::Down, known(&|e| nil_test(e, false))),
        // Anything is at least `nil`, the bottom of its flat order; strictly when not `nil`.
        _ if matches!(value.ty, Type::Null(_)) && known(&|e| nil_test(e, true)) => {
            let not_nil = |e: &Expr| match &e.kind {
                ExprKind::Binary(BinOp::Neq, a, b) => {
                    (same(a, value) && matches!(b.kind, ExprKind::Nil))
                        || (same(b, value) && matches!(a.kind, ExprKind::Nil))
                }
                _ => false,
            };
            let some = matches!(value.kind, ExprKind::Call(Builtin::Embed, _));
            (Dir::Up, some || known(&not_nil))
        }
        ExprKind::Collection(xs) if xs.is_empty() => (Dir::Down, false),
        ExprKind::Call(Builtin::Insert, xs) if xs.len() == 2 && here(&xs[1]) => {
            let element = &xs[0];
            let fresh = matches!(value.ty, Type::Mset(_)) || known(&|e| not_member(e, element));
            (Dir::Up, fresh)
        }
        ExprKind::Call(Builtin::Delete, xs) if xs.len() == 2 && here(&xs[1]) => {
            let element = &xs[0];
            (Dir::Down, known(&|e| member(e, element)))
        }
        ExprKind::Binary(BinOp::Union, a, b) if here(a) || here(b) => (Dir::Up, false),
        ExprKind::Binary(BinOp::Intersect, a, b) if here(a) || here(b) => (Dir::Down, false),
        ExprKind::Binary(BinOp::Difference, a, _) if here(a) => (Dir::Down, false),
        // Sequences, by length.
        ExprKind::Binary(BinOp::Append, a, _) if here(a) => (Dir::Up, true),
        ExprKind::Binary(BinOp::Prepend, _, b) if here(b) => (Dir::Up, true),
        ExprKind::Binary(BinOp::Concat, a, b) if here(a) || here(b) => (Dir::Up, false),
        ExprKind::Call(Builtin::Tail, xs) if xs.len() == 1 && here(&xs[0]) => (Dir::Down, false),
        // Numbers.
        ExprKind::Binary(BinOp::Add, a, b) if numeric(&value.ty) => {
            match (here(a), here(b), literal(a), literal(b)) {
                (true, _, _, Some(c)) | (_, true, Some(c), _) if c >= 0 => (Dir::Up, c > 0),
                _ => bounded(value, target, facts)?,
            }
        }
        ExprKind::Binary(BinOp::Sub, a, b) if numeric(&value.ty) => match (here(a), literal(b)) {
            (true, Some(c)) if c >= 0 => (Dir::Down, c > 0),
            _ => bounded(value, target, facts)?,
        },
        ExprKind::Call(Builtin::Max, xs) if xs.iter().any(here) => (Dir::Up, false),
        ExprKind::Call(Builtin::Min, xs) if xs.iter().any(here) => (Dir::Down, false),
        _ if numeric(&value.ty) => bounded(value, target, facts)?,
        _ => (Dir::Any, false),
    };
    Some(moved)
}

/// Whether values of `ty` are ordered as numbers.
fn numeric(ty: &Type) -> bool {
    matches!(ty, Type::Int | Type::Nat | Type::Real | Type::Char)
}

/// The direction of `target := value` for a number, from a fact comparing `value` with the
/// target (`value > target`, `value ≥ max(…, target, …)`, ...): `Any` without one.
fn bounded(value: &Expr, target: &Place, facts: &[&Expr]) -> Option<(Dir, bool)> {
    // Whether `e ≥ target` (`up`) or `e ≤ target` whatever the state.
    fn covers(e: &Expr, target: &Place, up: bool) -> bool {
        match &e.kind {
            ExprKind::Call(Builtin::Max, xs) if up => xs.iter().any(|x| covers(x, target, up)),
            ExprKind::Call(Builtin::Min, xs) if !up => xs.iter().any(|x| covers(x, target, up)),
            _ => is_place(e, target),
        }
    }
    for f in facts {
        let (big, small, strict) = match &f.kind {
            ExprKind::Binary(BinOp::Gt, a, b) => (a, b, true),
            ExprKind::Binary(BinOp::Ge, a, b) => (a, b, false),
            ExprKind::Binary(BinOp::Lt, a, b) => (b, a, true),
            ExprKind::Binary(BinOp::Le, a, b) => (b, a, false),
            _ => continue,
        };
        if same(big, value) && covers(small, target, true) {
            return Some((Dir::Up, strict));
        }
        if same(small, value) && covers(big, target, false) {
            return Some((Dir::Down, strict));
        }
    }
    Some((Dir::Any, false))
}
