//! Evaluating IR expressions over a state.
//!
//! `∧`, `∨` and `⇒` stop early, so guards such as `x ≠ nil ⇒ x.val ∈ S` are safe. Quantifiers
//! range over a bound guard's collection when the body starts with `x ∈ S ∧ …` (∃) or
//! `x ∈ S ⇒ …` (∀), and over the type's finite carrier otherwise.

use crate::error::{EvalResult, RunError};
use crate::universe::Universe;
use crate::value::Value;
use imbl::{OrdMap, OrdSet, Vector};
use ioa_lang::ast::Quantifier;
use ioa_lang::ir::{
    AutomatonId, BinOp, Builtin, Expr, ExprKind, Spec, Stmt, StmtKind, Type, UnOp, VarRef,
};
use ioa_lang::span::Span;
use std::sync::Arc;

/// Reads the state of other automata or components, for simulations and composites.
pub trait StateView {
    /// A state variable of a named automaton (simulations).
    fn qualified(&self, automaton: AutomatonId, slot: u32) -> Option<Value>;
    /// A parameter of a named automaton (simulations).
    fn qualified_param(&self, _automaton: AutomatonId, _param: u32) -> Option<Value> {
        None
    }
    /// A state variable of a component instance of composite `automaton`.
    fn component(
        &self,
        automaton: AutomatonId,
        component: u32,
        indices: &[Value],
        slot: u32,
    ) -> Option<Value>;
}

/// A view with nothing in it.
pub struct NoView;

impl StateView for NoView {
    fn qualified(&self, _: AutomatonId, _: u32) -> Option<Value> {
        None
    }
    fn component(&self, _: AutomatonId, _: u32, _: &[Value], _: u32) -> Option<Value> {
        None
    }
}

/// Resolves `choose`: from a schedule's `det` values, at random, or not at all.
pub trait Chooser {
    /// Picks one of `candidates` (all satisfy the condition; never empty) for the `choose` at
    /// `span`, or reports that nothing resolves it.
    fn choose(&mut self, span: Span, candidates: &[Value]) -> EvalResult<Value>;
    /// A value offered by a `det` block, if any is pending (checked against the condition).
    fn offered(&mut self) -> Option<Value> {
        None
    }
    /// Whether [`Chooser::took_offer`] wants the offered value's position among the
    /// candidates (computing them costs an evaluation of the condition over the carrier).
    fn records_offers(&self) -> bool {
        false
    }
    /// An offered value was taken; `index` is its position among the candidates (`None` when
    /// it is not one of them, e.g. outside the universe), so a recorded run can replay it.
    fn took_offer(&mut self, _index: Option<usize>) {}
    /// For a chooser that picks by position alone (an explorer's script) and has no offer
    /// pending: the position it takes among `n` candidates for the `choose` at `span`, the
    /// choice counted as made, exactly as [`Chooser::choose`] would make it. `None` (nothing
    /// counted) when it needs the candidates themselves.
    fn choose_index(&mut self, _span: Span, _n: usize) -> Option<EvalResult<usize>> {
        None
    }
}

/// A chooser that refuses: used where no choice can be resolved (predicates).
pub struct NoChoice;

impl Chooser for NoChoice {
    fn choose(&mut self, span: Span, candidates: &[Value]) -> EvalResult<Value> {
        if candidates.len() == 1 {
            return Ok(candidates[0].clone());
        }
        Err(RunError::UnresolvedChoice { span })
    }
}

/// What an expression can see.
pub struct Scope<'a> {
    /// The spec (types, for carriers).
    pub spec: &'a Spec,
    /// Carriers of open types.
    pub universe: &'a Universe,
    /// The state of the automaton in scope.
    pub state: &'a [Value],
    /// Its parameters.
    pub params: &'a [Value],
    /// Schedule or auxiliary variables.
    pub aux: &'a [Value],
    /// Other automata and components.
    pub view: &'a dyn StateView,
}

/// `a op b` for an ordering comparison `op` (`<`, `≤`, `>`, `≥`) of `Int`s, `Real`s or `Char`s.
fn ordered<T: PartialOrd>(op: BinOp, a: &T, b: &T) -> bool {
    match op {
        BinOp::Lt => a < b,
        BinOp::Le => a <= b,
        BinOp::Gt => a > b,
        _ => a >= b,
    }
}

fn ovf(span: Span) -> RunError {
    RunError::Overflow { span }
}

fn undefined(span: Span, what: &'static str) -> RunError {
    RunError::Undefined { span, what }
}

impl<'a> Scope<'a> {
    /// A scope that reads parameters only: no state, no auxiliary variables, no other automata.
    /// Signature `where` clauses, `const` arguments and component families are evaluated in one.
    pub fn params_only(spec: &'a Spec, universe: &'a Universe, params: &'a [Value]) -> Self {
        Scope {
            spec,
            universe,
            state: &[],
            params,
            aux: &[],
            view: &NoView,
        }
    }
}

