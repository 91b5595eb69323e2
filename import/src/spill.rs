//! Sorting more edges than the memory budget holds: resolved edges are distributed to buckets by
//! node id as they are resolved, written to files in the load's spill directory, and each bucket
//! is then sorted in memory on its own. New node ids form one dense range, so buckets over
//! consecutive id ranges come out in key order, and each becomes the next SST files of its
//! column family: no merge is needed, and memory holds one bucket at a time.
//!
//! When all edges fit the budget there is a single bucket and nothing touches the disk.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::stage::{Staging, BLOCK};
use crate::ImportError;
use cairn_store::{Graph, SpillDir};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// The staging half of the budget, shared by the threads that read files: each file's staged
/// edges stay in memory a block at a time while all of them together fit half the budget;
/// beyond it, each block that fills is written to the file's spill file instead.
pub(crate) struct StageBudget<'g> {
    graph: &'g Graph,
    limit: u64,
    /// Edges per block: [`BLOCK`], or fewer under a small budget (a few blocks per limit).
    block: usize,
    staged: AtomicU64,
    dir: Mutex<Option<std::sync::Arc<SpillDir>>>,
}

/// What one file's reader has counted against the [`StageBudget`].
#[derive(Default)]
pub(crate) struct Kept {
    edges: usize,
    bytes: u64,
}

impl<'g> StageBudget<'g> {
    pub(crate) fn new(graph: &'g Graph, budget: u64) -> Self {
        let limit = budget / 2;
        let per_edge = std::mem::size_of::<crate::stage::StagedEdge>() as u64;
        StageBudget {
            graph,
            limit,
            block: ((limit / 8 / per_edge) as usize).clamp(256, BLOCK),
            staged: AtomicU64::new(0),
            dir: Mutex::new(None),
        }
    }

    /// Called after each staged record of file `file`: when its edges in memory have grown by a
    /// block, counts the block, or spills them all if the budget is full.
    pub(crate) fn check(
        &self,
        part: &mut Staging,
        file: usize,
        kept: &mut Kept,
    ) -> Result<(), ImportError> {
        if part.edges_in_memory() < kept.edges + self.block {
            return Ok(());
        }
        let bytes = part.edge_bytes();
        let grown = bytes.saturating_sub(kept.bytes);
        if self.staged.load(Ordering::Relaxed) + grown <= self.limit {
            self.staged.fetch_add(grown, Ordering::Relaxed);
            *kept = Kept {
                edges: part.edges_in_memory(),
                bytes,
            };
            return Ok(());
        }
        let dir = self.dir()?;
        part.spill(&dir.path().join(format!("stage-{file}")), self.block)?;
        self.staged.fetch_sub(kept.bytes, Ordering::Relaxed);
        *kept = Kept::default();
        Ok(())
    }

    /// The spill directory, created on first use; it must outlive the staging it holds.
    pub(crate) fn dir(&self) -> Result<std::sync::Arc<SpillDir>, ImportError> {
        let mut dir = self.dir.lock().map_err(|_| {
            ImportError::Engine(cairn_store::EngineError::Invalid(
                "a reading thread panicked".into(),
            ))
        })?;
        if let Some(d) = dir.as_ref() {
            return Ok(std::sync::Arc::clone(d));
        }
        let d = std::sync::Arc::new(self.graph.spill_dir()?);
        *dir = Some(std::sync::Arc::clone(&d));
        Ok(d)
    }

    /// Whether anything was spilled.
    pub(crate) fn spilled(&self) -> bool {
        self.dir.lock().map(|d| d.is_some()).unwrap_or(false)
    }
}

/// A record of fixed width, as it is written to a bucket file.
pub(crate) trait Fixed: Sized {
    const LEN: usize;
    fn write_to(&self, out: &mut [u8]);
    fn read_from(bytes: &[u8]) -> Self;
}

/// How edges are split into buckets by one of their node ids.
///
/// Bucket 0 holds nodes that existed before the import (ids below the new range; sorted by
/// comparison, usually few), bucket `1 + k` the new ids of `range(1 + k)`. With one bucket
/// ([`Plan::spills`] false) everything stays in memory, in bucket 0 with the whole new range.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    new: Range<u64>,
    /// New ids per bucket.
    width: u64,
    /// Buckets of new ids (0: do not spill).
    count: u64,
}

impl Plan {
    /// Buckets for `records` records of `bytes` bytes each, new ids `new`, under `budget`: a
    /// bucket, the sort's scratch copy and the re-sort by the other end must fit.
    pub(crate) fn new(new: Range<u64>, records: u64, bytes: u64, budget: u64) -> Plan {
        let need = records.saturating_mul(bytes).saturating_mul(4);
        let count = need.div_ceil(budget.max(1));
        let ids = new.end - new.start;
        if count <= 1 || ids < 2 {
            return Plan {
                new,
                width: ids.max(1),
                count: 0,
            };
        }
        let count = count.min(ids);
        Plan {
            width: ids.div_ceil(count),
            count: ids.div_ceil(ids.div_ceil(count)),
            new,
        }
    }

