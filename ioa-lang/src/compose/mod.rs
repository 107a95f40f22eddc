//! Flattening: every composite automaton of a [`Spec`] replaced, in place, by one primitive
//! automaton with the same meaning, so that the provers (which reason about one state and one
//! transition relation) take composites.
//!
//! This is the IOA toolkit's "composer". The flat automaton keeps the composite's id, name,
//! parameters and actions (same [`ActionId`]s and kinds). Its state has a variable `C.x` for
//! each variable `x` of a single component `C`, and `P.x: Array[I, T]` for a family `P[i: I]`
//! (nested arrays for several indices). A composite action becomes one transition per case of
//! the member that controls it (its output or internal action): the precondition says that the
//! member takes part (its `const` parameters, its signature's `where`, the family's `where` for
//! its index) and that the case is enabled; the effect is the controller's effect on its slice,
//! then each input member's effect under its own participation and case conditions
//! (`if … then … elseif … fi`, in case order, as the interpreter tries cases). A member's index is
//! the action argument that a `const` parameter sets to it; an input family whose index is not
//! given that way is updated by a `for k: I where … do … od` loop, whose iterations touch
//! different entries, so the provers' pointwise loop encoding applies. A one-index family whose
//! controlling member the arguments do not name (a link's `recv(const mod(i + 1, n))`) gets the
//! same loop for its effect, under the precondition that exactly one member takes part and its
//! case is enabled (two controllers disable an instance in the interpreter too). Invariants,
//! simulation relations, proof blocks and schedules that read `P[i].x` read `P.x[i]` instead.
//!
//! Entries of a family's arrays outside the family's `where` clause belong to no member: no step
//! changes them and start conditions say nothing about them (beyond a `constant` initial value),
//! so an invariant should guard its indices by the clause, as LCR's do.

mod error;
mod references;
mod rewrite;
mod terms;

pub use error::FlattenError;

use crate::ast::{ActionKind, Quantifier};
use crate::ir::{
    Action, ActionId, AutomatonBody, AutomatonId, BinOp, Component, Composite, Expr, ExprKind,
    PlaceStep, Primitive, Spec, Stmt, StmtKind, Transition, Type, TypeDefKind, VarDecl, VarRef,
};
use crate::span::Span;
use references::fix_references;
use rewrite::{any_node, reads_local, Rewrite};
use std::cell::RefCell;
use std::collections::HashMap;
use terms::{conj, conj_true, constant_of, disj, eq, exists, index_into, local, not, wrap};

/// The name of the flat variable for variable `var` of component `component`: `P.x`.
pub fn flat_name(component: &str, var: &str) -> String {
    format!("{component}.{var}")
}

/// A copy of `spec` in which every composite automaton is primitive (see the module docs), or
/// what could not be flattened.
pub fn flatten(spec: &Spec) -> Result<Spec, Vec<FlattenError>> {
    let (out, errors) = flatten_what_can_be(spec);
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// A copy of `spec` with every composite that can be flattened flattened; the others (and
/// composites of them) stay composite, and the errors say why. For a command that needs only
/// some automata: it reports the errors when one of those is still composite.
pub fn flatten_what_can_be(spec: &Spec) -> (Spec, Vec<FlattenError>) {
    let mut out = spec.clone();
    let mut done = vec![false; spec.automata.len()];
    let mut bases = HashMap::new();
    let mut errors = Vec::new();
    for k in 0..spec.automata.len() {
        flatten_one(
            &mut out,
            AutomatonId(k as u32),
            &mut done,
            &mut bases,
            &mut errors,
        );
    }
    // One construct may stop several transitions (a controller's cases, the input-only
    // instances): report it once.
    let mut unique: Vec<FlattenError> = Vec::new();
    for e in errors {
        if !unique.contains(&e) {
            unique.push(e);
        }
    }
    fix_references(&mut out, &bases);
    (out, unique)
}

/// For each flattened automaton, the first flat slot of each component.
type Bases = HashMap<AutomatonId, Vec<u32>>;

fn flatten_one(
    out: &mut Spec,
    id: AutomatonId,
    done: &mut [bool],
    bases: &mut Bases,
    errors: &mut Vec<FlattenError>,
) {
    if done[id.0 as usize] {
        return;
    }
    done[id.0 as usize] = true;
    let AutomatonBody::Composite(c) = &out.automata[id.0 as usize].body else {
        return;
    };
    let c = c.clone();
    for comp in &c.components {
        flatten_one(out, comp.automaton, done, bases, errors);
    }
    let (prim, b, mut errs) = {
        let mut builder = Builder {
            spec: out,
            composite: &c,
            actions: &out.automata[id.0 as usize].actions,
            bases: Vec::new(),
            errors: RefCell::new(Vec::new()),
        };
        let prim = builder.build();
        (prim, builder.bases, builder.errors.into_inner())
    };
    match prim {
        Some(prim) if errs.is_empty() => {
            out.automata[id.0 as usize].body = AutomatonBody::Primitive(prim);
            bases.insert(id, b);
        }
        _ => errors.append(&mut errs),
    }
}

struct Builder<'a> {
    spec: &'a Spec,
    composite: &'a Composite,
    actions: &'a [Action],
    bases: Vec<u32>,
    errors: RefCell<Vec<FlattenError>>,
}

