//! An editor's view of a model: every declared name (automata, types, enumeration constants,
//! fields, actions, state variables, parameters, components, invariants, simulations,
//! schedules, bound variables) with where it is declared, and every use of a name resolved to
//! its declaration. The language server answers hover, go to definition, find references and
//! document symbols from it.
//!
//! The index is built from the surface syntax tree as written, so it exists for a model with
//! type errors too (the checker stops at the first file with errors; an editor must not).
//! Resolution follows the checker's scopes: bound variables (transition parameters,
//! quantifiers, `for`, `choose`) shadow the automaton's parameters and state variables, which
//! shadow the global names; `A.x` and `P[i].x` look `x` up in automaton `A` or in the
//! automaton of component `P`. A name that resolves to nothing is left out rather than guessed
//! (the checker reports it); a field name is resolved only when one declared type has it.

use crate::ast::*;
use crate::source_map::SourceMap;
use crate::span::{FileId, Span};
use rustc_hash::FxHashMap;

/// What kind of thing a name declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    /// `type T = …`.
    Type,
    /// A constant of an enumeration.
    EnumConstant,
    /// A field of a tuple type or a tag of a union.
    Field,
    /// `automaton A`.
    Automaton,
    /// A parameter of an automaton.
    AutomatonParameter,
    /// An action of a signature.
    Action,
    /// A state variable (of an automaton, a proof block or a schedule).
    StateVariable,
    /// A component of a composite.
    Component,
    /// `invariant I`.
    Invariant,
    /// `liveness L`.
    Liveness,
    /// `forward simulation S`.
    Simulation,
    /// `schedule S`.
    Schedule,
    /// A variable bound by a transition head, quantifier, loop, `choose` or family index.
    BoundVariable,
}

impl SymbolKind {
    /// How the kind reads in a sentence ("state variable").
    pub fn describe(self) -> &'static str {
        match self {
            SymbolKind::Type => "type",
            SymbolKind::EnumConstant => "enumeration constant",
            SymbolKind::Field => "field",
            SymbolKind::Automaton => "automaton",
            SymbolKind::AutomatonParameter => "automaton parameter",
            SymbolKind::Action => "action",
            SymbolKind::StateVariable => "state variable",
            SymbolKind::Component => "component",
            SymbolKind::Invariant => "invariant",
            SymbolKind::Liveness => "liveness property",
            SymbolKind::Simulation => "forward simulation",
            SymbolKind::Schedule => "schedule",
            SymbolKind::BoundVariable => "bound variable",
        }
    }
}

/// Index of a [`Definition`] in [`SymbolIndex::definitions`].
pub type DefinitionId = usize;

/// One declared name.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Definition {
    /// The name.
    pub name: String,
    /// What it declares.
    pub kind: SymbolKind,
    /// Where the name is written in its declaration.
    pub name_span: Span,
    /// The whole declaration.
    pub full_span: Span,
    /// The declaration's head as source text: `voted: Array[Node, Set[Ballot]]`,
    /// `internal makeBallot(b: Ballot)`, `automaton Global1`.
    pub signature: String,
    /// The declaration this one sits in (an automaton for its actions and variables).
    pub parent: Option<DefinitionId>,
}

/// A use of a name, resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Reference {
    /// Where the name is used.
    pub span: Span,
    /// What it refers to.
    pub target: DefinitionId,
}

/// Every declaration and resolved use of a model's files.
#[derive(Debug, Default, serde::Serialize)]
pub struct SymbolIndex {
    /// Declarations in source order (a parent before its children).
    pub definitions: Vec<Definition>,
    /// Uses (declarations themselves are not listed here).
    pub references: Vec<Reference>,
}

impl SymbolIndex {
    /// Builds the index of parsed files (as [`crate::CheckResult::files`] holds them).
    pub fn build(files: &[(FileId, SourceFile)], sources: &SourceMap) -> SymbolIndex {
        let mut builder = Builder {
            sources,
            index: SymbolIndex::default(),
            globals: FxHashMap::default(),
            automata: FxHashMap::default(),
            fields: FxHashMap::default(),
            locals: Vec::new(),
        };
        for (_, file) in files {
            for item in &file.items {
                builder.declare_item(item);
            }
        }
        for (_, file) in files {
            for item in &file.items {
                builder.resolve_item(item);
            }
        }
        builder.index
    }

    /// The declaration named or used at `offset` of `file`.
    pub fn definition_at(&self, file: FileId, offset: u32) -> Option<DefinitionId> {
        let covers = |span: &Span| span.file == file && span.start <= offset && offset <= span.end;
        self.references
            .iter()
            .find(|r| covers(&r.span))
            .map(|r| r.target)
            .or_else(|| self.definitions.iter().position(|d| covers(&d.name_span)))
    }

