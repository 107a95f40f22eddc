//! Writing invariants in IOA: each invariant becomes a surface-syntax expression, printed by
//! ioa-lang's pretty printer (so precedence, parentheses and notation are the canonical ones and
//! the text parses back).
//!
//! An invariant over array elements is quantified over their index type: `∀ n: Node
//! (size(voted[n] ∩ abstained[n]) = 0)`. The non-`nil` indices and values of an array have no
//! IOA spelling, so invariants over them bring their own quantifier:
//!
//! | invariant | IOA |
//! |---|---|
//! | `keys(a) ⊆ B` | `∀ i: I (a[i] ≠ nil ⇒ i ∈ B)` |
//! | `B ⊆ keys(a)` | `∀ i: I (i ∈ B ⇒ a[i] ≠ nil)` |
//! | `keys(a) = B` | `∀ i: I (a[i] ≠ nil ⇔ i ∈ B)` |
//! | `size(keys(a) ∩ B) = 0` | `∀ i: I (i ∈ B ⇒ a[i] = nil)` |
//! | `x ∈ keys(a)` | `a[x] ≠ nil` |
//! | `values(a) ⊆ B` | `∀ i: I (a[i] ≠ nil ⇒ a[i].val ∈ B)` |
//! | `size(values(a) ∩ B) = 0` | `∀ i: I (a[i] ≠ nil ⇒ a[i].val ∉ B)` |
//! | `keys(a) = {}`, `values(a) = {}` | `∀ i: I (a[i] = nil)` |
//!
//! Anything else over them (`B ⊆ values(a)` needs an existential quantifier) is unprintable and
//! not proposed. `values(a) = B` is printed as its printable half, `values(a) ⊆ B`.
//!
//! A conditional invariant is an implication under the same quantifier: `∀ i: Pid (pc[i] =
//! critical ⇒ flag[i])`.

use crate::invariant::{Condition, Invariant, Kind};
use crate::vars::{Term, VarId, VarModel};
use interpreter::value::{Printer, Value};
use ioa_lang::ast::{BinOp, Expr, ExprKind, Ident, Param, Quantifier, TypeExpr, UnOp};
use ioa_lang::ir::{Spec, Type};
use ioa_lang::span::{FileId, Span};

/// Builds IOA expressions for invariants of one model.
pub struct IoaPrinter<'a> {
    spec: &'a Spec,
    model: &'a VarModel,
    values: Printer<'a>,
}

impl<'a> IoaPrinter<'a> {
    /// A printer for invariants over `model`'s variables.
    pub fn new(spec: &'a Spec, model: &'a VarModel) -> Self {
        IoaPrinter {
            spec,
            model,
            values: Printer::new(spec),
        }
    }

    /// The invariant's text, or `None` if IOA cannot say it.
    pub fn text(&self, inv: &Invariant) -> Option<String> {
        self.expr(inv).map(|e| ioa_lang::pretty::print_expr(&e))
    }

    /// The invariant as an IOA expression, or `None` if IOA cannot say it.
    pub fn expr(&self, inv: &Invariant) -> Option<Expr> {
        let body = match inv.vars.as_slice() {
            [x] => self.unary(&inv.kind, *x)?,
            [x, y] => self.binary(&inv.kind, *x, *y)?,
            _ => return None,
        };
        let body = match &inv.condition {
            Some(c) => bin(BinOp::Implies, self.premise(c)?, body),
            None => body,
        };
        Some(match self.model.index_of(&inv.all_vars()) {
            Some(k) => self.forall(k, body),
            None => body,
        })
    }

    /// `c = v`, or `c` / `¬c` for a Boolean.
    fn premise(&self, c: &Condition) -> Option<Expr> {
        let t = self.term(c.var)?;
        Some(match &c.value {
            Value::Bool(true) => t,
            Value::Bool(false) => unary_not(t),
            v => bin(BinOp::Eq, t, self.value(v)?),
        })
    }

