//! What a `for` loop nest writes, and whether its iterations are independent: the one analysis
//! behind both pointwise encodings of loops (the SMT axioms of `smt::pointwise`, the HOL terms
//! of `isabelle::loops`), so that `ioa prove` and `ioa export isabelle` accept the same loops.
//!
//! A loop (with the loops, `if`s and assignments inside it) is encoded as one simultaneous
//! update when no iteration can see what another writes. Each assignment must be
//! - `X[p₁]…[pₘ] := e`, an entry the iteration owns: every loop around the assignment is one of
//!   the indices, and each index is a loop variable or reads none (a family member's
//!   `x[j] := e` inside the family's loop over `k` is `P.x[k][j] := e` after flattening); or
//! - `S := insert(e, S)`, `S := S ∪ {e}`, `S := delete(e, S)` or `S := S − {e}` on a set `S`,
//!   which may also be an entry `X[p₁]…[pₘ]` with indices as above (the loops need not all be
//!   among them: insertions commute, and so do deletions).
//!
//! Several `:=` to one variable must write the same entry in different branches of one `if`;
//! a set may not gain elements in one place and lose them in another. Nothing the nest
//! evaluates (conditions, inner loops' ranges, indices, values) may read a variable it writes,
//! except the entry `X[p₁]…[pₘ]` that the iteration itself writes, and before writing it
//! (`x[j] := x[j] + 1`, or a member's condition on its own state before its effect changes it).

use ioa_lang::ir::{
    AutomatonId, BinOp, Builtin, Expr, ExprKind, PlaceStep, Stmt, StmtKind, Type, VarRef,
};
use ioa_lang::span::Span;

/// A loop variable of the nest.
#[derive(Debug, Clone)]
pub struct LoopVar<'s> {
    /// Its local slot.
    pub slot: u32,
    /// The type of its values.
    pub elem: Type,
    /// What it ranges over.
    pub range: Range<'s>,
    /// The loop.
    pub span: Span,
}

/// What a loop variable ranges over.
#[derive(Debug, Clone, Copy)]
pub enum Range<'s> {
    /// `for x in C`: the elements of the collection.
    In(&'s Expr),
    /// `for x: T where P`: the values satisfying the condition.
    Where(&'s Expr),
}

/// What one assignment does to its place.
#[derive(Debug, Clone, Copy)]
pub enum WriteKind<'s> {
    /// The set gains the element.
    Insert(&'s Expr),
    /// The set loses the element.
    Delete(&'s Expr),
    /// The entry becomes the value.
    Point(&'s Expr),
}

impl<'s> WriteKind<'s> {
    /// The element or value.
    pub fn expr(&self) -> &'s Expr {
        match self {
            WriteKind::Insert(e) | WriteKind::Delete(e) | WriteKind::Point(e) => e,
        }
    }
}

/// One assignment of the nest.
#[derive(Debug, Clone)]
pub struct Write<'s> {
    /// The assignment.
    pub stmt: &'s Stmt,
    /// The variable written.
    pub root: &'s VarRef,
    /// The indices of the place written (empty: the whole variable).
    pub path: Vec<&'s Expr>,
    /// What it does.
    pub kind: WriteKind<'s>,
    /// The conditions it runs under, in order: (negated?, condition).
    pub guards: Vec<(bool, &'s Expr)>,
    /// The loops around it, outermost first (indices into [`Nest::vars`]).
    pub scope: Vec<usize>,
    branches: Vec<(usize, usize)>,
    seq: usize,
}

/// A loop nest: its loop variables (the outermost first) and its assignments, in order.
#[derive(Debug, Clone, Default)]
pub struct Nest<'s> {
    /// The loop variables.
    pub vars: Vec<LoopVar<'s>>,
    /// The assignments.
    pub writes: Vec<Write<'s>>,
    reads: Vec<Read<'s>>,
    seq: usize,
    ifs: usize,
}

/// Something the nest evaluates, where.
#[derive(Debug, Clone)]
struct Read<'s> {
    expr: &'s Expr,
    seq: usize,
    branches: Vec<(usize, usize)>,
}

