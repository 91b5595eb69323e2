//! The bulk loader: the store's half of an import, so that the import crate plans *what* to write
//! and this module owns *how* it reaches RocksDB — SST files built with each column family's
//! options, their ingestion under the import marker (`marker.rs`), and the commit (see docs/FORMAT.md, "Bulk
//! import", for which key goes where and why an interrupted import rolls back).
//!
//! A [`BulkLoad`] holds the single writer's lock from [`Graph::bulk_load`] until
//! [`BulkLoad::commit`] or drop, like a [`crate::Writer`]: the new node ids it hands out stay
//! free of concurrent writes.

use crate::catalog::Catalog;
use crate::cf;
use crate::changes::ChangeSet;
use crate::commit::{self, Commit};
use crate::error::{EngineError, Result};
use crate::failpoint;
use crate::files::{BULK_DIR, SPILL_DIR};
use crate::graph::Graph;
use crate::lock::WriterLock;
use crate::marker;
use crate::max_degree::{self, DegreeGrowth};
use crate::settle;
use crate::stats;
use cairn_storage_format::records::{decode_u64, encode_vector};
use cairn_storage_format::{Degree, NodeId, NodeKey, NodeRecord, OutEdgeKey};
use rocksdb::{IngestExternalFileOptions, SstFileWriter, WriteBatch};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

/// The spill directory of an import ([`Graph::spill_dir`]), removed with everything in it when
/// dropped — after the import, whether it succeeded or failed. One left behind by a killed
/// process is removed by the next [`Graph::open`] that can write.
#[derive(Debug)]
pub struct SpillDir {
    path: PathBuf,
}

impl SpillDir {
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
        // And `import-spill` itself once no other import's directory is in it.
        if let Some(parent) = self.path.parent() {
            let _ = std::fs::remove_dir(parent);
        }
    }
}

/// The column families a bulk load writes (the catalog and counters in `meta` are the commit's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Node records by id.
    Node,
    /// (label, key) → id.
    NodeKey,
    /// (normalised name, id) → label: the name index.
    Name,
    /// Property index entries.
    Prop,
    /// Node vectors by id.
    Vector,
    /// Out-edges by source.
    Out,
    /// In-edges by destination.
    In,
    /// Degree counters by node (merge operator adds).
    Degree,
}

impl Family {
    fn cf(self) -> &'static str {
        match self {
            Family::Node => cf::NODE,
            Family::NodeKey => cf::NODE_KEY,
            Family::Name => cf::NAME,
            Family::Prop => cf::PROP,
            Family::Vector => cf::VECTOR,
            Family::Out => cf::OUT,
            Family::In => cf::IN,
            Family::Degree => cf::DEGREE,
        }
    }
}

/// An SST file written by [`SstFiles::write`], to be ingested by [`BulkLoad::ingest`].
#[derive(Debug)]
pub struct SstFile {
    family: Family,
    path: PathBuf,
}

/// One SST file being written: keys must come in ascending order.
pub struct SstSink<'a> {
    writer: SstFileWriter<'a>,
    keys: u64,
}

impl std::fmt::Debug for SstSink<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SstSink").finish_non_exhaustive()
    }
}

impl SstSink<'_> {
    /// Appends one key; keys must be strictly ascending.
    pub fn put(&mut self, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> Result<()> {
        self.writer.put(key, value)?;
        self.keys += 1;
        Ok(())
    }
}

/// Writes SST files for a bulk load; `Copy` and `Sync` so each file can be built on its own thread.
#[derive(Clone, Copy, Debug)]
pub struct SstFiles<'g> {
    graph: &'g Graph,
}

