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
//! instance, or, inside a loop `for x: T where …` over a small carrier, one value per
//! iteration). Such accesses to different cells commute and cannot enable or disable each
//! other; any other access to `S` (its size, a quantifier over it, a loop, a comparison) is an
//! access to the whole variable, which depends on every cell. This is what lets a message
//! handler of one message be independent of the send of another through one network set.
//! An element that is a tuple some of whose fields read the state (`insert([i, b, lastVote],
//! S)`) names a *pattern* cell: every tuple with the fields that are fixed, conflicting with
//! each cell it matches. An array is cut the same way by its index: `a[e]` read or assigned
//! (`a[e] := v`, `a[e].f := v`) with `e` fixed is the cell `(a, e)`; any other use of `a` is
//! the whole variable.
//!
//! A participant whose every transition for the action has a precondition conjunct that reads
//! no state and is false (`lossy` of a reliable network's `lose`) never fires: the instance
//! is never enabled, and its footprint is empty.
//!
//! Effects of a primitive instance touch only its own variables (the interpreter executes each
//! participant over its own slice of the state), so the slots are the participant's own,
//! shifted by its offset. Anything the walk cannot place (an auxiliary variable, a reference to
//! another automaton) makes the footprint cover every slot: imprecise, never unsound.
//!
//! The checked invariants' reads are computed the same way (a composite's `P[i].x` is slot `x`
//! of every member of component `P`): an instance that writes one of them is *visible*.

use interpreter::eval::{NoChoice, Scope};
use interpreter::int_bounds::conjuncts;
use interpreter::machine::Machine;
use interpreter::value::Value;
use ioa_lang::ast::ActionKind;
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
    /// Of the guard's places, those read only by precondition conjuncts that stay false once
    /// false ([`super::stable`]), by its one controlling participant: a step of another
    /// instance that writes them can disable this one, but only for good (see
    /// [`super::stubborn`]).
    pub permanent: Vec<u32>,
    /// Whether some participant of the instance exists (an instance no signature takes part in
    /// is never enabled).
    pub has_participants: bool,
}

/// The places one precondition conjunct (or transition `where` clause) of a participant that
/// controls the action reads: while it is false and they keep their values, the instance stays
/// disabled, so their writers are a necessary enabling set on their own. The conjunct is named
/// by its span, as the interpreter names a false one
/// ([`interpreter::machine::Disabled::Precondition`]) and the compiled engine too
/// ([`crate::compiled::CompiledModel::false_conjunct`]); an instance's conjuncts are kept only
/// when it has one controlling participant, so the span tells them apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conjunct {
    /// The conjunct's span.
    pub span: ioa_lang::span::Span,
    /// The places it reads: their writers may make it true, unless it stays false.
    pub places: Vec<u32>,
    /// Whether it stays false once false ([`super::stable`]): then no step makes it true.
    pub stays_false: bool,
}

/// The cells of set- and array-valued slots met so far: id `n_slots + k` is cell `k`.
///
/// A cell is keyed by one value (the element of a set, the index of an array), or by a
/// *pattern*: a tuple some of whose fields are not fixed by the instance (`insert([i, b,
/// lastVote], S)`, whose last field reads the state), which stands for every tuple with the
/// fixed fields. Two cells of one slot conflict when some value matches both.
#[derive(Default)]
pub struct Cells {
    index: FxHashMap<(u32, Key), u32>,
    /// For each cell, its slot.
    pub slot_of: Vec<u32>,
    /// For each cell, its key.
    keys: Vec<Key>,
}

/// What a cell is keyed by.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    /// One value.
    Value(Value),
    /// Every tuple whose fields are the given ones where they are `Some`.
    Pattern(Vec<Option<Value>>),
}

