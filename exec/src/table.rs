//! Per-node facts the executor needs for every neighbour it scores — label, degree, vector —
//! and the adjacency it walks, held in memory (compressed sparse rows) so that listing a hub's
//! thousand edges and scoring a neighbour are array reads and one dot product, not RocksDB
//! iterator steps and three lookups. Built by scanning the store once, as of a commit counter
//! ([`NodeTable::commits`]); later commits are read through [`crate::source::Overlaid`].

use crate::score::{connectivity, dot_f32_i8, log_max, quantize_into, Probe};
use crate::source::{store_max_degree, Facts, NodeSource};
use cairn_storage_format::{LabelId, NodeId, RelId};
use cairn_store::{Direction, EngineError, Graph, GraphRead};
use memmap2::MmapMut;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Vectors are kept in memory only up to this many bytes (one byte per component); beyond,
/// the executor reads them from RocksDB per query.
pub const MAX_TABLE_VECTOR_BYTES: usize = 4 << 30;

const NO_LABEL: u32 = u32::MAX;

/// Nodes the scoring loop touches as one block, a block ahead of the one it scores (see
/// [`NodeTable::facts`]).
const TOUCH_BLOCK: usize = 16;

/// Rows per chunk of [`Rows`]: 6 MiB of 384-dimensional vectors, three 2 MiB huge pages
/// (a whole number of them for any dimension that is a multiple of 128).
const CHUNK_ROWS: usize = 16384;

/// Quantised vectors, one row of `dim` bytes per node id, in chunks shared between a table and
/// the tables merged from it. A merge changes the rows of the nodes a few thousand commits
/// touched; copying the whole array for that held two copies of the largest part of the table
/// (a third of a million-node process) while the merge ran. Cloning shares every chunk; a write
/// copies only the chunk it lands in.
///
/// Each chunk is an anonymous memory map advised to use huge pages: scoring reads rows at
/// random places of hundreds of megabytes, and with 4 KiB pages nearly every row is a TLB miss
/// whose page walk the row's own loads wait for.
#[derive(Clone, Debug, Default)]
struct Rows {
    dim: usize,
    len: usize,
    chunks: Vec<Arc<MmapMut>>,
}

/// A zeroed chunk of `bytes`, on huge pages where the kernel gives them.
fn chunk(bytes: usize) -> Result<MmapMut, EngineError> {
    let map = MmapMut::map_anon(bytes.max(1)).map_err(|e| {
        EngineError::Invalid(format!("cannot map {bytes} bytes for node vectors: {e}"))
    })?;
    // only advice: without huge pages the table works, more slowly
    #[cfg(target_os = "linux")]
    let _ = map.advise(memmap2::Advice::HugePage);
    Ok(map)
}

impl Rows {
    fn zeroed(len: usize, dim: usize) -> Result<Rows, EngineError> {
        let mut rows = Rows {
            dim,
            len: 0,
            chunks: Vec::new(),
        };
        rows.resize(len)?;
        Ok(rows)
    }

    /// Grows to `len` rows (zero), or shrinks.
    fn resize(&mut self, len: usize) -> Result<(), EngineError> {
        let chunks = len.div_ceil(CHUNK_ROWS);
        // rows cut off in the last kept chunk are zeroed, so growing again yields zero rows
        for i in len..self.len.min(chunks * CHUNK_ROWS) {
            if let Some(r) = self.row_mut(i)? {
                r.fill(0);
            }
        }
        self.chunks.truncate(chunks);
        while self.chunks.len() < chunks {
            self.chunks.push(Arc::new(chunk(CHUNK_ROWS * self.dim)?));
        }
        self.len = len;
        Ok(())
    }

    fn row(&self, i: usize) -> Option<&[i8]> {
        if i >= self.len {
            return None;
        }
        let at = (i % CHUNK_ROWS) * self.dim;
        self.chunks
            .get(i / CHUNK_ROWS)
            .and_then(|c| c.get(at..at + self.dim))
            .map(bytemuck::cast_slice)
    }

