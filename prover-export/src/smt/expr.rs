//! Expressions to SMT-LIB2 terms. The [`Encoder`] owns the script being written and the sorts
//! it uses; an [`Env`] says which term each variable currently stands for (SSA: an assignment
//! gives a variable a new constant, see [`super::stmt`]).
//!
//! `size(S)` compared with a literal (`size(S) = 0`, `size(S) ≤ 1`) becomes an exact
//! cardinality formula over distinct elements; any other `size` of a set is an uninterpreted
//! function with axioms true of finite sets (non-negative, zero exactly for `{}`, insert adds
//! one, disjoint subsets of `S` add up to at most `size(S)`), which is what majority-quorum
//! reasoning needs.

use super::object_facts::{PendingFact, Polarity};
use super::sorts::{
    enum_constructor, field_accessor, is_boxed, mangle, relation, tuple_constructor,
    union_accessor, union_constructor, SortTable,
};
use super::{and, Script};
use crate::error::EncodeError;
use ioa_lang::ast::Quantifier;
use ioa_lang::ir::{
    AutomatonBody, AutomatonId, BinOp, Builtin, Expr, ExprKind, Spec, Type, TypeDefKind, UnOp,
    VarRef,
};
use std::collections::{BTreeMap, BTreeSet};

/// Writes terms, declarations and assertions for one obligation.
#[derive(Debug, Clone)]
pub struct Encoder<'s> {
    /// The model.
    pub spec: &'s Spec,
    /// Datatypes used so far.
    pub sorts: SortTable,
    /// The script.
    pub script: Script,
    /// Element types of sets whose `size` is an uninterpreted function.
    size_elems: BTreeSet<Type>,
    /// Variables bound by the quantifiers being encoded (a term mentioning one is not ground).
    pub bound: Vec<String>,
    /// The set value standing for each bound set object (see [`Encoder::unbox`]).
    unboxed: std::collections::HashMap<String, String>,
    /// The polarity of the expression being encoded (see [`super::object_facts`]).
    pub(super) polarity: Polarity,
    /// Whether an assumption or claim is being encoded (membership facts are collected).
    pub(super) tracking: bool,
    /// Membership facts of set objects built from bound variables, waiting for their binder.
    pub(super) pending_facts: Vec<PendingFact>,
}

/// What each variable stands for at one point of an obligation.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// The automaton whose state an unqualified state variable names.
    pub automaton: Option<AutomatonId>,
    /// Current term of each state slot, per automaton.
    pub states: BTreeMap<u32, Vec<String>>,
    /// Terms for each automaton's parameters.
    pub params: BTreeMap<u32, Vec<String>>,
    /// Auxiliary variables of a proof block.
    pub aux: Vec<String>,
    /// Their types.
    pub aux_types: Vec<Type>,
    /// Locals (action parameters, bound and loop variables).
    pub locals: Vec<Option<String>>,
}

impl Env {
    /// Binds local `k` to `term`.
    pub fn bind(&mut self, k: u32, term: String) {
        let k = k as usize;
        if self.locals.len() <= k {
            self.locals.resize(k + 1, None);
        }
        self.locals[k] = Some(term);
    }

    /// The state terms of automaton `a` (empty when not set up).
    pub fn state(&self, a: AutomatonId) -> &[String] {
        self.states.get(&a.0).map(|v| v.as_slice()).unwrap_or(&[])
    }
}

/// The state variables of a primitive automaton (empty for a composite).
pub fn state_vars(spec: &Spec, a: AutomatonId) -> &[ioa_lang::ir::VarDecl] {
    match &spec.automata[a.0 as usize].body {
        AutomatonBody::Primitive(p) => &p.state,
        AutomatonBody::Composite(_) => &[],
    }
}

fn unsupported(what: &'static str, e: &Expr) -> EncodeError {
    EncodeError::Unsupported { what, span: e.span }
}

impl<'s> Encoder<'s> {
    /// A fresh encoder for one obligation.
    pub fn new(spec: &'s Spec) -> Self {
        Encoder {
            spec,
            sorts: SortTable::default(),
            script: Script::default(),
            size_elems: BTreeSet::new(),
            bound: Vec::new(),
            unboxed: std::collections::HashMap::new(),
            polarity: Polarity::Mixed,
            tracking: false,
            pending_facts: Vec::new(),
        }
    }

    /// The sort of `ty` where it is an element, key or bound variable (boxed if compound).
    pub fn elem_sort(&mut self, ty: &Type) -> String {
        self.sorts.elem_sort(self.spec, ty)
    }

    /// The tuple of type `id` with these fields. When the fields are ground, the facts that
    /// its fields are these are asserted (the constructor is otherwise uninterpreted).
    pub fn tuple(&mut self, id: ioa_lang::ir::TypeId, fields: Vec<String>) -> String {
        let spec = self.spec;
        let TypeDefKind::Tuple(decls) = &spec.types[id.0 as usize].kind else {
            return "?".into();
        };
        self.sorts.use_fields(id);
        let ctor = tuple_constructor(spec, id);
        let term = if fields.is_empty() {
            ctor
        } else {
            format!("({ctor} {})", fields.join(" "))
        };
        if !self.bound.iter().any(|b| term.contains(b.as_str())) {
            for ((f, _), x) in decls.iter().zip(&fields) {
                let acc = field_accessor(spec, id, f);
                self.script.assert(&format!("(= ({acc} {term}) {x})"));
            }
        } else {
            self.sorts.use_constructor_under_binder(id);
        }
        term
    }

