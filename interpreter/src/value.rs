//! Run-time values over persistent collections, with a total order, hashing, and printing in IOA
//! syntax.
//!
//! Collections are `imbl` structures so that a step copies only what it changes: states share
//! everything else with their predecessors, which keeps traces and explorers cheap.

use crate::array_entries::ArrayEntries;
use imbl::{OrdMap, OrdSet, Vector};
use ioa_lang::ir::{Spec, Type, TypeDefKind, TypeId};
use std::fmt::Write;
use std::sync::Arc;

/// An array value: entries equal to the default are never stored, so equal arrays are equal.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ArrayValue {
    /// The value of every index not in `entries`.
    pub default: Value,
    /// The indices whose value differs from the default.
    pub entries: ArrayEntries,
}

/// A value of any IOA type.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Value {
    /// `true` / `false`.
    Bool(bool),
    /// An integer (also `Nat`).
    Int(i64),
    /// A string.
    Str(Arc<str>),
    /// An enumeration constant: its type and position.
    Enum(TypeId, u32),
    /// A tuple's fields in declaration order.
    Tuple(Arc<[Value]>),
    /// A union value: its type, tag and payload.
    Union(TypeId, u32, Arc<Value>),
    /// `nil`.
    Nil,
    /// `embed(v)`.
    Embed(Arc<Value>),
    /// A finite set.
    Set(OrdSet<Value>),
    /// A finite multiset: element to (positive) count.
    Mset(OrdMap<Value, u64>),
    /// A finite sequence (boxed: `imbl`'s vector is large, and values stay 32 bytes).
    Seq(Arc<Vector<Value>>),
    /// A total array: a default and the entries that differ from it.
    Array(Arc<ArrayValue>),
    /// A finite map.
    Map(OrdMap<Value, Value>),
    /// A character (the manual's `Char`). Last, so that the variants before it keep their
    /// discriminants (and hashes).
    Char(char),
    /// An exact rational (the manual's `Real`); arithmetic that leaves 64-bit numerators and
    /// denominators is an overflow error.
    Real(num_rational::Rational64),
}

impl Value {
    /// The Boolean inside, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The integer inside, if this is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The array with every entry `default`.
    pub fn constant_array(default: Value) -> Value {
        Value::Array(Arc::new(ArrayValue {
            default,
            entries: ArrayEntries::new(),
        }))
    }

    /// A sequence value.
    pub fn seq(items: Vector<Value>) -> Value {
        Value::Seq(Arc::new(items))
    }

    /// Array lookup (default when absent).
    pub fn array_get(a: &ArrayValue, key: &Value) -> Value {
        a.entries
            .get(key)
            .cloned()
            .unwrap_or_else(|| a.default.clone())
    }

    /// Array update that keeps the representation canonical (entries equal to the default are
    /// dropped, so equal arrays are equal values).
    pub fn array_set(a: &ArrayValue, key: Value, value: Value) -> Value {
        let entries = if value == a.default {
            a.entries.without(&key)
        } else {
            a.entries.update(key, value)
        };
        Value::Array(Arc::new(ArrayValue {
            default: a.default.clone(),
            entries,
        }))
    }
}

/// Prints values in IOA syntax, using the spec for enumeration and tag names.
pub struct Printer<'a> {
    spec: &'a Spec,
}

impl<'a> Printer<'a> {
    /// A printer for values of `spec`'s types.
    pub fn new(spec: &'a Spec) -> Self {
        Printer { spec }
    }

    /// The IOA text of a value.
    pub fn show(&self, v: &Value) -> String {
        let mut out = String::new();
        self.write(&mut out, v);
        out
    }

