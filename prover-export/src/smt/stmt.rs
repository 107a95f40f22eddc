//! Effects in SSA form, mirroring the interpreter statement by statement: an assignment gives
//! its variable a fresh constant defined by the new value; a conditional runs both branches and
//! merges what differs with `ite`; a `for` loop whose iterations are independent becomes one
//! pointwise update (a quantified axiom on a fresh array); any other loop is an error.

use super::expr::{state_vars, Encoder, Env};
use super::sorts::relation;
use super::symbol;
use crate::error::EncodeError;
use ioa_lang::ir::{Expr, ExprKind, Place, PlaceStep, Stmt, StmtKind, Type, TypeDefKind, VarRef};

/// A variable an effect can assign, resolved against the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Root {
    State(u32, u32),
    Aux(u32),
    Local(u32),
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
            StmtKind::ForIn { .. } | StmtKind::ForWhere { .. } => self.pointwise(s, env),
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

    pub(super) fn root(
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

    pub(super) fn current(&self, root: &Root, env: &Env) -> String {
        match root {
            Root::State(a, k) => env.states[a][*k as usize].clone(),
            Root::Aux(k) => env.aux[*k as usize].clone(),
            Root::Local(k) => env.locals[*k as usize].clone().unwrap_or_default(),
        }
    }

    pub(super) fn set_current(root: &Root, env: &mut Env, term: String) {
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

/// The SMT symbol for a declared variable of an automaton.
pub fn var_symbol(automaton: &str, var: &str) -> String {
    symbol(&format!("{automaton}.{var}"))
}
