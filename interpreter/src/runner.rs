//! Running a machine: under a schedule (an NDR program), at random from a seed, or replaying a
//! recorded trace. Every reached state is checked against the root automaton's invariants.

use crate::error::{EvalResult, RunError};
use crate::eval::{Chooser, Scope};
use crate::exec::Frame;
use crate::machine::{Disabled, Machine, State};
use crate::sampler::{Cache, Sampler};
use crate::trace::{Trace, TraceStep};
use crate::value::Value;
use ioa_lang::ir::{Schedule, Stmt, StmtKind, Type};
use ioa_lang::span::Span;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// Why a run stopped.
#[derive(Debug, Clone)]
pub enum Stop {
    /// The schedule ended, or the step budget was used up.
    Completed,
    /// No action instance was enabled (random runs).
    Deadlock,
    /// A schedule fired an action that was not enabled.
    NotEnabled {
        /// The action, as a log line.
        action: String,
        /// Why.
        reason: Disabled,
        /// The `fire` statement.
        span: Span,
    },
    /// An invariant failed in the last state of the trace.
    InvariantViolated {
        /// Its index in the spec.
        invariant: usize,
    },
    /// The start state violates `so that`.
    StartRejected {
        /// The constraint.
        span: Span,
    },
    /// Evaluation failed outside a step (start state, schedule statements).
    Error(RunError),
    /// Evaluation failed while deciding or taking the next step.
    StepError(RunError),
    /// An invariant could not be evaluated in the last state.
    InvariantError {
        /// Its index in the spec.
        invariant: usize,
        /// What went wrong.
        error: RunError,
    },
    /// The step observer asked to stop (it keeps its own account of why).
    Halted,
    /// A recorded trace does not replay.
    ReplayMismatch {
        /// The step (0 = the start state).
        step: usize,
        /// What differs.
        what: String,
    },
}

/// The outcome of one run.
pub struct RunReport {
    /// What happened, up to the stop.
    pub trace: Trace,
    /// Why it stopped.
    pub stop: Stop,
    /// For each step, the indices chosen by `choose`s (for replay).
    pub choices: Vec<Vec<usize>>,
}

impl RunReport {
    /// Whether the run ended without a violation or error.
    pub fn ok(&self) -> bool {
        matches!(self.stop, Stop::Completed | Stop::Deadlock)
    }
}

/// Records the index of every choice it makes.
pub(crate) struct Recording<'a> {
    inner: &'a mut dyn FnMut(usize) -> usize,
    offered: VecDeque<Value>,
    pub(crate) picks: Vec<usize>,
    /// Whether `inner` replays recorded indices. The record has an index for every choice,
    /// including those with a single candidate, so a replay must consume one for them too;
    /// a random run must not (it would draw from the generator for nothing).
    replaying: bool,
}

impl<'a> Recording<'a> {
    /// Makes choices with `inner` (a random draw, or the least index).
    pub(crate) fn new(inner: &'a mut dyn FnMut(usize) -> usize) -> Self {
        Recording {
            inner,
            offered: VecDeque::new(),
            picks: vec![],
            replaying: false,
        }
    }

    /// Makes choices with `inner`, which hands out recorded indices in order.
    fn replaying(inner: &'a mut dyn FnMut(usize) -> usize) -> Self {
        Recording {
            replaying: true,
            ..Recording::new(inner)
        }
    }
}

impl Chooser for Recording<'_> {
    fn choose(&mut self, span: Span, candidates: &[Value]) -> EvalResult<Value> {
        if candidates.len() == 1 {
            if self.replaying {
                (self.inner)(1);
            }
            self.picks.push(0);
            return Ok(candidates[0].clone());
        }
        let k = (self.inner)(candidates.len());
        if k >= candidates.len() {
            return Err(RunError::UnresolvedChoice { span });
        }
        self.picks.push(k);
        Ok(candidates[k].clone())
    }
    fn offered(&mut self) -> Option<Value> {
        self.offered.pop_front()
    }
    fn records_offers(&self) -> bool {
        !self.replaying
    }
    fn took_offer(&mut self, index: Option<usize>) {
        if let Some(k) = index {
            self.picks.push(k);
        }
    }
}

