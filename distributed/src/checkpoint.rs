//! Checkpoints at level boundaries (TLC's `-checkpoint`/`-recover`): every worker writes what it
//! owns (the visited states with their parent links, the frontier of the next level, its
//! counters) to `DIR/level-D/worker-K.bin` (bincode), atomically (written aside, then renamed).
//! A worker deletes its previous checkpoint only after the next round, when every worker has
//! written the new one, so a kill at any moment leaves one level that every worker has; a
//! resumed search takes the deepest such level.

use crate::wire::{Fp, Key, Summary};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where and how often to write checkpoints, and where to resume from.
#[derive(Debug, Clone)]
pub struct Checkpointing {
    /// The folder checkpoints are written to (none: no checkpoints).
    pub dir: Option<PathBuf>,
    /// The least time between two checkpoints.
    pub every: Duration,
    /// The folder to resume from (none: start afresh).
    pub resume: Option<PathBuf>,
    /// What the search is (model, parameters, universe, options): a checkpoint of another
    /// search is refused.
    pub identity: String,
    /// Where each worker's visited set spills under a memory limit (a fresh directory inside
    /// this one; default: the system's temporary directory).
    pub spill_dir: Option<PathBuf>,
}

/// What one worker saves.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Saved {
    /// [`Checkpointing::identity`].
    pub identity: String,
    /// Workers in all.
    pub peers: u64,
    /// The level about to be expanded.
    pub depth: u32,
    /// The deepest complete level.
    pub levels_completed: Option<u32>,
    /// This worker's counters.
    pub summary: Summary,
    /// Candidates sent per level so far.
    pub sent_per_level: Vec<u64>,
    /// Visited states: fingerprint, parent, step.
    pub links: Vec<(Fp, Option<Fp>, Vec<u32>)>,
    /// The frontier: key, fingerprint, state.
    pub frontier: Vec<(Key, Fp, Vec<i64>)>,
}

/// The file of worker `worker` at `depth`.
pub fn file(dir: &Path, depth: u32, worker: u64) -> PathBuf {
    dir.join(format!("level-{depth}"))
        .join(format!("worker-{worker}.bin"))
}

/// Writes a worker's checkpoint.
pub fn write(dir: &Path, worker: u64, saved: &Saved) -> Result<(), String> {
    let path = file(dir, saved.depth, worker);
    let parent = path.parent().expect("a level folder");
    std::fs::create_dir_all(parent)
        .map_err(|e| format!("cannot create `{}`: {e}", parent.display()))?;
    let aside = path.with_extension("tmp");
    let bytes = bincode::serialize(saved).map_err(|e| e.to_string())?;
    std::fs::write(&aside, bytes)
        .map_err(|e| format!("cannot write `{}`: {e}", aside.display()))?;
    std::fs::rename(&aside, &path).map_err(|e| format!("cannot rename `{}`: {e}", aside.display()))
}

/// Removes a worker's checkpoint at `depth` (and its level folder once empty).
pub fn remove(dir: &Path, depth: u32, worker: u64) {
    let path = file(dir, depth, worker);
    let _ = std::fs::remove_file(&path);
    if let Some(level) = path.parent() {
        let _ = std::fs::remove_dir(level);
    }
}

/// The levels for which this worker has a checkpoint.
pub fn levels(dir: &Path, worker: u64) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<u32> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            name.strip_prefix("level-")?.parse().ok()
        })
        .filter(|&d| file(dir, d, worker).is_file())
        .collect();
    found.sort_unstable();
    found
}

/// Reads a worker's checkpoint.
pub fn read(dir: &Path, depth: u32, worker: u64) -> Result<Saved, String> {
    let path = file(dir, depth, worker);
    let bytes =
        std::fs::read(&path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    bincode::deserialize(&bytes).map_err(|e| {
        format!(
            "`{}` is not a checkpoint of ioa explore: {e}",
            path.display()
        )
    })
}
