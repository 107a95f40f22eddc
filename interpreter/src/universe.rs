//! Finite carriers for types, so that quantifiers, `choose`, loops and action parameters can be
//! enumerated (DESIGN.md §4).
//!
//! Finite types (Bool, enumerations, and tuples, unions, `Null` and small sets built from them)
//! have carriers of their own. Open types (`Int`, tuples of `Int`) get one from a *universe*:
//! lines like `Node = [0]..[2]`, `Value = [1], [2], [3]`, or `abstain.B = {[0]}, {[0], [1]}` for
//! the candidate values of one action parameter. Universes come from `--universe` options and
//! universe files (same syntax, `%` comments).

use crate::error::RunError;
use crate::value::Value;
use imbl::OrdSet;
use ioa_lang::ast;
use ioa_lang::diagnostics::Diagnostic;
use ioa_lang::ir::{Spec, Type, TypeDefKind};
use ioa_lang::span::{FileId, Span};
use rustc_hash::FxHashMap;
use std::sync::{Arc, RwLock};

/// The largest carrier a set type may get by taking the power set of its element carrier.
pub const MAX_POWERSET_ELEMENTS: usize = 12;

/// Finite carriers for the types of one spec.
#[derive(Default)]
pub struct Universe {
    explicit: FxHashMap<String, Arc<[Value]>>,
    params: FxHashMap<(String, String), Arc<[Value]>>,
    cache: RwLock<FxHashMap<Type, Option<Arc<[Value]>>>>,
}

/// One `NAME = values` line, before it is interpreted.
struct Line<'a> {
    lhs: &'a str,
    rhs: &'a str,
    rhs_offset: usize,
    lhs_span: Span,
}

impl Universe {
    /// Reads universe text (a file, or `--universe` options joined by newlines). `file` is the
    /// text's id in the caller's source map, for error spans.
    pub fn parse(spec: &Spec, file: FileId, text: &str) -> Result<Universe, Vec<Diagnostic>> {
        let mut u = Universe::default();
        u.add(spec, file, text, false)?;
        Ok(u)
    }

    /// Adds the definitions in `text` to this universe. A `lenient` text (a universe file found
    /// beside the model, shared by several models) may name types and actions this model lacks;
    /// those lines are skipped.
    pub fn add(
        &mut self,
        spec: &Spec,
        file: FileId,
        text: &str,
        lenient: bool,
    ) -> Result<(), Vec<Diagnostic>> {
        self.add_reporting(spec, file, text, lenient).map(|_| ())
    }

    /// As [`Universe::add`], and returns the left-hand sides of the lines a `lenient` text had
    /// for types and actions this model lacks (`Ballot`, `abstain.B`), which were skipped, so
    /// that the caller can say so.
    pub fn add_reporting(
        &mut self,
        spec: &Spec,
        file: FileId,
        text: &str,
        lenient: bool,
    ) -> Result<Vec<String>, Vec<Diagnostic>> {
        let mut errors = Vec::new();
        let mut skipped = Vec::new();
        let mut offset = 0;
        for raw in text.split_inclusive('\n') {
            let line_start = offset;
            offset += raw.len();
            let code = raw.split('%').next().unwrap_or("");
            if code.trim().is_empty() {
                continue;
            }
            let Some(eq) = code.find('=') else {
                let span = Span::new(file, line_start, line_start + code.trim_end().len());
                errors.push(Diagnostic::error("E0510", "a universe line must read `Type = values`", span)
                    .with_hint("for example `Node = [0]..[2]` or `Value = [1], [2]` or `abstain.B = {[0]}, {[1]}`"));
                continue;
            };
            let lhs = code[..eq].trim();
            let lhs_start = line_start + code[..eq].find(lhs).unwrap_or(0);
            let line = Line {
                lhs,
                rhs: &code[eq + 1..],
                rhs_offset: line_start + eq + 1,
                lhs_span: Span::new(file, lhs_start, lhs_start + lhs.len()),
            };
            if line.rhs.trim().is_empty() {
                let span = Span::new(file, line_start, line_start + code.trim_end().len());
                errors.push(
                    Diagnostic::error("E0510", format!("no values for `{lhs}`"), span).with_hint(
                        "list values (`Node = [0], [1]`) or a range (`Node = [0]..[2]`)",
                    ),
                );
                continue;
            }
            match self.add_line(spec, file, &line) {
                Err(e) if lenient && e.code == "E0511" => skipped.push(lhs.to_string()),
                Err(e) => errors.push(e),
                Ok(()) => {}
            }
        }
        if errors.is_empty() {
            self.cache.write().expect("universe cache lock").clear();
            Ok(skipped)
        } else {
            Err(errors)
        }
    }

