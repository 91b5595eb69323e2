//! Graph-wide statistics kept in `meta` beside the data, so that readers get them without a
//! scan: today the largest degree, the executor's connectivity normaliser. A commit that raises
//! a node's degree above the recorded one writes the new figure in its own batch.

use crate::cf;
use crate::error::{EngineError, Result};
use crate::graph::Graph;
use cairn_storage_format::records::{decode_u64, encode_u64};
use cairn_storage_format::{Degree, MetaKey, NodeId, NodeKey};
use rocksdb::{WriteBatch, DB};
use std::sync::atomic::{AtomicU64, Ordering};

/// The recorded largest degree; when a database written before the statistic existed has
/// none, one scan of the `degree` column family finds it (written back on a writable open, so
/// the scan happens once).
pub(crate) fn load_max_degree(db: &DB, writable: bool) -> Result<u64> {
    let meta = db
        .cf_handle(cf::META)
        .ok_or_else(|| EngineError::Invalid("column family `meta` is missing".into()))?;
    if let Some(bytes) = db.get_pinned_cf(meta, MetaKey::MaxDegree.encode())? {
        return decode_u64(&bytes).map_err(EngineError::corrupt("max degree"));
    }
    let degree = db
        .cf_handle(cf::DEGREE)
        .ok_or_else(|| EngineError::Invalid("column family `degree` is missing".into()))?;
    let mut max = 0u64;
    let mut it = db.raw_iterator_cf(degree);
    it.seek_to_first();
    while let Some(v) = it.value() {
        max = max.max(total(
            Degree::decode(v).map_err(EngineError::corrupt("degree"))?,
        ));
        it.next();
    }
    it.status()?;
    if writable {
        db.put_cf(meta, MetaKey::MaxDegree.encode(), encode_u64(max))?;
    }
    Ok(max)
}

/// Out + in, as the executor counts a node's degree (negative counts never occur; read as 0).
pub(crate) fn total(d: Degree) -> u64 {
    u64::try_from(d.out.max(0) + d.inc.max(0)).unwrap_or(0)
}

/// Degree increases a commit makes, for the largest-degree statistic: `(node, added)` for nodes
/// whose committed degree grows by `added`, and a floor for degrees the commit writes whole
/// (a bulk load's new nodes).
#[derive(Debug, Default)]
pub(crate) struct DegreeGrowth {
    pub(crate) grown: Vec<(NodeId, u64)>,
    pub(crate) floor: u64,
}

impl DegreeGrowth {
    pub(crate) fn add(&mut self, node: NodeId, by: u64) {
        self.grown.push((node, by));
    }

    /// Puts the new largest degree into `batch` when this growth raises it; returns it then.
    /// Reads the committed degrees of the grown nodes (the writer lock is held, so they are the
    /// ones the batch's merges apply to).
    pub(crate) fn apply(mut self, graph: &Graph, batch: &mut WriteBatch) -> Result<Option<u64>> {
        let old = graph.max_degree.load(Ordering::SeqCst);
        let mut max = self.floor;
        if !self.grown.is_empty() {
            self.grown.sort_unstable();
            let mut summed: Vec<(NodeId, u64)> = Vec::with_capacity(self.grown.len());
            for (id, by) in self.grown {
                match summed.last_mut() {
                    Some((last, n)) if *last == id => *n += by,
                    _ => summed.push((id, by)),
                }
            }
            let ids: Vec<NodeId> = summed.iter().map(|(id, _)| *id).collect();
            let committed = graph.reader().degrees(&ids)?;
            for ((_, by), d) in summed.iter().zip(committed) {
                max = max.max(total(d) + by);
            }
        }
        if max <= old {
            return Ok(None);
        }
        batch.put_cf(
            graph.cf(cf::META)?,
            MetaKey::MaxDegree.encode(),
            encode_u64(max),
        );
        Ok(Some(max))
    }
}

/// The largest degree among the nodes of `ids` (a bulk load's new range, whose degrees were
/// ingested whole): one range scan of the `degree` column family.
pub(crate) fn max_degree_in(graph: &Graph, ids: std::ops::Range<u64>) -> Result<u64> {
    let mut opts = rocksdb::ReadOptions::default();
    opts.set_iterate_upper_bound(NodeKey(NodeId(ids.end)).encode().to_vec());
    let mut it = graph.db.raw_iterator_cf_opt(graph.cf(cf::DEGREE)?, opts);
    it.seek(NodeKey(NodeId(ids.start)).encode());
    let mut max = 0;
    while let Some(v) = it.value() {
        max = max.max(total(
            Degree::decode(v).map_err(EngineError::corrupt("degree"))?,
        ));
        it.next();
    }
    it.status()?;
    Ok(max)
}

/// Kinds of reads a query issues to RocksDB: each one call, i.e. one round trip were the store
/// a remote key-value service.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    PointGet,
    MultiGet,
    PrefixScan,
}

/// Counters of [`Op`]s since open.
#[derive(Debug, Default)]
pub(crate) struct OpCounters([AtomicU64; 3]);

impl OpCounters {
    pub(crate) fn count(&self, op: Op) {
        self.0[op as usize].fetch_add(1, Ordering::Relaxed);
    }
}

/// Reads issued to RocksDB since open (reads answered by the record cache are not counted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOps {
    /// Single-key gets (a node by key, an edge, one degree).
    pub point_gets: u64,
    /// Batched multi-gets (records, degrees or vectors of many nodes in one call).
    pub multi_gets: u64,
    /// Prefix or range scans (a node's edges in one direction, a label's nodes, an index range).
    pub prefix_scans: u64,
}

impl std::ops::Sub for ReadOps {
    type Output = ReadOps;
    fn sub(self, o: ReadOps) -> ReadOps {
        ReadOps {
            point_gets: self.point_gets.saturating_sub(o.point_gets),
            multi_gets: self.multi_gets.saturating_sub(o.multi_gets),
            prefix_scans: self.prefix_scans.saturating_sub(o.prefix_scans),
        }
    }
}

impl Graph {
    /// Reads issued to RocksDB since open, by kind; subtract two readings to count one query's.
    pub fn read_ops(&self) -> ReadOps {
        let c = |op: Op| self.ops.0[op as usize].load(Ordering::Relaxed);
        ReadOps {
            point_gets: c(Op::PointGet),
            multi_gets: c(Op::MultiGet),
            prefix_scans: c(Op::PrefixScan),
        }
    }

    /// The largest total degree (out + in) any node has reached: the recorded high-water mark,
    /// raised by the commit that raises it and never lowered by removals, so it is at least the
    /// current largest degree. Costs an atomic load.
    pub fn max_degree(&self) -> u64 {
        self.max_degree.load(Ordering::SeqCst)
    }
}
