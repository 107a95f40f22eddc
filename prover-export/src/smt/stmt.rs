//! Effects in SSA form, mirroring the interpreter statement by statement: an assignment gives
//! its variable a fresh constant defined by the new value; a conditional runs both branches and
//! merges what differs with `ite`; a `for` loop whose iterations are independent becomes one
//! pointwise update (a quantified axiom on a fresh array); any other loop is an error.

use super::expr::{state_vars, Encoder, Env};
use super::sorts::relation;
use super::symbol;
use crate::error::EncodeError;
use ioa_lang::ir::{
    BinOp, Builtin, Expr, ExprKind, Place, PlaceStep, Stmt, StmtKind, Type, TypeDefKind, VarRef,
};

/// A variable an effect can assign, resolved against the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Root {
    State(u32, u32),
    Aux(u32),
    Local(u32),
}

/// One independent update a loop iteration makes, over the loop variable.
enum Update {
    /// `S := insert(elem, S)` (or `S ∪ {elem}`) under `guard`.
    Insert {
        root: Root,
        guard: String,
        elem: Expr,
    },
    /// `S := delete(elem, S)` under `guard`.
    Delete {
        root: Root,
        guard: String,
        elem: Expr,
    },
    /// `A[x] := value` under `guard`, `x` the loop variable.
    Point {
        root: Root,
        guard: String,
        value: Expr,
    },
}

impl Update {
    fn root(&self) -> &Root {
        match self {
            Update::Insert { root, .. }
            | Update::Delete { root, .. }
            | Update::Point { root, .. } => root,
        }
    }
}

