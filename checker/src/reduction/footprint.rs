//! What each action instance of a machine reads and writes, from the automaton text: the
//! independence relation of partial-order reduction rests on these sets and on nothing else.
//!
//! An action instance's *participants* are the primitive instances whose signature takes part
//! in it ([`Machine::participants`], which reads no state). Every participant's transitions
//! for the action contribute, all cases together (whichever case runs, the instance's
//! footprint covers it):
//! - *guard reads*: the state slots read by `const` arguments, `where` clauses and
//!   preconditions, which decide whether the instance is enabled;
//! - *reads*: the guard reads and every slot read by the effect;
//! - *writes*: every slot that is the root of an assignment's target.
//!
//! A set-valued variable is finer than one slot when an instance only tests and changes single
//! elements that its arguments fix: `e ∈ S`, `e ∉ S` read the *cell* `(S, e)`, and
//! `S := S ∪ {e}`, `S := S − {e}`, `insert(e, S)`, `delete(e, S)` write it, where `e` reads
//! only action parameters, automaton parameters and constants (so its value is known per
//! instance). Such accesses to different cells commute and cannot enable or disable each
//! other; any other access to `S` (its size, a quantifier over it, a loop, a comparison) is an
//! access to the whole variable, which depends on every cell. This is what lets a message
//! handler of one message be independent of the send of another through one network set.
//!
//! Effects of a primitive instance touch only its own variables (the interpreter executes each
//! participant over its own slice of the state), so the slots are the participant's own,
//! shifted by its offset. Anything the walk cannot place (an auxiliary variable, a reference to
//! another automaton) makes the footprint cover every slot: imprecise, never unsound.
//!
//! The checked invariants' reads are computed the same way (a composite's `P[i].x` is slot `x`
//! of every member of component `P`): an instance that writes one of them is *visible*.

use interpreter::eval::{NoChoice, Scope};
use interpreter::machine::Machine;
use interpreter::value::Value;
use ioa_lang::ir::{
    AutomatonBody, BinOp, Builtin, Expr, ExprKind, PlaceStep, Stmt, StmtKind, Type, VarRef,
};
use rustc_hash::FxHashMap;

use crate::ir_walk::walk_expr;
use crate::model::ActionInstance;

/// The places one action instance reads and writes (sorted, without repeats): ids below the
/// machine's slot count are whole slots, the others cells of set-valued slots ([`Cells`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Footprint {
    /// Slots whose values decide whether the instance is enabled.
    pub guard: Vec<u32>,
    /// Every slot it reads (the guard's included).
    pub reads: Vec<u32>,
    /// Every slot it may write.
    pub writes: Vec<u32>,
    /// Whether some participant of the instance exists (an instance no signature takes part in
    /// is never enabled).
    pub has_participants: bool,
}

/// The cells of set-valued slots met so far: id `n_slots + k` is cell `k`.
#[derive(Default)]
pub struct Cells {
    index: FxHashMap<(u32, Value), u32>,
    /// For each cell, its slot.
    pub slot_of: Vec<u32>,
}

impl Cells {
    fn id(&mut self, n_slots: usize, slot: u32, key: Value) -> u32 {
        let next = (n_slots + self.slot_of.len()) as u32;
        let id = *self.index.entry((slot, key)).or_insert(next);
        if id == next {
            self.slot_of.push(slot);
        }
        id
    }
}

/// What one participant's transition is walked with: where its slots start, the values of the
/// instance's arguments and of the automaton's parameters (to fix cell keys).
struct Site<'a> {
    machine: &'a Machine<'a>,
    offset: u32,
    params: &'a [Value],
    args: &'a [Value],
    /// The action's parameters are locals `0..n_args`.
    n_args: u32,
    n_locals: u32,
}

/// Collects the places one participant touches, or notes that it may touch anything.
struct Collect<'a, 'b> {
    site: &'b Site<'a>,
    cells: &'b mut Cells,
    out: &'b mut Vec<u32>,
    everything: &'b mut bool,
}