impl SstFiles<'_> {
    /// Writes `items`, whose keys `put` must give in order, to file `part` of `family`;
    /// `None` when there are no items.
    pub fn write<T>(
        &self,
        family: Family,
        part: usize,
        items: &[T],
        mut put: impl FnMut(&mut SstSink<'_>, &T) -> Result<()>,
    ) -> Result<Option<SstFile>> {
        if items.is_empty() {
            return Ok(None);
        }
        self.write_with(family, part, |sink| {
            items.iter().try_for_each(|item| put(sink, item))
        })
    }

    /// Writes the index entries of new nodes, gathered in `parts` (in any order), sorted into
    /// property-index and name-index files. Files rather than the final batch: a million name
    /// entries inserted into the memtable, then flushed, made the final commit a fifth of a 1M
    /// import's time.
    ///
    /// Each part is sorted on its own ([`NewNodeIndex::sort`], which callers may run on their
    /// own threads first) and the parts are merged as the files are written: one sort of all
    /// entries compared keys scattered over every part's buffer, a cache miss per comparison
    /// (17 s of a 5M-node import's write phase, on its critical path). Large indexes are
    /// written as one file per core over consecutive key ranges: one thread writing a 5M-node
    /// import's name file (3.4 s) was the last thing the `in` edges waited for.
    pub fn write_index(&self, parts: &mut [NewNodeIndex]) -> Result<Vec<SstFile>> {
        for part in parts.iter_mut() {
            part.sort();
        }
        let parts: &[NewNodeIndex] = parts;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut files = Vec::new();
        for (family, is_name) in [(Family::Prop, false), (Family::Name, true)] {
            let len = |p: &NewNodeIndex| if is_name { p.name.len() } else { p.prop.len() };
            let total: usize = parts.iter().map(len).sum();
            if total == 0 {
                continue;
            }
            // Split keys: entries of the largest part at equal steps; each part is cut where
            // they fall in it.
            let pieces = if total < INDEX_SPLIT_MIN { 1 } else { cores };
            let mut splits = Vec::new();
            if let Some(big) = parts.iter().max_by_key(|p| len(p)) {
                for k in 1..pieces {
                    if let Some(e) = big.entry(is_name, k * len(big) / pieces) {
                        splits.push(order_key(&big.bytes, e));
                    }
                }
            }
            splits.dedup();
            let cut = |part: &NewNodeIndex, split: &(u64, &[u8])| {
                let entries = if is_name { &part.name } else { &part.prop };
                entries.partition_point(|e| order_key(&part.bytes, e) < *split)
            };
            let ranges: Vec<Vec<Range<usize>>> = (0..=splits.len())
                .map(|k| {
                    parts
                        .iter()
                        .map(|part| {
                            let start = k
                                .checked_sub(1)
                                .and_then(|k| splits.get(k))
                                .map_or(0, |s| cut(part, s));
                            let end = splits.get(k).map_or(len(part), |s| cut(part, s));
                            start..end
                        })
                        .collect()
                })
                .collect();
            let written: Vec<Result<Option<SstFile>>> = std::thread::scope(|s| {
                let handles: Vec<_> = (ranges.iter().enumerate())
                    .map(|(k, ranges)| {
                        s.spawn(move || {
                            self.write_with(family, k, |w| merge_index(w, parts, is_name, ranges))
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join().unwrap_or_else(|_| {
                            Err(EngineError::Invalid("index writer thread panicked".into()))
                        })
                    })
                    .collect()
            });
            for file in written {
                files.extend(file?);
            }
        }
        Ok(files)
    }

    /// Writes file `part` of `family` with the keys `fill` puts, in order, as it computes them
    /// (vectors as they are embedded, edges as a merge yields them): nothing needs to be held
    /// to be written. `None` when `fill` puts no key.
    pub fn write_with<E: From<EngineError>>(
        &self,
        family: Family,
        part: usize,
        fill: impl FnOnce(&mut SstSink<'_>) -> std::result::Result<(), E>,
    ) -> std::result::Result<Option<SstFile>, E> {
        crate::space::ensure(&self.graph.path, 0)?;
        let started = std::time::Instant::now();
        let cf_name = family.cf();
        let opts = cf::options(cf_name, &self.graph.block_cache);
        let mut sink = SstSink {
            writer: SstFileWriter::create(&opts),
            keys: 0,
        };
        let path = self
            .graph
            .path
            .join(BULK_DIR)
            .join(format!("{cf_name}-{part}.sst"));
        sink.writer.open(&path).map_err(EngineError::from)?;
        failpoint!("bulk.sst.opened");
        fill(&mut sink)?;
        if sink.keys == 0 {
            // RocksDB refuses to finish an empty file.
            drop(sink);
            let _ = std::fs::remove_file(&path);
            return Ok(None);
        }
        failpoint!("bulk.sst.before_finish");
        sink.writer.finish().map_err(EngineError::from)?;
        failpoint!("bulk.sst.finished");
        let ms = started.elapsed().as_secs_f64() * 1e3;
        tracing::debug!(
            "import: {cf_name} file of {} keys written in {ms:.0} ms",
            sink.keys
        );
        Ok(Some(SstFile { family, path }))
    }
}

/// A bulk load in progress: the writer lock, the batch of keys that do not go to files, whether
/// files were ingested (which makes the commit durable and its rollback necessary), and what the
/// batch changed of the existing graph (its change set).
pub struct BulkLoad<'g> {
    graph: &'g Graph,
    state: WriterLock<'g>,
    batch: WriteBatch,
    ingested: bool,
    first_new: u64,
    changes: ChangeSet,
    /// Degree merges of existing nodes, for the largest-degree statistic.
    growth: DegreeGrowth,
}

impl std::fmt::Debug for BulkLoad<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BulkLoad")
            .field("next_node_id", &self.state.next_node_id)
            .field("batch_ops", &self.batch.len())
            .field("ingested", &self.ingested)
            .finish()
    }
}

