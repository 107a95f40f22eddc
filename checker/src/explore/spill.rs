//! The explorer's visited set under a memory budget (`--memory-limit`): when its tables reach
//! the budget they move to disk and the search goes on, so a search can visit more states than
//! fit in memory and still report exactly what the in-memory search reports.
//!
//! What is kept where:
//! - In memory, for the states visited since the last spill: a hash set of their fingerprints,
//!   and each one's fingerprint and parent id by state id (20 bytes a state). Steps are not
//!   kept at all (the in-memory [`super::StateGraph`] keeps one per state).
//! - On disk: the fingerprints of earlier states as sorted runs ([`super::runs`]), and every
//!   earlier state's fingerprint and parent id in a file indexed by state id (the *links*).
//!
//! Successors that are not in memory are *pending* (deduplicated among themselves, first
//! parent in frontier order kept) until they are *settled*: sorted and looked up in the runs in
//! one pass, and the new ones numbered in the order they were offered. States are settled at
//! the end of each level, before a spill, and whenever the pending ones might pass the state
//! limit, so the new states of a level, their ids, their parents, and the point where a state
//! limit stops the search are the in-memory explorer's (a state found on disk was visited at an
//! earlier level, so it is not new; a state found in memory or among the pending ones is
//! handled exactly as the in-memory set handles it).
//!
//! A path is rebuilt from the links as a chain of fingerprints, then replayed: from the first
//! start state with the chain's first fingerprint, each step is the first successor (in the
//! model's order) with the next fingerprint, which is the step the in-memory explorer records.
//! So the counterexample is the same shortest trace, for one model expansion per step.
//!
//! What it costs: one sorted lookup of each level's candidates in the runs (reading only the
//! 16 KiB blocks that can hold them), writing each state once to a run and once to the links,
//! and merging runs (each fingerprint is rewritten `O(log spills)` times). The frontier's
//! concrete states stay in memory and are not counted against the budget.

use super::runs::SortedRuns;
use super::{Model, StateId, NO_PARENT};
use crate::fingerprint::{Fingerprint, FingerprintSet, PackedFingerprint};
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Bytes of one link on disk: the fingerprint and the parent id.
const LINK: u64 = 16 + 4;

/// What spilling did, for the report.
#[derive(Debug, Clone, Default)]
pub struct SpillStats {
    /// The budget of the visited set in memory (bytes).
    pub limit: u64,
    /// How many times the in-memory part was written to disk.
    pub spills: u64,
    /// States whose fingerprint and link are on disk.
    pub states_on_disk: u64,
    /// Sorted runs of fingerprints on disk at the end.
    pub runs: usize,
    /// Runs merged into others.
    pub merges: u64,
    /// Bytes on disk at the end (runs and links).
    pub bytes_on_disk: u64,
    /// Bytes written (runs, merges and links).
    pub bytes_written: u64,
    /// Bytes read (lookups, merges and links).
    pub bytes_read: u64,
    /// Time spent writing, merging and looking up.
    pub disk_time: Duration,
    /// Why spilling failed, if it did (the search then stops at the memory limit).
    pub error: Option<String>,
}

/// Why settling pending states stopped the search.
#[derive(Debug)]
pub enum Settle {
    /// The state limit: this many states are stored and another new one was found.
    States(u64),
    /// Reading or writing the spill files failed.
    Io(String),
}

/// Why a path could not be rebuilt.
pub enum PathError<E> {
    /// The model failed to rebuild a state (it did not fail when the state was explored).
    Model(E),
    /// The links could not be read, or a state was not reached again.
    Spill(String),
}

/// A state offered but not yet settled.
struct Pending<S> {
    fp: Fingerprint,
    parent: StateId,
    /// The concrete state (none when only its existence matters, at the depth limit).
    state: Option<S>,
}

/// The visited set of one search under a memory budget.
pub struct SpillGraph<S> {
    /// The spill files' directory, removed when the search ends.
    dir: tempfile::TempDir,
    limit: u64,
    seen: FingerprintSet,
    /// Fingerprint and parent of states `base..`, by id.
    fps: Vec<Fingerprint>,
    parents: Vec<StateId>,
    /// States `..base` are on disk.
    base: StateId,
    runs: SortedRuns,
    links: BufWriter<File>,
    links_path: PathBuf,
    links_read: u64,
    pending_seen: FingerprintSet,
    pending: Vec<Pending<S>>,
    spills: u64,
    busy: Duration,
}

fn io_text(what: &str, dir: &Path, e: io::Error) -> String {
    format!("{what} in `{}`: {e}", dir.display())
}