impl Key {
    /// Whether some value matches both keys.
    fn overlaps(&self, other: &Key) -> bool {
        let fits = |pattern: &[Option<Value>], v: &Value| match v {
            Value::Tuple(fields) => {
                fields.len() != pattern.len()
                    || pattern
                        .iter()
                        .zip(fields.iter())
                        .all(|(p, f)| p.as_ref().is_none_or(|p| p == f))
            }
            // Not a tuple (it cannot be, in a well-typed model): conflicting, to be safe.
            _ => true,
        };
        match (self, other) {
            (Key::Value(a), Key::Value(b)) => a == b,
            (Key::Pattern(p), Key::Value(v)) | (Key::Value(v), Key::Pattern(p)) => fits(p, v),
            (Key::Pattern(p), Key::Pattern(q)) => {
                p.len() != q.len()
                    || p.iter()
                        .zip(q)
                        .all(|(a, b)| a.is_none() || b.is_none() || a == b)
            }
        }
    }
}

impl Cells {
    pub(super) fn id(&mut self, n_slots: usize, slot: u32, key: Value) -> u32 {
        self.key_id(n_slots, slot, Key::Value(key))
    }

    fn key_id(&mut self, n_slots: usize, slot: u32, key: Key) -> u32 {
        let next = (n_slots + self.slot_of.len()) as u32;
        let id = *self.index.entry((slot, key.clone())).or_insert(next);
        if id == next {
            self.slot_of.push(slot);
            self.keys.push(key);
        }
        id
    }

    /// For each cell, the other cells of its slot it conflicts with (through a pattern; two
    /// cells keyed by values never do).
    pub fn overlaps(&self, n_slots: usize) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); self.keys.len()];
        let patterns: Vec<usize> = (0..self.keys.len())
            .filter(|&k| matches!(self.keys[k], Key::Pattern(_)))
            .collect();
        for &p in &patterns {
            for q in 0..self.keys.len() {
                if q != p
                    && self.slot_of[q] == self.slot_of[p]
                    && self.keys[p].overlaps(&self.keys[q])
                {
                    out[p].push((n_slots + q) as u32);
                    out[q].push((n_slots + p) as u32);
                }
            }
        }
        for list in &mut out {
            list.sort_unstable();
            list.dedup();
        }
        out
    }
}

/// What one participant's transition is walked with: where its slots start, the values of the
/// instance's arguments and of the automaton's parameters (to fix cell keys).
pub(super) struct Site<'a> {
    machine: &'a Machine<'a>,
    offset: u32,
    /// The types of the participant's state variables.
    state_types: &'a [Type],
    params: &'a [Value],
    args: &'a [Value],
    /// The action's parameters are locals `0..n_args`.
    n_args: u32,
    n_locals: u32,
}

impl<'a> Site<'a> {
    /// A site for a transition of primitive `instance` with `n_locals` locals, fired with
    /// `args` (the transition's action has `n_args` parameters).
    pub(super) fn new(
        machine: &'a Machine<'a>,
        instance: &'a interpreter::machine::Instance,
        args: &'a [Value],
        n_args: u32,
        n_locals: u32,
    ) -> Self {
        Site {
            machine,
            offset: instance.offset as u32,
            state_types: &instance.state_types,
            params: &instance.params,
            args,
            n_args,
            n_locals,
        }
    }

    /// A site for a transition without arguments (the instance of a parameterless action).
    pub(super) fn without_args(
        machine: &'a Machine<'a>,
        instance: &'a interpreter::machine::Instance,
        n_locals: u32,
    ) -> Self {
        Site::new(machine, instance, &[], 0, n_locals)
    }

    /// The scope of the automaton's parameters, and locals holding the instance's arguments
    /// (at least `at_least` of them).
    fn scope_and_locals(&self, at_least: usize) -> (Scope<'_>, Vec<Value>) {
        let m = self.machine;
        let mut locals = self.args.to_vec();
        locals.resize(
            (self.n_locals as usize).max(locals.len()).max(at_least),
            Value::Bool(false),
        );
        (Scope::params_only(m.spec, m.universe, self.params), locals)
    }

    /// The value of `e` when it reads only the instance's arguments, the automaton's
    /// parameters and constants.
    pub(super) fn fixed_value(&self, e: &Expr) -> Option<Value> {
        let mut fixed = true;
        walk_expr(e, &mut |x| match &x.kind {
            ExprKind::Var(VarRef::Param(_) | VarRef::QualifiedParam { .. }) => {}
            ExprKind::Var(VarRef::Local(k)) if *k < self.n_args => {}
            ExprKind::Var(_) | ExprKind::Choose { .. } | ExprKind::Quant(..) => fixed = false,
            _ => {}
        });
        if !fixed {
            return None;
        }
        let (scope, mut locals) = self.scope_and_locals(1);
        scope.eval(e, &mut locals, &mut NoChoice).ok()
    }