    /// The value of a bound object of boxed type `ty`, or the variable itself.
    pub fn unbox(&mut self, ty: &Type, var: &str) -> String {
        if let Type::Set(t) = ty {
            self.elem_sort(ty);
            let e = self.elem_sort(t);
            let z = self.script.fresh("z");
            let term = format!(
                "(lambda (({z} {e})) ({}.has {var} {z}))",
                mangle(self.spec, ty)
            );
            self.unboxed.insert(term.clone(), var.to_string());
            term
        } else if is_boxed(ty) {
            self.elem_sort(ty);
            format!("({}.of {var})", mangle(self.spec, ty))
        } else {
            var.to_string()
        }
    }

    /// `term` (a value of `ty`) as an element or key: its object when `ty` is boxed. A ground
    /// term's object gets the fact that it stands for the term.
    pub fn boxed(&mut self, ty: &Type, term: String) -> String {
        if !is_boxed(ty) {
            return term;
        }
        self.elem_sort(ty);
        let m = mangle(self.spec, ty);
        if let Some(obj) = self.unboxed.get(&term) {
            return obj.clone();
        }
        if let Type::Set(t) = ty {
            let obj = format!("({m}.obj {term})");
            let e = self.elem_sort(t);
            if !self.bound.iter().any(|b| term.contains(b.as_str())) {
                let z = self.script.fresh("z");
                self.script.assert(&format!(
                    "(forall (({z} {e})) (= ({m}.has {obj} {z}) (select {term} {z})))"
                ));
            } else {
                self.note_object_fact(&format!("{m}.has"), &obj, &term, &e);
            }
            return obj;
        }
        let of = format!("({m}.of ");
        if let Some(inner) = term.strip_prefix(&of).and_then(|t| t.strip_suffix(')')) {
            if !inner.contains(' ') && !inner.contains('(') {
                return inner.to_string();
            }
        }
        let obj = format!("({m}.obj {term})");
        if !self.bound.iter().any(|b| term.contains(b.as_str())) {
            self.script.assert(&format!("(= ({m}.of {obj}) {term})"));
        }
        obj
    }

    /// `sub`, a sequence that drops one element of `of` (`tail`: `shift` 1; `init`: 0), as a
    /// fresh constant with its positions related to those of `of`: `sub[k] = of[k + shift]`.
    /// Z3 (4.8) rarely closes a quantified proof about `seq.extract` positions (LCR's queue
    /// invariants ran out of 50 M units at the steps that pop a buffer); with the constant
    /// and this fact they close in a few thousand units, and the constant stays defined by the
    /// extraction, so models (counterexamples) are found as quickly as before. The fact has
    /// no pattern: Z3 rewrites `seq.nth` before matching, so a pattern naming it never fires.
    /// Inside a quantifier, where `of` is not ground, the extraction is left as it is.
    fn positions_named(&mut self, ty: &Type, sub: String, of: &str, shift: i64) -> String {
        if self.bound.iter().any(|b| of.contains(b.as_str())) {
            return sub;
        }
        let sort = self.sort(ty);
        let name = self.script.define("seq", &sort, &sub);
        let k = self.script.fresh("k");
        self.script.assert(&format!(
            "(forall (({k} Int)) (=> (and (<= 0 {k}) (< {k} (- (seq.len {of}) 1))) \
             (= (seq.nth {name} {k}) (seq.nth {of} (+ {k} {shift})))))"
        ));
        name
    }

    /// The SMT sort of a type.
    pub fn sort(&mut self, ty: &Type) -> String {
        self.sorts.sort(self.spec, ty)
    }

    /// The whole script: datatypes, `size` functions and axioms, then the body.
    pub fn finish(&self) -> String {
        let mut sorts = self.sorts.clone();
        let mut out = String::new();
        let mut size_decls = String::new();
        for elem in &self.size_elems {
            let set = sorts.sort(self.spec, &Type::Set(Box::new(elem.clone())));
            let f = size_fn(self.spec, elem);
            let e = sorts.sort(self.spec, elem);
            size_decls.push_str(&format!(
                "(declare-fun {f} ({set}) Int)\n\
                 (assert (forall ((s {set})) (! (>= ({f} s) 0) :pattern (({f} s)))))\n\
                 (assert (forall ((s {set})) (! (= (= ({f} s) 0) (= s ((as const {set}) false))) :pattern (({f} s)))))\n\
                 (assert (forall ((s {set}) (x {e})) (! (= ({f} (store s x true)) (+ ({f} s) (ite (select s x) 0 1))) :pattern (({f} (store s x true))))))\n\
                 (assert (forall ((a {set}) (b {set}) (s {set})) (! (=> (and (subset a s) (subset b s) (= (intersection a b) ((as const {set}) false))) (<= (+ ({f} a) ({f} b)) ({f} s))) :pattern (({f} a) ({f} b) ({f} s)))))\n"
            ));
        }
        out.push_str(&sorts.declarations(self.spec));
        out.push_str(&size_decls);
        out.push_str(&self.script.text());
        out
    }