    /// Every use of a declaration, in source order of the index.
    pub fn references_to(&self, target: DefinitionId) -> impl Iterator<Item = Span> + '_ {
        self.references
            .iter()
            .filter(move |r| r.target == target)
            .map(|r| r.span)
    }

    /// The declarations written in `file`, except bound variables (an outline).
    pub fn outline(&self, file: FileId) -> impl Iterator<Item = (DefinitionId, &Definition)> {
        self.definitions
            .iter()
            .enumerate()
            .filter(move |(_, d)| d.name_span.file == file && d.kind != SymbolKind::BoundVariable)
    }
}

/// What an automaton declares, by name.
#[derive(Default)]
struct AutomatonScope {
    members: FxHashMap<String, DefinitionId>,
    actions: FxHashMap<String, DefinitionId>,
    /// Component name → the automaton it instantiates.
    component_automata: FxHashMap<String, String>,
}

struct Builder<'a> {
    sources: &'a SourceMap,
    index: SymbolIndex,
    /// Types, enumeration constants, automata, invariants, simulations, schedules.
    globals: FxHashMap<String, DefinitionId>,
    automata: FxHashMap<String, AutomatonScope>,
    /// Field name → declarations of a field of that name.
    fields: FxHashMap<String, Vec<DefinitionId>>,
    /// Bound variables in scope, innermost last.
    locals: Vec<(String, DefinitionId)>,
}

/// Where a bare name is looked up, besides bound variables and globals.
#[derive(Clone, Copy, Default)]
struct Scope<'s> {
    /// Automata whose members (parameters, state variables, components) are visible, first wins.
    automata: [Option<&'s str>; 2],
    /// Extra state (a proof block's or a schedule's own variables), by name.
    extra: Option<&'s FxHashMap<String, DefinitionId>>,
    /// The automaton whose actions `fire` and a transition head name.
    fire_target: Option<&'s str>,
}