    /// Whether a conjunct of `pre` that reads no state is false: then the transition never
    /// fires (a lossless network's `lose` action), in any state.
    pub(super) fn never_fires(&self, pre: &[Expr]) -> bool {
        pre.iter()
            .flat_map(conjuncts)
            .any(|e| self.fixed_value(e) == Some(Value::Bool(false)))
    }
}

/// Collects the places one participant touches, or notes that it may touch anything.
struct Collect<'a, 'b> {
    site: &'b Site<'a>,
    cells: &'b mut Cells,
    out: &'b mut Vec<u32>,
    everything: &'b mut bool,
    /// The enclosing `for x: T where …` loops whose variable takes few values.
    bound: Vec<Bound>,
}

/// A loop variable (a local) and the values it may take: a cell keyed by it stands for one
/// cell per value. This is what makes a broadcast (`for j: Node where … do S := insert([j, b],
/// S) od`) write one cell per destination instead of the whole set.
struct Bound {
    var: u32,
    values: Vec<Value>,
}

/// The most values a loop variable may take for its cells to be listed one by one.
const MAX_LOOP_VALUES: usize = 64;

impl Collect<'_, '_> {
    /// The cells `(slot, e)` when `e` has a value fixed by the instance, or one value per
    /// iteration of the enclosing `for x: T where …` loops it reads (see [`Bound`]).
    fn cell(&mut self, slot: u32, e: &Expr) -> Option<Vec<u32>> {
        if let Some(cells) = self.value_cells(slot, e) {
            return Some(cells);
        }
        // A tuple some of whose fields are not fixed: the pattern of those that are.
        let ExprKind::Tuple(fields) = &e.kind else {
            return None;
        };
        let pattern: Vec<Option<Value>> = fields.iter().map(|x| self.site.fixed_value(x)).collect();
        if pattern.iter().all(Option::is_none) {
            return None;
        }
        let m = self.site.machine;
        Some(vec![self.cells.key_id(
            m.n_slots,
            self.site.offset + slot,
            Key::Pattern(pattern),
        )])
    }

    /// The cells `(slot, v)` for the values `v` of `e` when fixed by the instance, or one per
    /// iteration of the enclosing loops it reads.
    fn value_cells(&mut self, slot: u32, e: &Expr) -> Option<Vec<u32>> {
        let mut fixed = true;
        let mut loops: Vec<usize> = Vec::new();
        walk_expr(e, &mut |x| match &x.kind {
            ExprKind::Var(VarRef::Param(_) | VarRef::QualifiedParam { .. }) => {}
            ExprKind::Var(VarRef::Local(k)) if *k < self.site.n_args => {}
            ExprKind::Var(VarRef::Local(k)) => match self.bound.iter().rposition(|b| b.var == *k) {
                Some(at) if !loops.contains(&at) => loops.push(at),
                Some(_) => {}
                None => fixed = false,
            },
            ExprKind::Var(_) | ExprKind::Choose { .. } => fixed = false,
            _ => {}
        });
        if !fixed {
            return None;
        }
        let m = self.site.machine;
        let (scope, mut locals) = self.site.scope_and_locals(1);
        if loops.iter().any(|&b| self.bound[b].values.is_empty()) {
            return Some(Vec::new());
        }
        // Every combination of the loop variables' values (an odometer over `loops`).
        let mut at = vec![0usize; loops.len()];
        let mut out = Vec::new();
        loop {
            for (k, &b) in loops.iter().enumerate() {
                let bound = &self.bound[b];
                *locals.get_mut(bound.var as usize)? = bound.values[at[k]].clone();
            }
            let key = scope.eval(e, &mut locals, &mut NoChoice).ok()?;
            out.push(self.cells.id(m.n_slots, self.site.offset + slot, key));
            let mut k = 0;
            while k < loops.len() {
                at[k] += 1;
                if at[k] < self.bound[loops[k]].values.len() {
                    break;
                }
                at[k] = 0;
                k += 1;
            }
            if k == loops.len() {
                return Some(out);
            }
        }
    }

