//! The interpreter's [`Machine`] as a [`Model`]: its action instances, successors with every
//! resolution of `choose`, invariant checks, fingerprints (canonical under a [`Symmetry`] if one
//! is given), and the re-execution of a path into a replayable [`Trace`].
//!
//! **Action instances.** An action with parameters stands for one instance per combination of
//! argument values: each parameter ranges over the universe's candidates for it
//! (`abstain.B = …`) or else over its type's carrier, exactly as random runs sample them. The
//! list is built once; a state's successors come from testing each instance's enabledness.
//!
//! **Nondeterministic choices.** A `choose` in an effect or an initial value is explored by
//! branching over all its candidates. A step is executed under a *script* of candidate
//! indices: choices past the end of the script take candidate 0, and the chooser records how
//! many candidates each choice had. The scripts are then enumerated like an odometer (raise the
//! last choice that has another candidate, drop what follows), re-executing the step once per
//! combination. A successor's step stores its script, shortened to its last non-zero index, so
//! the common case (no choice, or the first candidate) costs nothing.

use crate::explore::Model;
use crate::fingerprint::{fingerprint, Fingerprint};
use crate::symmetry::Symmetry;
use interpreter::error::{EvalResult, RunError};
use interpreter::eval::Chooser;
use interpreter::machine::{Machine, State};
use interpreter::param_guard::{Allowed, ParamGuard};
use interpreter::trace::{Trace, TraceStep};
use interpreter::value::Value;
use ioa_lang::span::Span;

/// One action with its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionInstance {
    /// The action's position in [`Machine::actions`].
    pub action: usize,
    /// Its arguments.
    pub args: Vec<Value>,
}

/// Every instance of every action of the machine, in action order and, within an action, with
/// the last parameter varying slowest.
pub fn action_instances(machine: &Machine) -> EvalResult<Vec<ActionInstance>> {
    let root = &machine.spec.automata[machine.root.0 as usize];
    let mut out = Vec::new();
    for (action, a) in machine.actions.iter().enumerate() {
        let span = root.actions.get(action).map(|x| x.span).unwrap_or_default();
        let mut carriers = Vec::new();
        for (ty, name) in a.param_types.iter().zip(&a.param_names) {
            carriers.push(match machine.universe.param_candidates(&a.name, name) {
                Some(c) => c,
                None => machine.carrier(ty, span)?,
            });
        }
        let total: usize = carriers.iter().map(|c| c.len()).product();
        for mut index in 0..total {
            let mut args = Vec::with_capacity(carriers.len());
            for c in &carriers {
                args.push(c[index % c.len()].clone());
                index /= c.len();
            }
            out.push(ActionInstance { action, args });
        }
    }
    Ok(out)
}

/// How a state was reached: an action instance (or [`MachineStep::START`] for a start state)
/// and the script of `choose` indices that resolved its choices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineStep {
    /// The position in [`MachineModel::instances`], or [`MachineStep::START`].
    pub instance: u32,
    /// Candidate indices of the step's choices, in order; missing ones are 0.
    pub choices: Box<[u32]>,
}

impl MachineStep {
    /// The `instance` of a step that builds a start state.
    pub const START: u32 = u32::MAX;
}

/// What went wrong while exploring a machine.
#[derive(Debug, Clone)]
pub enum MachineError {
    /// Building a start state, or testing `so that` on it, failed.
    Start(RunError),
    /// Testing enabledness of, or executing, an action instance failed.
    Step {
        /// The instance (position in [`MachineModel::instances`]).
        instance: u32,
        /// What went wrong.
        error: RunError,
    },
    /// Evaluating an invariant failed.
    Invariant {
        /// Its index in the spec.
        invariant: usize,
        /// What went wrong.
        error: RunError,
    },
    /// Re-executing a step did not reproduce it (a bug: execution should be deterministic).
    Diverged {
        /// The step of the path (0 = the start state; 0 also when expanding a state).
        step: usize,
    },
}