/// A running allocation of local slots for one flat transition (or the start condition).
struct Locals {
    next: u32,
    names: Vec<String>,
}

impl Locals {
    fn alloc(&mut self, n: u32, names: &[String]) -> u32 {
        let base = self.next;
        for k in 0..n {
            self.names
                .push(names.get(k as usize).cloned().unwrap_or_default());
        }
        self.next += n;
        base
    }
}

/// One member's code moved into the flat scope.
#[derive(Clone)]
struct Ctx<'a> {
    comp: &'a Component,
    /// The component automaton's state types.
    state_types: Vec<Type>,
    base: u32,
    /// The member's index values in the flat scope (empty for a single component).
    index: Vec<Expr>,
    /// Locals below this are the action's parameters and keep their slots.
    keep: u32,
    /// Where the code's other locals move: `local + offset`.
    offset: u32,
    /// Where the binders of the component's argument and `where` expressions move.
    args_offset: u32,
}

impl Ctx<'_> {
    /// The flat read of the member's variable `slot`.
    fn member_var(&self, slot: u32, span: Span) -> Expr {
        let flat_ty = wrap(&self.state_types[slot as usize], &self.comp.indices);
        index_into(
            Expr {
                kind: ExprKind::Var(VarRef::State(self.base + slot)),
                ty: flat_ty,
                span,
            },
            &self.index,
        )
    }

    /// A component argument or `where` clause (over the indices) in the flat scope.
    fn arg_expr(&self, e: &Expr) -> Expr {
        let n_idx = self.comp.indices.len() as u32;
        let read = |r: &VarRef, node: &Expr| match r {
            VarRef::Local(k) if *k < n_idx => self.index[*k as usize].clone(),
            VarRef::Local(k) => local(*k + self.args_offset, node),
            _ => node.clone(),
        };
        let shift = |k: u32| k + self.args_offset;
        Rewrite {
            read: &read,
            local: &shift,
            place: &|r| (r.clone(), vec![]),
        }
        .expr(e)
    }

    fn map_local(&self, k: u32) -> u32 {
        if k < self.keep {
            k
        } else {
            k + self.offset
        }
    }

    fn read(&self, r: &VarRef, node: &Expr) -> Expr {
        match r {
            VarRef::State(s) => {
                let mut e = self.member_var(*s, node.span);
                e.span = node.span;
                e
            }
            VarRef::Param(p) => {
                let mut e = self.arg_expr(&self.comp.args[*p as usize]);
                e.span = node.span;
                e
            }
            VarRef::Local(k) => local(self.map_local(*k), node),
            _ => node.clone(),
        }
    }

    fn place(&self, r: &VarRef) -> (VarRef, Vec<PlaceStep>) {
        match r {
            VarRef::State(s) => (
                VarRef::State(self.base + s),
                self.index.iter().cloned().map(PlaceStep::Index).collect(),
            ),
            VarRef::Local(k) => (VarRef::Local(self.map_local(*k)), vec![]),
            other => (other.clone(), vec![]),
        }
    }

    /// Runs `f` with the rewrite of the member's code into the flat scope.
    fn rewrite<T>(&self, f: impl FnOnce(&Rewrite) -> T) -> T {
        let read = |r: &VarRef, node: &Expr| self.read(r, node);
        let shift = |k: u32| self.map_local(k);
        let place = |r: &VarRef| self.place(r);
        f(&Rewrite {
            read: &read,
            local: &shift,
            place: &place,
        })
    }

    fn expr(&self, e: &Expr) -> Expr {
        self.rewrite(|rw| rw.expr(e))
    }

    fn stmts(&self, body: &[Stmt]) -> Vec<Stmt> {
        self.rewrite(|rw| rw.stmts(body))
    }
}

