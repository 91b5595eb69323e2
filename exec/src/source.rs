//! Where the executor reads what it scores and walks: node facts (label, degree, vector) and
//! adjacency, through one trait with three implementations:
//!
//! - [`crate::NodeTable`]: everything in memory, for a long-running process that built it;
//! - [`StoreView`]: straight from the store — the facts of many nodes and (when the search will
//!   walk on from them) their edges in one batched read ([`NodeSource::prefetch`]: one request
//!   per shard on a Redis Cluster), cached for the view's life (one query) — so that a cold
//!   one-shot statement pays for the nodes it touches, not for a scan of the graph;
//! - [`crate::Overlaid`]: a table built at some commit plus the nodes later commits changed, which
//!   are read through a store view, so that a write does not cost a rebuild.
//!
//! All three give the same answers for the same graph: connectivity is normalised by the
//! store's recorded largest degree ([`Graph::max_degree`]) and vectors are compared in the
//! same quantised form.

use crate::score::{connectivity, dot_f32_i8, log_max, quantize_into, Probe};
use cairn_storage_format::{LabelId, NodeId, NodeRecord, RelId};
use cairn_store::{Direction, EngineError, Graph, GraphRead};
use hashbrown::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// What the executor scores a node by (see [`NodeSource::facts`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Facts {
    pub label: LabelId,
    /// Log-degree normalised over the graph, in [0, 1].
    pub connectivity: f64,
    /// Cosine with the probe, when the source holds the node's vector.
    pub cosine: Option<f32>,
}

/// Node facts and adjacency for the executor (see the module docs).
pub trait NodeSource: Send + Sync {
    /// Appends to `out` the facts of each of `ids` (`None` for a node that does not exist).
    fn facts(
        &self,
        ids: &[NodeId],
        probe: &Probe,
        out: &mut Vec<Option<Facts>>,
    ) -> Result<(), EngineError>;

    /// Appends `node`'s edges in `direction` with a relation in `rels` (any when empty), as
    /// (other node, relation, followed against its direction), sorted by (relation, other
    /// node) within a direction, outgoing first.
    fn neighbors_into(
        &self,
        node: NodeId,
        direction: Direction,
        rels: &[RelId],
        out: &mut Vec<(NodeId, RelId, bool)>,
    ) -> Result<(), EngineError>;

    /// How many edges `neighbors_into` would list, without listing them.
    fn degree_through(
        &self,
        node: NodeId,
        direction: Direction,
        rels: &[RelId],
    ) -> Result<u32, EngineError>;

    /// The connectivity normaliser: the graph's largest degree.
    fn max_degree(&self) -> u32;

    /// Cosine of `query` (a unit vector) and each node's stored vector, when the source holds
    /// vectors (for SEARCH without an index); `None` per node otherwise.
    fn cosines(&self, ids: &[NodeId], query: &[f32]) -> Result<Vec<Option<f32>>, EngineError>;

    /// Appends the label of each of `ids` (`None` for a node that does not exist).
    fn labels_into(
        &self,
        ids: &[NodeId],
        out: &mut Vec<Option<LabelId>>,
    ) -> Result<(), EngineError>;

    /// `Some(n)` when node ids are dense, mostly below `n` (an in-memory table): an exact walk
    /// then marks nodes in an array indexed by id instead of a hash map.
    fn dense_ids(&self) -> Option<usize> {
        None
    }

    /// Reads ahead, in one batch, the facts of `ids` and (with `adjacency`) their edges in
    /// those directions, so that the calls above answer them from memory: a step of a search
    /// then costs one request per shard of a distributed store, not one per node. A source
    /// that holds everything in memory does nothing.
    fn prefetch(&self, ids: &[NodeId], adjacency: Option<Direction>) -> Result<(), EngineError> {
        let _ = (ids, adjacency);
        Ok(())
    }

    /// The record of `id`, when the source read it and holds it (`None` otherwise: read it
    /// from the store).
    fn record(&self, id: NodeId) -> Option<Arc<NodeRecord>> {
        let _ = id;
        None
    }

    /// Whether each read is a round trip to servers (a store view of a remote store): the
    /// search then reads the whole next layer of its walk in one batch when it must read at
    /// all, so that a hop, not a round, costs a request per shard (`Run::read_round`).
    fn reads_ahead(&self) -> bool {
        false
    }

