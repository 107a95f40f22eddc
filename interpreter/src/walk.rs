//! Random walks from any state, for liveness search (MaceMC §4: walks far past the reach of
//! exhaustive search, each stopping as soon as a goal predicate holds).
//!
//! A walk draws its steps exactly as `ioa run --random` does (the same sampler: weights by
//! action name or kind, drawn from each action's list of enabled instances, kept across steps
//! until a variable its preconditions read changes),
//! but starts from a given state, tests a goal after every step and reports each step as the
//! action, its instance index and the `choose` indices taken, so that the caller can turn any
//! walk into a path its explorer re-executes. It never prints and keeps no states.

use crate::error::EvalResult;
use crate::machine::{Machine, State};
use crate::runner::{Recording, Weights};
use crate::sampler::{Cache, Sampler};
use crate::value::Value;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One step of a walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkStep {
    /// The action (position in [`Machine::actions`]).
    pub action: usize,
    /// The instance's index among the action's instances (first parameter varying fastest,
    /// the order `checker::model::action_instances` uses).
    pub index: u64,
    /// The indices of the `choose` values taken, in order.
    pub picks: Vec<usize>,
}

/// Why a walk stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalkEnd {
    /// The goal held in the last state.
    Goal,
    /// No action instance was enabled.
    Deadlock,
    /// The step budget was used up without reaching the goal.
    Length,
}

/// A finished walk.
#[derive(Debug, Clone)]
pub struct Walk {
    /// The steps taken.
    pub steps: Vec<WalkStep>,
    /// Why it stopped.
    pub end: WalkEnd,
}

/// Walks a machine at random.
pub struct Walker<'m, 's> {
    machine: &'m Machine<'s>,
    sampler: Sampler<'s>,
}

impl<'m, 's> Walker<'m, 's> {
    /// A walker drawing actions with `weights` (as `ioa run --random --weights`).
    pub fn new(machine: &'m Machine<'s>, weights: &Weights) -> EvalResult<Self> {
        Ok(Walker {
            machine,
            sampler: Sampler::new(machine, weights)?,
        })
    }

    /// Walks at most `max_steps` steps from `start` with the generator seeded by `seed`,
    /// stopping when `goal` holds (tested in `start` too).
    pub fn walk(
        &self,
        start: &State,
        seed: u64,
        max_steps: u64,
        goal: &mut dyn FnMut(&[Value]) -> EvalResult<bool>,
    ) -> EvalResult<Walk> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut steps = Vec::new();
        if goal(start)? {
            return Ok(Walk {
                steps,
                end: WalkEnd::Goal,
            });
        }
        let mut cache = Cache::new(&self.sampler, true);
        let mut changed = Vec::new();
        let mut current = start.clone();
        for _ in 0..max_steps {
            let picked =
                self.sampler
                    .pick_instance(self.machine, &current, &mut rng, &mut cache)?;
            let Some((action, index)) = picked else {
                return Ok(Walk {
                    steps,
                    end: WalkEnd::Deadlock,
                });
            };
            let (_, plan) = self
                .sampler
                .take(self.machine, &current, action, index, &cache)?;
            let mut pick = |n: usize| rng.random_range(0..n);
            let mut ch = Recording::new(&mut pick);
            let next = self.machine.execute_borrowed(&current, &plan, &mut ch)?;
            drop(plan);
            let picks = std::mem::take(&mut ch.picks);
            if crate::deps::changed(&current, &next, &mut changed) {
                cache.invalidate_with(self.machine, &changed);
            }
            steps.push(WalkStep {
                action,
                index,
                picks,
            });
            current = next;
            if goal(&current)? {
                return Ok(Walk {
                    steps,
                    end: WalkEnd::Goal,
                });
            }
        }
        Ok(Walk {
            steps,
            end: WalkEnd::Length,
        })
    }
}