/// How random runs pick action instances.
#[derive(Debug, Clone, Default)]
pub struct Weights {
    /// Weight by action name or by kind keyword (`input`, `output`, `internal`); default 1.
    pub by_name: Vec<(String, f64)>,
}

impl Weights {
    /// The weight of action `name` of kind `kind` (1 unless given).
    pub fn of(&self, name: &str, kind: ioa_lang::ast::ActionKind) -> f64 {
        self.by_name
            .iter()
            .find(|(n, _)| n == name)
            .or_else(|| self.by_name.iter().find(|(n, _)| n == kind.keyword()))
            .map(|(_, w)| *w)
            .unwrap_or(1.0)
    }
}

/// Runs machines.
pub struct Runner<'m, 's> {
    machine: &'m Machine<'s>,
}

/// A step callback: gets the trace after each step (for logging as the run goes).
/// It is also called once for the start state; returning `false` halts the run
/// ([`Stop::Halted`]).
pub type OnStep<'a> = &'a mut dyn FnMut(&Trace) -> bool;

impl<'m, 's> Runner<'m, 's> {
    /// A runner for a machine.
    pub fn new(machine: &'m Machine<'s>) -> Self {
        Runner { machine }
    }

    fn check_state(&self, trace: &Trace) -> Option<Stop> {
        match self
            .machine
            .failing_invariant(trace.states.last().expect("non-empty"))
        {
            Ok(Some(k)) => Some(Stop::InvariantViolated { invariant: k }),
            Ok(None) => None,
            Err((invariant, error)) => Some(Stop::InvariantError { invariant, error }),
        }
    }

    fn check_changed(&self, trace: &Trace, changed: &[bool]) -> Option<Stop> {
        match self
            .machine
            .failing_invariant_among(trace.states.last().expect("non-empty"), Some(changed))
        {
            Ok(Some(k)) => Some(Stop::InvariantViolated { invariant: k }),
            Ok(None) => None,
            Err((invariant, error)) => Some(Stop::InvariantError { invariant, error }),
        }
    }

    fn start(
        &self,
        pick: &mut dyn FnMut(usize) -> usize,
        choices: &mut Vec<Vec<usize>>,
        replaying: bool,
    ) -> Result<State, Stop> {
        let mut ch = if replaying {
            Recording::replaying(pick)
        } else {
            Recording::new(pick)
        };
        let state = self.machine.initial_state(&mut ch).map_err(Stop::Error)?;
        choices.push(ch.picks);
        match self.machine.so_that_holds(&state) {
            Ok(None) => Ok(state),
            Ok(Some(span)) => Err(Stop::StartRejected { span }),
            Err(e) => Err(Stop::Error(e)),
        }
    }

    /// Runs a schedule. `max_steps` bounds both fired steps and loop iterations.
    pub fn schedule(&self, schedule: &Schedule, max_steps: u64, on_step: OnStep) -> RunReport {
        let mut choices = Vec::new();
        let mut least = |_n: usize| 0usize;
        let state = match self.start(&mut least, &mut choices, false) {
            Ok(s) => s,
            Err(stop) => {
                return RunReport {
                    trace: Trace::start(vec![]),
                    stop,
                    choices,
                }
            }
        };
        let mut run = ScheduleRun {
            runner: self,
            trace: Trace::start(state),
            aux: Vec::new(),
            aux_types: schedule.vars.iter().map(|v| v.ty.clone()).collect(),
            budget: max_steps,
            max_steps,
            choices,
            on_step,
            pending: VecDeque::new(),
        };
        if let Some(stop) = self.check_state(&run.trace) {
            return RunReport {
                trace: run.trace,
                stop,
                choices: run.choices,
            };
        }
        if !(run.on_step)(&run.trace) {
            return run.finish(Stop::Halted);
        }
        let mut locals = vec![Value::Bool(false); schedule.n_locals as usize + 1];
        for v in &schedule.vars {
            let value = match &v.init {
                Some(e) => match run.scope_eval(e, &mut locals) {
                    Ok(x) => x,
                    Err(e) => return run.finish(Stop::Error(e)),
                },
                None => match self.machine.carrier(&v.ty, v.span) {
                    Ok(c) if !c.is_empty() => c[0].clone(),
                    Ok(_) => {
                        return run.finish(Stop::Error(RunError::EmptyChoice { span: v.span }))
                    }
                    Err(e) => return run.finish(Stop::Error(e)),
                },
            };
            run.aux.push(value);
        }
        let stop = match run.stmts(&schedule.body, &mut locals) {
            Ok(()) => Stop::Completed,
            Err(stop) => stop,
        };
        run.finish(stop)
    }

