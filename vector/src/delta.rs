//! The vectors that changed after the saved file's stamp, read from the store's change log, for
//! a one-shot process that searches the file in place ([`crate::FileIndex`]) instead of loading
//! it: the file's entries of those nodes are stale, so they are left out of its answers and
//! the nodes' current vectors are scored exactly beside it. A write by one process then costs
//! the next one-shot SEARCH a few exact dot products, not a load (or a rebuild) of the index.

use crate::{normalised, Hit, VectorError};
use cairn_embed::dot;
use cairn_storage_format::{LabelId, NodeId};
use cairn_store::{ChangeSet, EngineError, Graph, GraphRead};
use std::collections::HashSet;
use std::sync::Arc;

/// Changed vectors at most kept beside the file; past it the index is loaded and updated.
pub(crate) const DELTA_MAX: usize = 10_000;

#[derive(Debug)]
pub(crate) struct Delta {
    /// Every node whose vector was written or dropped, or that was removed, since the stamp.
    changed: HashSet<NodeId>,
    /// Their current vectors (unit length), with labels; a node without one is absent.
    live: Vec<(NodeId, LabelId, Vec<f32>)>,
}

impl Delta {
    /// The changes of `sets` as of now; `None` when they are too many (or an import) to keep
    /// beside the file.
    pub(crate) fn from_log<E: From<EngineError> + From<VectorError>>(
        graph: &Graph,
        sets: &[Arc<ChangeSet>],
    ) -> Result<Option<Delta>, E> {
        let mut changed = HashSet::new();
        for cs in sets {
            if cs.imported.is_some() {
                return Ok(None);
            }
            changed.extend(cs.vectors_touched.iter().chain(&cs.nodes_removed).copied());
            if changed.len() > DELTA_MAX {
                return Ok(None);
            }
        }
        let mut ids: Vec<NodeId> = changed.iter().copied().collect();
        ids.sort_unstable();
        let mut live = Vec::new();
        for chunk in ids.chunks(4096) {
            let vectors = graph.vectors(chunk)?;
            let records = graph.nodes(chunk)?;
            for ((id, v), rec) in chunk.iter().zip(vectors).zip(records) {
                if let (Some(v), Some(rec)) = (v, rec) {
                    let unit = normalised(v.len(), &v, "stored vector")?;
                    live.push((*id, rec.label, unit));
                }
            }
        }
        Ok(Some(Delta { changed, live }))
    }

    /// The top `k` of the file's answers without the changed nodes and the changed nodes'
    /// current vectors, best first (ties by node id). `file(n)` searches the file for `n`.
    pub(crate) fn search(
        &self,
        file: impl Fn(usize) -> Result<Vec<Hit>, VectorError>,
        query: &[f32],
        labels: Option<&[LabelId]>,
        k: usize,
    ) -> Result<Vec<Hit>, VectorError> {
        let mut want = k;
        let mut kept = loop {
            let hits = file(want)?;
            let exhausted = hits.len() < want;
            let kept: Vec<Hit> = hits
                .into_iter()
                .filter(|h| !self.changed.contains(&h.node))
                .collect();
            if kept.len() >= k || exhausted {
                break kept;
            }
            want += 2 * (k - kept.len());
        };
        if !self.live.is_empty() {
            let q = normalised(query.len(), query, "query")?;
            kept.extend(
                self.live
                    .iter()
                    .filter(|(_, label, _)| labels.is_none_or(|l| l.contains(label)))
                    .map(|(node, label, v)| Hit {
                        node: *node,
                        label: *label,
                        score: dot(&q, v),
                    }),
            );
        }
        kept.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.node.cmp(&b.node)));
        kept.truncate(k);
        Ok(kept)
    }
}
