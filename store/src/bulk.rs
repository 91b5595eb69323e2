//! The bulk loader: the store's half of an import, so that the import crate plans *what* to
//! write and this module owns *how* it reaches the store — which keys and keyspaces hold it
//! (the import builds no key), parts written through the storage boundary's bulk path
//! ([`crate::storage::Storage::bulk_write`]: SST files on RocksDB), made part of the store under
//! the import marker (`marker.rs`), and the commit (see docs/FORMAT.md, "Bulk import", for
//! which key goes where and why an interrupted import rolls back).
//!
//! A [`BulkLoad`] holds the single writer's lock from [`Graph::bulk_load`] until
//! [`BulkLoad::commit`] or drop, like a [`crate::Writer`]: the new node ids it hands out stay
//! free of concurrent writes.

use crate::catalog::Catalog;
use crate::changes::ChangeSet;
use crate::commit::{self, Commit};
use crate::error::{EngineError, Result};
use crate::failpoint;
use crate::graph::{Direction, Graph};
use crate::lock::WriterLock;
use crate::marker;
use crate::max_degree::{self, DegreeGrowth};
use crate::stats;
use crate::storage::rocks::SPILL_DIR;
use crate::storage::{Batch, BulkPart, BulkSink, Space};
use cairn_storage_format::records::{encode_u64, encode_vector};
use cairn_storage_format::{
    Degree, ExternalKey, InEdgeKey, LabelId, NodeId, NodeKey, NodeRecord, OutEdgeKey, RelId,
};
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

/// Writes the parts of a bulk load: the keys of the new nodes, each method one keyspace, the
/// keys built here from what the caller gives. `Copy` and `Sync`, so that each part can be
/// written on its own thread. Every method takes items in the order of the keys it writes (it
/// says which) and returns `None` when there were none.
#[derive(Clone, Copy, Debug)]
pub struct BulkFiles<'g> {
    graph: &'g Graph,
}

/// Writes a new node's vector while the part is being written (see [`BulkFiles::vectors`]).
pub struct VectorSink<'a> {
    sink: &'a mut dyn BulkSink,
}

impl std::fmt::Debug for VectorSink<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorSink").finish_non_exhaustive()
    }
}

impl VectorSink<'_> {
    /// Appends node `id`'s vector; ids must be strictly ascending.
    pub fn put(&mut self, id: NodeId, vector: &[f32]) -> Result<()> {
        self.sink.put(&NodeKey(id).encode(), &encode_vector(vector))
    }
}

