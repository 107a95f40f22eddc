//! Z3's model values (`prover_export::solve::model::ModelValue`, read at their IOA types) turned
//! into the interpreter's `Value`s. Where the model leaves a value open, it is completed with a
//! value of its type (the first element of the model's carrier for an open type, otherwise the
//! type's simplest value): any completion will do, because the interpreter's check, not Z3,
//! decides whether the completed state is a counterexample.

use interpreter::value::Value;
use ioa_lang::ir::{Spec, Type, TypeDefKind};
use prover_export::solve::model::ModelValue;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Why a model value cannot become an interpreter value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable(pub String);

/// Converts model values, completing open ones from `carriers` (the model's elements of open
/// types, already converted) or from each type's simplest value.
pub struct Reader<'s> {
    /// The spec (types).
    pub spec: &'s Spec,
    /// The converted carriers of open types.
    pub carriers: HashMap<Type, Vec<Value>>,
    /// Whether a candidate whose membership in a set the model leaves open is completed as a
    /// member (else it is left out).
    pub open_members_in: bool,
}

/// Whether a model value leaves a set membership open somewhere.
pub fn has_open_members(v: &ModelValue) -> bool {
    match v {
        ModelValue::Set(members, open) => !open.is_empty() || members.iter().any(has_open_members),
        ModelValue::Tuple(xs) | ModelValue::Seq(xs) => xs.iter().any(has_open_members),
        ModelValue::Union(_, x) | ModelValue::Embed(x) => has_open_members(x),
        ModelValue::Mset(xs) => xs.iter().any(|(x, _)| has_open_members(x)),
        ModelValue::Array(d, xs) => {
            has_open_members(d)
                || xs
                    .iter()
                    .any(|(k, x)| has_open_members(k) || has_open_members(x))
        }
        ModelValue::Map(xs) => xs
            .iter()
            .any(|(k, x)| has_open_members(k) || has_open_members(x)),
        _ => false,
    }
}

