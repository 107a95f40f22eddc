//! Local model checking (LMC, Guerraoui and Yabandeh): explore each node's local states instead
//! of global states, over one shared network of every message ever sent, build system states
//! only to check invariants, and confirm a violation by finding a real run before reporting it.
//!
//! The parts:
//! - [`nodes`] and [`events`]: the nodes, the network and the class of every action instance
//!   (local event, send, delivery, network-only), read from [`crate::system::SystemView`];
//! - [`store`]: per node, the visited local states with all their (predecessor, event) links;
//! - [`search`]: the loop of Fig. 9: a delivery is tried only on local states added since its
//!   last try, local events once per local state; sends grow the monotone network;
//! - [`shape`]: which invariants qualify, and the LMC-OPT filter read off their shape;
//! - [`eager`]: eager sends, a reduction that fires a node's queued sends as part of the event
//!   that queued them, used when a check on the model's text shows it loses nothing;
//! - [`redelivery`]: which deliveries may reach a node twice (a network that keeps or duplicates
//!   messages, a message sent twice), so that the at-most-once rule is used only where it holds;
//! - [`combine`]: building system states from local states to check invariants;
//! - [`soundness`]: for a preliminary violation, a directed search of the real system (network
//!   included) that takes only the recorded node transitions leading to the violating local
//!   states; only a run the interpreter executed to the violation is reported.
//!
//! **The network.** LMC's network `I⁺` never loses a message. Here the network components keep a
//! *monotone state*: every send is applied to it with the network's own input transition, and
//! no delivery, loss or duplication is ever applied. A delivery to a node is available when the
//! delivering component's precondition holds in that state, or when a send with the same
//! arguments reached the same component (which covers FIFO channels, whose head-of-queue
//! precondition is not monotone). Every real delivery is one of these, so nothing reachable is
//! missed; what the abstraction adds that the real network forbids is filtered out by the
//! soundness check, which runs the real system.

pub mod combine;
pub mod eager;
pub mod events;
pub mod nodes;
pub mod redelivery;
pub mod search;
pub mod shape;
pub mod soundness;
pub mod store;

use crate::explore::Limit;
use crate::model::MachineStep;
use interpreter::error::RunError;
use std::time::Duration;

/// Limits and switches of a local search.
#[derive(Debug, Clone)]
pub struct LocalOptions {
    /// The invariants to check (positions in the spec), all of the root's by default.
    pub invariants: Option<Vec<usize>>,
    /// At most this many events of one node along a path from the start.
    pub max_depth: Option<u32>,
    /// At most this many local (non-delivery) events of one node along a path: the rounds of
    /// LMC §4.2. `None`: no bound.
    pub max_local_events: Option<u32>,
    /// Stop once the nodes' stores hold this many local states together.
    pub max_states: Option<u64>,
    /// Stop after this much time.
    pub time_limit: Option<Duration>,
    /// Stop when the process's resident memory reaches this many bytes.
    pub memory_ceiling: Option<u64>,
    /// Global states the soundness check may visit for one preliminary violation.
    pub max_sequences: u64,
    /// Use the LMC-OPT filter where an invariant's shape allows it.
    pub optimise: bool,
    /// Refuse (rather than leave out, reported in [`LocalReport::left_out`]) invariants that
    /// read network state: set when the user named the invariants.
    pub strict: bool,
    /// The network's components (positions in the composite), overriding the `network` clause
    /// and the components found from the model ([`crate::system::SystemView::with_network`]).
    pub network: Option<Vec<u32>>,
    /// Fire drain sends eagerly when [`eager::check`] shows it is sound.
    pub eager_sends: bool,
}

impl Default for LocalOptions {
    fn default() -> Self {
        LocalOptions {
            invariants: None,
            max_depth: None,
            max_local_events: None,
            max_states: None,
            time_limit: None,
            memory_ceiling: None,
            max_sequences: 1_000_000,
            optimise: true,
            strict: false,
            network: None,
            eager_sends: true,
        }
    }
}

