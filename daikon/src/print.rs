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

    /// `defined(m, i)` for the map in `slot`.
    fn defined(&self, slot: usize, i: Expr) -> Expr {
        let m = self.slot(slot).unwrap_or_else(|| name("?"));
        call("defined", vec![m, i])
    }

    /// The quantified variable of index space `k`.
    fn index_name(&self, k: usize) -> Expr {
        name(&self.model.indices[k].var_name)
    }

    /// Whether the entry of the array or map in `slot` at `i` counts as present in its key set.
    fn present(&self, slot: usize, i: Expr) -> Option<Expr> {
        let rule = self.model.key_rules[slot].as_ref()?;
        let entry = index(self.slot(slot)?, i.clone());
        let differs = match &rule.default {
            Some(Value::Bool(false)) => Some(entry),
            Some(Value::Bool(true)) => Some(unary_not(entry)),
            Some(d) => Some(bin(BinOp::Neq, entry, self.value(d)?)),
            None => None,
        };
        Some(match (rule.map, differs) {
            (false, Some(d)) => d,
            (false, None) => return None,
            (true, Some(d)) => bin(BinOp::And, self.defined(slot, i), d),
            (true, None) => self.defined(slot, i),
        })
    }

    /// The negation of [`IoaPrinter::present`], said positively.
    fn absent(&self, slot: usize, i: Expr) -> Option<Expr> {
        let rule = self.model.key_rules[slot].as_ref()?;
        let entry = index(self.slot(slot)?, i.clone());
        let same = match &rule.default {
            Some(Value::Bool(false)) => Some(unary_not(entry)),
            Some(Value::Bool(true)) => Some(entry),
            Some(d) => Some(bin(BinOp::Eq, entry, self.value(d)?)),
            None => None,
        };
        let undefined = || unary_not(self.defined(slot, i.clone()));
        Some(match (rule.map, same) {
            (false, Some(d)) => d,
            (false, None) => return None,
            (true, Some(d)) => bin(BinOp::Or, undefined(), d),
            (true, None) => undefined(),
        })
    }

    /// A bound on the size of the key set of the array or map in `slot`, for constants up to 2:
    /// at least `low` keys and at most `high` (see the module docs).
    fn key_count(&self, slot: usize, low: i64, high: Option<i64>) -> Option<Expr> {
        let k = self.index_of_slot(slot)?;
        let mut parts = Vec::new();
        if low > 2 || high.is_some_and(|h| !(0..=2).contains(&h)) {
            return None;
        }
        if high == Some(0) {
            let i = self.index_name(k);
            return Some(self.forall(k, self.absent(slot, i)?));
        }
        if low >= 1 {
            let names = self.fresh_names(k, low as usize);
            let mut conj = Vec::new();
            for (a, x) in names.iter().enumerate() {
                for y in &names[a + 1..] {
                    conj.push(bin(BinOp::Neq, name(x), name(y)));
                }
            }
            for x in &names {
                conj.push(self.present(slot, name(x))?);
            }
            let body = conj.into_iter().reduce(|a, b| bin(BinOp::And, a, b))?;
            parts.push(self.quantify(Quantifier::Exists, k, &names, body));
        }
        if let Some(h) = high {
            let names = self.fresh_names(k, h as usize + 1);
            let mut hyp = Vec::new();
            for x in &names {
                hyp.push(self.present(slot, name(x))?);
            }
            let mut same = Vec::new();
            for (a, x) in names.iter().enumerate() {
                for y in &names[a + 1..] {
                    same.push(bin(BinOp::Eq, name(x), name(y)));
                }
            }
            let hyp = hyp.into_iter().reduce(|a, b| bin(BinOp::And, a, b))?;
            let same = same.into_iter().reduce(|a, b| bin(BinOp::Or, a, b))?;
            parts.push(self.quantify(
                Quantifier::ForAll,
                k,
                &names,
                bin(BinOp::Implies, hyp, same),
            ));
        }
        parts.into_iter().reduce(|a, b| bin(BinOp::And, a, b))
    }

    /// `n` names for variables of index space `k`: its own, then `n2`, `n3`, … avoiding names
    /// the model has taken.
    fn fresh_names(&self, k: usize, n: usize) -> Vec<String> {
        let first = self.model.indices[k].var_name.clone();
        let mut out = vec![first.clone()];
        let mut suffix = 2;
        while out.len() < n {
            let candidate = format!("{first}{suffix}");
            suffix += 1;
            let clash = self.model.taken.contains(&candidate)
                || self.model.indices.iter().any(|s| s.var_name == candidate);
            if !clash {
                out.push(candidate);
            }
        }
        out.truncate(n);
        out
    }

    /// `Q x1: I, x2: I, … (body)` over index space `k`'s type.
    fn quantify(&self, q: Quantifier, k: usize, names: &[String], body: Expr) -> Expr {
        let ty = &self.model.indices[k].ty;
        let params = names
            .iter()
            .map(|n| Param {
                name: ident(n),
                ty: type_expr(self.spec, ty),
            })
            .collect();
        mk(ExprKind::Quant(q, params, Box::new(body)))
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
            let k = self.index_of_slot(slot)?;
            let i = || self.index_name(k);
            return match kind {
                Kind::Const(Value::Set(s)) if s.is_empty() => {
                    Some(self.forall(k, self.absent(slot, i())?))
                }
                Kind::Const(c) if keys => {
                    let present = self.present(slot, i())?;
                    Some(self.forall(
                        k,
                        bin(BinOp::Iff, present, bin(BinOp::In, i(), self.value(c)?)),
                    ))
                }
                _ => None,
            };
        }
        if let Term::Size(s) = self.model.vars[x].term {
            if let Some((slot, true)) = self.keyed(s) {
                return match kind {
                    Kind::Const(Value::Int(c)) => self.key_count(slot, *c, Some(*c)),
                    Kind::Lower(c) => self.key_count(slot, *c, None),
                    Kind::Upper(c) => self.key_count(slot, 0, Some(*c)),
                    _ => None,
                };
            }
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

    /// Relations with the key or value set of an array or map (see the module docs).
    fn binary_keyed(&self, kind: &Kind, x: VarId, y: VarId) -> Option<Expr> {
        let symmetric = matches!(kind, Kind::Disjoint | Kind::Equal);
        if symmetric && self.keyed(x).is_none() {
            return self.binary_keyed(kind, y, x);
        }
        match (self.keyed(x), self.keyed(y)) {
            (Some((slot, keys)), None) => {
                let k = self.index_of_slot(slot)?;
                let i = self.index_name(k);
                let present = self.present(slot, i.clone())?;
                let absent = self.absent(slot, i.clone())?;
                let other = self.term(y)?;
                let element = if keys {
                    i
                } else {
                    field(self.entry(slot, k), "val")
                };
                let body = match (kind, keys) {
                    (Kind::Subset | Kind::Equal, false) | (Kind::Subset, true) => {
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
                let k = self.index_of_slot(slot)?;
                let i = self.index_name(k);
                let other = self.term(x)?;
                let present = || self.present(slot, i.clone());
                let member = || bin(BinOp::In, i.clone(), other.clone());
                let body = match kind {
                    Kind::Subset => bin(BinOp::Implies, member(), present()?),
                    Kind::Equal => bin(BinOp::Iff, present()?, member()),
                    Kind::Disjoint => bin(BinOp::Implies, member(), self.absent(slot, i.clone())?),
                    Kind::Member => return self.present(slot, other),
                    _ => return None,
                };
                Some(self.forall(k, body))
            }
            (Some((s1, true)), Some((s2, true))) if kind != &Kind::Member => {
                let k = self.index_of_slot(s1)?;
                if self.index_of_slot(s2)? != k {
                    return None;
                }
                let p1 = self.present(s1, self.index_name(k))?;
                let p2 = self.present(s2, self.index_name(k))?;
                let body = match kind {
                    Kind::Subset => bin(BinOp::Implies, p1, p2),
                    Kind::Equal => bin(BinOp::Iff, p1, p2),
                    Kind::Disjoint => bin(BinOp::Implies, p1, self.absent(s2, self.index_name(k))?),
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

    /// The index space of the element variable of the array or map in `slot`.
    fn index_of_slot(&self, slot: usize) -> Option<usize> {
        self.model
            .vars
            .iter()
            .find(|v| v.term == Term::Elem(slot))
            .and_then(|v| v.index)
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
