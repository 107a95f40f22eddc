//! Fingerprints on disk as sorted runs: the part of a visited set that no longer fits in the
//! explorer's memory budget (`--memory-limit`), after TLC's `DiskFPSet`.
//!
//! A *run* is a file of strictly increasing 128-bit fingerprints (16 bytes each, little
//! endian), each followed by a value of a fixed width (none for a plain set; the parent's
//! fingerprint for the distributed explorer's links). Runs of one set are disjoint: a run is only ever written from fingerprints that
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

/// A fingerprint from its bytes on disk.
fn fp_at(bytes: &[u8]) -> Fingerprint {
    let mut fp = [0u8; WIDTH];
    fp.copy_from_slice(&bytes[..WIDTH]);
    Fingerprint::from_le_bytes(fp)
}

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
    /// Bytes of a record: the fingerprint and its value.
    record: usize,
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

/// Writes records (fingerprint then value), sorted by fingerprint, to a new file and returns
/// its run; `next` fills the buffer with the next record or returns `false`.
fn write_run(
    path: PathBuf,
    record: usize,
    next: &mut dyn FnMut(&mut [u8]) -> io::Result<bool>,
) -> io::Result<Run> {
    let mut out = BufWriter::with_capacity(1 << 16, File::create(&path)?);
    let mut len = 0u64;
    let mut index = Vec::new();
    let mut buffer = vec![0u8; record];
    while next(&mut buffer)? {
        if len % BLOCK as u64 == 0 {
            index.push(fp_at(&buffer));
        }
        out.write_all(&buffer)?;
        len += 1;
    }
    out.flush()?;
    Ok(Run { path, len, index })
}

/// Reads a run's records in order.
struct RunReader {
    input: BufReader<File>,
    left: u64,
    /// The current record (valid while `current` is some).
    buffer: Vec<u8>,
    current: Option<Fingerprint>,
}

impl RunReader {
    fn open(run: &Run, record: usize) -> io::Result<RunReader> {
        let mut reader = RunReader {
            input: BufReader::with_capacity(1 << 16, File::open(&run.path)?),
            left: run.len,
            buffer: vec![0u8; record],
            current: None,
        };
        reader.advance()?;
        Ok(reader)
    }

    fn advance(&mut self) -> io::Result<()> {
        if self.left == 0 {
            self.current = None;
            return Ok(());
        }
        self.input.read_exact(&mut self.buffer)?;
        self.left -= 1;
        self.current = Some(fp_at(&self.buffer));
        Ok(())
    }
}

impl SortedRuns {
    /// An empty set whose runs will be files in `dir` (which must exist), with values of
    /// `value_bytes` bytes beside the fingerprints.
    pub fn new(dir: &Path, value_bytes: usize) -> SortedRuns {
        SortedRuns {
            dir: dir.to_path_buf(),
            record: WIDTH + value_bytes,
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
        self.len() * self.record as u64
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

    /// Adds fingerprints that are strictly increasing and absent from every run, with their
    /// values one after the other in `values`.
    pub fn add(&mut self, sorted: &[Fingerprint], values: &[u8]) -> io::Result<()> {
        if sorted.is_empty() {
            return Ok(());
        }
        let value = self.record - WIDTH;
        debug_assert!(sorted.windows(2).all(|w| w[0] < w[1]));
        debug_assert_eq!(values.len(), sorted.len() * value);
        let started = Instant::now();
        let path = self.fresh_path();
        let mut k = 0;
        let run = write_run(path, self.record, &mut |buffer| {
            let Some(fp) = sorted.get(k) else {
                return Ok(false);
            };
            buffer[..WIDTH].copy_from_slice(&fp.to_le_bytes());
            buffer[WIDTH..].copy_from_slice(&values[k * value..(k + 1) * value]);
            k += 1;
            Ok(true)
        })?;
        self.bytes_written += run.len * self.record as u64;
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
        let mut ra = RunReader::open(a, self.record)?;
        let mut rb = RunReader::open(b, self.record)?;
        let path = self.fresh_path();
        let run = write_run(path, self.record, &mut |buffer| {
            let from = match (ra.current, rb.current) {
                (None, None) => return Ok(false),
                (Some(p), Some(q)) if p <= q => &mut ra,
                (Some(_), None) => &mut ra,
                _ => &mut rb,
            };
            buffer.copy_from_slice(&from.buffer);
            from.advance()?;
            Ok(true)
        })?;
        self.bytes_read += (a.len + b.len) * self.record as u64;
        self.bytes_written += run.len * self.record as u64;
        Ok(run)
    }

    /// Sets `present[k]` for every `sorted[k]` (strictly increasing) that is in a run; leaves
    /// the others as they are.
    pub fn mark_present(&mut self, sorted: &[Fingerprint], present: &mut [bool]) -> io::Result<()> {
        if sorted.is_empty() || self.runs.is_empty() {
            return Ok(());
        }
        let started = Instant::now();
        let record = self.record;
        let mut block = vec![0u8; BLOCK * record];
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
                        file.seek(SeekFrom::Start(first * record as u64))?;
                        file.read_exact(&mut block[..count * record])?;
                        self.bytes_read += (count * record) as u64;
                        loaded = Some((b, count));
                        count
                    }
                };
                let at = |i: usize| fp_at(&block[i * record..]);
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

    /// The value of `fp`, if it is on disk.
    pub fn get(&mut self, fp: Fingerprint) -> io::Result<Option<Vec<u8>>> {
        let record = self.record;
        for run in &self.runs {
            let b = run.index.partition_point(|&first| first <= fp);
            if b == 0 {
                continue;
            }
            let first = (b - 1) as u64 * BLOCK as u64;
            let count = (run.len - first).min(BLOCK as u64) as usize;
            let mut block = vec![0u8; count * record];
            let mut file = File::open(&run.path)?;
            file.seek(SeekFrom::Start(first * record as u64))?;
            file.read_exact(&mut block)?;
            self.bytes_read += block.len() as u64;
            let found = block
                .chunks_exact(record)
                .find(|r| fp_at(r) == fp)
                .map(|r| r[WIDTH..].to_vec());
            if found.is_some() {
                return Ok(found);
            }
        }
        Ok(None)
    }

    /// Every fingerprint on disk with its value, in no particular order (for a checkpoint).
    pub fn for_each(&self, f: &mut dyn FnMut(Fingerprint, &[u8])) -> io::Result<()> {
        for run in &self.runs {
            let mut reader = RunReader::open(run, self.record)?;
            while let Some(fp) = reader.current {
                f(fp, &reader.buffer[WIDTH..]);
                reader.advance()?;
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
        let mut runs = SortedRuns::new(dir.path(), 4);
        let mut all = std::collections::BTreeSet::new();
        // Additions of uneven sizes, some crossing block boundaries, force merges.
        for (k, size) in [3000u128, 10, 1500, 1, 700, 2048, 5].iter().enumerate() {
            let base = 100_000 * k as u128;
            let mut batch = fps(base..base + size);
            batch.sort_unstable();
            let values: Vec<u8> = batch
                .iter()
                .flat_map(|fp| (*fp as u32).to_le_bytes())
                .collect();
            runs.add(&batch, &values).expect("written");
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
        runs.for_each(&mut |fp, value| {
            assert!(all.contains(&fp));
            assert_eq!(value, (fp as u32).to_le_bytes());
            seen += 1;
        })
        .expect("read");
        assert_eq!(seen, all.len());
        for fp in probe {
            let value = runs.get(fp).expect("read");
            assert_eq!(
                value,
                all.contains(&fp)
                    .then(|| (fp as u32).to_le_bytes().to_vec())
            );
        }
    }
}