/// A fresh directory `ioa-spill-…` for spill files in `dir` (default: the system's temporary
/// directory), made with its parents and removed when dropped. The single-process explorer and
/// each worker of the distributed one spill into one of these.
pub fn spill_dir(dir: Option<&Path>) -> Result<tempfile::TempDir, String> {
    let parent = dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
    std::fs::create_dir_all(&parent)
        .map_err(|e| format!("cannot create `{}`: {e}", parent.display()))?;
    tempfile::Builder::new()
        .prefix("ioa-spill-")
        .tempdir_in(&parent)
        // The error's own text names the random directory; its kind is what matters.
        .map_err(|e| io_text("cannot create a spill directory", &parent, e.kind().into()))
}

impl<S> SpillGraph<S> {
    /// An empty set whose spill files go to a fresh directory in `dir` (default: the system's
    /// temporary directory), with `limit` bytes of memory for its tables.
    pub fn new(dir: Option<&Path>, limit: u64) -> Result<SpillGraph<S>, String> {
        let dir = spill_dir(dir)?;
        let links_path = dir.path().join("links");
        let links = File::create(&links_path)
            .map(|f| BufWriter::with_capacity(1 << 16, f))
            .map_err(|e| io_text("cannot create the links file", dir.path(), e))?;
        let runs = SortedRuns::new(dir.path(), 0);
        Ok(SpillGraph {
            dir,
            limit,
            seen: FingerprintSet::default(),
            fps: Vec::new(),
            parents: Vec::new(),
            base: 0,
            runs,
            links,
            links_path,
            links_read: 0,
            pending_seen: FingerprintSet::default(),
            pending: Vec::new(),
            spills: 0,
            busy: Duration::ZERO,
        })
    }

    /// States visited (settled).
    pub fn len(&self) -> u64 {
        self.base as u64 + self.fps.len() as u64
    }

    /// Whether no state was settled.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// States offered and not yet settled.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Whether a state with this fingerprint is known to be visited or pending; `false` may
    /// still be a state on disk.
    pub fn contains(&self, fp: Fingerprint) -> bool {
        self.seen.contains(&fp) || self.pending_seen.contains(&fp)
    }

    /// Offers a state reached from `parent` (`None`: a start state); the first offer of a
    /// fingerprint not in memory wins, and is settled later.
    pub fn offer(&mut self, fp: Fingerprint, parent: Option<StateId>, state: Option<S>) {
        if self.seen.contains(&fp) || !self.pending_seen.insert(fp) {
            return;
        }
        self.pending.push(Pending {
            fp,
            parent: parent.unwrap_or(NO_PARENT),
            state,
        });
    }

    /// Looks the pending states up on disk; with `insert`, numbers the new ones offered with
    /// their state in offer order and appends them with their states to `next`, stopping with [`Settle::States`] at the
    /// first new state beyond `max_states`. Returns whether any pending state was new.
    pub fn settle(
        &mut self,
        insert: bool,
        max_states: u64,
        next: &mut Vec<(StateId, PackedFingerprint, S)>,
    ) -> Result<bool, Settle> {
        if self.pending.is_empty() {
            return Ok(false);
        }
        let mut order: Vec<(Fingerprint, u32)> = self
            .pending
            .iter()
            .enumerate()
            .map(|(k, p)| (p.fp, k as u32))
            .collect();
        order.sort_unstable();
        let sorted: Vec<Fingerprint> = order.iter().map(|(fp, _)| *fp).collect();
        let mut present_sorted = vec![false; sorted.len()];
        self.runs
            .mark_present(&sorted, &mut present_sorted)
            .map_err(|e| Settle::Io(io_text("looking up spilled states", self.dir.path(), e)))?;
        let mut present = vec![false; sorted.len()];
        for ((_, k), p) in order.iter().zip(present_sorted) {
            present[*k as usize] = p;
        }
        let pending = std::mem::take(&mut self.pending);
        self.pending_seen = FingerprintSet::default();
        let mut any = false;
        for (p, on_disk) in pending.into_iter().zip(present) {
            if on_disk {
                continue;
            }
            any = true;
            // A state offered without its state (at the depth limit) is never stored.
            let Some(state) = p.state.filter(|_| insert) else {
                continue;
            };
            if self.len() >= max_states {
                return Err(Settle::States(max_states));
            }
            let id = self.len() as StateId;
            self.seen.insert(p.fp);
            self.fps.push(p.fp);
            self.parents.push(p.parent);
            next.push((id, p.fp.into(), state));
        }
        Ok(any)
    }

    /// The bytes the set holds in memory (tables, pending fingerprints, run indexes).
    pub fn approx_bytes(&self) -> u64 {
        let fp = std::mem::size_of::<Fingerprint>();
        let table = (self.seen.capacity() + self.pending_seen.capacity()) * (fp + 1);
        let by_id = self.fps.capacity() * fp + self.parents.capacity() * 4;
        let pending = self.pending.capacity() * (fp + 4);
        (table + by_id + pending) as u64 + self.runs.index_bytes()
    }

