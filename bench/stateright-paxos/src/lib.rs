//! Single-decree Paxos as in Delzanno, Rensink and Traverso's GROOVE-vs-SPIN comparison, written
//! as plain Rust data and transitions, so that a `stateright::Model` (in this crate's example and
//! tests, where `stateright` is a dev-dependency) can check it. It is `ioa explore`'s peer in
//! `bench/run.sh`: the same state variables and the same atomic steps as
//! `examples/groove_paxos/paxos.ioa`, so without symmetry both reach the same number of distinct
//! states (pinned in `tests/cross_check.rs`).
//!
//! The message sets of the ioa model are stored as tables indexed by what identifies a message
//! (an acceptor promises a round at most once; a round has one Accept; an acceptor sends one
//! Learn per round), which is a one-to-one encoding of the same sets.

/// Most proposers (and so rounds) a configuration may have.
pub const MAX_PROPOSERS: usize = 4;

/// A proposer's phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    Idle,
    Prepared,
    Accepting,
}

/// What one acceptor knows and has sent. `-1` is "none yet", as in the paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Acceptor {
    /// The highest round seen.
    pub rnd: i8,
    /// The round and value last accepted.
    pub prnd: i8,
    pub pval: i8,
    /// Its Promise for round r, with the previous round and value it reported.
    pub promised: [Option<(i8, i8)>; MAX_PROPOSERS],
    /// Bit r: it sent Learn for round r (with that round's value).
    pub learned: u8,
}

/// A global state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub next_rnd: i8,
    pub phase: [Phase; MAX_PROPOSERS],
    pub crnd: [i8; MAX_PROPOSERS],
    pub acceptors: Vec<Acceptor>,
    /// The value of the Accept of round r, if sent.
    pub accepts: [Option<i8>; MAX_PROPOSERS],
    /// Bit v: the learner chose value v (the value of proposer v).
    pub chosen: u8,
}

/// One protocol event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Proposer p takes the next round and broadcasts Prepare.
    Propose(usize),
    /// Acceptor a receives the Prepare of proposer p.
    OnPrepare(usize, usize),
    /// Proposer p has a majority of Promises and sends Accept.
    OnPromise(usize),
    /// Acceptor a receives the Accept of round r.
    OnAccept(usize, usize),
    /// The learner sees a majority of Learns for round r.
    OnLearn(usize),
}

/// A configuration: proposers, acceptors and the majority bound.
#[derive(Clone, Copy, Debug)]
pub struct Paxos {
    pub proposers: usize,
    pub acceptors: usize,
    pub maj: usize,
}

impl Paxos {
    /// A configuration; at most `MAX_PROPOSERS` proposers and 127 acceptors.
    pub fn new(proposers: usize, acceptors: usize, maj: usize) -> Self {
        assert!((1..=MAX_PROPOSERS).contains(&proposers) && acceptors < 128);
        Paxos {
            proposers,
            acceptors,
            maj,
        }
    }

    /// The one initial state.
    pub fn init(&self) -> State {
        State {
            next_rnd: 0,
            phase: [Phase::Idle; MAX_PROPOSERS],
            crnd: [-1; MAX_PROPOSERS],
            acceptors: vec![
                Acceptor {
                    rnd: -1,
                    prnd: -1,
                    pval: -1,
                    promised: [None; MAX_PROPOSERS],
                    learned: 0,
                };
                self.acceptors
            ],
            accepts: [None; MAX_PROPOSERS],
            chosen: 0,
        }
    }

    /// Every action whose precondition may hold (`next` decides).
    pub fn actions(&self, actions: &mut Vec<Action>) {
        for p in 0..self.proposers {
            actions.push(Action::Propose(p));
            actions.push(Action::OnPromise(p));
            actions.push(Action::OnLearn(p));
        }
        for a in 0..self.acceptors {
            for p in 0..self.proposers {
                actions.push(Action::OnPrepare(a, p));
                actions.push(Action::OnAccept(a, p));
            }
        }
    }

    /// The state after `action`, or `None` if it is not enabled.
    pub fn next(&self, s: &State, action: Action) -> Option<State> {
        let mut t = s.clone();
        match action {
            Action::Propose(p) => {
                if s.phase[p] != Phase::Idle {
                    return None;
                }
                t.crnd[p] = s.next_rnd;
                t.next_rnd += 1;
                t.phase[p] = Phase::Prepared;
            }
            Action::OnPrepare(a, p) => {
                let acc = &s.acceptors[a];
                if s.phase[p] == Phase::Idle || s.crnd[p] <= acc.rnd {
                    return None;
                }
                let r = s.crnd[p];
                let t_acc = &mut t.acceptors[a];
                t_acc.rnd = r;
                t_acc.promised[r as usize] = Some((acc.prnd, acc.pval));
            }
            Action::OnPromise(p) => {
                if s.phase[p] != Phase::Prepared {
                    return None;
                }
                let r = s.crnd[p] as usize;
                let promises = s.acceptors.iter().filter_map(|a| a.promised[r]);
                if promises.clone().count() < self.maj {
                    return None;
                }
                // The value of the highest previous round, else the proposer's own.
                let value = promises
                    .filter(|&(prnd, _)| prnd >= 0)
                    .max_by_key(|&(prnd, _)| prnd)
                    .map_or(p as i8, |(_, pval)| pval);
                t.phase[p] = Phase::Accepting;
                t.accepts[r] = Some(value);
            }
            Action::OnAccept(a, r) => {
                let value = s.accepts[r]?;
                let acc = &s.acceptors[a];
                if (r as i8) < acc.rnd || acc.learned & (1 << r) != 0 {
                    return None;
                }
                let t_acc = &mut t.acceptors[a];
                t_acc.rnd = r as i8;
                t_acc.prnd = r as i8;
                t_acc.pval = value;
                t_acc.learned |= 1 << r;
            }
            Action::OnLearn(r) => {
                let value = s.accepts[r]?;
                let learns = s
                    .acceptors
                    .iter()
                    .filter(|a| a.learned & (1 << r) != 0)
                    .count();
                if learns < self.maj || s.chosen & (1 << value) != 0 {
                    return None;
                }
                t.chosen |= 1 << value;
            }
        }
        Some(t)
    }

    /// The paper's Def. 1: no two values are chosen ...
    pub fn agreement(s: &State) -> bool {
        s.chosen.count_ones() <= 1
    }

    /// ... and a chosen value was proposed.
    pub fn validity(s: &State) -> bool {
        (0..MAX_PROPOSERS).all(|v| s.chosen & (1 << v) == 0 || s.phase[v] != Phase::Idle)
    }

    /// The representative of a state's orbit under permutations of the acceptors: the acceptors
    /// sorted. All acceptor data lives in its own row, so this is exact (one state per orbit).
    pub fn acceptor_representative(s: &State) -> State {
        let mut t = s.clone();
        t.acceptors.sort_unstable();
        t
    }
}