impl Graph {
    /// A new, empty spill directory for an import (see [`SpillDir`]), its own among those of
    /// the imports running at the same time.
    pub fn spill_dir(&self) -> Result<SpillDir> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        self.ensure_writable()?;
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = self
            .path
            .join(SPILL_DIR)
            .join(format!("{}-{n}", std::process::id()));
        std::fs::create_dir_all(&path).map_err(|source| EngineError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(SpillDir { path })
    }

    /// Starts a bulk load, under the writer lock: [`EngineError::WriterBusy`] on a thread that
    /// holds the writer, else waits for another thread's writer (like [`Graph::writer`]).
    pub fn bulk_load(&self) -> Result<BulkLoad<'_>> {
        let state = self.lock_writer(None)?;
        Ok(BulkLoad {
            graph: self,
            first_new: state.next_node_id,
            state,
            batch: WriteBatch::default(),
            ingested: false,
            changes: ChangeSet::default(),
            growth: DegreeGrowth::default(),
        })
    }
}

impl<'g> BulkLoad<'g> {
    /// The first node id not yet used: new nodes of the load take ids from here up.
    pub fn next_node_id(&self) -> u64 {
        self.state.next_node_id
    }

    /// Ids of existing nodes by encoded `ExternalKey` (label, key), in one batched lookup.
    pub fn node_ids(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<NodeId>>> {
        let node_key_cf = self.graph.cf(cf::NODE_KEY)?;
        self.graph
            .db
            .batched_multi_get_cf(node_key_cf, keys, false)
            .into_iter()
            .map(|value| {
                value?
                    .map(|bytes| {
                        decode_u64(&bytes)
                            .map(NodeId)
                            .map_err(EngineError::corrupt("node key index"))
                    })
                    .transpose()
            })
            .collect()
    }

    /// Adds a put to the final batch (changes to existing keys: degree values, records).
    pub fn put(
        &mut self,
        family: Family,
        key: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
    ) -> Result<()> {
        let handle = self.graph.cf(family.cf())?;
        self.batch.put_cf(handle, key, value);
        Ok(())
    }

    /// Adds a merge (degree increments) to the final batch.
    pub fn merge(
        &mut self,
        family: Family,
        key: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
    ) -> Result<()> {
        if family == Family::Degree {
            let delta = Degree::decode(value.as_ref()).map_err(EngineError::corrupt("degree"))?;
            let id = NodeKey::decode(key.as_ref()).map_err(EngineError::corrupt("degree key"))?;
            self.growth.add(id.0, stats::total(delta));
        }
        let handle = self.graph.cf(family.cf())?;
        self.batch.merge_cf(handle, key, value);
        Ok(())
    }

    /// Rewrites existing node `id` from `old` to `new` in the final batch, with its
    /// property-index entries under `catalog`'s indexes (the writer's upkeep, shared).
    pub fn update_node(
        &mut self,
        catalog: &Catalog,
        id: NodeId,
        old: &NodeRecord,
        new: &NodeRecord,
    ) -> Result<()> {
        commit::index_upkeep(
            self.graph,
            &mut self.batch,
            catalog,
            id,
            Some(old),
            Some(new),
        )?;
        let value = new.encode().map_err(EngineError::encode("node record"))?;
        self.put(Family::Node, NodeKey(id).encode(), value)?;
        self.changes.nodes_upserted.push(id);
        if commit::props_differ(Some(old), Some(new)) {
            self.changes.props_touched.push(id);
        }
        Ok(())
    }

    /// Writes the vector of existing node `id` in the final batch.
    pub fn put_vector(&mut self, id: NodeId, vector: &[f32]) -> Result<()> {
        self.put(Family::Vector, NodeKey(id).encode(), encode_vector(vector))?;
        self.changes.vectors_touched.push(id);
        Ok(())
    }

    /// Deletes the vector of existing node `id` in the final batch.
    pub fn drop_vector(&mut self, id: NodeId) -> Result<()> {
        let handle = self.graph.cf(cf::VECTOR)?;
        self.batch.delete_cf(handle, NodeKey(id).encode());
        self.changes.vectors_touched.push(id);
        Ok(())
    }

    /// Writes edge `key` with encoded properties `props` in the final batch: its `out` key when
    /// the source existed before the load, its `in` key when the destination did (the others go
    /// to files). An edge between two existing nodes is listed in the change set.
    pub fn put_edge(
        &mut self,
        key: OutEdgeKey,
        props: &[u8],
        src_existed: bool,
        dst_existed: bool,
    ) -> Result<()> {
        if src_existed {
            self.put(Family::Out, key.encode(), props)?;
        }
        if dst_existed {
            self.put(Family::In, key.reversed().encode(), props)?;
        }
        if src_existed && dst_existed {
            self.changes.edges_added.push((key.src, key.rel, key.dst));
        }
        Ok(())
    }

    /// Empties the SST directory and returns the writer of its files.
    pub fn sst_files(&self) -> Result<SstFiles<'g>> {
        // Before the directory is emptied: it may hold the writer's files of an import.
        self.graph.ensure_writable()?;
        let dir = self.graph.path.join(BULK_DIR);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|source| EngineError::Io {
            path: dir.clone(),
            source,
        })?;
        failpoint!("bulk.sst_dir.created");
        Ok(SstFiles { graph: self.graph })
    }

    /// Ingests `files`, which hold keys of the new ids `new_ids` only. The import marker goes
    /// first and durably: if the process dies from here until [`BulkLoad::commit`],
    /// [`Graph::open`] removes every key of `new_ids` from the ingested column families.
    pub fn ingest(&mut self, files: Vec<SstFile>, new_ids: Range<u64>) -> Result<()> {
        self.graph.ensure_writable()?;
        marker::set(&self.graph.db, &new_ids)?;
        self.ingested = true;
        // From the first file in, this process's own reads hide the new ids as a read-only
        // view's do: the files hold their `node_key` and index entries too.
        self.graph
            .importing_from
            .store(new_ids.start, std::sync::atomic::Ordering::SeqCst);
        let mut ingest = IngestExternalFileOptions::default();
        ingest.set_move_files(true);
        // One call per column family, with all its files (their key ranges do not overlap).
        let mut by_cf: Vec<(Family, Vec<PathBuf>)> = Vec::new();
        for file in files {
            match by_cf.iter_mut().find(|(f, _)| *f == file.family) {
                Some((_, paths)) => paths.push(file.path),
                None => by_cf.push((file.family, vec![file.path])),
            }
        }
        for (family, paths) in by_cf {
            failpoint!("bulk.ingest.before_family");
            self.graph.db.ingest_external_file_cf_opts(
                self.graph.cf(family.cf())?,
                &ingest,
                paths,
            )?;
            failpoint!("bulk.ingest.after_family");
        }
        Ok(())
    }

    /// Commits the final batch with `catalog` and the next node id `next_node_id` (and the
    /// removal of the import marker) through the one commit protocol (synced if files were
    /// ingested: the marker's removal must not be lost after the files are in). The change set
    /// names the new ids as `imported`.
    pub fn commit(mut self, catalog: Catalog, next_node_id: u64) -> Result<Option<Arc<ChangeSet>>> {
        let mut changes = std::mem::take(&mut self.changes);
        changes.imported = (next_node_id > self.first_new).then_some(self.first_new..next_node_id);
        let before = self.graph.catalog();
        let catalog_changed =
            catalog.record() != before.record() || catalog.annotations() != before.annotations();
        let mut growth = std::mem::take(&mut self.growth);
        if next_node_id > self.first_new {
            growth.floor = max_degree::max_degree_in(self.graph, self.first_new..next_node_id)?;
        }
        let c = Commit {
            batch: std::mem::take(&mut self.batch),
            catalog: catalog_changed.then_some(catalog),
            next_node_id,
            sync: self.graph.options.sync_writes || self.ingested,
            clear_marker: self.ingested,
            changes,
            growth,
        };
        failpoint!("bulk.commit.before");
        let changes = commit::commit(self.graph, &mut self.state, c)?;
        // Committed: nothing for `Drop` to roll back, and nothing left to hide.
        let ingested = std::mem::replace(&mut self.ingested, false);
        self.graph
            .importing_from
            .store(u64::MAX, std::sync::atomic::Ordering::SeqCst);
        failpoint!("bulk.commit.after");
        let _ = std::fs::remove_dir_all(self.graph.path.join(BULK_DIR));
        if ingested {
            // The batch put entries into the memtables (degrees, updates of existing nodes, the
            // marker's removal); flushing them now (on a quiet database) spares a read-only
            // open, which replays the log each time, from inserting them again (measured:
            // 2.3-5.8 s added to one-shot queries on a 1M import, when the new nodes' keys and
            // names were in the batch too).
            failpoint!("bulk.flush.before");
            settle::flush_for_readers(&self.graph.db)?;
            failpoint!("bulk.flush.after");
        }
        Ok(changes)
    }
}