/// Why the iterations of a loop may depend on each other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoopProblem {
    /// Something the loop evaluates reads the variable (beyond the entry the iteration owns,
    /// before writing it).
    ReadsWritten {
        /// The variable.
        var: String,
    },
    /// Writes of the variable that may conflict: an insertion and a deletion, or `:=` to
    /// places that are not one entry in different branches of one `if`.
    ConflictingWrites {
        /// The variable.
        var: String,
    },
    /// `:=` to a place that the loops around it do not all index (every iteration would write
    /// it), or an index computed from a loop variable.
    SharedPlace {
        /// The variable.
        var: String,
    },
    /// An assignment of a whole variable that is not an insertion or deletion.
    UnrecognisedWrite {
        /// The variable.
        var: String,
    },
}

impl LoopProblem {
    /// The message's part after "depend on each other".
    pub fn reason(&self) -> String {
        match self {
            LoopProblem::ReadsWritten { var } => {
                format!("the body reads `{var}`, which the loop also writes")
            }
            LoopProblem::ConflictingWrites { var } => {
                format!("`{var}` is written in conflicting ways")
            }
            LoopProblem::SharedPlace { var } => {
                format!("every iteration may assign the same place in `{var}`")
            }
            LoopProblem::UnrecognisedWrite { var } => format!(
                "`{var}` is assigned as a whole in every iteration, not by adding or removing an element"
            ),
        }
    }

    /// The secondary label at the offending statement.
    pub fn label(&self) -> String {
        match self {
            LoopProblem::ReadsWritten { var } => format!("reads `{var}`"),
            LoopProblem::ConflictingWrites { var } => format!("writes `{var}` again"),
            LoopProblem::SharedPlace { var } => format!("assigns the same place in `{var}`"),
            LoopProblem::UnrecognisedWrite { .. } => "not a pointwise update".to_string(),
        }
    }

    /// What to write instead: statements `ioa check`, `ioa prove` and the export all accept,
    /// written as in the loop's own code (a family member's, too); `tests/sim_gaps.rs` applies
    /// each to a model and checks the result.
    pub fn hint(&self) -> String {
        match self {
            LoopProblem::ReadsWritten { var } => format!(
                "to read `{var}` as it was before the loop, save it first into a state variable of its own (`{var}0 := {var}; for … do … {var}0 … od`) and read that in the loop"
            ),
            LoopProblem::ConflictingWrites { .. }
            | LoopProblem::SharedPlace { .. }
            | LoopProblem::UnrecognisedWrite { .. } => "in a loop, only add to or remove from a set (`S := insert(e, S)`, `S := S ∪ {e}`, `S := delete(e, S)`) or set an entry at the loop variable (`A[x] := e`); assign a value that depends on all iterations, such as a count or a maximum, after the loop or without one (`… := choose v: T where …`)".to_string(),
        }
    }
}

/// A state variable's name as the loop's own code writes it: a flattened family member's
/// variable `P.x` is `x` in the member, where the loop (and the diagnostic's span) is.
pub fn display_name(flat: &str) -> &str {
    flat.rsplit('.').next().unwrap_or(flat)
}

/// Why a loop nest cannot be encoded.
#[derive(Debug, Clone)]
pub enum NestError<'s> {
    /// A statement that a loop body may not contain.
    Statement {
        /// The statement.
        stmt: &'s Stmt,
        /// What it is.
        what: Unencodable,
    },
    /// Iterations that may depend on each other.
    OrderDependent {
        /// Why.
        problem: LoopProblem,
        /// The statement (or the assignment whose condition or value) at fault.
        at: Span,
    },
}