impl Encoder<'_> {
    /// Runs `stmts` from `env`, returning the environment after them.
    pub fn exec(&mut self, stmts: &[Stmt], env: &Env) -> Result<Env, EncodeError> {
        let mut env = env.clone();
        for s in stmts {
            env = self.stmt(s, env)?;
        }
        Ok(env)
    }

    fn stmt(&mut self, s: &Stmt, env: Env) -> Result<Env, EncodeError> {
        match &s.kind {
            StmtKind::Assign { target, value } => {
                // A pre-state value an `ensuring` clause reads: a name for the term.
                if let (ioa_lang::ir::VarRef::Local(l), true) =
                    (&target.root, target.path.is_empty())
                {
                    let v = self.expr(value, &env)?;
                    let mut env = env;
                    env.bind(*l, v);
                    return Ok(env);
                }
                if let [PlaceStep::Index(i)] = target.path.as_slice() {
                    let (root, ty, base) = self.root(target, &env, s)?;
                    if let Some((k, t)) = relation(&ty) {
                        let (k, t) = (k.clone(), t.clone());
                        return self.assign_row(root, &ty, &base, (&k, &t), i, value, env);
                    }
                }
                let v = self.expr(value, &env)?;
                self.assign(target, v, env, s)
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                let mut conds = Vec::new();
                let mut outs = Vec::new();
                for (c, body) in branches {
                    conds.push(self.expr(c, &env)?);
                    outs.push(self.exec(body, &env)?);
                }
                let mut merged = self.exec(otherwise, &env)?;
                for (c, branch) in conds.iter().zip(outs).rev() {
                    merged = self.merge(c, branch, merged, s)?;
                }
                Ok(merged)
            }
            StmtKind::ForIn {
                var,
                collection,
                body,
            } => self.pointwise(*var, Range::In(collection), body, env, s),
            StmtKind::ForWhere {
                var,
                ty,
                cond,
                body,
            } => self.pointwise(*var, Range::Where(ty, cond), body, env, s),
            // `ensuring` changes no state: the interpreter checks it; a proof need not.
            StmtKind::Ignore | StmtKind::Ensure(_) => Ok(env),
            StmtKind::While { .. } => Err(EncodeError::Unsupported {
                what: "a `while` loop in an effect",
                span: s.span,
            }),
            StmtKind::Fire { .. } | StmtKind::Yield(_) => Err(EncodeError::Unsupported {
                what: "`fire` or `yield` in an effect",
                span: s.span,
            }),
        }
    }

    fn root(
        &self,
        place: &Place,
        env: &Env,
        s: &Stmt,
    ) -> Result<(Root, Type, String), EncodeError> {
        let unsupported = || EncodeError::Unsupported {
            what: "an assignment to this variable",
            span: s.span,
        };
        let root = match &place.root {
            VarRef::State(k) => Root::State(env.automaton.ok_or_else(unsupported)?.0, *k),
            VarRef::Qualified { automaton, slot } => Root::State(automaton.0, *slot),
            VarRef::Aux(k) => Root::Aux(*k),
            VarRef::Local(k) => Root::Local(*k),
            _ => return Err(unsupported()),
        };
        let (ty, base) = match &root {
            Root::State(a, k) => {
                let vars = state_vars(self.spec, ioa_lang::ir::AutomatonId(*a));
                let decl = vars.get(*k as usize).ok_or_else(unsupported)?;
                let aut = &self.spec.automata[*a as usize].name;
                (decl.ty.clone(), format!("{aut}.{}", decl.name))
            }
            Root::Aux(k) => (
                env.aux_types
                    .get(*k as usize)
                    .cloned()
                    .ok_or_else(unsupported)?,
                format!("aux{k}"),
            ),
            Root::Local(_) => return Err(unsupported()),
        };
        Ok((root, ty, base))
    }

    /// `R[i] := S` for a relation `R`: a fresh `R′` equal to `R` but for row `i`, stated
    /// pointwise so that memberships in `S` are pushed through its unions and inserts.
    #[allow(clippy::too_many_arguments)]
    fn assign_row(
        &mut self,
        root: Root,
        ty: &Type,
        base: &str,
        (key, elem): (&Type, &Type),
        index: &Expr,
        value: &Expr,
        mut env: Env,
    ) -> Result<Env, EncodeError> {
        let it = self.expr(index, &env)?;
        let it = self.boxed(key, it);
        let old = self.current(&root, &env);
        let sort = self.sort(ty);
        let (ks, es) = (self.elem_sort(key), self.elem_sort(elem));
        let (k, y) = (self.script.fresh("k"), self.script.fresh("y"));
        self.bound.push(y.clone());
        let m = self.member(value, &y, &env);
        self.bound.pop();
        let m = m?;
        let new = self.script.fresh_const(base, &sort);
        self.script.assert(&format!(
            "(forall (({k} {ks}) ({y} {es})) (! (= (select {new} {k} {y}) (ite (= {k} {it}) {m} (select {old} {k} {y}))) :pattern ((select {new} {k} {y}))))"
        ));
        Self::set_current(&root, &mut env, new);
        Ok(env)
    }

    fn current(&self, root: &Root, env: &Env) -> String {
        match root {
            Root::State(a, k) => env.states[a][*k as usize].clone(),
            Root::Aux(k) => env.aux[*k as usize].clone(),
            Root::Local(k) => env.locals[*k as usize].clone().unwrap_or_default(),
        }
    }

    fn set_current(root: &Root, env: &mut Env, term: String) {
        match root {
            Root::State(a, k) => {
                if let Some(v) = env.states.get_mut(a) {
                    v[*k as usize] = term;
                }
            }
            Root::Aux(k) => env.aux[*k as usize] = term,
            Root::Local(k) => env.bind(*k, term),
        }
    }

    fn assign(
        &mut self,
        target: &Place,
        value: String,
        mut env: Env,
        s: &Stmt,
    ) -> Result<Env, EncodeError> {
        let (root, ty, base) = self.root(target, &env, s)?;
        let old = self.current(&root, &env);
        let new = self.place_update(&old, &ty, &target.path, value, &env, s)?;
        let sort = self.sort(&ty);
        let name = self.script.define(&base, &sort, &new);
        Self::set_current(&root, &mut env, name);
        Ok(env)
    }

    /// The value of `old` with the part at `path` replaced by `value`.
    fn place_update(
        &mut self,
        old: &str,
        ty: &Type,
        path: &[PlaceStep],
        value: String,
        env: &Env,
        s: &Stmt,
    ) -> Result<String, EncodeError> {
        let Some((first, rest)) = path.split_first() else {
            return Ok(value);
        };
        let spec = self.spec;
        let unsupported = |what| EncodeError::Unsupported { what, span: s.span };
        match (first, ty) {
            // A row of a relation `(Array K T Bool)` (an `Array[K, Set[T]]` inside another
            // array, e.g. a family member's): replaced pointwise.
            (PlaceStep::Index(i), Type::Array(key, v))
                if rest.is_empty() && relation(ty).is_some() =>
            {
                let Type::Set(elem) = &**v else {
                    unreachable!("a relation's value type is a set")
                };
                let it = self.expr(i, env)?;
                let it = self.boxed(key, it);
                let (ks, es) = (self.elem_sort(key), self.elem_sort(elem));
                let (k, y) = (self.script.fresh("k"), self.script.fresh("y"));
                Ok(format!(
                    "(lambda (({k} {ks}) ({y} {es})) (ite (= {k} {it}) (select {value} {y}) (select {old} {k} {y})))"
                ))
            }
            (PlaceStep::Index(i), Type::Array(key, v)) => {
                let it = self.expr(i, env)?;
                let it = self.boxed(key, it);
                let inner = format!("(select {old} {it})");
                let nv = self.place_update(&inner, v, rest, value, env, s)?;
                Ok(format!("(store {old} {it} {nv})"))
            }
            (PlaceStep::Index(i), Type::Map(key, v)) => {
                self.sort(ty);
                let m = super::sorts::mangle(spec, v);
                let it = self.expr(i, env)?;
                let it = self.boxed(key, it);
                let inner = format!("(val_{m} (select {old} {it}))");
                let nv = self.place_update(&inner, v, rest, value, env, s)?;
                Ok(format!("(store {old} {it} (embed_{m} {nv}))"))
            }
            (PlaceStep::Field(k), Type::Named(id)) => {
                let TypeDefKind::Tuple(fields) = &spec.types[id.0 as usize].kind else {
                    return Err(unsupported("assigning a field of a non-tuple"));
                };
                let mut parts = Vec::new();
                for (j, (f, fty)) in fields.iter().enumerate() {
                    let cur = format!("({} {old})", super::sorts::field_accessor(spec, *id, f));
                    if j == *k as usize {
                        parts.push(self.place_update(&cur, fty, rest, value.clone(), env, s)?);
                    } else {
                        parts.push(cur);
                    }
                }
                Ok(self.tuple(*id, parts))
            }
            _ => Err(unsupported("assigning into this kind of place")),
        }
    }

    /// Merges two environments after a conditional: `if cond then a else b`.
    pub(crate) fn merge(
        &mut self,
        cond: &str,
        a: Env,
        mut b: Env,
        s: &Stmt,
    ) -> Result<Env, EncodeError> {
        let keys: Vec<u32> = a.states.keys().copied().collect();
        for aut in keys {
            let n = a.states[&aut].len();
            for k in 0..n {
                let (ta, tb) = (&a.states[&aut][k], &b.states[&aut][k]);
                if ta != tb {
                    let root = Root::State(aut, k as u32);
                    let (_, ty, base) = self.root_of(&root, &a, s)?;
                    let sort = self.sort(&ty);
                    let name = self
                        .script
                        .define(&base, &sort, &format!("(ite {cond} {ta} {tb})"));
                    Self::set_current(&root, &mut b, name);
                }
            }
        }
        for k in 0..a.aux.len() {
            if a.aux[k] != b.aux[k] {
                let sort = self.sort(&a.aux_types[k].clone());
                let name = self.script.define(
                    &format!("aux{k}"),
                    &sort,
                    &format!("(ite {cond} {} {})", a.aux[k], b.aux[k]),
                );
                b.aux[k] = name;
            }
        }
        Ok(b)
    }

    fn root_of(
        &self,
        root: &Root,
        env: &Env,
        s: &Stmt,
    ) -> Result<(Root, Type, String), EncodeError> {
        let place = Place {
            root: match root {
                Root::State(a, k) => VarRef::Qualified {
                    automaton: ioa_lang::ir::AutomatonId(*a),
                    slot: *k,
                },
                Root::Aux(k) => VarRef::Aux(*k),
                Root::Local(k) => VarRef::Local(*k),
            },
            path: vec![],
        };
        self.root(&place, env, s)
    }

    /// A loop as one pointwise update per variable it writes.
    fn pointwise(
        &mut self,
        var: u32,
        range: Range,
        body: &[Stmt],
        env: Env,
        s: &Stmt,
    ) -> Result<Env, EncodeError> {
        let (elem_ty, range_expr) = match &range {
            Range::In(c) => match &c.ty {
                Type::Set(t) | Type::Mset(t) | Type::Seq(t) => ((**t).clone(), None),
                _ => {
                    return Err(EncodeError::Unsupported {
                        what: "a loop over this type",
                        span: s.span,
                    })
                }
            },
            Range::Where(ty, cond) => ((*ty).clone(), Some(*cond)),
        };
        let x = self.script.fresh("x");
        let mut inner = env.clone();
        let x_value = self.unbox(&elem_ty, &x);
        inner.bind(var, x_value.clone());
        let depth = self.bound.len();
        self.bound.push(x.clone());
        let result = self.pointwise_body(
            var, &range, range_expr, body, env, &inner, &x, &x_value, elem_ty, s,
        );
        self.bound.truncate(depth);
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn pointwise_body(
        &mut self,
        var: u32,
        range: &Range,
        range_expr: Option<&Expr>,
        body: &[Stmt],
        mut env: Env,
        inner: &Env,
        x: &str,
        x_value: &str,
        elem_ty: Type,
        s: &Stmt,
    ) -> Result<Env, EncodeError> {
        let inner = inner.clone();
        let x = x.to_string();
        let range_term = match range {
            Range::In(c) => {
                let ct = self.expr(c, &env)?;
                match &c.ty {
                    Type::Set(_) => format!("(select {ct} {x})"),
                    Type::Mset(_) => format!("(> (select {ct} {x}) 0)"),
                    _ => format!("(seq.contains {ct} (seq.unit {x_value}))"),
                }
            }
            Range::Where(..) => self.expr(range_expr.expect("where"), &inner)?,
        };
        let mut updates = Vec::new();
        let mut conditions = Vec::new();
        self.collect_updates(
            body,
            var,
            "true".into(),
            &inner,
            &mut updates,
            &mut conditions,
        )?;
        // No update may read a variable the loop writes (except an array at the loop variable).
        let written: Vec<Root> = updates.iter().map(|u| u.root().clone()).collect();
        for (i, u) in updates.iter().enumerate() {
            let dup = written.iter().enumerate().any(|(j, r)| {
                j != i
                    && r == u.root()
                    && !matches!(
                        (u, &updates[j]),
                        (Update::Insert { .. }, Update::Insert { .. })
                            | (Update::Delete { .. }, Update::Delete { .. })
                    )
            });
            let reads = match u {
                Update::Insert { elem, .. } | Update::Delete { elem, .. } => {
                    written.iter().any(|r| reads_root(elem, r, &env, None))
                }
                Update::Point { value, .. } => written
                    .iter()
                    .any(|r| reads_root(value, r, &env, Some((u.root(), var)))),
            };
            if dup || reads {
                let (_, _, base) = self.root_of(u.root(), &env, s)?;
                return Err(EncodeError::OrderDependentLoop {
                    variable: base,
                    span: s.span,
                });
            }
        }
        // Nor may a condition inside the body: the updates are guarded by the conditions'
        // values before the loop, which an earlier write of the same iteration may have changed.
        for c in &conditions {
            if let Some(r) = written.iter().find(|r| reads_root(c, r, &env, None)) {
                let (_, _, base) = self.root_of(r, &env, s)?;
                return Err(EncodeError::OrderDependentLoop {
                    variable: base,
                    span: s.span,
                });
            }
        }
        let elem_sort = self.elem_sort(&elem_ty);
        let mut roots: Vec<Root> = Vec::new();
        for r in written {
            if !roots.contains(&r) {
                roots.push(r);
            }
        }
        for root in roots {
            let (_, ty, base) = self.root_of(&root, &env, s)?;
            let old = self.current(&root, &env);
            let sort = self.sort(&ty);
            let new = self.script.fresh_const(&base, &sort);
            let mine: Vec<&Update> = updates.iter().filter(|u| *u.root() == root).collect();
            let axiom = match mine[0] {
                Update::Point { guard, value, .. } if relation(&ty).is_some() => {
                    let elem = relation(&ty).map(|(_, t)| t.clone()).unwrap_or(Type::Bool);
                    let es = self.elem_sort(&elem);
                    let y = self.script.fresh("y");
                    self.bound.push(y.clone());
                    let m = self.member(value, &y, &inner);
                    self.bound.pop();
                    let m = m?;
                    format!(
                        "(forall (({x} {elem_sort}) ({y} {es})) (! (= (select {new} {x} {y}) (ite (and {range_term} {guard}) {m} (select {old} {x} {y}))) :pattern ((select {new} {x} {y}))))"
                    )
                }
                Update::Point { guard, value, .. } => {
                    let v = self.expr(value, &inner)?;
                    format!(
                        "(forall (({x} {elem_sort})) (! (= (select {new} {x}) (ite (and {range_term} {guard}) {v} (select {old} {x}))) :pattern ((select {new} {x}))))"
                    )
                }
                Update::Insert { .. } | Update::Delete { .. } => {
                    let Type::Set(set_elem) = &ty else {
                        return Err(EncodeError::Unsupported {
                            what: "a loop that inserts into a non-set",
                            span: s.span,
                        });
                    };
                    let set_sort = self.elem_sort(set_elem);
                    let all_var = mine.iter().all(|u| matches!(u, Update::Insert { elem, .. } | Update::Delete { elem, .. } if matches!(elem.kind, ExprKind::Var(VarRef::Local(k)) if k == var)));
                    let y = if all_var {
                        x.clone()
                    } else {
                        self.script.fresh("y")
                    };
                    let mut hits = Vec::new();
                    for u in &mine {
                        let (Update::Insert { guard, elem, .. }
                        | Update::Delete { guard, elem, .. }) = u
                        else {
                            continue;
                        };
                        let hit = if all_var {
                            format!("(and {range_term} {guard})")
                        } else {
                            let et = self.expr(elem, &inner)?;
                            let et = self.boxed(set_elem, et);
                            format!(
                                "(exists (({x} {elem_sort})) (and {range_term} {guard} (= {y} {et})))"
                            )
                        };
                        hits.push(hit);
                    }
                    let any = super::or(&hits);
                    let body = if matches!(mine[0], Update::Insert { .. }) {
                        format!("(or (select {old} {y}) {any})")
                    } else {
                        format!("(and (select {old} {y}) (not {any}))")
                    };
                    format!(
                        "(forall (({y} {set_sort})) (! (= (select {new} {y}) {body}) :pattern ((select {new} {y}))))"
                    )
                }
            };
            self.script.assert(&axiom);
            Self::set_current(&root, &mut env, new);
        }
        Ok(env)
    }

    fn collect_updates(
        &mut self,
        body: &[Stmt],
        var: u32,
        guard: String,
        env: &Env,
        out: &mut Vec<Update>,
        conditions: &mut Vec<Expr>,
    ) -> Result<(), EncodeError> {
        for s in body {
            let order_dependent = |name: String| EncodeError::OrderDependentLoop {
                variable: name,
                span: s.span,
            };
            match &s.kind {
                StmtKind::Ignore => {}
                StmtKind::If {
                    branches,
                    otherwise,
                } => {
                    let mut earlier = Vec::new();
                    for (c, b) in branches {
                        conditions.push(c.clone());
                        let ct = self.expr(c, env)?;
                        let mut g = vec![guard.clone()];
                        g.extend(earlier.iter().map(|e| format!("(not {e})")));
                        g.push(ct.clone());
                        self.collect_updates(b, var, super::and(&g), env, out, conditions)?;
                        earlier.push(ct);
                    }
                    let mut g = vec![guard.clone()];
                    g.extend(earlier.iter().map(|e| format!("(not {e})")));
                    self.collect_updates(otherwise, var, super::and(&g), env, out, conditions)?;
                }
                StmtKind::Assign { target, value } => {
                    let (root, _, base) = self.root(target, env, s)?;
                    match target.path.as_slice() {
                        [] => match set_update(value, &target.root) {
                            Some((true, elem)) => out.push(Update::Insert {
                                root,
                                guard: guard.clone(),
                                elem: elem.clone(),
                            }),
                            Some((false, elem)) => out.push(Update::Delete {
                                root,
                                guard: guard.clone(),
                                elem: elem.clone(),
                            }),
                            None => return Err(order_dependent(base)),
                        },
                        [PlaceStep::Index(i)] if matches!(i.kind, ExprKind::Var(VarRef::Local(k)) if k == var) => {
                            out.push(Update::Point {
                                root,
                                guard: guard.clone(),
                                value: value.clone(),
                            })
                        }
                        _ => return Err(order_dependent(base)),
                    }
                }
                _ => {
                    return Err(EncodeError::Unsupported {
                        what: "this statement inside a loop",
                        span: s.span,
                    })
                }
            }
        }
        Ok(())
    }
}

