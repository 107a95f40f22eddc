//! Fingerprints on disk as sorted runs: the part of a visited set that no longer fits in the
//! explorer's memory budget (`--memory-limit`), after TLC's `DiskFPSet`.
//!
//! A *run* is a file of strictly increasing 128-bit fingerprints (16 bytes each, little
//! endian). Runs of one set are disjoint: a run is only ever written from fingerprints that
//! were checked absent from the runs already there. Each run keeps in memory the first
//! fingerprint of every block of [`BLOCK`] fingerprints (16 bytes per 1,024 states), so a sorted
//! batch of candidates is looked up by reading, in file order, only the blocks that can hold
//! one of them: one sequential pass at most, and a few blocks for a small batch.
//!
//! Runs are merged as they are added, so that a run is never followed by one more than half
//! its size: a set of `n` fingerprints written `k` times has `O(log k)` runs and costs
//! `O(n log k)` bytes of merging, not the `O(n k)` of keeping one file.
//!
//! Why plain buffered files: an embedded key-value store (redb, sled, fjall, RocksDB) pays per
//! key for B-tree or LSM bookkeeping and for a write-ahead log and fsyncs that make it survive
//! crashes, none of which a search needs (a crashed search is resumed from a checkpoint, not
//! from its spill files), and it answers one key at a time where the explorer asks set at a time
//! once per level; `memmap2` would need `unsafe`, which this workspace forbids. Sorted runs with
//! a sparse index are TLC's design for the same problem, in about two hundred lines.

use crate::fingerprint::Fingerprint;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Fingerprints per indexed block (16 KiB of file).
pub const BLOCK: usize = 1024;

/// Bytes of one fingerprint on disk.
const WIDTH: usize = std::mem::size_of::<Fingerprint>();

/// One sorted file of fingerprints and its sparse index.
struct Run {
    path: PathBuf,
    len: u64,
    /// The first fingerprint of each block.
    index: Vec<Fingerprint>,
}

/// A set of fingerprints kept on disk as disjoint sorted runs, with counters of the work done.
pub struct SortedRuns {
    dir: PathBuf,
    /// Oldest (largest) first.
    runs: Vec<Run>,
    next_name: u64,
    /// Bytes written (runs and merges).
    pub bytes_written: u64,
    /// Bytes read (lookups and merges).
    pub bytes_read: u64,
    /// Runs merged into others.
    pub merges: u64,
    /// Time spent writing, merging and looking up.
    pub busy: Duration,
}

/// Writes sorted fingerprints to a new file and returns its run.
fn write_run(path: PathBuf, sorted: impl Iterator<Item = Fingerprint>) -> io::Result<Run> {
    let mut out = BufWriter::with_capacity(1 << 16, File::create(&path)?);
    let mut len = 0u64;
    let mut index = Vec::new();
    for fp in sorted {
        if len % BLOCK as u64 == 0 {
            index.push(fp);
        }
        out.write_all(&fp.to_le_bytes())?;
        len += 1;
    }
    out.flush()?;
    Ok(Run { path, len, index })
}

/// Reads a run's fingerprints in order.
struct RunReader {
    input: BufReader<File>,
    left: u64,
}

impl RunReader {
    fn open(run: &Run) -> io::Result<RunReader> {
        Ok(RunReader {
            input: BufReader::with_capacity(1 << 16, File::open(&run.path)?),
            left: run.len,
        })
    }

    fn next(&mut self) -> io::Result<Option<Fingerprint>> {
        if self.left == 0 {
            return Ok(None);
        }
        let mut bytes = [0u8; WIDTH];
        self.input.read_exact(&mut bytes)?;
        self.left -= 1;
        Ok(Some(Fingerprint::from_le_bytes(bytes)))
    }
}

impl SortedRuns {
    /// An empty set whose runs will be files in `dir` (which must exist).
    pub fn new(dir: &Path) -> SortedRuns {
        SortedRuns {
            dir: dir.to_path_buf(),
            runs: Vec::new(),
            next_name: 0,
            bytes_written: 0,
            bytes_read: 0,
            merges: 0,
            busy: Duration::ZERO,
        }
    }

    /// Fingerprints on disk.
    pub fn len(&self) -> u64 {
        self.runs.iter().map(|r| r.len).sum()
    }

    /// Whether no fingerprint is on disk.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Runs on disk.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Bytes the runs take on disk.
    pub fn disk_bytes(&self) -> u64 {
        self.len() * WIDTH as u64
    }

    /// Bytes the sparse indexes take in memory.
    pub fn index_bytes(&self) -> u64 {
        let n: usize = self.runs.iter().map(|r| r.index.capacity()).sum();
        (n * WIDTH) as u64
    }

    fn fresh_path(&mut self) -> PathBuf {
        self.next_name += 1;
        self.dir.join(format!("run-{:06}.fp", self.next_name))
    }

    /// Adds fingerprints that are strictly increasing and absent from every run.
    pub fn add(&mut self, sorted: &[Fingerprint]) -> io::Result<()> {
        if sorted.is_empty() {
            return Ok(());
        }
        debug_assert!(sorted.windows(2).all(|w| w[0] < w[1]));
        let started = Instant::now();
        let path = self.fresh_path();
        let run = write_run(path, sorted.iter().copied())?;
        self.bytes_written += run.len * WIDTH as u64;
        self.runs.push(run);
        // Keep every run more than twice the size of the next one.
        while self.runs.len() >= 2 {
            let n = self.runs.len();
            if self.runs[n - 2].len > 2 * self.runs[n - 1].len {
                break;
            }
            let newer = self.runs.pop().expect("two runs");
            let older = self.runs.pop().expect("two runs");
            let merged = self.merge(&older, &newer)?;
            std::fs::remove_file(&older.path)?;
            std::fs::remove_file(&newer.path)?;
            self.runs.push(merged);
        }
        self.busy += started.elapsed();
        Ok(())
    }

