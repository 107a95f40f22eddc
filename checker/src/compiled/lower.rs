//! From the typed IR to [`Code`]: names become word positions and local slots, types become
//! strides, ranges and bit positions.
//!
//! Every expression is lowered to native word code where its types and operators allow (finite
//! types as ranks, small sets as bit masks, integers and characters as themselves), and
//! otherwise handed to the interpreter's evaluator as an [`Interp`] node: the expression with
//! the words it reads as inputs (state words, locals, natively computed operands), evaluated
//! over values and turned back into a word (interned when its type has no word layout). So
//! `head(queue[i]) > u` is a native comparison whose left operand is the interpreter's `head`
//! of the interned sequence in word `queue[i]`. An expression with a `choose` is the
//! interpreter's whole, so its choices are met in the interpreter's order. What neither can take
//! (a `choose` with its own `det` block, `while`, variables of other automata) is refused with
//! the reason, and the explorer uses the interpreter instead.

use super::code::{
    Arith, Big, Bounds, Cmp, Code, Conv, Domain, Input, Interp, SetCmp, SetOp, Step, Stmt, Target,
};
use super::layout::{
    repr_of, word_of, FinId, FinKind, Fins, Layout, Listed, Repr, Slot, Unsupported, MAX_INDEXED,
};
use interpreter::eval::may_read_local;
use interpreter::value::Value;
use ioa_lang::ast::Quantifier;
use ioa_lang::ir::{
    BinOp, Builtin, Expr, ExprKind, PlaceStep, Stmt as IrStmt, StmtKind, Type, UnOp, VarRef,
};
use ioa_lang::span::Span;
use std::sync::Arc;

/// Lowers the expressions and statements of one primitive automaton.
pub struct Lower<'a, 'm, 's> {
    /// The finite types.
    pub fins: &'a mut Fins<'m, 's>,
    /// The state layout.
    pub layout: &'a Layout,
    /// The automaton's parameter values.
    pub params: &'a [Value],
    /// The first local slot no IR code of the automaton uses: the inputs of [`Interp`] nodes
    /// take slots from here on.
    pub first_free_local: u32,
}

fn unsupported<T>(what: &str) -> Result<T, Unsupported> {
    Err(format!("{what} is not compiled"))
}

thread_local! {
    /// Where the construct that stopped the lowering on this thread is (see [`refuse`]).
    static REFUSED_AT: std::cell::Cell<Option<Span>> = const { std::cell::Cell::new(None) };
}

/// [`unsupported`] for a construct neither native code nor the interpreter's evaluator can
/// take, remembering where it is (the first such place since [`take_refused_at`]).
fn refuse<T>(span: Span, what: &str) -> Result<T, Unsupported> {
    REFUSED_AT.with(|r| {
        if r.get().is_none() {
            r.set(Some(span));
        }
    });
    unsupported(what)
}

/// Where the construct that stopped the lowering is, if one did; clears it.
pub fn take_refused_at() -> Option<Span> {
    REFUSED_AT.with(|r| r.take())
}

/// Whether evaluating the subexpressions of an [`Interp`] node's expression at this point
/// happens on every evaluation of the node (so an input may be computed beforehand), or only
/// under a condition (a branch, the right of `∧`, a quantifier's body).
#[derive(Clone, Copy, PartialEq, Eq)]
enum When {
    Always,
    Sometimes,
}

