//! The single writer: a batch of changes applied atomically on commit.
//!
//! The writer keeps an overlay of what it changed so that later operations in the same batch
//! see earlier ones (an edge to a node upserted a moment ago, removing a node with an edge added
//! in this batch). Everything goes into one RocksDB `WriteBatch`; readers see all of it or none.

use crate::catalog::Catalog;
use crate::cf;
use crate::error::{EngineError, Result};
use crate::graph::{Graph, WriterState};
use cairn_storage_format::records::encode_u64;
use cairn_storage_format::{
    Degree, EdgeProps, ExternalKey, InEdgeKey, LabelId, MetaKey, NodeId, NodeKey, NodeRecord,
    OutEdgeKey, PropIndexKey, PropKeyId, RelId, Value,
};
use parking_lot::MutexGuard;
use rocksdb::{WriteBatch, WriteOptions};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// What a commit changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommitStats {
    /// RocksDB operations in the batch.
    pub operations: usize,
    /// Bytes in the batch.
    pub bytes: usize,
}

/// A write batch holding the database's single writer lock. See [`Graph::writer`].
pub struct Writer<'g> {
    graph: &'g Graph,
    state: MutexGuard<'g, WriterState>,
    batch: WriteBatch,
    /// Copy-on-write catalog: `Some` once this batch added a name.
    catalog: Option<Catalog>,
    base_catalog: Arc<Catalog>,
    next_node_id: u64,
    nodes: HashMap<NodeId, Option<NodeRecord>>,
    keys: HashMap<(LabelId, String), Option<NodeId>>,
    /// Edges changed in this batch, by `(src, rel, dst)`; `None` = removed.
    out: BTreeMap<(NodeId, RelId, NodeId), Option<EdgeProps>>,
    /// The same edges by `(dst, rel, src)`; `false` = removed.
    inc: BTreeMap<(NodeId, RelId, NodeId), bool>,
}

impl std::fmt::Debug for Writer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer")
            .field("operations", &self.batch.len())
            .finish()
    }
}

// Here rather than in graph.rs so that the graph does not import its writer (no module cycle).
impl Graph {
    /// Starts the write batch. Blocks while another writer is active; nothing is visible to
    /// readers until [`Writer::commit`], and dropping the writer discards the batch.
    pub fn writer(&self) -> Writer<'_> {
        Writer::new(self, self.writer.lock())
    }
}

impl<'g> Writer<'g> {
    pub(crate) fn new(graph: &'g Graph, state: MutexGuard<'g, WriterState>) -> Self {
        let next_node_id = state.next_node_id;
        Writer {
            graph,
            state,
            batch: WriteBatch::default(),
            catalog: None,
            base_catalog: graph.catalog(),
            next_node_id,
            nodes: HashMap::new(),
            keys: HashMap::new(),
            out: BTreeMap::new(),
            inc: BTreeMap::new(),
        }
    }

    /// The catalog including names added in this batch.
    pub fn catalog(&self) -> &Catalog {
        self.catalog.as_ref().unwrap_or(&self.base_catalog)
    }

    fn catalog_mut(&mut self) -> &mut Catalog {
        self.catalog
            .get_or_insert_with(|| (*self.base_catalog).clone())
    }

    /// Operations queued so far.
    pub fn len(&self) -> usize {
        self.batch.len()
    }

    pub fn is_empty(&self) -> bool {
        self.batch.is_empty()
    }

    // ---- names ----

    pub fn label(&mut self, name: &str) -> Result<LabelId> {
        match self.catalog().label_id(name) {
            Some(id) => Ok(id),
            None => Ok(self.catalog_mut().intern_label(name)?.0),
        }
    }

    pub fn relation(&mut self, name: &str) -> Result<RelId> {
        match self.catalog().relation_id(name) {
            Some(id) => Ok(id),
            None => Ok(self.catalog_mut().intern_relation(name)?.0),
        }
    }