    /// Row `i` for writing (copying its chunk first if another table shares it).
    fn row_mut(&mut self, i: usize) -> Result<Option<&mut [i8]>, EngineError> {
        if i >= self.len {
            return Ok(None);
        }
        let Some(c) = self.chunks.get_mut(i / CHUNK_ROWS) else {
            return Ok(None);
        };
        if Arc::get_mut(c).is_none() {
            let mut copy = chunk(c.len())?;
            copy.copy_from_slice(&c[..]);
            *c = Arc::new(copy);
        }
        let at = (i % CHUNK_ROWS) * self.dim;
        Ok(Arc::get_mut(c)
            .and_then(|c| c.get_mut(at..at + self.dim))
            .map(bytemuck::cast_slice_mut))
    }
}

/// What scoring reads of one node, in one 16-byte record: a neighbour costs one cache miss
/// here instead of one per array.
#[derive(Clone, Copy, Debug)]
struct Meta {
    label: u32,
    degree: u32,
    /// `ln(1 + degree) / ln(1 + max degree)`, computed once.
    connectivity: f32,
    /// The vector's quantisation scale; 0 when the node has no vector (or none is held).
    scale: f32,
}

const NO_NODE: Meta = Meta {
    label: NO_LABEL,
    degree: 0,
    connectivity: 0.0,
    scale: 0.0,
};

/// Labels, degrees and (optionally) vectors of every node, indexed by node id.
#[derive(Debug)]
pub struct NodeTable {
    /// The commit counter the build started at: every commit up to it is in the table.
    commits: u64,
    meta: Vec<Meta>,
    max_degree: u32,
    /// The embedder the vectors came from, and their dimension; `dim` 0 when not held.
    embedder: String,
    dim: usize,
    /// Vectors quantised to i8 with one scale per vector (`x ≈ q · scale`). Scoring a hub's
    /// thousands of neighbours is bound by memory traffic, not arithmetic: a quarter of the
    /// bytes of f32 makes it about that much faster, and the cosine error (< 1%) does not
    /// change which neighbours are promising.
    vectors: Rows,
    out: Adjacency,
    inc: Adjacency,
}

/// Edges of one direction in compressed sparse rows: node `i`'s edges are
/// `rels[offsets[i]..offsets[i+1]]` / `nodes[..]`, sorted by (relation, other node) as in the store.
#[derive(Debug, Default)]
struct Adjacency {
    offsets: Vec<u64>,
    rels: Vec<u32>,
    nodes: Vec<u64>,
}

impl Adjacency {
    fn build(
        graph: &Graph,
        direction: Direction,
        n: usize,
        stop: &AtomicBool,
    ) -> Result<Adjacency, EngineError> {
        let mut counts = vec![0u64; n + 1];
        let (mut rels, mut nodes) = (Vec::new(), Vec::new());
        graph.scan_edges(direction, |a, rel, b| {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            if let Some(c) = counts.get_mut(a.0 as usize + 1) {
                *c += 1;
                rels.push(rel.0);
                nodes.push(b.0);
            }
        })?;
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        Ok(Adjacency {
            offsets: counts,
            rels,
            nodes,
        })
    }

    /// This adjacency with the edges of `changed` (sorted) read again from the store, for `n`
    /// nodes: the other nodes' rows are copied as they are.
    fn merged(
        &self,
        graph: &Graph,
        direction: Direction,
        changed: &[NodeId],
        n: usize,
    ) -> Result<Adjacency, EngineError> {
        let mut fresh = Vec::with_capacity(changed.len());
        for id in changed {
            let mut edges: Vec<(u32, u64)> = graph
                .neighbors(*id, direction, &[])?
                .into_iter()
                .map(|e| (e.rel.0, e.node.0))
                .collect();
            edges.sort_unstable();
            fresh.push(edges);
        }
        let dropped: usize = changed.iter().map(|id| self.range(*id).len()).sum();
        let added: usize = fresh.iter().map(Vec::len).sum();
        let total = self.nodes.len() - dropped + added;
        let mut adj = Adjacency {
            offsets: Vec::with_capacity(n + 1),
            rels: Vec::with_capacity(total),
            nodes: Vec::with_capacity(total),
        };
        adj.offsets.push(0);
        let mut next = changed.iter().zip(&fresh).peekable();
        for i in 0..n {
            match next.peek() {
                Some((id, edges)) if id.0 as usize == i => {
                    adj.rels.extend(edges.iter().map(|e| e.0));
                    adj.nodes.extend(edges.iter().map(|e| e.1));
                    next.next();
                }
                _ => {
                    let r = self.range(NodeId(i as u64));
                    adj.rels.extend_from_slice(&self.rels[r.clone()]);
                    adj.nodes.extend_from_slice(&self.nodes[r]);
                }
            }
            adj.offsets.push(adj.nodes.len() as u64);
        }
        Ok(adj)
    }

