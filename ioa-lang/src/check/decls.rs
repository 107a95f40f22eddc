//! Checking declarations: types (with synonyms and recursion), automata signatures and states,
//! transitions, tasks, and the actions a composite inherits from its components.

use super::scope::{Body, Mode};
use super::{suggest, CheckError, Checker, TypeEntry};
use crate::ast::{self, ActionArg, Item};
use crate::ir::{
    self, Action, ActionId, ActionParam, Automaton, AutomatonBody, AutomatonId, Component,
    Composite, Expr, ExprKind, Hidden, Network, Place, Primitive, Stmt, StmtKind, Transition, Type,
    TypeDef, TypeDefKind, TypeId, VarDecl, VarRef,
};
use crate::span::Span;
use rustc_hash::{FxHashMap, FxHashSet};

impl Checker {
    /// Lowers `eff S ensuring P`: every state variable's pre-state value is saved into a local
    /// of its name before `S`, `P` is checked with plain names reading those locals and primed
    /// names (`x'`) reading the post-state, and an `Ensure` statement checks it after `S`.
    fn ensuring(
        &mut self,
        body: &mut Body,
        a: ir::AutomatonId,
        eff: Vec<Stmt>,
        p: &ast::Expr,
    ) -> Vec<Stmt> {
        let mut names: Vec<(String, u32)> = self.state_names[a.0 as usize]
            .iter()
            .map(|(n, s)| (n.clone(), *s))
            .collect();
        names.sort_by_key(|(_, s)| *s);
        let mark = body.mark();
        let mut out = Vec::new();
        for (name, slot) in &names {
            let ty = self.state_type(a, *slot);
            let local = body.bind(name, ty.clone(), "a pre-state value in `ensuring`");
            out.push(Stmt {
                kind: StmtKind::Assign {
                    target: Place {
                        root: VarRef::Local(local),
                        path: vec![],
                    },
                    value: Expr {
                        kind: ExprKind::Var(VarRef::State(*slot)),
                        ty,
                        span: p.span,
                    },
                },
                span: p.span,
            });
            self.state_names[a.0 as usize].insert(format!("{name}'"), *slot);
        }
        let cond = self.bool_expr(body, p);
        for (name, _) in &names {
            self.state_names[a.0 as usize].remove(&format!("{name}'"));
        }
        body.pop_to(mark);
        out.extend(eff);
        out.push(Stmt {
            kind: StmtKind::Ensure(cond),
            span: p.span,
        });
        out
    }

    /// Registers every declared type, resolves synonyms and fills in tuple, enumeration and union
    /// definitions.
    pub(crate) fn declare_types(&mut self, items: &[&Item]) {
        let decls: Vec<&ast::TypeDecl> = items
            .iter()
            .filter_map(|i| match i {
                Item::Type(t) => Some(t),
                _ => None,
            })
            .collect();
        let mut aliases: Vec<&ast::TypeDecl> = Vec::new();
        let mut named: Vec<(&ast::TypeDecl, TypeId)> = Vec::new();
        for d in &decls {
            if let Some((_, prev)) = self.type_names.get(&d.name.name) {
                let previous = *prev;
                self.error(CheckError::Duplicate {
                    what: "type",
                    name: d.name.name.clone(),
                    span: d.name.span,
                    previous,
                });
                continue;
            }
            if is_builtin_type(&d.name.name) {
                self.error(CheckError::Duplicate {
                    what: "type",
                    name: d.name.name.clone(),
                    span: d.name.span,
                    previous: d.name.span,
                });
                continue;
            }
            match &d.def {
                ast::TypeDef::Alias(_) => aliases.push(d),
                _ => {
                    let id = TypeId(self.spec.types.len() as u32);
                    self.spec.types.push(TypeDef {
                        name: d.name.name.clone(),
                        kind: TypeDefKind::Enumeration(vec![]),
                        span: d.span,
                    });
                    self.type_names
                        .insert(d.name.name.clone(), (TypeEntry::Named(id), d.name.span));
                    named.push((d, id));
                }
            }
        }
        self.resolve_aliases(aliases);
        for (d, id) in named {
            let kind = match &d.def {
                ast::TypeDef::Tuple(fields) => TypeDefKind::Tuple(self.fields(fields, "field")),
                ast::TypeDef::Union(fields) => {
                    let tags = self.fields(fields, "union tag");
                    for (k, f) in fields.iter().enumerate() {
                        self.register_global(f.name.clone(), id, k as u32, false);
                    }
                    TypeDefKind::Union(tags)
                }
                ast::TypeDef::Enumeration(consts) => {
                    for (k, c) in consts.iter().enumerate() {
                        self.register_global(c.clone(), id, k as u32, true);
                    }
                    TypeDefKind::Enumeration(consts.iter().map(|c| c.name.clone()).collect())
                }
                ast::TypeDef::Alias(_) => unreachable!("aliases are resolved separately"),
            };
            self.spec.types[id.0 as usize].kind = kind;
        }
        self.check_type_recursion();
    }