    /// The values the loop variable of `for var: ty where cond` takes in some state: every
    /// value of `ty`'s carrier, less those for which `cond`, read over the parameters and the
    /// instance's arguments, is false. `None` when the carrier is not finite and small.
    fn loop_values(&self, var: u32, ty: &Type, cond: &Expr) -> Option<Bound> {
        let m = self.site.machine;
        let carrier = m.carrier(ty, cond.span).ok()?;
        if carrier.is_empty() || carrier.len() > MAX_LOOP_VALUES {
            return None;
        }
        let (scope, mut locals) = self.site.scope_and_locals(var as usize + 1);
        for b in &self.bound {
            locals[b.var as usize] = b.values[0].clone();
        }
        let reads_outer = {
            let mut outer = false;
            walk_expr(cond, &mut |x| {
                if let ExprKind::Var(VarRef::Local(k)) = &x.kind {
                    if *k != var && *k >= self.site.n_args {
                        outer = true;
                    }
                }
            });
            outer
        };
        let values = carrier
            .iter()
            .filter(|v| {
                if reads_outer {
                    return true;
                }
                locals[var as usize] = (*v).clone();
                // A condition that does not evaluate here (it reads state) keeps the value.
                !matches!(
                    scope.eval(cond, &mut locals, &mut NoChoice),
                    Ok(Value::Bool(false))
                )
            })
            .cloned()
            .collect::<Vec<_>>();
        Some(Bound { var, values })
    }

    /// The set-valued state slot `e` is, if it is one.
    fn set_slot(e: &Expr) -> Option<u32> {
        match (&e.kind, &e.ty) {
            (ExprKind::Var(VarRef::State(s)), Type::Set(_)) => Some(*s),
            _ => None,
        }
    }

    /// The array-valued state slot `e` is, if it is one (an array's cells are its indices).
    fn array_slot(e: &Expr) -> Option<u32> {
        match (&e.kind, &e.ty) {
            (ExprKind::Var(VarRef::State(s)), Type::Array(..)) => Some(*s),
            _ => None,
        }
    }

