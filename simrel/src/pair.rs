//! The paired state and the three checks of a simulation step.

use interpreter::error::RunError;
use interpreter::eval::{NoChoice, Scope, StateView};
use interpreter::exec::{update_path, Frame, PathKey};
use interpreter::machine::{collect_reads, Disabled, Machine, State};
use interpreter::value::{Printer, Value};
use ioa_lang::ast::ActionKind;
use ioa_lang::ir::{
    AutomatonId, BinOp, Expr, ExprKind, PlaceStep, ProofBlock, Simulation, Spec, Stmt, StmtKind,
    VarRef,
};
use ioa_lang::span::Span;
use std::collections::VecDeque;

/// The most iterations a `while` loop in a proof entry may make in one step.
const WHILE_LIMIT: u64 = 100_000;

/// Which check of paired execution failed.
#[derive(Debug, Clone)]
pub enum Check {
    /// The start block gave B a variable a value its declaration does not allow.
    StartNotStartState {
        /// The B variable.
        variable: String,
        /// Its initial value by B's declaration.
        declared: String,
        /// The value the start block gave it.
        given: String,
    },
    /// A fired B action is not enabled.
    NotEnabled {
        /// The B action, as `internal chooseVal([2])`.
        action: String,
        /// Why.
        reason: Disabled,
        /// The `fire` statement.
        fire: Span,
    },
    /// The fired sequence's external actions differ from A's.
    TraceMismatch {
        /// A's external image.
        expected: Vec<String>,
        /// What the entry fired.
        fired: Vec<String>,
    },
    /// The relation is false after the step (or at the start).
    Relation {
        /// The false conjunct.
        conjunct: Span,
        /// Values of the variables it reads, qualified.
        values: Vec<(String, String)>,
    },
    /// Evaluating the entry, a fired action or the relation failed.
    Error(RunError),
}

/// A failed check, with where it happened.
#[derive(Debug, Clone)]
pub struct PairFailure {
    /// The step of A (0 = the start).
    pub step: usize,
    /// A's action at that step, as a log fragment.
    pub action: Option<String>,
    /// What failed.
    pub check: Check,
}

/// Picks the first candidate of a choice (a variable's value that nothing constrains).
struct FirstValue;

impl interpreter::eval::Chooser for FirstValue {
    fn choose(&mut self, span: Span, candidates: &[Value]) -> Result<Value, RunError> {
        candidates
            .first()
            .cloned()
            .ok_or(RunError::UnresolvedChoice { span })
    }
}

/// Reads A's and B's states for qualified names (`A.x`, and `A.P[i].x` of a composite).
struct PairView<'a, 's> {
    a: AutomatonId,
    a_machine: &'a Machine<'s>,
    a_state: &'a [Value],
    b: AutomatonId,
    b_machine: &'a Machine<'s>,
    b_state: &'a [Value],
}

impl StateView for PairView<'_, '_> {
    fn qualified(&self, automaton: AutomatonId, slot: u32) -> Option<Value> {
        if automaton == self.a {
            self.a_state.get(slot as usize).cloned()
        } else if automaton == self.b {
            self.b_state.get(slot as usize).cloned()
        } else {
            None
        }
    }
    fn qualified_param(&self, automaton: AutomatonId, param: u32) -> Option<Value> {
        let machine = if automaton == self.a {
            self.a_machine
        } else if automaton == self.b {
            self.b_machine
        } else {
            return None;
        };
        machine.root_params.get(param as usize).cloned()
    }
    fn component(
        &self,
        automaton: AutomatonId,
        component: u32,
        indices: &[Value],
        slot: u32,
    ) -> Option<Value> {
        if automaton == self.a {
            self.a_machine
                .component_value(self.a_state, automaton, component, indices, slot)
        } else if automaton == self.b {
            self.b_machine
                .component_value(self.b_state, automaton, component, indices, slot)
        } else {
            None
        }
    }
}

/// A paired execution in progress.
pub struct Pair<'m, 's> {
    /// The implementation.
    pub a: &'m Machine<'s>,
    /// The specification.
    pub b: &'m Machine<'s>,
    sim: &'s Simulation,
    proof: &'s ProofBlock,
    /// B's current state.
    pub b_state: State,
    /// The proof block's auxiliary variables.
    pub aux: Vec<Value>,
    /// B's steps so far, as log lines.
    pub b_log: Vec<String>,
}

