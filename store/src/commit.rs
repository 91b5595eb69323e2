//! The one commit protocol, used by the writer ([`crate::Writer::commit`]) and the bulk loader
//! ([`crate::BulkLoad::commit`]): the catalog, next node id and commit counter go into the batch,
//! the batch is written between the node cache's epoch marks, the new state is published to
//! readers, and the change set goes to subscribers. Also the property-index upkeep both paths
//! share, so that an index entry is written by one function whichever path changed the node.

use crate::catalog::Catalog;
use crate::changes::ChangeSet;
use crate::describe;
use crate::error::{EngineError, Result};
use crate::failpoint;
use crate::graph::Graph;
use crate::lock::WriterState;
use crate::max_degree::DegreeGrowth;
use crate::storage::{Batch, Space};
use cairn_storage_format::records::encode_u64;
use cairn_storage_format::{IndexDef, MetaKey, NameKey, NodeId, NodeRecord, PropIndexKey, Value};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{channel, Receiver};
use std::sync::Arc;

impl Graph {
    /// Subscribes to change sets. The receiver gets one [`ChangeSet`] per commit that changed
    /// something (writer or bulk import), delivered after the batch is written and visible to
    /// readers, in commit order (the single writer sends it before releasing its lock), never
    /// for a batch that was dropped, rolled back or failed to write. Commits before the call
    /// are not replayed: compare [`Graph::commits`] with what a derived structure was built at.
    /// Dropping the receiver unsubscribes.
    pub fn subscribe(&self) -> Receiver<Arc<ChangeSet>> {
        let (tx, rx) = channel();
        self.subscribers.add(tx);
        rx
    }

    /// The number of commits so far, persisted with each commit (it survives reopening): a
    /// structure derived at counter `n` is current while this is still `n`.
    pub fn commits(&self) -> u64 {
        self.commits.load(Ordering::SeqCst)
    }

    /// The counter of the last commit that changed what a vector index holds
    /// ([`ChangeSet::touches_vectors`]; persisted as `meta/vectors_at`, 0 if none): an index
    /// saved at any counter from this one to [`Graph::commits`] is current.
    pub fn vectors_changed_at(&self) -> u64 {
        self.vectors_at.load(Ordering::SeqCst)
    }
}

/// One commit, ready to go: the batch of the changes, and what they mean.
#[derive(Default)]
pub(crate) struct Commit {
    pub(crate) batch: Batch,
    /// The new catalog, when the commit changed it.
    pub(crate) catalog: Option<Catalog>,
    pub(crate) next_node_id: u64,
    /// fsync the write-ahead log.
    pub(crate) sync: bool,
    /// Remove the bulk loader's import marker in the same write.
    pub(crate) clear_marker: bool,
    pub(crate) changes: ChangeSet,
    /// Degree increases, for the largest-degree statistic written in the same batch.
    pub(crate) growth: DegreeGrowth,
}

/// Runs the commit protocol. Returns the change set, or `None` when there was nothing to commit
/// (no counter step, no change set).
pub(crate) fn commit(
    graph: &Graph,
    state: &mut WriterState,
    mut c: Commit,
) -> Result<Option<Arc<ChangeSet>>> {
    if c.batch.is_empty()
        && c.catalog.is_none()
        && c.next_node_id == state.next_node_id
        && !c.clear_marker
    {
        return Ok(None);
    }
    // A read-only handle refuses every write here, the one place all writes pass.
    graph.ensure_writable()?;
    let meta = Space::Meta;
    if let Some(catalog) = &c.catalog {
        failpoint!("commit.catalog_update");
        let record = (catalog.record().encode()).map_err(EngineError::encode("catalog record"))?;
        let annotations =
            (catalog.annotations().encode()).map_err(EngineError::encode("annotations record"))?;
        c.batch.put(meta, MetaKey::Catalog.encode(), record);
        c.batch
            .put(meta, MetaKey::Annotations.encode(), annotations);
        // absent while every label links, so that databases that never unlink stay as before
        if catalog.linking().unlinked_labels.is_empty() {
            c.batch.delete(meta, MetaKey::Linking.encode());
        } else {
            let linking =
                (catalog.linking().encode()).map_err(EngineError::encode("linking record"))?;
            c.batch.put(meta, MetaKey::Linking.encode(), linking);
        }
    }
    if c.next_node_id != state.next_node_id {
        c.batch.put(
            meta,
            MetaKey::NextNodeId.encode(),
            encode_u64(c.next_node_id),
        );
    }
    if c.clear_marker {
        c.batch.delete(meta, MetaKey::ImportPending.encode());
    }
    let counter = state
        .commits
        .checked_add(1)
        .ok_or_else(|| EngineError::Invalid("commit counter exhausted".into()))?;
    c.batch
        .put(meta, MetaKey::Commits.encode(), encode_u64(counter));
    let max_degree = std::mem::take(&mut c.growth).apply(graph, &mut c.batch)?;
    c.changes.commit = counter;
    c.changes.catalog_changed = c.catalog.is_some();
    c.changes.normalize();
    crate::changelog::log_commit(&mut c.batch, &c.changes)?;
    let vectors_at = c.changes.touches_vectors().then_some(counter);
    if let Some(at) = vectors_at {
        c.batch
            .put(meta, MetaKey::VectorsAt.encode(), encode_u64(at));
    }

    failpoint!("commit.before_write");
    graph.cache.begin_commit(c.changes.touched_records());
    let result = graph.storage.commit(&c.batch, c.sync);
    // Invalidate even on error: a failed write changed nothing, and an extra miss is harmless.
    graph.cache.end_commit(c.changes.touched_records());
    result?;
    failpoint!("commit.after_write");
    state.next_node_id = c.next_node_id;
    graph.next_id.store(c.next_node_id, Ordering::SeqCst);
    state.commits = counter;
    if let Some(at) = vectors_at {
        graph.vectors_at.store(at, Ordering::SeqCst);
    }
    graph.commits.store(counter, Ordering::SeqCst);
    if let Some(max) = max_degree {
        graph.max_degree.store(max, Ordering::SeqCst);
    }
    if let Some(catalog) = c.catalog {
        *graph.catalog.write() = Arc::new(catalog);
    }
    let changes = Arc::new(c.changes);
    failpoint!("commit.before_notify");
    graph.subscribers.emit(Arc::clone(&changes));
    Ok(Some(changes))
}