    pub fn prop_key(&mut self, name: &str) -> Result<PropKeyId> {
        match self.catalog().prop_id(name) {
            Some(id) => Ok(id),
            None => Ok(self.catalog_mut().intern_prop(name)?.0),
        }
    }

    /// Places relation `name` under `parent` in the relation hierarchy (or at the top with `None`).
    pub fn set_relation_parent(&mut self, name: &str, parent: Option<&str>) -> Result<()> {
        let rel = self.relation(name)?;
        let parent = parent.map(|p| self.relation(p)).transpose()?;
        self.catalog_mut().set_parent(rel, parent)
    }

    /// Records which embedder produced the database's vectors.
    pub fn set_embedder(&mut self, def: Option<cairn_storage_format::EmbedderDef>) {
        self.catalog_mut().set_embedder(def);
    }

    // ---- reads through the overlay ----

    /// The node as this batch would leave it.
    pub fn node(&self, id: NodeId) -> Result<Option<NodeRecord>> {
        match self.nodes.get(&id) {
            Some(rec) => Ok(rec.clone()),
            None => Ok(self.graph.reader().node(id)?.map(|r| (*r).clone())),
        }
    }

    fn node_exists(&self, id: NodeId) -> Result<Option<LabelId>> {
        match self.nodes.get(&id) {
            Some(rec) => Ok(rec.as_ref().map(|r| r.label)),
            None => Ok(self.graph.reader().node(id)?.map(|r| r.label)),
        }
    }

    /// The id of node (label, key) as this batch would leave it.
    pub fn node_id(&self, label: LabelId, key: &str) -> Result<Option<NodeId>> {
        match self.keys.get(&(label, key.to_owned())) {
            Some(id) => Ok(*id),
            None => self.graph.reader().node_id(label, key),
        }
    }

    fn edge(&self, src: NodeId, rel: RelId, dst: NodeId) -> Result<Option<EdgeProps>> {
        match self.out.get(&(src, rel, dst)) {
            Some(e) => Ok(e.clone()),
            None => self.graph.reader().edge(src, rel, dst),
        }
    }

    // ---- nodes ----

    /// Inserts node (`label`, `key`) or updates it: the given properties replace the values of
    /// those keys and others are kept; a given description replaces the old one.
    pub fn upsert_node<K: AsRef<str>>(
        &mut self,
        label: &str,
        key: &str,
        props: impl IntoIterator<Item = (K, Value)>,
        description: Option<&str>,
    ) -> Result<NodeId> {
        let label = self.label(label)?;
        let mut named = Vec::new();
        for (k, v) in props {
            named.push((self.prop_key(k.as_ref())?, v));
        }
        self.upsert_node_ids(label, key, named, description)
    }

    /// [`Writer::upsert_node`] with interned ids, for bulk paths that resolved names already.
    pub fn upsert_node_ids(
        &mut self,
        label: LabelId,
        key: &str,
        props: Vec<(PropKeyId, Value)>,
        description: Option<&str>,
    ) -> Result<NodeId> {
        if self.catalog().label_name(label).is_none() {
            return Err(EngineError::Invalid(format!(
                "label id {} is not in the catalog",
                label.0
            )));
        }
        let existing = self.node_id(label, key)?;
        let (id, old) = match existing {
            Some(id) => (id, self.node(id)?),
            None => {
                let id = NodeId(self.next_node_id);
                self.next_node_id = self
                    .next_node_id
                    .checked_add(1)
                    .ok_or_else(|| EngineError::Invalid("node id space exhausted".into()))?;
                (id, None)
            }
        };
        let mut record = old.clone().unwrap_or(NodeRecord {
            label,
            key: key.to_owned(),
            props: Vec::new(),
            description: None,
        });
        for (k, v) in props {
            match record.props.binary_search_by_key(&k, |(pk, _)| *pk) {
                Ok(i) => record.props[i].1 = v,
                Err(i) => record.props.insert(i, (k, v)),
            }
        }
        if let Some(d) = description {
            record.description = Some(d.to_owned());
        }
        if old.as_ref() == Some(&record) {
            return Ok(id);
        }
        self.write_node(id, old.as_ref(), Some(&record))?;
        if existing.is_none() {
            let ek = ExternalKey {
                label,
                key: key.to_owned(),
            }
            .encode();
            self.batch
                .put_cf(self.graph.cf(cf::NODE_KEY)?, ek, encode_u64(id.0));
            self.keys.insert((label, key.to_owned()), Some(id));
        }
        Ok(id)
    }

