//! The last step of lowering: once every body is checked, settle the remaining inference
//! variables and write the final types into the IR, so that no [`Type::Infer`] reaches a
//! consumer.

use super::types::{Unifier, VarKindName};
use super::{CheckError, Checker};
use crate::ir::{
    AutomatonBody, Expr, ExprKind, PlaceStep, Spec, Stmt, StmtKind, Type, TypeDefKind, VarDecl,
    VarRef,
};

impl Checker {
    /// Settles inference variables and substitutes them everywhere.
    pub(crate) fn finish(&mut self) {
        let free = std::mem::take(&mut self.free_yields);
        let lenient = |s: crate::span::Span| {
            free.iter()
                .any(|f| f.file == s.file && f.start <= s.start && s.end <= f.end)
        };
        let unsettled = self.unifier.settle(&self.spec.types, &lenient);
        for (span, what, var) in unsettled {
            if what == VarKindName::Constant {
                let (name, cands) = self.unifier.enum_site(var).cloned().unwrap_or_default();
                let types = cands
                    .iter()
                    .map(|(id, _)| self.spec.types[id.0 as usize].name.clone())
                    .collect();
                self.error(CheckError::AmbiguousConstant { name, types, span });
                continue;
            }
            let what = match what {
                VarKindName::Value => "expression",
                VarKindName::Collection => "collection literal",
                VarKindName::Tuple => "tuple literal",
                VarKindName::Indexable => "`constant(…)`",
                VarKindName::Constant => unreachable!("reported above"),
            };
            self.error(CheckError::CannotInfer { what, span });
        }
        if !self.errors.is_empty() {
            return;
        }
        let mut spec = std::mem::take(&mut self.spec);
        resolve_spec(&mut spec, &self.unifier);
        self.spec = spec;
    }
}

fn resolve_spec(spec: &mut Spec, u: &Unifier) {
    for t in &mut spec.types {
        if let TypeDefKind::Tuple(fs) | TypeDefKind::Union(fs) = &mut t.kind {
            for (_, ty) in fs {
                *ty = u.resolve(ty);
            }
        }
    }
    for a in &mut spec.automata {
        vars(&mut a.params, u);
        for act in &mut a.actions {
            for p in &mut act.params {
                p.ty = u.resolve(&p.ty);
                if let Some(e) = &mut p.fixed {
                    expr(e, u);
                }
            }
            if let Some(e) = &mut act.where_clause {
                expr(e, u);
            }
        }
        match &mut a.body {
            AutomatonBody::Primitive(p) => {
                vars(&mut p.state, u);
                if let Some(e) = &mut p.so_that {
                    expr(e, u);
                }
                for t in &mut p.transitions {
                    for (_, e) in &mut t.const_args {
                        expr(e, u);
                    }
                    if let Some(e) = &mut t.where_clause {
                        expr(e, u);
                    }
                    t.pre.iter_mut().for_each(|e| expr(e, u));
                    stmts(&mut t.eff, u);
                }
            }
            AutomatonBody::Composite(c) => {
                for comp in &mut c.components {
                    vars(&mut comp.indices, u);
                    comp.args.iter_mut().for_each(|e| expr(e, u));
                    if let Some(e) = &mut comp.where_clause {
                        expr(e, u);
                    }
                }
                for h in &mut c.hidden {
                    for (_, e) in &mut h.const_args {
                        expr(e, u);
                    }
                    if let Some(e) = &mut h.where_clause {
                        expr(e, u);
                    }
                }
            }
        }
    }
    for inv in &mut spec.invariants {
        expr(&mut inv.body, u);
    }
    for l in &mut spec.liveness {
        for e in l.property.exprs_mut() {
            expr(e, u);
        }
    }
    for sim in &mut spec.simulations {
        expr(&mut sim.relation, u);
        if let Some(p) = &mut sim.proof {
            vars(&mut p.aux, u);
            stmts(&mut p.start, u);
            for e in p.entries.iter_mut().flatten() {
                if let Some(b) = &mut e.body {
                    stmts(b, u);
                }
            }
        }
    }
    for s in &mut spec.schedules {
        vars(&mut s.vars, u);
        stmts(&mut s.body, u);
    }
}

fn vars(decls: &mut [VarDecl], u: &Unifier) {
    for d in decls {
        d.ty = u.resolve(&d.ty);
        if let Some(e) = &mut d.init {
            expr(e, u);
        }
    }
}

fn stmts(list: &mut [Stmt], u: &Unifier) {
    for s in list {
        match &mut s.kind {
            StmtKind::Assign { target, value } => {
                if let VarRef::Component { indices, .. } = &mut target.root {
                    indices.iter_mut().for_each(|e| expr(e, u));
                }
                for step in &mut target.path {
                    if let PlaceStep::Index(e) = step {
                        expr(e, u);
                    }
                }
                expr(value, u);
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (c, b) in branches {
                    expr(c, u);
                    stmts(b, u);
                }
                stmts(otherwise, u);
            }
            StmtKind::ForIn {
                collection, body, ..
            } => {
                expr(collection, u);
                stmts(body, u);
            }
            StmtKind::ForWhere { ty, cond, body, .. } => {
                *ty = u.resolve(ty);
                expr(cond, u);
                stmts(body, u);
            }
            StmtKind::While { cond, body } => {
                expr(cond, u);
                stmts(body, u);
            }
            StmtKind::Fire { args, det, .. } => {
                args.iter_mut().for_each(|e| expr(e, u));
                if let Some(d) = det {
                    stmts(d, u);
                }
            }
            StmtKind::Ignore => {}
            StmtKind::Yield(e) | StmtKind::Ensure(e) => expr(e, u),
        }
    }
}

fn expr(e: &mut Expr, u: &Unifier) {
    if let (ExprKind::EnumConst(k), Type::Infer(v)) = (&mut e.kind, &e.ty) {
        if let Some(index) = u.enum_index(*v) {
            *k = index;
        }
    }
    e.ty = u.resolve(&e.ty);
    match &mut e.kind {
        ExprKind::Var(VarRef::Component { indices, .. }) => {
            indices.iter_mut().for_each(|x| expr(x, u))
        }
        ExprKind::Var(_)
        | ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Str(_)
        | ExprKind::Nil
        | ExprKind::EnumConst(_) => {}
        ExprKind::Tuple(xs) | ExprKind::Collection(xs) | ExprKind::Call(_, xs) => {
            xs.iter_mut().for_each(|x| expr(x, u))
        }
        ExprKind::Unary(_, x)
        | ExprKind::Field(x, _)
        | ExprKind::NullVal(x)
        | ExprKind::UnionPayload(x, _)
        | ExprKind::UnionNew(_, x)
        | ExprKind::Is(x, _) => expr(x, u),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
            expr(a, u);
            expr(b, u);
        }
        ExprKind::Quant(_, binders, body) => {
            for (_, t) in binders {
                *t = u.resolve(t);
            }
            expr(body, u);
        }
        ExprKind::SetComp { elem, cond, .. } => {
            *elem = u.resolve(elem);
            expr(cond, u);
        }
        ExprKind::Cond(c, a, b) => {
            expr(c, u);
            expr(a, u);
            expr(b, u);
        }
        ExprKind::Choose { cond, det, .. } => {
            if let Some(c) = cond {
                expr(c, u);
            }
            if let Some(d) = det {
                stmts(d, u);
            }
        }
    }
}

/// Whether any type in the spec is still an inference variable (for tests).
pub fn has_inference_variables(spec: &Spec) -> bool {
    serde_json::to_string(spec)
        .map(|s| s.contains("\"Infer\""))
        .unwrap_or(true)
}