    fn range(&self, id: NodeId) -> std::ops::Range<usize> {
        let i = id.0 as usize;
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&s), Some(&e)) => s as usize..e as usize,
            _ => 0..0,
        }
    }

    fn edges(&self, id: NodeId) -> impl Iterator<Item = (RelId, NodeId)> + '_ {
        let r = self.range(id);
        self.rels[r.clone()]
            .iter()
            .zip(&self.nodes[r])
            .map(|(r, n)| (RelId(*r), NodeId(*n)))
    }

    /// How many of `id`'s edges have a relation `keep` accepts.
    fn count(&self, id: NodeId, keep: impl Fn(&RelId) -> bool) -> usize {
        self.rels[self.range(id)]
            .iter()
            .filter(|r| keep(&RelId(**r)))
            .count()
    }
}

impl NodeTable {
    /// Scans the graph. Vectors are loaded when the catalog's embedder is `embedder_id` and
    /// they fit in [`MAX_TABLE_VECTOR_BYTES`].
    pub fn build(graph: &Graph, embedder_id: &str) -> Result<NodeTable, EngineError> {
        Self::build_until(graph, embedder_id, &AtomicBool::new(false))
    }

    /// [`NodeTable::build`] that gives up (with `EngineError::Invalid`) soon after `stop` is
    /// set: a background build must not hold its database open long after its owner closed it.
    pub fn build_until(
        graph: &Graph,
        embedder_id: &str,
        stop: &AtomicBool,
    ) -> Result<NodeTable, EngineError> {
        let stopped = || {
            if stop.load(Ordering::Relaxed) {
                Err(EngineError::Invalid("node table build stopped".into()))
            } else {
                Ok(())
            }
        };
        let commits = graph.commits();
        let max_degree = store_max_degree(graph);
        let catalog = graph.catalog();
        let mut meta: Vec<Meta> = Vec::new();
        for (label, _) in catalog.labels() {
            for id in graph.label_nodes(label)? {
                let i = id.0 as usize;
                if meta.len() <= i {
                    meta.resize(i + 1, NO_NODE);
                }
                meta[i].label = label.0;
            }
        }
        let n = meta.len();
        stopped()?;
        graph.scan_degrees(|id, d| {
            if let Some(m) = meta.get_mut(id.0 as usize) {
                m.degree = u32::try_from((d.out + d.inc).max(0)).unwrap_or(u32::MAX);
            }
        })?;
        let log_max = log_max(max_degree);
        for m in &mut meta {
            m.connectivity = connectivity(m.degree, log_max);
        }
        stopped()?;
        let (mut dim, mut vectors) = (0, Rows::default());
        if let Some(def) = catalog.embedder().filter(|e| e.id == embedder_id) {
            let d = def.dim as usize;
            if n.saturating_mul(d) <= MAX_TABLE_VECTOR_BYTES {
                dim = d;
                vectors = Rows::zeroed(n, d)?;
                graph.scan_vectors(|id, v| {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let i = id.0 as usize;
                    // a fresh table's chunks are its own: writing a row never maps a copy
                    let row = vectors.row_mut(i).ok().flatten();
                    if let (Some(row), Some(m)) = (row, meta.get_mut(i)) {
                        if v.len() == d {
                            m.scale = quantize_into(v, row);
                        }
                    }
                })?;
            }
        }
        stopped()?;
        let out = Adjacency::build(graph, Direction::Out, n, stop)?;
        stopped()?;
        let inc = Adjacency::build(graph, Direction::In, n, stop)?;
        stopped()?;
        Ok(NodeTable {
            commits,
            meta,
            max_degree,
            embedder: embedder_id.to_owned(),
            dim,
            vectors,
            out,
            inc,
        })
    }

