//! Checking statements: assignment targets, loops, `fire`, and which statements each kind of
//! block allows.

use super::scope::{Body, Mode};
use super::{CheckError, Checker};
use crate::ast::{self, ExprKind as A, StmtKind as S};
use crate::ir::{self, Place, PlaceStep, Stmt, StmtKind, Type, TypeDefKind, VarRef};

impl Checker {
    /// Checks a statement list.
    pub(crate) fn stmts(&mut self, body: &mut Body, stmts: &[ast::Stmt]) -> Vec<Stmt> {
        let mut out = Vec::new();
        for s in stmts {
            match &s.kind {
                S::Det(inner) => out.extend(self.det_block(body, inner, s.span)),
                _ => out.extend(self.stmt(body, s)),
            }
        }
        out
    }

    /// A schedule's `det do … od` block of its own: a deterministic program of the manual's
    /// NDR language. Its statements (`fire`s included) run in the schedule where they stand,
    /// and its `yield`s queue values for the `choose`s of the steps fired after them (each may
    /// answer a different `choose`, so each has its own type). It is lowered in place: a
    /// `yield` reaches the IR of a schedule only from such a block.
    fn det_block(
        &mut self,
        body: &mut Body,
        inner: &[ast::Stmt],
        span: crate::span::Span,
    ) -> Vec<Stmt> {
        if body.mode != Mode::Schedule || body.in_det || body.yield_type.is_some() {
            self.not_allowed(body, "det do … od", span);
        }
        let saved = body.yield_type.replace(Type::Bool);
        let saved_any = std::mem::replace(&mut body.yield_any, true);
        let saved_det = std::mem::replace(&mut body.in_det, true);
        let out = self.stmts(body, inner);
        body.yield_type = saved;
        body.yield_any = saved_any;
        body.in_det = saved_det;
        out
    }

    fn not_allowed(&mut self, body: &Body, stmt: &'static str, span: crate::span::Span) {
        self.error(CheckError::StatementNotAllowed {
            stmt,
            place: body.mode.place(),
            span,
        });
    }

    fn stmt(&mut self, body: &mut Body, s: &ast::Stmt) -> Option<Stmt> {
        let span = s.span;
        let kind = match &s.kind {
            S::Assign { lhs, ty, rhs } => {
                let (place, place_ty) = self.place(body, lhs)?;
                if let Some(written) = ty {
                    let written_ty = self.resolve_type(written);
                    if self
                        .unifier
                        .unify(&written_ty, &place_ty, &self.spec.types)
                        .is_err()
                    {
                        let expected = self.show(&place_ty);
                        let found = self.show(&written_ty);
                        self.error(CheckError::Mismatch {
                            expected,
                            found,
                            span: written.span,
                            because: Some((lhs.span, "the variable's declared type".into())),
                        });
                    }
                }
                let value = self.expr(body, rhs);
                let value = self.real_if(value, &place_ty);
                self.expect_because(
                    &value,
                    &place_ty,
                    Some((lhs.span, "assigned to this".into())),
                );
                StmtKind::Assign {
                    target: place,
                    value,
                }
            }
            S::If {
                branches,
                otherwise,
            } => {
                let branches = branches
                    .iter()
                    .map(|(c, b)| (self.bool_expr(body, c), self.stmts(body, b)))
                    .collect();
                let otherwise = otherwise
                    .as_ref()
                    .map(|o| self.stmts(body, o))
                    .unwrap_or_default();
                StmtKind::If {
                    branches,
                    otherwise,
                }
            }
            S::ForIn {
                var,
                collection,
                body: inner,
            } => {
                let ty = self.resolve_type(&var.ty);
                let collection = self.expr(body, collection);
                let want_elem = ty.clone();
                match self.unifier.shallow(&collection.ty) {
                    Type::Set(e) | Type::Mset(e) | Type::Seq(e) => {
                        let e = *e;
                        if self
                            .unifier
                            .unify(&e, &want_elem, &self.spec.types)
                            .is_err()
                        {
                            let expected = format!("a collection of {}", self.show(&want_elem));
                            let found = self.show(&collection.ty);
                            self.error(CheckError::Mismatch {
                                expected,
                                found,
                                span: collection.span,
                                because: Some((var.ty.span, "the loop variable's type".into())),
                            });
                        }
                    }
                    _ => {
                        let want = self.unifier.fresh(
                            super::types::VarKind::Collection(want_elem),
                            collection.span,
                        );
                        self.expect(&collection, &want);
                    }
                }
                let mark = body.mark();
                let slot = body.bind(&var.name.name, ty, "a loop variable");
                let inner = self.stmts(body, inner);
                body.pop_to(mark);
                StmtKind::ForIn {
                    var: slot,
                    collection,
                    body: inner,
                }
            }
            S::ForWhere {
                var,
                cond,
                body: inner,
            } => {
                let ty = self.resolve_type(&var.ty);
                let mark = body.mark();
                let slot = body.bind(&var.name.name, ty.clone(), "a loop variable");
                let cond = self.bool_expr(body, cond);
                let inner = self.stmts(body, inner);
                body.pop_to(mark);
                StmtKind::ForWhere {
                    var: slot,
                    ty,
                    cond,
                    body: inner,
                }
            }
            S::While { cond, body: inner } => {
                if body.mode != Mode::Schedule {
                    self.not_allowed(body, "while", span);
                }
                let cond = self.bool_expr(body, cond);
                let inner = self.stmts(body, inner);
                StmtKind::While { cond, body: inner }
            }
            S::Fire {
                kind,
                name,
                args,
                det,
            } => {
                return self.fire(body, *kind, name, args, det.as_deref(), span);
            }
            S::Ignore => {
                if !matches!(body.mode, Mode::Schedule | Mode::ProofEntry | Mode::Effect) {
                    self.not_allowed(body, "ignore", span);
                }
                StmtKind::Ignore
            }
            S::Det(_) => unreachable!("`stmts` lowers `det` blocks in place"),
            S::Yield(e) => {
                let e = self.expr(body, e);
                match body.yield_type.clone() {
                    Some(_) if body.yield_any => self.free_yields.push(e.span),
                    Some(t) => self.expect(&e, &t),
                    None => self.not_allowed(body, "yield", span),
                }
                StmtKind::Yield(e)
            }
        };
        Some(Stmt { kind, span })
    }