    /// One random run of at most `steps` steps from `seed`.
    pub fn random(&self, seed: u64, steps: u64, weights: &Weights, on_step: OnStep) -> RunReport {
        self.random_with(seed, steps, weights, on_step, true)
    }

    /// [`Runner::random`] deciding every action instance and every invariant afresh in every
    /// state: the reference that the incremental run must agree with, step for step.
    pub fn random_uncached(
        &self,
        seed: u64,
        steps: u64,
        weights: &Weights,
        on_step: OnStep,
    ) -> RunReport {
        self.random_with(seed, steps, weights, on_step, false)
    }

    fn random_with(
        &self,
        seed: u64,
        steps: u64,
        weights: &Weights,
        on_step: OnStep,
        incremental: bool,
    ) -> RunReport {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut choices = Vec::new();
        let state = {
            let mut pick = |n: usize| rng.random_range(0..n);
            match self.start(&mut pick, &mut choices, false) {
                Ok(s) => s,
                Err(stop) => {
                    return RunReport {
                        trace: Trace::start(vec![]),
                        stop,
                        choices,
                    }
                }
            }
        };
        let mut trace = Trace::start(state);
        if let Some(stop) = self.check_state(&trace) {
            return RunReport {
                trace,
                stop,
                choices,
            };
        }
        if !on_step(&trace) {
            return RunReport {
                trace,
                stop: Stop::Halted,
                choices,
            };
        }
        let sampler = match Sampler::new(self.machine, weights) {
            Ok(s) => s,
            Err(e) => {
                return RunReport {
                    trace,
                    stop: Stop::Error(e),
                    choices,
                }
            }
        };
        let mut cache = Cache::new(&sampler, incremental);
        let mut changed = Vec::new();
        for _ in 0..steps {
            let current = trace.states.last().expect("non-empty");
            let picked = sampler.pick_instance(self.machine, current, &mut rng, &mut cache);
            let (action, index) = match picked {
                Ok(Some(p)) => p,
                Ok(None) => {
                    return RunReport {
                        trace,
                        stop: Stop::Deadlock,
                        choices,
                    }
                }
                Err(e) => {
                    return RunReport {
                        trace,
                        stop: Stop::StepError(e),
                        choices,
                    }
                }
            };
            let taken = sampler
                .take(self.machine, current, action, index, &cache)
                .and_then(|(args, plan)| {
                    let kind = self.machine.kind_of(action, &args)?;
                    let mut pick = |n: usize| rng.random_range(0..n);
                    let mut ch = Recording::new(&mut pick);
                    let next = self.machine.execute_borrowed(current, &plan, &mut ch)?;
                    Ok((args, kind, next, ch.picks))
                });
            let (args, kind, next, picks) = match taken {
                Ok(t) => t,
                Err(e) => {
                    return RunReport {
                        trace,
                        stop: Stop::StepError(e),
                        choices,
                    }
                }
            };
            let any = crate::deps::changed(current, &next, &mut changed);
            if any {
                cache.invalidate_with(self.machine, &changed);
            }
            choices.push(picks);
            trace.steps.push(TraceStep { action, kind, args });
            trace.states.push(next);
            // Observe (log) the step before checking the state it reached, so a report of a
            // violation shows the step that caused it.
            if !on_step(&trace) {
                return RunReport {
                    trace,
                    stop: Stop::Halted,
                    choices,
                };
            }
            // The previous state satisfied every invariant: only those that read a changed
            // variable can fail now.
            let stop = if !incremental {
                self.check_state(&trace)
            } else if any {
                self.check_changed(&trace, &changed)
            } else {
                None
            };
            if let Some(stop) = stop {
                return RunReport {
                    trace,
                    stop,
                    choices,
                };
            }
        }
        RunReport {
            trace,
            stop: Stop::Completed,
            choices,
        }
    }

