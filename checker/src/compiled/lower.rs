//! From the typed IR to [`Code`]: names become word positions and local slots, types become
//! strides, ranges and bit positions. Anything outside the compiled subset (maps, sequences,
//! multisets, unions, strings, `choose`, whole-array assignment, composite automata…) is
//! refused with the reason, and the explorer uses the interpreter instead.

use super::code::{Arith, Big, Cmp, Code, Conv, Domain, SetCmp, SetOp, Stmt};
use super::layout::{
    repr_of, word_of, FinId, FinKind, Fins, Layout, Listed, Slot, Unsupported, MAX_INDEXED,
};
use interpreter::eval::may_read_local;
use interpreter::value::Value;
use ioa_lang::ast::Quantifier;
use ioa_lang::ir::{
    BinOp, Builtin, Expr, ExprKind, PlaceStep, Stmt as IrStmt, StmtKind, Type, UnOp, VarRef,
};
use std::sync::Arc;

/// Lowers the expressions and statements of one primitive automaton.
pub struct Lower<'a, 'm, 's> {
    /// The finite types.
    pub fins: &'a mut Fins<'m, 's>,
    /// The state layout.
    pub layout: &'a Layout,
    /// The automaton's parameter values.
    pub params: &'a [Value],
}

fn unsupported<T>(what: &str) -> Result<T, Unsupported> {
    Err(format!("{what} is not compiled"))
}