    fn register_global(&mut self, name: ast::Ident, ty: TypeId, k: u32, is_enum: bool) {
        if !is_enum && super::expr::BUILTINS.contains(&name.name.as_str()) {
            self.error(CheckError::Duplicate {
                what: "union tag (the name of a built-in function)",
                name: name.name,
                span: name.span,
                previous: name.span,
            });
            return;
        }
        // Constants of different enumerations may share a name, and a constant may share one
        // with a union tag (a bare name against `tag(e)`, `e.tag`, `e is tag`): the expected
        // type or the syntax tells them apart. Only a repeat within one enumeration, or two
        // union tags, is an error.
        let previous = if is_enum {
            self.enum_consts
                .get(&name.name)
                .and_then(|v| v.iter().find(|(t, _, _)| *t == ty))
                .map(|(_, _, s)| *s)
        } else {
            self.union_tags.get(&name.name).map(|(_, _, s)| *s)
        };
        if let Some(previous) = previous {
            let what = if is_enum {
                "enumeration constant"
            } else {
                "union tag"
            };
            self.error(CheckError::Duplicate {
                what,
                name: name.name,
                span: name.span,
                previous,
            });
            return;
        }
        if is_enum {
            self.enum_consts
                .entry(name.name)
                .or_default()
                .push((ty, k, name.span));
        } else {
            self.union_tags.insert(name.name, (ty, k, name.span));
        }
    }

    fn fields(&mut self, fields: &[ast::Field], what: &'static str) -> Vec<(String, Type)> {
        let mut seen: FxHashMap<&str, Span> = FxHashMap::default();
        let mut out = Vec::new();
        for f in fields {
            if let Some(prev) = seen.insert(&f.name.name, f.name.span) {
                self.error(CheckError::Duplicate {
                    what,
                    name: f.name.name.clone(),
                    span: f.name.span,
                    previous: prev,
                });
            }
            let ty = self.resolve_type(&f.ty);
            out.push((f.name.name.clone(), ty));
        }
        out
    }

    fn resolve_aliases(&mut self, mut pending: Vec<&ast::TypeDecl>) {
        loop {
            let before = pending.len();
            let pending_names: FxHashSet<String> =
                pending.iter().map(|d| d.name.name.clone()).collect();
            let (ready, waiting): (Vec<_>, Vec<_>) =
                pending.into_iter().partition(|d| match &d.def {
                    ast::TypeDef::Alias(t) => !mentions_any(t, &pending_names),
                    _ => true,
                });
            for d in ready {
                if let ast::TypeDef::Alias(t) = &d.def {
                    let ty = self.resolve_type(t);
                    self.type_names
                        .insert(d.name.name.clone(), (TypeEntry::Alias(ty), d.name.span));
                }
            }
            pending = waiting;
            if pending.is_empty() {
                return;
            }
            if pending.len() == before {
                for d in pending {
                    self.error(CheckError::RecursiveType {
                        what: "type",
                        name: d.name.name.clone(),
                        span: d.name.span,
                    });
                    let ty = self.unifier.fresh(super::types::VarKind::Any, d.span);
                    self.type_names
                        .insert(d.name.name.clone(), (TypeEntry::Alias(ty), d.name.span));
                }
                return;
            }
        }
    }