    /// Runs a fixed list of action instances from the start state (the least value for every
    /// choice), skipping those that are not enabled when their turn comes. Used to shrink
    /// failing runs.
    pub fn actions(&self, list: &[(usize, Vec<Value>)], on_step: OnStep) -> RunReport {
        let mut choices = Vec::new();
        let mut least = |_n: usize| 0usize;
        let state = match self.start(&mut least, &mut choices, false) {
            Ok(s) => s,
            Err(stop) => {
                return RunReport {
                    trace: Trace::start(vec![]),
                    stop,
                    choices,
                }
            }
        };
        let mut trace = Trace::start(state);
        if let Some(stop) = self.check_state(&trace) {
            return RunReport {
                trace,
                stop,
                choices,
            };
        }
        if !on_step(&trace) {
            return RunReport {
                trace,
                stop: Stop::Halted,
                choices,
            };
        }
        for (action, args) in list {
            let current = trace.states.last().expect("non-empty").clone();
            let plan = match self.machine.enabled(&current, *action, args, false) {
                Ok(Ok(p)) => p,
                Ok(Err(_)) => continue,
                Err(e) => {
                    return RunReport {
                        trace,
                        stop: Stop::StepError(e),
                        choices,
                    }
                }
            };
            let kind = match self.machine.kind_of(*action, args) {
                Ok(k) => k,
                Err(e) => {
                    return RunReport {
                        trace,
                        stop: Stop::StepError(e),
                        choices,
                    }
                }
            };
            let mut least = |_n: usize| 0usize;
            let mut ch = Recording::new(&mut least);
            let next = match self.machine.execute(&current, plan, &mut ch) {
                Ok(n) => n,
                Err(e) => {
                    return RunReport {
                        trace,
                        stop: Stop::StepError(e),
                        choices,
                    }
                }
            };
            choices.push(ch.picks);
            trace.steps.push(TraceStep {
                action: *action,
                kind,
                args: args.clone(),
            });
            trace.states.push(next);
            if !on_step(&trace) {
                return RunReport {
                    trace,
                    stop: Stop::Halted,
                    choices,
                };
            }
            if let Some(stop) = self.check_state(&trace) {
                return RunReport {
                    trace,
                    stop,
                    choices,
                };
            }
        }
        RunReport {
            trace,
            stop: Stop::Completed,
            choices,
        }
    }

    /// Re-executes a recorded run: the start state must be a start state, every step enabled,
    /// and every state equal to the recorded one.
    pub fn replay(&self, recorded: &Trace, choices: &[Vec<usize>]) -> RunReport {
        let mut step_choices = choices.iter();
        let first = step_choices.next().cloned().unwrap_or_default();
        let mut it = first.into_iter();
        let mut pick = |_n: usize| it.next().unwrap_or(usize::MAX);
        let mut all = Vec::new();
        let start = match self.start(&mut pick, &mut all, true) {
            Ok(s) => s,
            Err(stop) => {
                return RunReport {
                    trace: Trace::start(vec![]),
                    stop,
                    choices: all,
                }
            }
        };
        let mut trace = Trace::start(start);
        if recorded.states.first() != trace.states.first() {
            return RunReport {
                trace,
                stop: Stop::ReplayMismatch {
                    step: 0,
                    what: "the start state differs".into(),
                },
                choices: all,
            };
        }
        if let Some(stop) = self.check_state(&trace) {
            return RunReport {
                trace,
                stop,
                choices: all,
            };
        }
        for (k, step) in recorded.steps.iter().enumerate() {
            let current = trace.states.last().expect("non-empty").clone();
            let plan = match self
                .machine
                .enabled(&current, step.action, &step.args, true)
            {
                Ok(Ok(p)) => p,
                Ok(Err(reason)) => {
                    let action = self.machine.actions[step.action].name.to_string();
                    return RunReport {
                        trace,
                        stop: Stop::NotEnabled {
                            action,
                            reason,
                            span: Span::default(),
                        },
                        choices: all,
                    };
                }
                Err(e) => {
                    return RunReport {
                        trace,
                        stop: Stop::StepError(e),
                        choices: all,
                    }
                }
            };
            let picks = step_choices.next().cloned().unwrap_or_default();
            let mut it = picks.into_iter();
            let mut pick = |_n: usize| it.next().unwrap_or(usize::MAX);
            let mut ch = Recording::replaying(&mut pick);
            let next = match self.machine.execute(&current, plan, &mut ch) {
                Ok(n) => n,
                Err(e) => {
                    return RunReport {
                        trace,
                        stop: Stop::StepError(e),
                        choices: all,
                    }
                }
            };
            all.push(ch.picks);
            trace.steps.push(step.clone());
            trace.states.push(next);
            if recorded.states.get(k + 1) != trace.states.last() {
                let names = self.machine.slot_names();
                let recorded_state = recorded.states.get(k + 1);
                let differs: Vec<&str> = names
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| {
                        recorded_state.map(|s| s.get(*i))
                            != Some(trace.states.last().and_then(|s| s.get(*i)))
                    })
                    .map(|(_, n)| n.as_str())
                    .collect();
                return RunReport {
                    trace,
                    stop: Stop::ReplayMismatch {
                        step: k + 1,
                        what: format!("the state after it differs in: {}", differs.join(", ")),
                    },
                    choices: all,
                };
            }
            if let Some(stop) = self.check_state(&trace) {
                return RunReport {
                    trace,
                    stop,
                    choices: all,
                };
            }
        }
        RunReport {
            trace,
            stop: Stop::Completed,
            choices: all,
        }
    }
}

