//! Building flat IR nodes: array types and reads of a family's variables, `constant`
//! initial values, and the Boolean connectives the flat preconditions are made of.

use crate::ast::Quantifier;
use crate::ir::{BinOp, Builtin, Expr, ExprKind, Type, UnOp, VarDecl, VarRef};
use crate::span::Span;

/// The flat type of a variable of type `ty` in a family with these indices.
pub(super) fn wrap(ty: &Type, indices: &[VarDecl]) -> Type {
    indices.iter().rev().fold(ty.clone(), |acc, idx| {
        Type::Array(Box::new(idx.ty.clone()), Box::new(acc))
    })
}

/// `constant(constant(… e))`, one per index.
pub(super) fn constant_of(e: Expr, indices: &[VarDecl]) -> Expr {
    let span = e.span;
    indices.iter().rev().fold(e, |acc, idx| {
        let ty = Type::Array(Box::new(idx.ty.clone()), Box::new(acc.ty.clone()));
        Expr {
            kind: ExprKind::Call(Builtin::Constant, vec![acc]),
            ty,
            span,
        }
    })
}

/// `array[i1][i2]…`.
pub(super) fn index_into(array: Expr, index: &[Expr]) -> Expr {
    index.iter().fold(array, |acc, i| {
        let ty = match &acc.ty {
            Type::Array(_, v) => (**v).clone(),
            other => other.clone(),
        };
        let span = acc.span;
        Expr {
            kind: ExprKind::Index(Box::new(acc), Box::new(i.clone())),
            ty,
            span,
        }
    })
}

pub(super) fn local(k: u32, node: &Expr) -> Expr {
    Expr {
        kind: ExprKind::Var(VarRef::Local(k)),
        ty: node.ty.clone(),
        span: node.span,
    }
}

pub(super) fn eq(a: Expr, b: Expr, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Binary(BinOp::Eq, Box::new(a), Box::new(b)),
        ty: Type::Bool,
        span,
    }
}

pub(super) fn not(e: Expr) -> Expr {
    let span = e.span;
    Expr {
        kind: ExprKind::Unary(UnOp::Not, Box::new(e)),
        ty: Type::Bool,
        span,
    }
}

/// The conjunction, `None` for no conjuncts.
pub(super) fn conj(es: Vec<Expr>, _span: Span) -> Option<Expr> {
    es.into_iter().reduce(|a, b| {
        let span = a.span;
        Expr {
            kind: ExprKind::Binary(BinOp::And, Box::new(a), Box::new(b)),
            ty: Type::Bool,
            span,
        }
    })
}

pub(super) fn conj_true(es: Vec<Expr>, span: Span) -> Expr {
    conj(es, span).unwrap_or(Expr {
        kind: ExprKind::Bool(true),
        ty: Type::Bool,
        span,
    })
}

pub(super) fn disj(es: Vec<Expr>, span: Span) -> Expr {
    es.into_iter()
        .reduce(|a, b| {
            let span = a.span;
            Expr {
                kind: ExprKind::Binary(BinOp::Or, Box::new(a), Box::new(b)),
                ty: Type::Bool,
                span,
            }
        })
        .unwrap_or(Expr {
            kind: ExprKind::Bool(false),
            ty: Type::Bool,
            span,
        })
}

/// `∃ binders (body)`: each binder a local slot and its type.
pub(super) fn exists(binders: Vec<(u32, Type)>, body: Expr, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Quant(Quantifier::Exists, binders, Box::new(body)),
        ty: Type::Bool,
        span,
    }
}