    /// Writes a node record (or its deletion) and keeps its property-index entries in step.
    fn write_node(
        &mut self,
        id: NodeId,
        old: Option<&NodeRecord>,
        new: Option<&NodeRecord>,
    ) -> Result<()> {
        let prop_cf = self.graph.cf(cf::PROP)?;
        let indexes: Vec<_> = self.catalog().indexes().to_vec();
        for index in indexes {
            let old_v = old
                .filter(|r| r.label == index.label)
                .and_then(|r| r.prop(index.prop))
                .filter(|v| v.is_indexable());
            let new_v = new
                .filter(|r| r.label == index.label)
                .and_then(|r| r.prop(index.prop))
                .filter(|v| v.is_indexable());
            if old_v == new_v {
                continue;
            }
            if let Some(v) = old_v {
                let k = PropIndexKey {
                    label: index.label,
                    prop: index.prop,
                    value: v.clone(),
                    node: id,
                };
                self.batch.delete_cf(
                    prop_cf,
                    k.encode()
                        .map_err(EngineError::corrupt("property index key"))?,
                );
            }
            if let Some(v) = new_v {
                let k = PropIndexKey {
                    label: index.label,
                    prop: index.prop,
                    value: v.clone(),
                    node: id,
                };
                self.batch.put_cf(
                    prop_cf,
                    k.encode()
                        .map_err(EngineError::corrupt("property index key"))?,
                    [],
                );
            }
        }
        let node_cf = self.graph.cf(cf::NODE)?;
        match new {
            Some(rec) => self
                .batch
                .put_cf(node_cf, NodeKey(id).encode(), rec.encode()),
            None => self.batch.delete_cf(node_cf, NodeKey(id).encode()),
        }
        self.nodes.insert(id, new.cloned());
        Ok(())
    }

    /// Removes a node, its edges in both directions (adjusting the neighbours' degrees), its
    /// index entries and its vector. Returns false if it did not exist.
    pub fn remove_node(&mut self, id: NodeId) -> Result<bool> {
        let Some(record) = self.node(id)? else {
            return Ok(false);
        };
        for (src, rel, dst) in self.edges_of(id)? {
            self.remove_edge_ids(src, rel, dst)?;
        }
        self.write_node(id, Some(&record), None)?;
        let ek = ExternalKey {
            label: record.label,
            key: record.key.clone(),
        }
        .encode();
        self.batch.delete_cf(self.graph.cf(cf::NODE_KEY)?, ek);
        self.keys.insert((record.label, record.key), None);
        self.batch
            .delete_cf(self.graph.cf(cf::DEGREE)?, NodeKey(id).encode());
        self.batch
            .delete_cf(self.graph.cf(cf::VECTOR)?, NodeKey(id).encode());
        Ok(true)
    }