    fn fire(
        &mut self,
        body: &mut Body,
        kind: ast::ActionKind,
        name: &ast::Ident,
        args: &[ast::Expr],
        det: Option<&[ast::Stmt]>,
        span: crate::span::Span,
    ) -> Option<Stmt> {
        let Some(target) = body
            .fire_target
            .filter(|_| matches!(body.mode, Mode::Schedule | Mode::ProofEntry))
        else {
            self.not_allowed(body, "fire", span);
            return None;
        };
        let action = self.action_of_kind(target, name, kind)?;
        let decl = self.spec.automata[target.0 as usize].actions[action.0 as usize].clone();
        if decl.kind != kind {
            self.error(CheckError::KindMismatch {
                action: decl.name.clone(),
                declared: decl.kind.keyword(),
                used: kind.keyword(),
                span: name.span,
            });
        }
        if decl.params.len() != args.len() {
            self.error(CheckError::WrongArity {
                what: format!("action `{}`", decl.name),
                expected: decl.params.len(),
                found: args.len(),
                span,
            });
            return None;
        }
        let args = args
            .iter()
            .zip(&decl.params)
            .map(|(a, p)| {
                let e = self.expr(body, a);
                let e = self.real_if(e, &p.ty);
                self.expect_because(
                    &e,
                    &p.ty,
                    Some((
                        decl.span,
                        format!("parameter `{}` of `{}`", p.name, decl.name),
                    )),
                );
                e
            })
            .collect();
        let det = det.map(|stmts| {
            // Each `yield` of a fired step answers a different `choose`, so each has its own type.
            let saved = body.yield_type.take();
            let saved_free = std::mem::replace(&mut body.yield_any, true);
            body.yield_type = Some(Type::Bool);
            let out = self.stmts(body, stmts);
            body.yield_type = saved;
            body.yield_any = saved_free;
            out
        });
        Some(Stmt {
            kind: StmtKind::Fire {
                automaton: target,
                action,
                args,
                det,
            },
            span,
        })
    }

