//! The single writer: a batch of changes applied atomically on commit.
//!
//! The writer keeps an overlay of what it changed so that later operations in the same batch
//! see earlier ones (an edge to a node upserted a moment ago, removing a node with an edge added
//! in this batch). Everything goes into one [`Batch`]; readers see all of it or none.

use crate::catalog::Catalog;
use crate::changes::ChangeSet;
use crate::commit::{self, Commit};
use crate::describe;
use crate::error::{EngineError, Result};
use crate::graph::{Graph, GraphOptions, Neighbor};
use crate::lock::WriterLock;
use crate::max_degree::DegreeGrowth;
use crate::storage::{Batch, Space};
use crate::Direction;
use cairn_storage_format::records::{encode_u64, encode_vector};
use cairn_storage_format::{
    Degree, EdgeProps, ExternalKey, InEdgeKey, LabelId, NodeId, NodeKey, NodeRecord, OutEdgeKey,
    PropKeyId, RelId, Value,
};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// What a commit changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommitStats {
    /// Operations in the batch.
    pub operations: usize,
    /// Bytes in the batch.
    pub bytes: usize,
    /// The commit counter the commit wrote (see [`Graph::commits`]); 0 when there was nothing
    /// to commit.
    pub commit: u64,
}

/// A write batch holding the database's single writer lock. See [`Graph::writer`].
///
/// Reads through the writer ([`Writer::node`], [`Writer::node_id`], [`Writer::neighbors`]) see
/// the committed graph plus this batch. While the writer is held nothing else commits (the bulk
/// loader takes the same lock), so the committed part is a snapshot as of [`Graph::writer`].
pub struct Writer<'g> {
    pub(crate) graph: &'g Graph,
    state: WriterLock<'g>,
    pub(crate) batch: Batch,
    base_catalog: Arc<Catalog>,
    o: Overlay,
    sync: bool,
    savepoints: Vec<Saved>,
    savepoint_ids: u64,
    /// Overlay changes since the oldest savepoint, for [`Writer::rollback_to`]; empty (and not
    /// written) while no savepoint is set.
    undo: Vec<Undo>,
}

/// What the batch changed, as later operations of the same batch must see it.
#[derive(Debug, Default)]
struct Overlay {
    /// Copy-on-write catalog: `Some` once this batch changed it.
    catalog: Option<Catalog>,
    next_node_id: u64,
    nodes: HashMap<NodeId, Option<NodeRecord>>,
    keys: HashMap<(LabelId, String), Option<NodeId>>,
    /// Edges changed in this batch, by `(src, rel, dst)`; `None` = removed.
    out: BTreeMap<(NodeId, RelId, NodeId), Option<EdgeProps>>,
    /// The same edges by `(dst, rel, src)`; `false` = removed.
    inc: BTreeMap<(NodeId, RelId, NodeId), bool>,
    /// Vectors set (`Some`) or dropped (`None`) in this batch.
    vectors: HashMap<NodeId, Option<Vec<f32>>>,
}

/// The writer as of a savepoint: the batch's size and count, where the undo log stood, and the two small parts of the overlay.
struct Saved {
    id: u64,
    batch_bytes: usize,
    batch_count: usize,
    undo: usize,
    catalog: Option<Catalog>,
    next_node_id: u64,
}

/// An overlay entry's value before a change, logged while a savepoint is set (`None`: absent).
#[derive(Debug)]
enum Undo {
    Node(NodeId, Option<Option<NodeRecord>>),
    Key((LabelId, String), Option<Option<NodeId>>),
    Out((NodeId, RelId, NodeId), Option<Option<EdgeProps>>),
    Inc((NodeId, RelId, NodeId), Option<bool>),
    Vector(NodeId, Option<Option<Vec<f32>>>),
}

/// A point in a batch to roll back to with [`Writer::rollback_to`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Savepoint {
    id: u64,
    depth: usize,
}

impl std::fmt::Debug for Writer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer")
            .field("operations", &self.batch.len())
            .field("savepoints", &self.savepoints.len())
            .finish()
    }
}