impl Lower<'_, '_, '_> {
    fn conv(&self, fin: FinId) -> Conv {
        let f = self.fins.get(fin);
        Conv {
            lo: match f.kind {
                FinKind::Int { lo } | FinKind::Char { lo } => lo,
                _ => 0,
            },
            card: f.card,
        }
    }

    fn conv_of(&mut self, ty: &Type) -> Result<Conv, Unsupported> {
        let f = self.fins.of(ty)?;
        Ok(self.conv(f))
    }

    fn repr(&mut self, ty: &Type) -> Repr {
        repr_of(self.fins, ty)
    }

    /// Whether values of `ty` are words of a finite type (ranks).
    fn is_fin(&mut self, ty: &Type) -> bool {
        matches!(self.repr(ty), Repr::Fin(_))
    }

    /// A tuple type's fields, strides and list.
    #[allow(clippy::type_complexity)]
    fn tuple_parts(
        &mut self,
        ty: &Type,
    ) -> Result<(Vec<FinId>, Vec<u64>, Option<Arc<Listed>>), Unsupported> {
        let fin = self.fins.of(ty)?;
        match &self.fins.get(fin).kind {
            FinKind::Tuple {
                fields,
                strides,
                listed,
                ..
            } => Ok((fields.clone(), strides.clone(), listed.clone())),
            _ => unsupported("a tuple of this type"),
        }
    }

    /// Whether values of `ty` are bit sets (sets over a finite type of 64 to 65,536 values).
    fn is_big(&mut self, ty: &Type) -> bool {
        match ty {
            Type::Set(elem) => self
                .fins
                .of(elem)
                .is_ok_and(|f| (64..=MAX_INDEXED).contains(&self.fins.get(f).card)),
            _ => false,
        }
    }

    /// Whether values of `ty` are small sets (bit masks in one word).
    fn is_small_set(&mut self, ty: &Type) -> bool {
        matches!(ty, Type::Set(_)) && self.is_fin(ty)
    }

    fn words_of(&mut self, elem: &Type) -> Result<u32, Unsupported> {
        let f = self.fins.of(elem)?;
        Ok(self.fins.get(f).card.div_ceil(64) as u32)
    }

    /// A word-valued expression: native word code where it can be, else the interpreter's
    /// evaluation of it.
    pub fn expr(&mut self, e: &Expr) -> Result<Code, Unsupported> {
        // A `choose` is resolved by the explorer's script, in the order the interpreter meets
        // them: an expression with one is the interpreter's to evaluate, whole.
        if chooses(e) {
            let repr = self.repr(&e.ty);
            return Ok(Code::Interp(Box::new(self.interp(e)?), repr));
        }
        match self.native(e) {
            Ok(code) => Ok(code),
            Err(_) => {
                let repr = self.repr(&e.ty);
                Ok(Code::Interp(Box::new(self.interp(e)?), repr))
            }
        }
    }

    /// Native word code for `e`, or why there is none (its node needs the interpreter).
    fn native(&mut self, e: &Expr) -> Result<Code, Unsupported> {
        let b = |c: Code| Box::new(c);
        Ok(match &e.kind {
            ExprKind::Var(VarRef::State(s)) => match &self.layout.slots[*s as usize] {
                Slot::Word { offset, .. } => Code::Word(*offset),
                _ => return unsupported("a whole array or bit set as a word"),
            },
            ExprKind::Var(VarRef::Param(k)) => {
                let repr = self.repr(&e.ty);
                let v = &self.params[*k as usize];
                Code::Const(
                    word_of(self.fins, repr, v)
                        .ok_or("an automaton parameter is outside its type's universe")?,
                )
            }
            ExprKind::Var(VarRef::Local(k)) => Code::Local(*k),
            ExprKind::Var(_) => return unsupported("a variable of another automaton"),
            ExprKind::Int(i) if e.ty == Type::Char => {
                if u32::try_from(*i).ok().and_then(char::from_u32).is_none() {
                    return unsupported("a code point that is no character");
                }
                Code::Const(*i)
            }
            ExprKind::Int(i) if e.ty == Type::Real => {
                self.constant(e, &Value::Real(num_rational::Rational64::from_integer(*i)))?
            }
            ExprKind::Int(i) => Code::Const(*i),
            ExprKind::Bool(x) => Code::Const(*x as i64),
            ExprKind::Nil => self.constant(e, &Value::Nil)?,
            ExprKind::EnumConst(k) => match &e.ty {
                Type::Named(id) => self.constant(e, &Value::Enum(*id, *k))?,
                _ => return unsupported("an enumeration constant of this type"),
            },
            ExprKind::Str(s) => self.constant(e, &Value::Str(s.as_str().into()))?,
            ExprKind::Tuple(xs) => {
                if !self.is_fin(&e.ty) {
                    return unsupported("a tuple of a type without ranks");
                }
                let (fields, strides, listed) = self.tuple_parts(&e.ty)?;
                let mut out = Vec::new();
                for ((x, f), s) in xs.iter().zip(fields).zip(strides) {
                    out.push((self.expr(x)?, self.conv(f), s));
                }
                Code::Tuple {
                    fields: out,
                    listed,
                }
            }
            ExprKind::Collection(xs) => match &e.ty {
                Type::Set(elem) if self.is_small_set(&e.ty) => {
                    let conv = self.conv_of(elem)?;
                    let items = xs.iter().map(|x| self.expr(x)).collect::<Result<_, _>>()?;
                    Code::SetLit(items, conv)
                }
                _ => return unsupported("a collection without a word layout"),
            },
            ExprKind::Unary(UnOp::Not, a) => Code::Not(b(self.expr(a)?)),
            ExprKind::Unary(UnOp::Neg, a) if matches!(e.ty, Type::Int | Type::Nat) => {
                Code::Neg(b(self.expr(a)?))
            }
            ExprKind::Unary(UnOp::Neg, _) => return unsupported("negation of a real"),
            ExprKind::Binary(op, l, r) => self.binary(*op, l, r, &e.ty)?,
            ExprKind::Field(t, k) => {
                if !self.is_fin(&t.ty) {
                    return unsupported("a field of a tuple without ranks");
                }
                let (fields, strides, listed) = self.tuple_parts(&t.ty)?;
                let f = fields[*k as usize];
                let conv = self.conv(f);
                Code::Field {
                    tuple: b(self.expr(t)?),
                    listed,
                    stride: strides[*k as usize],
                    card: conv.card,
                    lo: conv.lo,
                }
            }
            ExprKind::NullVal(a) => {
                let Type::Null(inner) = &a.ty else {
                    return unsupported("`.val` of this type");
                };
                if !self.is_fin(&a.ty) {
                    return unsupported("`.val` of a value without ranks");
                }
                let conv = self.conv_of(inner)?;
                Code::NullVal(b(self.expr(a)?), conv.lo)
            }
            ExprKind::Index(base, index) => match (&base.kind, &base.ty) {
                (ExprKind::Var(VarRef::State(s)), Type::Array(..)) => {
                    let Slot::Array {
                        offset,
                        index: ix,
                        members,
                        ..
                    } = self.layout.slots[*s as usize].clone()
                    else {
                        return unsupported("indexing an array held as one value");
                    };
                    let (index, conv) = (b(self.expr(index)?), self.conv(ix));
                    match members {
                        None => Code::ArrayGet {
                            base: offset,
                            index,
                            conv,
                        },
                        Some(members) => Code::MemberGet {
                            base: offset,
                            index,
                            conv,
                            members,
                        },
                    }
                }
                _ => return unsupported("indexing other than into an array state variable"),
            },
            ExprKind::Call(f, args) => self.call(*f, args, &e.ty)?,
            ExprKind::Quant(q, binders, body) => {
                let exists = *q == Quantifier::Exists;
                let mut domains = Vec::new();
                for (k, (slot, ty)) in binders.iter().enumerate() {
                    let later: Vec<u32> = binders[k..].iter().map(|(s, _)| *s).collect();
                    domains.push(self.domain(*q, *slot, ty, body, &later)?);
                }
                let mut code = self.expr(body)?;
                for ((slot, _), domain) in binders.iter().zip(domains).rev() {
                    code = Code::Quant {
                        exists,
                        var: *slot,
                        domain,
                        body: b(code),
                    };
                }
                code
            }
            ExprKind::Cond(c, x, y) => {
                Code::Cond(b(self.expr(c)?), b(self.expr(x)?), b(self.expr(y)?))
            }
            ExprKind::UnionPayload(..) | ExprKind::UnionNew(..) | ExprKind::Is(..) => {
                return unsupported("a union value as words")
            }
            ExprKind::Choose { .. } => return unsupported("`choose` inside an effect"),
            // The interpreter builds a comprehension's set (trying the carrier or the bound
            // guard's elements); the compiled step reads it as an interned value.
            ExprKind::SetComp { .. } => return unsupported("a set comprehension as words"),
        })
    }

    /// The word of a constant value of `e`'s type.
    fn constant(&mut self, e: &Expr, v: &Value) -> Result<Code, Unsupported> {
        let repr = self.repr(&e.ty);
        Ok(Code::Const(word_of(self.fins, repr, v).ok_or_else(
            || {
                format!(
                    "a constant of type {} is outside the type's universe",
                    self.fins.name(&e.ty)
                )
            },
        )?))
    }

    /// What binder `slot` of a quantifier ranges over: the elements of `S` if a leading
    /// conjunct of the body (of the premise, for `∀ … ⇒`) is `slot ∈ S` with `S` not reading
    /// this or a later binder (the interpreter's bound guard), else the carrier of its type.
    fn domain(
        &mut self,
        q: Quantifier,
        slot: u32,
        ty: &Type,
        body: &Expr,
        later: &[u32],
    ) -> Result<Domain, Unsupported> {
        let premise = match (q, &body.kind) {
            (Quantifier::ForAll, ExprKind::Binary(BinOp::Implies, l, _)) => Some(&**l),
            (Quantifier::Exists, _) => Some(body),
            _ => None,
        };
        let mut conjuncts = Vec::new();
        if let Some(p) = premise {
            leading_conjuncts(p, &mut conjuncts);
        }
        let fin = self.fins.of(ty).ok();
        for c in conjuncts {
            let ExprKind::Binary(BinOp::In, x, coll) = &c.kind else {
                continue;
            };
            if !matches!(x.kind, ExprKind::Var(VarRef::Local(s)) if s == slot)
                || may_read_local(coll, |s| later.contains(&s))
            {
                continue;
            }
            if let (Some(f), Type::Set(_)) = (fin, &coll.ty) {
                let lo = self.conv(f).lo;
                if self.is_big(&coll.ty) {
                    return Ok(Domain::BigMembers(self.big(coll)?, lo));
                }
                if self.is_small_set(&coll.ty) {
                    return Ok(Domain::Members(Box::new(self.expr(coll)?), lo));
                }
            }
            if fin.is_none() {
                let repr = self.repr(ty);
                return Ok(Domain::Values {
                    coll: Box::new(self.interp(coll)?),
                    repr,
                    repeat: false,
                });
            }
        }
        match fin {
            Some(f) if matches!(ty, Type::Int | Type::Nat) => {
                let conv = self.conv(f);
                let (lows, highs) = self.int_bounds(premise, slot, later);
                Ok(if lows.is_empty() && highs.is_empty() {
                    Domain::All(conv)
                } else {
                    Domain::Range { conv, lows, highs }
                })
            }
            Some(f) => Ok(Domain::All(self.conv(f))),
            None => {
                let carrier = self
                    .fins
                    .carrier(ty)
                    .ok_or_else(|| format!("type {} has no finite carrier", self.fins.name(ty)))?;
                let repr = self.repr(ty);
                let words = carrier
                    .iter()
                    .map(|v| word_of(self.fins, repr, v))
                    .collect::<Option<Vec<i64>>>()
                    .ok_or("a carrier value has no word")?;
                Ok(Domain::Words(words))
            }
        }
    }

    /// The bounds the leading conjuncts of `premise` put on integer binder `slot` (`lo ≤ k`,
    /// `k < hi`, `k = e`…), as codes with the offset that makes each inclusive: those that do
    /// not read this or a later binder and compile. A bound that does not compile is left out
    /// (and does not count as the model's refusal).
    fn int_bounds(&mut self, premise: Option<&Expr>, slot: u32, later: &[u32]) -> (Bounds, Bounds) {
        let (mut lows, mut highs) = (Vec::new(), Vec::new());
        let mut conjuncts = Vec::new();
        if let Some(p) = premise {
            leading_conjuncts(p, &mut conjuncts);
        }
        for c in conjuncts {
            let Some((op, bound)) = interpreter::int_bounds::bound_of(c, slot) else {
                continue;
            };
            if !matches!(bound.ty, Type::Int | Type::Nat)
                || may_read_local(bound, |s| later.contains(&s))
            {
                continue;
            }
            let (low, high) = match op {
                BinOp::Lt => (None, Some(-1)),
                BinOp::Le => (None, Some(0)),
                BinOp::Gt => (Some(1), None),
                BinOp::Ge => (Some(0), None),
                BinOp::Eq => (Some(0), Some(0)),
                _ => continue,
            };
            let refused = REFUSED_AT.with(|r| r.get());
            let Ok(code) = self.expr(bound) else {
                REFUSED_AT.with(|r| r.set(refused));
                continue;
            };
            match (low, high) {
                (Some(l), Some(h)) => {
                    let again = self.expr(bound).expect("compiled once");
                    lows.push((code, l));
                    highs.push((again, h));
                }
                (Some(l), None) => lows.push((code, l)),
                (None, Some(h)) => highs.push((code, h)),
                (None, None) => {}
            }
        }
        (lows, highs)
    }

    fn binary(&mut self, op: BinOp, l: &Expr, r: &Expr, ty: &Type) -> Result<Code, Unsupported> {
        let b = |c: Code| Box::new(c);
        let int = |t: &Type| matches!(t, Type::Int | Type::Nat);
        let set_cmp = |op| -> Option<SetCmp> {
            Some(match op {
                BinOp::Eq => SetCmp::Eq,
                BinOp::Neq => SetCmp::Ne,
                BinOp::SubsetEq => SetCmp::SubsetEq,
                BinOp::Subset => SetCmp::Subset,
                _ => return None,
            })
        };
        let big = self.is_big(&l.ty);
        Ok(match op {
            BinOp::And => Code::And(b(self.expr(l)?), b(self.expr(r)?)),
            BinOp::Or => Code::Or(b(self.expr(l)?), b(self.expr(r)?)),
            BinOp::Implies => Code::Implies(b(self.expr(l)?), b(self.expr(r)?)),
            BinOp::Iff => Code::Cmp(Cmp::Eq, b(self.expr(l)?), b(self.expr(r)?)),
            BinOp::Eq | BinOp::Neq | BinOp::SubsetEq | BinOp::Subset if big => Code::BigCmp(
                set_cmp(op).expect("a set comparison"),
                self.big(l)?,
                self.big(r)?,
            ),
            BinOp::SubsetEq | BinOp::Subset if self.is_small_set(&l.ty) => Code::SetCmp(
                set_cmp(op).expect("a set comparison"),
                b(self.expr(l)?),
                b(self.expr(r)?),
            ),
            // Words are canonical (ranks, integers, interned ids), so equal words are equal
            // values. A tuple or `embed` built outside its type's universe equals nothing
            // that has a word (`f = [bit, next]` once `next` passed the universe).
            BinOp::Eq | BinOp::Neq => {
                let (x, y) = (self.expr(l)?, self.expr(r)?);
                if built(&x) || built(&y) {
                    Code::Eq {
                        ne: op == BinOp::Neq,
                        a: b(x),
                        b: b(y),
                    }
                } else {
                    let cmp = if op == BinOp::Eq { Cmp::Eq } else { Cmp::Ne };
                    Code::Cmp(cmp, b(x), b(y))
                }
            }
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge if int(&l.ty) || l.ty == Type::Char => {
                let cmp = match op {
                    BinOp::Lt => Cmp::Lt,
                    BinOp::Le => Cmp::Le,
                    BinOp::Gt => Cmp::Gt,
                    _ => Cmp::Ge,
                };
                Code::Cmp(cmp, b(self.expr(l)?), b(self.expr(r)?))
            }
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod
                if int(&l.ty) && int(ty) =>
            {
                let op = match op {
                    BinOp::Add => Arith::Add,
                    BinOp::Sub => Arith::Sub,
                    BinOp::Mul => Arith::Mul,
                    BinOp::Div => Arith::Div,
                    _ => Arith::Mod,
                };
                Code::Arith(op, b(self.expr(l)?), b(self.expr(r)?))
            }
            BinOp::In | BinOp::NotIn if self.is_big(&r.ty) || self.is_small_set(&r.ty) => {
                let Type::Set(elem) = &r.ty else {
                    unreachable!("a set")
                };
                let conv = self.conv_of(elem)?;
                let has = if self.is_big(&r.ty) {
                    Code::BigHas(b(self.expr(l)?), conv, self.big(r)?)
                } else {
                    Code::SetHas(b(self.expr(l)?), conv, b(self.expr(r)?))
                };
                match op {
                    BinOp::In => has,
                    _ => Code::Not(b(has)),
                }
            }
            BinOp::Union | BinOp::Intersect | BinOp::Difference if self.is_small_set(ty) => {
                let op = match op {
                    BinOp::Union => SetOp::Union,
                    BinOp::Intersect => SetOp::Intersect,
                    _ => SetOp::Difference,
                };
                Code::SetOp(op, b(self.expr(l)?), b(self.expr(r)?))
            }
            _ => return unsupported("this operator on values without a word layout"),
        })
    }

    fn call(&mut self, f: Builtin, args: &[Expr], ty: &Type) -> Result<Code, Unsupported> {
        let b = |c: Code| Box::new(c);
        Ok(match (f, args) {
            (Builtin::Insert | Builtin::Delete, [x, s]) if self.is_small_set(&s.ty) => {
                let Type::Set(elem) = &s.ty else {
                    unreachable!("a set")
                };
                let conv = self.conv_of(elem)?;
                let (x, s) = (b(self.expr(x)?), b(self.expr(s)?));
                match f {
                    Builtin::Insert => Code::SetInsert(x, conv, s),
                    _ => Code::SetDelete(x, conv, s),
                }
            }
            (Builtin::Size, [s]) if self.is_big(&s.ty) => Code::BigSize(self.big(s)?),
            (Builtin::Size, [s]) if self.is_small_set(&s.ty) => Code::SetSize(b(self.expr(s)?)),
            (Builtin::Embed, [x]) if self.is_fin(ty) => {
                let Type::Null(inner) = ty else {
                    return unsupported("`embed` into this type");
                };
                let conv = self.conv_of(inner)?;
                Code::Embed(b(self.expr(x)?), conv)
            }
            (Builtin::Min | Builtin::Max, [x, y])
                if matches!(x.ty, Type::Int | Type::Nat)
                    && matches!(y.ty, Type::Int | Type::Nat) =>
            {
                Code::Arith(
                    if f == Builtin::Min {
                        Arith::Min
                    } else {
                        Arith::Max
                    },
                    b(self.expr(x)?),
                    b(self.expr(y)?),
                )
            }
            (Builtin::Abs, [x]) if matches!(x.ty, Type::Int | Type::Nat) => {
                Code::Abs(b(self.expr(x)?))
            }
            _ => return unsupported("this built-in on values without a word layout"),
        })
    }

    /// A bit-set-valued expression.
    pub fn big(&mut self, e: &Expr) -> Result<Big, Unsupported> {
        let Type::Set(elem) = &e.ty else {
            return unsupported("this large collection");
        };
        let conv = self.conv_of(elem)?;
        let words = self.words_of(elem)?;
        Ok(match &e.kind {
            ExprKind::Var(VarRef::State(s)) => match &self.layout.slots[*s as usize] {
                Slot::BigSet { offset, words, .. } => Big::Var {
                    offset: *offset,
                    words: *words,
                },
                _ => return unsupported("this set variable as a bit set"),
            },
            ExprKind::Collection(xs) => {
                let items = xs.iter().map(|x| self.expr(x)).collect::<Result<_, _>>()?;
                Big::Lit(items, conv, words)
            }
            ExprKind::Call(f @ (Builtin::Insert | Builtin::Delete), args) if args.len() == 2 => {
                let x = Box::new(self.expr(&args[0])?);
                let s = Box::new(self.big(&args[1])?);
                match f {
                    Builtin::Insert => Big::Insert(x, conv, s),
                    _ => Big::Delete(x, conv, s),
                }
            }
            ExprKind::Binary(op @ (BinOp::Union | BinOp::Intersect | BinOp::Difference), l, r) => {
                let op = match op {
                    BinOp::Union => SetOp::Union,
                    BinOp::Intersect => SetOp::Intersect,
                    _ => SetOp::Difference,
                };
                Big::Op(op, Box::new(self.big(l)?), Box::new(self.big(r)?))
            }
            _ => return unsupported("this large-set expression"),
        })
    }

    /// `e` for the interpreter's evaluator: its state reads and outer locals become inputs.
    pub fn interp(&mut self, e: &Expr) -> Result<Interp, Unsupported> {
        let mut inputs = Vec::new();
        let mut next = self.first_free_local;
        let expr = self.rewrite(e, When::Always, &[], &mut inputs, &mut next)?;
        let key_words: usize = inputs
            .iter()
            .map(|input| match input {
                Input::Word { .. } => 1,
                Input::Slot { slot, .. } => self.layout.slot_words(self.fins, *slot).1,
            })
            .sum();
        Ok(Interp {
            expr,
            inputs,
            n_locals: next,
            id: super::interp_memo::fresh_id(),
            memo: key_words <= super::interp_memo::MAX_KEY_WORDS,
            chooses: chooses(e),
            choice: sole_choice(e),
        })
    }

    /// `e` with its inputs replaced by fresh locals. `bound` are the locals the expression
    /// binds itself (quantified variables), which the interpreter sets.
    fn rewrite(
        &mut self,
        e: &Expr,
        when: When,
        bound: &[u32],
        inputs: &mut Vec<Input>,
        next: &mut u32,
    ) -> Result<Expr, Unsupported> {
        let free = !may_read_local(e, |s| bound.contains(&s));
        // A fresh local in `e`'s place, read from `input`.
        let fresh = |next: &mut u32, inputs: &mut Vec<Input>, input: &dyn Fn(u32) -> Input| {
            let local = *next;
            *next += 1;
            inputs.push(input(local));
            Expr {
                kind: ExprKind::Var(VarRef::Local(local)),
                ty: e.ty.clone(),
                span: e.span,
            }
        };
        match &e.kind {
            ExprKind::Var(VarRef::State(s)) => {
                let slot = *s;
                return Ok(match &self.layout.slots[slot as usize] {
                    Slot::Word { offset, repr, .. } => {
                        let (offset, repr) = (*offset, *repr);
                        fresh(next, inputs, &|local| Input::Word {
                            local,
                            code: Code::Word(offset),
                            repr,
                        })
                    }
                    _ => fresh(next, inputs, &|local| Input::Slot { local, slot }),
                });
            }
            ExprKind::Var(VarRef::Local(k)) if !bound.contains(k) => {
                let (k, repr) = (*k, self.repr(&e.ty));
                return Ok(fresh(next, inputs, &|local| Input::Word {
                    local,
                    code: Code::Local(k),
                    repr,
                }));
            }
            ExprKind::Var(VarRef::Local(_) | VarRef::Param(_))
            | ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Str(_)
            | ExprKind::Nil
            | ExprKind::EnumConst(_) => return Ok(e.clone()),
            ExprKind::Var(_) => return refuse(e.span, "a variable of another automaton"),
            ExprKind::Choose { det: Some(_), .. } => {
                return refuse(e.span, "a `choose` with a `det` block in an effect")
            }
            _ => {}
        }
        // A subexpression evaluated on every evaluation, reading nothing bound inside, whose
        // value has words of its own (or is read straight from the state): computed natively.
        if when == When::Always && free && !chooses(e) {
            let plain_read = matches!(&e.kind, ExprKind::Index(base, _)
                if matches!(base.kind, ExprKind::Var(VarRef::State(_))));
            if plain_read || self.repr(&e.ty) != Repr::Interned {
                if let Ok(code) = self.native(e) {
                    let repr = self.repr(&e.ty);
                    let cell = std::cell::RefCell::new(Some(code));
                    return Ok(fresh(next, inputs, &|local| Input::Word {
                        local,
                        code: cell.borrow_mut().take().expect("one input"),
                        repr,
                    }));
                }
            }
        }
        let mut out = e.clone();
        let sub =
            |lower: &mut Self, x: &Expr, when: When, inputs: &mut Vec<Input>, next: &mut u32| {
                lower.rewrite(x, when, bound, inputs, next)
            };
        match (&e.kind, &mut out.kind) {
            (ExprKind::Tuple(xs), ExprKind::Tuple(ys))
            | (ExprKind::Collection(xs), ExprKind::Collection(ys))
            | (ExprKind::Call(_, xs), ExprKind::Call(_, ys)) => {
                for (x, y) in xs.iter().zip(ys.iter_mut()) {
                    *y = sub(self, x, when, inputs, next)?;
                }
            }
            (ExprKind::Unary(_, x), ExprKind::Unary(_, y))
            | (ExprKind::Field(x, _), ExprKind::Field(y, _))
            | (ExprKind::NullVal(x), ExprKind::NullVal(y))
            | (ExprKind::UnionPayload(x, _), ExprKind::UnionPayload(y, _))
            | (ExprKind::UnionNew(_, x), ExprKind::UnionNew(_, y))
            | (ExprKind::Is(x, _), ExprKind::Is(y, _)) => {
                **y = sub(self, x, when, inputs, next)?;
            }
            (ExprKind::Index(x1, x2), ExprKind::Index(y1, y2)) => {
                **y1 = sub(self, x1, when, inputs, next)?;
                **y2 = sub(self, x2, when, inputs, next)?;
            }
            (ExprKind::Binary(op, x1, x2), ExprKind::Binary(_, y1, y2)) => {
                let right = match op {
                    BinOp::And | BinOp::Or | BinOp::Implies => When::Sometimes,
                    _ => when,
                };
                **y1 = sub(self, x1, when, inputs, next)?;
                **y2 = sub(self, x2, right, inputs, next)?;
            }
            (ExprKind::Cond(c, a, b), ExprKind::Cond(yc, ya, yb)) => {
                **yc = sub(self, c, when, inputs, next)?;
                **ya = sub(self, a, When::Sometimes, inputs, next)?;
                **yb = sub(self, b, When::Sometimes, inputs, next)?;
            }
            (ExprKind::Quant(_, binders, body), ExprKind::Quant(_, _, ybody)) => {
                let mut inner: Vec<u32> = bound.to_vec();
                inner.extend(binders.iter().map(|(s, _)| *s));
                **ybody = self.rewrite(body, When::Sometimes, &inner, inputs, next)?;
            }
            (ExprKind::SetComp { var, cond, .. }, ExprKind::SetComp { cond: ycond, .. }) => {
                let mut inner: Vec<u32> = bound.to_vec();
                inner.push(*var);
                **ycond = self.rewrite(cond, When::Sometimes, &inner, inputs, next)?;
            }
            (
                ExprKind::Choose {
                    var, cond: Some(c), ..
                },
                ExprKind::Choose { cond: Some(yc), .. },
            ) => {
                let mut inner: Vec<u32> = bound.to_vec();
                inner.push(*var);
                **yc = self.rewrite(c, When::Sometimes, &inner, inputs, next)?;
            }
            (ExprKind::Choose { cond: None, .. }, _) => {}
            _ => return refuse(e.span, "this expression"),
        }
        Ok(out)
    }

    /// The steps of a place after its root (and after an array entry's index), as words.
    fn steps(&mut self, path: &[PlaceStep]) -> Result<Vec<Step>, Unsupported> {
        path.iter()
            .map(|step| {
                Ok(match step {
                    PlaceStep::Field(k) => Step::Field(*k),
                    PlaceStep::Index(i) => {
                        let repr = self.repr(&i.ty);
                        Step::Index(self.expr(i)?, repr)
                    }
                })
            })
            .collect()
    }

    /// A statement of an effect.
    pub fn stmt(&mut self, s: &IrStmt) -> Result<Stmt, Unsupported> {
        Ok(match &s.kind {
            StmtKind::Ensure(p) => Stmt::Ensure(self.expr(p)?),
            StmtKind::Assign { target, value } => {
                let slot = match target.root {
                    VarRef::State(slot) => slot,
                    VarRef::Local(k) if target.path.is_empty() => {
                        return Ok(Stmt::SetLocal {
                            slot: k,
                            value: self.expr(value)?,
                        })
                    }
                    _ => return refuse(s.span, "an assignment to an auxiliary variable"),
                };
                let repr = self.repr(&value.ty);
                let keys_choose = target.path.iter().any(|p| match p {
                    PlaceStep::Index(i) => chooses(i),
                    PlaceStep::Field(_) => false,
                });
                if keys_choose {
                    return refuse(s.span, "a `choose` in an assignment's index");
                }
                match (
                    self.layout.slots[slot as usize].clone(),
                    target.path.as_slice(),
                ) {
                    (Slot::Word { offset, nat, .. }, []) => Stmt::SetWord {
                        offset,
                        value: self.expr(value)?,
                        nat,
                    },
                    (
                        Slot::Word {
                            offset, repr: root, ..
                        },
                        path,
                    ) => Stmt::Update {
                        target: Target::Word(offset),
                        root,
                        path: self.steps(path)?,
                        value: self.expr(value)?,
                        repr,
                    },
                    (Slot::BigSet { offset, .. }, []) => match self.big(value) {
                        Ok(big) => Stmt::SetBig { offset, value: big },
                        Err(_) => Stmt::SetSlot {
                            slot,
                            value: Box::new(self.interp(value)?),
                        },
                    },
                    (Slot::Array { .. }, []) => Stmt::SetSlot {
                        slot,
                        value: Box::new(self.interp(value)?),
                    },
                    (
                        Slot::Array {
                            offset,
                            index,
                            members,
                            ..
                        },
                        [PlaceStep::Index(i)],
                    ) => Stmt::SetArray {
                        base: offset,
                        index: self.expr(i)?,
                        conv: self.conv(index),
                        value: self.expr(value)?,
                        // As in the interpreter, only whole `Nat` variables are checked.
                        nat: false,
                        members,
                    },
                    (
                        Slot::Array {
                            offset,
                            index,
                            elem,
                            members,
                            ..
                        },
                        [PlaceStep::Index(i), rest @ ..],
                    ) => Stmt::Update {
                        target: Target::Entry {
                            base: offset,
                            index: self.expr(i)?,
                            conv: self.conv(index),
                            members,
                        },
                        root: elem,
                        path: self.steps(rest)?,
                        value: self.expr(value)?,
                        repr,
                    },
                    _ => return refuse(s.span, "an assignment into a field of a bit set"),
                }
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                let mut bs = Vec::new();
                for (c, body) in branches {
                    bs.push((self.expr(c)?, self.stmts(body)?));
                }
                Stmt::If {
                    branches: bs,
                    otherwise: self.stmts(otherwise)?,
                }
            }
            StmtKind::ForIn {
                var,
                collection,
                body,
            } => {
                let elem = match &collection.ty {
                    Type::Set(t) | Type::Mset(t) | Type::Seq(t) => (**t).clone(),
                    _ => return refuse(s.span, "`for` over this collection"),
                };
                let ranked = matches!(collection.ty, Type::Set(_))
                    && (self.is_big(&collection.ty) || self.is_small_set(&collection.ty));
                if ranked {
                    let order = self.loop_order(&elem, false)?;
                    let lo = self.conv_of(&elem)?.lo;
                    let domain = if self.is_big(&collection.ty) {
                        Domain::BigMembers(self.big(collection)?, lo)
                    } else {
                        Domain::Members(Box::new(self.expr(collection)?), lo)
                    };
                    Stmt::For {
                        var: *var,
                        domain,
                        order,
                        cond: None,
                        body: self.stmts(body)?,
                    }
                } else {
                    let repr = self.repr(&elem);
                    Stmt::For {
                        var: *var,
                        domain: Domain::Values {
                            coll: Box::new(self.interp(collection)?),
                            repr,
                            repeat: true,
                        },
                        order: None,
                        cond: None,
                        body: self.stmts(body)?,
                    }
                }
            }
            StmtKind::ForWhere {
                var,
                ty,
                cond,
                body,
            } => {
                let (domain, order) = if self.fins.of(ty).is_ok() {
                    (Domain::All(self.conv_of(ty)?), self.loop_order(ty, true)?)
                } else {
                    let carrier = self.fins.carrier(ty).ok_or_else(|| {
                        format!(
                            "a loop over type {}, which has no finite carrier,",
                            self.fins.name(ty)
                        )
                    })?;
                    let repr = self.repr(ty);
                    let words = carrier
                        .iter()
                        .map(|v| word_of(self.fins, repr, v))
                        .collect::<Option<Vec<i64>>>()
                        .ok_or("a carrier value has no word")?;
                    (Domain::Words(words), None)
                };
                Stmt::For {
                    var: *var,
                    order,
                    domain,
                    cond: Some(self.expr(cond)?),
                    body: self.stmts(body)?,
                }
            }
            StmtKind::Ignore | StmtKind::Yield(_) => Stmt::If {
                branches: Vec::new(),
                otherwise: Vec::new(),
            },
            StmtKind::While { .. } | StmtKind::Fire { .. } => {
                return refuse(s.span, "`while` or `fire` in an effect")
            }
        })
    }

    /// Statements in order.
    pub fn stmts(&mut self, s: &[IrStmt]) -> Result<Vec<Stmt>, Unsupported> {
        s.iter().map(|x| self.stmt(x)).collect()
    }

    /// Loops visit values in the interpreter's order: `for x in S` in value order, `for x: T
    /// where P` in the carrier's order. Where rank order differs (sets as bit masks, tuples
    /// listed by the universe), the loop sorts by a table from rank to position.
    fn loop_order(
        &mut self,
        ty: &Type,
        carrier_order: bool,
    ) -> Result<Option<Arc<Vec<u32>>>, Unsupported> {
        let f = self.fins.of(ty)?;
        let card = self.fins.get(f).card;
        if card > MAX_INDEXED {
            return unsupported("a loop over a type with this many values");
        }
        let values: Vec<Value> = if carrier_order {
            self.fins
                .carrier(ty)
                .ok_or("a loop over a type without a carrier is not compiled")?
                .to_vec()
        } else {
            let fin = self.fins.get(f).clone();
            let mut v: Vec<Value> = (0..card).map(|r| self.fins.value_of(&fin, r)).collect();
            v.sort();
            v
        };
        let fin = self.fins.get(f).clone();
        let mut key = vec![u32::MAX; card as usize];
        for (pos, v) in values.iter().enumerate() {
            let r = self
                .fins
                .rank_of(&fin, v)
                .ok_or("a loop over values outside the universe is not compiled")?;
            key[r as usize] = pos as u32;
        }
        if key.iter().enumerate().all(|(r, &k)| k == r as u32) {
            return Ok(None);
        }
        Ok(Some(Arc::new(key)))
    }
}