    fn check_type_recursion(&mut self) {
        for start in 0..self.spec.types.len() {
            let mut stack = vec![TypeId(start as u32)];
            let mut seen = FxHashSet::default();
            while let Some(t) = stack.pop() {
                for inner in direct_named(&self.spec.types[t.0 as usize]) {
                    if inner.0 as usize == start {
                        let d = &self.spec.types[start];
                        let error = CheckError::RecursiveType {
                            what: "type",
                            name: d.name.clone(),
                            span: d.span,
                        };
                        self.error(error);
                        stack.clear();
                        break;
                    }
                    if seen.insert(inner) {
                        stack.push(inner);
                    }
                }
            }
        }
    }

    /// Registers every automaton with its parameters; checks primitive signatures and state
    /// declarations (initial values come later).
    pub(crate) fn declare_automata(&mut self, items: &[&Item]) {
        for item in items {
            let Item::Automaton(a) = item else { continue };
            if let Some(&prev) = self.automaton_names.get(&a.name.name) {
                let previous = self.spec.automata[prev.0 as usize].span;
                self.error(CheckError::Duplicate {
                    what: "automaton",
                    name: a.name.name.clone(),
                    span: a.name.span,
                    previous,
                });
                continue;
            }
            let id = AutomatonId(self.spec.automata.len() as u32);
            let params = self.var_decls_untyped_init(&a.params, "parameter");
            self.automaton_names.insert(a.name.name.clone(), id);
            self.spec.automata.push(Automaton {
                name: a.name.name.clone(),
                params,
                actions: Vec::new(),
                body: AutomatonBody::Composite(Composite {
                    components: vec![],
                    action_members: vec![],
                    hidden: vec![],
                    network: None,
                }),
                span: a.span,
            });
            self.state_names.push(FxHashMap::default());
            self.component_names.push(FxHashMap::default());
            if let ast::AutomatonBody::Primitive(p) = &a.body {
                self.declare_primitive(id, p);
            }
        }
    }

    fn var_decls_untyped_init(
        &mut self,
        params: &[ast::Param],
        what: &'static str,
    ) -> Vec<VarDecl> {
        let mut seen: FxHashMap<&str, Span> = FxHashMap::default();
        params
            .iter()
            .map(|p| {
                if let Some(prev) = seen.insert(&p.name.name, p.name.span) {
                    self.error(CheckError::Duplicate {
                        what,
                        name: p.name.name.clone(),
                        span: p.name.span,
                        previous: prev,
                    });
                }
                let ty = self.resolve_type(&p.ty);
                VarDecl {
                    name: p.name.name.clone(),
                    ty,
                    init: None,
                    span: p.name.span,
                }
            })
            .collect()
    }

