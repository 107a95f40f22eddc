//! Copying IR expressions and statements into another scope: every variable read is replaced
//! by an expression the caller chooses, every local a node binds (quantifier, loop, `choose`)
//! is renumbered, and every assignment's root is replaced by a place.
//!
//! Flattening moves a component's transition code into the composite's flat automaton, where
//! `x` becomes `P.x[i]`, the component's parameters become its argument expressions, and its
//! locals move up past the locals of the other members that share the step.

use crate::ir::{Expr, ExprKind, Place, PlaceStep, Stmt, StmtKind, VarRef};

/// How to move code into the target scope.
pub(crate) struct Rewrite<'f> {
    /// The expression that replaces a read of a variable (given the read's own node, for its
    /// type and span).
    pub read: &'f dyn Fn(&VarRef, &Expr) -> Expr,
    /// The slot a local bound by the code moves to.
    pub local: &'f dyn Fn(u32) -> u32,
    /// The place that replaces an assignment's root: a variable and the steps prefixed to the
    /// assignment's own path.
    pub place: &'f dyn Fn(&VarRef) -> (VarRef, Vec<PlaceStep>),
}

impl Rewrite<'_> {
    /// The expression in the target scope.
    pub fn expr(&self, e: &Expr) -> Expr {
        let kind = match &e.kind {
            ExprKind::Var(r) => return (self.read)(r, e),
            ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Str(_)
            | ExprKind::Nil
            | ExprKind::EnumConst(_) => e.kind.clone(),
            ExprKind::Tuple(xs) => ExprKind::Tuple(self.exprs(xs)),
            ExprKind::Collection(xs) => ExprKind::Collection(self.exprs(xs)),
            ExprKind::Call(b, xs) => ExprKind::Call(*b, self.exprs(xs)),
            ExprKind::Unary(op, x) => ExprKind::Unary(*op, self.boxed(x)),
            ExprKind::Field(x, k) => ExprKind::Field(self.boxed(x), *k),
            ExprKind::NullVal(x) => ExprKind::NullVal(self.boxed(x)),
            ExprKind::UnionPayload(x, k) => ExprKind::UnionPayload(self.boxed(x), *k),
            ExprKind::UnionNew(k, x) => ExprKind::UnionNew(*k, self.boxed(x)),
            ExprKind::Is(x, k) => ExprKind::Is(self.boxed(x), *k),
            ExprKind::Binary(op, a, b) => ExprKind::Binary(*op, self.boxed(a), self.boxed(b)),
            ExprKind::Index(a, b) => ExprKind::Index(self.boxed(a), self.boxed(b)),
            ExprKind::Quant(q, binders, body) => ExprKind::Quant(
                *q,
                binders
                    .iter()
                    .map(|(slot, ty)| ((self.local)(*slot), ty.clone()))
                    .collect(),
                self.boxed(body),
            ),
            ExprKind::SetComp { var, elem, cond } => ExprKind::SetComp {
                var: (self.local)(*var),
                elem: elem.clone(),
                cond: self.boxed(cond),
            },
            ExprKind::Cond(a, b, c) => ExprKind::Cond(self.boxed(a), self.boxed(b), self.boxed(c)),
            ExprKind::Choose { var, cond, det } => ExprKind::Choose {
                var: (self.local)(*var),
                cond: cond.as_ref().map(|c| self.boxed(c)),
                det: det.as_ref().map(|d| self.stmts(d)),
            },
        };
        Expr {
            kind,
            ty: e.ty.clone(),
            span: e.span,
        }
    }

    fn boxed(&self, e: &Expr) -> Box<Expr> {
        Box::new(self.expr(e))
    }

    fn exprs(&self, xs: &[Expr]) -> Vec<Expr> {
        xs.iter().map(|x| self.expr(x)).collect()
    }

    /// The statements in the target scope.
    pub fn stmts(&self, body: &[Stmt]) -> Vec<Stmt> {
        body.iter().map(|s| self.stmt(s)).collect()
    }

    fn stmt(&self, s: &Stmt) -> Stmt {
        let kind = match &s.kind {
            StmtKind::Assign { target, value } => {
                let (root, mut path) = (self.place)(&target.root);
                path.extend(target.path.iter().map(|step| match step {
                    PlaceStep::Field(k) => PlaceStep::Field(*k),
                    PlaceStep::Index(e) => PlaceStep::Index(self.expr(e)),
                }));
                StmtKind::Assign {
                    target: Place { root, path },
                    value: self.expr(value),
                }
            }
            StmtKind::If {
                branches,
                otherwise,
            } => StmtKind::If {
                branches: branches
                    .iter()
                    .map(|(c, b)| (self.expr(c), self.stmts(b)))
                    .collect(),
                otherwise: self.stmts(otherwise),
            },
            StmtKind::ForIn {
                var,
                collection,
                body,
            } => StmtKind::ForIn {
                var: (self.local)(*var),
                collection: self.expr(collection),
                body: self.stmts(body),
            },
            StmtKind::ForWhere {
                var,
                ty,
                cond,
                body,
            } => StmtKind::ForWhere {
                var: (self.local)(*var),
                ty: ty.clone(),
                cond: self.expr(cond),
                body: self.stmts(body),
            },
            StmtKind::While { cond, body } => StmtKind::While {
                cond: self.expr(cond),
                body: self.stmts(body),
            },
            StmtKind::Ensure(e) => StmtKind::Ensure(self.expr(e)),
            StmtKind::Fire {
                automaton,
                action,
                args,
                det,
            } => StmtKind::Fire {
                automaton: *automaton,
                action: *action,
                args: self.exprs(args),
                det: det.as_ref().map(|d| self.stmts(d)),
            },
            StmtKind::Ignore => StmtKind::Ignore,
            StmtKind::Yield(e) => StmtKind::Yield(self.expr(e)),
        };
        Stmt { kind, span: s.span }
    }
}