impl Collect<'_, '_> {
    /// The cell `(slot, e)` when `e` has a value fixed by the instance.
    fn cell(&mut self, slot: u32, e: &Expr) -> Option<u32> {
        let mut fixed = true;
        walk_expr(e, &mut |x| match &x.kind {
            ExprKind::Var(VarRef::Param(_) | VarRef::QualifiedParam { .. }) => {}
            ExprKind::Var(VarRef::Local(k)) if *k < self.site.n_args => {}
            ExprKind::Var(_) | ExprKind::Choose { .. } => fixed = false,
            _ => {}
        });
        if !fixed {
            return None;
        }
        let m = self.site.machine;
        let scope = Scope::params_only(m.spec, m.universe, self.site.params);
        let mut locals = self.site.args.to_vec();
        locals.resize(
            (self.site.n_locals as usize).max(locals.len()).max(1),
            Value::Bool(false),
        );
        let key = scope.eval(e, &mut locals, &mut NoChoice).ok()?;
        Some(self.cells.id(m.n_slots, self.site.offset + slot, key))
    }

    /// The set-valued state slot `e` is, if it is one.
    fn set_slot(e: &Expr) -> Option<u32> {
        match (&e.kind, &e.ty) {
            (ExprKind::Var(VarRef::State(s)), Type::Set(_)) => Some(*s),
            _ => None,
        }
    }

    fn var(&mut self, r: &VarRef) {
        match r {
            VarRef::State(s) => self.out.push(self.site.offset + s),
            VarRef::Param(_) | VarRef::Local(_) | VarRef::QualifiedParam { .. } => {}
            VarRef::Aux(_) | VarRef::Qualified { .. } | VarRef::Component { .. } => {
                *self.everything = true
            }
        }
    }

    /// The places `e` reads: membership tests of fixed elements read cells, every other
    /// state variable is read whole.
    fn expr(&mut self, e: &Expr) {
        if let ExprKind::Binary(BinOp::In | BinOp::NotIn, x, set) = &e.kind {
            if let Some(slot) = Self::set_slot(set) {
                if let Some(cell) = self.cell(slot, x) {
                    self.out.push(cell);
                    return;
                }
            }
        }
        match &e.kind {
            ExprKind::Var(r) => self.var(r),
            ExprKind::Choose { .. } => {
                // A `det` block holds statements; take every variable in it as read whole.
                walk_expr(e, &mut |x| {
                    if let ExprKind::Var(r) = &x.kind {
                        self.var(r)
                    }
                })
            }
            _ => for_each_child(e, &mut |x| self.expr(x)),
        }
    }

    /// The cells an assignment `S := S ∪ {e…}` (or `−`, `insert`, `delete`) writes, when every
    /// element is fixed; `None` for any other assignment.
    fn cell_update(&mut self, target: &ioa_lang::ir::Place, value: &Expr) -> Option<Vec<u32>> {
        let VarRef::State(slot) = target.root else {
            return None;
        };
        if !target.path.is_empty() {
            return None;
        }
        let elements: Vec<&Expr> = match &value.kind {
            ExprKind::Binary(BinOp::Union | BinOp::Difference, set, items)
                if Self::set_slot(set) == Some(slot) =>
            {
                match &items.kind {
                    ExprKind::Collection(xs) => xs.iter().collect(),
                    _ => return None,
                }
            }
            ExprKind::Call(Builtin::Insert | Builtin::Delete, xs)
                if xs.len() == 2 && Self::set_slot(&xs[1]) == Some(slot) =>
            {
                vec![&xs[0]]
            }
            _ => return None,
        };
        elements.into_iter().map(|x| self.cell(slot, x)).collect()
    }

