//! One worker's visited states: fingerprint → parent and step, in memory, or under a memory
//! budget (`--memory-limit`, per worker) with the overflow on disk.
//!
//! On disk the states are sorted runs of the checker's [`SortedRuns`] (the single-process
//! explorer's spill format), each fingerprint with its parent's fingerprint; steps are not
//! kept there. A level's new candidates are looked up in the runs in one sorted pass after the
//! round, which is when the owner decides which candidates are new anyway; a path through a
//! spilled state is rebuilt from the chain of fingerprints by replaying the model
//! ([`checker::explore::spill::replay`]), which gives the steps the search recorded.

use checker::explore::runs::SortedRuns;
use checker::explore::spill::{spill_dir, SpillStats};
use checker::fingerprint::{Fingerprint, PassThrough};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::path::Path;

type FpMap<V> = HashMap<Fingerprint, V, BuildHasherDefault<PassThrough>>;

/// A state's parent (none for a start state) and the step from it, as words.
pub type Link = (Option<Fingerprint>, Vec<u32>);

/// Bytes of a value on disk: a flag (has a parent) and the parent's fingerprint.
const VALUE: usize = 1 + 16;

/// The disk part.
struct Spill {
    dir: tempfile::TempDir,
    limit: u64,
    runs: SortedRuns,
    spills: u64,
}

/// One worker's visited states.
pub struct Links {
    memory: FpMap<Link>,
    spill: Option<Spill>,
}

impl Links {
    /// No state visited; with a budget, the overflow goes to a fresh directory in `dir`
    /// (default: the system's temporary directory).
    pub fn new(limit: Option<u64>, dir: Option<&Path>) -> Result<Links, String> {
        let spill = match limit {
            None => None,
            Some(limit) => {
                let dir = spill_dir(dir)?;
                let runs = SortedRuns::new(dir.path(), VALUE);
                Some(Spill {
                    dir,
                    limit,
                    runs,
                    spills: 0,
                })
            }
        };
        Ok(Links {
            memory: FpMap::default(),
            spill,
        })
    }

    /// States visited, in memory and on disk.
    pub fn len(&self) -> u64 {
        self.memory.len() as u64 + self.spill.as_ref().map_or(0, |s| s.runs.len())
    }

    /// Whether no state was visited.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the state is visited and in memory (a state on disk answers `false`).
    pub fn in_memory(&self, fp: Fingerprint) -> bool {
        self.memory.contains_key(&fp)
    }

    /// Whether the state is surely not visited: not in memory, and nothing on disk (which
    /// this answer does not read).
    pub fn surely_unvisited(&self, fp: Fingerprint) -> bool {
        !self.memory.contains_key(&fp) && self.spill.as_ref().is_none_or(|s| s.runs.is_empty())
    }

    /// Records a visited state.
    pub fn insert(&mut self, fp: Fingerprint, link: Link) {
        self.memory.insert(fp, link);
    }

    /// Removes from `candidates` the states visited and on disk.
    pub fn drop_spilled<V>(&mut self, candidates: &mut FpMap<V>) -> Result<(), String> {
        let Some(spill) = &mut self.spill else {
            return Ok(());
        };
        if spill.runs.is_empty() || candidates.is_empty() {
            return Ok(());
        }
        let mut sorted: Vec<Fingerprint> = candidates.keys().copied().collect();
        sorted.sort_unstable();
        let mut present = vec![false; sorted.len()];
        spill
            .runs
            .mark_present(&sorted, &mut present)
            .map_err(|e| {
                format!(
                    "looking up spilled states in `{}`: {e}",
                    spill.dir.path().display()
                )
            })?;
        for (fp, p) in sorted.iter().zip(present) {
            if p {
                candidates.remove(fp);
            }
        }
        Ok(())
    }

    /// Moves the states in memory to disk if they reached the budget.
    pub fn keep_within_budget(&mut self) -> Result<(), String> {
        let Some(spill) = &mut self.spill else {
            return Ok(());
        };
        let steps: usize = self.memory.values().map(|(_, s)| s.capacity() * 4).sum();
        let bytes = self.memory.capacity() * (16 + std::mem::size_of::<Link>() + 1) + steps;
        if (bytes as u64) < spill.limit || self.memory.is_empty() {
            return Ok(());
        }
        let mut records: Vec<(Fingerprint, Option<Fingerprint>)> = self
            .memory
            .drain()
            .map(|(fp, (parent, _))| (fp, parent))
            .collect();
        self.memory = FpMap::default();
        records.sort_unstable_by_key(|r| r.0);
        let sorted: Vec<Fingerprint> = records.iter().map(|r| r.0).collect();
        let mut values = Vec::with_capacity(records.len() * VALUE);
        for (_, parent) in &records {
            values.push(parent.is_some() as u8);
            values.extend_from_slice(&parent.unwrap_or(0).to_le_bytes());
        }
        spill.runs.add(&sorted, &values).map_err(|e| {
            format!(
                "writing spilled states in `{}`: {e}",
                spill.dir.path().display()
            )
        })?;
        spill.spills += 1;
        Ok(())
    }

    /// The parent and step of a visited state; the step is empty when the state is on disk.
    pub fn get(&mut self, fp: Fingerprint) -> Result<Option<Link>, String> {
        if let Some(link) = self.memory.get(&fp) {
            return Ok(Some(link.clone()));
        }
        let Some(spill) = &mut self.spill else {
            return Ok(None);
        };
        let value = spill.runs.get(fp).map_err(|e| {
            format!(
                "reading spilled states in `{}`: {e}",
                spill.dir.path().display()
            )
        })?;
        Ok(value.map(|v| {
            let mut parent = [0u8; 16];
            parent.copy_from_slice(&v[1..]);
            let parent = (v[0] == 1).then(|| Fingerprint::from_le_bytes(parent));
            (parent, Vec::new())
        }))
    }

    /// Every visited state, for a checkpoint (states on disk with an empty step).
    pub fn all(&self) -> Result<Vec<(Fingerprint, Link)>, String> {
        let mut out: Vec<(Fingerprint, Link)> =
            self.memory.iter().map(|(fp, l)| (*fp, l.clone())).collect();
        if let Some(spill) = &self.spill {
            spill
                .runs
                .for_each(&mut |fp, v| {
                    let mut parent = [0u8; 16];
                    parent.copy_from_slice(&v[1..]);
                    let parent = (v[0] == 1).then(|| Fingerprint::from_le_bytes(parent));
                    out.push((fp, (parent, Vec::new())));
                })
                .map_err(|e| format!("reading spilled states for a checkpoint: {e}"))?;
        }
        Ok(out)
    }

    /// What spilling did, with a budget.
    pub fn stats(&self) -> Option<SpillStats> {
        self.spill.as_ref().map(|s| SpillStats {
            limit: s.limit,
            spills: s.spills,
            states_on_disk: s.runs.len(),
            runs: s.runs.runs(),
            merges: s.runs.merges,
            bytes_on_disk: s.runs.disk_bytes(),
            bytes_written: s.runs.bytes_written,
            bytes_read: s.runs.bytes_read,
            disk_time: s.runs.busy,
            error: None,
        })
    }
}