/// How a member's index is known in a step.
enum Index {
    /// A single component.
    Single,
    /// Family index `k` is given by `solved[k]`.
    Solved(Vec<IndexSource>),
    /// Not given by the arguments.
    Unsolved,
}

/// Where one index of the member taking part in a step comes from.
enum IndexSource {
    /// Action argument `q` (a `const` parameter fixed to the index).
    Arg(u32),
    /// An expression over the action's arguments and the other automaton parameters, in the
    /// component automaton's scope, read off an equation of the signature's `where` clause
    /// (`where mod(b.ordering, n) = i.location` gives the index `[mod(b.ordering, n)]`).
    Where(Expr),
}

/// The action arguments that give indices (their `const` equations are implied).
fn solved_args(solved: &[IndexSource]) -> Vec<u32> {
    solved
        .iter()
        .filter_map(|s| match s {
            IndexSource::Arg(q) => Some(*q),
            IndexSource::Where(_) => None,
        })
        .collect()
}

impl Builder<'_> {
    fn primitive(&self, a: AutomatonId) -> Option<&Primitive> {
        match &self.spec.automata[a.0 as usize].body {
            AutomatonBody::Primitive(p) => Some(p),
            // An inner composite that could not be flattened; its error is reported already.
            AutomatonBody::Composite(_) => None,
        }
    }

    fn build(&mut self) -> Option<Primitive> {
        for h in &self.composite.hidden {
            if !h.const_args.is_empty() || h.where_clause.is_some() {
                self.errors.borrow_mut().push(FlattenError::PartialHiding {
                    action: self.actions[h.action.0 as usize].name.clone(),
                    span: h.span,
                });
            }
        }
        let mut state = Vec::new();
        for comp in &self.composite.components {
            let spec = self.spec;
            let AutomatonBody::Primitive(p) = &spec.automata[comp.automaton.0 as usize].body else {
                // An inner composite that could not be flattened; its error is reported already.
                return None;
            };
            self.bases.push(state.len() as u32);
            for v in &p.state {
                state.push(VarDecl {
                    name: flat_name(&comp.name, &v.name),
                    ty: wrap(&v.ty, &comp.indices),
                    init: None,
                    span: v.span,
                });
            }
        }
        let (so_that, init_locals) = self.start(&mut state)?;
        let mut transitions = Vec::new();
        for (a, members) in self.composite.action_members.iter().enumerate() {
            transitions.extend(self.action_transitions(ActionId(a as u32), members)?);
        }
        Some(Primitive {
            state,
            so_that,
            init_locals,
            transitions,
            tasks: Vec::new(),
        })
    }

    fn ctx<'c>(&self, ci: usize, comp: &'c Component) -> Option<Ctx<'c>> {
        let p = self.primitive(comp.automaton)?;
        Some(Ctx {
            comp,
            state_types: p.state.iter().map(|v| v.ty.clone()).collect(),
            base: self.bases[ci],
            index: Vec::new(),
            keep: 0,
            offset: 0,
            args_offset: 0,
        })
    }

    /// Initial values and the start condition.
    fn start(&self, state: &mut [VarDecl]) -> Option<(Option<Expr>, u32)> {
        let mut locals = Locals {
            next: 0,
            names: Vec::new(),
        };
        let mut so_that = Vec::new();
        for (ci, comp) in self.composite.components.iter().enumerate() {
            let p = self.primitive(comp.automaton)?;
            let mut ctx = self.ctx(ci, comp)?;
            let d = comp.indices.len() as u32;
            let names: Vec<String> = comp.indices.iter().map(|v| v.name.clone()).collect();
            let idx_base = locals.alloc(d, &names);
            ctx.index = index_locals(comp, idx_base);
            ctx.offset = locals.alloc(p.init_locals, &[]);
            ctx.args_offset = locals.alloc(comp.n_locals, &[]);
            let is_index = |k: u32| k >= idx_base && k < idx_base + d;
            for (slot, v) in p.state.iter().enumerate() {
                let Some(init) = &v.init else { continue };
                let e = ctx.expr(init);
                let flat = &mut state[ctx.base as usize + slot];
                if d == 0 {
                    flat.init = Some(e);
                } else if any_node(&e, &|k| matches!(k, ExprKind::Choose { .. })) {
                    // Each member chooses its own value: no single initial array says that,
                    // so the flat start leaves the entries open (more start states, which
                    // keeps every invariant proof sound).
                } else if !reads_local(&e, &is_index) {
                    flat.init = Some(constant_of(e, &comp.indices));
                } else {
                    let lhs = ctx.member_var(slot as u32, v.span);
                    so_that.push(for_members(&ctx, idx_base, eq(lhs, e, v.span)));
                }
            }
            if let Some(st) = &p.so_that {
                so_that.push(for_members(&ctx, idx_base, ctx.expr(st)));
            }
        }
        Some((conj(so_that, Span::default()), locals.next))
    }

    fn action_transitions(
        &self,
        action: ActionId,
        members: &[(u32, ActionId)],
    ) -> Option<Vec<Transition>> {
        let decl = &self.actions[action.0 as usize];
        let n_params = decl.params.len() as u32;
        let param_names: Vec<String> = decl.params.iter().map(|p| p.name.clone()).collect();
        let mut controllers = Vec::new();
        let mut inputs = Vec::new();
        for &(ci, aid) in members {
            let comp = &self.composite.components[ci as usize];
            let sig = &self.spec.automata[comp.automaton.0 as usize].actions[aid.0 as usize];
            if sig.kind == ActionKind::Input {
                inputs.push((ci, aid));
            } else {
                controllers.push((ci, aid));
            }
        }
        let mut out = Vec::new();
        // An instance that no controller takes part in is an input of the composite: enabled
        // when some input member takes part (the interpreter's rule).
        if !inputs.is_empty() {
            let mut locals = Locals {
                next: n_params,
                names: param_names.clone(),
            };
            let mut pre = Vec::new();
            for &(ci, aid) in &controllers {
                pre.push(not(self.participates_any(
                    ci,
                    aid,
                    &mut locals,
                    decl.span,
                )?));
            }
            let mut any = Vec::new();
            for &(ci, aid) in &inputs {
                any.push(self.participates_any(ci, aid, &mut locals, decl.span)?);
            }
            pre.push(disj(any, decl.span));
            let mut eff = Vec::new();
            for &(ci, aid) in &inputs {
                eff.extend(self.input_effect(action, ci, aid, &mut locals)?);
            }
            out.push(Transition {
                action,
                case: (!controllers.is_empty()).then(|| "input".to_string()),
                const_args: Vec::new(),
                where_clause: None,
                pre,
                eff,
                n_locals: locals.next,
                local_names: locals.names,
                span: decl.span,
            });
        }
        for &(ci, aid) in &controllers {
            let comp = &self.composite.components[ci as usize];
            let sig = &self.spec.automata[comp.automaton.0 as usize].actions[aid.0 as usize];
            // `None`: the member's index is found by a loop over the family (see below).
            let sources = match solve(self.spec, comp, sig) {
                Index::Single => Some(Vec::new()),
                Index::Solved(s) => Some(s),
                Index::Unsolved if comp.indices.len() == 1 => None,
                Index::Unsolved => {
                    self.errors
                        .borrow_mut()
                        .push(FlattenError::UnsolvedController {
                            action: decl.name.clone(),
                            component: comp.name.clone(),
                            span: comp.span,
                        });
                    continue;
                }
            };
            let p = self.primitive(comp.automaton)?;
            let cases: Vec<&Transition> =
                p.transitions.iter().filter(|t| t.action == aid).collect();
            for (k, t) in cases.iter().enumerate() {
                let mut locals = Locals {
                    next: n_params,
                    names: param_names.clone(),
                };
                let (index, solved, loop_var) = match &sources {
                    Some(sources) => (
                        self.solved_index(ci, sig, sources, comp.span)?,
                        solved_args(sources),
                        None,
                    ),
                    None => {
                        let (index, var) = loop_index(comp, &mut locals);
                        (index, Vec::new(), Some(var))
                    }
                };
                let mut own = self.participation(ci, aid, &index, &solved, &mut locals)?;
                let mut pre = Vec::new();
                for &(cj, bid) in &controllers {
                    if cj != ci {
                        let other = self.participates_any(cj, bid, &mut locals, t.span)?;
                        pre.push(not(other));
                    }
                }
                let mut tctx = self.ctx(ci as usize, comp)?;
                tctx.index = index;
                tctx.keep = n_params;
                tctx.offset = locals.alloc(t.n_locals.saturating_sub(n_params), &[]) - n_params;
                tctx.args_offset = locals.alloc(comp.n_locals, &[]);
                let names = &t.local_names;
                for (slot, name) in names.iter().enumerate().skip(n_params as usize) {
                    let at = (slot as u32 + tctx.offset) as usize;
                    if let Some(n) = locals.names.get_mut(at) {
                        n.clone_from(name);
                    }
                }
                own.extend(case_conditions(&tctx, t));
                let mut eff = tctx.stmts(&t.eff);
                match loop_var {
                    None => pre.extend(own),
                    // The controlling member's index is not a function of the arguments the
                    // flattener can read off (Link's `recv(const mod(i + 1, n))`): the step is
                    // enabled when exactly one member takes part (with two, the interpreter
                    // disables the instance: several controllers) and its case is enabled, and
                    // the effect is a loop over the members, which runs for that one.
                    Some(var) => {
                        let ty = comp.indices[0].ty.clone();
                        pre.push(not(self.several_members(ci, aid, &mut locals, t.span)?));
                        let cond = conj_true(own, t.span);
                        pre.push(exists(vec![(var, ty.clone())], cond.clone(), t.span));
                        eff = vec![Stmt {
                            kind: StmtKind::ForWhere {
                                var,
                                ty,
                                cond,
                                body: eff,
                            },
                            span: t.span,
                        }];
                    }
                }
                for &(cj, bid) in &inputs {
                    eff.extend(self.input_effect(action, cj, bid, &mut locals)?);
                }
                let label = match (&t.case, cases.len()) {
                    (Some(c), _) => format!("{}.{c}", comp.name),
                    (None, 1) => comp.name.clone(),
                    (None, _) => format!("{}.{}", comp.name, k + 1),
                };
                out.push(Transition {
                    action,
                    case: Some(label),
                    const_args: Vec::new(),
                    where_clause: None,
                    pre,
                    eff,
                    n_locals: locals.next,
                    local_names: locals.names,
                    span: t.span,
                });
            }
        }
        Some(out)
    }

    /// The conjuncts saying that the member `(ci, aid)` with index `index` takes part.
    fn participation(
        &self,
        ci: u32,
        aid: ActionId,
        index: &[Expr],
        solved: &[u32],
        locals: &mut Locals,
    ) -> Option<Vec<Expr>> {
        let comp = &self.composite.components[ci as usize];
        let sig = &self.spec.automata[comp.automaton.0 as usize].actions[aid.0 as usize];
        let n_params = sig.params.len() as u32;
        let mut ctx = self.ctx(ci as usize, comp)?;
        ctx.index = index.to_vec();
        ctx.keep = n_params;
        ctx.offset = locals.alloc(sig.n_locals.saturating_sub(n_params), &[]) - n_params;
        ctx.args_offset = locals.alloc(comp.n_locals, &[]);
        let mut out = Vec::new();
        if let Some(w) = &comp.where_clause {
            out.push(ctx.arg_expr(w));
        }
        for (q, p) in sig.params.iter().enumerate() {
            let Some(fixed) = &p.fixed else { continue };
            if solved.contains(&(q as u32)) {
                continue;
            }
            let arg = Expr {
                kind: ExprKind::Var(VarRef::Local(q as u32)),
                ty: p.ty.clone(),
                span: fixed.span,
            };
            out.push(eq(arg, ctx.expr(fixed), fixed.span));
        }
        if let Some(w) = &sig.where_clause {
            out.push(ctx.expr(w));
        }
        Some(out)
    }

    /// Whether some member of component `ci` takes part (for an unsolved family, `∃ k`).
    fn participates_any(
        &self,
        ci: u32,
        aid: ActionId,
        locals: &mut Locals,
        span: Span,
    ) -> Option<Expr> {
        let comp = &self.composite.components[ci as usize];
        let sig = &self.spec.automata[comp.automaton.0 as usize].actions[aid.0 as usize];
        match solve(self.spec, comp, sig) {
            Index::Single => Some(conj_true(
                self.participation(ci, aid, &[], &[], locals)?,
                span,
            )),
            Index::Solved(s) => {
                let index = self.solved_index(ci, sig, &s, span)?;
                Some(conj_true(
                    self.participation(ci, aid, &index, &solved_args(&s), locals)?,
                    span,
                ))
            }
            Index::Unsolved => {
                let names: Vec<String> = comp.indices.iter().map(|v| v.name.clone()).collect();
                let base = locals.alloc(comp.indices.len() as u32, &names);
                let index = index_locals(comp, base);
                let body = conj_true(self.participation(ci, aid, &index, &[], locals)?, span);
                let binders = comp
                    .indices
                    .iter()
                    .enumerate()
                    .map(|(k, v)| (base + k as u32, v.ty.clone()))
                    .collect();
                Some(exists(binders, body, span))
            }
        }
    }

    /// `∃ k1, k2 (k1 ≠ k2 ∧ both take part)` for the one-index family `ci` in action `aid`:
    /// two members would control the instance.
    fn several_members(
        &self,
        ci: u32,
        aid: ActionId,
        locals: &mut Locals,
        span: Span,
    ) -> Option<Expr> {
        let comp = &self.composite.components[ci as usize];
        let name = std::slice::from_ref(&comp.indices[0].name);
        let (k1, k2) = (locals.alloc(1, name), locals.alloc(1, name));
        let (i1, i2) = (index_locals(comp, k1), index_locals(comp, k2));
        let mut body = vec![not(eq(i1[0].clone(), i2[0].clone(), span))];
        body.extend(self.participation(ci, aid, &i1, &[], locals)?);
        body.extend(self.participation(ci, aid, &i2, &[], locals)?);
        let ty = comp.indices[0].ty.clone();
        Some(exists(
            vec![(k1, ty.clone()), (k2, ty)],
            conj_true(body, span),
            span,
        ))
    }

    /// An input member's part of the flat effect.
    fn input_effect(
        &self,
        action: ActionId,
        ci: u32,
        aid: ActionId,
        locals: &mut Locals,
    ) -> Option<Vec<Stmt>> {
        let comp = &self.composite.components[ci as usize];
        let sig = &self.spec.automata[comp.automaton.0 as usize].actions[aid.0 as usize];
        let n_params = sig.params.len() as u32;
        let p = self.primitive(comp.automaton)?;
        let (index, solved, loop_var) = match solve(self.spec, comp, sig) {
            Index::Single => (Vec::new(), Vec::new(), None),
            Index::Solved(s) => (
                self.solved_index(ci, sig, &s, comp.span)?,
                solved_args(&s),
                None,
            ),
            Index::Unsolved => {
                if comp.indices.len() != 1 {
                    self.errors
                        .borrow_mut()
                        .push(FlattenError::UnsolvedMultiIndex {
                            action: self.actions[action.0 as usize].name.clone(),
                            component: comp.name.clone(),
                            span: comp.span,
                        });
                    return Some(Vec::new());
                }
                let (index, var) = loop_index(comp, locals);
                (index, Vec::new(), Some(var))
            }
        };
        let part = self.participation(ci, aid, &index, &solved, locals)?;
        let mut branches = Vec::new();
        for t in p.transitions.iter().filter(|t| t.action == aid) {
            let mut tctx = self.ctx(ci as usize, comp)?;
            tctx.index = index.clone();
            tctx.keep = n_params;
            tctx.offset = locals.alloc(t.n_locals.saturating_sub(n_params), &[]) - n_params;
            tctx.args_offset = locals.alloc(comp.n_locals, &[]);
            let cond = conj(case_conditions(&tctx, t), t.span);
            let body = tctx.stmts(&t.eff);
            let last = cond.is_none();
            branches.push((cond, body, t.span));
            if last {
                // An unconditional case: later cases are never tried.
                break;
            }
        }
        if branches.is_empty() {
            return Some(Vec::new());
        }
        let cases = cases_stmt(branches);
        let span = comp.span;
        Some(match loop_var {
            None => match conj(part, span) {
                None => cases,
                Some(c) => vec![Stmt {
                    kind: StmtKind::If {
                        branches: vec![(c, cases)],
                        otherwise: Vec::new(),
                    },
                    span,
                }],
            },
            Some(var) => vec![Stmt {
                kind: StmtKind::ForWhere {
                    var,
                    ty: comp.indices[0].ty.clone(),
                    cond: conj_true(part, span),
                    body: cases,
                },
                span,
            }],
        })
    }
}