/// Statements no loop body may contain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unencodable {
    /// `while`.
    While,
    /// `fire`, `yield`.
    ScheduleStatement,
    /// `ensuring`'s check.
    Ensuring,
    /// An assignment to a tuple's field.
    FieldAssignment,
    /// An assignment to something other than a state or auxiliary variable.
    NonState,
    /// A `choose` (each iteration may choose differently, which one update cannot say).
    ChooseInLoop,
}

/// The nest of loop `s`: every loop, `if` and assignment in it, checked to be independent.
/// `automaton` is the automaton whose state unqualified variables name, and `name` names a
/// variable for messages.
pub fn analyse<'s>(
    s: &'s Stmt,
    automaton: Option<AutomatonId>,
    name: &dyn Fn(&VarRef) -> String,
) -> Result<Nest<'s>, NestError<'s>> {
    let mut nest = Nest::default();
    collect(&mut nest, std::slice::from_ref(s), &[], &[], &[])?;
    for r in &nest.reads {
        let mut chooses = false;
        visit(r.expr, &mut |x| {
            chooses |= matches!(x.kind, ExprKind::Choose { .. });
        });
        if chooses {
            let stmt = nest
                .writes
                .iter()
                .find(|w| w.seq > r.seq)
                .map_or(s, |w| w.stmt);
            return Err(NestError::Statement {
                stmt,
                what: Unencodable::ChooseInLoop,
            });
        }
    }
    if matches!(s.kind, StmtKind::ForIn { .. }) {
        // The outermost collection is evaluated once, before the first iteration.
        nest.reads.remove(0);
    }
    check(&nest, automaton, name)?;
    Ok(nest)
}

fn collect<'s>(
    nest: &mut Nest<'s>,
    body: &'s [Stmt],
    scope: &[usize],
    guards: &[(bool, &'s Expr)],
    branches: &[(usize, usize)],
) -> Result<(), NestError<'s>> {
    let read = |nest: &mut Nest<'s>, expr: &'s Expr| {
        nest.reads.push(Read {
            expr,
            seq: nest.seq,
            branches: branches.to_vec(),
        })
    };
    for s in body {
        let refuse = |what| Err(NestError::Statement { stmt: s, what });
        match &s.kind {
            StmtKind::Ignore => {}
            StmtKind::ForIn {
                var,
                collection,
                body,
            } => {
                read(nest, collection);
                let elem = match &collection.ty {
                    Type::Set(t) | Type::Mset(t) | Type::Seq(t) => (**t).clone(),
                    other => other.clone(),
                };
                nest.vars.push(LoopVar {
                    slot: *var,
                    elem,
                    range: Range::In(collection),
                    span: s.span,
                });
                let inner: Vec<usize> =
                    scope.iter().copied().chain([nest.vars.len() - 1]).collect();
                collect(nest, body, &inner, guards, branches)?;
            }
            StmtKind::ForWhere {
                var,
                ty,
                cond,
                body,
            } => {
                read(nest, cond);
                nest.vars.push(LoopVar {
                    slot: *var,
                    elem: ty.clone(),
                    range: Range::Where(cond),
                    span: s.span,
                });
                let inner: Vec<usize> =
                    scope.iter().copied().chain([nest.vars.len() - 1]).collect();
                collect(nest, body, &inner, guards, branches)?;
            }
            StmtKind::If {
                branches: arms,
                otherwise,
            } => {
                let id = nest.ifs;
                nest.ifs += 1;
                let mut g = guards.to_vec();
                for (n, (c, b)) in arms.iter().enumerate() {
                    read(nest, c);
                    let mut inner = g.clone();
                    inner.push((false, c));
                    let mut br = branches.to_vec();
                    br.push((id, n));
                    collect(nest, b, scope, &inner, &br)?;
                    g.push((true, c));
                }
                let mut br = branches.to_vec();
                br.push((id, arms.len()));
                collect(nest, otherwise, scope, &g, &br)?;
            }
            StmtKind::Assign { target, value } => {
                if !matches!(
                    target.root,
                    VarRef::State(_) | VarRef::Qualified { .. } | VarRef::Aux(_)
                ) {
                    return refuse(Unencodable::NonState);
                }
                let mut path = Vec::new();
                for step in &target.path {
                    match step {
                        PlaceStep::Index(i) => path.push(i),
                        PlaceStep::Field(_) => return refuse(Unencodable::FieldAssignment),
                    }
                }
                let kind = match set_update(value, &target.root, &path) {
                    Some((true, elem)) => WriteKind::Insert(elem),
                    Some((false, elem)) => WriteKind::Delete(elem),
                    None => WriteKind::Point(value),
                };
                for i in &path {
                    read(nest, i);
                }
                read(nest, kind.expr());
                nest.seq += 1;
                nest.writes.push(Write {
                    stmt: s,
                    root: &target.root,
                    path,
                    kind,
                    guards: guards.to_vec(),
                    scope: scope.to_vec(),
                    branches: branches.to_vec(),
                    seq: nest.seq,
                });
                nest.seq += 1;
            }
            StmtKind::While { .. } => return refuse(Unencodable::While),
            StmtKind::Fire { .. } | StmtKind::Yield(_) => {
                return refuse(Unencodable::ScheduleStatement)
            }
            StmtKind::Ensure(_) => return refuse(Unencodable::Ensuring),
        }
    }
    Ok(())
}