    /// Resolves an assignment target to a place and its type.
    fn place(&mut self, body: &mut Body, lhs: &ast::Expr) -> Option<(Place, Type)> {
        match &lhs.kind {
            A::Name(id) => {
                let name = id.name.as_str();
                if let Some(l) = body.local(name) {
                    let what = l.what;
                    self.error(CheckError::AssignToNonState {
                        name: name.into(),
                        what,
                        span: id.span,
                    });
                    return None;
                }
                if let Some(k) = body.aux.iter().position(|(n, _, _)| n == name) {
                    let ty = body.aux[k].1.clone();
                    return Some((
                        Place {
                            root: VarRef::Aux(k as u32),
                            path: vec![],
                        },
                        ty,
                    ));
                }
                if let Some(a) = body.automaton {
                    if let Some(&slot) = self.state_names[a.0 as usize].get(name) {
                        if !body.state_writable {
                            let what = if body.mode == Mode::Schedule {
                                "the automaton's state, which only its actions change"
                            } else {
                                "a state variable, which cannot change here"
                            };
                            self.error(CheckError::AssignToNonState {
                                name: name.into(),
                                what,
                                span: id.span,
                            });
                            return None;
                        }
                        return Some((
                            Place {
                                root: VarRef::State(slot),
                                path: vec![],
                            },
                            self.state_type(a, slot),
                        ));
                    }
                    if self.spec.automata[a.0 as usize]
                        .params
                        .iter()
                        .any(|p| p.name == name)
                    {
                        self.error(CheckError::AssignToNonState {
                            name: name.into(),
                            what: "a parameter of the automaton",
                            span: id.span,
                        });
                        return None;
                    }
                }
                if self.enum_consts.contains_key(name) {
                    self.error(CheckError::AssignToNonState {
                        name: name.into(),
                        what: "an enumeration constant",
                        span: id.span,
                    });
                    return None;
                }
                // Fall back to expression resolution for the message (undefined name, …).
                self.expr(body, lhs);
                None
            }
            A::Field(base, f) => {
                if let Some(place) = self.component_place(body, base, f, lhs.span) {
                    return place;
                }
                if let A::Name(q) = &base.kind {
                    if body.local(&q.name).is_none() && body.aux.iter().all(|a| a.0 != q.name) {
                        if let Some(&aut) = self.automaton_names.get(&q.name) {
                            return self.qualified_place(body, aut, q, f, lhs.span);
                        }
                    }
                }
                let (mut place, ty) = self.place(body, base)?;
                match self.unifier.shallow(&ty) {
                    Type::Null(_) if f.name == "val" => {
                        self.error(CheckError::AssignToNonState { name: format!("….{}", f.name), what: "the value inside a `Null`; assign `embed(…)` to the variable itself", span: lhs.span });
                        None
                    }
                    Type::Named(id) if matches!(&self.spec.types[id.0 as usize].kind, TypeDefKind::Union(tags) if tags.iter().any(|(n, _)| *n == f.name)) =>
                    {
                        self.error(CheckError::AssignToNonState {
                            name: format!("….{}", f.name),
                            what: "a union's payload; assign a whole union value instead",
                            span: lhs.span,
                        });
                        None
                    }
                    Type::Named(id) => {
                        if let TypeDefKind::Tuple(fields) = &self.spec.types[id.0 as usize].kind {
                            if let Some(k) = fields.iter().position(|(n, _)| *n == f.name) {
                                let fty = fields[k].1.clone();
                                place.path.push(PlaceStep::Field(k as u32));
                                return Some((place, fty));
                            }
                        }
                        let shown = self.show(&ty);
                        let fields = match &self.spec.types[id.0 as usize].kind {
                            TypeDefKind::Tuple(fs) => fs.iter().map(|(n, _)| n.clone()).collect(),
                            _ => vec![],
                        };
                        self.error(CheckError::NoSuchField {
                            ty: shown,
                            field: f.name.clone(),
                            span: f.span,
                            fields,
                        });
                        None
                    }
                    _ => {
                        let shown = self.show(&ty);
                        self.error(CheckError::NoSuchField {
                            ty: shown,
                            field: f.name.clone(),
                            span: f.span,
                            fields: vec![],
                        });
                        None
                    }
                }
            }
            A::Index(base, idx) => {
                let (mut place, ty) = self.place(body, base)?;
                let (key, value) = match self.unifier.shallow(&ty) {
                    Type::Array(k, v) | Type::Map(k, v) => (*k, *v),
                    Type::Seq(e) => (Type::Int, *e),
                    _ => {
                        let shown = self.show(&ty);
                        self.error(CheckError::NotIndexable {
                            ty: shown,
                            span: base.span,
                        });
                        return None;
                    }
                };
                if idx.len() != 1 {
                    self.error(CheckError::WrongArity {
                        what: "an index".into(),
                        expected: 1,
                        found: idx.len(),
                        span: lhs.span,
                    });
                    return None;
                }
                let i = self.typed_expr(body, &idx[0], &key);
                place.path.push(PlaceStep::Index(i));
                Some((place, value))
            }
            _ => {
                self.expr(body, lhs);
                None
            }
        }
    }

