//! How commits keep the largest-degree statistic (`meta/max_degree`, see `stats.rs`): a commit
//! that raises a node's degree above the recorded one writes the new figure in its own batch.
//! Here rather than in `stats.rs`, which the graph imports, so that no module cycle forms.

use crate::error::{EngineError, Result};
use crate::graph::Graph;
use crate::stats::{total, Op, ReadOps};
use crate::storage::{Batch, Scan, Space};
use cairn_storage_format::records::encode_u64;
use cairn_storage_format::{Degree, MetaKey, NodeId};
use std::sync::atomic::Ordering;

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
    pub(crate) fn apply(mut self, graph: &Graph, batch: &mut Batch) -> Result<Option<u64>> {
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
        batch.put(Space::Meta, MetaKey::MaxDegree.encode(), encode_u64(max));
        Ok(Some(max))
    }
}

/// The largest degree among the nodes of `ids` (a bulk load's new range, whose degrees were
/// put whole): one scan of their degrees.
pub(crate) fn max_degree_in(graph: &Graph, ids: std::ops::Range<u64>) -> Result<u64> {
    let mut max = 0;
    graph
        .storage
        .scan(Space::Degree, Scan::Nodes(ids), &mut |_, v| {
            max = max.max(total(
                Degree::decode(v).map_err(EngineError::corrupt("degree"))?,
            ));
            Ok(true)
        })?;
    Ok(max)
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
