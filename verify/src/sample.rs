//! Discarding candidates that a reached state refutes: every state of the runs (schedules and
//! random runs) is a counterexample to each candidate false in it. Cheap, and it removes most
//! of the false candidates before any solver call.

use interpreter::eval::{NoChoice, Scope};
use interpreter::machine::Machine;
use interpreter::value::Value;

/// What the states said about one candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sampled {
    /// True in every state.
    Held,
    /// False in the state with this index (into the states given).
    Refuted(usize),
    /// Evaluating it failed (an unbounded quantifier, `.val` of `nil`, …): the message.
    Error(String),
}

/// Evaluates the invariants `candidates` (indices into `machine.spec.invariants`, all of the
/// machine's root automaton) on every state.
pub fn sample(machine: &Machine, candidates: &[usize], states: &[&[Value]]) -> Vec<Sampled> {
    let single = machine.instances.len() == 1 && machine.instances[0].automaton == machine.root;
    candidates
        .iter()
        .map(|&k| {
            let inv = &machine.spec.invariants[k];
            let mut locals = vec![Value::Bool(false); inv.n_locals as usize + 1];
            for (n, state) in states.iter().enumerate() {
                let view = machine.view(state);
                let scope = Scope {
                    spec: machine.spec,
                    universe: machine.universe,
                    state: if single { state } else { &[] },
                    params: if single {
                        &machine.instances[0].params
                    } else {
                        &machine.root_params
                    },
                    aux: &[],
                    view: &view,
                };
                match scope.truth(&inv.body, &mut locals, &mut NoChoice) {
                    Ok(true) => {}
                    Ok(false) => return Sampled::Refuted(n),
                    Err(e) => {
                        use ioa_lang::diagnostics::IntoDiagnostic;
                        return Sampled::Error(e.to_diagnostic().message);
                    }
                }
            }
            Sampled::Held
        })
        .collect()
}