/// Whether `c` builds a tuple or `embed` (which may fall outside its type's universe).
fn built(c: &Code) -> bool {
    matches!(c, Code::Tuple { .. } | Code::Embed(..))
}

/// Whether statements evaluate a `choose`.
pub fn stmts_choose(stmts: &[IrStmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Assign { target, value } => {
            chooses(value)
                || target.path.iter().any(|p| match p {
                    PlaceStep::Index(i) => chooses(i),
                    PlaceStep::Field(_) => false,
                })
        }
        StmtKind::If {
            branches,
            otherwise,
        } => {
            branches
                .iter()
                .any(|(c, body)| chooses(c) || stmts_choose(body))
                || stmts_choose(otherwise)
        }
        StmtKind::ForIn {
            collection: e,
            body,
            ..
        }
        | StmtKind::ForWhere { cond: e, body, .. }
        | StmtKind::While { cond: e, body } => chooses(e) || stmts_choose(body),
        StmtKind::Ensure(e) | StmtKind::Yield(e) => chooses(e),
        StmtKind::Fire { .. } => true,
        StmtKind::Ignore => false,
    })
}

/// The span of `e`'s one `choose` when `e` holds exactly one and evaluating `e` always
/// evaluates it exactly once: it sits under calls, tuples, collections, operators, fields and
/// indexing only (on the left of `∧`, `∨`, `⇒`, which the interpreter may not evaluate
/// further), has no `det` block, and its condition holds no `choose`.
fn sole_choice(e: &Expr) -> Option<Span> {
    let mut found = None;
    let mut count = 0;
    let always = sole_choice_walk(e, &mut found, &mut count);
    (always && count == 1).then_some(found).flatten()
}