impl std::fmt::Display for MachineError {
    /// The underlying error's diagnostic message (for a one-line reason; the full diagnostic,
    /// with its span, comes from the error itself).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use ioa_lang::diagnostics::IntoDiagnostic;
        match self {
            MachineError::Start(e) => write!(f, "{}", e.to_diagnostic().message),
            MachineError::Step { error, .. } => write!(f, "{}", error.to_diagnostic().message),
            MachineError::Invariant { error, .. } => {
                write!(f, "{}", error.to_diagnostic().message)
            }
            MachineError::Diverged { step } => write!(
                f,
                "re-executing step {step} did not reproduce it (a bug in ioa: please report it)"
            ),
        }
    }
}

/// A chooser that follows a script of candidate indices and records every choice it makes.
pub(crate) struct Scripted<'a> {
    script: &'a [u32],
    /// For every choice made: the index taken and the number of candidates.
    made: Vec<(u32, u32)>,
}

impl<'a> Scripted<'a> {
    pub(crate) fn new(script: &'a [u32]) -> Self {
        Scripted {
            script,
            made: Vec::new(),
        }
    }

    /// The next script in odometer order, if any: raise the last choice that has another
    /// candidate and drop the choices after it.
    pub(crate) fn next_script(&self) -> Option<Vec<u32>> {
        let last = self.made.iter().rposition(|&(k, n)| k + 1 < n)?;
        let mut next: Vec<u32> = self.made[..last].iter().map(|&(k, _)| k).collect();
        next.push(self.made[last].0 + 1);
        Some(next)
    }

    /// The indices taken, as traces record them.
    pub(crate) fn picks(&self) -> Vec<usize> {
        self.made.iter().map(|&(k, _)| k as usize).collect()
    }
}

impl Chooser for Scripted<'_> {
    fn choose(&mut self, span: Span, candidates: &[Value]) -> EvalResult<Value> {
        let k = self.take(span, candidates.len())?;
        Ok(candidates[k].clone())
    }

    fn choose_index(&mut self, span: Span, n: usize) -> Option<EvalResult<usize>> {
        Some(self.take(span, n))
    }
}

impl Scripted<'_> {
    /// The script's next position among `n` candidates (the first when the script has ended),
    /// recorded as made.
    fn take(&mut self, span: Span, n: usize) -> EvalResult<usize> {
        let k = self.script.get(self.made.len()).copied().unwrap_or(0);
        if k as usize >= n {
            return Err(RunError::UnresolvedChoice { span });
        }
        self.made.push((k, n as u32));
        Ok(k as usize)
    }
}

/// A machine ready to be explored.
pub struct MachineModel<'m, 's> {
    machine: &'m Machine<'s>,
    instances: Vec<ActionInstance>,
    symmetry: Option<Symmetry>,
    /// Per action, the parameter its precondition binds to a collection, if any: instances
    /// whose parameter is outside it are skipped without evaluating their preconditions.
    guards: Vec<Option<ParamGuard<'s>>>,
}

impl<'m, 's> MachineModel<'m, 's> {
    /// The model of `machine`, reduced by `symmetry` if given.
    pub fn new(machine: &'m Machine<'s>, symmetry: Option<Symmetry>) -> EvalResult<Self> {
        Ok(MachineModel {
            machine,
            instances: action_instances(machine)?,
            symmetry,
            guards: (0..machine.actions.len())
                .map(|a| machine.param_guard(a))
                .collect(),
        })
    }

    /// The same model evaluating every instance's precondition, without skipping instances
    /// excluded by a parameter guard (for tests that compare the two).
    pub fn without_param_guards(mut self) -> Self {
        self.guards.iter_mut().for_each(|g| *g = None);
        self
    }

    /// The machine.
    pub fn machine(&self) -> &'m Machine<'s> {
        self.machine
    }

