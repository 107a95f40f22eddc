//! Checking inferred invariants on further random runs, by the interpreter.
//!
//! The caller appends the inferred declarations to the model and checks it again, so the
//! invariants are the type checker's own IR; here they are evaluated in every state of `runs`
//! fresh random runs (seeds `seed`, `seed + 1`, …). Unlike `ioa run`, a violation does not stop
//! the run: every invariant is followed to the end, and for each the states that violate it are
//! counted. A state reached twice is evaluated once. Runs are shared out over the machine's
//! cores; the result does not depend on how many there are.
//!
//! A plan may ask for *swarm* runs (Groce, Zhang, Eide, Chen and Regehr, "Swarm testing",
//! ISSTA 2012): each run leaves out a random subset of the automaton's input actions, the
//! environment's moves. Uniformly random inputs are always enabled, so in a long run every
//! input happens early and often: a node that may crash crashes within a few dozen steps of
//! every run, and what it would have done alive (lead a round, decide) is almost never seen.
//! Each swarm run also scales every action's weight by its own random factor, so that orders
//! uniform scheduling makes rare (every promise before the proposal) are common in some runs.
//! An environment that never plays some input is a legal environment and weights change only
//! the odds of a schedule, so a state a swarm run reaches is reachable, and a violation it
//! shows is real.

use crate::engine::fingerprint;
use interpreter::eval::{NoChoice, Scope};
use interpreter::machine::Machine;
use interpreter::runner::{Runner, Weights};
use interpreter::universe::Universe;
use interpreter::value::Value;
use ioa_lang::diagnostics::IntoDiagnostic;
use ioa_lang::ir::{AutomatonId, Spec};
use rustc_hash::FxHashSet;

/// Where an invariant first failed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Violation {
    /// The run's seed.
    pub seed: u64,
    /// The input actions the run left out (a swarm run), by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<String>,
    /// The state's position in the run.
    pub state: usize,
    /// The step that led to it, in the paper's log format.
    pub action: Option<String>,
    /// Set when evaluating the invariant failed (instead of being false).
    pub error: Option<String>,
}

/// The outcome for one invariant.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Checked {
    /// The invariant's name.
    pub name: String,
    /// Distinct states in which it was false (or could not be evaluated).
    pub violating_states: u64,
    /// Runs in which it was false at least once.
    pub violating_runs: u64,
    /// The first violation, by seed order.
    pub first: Option<Violation>,
}

/// The outcome of a validation.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Validation {
    /// Random runs made.
    pub runs: u64,
    /// Steps per run (at most).
    pub steps: u64,
    /// The first seed.
    pub seed: u64,
    /// States reached, repeats included.
    pub states: u64,
    /// Distinct states evaluated.
    pub distinct_states: u64,
    /// One entry per invariant checked, in the order asked.
    pub invariants: Vec<Checked>,
}