// Here rather than in graph.rs so that the graph does not import its writer (no module cycle).
impl Graph {
    /// Starts the write batch. Nothing is visible to readers until [`Writer::commit`], and
    /// dropping the writer discards the batch.
    ///
    /// There is one writer at a time: on the thread that holds the writer (or a bulk load) this
    /// fails with [`EngineError::WriterBusy`] at once, where waiting would deadlock; another
    /// thread waits until the holder commits or drops (see [`Graph::writer_timeout`]).
    pub fn writer(&self) -> Result<Writer<'_>> {
        Ok(Writer::new(self, self.lock_writer(None)?))
    }

    /// [`Graph::writer`], waiting at most `wait` for another thread's writer, then
    /// [`EngineError::WriterBusy`].
    pub fn writer_timeout(&self, wait: Duration) -> Result<Writer<'_>> {
        Ok(Writer::new(self, self.lock_writer(Some(wait))?))
    }
}

impl<'g> Writer<'g> {
    fn new(graph: &'g Graph, state: WriterLock<'g>) -> Self {
        let next_node_id = state.next_node_id;
        Writer {
            graph,
            state,
            batch: Batch::default(),
            base_catalog: graph.catalog(),
            o: Overlay {
                next_node_id,
                ..Overlay::default()
            },
            sync: graph.options.sync_writes,
            savepoints: Vec::new(),
            savepoint_ids: 0,
            undo: Vec::new(),
        }
    }

    /// The catalog including names added in this batch.
    pub fn catalog(&self) -> &Catalog {
        self.o.catalog.as_ref().unwrap_or(&self.base_catalog)
    }

    fn catalog_mut(&mut self) -> &mut Catalog {
        self.o
            .catalog
            .get_or_insert_with(|| (*self.base_catalog).clone())
    }

    /// Operations queued so far.
    pub fn len(&self) -> usize {
        self.batch.len()
    }

    pub fn is_empty(&self) -> bool {
        self.batch.is_empty()
    }

    /// Whether the commit fsyncs the write-ahead log; the default is
    /// [`GraphOptions::sync_writes`] (off: a commit survives a killed process, not power loss).
    pub fn set_sync(&mut self, sync: bool) {
        self.sync = sync;
    }

    // ---- savepoints ----

    /// Marks the batch as it is now, to come back to with [`Writer::rollback_to`]. Cheap: from
    /// here on the writer logs the previous value of each overlay entry it changes (and copies
    /// the catalog once, here); the batch itself is only cut back on a rollback.
    pub fn savepoint(&mut self) -> Savepoint {
        self.savepoint_ids += 1;
        self.savepoints.push(Saved {
            id: self.savepoint_ids,
            batch_bytes: self.batch.size_in_bytes(),
            batch_count: self.batch.len(),
            undo: self.undo.len(),
            catalog: self.o.catalog.clone(),
            next_node_id: self.o.next_node_id,
        });
        Savepoint {
            id: self.savepoint_ids,
            depth: self.savepoints.len() - 1,
        }
    }

    fn saved(&self, savepoint: Savepoint) -> Result<&Saved> {
        match self.savepoints.get(savepoint.depth) {
            Some(s) if s.id == savepoint.id => Ok(s),
            _ => Err(EngineError::Invalid(
                "no such savepoint in this batch (it was released or rolled back past)".into(),
            )),
        }
    }

    /// Undoes everything the batch did since `savepoint`, which stays valid (roll back to it
    /// again later); savepoints taken after it are gone.
    pub fn rollback_to(&mut self, savepoint: Savepoint) -> Result<()> {
        let saved = self.saved(savepoint)?;
        let (bytes, count, undo) = (saved.batch_bytes, saved.batch_count, saved.undo);
        let (catalog, next_node_id) = (saved.catalog.clone(), saved.next_node_id);
        self.o.catalog = catalog;
        self.o.next_node_id = next_node_id;
        self.batch.truncate(bytes, count)?;
        let o = &mut self.o;
        for entry in self.undo.drain(undo..).rev() {
            match entry {
                Undo::Node(k, Some(v)) => drop(o.nodes.insert(k, v)),
                Undo::Node(k, None) => drop(o.nodes.remove(&k)),
                Undo::Key(k, Some(v)) => drop(o.keys.insert(k, v)),
                Undo::Key(k, None) => drop(o.keys.remove(&k)),
                Undo::Out(k, Some(v)) => drop(o.out.insert(k, v)),
                Undo::Out(k, None) => drop(o.out.remove(&k)),
                Undo::Inc(k, Some(v)) => drop(o.inc.insert(k, v)),
                Undo::Inc(k, None) => drop(o.inc.remove(&k)),
                Undo::Vector(k, Some(v)) => drop(o.vectors.insert(k, v)),
                Undo::Vector(k, None) => drop(o.vectors.remove(&k)),
            }
        }
        self.savepoints.truncate(savepoint.depth + 1);
        Ok(())
    }