/// What a loop ranges over.
enum Range<'e> {
    In(&'e Expr),
    Where(&'e Type, &'e Expr),
}

/// `S := insert(e, S)`, `S := S ∪ {e}` → (true, e); `S := delete(e, S)`, `S − {e}` → (false, e).
fn set_update<'e>(value: &'e Expr, root: &VarRef) -> Option<(bool, &'e Expr)> {
    let is_root = |x: &Expr| matches!(&x.kind, ExprKind::Var(r) if r == root);
    let single = |x: &'e Expr| match &x.kind {
        ExprKind::Collection(items) if items.len() == 1 => Some(&items[0]),
        _ => None,
    };
    match &value.kind {
        ExprKind::Call(Builtin::Insert, a) if a.len() == 2 && is_root(&a[1]) => Some((true, &a[0])),
        ExprKind::Call(Builtin::Delete, a) if a.len() == 2 && is_root(&a[1]) => {
            Some((false, &a[0]))
        }
        ExprKind::Binary(BinOp::Union, l, r) if is_root(l) => single(r).map(|e| (true, e)),
        ExprKind::Binary(BinOp::Union, l, r) if is_root(r) => single(l).map(|e| (true, e)),
        ExprKind::Binary(BinOp::Difference | BinOp::Sub, l, r) if is_root(l) => {
            single(r).map(|e| (false, e))
        }
        _ => None,
    }
}