/// A schedule being executed.
struct ScheduleRun<'r, 'm, 's, 'c> {
    runner: &'r Runner<'m, 's>,
    trace: Trace,
    aux: Vec<Value>,
    aux_types: Vec<Type>,
    budget: u64,
    max_steps: u64,
    choices: Vec<Vec<usize>>,
    on_step: OnStep<'c>,
    /// Values yielded by the schedule's `det do … od` blocks of their own, not yet taken: the
    /// `choose`s of later steps take them in order, after their own `fire … det` values.
    pending: VecDeque<Value>,
}

impl ScheduleRun<'_, '_, '_, '_> {
    fn finish(self, stop: Stop) -> RunReport {
        RunReport {
            trace: self.trace,
            stop,
            choices: self.choices,
        }
    }

    fn root_slice(&self) -> (usize, usize) {
        let m = self.runner.machine;
        if m.instances.len() == 1 && m.instances[0].automaton == m.root {
            (0, m.instances[0].len)
        } else {
            (0, 0)
        }
    }

    fn scope_eval(&self, e: &ioa_lang::ir::Expr, locals: &mut [Value]) -> EvalResult<Value> {
        let m = self.runner.machine;
        let state = self.trace.states.last().expect("non-empty");
        let (a, b) = self.root_slice();
        let view = m.view(state);
        let scope = Scope {
            spec: m.spec,
            universe: m.universe,
            state: &state[a..b],
            params: &m.root_params,
            aux: &self.aux,
            view: &view,
        };
        scope.eval(e, locals, &mut crate::eval::NoChoice)
    }

    fn truth(&self, e: &ioa_lang::ir::Expr, locals: &mut [Value]) -> Result<bool, Stop> {
        Ok(self
            .scope_eval(e, locals)
            .map_err(Stop::Error)?
            .as_bool()
            .unwrap_or(false))
    }

    fn spend(&mut self, span: Span) -> Result<(), Stop> {
        if self.budget == 0 {
            return Err(Stop::Error(RunError::LoopLimit {
                span,
                limit: self.max_steps,
            }));
        }
        self.budget -= 1;
        Ok(())
    }