/// Walks `e` for [`sole_choice`]: counts every `choose`, notes the span of one that is
/// always evaluated, and returns whether every `choose` met is.
fn sole_choice_walk(e: &Expr, found: &mut Option<Span>, count: &mut usize) -> bool {
    // Stopping at an operand that fails is fine: the answer is then `None` whatever the count.
    let mut all = |xs: &mut dyn Iterator<Item = &Expr>| {
        let mut ok = true;
        for x in xs {
            ok = ok && sole_choice_walk(x, found, count);
        }
        ok
    };
    match &e.kind {
        ExprKind::Choose { cond, det, .. } => {
            *count += 1;
            *found = Some(e.span);
            det.is_none() && !cond.as_deref().is_some_and(chooses)
        }
        ExprKind::Tuple(xs) | ExprKind::Collection(xs) | ExprKind::Call(_, xs) => {
            all(&mut xs.iter())
        }
        ExprKind::Unary(_, x) | ExprKind::Field(x, _) | ExprKind::NullVal(x) => {
            all(&mut std::iter::once(&**x))
        }
        ExprKind::Binary(BinOp::And | BinOp::Or | BinOp::Implies, l, r) => {
            all(&mut std::iter::once(&**l)) && !chooses(r)
        }
        ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => all(&mut [&**a, &**b].into_iter()),
        _ => !chooses(e),
    }
}