    fn declare_primitive(&mut self, id: AutomatonId, p: &ast::Primitive) {
        let mut actions: Vec<Action> = Vec::new();
        for entry in &p.signature {
            // The manual lets one action be an input for some parameter values and an output
            // (or internal) for others: entries of different kinds whose `where` clauses tell
            // them apart. Two entries of one kind stay an error.
            if let Some(prev) = actions
                .iter()
                .find(|a| a.name == entry.name.name && a.kind == entry.kind)
            {
                let previous = prev.span;
                self.error(CheckError::Duplicate {
                    what: "action",
                    name: entry.name.name.clone(),
                    span: entry.name.span,
                    previous,
                });
                continue;
            }
            let other = actions.iter().find(|a| a.name == entry.name.name).map(|a| {
                (
                    a.span,
                    a.kind,
                    a.where_clause.is_some(),
                    a.params.iter().any(|p| p.fixed.is_some()),
                )
            });
            if let Some((previous, kind, has_where, has_const)) = other {
                let mine_const = entry
                    .params
                    .iter()
                    .any(|p| matches!(p, ast::SigParam::Const(_)));
                if !has_where && !has_const && entry.where_clause.is_none() && !mine_const {
                    self.error(CheckError::KindsOverlap {
                        action: entry.name.name.clone(),
                        span: entry.span,
                        previous,
                        kinds: (entry.kind.keyword(), kind.keyword()),
                        params_differ: false,
                    });
                }
            }
            let mut body = Body::of_automaton(Mode::Initializer, id);
            let mut params = Vec::new();
            for (k, param) in entry.params.iter().enumerate() {
                match param {
                    ast::SigParam::Formal(f) => {
                        let earlier = entry.params[..k].iter().find_map(|p| match p {
                            ast::SigParam::Formal(e) if e.name.name == f.name.name => {
                                Some(e.name.span)
                            }
                            _ => None,
                        });
                        if let Some(previous) = earlier {
                            self.error(CheckError::Duplicate {
                                what: "parameter",
                                name: f.name.name.clone(),
                                span: f.name.span,
                                previous,
                            });
                        }
                        let ty = self.resolve_type(&f.ty);
                        body.bind(&f.name.name, ty.clone(), "an action parameter");
                        params.push(ActionParam {
                            name: f.name.name.clone(),
                            ty,
                            fixed: None,
                        });
                    }
                    ast::SigParam::Const(e) => {
                        let fixed = self.expr(&mut body, e);
                        let local = format!("_{k}");
                        body.bind(&local, fixed.ty.clone(), "an action parameter");
                        // `const i` is named `i` where the universe (`fail.i = …`) and a
                        // composite's signature see it, unless a formal parameter has the name.
                        let name = match &e.kind {
                            ast::ExprKind::Name(id)
                                if !entry.params.iter().any(|p| {
                                    matches!(p, ast::SigParam::Formal(f) if f.name.name == id.name)
                                }) && !params.iter().any(|p: &ActionParam| p.name == id.name) =>
                            {
                                id.name.clone()
                            }
                            _ => local,
                        };
                        params.push(ActionParam {
                            name,
                            ty: fixed.ty.clone(),
                            fixed: Some(fixed),
                        });
                    }
                }
            }
            let where_clause = entry
                .where_clause
                .as_ref()
                .map(|w| self.bool_expr(&mut body, w));
            if let Some(prev) = actions.iter().find(|a| a.name == entry.name.name) {
                let same =
                    prev.params.len() == params.len()
                        && prev.params.iter().zip(&params).all(|(x, y)| {
                            self.unifier.unify(&x.ty, &y.ty, &self.spec.types).is_ok()
                        });
                if !same {
                    let (previous, kind) = (prev.span, prev.kind);
                    self.error(CheckError::KindsOverlap {
                        action: entry.name.name.clone(),
                        span: entry.span,
                        previous,
                        kinds: (entry.kind.keyword(), kind.keyword()),
                        params_differ: true,
                    });
                }
            }
            actions.push(Action {
                name: entry.name.name.clone(),
                kind: entry.kind,
                params,
                where_clause,
                n_locals: body.n_locals,
                span: entry.span,
            });
        }
        let mut state = Vec::new();
        for s in &p.states {
            if let Some(&prev) = self.state_names[id.0 as usize].get(&s.name.name) {
                let previous: Span = state
                    .get(prev as usize)
                    .map(|v: &VarDecl| v.span)
                    .unwrap_or(s.span);
                self.error(CheckError::Duplicate {
                    what: "state variable",
                    name: s.name.name.clone(),
                    span: s.name.span,
                    previous,
                });
                continue;
            }
            let ty = self.resolve_type(&s.ty);
            self.state_names[id.0 as usize].insert(s.name.name.clone(), state.len() as u32);
            state.push(VarDecl {
                name: s.name.name.clone(),
                ty,
                init: None,
                span: s.span,
            });
        }
        let aut = &mut self.spec.automata[id.0 as usize];
        aut.actions = actions;
        aut.body = AutomatonBody::Primitive(Primitive {
            state,
            so_that: None,
            init_locals: 0,
            transitions: vec![],
            tasks: vec![],
        });
    }

    /// Checks composites (components and inherited actions) and the bodies of primitives.
    pub(crate) fn check_automaton_bodies(&mut self, items: &[&Item]) {
        let decls: FxHashMap<String, &ast::AutomatonDecl> = items
            .iter()
            .filter_map(|i| match i {
                Item::Automaton(a) => Some((a.name.name.clone(), a)),
                _ => None,
            })
            .collect();
        let mut done = FxHashSet::default();
        for item in items {
            let Item::Automaton(a) = item else { continue };
            let Some(&id) = self.automaton_names.get(&a.name.name) else {
                continue;
            };
            if self.spec.automata[id.0 as usize].span != a.span {
                continue; // a duplicate declaration, already reported
            }
            match &a.body {
                ast::AutomatonBody::Composite(c) => {
                    self.composite(id, c, &decls, &mut done, &mut Vec::new())
                }
                ast::AutomatonBody::Primitive(p) => self.primitive_bodies(id, p),
            }
        }
    }