    /// The places a statement reads.
    fn stmt_reads(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Assign { target, value } => {
                if self.cell_update(target, value).is_some() {
                    return;
                }
                for step in &target.path {
                    if let PlaceStep::Index(e) = step {
                        self.expr(e);
                    }
                }
                self.expr(value);
                // An assignment to a part of a variable (`a[i] := v`, `t.f := v`) keeps the
                // rest of it: the variable is read as well as written.
                if !target.path.is_empty() {
                    self.var(&target.root);
                }
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (c, body) in branches {
                    self.expr(c);
                    body.iter().for_each(|x| self.stmt_reads(x));
                }
                otherwise.iter().for_each(|x| self.stmt_reads(x));
            }
            StmtKind::ForIn {
                collection, body, ..
            } => {
                self.expr(collection);
                body.iter().for_each(|x| self.stmt_reads(x));
            }
            StmtKind::ForWhere { cond, body, .. } | StmtKind::While { cond, body } => {
                self.expr(cond);
                body.iter().for_each(|x| self.stmt_reads(x));
            }
            StmtKind::Fire { .. } => *self.everything = true,
            StmtKind::Yield(e) | StmtKind::Ensure(e) => self.expr(e),
            StmtKind::Ignore => {}
        }
    }

    /// The places a statement writes.
    fn stmt_writes(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Assign { target, value } => {
                if let Some(cells) = self.cell_update(target, value) {
                    self.out.extend(cells);
                    return;
                }
                match target.root {
                    VarRef::State(k) => self.out.push(self.site.offset + k),
                    VarRef::Local(_) => {}
                    _ => *self.everything = true,
                }
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (_, body) in branches {
                    body.iter().for_each(|x| self.stmt_writes(x));
                }
                otherwise.iter().for_each(|x| self.stmt_writes(x));
            }
            StmtKind::ForIn { body, .. }
            | StmtKind::ForWhere { body, .. }
            | StmtKind::While { body, .. } => body.iter().for_each(|x| self.stmt_writes(x)),
            StmtKind::Fire { .. } => *self.everything = true,
            StmtKind::Ignore | StmtKind::Yield(_) | StmtKind::Ensure(_) => {}
        }
    }
}

/// Calls `f` on each direct subexpression of `e` (the indices of a component reference
/// included; a `choose`'s condition, not its `det` block).
fn for_each_child(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    match &e.kind {
        ExprKind::Var(VarRef::Component { indices, .. }) => indices.iter().for_each(f),
        ExprKind::Var(_)
        | ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Str(_)
        | ExprKind::Nil
        | ExprKind::EnumConst(_) => {}
        ExprKind::Tuple(xs) | ExprKind::Collection(xs) | ExprKind::Call(_, xs) => {
            xs.iter().for_each(f)
        }
        ExprKind::Unary(_, x)
        | ExprKind::Field(x, _)
        | ExprKind::NullVal(x)
        | ExprKind::UnionPayload(x, _)
        | ExprKind::UnionNew(_, x)
        | ExprKind::Is(x, _)
        | ExprKind::Quant(_, _, x)
        | ExprKind::SetComp { cond: x, .. } => f(x),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
            f(a);
            f(b);
        }
        ExprKind::Cond(a, b, c) => {
            f(a);
            f(b);
            f(c);
        }
        ExprKind::Choose { cond, .. } => {
            if let Some(c) = cond {
                f(c)
            }
        }
    }
}

fn finish(mut slots: Vec<u32>, everything: bool, n_slots: usize) -> Vec<u32> {
    if everything {
        return (0..n_slots as u32).collect();
    }
    slots.sort_unstable();
    slots.dedup();
    slots
}