/// Whether `e` contains a `choose`.
fn chooses(e: &Expr) -> bool {
    let walk = |x: &Expr| chooses(x);
    match &e.kind {
        ExprKind::Choose { .. } => true,
        ExprKind::Var(VarRef::Component { indices, .. }) => indices.iter().any(walk),
        ExprKind::Var(_)
        | ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Str(_)
        | ExprKind::Nil
        | ExprKind::EnumConst(_) => false,
        ExprKind::Tuple(xs) | ExprKind::Collection(xs) | ExprKind::Call(_, xs) => {
            xs.iter().any(walk)
        }
        ExprKind::Unary(_, x)
        | ExprKind::Field(x, _)
        | ExprKind::NullVal(x)
        | ExprKind::UnionPayload(x, _)
        | ExprKind::UnionNew(_, x)
        | ExprKind::Is(x, _)
        | ExprKind::Quant(_, _, x)
        | ExprKind::SetComp { cond: x, .. } => chooses(x),
        ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => chooses(a) || chooses(b),
        ExprKind::Cond(c, a, b) => chooses(c) || chooses(a) || chooses(b),
    }
}

fn leading_conjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Binary(BinOp::And, l, r) => {
            leading_conjuncts(l, out);
            leading_conjuncts(r, out);
        }
        _ => out.push(e),
    }
}