impl<'m, 's> Pair<'m, 's> {
    /// Starts paired execution from A's start state `a0`: builds B's start state from the start
    /// block and checks it, and the relation.
    pub fn start(
        spec: &'s Spec,
        sim: &'s Simulation,
        a: &'m Machine<'s>,
        b: &'m Machine<'s>,
        a0: &[Value],
    ) -> Result<Self, PairFailure> {
        let fail = |check| PairFailure {
            step: 0,
            action: None,
            check,
        };
        let proof = sim.proof.as_ref().ok_or_else(|| {
            fail(Check::Error(RunError::Undefined {
                span: sim.span,
                what: "a step correspondence: this simulation has no proof block",
            }))
        })?;
        // B's initial values; the variables without one are the start block's to set.
        let declared = b
            .declared_state(&mut NoChoice)
            .map_err(|e| fail(Check::Error(e)))?;
        let mut b_state: State = declared
            .iter()
            .map(|v| v.clone().unwrap_or(Value::Bool(false)))
            .collect();
        let mut has_value: Vec<bool> = declared.iter().map(Option::is_some).collect();
        let mut pair = Pair {
            a,
            b,
            sim,
            proof,
            b_state: Vec::new(),
            aux: Vec::new(),
            b_log: Vec::new(),
        };
        let mut locals = vec![Value::Bool(false); proof.start_locals as usize + 1];
        for v in &proof.aux {
            let value = match &v.init {
                Some(e) => pair
                    .eval_with(e, a0, &b_state, &mut locals)
                    .map_err(|e| fail(Check::Error(e)))?,
                None => a
                    .carrier(&v.ty, v.span)
                    .map_err(|e| fail(Check::Error(e)))?
                    .first()
                    .cloned()
                    .unwrap_or(Value::Bool(false)),
            };
            pair.aux.push(value);
        }
        for s in &proof.start {
            pair.start_stmt(s, a0, &mut b_state, &mut has_value, &mut locals)
                .map_err(|e| fail(Check::Error(e)))?;
        }
        // A variable without an initial value that the start block leaves unset may start
        // with any value: the first of its type's carrier.
        for k in 0..b_state.len() {
            if !has_value[k] {
                b_state[k] = b
                    .any_value_at(k, &mut FirstValue)
                    .map_err(|e| fail(Check::Error(e)))?;
            }
        }
        // Variables B declares with an initial value must keep it; the others may be anything.
        // (Every instance of a composite B: `Spec.P[1].x`.)
        let printer = Printer::new(spec);
        let names = b.slot_names();
        for inst in &b.instances {
            let ioa_lang::ir::AutomatonBody::Primitive(p) =
                &spec.automata[inst.automaton.0 as usize].body
            else {
                continue;
            };
            for k in 0..p.state.len() {
                let at = inst.offset + k;
                if declared[at].as_ref().is_some_and(|d| *d != b_state[at]) {
                    return Err(fail(Check::StartNotStartState {
                        variable: format!(
                            "{}.{}",
                            spec.automata[sim.to.0 as usize].name, names[at]
                        ),
                        declared: declared[at]
                            .as_ref()
                            .map_or(String::new(), |d| printer.show(d)),
                        given: printer.show(&b_state[at]),
                    }));
                }
            }
        }
        if let Some(span) = b
            .so_that_holds(&b_state)
            .map_err(|e| fail(Check::Error(e)))?
        {
            return Err(fail(Check::Relation {
                conjunct: span,
                values: vec![],
            }));
        }
        pair.b_state = b_state;
        pair.check_relation(a0).map_err(fail)?;
        Ok(pair)
    }

    fn view<'a>(&self, a_state: &'a [Value], b_state: &'a [Value]) -> PairView<'a, 's>
    where
        'm: 'a,
    {
        PairView {
            a: self.sim.from,
            a_machine: self.a,
            a_state,
            b: self.sim.to,
            b_machine: self.b,
            b_state,
        }
    }

    fn eval_with(
        &self,
        e: &Expr,
        a_state: &[Value],
        b_state: &[Value],
        locals: &mut [Value],
    ) -> Result<Value, RunError> {
        let view = self.view(a_state, b_state);
        let scope = Scope {
            spec: self.a.spec,
            universe: self.a.universe,
            state: &[],
            params: &[],
            aux: &self.aux,
            view: &view,
        };
        scope.eval(e, locals, &mut NoChoice)
    }