    /// A table as of now made from this one and the nodes in `changed` (every node whose record,
    /// vector or edges changed since this one's build, as the keeper collects them): the
    /// unchanged nodes' facts and edges are copied, the changed ones read from the store. What
    /// the keeper does when the overlay grows large, instead of a [`NodeTable::build`] that
    /// rescans the whole store (seconds at a million nodes, against a copy of the arrays).
    pub fn merged(
        &self,
        graph: &Graph,
        changed: impl IntoIterator<Item = NodeId>,
        stop: &AtomicBool,
    ) -> Result<NodeTable, EngineError> {
        let commits = graph.commits();
        let mut ids: Vec<NodeId> = changed.into_iter().collect();
        ids.sort_unstable();
        let n = ids
            .last()
            .map_or(0, |id| id.0 as usize + 1)
            .max(self.meta.len());
        let records = graph.nodes(&ids)?;
        let degrees = graph.degrees(&ids)?;
        // vectors are kept only while the catalog's embedder is still the table's
        let held = self.dim > 0
            && graph
                .catalog()
                .embedder()
                .is_some_and(|e| e.id == self.embedder);
        let vectors = if held {
            graph.vectors(&ids)?
        } else {
            vec![None; ids.len()]
        };
        if stop.load(Ordering::Relaxed) {
            return Err(EngineError::Invalid("node table merge stopped".into()));
        }
        let max_degree = store_max_degree(graph);
        let mut meta = self.meta.clone();
        meta.resize(n, NO_NODE);
        let (d, mut quantised) = (self.dim, self.vectors.clone());
        if held {
            quantised.resize(n)?;
        } else {
            quantised = Rows::default();
            meta.iter_mut().for_each(|m| m.scale = 0.0);
        }
        let mut row = vec![0i8; d];
        for (((id, rec), deg), v) in ids.iter().zip(records).zip(degrees).zip(vectors) {
            let i = id.0 as usize;
            meta[i] = match rec {
                None => NO_NODE,
                Some(rec) => Meta {
                    label: rec.label.0,
                    degree: u32::try_from((deg.out + deg.inc).max(0)).unwrap_or(u32::MAX),
                    connectivity: 0.0,
                    scale: 0.0,
                },
            };
            if held {
                row.fill(0);
                if let Some(v) = v.filter(|v| v.len() == d && meta[i].label != NO_LABEL) {
                    meta[i].scale = quantize_into(&v, &mut row);
                }
                // most changed nodes only gained an edge: leave their chunk shared
                if quantised.row(i) != Some(&row[..]) {
                    if let Some(r) = quantised.row_mut(i)? {
                        r.copy_from_slice(&row);
                    }
                }
            }
        }
        let log_max = log_max(max_degree);
        if max_degree == self.max_degree {
            for id in &ids {
                let m = &mut meta[id.0 as usize];
                m.connectivity = connectivity(m.degree, log_max);
            }
        } else {
            for m in &mut meta {
                m.connectivity = connectivity(m.degree, log_max);
            }
        }
        let out = self.out.merged(graph, Direction::Out, &ids, n)?;
        let inc = self.inc.merged(graph, Direction::In, &ids, n)?;
        Ok(NodeTable {
            commits,
            meta,
            max_degree,
            embedder: self.embedder.clone(),
            dim: if held { d } else { 0 },
            vectors: quantised,
            out,
            inc,
        })
    }

    /// Whether the table still describes `graph` (no commit since it was built).
    pub fn is_current(&self, graph: &Graph, embedder_id: &str) -> bool {
        self.commits == graph.commits() && self.embedder == embedder_id
    }

    /// The commit counter the table was built at.
    pub fn commits(&self) -> u64 {
        self.commits
    }

    /// The embedder whose vectors the table holds (or would hold).
    pub fn embedder(&self) -> &str {
        &self.embedder
    }

    /// Nodes the table has a slot for (the highest known id + 1).
    pub fn len(&self) -> usize {
        self.meta.len()
    }

    /// Whether the table knows no node.
    pub fn is_empty(&self) -> bool {
        self.meta.is_empty()
    }

    /// The node's label; `None` if the node did not exist when the table was built.
    pub fn label(&self, id: NodeId) -> Option<LabelId> {
        self.meta
            .get(id.0 as usize)
            .map(|m| m.label)
            .filter(|l| *l != NO_LABEL)
            .map(LabelId)
    }

    /// Total degree (out + in).
    pub fn degree(&self, id: NodeId) -> u32 {
        self.meta.get(id.0 as usize).map_or(0, |m| m.degree)
    }