    /// The term for `e` in `env`.
    pub fn expr(&mut self, e: &Expr, env: &Env) -> Result<String, EncodeError> {
        // Connectives and quantifiers pass their polarity down (`¬` and the left of `⇒` flip
        // it); any other expression's parts are of mixed polarity.
        let outer = self.polarity;
        if !matches!(
            e.kind,
            ExprKind::Unary(UnOp::Not, _)
                | ExprKind::Binary(BinOp::And | BinOp::Or | BinOp::Implies, ..)
                | ExprKind::Quant(..)
        ) {
            self.polarity = Polarity::Mixed;
        }
        let t = self.term(e, env);
        self.polarity = outer;
        t
    }

    fn term(&mut self, e: &Expr, env: &Env) -> Result<String, EncodeError> {
        let spec = self.spec;
        Ok(match &e.kind {
            ExprKind::Var(r) => self.var(r, env, e)?,
            // An integer literal read as a `Real` (a numeral of the Real sort).
            ExprKind::Int(i) if e.ty == Type::Real => real(*i),
            ExprKind::Int(i) => int(*i),
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::Str(s) => format!("\"{}\"", s.replace('"', "\"\"")),
            ExprKind::Nil => match &e.ty {
                Type::Null(t) => {
                    self.sort(&e.ty);
                    format!("nil_{}", mangle(spec, t))
                }
                _ => return Err(unsupported("`nil` outside a Null type", e)),
            },
            ExprKind::EnumConst(k) => match &e.ty {
                Type::Named(id) => match &spec.types[id.0 as usize].kind {
                    TypeDefKind::Enumeration(names) => {
                        self.sort(&e.ty);
                        enum_constructor(spec, *id, &names[*k as usize])
                    }
                    _ => return Err(unsupported("this constant", e)),
                },
                _ => return Err(unsupported("this constant", e)),
            },
            ExprKind::Tuple(items) => {
                let Type::Named(id) = &e.ty else {
                    return Err(unsupported("an untyped tuple", e));
                };
                self.sort(&e.ty);
                let mut parts = Vec::new();
                for i in items {
                    parts.push(self.expr(i, env)?);
                }
                self.tuple(*id, parts)
            }
            ExprKind::Collection(items) => {
                let sort = self.sort(&e.ty);
                match &e.ty {
                    Type::Set(et) => {
                        let mut t = format!("((as const {sort}) false)");
                        for i in items {
                            let x = self.expr(i, env)?;
                            let x = self.boxed(et, x);
                            t = format!("(store {t} {x} true)");
                        }
                        t
                    }
                    Type::Mset(et) => {
                        let mut t = format!("((as const {sort}) 0)");
                        for i in items {
                            let x = self.expr(i, env)?;
                            let x = self.boxed(et, x);
                            t = format!("(store {t} {x} (+ (select {t} {x}) 1))");
                        }
                        t
                    }
                    Type::Seq(_) => {
                        let mut parts = Vec::new();
                        for i in items {
                            parts.push(format!("(seq.unit {})", self.expr(i, env)?));
                        }
                        match parts.len() {
                            0 => format!("(as seq.empty {sort})"),
                            1 => parts.remove(0),
                            _ => format!("(seq.++ {})", parts.join(" ")),
                        }
                    }
                    _ => return Err(unsupported("a collection literal of this type", e)),
                }
            }
            ExprKind::Unary(op, x) => {
                if *op == UnOp::Not {
                    self.polarity = self.polarity.flipped();
                }
                let t = self.expr(x, env)?;
                match op {
                    UnOp::Not => format!("(not {t})"),
                    UnOp::Neg => format!("(- {t})"),
                }
            }
            ExprKind::Binary(op, l, r) => self.binary(*op, l, r, env, e)?,
            ExprKind::Field(x, k) => {
                let Type::Named(id) = &x.ty else {
                    return Err(unsupported("a field of a non-tuple", e));
                };
                let TypeDefKind::Tuple(fields) = &spec.types[id.0 as usize].kind else {
                    return Err(unsupported("a field of a non-tuple", e));
                };
                let t = self.expr(x, env)?;
                self.sorts.use_fields(*id);
                format!(
                    "({} {t})",
                    field_accessor(spec, *id, &fields[*k as usize].0)
                )
            }
            ExprKind::NullVal(x) => {
                let Type::Null(inner) = &x.ty else {
                    return Err(unsupported("`.val` of a non-Null", e));
                };
                let t = self.expr(x, env)?;
                format!("(val_{} {t})", mangle(spec, inner))
            }
            ExprKind::UnionPayload(x, k) | ExprKind::Is(x, k) => {
                let Type::Named(id) = &x.ty else {
                    return Err(unsupported("a tag of a non-union", e));
                };
                let TypeDefKind::Union(tags) = &spec.types[id.0 as usize].kind else {
                    return Err(unsupported("a tag of a non-union", e));
                };
                let tag = &tags[*k as usize].0;
                let t = self.expr(x, env)?;
                if matches!(e.kind, ExprKind::Is(..)) {
                    format!("((_ is {}) {t})", union_constructor(spec, *id, tag))
                } else {
                    format!("({} {t})", union_accessor(spec, *id, tag))
                }
            }
            ExprKind::UnionNew(k, x) => {
                let Type::Named(id) = &e.ty else {
                    return Err(unsupported("a union value of a non-union type", e));
                };
                let TypeDefKind::Union(tags) = &spec.types[id.0 as usize].kind else {
                    return Err(unsupported("a union value of a non-union type", e));
                };
                self.sort(&e.ty);
                let t = self.expr(x, env)?;
                format!(
                    "({} {t})",
                    union_constructor(spec, *id, &tags[*k as usize].0)
                )
            }
            ExprKind::Index(a, i) => {
                let at = self.expr(a, env)?;
                let it = self.expr(i, env)?;
                let it = match &a.ty {
                    Type::Array(k, _) | Type::Map(k, _) => self.boxed(k, it),
                    _ => it,
                };
                if let Some((_, t)) = relation(&a.ty) {
                    let sort = self.elem_sort(t);
                    let y = self.script.fresh("y");
                    return Ok(format!("(lambda (({y} {sort})) (select {at} {it} {y}))"));
                }
                match &a.ty {
                    Type::Array(..) => format!("(select {at} {it})"),
                    Type::Map(_, v) => {
                        self.sort(&a.ty);
                        format!("(val_{} (select {at} {it}))", mangle(spec, v))
                    }
                    Type::Seq(_) => format!("(seq.nth {at} {it})"),
                    _ => return Err(unsupported("indexing this type", e)),
                }
            }
            ExprKind::Call(b, args) => self.call(*b, args, env, e)?,
            ExprKind::Quant(q, vars, body) => {
                let mut inner = env.clone();
                let mut binders = Vec::new();
                let depth = self.bound.len();
                for (k, ty) in vars {
                    let name = self.script.fresh("x");
                    let sort = self.elem_sort(ty);
                    binders.push(format!("({name} {sort})"));
                    let value = self.unbox(ty, &name);
                    inner.bind(*k, value);
                    self.bound.push(name);
                }
                let b = self.expr(body, &inner);
                let names = self.bound.split_off(depth);
                let b = self.attach_facts(&names, &self.bound.clone(), b?);
                let q = match q {
                    Quantifier::ForAll => "forall",
                    Quantifier::Exists => "exists",
                };
                format!("({q} ({}) {b})", binders.join(" "))
            }
            ExprKind::SetComp { var, elem, cond } => {
                // `{x: T | P}` is the array that holds exactly the elements satisfying `P`.
                self.sort(&e.ty);
                let sort = self.elem_sort(elem);
                let y = self.script.fresh("y");
                let depth = self.bound.len();
                self.bound.push(y.clone());
                let body = self.comprehension_member(*var, elem, cond, &y, env);
                self.bound.truncate(depth);
                format!("(lambda (({y} {sort})) {})", body?)
            }
            ExprKind::Cond(c, a, b) => format!(
                "(ite {} {} {})",
                self.expr(c, env)?,
                self.expr(a, env)?,
                self.expr(b, env)?
            ),
            ExprKind::Choose { var, cond, .. } => {
                // A `choose` is a fresh constant that satisfies its condition; the step exists
                // only when some value does, as when the interpreter runs it.
                let sort = self.sort(&e.ty);
                let c = self.script.fresh_const("choose", &sort);
                if let Some(cond) = cond {
                    let mut inner = env.clone();
                    inner.bind(*var, c.clone());
                    let t = self.expr(cond, &inner)?;
                    self.script.assert(&t);
                }
                c
            }
        })
    }