    fn add_line(&mut self, spec: &Spec, file: FileId, line: &Line) -> Result<(), Diagnostic> {
        let (ty, param_key) = if let Some((action, param)) = line.lhs.split_once('.') {
            let ty = param_type(spec, action.trim(), param.trim()).ok_or_else(|| {
                Diagnostic::error(
                    "E0511",
                    format!("no action parameter `{}`", line.lhs),
                    line.lhs_span,
                )
                .with_hint(
                    "write `action.parameter`, naming a parameter of an action of the automaton",
                )
            })?;
            (
                ty,
                Some((action.trim().to_string(), param.trim().to_string())),
            )
        } else {
            let ty = named_type(spec, line.lhs).ok_or_else(|| {
                Diagnostic::error(
                    "E0511",
                    format!("unknown type `{}` in universe", line.lhs),
                    line.lhs_span,
                )
                .with_hint("name a declared type or Int, Nat, Bool")
            })?;
            (ty, None)
        };
        let values = if let Some(dots) = line.rhs.find("..") {
            let lo = self.const_of(spec, file, &line.rhs[..dots], line.rhs_offset, &ty)?;
            let hi = self.const_of(
                spec,
                file,
                &line.rhs[dots + 2..],
                line.rhs_offset + dots + 2,
                &ty,
            )?;
            range(&lo, &hi).map_err(|e| {
                let span = Span::new(
                    file,
                    line.rhs_offset,
                    line.rhs_offset + line.rhs.trim_end().len(),
                );
                match e {
                    RangeError::Kind => Diagnostic::error(
                        "E0512",
                        "a range needs integers, characters or one-integer tuples",
                        span,
                    )
                    .with_hint("write `LOW..HIGH`, e.g. `Int = 0..3` or `Node = [0]..[2]`, or list the values"),
                    RangeError::Reversed => Diagnostic::error(
                        "E0512",
                        "this range is empty: its low end is above its high end",
                        span,
                    )
                    .with_hint("write the low end first: `LOW..HIGH`"),
                    RangeError::TooLarge(n) => Diagnostic::error(
                        "E0512",
                        format!("this range has {n} values; a universe range may have at most {MAX_RANGE}"),
                        span,
                    )
                    .with_label_message("too many values")
                    .with_note("every value of a universe is enumerated by runs and explorations")
                    .with_hint("give a smaller range: exploration needs small universes (a few values per type)"),
                }
            })?
        } else {
            let text = format!("{{{}}}", line.rhs);
            let set_ty = Type::Set(Box::new(ty.clone()));
            match self.const_of(
                spec,
                file,
                &text,
                line.rhs_offset.saturating_sub(1),
                &set_ty,
            )? {
                Value::Set(s) => s.into_iter().collect(),
                _ => unreachable!("a set literal evaluates to a set"),
            }
        };
        let values: Arc<[Value]> = values.into();
        match param_key {
            Some(key) => {
                self.params.insert(key, values);
            }
            None => {
                self.explicit.insert(line.lhs.to_string(), values);
            }
        }
        Ok(())
    }

    fn const_of(
        &self,
        spec: &Spec,
        file: FileId,
        text: &str,
        base: usize,
        ty: &Type,
    ) -> Result<Value, Diagnostic> {
        let shift = |s: Span| Span::new(file, s.start as usize + base, s.end as usize + base);
        let expr = ioa_lang::parse::parse_expr(FileId(u32::MAX), text).map_err(|e| {
            use ioa_lang::diagnostics::IntoDiagnostic;
            let mut d = e.to_diagnostic();
            for l in &mut d.labels {
                l.span = shift(l.span);
            }
            d
        })?;
        const_value(spec, &expr, ty)
            .map_err(|(span, msg)| Diagnostic::error("E0513", msg, shift(span)))
    }

