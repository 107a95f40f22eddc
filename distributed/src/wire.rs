//! What travels between workers: states, steps and properties as plain words, and the messages
//! of one exchange round.
//!
//! States travel as words, so the distributed explorer runs the compiled engine's model
//! ([`checker::compiled::CompiledModel`], whose states already are words, with interned values
//! written out as their ITF text: `checker/src/compiled/portable.rs`); the interpreter's
//! states are persistent value trees with no wire form yet.

use checker::compiled::CompiledModel;
use checker::explore::Model;
use checker::fingerprint::Fingerprint;
use checker::model::MachineStep;
use checker::reduction::{Reduced, SlotValues};
use serde::{Deserialize, Serialize};

/// A model whose states, steps and properties can be sent to another process.
pub trait Wire: Model {
    /// The state as words.
    fn state_words(&self, state: &Self::State) -> Vec<i64>;
    /// The state back from its words.
    fn state_from(&self, words: Vec<i64>) -> Self::State;
    /// The step as words.
    fn step_words(&self, step: &Self::Step) -> Vec<u32>;
    /// The step back from its words.
    fn step_from(&self, words: &[u32]) -> Self::Step;
    /// The property as a number.
    fn property_word(&self, property: &Self::Property) -> u64;
    /// The property back from its number.
    fn property_from(&self, word: u64) -> Self::Property;
    /// An error's message (errors travel as text).
    fn error_text(&self, error: &Self::Error) -> String;
    /// What partial-order reduction did in this process so far (the counters of
    /// [`checker::reduction::PorStats`], in its field order), if it runs.
    fn reduction_counts(&self) -> Option<[u64; 6]> {
        None
    }
}

impl Wire for CompiledModel<'_, '_> {
    fn state_words(&self, state: &Self::State) -> Vec<i64> {
        self.portable_words(state)
    }
    fn state_from(&self, words: Vec<i64>) -> Self::State {
        self.from_portable_words(&words)
            .unwrap_or_else(|e| panic!("a state from another process or a checkpoint: {e}"))
    }
    fn step_words(&self, step: &MachineStep) -> Vec<u32> {
        let mut words = Vec::with_capacity(1 + step.choices.len());
        words.push(step.instance);
        words.extend_from_slice(&step.choices);
        words
    }
    fn step_from(&self, words: &[u32]) -> MachineStep {
        MachineStep {
            instance: words[0],
            choices: words[1..].into(),
        }
    }
    fn property_word(&self, property: &usize) -> u64 {
        *property as u64
    }
    fn property_from(&self, word: u64) -> usize {
        word as usize
    }
    fn error_text(&self, error: &checker::compiled::code::Fault) -> String {
        error.to_string()
    }
}

/// A model explored with partial-order reduction travels as the model it reduces: the same
/// states, steps and properties.
impl<M> Wire for Reduced<'_, M>
where
    M: Wire + SlotValues<Step = MachineStep>,
    M::State: PartialEq,
{
    fn state_words(&self, state: &Self::State) -> Vec<i64> {
        self.inner().state_words(state)
    }
    fn state_from(&self, words: Vec<i64>) -> Self::State {
        self.inner().state_from(words)
    }
    fn step_words(&self, step: &MachineStep) -> Vec<u32> {
        self.inner().step_words(step)
    }
    fn step_from(&self, words: &[u32]) -> MachineStep {
        self.inner().step_from(words)
    }
    fn property_word(&self, property: &Self::Property) -> u64 {
        self.inner().property_word(property)
    }
    fn property_from(&self, word: u64) -> Self::Property {
        self.inner().property_from(word)
    }
    fn error_text(&self, error: &Self::Error) -> String {
        self.inner().error_text(error)
    }
    fn reduction_counts(&self) -> Option<[u64; 6]> {
        let s = self.stats();
        Some([
            s.reduced_states,
            s.full_states,
            s.proviso_full,
            s.unchecked_full,
            s.pruned_successors,
            s.proviso_larger,
        ])
    }
}

/// A fingerprint as two words (bincode and every wire format know `u64`).
pub type Fp = (u64, u64);

/// Splits a fingerprint.
pub fn fp_words(fp: Fingerprint) -> Fp {
    ((fp >> 64) as u64, fp as u64)
}

/// Joins a fingerprint.
pub fn fp_of(words: Fp) -> Fingerprint {
    ((words.0 as u128) << 64) | words.1 as u128
}