    /// Appends to `out` the facts of each of `ids` (`None` for a node the table does not know).
    ///
    /// Scoring a hub's neighbours is a chain of cache misses: each node's record and vector
    /// sit at a random place in a large table. Touching every line of the records and rows of
    /// the next block of nodes (see `touch`) before scoring this block puts those misses in
    /// flight together.
    pub fn facts(&self, ids: &[NodeId], probe: &Probe, out: &mut Vec<Option<Facts>>) {
        self.facts_normalised(ids, probe, None, out);
    }

    /// [`NodeTable::facts`], with connectivity normalised by `log_max` when given (the store's
    /// largest degree moved since the build) instead of the build's.
    pub(crate) fn facts_normalised(
        &self,
        ids: &[NodeId],
        probe: &Probe,
        log_max: Option<f64>,
        out: &mut Vec<Option<Facts>>,
    ) {
        out.reserve(ids.len());
        let mut blocks = ids.chunks(TOUCH_BLOCK).peekable();
        if let Some(first) = blocks.peek() {
            std::hint::black_box(self.touch(first));
        }
        while let Some(block) = blocks.next() {
            if let Some(next) = blocks.peek() {
                std::hint::black_box(self.touch(next));
            }
            for id in block {
                let Some(m) = self.meta.get(id.0 as usize).filter(|m| m.label != NO_LABEL) else {
                    out.push(None);
                    continue;
                };
                let cosine = (m.scale > 0.0 && self.dim > 0)
                    .then(|| {
                        let v = self.vectors.row(id.0 as usize)?;
                        probe.cosine(v, m.scale)
                    })
                    .flatten();
                let connectivity = match log_max {
                    Some(l) => connectivity(m.degree, l),
                    None => m.connectivity,
                };
                out.push(Some(Facts {
                    label: LabelId(m.label),
                    connectivity: f64::from(connectivity),
                    cosine,
                }));
            }
        }
    }

    /// Reads one byte of every cache line `ids`' meta records and vector rows span, so that
    /// their misses are in flight together: a load the scoring loop depends on waits for its
    /// miss, and the instructions queued behind it (a few rows' dot products) stop further
    /// loads from issuing; a run of bare loads issues them all at once.
    fn touch(&self, ids: &[NodeId]) -> u32 {
        let mut t = 0u32;
        for id in ids {
            let i = id.0 as usize;
            if let Some(m) = self.meta.get(i) {
                t ^= m.label;
            }
            if let Some(r) = self.vectors.row(i) {
                // every 64th byte and the last: each line, however the row is aligned
                for b in r.iter().step_by(64).chain(r.last()) {
                    t ^= u32::from(*b as u8);
                }
            }
        }
        t
    }

    /// The store's largest total degree when the table was built (the normaliser).
    pub fn max_degree(&self) -> u32 {
        self.max_degree
    }

    /// Appends `node`'s edges in `direction` with a relation in `rels` (any when empty), as
    /// (relation, other node, followed against its direction).
    pub fn neighbors_into(
        &self,
        node: NodeId,
        direction: Direction,
        rels: &[RelId],
        out: &mut Vec<(NodeId, RelId, bool)>,
    ) {
        let keep = |r: &RelId| rels.is_empty() || rels.contains(r);
        if matches!(direction, Direction::Out | Direction::Both) {
            out.extend(
                self.out
                    .edges(node)
                    .filter(|(r, _)| keep(r))
                    .map(|(r, n)| (n, r, false)),
            );
        }
        if matches!(direction, Direction::In | Direction::Both) {
            out.extend(
                self.inc
                    .edges(node)
                    .filter(|(r, _)| keep(r))
                    .map(|(r, n)| (n, r, true)),
            );
        }
    }

