//! Printing invariants over the key and value sets of arrays and maps, and the `defined`
//! guards of map elements: the part of [`super`] that brings its own quantifiers (the table is
//! in the parent module's docs).

use super::{bin, call, field, ident, index, mk, name, type_expr, unary_not, IoaPrinter};
use crate::invariant::Kind;
use crate::vars::{Term, VarId};
use interpreter::value::Value;
use ioa_lang::ast::{BinOp, Expr, ExprKind, Param, Quantifier};

impl IoaPrinter<'_> {
    /// A unary invariant of a key or value set or of a key set's size: `Some(text or None)`;
    /// `None` if `x` is none of these.
    pub(super) fn unary_keyed(&self, kind: &Kind, x: VarId) -> Option<Option<Expr>> {
        let keyed = self.keyed(x).is_some()
            || matches!(self.model.vars[x].term, Term::Size(s) if self.keyed(s).is_some());
        if !keyed {
            return None;
        }
        Some(self.unary_keyed_text(kind, x))
    }

    fn unary_keyed_text(&self, kind: &Kind, x: VarId) -> Option<Expr> {
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
        None
    }

    /// `defined(m, i)` for the map in `slot`.
    pub(super) fn defined(&self, slot: usize, i: Expr) -> Expr {
        let m = self.slot(slot).unwrap_or_else(|| name("?"));
        call("defined", vec![m, i])
    }

    /// The quantified variable of index space `k`.
    pub(super) fn index_name(&self, k: usize) -> Expr {
        name(&self.model.indices[k].var_name)
    }

    /// Whether the entry of the array or map in `slot` at `i` counts as present in its key set.
    pub(super) fn present(&self, slot: usize, i: Expr) -> Option<Expr> {
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
    pub(super) fn absent(&self, slot: usize, i: Expr) -> Option<Expr> {
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
    pub(super) fn key_count(&self, slot: usize, low: i64, high: Option<i64>) -> Option<Expr> {
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
    pub(super) fn fresh_names(&self, k: usize, n: usize) -> Vec<String> {
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
    pub(super) fn quantify(&self, q: Quantifier, k: usize, names: &[String], body: Expr) -> Expr {
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

    /// Relations with the key or value set of an array or map (see the module docs).
    pub(super) fn binary_keyed(&self, kind: &Kind, x: VarId, y: VarId) -> Option<Expr> {
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
    pub(super) fn keyed(&self, v: VarId) -> Option<(usize, bool)> {
        match self.model.vars[v].term {
            Term::Keys(s) => Some((s, true)),
            Term::Values(s) => Some((s, false)),
            _ => None,
        }
    }

    /// The index space of the element variable of the array or map in `slot`.
    pub(super) fn index_of_slot(&self, slot: usize) -> Option<usize> {
        self.model
            .vars
            .iter()
            .find(|v| v.term == Term::Elem(slot))
            .and_then(|v| v.index)
    }
}