/// The encoded property-index key of `node`'s `value` under `(label, prop)`.
pub(crate) fn index_key(index: &IndexDef, value: &Value, node: NodeId) -> Result<Vec<u8>> {
    PropIndexKey {
        label: index.label,
        prop: index.prop,
        value: value.clone(),
        node,
    }
    .encode()
    .map_err(EngineError::corrupt("property index key"))
}

/// Encoded property-index keys to delete, then to put.
pub(crate) type IndexChanges = (Vec<Vec<u8>>, Vec<Vec<u8>>);

/// The property-index keys to delete and to put when node `id` goes from `old` to `new`
/// (`None`: no record), over the declared `indexes`. Only indexable values of the index's
/// label count.
pub(crate) fn index_changes(
    indexes: &[IndexDef],
    id: NodeId,
    old: Option<&NodeRecord>,
    new: Option<&NodeRecord>,
) -> Result<IndexChanges> {
    let value = |r: Option<&NodeRecord>, index: &IndexDef| {
        r.filter(|r| r.label == index.label)
            .and_then(|r| r.prop(index.prop))
            .filter(|v| v.is_indexable())
            .cloned()
    };
    let (mut deletes, mut puts) = (Vec::new(), Vec::new());
    for index in indexes {
        let (old_v, new_v) = (value(old, index), value(new, index));
        if old_v == new_v {
            continue;
        }
        if let Some(v) = old_v {
            deletes.push(index_key(index, &v, id)?);
        }
        if let Some(v) = new_v {
            puts.push(index_key(index, &v, id)?);
        }
    }
    Ok((deletes, puts))
}

/// Puts into `batch` the index upkeep of node `id` going from `old` to `new` (`None`: no
/// record): its property-index entries under `catalog`'s indexes and its name-index entry. The
/// one function every path that writes a node record calls (writer and bulk loader), so the
/// indexes cannot drift from the records.
pub(crate) fn index_upkeep(
    batch: &mut Batch,
    catalog: &Catalog,
    id: NodeId,
    old: Option<&NodeRecord>,
    new: Option<&NodeRecord>,
) -> Result<()> {
    let (deletes, puts) = index_changes(catalog.indexes(), id, old, new)?;
    for k in deletes {
        batch.delete(Space::Prop, k);
    }
    for k in puts {
        batch.put(Space::Prop, k, []);
    }
    let (old_name, new_name) = (
        old.and_then(|r| name_entry(catalog, id, r)),
        new.and_then(|r| name_entry(catalog, id, r)),
    );
    if old_name != new_name {
        if let Some((key, _)) = old_name {
            batch.delete(Space::Name, key);
        }
        if let Some((key, label)) = new_name {
            batch.put(Space::Name, key, label);
        }
    }
    Ok(())
}

/// The name-index entry of node `id` with record `rec` (encoded key, label value), if its name
/// is indexed at all.
pub(crate) fn name_entry(
    catalog: &Catalog,
    id: NodeId,
    rec: &NodeRecord,
) -> Option<(Vec<u8>, [u8; 4])> {
    let name = describe::index_name(rec, catalog)?;
    Some((
        NameKey { name, node: id }.encode(),
        rec.label.0.to_be_bytes(),
    ))
}

/// Whether the property values of two versions of a node differ.
pub(crate) fn props_differ(old: Option<&NodeRecord>, new: Option<&NodeRecord>) -> bool {
    old.map(|r| &r.props) != new.map(|r| &r.props)
}