    /// Every edge touching `id` as this batch would leave it, as `(src, rel, dst)`.
    fn edges_of(&self, id: NodeId) -> Result<Vec<(NodeId, RelId, NodeId)>> {
        let mut stored = Vec::new();
        self.graph
            .reader()
            .neighbors_into(id, crate::Direction::Both, &[], &mut stored)?;
        let mut edges: Vec<(NodeId, RelId, NodeId)> = stored
            .iter()
            .map(|n| match n.direction {
                crate::Direction::In => (n.node, n.rel, id),
                _ => (id, n.rel, n.node),
            })
            .collect();
        let lo = (id, RelId(0), NodeId(0));
        let hi = (id, RelId(u32::MAX), NodeId(u64::MAX));
        edges.extend(
            self.out
                .range(lo..=hi)
                .filter(|(_, v)| v.is_some())
                .map(|(k, _)| *k),
        );
        edges.extend(
            self.inc
                .range(lo..=hi)
                .filter(|(_, v)| **v)
                .map(|((d, r, s), _)| (*s, *r, *d)),
        );
        edges.sort();
        edges.dedup();
        // Drop edges this batch already removed.
        edges.retain(|e| !matches!(self.out.get(e), Some(None)));
        Ok(edges)
    }

    // ---- edges ----

    /// Adds edge `src -[rel]-> dst` (or replaces its properties if it exists). Both endpoints
    /// must exist. Returns true if the edge is new.
    pub fn add_edge(
        &mut self,
        src: NodeId,
        rel: &str,
        dst: NodeId,
        props: EdgeProps,
    ) -> Result<bool> {
        let rel = self.relation(rel)?;
        self.add_edge_ids(src, rel, dst, props)
    }

    /// [`Writer::add_edge`] with an interned relation id.
    pub fn add_edge_ids(
        &mut self,
        src: NodeId,
        rel: RelId,
        dst: NodeId,
        props: EdgeProps,
    ) -> Result<bool> {
        if self.catalog().relation_name(rel).is_none() {
            return Err(EngineError::Invalid(format!(
                "relation id {} is not in the catalog",
                rel.0
            )));
        }
        let src_label = self
            .node_exists(src)?
            .ok_or(EngineError::NodeNotFound(src))?;
        let dst_label = self
            .node_exists(dst)?
            .ok_or(EngineError::NodeNotFound(dst))?;
        let old = self.edge(src, rel, dst)?;
        if old.as_ref() == Some(&props) {
            return Ok(false);
        }
        let value = props.encode();
        let out_key = OutEdgeKey { src, rel, dst };
        self.batch
            .put_cf(self.graph.cf(cf::OUT)?, out_key.encode(), &value);
        self.batch
            .put_cf(self.graph.cf(cf::IN)?, out_key.reversed().encode(), &value);
        let is_new = old.is_none();
        if is_new {
            self.bump_degree(src, Degree { out: 1, inc: 0 })?;
            self.bump_degree(dst, Degree { out: 0, inc: 1 })?;
            if self
                .catalog()
                .relation(rel)
                .is_some_and(|d| d.endpoints.binary_search(&(src_label, dst_label)).is_err())
            {
                self.catalog_mut().note_endpoints(rel, src_label, dst_label);
            }
        }
        self.out.insert((src, rel, dst), Some(props));
        self.inc.insert((dst, rel, src), true);
        Ok(is_new)
    }

    /// Removes edge `src -[rel]-> dst`; returns false if it did not exist.
    pub fn remove_edge(&mut self, src: NodeId, rel: &str, dst: NodeId) -> Result<bool> {
        match self.catalog().relation_id(rel) {
            Some(rel) => self.remove_edge_ids(src, rel, dst),
            None => Ok(false),
        }
    }

    pub fn remove_edge_ids(&mut self, src: NodeId, rel: RelId, dst: NodeId) -> Result<bool> {
        if self.edge(src, rel, dst)?.is_none() {
            return Ok(false);
        }
        let out_key = OutEdgeKey { src, rel, dst };
        let in_key: InEdgeKey = out_key.reversed();
        self.batch
            .delete_cf(self.graph.cf(cf::OUT)?, out_key.encode());
        self.batch
            .delete_cf(self.graph.cf(cf::IN)?, in_key.encode());
        self.bump_degree(src, Degree { out: -1, inc: 0 })?;
        self.bump_degree(dst, Degree { out: 0, inc: -1 })?;
        self.out.insert((src, rel, dst), None);
        self.inc.insert((dst, rel, src), false);
        Ok(true)
    }