    /// The condition of a comprehension `{var: elem | cond}` for the element `element` (a term of
    /// the element sort, boxed if `elem` is), which may be a variable the caller binds (and has
    /// pushed on `bound`).
    fn comprehension_member(
        &mut self,
        var: u32,
        elem: &Type,
        cond: &Expr,
        element: &str,
        env: &Env,
    ) -> Result<String, EncodeError> {
        let mut inner = env.clone();
        let value = self.unbox(elem, element);
        inner.bind(var, value);
        self.expr(cond, &inner)
    }

    fn var(&mut self, r: &VarRef, env: &Env, e: &Expr) -> Result<String, EncodeError> {
        let missing = || unsupported("a variable outside the obligation's scope", e);
        Ok(match r {
            VarRef::State(k) => {
                let a = env.automaton.ok_or_else(missing)?;
                env.state(a).get(*k as usize).cloned().ok_or_else(missing)?
            }
            VarRef::Qualified { automaton, slot } => env
                .state(*automaton)
                .get(*slot as usize)
                .cloned()
                .ok_or_else(missing)?,
            VarRef::Param(k) => {
                let a = env.automaton.ok_or_else(missing)?;
                env.params
                    .get(&a.0)
                    .and_then(|p| p.get(*k as usize))
                    .cloned()
                    .ok_or_else(missing)?
            }
            VarRef::Local(k) => env
                .locals
                .get(*k as usize)
                .cloned()
                .flatten()
                .ok_or_else(missing)?,
            VarRef::Aux(k) => env.aux.get(*k as usize).cloned().ok_or_else(missing)?,
            VarRef::QualifiedParam { automaton, param } => env
                .params
                .get(&automaton.0)
                .and_then(|p| p.get(*param as usize))
                .cloned()
                .ok_or_else(missing)?,
            VarRef::Component { .. } => {
                return Err(unsupported("state of a composite's component", e))
            }
        })
    }