/// Counters of a local search.
#[derive(Debug, Clone, Default)]
pub struct LocalStats {
    /// Local states per node.
    pub local_states: Vec<u64>,
    /// Node events executed (transitions of local states), eager sends included.
    pub transitions: u64,
    /// Of those, sends fired eagerly ([`eager`]).
    pub eager_sends: u64,
    /// System states built to check invariants.
    pub system_states: u64,
    /// System states that violated an invariant before the soundness check.
    pub preliminary: u64,
    /// Calls of the soundness check (each a directed search for one group of preliminary
    /// violations: the combinations of local states that agree on what the invariant reads).
    pub soundness_calls: u64,
    /// Of those, checks of a refused group again after nodes recorded new transitions.
    pub rechecks: u64,
    /// Global states the soundness checks visited (each an interleaving prefix executed by the
    /// interpreter).
    pub sequences: u64,
    /// Preliminary violations the soundness check gave up on (its budget of states or the time
    /// ran out): while any exist, "no violation" is not a proof.
    pub unsettled: u64,
    /// Distinct messages sent.
    pub messages: u64,
    /// Deliveries made available to nodes.
    pub deliveries: u64,
    /// Steps of the network's own actions that made a delivery available (an input from the
    /// environment the network takes, a duplication).
    pub network_steps: u64,
    /// The deepest local state of each node (events from the start).
    pub node_depths: Vec<u32>,
    /// Bytes held by the local states and the network.
    pub bytes: u64,
    /// Time taken.
    pub elapsed: Duration,
}

impl LocalStats {
    /// The longest event sequence a combination of local states stands for: the sum of the
    /// nodes' depths (LMC §5.2 reports this depth).
    pub fn event_depth(&self) -> u32 {
        self.node_depths.iter().sum()
    }

    /// All local states.
    pub fn total_local_states(&self) -> u64 {
        self.local_states.iter().sum()
    }
}

/// How a local search ended.
#[derive(Debug, Clone)]
pub enum LocalVerdict {
    /// Every local state within the bounds was explored and no violation was confirmed. With
    /// `bounded` false this covers every reachable system state.
    NoViolation {
        /// Whether a depth or round bound cut the search short.
        bounded: bool,
    },
    /// A confirmed violation: a run from the start state that the interpreter executed.
    Violated {
        /// The invariant (position in the spec).
        invariant: usize,
        /// The run's steps.
        run: Vec<MachineStep>,
    },
    /// A limit stopped the search.
    Limit(Limit),
}

/// What went wrong.
#[derive(Debug, Clone)]
pub enum LocalError {
    /// The automaton cannot be seen as nodes and a network (the system view's errors).
    System(Vec<crate::system::SystemError>),
    /// An invariant reads network state.
    NotLocal {
        /// The invariant's name.
        invariant: String,
        /// The network component it reads.
        component: String,
    },
    /// No invariant is left to check: every one reads network state (invariant, component).
    NothingToCheck {
        /// The invariants and the network component each reads.
        left_out: Vec<(String, String)>,
    },
    /// Evaluating or executing failed.
    Run(RunError),
}

impl From<RunError> for LocalError {
    fn from(e: RunError) -> Self {
        LocalError::Run(e)
    }
}

impl LocalReport {
    /// Whether the search proves every invariant asked for: no violation, no bound, no limit, no
    /// unsettled preliminary violation and no invariant left out. Only then is the run
    /// "verified".
    pub fn verified(&self) -> bool {
        matches!(self.verdict, LocalVerdict::NoViolation { bounded: false })
            && self.stats.unsettled == 0
            && self.left_out.is_empty()
    }
}

/// The outcome of a local search.
#[derive(Debug, Clone)]
pub struct LocalReport {
    /// The verdict.
    pub verdict: LocalVerdict,
    /// The counters.
    pub stats: LocalStats,
    /// Whether LMC-OPT was used, per invariant checked (by spec position).
    pub optimised: Vec<(usize, bool)>,
    /// The nodes' names.
    pub nodes: Vec<String>,
    /// The network members' names.
    pub network: Vec<String>,
    /// Invariants left out because they read network state: (invariant, network component).
    pub left_out: Vec<(usize, String)>,
    /// Eager sends: the outboxes drained eagerly, or why sends were explored one by one.
    pub eager_sends: Result<Vec<String>, String>,
}