/// The footprint of every instance, in the order of `instances`, and the cells they name.
pub fn footprints(machine: &Machine, instances: &[ActionInstance]) -> (Vec<Footprint>, Cells) {
    let spec = machine.spec;
    let mut cells = Cells::default();
    let prints = instances
        .iter()
        .map(|instance| {
            let participants = match machine.participants(instance.action, &instance.args) {
                Ok(p) => p,
                // A signature check that fails at run time fails when the instance is tried,
                // too; until then, assume it may touch anything.
                Err(_) => {
                    let all: Vec<u32> = (0..machine.n_slots as u32).collect();
                    return Footprint {
                        guard: all.clone(),
                        reads: all.clone(),
                        writes: all,
                        has_participants: true,
                    };
                }
            };
            let (mut guard, mut reads, mut writes) = (Vec::new(), Vec::new(), Vec::new());
            let (mut guard_all, mut reads_all, mut writes_all) = (false, false, false);
            for (inst, _) in &participants {
                let i = &machine.instances[*inst];
                let AutomatonBody::Primitive(prim) = &spec.automata[i.automaton.0 as usize].body
                else {
                    guard_all = true;
                    reads_all = true;
                    writes_all = true;
                    continue;
                };
                let name = &machine.actions[instance.action].name;
                let offset = i.offset as u32;
                let own = &spec.automata[i.automaton.0 as usize].actions;
                for t in prim
                    .transitions
                    .iter()
                    .filter(|t| own[t.action.0 as usize].name == *name)
                {
                    let site = Site {
                        machine,
                        offset,
                        params: &i.params,
                        args: &instance.args,
                        n_args: own[t.action.0 as usize].params.len() as u32,
                        n_locals: t.n_locals,
                    };
                    let mut g = Collect {
                        site: &site,
                        cells: &mut cells,
                        out: &mut guard,
                        everything: &mut guard_all,
                    };
                    t.const_args.iter().for_each(|(_, e)| g.expr(e));
                    t.where_clause.iter().for_each(|e| g.expr(e));
                    t.pre.iter().for_each(|e| g.expr(e));
                    let mut r = Collect {
                        site: &site,
                        cells: &mut cells,
                        out: &mut reads,
                        everything: &mut reads_all,
                    };
                    t.eff.iter().for_each(|s| r.stmt_reads(s));
                    let mut w = Collect {
                        site: &site,
                        cells: &mut cells,
                        out: &mut writes,
                        everything: &mut writes_all,
                    };
                    t.eff.iter().for_each(|s| w.stmt_writes(s));
                }
            }
            reads.extend(&guard);
            let n = machine.n_slots;
            Footprint {
                guard: finish(guard, guard_all, n),
                reads: finish(reads, reads_all || guard_all, n),
                writes: finish(writes, writes_all, n),
                has_participants: !participants.is_empty(),
            }
        })
        .collect();
    (prints, cells)
}

/// The values of family indices that read no bound variable (`W[0]`, `N[[2]]`), if they
/// evaluate over the root's parameters.
fn fixed_indices(machine: &Machine, indices: &[Expr]) -> Option<Vec<Value>> {
    let mut bound = false;
    for e in indices {
        walk_expr(e, &mut |x| {
            if matches!(
                x.kind,
                ExprKind::Var(VarRef::Local(_) | VarRef::Aux(_) | VarRef::Component { .. })
                    | ExprKind::Choose { .. }
            ) {
                bound = true;
            }
        });
    }
    if bound {
        return None;
    }
    let scope = Scope::params_only(machine.spec, machine.universe, &machine.root_params);
    indices
        .iter()
        .map(|e| scope.eval(e, &mut [], &mut NoChoice).ok())
        .collect()
}

/// The slots the root's invariants read (every slot when one of them reads what the walk
/// cannot place).
pub fn invariant_reads(machine: &Machine) -> Vec<u32> {
    let spec = machine.spec;
    let root = &spec.automata[machine.root.0 as usize];
    let primitive_root = matches!(root.body, AutomatonBody::Primitive(_));
    let mut slots = Vec::new();
    let mut everything = false;
    for inv in spec
        .invariants
        .iter()
        .filter(|i| i.automaton == machine.root)
    {
        walk_expr(&inv.body, &mut |x| {
            let ExprKind::Var(r) = &x.kind else { return };
            match r {
                VarRef::State(s) if primitive_root => slots.push(*s),
                VarRef::Param(_) | VarRef::Local(_) | VarRef::QualifiedParam { .. } => {}
                VarRef::Component {
                    automaton,
                    component,
                    indices,
                    slot,
                } if *automaton == machine.root => {
                    // Indices that read no bound variable name one member; others (or indices
                    // that do not evaluate) any member: slot `slot` of each.
                    let fixed = fixed_indices(machine, indices);
                    for m in machine.members.iter().filter(|m| {
                        m.component == *component && fixed.as_ref().is_none_or(|f| *f == m.indices)
                    }) {
                        if m.instances.len() != 1 {
                            everything = true;
                            continue;
                        }
                        let i = &machine.instances[m.instances.start];
                        slots.push(i.offset as u32 + slot);
                    }
                }
                _ => everything = true,
            }
        });
    }
    finish(slots, everything, machine.n_slots)
}
