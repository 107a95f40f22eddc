//! Checking expressions: resolving names to slots, inferring types, choosing operators by
//! operand type.

use super::bounded::has_bound_guard;
use super::scope::Body;
use super::types::VarKind;
use super::{suggest, CheckError, Checker};
use crate::ast::{self, ExprKind as A};
use crate::ir::{self, BinOp, Builtin, Expr, ExprKind, Type, TypeDefKind, UnOp, VarRef};
use crate::span::Span;

/// Built-in function names, for suggestions.
pub(crate) const BUILTINS: &[&str] = &[
    "insert", "delete", "size", "constant", "embed", "head", "tail", "min", "max", "div", "mod",
    "abs", "defined", "update", "len", "last", "init", "count",
];

fn mk(kind: ExprKind, ty: Type, span: Span) -> Expr {
    Expr { kind, ty, span }
}

/// An integer literal, or the negation of one, retyped `Real`; anything else unchanged.
fn as_real(e: Expr) -> Expr {
    match e.kind {
        ExprKind::Int(_) if e.ty == Type::Int => Expr {
            ty: Type::Real,
            ..e
        },
        ExprKind::Unary(UnOp::Neg, inner)
            if e.ty == Type::Int && matches!(inner.kind, ExprKind::Int(_)) =>
        {
            mk(
                ExprKind::Unary(UnOp::Neg, Box::new(as_real(*inner))),
                Type::Real,
                e.span,
            )
        }
        kind => Expr { kind, ..e },
    }
}

impl Checker {
    /// Checks an expression that must be Boolean.
    pub(crate) fn bool_expr(&mut self, body: &mut Body, e: &ast::Expr) -> Expr {
        let out = self.expr(body, e);
        self.expect(&out, &Type::Bool);
        out
    }

    /// Checks an expression that must have type `ty`.
    pub(crate) fn typed_expr(&mut self, body: &mut Body, e: &ast::Expr, ty: &Type) -> Expr {
        let out = self.expr(body, e);
        let out = self.real_if(out, ty);
        self.expect(&out, ty);
        out
    }

    /// An integer literal (or its negation) read as a `Real` where `want` is `Real`: the
    /// manual's numerals denote numbers of each numeric type.
    pub(crate) fn real_if(&self, e: Expr, want: &Type) -> Expr {
        if self.is_real(want) {
            as_real(e)
        } else {
            e
        }
    }

    fn is_real(&self, t: &Type) -> bool {
        matches!(self.unifier.shallow(t), Type::Real)
    }

    /// Both operands as `Real`s when either is one (integer literals read as `Real`s), and
    /// whether that was the case; otherwise the operands unchanged.
    fn real_operands(&mut self, l: Expr, r: Expr) -> (Expr, Expr, bool) {
        if !self.is_real(&l.ty) && !self.is_real(&r.ty) {
            return (l, r, false);
        }
        let (l, r) = (as_real(l), as_real(r));
        self.expect(&l, &Type::Real);
        self.expect_because(
            &r,
            &Type::Real,
            Some((l.span, "with this `Real`".to_string())),
        );
        (l, r, true)
    }

    /// Unifies operand `x`'s type with `want`, or reports that `op` needs `needs` there.
    fn operand(&mut self, x: &Expr, want: &Type, op: &str, needs: &'static str) {
        if self.unifier.unify(&x.ty, want, &self.spec.types).is_err() {
            let ty = self.show(&x.ty);
            self.error(CheckError::BadOperand {
                op: op.to_string(),
                ty,
                needs,
                span: x.span,
            });
        }
    }

    /// A placeholder for an expression that could not be checked; its type unifies with anything
    /// so that one mistake is reported once.
    fn poisoned(&mut self, span: Span) -> Expr {
        let ty = self.unifier.fresh(VarKind::Any, span);
        mk(ExprKind::Bool(false), ty, span)
    }