/// Index entries (property index and name index) of new nodes, gathered on any thread and
/// written in key order by [`SstFiles::write_index`]. The keys share one buffer: a million
/// nodes' entries are a few allocations, not a million.
#[derive(Debug, Default)]
pub struct NewNodeIndex {
    bytes: Vec<u8>,
    prop: Vec<IndexEntry>,
    name: Vec<IndexEntry>,
    /// Whether `prop` and `name` are in key order (no entry added since [`Self::sort`]).
    sorted: bool,
}

/// One entry of a [`NewNodeIndex`]: where its key is in the shared buffer, the key's first 8
/// bytes inline, and its value (a name entry's label; empty for property entries). Most
/// comparisons end in the inline prefix, so sorting rarely reads the scattered keys: comparing
/// the keys themselves was the largest single cost of a 1M-node import's write phase (a cache
/// miss and a `memcmp` per comparison, 12% of its CPU samples).
#[derive(Clone, Copy, Debug)]
struct IndexEntry {
    prefix: u64,
    start: usize,
    len: u32,
    value: [u8; 4],
}

impl NewNodeIndex {
    /// Adds the entries of new node `id` with record `rec` under `catalog`'s indexes: the same
    /// entries [`crate::Writer`] writes for a new node (`commit::index_upkeep`).
    pub fn add(&mut self, catalog: &Catalog, id: NodeId, rec: &NodeRecord) -> Result<()> {
        let (_, puts) = commit::index_changes(catalog.indexes(), id, None, Some(rec))?;
        for key in puts {
            let entry = self.push_key(&key, [0; 4])?;
            self.prop.push(entry);
        }
        if let Some((key, label)) = commit::name_entry(catalog, id, rec) {
            let entry = self.push_key(&key, label)?;
            self.name.push(entry);
        }
        self.sorted = false;
        Ok(())
    }