    pub(crate) fn spills(&self) -> bool {
        self.count > 0
    }

    /// The number of buckets.
    pub(crate) fn len(&self) -> usize {
        1 + self.count as usize
    }

    fn bucket(&self, id: u64) -> usize {
        if self.count == 0 || id < self.new.start {
            0
        } else {
            (1 + (id - self.new.start) / self.width).min(self.count) as usize
        }
    }

    /// The new ids of bucket `b` (for the radix sort; empty for bucket 0 when spilling).
    pub(crate) fn range(&self, b: usize) -> Range<u64> {
        if self.count == 0 {
            return self.new.clone();
        }
        if b == 0 {
            return 0..0;
        }
        let start = self.new.start + (b as u64 - 1) * self.width;
        start..(start + self.width).min(self.new.end)
    }
}

/// One writer's share of the buckets: records in memory (no spilling), or one file per bucket.
pub(crate) enum Written<T> {
    Memory(Vec<T>),
    Files(Vec<Option<PathBuf>>),
}

/// Distributes records to buckets as they come, in order.
pub(crate) struct BucketWriter<'p, T> {
    plan: &'p Plan,
    memory: Vec<T>,
    files: Vec<Option<(PathBuf, BufWriter<File>)>>,
    dir: Option<PathBuf>,
    name: String,
    buf: Vec<u8>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ImportError + '_ {
    move |source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl<'p, T: Fixed> BucketWriter<'p, T> {
    /// A writer whose files (when `plan` spills) are `dir/{name}-{bucket}`; `name` must be
    /// unique among the writers of `dir`.
    pub(crate) fn new(plan: &'p Plan, dir: Option<&Path>, name: String) -> Self {
        BucketWriter {
            plan,
            memory: Vec::new(),
            files: (0..plan.len()).map(|_| None).collect(),
            dir: dir.filter(|_| plan.spills()).map(Path::to_path_buf),
            name,
            buf: vec![0; T::LEN],
        }
    }

    /// Adds `record`, to the bucket of node `id`.
    pub(crate) fn push(&mut self, record: T, id: u64) -> Result<(), ImportError> {
        let Some(dir) = &self.dir else {
            self.memory.push(record);
            return Ok(());
        };
        let b = self.plan.bucket(id);
        let Some(slot) = self.files.get_mut(b) else {
            return Ok(());
        };
        if slot.is_none() {
            let path = dir.join(format!("{}-{b}", self.name));
            let file = File::create(&path).map_err(io(&path))?;
            *slot = Some((path, BufWriter::with_capacity(1 << 16, file)));
        }
        if let Some((path, w)) = slot {
            record.write_to(&mut self.buf);
            w.write_all(&self.buf).map_err(io(path))?;
        }
        Ok(())
    }

    pub(crate) fn finish(self) -> Result<Written<T>, ImportError> {
        if self.dir.is_none() {
            return Ok(Written::Memory(self.memory));
        }
        let mut paths = Vec::with_capacity(self.files.len());
        for slot in self.files {
            paths.push(match slot {
                Some((path, mut w)) => {
                    w.flush().map_err(io(&path))?;
                    Some(path)
                }
                None => None,
            });
        }
        Ok(Written::Files(paths))
    }
}

/// Bucket `b` of all writers, in their order (so records keep the order they were pushed in:
/// later duplicates stay later). Memory shares are taken, files read and removed.
pub(crate) fn load<T: Fixed>(parts: &mut [Written<T>], b: usize) -> Result<Vec<T>, ImportError> {
    let mut out = Vec::new();
    for part in parts.iter_mut() {
        match part {
            Written::Memory(records) if b == 0 => {
                if out.is_empty() {
                    out = std::mem::take(records);
                } else {
                    out.append(records);
                }
            }
            Written::Memory(_) => {}
            Written::Files(paths) => {
                let Some(path) = paths.get_mut(b).and_then(Option::take) else {
                    continue;
                };
                let file = File::open(&path).map_err(io(&path))?;
                let len = file.metadata().map_err(io(&path))?.len() as usize;
                out.reserve(len / T::LEN);
                let mut reader = BufReader::with_capacity(1 << 16, file);
                let mut buf = vec![0u8; T::LEN];
                for _ in 0..len / T::LEN {
                    reader.read_exact(&mut buf).map_err(io(&path))?;
                    out.push(T::read_from(&buf));
                }
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_the_new_ids_in_order() {
        let plan = Plan::new(100..1100, 10_000, 24, 100_000);
        assert!(plan.spills());
        assert_eq!(plan.range(0), 0..0);
        let mut next = 100;
        for b in 1..plan.len() {
            let r = plan.range(b);
            assert_eq!(r.start, next);
            assert!(!r.is_empty());
            for id in r.clone() {
                assert_eq!(plan.bucket(id), b);
            }
            next = r.end;
        }
        assert_eq!(next, 1100);
        assert_eq!(plan.bucket(5), 0);
        let fits = Plan::new(100..1100, 10, 24, 100_000);
        assert!(!fits.spills());
        assert_eq!(fits.len(), 1);
        assert_eq!(fits.range(0), 100..1100);
    }
}