fn check<'s>(
    nest: &Nest<'s>,
    automaton: Option<AutomatonId>,
    name: &dyn Fn(&VarRef) -> String,
) -> Result<(), NestError<'s>> {
    let fail = |problem, at| Err(NestError::OrderDependent { problem, at });
    let slots: Vec<u32> = nest.vars.iter().map(|v| v.slot).collect();
    for w in &nest.writes {
        let var = name(w.root);
        if matches!(w.kind, WriteKind::Point(_)) && w.path.is_empty() {
            return fail(LoopProblem::UnrecognisedWrite { var }, w.stmt.span);
        }
        // Each index is a loop variable or reads none, and a `:=` names every loop around it.
        let loose = w.path.iter().any(|i| {
            loop_var_of(i).is_none_or(|l| !slots.contains(&l)) && reads_any_local(i, &slots)
        });
        if loose || (matches!(w.kind, WriteKind::Point(_)) && !owns(nest, w)) {
            return fail(LoopProblem::SharedPlace { var }, w.stmt.span);
        }
    }
    for (n, w) in nest.writes.iter().enumerate() {
        for other in &nest.writes[..n] {
            if !same_root(other.root, w.root, automaton) {
                continue;
            }
            let compatible = match (w.kind, other.kind) {
                (WriteKind::Insert(_), WriteKind::Insert(_))
                | (WriteKind::Delete(_), WriteKind::Delete(_)) => w.path.len() == other.path.len(),
                (WriteKind::Point(_), WriteKind::Point(_)) => {
                    exclusive(&w.branches, &other.branches) && same_path(&w.path, &other.path)
                }
                _ => false,
            };
            if !compatible {
                let var = name(w.root);
                return fail(LoopProblem::ConflictingWrites { var }, w.stmt.span);
            }
        }
    }
    for r in &nest.reads {
        for w in &nest.writes {
            if !reads_safely(r, w, nest, automaton) {
                let var = name(w.root);
                return fail(LoopProblem::ReadsWritten { var }, r.expr.span);
            }
        }
    }
    Ok(())
}

/// Whether every loop around write `w` is one of its indices (its place is its iteration's).
fn owns(nest: &Nest<'_>, w: &Write<'_>) -> bool {
    w.scope.iter().all(|k| {
        w.path
            .iter()
            .any(|i| loop_var_of(i) == Some(nest.vars[*k].slot))
    })
}

/// Whether the iterations of the loops around write `w` have distinct values (a loop over a
/// multiset or sequence may visit a value twice, and two such iterations share every place).
fn distinct(nest: &Nest<'_>, w: &Write<'_>) -> bool {
    w.scope.iter().all(|k| match nest.vars[*k].range {
        Range::In(c) => matches!(c.ty, Type::Set(_)),
        Range::Where(_) => true,
    })
}

