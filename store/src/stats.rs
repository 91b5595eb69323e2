//! Graph-wide statistics kept in `meta` beside the data, so that readers get them without a
//! scan — today the largest degree, the executor's connectivity normaliser — and counters of
//! the reads issued to RocksDB. How commits keep the largest degree is in `max_degree.rs`.

use crate::cf;
use crate::error::{EngineError, Result};
use cairn_storage_format::records::{decode_u64, encode_u64};
use cairn_storage_format::{Degree, MetaKey};
use rocksdb::DB;
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
pub(crate) struct OpCounters(pub(crate) [AtomicU64; 3]);

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
