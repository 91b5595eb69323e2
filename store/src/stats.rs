//! Graph-wide statistics kept in `meta` beside the data, so that readers get them without a
//! scan — today the largest degree, the executor's connectivity normaliser — and counters of
//! the reads issued to the storage. How commits keep the largest degree is in `max_degree.rs`.

use crate::error::{EngineError, Result};
use crate::storage::{Batch, Scan, Space, Storage};
use cairn_storage_format::records::{decode_u64, encode_u64};
use cairn_storage_format::{Degree, MetaKey};
use std::sync::atomic::{AtomicU64, Ordering};

/// The recorded largest degree; when a database written before the statistic existed has
/// none, one scan of the degrees of the nodes below `next_id` finds it (written back on a
/// writable open, so the scan happens once).
pub(crate) fn load_max_degree(storage: &dyn Storage, next_id: u64, writable: bool) -> Result<u64> {
    let mut recorded = None;
    storage.get(Space::Meta, MetaKey::MaxDegree.encode(), &mut |v| {
        recorded = Some(decode_u64(v).map_err(EngineError::corrupt("max degree"))?);
        Ok(())
    })?;
    if let Some(max) = recorded {
        return Ok(max);
    }
    let mut max = 0u64;
    storage.scan(Space::Degree, Scan::Nodes(0..next_id), &mut |_, v| {
        max = max.max(total(
            Degree::decode(v).map_err(EngineError::corrupt("degree"))?,
        ));
        Ok(true)
    })?;
    if writable {
        let mut batch = Batch::default();
        batch.put(Space::Meta, MetaKey::MaxDegree.encode(), encode_u64(max));
        storage.commit(&batch, false)?;
    }
    Ok(max)
}

/// Out + in, as the executor counts a node's degree (negative counts never occur; read as 0).
pub(crate) fn total(d: Degree) -> u64 {
    u64::try_from(d.out.max(0) + d.inc.max(0)).unwrap_or(0)
}

/// Kinds of reads a query issues to the storage: each one call, i.e. one round trip were the store
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

/// Reads issued to the storage since open (reads answered by the record cache are not counted).
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