    /// Merges two disjoint runs into a new one.
    fn merge(&mut self, a: &Run, b: &Run) -> io::Result<Run> {
        self.merges += 1;
        let mut ra = RunReader::open(a)?;
        let mut rb = RunReader::open(b)?;
        let mut x = ra.next()?;
        let mut y = rb.next()?;
        let mut error = None;
        let mut merged = std::iter::from_fn(|| {
            let take_a = match (x, y) {
                (None, None) => return None,
                (Some(p), Some(q)) => p <= q,
                (Some(_), None) => true,
                (None, Some(_)) => false,
            };
            let out = if take_a { x } else { y };
            let step = if take_a { ra.next() } else { rb.next() };
            match step {
                Ok(v) if take_a => x = v,
                Ok(v) => y = v,
                Err(e) => {
                    error = Some(e);
                    return None;
                }
            }
            out
        });
        let path = self.fresh_path();
        let run = write_run(path, &mut merged)?;
        if let Some(e) = error {
            return Err(e);
        }
        self.bytes_read += (a.len + b.len) * WIDTH as u64;
        self.bytes_written += run.len * WIDTH as u64;
        Ok(run)
    }

    /// Sets `present[k]` for every `sorted[k]` (strictly increasing) that is in a run; leaves
    /// the others as they are.
    pub fn mark_present(&mut self, sorted: &[Fingerprint], present: &mut [bool]) -> io::Result<()> {
        if sorted.is_empty() || self.runs.is_empty() {
            return Ok(());
        }
        let started = Instant::now();
        let mut block = vec![0u8; BLOCK * WIDTH];
        for run in &self.runs {
            let mut file = File::open(&run.path)?;
            let mut loaded: Option<(usize, usize)> = None;
            for (k, &fp) in sorted.iter().enumerate() {
                if present[k] {
                    continue;
                }
                // The block whose first fingerprint is the greatest one not above `fp`.
                let b = run.index.partition_point(|&first| first <= fp);
                if b == 0 {
                    continue;
                }
                let b = b - 1;
                let count = match loaded {
                    Some((at, count)) if at == b => count,
                    _ => {
                        let first = b as u64 * BLOCK as u64;
                        let count = (run.len - first).min(BLOCK as u64) as usize;
                        file.seek(SeekFrom::Start(first * WIDTH as u64))?;
                        file.read_exact(&mut block[..count * WIDTH])?;
                        self.bytes_read += (count * WIDTH) as u64;
                        loaded = Some((b, count));
                        count
                    }
                };
                let at = |i: usize| {
                    let mut bytes = [0u8; WIDTH];
                    bytes.copy_from_slice(&block[i * WIDTH..(i + 1) * WIDTH]);
                    Fingerprint::from_le_bytes(bytes)
                };
                // Binary search in the block.
                let (mut lo, mut hi) = (0usize, count);
                while lo < hi {
                    let mid = (lo + hi) / 2;
                    if at(mid) < fp {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                present[k] = lo < count && at(lo) == fp;
            }
        }
        self.busy += started.elapsed();
        Ok(())
    }

    /// Every fingerprint on disk, in no particular order (for a checkpoint).
    pub fn for_each(&self, f: &mut dyn FnMut(Fingerprint)) -> io::Result<()> {
        for run in &self.runs {
            let mut reader = RunReader::open(run)?;
            while let Some(fp) = reader.next()? {
                f(fp);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A spread of distinct fingerprints, shuffled by a multiplier.
    fn fps(range: std::ops::Range<u128>) -> Vec<Fingerprint> {
        range
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835))
            .collect()
    }

    #[test]
    fn runs_answer_membership_like_a_set_through_merges() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let mut runs = SortedRuns::new(dir.path());
        let mut all = std::collections::BTreeSet::new();
        // Additions of uneven sizes, some crossing block boundaries, force merges.
        for (k, size) in [3000u128, 10, 1500, 1, 700, 2048, 5].iter().enumerate() {
            let base = 100_000 * k as u128;
            let mut batch = fps(base..base + size);
            batch.sort_unstable();
            runs.add(&batch).expect("written");
            all.extend(batch);
        }
        assert_eq!(runs.len(), all.len() as u64);
        assert!(runs.runs() <= 4, "{} runs", runs.runs());
        assert!(runs.merges > 0);
        let mut probe: Vec<Fingerprint> = fps(0..3100);
        probe.extend(fps(400_000..400_800));
        probe.extend(fps(600_000..600_010));
        probe.sort_unstable();
        probe.dedup();
        let mut present = vec![false; probe.len()];
        runs.mark_present(&probe, &mut present).expect("read");
        for (fp, p) in probe.iter().zip(&present) {
            assert_eq!(*p, all.contains(fp), "{fp:x}");
        }
        let mut seen = 0;
        runs.for_each(&mut |fp| {
            assert!(all.contains(&fp));
            seen += 1;
        })
        .expect("read");
        assert_eq!(seen, all.len());
    }
}