    /// Those of `ids` that [`NodeSource::prefetch`] with `adjacency` would read (none for a
    /// source that holds everything).
    fn unread(&self, ids: &[NodeId], adjacency: Option<Direction>) -> Vec<NodeId> {
        let _ = (ids, adjacency);
        Vec::new()
    }

    /// The nodes [`NodeSource::prefetch`] has read so far and the edges it listed of them
    /// (none for a source that holds everything): what the next read is likely to weigh.
    fn read_so_far(&self) -> (u64, u64) {
        (0, 0)
    }
}

/// The store's largest degree as the `u32` the normaliser takes.
pub fn store_max_degree(graph: &Graph) -> u32 {
    u32::try_from(graph.max_degree()).unwrap_or(u32::MAX)
}

/// Store operations a [`StoreView`] issued (each one RocksDB call, i.e. one round trip on a
/// remote key-value store).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoreOps {
    /// Batched multi-gets (records, degrees or vectors of many nodes at once).
    pub multi_gets: u64,
    /// Prefix scans (one node's edges in one direction).
    pub prefix_scans: u64,
    /// Nodes whose facts (and edges) batched reads fetched (`NodeSource::prefetch`).
    pub nodes_read: u64,
    /// Edges those batched reads listed.
    pub edges_read: u64,
}

/// A vector in the table's quantised form: i8 components and their scale.
type Quantised = (Vec<i8>, f32);

/// One node's edges in one direction, as (relation, other node) in key order.
type Edges = Arc<Vec<(RelId, NodeId)>>;

/// What a view read of one node for scoring: its label, total degree and quantised vector,
/// and its degree record's counts by direction (out, in): a count through every relation is
/// answered from them without listing the edges (a venue's or topic's are tens of thousands).
#[derive(Clone, Debug)]
struct Known {
    label: LabelId,
    degree: u32,
    sides: (u32, u32),
    vector: Option<Quantised>,
    /// The record, which the read fetched anyway: a search's records of the nodes it read
    /// need no second read when the store's cache has let them go.
    record: Arc<NodeRecord>,
}

/// Facts and adjacency read from the store (see the module docs). Caches what it read, so
/// make one per query (or per question) rather than per process.
pub struct StoreView<'g> {
    graph: &'g Graph,
    max_degree: u32,
    log_max: f64,
    /// The vector dimension when the catalog's embedder is the query's: vectors are read
    /// and compared only then.
    dim: Option<usize>,
    edges: Mutex<HashMap<(NodeId, bool), Edges>>,
    /// Facts read so far (`None`: no such node).
    known: Mutex<HashMap<NodeId, Option<Known>>>,
    multi_gets: AtomicU64,
    prefix_scans: AtomicU64,
    nodes_read: AtomicU64,
    edges_read: AtomicU64,
}

impl std::fmt::Debug for StoreView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreView")
            .field("max_degree", &self.max_degree)
            .field("ops", &self.ops())
            .finish()
    }
}

impl<'g> StoreView<'g> {
    /// A view of `graph` for a query embedding with `embedder_id`.
    pub fn new(graph: &'g Graph, embedder_id: &str) -> Self {
        let max_degree = store_max_degree(graph);
        let dim = graph
            .catalog()
            .embedder()
            .filter(|e| e.id == embedder_id)
            .map(|e| e.dim as usize);
        StoreView {
            graph,
            max_degree,
            log_max: log_max(max_degree),
            dim,
            edges: Mutex::new(HashMap::new()),
            known: Mutex::new(HashMap::new()),
            multi_gets: AtomicU64::new(0),
            prefix_scans: AtomicU64::new(0),
            nodes_read: AtomicU64::new(0),
            edges_read: AtomicU64::new(0),
        }
    }

    /// `ln(1 + max degree)` of the store's recorded largest degree.
    pub(crate) fn log_max(&self) -> f64 {
        self.log_max
    }

    /// The store operations issued so far.
    pub fn ops(&self) -> StoreOps {
        StoreOps {
            multi_gets: self.multi_gets.load(Ordering::Relaxed),
            prefix_scans: self.prefix_scans.load(Ordering::Relaxed),
            nodes_read: self.nodes_read.load(Ordering::Relaxed),
            edges_read: self.edges_read.load(Ordering::Relaxed),
        }
    }