    /// `B.C.x` or `B.P[i].x` assigned in a proof block's `start`: state variable `x` of a
    /// component of the composite specification `B` (read the same way in relations). `None`
    /// when `base` does not name a component of an automaton; `Some(None)` after an error.
    fn component_place(
        &mut self,
        body: &mut Body,
        base: &ast::Expr,
        f: &ast::Ident,
        span: crate::span::Span,
    ) -> Option<Option<(Place, Type)>> {
        let qualifier = match &base.kind {
            A::Field(q, _) => q,
            A::Index(inner, _) => match &inner.kind {
                A::Field(q, _) => q,
                _ => return None,
            },
            _ => return None,
        };
        let A::Name(q) = &qualifier.kind else {
            return None;
        };
        let &aut = self.automaton_names.get(&q.name)?;
        let read = self.qualified_component(body, base, f, span)?;
        let ir::ExprKind::Var(root @ VarRef::Component { .. }) = read.kind else {
            return Some(None);
        };
        if body.qualified_writable != Some(aut) {
            if body.mode == Mode::ProofStart {
                let (spec, composite) = body
                    .qualified_writable
                    .map(|a| {
                        let aut = &self.spec.automata[a.0 as usize];
                        let composite = matches!(aut.body, ir::AutomatonBody::Composite(_));
                        (aut.name.clone(), composite)
                    })
                    .unwrap_or_default();
                self.error(CheckError::BadStartTarget {
                    spec,
                    composite,
                    span,
                });
            } else {
                self.error(CheckError::AssignToNonState {
                    name: format!("{}.….{}", q.name, f.name),
                    what: "another automaton's state, which only its actions change",
                    span,
                });
            }
            return Some(None);
        }
        Some(Some((Place { root, path: vec![] }, read.ty)))
    }

    fn qualified_place(
        &mut self,
        body: &mut Body,
        aut: ir::AutomatonId,
        q: &ast::Ident,
        f: &ast::Ident,
        span: crate::span::Span,
    ) -> Option<(Place, Type)> {
        if body.qualified_writable != Some(aut) {
            if body.mode == Mode::ProofStart {
                let (spec, composite) = body
                    .qualified_writable
                    .map(|a| {
                        let aut = &self.spec.automata[a.0 as usize];
                        let composite = matches!(aut.body, ir::AutomatonBody::Composite(_));
                        (aut.name.clone(), composite)
                    })
                    .unwrap_or_default();
                self.error(CheckError::BadStartTarget {
                    spec,
                    composite,
                    span,
                });
            } else {
                self.error(CheckError::AssignToNonState {
                    name: format!("{}.{}", q.name, f.name),
                    what: "another automaton's state, which only its actions change",
                    span,
                });
            }
            return None;
        }
        match self.state_names[aut.0 as usize].get(&f.name) {
            Some(&slot) => {
                let ty = self.state_type(aut, slot);
                Some((
                    Place {
                        root: VarRef::Qualified {
                            automaton: aut,
                            slot,
                        },
                        path: vec![],
                    },
                    ty,
                ))
            }
            None => {
                let suggestion = super::suggest(
                    &f.name,
                    self.state_names[aut.0 as usize].keys().map(|s| s.as_str()),
                );
                self.error(CheckError::UndefinedName {
                    name: format!("{}.{}", q.name, f.name),
                    span: f.span,
                    suggestion,
                });
                None
            }
        }
    }
}