/// `if c1 then e1 elseif c2 then e2 … fi`, where a case without condition ends the chain as
/// `else`.
fn cases_stmt(branches: Vec<(Option<Expr>, Vec<Stmt>, Span)>) -> Vec<Stmt> {
    let span = branches[0].2;
    let mut conds = Vec::new();
    let mut otherwise = Vec::new();
    for (cond, body, _) in branches {
        match cond {
            Some(c) => conds.push((c, body)),
            None => {
                otherwise = body;
                break;
            }
        }
    }
    if conds.is_empty() {
        return otherwise;
    }
    vec![Stmt {
        kind: StmtKind::If {
            branches: conds,
            otherwise,
        },
        span,
    }]
}

/// A transition's `const` arguments, `where` clause and precondition in the flat scope.
fn case_conditions(ctx: &Ctx, t: &Transition) -> Vec<Expr> {
    let mut out = Vec::new();
    for (k, e) in &t.const_args {
        let ty = e.ty.clone();
        let arg = Expr {
            kind: ExprKind::Var(VarRef::Local(*k)),
            ty,
            span: e.span,
        };
        out.push(eq(arg, ctx.expr(e), e.span));
    }
    if let Some(w) = &t.where_clause {
        out.push(ctx.expr(w));
    }
    out.extend(t.pre.iter().map(|e| ctx.expr(e)));
    out
}