    /// Runs one statement of the start block; `has_value` says which of B's slots have a value
    /// (an initial value, or one the block gave).
    fn start_stmt(
        &mut self,
        s: &Stmt,
        a0: &[Value],
        b_state: &mut State,
        has_value: &mut [bool],
        locals: &mut [Value],
    ) -> Result<(), RunError> {
        match &s.kind {
            StmtKind::Assign { target, value } => {
                let v = self.eval_with(value, a0, b_state, locals)?;
                let mut keys = Vec::with_capacity(target.path.len());
                for step in &target.path {
                    keys.push(match step {
                        PlaceStep::Field(k) => PathKey::Field(*k as usize),
                        PlaceStep::Index(e) => {
                            PathKey::Index(self.eval_with(e, a0, b_state, locals)?)
                        }
                    });
                }
                let position = match &target.root {
                    VarRef::Qualified { slot, .. } => *slot as usize,
                    VarRef::Aux(k) => {
                        let root = &mut self.aux[*k as usize];
                        *root = update_path(root, &keys, v, s.span)?;
                        return Ok(());
                    }
                    // `B.P[i].x := …`: a variable of a member of the composite specification.
                    VarRef::Component {
                        automaton,
                        component,
                        indices,
                        slot,
                    } => {
                        let mut at = Vec::with_capacity(indices.len());
                        for i in indices {
                            at.push(self.eval_with(i, a0, b_state, locals)?);
                        }
                        self.b
                            .component_slot(*automaton, *component, &at, *slot)
                            .ok_or(RunError::Undefined {
                                span: s.span,
                                what: "a member of the specification's family that does not exist",
                            })?
                    }
                    _ => {
                        return Err(RunError::Undefined {
                            span: s.span,
                            what: "an assignment to something other than the specification's state in a start block",
                        })
                    }
                };
                if !keys.is_empty() && !has_value[position] {
                    return Err(RunError::Undefined {
                        span: s.span,
                        what: "an assignment into part of a variable that has no value yet (assign the whole variable first)",
                    });
                }
                b_state[position] = update_path(&b_state[position], &keys, v, s.span)?;
                has_value[position] = true;
                Ok(())
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (c, body) in branches {
                    if self.eval_with(c, a0, b_state, locals)?.as_bool() == Some(true) {
                        for s in body {
                            self.start_stmt(s, a0, b_state, has_value, locals)?;
                        }
                        return Ok(());
                    }
                }
                for s in otherwise {
                    self.start_stmt(s, a0, b_state, has_value, locals)?;
                }
                Ok(())
            }
            StmtKind::ForIn {
                var,
                collection,
                body,
            } => {
                for item in self.loop_items(collection, a0, b_state, locals)? {
                    locals[*var as usize] = item;
                    for s in body {
                        self.start_stmt(s, a0, b_state, has_value, locals)?;
                    }
                }
                Ok(())
            }
            StmtKind::ForWhere {
                var,
                ty,
                cond,
                body,
            } => {
                let range = self.a.universe.carrier_at(self.a.spec, ty, s.span)?;
                for item in range.iter() {
                    locals[*var as usize] = item.clone();
                    if self.eval_with(cond, a0, b_state, locals)?.as_bool() == Some(true) {
                        for s in body {
                            self.start_stmt(s, a0, b_state, has_value, locals)?;
                        }
                    }
                }
                Ok(())
            }
            StmtKind::Ignore | StmtKind::Yield(_) | StmtKind::Ensure(_) => Ok(()),
            StmtKind::While { .. } | StmtKind::Fire { .. } => Err(RunError::Undefined {
                span: s.span,
                what: "a `while` loop or a `fire` in a start block",
            }),
        }
    }

    /// The elements a `for x in S` loop visits, in value order.
    fn loop_items(
        &self,
        collection: &Expr,
        a_state: &[Value],
        b_state: &[Value],
        locals: &mut [Value],
    ) -> Result<Vec<Value>, RunError> {
        match self.eval_with(collection, a_state, b_state, locals)? {
            Value::Set(x) => Ok(x.into_iter().collect()),
            Value::Mset(m) => Ok(m
                .into_iter()
                .flat_map(|(x, n)| std::iter::repeat_n(x, n as usize))
                .collect()),
            Value::Seq(x) => Ok(x.iter().cloned().collect()),
            _ => Err(RunError::Undefined {
                span: collection.span,
                what: "a `for … in` loop over something that is not a set, multiset or sequence",
            }),
        }
    }

    /// Checks the relation between A's `a_state` and B's current state.
    fn check_relation(&self, a_state: &[Value]) -> Result<(), Check> {
        let mut locals = vec![Value::Bool(false); self.sim.relation_locals as usize + 1];
        for conj in conjuncts(&self.sim.relation) {
            let holds = self
                .eval_with(conj, a_state, &self.b_state, &mut locals)
                .map_err(Check::Error)?;
            if holds.as_bool() != Some(true) {
                return Err(Check::Relation {
                    conjunct: conj.span,
                    values: self.values_read(conj, a_state),
                });
            }
        }
        Ok(())
    }