    /// Checks an expression and returns it in IR form.
    pub(crate) fn expr(&mut self, body: &mut Body, e: &ast::Expr) -> Expr {
        let span = e.span;
        match &e.kind {
            A::Name(id) => self.name(body, id),
            A::Int(v) => mk(ExprKind::Int(*v), Type::Int, span),
            A::Bool(b) => mk(ExprKind::Bool(*b), Type::Bool, span),
            A::Str(s) => mk(ExprKind::Str(s.clone()), Type::String, span),
            // A character is its code point in the IR, typed `Char`: the interpreter makes a
            // `Char` value of it, and the SMT encoding orders characters as integers.
            A::Char(c) => mk(ExprKind::Int(i64::from(u32::from(*c))), Type::Char, span),
            // A decimal is its digits over a power of ten, both typed `Real`.
            A::Real(digits, 0) => mk(ExprKind::Int(*digits), Type::Real, span),
            A::Real(digits, scale) => mk(
                ExprKind::Binary(
                    BinOp::Div,
                    Box::new(mk(ExprKind::Int(*digits), Type::Real, span)),
                    Box::new(mk(ExprKind::Int(10i64.pow(*scale)), Type::Real, span)),
                ),
                Type::Real,
                span,
            ),
            A::Nil => {
                let inner = self.unifier.fresh(VarKind::Any, span);
                mk(ExprKind::Nil, Type::Null(Box::new(inner)), span)
            }
            A::Tuple(parts) => {
                let parts: Vec<Expr> = parts.iter().map(|p| self.expr(body, p)).collect();
                let ty = self.unifier.fresh(
                    VarKind::Tuple(parts.iter().map(|p| p.ty.clone()).collect()),
                    span,
                );
                mk(ExprKind::Tuple(parts), ty, span)
            }
            A::SetLit(elems) => {
                let elem_ty = self.unifier.fresh(VarKind::Any, span);
                let elems: Vec<Expr> = elems
                    .iter()
                    .map(|x| {
                        let x = self.expr(body, x);
                        self.expect(&x, &elem_ty);
                        x
                    })
                    .collect();
                let ty = self.unifier.fresh(VarKind::Collection(elem_ty), span);
                mk(ExprKind::Collection(elems), ty, span)
            }
            A::Unary(ast::UnOp::Not, x) => {
                let x = self.bool_expr(body, x);
                mk(ExprKind::Unary(UnOp::Not, Box::new(x)), Type::Bool, span)
            }
            A::Unary(ast::UnOp::Neg, x) => {
                let x = self.expr(body, x);
                if self.is_real(&x.ty) {
                    return mk(ExprKind::Unary(UnOp::Neg, Box::new(x)), Type::Real, span);
                }
                self.numeric(&x, "-");
                mk(ExprKind::Unary(UnOp::Neg, Box::new(x)), Type::Int, span)
            }
            A::Binary(op, l, r) => self.binary(body, *op, l, r, span),
            A::Field(x, f) => self.field(body, x, f, span),
            A::Index(x, idx) => self.index(body, x, idx, span),
            A::Call(f, args) => self.call(body, f, args, span),
            A::Is(x, tag) => {
                let x = self.expr(body, x);
                match self.union_tag_of(&x, tag) {
                    Some((k, _)) => mk(ExprKind::Is(Box::new(x), k), Type::Bool, span),
                    None => self.poisoned(span),
                }
            }
            A::Quant(q, params, inner) => {
                let mark = body.mark();
                let mut binders = Vec::new();
                for p in params {
                    let ty = self.resolve_type(&p.ty);
                    let slot = body.bind(&p.name.name, ty.clone(), "a bound variable");
                    binders.push((slot, ty));
                }
                let inner = self.bool_expr(body, inner);
                body.pop_to(mark);
                mk(
                    ExprKind::Quant(*q, binders, Box::new(inner)),
                    Type::Bool,
                    span,
                )
            }
            A::SetComp { var, cond } => {
                let elem = self.resolve_type(&var.ty);
                let mark = body.mark();
                let slot = body.bind(&var.name.name, elem.clone(), "a bound variable");
                let cond = self.bool_expr(body, cond);
                body.pop_to(mark);
                if !self.can_be_bounded(&elem) && !has_bound_guard(&cond, slot) {
                    let ty = self.show(&elem);
                    self.error(CheckError::UnboundedComprehension {
                        ty,
                        var: var.name.name.clone(),
                        span,
                    });
                }
                mk(
                    ExprKind::SetComp {
                        var: slot,
                        elem: elem.clone(),
                        cond: Box::new(cond),
                    },
                    Type::Set(Box::new(elem)),
                    span,
                )
            }
            A::Cond(c, a, b) => {
                let c = self.bool_expr(body, c);
                let a = self.expr(body, a);
                let b = self.expr(body, b);
                self.expect(&b, &a.ty);
                let ty = a.ty.clone();
                mk(
                    ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
                    ty,
                    span,
                )
            }
            A::Choose { var, cond, det } => {
                let ty = self.resolve_type(&var.ty);
                let det = det.as_ref().map(|stmts| {
                    let saved = body.yield_type.replace(ty.clone());
                    let saved_free = std::mem::replace(&mut body.yield_any, false);
                    let out = self.stmts(body, stmts);
                    body.yield_type = saved;
                    body.yield_any = saved_free;
                    out
                });
                let mark = body.mark();
                let slot = body.bind(&var.name.name, ty.clone(), "a chosen variable");
                let cond = cond.as_ref().map(|c| Box::new(self.bool_expr(body, c)));
                body.pop_to(mark);
                mk(
                    ExprKind::Choose {
                        var: slot,
                        cond,
                        det,
                    },
                    ty,
                    span,
                )
            }
        }
    }

    fn numeric(&mut self, x: &Expr, op: &str) {
        match self.unifier.shallow(&x.ty) {
            Type::Int | Type::Nat => {}
            Type::Infer(_) if matches!(self.unifier.kind_of(&x.ty), Some(VarKind::Any)) => {
                let _ = self.unifier.unify(&x.ty, &Type::Int, &self.spec.types);
            }
            _ => {
                let ty = self.show(&x.ty);
                self.error(CheckError::BadOperand {
                    op: op.to_string(),
                    ty,
                    needs: "integers",
                    span: x.span,
                });
            }
        }
    }

