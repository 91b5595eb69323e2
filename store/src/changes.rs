//! What a commit changed, as subscribers receive it, and the list of subscribers; the commit
//! protocol (`commit.rs`) fills and sends it.

use cairn_storage_format::{ChangeRecord, NodeId, RelId};
use parking_lot::Mutex;
use std::ops::Range;
use std::sync::mpsc::Sender;
use std::sync::Arc;

/// An edge as `(source, relation, destination)`.
pub type EdgeRef = (NodeId, RelId, NodeId);

/// What one commit changed: ids, not values (read the values from the graph). Each list is
/// sorted and holds an id at most once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangeSet {
    /// The commit counter this commit wrote (see `Graph::commits`): 1 for the first commit.
    pub commit: u64,
    /// Nodes whose record was created or changed (properties or description).
    pub nodes_upserted: Vec<NodeId>,
    /// Nodes removed, with their edges, index entries and vector.
    pub nodes_removed: Vec<NodeId>,
    /// Edges created or whose properties changed.
    pub edges_added: Vec<EdgeRef>,
    /// Edges removed (also those of removed nodes).
    pub edges_removed: Vec<EdgeRef>,
    /// Nodes whose property values changed (a subset of `nodes_upserted` and `nodes_removed`).
    pub props_touched: Vec<NodeId>,
    /// Nodes whose vector was written or removed.
    pub vectors_touched: Vec<NodeId>,
    /// A bulk import's new node ids. Those nodes and every edge with an endpoint among them are
    /// new and not listed one by one; the other lists hold what the import changed of the
    /// existing graph.
    pub imported: Option<Range<u64>>,
    /// The catalog changed (names, hierarchy, indexes, embedder).
    pub catalog_changed: bool,
}

impl ChangeSet {
    /// Sorts and deduplicates every list, as subscribers receive them.
    pub(crate) fn normalize(&mut self) {
        for list in [
            &mut self.nodes_upserted,
            &mut self.nodes_removed,
            &mut self.props_touched,
            &mut self.vectors_touched,
        ] {
            list.sort_unstable();
            list.dedup();
        }
        for list in [&mut self.edges_added, &mut self.edges_removed] {
            list.sort_unstable();
            list.dedup();
        }
    }

    /// Whether this commit changed what a vector index holds: a vector written or dropped, a
    /// node removed (its vector goes with it) or an import (its new nodes' vectors). The store
    /// records the last such commit (`Graph::vectors_changed_at`); the index saves only then.
    pub fn touches_vectors(&self) -> bool {
        !self.vectors_touched.is_empty()
            || !self.nodes_removed.is_empty()
            || self.imported.is_some()
    }

    /// Nodes whose text a full-text index holds may have changed: upserted or removed.
    pub fn text_touched(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes_upserted
            .iter()
            .chain(&self.nodes_removed)
            .copied()
    }

    /// The record the commit writes to the change log (everything but the counter, which is
    /// the record's key).
    pub(crate) fn record(&self) -> ChangeRecord {
        ChangeRecord {
            nodes_upserted: self.nodes_upserted.clone(),
            nodes_removed: self.nodes_removed.clone(),
            edges_added: self.edges_added.clone(),
            edges_removed: self.edges_removed.clone(),
            props_touched: self.props_touched.clone(),
            vectors_touched: self.vectors_touched.clone(),
            imported: self.imported.as_ref().map(|r| (r.start, r.end)),
            catalog_changed: self.catalog_changed,
        }
    }

    /// The change set of commit `commit` as its change-log record tells it.
    pub(crate) fn from_record(commit: u64, r: ChangeRecord) -> ChangeSet {
        ChangeSet {
            commit,
            nodes_upserted: r.nodes_upserted,
            nodes_removed: r.nodes_removed,
            edges_added: r.edges_added,
            edges_removed: r.edges_removed,
            props_touched: r.props_touched,
            vectors_touched: r.vectors_touched,
            imported: r.imported.map(|(start, end)| start..end),
            catalog_changed: r.catalog_changed,
        }
    }

    /// Nodes whose cached records this commit makes stale.
    pub(crate) fn touched_records(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes_upserted
            .iter()
            .chain(&self.nodes_removed)
            .copied()
    }
}

/// Receivers of change sets (see `Graph::subscribe`).
#[derive(Debug, Default)]
pub(crate) struct Subscribers(Mutex<Vec<Sender<Arc<ChangeSet>>>>);

impl Subscribers {
    pub(crate) fn add(&self, tx: Sender<Arc<ChangeSet>>) {
        self.0.lock().push(tx);
    }

    pub(crate) fn emit(&self, changes: Arc<ChangeSet>) {
        // A dropped receiver is forgotten here, at the first commit after its drop.
        self.0
            .lock()
            .retain(|tx| tx.send(Arc::clone(&changes)).is_ok());
    }
}