/// Whether `e` reads `root` (an array read at exactly the loop variable is allowed when
/// `allowed_at` names that array and variable).
fn reads_root(e: &Expr, root: &Root, env: &Env, allowed_at: Option<(&Root, u32)>) -> bool {
    let matches_root = |r: &VarRef| match (r, root) {
        (VarRef::State(k), Root::State(a, k2)) => env.automaton.map(|x| x.0) == Some(*a) && k == k2,
        (VarRef::Qualified { automaton, slot }, Root::State(a, k2)) => {
            automaton.0 == *a && slot == k2
        }
        (VarRef::Aux(k), Root::Aux(k2)) => k == k2,
        (VarRef::Local(k), Root::Local(k2)) => k == k2,
        _ => false,
    };
    if let (ExprKind::Index(a, i), Some((allowed, var))) = (&e.kind, allowed_at) {
        if let (ExprKind::Var(r), ExprKind::Var(VarRef::Local(k))) = (&a.kind, &i.kind) {
            if matches_root(r) && allowed == root && *k == var {
                return false;
            }
        }
    }
    if let ExprKind::Var(r) = &e.kind {
        if matches_root(r) {
            return true;
        }
    }
    let mut hit = false;
    children(e, &mut |c| {
        if !hit && reads_root(c, root, env, allowed_at) {
            hit = true;
        }
    });
    hit
}

/// Calls `f` on every sub-expression of `e`, `e` included.
pub fn visit(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    children(e, &mut |c| visit(c, f));
}

/// Calls `f` on each direct child of `e`.
pub fn children(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    match &e.kind {
        ExprKind::Tuple(xs) | ExprKind::Collection(xs) | ExprKind::Call(_, xs) => {
            xs.iter().for_each(f)
        }
        ExprKind::Unary(_, x)
        | ExprKind::Field(x, _)
        | ExprKind::NullVal(x)
        | ExprKind::UnionPayload(x, _)
        | ExprKind::UnionNew(_, x)
        | ExprKind::Is(x, _)
        | ExprKind::Quant(_, _, x) => f(x),
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

/// The SMT symbol for a declared variable of an automaton.
pub fn var_symbol(automaton: &str, var: &str) -> String {
    symbol(&format!("{automaton}.{var}"))
}