    /// Requires `x` to be a collection; returns its element type.
    fn collection_elem(&mut self, x: &Expr, op: &str, allow_seq: bool) -> Type {
        match self.unifier.shallow(&x.ty) {
            Type::Set(e) | Type::Mset(e) => *e,
            Type::Seq(e) if allow_seq => *e,
            _ => {
                if let Some(VarKind::Collection(e)) = self.unifier.kind_of(&x.ty) {
                    return e.clone();
                }
                let elem = self.unifier.fresh(VarKind::Any, x.span);
                let want = self
                    .unifier
                    .fresh(VarKind::Collection(elem.clone()), x.span);
                let needs = if allow_seq {
                    "a set, multiset or sequence"
                } else {
                    "a set or multiset"
                };
                self.operand(x, &want, op, needs);
                elem
            }
        }
    }

    fn binary(
        &mut self,
        body: &mut Body,
        op: ast::BinOp,
        l: &ast::Expr,
        r: &ast::Expr,
        span: Span,
    ) -> Expr {
        use ast::BinOp as B;
        let bin = |op: BinOp, l: Expr, r: Expr, ty: Type| {
            mk(ExprKind::Binary(op, Box::new(l), Box::new(r)), ty, span)
        };
        match op {
            B::Iff | B::Implies | B::Or | B::And => {
                let l = self.bool_expr(body, l);
                let r = self.bool_expr(body, r);
                let op = match op {
                    B::Iff => BinOp::Iff,
                    B::Implies => BinOp::Implies,
                    B::Or => BinOp::Or,
                    _ => BinOp::And,
                };
                bin(op, l, r, Type::Bool)
            }
            B::Eq | B::Neq => {
                let l = self.expr(body, l);
                let r = self.expr(body, r);
                let r = self.real_if(r, &l.ty);
                let l = self.real_if(l, &r.ty);
                self.expect_because(&r, &l.ty, Some((l.span, "compared with this".to_string())));
                bin(
                    if op == B::Eq { BinOp::Eq } else { BinOp::Neq },
                    l,
                    r,
                    Type::Bool,
                )
            }
            B::Lt | B::Le | B::Gt | B::Ge => {
                let l = self.expr(body, l);
                let r = self.expr(body, r);
                let (sym, op) = match op {
                    B::Lt => ("<", BinOp::Lt),
                    B::Le => ("≤", BinOp::Le),
                    B::Gt => (">", BinOp::Gt),
                    _ => ("≥", BinOp::Ge),
                };
                // Characters are ordered too (by code point), and so are `Real`s.
                let (l, r, real) = self.real_operands(l, r);
                if real {
                    return bin(op, l, r, Type::Bool);
                }
                if matches!(self.unifier.shallow(&l.ty), Type::Char)
                    || matches!(self.unifier.shallow(&r.ty), Type::Char)
                {
                    self.expect_because(&l, &Type::Char, None);
                    self.expect_because(
                        &r,
                        &Type::Char,
                        Some((l.span, "compared with this".to_string())),
                    );
                } else {
                    self.numeric(&l, sym);
                    self.numeric(&r, sym);
                }
                bin(op, l, r, Type::Bool)
            }
            B::In | B::NotIn => {
                let l = self.expr(body, l);
                let r = self.expr(body, r);
                let sym = if op == B::In { "∈" } else { "∉" };
                let elem = self.collection_elem(&r, sym, true);
                let collection = self.show(&r.ty);
                self.expect_because(
                    &l,
                    &elem,
                    Some((
                        r.span,
                        format!("`{sym}` tests membership in this `{collection}`"),
                    )),
                );
                bin(
                    if op == B::In { BinOp::In } else { BinOp::NotIn },
                    l,
                    r,
                    Type::Bool,
                )
            }
            B::SubsetEq | B::Subset => {
                let l = self.expr(body, l);
                let r = self.expr(body, r);
                let sym = if op == B::SubsetEq { "⊆" } else { "⊂" };
                self.collection_elem(&l, sym, false);
                self.expect(&r, &l.ty);
                bin(
                    if op == B::SubsetEq {
                        BinOp::SubsetEq
                    } else {
                        BinOp::Subset
                    },
                    l,
                    r,
                    Type::Bool,
                )
            }
            B::Union | B::Intersect => {
                let l = self.expr(body, l);
                let r = self.expr(body, r);
                let sym = if op == B::Union { "∪" } else { "∩" };
                self.collection_elem(&l, sym, false);
                self.expect(&r, &l.ty);
                let ty = l.ty.clone();
                bin(
                    if op == B::Union {
                        BinOp::Union
                    } else {
                        BinOp::Intersect
                    },
                    l,
                    r,
                    ty,
                )
            }
            B::Append | B::Prepend => {
                let l = self.expr(body, l);
                let r = self.expr(body, r);
                // `s ⊢ x` appends, `x ⊣ s` prepends: the sequence stands on the side of the bar.
                let (seq, elem, sym, needs, op) = if op == B::Append {
                    let needs = "a sequence of the appended element's type";
                    (&l, &r, "⊢", needs, BinOp::Append)
                } else {
                    let needs = "a sequence of the prepended element's type";
                    (&r, &l, "⊣", needs, BinOp::Prepend)
                };
                let want = Type::Seq(Box::new(elem.ty.clone()));
                self.operand(seq, &want, sym, needs);
                let ty = seq.ty.clone();
                bin(op, l, r, ty)
            }
            B::Concat => {
                let l = self.expr(body, l);
                let r = self.expr(body, r);
                let elem = self.unifier.fresh(VarKind::Any, l.span);
                let want = Type::Seq(Box::new(elem));
                if matches!(self.unifier.shallow(&l.ty), Type::Bool) {
                    self.error(CheckError::BadOperand {
                        op: "||".to_string(),
                        ty: "Bool".to_string(),
                        needs: "a sequence (`||` is concatenation; disjunction is `∨` or `\\/`)",
                        span: l.span,
                    });
                    return bin(BinOp::Concat, l, r, Type::Bool);
                }
                self.operand(&l, &want, "||", "a sequence");
                self.operand(&r, &want, "||", "a sequence of the same element type");
                let ty = l.ty.clone();
                bin(BinOp::Concat, l, r, ty)
            }
            B::Sub => {
                let l = self.expr(body, l);
                let r = self.expr(body, r);
                let is_collection =
                    matches!(self.unifier.shallow(&l.ty), Type::Set(_) | Type::Mset(_))
                        || matches!(self.unifier.kind_of(&l.ty), Some(VarKind::Collection(_)));
                if is_collection {
                    self.expect(&r, &l.ty);
                    let ty = l.ty.clone();
                    bin(BinOp::Difference, l, r, ty)
                } else {
                    let (l, r, real) = self.real_operands(l, r);
                    if real {
                        return bin(BinOp::Sub, l, r, Type::Real);
                    }
                    self.numeric(&l, "-");
                    self.numeric(&r, "-");
                    bin(BinOp::Sub, l, r, Type::Int)
                }
            }
            B::Add | B::Mul | B::Div | B::Mod => {
                let l = self.expr(body, l);
                let r = self.expr(body, r);
                let (sym, op) = match op {
                    B::Add => ("+", BinOp::Add),
                    B::Mul => ("*", BinOp::Mul),
                    B::Div => ("div", BinOp::Div),
                    _ => ("mod", BinOp::Mod),
                };
                let (l, r, real) = self.real_operands(l, r);
                if real && matches!(op, BinOp::Add | BinOp::Mul) {
                    return bin(op, l, r, Type::Real);
                }
                self.numeric(&l, sym);
                self.numeric(&r, sym);
                bin(op, l, r, Type::Int)
            }
            B::Slash => {
                // `/` divides `Real`s: its integer literals are read as `Real`s (`1/3`).
                let l = as_real(self.expr(body, l));
                let r = as_real(self.expr(body, r));
                for x in [&l, &r] {
                    if !self.is_real(&x.ty)
                        && self
                            .unifier
                            .unify(&x.ty, &Type::Real, &self.spec.types)
                            .is_err()
                    {
                        let ty = self.show(&x.ty);
                        self.error(CheckError::BadOperand {
                            op: "/".into(),
                            ty,
                            needs: "`Real`s (integers divide with `div`)",
                            span: x.span,
                        });
                    }
                }
                bin(BinOp::Div, l, r, Type::Real)
            }
        }
    }

