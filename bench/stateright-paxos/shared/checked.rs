//! `stateright::Model` for `stateright_paxos::Paxos`, shared by the example and the tests
//! (`#[path]`-included, since `stateright` is a dev-dependency only).

use stateright::{Checker, Model, Property};
use stateright_paxos::{Action, Paxos, State};

/// The Paxos configuration as a stateright model.
pub struct Checked(pub Paxos);

impl Model for Checked {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        vec![self.0.init()]
    }

    fn actions(&self, _state: &State, actions: &mut Vec<Action>) {
        self.0.actions(actions);
    }

    fn next_state(&self, state: &State, action: Action) -> Option<State> {
        self.0.next(state, action)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![
            Property::always("agreement", |_, s| Paxos::agreement(s)),
            Property::always("validity", |_, s| Paxos::validity(s)),
        ]
    }
}

/// The outcome of a breadth-first check.
#[allow(dead_code)]
pub struct Outcome {
    pub unique: usize,
    pub generated: usize,
    pub depth: usize,
    /// The violated property and the length of its counterexample, if any.
    pub violation: Option<(&'static str, usize)>,
}

/// Checks `paxos` on `threads` threads, stopping at the first violation: breadth first, or
/// with `symmetric` depth first up to permutations of the acceptors (stateright 0.31 applies a
/// symmetry only in its depth-first checker).
pub fn check(paxos: Paxos, symmetric: bool, threads: usize) -> Outcome {
    let builder = Checked(paxos)
        .checker()
        .threads(threads)
        .finish_when(stateright::HasDiscoveries::AnyFailures);
    if symmetric {
        outcome(
            builder
                .symmetry_fn(Paxos::acceptor_representative)
                .spawn_dfs()
                .join(),
        )
    } else {
        outcome(builder.spawn_bfs().join())
    }
}

fn outcome(checker: impl Checker<Checked>) -> Outcome {
    let violation = ["agreement", "validity"].into_iter().find_map(|name| {
        checker
            .discovery(name)
            .map(|path| (name, path.into_actions().len()))
    });
    Outcome {
        unique: checker.unique_state_count(),
        generated: checker.state_count(),
        depth: checker.max_depth(),
        violation,
    }
}