    fn list<'v>(
        &self,
        out: &mut String,
        open: &str,
        items: impl Iterator<Item = &'v Value>,
        close: &str,
    ) {
        out.push_str(open);
        for (i, x) in items.enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.write(out, x);
        }
        out.push_str(close);
    }

    fn write(&self, out: &mut String, v: &Value) {
        match v {
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Value::Str(s) => {
                let _ = write!(out, "\"{s}\"");
            }
            Value::Char(c) => out.push_str(&ioa_lang::parse::escape_char(*c)),
            Value::Real(q) => out.push_str(&show_real(q)),
            Value::Enum(t, k) => match &self.spec.types[t.0 as usize].kind {
                TypeDefKind::Enumeration(names) => out.push_str(&names[*k as usize]),
                _ => {
                    let _ = write!(out, "#{k}");
                }
            },
            Value::Union(t, k, payload) => {
                match &self.spec.types[t.0 as usize].kind {
                    TypeDefKind::Union(tags) => out.push_str(&tags[*k as usize].0),
                    _ => out.push('?'),
                }
                out.push('(');
                self.write(out, payload);
                out.push(')');
            }
            Value::Tuple(fields) => self.list(out, "[", fields.iter(), "]"),
            Value::Nil => out.push_str("nil"),
            Value::Embed(x) => {
                out.push_str("embed(");
                self.write(out, x);
                out.push(')');
            }
            Value::Set(s) => self.list(out, "{", s.iter(), "}"),
            Value::Seq(s) => self.list(out, "{", s.iter(), "}"),
            Value::Mset(m) => {
                let items: Vec<&Value> = m
                    .iter()
                    .flat_map(|(x, n)| std::iter::repeat_n(x, *n as usize))
                    .collect();
                self.list(out, "{", items.into_iter(), "}");
            }
            Value::Array(a) => {
                let (default, entries) = (&a.default, &a.entries);
                let mut text = String::from("constant(");
                self.write(&mut text, default);
                text.push(')');
                for (k, x) in entries.iter() {
                    let mut next = String::from("update(");
                    next.push_str(&text);
                    next.push_str(", ");
                    self.write(&mut next, k);
                    next.push_str(", ");
                    self.write(&mut next, x);
                    next.push(')');
                    text = next;
                }
                out.push_str(&text);
            }
            Value::Map(entries) => {
                out.push('{');
                for (i, (k, x)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.write(out, k);
                    out.push_str(" ↦ ");
                    self.write(out, x);
                }
                out.push('}');
            }
        }
    }

    /// The value in the Informal Trace Format (the JSON that Quint and Apalache read).
    pub fn itf(&self, v: &Value, ty: &Type) -> serde_json::Value {
        use serde_json::json;
        match (v, ty) {
            (Value::Bool(b), _) => json!(b),
            (Value::Int(i), _) => {
                if i.unsigned_abs() < (1u64 << 53) {
                    json!(i)
                } else {
                    json!({ "#bigint": i.to_string() })
                }
            }
            (Value::Str(s), _) => json!(s.as_ref()),
            (Value::Char(c), _) => json!(c.to_string()),
            (Value::Real(q), _) => json!(show_real(q)),
            (Value::Enum(..), _) => json!(self.show(v)),
            (Value::Tuple(fields), Type::Named(id)) => match &self.spec.types[id.0 as usize].kind {
                TypeDefKind::Tuple(decls) => {
                    let mut map = serde_json::Map::new();
                    for (x, (name, t)) in fields.iter().zip(decls) {
                        map.insert(name.clone(), self.itf(x, t));
                    }
                    serde_json::Value::Object(map)
                }
                _ => {
                    json!({ "#tup": fields.iter().map(|x| self.itf(x, &Type::Bool)).collect::<Vec<_>>() })
                }
            },
            (Value::Tuple(fields), _) => {
                json!({ "#tup": fields.iter().map(|x| self.itf(x, &Type::Bool)).collect::<Vec<_>>() })
            }
            (Value::Union(t, k, payload), _) => {
                let (tag, pty) = match &self.spec.types[t.0 as usize].kind {
                    TypeDefKind::Union(tags) => {
                        (tags[*k as usize].0.clone(), tags[*k as usize].1.clone())
                    }
                    _ => (String::new(), Type::Bool),
                };
                json!({ "tag": tag, "value": self.itf(payload, &pty) })
            }
            (Value::Nil, _) => json!({ "tag": "nil", "value": { "#tup": [] } }),
            (Value::Embed(x), Type::Null(inner)) => {
                json!({ "tag": "embed", "value": self.itf(x, inner) })
            }
            (Value::Embed(x), _) => json!({ "tag": "embed", "value": self.itf(x, &Type::Bool) }),
            (Value::Set(s), _) => {
                let e = elem(ty);
                json!({ "#set": s.iter().map(|x| self.itf(x, &e)).collect::<Vec<_>>() })
            }
            (Value::Mset(m), _) => {
                let e = elem(ty);
                json!({ "#map": m.iter().map(|(x, n)| json!([self.itf(x, &e), n])).collect::<Vec<_>>() })
            }
            (Value::Seq(s), _) => {
                let e = elem(ty);
                serde_json::Value::Array(s.iter().map(|x| self.itf(x, &e)).collect())
            }
            (Value::Array(a), _) => {
                let (default, entries) = (&a.default, &a.entries);
                let (kt, vt) = key_value(ty);
                json!({
                    "#map": entries.iter().map(|(k, x)| json!([self.itf(k, &kt), self.itf(x, &vt)])).collect::<Vec<_>>(),
                    "default": self.itf(default, &vt),
                })
            }
            (Value::Map(entries), _) => {
                let (kt, vt) = key_value(ty);
                json!({ "#map": entries.iter().map(|(k, x)| json!([self.itf(k, &kt), self.itf(x, &vt)])).collect::<Vec<_>>() })
            }
        }
    }
}

fn elem(t: &Type) -> Type {
    match t {
        Type::Set(e) | Type::Mset(e) | Type::Seq(e) => (**e).clone(),
        _ => Type::Bool,
    }
}

fn key_value(t: &Type) -> (Type, Type) {
    match t {
        Type::Array(k, v) | Type::Map(k, v) => ((**k).clone(), (**v).clone()),
        _ => (Type::Bool, Type::Bool),
    }
}

/// A rational as IOA text: an integer (`3`), a decimal when it has a short one (`2.5`,
/// `-0.125`), else a quotient (`1/3`).
pub fn show_real(q: &num_rational::Rational64) -> String {
    if q.is_integer() {
        return q.numer().to_string();
    }
    // A denominator of the form 2^a·5^b gives a terminating decimal.
    let (mut d, mut twos, mut fives) = (*q.denom(), 0u32, 0u32);
    while d % 2 == 0 {
        d /= 2;
        twos += 1;
    }
    while d % 5 == 0 {
        d /= 5;
        fives += 1;
    }
    let scale = twos.max(fives);
    if d == 1 && scale <= 12 {
        let factor = 10i128.pow(scale) / i128::from(*q.denom());
        let digits = i128::from(*q.numer()) * factor;
        let sign = if digits < 0 { "-" } else { "" };
        let text = format!(
            "{:0>width$}",
            digits.unsigned_abs(),
            width = scale as usize + 1
        );
        let (whole, frac) = text.split_at(text.len() - scale as usize);
        return format!("{sign}{whole}.{frac}");
    }
    format!("{}/{}", q.numer(), q.denom())
}