    /// Resolves a bare name.
    fn name(&mut self, body: &mut Body, id: &ast::Ident) -> Expr {
        let span = id.span;
        let name = id.name.as_str();
        if let Some(l) = body.local(name) {
            return mk(ExprKind::Var(VarRef::Local(l.slot)), l.ty.clone(), span);
        }
        if let Some(k) = body.aux.iter().position(|(n, _, _)| n == name) {
            let ty = body.aux[k].1.clone();
            return mk(ExprKind::Var(VarRef::Aux(k as u32)), ty, span);
        }
        if let Some((_, ty, (automaton, param))) =
            body.header_params.iter().find(|(n, _, _)| n == name)
        {
            let var = VarRef::QualifiedParam {
                automaton: *automaton,
                param: *param,
            };
            return mk(ExprKind::Var(var), ty.clone(), span);
        }
        if let Some(a) = body.automaton {
            if let Some(&slot) = self.state_names[a.0 as usize].get(name) {
                if !body.state_visible {
                    self.error(CheckError::StateInInitializer {
                        name: name.into(),
                        span,
                    });
                    return self.poisoned(span);
                }
                let ty = self.state_type(a, slot);
                return mk(ExprKind::Var(VarRef::State(slot)), ty, span);
            }
            let aut = &self.spec.automata[a.0 as usize];
            if let Some(k) = aut.params.iter().position(|p| p.name == name) {
                let ty = aut.params[k].ty.clone();
                return mk(ExprKind::Var(VarRef::Param(k as u32)), ty, span);
            }
        }
        if name == "empty" {
            // The manual's empty map; `Map[K, V]` from context.
            let k = self.unifier.fresh(VarKind::Any, span);
            let v = self.unifier.fresh(VarKind::Any, span);
            let ty = Type::Map(Box::new(k), Box::new(v));
            return mk(ExprKind::Call(Builtin::Empty, vec![]), ty, span);
        }
        if let Some(defs) = self.enum_consts.get(name) {
            if let [(ty, k, _)] = defs.as_slice() {
                return mk(ExprKind::EnumConst(*k), Type::Named(*ty), span);
            }
            // Overloaded: the type is one of the enumerations, settled by context (the index is
            // fixed in `finish` once the type is known).
            let candidates: Vec<(ir::TypeId, u32)> = defs.iter().map(|d| (d.0, d.1)).collect();
            let ty = self.unifier.fresh_enum(name, candidates, span);
            return mk(ExprKind::EnumConst(0), ty, span);
        }
        // A state variable of an automaton in a simulation, written without its qualifier.
        for &q in &body.qualified {
            if self.state_names[q.0 as usize].contains_key(name) {
                let automaton = self.spec.automata[q.0 as usize].name.clone();
                self.error(CheckError::Unqualified {
                    name: name.into(),
                    automaton,
                    span,
                });
                return self.poisoned(span);
            }
        }
        if self.automaton_names.contains_key(name) || self.is_component(body, name) {
            self.error(CheckError::QualifierNotAllowed {
                name: name.into(),
                span,
            });
            return self.poisoned(span);
        }
        let mut candidates: Vec<String> = body.locals.iter().map(|l| l.name.clone()).collect();
        candidates.extend(body.aux.iter().map(|a| a.0.clone()));
        candidates.extend(body.header_params.iter().map(|p| p.0.clone()));
        if let Some(a) = body.automaton {
            candidates.extend(self.state_names[a.0 as usize].keys().cloned());
            candidates.extend(
                self.spec.automata[a.0 as usize]
                    .params
                    .iter()
                    .map(|p| p.name.clone()),
            );
        }
        candidates.extend(self.enum_consts.keys().cloned());
        let suggestion = suggest(name, candidates.iter().map(|s| s.as_str()));
        self.error(CheckError::UndefinedName {
            name: name.into(),
            span,
            suggestion,
        });
        self.poisoned(span)
    }