    /// Forgets `savepoint` and those after it, keeping what the batch holds now.
    pub fn release(&mut self, savepoint: Savepoint) -> Result<()> {
        self.saved(savepoint)?;
        self.savepoints.truncate(savepoint.depth);
        if self.savepoints.is_empty() {
            self.undo.clear();
        }
        Ok(())
    }

    /// The overlay writes, logging the previous value while a savepoint is set.
    fn set_node(&mut self, id: NodeId, rec: Option<NodeRecord>) {
        let old = self.o.nodes.insert(id, rec);
        if !self.savepoints.is_empty() {
            self.undo.push(Undo::Node(id, old));
        }
    }

    fn set_key(&mut self, key: (LabelId, String), id: Option<NodeId>) {
        let old = self.o.keys.insert(key.clone(), id);
        if !self.savepoints.is_empty() {
            self.undo.push(Undo::Key(key, old));
        }
    }

    fn set_vector_overlay(&mut self, id: NodeId, v: Option<Vec<f32>>) {
        let old = self.o.vectors.insert(id, v);
        if !self.savepoints.is_empty() {
            self.undo.push(Undo::Vector(id, old));
        }
    }

    fn set_edge(&mut self, (src, rel, dst): (NodeId, RelId, NodeId), props: Option<EdgeProps>) {
        let live = props.is_some();
        let old_out = self.o.out.insert((src, rel, dst), props);
        let old_in = self.o.inc.insert((dst, rel, src), live);
        if !self.savepoints.is_empty() {
            self.undo.push(Undo::Out((src, rel, dst), old_out));
            self.undo.push(Undo::Inc((dst, rel, src), old_in));
        }
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

    /// Sets a label's, relation's or property's description, aliases and (labels) linking (see
    /// [`Catalog::annotate`]); committed with the batch, like any catalog change.
    pub fn annotate(
        &mut self,
        element: crate::catalog::Element,
        description: Option<String>,
        aliases: Option<Vec<String>>,
        linking: Option<bool>,
    ) -> Result<()> {
        self.catalog_mut()
            .annotate(element, description, aliases, linking)
    }

    /// Records which embedder produced the database's vectors.
    pub fn set_embedder(&mut self, def: Option<cairn_storage_format::EmbedderDef>) {
        self.catalog_mut().set_embedder(def);
    }

    // ---- reads through the overlay ----

    /// The node as this batch would leave it.
    pub fn node(&self, id: NodeId) -> Result<Option<NodeRecord>> {
        match self.o.nodes.get(&id) {
            Some(rec) => Ok(rec.clone()),
            None => Ok(self.graph.reader().node(id)?.map(|r| (*r).clone())),
        }
    }

    fn node_exists(&self, id: NodeId) -> Result<Option<LabelId>> {
        match self.o.nodes.get(&id) {
            Some(rec) => Ok(rec.as_ref().map(|r| r.label)),
            None => Ok(self.graph.reader().node(id)?.map(|r| r.label)),
        }
    }

    /// The id of node (label, key) as this batch would leave it.
    pub fn node_id(&self, label: LabelId, key: &str) -> Result<Option<NodeId>> {
        match self.o.keys.get(&(label, key.to_owned())) {
            Some(id) => Ok(*id),
            None => self.graph.reader().node_id(label, key),
        }
    }

    /// The properties of edge `src -[rel]-> dst` as this batch would leave it.
    pub fn edge(&self, src: NodeId, rel: RelId, dst: NodeId) -> Result<Option<EdgeProps>> {
        match self.o.out.get(&(src, rel, dst)) {
            Some(e) => Ok(e.clone()),
            None => self.graph.reader().edge(src, rel, dst),
        }
    }

    /// Edges of `node` as this batch would leave them, like [`crate::GraphRead::neighbors`]:
    /// in `direction` (outgoing first for `Both`), restricted to `rels` (all when empty),
    /// each direction in (relation, other node) order.
    pub fn neighbors(
        &self,
        node: NodeId,
        direction: Direction,
        rels: &[RelId],
    ) -> Result<Vec<Neighbor>> {
        let mut out = Vec::new();
        for dir in [Direction::Out, Direction::In] {
            if direction != Direction::Both && direction != dir {
                continue;
            }
            let mut stored = Vec::new();
            self.graph
                .reader()
                .neighbors_into(node, dir, rels, &mut stored)?;
            let edge_of = |rel: RelId, other: NodeId| match dir {
                Direction::In => (other, rel, node),
                _ => (node, rel, other),
            };
            // Stored edges this batch changed are replaced by the batch's version below.
            stored.retain(|n| !self.o.out.contains_key(&edge_of(n.rel, n.node)));
            let lo = (node, RelId(0), NodeId(0));
            let hi = (node, RelId(u32::MAX), NodeId(u64::MAX));
            let wanted = |rel: &RelId| rels.is_empty() || rels.contains(rel);
            if dir == Direction::Out {
                for ((_, rel, other), props) in self.o.out.range(lo..=hi) {
                    if let (Some(props), true) = (props, wanted(rel)) {
                        stored.push(Neighbor {
                            rel: *rel,
                            node: *other,
                            direction: dir,
                            props: props.clone(),
                        });
                    }
                }
            } else {
                for ((_, rel, other), live) in self.o.inc.range(lo..=hi) {
                    let props = self.o.out.get(&(*other, *rel, node)).cloned().flatten();
                    if let (true, Some(props), true) = (*live, props, wanted(rel)) {
                        stored.push(Neighbor {
                            rel: *rel,
                            node: *other,
                            direction: dir,
                            props,
                        });
                    }
                }
            }
            stored.sort_by_key(|n| (n.rel, n.node));
            out.extend(stored);
        }
        Ok(out)
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
                let id = NodeId(self.o.next_node_id);
                self.o.next_node_id = self
                    .o
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
        if let Some(old) = &old {
            // The vector embeds the description: once that text changes the vector describes
            // something else, so it goes (the facade embeds the new text at commit).
            let catalog = self.catalog();
            let changed =
                describe::description(old, catalog) != describe::description(&record, catalog);
            if changed {
                self.drop_vector(id)?;
            }
        }
        self.write_node(id, old.as_ref(), Some(&record))?;
        if existing.is_none() {
            let ek = ExternalKey {
                label,
                key: key.to_owned(),
            }
            .encode();
            self.batch.put(Space::NodeKey, ek, encode_u64(id.0));
            self.set_key((label, key.to_owned()), Some(id));
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
        // Encoded first, so that a record the codec refuses leaves the batch untouched.
        let value = new
            .map(NodeRecord::encode)
            .transpose()
            .map_err(EngineError::encode("node record"))?;
        // Field by field, so the catalog and the batch borrow apart.
        let catalog = self.o.catalog.as_ref().unwrap_or(&*self.base_catalog);
        commit::index_upkeep(&mut self.batch, catalog, id, old, new)?;
        match value {
            Some(bytes) => self.batch.put(Space::Node, NodeKey(id).encode(), bytes),
            None => self.batch.delete(Space::Node, NodeKey(id).encode()),
        }
        self.set_node(id, new.cloned());
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
        self.batch.delete(Space::NodeKey, ek);
        self.set_key((record.label, record.key), None);
        self.batch.delete(Space::Degree, NodeKey(id).encode());
        self.drop_vector(id)?;
        Ok(true)
    }

    // ---- vectors ----

    /// Stores `vector` as node `id`'s vector (replacing any), e.g. one computed by the caller's
    /// model. The catalog must record the embedder ([`Writer::set_embedder`]) and the vector
    /// have its dimension, finite components and a non-zero length; the node must exist.
    pub fn set_vector(&mut self, id: NodeId, vector: &[f32]) -> Result<()> {
        let Some(def) = self.catalog().embedder() else {
            return Err(EngineError::Invalid(format!(
                "vector for node {}: the catalog records no embedder (set_embedder first)",
                id.0
            )));
        };
        if vector.len() != def.dim as usize {
            return Err(EngineError::Invalid(format!(
                "vector for node {} has {} components, the embedder `{}` has {}",
                id.0,
                vector.len(),
                def.id,
                def.dim
            )));
        }
        if vector.iter().any(|x| !x.is_finite()) || vector.iter().all(|x| *x == 0.0) {
            return Err(EngineError::Invalid(format!(
                "vector for node {} is zero or not finite",
                id.0
            )));
        }
        if self.node(id)?.is_none() {
            return Err(EngineError::Invalid(format!(
                "vector for node {}: no such node",
                id.0
            )));
        }
        self.batch
            .put(Space::Vector, NodeKey(id).encode(), encode_vector(vector));
        self.set_vector_overlay(id, Some(vector.to_vec()));
        Ok(())
    }

    /// Removes node `id`'s vector, if it has one (the node stays, outside the vector index).
    pub fn drop_vector(&mut self, id: NodeId) -> Result<()> {
        self.batch.delete(Space::Vector, NodeKey(id).encode());
        self.set_vector_overlay(id, None);
        Ok(())
    }

    /// The nodes of this batch that have a description to embed and no vector: those it
    /// created without [`Writer::set_vector`], and those whose description it changed (which
    /// dropped the old vector), with their description text. What the facade embeds at commit.
    pub fn unembedded(&self) -> Result<Vec<(NodeId, String)>> {
        let first_new = self.state.next_node_id;
        let catalog = self.catalog();
        let mut out = Vec::new();
        for (id, rec) in &self.o.nodes {
            let Some(rec) = rec else { continue };
            let todo = match self.o.vectors.get(id) {
                Some(v) => v.is_none(),
                None => id.0 >= first_new,
            };
            if todo {
                out.push((*id, describe::description(rec, catalog)));
            }
        }
        out.sort_by_key(|(id, _)| *id);
        Ok(out)
    }

    /// Every edge touching `id` as this batch would leave it, as `(src, rel, dst)`.
    fn edges_of(&self, id: NodeId) -> Result<Vec<(NodeId, RelId, NodeId)>> {
        let mut edges: Vec<_> = self
            .neighbors(id, Direction::Both, &[])?
            .into_iter()
            .map(|n| match n.direction {
                Direction::In => (n.node, n.rel, id),
                _ => (id, n.rel, n.node),
            })
            .collect();
        // A self-loop is listed in both directions.
        edges.sort();
        edges.dedup();
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
        let value = props
            .encode()
            .map_err(EngineError::encode("edge properties"))?;
        let out_key = OutEdgeKey { src, rel, dst };
        self.batch.put(Space::Out, out_key.encode(), &value);
        self.batch
            .put(Space::In, out_key.reversed().encode(), &value);
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
        self.set_edge((src, rel, dst), Some(props));
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
        self.batch.delete(Space::Out, out_key.encode());
        self.batch.delete(Space::In, in_key.encode());
        self.bump_degree(src, Degree { out: -1, inc: 0 })?;
        self.bump_degree(dst, Degree { out: 0, inc: -1 })?;
        self.set_edge((src, rel, dst), None);
        Ok(true)
    }

    fn bump_degree(&mut self, node: NodeId, delta: Degree) -> Result<()> {
        self.batch
            .merge(Space::Degree, NodeKey(node).encode(), delta.encode());
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
        let mut ids = self.graph.reader().label_nodes(label)?;
        ids.extend(
            self.o
                .keys
                .iter()
                .filter(|((l, _), v)| *l == label && v.is_some())
                .filter_map(|(_, v)| *v),
        );
        ids.sort();
        ids.dedup();
        let index = cairn_storage_format::IndexDef { label, prop };
        for id in ids {
            let Some(rec) = self.node(id)? else { continue };
            if let (true, Some(v)) = (
                rec.label == label,
                rec.prop(prop).filter(|v| v.is_indexable()),
            ) {
                self.batch
                    .put(Space::Prop, commit::index_key(&index, v, id)?, []);
            }
        }
        Ok(true)
    }

    // ---- commit ----

    /// Applies the batch atomically (on error nothing is applied) through the one commit
    /// protocol, which sends its change set to [`Graph::subscribe`]rs.
    pub fn commit(self) -> Result<CommitStats> {
        Ok(self.commit_changes()?.0)
    }

    /// [`Writer::commit`], also returning the change set (`None`: nothing to commit).
    pub fn commit_changes(mut self) -> Result<(CommitStats, Option<Arc<ChangeSet>>)> {
        let (changes, growth) = self.changes()?;
        let mut stats = CommitStats {
            operations: self.batch.len(),
            bytes: self.batch.size_in_bytes(),
            commit: 0,
        };
        let c = Commit {
            batch: std::mem::take(&mut self.batch),
            catalog: self.o.catalog.take(),
            next_node_id: self.o.next_node_id,
            sync: self.sync,
            clear_marker: false,
            changes,
            growth,
        };
        let changes = commit::commit(self.graph, &mut self.state, c)?;
        stats.commit = changes.as_ref().map_or(0, |c| c.commit);
        Ok((stats, changes))
    }

    /// The change set of the batch: the overlay compared with the committed graph, so that a
    /// change undone within the batch (or by a savepoint) is not reported.
    /// The degree growth is that of the edges new to the committed graph.
    fn changes(&self) -> Result<(ChangeSet, DegreeGrowth)> {
        let reader = self.graph.reader();
        // Ids this batch handed out were never stored: nothing to read for them or their edges,
        // so a batch that only creates (the common bulk case) reads nothing here.
        let first_new = self.state.next_node_id;
        let stored_node = |id: NodeId| -> Result<Option<Arc<NodeRecord>>> {
            if id.0 >= first_new {
                Ok(None)
            } else {
                reader.node(id)
            }
        };
        let mut changes = ChangeSet::default();
        let mut growth = DegreeGrowth::default();
        for (id, rec) in &self.o.nodes {
            let stored = stored_node(*id)?;
            let stored = stored.as_deref();
            if stored == rec.as_ref() {
                continue;
            }
            match rec {
                Some(_) => changes.nodes_upserted.push(*id),
                None => changes.nodes_removed.push(*id),
            }
            if commit::props_differ(stored, rec.as_ref()) {
                changes.props_touched.push(*id);
            }
        }
        let had_vector = reader.vectors(&changes.nodes_removed)?;
        changes.vectors_touched = changes
            .nodes_removed
            .iter()
            .zip(had_vector)
            .filter(|(_, v)| v.is_some())
            .map(|(id, _)| *id)
            .collect();
        // Set in this batch (on a node that still exists), or dropped where one was stored.
        let dropped: Vec<NodeId> = self
            .o
            .vectors
            .iter()
            .filter(|(id, v)| v.is_none() && id.0 < first_new)
            .map(|(id, _)| *id)
            .collect();
        let stored = reader.vectors(&dropped)?;
        changes.vectors_touched.extend(
            dropped
                .iter()
                .zip(stored)
                .filter(|(_, v)| v.is_some())
                .map(|(id, _)| *id),
        );
        changes.vectors_touched.extend(
            self.o
                .vectors
                .iter()
                .filter(|(id, v)| v.is_some() && self.o.nodes.get(id).is_none_or(Option::is_some))
                .map(|(id, _)| *id),
        );
        for (edge, props) in &self.o.out {
            let stored = if edge.0 .0 >= first_new || edge.2 .0 >= first_new {
                None
            } else {
                reader.edge(edge.0, edge.1, edge.2)?
            };
            if props.is_some() && stored.is_none() {
                growth.add(edge.0, 1);
                growth.add(edge.2, 1);
            }
            match props {
                Some(p) if stored.as_ref() != Some(p) => changes.edges_added.push(*edge),
                None if stored.is_some() => changes.edges_removed.push(*edge),
                _ => {}
            }
        }
        Ok((changes, growth))
    }

    /// A private copy of the database as this batch would leave it, at `dir` (an empty or
    /// missing directory): a checkpoint of the committed graph (RocksDB: hard links to its
    /// files, the memtable flushed) with the batch committed into it. For readers that cannot
    /// read through the overlay, such as the executor's node table; nothing of the copy reaches
    /// this database. Delete `dir` after use.
    pub fn fork(&self, dir: &Path) -> Result<Graph> {
        self.graph.storage.checkpoint(dir)?;
        let copy = Graph::open(
            dir,
            GraphOptions {
                create_if_missing: false,
                sync_writes: false,
                ..self.graph.options.clone()
            },
        )?;
        {
            let (_, growth) = self.changes()?;
            let mut state = copy.lock_writer(None)?;
            let c = Commit {
                batch: self.batch.clone(),
                catalog: self.o.catalog.clone(),
                next_node_id: self.o.next_node_id,
                growth,
                ..Commit::default()
            };
            commit::commit(&copy, &mut state, c)?;
        }
        Ok(copy)
    }
}