    /// Every action instance, in the order successors are generated.
    pub fn instances(&self) -> &[ActionInstance] {
        &self.instances
    }

    /// For instance `instance` disabled in `state`: the participant and span of the conjunct
    /// (or `where` clause) the interpreter finds false; `None` when it is enabled or the
    /// interpreter says otherwise.
    pub fn false_conjunct(
        &self,
        state: &[Value],
        instance: usize,
    ) -> Option<(usize, ioa_lang::span::Span)> {
        let i = self.instances.get(instance)?;
        match self.machine.enabled(state, i.action, &i.args, false) {
            Ok(Err(interpreter::machine::Disabled::Precondition { instance, span, .. })) => {
                Some((instance, span))
            }
            _ => None,
        }
    }

    /// Re-executes `steps` from the given state (not a start state of the model: a state of a
    /// live run) into a trace that starts there, with each step's `choose` indices.
    pub fn trace_from(
        &self,
        start: State,
        steps: &[MachineStep],
    ) -> Result<(Trace, Vec<Vec<usize>>), MachineError> {
        let mut trace = Trace::start(start);
        let mut choices = Vec::new();
        for (k, step) in steps.iter().enumerate() {
            let (next, kind, picks) =
                self.replay_step(trace.states.last().expect("start"), step, k + 1)?;
            let instance = &self.instances[step.instance as usize];
            choices.push(picks);
            trace.steps.push(TraceStep {
                action: instance.action,
                kind,
                args: instance.args.clone(),
            });
            trace.states.push(next);
        }
        Ok((trace, choices))
    }

    /// Executes one step of a path on `current`: the next state, the action's kind and the
    /// `choose` indices taken.
    fn replay_step(
        &self,
        current: &State,
        step: &MachineStep,
        at: usize,
    ) -> Result<(State, ioa_lang::ast::ActionKind, Vec<usize>), MachineError> {
        let instance = self
            .instances
            .get(step.instance as usize)
            .ok_or(MachineError::Diverged { step: at })?;
        let error = |error| MachineError::Step {
            instance: step.instance,
            error,
        };
        let plan = self
            .machine
            .enabled(current, instance.action, &instance.args, false)
            .map_err(error)?
            .map_err(|_| MachineError::Diverged { step: at })?;
        let kind = self
            .machine
            .kind_of(instance.action, &instance.args)
            .map_err(error)?;
        let mut ch = Scripted::new(&step.choices);
        let next = self
            .machine
            .execute(current, plan, &mut ch)
            .map_err(error)?;
        Ok((next, kind, ch.picks()))
    }

    /// Re-executes a path (as [`crate::explore::Verdict`]s report them) into a trace, with the
    /// `choose` indices of every step in the form `ioa run --trace` records them.
    pub fn trace(&self, path: &[MachineStep]) -> Result<(Trace, Vec<Vec<usize>>), MachineError> {
        let Some((first, rest)) = path.split_first() else {
            return Err(MachineError::Diverged { step: 0 });
        };
        let mut ch = Scripted::new(&first.choices);
        let start = self
            .machine
            .initial_state(&mut ch)
            .map_err(MachineError::Start)?;
        let mut choices = vec![ch.picks()];
        let mut trace = Trace::start(start);
        for (k, step) in rest.iter().enumerate() {
            let current = trace.states.last().expect("non-empty");
            let (next, kind, picks) = self.replay_step(current, step, k + 1)?;
            let instance = &self.instances[step.instance as usize];
            choices.push(picks);
            trace.steps.push(TraceStep {
                action: instance.action,
                kind,
                args: instance.args.clone(),
            });
            trace.states.push(next);
        }
        Ok((trace, choices))
    }
}

impl Model for MachineModel<'_, '_> {
    type State = State;
    type Step = MachineStep;
    type Property = usize;
    type Error = MachineError;