    fn composite(
        &mut self,
        id: AutomatonId,
        c: &ast::Composite,
        decls: &FxHashMap<String, &ast::AutomatonDecl>,
        done: &mut FxHashSet<AutomatonId>,
        visiting: &mut Vec<AutomatonId>,
    ) {
        if done.contains(&id) {
            return;
        }
        if visiting.contains(&id) {
            let a = &self.spec.automata[id.0 as usize];
            let error = CheckError::RecursiveType {
                what: "automaton",
                name: a.name.clone(),
                span: a.span,
            };
            self.error(error);
            return;
        }
        visiting.push(id);
        let mut components = Vec::new();
        for comp in &c.components {
            if let Some(&prev) = self.component_names[id.0 as usize].get(&comp.name.name) {
                let previous = components
                    .get(prev as usize)
                    .map(|c: &Component| c.span)
                    .unwrap_or(comp.span);
                self.error(CheckError::Duplicate {
                    what: "component",
                    name: comp.name.name.clone(),
                    span: comp.name.span,
                    previous,
                });
                continue;
            }
            let Some(target) = self.automaton(&comp.automaton) else {
                continue;
            };
            if let Some(inner) = decls.get(&comp.automaton.name) {
                if let ast::AutomatonBody::Composite(ic) = &inner.body {
                    self.composite(target, ic, decls, done, visiting);
                }
            }
            let mut body = Body::of_automaton(Mode::Initializer, id);
            let mut indices = Vec::new();
            for p in &comp.indices {
                let ty = self.resolve_type(&p.ty);
                body.bind(&p.name.name, ty.clone(), "a component index");
                indices.push(VarDecl {
                    name: p.name.name.clone(),
                    ty,
                    init: None,
                    span: p.name.span,
                });
            }
            let target_params: Vec<Type> = self.spec.automata[target.0 as usize]
                .params
                .iter()
                .map(|p| p.ty.clone())
                .collect();
            if target_params.len() != comp.args.len() {
                self.error(CheckError::WrongArity {
                    what: format!("automaton `{}`", comp.automaton.name),
                    expected: target_params.len(),
                    found: comp.args.len(),
                    span: comp.span,
                });
            }
            let args = comp
                .args
                .iter()
                .zip(&target_params)
                .map(|(a, t)| self.typed_expr(&mut body, a, t))
                .collect();
            let where_clause = comp
                .where_clause
                .as_ref()
                .map(|w| self.bool_expr(&mut body, w));
            self.component_names[id.0 as usize]
                .insert(comp.name.name.clone(), components.len() as u32);
            components.push(Component {
                name: comp.name.name.clone(),
                indices,
                automaton: target,
                args,
                where_clause,
                n_locals: body.n_locals,
                span: comp.span,
            });
        }
        let (actions, members) = self.inherited_actions(&components, c);
        self.spec.automata[id.0 as usize].actions = actions;
        let mut hidden = Vec::new();
        for h in &c.hidden {
            let Some(action) = self.action(id, &h.name) else {
                continue;
            };
            let decl = self.spec.automata[id.0 as usize].actions[action.0 as usize].clone();
            let mut body = Body::of_automaton(Mode::Initializer, id);
            let const_args = self.action_args(&mut body, &decl, &h.args, true, h.span);
            let where_clause = h
                .where_clause
                .as_ref()
                .map(|w| self.bool_expr(&mut body, w));
            if decl.kind == ast::ActionKind::Input {
                let takers: Vec<String> = members
                    .get(action.0 as usize)
                    .into_iter()
                    .flatten()
                    .map(|&(k, _)| components[k as usize].name.clone())
                    .collect();
                self.warnings.push(CheckError::HiddenUncontrolled {
                    action: decl.name.clone(),
                    automaton: self.spec.automata[id.0 as usize].name.clone(),
                    takers,
                    span: h.span,
                });
            }
            if h.args.is_empty() && where_clause.is_none() {
                self.spec.automata[id.0 as usize].actions[action.0 as usize].kind =
                    ast::ActionKind::Internal;
            }
            hidden.push(Hidden {
                action,
                const_args,
                where_clause,
                n_locals: body.n_locals,
                span: h.span,
            });
        }
        let network = c.network.as_ref().map(|n| self.network(id, n, &components));
        self.spec.automata[id.0 as usize].body = AutomatonBody::Composite(Composite {
            components,
            action_members: members,
            hidden,
            network,
        });
        visiting.pop();
        done.insert(id);
    }