impl Scope<'_> {
    /// The value of a plain variable, by reference (no copy); `None` for anything else. Reading
    /// a variable cannot fail, so callers may peek after evaluating the other operands.
    fn peek<'v>(&'v self, e: &Expr, locals: &'v [Value]) -> Option<&'v Value> {
        match &e.kind {
            ExprKind::Var(VarRef::State(s)) => self.state.get(*s as usize),
            ExprKind::Var(VarRef::Param(s)) => self.params.get(*s as usize),
            ExprKind::Var(VarRef::Local(s)) => locals.get(*s as usize),
            ExprKind::Var(VarRef::Aux(s)) => self.aux.get(*s as usize),
            _ => None,
        }
    }

    /// Evaluates a Boolean expression.
    pub fn truth(&self, e: &Expr, locals: &mut [Value], ch: &mut dyn Chooser) -> EvalResult<bool> {
        if let Some(v) = self.peek(e, locals) {
            return Ok(v.as_bool().unwrap_or(false));
        }
        Ok(self.eval(e, locals, ch)?.as_bool().unwrap_or(false))
    }

    /// Evaluates an expression.
    pub fn eval(&self, e: &Expr, locals: &mut [Value], ch: &mut dyn Chooser) -> EvalResult<Value> {
        let span = e.span;
        Ok(match &e.kind {
            ExprKind::Var(r) => self.var(r, locals, ch, span)?,
            // A character literal is its code point, typed `Char`.
            ExprKind::Int(i) if e.ty == Type::Char => Value::Char(
                u32::try_from(*i)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| undefined(e.span, "a code point that is no character"))?,
            ),
            ExprKind::Int(i) if e.ty == Type::Real => {
                Value::Real(num_rational::Rational64::from_integer(*i))
            }
            ExprKind::Int(i) => Value::Int(*i),
            ExprKind::Bool(b) => Value::Bool(*b),
            ExprKind::Str(s) => Value::Str(s.as_str().into()),
            ExprKind::Nil => Value::Nil,
            ExprKind::EnumConst(k) => match &e.ty {
                Type::Named(id) => Value::Enum(*id, *k),
                _ => unreachable!("enumeration constants have named types"),
            },
            ExprKind::Tuple(parts) => {
                let vals: EvalResult<Vec<Value>> =
                    parts.iter().map(|p| self.eval(p, locals, ch)).collect();
                Value::Tuple(vals?.into())
            }
            ExprKind::Collection(items) => {
                let vals: EvalResult<Vec<Value>> =
                    items.iter().map(|p| self.eval(p, locals, ch)).collect();
                let vals = vals?;
                match &e.ty {
                    Type::Seq(_) => Value::seq(vals.into_iter().collect()),
                    Type::Mset(_) => {
                        let mut m = OrdMap::new();
                        for v in vals {
                            *m.entry(v).or_insert(0) += 1;
                        }
                        Value::Mset(m)
                    }
                    _ => Value::Set(vals.into_iter().collect()),
                }
            }
            ExprKind::Unary(UnOp::Not, x) => Value::Bool(!self.truth(x, locals, ch)?),
            ExprKind::Unary(UnOp::Neg, x) if e.ty == Type::Real => {
                use num_traits::CheckedSub;
                let q = self.real(x, locals, ch)?;
                Value::Real(
                    num_rational::Rational64::from_integer(0)
                        .checked_sub(&q)
                        .ok_or_else(|| ovf(span))?,
                )
            }
            ExprKind::Unary(UnOp::Neg, x) => {
                let v = self.int(x, locals, ch)?;
                Value::Int(v.checked_neg().ok_or_else(|| ovf(span))?)
            }
            ExprKind::Binary(op, l, r) => self.binary(*op, l, r, locals, ch, span)?,
            ExprKind::Field(x, k) => {
                let owned;
                let base = match self.peek(x, locals) {
                    Some(v) => v,
                    None => {
                        owned = self.eval(x, locals, ch)?;
                        &owned
                    }
                };
                match base {
                    Value::Tuple(fields) => fields[*k as usize].clone(),
                    _ => return Err(undefined(span, "field of a non-tuple")),
                }
            }
            ExprKind::NullVal(x) => match self.eval(x, locals, ch)? {
                Value::Embed(v) => (*v).clone(),
                _ => return Err(undefined(span, "`.val` of `nil`")),
            },
            ExprKind::UnionPayload(x, k) => match self.eval(x, locals, ch)? {
                Value::Union(_, tag, v) if tag == *k => (*v).clone(),
                _ => return Err(undefined(span, "payload of a union value with another tag")),
            },
            ExprKind::UnionNew(k, x) => match &e.ty {
                Type::Named(id) => Value::Union(*id, *k, Arc::new(self.eval(x, locals, ch)?)),
                _ => unreachable!("union values have named types"),
            },
            ExprKind::Is(x, k) => match self.eval(x, locals, ch)? {
                Value::Union(_, tag, _) => Value::Bool(tag == *k),
                _ => Value::Bool(false),
            },
            ExprKind::Index(x, i) => {
                if self.peek(x, locals).is_some() {
                    let key = self.eval(i, locals, ch)?;
                    let base = self.peek(x, locals).expect("a variable");
                    index(base, &key, span)?
                } else {
                    let base = self.eval(x, locals, ch)?;
                    let key = self.eval(i, locals, ch)?;
                    index(&base, &key, span)?
                }
            }
            ExprKind::Call(b, args) => self.call(*b, args, locals, ch, span)?,
            ExprKind::Quant(q, binders, body) => {
                Value::Bool(self.quant(*q, binders, body, locals, ch, span)?)
            }
            ExprKind::Cond(c, a, b) => {
                if self.truth(c, locals, ch)? {
                    self.eval(a, locals, ch)?
                } else {
                    self.eval(b, locals, ch)?
                }
            }
            ExprKind::SetComp { var, elem, cond } => {
                self.set_comprehension(*var, elem, cond, locals, ch, span)?
            }
            ExprKind::Choose { var, cond, det } => self.choose(
                *var,
                &e.ty,
                cond.as_deref(),
                det.as_deref(),
                locals,
                ch,
                span,
            )?,
        })
    }

    fn var(
        &self,
        r: &VarRef,
        locals: &mut [Value],
        ch: &mut dyn Chooser,
        span: Span,
    ) -> EvalResult<Value> {
        Ok(match r {
            VarRef::State(s) => self.state[*s as usize].clone(),
            VarRef::Param(s) => self.params[*s as usize].clone(),
            VarRef::Local(s) => locals[*s as usize].clone(),
            VarRef::Aux(s) => self.aux[*s as usize].clone(),
            VarRef::Qualified { automaton, slot } => self
                .view
                .qualified(*automaton, *slot)
                .ok_or_else(|| undefined(span, "state of an automaton not running"))?,
            VarRef::QualifiedParam { automaton, param } => self
                .view
                .qualified_param(*automaton, *param)
                .ok_or_else(|| undefined(span, "a parameter of an automaton not running"))?,
            VarRef::Component {
                automaton,
                component,
                indices,
                slot,
            } => {
                let idx: EvalResult<Vec<Value>> =
                    indices.iter().map(|i| self.eval(i, locals, ch)).collect();
                let idx = idx?;
                match self.view.component(*automaton, *component, &idx, *slot) {
                    Some(v) => v,
                    None => return Err(self.no_such_member(*automaton, *component, &idx, span)),
                }
            }
        })
    }

    /// The error for a read of a component family member that does not exist.
    fn no_such_member(
        &self,
        automaton: AutomatonId,
        component: u32,
        indices: &[Value],
        span: Span,
    ) -> RunError {
        let name = match &self.spec.automata[automaton.0 as usize].body {
            ioa_lang::ir::AutomatonBody::Composite(c) => {
                c.components[component as usize].name.clone()
            }
            ioa_lang::ir::AutomatonBody::Primitive(_) => "?".into(),
        };
        let printer = crate::value::Printer::new(self.spec);
        let shown: Vec<String> = indices.iter().map(|v| printer.show(v)).collect();
        let member = if shown.is_empty() {
            name
        } else {
            format!("{name}[{}]", shown.join(", "))
        };
        RunError::NoSuchMember { span, member }
    }

    fn real(
        &self,
        e: &Expr,
        locals: &mut [Value],
        ch: &mut dyn Chooser,
    ) -> EvalResult<num_rational::Rational64> {
        match self.eval(e, locals, ch)? {
            Value::Real(q) => Ok(q),
            _ => Err(undefined(e.span, "a non-`Real` in `Real` arithmetic")),
        }
    }

    fn int(&self, e: &Expr, locals: &mut [Value], ch: &mut dyn Chooser) -> EvalResult<i64> {
        match self.eval(e, locals, ch)? {
            Value::Int(i) => Ok(i),
            _ => Err(undefined(e.span, "a non-integer in arithmetic")),
        }
    }

    fn binary(
        &self,
        op: BinOp,
        l: &Expr,
        r: &Expr,
        locals: &mut [Value],
        ch: &mut dyn Chooser,
        span: Span,
    ) -> EvalResult<Value> {
        use BinOp::*;
        Ok(match op {
            And => Value::Bool(self.truth(l, locals, ch)? && self.truth(r, locals, ch)?),
            Or => Value::Bool(self.truth(l, locals, ch)? || self.truth(r, locals, ch)?),
            Implies => Value::Bool(!self.truth(l, locals, ch)? || self.truth(r, locals, ch)?),
            Iff => Value::Bool(self.truth(l, locals, ch)? == self.truth(r, locals, ch)?),
            Eq | Neq if embedded(l).is_some() || embedded(r).is_some() => {
                // `x = embed(e)` (how `Null` values are compared): compare with the payload
                // instead of building the embedded value.
                // Operands are still evaluated left to right, so errors are the same.
                let equal = match (embedded(l), embedded(r)) {
                    (_, Some(inner)) => {
                        let a = self.eval(l, locals, ch)?;
                        let b = self.eval(inner, locals, ch)?;
                        matches!(&a, Value::Embed(x) if **x == b)
                    }
                    (Some(inner), None) => {
                        let a = self.eval(inner, locals, ch)?;
                        let b = self.eval(r, locals, ch)?;
                        matches!(&b, Value::Embed(x) if **x == a)
                    }
                    (None, None) => unreachable!("matched above"),
                };
                Value::Bool(equal == (op == Eq))
            }
            Eq | Neq => {
                let equal = if self.peek(l, locals).is_some() {
                    let b = self.eval(r, locals, ch)?;
                    *self.peek(l, locals).expect("a variable") == b
                } else {
                    let a = self.eval(l, locals, ch)?;
                    match self.peek(r, locals) {
                        Some(b) => a == *b,
                        None => a == self.eval(r, locals, ch)?,
                    }
                };
                Value::Bool(equal == (op == Eq))
            }
            Lt | Le | Gt | Ge | Add | Sub | Mul | Div if l.ty == Type::Real => {
                use num_traits::{CheckedAdd, CheckedDiv, CheckedMul, CheckedSub};
                let a = self.real(l, locals, ch)?;
                let b = self.real(r, locals, ch)?;
                match op {
                    Lt | Le | Gt | Ge => Value::Bool(ordered(op, &a, &b)),
                    Add => Value::Real(a.checked_add(&b).ok_or_else(|| ovf(span))?),
                    Sub => Value::Real(a.checked_sub(&b).ok_or_else(|| ovf(span))?),
                    Mul => Value::Real(a.checked_mul(&b).ok_or_else(|| ovf(span))?),
                    _ => {
                        if b == num_rational::Rational64::from_integer(0) {
                            return Err(RunError::DivisionByZero { span });
                        }
                        Value::Real(a.checked_div(&b).ok_or_else(|| ovf(span))?)
                    }
                }
            }
            Lt | Le | Gt | Ge if l.ty == Type::Char => {
                let a = self.eval(l, locals, ch)?;
                let b = self.eval(r, locals, ch)?;
                Value::Bool(ordered(op, &a, &b))
            }
            Lt | Le | Gt | Ge | Add | Sub | Mul | Div | Mod => {
                let a = self.int(l, locals, ch)?;
                let b = self.int(r, locals, ch)?;
                match op {
                    Lt | Le | Gt | Ge => Value::Bool(ordered(op, &a, &b)),
                    Add => Value::Int(a.checked_add(b).ok_or_else(|| ovf(span))?),
                    Sub => Value::Int(a.checked_sub(b).ok_or_else(|| ovf(span))?),
                    Mul => Value::Int(a.checked_mul(b).ok_or_else(|| ovf(span))?),
                    Div => {
                        if b == 0 {
                            return Err(RunError::DivisionByZero { span });
                        }
                        Value::Int(a.checked_div_euclid(b).ok_or_else(|| ovf(span))?)
                    }
                    _ => {
                        if b == 0 {
                            return Err(RunError::DivisionByZero { span });
                        }
                        Value::Int(a.checked_rem_euclid(b).ok_or_else(|| ovf(span))?)
                    }
                }
            }
            In | NotIn => {
                let x = self.eval(l, locals, ch)?;
                let owned;
                let c = match self.peek(r, locals) {
                    Some(c) => c,
                    None => {
                        owned = self.eval(r, locals, ch)?;
                        &owned
                    }
                };
                let found = match c {
                    Value::Set(s) => s.contains(&x),
                    Value::Mset(m) => m.contains_key(&x),
                    Value::Seq(s) => s.iter().any(|y| *y == x),
                    _ => false,
                };
                Value::Bool(found == (op == In))
            }
            SubsetEq | Subset => {
                let a = self.eval(l, locals, ch)?;
                let b = self.eval(r, locals, ch)?;
                let sub = match (&a, &b) {
                    (Value::Set(x), Value::Set(y)) => x.is_subset(y),
                    (Value::Mset(x), Value::Mset(y)) => {
                        x.iter().all(|(k, n)| y.get(k).is_some_and(|m| m >= n))
                    }
                    _ => false,
                };
                Value::Bool(sub && (op == SubsetEq || a != b))
            }
            Union | Difference
                if is_set(l)
                    && matches!(&r.kind, ExprKind::Collection(items) if items.len() == 1) =>
            {
                // `S ∪ {x}` and `S - {x}`: one insertion or removal, and `S` itself (shared,
                // not copied) when it already has or lacks `x`.
                let a = self.eval(l, locals, ch)?;
                let ExprKind::Collection(items) = &r.kind else {
                    unreachable!("matched above")
                };
                let x = self.eval(&items[0], locals, ch)?;
                match a {
                    Value::Set(s) => Value::Set(match op {
                        Union if s.contains(&x) => s,
                        Union => s.update(x),
                        _ if s.contains(&x) => s.without(&x),
                        _ => s,
                    }),
                    _ => return Err(undefined(span, "a set operation on a non-set")),
                }
            }
            Union | Intersect | Difference => {
                let a = self.eval(l, locals, ch)?;
                let b = self.eval(r, locals, ch)?;
                match (a, b) {
                    (Value::Set(x), Value::Set(y)) => Value::Set(match op {
                        Union => x.union(y),
                        Intersect => x.intersection(y),
                        _ => x.relative_complement(y),
                    }),
                    (Value::Mset(x), Value::Mset(y)) => Value::Mset(mset_op(op, x, y)),
                    _ => return Err(undefined(span, "a set operation on a non-set")),
                }
            }
            Append => {
                let s = self.eval(l, locals, ch)?;
                let x = self.eval(r, locals, ch)?;
                match s {
                    Value::Seq(v) => {
                        let mut v = (*v).clone();
                        v.push_back(x);
                        Value::seq(v)
                    }
                    _ => return Err(undefined(span, "append to a non-sequence")),
                }
            }
            Concat => {
                let a = self.eval(l, locals, ch)?;
                let b = self.eval(r, locals, ch)?;
                match (a, b) {
                    (Value::Seq(x), Value::Seq(y)) => {
                        let mut v = (*x).clone();
                        v.append((*y).clone());
                        Value::seq(v)
                    }
                    _ => return Err(undefined(span, "`||` of a non-sequence")),
                }
            }
            Prepend => {
                let x = self.eval(l, locals, ch)?;
                let s = self.eval(r, locals, ch)?;
                match s {
                    Value::Seq(v) => {
                        let mut v = (*v).clone();
                        v.push_front(x);
                        Value::seq(v)
                    }
                    _ => return Err(undefined(span, "prepend to a non-sequence")),
                }
            }
        })
    }

    fn call(
        &self,
        b: Builtin,
        args: &[Expr],
        locals: &mut [Value],
        ch: &mut dyn Chooser,
        span: Span,
    ) -> EvalResult<Value> {
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.eval(a, locals, ch)?);
        }
        let mut it = vals.into_iter();
        let mut next = || it.next().expect("arity checked by the type checker");
        Ok(match b {
            Builtin::Insert | Builtin::Delete => {
                let x = next();
                match next() {
                    // A set that already has (or lacks) `x` is returned as it is, shared.
                    Value::Set(s) => Value::Set(match (b == Builtin::Insert, s.contains(&x)) {
                        (true, false) => s.update(x),
                        (false, true) => s.without(&x),
                        _ => s,
                    }),
                    Value::Mset(mut m) => {
                        if b == Builtin::Insert {
                            *m.entry(x).or_insert(0) += 1;
                        } else if let Some(n) = m.get(&x).copied() {
                            if n <= 1 {
                                m.remove(&x);
                            } else {
                                m.insert(x, n - 1);
                            }
                        }
                        Value::Mset(m)
                    }
                    _ => return Err(undefined(span, "insert/delete on a non-set")),
                }
            }
            Builtin::Size => Value::Int(match next() {
                Value::Set(s) => s.len() as i64,
                Value::Mset(m) => m.values().sum::<u64>() as i64,
                Value::Seq(s) => s.len() as i64,
                _ => return Err(undefined(span, "size of a non-collection")),
            }),
            Builtin::Constant => {
                let v = next();
                Value::constant_array(v)
            }
            Builtin::Embed => Value::Embed(Arc::new(next())),
            Builtin::Head => match next() {
                Value::Seq(s) => s
                    .front()
                    .cloned()
                    .ok_or_else(|| undefined(span, "`head` of an empty sequence"))?,
                _ => return Err(undefined(span, "head of a non-sequence")),
            },
            Builtin::Tail => match next() {
                Value::Seq(s) => {
                    if s.is_empty() {
                        return Err(undefined(span, "`tail` of an empty sequence"));
                    }
                    Value::seq(s.skip(1))
                }
                _ => return Err(undefined(span, "tail of a non-sequence")),
            },
            Builtin::Min | Builtin::Max => {
                let a = next().as_int().unwrap_or(0);
                let c = next().as_int().unwrap_or(0);
                Value::Int(if b == Builtin::Min {
                    a.min(c)
                } else {
                    a.max(c)
                })
            }
            Builtin::SetMin | Builtin::SetMax => match next() {
                Value::Set(s) => {
                    let v = if b == Builtin::SetMin {
                        s.get_min()
                    } else {
                        s.get_max()
                    };
                    v.cloned()
                        .ok_or_else(|| undefined(span, "`min`/`max` of an empty set"))?
                }
                _ => return Err(undefined(span, "min/max of a non-set")),
            },
            Builtin::Abs => Value::Int(
                next()
                    .as_int()
                    .unwrap_or(0)
                    .checked_abs()
                    .ok_or_else(|| ovf(span))?,
            ),
            Builtin::Defined => {
                let m = next();
                let k = next();
                match m {
                    Value::Map(m) => Value::Bool(m.contains_key(&k)),
                    _ => Value::Bool(true),
                }
            }
            Builtin::Empty => Value::Map(Default::default()),
            Builtin::Last => match next() {
                Value::Seq(s) => s
                    .back()
                    .cloned()
                    .ok_or_else(|| undefined(span, "`last` of an empty sequence"))?,
                _ => return Err(undefined(span, "last of a non-sequence")),
            },
            Builtin::Init => match next() {
                Value::Seq(s) => {
                    if s.is_empty() {
                        return Err(undefined(span, "`init` of an empty sequence"));
                    }
                    Value::seq(s.take(s.len() - 1))
                }
                _ => return Err(undefined(span, "init of a non-sequence")),
            },
            Builtin::Count => {
                let x = next();
                match next() {
                    Value::Mset(m) => Value::Int(m.get(&x).copied().unwrap_or(0) as i64),
                    _ => return Err(undefined(span, "count in a non-multiset")),
                }
            }
            Builtin::Update => {
                let m = next();
                let k = next();
                let v = next();
                match m {
                    Value::Array(a) => Value::array_set(&a, k, v),
                    Value::Map(m) => Value::Map(m.update(k, v)),
                    _ => return Err(undefined(span, "update of a non-array")),
                }
            }
        })
    }

    /// The values a binder ranges over: a bound guard's collection if the body has one,
    /// otherwise the type's carrier.
    #[allow(clippy::too_many_arguments)]
    fn range_of(
        &self,
        q: Quantifier,
        slot: u32,
        later: &[(u32, Type)],
        ty: &Type,
        body: &Expr,
        locals: &mut [Value],
        ch: &mut dyn Chooser,
        span: Span,
    ) -> EvalResult<Range> {
        if let Some(coll) = bound_guard(q, slot, body) {
            let c = self.eval(coll, locals, ch)?;
            return Ok(Range::Owned(match c {
                Value::Set(s) => s.into_iter().collect(),
                Value::Mset(m) => m.keys().cloned().collect(),
                Value::Seq(s) => s.iter().cloned().collect(),
                _ => vec![],
            }));
        }
        match self.universe.carrier_at(self.spec, ty, span) {
            Ok(carrier) => Ok(Range::Carrier(carrier)),
            Err(unbounded) => match self.guard_range(q, slot, later, ty, body, locals, ch)? {
                Some(values) => Ok(Range::Owned(values)),
                None => Err(unbounded),
            },
        }
    }

    /// For an `Int` or `Nat` binder with no universe, the range its guard allows
    /// (`∀ i: Int (0 ≤ i ∧ i < n ⇒ …)`, `∃ i: Int (0 ≤ i ∧ i < n ∧ …)`), when the guard's
    /// conjuncts bound it on both sides by expressions that mention neither it nor the binders
    /// `later` of the same quantifier (which have no value yet).
    #[allow(clippy::too_many_arguments)]
    fn guard_range(
        &self,
        q: Quantifier,
        slot: u32,
        later: &[(u32, Type)],
        ty: &Type,
        body: &Expr,
        locals: &mut [Value],
        ch: &mut dyn Chooser,
    ) -> EvalResult<Option<Vec<Value>>> {
        if !matches!(ty, Type::Int | Type::Nat) {
            return Ok(None);
        }
        let guard = match (&body.kind, q) {
            (ExprKind::Binary(BinOp::Implies, l, _), Quantifier::ForAll) => &**l,
            (ExprKind::Binary(BinOp::And, _, _), Quantifier::Exists) => body,
            _ => return Ok(None),
        };
        let conjuncts = crate::int_bounds::conjuncts(guard);
        let mut int = |e: &Expr| -> EvalResult<Option<i64>> {
            if may_read_local(e, |s| later.iter().any(|(l, _)| *l == s)) {
                return Ok(None);
            }
            Ok(self.eval(e, locals, ch)?.as_int())
        };
        let Some((low, high)) =
            crate::int_bounds::range(&conjuncts, slot, *ty == Type::Nat, &mut int)?
        else {
            return Ok(None);
        };
        Ok(Some((low..=high.max(low - 1)).map(Value::Int).collect()))
    }

    fn quant(
        &self,
        q: Quantifier,
        binders: &[(u32, Type)],
        body: &Expr,
        locals: &mut [Value],
        ch: &mut dyn Chooser,
        span: Span,
    ) -> EvalResult<bool> {
        let Some(((slot, ty), rest)) = binders.split_first() else {
            return self.truth(body, locals, ch);
        };
        let range = self.range_of(q, *slot, rest, ty, body, locals, ch, span)?;
        if rest.is_empty() && !range.values().is_empty() {
            // `∀ x (P ∧ … ⇒ R)` or `∃ x (P ∧ …)` where `P` does not mention `x` (typically
            // an outer binder's guard): when `P` is false no value of `x` can change the
            // answer, so decide it once instead of once per value. `P` is what the first
            // iteration would evaluate first, so errors are the same.
            let guard = match (q, &body.kind) {
                (Quantifier::ForAll, ExprKind::Binary(BinOp::Implies, a, _)) => Some(&**a),
                (Quantifier::Exists, ExprKind::Binary(BinOp::And, _, _)) => Some(body),
                _ => None,
            };
            if let Some(g) = guard {
                if self.hoisted(g, *slot, locals, ch)? == Some(false) {
                    return Ok(q == Quantifier::ForAll);
                }
            }
        }
        for v in range.values() {
            locals[*slot as usize] = v.clone();
            let holds = self.quant(q, rest, body, locals, ch, span)?;
            match q {
                Quantifier::ForAll if !holds => return Ok(false),
                Quantifier::Exists if holds => return Ok(true),
                _ => {}
            }
        }
        Ok(q == Quantifier::ForAll)
    }

    /// `{x: T | P}`: the values of `x` that satisfy `P`, trying those of a bound guard
    /// `x ∈ S ∧ …` when there is one and the carrier of `T` (or an `Int` range the guard
    /// gives) otherwise, as `∃ x: T (P)` would.
    fn set_comprehension(
        &self,
        slot: u32,
        elem: &Type,
        cond: &Expr,
        locals: &mut [Value],
        ch: &mut dyn Chooser,
        span: Span,
    ) -> EvalResult<Value> {
        let range = self.range_of(Quantifier::Exists, slot, &[], elem, cond, locals, ch, span)?;
        let mut out = OrdSet::new();
        for v in range.values() {
            locals[slot as usize] = v.clone();
            if self.truth(cond, locals, ch)? {
                out.insert(v.clone());
            }
        }
        Ok(Value::Set(out))
    }

    /// Evaluates the conjuncts of `e` from the left while they do not mention local `slot`:
    /// `Some(false)` at the first false one, `Some(true)` if all of `e` was evaluated and held,
    /// `None` on reaching a conjunct that mentions `slot`.
    fn hoisted(
        &self,
        e: &Expr,
        slot: u32,
        locals: &mut [Value],
        ch: &mut dyn Chooser,
    ) -> EvalResult<Option<bool>> {
        match &e.kind {
            ExprKind::Binary(BinOp::And, l, r) => match self.hoisted(l, slot, locals, ch)? {
                Some(true) => self.hoisted(r, slot, locals, ch),
                other => Ok(other),
            },
            _ if !mentions_local(e, slot) => Ok(Some(self.truth(e, locals, ch)?)),
            _ => Ok(None),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn choose(
        &self,
        slot: u32,
        ty: &Type,
        cond: Option<&Expr>,
        det: Option<&[Stmt]>,
        locals: &mut [Value],
        ch: &mut dyn Chooser,
        span: Span,
    ) -> EvalResult<Value> {
        // A det block attached to the choose itself: its first yielded value.
        let mut offer = None;
        if let Some(stmts) = det {
            offer = self.first_yield(stmts, locals, ch)?;
        }
        if offer.is_none() {
            offer = ch.offered();
        }
        if let Some(v) = offer {
            let v = self.accept_offer(slot, v, cond, locals, ch, span)?;
            if ch.records_offers() {
                let candidates = self.choice_candidates(slot, ty, cond, locals, ch, span)?;
                ch.took_offer(candidates.iter().position(|c| *c == v));
                locals[slot as usize] = v.clone();
            }
            return Ok(v);
        }
        let candidates = self.choice_candidates(slot, ty, cond, locals, ch, span)?;
        if candidates.is_empty() {
            return Err(RunError::EmptyChoice { span });
        }
        ch.choose(span, &candidates)
    }

    /// The values a `choose` may take, in carrier order.
    fn choice_candidates(
        &self,
        slot: u32,
        ty: &Type,
        cond: Option<&Expr>,
        locals: &mut [Value],
        ch: &mut dyn Chooser,
        span: Span,
    ) -> EvalResult<Vec<Value>> {
        let range = match cond {
            Some(c) => self.range_of(Quantifier::Exists, slot, &[], ty, c, locals, ch, span)?,
            None => Range::Carrier(self.universe.carrier_at(self.spec, ty, span)?),
        };
        let mut candidates = Vec::new();
        for v in range.values().iter().cloned() {
            locals[slot as usize] = v.clone();
            if cond
                .map(|c| self.truth(c, locals, ch))
                .transpose()?
                .unwrap_or(true)
            {
                candidates.push(v);
            }
        }
        Ok(candidates)
    }

    fn accept_offer(
        &self,
        slot: u32,
        v: Value,
        cond: Option<&Expr>,
        locals: &mut [Value],
        ch: &mut dyn Chooser,
        span: Span,
    ) -> EvalResult<Value> {
        locals[slot as usize] = v.clone();
        if let Some(c) = cond {
            if !self.truth(c, locals, ch)? {
                let value = crate::value::Printer::new(self.spec).show(&v);
                return Err(RunError::BadYield { span, value });
            }
        }
        Ok(v)
    }

    fn first_yield(
        &self,
        stmts: &[Stmt],
        locals: &mut [Value],
        ch: &mut dyn Chooser,
    ) -> EvalResult<Option<Value>> {
        for s in stmts {
            match &s.kind {
                StmtKind::Yield(e) => return Ok(Some(self.eval(e, locals, ch)?)),
                StmtKind::If {
                    branches,
                    otherwise,
                } => {
                    let mut taken = None;
                    for (c, b) in branches {
                        if self.truth(c, locals, ch)? {
                            taken = Some(b);
                            break;
                        }
                    }
                    if let Some(v) = self.first_yield(taken.unwrap_or(otherwise), locals, ch)? {
                        return Ok(Some(v));
                    }
                }
                _ => {}
            }
        }
        Ok(None)
    }
}

/// What a binder ranges over: a type's shared carrier or a collection's elements.
pub enum Range {
    /// A carrier from the universe (shared, not copied).
    Carrier(Arc<[Value]>),
    /// The elements of a bound guard's collection.
    Owned(Vec<Value>),
}

impl Range {
    /// The values, in order.
    pub fn values(&self) -> &[Value] {
        match self {
            Range::Carrier(c) => c,
            Range::Owned(v) => v,
        }
    }
}

/// `x ∈ S ∧ …` (for ∃) or `x ∈ S ⇒ …` (for ∀) where `S` does not mention `x`: the collection.
fn bound_guard(q: Quantifier, slot: u32, body: &Expr) -> Option<&Expr> {
    let first = match (&body.kind, q) {
        (ExprKind::Binary(BinOp::Implies, l, _), Quantifier::ForAll) => leftmost_conjunct(l),
        (ExprKind::Binary(BinOp::And, _, _), Quantifier::Exists) => leftmost_conjunct(body),
        (ExprKind::Binary(BinOp::In, _, _), Quantifier::Exists) => body,
        _ => return None,
    };
    match &first.kind {
        ExprKind::Binary(BinOp::In, x, coll)
            if matches!(x.kind, ExprKind::Var(VarRef::Local(s)) if s == slot)
                && !mentions_local(coll, slot) =>
        {
            Some(coll)
        }
        _ => None,
    }
}

/// `e` of an expression `embed(e)`.
fn embedded(x: &Expr) -> Option<&Expr> {
    match &x.kind {
        ExprKind::Call(Builtin::Embed, args) if args.len() == 1 => Some(&args[0]),
        _ => None,
    }
}

/// Whether an expression is a set (not a multiset or sequence).
fn is_set(e: &Expr) -> bool {
    matches!(e.ty, Type::Set(_))
}

fn leftmost_conjunct(e: &Expr) -> &Expr {
    match &e.kind {
        ExprKind::Binary(BinOp::And, l, _) => leftmost_conjunct(l),
        _ => e,
    }
}

fn mentions_local(e: &Expr, slot: u32) -> bool {
    may_read_local(e, |s| s == slot)
}

/// Whether `e` may read a local slot for which `wanted` holds. Serialising is slow, so this walks
/// the few shapes collection and guard expressions take and is conservative about the rest
/// (anything else is assumed to read one).
pub fn may_read_local(e: &Expr, wanted: impl Fn(u32) -> bool + Copy) -> bool {
    match &e.kind {
        ExprKind::Var(VarRef::Local(s)) => wanted(*s),
        ExprKind::Var(VarRef::Component { indices, .. }) => {
            indices.iter().any(|x| may_read_local(x, wanted))
        }
        ExprKind::Var(_)
        | ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Nil
        | ExprKind::EnumConst(_)
        | ExprKind::Str(_) => false,
        ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => {
            may_read_local(a, wanted) || may_read_local(b, wanted)
        }
        ExprKind::Field(a, _) | ExprKind::NullVal(a) | ExprKind::Unary(_, a) => {
            may_read_local(a, wanted)
        }
        ExprKind::Call(_, xs) | ExprKind::Collection(xs) | ExprKind::Tuple(xs) => {
            xs.iter().any(|x| may_read_local(x, wanted))
        }
        _ => true,
    }
}

fn index(base: &Value, key: &Value, span: Span) -> EvalResult<Value> {
    match base {
        Value::Array(a) => Ok(Value::array_get(a, key)),
        Value::Map(m) => m
            .get(key)
            .cloned()
            .ok_or_else(|| undefined(span, "a map lookup of a missing key")),
        Value::Seq(s) => {
            let i = key.as_int().unwrap_or(-1);
            usize::try_from(i)
                .ok()
                .and_then(|i| s.get(i))
                .cloned()
                .ok_or_else(|| undefined(span, "a sequence index out of range"))
        }
        _ => Err(undefined(span, "indexing a non-array")),
    }
}

fn mset_op(op: BinOp, x: OrdMap<Value, u64>, y: OrdMap<Value, u64>) -> OrdMap<Value, u64> {
    let mut out = OrdMap::new();
    let keys: OrdSet<Value> = x.keys().chain(y.keys()).cloned().collect();
    for k in keys {
        let a = x.get(&k).copied().unwrap_or(0);
        let b = y.get(&k).copied().unwrap_or(0);
        let n = match op {
            BinOp::Union => a + b,
            BinOp::Intersect => a.min(b),
            _ => a.saturating_sub(b),
        };
        if n > 0 {
            out.insert(k, n);
        }
    }
    out
}

/// Sequences as persistent vectors, re-exported for callers building values.
pub type Seq = Vector<Value>;