    fn unary(&self, kind: &Kind, x: VarId) -> Option<Expr> {
        if let Some((slot, keys)) = self.keyed(x) {
            let k = self.index_of_slot(slot);
            let entry = self.entry(slot, k);
            return match kind {
                Kind::Const(Value::Set(s)) if s.is_empty() => {
                    Some(self.forall(k, bin(BinOp::Eq, entry, nil())))
                }
                Kind::Const(c) if keys => {
                    let i = name(&self.model.indices[k].var_name);
                    let present = bin(BinOp::Neq, entry, nil());
                    Some(self.forall(
                        k,
                        bin(BinOp::Iff, present, bin(BinOp::In, i, self.value(c)?)),
                    ))
                }
                _ => None,
            };
        }
        let t = self.term(x)?;
        Some(match kind {
            Kind::Const(c) => bin(BinOp::Eq, t, self.value(c)?),
            Kind::OneOf(cs) => {
                let mut parts = Vec::new();
                for c in cs {
                    parts.push(bin(BinOp::Eq, t.clone(), self.value(c)?));
                }
                parts.into_iter().reduce(|a, b| bin(BinOp::Or, a, b))?
            }
            Kind::Lower(c) => bin(BinOp::Ge, t, int(*c)),
            Kind::Upper(c) => bin(BinOp::Le, t, int(*c)),
            _ => return None,
        })
    }

    fn binary(&self, kind: &Kind, x: VarId, y: VarId) -> Option<Expr> {
        if self.keyed(x).is_some() || self.keyed(y).is_some() {
            return self.binary_keyed(kind, x, y);
        }
        let (a, b) = (self.term(x)?, self.term(y)?);
        Some(match kind {
            Kind::Less => bin(BinOp::Lt, a, b),
            Kind::LessEq => bin(BinOp::Le, a, b),
            Kind::Equal => bin(BinOp::Eq, a, b),
            Kind::Subset => bin(BinOp::SubsetEq, a, b),
            Kind::Member => bin(BinOp::In, a, b),
            Kind::Disjoint => bin(
                BinOp::Eq,
                call("size", vec![bin(BinOp::Intersect, a, b)]),
                int(0),
            ),
            Kind::Linear(ca, cb, cc) => linear(*ca, a, *cb, b, *cc),
            _ => return None,
        })
    }

    /// Relations with the non-`nil` indices or values of an array (see the module docs).
    fn binary_keyed(&self, kind: &Kind, x: VarId, y: VarId) -> Option<Expr> {
        let symmetric = matches!(kind, Kind::Disjoint | Kind::Equal);
        if symmetric && self.keyed(x).is_none() {
            return self.binary_keyed(kind, y, x);
        }
        match (self.keyed(x), self.keyed(y)) {
            (Some((slot, keys)), None) => {
                let k = self.index_of_slot(slot);
                let entry = self.entry(slot, k);
                let present = bin(BinOp::Neq, entry.clone(), nil());
                let absent = bin(BinOp::Eq, entry.clone(), nil());
                let other = self.term(y)?;
                let element = if keys {
                    name(&self.model.indices[k].var_name)
                } else {
                    field(entry, "val")
                };
                let body = match (kind, keys) {
                    (Kind::Subset | Kind::Equal, false) => {
                        bin(BinOp::Implies, present, bin(BinOp::In, element, other))
                    }
                    (Kind::Subset, true) => {
                        bin(BinOp::Implies, present, bin(BinOp::In, element, other))
                    }
                    (Kind::Equal, true) => bin(BinOp::Iff, present, bin(BinOp::In, element, other)),
                    (Kind::Disjoint, true) => {
                        bin(BinOp::Implies, bin(BinOp::In, element, other), absent)
                    }
                    (Kind::Disjoint, false) => {
                        bin(BinOp::Implies, present, bin(BinOp::NotIn, element, other))
                    }
                    _ => return None,
                };
                Some(self.forall(k, body))
            }
            (None, Some((slot, true))) => {
                let k = self.index_of_slot(slot);
                let entry = self.entry(slot, k);
                let present = bin(BinOp::Neq, entry.clone(), nil());
                let absent = bin(BinOp::Eq, entry, nil());
                let other = self.term(x)?;
                let i = name(&self.model.indices[k].var_name);
                match kind {
                    Kind::Subset => {
                        Some(self.forall(k, bin(BinOp::Implies, bin(BinOp::In, i, other), present)))
                    }
                    Kind::Equal => {
                        Some(self.forall(k, bin(BinOp::Iff, present, bin(BinOp::In, i, other))))
                    }
                    Kind::Disjoint => {
                        Some(self.forall(k, bin(BinOp::Implies, bin(BinOp::In, i, other), absent)))
                    }
                    Kind::Member => {
                        let slot_expr = self.slot(slot)?;
                        Some(bin(BinOp::Neq, index(slot_expr, other), nil()))
                    }
                    _ => None,
                }
            }
            (Some((s1, true)), Some((s2, true))) if kind != &Kind::Member => {
                let k = self.index_of_slot(s1);
                if self.index_of_slot(s2) != k {
                    return None;
                }
                let p1 = bin(BinOp::Neq, self.entry(s1, k), nil());
                let p2 = bin(BinOp::Neq, self.entry(s2, k), nil());
                let body = match kind {
                    Kind::Subset => bin(BinOp::Implies, p1, p2),
                    Kind::Equal => bin(BinOp::Iff, p1, p2),
                    Kind::Disjoint => bin(BinOp::Implies, p1, unary_not(p2)),
                    _ => return None,
                };
                Some(self.forall(k, body))
            }
            _ => None,
        }
    }