    /// Resolves a `network` clause to component indices, reporting names that are not
    /// components (E0420) and components named twice (E0107).
    fn network(
        &mut self,
        id: AutomatonId,
        clause: &ast::NetworkClause,
        components: &[Component],
    ) -> Network {
        let mut indices: Vec<u32> = Vec::new();
        for name in &clause.components {
            match self.component_names[id.0 as usize].get(&name.name) {
                Some(&k) if indices.contains(&k) => {
                    let previous = clause
                        .components
                        .iter()
                        .find(|n| n.name == name.name)
                        .map_or(name.span, |n| n.span);
                    self.error(CheckError::Duplicate {
                        what: "network component",
                        name: name.name.clone(),
                        span: name.span,
                        previous,
                    });
                }
                Some(&k) => indices.push(k),
                None => {
                    let names: Vec<String> = components.iter().map(|c| c.name.clone()).collect();
                    let suggestion = suggest(&name.name, names.iter().map(|s| s.as_str()));
                    self.error(CheckError::NotAComponent {
                        name: name.name.clone(),
                        automaton: self.spec.automata[id.0 as usize].name.clone(),
                        components: names,
                        span: name.span,
                        suggestion,
                    });
                }
            }
        }
        Network {
            components: indices,
            span: clause.span,
        }
    }

    #[allow(clippy::type_complexity)]
    fn inherited_actions(
        &mut self,
        components: &[Component],
        c: &ast::Composite,
    ) -> (Vec<Action>, Vec<Vec<(u32, ActionId)>>) {
        let mut actions: Vec<Action> = Vec::new();
        let mut members: Vec<Vec<(u32, ActionId)>> = Vec::new();
        for (ci, comp) in components.iter().enumerate() {
            let comp_actions = self.spec.automata[comp.automaton.0 as usize]
                .actions
                .clone();
            for (ai, a) in comp_actions.iter().enumerate() {
                let member = (ci as u32, ActionId(ai as u32));
                match actions.iter().position(|x| x.name == a.name) {
                    None => {
                        let params = a
                            .params
                            .iter()
                            .map(|p| ActionParam {
                                name: p.name.clone(),
                                ty: p.ty.clone(),
                                fixed: None,
                            })
                            .collect();
                        actions.push(Action {
                            name: a.name.clone(),
                            kind: a.kind,
                            params,
                            where_clause: None,
                            n_locals: 0,
                            span: a.span,
                        });
                        members.push(vec![member]);
                    }
                    Some(k) => {
                        let same = actions[k].params.len() == a.params.len()
                            && actions[k]
                                .params
                                .iter()
                                .zip(&a.params)
                                .all(|(x, y)| x.ty == y.ty);
                        if !same {
                            let show = |ps: &[ActionParam], me: &Self| {
                                ps.iter()
                                    .map(|p| me.show(&p.ty))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            };
                            let first = show(&actions[k].params, self);
                            let second = show(&a.params, self);
                            let span = c.components.get(ci).map(|d| d.span).unwrap_or(a.span);
                            self.error(CheckError::ComponentActionConflict {
                                action: a.name.clone(),
                                span,
                                first,
                                second,
                            });
                            continue;
                        }
                        if a.kind == ast::ActionKind::Output
                            || (a.kind == ast::ActionKind::Internal
                                && actions[k].kind == ast::ActionKind::Input)
                        {
                            actions[k].kind = a.kind;
                        }
                        members[k].push(member);
                    }
                }
            }
        }
        (actions, members)
    }