impl Lower<'_, '_, '_> {
    fn conv(&self, fin: FinId) -> Conv {
        let f = self.fins.get(fin);
        Conv {
            lo: match f.kind {
                FinKind::Int { lo } => lo,
                _ => 0,
            },
            card: f.card,
        }
    }

    fn conv_of(&mut self, ty: &Type) -> Result<Conv, Unsupported> {
        let f = self.fins.of(ty)?;
        Ok(self.conv(f))
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

    /// Whether values of `ty` are bit sets (sets over more than 63 values).
    fn is_big(&mut self, ty: &Type) -> Result<bool, Unsupported> {
        Ok(match ty {
            Type::Set(elem) => {
                let f = self.fins.of(elem)?;
                self.fins.get(f).card > 63
            }
            _ => false,
        })
    }

    fn words_of(&mut self, elem: &Type) -> Result<u32, Unsupported> {
        let f = self.fins.of(elem)?;
        Ok(self.fins.get(f).card.div_ceil(64) as u32)
    }

    /// A word-valued expression.
    pub fn expr(&mut self, e: &Expr) -> Result<Code, Unsupported> {
        if self.is_big(&e.ty)? {
            return unsupported("a large set outside a membership, size or comparison");
        }
        let b = |c: Code| Box::new(c);
        Ok(match &e.kind {
            ExprKind::Var(VarRef::State(s)) => match &self.layout.slots[*s as usize] {
                Slot::Word { offset, .. } => Code::Word(*offset),
                _ => return unsupported("an array used as a whole"),
            },
            ExprKind::Var(VarRef::Param(k)) => {
                let repr = repr_of(self.fins, &e.ty)?;
                let v = &self.params[*k as usize];
                Code::Const(
                    word_of(self.fins, repr, v)
                        .ok_or("an automaton parameter outside its type's universe")?,
                )
            }
            ExprKind::Var(VarRef::Local(k)) => Code::Local(*k),
            ExprKind::Var(_) => return unsupported("a variable of another automaton"),
            ExprKind::Int(i) => Code::Const(*i),
            ExprKind::Bool(x) => Code::Const(*x as i64),
            ExprKind::Nil => Code::Const(0),
            ExprKind::EnumConst(k) => Code::Const(*k as i64),
            ExprKind::Str(_) => return unsupported("a string"),
            ExprKind::Tuple(xs) => {
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
                Type::Set(elem) => {
                    let conv = self.conv_of(elem)?;
                    let items = xs.iter().map(|x| self.expr(x)).collect::<Result<_, _>>()?;
                    Code::SetLit(items, conv)
                }
                _ => return unsupported("a multiset or sequence"),
            },
            ExprKind::Unary(UnOp::Not, a) => Code::Not(b(self.expr(a)?)),
            ExprKind::Unary(UnOp::Neg, a) => Code::Neg(b(self.expr(a)?)),
            ExprKind::Binary(op, l, r) => self.binary(*op, l, r)?,
            ExprKind::Field(t, k) => {
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
                let conv = self.conv_of(inner)?;
                Code::NullVal(b(self.expr(a)?), conv.lo)
            }
            ExprKind::Index(base, index) => match (&base.kind, &base.ty) {
                (ExprKind::Var(VarRef::State(s)), Type::Array(..)) => {
                    let Slot::Array {
                        offset, index: ix, ..
                    } = self.layout.slots[*s as usize].clone()
                    else {
                        return unsupported("this array");
                    };
                    Code::ArrayGet {
                        base: offset,
                        index: b(self.expr(index)?),
                        conv: self.conv(ix),
                    }
                }
                _ => return unsupported("indexing other than into an array state variable"),
            },
            ExprKind::Call(f, args) => self.call(*f, args, &e.ty)?,
            ExprKind::Quant(q, binders, body) => {
                let mut code = self.expr(body)?;
                let exists = *q == Quantifier::Exists;
                for (k, (slot, ty)) in binders.iter().enumerate().rev() {
                    let later: Vec<u32> = binders[k..].iter().map(|(s, _)| *s).collect();
                    let domain = self.domain(*q, *slot, ty, body, &later)?;
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
                return unsupported("a union value")
            }
            ExprKind::Choose { .. } => return unsupported("`choose`"),
        })
    }

    /// What binder `slot` of a quantifier ranges over: the elements of `S` if a leading
    /// conjunct of the body (of the premise, for `∀ … ⇒`) is `slot ∈ S` with `S` not reading
    /// this or a later binder, else the carrier of its type.
    fn domain(
        &mut self,
        q: Quantifier,
        slot: u32,
        ty: &Type,
        body: &Expr,
        later: &[u32],
    ) -> Result<Domain, Unsupported> {
        let conv = self.conv_of(ty)?;
        let premise = match (q, &body.kind) {
            (Quantifier::ForAll, ExprKind::Binary(BinOp::Implies, l, _)) => Some(&**l),
            (Quantifier::Exists, _) => Some(body),
            _ => None,
        };
        let mut conjuncts = Vec::new();
        if let Some(p) = premise {
            leading_conjuncts(p, &mut conjuncts);
        }
        for c in conjuncts {
            let ExprKind::Binary(BinOp::In, x, coll) = &c.kind else {
                continue;
            };
            if !matches!(x.kind, ExprKind::Var(VarRef::Local(s)) if s == slot)
                || may_read_local(coll, |s| later.contains(&s))
                || !matches!(coll.ty, Type::Set(_))
            {
                continue;
            }
            return Ok(if self.is_big(&coll.ty)? {
                Domain::BigMembers(self.big(coll)?, conv.lo)
            } else {
                Domain::Members(Box::new(self.expr(coll)?), conv.lo)
            });
        }
        Ok(Domain::All(conv))
    }

    fn binary(&mut self, op: BinOp, l: &Expr, r: &Expr) -> Result<Code, Unsupported> {
        let b = |c: Code| Box::new(c);
        let cmp = |op| -> Option<Cmp> {
            Some(match op {
                BinOp::Eq => Cmp::Eq,
                BinOp::Neq => Cmp::Ne,
                BinOp::Lt => Cmp::Lt,
                BinOp::Le => Cmp::Le,
                BinOp::Gt => Cmp::Gt,
                BinOp::Ge => Cmp::Ge,
                _ => return None,
            })
        };
        let set_cmp = |op| -> Option<SetCmp> {
            Some(match op {
                BinOp::Eq => SetCmp::Eq,
                BinOp::Neq => SetCmp::Ne,
                BinOp::SubsetEq => SetCmp::SubsetEq,
                BinOp::Subset => SetCmp::Subset,
                _ => return None,
            })
        };
        let set_op = |op| -> Option<SetOp> {
            Some(match op {
                BinOp::Union => SetOp::Union,
                BinOp::Intersect => SetOp::Intersect,
                BinOp::Difference => SetOp::Difference,
                _ => return None,
            })
        };
        let big = self.is_big(&l.ty)?;
        Ok(match op {
            BinOp::And => Code::And(b(self.expr(l)?), b(self.expr(r)?)),
            BinOp::Or => Code::Or(b(self.expr(l)?), b(self.expr(r)?)),
            BinOp::Implies => Code::Implies(b(self.expr(l)?), b(self.expr(r)?)),
            BinOp::Iff => Code::Cmp(Cmp::Eq, b(self.expr(l)?), b(self.expr(r)?)),
            BinOp::Eq | BinOp::Neq | BinOp::SubsetEq | BinOp::Subset
                if matches!(l.ty, Type::Set(_)) =>
            {
                let op = set_cmp(op).expect("a set comparison");
                if big {
                    Code::BigCmp(op, self.big(l)?, self.big(r)?)
                } else {
                    Code::SetCmp(op, b(self.expr(l)?), b(self.expr(r)?))
                }
            }
            BinOp::Eq | BinOp::Neq if matches!(l.ty, Type::Array(..) | Type::Map(..)) => {
                return unsupported("comparing arrays or maps")
            }
            BinOp::Eq | BinOp::Neq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => Code::Cmp(
                cmp(op).expect("a comparison"),
                b(self.expr(l)?),
                b(self.expr(r)?),
            ),
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod => {
                let op = match op {
                    BinOp::Add => Arith::Add,
                    BinOp::Sub => Arith::Sub,
                    BinOp::Mul => Arith::Mul,
                    BinOp::Div => Arith::Div,
                    _ => Arith::Mod,
                };
                Code::Arith(op, b(self.expr(l)?), b(self.expr(r)?))
            }
            BinOp::In | BinOp::NotIn => {
                let Type::Set(elem) = &r.ty else {
                    return unsupported("membership in a multiset or sequence");
                };
                let conv = self.conv_of(elem)?;
                let has = if self.is_big(&r.ty)? {
                    Code::BigHas(b(self.expr(l)?), conv, self.big(r)?)
                } else {
                    Code::SetHas(b(self.expr(l)?), conv, b(self.expr(r)?))
                };
                match op {
                    BinOp::In => has,
                    _ => Code::Not(b(has)),
                }
            }
            BinOp::Union | BinOp::Intersect | BinOp::Difference if matches!(l.ty, Type::Set(_)) => {
                Code::SetOp(
                    set_op(op).expect("a set operation"),
                    b(self.expr(l)?),
                    b(self.expr(r)?),
                )
            }
            _ => return unsupported("this operator on multisets or sequences"),
        })
    }

    fn call(&mut self, f: Builtin, args: &[Expr], ty: &Type) -> Result<Code, Unsupported> {
        let b = |c: Code| Box::new(c);
        Ok(match (f, args) {
            (Builtin::Insert | Builtin::Delete, [x, s]) if matches!(s.ty, Type::Set(_)) => {
                let Type::Set(elem) = &s.ty else {
                    unreachable!()
                };
                let conv = self.conv_of(elem)?;
                let (x, s) = (b(self.expr(x)?), b(self.expr(s)?));
                match f {
                    Builtin::Insert => Code::SetInsert(x, conv, s),
                    _ => Code::SetDelete(x, conv, s),
                }
            }
            (Builtin::Size, [s]) if matches!(s.ty, Type::Set(_)) => {
                if self.is_big(&s.ty)? {
                    Code::BigSize(self.big(s)?)
                } else {
                    Code::SetSize(b(self.expr(s)?))
                }
            }
            (Builtin::Embed, [x]) => {
                let Type::Null(inner) = ty else {
                    return unsupported("`embed` into this type");
                };
                let conv = self.conv_of(inner)?;
                Code::Embed(b(self.expr(x)?), conv)
            }
            (Builtin::Min | Builtin::Max, [x, y]) => Code::Arith(
                if f == Builtin::Min {
                    Arith::Min
                } else {
                    Arith::Max
                },
                b(self.expr(x)?),
                b(self.expr(y)?),
            ),
            (Builtin::Abs, [x]) => Code::Abs(b(self.expr(x)?)),
            _ => return unsupported(&format!("the built-in {f:?} here")),
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
                _ => return unsupported("this set variable"),
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

    /// A statement of an effect.
    pub fn stmt(&mut self, s: &IrStmt) -> Result<Stmt, Unsupported> {
        Ok(match &s.kind {
            StmtKind::Ensure(_) => return unsupported("an `ensuring` clause"),
            StmtKind::Assign { target, value } => {
                let VarRef::State(slot) = target.root else {
                    return unsupported(match target.root {
                        VarRef::Local(_) => "an `ensuring` clause",
                        _ => "an assignment to an auxiliary variable",
                    });
                };
                match (
                    self.layout.slots[slot as usize].clone(),
                    target.path.as_slice(),
                ) {
                    (Slot::Word { offset, nat, .. }, []) => Stmt::SetWord {
                        offset,
                        value: self.expr(value)?,
                        nat,
                    },
                    (Slot::BigSet { offset, .. }, []) => Stmt::SetBig {
                        offset,
                        value: self.big(value)?,
                    },
                    (Slot::Array { offset, index, .. }, [PlaceStep::Index(i)]) => Stmt::SetArray {
                        base: offset,
                        index: self.expr(i)?,
                        conv: self.conv(index),
                        value: self.expr(value)?,
                        // As in the interpreter, only whole `Nat` variables are checked.
                        nat: false,
                    },
                    _ => return unsupported("this assignment (whole array, or into a field)"),
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
                let Type::Set(elem) = &collection.ty else {
                    return unsupported("`for` over a multiset or sequence");
                };
                let order = self.loop_order(elem, false)?;
                let lo = self.conv_of(elem)?.lo;
                let domain = if self.is_big(&collection.ty)? {
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
            }
            StmtKind::ForWhere {
                var,
                ty,
                cond,
                body,
            } => Stmt::For {
                var: *var,
                order: self.loop_order(ty, true)?,
                domain: Domain::All(self.conv_of(ty)?),
                cond: Some(self.expr(cond)?),
                body: self.stmts(body)?,
            },
            StmtKind::Ignore | StmtKind::Yield(_) => Stmt::If {
                branches: Vec::new(),
                otherwise: Vec::new(),
            },
            StmtKind::While { .. } | StmtKind::Fire { .. } => {
                return unsupported("`while` or `fire`")
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
                .ok_or("a loop over a type without a carrier")?
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
                .ok_or("a loop over values outside the universe")?;
            key[r as usize] = pos as u32;
        }
        if key.iter().enumerate().all(|(r, &k)| k == r as u32) {
            return Ok(None);
        }
        Ok(Some(Arc::new(key)))
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