    /// Sets the carrier of `ty` to `values` (the universe a proof's counterexample lives in,
    /// read from Z3's model rather than from universe text).
    pub fn set_carrier(&mut self, spec: &Spec, ty: &Type, values: Vec<Value>) {
        self.explicit.insert(type_text(spec, ty), values.into());
        self.cache.write().expect("universe cache lock").clear();
    }

    /// The candidate values for a parameter of an action, if the universe names them.
    pub fn param_candidates(&self, action: &str, param: &str) -> Option<Arc<[Value]>> {
        self.params
            .get(&(action.to_string(), param.to_string()))
            .cloned()
    }

    /// The finite carrier of a type, if it has one.
    pub fn carrier(&self, spec: &Spec, ty: &Type) -> Option<Arc<[Value]>> {
        if let Some(c) = self.cache.read().expect("universe cache lock").get(ty) {
            return c.clone();
        }
        let computed = self.compute(spec, ty);
        self.cache
            .write()
            .expect("universe cache lock")
            .insert(ty.clone(), computed.clone());
        computed
    }

    /// The carrier, or an [`RunError::Unbounded`] at `span`.
    pub fn carrier_at(&self, spec: &Spec, ty: &Type, span: Span) -> Result<Arc<[Value]>, RunError> {
        self.carrier(spec, ty).ok_or_else(|| RunError::Unbounded {
            span,
            ty: type_text(spec, ty),
        })
    }

    fn compute(&self, spec: &Spec, ty: &Type) -> Option<Arc<[Value]>> {
        let name = type_text(spec, ty);
        if let Some(v) = self.explicit.get(&name) {
            return Some(v.clone());
        }
        let values: Vec<Value> = match ty {
            Type::Bool => vec![Value::Bool(false), Value::Bool(true)],
            Type::Nat => self
                .explicit
                .get("Int")?
                .iter()
                .filter(|v| v.as_int().is_some_and(|i| i >= 0))
                .cloned()
                .collect(),
            Type::Int
            | Type::Real
            | Type::Char
            | Type::String
            | Type::Seq(_)
            | Type::Mset(_)
            | Type::Map(..)
            | Type::Infer(_) => return None,
            Type::Named(id) => match &spec.types[id.0 as usize].kind {
                TypeDefKind::Enumeration(names) => (0..names.len() as u32)
                    .map(|k| Value::Enum(*id, k))
                    .collect(),
                TypeDefKind::Tuple(fields) => {
                    let mut acc: Vec<Vec<Value>> = vec![vec![]];
                    for (_, fty) in fields {
                        let c = self.carrier(spec, fty)?;
                        acc = acc
                            .into_iter()
                            .flat_map(|prefix| {
                                c.iter().map(move |x| {
                                    let mut p = prefix.clone();
                                    p.push(x.clone());
                                    p
                                })
                            })
                            .collect();
                        if acc.len() > 1_000_000 {
                            return None;
                        }
                    }
                    acc.into_iter().map(|f| Value::Tuple(f.into())).collect()
                }
                TypeDefKind::Union(tags) => {
                    let mut out = Vec::new();
                    for (k, (_, pty)) in tags.iter().enumerate() {
                        for x in self.carrier(spec, pty)?.iter() {
                            out.push(Value::Union(*id, k as u32, Arc::new(x.clone())));
                        }
                    }
                    out
                }
            },
            Type::Null(inner) => {
                let mut out = vec![Value::Nil];
                out.extend(
                    self.carrier(spec, inner)?
                        .iter()
                        .map(|x| Value::Embed(Arc::new(x.clone()))),
                );
                out
            }
            Type::Set(inner) => {
                let elems = self.carrier(spec, inner)?;
                if elems.len() > MAX_POWERSET_ELEMENTS {
                    return None;
                }
                let mut out = Vec::with_capacity(1 << elems.len());
                for mask in 0u32..(1u32 << elems.len()) {
                    let set: OrdSet<Value> = elems
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| mask & (1 << i) != 0)
                        .map(|(_, x)| x.clone())
                        .collect();
                    out.push(Value::Set(set));
                }
                out.sort();
                out
            }
            Type::Array(k, v) => {
                let keys = self.carrier(spec, k)?;
                let vals = self.carrier(spec, v)?;
                let total = (vals.len() as f64).powi(keys.len() as i32);
                if total > 100_000.0 {
                    return None;
                }
                let mut acc = vec![Value::constant_array(vals[0].clone())];
                for key in keys.iter() {
                    acc = acc
                        .into_iter()
                        .flat_map(|a| {
                            vals.iter().map(move |x| match &a {
                                Value::Array(a) => Value::array_set(a, key.clone(), x.clone()),
                                _ => unreachable!("built as arrays"),
                            })
                        })
                        .collect();
                }
                acc
            }
        };
        Some(values.into())
    }
}