    /// The cells of array slot `root` that an assignment to `root[k]…` writes, when `k` names
    /// cells.
    fn element_cells(&mut self, target: &ioa_lang::ir::Place) -> Option<Vec<u32>> {
        let VarRef::State(slot) = target.root else {
            return None;
        };
        let Some(PlaceStep::Index(k)) = target.path.first() else {
            return None;
        };
        let is_array = matches!(
            self.site.state_types.get(slot as usize),
            Some(Type::Array(..))
        );
        if !is_array {
            return None;
        }
        self.cell(slot, k)
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
                if let Some(cells) = self.cell(slot, x) {
                    self.out.extend(cells);
                    // What a pattern's loose fields read.
                    self.expr(x);
                    return;
                }
            }
        }
        if let ExprKind::Index(array, k) = &e.kind {
            if let Some(slot) = Self::array_slot(array) {
                if let Some(cells) = self.cell(slot, k) {
                    self.out.extend(cells);
                    self.expr(k);
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
    fn cell_update<'e>(
        &mut self,
        target: &ioa_lang::ir::Place,
        value: &'e Expr,
    ) -> Option<(Vec<u32>, Vec<&'e Expr>)> {
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
        let mut cells = Vec::new();
        for x in &elements {
            cells.extend(self.cell(slot, x)?);
        }
        Some((cells, elements))
    }

    /// Runs `f` inside the loop `for var: ty where cond`, its variable bound to its values
    /// when they are few and known.
    fn in_loop(&mut self, var: u32, ty: &Type, cond: &Expr, f: impl FnOnce(&mut Self)) {
        let bound = self.loop_values(var, ty, cond);
        let pushed = bound.is_some();
        if let Some(b) = bound {
            self.bound.push(b);
        }
        f(self);
        if pushed {
            self.bound.pop();
        }
    }

    /// The places a statement reads.
    fn stmt_reads(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Assign { target, value } => {
                if let Some((_, elements)) = self.cell_update(target, value) {
                    // What a pattern's loose fields read.
                    elements.into_iter().for_each(|x| self.expr(x));
                    return;
                }
                for step in &target.path {
                    if let PlaceStep::Index(e) = step {
                        self.expr(e);
                    }
                }
                self.expr(value);
                // An assignment to a part of a variable (`a[i] := v`, `t.f := v`) keeps the
                // rest of it: the variable (or the array's element) is read as well as written.
                if let Some(cells) = self.element_cells(target) {
                    if target.path.len() > 1 {
                        self.out.extend(cells);
                    }
                } else if !target.path.is_empty() {
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
            StmtKind::ForWhere {
                var,
                ty,
                cond,
                body,
            } => {
                self.expr(cond);
                self.in_loop(*var, ty, cond, |c| {
                    body.iter().for_each(|x| c.stmt_reads(x))
                });
            }
            StmtKind::While { cond, body } => {
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
                if let Some((cells, _)) = self.cell_update(target, value) {
                    self.out.extend(cells);
                    return;
                }
                if let Some(cells) = self.element_cells(target) {
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
            StmtKind::ForWhere {
                var,
                ty,
                cond,
                body,
            } => self.in_loop(*var, ty, cond, |c| {
                body.iter().for_each(|x| c.stmt_writes(x))
            }),
            StmtKind::ForIn { body, .. } | StmtKind::While { body, .. } => {
                body.iter().for_each(|x| self.stmt_writes(x))
            }
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

/// What [`footprints`] finds: for each instance its footprint and its conjuncts (empty when
/// some controlling participant has more than one transition for the action, or a conjunct reads
/// what the walk cannot place), and the cells they name.
pub struct Footprints {
    /// The footprints, in the order of the instances.
    pub prints: Vec<Footprint>,
    /// The conjuncts, in the order of the instances.
    pub conjuncts: Vec<Vec<Conjunct>>,
    /// The cells.
    pub cells: Cells,
}

/// The footprint of every instance, in the order of `instances`, and the cells they name.
pub fn footprints(machine: &Machine, instances: &[ActionInstance]) -> Footprints {
    let spec = machine.spec;
    let kinds = super::stable::kinds(spec);
    let mut cells = Cells::default();
    let mut all_conjuncts = Vec::with_capacity(instances.len());
    let prints = instances
        .iter()
        .map(|instance| {
            let mut conjuncts: Vec<Conjunct> = Vec::new();
            let mut conjuncts_known = true;
            let participants = match machine.participants(instance.action, &instance.args) {
                Ok(p) => p,
                // A signature check that fails at run time fails when the instance is tried,
                // too; until then, assume it may touch anything.
                Err(_) => {
                    let all: Vec<u32> = (0..machine.n_slots as u32).collect();
                    all_conjuncts.push(Vec::new());
                    return Footprint {
                        guard: all.clone(),
                        reads: all.clone(),
                        writes: all,
                        has_participants: true,
                        permanent: Vec::new(),
                    };
                }
            };
            let (mut guard, mut reads, mut writes) = (Vec::new(), Vec::new(), Vec::new());
            // The places read by conjuncts that stay false, and by anything else of the guard.
            let (mut sticky, mut loose) = (Vec::new(), Vec::new());
            // A participant none of whose transitions for the action can fire makes the
            // instance never enabled: it then conflicts with nothing.
            let mut never = false;
            let (mut guard_all, mut reads_all, mut writes_all) = (false, false, false);
            for (inst, kind) in &participants {
                let i = &machine.instances[*inst];
                let AutomatonBody::Primitive(prim) = &spec.automata[i.automaton.0 as usize].body
                else {
                    guard_all = true;
                    reads_all = true;
                    writes_all = true;
                    conjuncts_known = false;
                    continue;
                };
                let name = &machine.actions[instance.action].name;
                let own = &spec.automata[i.automaton.0 as usize].actions;
                let mut fires = false;
                let mut has_transition = false;
                for t in prim
                    .transitions
                    .iter()
                    .filter(|t| own[t.action.0 as usize].name == *name)
                {
                    has_transition = true;
                    let site = Site::new(
                        machine,
                        i,
                        &instance.args,
                        own[t.action.0 as usize].params.len() as u32,
                        t.n_locals,
                    );
                    if site.never_fires(&t.pre) {
                        continue;
                    }
                    fires = true;
                    // A controlling participant's conjuncts, each with the places it reads.
                    if *kind != ActionKind::Input {
                        for e in t.where_clause.iter().chain(&t.pre) {
                            let (mut places, mut everything) = (Vec::new(), false);
                            let mut c = Collect {
                                site: &site,
                                cells: &mut cells,
                                out: &mut places,
                                everything: &mut everything,
                                bound: Vec::new(),
                            };
                            c.expr(e);
                            if everything {
                                conjuncts_known = false;
                            }
                            let stays_false = kinds
                                .as_ref()
                                .and_then(|k| k[i.automaton.0 as usize].as_ref())
                                .is_some_and(|k| k.stays_false(e, site.n_args));
                            if stays_false {
                                sticky.extend(&places);
                            } else {
                                loose.extend(&places);
                            }
                            conjuncts.push(Conjunct {
                                span: e.span,
                                places: finish(places, false, machine.n_slots),
                                stays_false,
                            });
                        }
                    }
                    let mut g = Collect {
                        site: &site,
                        cells: &mut cells,
                        out: &mut guard,
                        everything: &mut guard_all,
                        bound: Vec::new(),
                    };
                    t.const_args.iter().for_each(|(_, e)| g.expr(e));
                    t.where_clause.iter().for_each(|e| g.expr(e));
                    t.pre.iter().for_each(|e| g.expr(e));
                    // What the guard reads outside the controlling conjuncts.
                    let mut everything = false;
                    let mut o = Collect {
                        site: &site,
                        cells: &mut cells,
                        out: &mut loose,
                        everything: &mut everything,
                        bound: Vec::new(),
                    };
                    t.const_args.iter().for_each(|(_, e)| o.expr(e));
                    if *kind == ActionKind::Input {
                        t.where_clause.iter().for_each(|e| o.expr(e));
                        t.pre.iter().for_each(|e| o.expr(e));
                    }
                    let mut r = Collect {
                        site: &site,
                        cells: &mut cells,
                        out: &mut reads,
                        everything: &mut reads_all,
                        bound: Vec::new(),
                    };
                    t.eff.iter().for_each(|s| r.stmt_reads(s));
                    let mut w = Collect {
                        site: &site,
                        cells: &mut cells,
                        out: &mut writes,
                        everything: &mut writes_all,
                        bound: Vec::new(),
                    };
                    t.eff.iter().for_each(|s| w.stmt_writes(s));
                }
                never |= has_transition && !fires;
                let cases = prim
                    .transitions
                    .iter()
                    .filter(|t| own[t.action.0 as usize].name == *name)
                    .count();
                if *kind != ActionKind::Input && cases > 1 {
                    conjuncts_known = false;
                }
            }
            // Conjuncts are named by span alone, which is one conjunct only with one
            // controller (an instance with two is never enabled anyway).
            if participants
                .iter()
                .filter(|(_, kind)| *kind != ActionKind::Input)
                .count()
                > 1
            {
                conjuncts_known = false;
            }
            all_conjuncts.push(if conjuncts_known && !never {
                conjuncts
            } else {
                Vec::new()
            });
            if never {
                return Footprint::default();
            }
            let n = machine.n_slots;
            // Read only by conjuncts that stay false: not by the effects, nor by anything else
            // of the guard (known only when the conjuncts are).
            let permanent = if conjuncts_known && !guard_all && !reads_all {
                let mut elsewhere = reads.clone();
                elsewhere.extend(&loose);
                let elsewhere = finish(elsewhere, false, n);
                let mut sticky = finish(sticky, false, n);
                sticky.retain(|p| elsewhere.binary_search(p).is_err());
                sticky
            } else {
                Vec::new()
            };
            reads.extend(&guard);
            Footprint {
                guard: finish(guard, guard_all, n),
                reads: finish(reads, reads_all || guard_all, n),
                writes: finish(writes, writes_all, n),
                has_participants: !participants.is_empty(),
                permanent,
            }
        })
        .collect();
    Footprints {
        prints,
        conjuncts: all_conjuncts,
        cells,
    }
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