    fn push_key(&mut self, key: &[u8], value: [u8; 4]) -> Result<IndexEntry> {
        let len = u32::try_from(key.len())
            .map_err(|_| EngineError::Invalid(format!("index key of {} bytes", key.len())))?;
        let mut prefix = [0u8; 8];
        let n = key.len().min(8);
        prefix[..n].copy_from_slice(&key[..n]);
        let start = self.bytes.len();
        self.bytes.extend_from_slice(key);
        Ok(IndexEntry {
            prefix: u64::from_be_bytes(prefix),
            start,
            len,
            value,
        })
    }

    /// Puts the entries in key order, as [`SstFiles::write_index`] needs them; a part sorted
    /// on the thread that built it leaves less to do there. The zero-padded prefix never orders
    /// two keys against their byte order (a shorter key pads to at most the longer one's
    /// prefix), so ties alone need the whole keys.
    pub fn sort(&mut self) {
        if self.sorted {
            return;
        }
        let bytes = &self.bytes;
        let order = |a: &IndexEntry, b: &IndexEntry| order_key(bytes, a).cmp(&order_key(bytes, b));
        self.prop.sort_unstable_by(order);
        self.name.sort_unstable_by(order);
        self.sorted = true;
    }

    /// Entry `i` of the name (`name`) or the property index, if there is one.
    fn entry(&self, name: bool, i: usize) -> Option<&IndexEntry> {
        match name {
            true => self.name.get(i),
            false => self.prop.get(i),
        }
    }