    fn binary(
        &mut self,
        op: BinOp,
        l: &Expr,
        r: &Expr,
        env: &Env,
        e: &Expr,
    ) -> Result<String, EncodeError> {
        if let Some(t) = self.size_literal(op, l, r, env)? {
            return Ok(t);
        }
        if let Some(t) = self.set_comparison(op, l, r, env)? {
            return Ok(t);
        }
        let outer = self.polarity;
        if op == BinOp::Implies {
            self.polarity = outer.flipped();
        }
        let a = self.expr(l, env);
        self.polarity = outer;
        let a = a?;
        let b = self.expr(r, env)?;
        let set = matches!(l.ty, Type::Set(_));
        let mset = matches!(l.ty, Type::Mset(_));
        Ok(match op {
            BinOp::Iff => format!("(= {a} {b})"),
            BinOp::Implies => format!("(=> {a} {b})"),
            BinOp::Or => format!("(or {a} {b})"),
            BinOp::And => format!("(and {a} {b})"),
            BinOp::Eq => format!("(= {a} {b})"),
            BinOp::Neq => format!("(not (= {a} {b}))"),
            BinOp::Lt => format!("(< {a} {b})"),
            BinOp::Le => format!("(<= {a} {b})"),
            BinOp::Gt => format!("(> {a} {b})"),
            BinOp::Ge => format!("(>= {a} {b})"),
            BinOp::Add => format!("(+ {a} {b})"),
            BinOp::Sub if set => format!("(setminus {a} {b})"),
            BinOp::Sub => format!("(- {a} {b})"),
            BinOp::Mul => format!("(* {a} {b})"),
            BinOp::Div if e.ty == Type::Real => format!("(/ {a} {b})"),
            BinOp::Div => format!("(div {a} {b})"),
            BinOp::Mod => format!("(mod {a} {b})"),
            BinOp::In | BinOp::NotIn => {
                let a = match &r.ty {
                    Type::Set(t) | Type::Mset(t) => self.boxed(t, a),
                    _ => a,
                };
                let t = match &r.ty {
                    Type::Set(_) => self.member(r, &a, env)?,
                    Type::Mset(_) => format!("(> (select {b} {a}) 0)"),
                    Type::Seq(_) => format!("(seq.contains {b} (seq.unit {a}))"),
                    _ => return Err(unsupported("membership in this type", e)),
                };
                if op == BinOp::In {
                    t
                } else {
                    format!("(not {t})")
                }
            }
            BinOp::SubsetEq if set => format!("(subset {a} {b})"),
            BinOp::Subset if set => format!("(and (subset {a} {b}) (not (= {a} {b})))"),
            BinOp::Union if set => format!("(union {a} {b})"),
            BinOp::Intersect if set => format!("(intersection {a} {b})"),
            BinOp::Difference if set => format!("(setminus {a} {b})"),
            BinOp::SubsetEq if mset => {
                let sort = self.element_sort(&l.ty);
                let x = self.script.fresh("x");
                format!("(forall (({x} {sort})) (<= (select {a} {x}) (select {b} {x})))")
            }
            BinOp::Append => format!("(seq.++ {a} (seq.unit {b}))"),
            BinOp::Concat => format!("(seq.++ {a} {b})"),
            BinOp::Prepend => format!("(seq.++ (seq.unit {a}) {b})"),
            _ => return Err(unsupported("this operator on this type", e)),
        })
    }

    /// `x ∈ set` (x already an element term), pushed through unions, intersections,
    /// differences, inserts and literals so that quantifier instantiation sees plain
    /// memberships rather than array equalities.
    pub fn member(&mut self, set: &Expr, x: &str, env: &Env) -> Result<String, EncodeError> {
        let elem_ty = match &set.ty {
            Type::Set(t) => (**t).clone(),
            _ => return Err(unsupported("membership in this type", set)),
        };
        Ok(match &set.kind {
            ExprKind::Binary(BinOp::Union, a, b) => {
                format!(
                    "(or {} {})",
                    self.member(a, x, env)?,
                    self.member(b, x, env)?
                )
            }
            ExprKind::Binary(BinOp::Intersect, a, b) => {
                format!(
                    "(and {} {})",
                    self.member(a, x, env)?,
                    self.member(b, x, env)?
                )
            }
            ExprKind::Binary(BinOp::Difference | BinOp::Sub, a, b) => format!(
                "(and {} (not {}))",
                self.member(a, x, env)?,
                self.member(b, x, env)?
            ),
            ExprKind::Call(Builtin::Insert, args) if args.len() == 2 => {
                let e = self.expr(&args[0], env)?;
                let e = self.boxed(&elem_ty, e);
                format!("(or (= {x} {e}) {})", self.member(&args[1], x, env)?)
            }
            ExprKind::Call(Builtin::Delete, args) if args.len() == 2 => {
                let e = self.expr(&args[0], env)?;
                let e = self.boxed(&elem_ty, e);
                format!("(and (not (= {x} {e})) {})", self.member(&args[1], x, env)?)
            }
            ExprKind::Collection(items) => {
                let mut eqs = Vec::new();
                for i in items {
                    let e = self.expr(i, env)?;
                    let e = self.boxed(&elem_ty, e);
                    eqs.push(format!("(= {x} {e})"));
                }
                super::or(&eqs)
            }
            ExprKind::SetComp { var, elem, cond } => {
                // `x ∈ {y: T | P}` is `P` of `x`, with no array in between.
                self.comprehension_member(*var, elem, cond, x, env)?
            }
            ExprKind::Index(a, i) if relation(&a.ty).is_some() => {
                let at = self.expr(a, env)?;
                let it = self.expr(i, env)?;
                let key = relation(&a.ty)
                    .map(|(k, _)| k.clone())
                    .unwrap_or(Type::Bool);
                let it = self.boxed(&key, it);
                format!("(select {at} {it} {x})")
            }
            _ => {
                let s = self.expr(set, env)?;
                format!("(select {s} {x})")
            }
        })
    }