    fn initial_states(&self, out: &mut Vec<(MachineStep, State)>) -> Result<(), MachineError> {
        let mut script: Vec<u32> = Vec::new();
        loop {
            let mut ch = Scripted::new(&script);
            let state = self
                .machine
                .initial_state(&mut ch)
                .map_err(MachineError::Start)?;
            // Start states that violate `so that` are not start states.
            if self
                .machine
                .so_that_holds(&state)
                .map_err(MachineError::Start)?
                .is_none()
            {
                let step = MachineStep {
                    instance: MachineStep::START,
                    choices: script.clone().into(),
                };
                out.push((step, state));
            }
            match ch.next_script() {
                Some(next) => script = next,
                None => return Ok(()),
            }
        }
    }

    fn successors(
        &self,
        state: &State,
        out: &mut Vec<(MachineStep, State)>,
    ) -> Result<(), MachineError> {
        self.successors_of(state, &mut |_| true, out)
    }

    fn check(&self, state: &State) -> Result<Option<usize>, MachineError> {
        self.machine
            .failing_invariant(state)
            .map_err(|(invariant, error)| MachineError::Invariant { invariant, error })
    }

    fn fingerprint(&self, state: &State) -> Fingerprint {
        match &self.symmetry {
            Some(s) => s.canonical_fingerprint(state),
            None => fingerprint(state),
        }
    }
}

impl MachineModel<'_, '_> {
    /// The successors of `state` by the instances `keep` admits (positions in
    /// [`MachineModel::instances`]), in instance order, with every resolution of `choose`.
    pub fn successors_of(
        &self,
        state: &State,
        keep: &mut dyn FnMut(usize) -> bool,
        out: &mut Vec<(MachineStep, State)>,
    ) -> Result<(), MachineError> {
        let allowed: Vec<Option<Allowed>> = self
            .guards
            .iter()
            .map(|g| g.as_ref().map(|g| self.machine.allowed(state, g)))
            .collect();
        for (k, instance) in self.instances.iter().enumerate() {
            if !keep(k) {
                continue;
            }
            if let (Some(guard), Some(allowed)) =
                (&self.guards[instance.action], &allowed[instance.action])
            {
                if !allowed.admits(&instance.args[guard.param]) {
                    continue;
                }
            }
            let error = |error| MachineError::Step {
                instance: k as u32,
                error,
            };
            let enabled = |m: &Machine| m.enabled(state, instance.action, &instance.args, false);
            let mut plan = match enabled(self.machine).map_err(error)? {
                Ok(plan) => Some(plan),
                Err(_) => continue,
            };
            let mut script: Vec<u32> = Vec::new();
            loop {
                // A plan is used up by executing it; further branches ask for it again.
                let p = match plan.take() {
                    Some(p) => p,
                    None => enabled(self.machine)
                        .map_err(error)?
                        .map_err(|_| MachineError::Diverged { step: 0 })?,
                };
                let mut ch = Scripted::new(&script);
                let next = self.machine.execute(state, p, &mut ch).map_err(error)?;
                let step = MachineStep {
                    instance: k as u32,
                    choices: script.clone().into(),
                };
                out.push((step, next));
                match ch.next_script() {
                    Some(s) => script = s,
                    None => break,
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Scripted;
    use interpreter::eval::Chooser;
    use interpreter::value::Value;

    #[test]
    fn scripts_enumerate_every_combination_of_choices() {
        let two = [Value::Int(0), Value::Int(1)];
        let three = [Value::Int(0), Value::Int(1), Value::Int(2)];
        let mut script = Vec::new();
        let mut seen = Vec::new();
        loop {
            let mut ch = Scripted::new(&script);
            let a = ch.choose(Default::default(), &two).unwrap();
            let b = ch.choose(Default::default(), &three).unwrap();
            seen.push((a, b));
            match ch.next_script() {
                Some(s) => script = s,
                None => break,
            }
        }
        assert_eq!(seen.len(), 6);
        assert_eq!(seen[5], (Value::Int(1), Value::Int(2)));
    }
}