/// Whether read `r` reads the variable `w` writes only as the entry every write to it owns
/// (in iterations of distinct values), and before every write to it that may run in the same
/// iteration.
fn reads_safely(
    r: &Read<'_>,
    w: &Write<'_>,
    nest: &Nest<'_>,
    automaton: Option<AutomatonId>,
) -> bool {
    let mut ok = true;
    visit_reads(r.expr, w.root, automaton, &mut |chain| {
        for x in nest
            .writes
            .iter()
            .filter(|x| same_root(x.root, w.root, automaton))
        {
            let before = x.seq > r.seq || exclusive(&x.branches, &r.branches);
            if !before || !owns(nest, x) || !distinct(nest, x) || !same_path(chain, &x.path) {
                ok = false;
            }
        }
    });
    ok
}

/// `S := insert(e, S)`, `S := S ∪ {e}` → (true, e); `S := delete(e, S)`, `S − {e}` → (false, e),
/// where `S` is the place assigned: `root` indexed by `path`, of a set type.
fn set_update<'e>(value: &'e Expr, root: &VarRef, path: &[&Expr]) -> Option<(bool, &'e Expr)> {
    if !matches!(value.ty, Type::Set(_)) {
        return None;
    }
    let is_place = |x: &Expr| {
        let (base, chain) = index_chain(x);
        matches!(&base.kind, ExprKind::Var(r) if r == root) && same_path(&chain, path)
    };
    let single = |x: &'e Expr| match &x.kind {
        ExprKind::Collection(items) if items.len() == 1 => Some(&items[0]),
        _ => None,
    };
    match &value.kind {
        ExprKind::Call(Builtin::Insert, a) if a.len() == 2 && is_place(&a[1]) => {
            Some((true, &a[0]))
        }
        ExprKind::Call(Builtin::Delete, a) if a.len() == 2 && is_place(&a[1]) => {
            Some((false, &a[0]))
        }
        ExprKind::Binary(BinOp::Union, l, r) if is_place(l) => single(r).map(|e| (true, e)),
        ExprKind::Binary(BinOp::Union, l, r) if is_place(r) => single(l).map(|e| (true, e)),
        ExprKind::Binary(BinOp::Difference | BinOp::Sub, l, r) if is_place(l) => {
            single(r).map(|e| (false, e))
        }
        _ => None,
    }
}

/// `x[a][b]` as `x` and `[a, b]`.
pub fn index_chain(e: &Expr) -> (&Expr, Vec<&Expr>) {
    let mut chain = Vec::new();
    let mut at = e;
    while let ExprKind::Index(a, i) = &at.kind {
        chain.push(&**i);
        at = a;
    }
    chain.reverse();
    (at, chain)
}

/// The local an index is exactly, if it is one.
pub fn loop_var_of(e: &Expr) -> Option<u32> {
    match e.kind {
        ExprKind::Var(VarRef::Local(k)) => Some(k),
        _ => None,
    }
}

/// Whether `e` reads one of the locals `slots`.
fn reads_any_local(e: &Expr, slots: &[u32]) -> bool {
    let mut hit = false;
    visit(e, &mut |x| {
        if let ExprKind::Var(VarRef::Local(k)) = x.kind {
            hit |= slots.contains(&k);
        }
    });
    hit
}

/// Whether two places are in different branches of one `if`.
fn exclusive(a: &[(usize, usize)], b: &[(usize, usize)]) -> bool {
    a.iter()
        .any(|(i, n)| b.iter().any(|(j, m)| i == j && n != m))
}

/// Whether two references name one variable (`x` and `A.x` inside `A`).
pub fn same_root(a: &VarRef, b: &VarRef, automaton: Option<AutomatonId>) -> bool {
    let key = |r: &VarRef| match r {
        VarRef::State(k) => Some((automaton, *k, false)),
        VarRef::Qualified { automaton, slot } => Some((Some(*automaton), *slot, false)),
        VarRef::Aux(k) => Some((None, *k, true)),
        _ => None,
    };
    key(a).is_some() && key(a) == key(b)
}