    fn values_read(&self, e: &Expr, a_state: &[Value]) -> Vec<(String, String)> {
        let spec = self.a.spec;
        let printer = Printer::new(spec);
        let mut out: Vec<(String, String)> = Vec::new();
        collect_reads(e, &mut |r| {
            if let VarRef::Qualified { automaton, slot } = r {
                let aut = &spec.automata[automaton.0 as usize];
                let decl = match &aut.body {
                    ioa_lang::ir::AutomatonBody::Primitive(p) => &p.state[*slot as usize],
                    _ => return,
                };
                let value = if *automaton == self.sim.from {
                    &a_state[*slot as usize]
                } else {
                    &self.b_state[*slot as usize]
                };
                let name = format!("{}.{}", aut.name, decl.name);
                if !out.iter().any(|(n, _)| *n == name) {
                    out.push((name, printer.show(value)));
                }
            }
        });
        out
    }

    /// After A took `action(args)` from `a_pre` to `a_post` (its `step`-th step): runs the
    /// entry, fires B's actions, and checks the external trace and the relation.
    pub fn step(
        &mut self,
        step: usize,
        action: usize,
        kind: ActionKind,
        args: &[Value],
        a_pre: &[Value],
        a_post: &[Value],
    ) -> Result<(), PairFailure> {
        let printer = Printer::new(self.a.spec);
        let a_action = &self.a.actions[action];
        let line = format!(
            "{} {}({})",
            kind.keyword(),
            a_action.name,
            args.iter()
                .map(|v| printer.show(v))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let fail = |check| PairFailure {
            step,
            action: Some(line.clone()),
            check,
        };
        let entry = self.proof.entries.get(action).and_then(|e| e.as_ref());
        let mut fired: Vec<(String, ActionKind, String)> = Vec::new();
        if let Some(entry) = entry {
            if let Some(body) = &entry.body {
                let mut locals = args.to_vec();
                locals.resize(
                    (entry.n_locals as usize).max(args.len()) + 1,
                    Value::Bool(false),
                );
                self.run_entry(body, a_pre, &mut locals, &mut fired)
                    .map_err(fail)?;
            }
        }
        let expected: Vec<String> = if kind == ActionKind::Internal {
            vec![]
        } else {
            vec![format!(
                "{}({})",
                a_action.name,
                args.iter()
                    .map(|v| printer.show(v))
                    .collect::<Vec<_>>()
                    .join(", ")
            )]
        };
        let external: Vec<String> = fired
            .iter()
            .filter(|(_, k, _)| *k != ActionKind::Internal)
            .map(|(_, _, text)| text.clone())
            .collect();
        if expected != external {
            return Err(fail(Check::TraceMismatch {
                expected,
                fired: external,
            }));
        }
        self.check_relation(a_post).map_err(fail)
    }

    fn run_entry(
        &mut self,
        body: &[Stmt],
        a_pre: &[Value],
        locals: &mut [Value],
        fired: &mut Vec<(String, ActionKind, String)>,
    ) -> Result<(), Check> {
        for s in body {
            match &s.kind {
                StmtKind::Fire {
                    action, args, det, ..
                } => {
                    let mut vals = Vec::new();
                    for a in args {
                        vals.push(
                            self.eval_with(a, a_pre, &self.b_state.clone(), locals)
                                .map_err(Check::Error)?,
                        );
                    }
                    let mut offered = VecDeque::new();
                    if let Some(d) = det {
                        for st in d {
                            if let StmtKind::Yield(e) = &st.kind {
                                offered.push_back(
                                    self.eval_with(e, a_pre, &self.b_state.clone(), locals)
                                        .map_err(Check::Error)?,
                                );
                            }
                        }
                    }
                    self.fire(action.0 as usize, vals, offered, s.span, fired)?;
                }
                StmtKind::If {
                    branches,
                    otherwise,
                } => {
                    let mut taken = None;
                    for (c, b) in branches {
                        if self
                            .eval_with(c, a_pre, &self.b_state.clone(), locals)
                            .map_err(Check::Error)?
                            .as_bool()
                            == Some(true)
                        {
                            taken = Some(b);
                            break;
                        }
                    }
                    self.run_entry(taken.unwrap_or(otherwise), a_pre, locals, fired)?;
                }
                StmtKind::ForIn {
                    var,
                    collection,
                    body,
                } => {
                    let b_state = self.b_state.clone();
                    let items = self
                        .loop_items(collection, a_pre, &b_state, locals)
                        .map_err(Check::Error)?;
                    for item in items {
                        locals[*var as usize] = item;
                        self.run_entry(body, a_pre, locals, fired)?;
                    }
                }
                StmtKind::ForWhere {
                    var,
                    ty,
                    cond,
                    body,
                } => {
                    let range = self
                        .a
                        .universe
                        .carrier_at(self.a.spec, ty, s.span)
                        .map_err(Check::Error)?;
                    for item in range.iter() {
                        locals[*var as usize] = item.clone();
                        let b_state = self.b_state.clone();
                        let holds = self
                            .eval_with(cond, a_pre, &b_state, locals)
                            .map_err(Check::Error)?
                            .as_bool()
                            == Some(true);
                        if holds {
                            self.run_entry(body, a_pre, locals, fired)?;
                        }
                    }
                }
                StmtKind::While { cond, body } => {
                    let mut iterations = 0u64;
                    loop {
                        let b_state = self.b_state.clone();
                        let holds = self
                            .eval_with(cond, a_pre, &b_state, locals)
                            .map_err(Check::Error)?
                            .as_bool()
                            == Some(true);
                        if !holds {
                            break;
                        }
                        iterations += 1;
                        if iterations > WHILE_LIMIT {
                            return Err(Check::Error(RunError::LoopLimit {
                                span: s.span,
                                limit: WHILE_LIMIT,
                            }));
                        }
                        self.run_entry(body, a_pre, locals, fired)?;
                    }
                }
                StmtKind::Assign { target, value } => {
                    let v = self
                        .eval_with(value, a_pre, &self.b_state.clone(), locals)
                        .map_err(Check::Error)?;
                    if let VarRef::Aux(k) = target.root {
                        let mut state = Vec::new();
                        let view = self.view(a_pre, &self.b_state);
                        let aux_types: Vec<_> =
                            self.proof.aux.iter().map(|d| d.ty.clone()).collect();
                        let mut aux = std::mem::take(&mut self.aux);
                        let mut frame = Frame {
                            spec: self.a.spec,
                            universe: self.a.universe,
                            state: &mut state,
                            state_types: &[],
                            params: &[],
                            aux: &mut aux,
                            aux_types: &aux_types,
                            view: &view,
                        };
                        let result = frame.assign(target, v, locals, &mut NoChoice, s.span);
                        self.aux = aux;
                        result.map_err(Check::Error)?;
                        let _ = k;
                    } else {
                        return Err(Check::Error(RunError::Undefined {
                            span: s.span,
                            what: "an assignment in a proof entry to anything but an auxiliary variable of the proof block",
                        }));
                    }
                }
                StmtKind::Ignore | StmtKind::Yield(_) | StmtKind::Ensure(_) => {}
            }
        }
        Ok(())
    }

    fn fire(
        &mut self,
        action: usize,
        args: Vec<Value>,
        offered: VecDeque<Value>,
        span: Span,
        fired: &mut Vec<(String, ActionKind, String)>,
    ) -> Result<(), Check> {
        let printer = Printer::new(self.b.spec);
        let kind = self.b.kind_of(action, &args).map_err(Check::Error)?;
        let text = format!(
            "{}({})",
            self.b.actions[action].name,
            args.iter()
                .map(|v| printer.show(v))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let plan = match self
            .b
            .enabled(&self.b_state, action, &args, true)
            .map_err(Check::Error)?
        {
            Ok(p) => p,
            Err(reason) => {
                return Err(Check::NotEnabled {
                    action: format!("{} {text}", kind.keyword()),
                    reason,
                    fire: span,
                })
            }
        };
        let mut ch = Offered(offered);
        self.b_state = self
            .b
            .execute(&self.b_state, plan, &mut ch)
            .map_err(Check::Error)?;
        self.b_log.push(format!("{} {text}", kind.keyword()));
        fired.push((self.b.actions[action].name.clone(), kind, text));
        Ok(())
    }
}

/// Resolves B's `choose`s from a fire's `det` values.
struct Offered(VecDeque<Value>);

impl interpreter::eval::Chooser for Offered {
    fn choose(&mut self, span: Span, candidates: &[Value]) -> Result<Value, RunError> {
        if candidates.len() == 1 {
            return Ok(candidates[0].clone());
        }
        Err(RunError::UnresolvedChoice { span })
    }
    fn offered(&mut self) -> Option<Value> {
        self.0.pop_front()
    }
}

fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Binary(BinOp::And, l, r) => {
            let mut out = conjuncts(l);
            out.extend(conjuncts(r));
            out
        }
        _ => vec![e],
    }
}