    /// `RMState.committed`: a constant qualified by its enumeration (when the name is not also
    /// a variable in scope).
    fn qualified_constant(
        &mut self,
        body: &Body,
        base: &ast::Expr,
        f: &ast::Ident,
        span: Span,
    ) -> Option<Expr> {
        let A::Name(type_name) = &base.kind else {
            return None;
        };
        let name = type_name.name.as_str();
        let shadowed = body.local(name).is_some()
            || body.aux.iter().any(|(n, _, _)| n == name)
            || body.automaton.is_some_and(|a| {
                self.state_names[a.0 as usize].contains_key(name)
                    || self.spec.automata[a.0 as usize]
                        .params
                        .iter()
                        .any(|p| p.name == name)
            });
        if shadowed {
            return None;
        }
        let (super::TypeEntry::Named(id), _) = self.type_names.get(name)? else {
            return None;
        };
        let id = *id;
        let TypeDefKind::Enumeration(consts) = &self.spec.types[id.0 as usize].kind else {
            return None;
        };
        match consts.iter().position(|c| *c == f.name) {
            Some(k) => Some(mk(ExprKind::EnumConst(k as u32), Type::Named(id), span)),
            None => {
                let fields = consts.clone();
                self.error(CheckError::NoSuchField {
                    ty: type_name.name.clone(),
                    field: f.name.clone(),
                    span: f.span,
                    fields,
                });
                Some(self.poisoned(span))
            }
        }
    }

    fn is_component(&self, body: &Body, name: &str) -> bool {
        body.automaton
            .is_some_and(|a| self.component_names[a.0 as usize].contains_key(name))
    }

    pub(crate) fn state_type(&self, a: ir::AutomatonId, slot: u32) -> Type {
        match &self.spec.automata[a.0 as usize].body {
            ir::AutomatonBody::Primitive(p) => p.state[slot as usize].ty.clone(),
            ir::AutomatonBody::Composite(_) => Type::Bool,
        }
    }

    /// `A.x` in a simulation, or `C.x` / `C[i].x` for a component: `Some` if `x`'s base names an
    /// automaton or component rather than a value.
    fn qualified(
        &mut self,
        body: &mut Body,
        base: &ast::Expr,
        field: &ast::Ident,
        span: Span,
    ) -> Option<Expr> {
        if let Some(e) = self.qualified_component(body, base, field, span) {
            return Some(e);
        }
        let (name, indices) = match &base.kind {
            A::Name(n) => (n, &[][..]),
            A::Index(inner, idx) => match &inner.kind {
                A::Name(n) => (n, idx.as_slice()),
                _ => return None,
            },
            _ => return None,
        };
        if body.local(&name.name).is_some() || body.aux.iter().any(|a| a.0 == name.name) {
            return None;
        }
        if let Some(a) = body.automaton {
            if let Some(&c) = self.component_names[a.0 as usize].get(&name.name) {
                return Some(self.component_state(body, a, c, name, indices, field, span));
            }
        }
        let &aut = self.automaton_names.get(&name.name)?;
        if !indices.is_empty() {
            return None;
        }
        if !body.qualified.contains(&aut) {
            self.error(CheckError::QualifierNotAllowed {
                name: name.name.clone(),
                span: name.span,
            });
            return Some(self.poisoned(span));
        }
        Some(self.qualified_state(aut, field, span))
    }