    /// For a keys or values variable, its array slot and whether it is the keys.
    fn keyed(&self, v: VarId) -> Option<(usize, bool)> {
        match self.model.vars[v].term {
            Term::Keys(s) => Some((s, true)),
            Term::Values(s) => Some((s, false)),
            _ => None,
        }
    }

    fn index_of_slot(&self, slot: usize) -> usize {
        self.model
            .vars
            .iter()
            .find(|v| v.term == Term::Elem(slot))
            .and_then(|v| v.index)
            .expect("a keyed array has an element variable")
    }

    /// `a[i]` for array slot `slot` and index space `k`.
    fn entry(&self, slot: usize, k: usize) -> Expr {
        let a = self.slot(slot).unwrap_or_else(|| name("?"));
        index(a, name(&self.model.indices[k].var_name))
    }

    fn slot(&self, slot: usize) -> Option<Expr> {
        ioa_lang::parse::parse_expr(FileId(0), &self.model.slot_names[slot]).ok()
    }

    /// A variable's term (`voted[n]`, `size(A ∩ B)`), if it has one.
    pub fn term(&self, v: VarId) -> Option<Expr> {
        let var = &self.model.vars[v];
        match &var.term {
            Term::Slot(s) => self.slot(*s),
            Term::Elem(s) => Some(self.entry(*s, var.index?)),
            Term::Size(x) => Some(call("size", vec![self.term(*x)?])),
            Term::Inter(a, b) => Some(bin(BinOp::Intersect, self.term(*a)?, self.term(*b)?)),
            Term::Keys(_) | Term::Values(_) => None,
        }
    }

    fn value(&self, v: &Value) -> Option<Expr> {
        ioa_lang::parse::parse_expr(FileId(0), &self.values.show(v)).ok()
    }

    fn forall(&self, k: usize, body: Expr) -> Expr {
        let space = &self.model.indices[k];
        let param = Param {
            name: ident(&space.var_name),
            ty: type_expr(self.spec, &space.ty),
        };
        mk(ExprKind::Quant(
            Quantifier::ForAll,
            vec![param],
            Box::new(body),
        ))
    }
}

/// `a·x + b·y + c = 0` solved for `y` (or `x`) when its coefficient is ±1, else with the terms
/// in order.
fn linear(a: i64, x: Expr, b: i64, y: Expr, c: i64) -> Expr {
    match (a, b) {
        // y = a·x + c
        (_, -1) => bin(BinOp::Eq, y, add_const(scaled(a, x), c)),
        // y = −a·x − c
        (_, 1) => bin(BinOp::Eq, y, add_const(scaled(-a, x), -c)),
        // x = −b·y − c
        (1, _) => bin(BinOp::Eq, x, add_const(scaled(-b, y), -c)),
        _ => bin(BinOp::Eq, add_const(sum(scaled(a, x), b, y), c), int(0)),
    }
}