    /// The key and value of `entry` (a name entry's value is its label; a property entry has
    /// none).
    fn key_value<'s>(&'s self, name: bool, entry: &'s IndexEntry) -> (&'s [u8], &'s [u8]) {
        let value = if name { &entry.value[..] } else { &[][..] };
        (key_of(&self.bytes, entry), value)
    }
}

/// Entries of an index below which it is written as one file.
const INDEX_SPLIT_MIN: usize = 1 << 18;

/// Puts the entries `ranges[p]` of each part `p` into `w` in key order: a heap holds the next
/// entry of each part, smallest key first (keys are unique: they end in the node id); the
/// inline prefix decides most comparisons.
fn merge_index(
    w: &mut SstSink<'_>,
    parts: &[NewNodeIndex],
    is_name: bool,
    ranges: &[Range<usize>],
) -> Result<()> {
    let head = |p: usize, i: usize| {
        let part = parts.get(p)?;
        if i >= ranges.get(p)?.end {
            return None;
        }
        let e = part.entry(is_name, i)?;
        let (prefix, key) = order_key(&part.bytes, e);
        Some(std::cmp::Reverse((prefix, key, p, i)))
    };
    let mut heads: std::collections::BinaryHeap<_> = (ranges.iter().enumerate())
        .filter_map(|(p, r)| head(p, r.start))
        .collect();
    while let Some(std::cmp::Reverse((_, key, p, i))) = heads.pop() {
        let Some(part) = parts.get(p) else { break };
        let Some(e) = part.entry(is_name, i) else {
            break;
        };
        w.put(key, part.key_value(is_name, e).1)?;
        heads.extend(head(p, i + 1));
    }
    Ok(())
}

/// What orders entry `e` of a part whose keys are in `bytes`: its inline prefix, then its
/// whole key (the one order of the sort, the split and the merge).
fn order_key<'b>(bytes: &'b [u8], e: &IndexEntry) -> (u64, &'b [u8]) {
    (e.prefix, key_of(bytes, e))
}

fn key_of<'b>(bytes: &'b [u8], e: &IndexEntry) -> &'b [u8] {
    bytes
        .get(e.start..e.start + e.len as usize)
        .unwrap_or_default()
}

impl Drop for BulkLoad<'_> {
    /// A load that ingested files and did not commit (an error after the ingest) is rolled back
    /// at once, as the next open would do: its ids are handed out again by the next writer, and
    /// must not meet the files' keys. If the rollback fails too, the marker stays, the ids stay
    /// hidden, and the next open retries it.
    fn drop(&mut self) {
        if !self.ingested {
            return;
        }
        match marker::roll_back(&self.graph.db) {
            Ok(()) => self
                .graph
                .importing_from
                .store(u64::MAX, std::sync::atomic::Ordering::SeqCst),
            Err(e) => tracing::error!("rolling back an import that did not commit: {e}"),
        }
    }
}
