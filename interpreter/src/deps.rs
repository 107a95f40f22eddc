//! Which state variables an expression reads, so that a random run re-decides only what a step
//! could have changed: an action instance's enabledness and an invariant's truth are functions
//! of the state slots they read, and stay valid while those slots keep their values.
//!
//! The walk is conservative: anything whose reads it cannot name (a component of a composite,
//! another automaton, auxiliary variables, a `det` block inside an expression) makes the
//! expression depend on every slot.

use crate::value::Value;
use ioa_lang::ir::{Expr, ExprKind, Stmt, StmtKind, VarRef};

/// The state slots (of one instance) an expression reads, or `None` when it may read anything.
#[derive(Debug, Clone, Default)]
pub struct Reads {
    /// Local state slots read (indices into the instance's variables).
    pub slots: Vec<u32>,
    /// Whether the reads could not be determined (depend on every slot).
    pub everything: bool,
}

impl Reads {
    /// Adds the reads of `e`.
    pub fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Var(r) => self.var(r),
            ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Str(_)
            | ExprKind::Nil
            | ExprKind::EnumConst(_) => {}
            ExprKind::Tuple(xs) | ExprKind::Collection(xs) | ExprKind::Call(_, xs) => {
                xs.iter().for_each(|x| self.expr(x))
            }
            ExprKind::Unary(_, x)
            | ExprKind::Field(x, _)
            | ExprKind::NullVal(x)
            | ExprKind::UnionPayload(x, _)
            | ExprKind::UnionNew(_, x)
            | ExprKind::Is(x, _)
            | ExprKind::Quant(_, _, x)
            | ExprKind::SetComp { cond: x, .. } => self.expr(x),
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Cond(a, b, c) => {
                self.expr(a);
                self.expr(b);
                self.expr(c);
            }
            ExprKind::Choose { cond, det, .. } => {
                if let Some(c) = cond {
                    self.expr(c);
                }
                if let Some(stmts) = det {
                    stmts.iter().for_each(|s| self.stmt(s));
                }
            }
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Yield(e) => self.expr(e),
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (c, b) in branches {
                    self.expr(c);
                    b.iter().for_each(|s| self.stmt(s));
                }
                otherwise.iter().for_each(|s| self.stmt(s));
            }
            // Other statements do not occur in a `det` block; be safe if they ever do.
            _ => self.everything = true,
        }
    }

    fn var(&mut self, r: &VarRef) {
        match r {
            VarRef::State(s) => {
                if !self.slots.contains(s) {
                    self.slots.push(*s);
                }
            }
            VarRef::Param(_) | VarRef::Local(_) | VarRef::QualifiedParam { .. } => {}
            VarRef::Aux(_) | VarRef::Qualified { .. } | VarRef::Component { .. } => {
                self.everything = true
            }
        }
    }
}

/// Global slots in which two states differ, as a mask over the state vector.
pub fn changed(before: &[Value], after: &[Value], out: &mut Vec<bool>) -> bool {
    out.clear();
    let mut any = false;
    for (a, b) in before.iter().zip(after) {
        let c = !same(a, b);
        any |= c;
        out.push(c);
    }
    any
}

/// Value equality with a pointer check first: a step shares every collection it does not
/// change with its predecessor.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Set(x), Value::Set(y)) if x.ptr_eq(y) => true,
        (Value::Map(x), Value::Map(y)) if x.ptr_eq(y) => true,
        (Value::Mset(x), Value::Mset(y)) if x.ptr_eq(y) => true,
        (Value::Array(x), Value::Array(y)) if std::sync::Arc::ptr_eq(x, y) => true,
        (Value::Seq(x), Value::Seq(y)) if std::sync::Arc::ptr_eq(x, y) => true,
        (Value::Tuple(x), Value::Tuple(y)) if std::sync::Arc::ptr_eq(x, y) => true,
        _ => a == b,
    }
}

/// A set of global state slots, or every slot.
#[derive(Debug, Clone, Default)]
pub struct SlotSet {
    slots: Vec<usize>,
    everything: bool,
}

impl SlotSet {
    /// Every slot.
    pub fn everything() -> SlotSet {
        SlotSet {
            slots: vec![],
            everything: true,
        }
    }

    /// Adds an instance's reads, its slots shifted by the instance's offset.
    pub fn add(&mut self, reads: &Reads, offset: usize) {
        self.everything |= reads.everything;
        for s in &reads.slots {
            let g = offset + *s as usize;
            if !self.slots.contains(&g) {
                self.slots.push(g);
            }
        }
    }

    /// Whether any slot in the set is marked in `changed`.
    pub fn touched(&self, changed: &[bool]) -> bool {
        self.everything
            || self
                .slots
                .iter()
                .any(|s| changed.get(*s).copied().unwrap_or(true))
    }
}