    /// `S ≠ {}` on sets as an existential membership (Z3 finds the quorum-intersection
    /// witnesses far faster this way than through array extensionality).
    fn set_comparison(
        &mut self,
        op: BinOp,
        l: &Expr,
        r: &Expr,
        env: &Env,
    ) -> Result<Option<String>, EncodeError> {
        let Type::Set(elem) = &l.ty else {
            return Ok(None);
        };
        let is_empty =
            |e: &Expr| matches!(&e.kind, ExprKind::Collection(items) if items.is_empty());
        let sort = self.elem_sort(elem);
        let x = self.script.fresh("m");
        self.bound.push(x.clone());
        let result = (|| -> Result<Option<String>, EncodeError> {
            Ok(match op {
                BinOp::Neq if is_empty(l) || is_empty(r) => {
                    let s = if is_empty(l) { r } else { l };
                    let m = self.member(s, &x, env)?;
                    Some(format!("(exists (({x} {sort})) {m})"))
                }
                _ => None,
            })
        })();
        self.bound.pop();
        result
    }

    fn element_sort(&mut self, collection: &Type) -> String {
        match collection {
            Type::Set(t) | Type::Mset(t) => self.elem_sort(t),
            Type::Seq(t) => self.sort(t),
            _ => "Int".into(),
        }
    }

    /// `c * size(S) ⋈ k` for a set `S`, a positive literal `c` (1 when absent) and a literal
    /// `k` (or a parameter whose term is a numeral, such as a component's `n = 3`, or the size
    /// of a set whose term is a literal, such as `defineQuorums({[0], [1], [2]})`'s), as an exact
    /// cardinality formula: the comparison is first divided by `c` (`2 * size(q) > 3` is
    /// `size(q) ≥ 2`), so a majority of three becomes "two distinct members", which Z3 reasons
    /// about by cases where the uninterpreted `size` would need a witness it cannot build.
    fn size_literal(
        &mut self,
        op: BinOp,
        l: &Expr,
        r: &Expr,
        env: &Env,
    ) -> Result<Option<String>, EncodeError> {
        let Some((set, k, op)) = self.size_comparison(op, l, r, env)? else {
            return Ok(None);
        };
        let s = self.expr(&set, env)?;
        let elem = self.element_sort(&set.ty);
        let mut at_least = |n: i64| -> String {
            if n <= 0 {
                return "true".into();
            }
            let names: Vec<String> = (0..n).map(|_| self.script.fresh("e")).collect();
            let binders: Vec<String> = names.iter().map(|x| format!("({x} {elem})")).collect();
            let mut parts: Vec<String> = Vec::new();
            for x in &names {
                parts.push(
                    self.member(&set, x, env)
                        .unwrap_or_else(|_| format!("(select {s} {x})")),
                );
            }
            if n > 1 {
                parts.push(format!("(distinct {})", names.join(" ")));
            }
            format!("(exists ({}) {})", binders.join(" "), and(&parts))
        };
        let t = match op {
            BinOp::Eq => format!("(and {} (not {}))", at_least(k), at_least(k + 1)),
            BinOp::Neq => format!("(not (and {} (not {})))", at_least(k), at_least(k + 1)),
            BinOp::Le => format!("(not {})", at_least(k + 1)),
            BinOp::Lt => format!("(not {})", at_least(k)),
            BinOp::Ge => at_least(k),
            BinOp::Gt => at_least(k + 1),
            _ => return Ok(None),
        };
        Ok(Some(t))
    }