    /// `A.C.x` or `A.C[i].x` in a simulation or proof block: the state variable `x` of
    /// component `C` (member `i` of a family) of the composite automaton `A`.
    pub(super) fn qualified_component(
        &mut self,
        body: &mut Body,
        base: &ast::Expr,
        field: &ast::Ident,
        span: Span,
    ) -> Option<Expr> {
        let (component_expr, indices) = match &base.kind {
            A::Field(..) => (base, &[][..]),
            A::Index(inner, idx) if matches!(inner.kind, A::Field(..)) => {
                (&**inner, idx.as_slice())
            }
            _ => return None,
        };
        let A::Field(qualifier, component) = &component_expr.kind else {
            return None;
        };
        let A::Name(name) = &qualifier.kind else {
            return None;
        };
        if body.local(&name.name).is_some() || body.aux.iter().any(|a| a.0 == name.name) {
            return None;
        }
        let &aut = self.automaton_names.get(&name.name)?;
        let &c = self.component_names[aut.0 as usize].get(&component.name)?;
        if !body.qualified.contains(&aut) {
            self.error(CheckError::QualifierNotAllowed {
                name: name.name.clone(),
                span: name.span,
            });
            return Some(self.poisoned(span));
        }
        Some(self.component_state(body, aut, c, component, indices, field, span))
    }

