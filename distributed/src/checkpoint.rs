//! Checkpoints at level boundaries (TLC's `-checkpoint`/`-recover`): every worker writes what it
//! owns (the visited states with their parent links, the frontier of the next level, its
//! counters) to `DIR/level-D/worker-K.bin`, atomically (written aside, then renamed): a header
//! ([`MAGIC`], the payload's length and its xxh3 checksum) and the bincode payload, so that a
//! file cut short (a full disk, a kill during a copy) or damaged is refused as such.
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

/// The first bytes of every checkpoint file (format version 1).
pub const MAGIC: &[u8; 8] = b"IOACKPT1";

/// The header's length: magic, payload length, checksum.
const HEADER: usize = 8 + 8 + 8;

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
    let payload = bincode::serialize(saved).map_err(|e| e.to_string())?;
    let mut bytes = Vec::with_capacity(HEADER + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
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

/// Reads a worker's checkpoint, refusing a file that is not one, is cut short or is damaged.
pub fn read(dir: &Path, depth: u32, worker: u64) -> Result<Saved, String> {
    let path = file(dir, depth, worker);
    let bytes =
        std::fs::read(&path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    decode(&bytes).map_err(|why| format!("`{}` {why}", path.display()))
}

/// A checkpoint file's contents, or what is wrong with them.
fn decode(bytes: &[u8]) -> Result<Saved, String> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(
            "is not a checkpoint of ioa explore (or of an older version of it): it does not start with the checkpoint header".to_string(),
        );
    }
    if bytes.len() < HEADER {
        return Err(format!(
            "is cut short: {} bytes, less than the {HEADER}-byte header (was the disk full, or the copy interrupted?)",
            bytes.len()
        ));
    }
    let word = |at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(w)
    };
    let (length, sum) = (word(8), word(16));
    let payload = &bytes[HEADER..];
    if payload.len() as u64 != length {
        return Err(format!(
            "is cut short or padded: its header announces {length} bytes of data and it holds {} (was the disk full, or the copy interrupted?)",
            payload.len()
        ));
    }
    if xxhash_rust::xxh3::xxh3_64(payload) != sum {
        return Err("is damaged: its contents do not match their checksum".to_string());
    }
    bincode::deserialize(payload)
        .map_err(|e| format!("holds data this version of ioa cannot read: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved() -> Saved {
        Saved {
            identity: "model".into(),
            peers: 1,
            depth: 3,
            levels_completed: Some(2),
            summary: Summary::default(),
            sent_per_level: vec![1, 2],
            links: Vec::new(),
            frontier: Vec::new(),
        }
    }

    fn written() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("a temporary folder");
        write(dir.path(), 0, &saved()).expect("written");
        let path = file(dir.path(), 3, 0);
        (dir, path)
    }

    #[test]
    fn a_written_checkpoint_reads_back() {
        let (dir, _) = written();
        let back = read(dir.path(), 3, 0).expect("read");
        assert_eq!(back.identity, "model");
        assert_eq!(back.sent_per_level, vec![1, 2]);
    }

    #[test]
    fn a_damaged_cut_or_foreign_file_is_refused_as_such() {
        let (dir, path) = written();
        let good = std::fs::read(&path).expect("read");
        let mut damaged = good.clone();
        let last = damaged.len() - 1;
        damaged[last] ^= 0xff;
        std::fs::write(&path, &damaged).expect("write");
        let e = read(dir.path(), 3, 0).expect_err("damaged");
        assert!(e.contains("is damaged"), "{e}");
        std::fs::write(&path, &good[..good.len() - 3]).expect("write");
        let e = read(dir.path(), 3, 0).expect_err("cut");
        assert!(e.contains("is cut short"), "{e}");
        std::fs::write(&path, &good[..10]).expect("write");
        let e = read(dir.path(), 3, 0).expect_err("cut header");
        assert!(e.contains("is cut short"), "{e}");
        std::fs::write(&path, b"#!/bin/sh\necho hello\n").expect("write");
        let e = read(dir.path(), 3, 0).expect_err("foreign");
        assert!(e.contains("is not a checkpoint of ioa explore"), "{e}");
    }
}
