//! Writing invariants in IOA: each invariant becomes a surface-syntax expression, printed by
//! ioa-lang's pretty printer (so precedence, parentheses and notation are the canonical ones and
//! the text parses back).
//!
//! An invariant over array or map elements is quantified over their index type: `∀ n: Node
//! (size(voted[n] ∩ abstained[n]) = 0)`. A map element is read only where the map has the key:
//! `∀ n: Node (defined(votes, n) ⇒ votes[n] ≤ 3)`.
//!
//! The key and value sets of an array or map have no IOA spelling, so invariants over them bring
//! their own quantifier. With `present(i)` the test that the entry at `i` counts (`a[i] ≠ nil`
//! for `Null` entries, `a[i] ≠ d` for an array whose start-state default is `d` (`a[i]` or
//! `¬a[i]` for a Boolean default), `defined(m, i) ∧
//! m[i] ≠ d` or `defined(m, i)` for a map, see [`crate::vars::KeyRule`]) and `absent(i)` its
//! negation:
//!
//! | invariant | IOA |
//! |---|---|
//! | `keys(a) ⊆ B` | `∀ i: I (present(i) ⇒ i ∈ B)` |
//! | `B ⊆ keys(a)` | `∀ i: I (i ∈ B ⇒ present(i))` |
//! | `keys(a) = B` | `∀ i: I (present(i) ⇔ i ∈ B)` |
//! | `size(keys(a) ∩ B) = 0` | `∀ i: I (i ∈ B ⇒ absent(i))` |
//! | `x ∈ keys(a)` | `present(x)` |
//! | `values(a) ⊆ B` | `∀ i: I (present(i) ⇒ a[i].val ∈ B)` |
//! | `size(values(a) ∩ B) = 0` | `∀ i: I (present(i) ⇒ a[i].val ∉ B)` |
//! | `keys(a) = {}`, `values(a) = {}`, `size(keys(a)) = 0` | `∀ i: I (absent(i))` |
//! | `size(keys(a)) ≤ 1` | `∀ i: I, i2: I (present(i) ∧ present(i2) ⇒ i = i2)` |
//! | `size(keys(a)) ≥ 1` | `∃ i: I (present(i))` |
//! | `size(keys(a)) = c` | both bounds, for `c` ≤ 2 |
//!
//! Anything else over them (`B ⊆ values(a)` needs an existential quantifier over the values,
//! a bound on a key set's size above 2 a quantifier per element) is unprintable and reported
//! as such. `values(a) = B` is printed as its printable half, `values(a) ⊆ B`.
//!
//! A conditional invariant is an implication under the same quantifier: `∀ i: Pid (pc[i] =
//! critical ⇒ flag[i])`. A condition on an action is its premise, `(∃ i: Node (pre)) ⇒ P`
//! ([`crate::preconditions`]).

mod keys;

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
        let vars = inv.all_vars();
        let index = self.model.index_of(&vars);
        // Map elements are read only where the map has the key.
        let mut slots: Vec<usize> = vars.iter().flat_map(|v| self.model.map_slots(*v)).collect();
        slots.sort_unstable();
        slots.dedup();
        let guard = match index {
            Some(k) => slots
                .iter()
                .map(|s| Some(self.defined(*s, self.index_name(k))))
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .reduce(|a, b| bin(BinOp::And, a, b)),
            None => None,
        };
        let premise = match &inv.condition {
            Some(c) => Some(self.premise(c)?),
            None => None,
        };
        let body = match (guard, premise) {
            (Some(g), Some(p)) => bin(BinOp::Implies, bin(BinOp::And, g, p), body),
            (Some(p), None) | (None, Some(p)) => bin(BinOp::Implies, p, body),
            (None, None) => body,
        };
        Some(match index {
            Some(k) => self.forall(k, body),
            None => body,
        })
    }

    /// The premise's text (`pc[p] = critical`, `∃ s: Slot (locked[s])`), if IOA can say it.
    pub fn premise_text(&self, c: &Condition) -> Option<String> {
        self.premise(c).map(|e| ioa_lang::pretty::print_expr(&e))
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
        if let Some(e) = self.unary_keyed(kind, x) {
            return e;
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
            Term::Enabled(k) => Some(self.model.actions.get(*k)?.premise.clone()),
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
        Type::Char => plain("Char", vec![]),
        Type::Real => plain("Real", vec![]),
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