    fn stmts(&mut self, stmts: &[Stmt], locals: &mut [Value]) -> Result<(), Stop> {
        for s in stmts {
            self.stmt(s, locals)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt, locals: &mut [Value]) -> Result<(), Stop> {
        let m = self.runner.machine;
        match &s.kind {
            StmtKind::Assign { target, value } => {
                let v = self.scope_eval(value, locals).map_err(Stop::Error)?;
                let state = self.trace.states.last().expect("non-empty").clone();
                let (a, b) = self.root_slice();
                let mut root = state[a..b].to_vec();
                let view = m.view(&state);
                let mut frame = Frame {
                    spec: m.spec,
                    universe: m.universe,
                    state: &mut root,
                    state_types: &[],
                    params: &m.root_params,
                    aux: &mut self.aux,
                    aux_types: &self.aux_types,
                    view: &view,
                };
                frame
                    .assign(target, v, locals, &mut crate::eval::NoChoice, s.span)
                    .map_err(Stop::Error)
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (c, body) in branches {
                    if self.truth(c, locals)? {
                        return self.stmts(body, locals);
                    }
                }
                self.stmts(otherwise, locals)
            }
            StmtKind::ForIn {
                var,
                collection,
                body,
            } => {
                let items: Vec<Value> =
                    match self.scope_eval(collection, locals).map_err(Stop::Error)? {
                        Value::Set(x) => x.into_iter().collect(),
                        Value::Seq(x) => x.iter().cloned().collect(),
                        Value::Mset(x) => x.keys().cloned().collect(),
                        _ => vec![],
                    };
                for item in items {
                    locals[*var as usize] = item;
                    self.stmts(body, locals)?;
                }
                Ok(())
            }
            StmtKind::ForWhere {
                var,
                ty,
                cond,
                body,
            } => {
                let carrier = m.carrier(ty, s.span).map_err(Stop::Error)?;
                for item in carrier.iter() {
                    locals[*var as usize] = item.clone();
                    if self.truth(cond, locals)? {
                        self.stmts(body, locals)?;
                    }
                }
                Ok(())
            }
            StmtKind::While { cond, body } => {
                while self.truth(cond, locals)? {
                    self.spend(s.span)?;
                    self.stmts(body, locals)?;
                }
                Ok(())
            }
            StmtKind::Fire {
                action, args, det, ..
            } => {
                self.spend(s.span)?;
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.scope_eval(a, locals).map_err(Stop::Error)?);
                }
                let mut offered = VecDeque::new();
                if let Some(d) = det {
                    self.yields(d, locals, &mut offered)?;
                }
                self.fire(action.0 as usize, vals, offered, s.span)
            }
            // Only a `det do … od` block of its own puts a `yield` among a schedule's
            // statements (the checker lowers the block in place).
            StmtKind::Yield(e) => {
                let v = self.scope_eval(e, locals).map_err(Stop::Error)?;
                self.pending.push_back(v);
                Ok(())
            }
            StmtKind::Ignore | StmtKind::Ensure(_) => Ok(()),
        }
    }

    fn yields(
        &self,
        stmts: &[Stmt],
        locals: &mut [Value],
        out: &mut VecDeque<Value>,
    ) -> Result<(), Stop> {
        for s in stmts {
            match &s.kind {
                StmtKind::Yield(e) => {
                    out.push_back(self.scope_eval(e, locals).map_err(Stop::Error)?)
                }
                StmtKind::If {
                    branches,
                    otherwise,
                } => {
                    let mut taken = None;
                    for (c, b) in branches {
                        if self.truth(c, locals)? {
                            taken = Some(b);
                            break;
                        }
                    }
                    self.yields(taken.unwrap_or(otherwise), locals, out)?;
                }
                _ => {}
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
    ) -> Result<(), Stop> {
        let m = self.runner.machine;
        let current = self.trace.states.last().expect("non-empty").clone();
        let plan = match m
            .enabled(&current, action, &args, true)
            .map_err(Stop::StepError)?
        {
            Ok(p) => p,
            Err(reason) => {
                let kind = m.kind_of(action, &args).map_err(Stop::StepError)?;
                let mut t = self.trace.clone();
                t.steps.push(TraceStep { action, kind, args });
                t.states.push(current);
                let line = t.log_line(m, t.steps.len());
                return Err(Stop::NotEnabled {
                    action: line,
                    reason,
                    span,
                });
            }
        };
        let kind = m.kind_of(action, &args).map_err(Stop::StepError)?;
        let mut refuse = |_n: usize| usize::MAX;
        let mut offered = offered;
        let queued = self.pending.len();
        offered.extend(self.pending.drain(..));
        let mut ch = Recording {
            offered,
            ..Recording::new(&mut refuse)
        };
        let next = m
            .execute(&current, plan, &mut ch)
            .map_err(Stop::StepError)?;
        // The schedule's queued values this step did not take wait for the next steps.
        let left = ch.offered.len().min(queued);
        self.pending = ch.offered.split_off(ch.offered.len() - left);
        self.choices.push(ch.picks);
        self.trace.steps.push(TraceStep { action, kind, args });
        self.trace.states.push(next);
        if !(self.on_step)(&self.trace) {
            return Err(Stop::Halted);
        }
        match self.runner.check_state(&self.trace) {
            Some(stop) => Err(stop),
            None => Ok(()),
        }
    }
}
