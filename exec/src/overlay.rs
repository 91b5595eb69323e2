//! A node table built at an earlier commit plus the nodes later commits changed, which are read
//! through a store view: what a long-running handle queries after writes, instead of a rebuild
//! (see `keeper.rs` for how the changed nodes are collected).

use crate::score::Probe;
use crate::source::{Facts, NodeSource, StoreView};
use crate::table::NodeTable;
use cairn_storage_format::{LabelId, NodeId, RelId};
use cairn_store::{Direction, EngineError};
use hashbrown::HashSet;
use std::sync::Arc;

/// Nodes changed since a table was built: read them from the store, not the table.
#[derive(Clone, Debug, Default)]
pub struct Dirty {
    nodes: HashSet<NodeId>,
}

impl Dirty {
    pub fn insert(&mut self, node: NodeId) {
        self.nodes.insert(node);
    }

    pub fn contains(&self, node: NodeId) -> bool {
        self.nodes.contains(&node)
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes.iter().copied()
    }
}

/// A table built at an earlier commit plus the nodes changed since (see the module docs):
/// a node the table does not know (created later) or that a later commit touched — its
/// record, vector or any edge — is read from the store.
pub struct Overlaid<'g> {
    base: Arc<NodeTable>,
    dirty: Arc<Dirty>,
    store: StoreView<'g>,
}

impl std::fmt::Debug for Overlaid<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Overlaid")
            .field("dirty", &self.dirty.len())
            .finish()
    }
}

impl<'g> Overlaid<'g> {
    pub fn new(base: Arc<NodeTable>, dirty: Arc<Dirty>, store: StoreView<'g>) -> Self {
        Overlaid { base, dirty, store }
    }

    /// How many nodes changed since the table's build.
    pub fn changed_nodes(&self) -> usize {
        self.dirty.len()
    }

    /// The store view the changed nodes are read through.
    pub fn store(&self) -> &StoreView<'g> {
        &self.store
    }

    /// Whether `node` is read from the store: created or touched after the build. (No hash
    /// lookup while nothing changed, the common case on the scoring path.)
    fn changed(&self, node: NodeId) -> bool {
        !self.base.knows(node) || (!self.dirty.is_empty() && self.dirty.contains(node))
    }
}

impl NodeSource for Overlaid<'_> {
    fn facts(
        &self,
        ids: &[NodeId],
        probe: &Probe,
        out: &mut Vec<Option<Facts>>,
    ) -> Result<(), EngineError> {
        let start = out.len();
        let log_max =
            (self.base.max_degree() != self.store.max_degree()).then_some(self.store.log_max());
        self.base.facts_normalised(ids, probe, log_max, out);
        let changed: Vec<usize> = (0..ids.len()).filter(|&k| self.changed(ids[k])).collect();
        if changed.is_empty() {
            return Ok(());
        }
        let read: Vec<NodeId> = changed.iter().map(|&k| ids[k]).collect();
        let mut fresh = Vec::with_capacity(read.len());
        self.store.facts(&read, probe, &mut fresh)?;
        for (k, f) in changed.into_iter().zip(fresh) {
            out[start + k] = f;
        }
        Ok(())
    }

    fn neighbors_into(
        &self,
        node: NodeId,
        direction: Direction,
        rels: &[RelId],
        out: &mut Vec<(NodeId, RelId, bool)>,
    ) -> Result<(), EngineError> {
        if self.changed(node) {
            return self.store.neighbors_into(node, direction, rels, out);
        }
        NodeSource::neighbors_into(&*self.base, node, direction, rels, out)
    }

    fn degree_through(
        &self,
        node: NodeId,
        direction: Direction,
        rels: &[RelId],
    ) -> Result<u32, EngineError> {
        if self.changed(node) {
            return self.store.degree_through(node, direction, rels);
        }
        NodeSource::degree_through(&*self.base, node, direction, rels)
    }

    fn max_degree(&self) -> u32 {
        self.store.max_degree()
    }

    fn prefetch(&self, ids: &[NodeId], adjacency: Option<Direction>) -> Result<(), EngineError> {
        let changed: Vec<NodeId> = ids.iter().copied().filter(|id| self.changed(*id)).collect();
        if changed.is_empty() {
            return Ok(());
        }
        self.store.prefetch(&changed, adjacency)
    }

    fn cosines(&self, ids: &[NodeId], query: &[f32]) -> Result<Vec<Option<f32>>, EngineError> {
        let mut out = NodeSource::cosines(&*self.base, ids, query)?;
        let changed: Vec<usize> = (0..ids.len()).filter(|&k| self.changed(ids[k])).collect();
        let read: Vec<NodeId> = changed.iter().map(|&k| ids[k]).collect();
        for (k, c) in changed.into_iter().zip(self.store.cosines(&read, query)?) {
            out[k] = c;
        }
        Ok(out)
    }

    fn labels_into(
        &self,
        ids: &[NodeId],
        out: &mut Vec<Option<LabelId>>,
    ) -> Result<(), EngineError> {
        let start = out.len();
        self.base.labels_into(ids, out)?;
        let changed: Vec<usize> = (0..ids.len()).filter(|&k| self.changed(ids[k])).collect();
        if changed.is_empty() {
            return Ok(());
        }
        let read: Vec<NodeId> = changed.iter().map(|&k| ids[k]).collect();
        let mut fresh = Vec::with_capacity(read.len());
        self.store.labels_into(&read, &mut fresh)?;
        for (k, l) in changed.into_iter().zip(fresh) {
            out[start + k] = l;
        }
        Ok(())
    }

    fn dense_ids(&self) -> Option<usize> {
        self.base.dense_ids()
    }
}