    /// `node`'s edges in one direction (`incoming` or not), from the cache or one prefix scan.
    fn edges(&self, node: NodeId, incoming: bool) -> Result<Edges, EngineError> {
        let key = (node, incoming);
        if let Some(e) = self.lock().get(&key) {
            return Ok(Arc::clone(e));
        }
        let direction = if incoming {
            Direction::In
        } else {
            Direction::Out
        };
        let mut found = Vec::new();
        self.graph
            .neighbors_into(node, direction, &[], &mut found)?;
        self.prefix_scans.fetch_add(1, Ordering::Relaxed);
        let edges: Edges = Arc::new(found.into_iter().map(|n| (n.rel, n.node)).collect());
        self.lock().insert(key, Arc::clone(&edges));
        Ok(edges)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(NodeId, bool), Edges>> {
        // The map is only ever extended with complete entries: a panic elsewhere leaves it whole.
        self.edges.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn lock_known(&self) -> std::sync::MutexGuard<'_, HashMap<NodeId, Option<Known>>> {
        // As `lock`: complete entries only.
        self.known.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A stored vector in the table's quantised form (`None`: absent, of another dimension,
    /// or all zeros).
    fn quantise(&self, v: Option<Vec<f32>>) -> Option<Quantised> {
        let dim = self.dim?;
        let v = v.filter(|v| v.len() == dim)?;
        let mut q = vec![0i8; dim];
        let scale = quantize_into(&v, &mut q);
        (scale > 0.0).then_some((q, scale))
    }

    /// Those of `ids` whose facts, or edges in the directions of `adjacency`, are not read yet.
    fn unread_ids(&self, ids: &[NodeId], adjacency: Option<Direction>) -> Vec<NodeId> {
        let want = adjacency.map_or([(false, false); 2], sides);
        let (known, edges) = (self.lock_known(), self.lock());
        ids.iter()
            .copied()
            .filter(|id| {
                !known.contains_key(id)
                    || want
                        .iter()
                        .any(|&(incoming, w)| w && !edges.contains_key(&(*id, incoming)))
            })
            .collect()
    }

    /// Vectors of `ids` in the table's quantised form, as (i8 components, scale).
    fn quantised(&self, ids: &[NodeId]) -> Result<Vec<Option<Quantised>>, EngineError> {
        let Some(dim) = self.dim else {
            return Ok(vec![None; ids.len()]);
        };
        let _ = dim;
        self.multi_gets.fetch_add(1, Ordering::Relaxed);
        Ok(self
            .graph
            .vectors(ids)?
            .into_iter()
            .map(|v| self.quantise(v))
            .collect())
    }
}

/// Which directions a listing covers, as (outgoing, incoming).
fn sides(direction: Direction) -> [(bool, bool); 2] {
    [
        (false, matches!(direction, Direction::Out | Direction::Both)),
        (true, matches!(direction, Direction::In | Direction::Both)),
    ]
}

impl NodeSource for StoreView<'_> {
    fn facts(
        &self,
        ids: &[NodeId],
        probe: &Probe,
        out: &mut Vec<Option<Facts>>,
    ) -> Result<(), EngineError> {
        if ids.is_empty() {
            return Ok(());
        }
        self.prefetch(ids, None)?;
        let known = self.lock_known();
        out.reserve(ids.len());
        for id in ids {
            out.push(known.get(id).and_then(Option::as_ref).map(|k| {
                Facts {
                    label: k.label,
                    connectivity: f64::from(connectivity(k.degree, self.log_max)),
                    cosine: k
                        .vector
                        .as_ref()
                        .and_then(|(q, scale)| probe.cosine(q, *scale)),
                }
            }));
        }
        Ok(())
    }

    /// One read of the store ([`cairn_store::GraphRead::node_bundles`]) for the facts and edges
    /// not read yet.
    fn prefetch(&self, ids: &[NodeId], adjacency: Option<Direction>) -> Result<(), EngineError> {
        let want = adjacency.map_or([(false, false); 2], sides);
        let mut todo = self.unread_ids(ids, adjacency);
        todo.sort_unstable();
        todo.dedup();
        if todo.is_empty() {
            return Ok(());
        }
        let bundles = self
            .graph
            .node_bundles(&todo, self.dim.is_some(), adjacency)?;
        self.multi_gets.fetch_add(1, Ordering::Relaxed);
        self.nodes_read
            .fetch_add(todo.len() as u64, Ordering::Relaxed);
        let mut fresh_edges = Vec::new();
        let mut edges = 0u64;
        {
            let mut known = self.lock_known();
            for (id, b) in todo.iter().zip(bundles) {
                let degree =
                    u32::try_from((b.degree.out + b.degree.inc).max(0)).unwrap_or(u32::MAX);
                let count = |n: i64| u32::try_from(n.max(0)).unwrap_or(u32::MAX);
                let sides = (count(b.degree.out), count(b.degree.inc));
                let vector = self.quantise(b.vector);
                known.insert(
                    *id,
                    b.record.map(|r| Known {
                        label: r.label,
                        degree,
                        sides,
                        vector,
                        record: r,
                    }),
                );
                for ((incoming, w), list) in want.into_iter().zip([b.out, b.inc]) {
                    if w {
                        edges += list.len() as u64;
                        fresh_edges.push(((*id, incoming), Arc::new(list)));
                    }
                }
            }
        }
        self.lock().extend(fresh_edges);
        self.edges_read.fetch_add(edges, Ordering::Relaxed);
        Ok(())
    }

    fn reads_ahead(&self) -> bool {
        self.graph.round_trips().is_some()
    }

    fn read_so_far(&self) -> (u64, u64) {
        let ops = self.ops();
        (ops.nodes_read, ops.edges_read)
    }

    fn unread(&self, ids: &[NodeId], adjacency: Option<Direction>) -> Vec<NodeId> {
        self.unread_ids(ids, adjacency)
    }

    fn record(&self, id: NodeId) -> Option<Arc<NodeRecord>> {
        self.lock_known()
            .get(&id)
            .and_then(Option::as_ref)
            .map(|k| Arc::clone(&k.record))
    }

    fn neighbors_into(
        &self,
        node: NodeId,
        direction: Direction,
        rels: &[RelId],
        out: &mut Vec<(NodeId, RelId, bool)>,
    ) -> Result<(), EngineError> {
        for (incoming, wanted) in sides(direction) {
            if wanted {
                let edges = self.edges(node, incoming)?;
                out.extend(
                    edges
                        .iter()
                        .filter(|(r, _)| rels.is_empty() || rels.contains(r))
                        .map(|(r, n)| (*n, *r, incoming)),
                );
            }
        }
        Ok(())
    }

    fn degree_through(
        &self,
        node: NodeId,
        direction: Direction,
        rels: &[RelId],
    ) -> Result<u32, EngineError> {
        if rels.is_empty() {
            let counted = self
                .lock_known()
                .get(&node)
                .and_then(Option::as_ref)
                .map(|k| {
                    let (out, inc) = k.sides;
                    match direction {
                        Direction::Out => out,
                        Direction::In => inc,
                        Direction::Both => out.saturating_add(inc),
                    }
                });
            if let Some(n) = counted {
                return Ok(n);
            }
        }
        let mut n = 0usize;
        for (incoming, wanted) in sides(direction) {
            if wanted {
                n += self
                    .edges(node, incoming)?
                    .iter()
                    .filter(|(r, _)| rels.is_empty() || rels.contains(r))
                    .count();
            }
        }
        Ok(u32::try_from(n).unwrap_or(u32::MAX))
    }

    fn max_degree(&self) -> u32 {
        self.max_degree
    }

    fn labels_into(
        &self,
        ids: &[NodeId],
        out: &mut Vec<Option<LabelId>>,
    ) -> Result<(), EngineError> {
        for chunk in ids.chunks(4096) {
            self.multi_gets.fetch_add(1, Ordering::Relaxed);
            out.extend(
                self.graph
                    .nodes(chunk)?
                    .into_iter()
                    .map(|r| r.map(|r| r.label)),
            );
        }
        Ok(())
    }

    fn cosines(&self, ids: &[NodeId], query: &[f32]) -> Result<Vec<Option<f32>>, EngineError> {
        let mut out = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(4096) {
            out.extend(
                self.quantised(chunk)?
                    .into_iter()
                    .map(|v| v.map(|(q, scale)| dot_f32_i8(query, &q) * scale)),
            );
        }
        Ok(out)
    }
}