/// Whether `e` reads a local for which `pred` holds.
pub(crate) fn reads_local(e: &Expr, pred: &dyn Fn(u32) -> bool) -> bool {
    let found = std::cell::Cell::new(false);
    let read = |r: &VarRef, node: &Expr| {
        if let VarRef::Local(k) = r {
            if pred(*k) {
                found.set(true);
            }
        }
        node.clone()
    };
    let rw = Rewrite {
        read: &read,
        local: &|k| k,
        place: &|r| (r.clone(), vec![]),
    };
    let _ = rw.expr(e);
    found.get()
}

/// Whether some node of `e` satisfies `pred`.
pub(crate) fn any_node(e: &Expr, pred: &dyn Fn(&ExprKind) -> bool) -> bool {
    if pred(&e.kind) {
        return true;
    }
    let any = |xs: &[Expr]| xs.iter().any(|x| any_node(x, pred));
    match &e.kind {
        ExprKind::Var(_)
        | ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Str(_)
        | ExprKind::Nil
        | ExprKind::EnumConst(_) => false,
        ExprKind::Tuple(xs) | ExprKind::Collection(xs) | ExprKind::Call(_, xs) => any(xs),
        ExprKind::Unary(_, x)
        | ExprKind::Field(x, _)
        | ExprKind::NullVal(x)
        | ExprKind::UnionPayload(x, _)
        | ExprKind::UnionNew(_, x)
        | ExprKind::Is(x, _)
        | ExprKind::Quant(_, _, x)
        | ExprKind::SetComp { cond: x, .. } => any_node(x, pred),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => any_node(a, pred) || any_node(b, pred),
        ExprKind::Cond(a, b, c) => any_node(a, pred) || any_node(b, pred) || any_node(c, pred),
        ExprKind::Choose { cond, .. } => cond.as_ref().is_some_and(|c| any_node(c, pred)),
    }
}