impl Reader<'_> {
    /// `v` at type `ty`.
    pub fn value(&self, v: &ModelValue, ty: &Type) -> Result<Value, Unreadable> {
        let spec = self.spec;
        let bad = || {
            Unreadable(format!(
                "a value of type `{}` that the interpreter cannot represent",
                interpreter::universe::type_text(spec, ty)
            ))
        };
        Ok(match (v, ty) {
            (ModelValue::Unknown, _) => self.default_of(ty)?,
            (ModelValue::Bool(b), Type::Bool) => Value::Bool(*b),
            (ModelValue::Int(i), Type::Int | Type::Nat) => {
                Value::Int(i64::try_from(*i).map_err(|_| bad())?)
            }
            (ModelValue::Int(i), Type::Char) => Value::Char(
                u32::try_from(*i)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(bad)?,
            ),
            (ModelValue::Str(s), Type::String) => Value::Str(s.as_str().into()),
            (ModelValue::Enum(name), Type::Named(id)) => match &spec.types[id.0 as usize].kind {
                TypeDefKind::Enumeration(cs) => {
                    let k = cs.iter().position(|c| c == name).ok_or_else(bad)?;
                    Value::Enum(*id, k as u32)
                }
                _ => return Err(bad()),
            },
            (ModelValue::Tuple(parts), Type::Named(id)) => match &spec.types[id.0 as usize].kind {
                TypeDefKind::Tuple(fields) if fields.len() == parts.len() => {
                    let vals: Result<Vec<Value>, _> = parts
                        .iter()
                        .zip(fields)
                        .map(|(p, (_, t))| self.value(p, t))
                        .collect();
                    Value::Tuple(vals?.into())
                }
                _ => return Err(bad()),
            },
            (ModelValue::Union(tag, payload), Type::Named(id)) => {
                match &spec.types[id.0 as usize].kind {
                    TypeDefKind::Union(tags) => {
                        let k = tags.iter().position(|(t, _)| t == tag).ok_or_else(bad)?;
                        Value::Union(*id, k as u32, Arc::new(self.value(payload, &tags[k].1)?))
                    }
                    _ => return Err(bad()),
                }
            }
            (ModelValue::Nil, Type::Null(_)) => Value::Nil,
            (ModelValue::Embed(x), Type::Null(t)) => Value::Embed(Arc::new(self.value(x, t)?)),
            (ModelValue::Set(xs, open), Type::Set(t)) => {
                let completed: &[ModelValue] = if self.open_members_in { open } else { &[] };
                Value::Set(
                    xs.iter()
                        .chain(completed)
                        .map(|x| self.value(x, t))
                        .collect::<Result<_, _>>()?,
                )
            }
            (ModelValue::Mset(xs), Type::Mset(t)) => {
                let mut m = imbl::OrdMap::new();
                for (x, n) in xs {
                    *m.entry(self.value(x, t)?).or_insert(0) += *n;
                }
                Value::Mset(m)
            }
            (ModelValue::Seq(xs), Type::Seq(t)) => Value::seq(
                xs.iter()
                    .map(|x| self.value(x, t))
                    .collect::<Result<_, _>>()?,
            ),
            (ModelValue::Array(default, entries), Type::Array(k, t)) => {
                let mut pairs = Vec::new();
                for (key, x) in entries {
                    pairs.push((self.value(key, k)?, self.value(x, t)?));
                }
                let default = match **default {
                    ModelValue::Unknown => most_common(&pairs).unwrap_or(self.default_of(t)?),
                    ref d => self.value(d, t)?,
                };
                let mut a = Value::constant_array(default);
                for (key, x) in pairs {
                    let Value::Array(inner) = &a else {
                        unreachable!("an array stays an array")
                    };
                    a = Value::array_set(inner, key, x);
                }
                a
            }
            (ModelValue::Map(entries), Type::Map(k, t)) => {
                let mut m = imbl::OrdMap::new();
                for (key, x) in entries {
                    m.insert(self.value(key, k)?, self.value(x, t)?);
                }
                Value::Map(m)
            }
            _ => return Err(bad()),
        })
    }

    /// The value an open part of the model is completed with.
    pub fn default_of(&self, ty: &Type) -> Result<Value, Unreadable> {
        if let Some(first) = self.carriers.get(ty).and_then(|c| c.first()) {
            return Ok(first.clone());
        }
        let spec = self.spec;
        Ok(match ty {
            Type::Bool => Value::Bool(false),
            Type::Int | Type::Nat => Value::Int(0),
            Type::String => Value::Str("".into()),
            Type::Char => Value::Char('a'),
            Type::Set(_) => Value::Set(Default::default()),
            Type::Mset(_) => Value::Mset(Default::default()),
            Type::Seq(_) => Value::seq(Default::default()),
            Type::Map(..) => Value::Map(Default::default()),
            Type::Null(_) => Value::Nil,
            Type::Array(_, t) => Value::constant_array(self.default_of(t)?),
            Type::Named(id) => match &spec.types[id.0 as usize].kind {
                TypeDefKind::Enumeration(_) => Value::Enum(*id, 0),
                TypeDefKind::Tuple(fields) => Value::Tuple(
                    fields
                        .iter()
                        .map(|(_, t)| self.default_of(t))
                        .collect::<Result<Vec<_>, _>>()?
                        .into(),
                ),
                TypeDefKind::Union(tags) => match tags.first() {
                    Some((_, t)) => Value::Union(*id, 0, Arc::new(self.default_of(t)?)),
                    None => return Err(Unreadable("a union without tags".into())),
                },
            },
            Type::Real | Type::Infer(_) => {
                return Err(Unreadable(format!(
                    "a value of type `{}` left open by the model",
                    interpreter::universe::type_text(spec, ty)
                )))
            }
        })
    }
}

/// The value most entries of an array have (the array's default when the model gives none).
fn most_common(pairs: &[(Value, Value)]) -> Option<Value> {
    let mut counts: BTreeMap<&Value, usize> = BTreeMap::new();
    for (_, x) in pairs {
        *counts.entry(x).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .map(|(x, _)| x.clone())
}