    /// Binds the names in a transition head (or proof entry, or hidden clause) to the action's
    /// parameters as locals `0..n`, returning the `const` arguments as checks.
    pub(crate) fn action_args(
        &mut self,
        body: &mut Body,
        decl: &Action,
        args: &[ActionArg],
        allow_unnamed: bool,
        span: Span,
    ) -> Vec<(u32, ir::Expr)> {
        if allow_unnamed && args.is_empty() && !decl.params.is_empty() {
            // `hidden send` / `for internal act ignore` without names: bind nothing visible.
            for p in &decl.params {
                body.bind(&format!("{}#", p.name), p.ty.clone(), "an action parameter");
            }
            return vec![];
        }
        if args.len() != decl.params.len() {
            self.error(CheckError::WrongArity {
                what: format!("action `{}`", decl.name),
                expected: decl.params.len(),
                found: args.len(),
                span,
            });
        }
        let mut consts = Vec::new();
        let mut pending = Vec::new();
        for (k, p) in decl.params.iter().enumerate() {
            match args.get(k) {
                Some(ActionArg::Bind { name, ty }) => {
                    if let Some(written) = ty {
                        let wt = self.resolve_type(written);
                        if self.unifier.unify(&wt, &p.ty, &self.spec.types).is_err() {
                            let expected = self.show(&p.ty);
                            let found = self.show(&wt);
                            self.error(CheckError::Mismatch {
                                expected,
                                found,
                                span: written.span,
                                because: Some((
                                    decl.span,
                                    format!(
                                        "parameter {} of `{}` in its signature",
                                        k + 1,
                                        decl.name
                                    ),
                                )),
                            });
                        }
                    }
                    let earlier = args[..k].iter().find_map(|a| match a {
                        ActionArg::Bind { name: e, .. } if e.name == name.name => Some(e.span),
                        _ => None,
                    });
                    if let Some(previous) = earlier {
                        self.error(CheckError::Duplicate {
                            what: "parameter",
                            name: name.name.clone(),
                            span: name.span,
                            previous,
                        });
                    }
                    body.bind(&name.name, p.ty.clone(), "an action parameter");
                }
                Some(ActionArg::Const(e)) => {
                    body.bind(&format!("_{k}"), p.ty.clone(), "an action parameter");
                    pending.push((k as u32, e, p.ty.clone()));
                }
                None => {
                    body.bind(&format!("_{k}"), p.ty.clone(), "an action parameter");
                }
            }
        }
        for (k, e, ty) in pending {
            let e = self.typed_expr(body, e, &ty);
            consts.push((k, e));
        }
        consts
    }