/// How the member of `comp` taking part in an action with signature `sig` is found: from a
/// `const` parameter fixed to the index, or from an equation of the signature's `where` clause
/// between the index parameter (or the only field of a one-field tuple index) and an expression
/// that reads neither the index nor anything but the action's arguments and the automaton's
/// other parameters.
fn solve(spec: &Spec, comp: &Component, sig: &Action) -> Index {
    if comp.indices.is_empty() {
        return Index::Single;
    }
    let mut solved = Vec::new();
    for k in 0..comp.indices.len() as u32 {
        let is_index_param = |pp: u32| {
            matches!(
                comp.args.get(pp as usize).map(|a| &a.kind),
                Some(ExprKind::Var(VarRef::Local(l))) if *l == k
            )
        };
        let found = sig.params.iter().position(|p| {
            let Some(Expr {
                kind: ExprKind::Var(VarRef::Param(pp)),
                ..
            }) = &p.fixed
            else {
                return false;
            };
            is_index_param(*pp)
        });
        if let Some(q) = found {
            solved.push(IndexSource::Arg(q as u32));
            continue;
        }
        match solve_from_where(spec, comp, sig, k, &is_index_param) {
            Some(e) => solved.push(IndexSource::Where(e)),
            None => return Index::Unsolved,
        }
    }
    Index::Solved(solved)
}