    /// Whether the set has reached its budget.
    pub fn over_budget(&self) -> bool {
        self.approx_bytes() >= self.limit
    }

    /// Moves the settled states in memory to disk (pending states must be settled first).
    pub fn spill(&mut self) -> Result<(), String> {
        debug_assert!(self.pending.is_empty());
        if self.fps.is_empty() {
            return Ok(());
        }
        let mut sorted = self.fps.clone();
        sorted.sort_unstable();
        let dir = self.dir.path().to_path_buf();
        self.runs
            .add(&sorted, &[])
            .map_err(|e| io_text("writing spilled states", &dir, e))?;
        // The runs time themselves; this is the links' share.
        let started = Instant::now();
        let mut write = || -> io::Result<()> {
            for (fp, parent) in self.fps.iter().zip(&self.parents) {
                self.links.write_all(&fp.to_le_bytes())?;
                self.links.write_all(&parent.to_le_bytes())?;
            }
            self.links.flush()
        };
        write().map_err(|e| io_text("writing spilled links", &dir, e))?;
        self.base += self.fps.len() as StateId;
        self.seen = FingerprintSet::default();
        self.fps = Vec::new();
        self.parents = Vec::new();
        self.spills += 1;
        self.busy += started.elapsed();
        Ok(())
    }

    /// The fingerprint and parent of state `id`.
    fn link(&mut self, id: StateId) -> io::Result<(Fingerprint, StateId)> {
        if id >= self.base {
            let k = (id - self.base) as usize;
            return Ok((self.fps[k], self.parents[k]));
        }
        let mut file = File::open(&self.links_path)?;
        file.seek(SeekFrom::Start(id as u64 * LINK))?;
        let mut bytes = [0u8; LINK as usize];
        file.read_exact(&mut bytes)?;
        self.links_read += LINK;
        let mut fp = [0u8; 16];
        fp.copy_from_slice(&bytes[..16]);
        let mut parent = [0u8; 4];
        parent.copy_from_slice(&bytes[16..]);
        Ok((
            Fingerprint::from_le_bytes(fp),
            StateId::from_le_bytes(parent),
        ))
    }

    /// The steps from a start state to state `id`, replayed from its chain of fingerprints.
    pub fn path_to<M: Model<State = S>>(
        &mut self,
        model: &M,
        id: StateId,
    ) -> Result<Vec<M::Step>, PathError<M::Error>> {
        let mut chain = Vec::new();
        let mut at = id;
        loop {
            let (fp, parent) = self.link(at).map_err(|e| {
                PathError::Spill(io_text("reading spilled links", self.dir.path(), e))
            })?;
            chain.push(fp);
            if parent == NO_PARENT {
                break;
            }
            at = parent;
        }
        chain.reverse();
        replay(model, &chain, id)
    }

    /// What spilling did so far.
    pub fn stats(&self) -> SpillStats {
        SpillStats {
            limit: self.limit,
            spills: self.spills,
            states_on_disk: self.base as u64,
            runs: self.runs.runs(),
            merges: self.runs.merges,
            bytes_on_disk: self.runs.disk_bytes() + self.base as u64 * LINK,
            bytes_written: self.runs.bytes_written + self.base as u64 * LINK,
            bytes_read: self.runs.bytes_read + self.links_read,
            disk_time: self.busy + self.runs.busy,
            error: None,
        }
    }
}

/// The steps that lead through `chain` (fingerprints from a start state to state `id`): the first
/// start state with the chain's first fingerprint, then each time the first successor, in the
/// model's order, with the next one. These are the steps the explorers record (the first
/// candidate of a fingerprint from the first parent in breadth-first order wins).
pub fn replay<M: Model>(
    model: &M,
    chain: &[Fingerprint],
    id: impl std::fmt::Display,
) -> Result<Vec<M::Step>, PathError<M::Error>> {
    let mut candidates = Vec::new();
    model
        .initial_states(&mut candidates)
        .map_err(PathError::Model)?;
    let mut path = Vec::with_capacity(chain.len());
    for (k, fp) in chain.iter().enumerate() {
        let at = candidates
            .iter()
            .position(|(_, s)| model.fingerprint(s) == *fp)
            .ok_or_else(|| {
                PathError::Spill(format!(
                    "state {k} of the path to state {id} was not reached again (a bug in ioa)"
                ))
            })?;
        let (step, state) = candidates.swap_remove(at);
        path.push(step);
        if k + 1 < chain.len() {
            candidates.clear();
            model
                .successors(&state, &mut candidates)
                .map_err(PathError::Model)?;
        }
    }
    Ok(path)
}