/// The position of a state in breadth-first order: its parent's key, then its place among the
/// parent's successors. Keys of one level compare as the single-process explorer orders that
/// level, so the smallest key among candidates is the parent that explorer would have chosen.
pub type Key = Vec<u32>;

/// How a worker's part of a level ended, when it stops the search; the smallest key among all
/// workers' decides, as the first failing state in frontier order does in one process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// The state violates a property.
    Violated(u64),
    /// Checking or expanding the state failed (the model's message).
    Failed(String),
    /// The state has no successors (with deadlocks as violations).
    Deadlock,
}

/// A worker's counters and stop events, sent to every worker each round.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Summary {
    /// States in the level this worker expanded this round.
    pub frontier: u64,
    /// The first stop event in key order: its key, the state's fingerprint and what happened.
    pub stop: Option<(Key, Fp, Event)>,
    /// Whether the depth limit cut off a state this worker would have stored (reported the round
    /// after the cut).
    pub cut_off: bool,
    /// Whether this worker passed the time limit.
    pub out_of_time: bool,
    /// Why this worker's visited set could not spill to disk (every worker stops).
    pub spill_error: Option<String>,
    /// What spilling did on this worker, with a memory limit.
    pub spill: Option<SpillSummary>,
    /// Distinct states this worker owns.
    pub distinct: u64,
    /// States it checked.
    pub checked: u64,
    /// Successors it generated.
    pub generated: u64,
    /// Deadlocked states it found.
    pub deadlocks: u64,
    /// Candidates it sent to other workers.
    pub sent: u64,
    /// Of those, the ones sent in this round.
    pub sent_now: u64,
    /// Resident memory of its process.
    pub resident: u64,
    /// Whether the time since its last checkpoint calls for another.
    pub wants_checkpoint: bool,
    /// Why writing its last checkpoint failed.
    pub checkpoint_error: Option<String>,
    /// Its process's partial-order reduction counts so far (every worker of a process sends
    /// the same counters, read at different moments; five numbers, see
    /// [`Wire::reduction_counts`]).
    pub reduction: Option<Vec<u64>>,
}

/// What spilling the visited set did on one worker (`checker`'s `SpillStats` in words).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SpillSummary {
    /// The budget (bytes).
    pub limit: u64,
    /// Times the states in memory went to disk.
    pub spills: u64,
    /// States on disk.
    pub states_on_disk: u64,
    /// Sorted runs on disk.
    pub runs: u64,
    /// Runs merged into others.
    pub merges: u64,
    /// Bytes on disk.
    pub bytes_on_disk: u64,
    /// Bytes written.
    pub bytes_written: u64,
    /// Bytes read.
    pub bytes_read: u64,
    /// Seconds of disk work.
    pub disk_seconds: f64,
}

/// One message of a round.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Message {
    /// A successor sent to its owner.
    Candidate {
        /// Its fingerprint.
        fp: Fp,
        /// Its parent's fingerprint.
        parent: Fp,
        /// Its key.
        key: Key,
        /// The step from the parent.
        step: Vec<u32>,
        /// The state.
        state: Vec<i64>,
    },
    /// Partial-order reduction's cycle proviso: which of these states, owned by the receiver,
    /// it has visited (at this level or before).
    Ask {
        /// The sender.
        from: u64,
        /// The states' fingerprints.
        fps: Vec<Fp>,
    },
    /// The answer to an [`Message::Ask`]: the states asked about that surely were not visited.
    Unvisited {
        /// Their fingerprints.
        fps: Vec<Fp>,
    },
    /// A worker's summary, sent to all.
    Summary {
        /// The sender.
        from: u64,
        /// What it says.
        summary: Summary,
    },
    /// On resuming: the checkpoint levels a worker has.
    Levels {
        /// The sender.
        from: u64,
        /// Its levels.
        levels: Vec<u32>,
    },
    /// On resuming: whether a worker loaded its checkpoint.
    Loaded {
        /// The sender.
        from: u64,
        /// Why it could not.
        error: Option<String>,
    },
    /// While a path is rebuilt: the owner of a state tells all workers its parent and step.
    Link {
        /// The parent (none for a start state).
        parent: Option<Fp>,
        /// The step that reached the state.
        step: Vec<u32>,
    },
}

/// A message with its destination worker and round.
pub type Envelope = (u64, u64, Message);