fn named_type(spec: &Spec, name: &str) -> Option<Type> {
    match name {
        "Int" => Some(Type::Int),
        "Nat" => Some(Type::Nat),
        "Bool" => Some(Type::Bool),
        "Char" => Some(Type::Char),
        "Real" => Some(Type::Real),
        "String" => Some(Type::String),
        _ => spec
            .types
            .iter()
            .position(|t| t.name == name)
            .map(|i| Type::Named(ioa_lang::ir::TypeId(i as u32))),
    }
}

fn param_type(spec: &Spec, action: &str, param: &str) -> Option<Type> {
    spec.automata
        .iter()
        .flat_map(|a| a.actions.iter())
        .filter(|a| a.name == action)
        .flat_map(|a| a.params.iter())
        .find(|p| p.name == param)
        .map(|p| p.ty.clone())
}

/// A type's name as the user writes it.
pub fn type_text(spec: &Spec, ty: &Type) -> String {
    let inner = |t: &Type| type_text(spec, t);
    match ty {
        Type::Bool => "Bool".into(),
        Type::Int => "Int".into(),
        Type::Nat => "Nat".into(),
        Type::String => "String".into(),
        Type::Char => "Char".into(),
        Type::Real => "Real".into(),
        Type::Set(e) => format!("Set[{}]", inner(e)),
        Type::Mset(e) => format!("Mset[{}]", inner(e)),
        Type::Seq(e) => format!("Seq[{}]", inner(e)),
        Type::Null(e) => format!("Null[{}]", inner(e)),
        Type::Array(k, v) => format!("Array[{}, {}]", inner(k), inner(v)),
        Type::Map(k, v) => format!("Map[{}, {}]", inner(k), inner(v)),
        Type::Named(id) => spec.types[id.0 as usize].name.clone(),
        Type::Infer(_) => "?".into(),
    }
}

/// The most values one universe range may list.
pub const MAX_RANGE: u64 = 1_000_000;

/// Why a universe range cannot be listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RangeError {
    /// Not two integers, characters or one-integer tuples.
    Kind,
    /// The low end is above the high end.
    Reversed,
    /// More than [`MAX_RANGE`] values (how many).
    TooLarge(u128),
}

fn range(lo: &Value, hi: &Value) -> Result<Vec<Value>, RangeError> {
    let check = |a: i128, b: i128| {
        if a > b {
            Err(RangeError::Reversed)
        } else if (b - a + 1) as u128 > MAX_RANGE as u128 {
            Err(RangeError::TooLarge((b - a + 1) as u128))
        } else {
            Ok(())
        }
    };
    match (lo, hi) {
        (Value::Int(a), Value::Int(b)) => {
            check(*a as i128, *b as i128)?;
            Ok((*a..=*b).map(Value::Int).collect())
        }
        (Value::Char(a), Value::Char(b)) => {
            check(*a as i128, *b as i128)?;
            Ok((*a..=*b).map(Value::Char).collect())
        }
        (Value::Tuple(x), Value::Tuple(y)) if x.len() == 1 && y.len() == 1 => {
            let inner = range(&x[0], &y[0])?;
            Ok(inner
                .into_iter()
                .map(|v| Value::Tuple(vec![v].into()))
                .collect())
        }
        _ => Err(RangeError::Kind),
    }
}