    fn primitive_bodies(&mut self, id: AutomatonId, p: &ast::Primitive) {
        // Initial values and `so that`.
        let mut init_body = Body::of_automaton(Mode::Initializer, id);
        let mut inits = Vec::new();
        for s in &p.states {
            let Some(&slot) = self.state_names[id.0 as usize].get(&s.name.name) else {
                continue;
            };
            if let Some(init) = &s.init {
                let ty = self.state_type(id, slot);
                let e = self.typed_expr(&mut init_body, init, &ty);
                inits.push((slot, e));
            }
        }
        let so_that = p.so_that.as_ref().map(|e| {
            init_body.state_visible = true;
            self.bool_expr(&mut init_body, e)
        });
        // Transitions.
        let actions = self.spec.automata[id.0 as usize].actions.clone();
        let mut transitions: Vec<Transition> = Vec::new();
        let mut first_of: FxHashMap<u32, (Span, Option<String>)> = FxHashMap::default();
        for t in &p.transitions {
            let Some(action) = self.action_of_kind(id, &t.name, t.kind) else {
                continue;
            };
            let decl = &actions[action.0 as usize];
            if decl.kind != t.kind {
                self.error(CheckError::KindMismatch {
                    action: decl.name.clone(),
                    declared: decl.kind.keyword(),
                    used: t.kind.keyword(),
                    span: t.name.span,
                });
            }
            let case = t.case.as_ref().map(|c| c.name.clone());
            // Several transitions of one action need no labels (the manual's style: their
            // `where` clauses and preconditions tell them apart); two with the same label do.
            if let Some((prev, _)) = first_of.get(&action.0) {
                if case.is_some()
                    && transitions
                        .iter()
                        .any(|x| x.action == action && x.case == case)
                {
                    self.error(CheckError::DuplicateTransition {
                        action: decl.name.clone(),
                        span: t.name.span,
                        previous: *prev,
                    });
                }
            } else {
                first_of.insert(action.0, (t.name.span, case.clone()));
            }
            let mut body = Body::of_automaton(Mode::Effect, id);
            let const_args = self.action_args(&mut body, decl, &t.args, false, t.span);
            body.state_writable = false;
            let where_clause = t
                .where_clause
                .as_ref()
                .map(|w| self.bool_expr(&mut body, w));
            let mut pre = Vec::new();
            if let Some(pe) = &t.pre {
                if t.kind == ast::ActionKind::Input {
                    self.error(CheckError::PreOnInput {
                        action: decl.name.clone(),
                        span: pe.span,
                    });
                }
                for conj in conjuncts(pe) {
                    pre.push(self.bool_expr(&mut body, conj));
                }
            }
            body.state_writable = true;
            let mut eff = self.stmts(&mut body, &t.eff);
            if let Some(p) = &t.ensuring {
                eff = self.ensuring(&mut body, id, eff, p);
            }
            transitions.push(Transition {
                action,
                case,
                const_args,
                where_clause,
                pre,
                eff,
                n_locals: body.n_locals,
                local_names: body.local_names.clone(),
                span: t.span,
            });
        }
        for (k, a) in actions.iter().enumerate() {
            if !first_of.contains_key(&(k as u32)) {
                self.error(CheckError::MissingTransition {
                    action: a.name.clone(),
                    span: a.span,
                });
            }
        }
        // Tasks.
        let mut tasks = Vec::new();
        for task in &p.tasks {
            let mut body = Body::of_automaton(Mode::Predicate, id);
            for b in &task.bound {
                let ty = self.resolve_type(&b.ty);
                body.bind(&b.name.name, ty, "a task variable");
            }
            let mut members = Vec::new();
            for ta in &task.actions {
                let Some(action) = self.action(id, &ta.name) else {
                    continue;
                };
                let decl = actions[action.0 as usize].clone();
                // A task names an action: every entry of that name (input and output ones).
                members.extend(
                    (0..actions.len())
                        .filter(|&k| k != action.0 as usize && actions[k].name == decl.name)
                        .map(|k| ActionId(k as u32)),
                );
                if !ta.args.is_empty() && ta.args.len() != decl.params.len() {
                    self.error(CheckError::WrongArity {
                        what: format!("action `{}`", decl.name),
                        expected: decl.params.len(),
                        found: ta.args.len(),
                        span: ta.name.span,
                    });
                }
                for (a, p) in ta.args.iter().zip(&decl.params) {
                    self.typed_expr(&mut body, a, &p.ty);
                }
                members.push(action);
            }
            if let Some(w) = &task.where_clause {
                self.bool_expr(&mut body, w);
            }
            tasks.push(ir::Task {
                actions: members,
                span: task.span,
            });
        }
        if let AutomatonBody::Primitive(prim) = &mut self.spec.automata[id.0 as usize].body {
            for (slot, e) in inits {
                prim.state[slot as usize].init = Some(e);
            }
            prim.so_that = so_that;
            prim.init_locals = init_body.n_locals;
            prim.transitions = transitions;
            prim.tasks = tasks;
        }
    }
}

/// Splits `a ∧ b ∧ c` into its conjuncts, so that a failing precondition can name the one that
/// failed.
fn conjuncts(e: &ast::Expr) -> Vec<&ast::Expr> {
    match &e.kind {
        ast::ExprKind::Binary(ast::BinOp::And, l, r) => {
            let mut out = conjuncts(l);
            out.extend(conjuncts(r));
            out
        }
        _ => vec![e],
    }
}

fn is_builtin_type(name: &str) -> bool {
    matches!(
        name,
        "Bool"
            | "Int"
            | "Nat"
            | "String"
            | "Char"
            | "Real"
            | "Set"
            | "Mset"
            | "Seq"
            | "Array"
            | "Map"
            | "Null"
    )
}

fn mentions_any(t: &ast::TypeExpr, names: &FxHashSet<String>) -> bool {
    names.contains(&t.name.name) || t.args.iter().any(|a| mentions_any(a, names))
}

fn direct_named(def: &TypeDef) -> Vec<TypeId> {
    fn walk(t: &Type, out: &mut Vec<TypeId>) {
        match t {
            Type::Named(id) => out.push(*id),
            Type::Set(e) | Type::Mset(e) | Type::Seq(e) | Type::Null(e) => walk(e, out),
            Type::Array(k, v) | Type::Map(k, v) => {
                walk(k, out);
                walk(v, out);
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    match &def.kind {
        TypeDefKind::Tuple(fs) | TypeDefKind::Union(fs) => {
            fs.iter().for_each(|(_, t)| walk(t, &mut out))
        }
        TypeDefKind::Enumeration(_) => {}
    }
    out
}