fn scaled(k: i64, e: Expr) -> Expr {
    match k {
        1 => e,
        -1 => mk(ExprKind::Unary(UnOp::Neg, Box::new(e))),
        _ => bin(BinOp::Mul, int(k), e),
    }
}

fn sum(lhs: Expr, k: i64, e: Expr) -> Expr {
    if k < 0 {
        bin(BinOp::Sub, lhs, scaled(-k, e))
    } else {
        bin(BinOp::Add, lhs, scaled(k, e))
    }
}

fn add_const(e: Expr, c: i64) -> Expr {
    match c.cmp(&0) {
        std::cmp::Ordering::Equal => e,
        std::cmp::Ordering::Greater => bin(BinOp::Add, e, int(c)),
        std::cmp::Ordering::Less => bin(BinOp::Sub, e, int(-c)),
    }
}

/// An IOA type expression for an IR type.
pub fn type_expr(spec: &Spec, ty: &Type) -> TypeExpr {
    let plain = |n: &str, args: Vec<TypeExpr>| TypeExpr {
        name: ident(n),
        args,
        span: Span::default(),
    };
    let t = |x: &Type| type_expr(spec, x);
    match ty {
        Type::Bool => plain("Bool", vec![]),
        Type::Int => plain("Int", vec![]),
        Type::Nat => plain("Nat", vec![]),
        Type::String => plain("String", vec![]),
        Type::Set(e) => plain("Set", vec![t(e)]),
        Type::Mset(e) => plain("Mset", vec![t(e)]),
        Type::Seq(e) => plain("Seq", vec![t(e)]),
        Type::Null(e) => plain("Null", vec![t(e)]),
        Type::Array(k, v) => plain("Array", vec![t(k), t(v)]),
        Type::Map(k, v) => plain("Map", vec![t(k), t(v)]),
        Type::Named(id) => plain(&spec.types[id.0 as usize].name, vec![]),
        Type::Infer(_) => plain("?", vec![]),
    }
}

fn mk(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::default(),
    }
}

fn ident(n: &str) -> Ident {
    Ident {
        name: n.to_string(),
        span: Span::default(),
    }
}

fn name(n: &str) -> Expr {
    mk(ExprKind::Name(ident(n)))
}

fn int(i: i64) -> Expr {
    if i < 0 {
        mk(ExprKind::Unary(UnOp::Neg, Box::new(mk(ExprKind::Int(-i)))))
    } else {
        mk(ExprKind::Int(i))
    }
}

fn nil() -> Expr {
    mk(ExprKind::Nil)
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    mk(ExprKind::Binary(op, Box::new(a), Box::new(b)))
}

fn unary_not(e: Expr) -> Expr {
    mk(ExprKind::Unary(UnOp::Not, Box::new(e)))
}

fn call(f: &str, args: Vec<Expr>) -> Expr {
    mk(ExprKind::Call(ident(f), args))
}

fn index(a: Expr, i: Expr) -> Expr {
    mk(ExprKind::Index(Box::new(a), vec![i]))
}

fn field(e: Expr, f: &str) -> Expr {
    mk(ExprKind::Field(Box::new(e), ident(f)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(e: Expr) -> String {
        ioa_lang::pretty::print_expr(&e)
    }

    #[test]
    fn linear_relations_are_solved_where_a_coefficient_is_one() {
        let (x, y) = (|| name("x"), || name("y"));
        assert_eq!(show(linear(2, x(), -1, y(), 1)), "y = 2 * x + 1");
        assert_eq!(show(linear(3, x(), 1, y(), -4)), "y = -3 * x + 4");
        assert_eq!(show(linear(1, x(), -2, y(), 0)), "x = 2 * y");
        assert_eq!(show(linear(2, x(), 3, y(), -6)), "2 * x + 3 * y - 6 = 0");
    }
}
