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
use crate::error::{EngineError, Result};
use crate::graph::{Graph, WriterState};
use crate::marker;
use crate::write::publish;
use cairn_storage_format::records::{decode_u64, encode_u64};
use cairn_storage_format::{MetaKey, NodeId};
use parking_lot::MutexGuard;
use rocksdb::{IngestExternalFileOptions, SstFileWriter, WriteBatch};
use std::ops::Range;
use std::path::PathBuf;

/// Directory inside the database directory where a bulk load writes its SST files.
const BULK_DIR: &str = "import-tmp";

/// The column families a bulk load writes (the catalog and counters in `meta` are the commit's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Node records by id.
    Node,
    /// (label, key) → id.
    NodeKey,
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
}

impl std::fmt::Debug for SstSink<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SstSink").finish_non_exhaustive()
    }
}

impl SstSink<'_> {
    /// Appends one key; keys must be strictly ascending.
    pub fn put(&mut self, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> Result<()> {
        Ok(self.writer.put(key, value)?)
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
        let started = std::time::Instant::now();
        let cf_name = family.cf();
        let opts = cf::options(cf_name, &self.graph.block_cache);
        let mut sink = SstSink {
            writer: SstFileWriter::create(&opts),
        };
        let path = self
            .graph
            .path
            .join(BULK_DIR)
            .join(format!("{cf_name}-{part}.sst"));
        sink.writer.open(&path)?;
        for item in items {
            put(&mut sink, item)?;
        }
        sink.writer.finish()?;
        let ms = started.elapsed().as_secs_f64() * 1e3;
        tracing::debug!(
            "import: {cf_name} file of {} keys written in {ms:.0} ms",
            items.len()
        );
        Ok(Some(SstFile { family, path }))
    }
}

/// A bulk load in progress: the writer lock, the batch of keys that do not go to files, and
/// whether files were ingested (which makes the commit durable and its rollback necessary).
pub struct BulkLoad<'g> {
    graph: &'g Graph,
    state: MutexGuard<'g, WriterState>,
    batch: WriteBatch,
    ingested: bool,
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
    /// Starts a bulk load. Blocks while another writer is active.
    pub fn bulk_load(&self) -> BulkLoad<'_> {
        BulkLoad {
            graph: self,
            state: self.writer.lock(),
            batch: WriteBatch::default(),
            ingested: false,
        }
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

    /// Adds a put to the final batch (keys of existing nodes, node keys, index entries).
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

    /// Adds a delete to the final batch.
    pub fn delete(&mut self, family: Family, key: impl AsRef<[u8]>) -> Result<()> {
        let handle = self.graph.cf(family.cf())?;
        self.batch.delete_cf(handle, key);
        Ok(())
    }

    /// Adds a merge (degree increments) to the final batch.
    pub fn merge(
        &mut self,
        family: Family,
        key: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
    ) -> Result<()> {
        let handle = self.graph.cf(family.cf())?;
        self.batch.merge_cf(handle, key, value);
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
        Ok(SstFiles { graph: self.graph })
    }

    /// Ingests `files`, which hold keys of the new ids `new_ids` only. The import marker goes
    /// first and durably: if the process dies from here until [`BulkLoad::commit`],
    /// [`Graph::open`] removes every key of `new_ids` from the ingested column families.
    pub fn ingest(&mut self, files: Vec<SstFile>, new_ids: Range<u64>) -> Result<()> {
        self.graph.ensure_writable()?;
        marker::set(&self.graph.db, &new_ids)?;
        self.ingested = true;
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
            self.graph.db.ingest_external_file_cf_opts(
                self.graph.cf(family.cf())?,
                &ingest,
                paths,
            )?;
        }
        Ok(())
    }

    /// Commits the final batch with `catalog`, the next node id `next_node_id` and the removal
    /// of the import marker, in one write (synced if files were ingested: the marker's removal
    /// must not be lost after the files are in), through the writer's commit step.
    /// `touched` are the existing nodes whose records the batch rewrites.
    pub fn commit(mut self, catalog: Catalog, next_node_id: u64, touched: &[NodeId]) -> Result<()> {
        let meta_cf = self.graph.cf(cf::META)?;
        let mut batch = std::mem::take(&mut self.batch);
        batch.put_cf(
            meta_cf,
            MetaKey::Catalog.encode(),
            catalog.record().encode(),
        );
        batch.put_cf(
            meta_cf,
            MetaKey::NextNodeId.encode(),
            encode_u64(next_node_id),
        );
        batch.delete_cf(meta_cf, MetaKey::ImportPending.encode());
        let sync = self.graph.options.sync_writes || self.ingested;
        publish(
            self.graph,
            &mut self.state,
            batch,
            sync,
            touched,
            Some(catalog),
            next_node_id,
        )?;
        let _ = std::fs::remove_dir_all(self.graph.path.join(BULK_DIR));
        if self.ingested {
            // The batch put one `node_key` entry per new node into the memtable; flushing it now
            // (keys sorted, on a quiet database) spares the next open replaying them from the log.
            self.graph.db.flush_cf(self.graph.cf(cf::NODE_KEY)?)?;
        }
        Ok(())
    }
}