/// Index `k` read off an equation `index = e` (or `index.f = e` for a one-field tuple) among
/// the conjuncts of the signature's `where` clause.
fn solve_from_where(
    spec: &Spec,
    comp: &Component,
    sig: &Action,
    k: u32,
    is_index_param: &dyn Fn(u32) -> bool,
) -> Option<Expr> {
    let n_params = sig.params.len() as u32;
    let n_idx = comp.indices.len() as u32;
    let index_ty = &comp.indices[k as usize].ty;
    let one_field = match index_ty {
        Type::Named(id) => matches!(
            &spec.types[id.0 as usize].kind,
            TypeDefKind::Tuple(fields) if fields.len() == 1
        ),
        _ => false,
    };
    // Whether `e` may stand for the index: it reads no index, no state and no local but the
    // action's arguments.
    let usable = |e: &Expr| {
        !reads_local(e, &|l| l >= n_params)
            && !any_node(e, &|x| match x {
                ExprKind::Var(VarRef::Param(pp)) => comp
                    .args
                    .get(*pp as usize)
                    .is_none_or(|a| reads_local(a, &|l| l < n_idx)),
                ExprKind::Var(VarRef::Local(_)) => false,
                ExprKind::Var(_) => true,
                ExprKind::Quant(..) | ExprKind::SetComp { .. } | ExprKind::Choose { .. } => true,
                _ => false,
            })
    };
    let mut conjuncts = Vec::new();
    if let Some(w) = &sig.where_clause {
        split_conjuncts(w, &mut conjuncts);
    }
    for c in conjuncts {
        let ExprKind::Binary(BinOp::Eq, a, b) = &c.kind else {
            continue;
        };
        for (side, other) in [(a, b), (b, a)] {
            let solved = match &side.kind {
                ExprKind::Var(VarRef::Param(pp)) if is_index_param(*pp) => (**other).clone(),
                ExprKind::Field(x, 0) if one_field => match &x.kind {
                    ExprKind::Var(VarRef::Param(pp)) if is_index_param(*pp) => Expr {
                        kind: ExprKind::Tuple(vec![(**other).clone()]),
                        ty: index_ty.clone(),
                        span: other.span,
                    },
                    _ => continue,
                },
                _ => continue,
            };
            if usable(other) {
                return Some(solved);
            }
        }
    }
    None
}