impl BulkFiles<'_> {
    /// Writes part `part` of `space` with the keys `fill` puts, in order, as it computes them:
    /// nothing needs to be held to be written. An error of `fill` is returned as it is.
    fn write<E: From<EngineError>>(
        &self,
        space: Space,
        part: usize,
        fill: impl FnOnce(&mut dyn BulkSink) -> std::result::Result<(), E>,
    ) -> std::result::Result<Option<BulkPart>, E> {
        let mut fill = Some(fill);
        let mut failed: Option<E> = None;
        let written = self.graph.storage.bulk_write(space, part, &mut |sink| {
            let Some(fill) = fill.take() else {
                return Ok(());
            };
            fill(sink).map_err(|e| {
                failed = Some(e);
                EngineError::Invalid("the bulk part was abandoned".into())
            })
        });
        match (written, failed) {
            (_, Some(e)) => Err(e),
            (Ok(part), None) => Ok(part),
            (Err(e), None) => Err(e.into()),
        }
    }

    /// The records of new nodes, given as (id, encoded record), in ascending id order.
    pub fn node_records<'v, T>(
        &self,
        items: &'v [T],
        record: impl Fn(&'v T) -> (NodeId, &'v [u8]),
    ) -> Result<Option<BulkPart>> {
        self.write(Space::Node, 0, |sink| {
            items.iter().try_for_each(|item| {
                let (id, bytes) = record(item);
                sink.put(&NodeKey(id).encode(), bytes)
            })
        })
    }

    /// The (label, external key) → id entries of new nodes, in (label, key bytes) order.
    pub fn node_keys<'v, T>(
        &self,
        items: &'v [T],
        key: impl Fn(&'v T) -> (LabelId, &'v str, NodeId),
    ) -> Result<Option<BulkPart>> {
        let mut buf = Vec::new();
        self.write(Space::NodeKey, 0, |sink| {
            items.iter().try_for_each(|item| {
                let (label, external, id) = key(item);
                ExternalKey::encode_into(label, external, &mut buf);
                sink.put(&buf, &encode_u64(id.0))
            })
        })
    }

    /// Part `part` of the edges whose leading node is new, in one direction, each given as
    /// (source, relation, destination, encoded properties): for [`Direction::Out`] in
    /// (source, relation, destination) order, for [`Direction::In`] in (destination, relation,
    /// source) order.
    pub fn edges<'v, T>(
        &self,
        direction: Direction,
        part: usize,
        items: &'v [T],
        edge: impl Fn(&'v T) -> (NodeId, RelId, NodeId, &'v [u8]),
    ) -> Result<Option<BulkPart>> {
        let space = match direction {
            Direction::In => Space::In,
            _ => Space::Out,
        };
        self.write(space, part, |sink| {
            items.iter().try_for_each(|item| {
                let (src, rel, dst, props) = edge(item);
                let key = OutEdgeKey { src, rel, dst };
                match direction {
                    Direction::In => sink.put(&key.reversed().encode(), props),
                    _ => sink.put(&key.encode(), props),
                }
            })
        })
    }

    /// The degrees of new nodes, in ascending id order.
    pub fn degrees<T>(
        &self,
        items: &[T],
        degree: impl Fn(&T) -> (NodeId, Degree),
    ) -> Result<Option<BulkPart>> {
        self.write(Space::Degree, 0, |sink| {
            items.iter().try_for_each(|item| {
                let (id, d) = degree(item);
                sink.put(&NodeKey(id).encode(), &d.encode())
            })
        })
    }

    /// The vectors of new nodes, put by `fill` in ascending id order as it computes them.
    pub fn vectors<E: From<EngineError>>(
        &self,
        fill: impl FnOnce(&mut VectorSink<'_>) -> std::result::Result<(), E>,
    ) -> std::result::Result<Option<BulkPart>, E> {
        self.write(Space::Vector, 0, |sink| fill(&mut VectorSink { sink }))
    }

    /// Writes the index entries of new nodes, gathered in `parts` (in any order), sorted into
    /// property-index and name-index parts. Parts rather than the final batch: a million name
    /// entries inserted into the memtable, then flushed, made the final commit a fifth of a 1M
    /// import's time.
    ///
    /// Each part is sorted on its own ([`NewNodeIndex::sort`], which callers may run on their
    /// own threads first) and the parts are merged as the files are written: one sort of all
    /// entries compared keys scattered over every part's buffer, a cache miss per comparison
    /// (17 s of a 5M-node import's write phase, on its critical path). Large indexes are
    /// written as one part per core over consecutive key ranges: one thread writing a 5M-node
    /// import's name file (3.4 s) was the last thing the `in` edges waited for.
    pub fn write_index(&self, parts: &mut [NewNodeIndex]) -> Result<Vec<BulkPart>> {
        for part in parts.iter_mut() {
            part.sort();
        }
        let parts: &[NewNodeIndex] = parts;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut files = Vec::new();
        for (space, is_name) in [(Space::Prop, false), (Space::Name, true)] {
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
            let written: Vec<Result<Option<BulkPart>>> = std::thread::scope(|s| {
                let handles: Vec<_> = (ranges.iter().enumerate())
                    .map(|(k, ranges)| {
                        s.spawn(move || {
                            self.write(space, k, |w| merge_index(w, parts, is_name, ranges))
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
}

/// A bulk load in progress: the writer lock, the batch of keys that do not go to the parts,
/// whether the import marker is set (which makes the commit durable and its rollback
/// necessary), and what the batch changed of the existing graph (its change set).
pub struct BulkLoad<'g> {
    graph: &'g Graph,
    state: WriterLock<'g>,
    batch: Batch,
    /// The import marker is set: parts may be in the store.
    marked: bool,
    /// [`BulkLoad::files`] prepared the storage's bulk path (which `Drop` then tidies).
    began: bool,
    /// The new ids the parts hold (set by [`BulkLoad::files`]).
    new_ids: Range<u64>,
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
            .field("marked", &self.marked)
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
            new_ids: state.next_node_id..state.next_node_id,
            state,
            batch: Batch::default(),
            marked: false,
            began: false,
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

    /// Ids of existing nodes by (label, external key), in one batched lookup.
    pub fn node_ids(&self, keys: &[(LabelId, &str)]) -> Result<Vec<Option<NodeId>>> {
        self.graph.reader().node_ids(keys)
    }

    /// Adds `delta` to existing node `id`'s degree in the final batch.
    pub fn add_degree(&mut self, id: NodeId, delta: Degree) -> Result<()> {
        self.growth.add(id, stats::total(delta));
        self.batch
            .merge(Space::Degree, NodeKey(id).encode(), delta.encode());
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
        commit::index_upkeep(&mut self.batch, catalog, id, Some(old), Some(new))?;
        let value = new.encode().map_err(EngineError::encode("node record"))?;
        self.batch.put(Space::Node, NodeKey(id).encode(), value);
        self.changes.nodes_upserted.push(id);
        if commit::props_differ(Some(old), Some(new)) {
            self.changes.props_touched.push(id);
        }
        Ok(())
    }

    /// Writes the vector of existing node `id` in the final batch.
    pub fn put_vector(&mut self, id: NodeId, vector: &[f32]) -> Result<()> {
        self.batch
            .put(Space::Vector, NodeKey(id).encode(), encode_vector(vector));
        self.changes.vectors_touched.push(id);
        Ok(())
    }

    /// Deletes the vector of existing node `id` in the final batch.
    pub fn drop_vector(&mut self, id: NodeId) -> Result<()> {
        self.batch.delete(Space::Vector, NodeKey(id).encode());
        self.changes.vectors_touched.push(id);
        Ok(())
    }

    /// Writes edge `src -[rel]-> dst` with encoded properties `props` in the final batch: its
    /// `out` key when the source existed before the load, its `in` key when the destination
    /// did (the others go to parts, [`BulkFiles::edges`]). An edge between two existing nodes
    /// is listed in the change set.
    pub fn put_edge(
        &mut self,
        (src, rel, dst): (NodeId, RelId, NodeId),
        props: &[u8],
        src_existed: bool,
        dst_existed: bool,
    ) -> Result<()> {
        let key = OutEdgeKey { src, rel, dst };
        if src_existed {
            self.batch.put(Space::Out, key.encode(), props);
        }
        if dst_existed {
            let in_key: InEdgeKey = key.reversed();
            self.batch.put(Space::In, in_key.encode(), props);
        }
        if src_existed && dst_existed {
            self.changes.edges_added.push((src, rel, dst));
        }
        Ok(())
    }

    /// Prepares the parts of the new nodes `new_ids` and returns their writer. On a store whose
    /// parts are written in place, the import marker goes first and durably (see
    /// [`BulkLoad::ingest`]).
    pub fn files(&mut self, new_ids: Range<u64>) -> Result<BulkFiles<'g>> {
        // Before the storage is touched: it may hold the writer's parts of an import.
        self.graph.ensure_writable()?;
        self.graph.storage.bulk_begin()?;
        self.began = true;
        failpoint!("bulk.sst_dir.created");
        self.new_ids = new_ids;
        if self.graph.storage.bulk_in_place() && !self.new_ids.is_empty() {
            self.mark()?;
        }
        Ok(BulkFiles { graph: self.graph })
    }

    /// Sets the import marker for the new ids, durably: if the process dies from here until
    /// [`BulkLoad::commit`], [`Graph::open`] removes every key of those ids. From here on,
    /// this process's own reads hide them as a read-only view's do.
    fn mark(&mut self) -> Result<()> {
        marker::set(&*self.graph.storage, &self.new_ids)?;
        self.marked = true;
        self.graph
            .importing_from
            .store(self.new_ids.start, std::sync::atomic::Ordering::SeqCst);
        Ok(())
    }

    /// Makes `parts`, which hold keys of the new ids given to [`BulkLoad::files`] only, part of
    /// the store, the import marker first (unless [`BulkLoad::files`] set it).
    pub fn ingest(&mut self, parts: Vec<BulkPart>) -> Result<()> {
        self.graph.ensure_writable()?;
        if !self.marked {
            self.mark()?;
        }
        self.graph.storage.bulk_ingest(parts)
    }

    /// Commits the final batch with `catalog` and the next node id `next_node_id` (and the
    /// removal of the import marker) through the one commit protocol (synced if the marker
    /// was set: its removal must not be lost after the parts are in). The change set names
    /// the new ids as `imported`.
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
            sync: self.graph.options.sync_writes || self.marked,
            clear_marker: self.marked,
            changes,
            growth,
        };
        failpoint!("bulk.commit.before");
        let changes = commit::commit(self.graph, &mut self.state, c)?;
        // Committed: nothing for `Drop` to roll back, and nothing left to hide.
        let marked = std::mem::replace(&mut self.marked, false);
        self.graph
            .importing_from
            .store(u64::MAX, std::sync::atomic::Ordering::SeqCst);
        failpoint!("bulk.commit.after");
        if std::mem::take(&mut self.began) {
            self.graph.storage.bulk_end();
        }
        if marked {
            // The batch put entries into the memtables (degrees, updates of existing nodes, the
            // marker's removal); flushing them now (on a quiet database) spares a read-only
            // open, which replays the log each time, from inserting them again (measured:
            // 2.3-5.8 s added to one-shot queries on a 1M import, when the new nodes' keys and
            // names were in the batch too).
            failpoint!("bulk.flush.before");
            self.graph.storage.settle()?;
            failpoint!("bulk.flush.after");
        }
        Ok(changes)
    }
}

/// Index entries (property index and name index) of new nodes, gathered on any thread and
/// written in key order by [`BulkFiles::write_index`]. The keys share one buffer: a million
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

    /// Puts the entries in key order, as [`BulkFiles::write_index`] needs them; a part sorted
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
    w: &mut dyn BulkSink,
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
    /// A load that set its marker and did not commit (an error after the ingest) is rolled
    /// back at once, as the next open would do: its ids are handed out again by the next
    /// writer, and must not meet the parts' keys. If the rollback fails too, the marker stays,
    /// the ids stay hidden, and the next open retries it.
    fn drop(&mut self) {
        if std::mem::take(&mut self.began) {
            self.graph.storage.bulk_end();
        }
        if !self.marked {
            return;
        }
        match marker::roll_back(&*self.graph.storage) {
            Ok(()) => self
                .graph
                .importing_from
                .store(u64::MAX, std::sync::atomic::Ordering::SeqCst),
            Err(e) => tracing::error!("rolling back an import that did not commit: {e}"),
        }
    }
}