    fn bump_degree(&mut self, node: NodeId, delta: Degree) -> Result<()> {
        self.batch.merge_cf(
            self.graph.cf(cf::DEGREE)?,
            NodeKey(node).encode(),
            delta.encode(),
        );
        Ok(())
    }

    // ---- indexes ----

    /// Declares a property index on (`label`, `prop`) and back-fills it from the existing nodes
    /// of the label, in this batch. Returns false if the index existed.
    pub fn create_index(&mut self, label: &str, prop: &str) -> Result<bool> {
        let label = self.label(label)?;
        let prop = self.prop_key(prop)?;
        if !self.catalog_mut().add_index(label, prop) {
            return Ok(false);
        }
        let prop_cf = self.graph.cf(cf::PROP)?;
        let mut ids = self.graph.reader().label_nodes(label)?;
        ids.extend(
            self.keys
                .iter()
                .filter(|((l, _), v)| *l == label && v.is_some())
                .filter_map(|(_, v)| *v),
        );
        ids.sort();
        ids.dedup();
        for id in ids {
            let Some(rec) = self.node(id)? else { continue };
            if rec.label != label {
                continue;
            }
            if let Some(v) = rec.prop(prop).filter(|v| v.is_indexable()) {
                let k = PropIndexKey {
                    label,
                    prop,
                    value: v.clone(),
                    node: id,
                };
                self.batch.put_cf(
                    prop_cf,
                    k.encode()
                        .map_err(EngineError::corrupt("property index key"))?,
                    [],
                );
            }
        }
        Ok(true)
    }

    // ---- commit ----

    /// Applies the batch atomically. On error nothing is applied.
    pub fn commit(mut self) -> Result<CommitStats> {
        let meta = self.graph.cf(cf::META)?;
        if let Some(catalog) = &self.catalog {
            self.batch
                .put_cf(meta, MetaKey::Catalog.encode(), catalog.record().encode());
        }
        if self.next_node_id != self.state.next_node_id {
            self.batch.put_cf(
                meta,
                MetaKey::NextNodeId.encode(),
                encode_u64(self.next_node_id),
            );
        }
        let stats = CommitStats {
            operations: self.batch.len(),
            bytes: self.batch.size_in_bytes(),
        };
        if self.batch.is_empty() {
            return Ok(stats);
        }
        let batch = std::mem::take(&mut self.batch);
        let touched: Vec<NodeId> = self.nodes.keys().copied().collect();
        publish(
            self.graph,
            &mut self.state,
            batch,
            self.graph.options.sync_writes,
            &touched,
            self.catalog.take(),
            self.next_node_id,
        )?;
        Ok(stats)
    }
}

/// The last step of every commit, shared by [`Writer::commit`] and the bulk loader: write `batch`
/// (already holding the catalog and next-id keys if they changed) with the node cache's epoch
/// around it, then publish the new next node id and catalog to readers. Phase 2 moves the rest of
/// the protocol (catalog and counter keys, property-index upkeep) here and emits change sets.
pub(crate) fn publish(
    graph: &Graph,
    state: &mut WriterState,
    batch: WriteBatch,
    sync: bool,
    touched: &[NodeId],
    catalog: Option<Catalog>,
    next_node_id: u64,
) -> Result<()> {
    graph.ensure_writable()?;
    let mut opts = WriteOptions::default();
    opts.set_sync(sync);
    graph.cache.begin_commit(touched.iter().copied());
    let result = graph.db.write_opt(batch, &opts);
    // Invalidate even on error: a failed write changed nothing, and an extra miss is harmless.
    graph.cache.end_commit(touched.iter().copied());
    result?;
    state.next_node_id = next_node_id;
    if let Some(catalog) = catalog {
        *graph.catalog.write() = Arc::new(catalog);
    }
    Ok(())
}