/// The conjuncts of `e`.
fn split_conjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Binary(BinOp::And, a, b) => {
            split_conjuncts(a, out);
            split_conjuncts(b, out);
        }
        _ => out.push(e),
    }
}

impl Builder<'_> {
    /// The index values of the member taking part, in the flat scope of a step whose action
    /// parameters are locals `0..` (as `sig`'s are).
    fn solved_index(
        &self,
        ci: u32,
        sig: &Action,
        solved: &[IndexSource],
        span: Span,
    ) -> Option<Vec<Expr>> {
        let comp = &self.composite.components[ci as usize];
        let mut ctx = self.ctx(ci as usize, comp)?;
        ctx.keep = sig.params.len() as u32;
        Some(
            solved
                .iter()
                .zip(&comp.indices)
                .map(|(source, v)| match source {
                    IndexSource::Arg(q) => Expr {
                        kind: ExprKind::Var(VarRef::Local(*q)),
                        ty: v.ty.clone(),
                        span,
                    },
                    IndexSource::Where(e) => ctx.expr(e),
                })
                .collect(),
        )
    }
}

/// The index values as locals `base..`.
fn index_locals(comp: &Component, base: u32) -> Vec<Expr> {
    comp.indices
        .iter()
        .enumerate()
        .map(|(k, v)| Expr {
            kind: ExprKind::Var(VarRef::Local(base + k as u32)),
            ty: v.ty.clone(),
            span: v.span,
        })
        .collect()
}

/// A fresh local for the one index of `comp`'s family, as the index expressions and the slot
/// a loop over the family binds.
fn loop_index(comp: &Component, locals: &mut Locals) -> (Vec<Expr>, u32) {
    let var = locals.alloc(1, std::slice::from_ref(&comp.indices[0].name));
    (index_locals(comp, var), var)
}

/// `∀ idx (where(idx) ⇒ body)` over the members of a family; `body` for a single component.
fn for_members(ctx: &Ctx, idx_base: u32, body: Expr) -> Expr {
    let comp = ctx.comp;
    if comp.indices.is_empty() {
        return body;
    }
    let span = body.span;
    let body = match &comp.where_clause {
        Some(w) => Expr {
            kind: ExprKind::Binary(BinOp::Implies, Box::new(ctx.arg_expr(w)), Box::new(body)),
            ty: Type::Bool,
            span,
        },
        None => body,
    };
    let binders = comp
        .indices
        .iter()
        .enumerate()
        .map(|(k, v)| (idx_base + k as u32, v.ty.clone()))
        .collect();
    Expr {
        kind: ExprKind::Quant(Quantifier::ForAll, binders, Box::new(body)),
        ty: Type::Bool,
        span,
    }
}
