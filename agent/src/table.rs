//! Per-node facts the executor needs for every neighbour it scores — label, degree, vector —
//! and the adjacency it walks, held in memory (compressed sparse rows) so that listing a hub's
//! thousand edges and scoring a neighbour are array reads and one dot product, not RocksDB
//! iterator steps and three lookups. Built by scanning the store once; valid while the store's sequence
//! number is unchanged (the facade rebuilds it after writes).

use cairn_engine::{Direction, EngineError, Graph, GraphRead};
use cairn_storage_format::{LabelId, NodeId, RelId};

/// Vectors are kept in memory only up to this many bytes (one byte per component); beyond,
/// the executor reads them from RocksDB per query.
pub const MAX_TABLE_VECTOR_BYTES: usize = 4 << 30;

const NO_LABEL: u32 = u32::MAX;

/// Labels, degrees and (optionally) vectors of every node, indexed by node id.
#[derive(Debug)]
pub struct NodeTable {
    sequence: u64,
    labels: Vec<u32>,
    degrees: Vec<u32>,
    max_degree: u32,
    /// The embedder the vectors came from, and their dimension; `dim` 0 when not held.
    embedder: String,
    dim: usize,
    /// Vectors quantised to i8 with one scale per vector (`x ≈ q · scale`). Scoring a hub's
    /// thousands of neighbours is bound by memory traffic, not arithmetic: a quarter of the
    /// bytes of f32 makes it about that much faster, and the cosine error (< 1%) does not
    /// change which neighbours are promising.
    vectors: Vec<i8>,
    scales: Vec<f32>,
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
    fn build(graph: &Graph, direction: Direction, n: usize) -> Result<Adjacency, EngineError> {
        let mut counts = vec![0u64; n + 1];
        let (mut rels, mut nodes) = (Vec::new(), Vec::new());
        graph.scan_edges(direction, |a, rel, b| {
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

    fn edges(&self, id: NodeId) -> impl Iterator<Item = (RelId, NodeId)> + '_ {
        let i = id.0 as usize;
        let (start, end) = match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&s), Some(&e)) => (s as usize, e as usize),
            _ => (0, 0),
        };
        self.rels[start..end]
            .iter()
            .zip(&self.nodes[start..end])
            .map(|(r, n)| (RelId(*r), NodeId(*n)))
    }
}

impl NodeTable {
    /// Scans the graph. Vectors are loaded when the catalog's embedder is `embedder_id` and
    /// they fit in [`MAX_TABLE_VECTOR_BYTES`].
    pub fn build(graph: &Graph, embedder_id: &str) -> Result<NodeTable, EngineError> {
        let sequence = graph.sequence();
        let catalog = graph.catalog();
        let mut labels: Vec<u32> = Vec::new();
        for (label, _) in catalog.labels() {
            for id in graph.label_nodes(label)? {
                let i = id.0 as usize;
                if labels.len() <= i {
                    labels.resize(i + 1, NO_LABEL);
                }
                labels[i] = label.0;
            }
        }
        let n = labels.len();
        let mut degrees = vec![0u32; n];
        let mut max_degree = 0u32;
        graph.scan_degrees(|id, d| {
            if let Some(slot) = degrees.get_mut(id.0 as usize) {
                *slot = u32::try_from((d.out + d.inc).max(0)).unwrap_or(u32::MAX);
                max_degree = max_degree.max(*slot);
            }
        })?;
        let (mut dim, mut vectors, mut scales) = (0, Vec::new(), Vec::new());
        if let Some(def) = catalog.embedder().filter(|e| e.id == embedder_id) {
            let d = def.dim as usize;
            if n.saturating_mul(d) <= MAX_TABLE_VECTOR_BYTES {
                dim = d;
                vectors = vec![0i8; n * d];
                // Scale 0 marks "no vector".
                scales = vec![0f32; n];
                graph.scan_vectors(|id, v| {
                    let i = id.0 as usize;
                    if i < n && v.len() == d {
                        let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
                        if max > 0.0 && max.is_finite() {
                            let scale = max / 127.0;
                            for (q, x) in vectors[i * d..(i + 1) * d].iter_mut().zip(v) {
                                *q = (x / scale).round().clamp(-127.0, 127.0) as i8;
                            }
                            scales[i] = scale;
                        }
                    }
                })?;
            }
        }
        let out = Adjacency::build(graph, Direction::Out, n)?;
        let inc = Adjacency::build(graph, Direction::In, n)?;
        Ok(NodeTable {
            sequence,
            labels,
            degrees,
            max_degree,
            embedder: embedder_id.to_owned(),
            dim,
            vectors,
            scales,
            out,
            inc,
        })
    }

    /// Whether the table still describes `graph` (no write since it was built).
    pub fn is_current(&self, graph: &Graph, embedder_id: &str) -> bool {
        self.sequence == graph.sequence() && self.embedder == embedder_id
    }

    /// The node's label; `None` if the node did not exist when the table was built.
    pub fn label(&self, id: NodeId) -> Option<LabelId> {
        self.labels
            .get(id.0 as usize)
            .copied()
            .filter(|l| *l != NO_LABEL)
            .map(LabelId)
    }

    /// Total degree (out + in).
    pub fn degree(&self, id: NodeId) -> u32 {
        self.degrees.get(id.0 as usize).copied().unwrap_or(0)
    }

    /// The largest total degree in the graph.
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
        let i = id.0 as usize;
        let scale = self.scales.get(i).copied().filter(|s| *s > 0.0)?;
        let q = self.vectors.get(i * self.dim..(i + 1) * self.dim)?;
        Some(dot_i8(query, q) * scale)
    }
}

/// `Σ a[i]·b[i]` for an f32 and an i8 vector, in 16 independent lanes so that it vectorises.
fn dot_i8(a: &[f32], b: &[i8]) -> f32 {
    let mut acc = [0f32; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * f32::from(*y))
        .sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..16 {
            acc[k] += x[k] * f32::from(y[k]);
        }
    }
    acc.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::dot_i8;

    #[test]
    fn quantised_dot_matches_float_dot() {
        let a: Vec<f32> = (0..40).map(|i| ((i as f32) * 0.37).sin()).collect();
        let b: Vec<i8> = (0..40)
            .map(|i| (((i as f32) * 0.91).cos() * 127.0) as i8)
            .collect();
        let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * f32::from(*y)).sum();
        assert!((dot_i8(&a, &b) - exact).abs() < 1e-3);
    }
}
