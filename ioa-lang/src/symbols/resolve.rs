//! The second pass of the symbol index: every use of a name in types, expressions,
//! statements, transition heads, proof entries and schedules, resolved through the scopes of
//! bound variables, automata and globals.

use super::{Builder, Scope, SymbolKind};
use crate::ast::*;
use crate::span::Span;
use rustc_hash::FxHashMap;

impl Builder<'_> {
    pub(super) fn resolve_item(&mut self, item: &Item) {
        match item {
            Item::Import(_) => {}
            Item::Type(decl) => match &decl.def {
                TypeDef::Tuple(fields) | TypeDef::Union(fields) => {
                    for field in fields {
                        self.type_expr(&field.ty);
                    }
                }
                TypeDef::Alias(ty) => self.type_expr(ty),
                TypeDef::Enumeration(_) => {}
            },
            Item::Automaton(decl) => self.resolve_automaton(decl),
            Item::Invariant(decl) => {
                self.automaton_name(&decl.automaton);
                for name in decl.using.iter().flatten() {
                    let target = self.global(&name.name, SymbolKind::Invariant);
                    self.refer(name.span, target);
                }
                let scope = Scope {
                    automata: [Some(&decl.automaton.name), None],
                    ..Scope::default()
                };
                self.expr(&decl.body, scope);
            }
            Item::Liveness(decl) => {
                self.automaton_name(&decl.automaton);
                let scope = Scope {
                    automata: [Some(&decl.automaton.name), None],
                    ..Scope::default()
                };
                match &decl.property {
                    Temporal::Eventually(p) => self.expr(p, scope),
                    Temporal::LeadsTo(p, q) => {
                        self.expr(p, scope);
                        self.expr(q, scope);
                    }
                }
            }
            Item::Simulation(decl) => self.resolve_simulation(decl),
            Item::Schedule(decl) => self.resolve_schedule(decl),
        }
    }

    fn resolve_automaton(&mut self, decl: &AutomatonDecl) {
        let name = decl.name.name.as_str();
        for param in &decl.params {
            self.type_expr(&param.ty);
        }
        let scope = Scope {
            automata: [Some(name), None],
            fire_target: Some(name),
            ..Scope::default()
        };
        match &decl.body {
            AutomatonBody::Primitive(body) => {
                for entry in &body.signature {
                    let mark = self.locals.len();
                    for param in &entry.params {
                        match param {
                            SigParam::Formal(p) => self.bind_param(p),
                            SigParam::Const(e) => self.expr(e, scope),
                        }
                    }
                    if let Some(w) = &entry.where_clause {
                        self.expr(w, scope);
                    }
                    self.locals.truncate(mark);
                }
                for state in &body.states {
                    self.type_expr(&state.ty);
                    if let Some(init) = &state.init {
                        self.expr(init, scope);
                    }
                }
                if let Some(p) = &body.so_that {
                    self.expr(p, scope);
                }
                for transition in &body.transitions {
                    self.resolve_transition(name, body, transition, scope);
                }
                for task in &body.tasks {
                    let mark = self.locals.len();
                    for p in &task.bound {
                        self.bind_param(p);
                    }
                    for action in &task.actions {
                        let target = self.action(name, &action.name.name);
                        self.refer(action.name.span, target);
                        for arg in &action.args {
                            self.expr(arg, scope);
                        }
                    }
                    if let Some(w) = &task.where_clause {
                        self.expr(w, scope);
                    }
                    self.locals.truncate(mark);
                }
            }
            AutomatonBody::Composite(body) => {
                for component in &body.components {
                    let mark = self.locals.len();
                    for index in &component.indices {
                        self.bind_param(index);
                    }
                    self.automaton_name(&component.automaton);
                    for arg in &component.args {
                        self.expr(arg, scope);
                    }
                    if let Some(w) = &component.where_clause {
                        self.expr(w, scope);
                    }
                    self.locals.truncate(mark);
                }
                if let Some(network) = &body.network {
                    for c in &network.components {
                        let target = self.member(name, &c.name);
                        self.refer(c.span, target);
                    }
                }
                for hidden in &body.hidden {
                    let mark = self.locals.len();
                    self.action_args(&hidden.args, scope);
                    if let Some(w) = &hidden.where_clause {
                        self.expr(w, scope);
                    }
                    self.locals.truncate(mark);
                }
            }
        }
    }

    fn resolve_transition(
        &mut self,
        automaton: &str,
        body: &Primitive,
        t: &Transition,
        scope: Scope,
    ) {
        let target = self.action(automaton, &t.name.name);
        self.refer(t.name.span, target);
        let mark = self.locals.len();
        // An argument without a type takes the signature parameter's type at its position.
        let entry = body
            .signature
            .iter()
            .find(|e| e.name.name == t.name.name && e.kind == t.kind)
            .or_else(|| body.signature.iter().find(|e| e.name.name == t.name.name));
        for (position, arg) in t.args.iter().enumerate() {
            match arg {
                ActionArg::Bind { name, ty } => {
                    let ty_text = match ty {
                        Some(ty) => {
                            self.type_expr(ty);
                            Some(self.text(ty.span))
                        }
                        None => entry.and_then(|e| match e.params.get(position) {
                            Some(SigParam::Formal(p)) => Some(self.text(p.ty.span)),
                            _ => None,
                        }),
                    };
                    self.bind(name, ty_text, name.span);
                }
                ActionArg::Const(e) => self.expr(e, scope),
            }
        }
        for clause in [&t.where_clause, &t.pre, &t.ensuring].into_iter().flatten() {
            self.expr(clause, scope);
        }
        self.stmts(&t.eff, scope);
        self.locals.truncate(mark);
    }

    fn resolve_simulation(&mut self, decl: &SimulationDecl) {
        self.automaton_name(&decl.from);
        self.automaton_name(&decl.to);
        for name in decl.using.iter().flatten() {
            let target = self.global(&name.name, SymbolKind::Invariant);
            self.refer(name.span, target);
        }
        let mark = self.locals.len();
        for name in decl.from_args.iter().chain(&decl.to_args).flatten() {
            if !self.locals.iter().any(|(n, _)| n == &name.name) {
                self.bind(name, None, name.span);
            } else {
                let target = self.local(&name.name);
                self.refer(name.span, target);
            }
        }
        let mut extra = FxHashMap::default();
        let parent = decl
            .name
            .as_ref()
            .and_then(|name| self.global(&name.name, SymbolKind::Simulation));
        if let Some(proof) = &decl.proof {
            for state in &proof.states {
                let signature = format!("{}: {}", state.name.name, self.text(state.ty.span));
                let v = self.define(
                    &state.name,
                    SymbolKind::StateVariable,
                    state.span,
                    signature,
                    parent,
                );
                extra.entry(state.name.name.clone()).or_insert(v);
            }
        }
        let scope = Scope {
            automata: [Some(&decl.from.name), Some(&decl.to.name)],
            extra: Some(&extra),
            fire_target: Some(&decl.to.name),
        };
        self.expr(&decl.relation, scope);
        if let Some(proof) = &decl.proof {
            for state in &proof.states {
                self.type_expr(&state.ty);
                if let Some(init) = &state.init {
                    self.expr(init, scope);
                }
            }
            self.stmts(&proof.start, scope);
            for entry in &proof.entries {
                let target = self.action(&decl.from.name, &entry.name.name);
                self.refer(entry.name.span, target);
                for name in entry.using.iter().flatten() {
                    let target = self.global(&name.name, SymbolKind::Invariant);
                    self.refer(name.span, target);
                }
                let inner = self.locals.len();
                self.action_args(&entry.args, scope);
                if let Some(body) = &entry.body {
                    self.stmts(body, scope);
                }
                self.locals.truncate(inner);
            }
        }
        self.locals.truncate(mark);
    }

    fn resolve_schedule(&mut self, decl: &ScheduleDecl) {
        if let Some(target) = &decl.target {
            self.automaton_name(target);
        }
        let mut extra = FxHashMap::default();
        let parent = decl
            .name
            .as_ref()
            .and_then(|name| self.global(&name.name, SymbolKind::Schedule));
        for state in &decl.states {
            let signature = format!("{}: {}", state.name.name, self.text(state.ty.span));
            let v = self.define(
                &state.name,
                SymbolKind::StateVariable,
                state.span,
                signature,
                parent,
            );
            extra.entry(state.name.name.clone()).or_insert(v);
        }
        let target = decl.target.as_ref().map(|t| t.name.as_str());
        let scope = Scope {
            automata: [target, None],
            extra: Some(&extra),
            fire_target: target,
        };
        for state in &decl.states {
            self.type_expr(&state.ty);
            if let Some(init) = &state.init {
                self.expr(init, scope);
            }
        }
        self.stmts(&decl.body, scope);
    }

    fn action_args(&mut self, args: &[ActionArg], scope: Scope) {
        for arg in args {
            match arg {
                ActionArg::Bind { name, ty } => {
                    let ty_text = ty.as_ref().map(|ty| {
                        self.type_expr(ty);
                        self.text(ty.span)
                    });
                    self.bind(name, ty_text, name.span);
                }
                ActionArg::Const(e) => self.expr(e, scope),
            }
        }
    }

    fn stmts(&mut self, stmts: &[Stmt], scope: Scope) {
        for stmt in stmts {
            self.stmt(stmt, scope);
        }
    }

    fn stmt(&mut self, stmt: &Stmt, scope: Scope) {
        match &stmt.kind {
            StmtKind::Assign { lhs, ty, rhs } => {
                if let Some(ty) = ty {
                    self.type_expr(ty);
                }
                self.expr(lhs, scope);
                self.expr(rhs, scope);
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (cond, body) in branches {
                    self.expr(cond, scope);
                    self.stmts(body, scope);
                }
                if let Some(body) = otherwise {
                    self.stmts(body, scope);
                }
            }
            StmtKind::ForIn {
                var,
                collection,
                body,
            } => {
                self.expr(collection, scope);
                let mark = self.locals.len();
                self.bind_param(var);
                self.stmts(body, scope);
                self.locals.truncate(mark);
            }
            StmtKind::ForWhere { var, cond, body } => {
                let mark = self.locals.len();
                self.bind_param(var);
                self.expr(cond, scope);
                self.stmts(body, scope);
                self.locals.truncate(mark);
            }
            StmtKind::While { cond, body } => {
                self.expr(cond, scope);
                self.stmts(body, scope);
            }
            StmtKind::Fire {
                name, args, det, ..
            } => {
                let target = scope.fire_target.and_then(|a| self.action(a, &name.name));
                self.refer(name.span, target);
                for arg in args {
                    self.expr(arg, scope);
                }
                if let Some(det) = det {
                    self.stmts(det, scope);
                }
            }
            StmtKind::Ignore => {}
            StmtKind::Yield(e) => self.expr(e, scope),
            StmtKind::Det(body) => self.stmts(body, scope),
        }
    }

    fn expr(&mut self, e: &Expr, scope: Scope) {
        match &e.kind {
            ExprKind::Name(ident) => {
                let target = self.lookup(&ident.name, scope);
                self.refer(ident.span, target);
            }
            ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Str(_)
            | ExprKind::Real(..)
            | ExprKind::Char(_)
            | ExprKind::Nil => {}
            ExprKind::Tuple(items) | ExprKind::SetLit(items) => {
                for item in items {
                    self.expr(item, scope);
                }
            }
            ExprKind::Unary(_, inner) => self.expr(inner, scope),
            ExprKind::Binary(_, l, r) => {
                self.expr(l, scope);
                self.expr(r, scope);
            }
            ExprKind::Field(base, field) => {
                self.expr(base, scope);
                let target = match self.qualifier_automaton(base, scope) {
                    Some(automaton) => self.member(&automaton, &field.name),
                    None => self.unique_field(&field.name),
                };
                self.refer(field.span, target);
            }
            ExprKind::Index(base, indices) => {
                self.expr(base, scope);
                for index in indices {
                    self.expr(index, scope);
                }
            }
            ExprKind::Call(name, args) => {
                // A union tag used as a constructor; built-ins resolve to nothing.
                let target = self.unique_field(&name.name);
                self.refer(name.span, target);
                for arg in args {
                    self.expr(arg, scope);
                }
            }
            ExprKind::Is(inner, tag) => {
                self.expr(inner, scope);
                let target = self.unique_field(&tag.name);
                self.refer(tag.span, target);
            }
            ExprKind::Quant(_, params, body) => {
                let mark = self.locals.len();
                for p in params {
                    self.bind_param(p);
                }
                self.expr(body, scope);
                self.locals.truncate(mark);
            }
            ExprKind::Cond(c, a, b) => {
                self.expr(c, scope);
                self.expr(a, scope);
                self.expr(b, scope);
            }
            ExprKind::Choose { var, cond, det } => {
                let mark = self.locals.len();
                self.bind_param(var);
                if let Some(cond) = cond {
                    self.expr(cond, scope);
                }
                self.locals.truncate(mark);
                if let Some(det) = det {
                    self.stmts(det, scope);
                }
            }
            ExprKind::SetComp { var, cond } => {
                let mark = self.locals.len();
                self.bind_param(var);
                self.expr(cond, scope);
                self.locals.truncate(mark);
            }
        }
    }

    /// The automaton whose members `base.x` names: `A.x` for an automaton `A`, `P.x` and
    /// `P[i].x` for a component `P` of a composite in scope.
    fn qualifier_automaton(&self, base: &Expr, scope: Scope) -> Option<String> {
        let name = match &base.kind {
            ExprKind::Name(ident) => ident,
            ExprKind::Index(inner, _) => match &inner.kind {
                ExprKind::Name(ident) => ident,
                _ => return None,
            },
            _ => return None,
        };
        if self.local(&name.name).is_some() {
            return None;
        }
        for automaton in scope.automata.into_iter().flatten() {
            if let Some(inner) = self
                .automata
                .get(automaton)
                .and_then(|a| a.component_automata.get(&name.name))
            {
                return Some(inner.clone());
            }
        }
        if matches!(base.kind, ExprKind::Name(_)) && self.automata.contains_key(&name.name) {
            return Some(name.name.clone());
        }
        None
    }

    fn type_expr(&mut self, ty: &TypeExpr) {
        let target = self.global(&ty.name.name, SymbolKind::Type);
        self.refer(ty.name.span, target);
        for arg in &ty.args {
            self.type_expr(arg);
        }
    }

    fn automaton_name(&mut self, name: &Ident) {
        let target = self.global(&name.name, SymbolKind::Automaton);
        self.refer(name.span, target);
    }

    fn bind_param(&mut self, p: &Param) {
        self.type_expr(&p.ty);
        let ty = self.text(p.ty.span);
        self.bind(&p.name, Some(ty), p.name.span.to(p.ty.span));
    }

    fn bind(&mut self, name: &Ident, ty: Option<String>, full_span: Span) {
        let signature = match ty {
            Some(ty) => format!("{}: {ty}", name.name),
            None => name.name.clone(),
        };
        let id = self.define(name, SymbolKind::BoundVariable, full_span, signature, None);
        self.locals.push((name.name.clone(), id));
    }
}