/// Evaluates a constant expression (numbers, tuples, sets, `nil`, `embed`, enumeration
/// constants, union constructors) at a known type.
pub fn const_value(spec: &Spec, e: &ast::Expr, ty: &Type) -> Result<Value, (Span, String)> {
    use ast::ExprKind as A;
    let mismatch = || {
        (
            e.span,
            format!("this value does not have type `{}`", type_text(spec, ty)),
        )
    };
    match (&e.kind, ty) {
        (A::Int(i), Type::Int | Type::Nat) => {
            if *ty == Type::Nat && *i < 0 {
                return Err(mismatch());
            }
            Ok(Value::Int(*i))
        }
        (A::Unary(ast::UnOp::Neg, inner), Type::Int) => match &inner.kind {
            A::Int(i) => Ok(Value::Int(-i)),
            _ => Err(mismatch()),
        },
        (A::Bool(b), Type::Bool) => Ok(Value::Bool(*b)),
        (A::Str(s), Type::String) => Ok(Value::Str(s.as_str().into())),
        (A::Char(c), Type::Char) => Ok(Value::Char(*c)),
        (A::Int(i), Type::Real) => Ok(Value::Real(num_rational::Rational64::from_integer(*i))),
        (A::Real(digits, scale), Type::Real) => Ok(Value::Real(num_rational::Rational64::new(
            *digits,
            10i64.pow(*scale),
        ))),
        (A::Binary(ast::BinOp::Slash, n, d), Type::Real) => match (&n.kind, &d.kind) {
            (A::Int(n), A::Int(d)) if *d != 0 => {
                Ok(Value::Real(num_rational::Rational64::new(*n, *d)))
            }
            _ => Err(mismatch()),
        },
        (A::Unary(ast::UnOp::Neg, inner), Type::Real) => match const_value(spec, inner, ty)? {
            Value::Real(q) => Ok(Value::Real(-q)),
            _ => Err(mismatch()),
        },
        (A::Nil, Type::Null(_)) => Ok(Value::Nil),
        (A::Call(f, args), Type::Null(inner)) if f.name == "embed" && args.len() == 1 => {
            Ok(Value::Embed(Arc::new(const_value(spec, &args[0], inner)?)))
        }
        (A::Tuple(parts), Type::Named(id)) => match &spec.types[id.0 as usize].kind {
            TypeDefKind::Tuple(fields) if fields.len() == parts.len() => {
                let vals: Result<Vec<Value>, _> = parts
                    .iter()
                    .zip(fields)
                    .map(|(p, (_, t))| const_value(spec, p, t))
                    .collect();
                Ok(Value::Tuple(vals?.into()))
            }
            _ => Err(mismatch()),
        },
        (A::Name(n), Type::Named(id)) => match &spec.types[id.0 as usize].kind {
            TypeDefKind::Enumeration(names) => names
                .iter()
                .position(|x| *x == n.name)
                .map(|k| Value::Enum(*id, k as u32))
                .ok_or_else(mismatch),
            _ => Err(mismatch()),
        },
        (A::Call(f, args), Type::Named(id)) if args.len() == 1 => {
            match &spec.types[id.0 as usize].kind {
                TypeDefKind::Union(tags) => {
                    let k = tags
                        .iter()
                        .position(|(t, _)| *t == f.name)
                        .ok_or_else(mismatch)?;
                    Ok(Value::Union(
                        *id,
                        k as u32,
                        Arc::new(const_value(spec, &args[0], &tags[k].1)?),
                    ))
                }
                _ => Err(mismatch()),
            }
        }
        (A::SetLit(items), Type::Set(inner)) => {
            let vals: Result<OrdSet<Value>, _> =
                items.iter().map(|x| const_value(spec, x, inner)).collect();
            Ok(Value::Set(vals?))
        }
        (A::SetLit(items), Type::Seq(inner)) => {
            let vals: Result<imbl::Vector<Value>, _> =
                items.iter().map(|x| const_value(spec, x, inner)).collect();
            Ok(Value::seq(vals?))
        }
        _ => Err(mismatch()),
    }
}