    fn qualified_state(&mut self, aut: ir::AutomatonId, field: &ast::Ident, span: Span) -> Expr {
        let params = &self.spec.automata[aut.0 as usize].params;
        if !self.state_names[aut.0 as usize].contains_key(&field.name) {
            if let Some(k) = params.iter().position(|p| p.name == field.name) {
                let ty = params[k].ty.clone();
                return mk(
                    ExprKind::Var(VarRef::QualifiedParam {
                        automaton: aut,
                        param: k as u32,
                    }),
                    ty,
                    span,
                );
            }
        }
        match self.state_names[aut.0 as usize].get(&field.name) {
            Some(&slot) => {
                let ty = self.state_type(aut, slot);
                mk(
                    ExprKind::Var(VarRef::Qualified {
                        automaton: aut,
                        slot,
                    }),
                    ty,
                    span,
                )
            }
            None => {
                let suggestion = suggest(
                    &field.name,
                    self.state_names[aut.0 as usize].keys().map(|s| s.as_str()),
                );
                self.error(CheckError::UndefinedName {
                    name: format!("{}.{}", self.spec.automata[aut.0 as usize].name, field.name),
                    span: field.span,
                    suggestion,
                });
                self.poisoned(span)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn component_state(
        &mut self,
        body: &mut Body,
        composite: ir::AutomatonId,
        c: u32,
        name: &ast::Ident,
        indices: &[ast::Expr],
        field: &ast::Ident,
        span: Span,
    ) -> Expr {
        let comp = match &self.spec.automata[composite.0 as usize].body {
            ir::AutomatonBody::Composite(comp) => comp.components[c as usize].clone(),
            ir::AutomatonBody::Primitive(_) => unreachable!("components belong to composites"),
        };
        if comp.indices.len() != indices.len() {
            self.error(CheckError::WrongArity {
                what: format!("component family `{}`", name.name),
                expected: comp.indices.len(),
                found: indices.len(),
                span: name.span,
            });
            return self.poisoned(span);
        }
        let index_exprs: Vec<Expr> = indices
            .iter()
            .zip(&comp.indices)
            .map(|(i, decl)| self.typed_expr(body, i, &decl.ty))
            .collect();
        match self.state_names[comp.automaton.0 as usize].get(&field.name) {
            Some(&slot) => {
                let ty = self.state_type(comp.automaton, slot);
                mk(
                    ExprKind::Var(VarRef::Component {
                        automaton: composite,
                        component: c,
                        indices: index_exprs,
                        slot,
                    }),
                    ty,
                    span,
                )
            }
            None => {
                let suggestion = suggest(
                    &field.name,
                    self.state_names[comp.automaton.0 as usize]
                        .keys()
                        .map(|s| s.as_str()),
                );
                self.error(CheckError::UndefinedName {
                    name: format!("{}.{}", name.name, field.name),
                    span: field.span,
                    suggestion,
                });
                self.poisoned(span)
            }
        }
    }

    fn field(&mut self, body: &mut Body, base: &ast::Expr, f: &ast::Ident, span: Span) -> Expr {
        if let Some(e) = self.qualified_constant(body, base, f, span) {
            return e;
        }
        if let Some(e) = self.qualified(body, base, f, span) {
            return e;
        }
        let base = self.expr(body, base);
        let ty = self.unifier.shallow(&base.ty);
        match &ty {
            Type::Null(inner) if f.name == "val" => {
                let inner = (**inner).clone();
                return mk(ExprKind::NullVal(Box::new(base)), inner, span);
            }
            Type::Named(id) => match &self.spec.types[id.0 as usize].kind {
                TypeDefKind::Tuple(fields) => {
                    if let Some(k) = fields.iter().position(|(n, _)| *n == f.name) {
                        let fty = fields[k].1.clone();
                        return mk(ExprKind::Field(Box::new(base), k as u32), fty, span);
                    }
                }
                TypeDefKind::Union(tags) => {
                    if let Some(k) = tags.iter().position(|(n, _)| *n == f.name) {
                        let fty = tags[k].1.clone();
                        return mk(ExprKind::UnionPayload(Box::new(base), k as u32), fty, span);
                    }
                }
                TypeDefKind::Enumeration(_) => {}
            },
            Type::Infer(_) => {
                if let Some(VarKind::Tuple(_)) = self.unifier.kind_of(&base.ty) {
                    self.error(CheckError::CannotInfer {
                        what: "tuple literal",
                        span: base.span,
                    });
                    return self.poisoned(span);
                }
                if matches!(self.unifier.kind_of(&base.ty), Some(VarKind::Any)) {
                    // Already reported where the base failed.
                    return self.poisoned(span);
                }
            }
            _ => {}
        }
        let fields = match &ty {
            Type::Named(id) => match &self.spec.types[id.0 as usize].kind {
                TypeDefKind::Tuple(fs) | TypeDefKind::Union(fs) => {
                    fs.iter().map(|(n, _)| n.clone()).collect()
                }
                TypeDefKind::Enumeration(_) => vec![],
            },
            Type::Null(_) => vec!["val".to_string()],
            _ => vec![],
        };
        let shown = self.show(&base.ty);
        self.error(CheckError::NoSuchField {
            ty: shown,
            field: f.name.clone(),
            span: f.span,
            fields,
        });
        self.poisoned(span)
    }

    fn index(&mut self, body: &mut Body, base: &ast::Expr, idx: &[ast::Expr], span: Span) -> Expr {
        let base = self.expr(body, base);
        let (key, value) = match self.unifier.shallow(&base.ty) {
            Type::Array(k, v) | Type::Map(k, v) => (*k, *v),
            Type::Seq(e) => (Type::Int, *e),
            Type::Infer(_) => match self.unifier.kind_of(&base.ty).cloned() {
                Some(VarKind::Indexable(k, v)) => (k, v),
                Some(VarKind::Any) => return self.poisoned(span),
                _ => {
                    let ty = self.show(&base.ty);
                    self.error(CheckError::NotIndexable {
                        ty,
                        span: base.span,
                    });
                    return self.poisoned(span);
                }
            },
            _ => {
                let ty = self.show(&base.ty);
                self.error(CheckError::NotIndexable {
                    ty,
                    span: base.span,
                });
                return self.poisoned(span);
            }
        };
        if idx.len() != 1 {
            self.error(CheckError::WrongArity {
                what: "an index".into(),
                expected: 1,
                found: idx.len(),
                span,
            });
            return self.poisoned(span);
        }
        let i = self.typed_expr(body, &idx[0], &key);
        mk(ExprKind::Index(Box::new(base), Box::new(i)), value, span)
    }

    fn union_tag_of(&mut self, x: &Expr, tag: &ast::Ident) -> Option<(u32, Type)> {
        if let Type::Named(id) = self.unifier.shallow(&x.ty) {
            if let TypeDefKind::Union(tags) = &self.spec.types[id.0 as usize].kind {
                if let Some(k) = tags.iter().position(|(n, _)| *n == tag.name) {
                    return Some((k as u32, tags[k].1.clone()));
                }
                let fields = tags.iter().map(|(n, _)| n.clone()).collect();
                let ty = self.show(&x.ty);
                self.error(CheckError::NoSuchField {
                    ty,
                    field: tag.name.clone(),
                    span: tag.span,
                    fields,
                });
                return None;
            }
        }
        let ty = self.show(&x.ty);
        self.error(CheckError::BadOperand {
            op: "is".into(),
            ty,
            needs: "a union value",
            span: x.span,
        });
        None
    }

    fn call(&mut self, body: &mut Body, f: &ast::Ident, args: &[ast::Expr], span: Span) -> Expr {
        let name = f.name.as_str();
        if let Some(&(ty, k, _)) = self.union_tags.get(name) {
            if args.len() != 1 {
                self.error(CheckError::WrongArity {
                    what: format!("union constructor `{name}`"),
                    expected: 1,
                    found: args.len(),
                    span,
                });
                return self.poisoned(span);
            }
            let payload = match &self.spec.types[ty.0 as usize].kind {
                TypeDefKind::Union(tags) => tags[k as usize].1.clone(),
                _ => unreachable!("union tags belong to unions"),
            };
            let a = self.typed_expr(body, &args[0], &payload);
            return mk(ExprKind::UnionNew(k, Box::new(a)), Type::Named(ty), span);
        }
        let arity = match name {
            "size" | "constant" | "embed" | "head" | "tail" | "abs" | "len" | "last" | "init" => 1,
            "insert" | "delete" | "div" | "mod" | "defined" | "count" => 2,
            "update" => 3,
            "min" | "max" => {
                if args.len() == 1 {
                    1
                } else {
                    2
                }
            }
            _ => {
                let suggestion = suggest(name, BUILTINS.iter().copied());
                self.error(CheckError::UnknownFunction {
                    name: name.into(),
                    span: f.span,
                    suggestion,
                });
                return self.poisoned(span);
            }
        };
        if args.len() != arity {
            self.error(CheckError::WrongArity {
                what: format!("`{name}`"),
                expected: arity,
                found: args.len(),
                span,
            });
            return self.poisoned(span);
        }
        let args: Vec<Expr> = args.iter().map(|a| self.expr(body, a)).collect();
        let call = |b: Builtin, args: Vec<Expr>, ty: Type| mk(ExprKind::Call(b, args), ty, span);
        match name {
            "insert" | "delete" => {
                let elem = self.collection_elem(&args[1], name, false);
                self.expect(&args[0], &elem);
                let ty = args[1].ty.clone();
                call(
                    if name == "insert" {
                        Builtin::Insert
                    } else {
                        Builtin::Delete
                    },
                    args,
                    ty,
                )
            }
            "size" => {
                self.collection_elem(&args[0], name, true);
                call(Builtin::Size, args, Type::Int)
            }
            "constant" => {
                let key = self.unifier.fresh(VarKind::Any, span);
                let ty = self
                    .unifier
                    .fresh(VarKind::Indexable(key, args[0].ty.clone()), span);
                call(Builtin::Constant, args, ty)
            }
            "embed" => {
                let ty = Type::Null(Box::new(args[0].ty.clone()));
                call(Builtin::Embed, args, ty)
            }
            "count" => {
                let elem = self.unifier.fresh(VarKind::Any, span);
                let want = Type::Mset(Box::new(elem.clone()));
                self.operand(&args[1], &want, name, "a multiset");
                self.expect(&args[0], &elem);
                call(Builtin::Count, args, Type::Int)
            }
            "head" | "tail" | "len" | "last" | "init" => {
                let elem = self.unifier.fresh(VarKind::Any, span);
                let seq = Type::Seq(Box::new(elem.clone()));
                self.operand(&args[0], &seq, name, "a sequence");
                match name {
                    "head" => call(Builtin::Head, args, elem),
                    "last" => call(Builtin::Last, args, elem),
                    "tail" => call(Builtin::Tail, args, seq),
                    "init" => call(Builtin::Init, args, seq),
                    _ => call(Builtin::Size, args, Type::Int),
                }
            }
            "min" | "max" if arity == 1 => {
                let elem = self.collection_elem(&args[0], name, false);
                if self
                    .unifier
                    .unify(&elem, &Type::Int, &self.spec.types)
                    .is_err()
                {
                    let ty = self.show(&args[0].ty);
                    self.error(CheckError::BadOperand {
                        op: name.into(),
                        ty,
                        needs: "a set of integers",
                        span: args[0].span,
                    });
                }
                call(
                    if name == "min" {
                        Builtin::SetMin
                    } else {
                        Builtin::SetMax
                    },
                    args,
                    Type::Int,
                )
            }
            "min" | "max" | "div" | "mod" => {
                self.numeric(&args[0], name);
                self.numeric(&args[1], name);
                let b = match name {
                    "min" => Builtin::Min,
                    "max" => Builtin::Max,
                    "div" => {
                        return mk(
                            ExprKind::Binary(
                                BinOp::Div,
                                Box::new(args[0].clone()),
                                Box::new(args[1].clone()),
                            ),
                            Type::Int,
                            span,
                        )
                    }
                    _ => {
                        return mk(
                            ExprKind::Binary(
                                BinOp::Mod,
                                Box::new(args[0].clone()),
                                Box::new(args[1].clone()),
                            ),
                            Type::Int,
                            span,
                        )
                    }
                };
                call(b, args, Type::Int)
            }
            "abs" => {
                self.numeric(&args[0], name);
                call(Builtin::Abs, args, Type::Int)
            }
            "defined" => {
                let value = self.unifier.fresh(VarKind::Any, span);
                let want = Type::Map(Box::new(args[1].ty.clone()), Box::new(value));
                self.operand(
                    &args[0],
                    &want,
                    name,
                    "a map whose keys have the second argument's type",
                );
                call(Builtin::Defined, args, Type::Bool)
            }
            _ => {
                // update(m, k, v)
                match self.unifier.shallow(&args[0].ty) {
                    Type::Array(k, v) | Type::Map(k, v) => {
                        self.expect(&args[1], &k);
                        self.expect(&args[2], &v);
                    }
                    _ => {
                        let ty = self.show(&args[0].ty);
                        self.error(CheckError::BadOperand {
                            op: name.into(),
                            ty,
                            needs: "an array or map",
                            span: args[0].span,
                        });
                    }
                }
                let ty = args[0].ty.clone();
                call(Builtin::Update, args, ty)
            }
        }
    }
}
