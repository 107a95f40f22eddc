//! Checking what is declared about automata: invariants, liveness properties, forward
//! simulations with their proof blocks, and schedules.

use super::scope::{Body, Mode};
use super::{CheckError, Checker};
use crate::ast::{self, Item, SourceFile};
use crate::ir::{
    AutomatonId, Invariant, Liveness, ProofBlock, ProofEntry, Schedule, SimParam, Simulation,
    Temporal, VarDecl,
};
use crate::span::{FileId, Span};
use rustc_hash::FxHashMap;

impl Checker {
    /// Checks invariants, simulations and schedules, file by file (a schedule without `for`
    /// drives the automaton declared last before it in the same file).
    pub(crate) fn check_toplevel(&mut self, files: &[(FileId, SourceFile)]) {
        let mut names: FxHashMap<(&'static str, String), Span> = FxHashMap::default();
        let mut unnamed_schedules = 0;
        for (_, file) in files {
            let mut last_automaton: Option<&ast::Ident> = None;
            for item in &file.items {
                match item {
                    Item::Automaton(a) => last_automaton = Some(&a.name),
                    Item::Invariant(inv) => {
                        // Invariant names are scoped by automaton: `Cons` and `Global1` may both
                        // have a `DecidedInitiated`.
                        let key = format!("{}.{}", inv.automaton.name, inv.name.name);
                        if let Some(previous) = names.insert(("invariant", key), inv.name.span) {
                            let name = format!("{} of {}", inv.name.name, inv.automaton.name);
                            self.error(CheckError::Duplicate {
                                what: "invariant",
                                name,
                                span: inv.name.span,
                                previous,
                            });
                        }
                        self.invariant(inv);
                    }
                    Item::Liveness(l) => {
                        // Scoped by automaton, like invariants.
                        let key = format!("{}.{}", l.automaton.name, l.name.name);
                        if let Some(previous) = names.insert(("liveness", key), l.name.span) {
                            let name = format!("{} of {}", l.name.name, l.automaton.name);
                            self.error(CheckError::Duplicate {
                                what: "liveness property",
                                name,
                                span: l.name.span,
                                previous,
                            });
                        }
                        self.liveness(l);
                    }
                    Item::Simulation(sim) => {
                        let name = sim
                            .name
                            .as_ref()
                            .map(|n| n.name.clone())
                            .unwrap_or_else(|| format!("{}_to_{}", sim.from.name, sim.to.name));
                        let span = sim
                            .name
                            .as_ref()
                            .map(|n| n.span)
                            .unwrap_or(sim.from.span.to(sim.to.span));
                        self.unique(&mut names, "simulation", &name, span);
                        self.simulation(sim, name);
                    }
                    Item::Schedule(s) => {
                        let name = match &s.name {
                            Some(n) => n.name.clone(),
                            None => {
                                unnamed_schedules += 1;
                                if unnamed_schedules == 1 {
                                    "schedule".to_string()
                                } else {
                                    format!("schedule{unnamed_schedules}")
                                }
                            }
                        };
                        let span = s.name.as_ref().map(|n| n.span).unwrap_or(s.span);
                        self.unique(&mut names, "schedule", &name, span);
                        let target = s.target.as_ref().or(last_automaton);
                        self.schedule(s, name, target);
                    }
                    Item::Import(_) | Item::Type(_) => {}
                }
            }
        }
        self.check_using(files);
    }

    /// Every name in a `using` clause is an invariant of the automaton concerned (checked once
    /// all invariants are known: declarations may come in any order).
    fn check_using(&mut self, files: &[(FileId, SourceFile)]) {
        for (_, file) in files {
            for item in &file.items {
                let (automaton, using) = match item {
                    Item::Invariant(inv) => (&inv.automaton, &inv.using),
                    Item::Simulation(sim) => (&sim.from, &sim.using),
                    _ => continue,
                };
                let Some(names) = using else { continue };
                let declared: Vec<String> = self
                    .spec
                    .invariants
                    .iter()
                    .filter(|i| self.spec.automata[i.automaton.0 as usize].name == automaton.name)
                    .map(|i| i.name.clone())
                    .collect();
                let mut errors = Vec::new();
                for n in names {
                    if !declared.contains(&n.name) {
                        let suggestion = declared
                            .iter()
                            .filter(|d| strsim::levenshtein(d, &n.name) <= 2)
                            .map(|d| d.to_string())
                            .next();
                        errors.push(CheckError::UnknownInvariant {
                            name: n.name.clone(),
                            automaton: automaton.name.clone(),
                            span: n.span,
                            suggestion,
                        });
                    }
                }
                for e in errors {
                    self.error(e);
                }
                if let Item::Simulation(sim) = item {
                    self.check_entry_using(sim, &declared);
                }
            }
        }
    }

    /// A proof entry's `using` names invariants of the implementation that the simulation's own
    /// `using` lists (all of them when it has none).
    fn check_entry_using(&mut self, sim: &ast::SimulationDecl, declared: &[String]) {
        let Some(proof) = &sim.proof else { return };
        let allowed: Vec<String> = match &sim.using {
            Some(names) => names.iter().map(|n| n.name.clone()).collect(),
            None => declared.to_vec(),
        };
        let simulation = sim
            .name
            .as_ref()
            .map(|n| n.name.clone())
            .unwrap_or_else(|| format!("{} to {}", sim.from.name, sim.to.name));
        for entry in &proof.entries {
            for n in entry.using.iter().flatten() {
                if !declared.contains(&n.name) {
                    let suggestion = declared
                        .iter()
                        .find(|d| strsim::levenshtein(d, &n.name) <= 2)
                        .cloned();
                    self.error(CheckError::UnknownInvariant {
                        name: n.name.clone(),
                        automaton: sim.from.name.clone(),
                        span: n.span,
                        suggestion,
                    });
                } else if !allowed.contains(&n.name) {
                    self.error(CheckError::EntryAssumesUnlisted {
                        name: n.name.clone(),
                        simulation: simulation.clone(),
                        span: n.span,
                    });
                }
            }
        }
    }

    fn unique(
        &mut self,
        names: &mut FxHashMap<(&'static str, String), Span>,
        what: &'static str,
        name: &str,
        span: Span,
    ) {
        if let Some(previous) = names.insert((what, name.to_string()), span) {
            self.error(CheckError::Duplicate {
                what,
                name: name.to_string(),
                span,
                previous,
            });
        }
    }

    fn invariant(&mut self, inv: &ast::InvariantDecl) {
        let Some(a) = self.automaton(&inv.automaton) else {
            return;
        };
        let mut body = Body::of_automaton(Mode::Predicate, a);
        let expr = self.bool_expr(&mut body, &inv.body);
        self.spec.invariants.push(Invariant {
            name: inv.name.name.clone(),
            automaton: a,
            body: expr,
            using: names_of(&inv.using),
            n_locals: body.n_locals,
            span: inv.span,
        });
    }

    /// A liveness property: each predicate is a Boolean over the automaton's state, checked
    /// like an invariant's body (one scope, so their quantified variables share the locals).
    fn liveness(&mut self, l: &ast::LivenessDecl) {
        let Some(a) = self.automaton(&l.automaton) else {
            return;
        };
        let mut body = Body::of_automaton(Mode::Predicate, a);
        let property = match &l.property {
            ast::Temporal::Eventually(p) => Temporal::Eventually(self.bool_expr(&mut body, p)),
            ast::Temporal::LeadsTo(p, q) => {
                let p = self.bool_expr(&mut body, p);
                let q = self.bool_expr(&mut body, q);
                Temporal::LeadsTo(p, q)
            }
        };
        self.spec.liveness.push(Liveness {
            name: l.name.name.clone(),
            automaton: a,
            property,
            n_locals: body.n_locals,
            span: l.span,
        });
    }

    fn simulation(&mut self, sim: &ast::SimulationDecl, name: String) {
        let from = self.automaton(&sim.from);
        let to = self.automaton(&sim.to);
        let (Some(from), Some(to)) = (from, to) else {
            return;
        };
        let params = self.header_params(sim, from, to);
        let header: Vec<_> = params
            .iter()
            .map(|p| (p.name.clone(), p.ty.clone(), p.binds[0]))
            .collect();
        let mut body = Body::new(Mode::Predicate);
        body.qualified = vec![from, to];
        body.header_params = header.clone();
        let relation = self.bool_expr(&mut body, &sim.relation);
        let relation_locals = body.n_locals;
        let proof = sim
            .proof
            .as_ref()
            .map(|p| self.proof_block(p, from, to, &header));
        self.spec.simulations.push(Simulation {
            name,
            from,
            to,
            params,
            relation,
            using: names_of(&sim.using),
            relation_locals,
            proof,
            span: sim.span,
        });
    }

    /// The names of a simulation's header (`from ABP(k) to Spec(k)`): one per parameter of
    /// each automaton whose arguments are given (E0201 when their number differs); a name given
    /// to several parameters names parameters of one type (E0422), which then have one value.
    fn header_params(
        &mut self,
        sim: &ast::SimulationDecl,
        from: AutomatonId,
        to: AutomatonId,
    ) -> Vec<SimParam> {
        let mut out: Vec<SimParam> = Vec::new();
        for (aut, ident, args) in [
            (from, &sim.from, &sim.from_args),
            (to, &sim.to, &sim.to_args),
        ] {
            let Some(args) = args else { continue };
            let decl = self.spec.automata[aut.0 as usize].clone();
            if args.len() != decl.params.len() {
                self.error(CheckError::WrongArity {
                    what: format!("automaton `{}` in the simulation's header", ident.name),
                    expected: decl.params.len(),
                    found: args.len(),
                    span: ident.span,
                });
                continue;
            }
            for (k, (arg, p)) in args.iter().zip(&decl.params).enumerate() {
                let bind = (aut, k as u32);
                match out.iter_mut().find(|q| q.name == arg.name) {
                    Some(q) if q.ty != p.ty => {
                        let (fa, fk) = q.binds[0];
                        let first_aut = &self.spec.automata[fa.0 as usize];
                        let first = format!(
                            "{}.{}: {}",
                            first_aut.name,
                            first_aut.params[fk as usize].name,
                            self.show(&q.ty)
                        );
                        let second = format!("{}.{}: {}", decl.name, p.name, self.show(&p.ty));
                        self.error(CheckError::HeaderParamTypes {
                            name: arg.name.clone(),
                            first,
                            second,
                            span: arg.span,
                        });
                    }
                    Some(q) => {
                        if !q.binds.contains(&bind) {
                            q.binds.push(bind);
                        }
                    }
                    None => out.push(SimParam {
                        name: arg.name.clone(),
                        ty: p.ty.clone(),
                        binds: vec![bind],
                        span: arg.span,
                    }),
                }
            }
        }
        out
    }

    fn aux_vars(&mut self, decls: &[ast::StateDecl], body: &mut Body) -> Vec<VarDecl> {
        let mut out: Vec<VarDecl> = Vec::new();
        for d in decls {
            if let Some(prev) = out.iter().find(|v| v.name == d.name.name) {
                let previous = prev.span;
                self.error(CheckError::Duplicate {
                    what: "variable",
                    name: d.name.name.clone(),
                    span: d.name.span,
                    previous,
                });
                continue;
            }
            let ty = self.resolve_type(&d.ty);
            let init = d.init.as_ref().map(|e| self.typed_expr(body, e, &ty));
            body.aux.push((d.name.name.clone(), ty.clone(), d.span));
            out.push(VarDecl {
                name: d.name.name.clone(),
                ty,
                init,
                span: d.span,
            });
        }
        out
    }

    fn proof_block(
        &mut self,
        p: &ast::ProofBlock,
        from: AutomatonId,
        to: AutomatonId,
        header: &[(String, crate::ir::Type, (AutomatonId, u32))],
    ) -> ProofBlock {
        let mut start_body = Body::new(Mode::ProofStart);
        start_body.qualified = vec![from, to];
        start_body.header_params = header.to_vec();
        start_body.qualified_writable = Some(to);
        let aux = self.aux_vars(&p.states, &mut start_body);
        let start = self.stmts(&mut start_body, &p.start);
        let n_actions = self.spec.automata[from.0 as usize].actions.len();
        let mut entries: Vec<Option<ProofEntry>> = vec![None; n_actions];
        let mut seen: FxHashMap<u32, Span> = FxHashMap::default();
        for e in &p.entries {
            let Some(action) = self.action_of_kind(from, &e.name, e.kind) else {
                continue;
            };
            let decl = self.spec.automata[from.0 as usize].actions[action.0 as usize].clone();
            if decl.kind != e.kind {
                self.error(CheckError::KindMismatch {
                    action: decl.name.clone(),
                    declared: decl.kind.keyword(),
                    used: e.kind.keyword(),
                    span: e.name.span,
                });
            }
            if let Some(previous) = seen.insert(action.0, e.span) {
                self.error(CheckError::Duplicate {
                    what: "proof entry for action",
                    name: decl.name.clone(),
                    span: e.name.span,
                    previous,
                });
                continue;
            }
            let mut body = Body::new(Mode::ProofEntry);
            body.qualified = vec![from, to];
            body.header_params = header.to_vec();
            body.aux = start_body.aux.clone();
            body.fire_target = Some(to);
            self.action_args(&mut body, &decl, &e.args, e.body.is_none(), e.span);
            let stmts = e.body.as_ref().map(|b| self.stmts(&mut body, b));
            entries[action.0 as usize] = Some(ProofEntry {
                body: stmts,
                using: names_of(&e.using),
                n_locals: body.n_locals,
                span: e.span,
            });
        }
        let from_actions = self.spec.automata[from.0 as usize].actions.clone();
        for (k, a) in from_actions.iter().enumerate() {
            if entries[k].is_none() && !seen.contains_key(&(k as u32)) {
                self.error(CheckError::MissingProofEntry {
                    action: a.name.clone(),
                    span: p.span,
                });
            }
        }
        ProofBlock {
            aux,
            start,
            start_locals: start_body.n_locals,
            entries,
        }
    }

    fn schedule(&mut self, s: &ast::ScheduleDecl, name: String, target: Option<&ast::Ident>) {
        let Some(target) = target else {
            self.error(CheckError::ScheduleWithoutTarget { span: s.span });
            return;
        };
        let Some(a) = self.automaton(target) else {
            return;
        };
        let mut body = Body::of_automaton(Mode::Schedule, a);
        body.state_writable = false;
        body.fire_target = Some(a);
        let vars = self.aux_vars(&s.states, &mut body);
        let stmts = self.stmts(&mut body, &s.body);
        self.spec.schedules.push(Schedule {
            name,
            automaton: a,
            vars,
            body: stmts,
            n_locals: body.n_locals,
            span: s.span,
        });
    }
}

fn names_of(using: &Option<Vec<ast::Ident>>) -> Option<Vec<String>> {
    using
        .as_ref()
        .map(|names| names.iter().map(|n| n.name.clone()).collect())
}