    /// `(S, k, op)` when `l op r` is `c * size(S) ⋈ k` (either side), normalised to
    /// `size(S) op k` with `0 ≤ k ≤ 4`; `Eq`/`Neq` with `c` not dividing `k` become `k = -1`
    /// (no set has that size) so the formula reads as false/true.
    fn size_comparison(
        &mut self,
        op: BinOp,
        l: &Expr,
        r: &Expr,
        env: &Env,
    ) -> Result<Option<(Expr, i64, BinOp)>, EncodeError> {
        fn scaled_size(x: &Expr) -> Option<(Expr, i64)> {
            let size_of = |y: &Expr| match &y.kind {
                ExprKind::Call(Builtin::Size, args)
                    if args.len() == 1 && matches!(args[0].ty, Type::Set(_)) =>
                {
                    Some(args[0].clone())
                }
                _ => None,
            };
            if let Some(s) = size_of(x) {
                return Some((s, 1));
            }
            match &x.kind {
                ExprKind::Binary(BinOp::Mul, a, b) => match (&a.kind, &b.kind) {
                    (ExprKind::Int(c), _) if *c > 0 => size_of(b).map(|s| (s, *c)),
                    (_, ExprKind::Int(c)) if *c > 0 => size_of(a).map(|s| (s, *c)),
                    _ => None,
                },
                _ => None,
            }
        }
        // Of two sizes, the one of a literal set is the bound.
        let literal = |this: &mut Self, x: &Expr| -> Result<bool, EncodeError> {
            Ok(match &x.kind {
                ExprKind::Call(Builtin::Size, args) if args.len() == 1 => {
                    literal_set_size(&this.expr(&args[0], env)?).is_some()
                }
                _ => false,
            })
        };
        let (left, right) = match (scaled_size(l), scaled_size(r)) {
            (Some(a), Some(_)) if literal(self, r)? => (Some(a), None),
            (Some(_), Some(b)) if literal(self, l)? => (None, Some(b)),
            pair => pair,
        };
        let (scaled, bound, op) = match (left, right) {
            (Some(s), None) => (s, r, op),
            (None, Some(s)) => {
                let flipped = match op {
                    BinOp::Lt => BinOp::Gt,
                    BinOp::Le => BinOp::Ge,
                    BinOp::Gt => BinOp::Lt,
                    BinOp::Ge => BinOp::Le,
                    other => other,
                };
                (s, l, flipped)
            }
            _ => return Ok(None),
        };
        if !matches!(
            op,
            BinOp::Eq | BinOp::Neq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        ) {
            return Ok(None);
        }
        let k = match &bound.kind {
            ExprKind::Int(i) => *i,
            ExprKind::Var(_) => match self.expr(bound, env)?.parse::<i64>() {
                Ok(i) => i,
                Err(_) => return Ok(None),
            },
            ExprKind::Call(Builtin::Size, args) if args.len() == 1 => {
                let term = self.expr(&args[0], env)?;
                match literal_set_size(&term) {
                    Some(n) => n,
                    None => return Ok(None),
                }
            }
            _ => return Ok(None),
        };
        let ((set, c), op) = (scaled, op);
        // Divide `c * s ⋈ k` by `c` over the integers.
        let (k, op) = match op {
            BinOp::Gt => (k.div_euclid(c), BinOp::Gt),
            BinOp::Le => (k.div_euclid(c), BinOp::Le),
            BinOp::Ge => ((k + c - 1).div_euclid(c), BinOp::Ge),
            BinOp::Lt => ((k + c - 1).div_euclid(c), BinOp::Lt),
            BinOp::Eq | BinOp::Neq if k.rem_euclid(c) != 0 => (-1, op),
            other => (k / c, other),
        };
        // A negative bound: `size(S) > -1` and the like; leave those to the general encoding
        // unless it is the `Eq`/`Neq` case above, which is exact.
        if k == -1 && matches!(op, BinOp::Eq | BinOp::Neq) {
            return Ok(Some((set, k, op)));
        }
        if !(0..=4).contains(&k) {
            return Ok(None);
        }
        Ok(Some((set, k, op)))
    }