    /// How many of `node`'s edges `neighbors_into` would list, without listing them.
    pub fn degree_through(&self, node: NodeId, direction: Direction, rels: &[RelId]) -> u32 {
        let keep = |r: &RelId| rels.is_empty() || rels.contains(r);
        let mut n = 0;
        if matches!(direction, Direction::Out | Direction::Both) {
            n += self.out.count(node, keep);
        }
        if matches!(direction, Direction::In | Direction::Both) {
            n += self.inc.count(node, keep);
        }
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// Whether `node` is known to the table (existed when it was built).
    pub fn knows(&self, node: NodeId) -> bool {
        self.label(node).is_some()
    }

    /// Whether vectors are held (otherwise callers read them from the store).
    pub fn holds_vectors(&self) -> bool {
        self.dim > 0
    }

    /// Cosine of `query` (a unit vector) and the node's stored vector, when held.
    pub fn cosine(&self, id: NodeId, query: &[f32]) -> Option<f32> {
        let (q, scale) = self.vector(id)?;
        Some(dot_f32_i8(query, q) * scale)
    }

    /// `query` quantised like the table's vectors, for [`NodeTable::facts`]: an integer dot
    /// product needs fewer instructions per byte, so more vector loads are in flight at once;
    /// quantising the goal too adds under 1% of error to the cosine.
    pub fn probe(&self, query: &[f32]) -> Probe {
        Probe::new(query)
    }

    fn vector(&self, id: NodeId) -> Option<(&[i8], f32)> {
        let i = id.0 as usize;
        let scale = self.meta.get(i).map(|m| m.scale).filter(|s| *s > 0.0)?;
        Some((self.vectors.row(i)?, scale))
    }
}

impl NodeSource for NodeTable {
    fn facts(
        &self,
        ids: &[NodeId],
        probe: &Probe,
        out: &mut Vec<Option<Facts>>,
    ) -> Result<(), EngineError> {
        NodeTable::facts(self, ids, probe, out);
        Ok(())
    }

    fn neighbors_into(
        &self,
        node: NodeId,
        direction: Direction,
        rels: &[RelId],
        out: &mut Vec<(NodeId, RelId, bool)>,
    ) -> Result<(), EngineError> {
        NodeTable::neighbors_into(self, node, direction, rels, out);
        Ok(())
    }

    fn degree_through(
        &self,
        node: NodeId,
        direction: Direction,
        rels: &[RelId],
    ) -> Result<u32, EngineError> {
        Ok(NodeTable::degree_through(self, node, direction, rels))
    }

    fn max_degree(&self) -> u32 {
        self.max_degree
    }

    fn cosines(&self, ids: &[NodeId], query: &[f32]) -> Result<Vec<Option<f32>>, EngineError> {
        Ok(ids.iter().map(|id| self.cosine(*id, query)).collect())
    }

    fn labels_into(
        &self,
        ids: &[NodeId],
        out: &mut Vec<Option<LabelId>>,
    ) -> Result<(), EngineError> {
        out.extend(ids.iter().map(|id| self.label(*id)));
        Ok(())
    }

    fn dense_ids(&self) -> Option<usize> {
        Some(self.meta.len())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_clone_shares_chunks_until_a_row_is_written() {
        let mut base = Rows::zeroed(3 * CHUNK_ROWS, 4).unwrap();
        if let Some(r) = base.row_mut(5).unwrap() {
            r.copy_from_slice(&[1, 2, 3, 4]);
        }
        let mut merged = base.clone();
        merged.resize(3 * CHUNK_ROWS + 10).unwrap();
        if let Some(r) = merged.row_mut(CHUNK_ROWS + 1).unwrap() {
            r.copy_from_slice(&[9, 9, 9, 9]);
        }
        // the written chunk was copied, the others are still the base's
        assert!(Arc::ptr_eq(&base.chunks[0], &merged.chunks[0]));
        assert!(!Arc::ptr_eq(&base.chunks[1], &merged.chunks[1]));
        assert!(Arc::ptr_eq(&base.chunks[2], &merged.chunks[2]));
        assert_eq!(merged.chunks.len(), 4);
        assert_eq!(base.row(CHUNK_ROWS + 1), Some(&[0i8; 4][..]));
        assert_eq!(merged.row(CHUNK_ROWS + 1), Some(&[9i8; 4][..]));
        assert_eq!(merged.row(5), Some(&[1i8, 2, 3, 4][..]));
        assert_eq!(merged.row(3 * CHUNK_ROWS + 9), Some(&[0i8; 4][..]));
        assert_eq!(merged.row(3 * CHUNK_ROWS + 10), None);
        assert_eq!(base.row(3 * CHUNK_ROWS), None);
        merged.resize(2).unwrap();
        assert_eq!((merged.chunks.len(), merged.row(2)), (1, None));
        merged.resize(6).unwrap();
        assert_eq!(
            merged.row(5),
            Some(&[0i8; 4][..]),
            "a row cut off comes back zero"
        );
        assert_eq!(
            base.row(5),
            Some(&[1i8, 2, 3, 4][..]),
            "the base keeps its own"
        );
    }
}