/// Whether two index lists are the same expressions (spans aside).
pub fn same_path(a: &[&Expr], b: &[&Expr]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
}

/// Structural equality of expressions, spans aside (binders and `choose` compare unequal).
fn same(a: &Expr, b: &Expr) -> bool {
    use ExprKind as K;
    let all = |xs: &[Expr], ys: &[Expr]| {
        xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same(x, y))
    };
    match (&a.kind, &b.kind) {
        (K::Var(x), K::Var(y)) => match (x, y) {
            (
                VarRef::Component {
                    automaton: a1,
                    component: c1,
                    indices: i1,
                    slot: s1,
                },
                VarRef::Component {
                    automaton: a2,
                    component: c2,
                    indices: i2,
                    slot: s2,
                },
            ) => a1 == a2 && c1 == c2 && s1 == s2 && all(i1, i2),
            _ => x == y,
        },
        (K::Int(x), K::Int(y)) => x == y && a.ty == b.ty,
        (K::Bool(x), K::Bool(y)) => x == y,
        (K::Str(x), K::Str(y)) => x == y,
        (K::Nil, K::Nil) => a.ty == b.ty,
        (K::EnumConst(x), K::EnumConst(y)) => x == y && a.ty == b.ty,
        (K::Tuple(xs), K::Tuple(ys)) | (K::Collection(xs), K::Collection(ys)) => {
            a.ty == b.ty && all(xs, ys)
        }
        (K::Call(f, xs), K::Call(g, ys)) => f == g && all(xs, ys),
        (K::Unary(o, x), K::Unary(p, y)) => o == p && same(x, y),
        (K::Binary(o, x1, x2), K::Binary(p, y1, y2)) => o == p && same(x1, y1) && same(x2, y2),
        (K::Field(x, i), K::Field(y, j)) => i == j && same(x, y),
        (K::NullVal(x), K::NullVal(y)) => same(x, y),
        (K::UnionPayload(x, i), K::UnionPayload(y, j))
        | (K::UnionNew(i, x), K::UnionNew(j, y))
        | (K::Is(x, i), K::Is(y, j)) => i == j && same(x, y),
        (K::Index(x1, x2), K::Index(y1, y2)) => same(x1, y1) && same(x2, y2),
        (K::Cond(x1, x2, x3), K::Cond(y1, y2, y3)) => same(x1, y1) && same(x2, y2) && same(x3, y3),
        _ => false,
    }
}

/// Calls `f` with the index chain of every read of `root` in `e` (`[]` for a read of the whole
/// variable); the indices themselves are searched too.
fn visit_reads(
    e: &Expr,
    root: &VarRef,
    automaton: Option<AutomatonId>,
    f: &mut dyn FnMut(&[&Expr]),
) {
    let (base, chain) = index_chain(e);
    if let ExprKind::Var(r) = &base.kind {
        if same_root(r, root, automaton) {
            f(&chain);
            for i in chain {
                visit_reads(i, root, automaton, f);
            }
            return;
        }
    }
    children(e, &mut |c| visit_reads(c, root, automaton, f));
}

/// Calls `f` on every sub-expression of `e`, `e` included.
fn visit(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    children(e, &mut |c| visit(c, f));
}

/// Calls `f` on each direct child of `e` (a `choose`'s condition included; the indices of a
/// component variable too).
fn children(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    match &e.kind {
        ExprKind::Var(VarRef::Component { indices, .. }) => indices.iter().for_each(f),
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
            f(b)
        }
        ExprKind::Cond(a, b, c) => {
            f(a);
            f(b);
            f(c)
        }
        ExprKind::Choose { cond: Some(c), .. } => f(c),
        _ => {}
    }
}