impl Builder<'_> {
    fn define(
        &mut self,
        name: &Ident,
        kind: SymbolKind,
        full_span: Span,
        signature: String,
        parent: Option<DefinitionId>,
    ) -> DefinitionId {
        self.index.definitions.push(Definition {
            name: name.name.clone(),
            kind,
            name_span: name.span,
            full_span,
            signature,
            parent,
        });
        self.index.definitions.len() - 1
    }

    fn text(&self, span: Span) -> String {
        squash(self.sources.snippet(span))
    }

    fn refer(&mut self, span: Span, target: Option<DefinitionId>) {
        if let Some(target) = target {
            self.index.references.push(Reference { span, target });
        }
    }

    fn declare_global(&mut self, id: DefinitionId) {
        let name = self.index.definitions[id].name.clone();
        self.globals.entry(name).or_insert(id);
    }

    // ---- declarations -------------------------------------------------------------------

    fn declare_item(&mut self, item: &Item) {
        match item {
            Item::Import(_) => {}
            Item::Type(decl) => {
                let head = first_line(&self.text(decl.span));
                let id = self.define(&decl.name, SymbolKind::Type, decl.span, head, None);
                self.declare_global(id);
                match &decl.def {
                    TypeDef::Enumeration(constants) => {
                        for constant in constants {
                            let signature = format!("{}: {}", constant.name, decl.name.name);
                            let c = self.define(
                                constant,
                                SymbolKind::EnumConstant,
                                constant.span,
                                signature,
                                Some(id),
                            );
                            self.declare_global(c);
                        }
                    }
                    TypeDef::Tuple(fields) | TypeDef::Union(fields) => {
                        for field in fields {
                            let signature = format!(
                                "{}.{}: {}",
                                decl.name.name,
                                field.name.name,
                                self.text(field.ty.span)
                            );
                            let span = field.name.span.to(field.ty.span);
                            let f = self.define(
                                &field.name,
                                SymbolKind::Field,
                                span,
                                signature,
                                Some(id),
                            );
                            self.fields
                                .entry(field.name.name.clone())
                                .or_default()
                                .push(f);
                        }
                    }
                    TypeDef::Alias(_) => {}
                }
            }
            Item::Automaton(decl) => self.declare_automaton(decl),
            Item::Invariant(decl) => {
                let signature = format!("invariant {} of {}", decl.name.name, decl.automaton.name);
                let id = self.define(
                    &decl.name,
                    SymbolKind::Invariant,
                    decl.span,
                    signature,
                    None,
                );
                self.declare_global(id);
            }
            Item::Liveness(decl) => {
                let signature = format!("liveness {} of {}", decl.name.name, decl.automaton.name);
                let id = self.define(&decl.name, SymbolKind::Liveness, decl.span, signature, None);
                self.declare_global(id);
            }
            Item::Simulation(decl) => {
                if let Some(name) = &decl.name {
                    let signature = format!(
                        "forward simulation {} from {} to {}",
                        name.name, decl.from.name, decl.to.name
                    );
                    let id = self.define(name, SymbolKind::Simulation, decl.span, signature, None);
                    self.declare_global(id);
                }
            }
            Item::Schedule(decl) => {
                if let Some(name) = &decl.name {
                    let target = decl
                        .target
                        .as_ref()
                        .map(|t| format!(" for {}", t.name))
                        .unwrap_or_default();
                    let signature = format!("schedule {}{target}", name.name);
                    let id = self.define(name, SymbolKind::Schedule, decl.span, signature, None);
                    self.declare_global(id);
                }
            }
        }
    }

    fn declare_automaton(&mut self, decl: &AutomatonDecl) {
        let head_end = match &decl.body {
            AutomatonBody::Primitive(_) | AutomatonBody::Composite(_) => decl
                .params
                .last()
                .map(|p| p.ty.span.end + 1)
                .unwrap_or(decl.name.span.end),
        };
        let head = Span {
            end: head_end.min(decl.span.end),
            ..decl.span
        };
        let id = self.define(
            &decl.name,
            SymbolKind::Automaton,
            decl.span,
            self.text(head),
            None,
        );
        self.declare_global(id);
        let mut scope = AutomatonScope::default();
        for param in &decl.params {
            let signature = format!("{}: {}", param.name.name, self.text(param.ty.span));
            let span = param.name.span.to(param.ty.span);
            let p = self.define(
                &param.name,
                SymbolKind::AutomatonParameter,
                span,
                signature,
                Some(id),
            );
            scope.members.entry(param.name.name.clone()).or_insert(p);
        }
        match &decl.body {
            AutomatonBody::Primitive(body) => {
                for entry in &body.signature {
                    let signature = format!("{} {}", entry.kind.keyword(), self.text(entry.span));
                    let a = self.define(
                        &entry.name,
                        SymbolKind::Action,
                        entry.span,
                        signature,
                        Some(id),
                    );
                    scope.actions.entry(entry.name.name.clone()).or_insert(a);
                }
                for state in &body.states {
                    let signature = format!("{}: {}", state.name.name, self.text(state.ty.span));
                    let v = self.define(
                        &state.name,
                        SymbolKind::StateVariable,
                        state.span,
                        signature,
                        Some(id),
                    );
                    scope.members.entry(state.name.name.clone()).or_insert(v);
                }
            }
            AutomatonBody::Composite(body) => {
                for component in &body.components {
                    let signature = self.text(component.span);
                    let c = self.define(
                        &component.name,
                        SymbolKind::Component,
                        component.span,
                        first_line(&signature),
                        Some(id),
                    );
                    scope
                        .members
                        .entry(component.name.name.clone())
                        .or_insert(c);
                    scope.component_automata.insert(
                        component.name.name.clone(),
                        component.automaton.name.clone(),
                    );
                }
            }
        }
        self.automata.entry(decl.name.name.clone()).or_insert(scope);
    }

    // ---- resolution ---------------------------------------------------------------------

    fn resolve_item(&mut self, item: &Item) {
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

    fn local(&self, name: &str) -> Option<DefinitionId> {
        self.locals
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, id)| *id)
    }

    fn lookup(&self, name: &str, scope: Scope) -> Option<DefinitionId> {
        self.local(name)
            .or_else(|| scope.extra.and_then(|extra| extra.get(name).copied()))
            .or_else(|| {
                scope
                    .automata
                    .into_iter()
                    .flatten()
                    .find_map(|a| self.member(a, name))
            })
            .or_else(|| self.globals.get(name).copied())
    }

    fn member(&self, automaton: &str, name: &str) -> Option<DefinitionId> {
        self.automata.get(automaton)?.members.get(name).copied()
    }

    fn action(&self, automaton: &str, name: &str) -> Option<DefinitionId> {
        self.automata.get(automaton)?.actions.get(name).copied()
    }

    fn global(&self, name: &str, kind: SymbolKind) -> Option<DefinitionId> {
        self.globals
            .get(name)
            .copied()
            .filter(|id| self.index.definitions[*id].kind == kind)
    }

    fn unique_field(&self, name: &str) -> Option<DefinitionId> {
        match self.fields.get(name).map(Vec::as_slice) {
            Some([only]) => Some(*only),
            _ => None,
        }
    }
}

/// Source text on one line with runs of white space as one space.
fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most the first 120 characters, for a declaration's head.
fn first_line(text: &str) -> String {
    match text.char_indices().nth(120) {
        Some((cut, _)) => format!("{} …", &text[..cut]),
        None => text.to_string(),
    }
}
