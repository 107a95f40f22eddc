//! Visiting every expression of the typed IR: the searches that read a model's text (the
//! symmetry checks, the LMC invariant shapes) share this one walk.

use ioa_lang::ir::{Expr, ExprKind, PlaceStep, Stmt, StmtKind};

/// Calls `f` on `e` and every expression inside it (including `det` blocks of `choose`).
pub fn walk_expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Var(ioa_lang::ir::VarRef::Component { indices, .. }) => {
            indices.iter().for_each(|x| walk_expr(x, f))
        }
        ExprKind::Var(_)
        | ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Str(_)
        | ExprKind::Nil
        | ExprKind::EnumConst(_) => {}
        ExprKind::Tuple(xs) | ExprKind::Collection(xs) | ExprKind::Call(_, xs) => {
            xs.iter().for_each(|x| walk_expr(x, f))
        }
        ExprKind::Unary(_, x)
        | ExprKind::Field(x, _)
        | ExprKind::NullVal(x)
        | ExprKind::UnionPayload(x, _)
        | ExprKind::UnionNew(_, x)
        | ExprKind::Is(x, _)
        | ExprKind::Quant(_, _, x)
        | ExprKind::SetComp { cond: x, .. } => walk_expr(x, f),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
            walk_expr(a, f);
            walk_expr(b, f);
        }
        ExprKind::Cond(a, b, c) => {
            walk_expr(a, f);
            walk_expr(b, f);
            walk_expr(c, f);
        }
        ExprKind::Choose { cond, det, .. } => {
            if let Some(c) = cond {
                walk_expr(c, f);
            }
            for s in det.iter().flatten() {
                walk_stmt(s, f);
            }
        }
    }
}

/// Calls `f` on every expression of a statement.
pub fn walk_stmt(s: &Stmt, f: &mut dyn FnMut(&Expr)) {
    match &s.kind {
        StmtKind::Assign { target, value } => {
            for step in &target.path {
                if let PlaceStep::Index(e) = step {
                    walk_expr(e, f);
                }
            }
            walk_expr(value, f);
        }
        StmtKind::If {
            branches,
            otherwise,
        } => {
            for (c, body) in branches {
                walk_expr(c, f);
                body.iter().for_each(|x| walk_stmt(x, f));
            }
            otherwise.iter().for_each(|x| walk_stmt(x, f));
        }
        StmtKind::ForIn {
            collection, body, ..
        } => {
            walk_expr(collection, f);
            body.iter().for_each(|x| walk_stmt(x, f));
        }
        StmtKind::ForWhere { cond, body, .. } | StmtKind::While { cond, body } => {
            walk_expr(cond, f);
            body.iter().for_each(|x| walk_stmt(x, f));
        }
        StmtKind::Fire { args, det, .. } => {
            args.iter().for_each(|x| walk_expr(x, f));
            for s in det.iter().flatten() {
                walk_stmt(s, f);
            }
        }
        StmtKind::Yield(e) | StmtKind::Ensure(e) => walk_expr(e, f),
        StmtKind::Ignore => {}
    }
}