    fn call(
        &mut self,
        b: Builtin,
        args: &[Expr],
        env: &Env,
        e: &Expr,
    ) -> Result<String, EncodeError> {
        let spec = self.spec;
        let mut ts = Vec::new();
        for a in args {
            ts.push(self.expr(a, env)?);
        }
        let arg_ty = |k: usize| args.get(k).map(|a| &a.ty);
        // Elements and keys are objects when their type is boxed.
        match (b, arg_ty(0), arg_ty(1)) {
            (
                Builtin::Insert | Builtin::Delete | Builtin::Count,
                _,
                Some(Type::Set(t) | Type::Mset(t)),
            ) => {
                ts[0] = self.boxed(t, ts[0].clone());
            }
            (Builtin::Defined | Builtin::Update, Some(Type::Map(k, _) | Type::Array(k, _)), _) => {
                ts[1] = self.boxed(k, ts[1].clone());
            }
            _ => {}
        }
        Ok(match b {
            Builtin::Insert => match arg_ty(1) {
                Some(Type::Set(_)) => format!("(store {} {} true)", ts[1], ts[0]),
                Some(Type::Mset(_)) => format!(
                    "(store {s} {x} (+ (select {s} {x}) 1))",
                    s = ts[1],
                    x = ts[0]
                ),
                _ => return Err(unsupported("`insert` into this type", e)),
            },
            Builtin::Delete => match arg_ty(1) {
                Some(Type::Set(_)) => format!("(store {} {} false)", ts[1], ts[0]),
                Some(Type::Mset(_)) => format!(
                    "(store {s} {x} (ite (> (select {s} {x}) 0) (- (select {s} {x}) 1) 0))",
                    s = ts[1],
                    x = ts[0]
                ),
                _ => return Err(unsupported("`delete` from this type", e)),
            },
            Builtin::Size => match arg_ty(0) {
                Some(Type::Set(t)) => {
                    self.sort(&Type::Set(t.clone()));
                    self.size_elems.insert((**t).clone());
                    format!("({} {})", size_fn(spec, t), ts[0])
                }
                Some(Type::Seq(_)) => format!("(seq.len {})", ts[0]),
                _ => return Err(unsupported("`size` of this type", e)),
            },
            Builtin::Constant => {
                let sort = self.sort(&e.ty);
                if let Some((k, t)) = relation(&e.ty) {
                    if matches!(&args[0].kind, ExprKind::Collection(items) if items.is_empty()) {
                        return Ok(format!("((as const {sort}) false)"));
                    }
                    let (ks, ts_) = (self.elem_sort(k), self.elem_sort(t));
                    let (kv, y) = (self.script.fresh("k"), self.script.fresh("y"));
                    self.bound.push(y.clone());
                    let m = self.member(&args[0], &y, env);
                    self.bound.pop();
                    return Ok(format!("(lambda (({kv} {ks}) ({y} {ts_})) {})", m?));
                }
                match &e.ty {
                    Type::Array(..) => format!("((as const {sort}) {})", ts[0]),
                    Type::Map(_, v) => {
                        format!("((as const {sort}) (embed_{} {}))", mangle(spec, v), ts[0])
                    }
                    _ => return Err(unsupported("`constant` of this type", e)),
                }
            }
            Builtin::Embed => match &e.ty {
                Type::Null(t) => {
                    self.sort(&e.ty);
                    format!("(embed_{} {})", mangle(spec, t), ts[0])
                }
                _ => return Err(unsupported("`embed` into this type", e)),
            },
            Builtin::Head => format!("(seq.nth {} 0)", ts[0]),
            Builtin::Tail => {
                let tail = format!("(seq.extract {s} 1 (- (seq.len {s}) 1))", s = ts[0]);
                self.positions_named(&e.ty, tail, &ts[0], 1)
            }
            Builtin::Min => format!("(ite (<= {a} {b}) {a} {b})", a = ts[0], b = ts[1]),
            Builtin::Max => format!("(ite (>= {a} {b}) {a} {b})", a = ts[0], b = ts[1]),
            Builtin::Abs => format!("(ite (>= {a} 0) {a} (- {a}))", a = ts[0]),
            Builtin::Defined => match arg_ty(0) {
                Some(Type::Map(_, v)) => {
                    format!(
                        "((_ is embed_{}) (select {} {}))",
                        mangle(spec, v),
                        ts[0],
                        ts[1]
                    )
                }
                _ => return Err(unsupported("`defined` on this type", e)),
            },
            Builtin::Update => match arg_ty(0) {
                Some(Type::Map(_, v)) => format!(
                    "(store {} {} (embed_{} {}))",
                    ts[0],
                    ts[1],
                    mangle(spec, v),
                    ts[2]
                ),
                Some(Type::Array(..)) => format!("(store {} {} {})", ts[0], ts[1], ts[2]),
                _ => return Err(unsupported("`update` of this type", e)),
            },
            Builtin::SetMin | Builtin::SetMax => {
                return Err(unsupported("`min`/`max` of a set", e))
            }
            Builtin::Last => format!("(seq.nth {s} (- (seq.len {s}) 1))", s = ts[0]),
            Builtin::Init => {
                let init = format!("(seq.extract {s} 0 (- (seq.len {s}) 1))", s = ts[0]);
                self.positions_named(&e.ty, init, &ts[0], 0)
            }
            Builtin::Count => format!("(select {} {})", ts[1], ts[0]),
            Builtin::Empty => match &e.ty {
                Type::Map(_, v) => {
                    let sort = self.sort(&e.ty);
                    self.sort(&Type::Null(v.clone()));
                    format!("((as const {sort}) nil_{})", mangle(spec, v))
                }
                _ => return Err(unsupported("`empty` of this type", e)),
            },
        })
    }
}

/// The uninterpreted `size` of sets of `elem`.
pub fn size_fn(spec: &Spec, elem: &Type) -> String {
    format!("size.{}", mangle(spec, elem))
}

/// An integer literal (negative ones as `(- n)`).
/// A numeral of the Real sort.
pub fn real(i: i64) -> String {
    if i < 0 {
        format!("(- {}.0)", i.unsigned_abs())
    } else {
        format!("{i}.0")
    }
}

/// An integer numeral.
pub fn int(i: i64) -> String {
    if i < 0 {
        format!("(- {})", i.unsigned_abs())
    } else {
        i.to_string()
    }
}

/// The number of members of a set whose SMT term is a literal of ground values (see
/// [`super::sexpr::is_ground_value`]): ground values that differ as text are different, so the
/// count is exact; `None` for any other term.
pub fn literal_set_size(term: &str) -> Option<i64> {
    let mut members = literal_members(term)?;
    if !members.iter().all(|m| super::sexpr::is_ground_value(m)) {
        return None;
    }
    members.sort();
    members.dedup();
    Some(members.len() as i64)
}

/// The member terms of a set literal: `store`s of `true` over the empty constant array, the
/// members any terms; `None` for any other term.
pub fn literal_members(term: &str) -> Option<Vec<String>> {
    let mut members = Vec::new();
    let mut rest = term.to_string();
    loop {
        let items = super::sexpr::items(&rest)?;
        match items
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice()
        {
            ["store", set, member, "true"] => {
                members.push(member.to_string());
                rest = set.to_string();
            }
            [constant, "false"] if constant.starts_with("(as const (Array ") => {
                return Some(members)
            }
            _ => return None,
        }
    }
}