impl Validation {
    /// How many of the invariants were violated somewhere.
    pub fn violated(&self) -> usize {
        self.invariants
            .iter()
            .filter(|c| c.violating_states > 0)
            .count()
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The automaton.
    pub automaton: AutomatonId,
    /// Its parameters.
    pub params: Vec<Value>,
    /// Number of runs.
    pub runs: u64,
    /// Steps per run.
    pub steps: u64,
    /// The first run's seed.
    pub seed: u64,
    /// How actions are picked.
    pub weights: Weights,
    /// Swarm runs: each run leaves out each input action with probability 1/2 and scales the
    /// weight of every other action by a random power of two (drawn from its seed,
    /// [`swarm_weights`]).
    pub swarm: bool,
}

/// SplitMix64's finaliser: neighbouring inputs give unrelated bits.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The input actions of `machine` that swarm run `seed` leaves out: input action `k` (in the
/// machine's order) when bit `k mod 64` of a hash of the seed is set.
pub fn swarm_omitted(machine: &Machine, seed: u64) -> Vec<String> {
    let z = mix(seed);
    machine
        .actions
        .iter()
        .filter(|a| a.kind == ioa_lang::ast::ActionKind::Input)
        .enumerate()
        .filter(|(k, _)| z >> (k % 64) & 1 == 1)
        .map(|(_, a)| a.name.clone())
        .collect()
}

/// The weights of swarm run `seed`: the inputs [`swarm_omitted`] leaves out get 0, and every
/// other action its weight in `base` times a factor 2^e, e drawn uniformly from -3..=3 for each
/// action (from a hash of the seed and the action's position). A rare factor on a leader's next
/// round lets the round before it finish; one on a proposal lets every promise arrive first:
/// the orders uniform scheduling makes unlikely. Weights change only how likely a schedule is,
/// never whether it is one.
pub fn swarm_weights(machine: &Machine, base: &Weights, seed: u64) -> (Weights, Vec<String>) {
    let omitted = swarm_omitted(machine, seed);
    let by_name = machine
        .actions
        .iter()
        .enumerate()
        .map(|(k, a)| {
            let w = if omitted.contains(&a.name) {
                0.0
            } else {
                let e = (mix(seed ^ mix(k as u64 + 1)) % 7) as i32 - 3;
                base.of(&a.name, a.kind) * 2f64.powi(e)
            };
            (a.name.clone(), w)
        })
        .collect();
    (Weights { by_name }, omitted)
}

/// Checks the invariants of `spec` named in `names` (all of the automaton's, if `names` is
/// empty) on the runs of `plan`.
pub fn validate(
    spec: &Spec,
    universe: &Universe,
    plan: &Plan,
    names: &[String],
) -> Result<Validation, interpreter::error::RunError> {
    let chosen: Vec<usize> = spec
        .invariants
        .iter()
        .enumerate()
        .filter(|(_, i)| i.automaton == plan.automaton)
        .filter(|(_, i)| names.is_empty() || names.contains(&i.name))
        .map(|(k, _)| k)
        .collect();
    // The machine runs without invariants, so that a violation does not stop the run.
    let mut bare = spec.clone();
    bare.invariants.clear();
    // Fail early (and once) if the machine cannot be built.
    Machine::new(&bare, universe, plan.automaton, plan.params.clone())?;
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(plan.runs.max(1) as usize);
    let parts: Vec<Part> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (bare, chosen) = (&bare, &chosen);
                scope.spawn(move || {
                    let machine = Machine::new(bare, universe, plan.automaton, plan.params.clone())
                        .expect("built once already");
                    let mut part = Part::new(chosen.len());
                    let mut r = t as u64;
                    while r < plan.runs {
                        part.run(&machine, spec, chosen, plan, plan.seed + r);
                        r += threads as u64;
                    }
                    part
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("validation thread"))
            .collect()
    });
    let mut invariants: Vec<Checked> = chosen
        .iter()
        .map(|&k| Checked {
            name: spec.invariants[k].name.clone(),
            violating_states: 0,
            violating_runs: 0,
            first: None,
        })
        .collect();
    let (mut states, mut distinct) = (0, 0);
    for part in parts {
        states += part.states;
        distinct += part.seen.len() as u64;
        for (c, p) in invariants.iter_mut().zip(part.checked) {
            c.violating_states += p.violating_states;
            c.violating_runs += p.violating_runs;
            c.first = match (c.first.take(), p.first) {
                (Some(a), Some(b)) => Some(if a.seed <= b.seed { a } else { b }),
                (a, b) => a.or(b),
            };
        }
    }
    Ok(Validation {
        runs: plan.runs,
        steps: plan.steps,
        seed: plan.seed,
        states,
        distinct_states: distinct,
        invariants,
    })
}

/// One thread's share.
struct Part {
    checked: Vec<Checked>,
    seen: FxHashSet<u64>,
    states: u64,
}

impl Part {
    fn new(n: usize) -> Part {
        Part {
            checked: (0..n)
                .map(|_| Checked {
                    name: String::new(),
                    violating_states: 0,
                    violating_runs: 0,
                    first: None,
                })
                .collect(),
            seen: FxHashSet::default(),
            states: 0,
        }
    }

    fn run(&mut self, machine: &Machine, spec: &Spec, chosen: &[usize], plan: &Plan, seed: u64) {
        let mut violated_here = vec![false; chosen.len()];
        let (weights, omitted) = if plan.swarm {
            swarm_weights(machine, &plan.weights, seed)
        } else {
            (plan.weights.clone(), vec![])
        };
        let runner = Runner::new(machine);
        let mut on_step = |trace: &interpreter::trace::Trace| {
            self.states += 1;
            let state = trace.states.last().expect("non-empty");
            if !self.seen.insert(fingerprint(state)) {
                return true;
            }
            for (j, &k) in chosen.iter().enumerate() {
                let outcome = holds(machine, spec, k, state);
                if outcome == Ok(true) {
                    continue;
                }
                let c = &mut self.checked[j];
                c.violating_states += 1;
                if !violated_here[j] {
                    violated_here[j] = true;
                    c.violating_runs += 1;
                }
                if c.first.is_none() {
                    let at = trace.steps.len();
                    c.first = Some(Violation {
                        seed,
                        omitted: omitted.clone(),
                        state: at,
                        action: (at > 0).then(|| trace.log_line(machine, at)),
                        error: outcome.err(),
                    });
                }
            }
            true
        };
        runner.random(seed, plan.steps, &weights, &mut on_step);
    }
}

/// Whether invariant `k` of `spec` holds in `state` of `machine` (an error as text).
fn holds(machine: &Machine, spec: &Spec, k: usize, state: &[Value]) -> Result<bool, String> {
    let inv = &spec.invariants[k];
    let view = machine.view(state);
    let primitive = machine.instances.len() == 1 && machine.instances[0].automaton == machine.root;
    let scope = if primitive {
        let inst = &machine.instances[0];
        Scope {
            spec,
            universe: machine.universe,
            state: &state[inst.offset..inst.offset + inst.len],
            params: &inst.params,
            aux: &[],
            view: &view,
        }
    } else {
        Scope {
            spec,
            universe: machine.universe,
            state: &[],
            params: &machine.root_params,
            aux: &[],
            view: &view,
        }
    };
    let mut locals = vec![Value::Bool(false); inv.n_locals as usize + 1];
    scope
        .truth(&inv.body, &mut locals, &mut NoChoice)
        .map_err(|e| e.to_diagnostic().message)
}
