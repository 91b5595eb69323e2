//! In-memory HNSW index over node vectors, for entry-node lookup (DESIGN.md §5; layout in
//! docs/VECTOR.md).
//!
//! RocksDB's `vector` column family stays the source of truth: this index is a cache of it that can be
//! saved next to the database with a *stamp* (the store's count/sequence of vector writes plus the
//! embedder id) and is only trusted on load when the stamp matches. A missing, stale or damaged file
//! is reported as an error for which [`VectorError::needs_rebuild`] is true, so the store rebuilds
//! from the column family instead of answering from a wrong index.
//!
//! Why a hand-written HNSW rather than a crate: `hnsw_rs` 0.3.5 and `usearch` 2.26 both missed the
//! bar (queries/s ≥ 0.5× hnswlib at recall@10 ≥ 0.95) on the benchmark in `benches/vector/`; see
//! docs/VECTOR.md for the numbers. This one also filters labels and tombstones during the walk and
//! owns its file format.

mod delta;
mod exact;
mod graph;
mod persist;
mod store;

pub use cairn_embed::dot;
pub use persist::{file_seq, index_path, FileIndex, Stamp, FORMAT_VERSION, INDEX_FILE_NAME};
pub use store::{BuildReport, IndexGuard, Refresh, StoreError, VectorStore, EXACT_MAX, SEARCH_EF};

use cairn_storage_format::{LabelId, NodeId};
use exact::Scored;
use graph::{random_level, Graph};
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Why an index operation failed.
#[derive(Debug, thiserror::Error)]
pub enum VectorError {
    /// A vector's length differs from the index dimension.
    #[error("vector has {got} components, the index has {expected}")]
    Dimension {
        /// The index dimension.
        expected: usize,
        /// The vector's length.
        got: usize,
    },
    /// A vector is zero or contains NaN/infinity, so it has no direction.
    #[error("vector for {0} is zero or not finite")]
    Degenerate(String),
    /// No index file exists (first open, or a crash before the first save).
    #[error("vector index file {0} is missing")]
    Missing(PathBuf),
    /// The file was written for other data (older stamp, other embedder, other dimension).
    #[error("vector index file {path} is stale: {reason}")]
    Stale {
        /// The file.
        path: PathBuf,
        /// What differs.
        reason: String,
    },
    /// The file is truncated, damaged, or not an index file.
    #[error("vector index file {path} is damaged: {reason}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What was found wrong.
        reason: String,
    },
    /// A block of the file's level-0 links or vectors does not match its checksum (found when
    /// a search first reads it): the file was damaged after it was written.
    #[error("vector index file {path} is damaged: the {section} block at byte {offset} fails its checksum")]
    CorruptBlock {
        /// The file.
        path: PathBuf,
        /// `links` or `vectors`.
        section: &'static str,
        /// Where the block starts in the file.
        offset: u64,
    },
    /// Reading or writing the file failed.
    #[error("vector index file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl VectorError {
    /// True when the caller should rebuild the index from the `vector` column family (the file is
    /// missing, stale or damaged), false for errors that a rebuild would not fix.
    pub fn needs_rebuild(&self) -> bool {
        matches!(
            self,
            VectorError::Missing(_)
                | VectorError::Stale { .. }
                | VectorError::Corrupt { .. }
                | VectorError::CorruptBlock { .. }
        )
    }
}

/// Tuning knobs. The defaults are the ones benchmarked in docs/VECTOR.md.
#[derive(Debug, Clone, PartialEq)]
pub struct HnswParams {
    /// Links per node on upper levels (level 0 keeps `2 * m`); clamped to 2..=32.
    pub m: usize,
    /// Beam width while inserting; higher builds slower and finds better links.
    pub ef_construction: usize,
    /// Seed for node levels, so rebuilding the same data gives the same levels.
    pub seed: u64,
    /// Share of tombstoned slots above which a delete compacts (rebuilds) the graph.
    pub rebuild_tombstone_ratio: f64,
    /// A label-filtered search whose matching live nodes number at most this scans them exactly;
    /// walking the graph for a rare label visits most of it anyway.
    pub exact_filter_max: usize,
    /// Threads for builds; 0 means all cores.
    pub threads: usize,
}

impl Default for HnswParams {
    fn default() -> Self {
        HnswParams {
            m: 16,
            ef_construction: 200,
            seed: 0x00c0_ffee,
            rebuild_tombstone_ratio: 0.2,
            exact_filter_max: 2_000,
            threads: 0,
        }
    }
}

/// One search result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// The node.
    pub node: NodeId,
    /// Its label.
    pub label: LabelId,
    /// Cosine similarity to the query, in [-1, 1].
    pub score: f32,
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    node: NodeId,
    label: LabelId,
    deleted: bool,
}

/// HNSW index of (node, label, unit vector).
///
/// Reads (`search*`) take `&self` and may run concurrently; writes take `&mut self` (the store wraps
/// the index in a lock). Upserting a node tombstones its old slot; tombstones are skipped at search and
/// removed by [`compact`](Self::compact), which deletes trigger past
/// [`HnswParams::rebuild_tombstone_ratio`].
#[derive(Debug)]
pub struct VectorIndex {
    params: HnswParams,
    dim: usize,
    slots: Vec<Slot>,
    /// Slot-major unit vectors, `dim` per slot.
    vectors: Vec<f32>,
    graph: Graph,
    live: HashMap<NodeId, u32>,
    /// Live slots of each label, for exact scans of selective filters.
    by_label: HashMap<LabelId, HashSet<u32>>,
    tombstones: usize,
    /// The last [`RECENT_MAX`] slots inserted one by one since the index was built or loaded:
    /// scored exactly beside every graph walk (and offered as link candidates to the next
    /// insert), so a search always sees a recent write. A walk from the old data can miss a
    /// new node whose own insert walk found only far neighbours: new records that resemble each
    /// other more than anything indexed (a new topic, a batch of similar titles) are linked to
    /// each other only if the insert finds them, and the graph walk alone did not (measured:
    /// the 639th of a stream of similar titles on a 100k graph was unreachable).
    recent: VecDeque<u32>,
    /// Vectors scored by searches (walks, recent scans, exact scans) since built or loaded:
    /// the work that explains a search's latency.
    scored: AtomicU64,
}

/// How many one-by-one inserts stay scored exactly at search: 1,024 dot products (~40 µs at
/// 384 dimensions) bound the cost a long-running writer adds to each search.
pub const RECENT_MAX: usize = 1024;

impl VectorIndex {
    /// An empty index for `dim`-dimensional vectors.
    pub fn new(dim: usize, params: HnswParams) -> Self {
        let graph = Graph::new(dim, params.m, params.ef_construction);
        VectorIndex {
            params,
            dim,
            slots: Vec::new(),
            vectors: Vec::new(),
            graph,
            live: HashMap::new(),
            by_label: HashMap::new(),
            tombstones: 0,
            recent: VecDeque::new(),
            scored: AtomicU64::new(0),
        }
    }

    /// Builds an index from all items at once, linking on all cores (much faster than inserting one by
    /// one). A node listed twice keeps its last vector.
    pub fn build(
        dim: usize,
        params: HnswParams,
        items: impl IntoIterator<Item = (NodeId, LabelId, Vec<f32>)>,
    ) -> Result<Self, VectorError> {
        let mut idx = VectorIndex::new(dim, params);
        let first = idx.slots.len();
        let items = items.into_iter();
        idx.reserve(items.size_hint().0);
        for (node, label, v) in items {
            idx.add_slot(node, label, &v)?;
        }
        idx.link_parallel(first);
        Ok(idx)
    }

    /// Room for `more` slots: a build then fills its arrays without regrowing them (a regrowth
    /// holds the old and the new array at once, up to 1.5x the vectors' memory).
    fn reserve(&mut self, more: usize) {
        self.slots.reserve(more);
        self.vectors.reserve(more * self.dim);
        self.live.reserve(more);
        self.graph.reserve(more);
    }

    /// Vector dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The parameters in force.
    pub fn params(&self) -> &HnswParams {
        &self.params
    }

    /// Number of live (not deleted) nodes.
    pub fn len(&self) -> usize {
        self.live.len()
    }

    /// True when no live node is indexed.
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }

    /// Vectors scored by all searches of this index so far; the difference across one search
    /// is that search's work.
    pub fn scored(&self) -> u64 {
        self.scored.load(Ordering::Relaxed)
    }

    /// Number of tombstoned slots awaiting compaction.
    pub fn tombstones(&self) -> usize {
        self.tombstones
    }

    /// True if `node` is indexed and not deleted.
    pub fn contains(&self, node: NodeId) -> bool {
        self.live.contains_key(&node)
    }

    /// Live nodes carrying `label`.
    pub fn label_count(&self, label: LabelId) -> usize {
        self.by_label.get(&label).map_or(0, HashSet::len)
    }

    /// Inserts or replaces `node`'s vector (normalised here). Linking is incremental, single-threaded.
    /// A replaced vector's slot is tombstoned, and counts towards compaction like a delete.
    pub fn insert(
        &mut self,
        node: NodeId,
        label: LabelId,
        vector: &[f32],
    ) -> Result<(), VectorError> {
        let slot = self.add_slot(node, label, vector)?;
        let recent: Vec<u32> = self
            .recent
            .iter()
            .copied()
            .filter(|r| self.slots.get(*r as usize).is_some_and(|x| !x.deleted))
            .collect();
        self.graph.insert_near(&self.vectors, slot, &recent);
        self.recent.push_back(slot);
        if self.recent.len() > RECENT_MAX {
            self.recent.pop_front();
        }
        self.compact_if_due();
        Ok(())
    }

    /// True if `node` is live with `label` and (once normalised) exactly `vector`: re-applying
    /// an unchanged vector is then skipped instead of tombstoning a slot.
    pub fn holds(&self, node: NodeId, label: LabelId, vector: &[f32]) -> bool {
        let Some(&slot) = self.live.get(&node) else {
            return false;
        };
        let Ok(v) = normalised(self.dim, vector, "") else {
            return false;
        };
        let i = slot as usize * self.dim;
        self.slots
            .get(slot as usize)
            .is_some_and(|s| s.label == label)
            && self.vectors.get(i..i + self.dim) == Some(v.as_slice())
    }

    fn compact_if_due(&mut self) {
        let total = self.slots.len().max(1) as f64;
        if self.tombstones >= 64
            && self.tombstones as f64 / total > self.params.rebuild_tombstone_ratio
        {
            self.compact();
        }
    }

    /// Deletes `node`; returns whether it was present. Compacts when tombstones pass the threshold.
    pub fn delete(&mut self, node: NodeId) -> bool {
        let Some(slot) = self.live.remove(&node) else {
            return false;
        };
        self.tombstone(slot);
        self.compact_if_due();
        true
    }

    /// Rebuilds the graph from live slots only, dropping tombstones (parallel).
    pub fn compact(&mut self) {
        let mut fresh = VectorIndex::new(self.dim, self.params.clone());
        fresh.reserve(self.live.len());
        for (i, s) in self.slots.iter().enumerate() {
            if !s.deleted {
                let v = &self.vectors[i * self.dim..(i + 1) * self.dim];
                // vectors here are already validated and normalised
                let slot = fresh.slots.len() as u32;
                fresh.push_valid(s.node, s.label, v, slot);
            }
        }
        fresh.link_parallel(0);
        *self = fresh;
    }

    /// Approximate top-`k` by cosine. `ef` (≥ k) trades speed for recall; 64–128 is a good range.
    pub fn search(&self, query: &[f32], k: usize, ef: usize) -> Result<Vec<Hit>, VectorError> {
        let q = self.query(query)?;
        let found = answer(
            self,
            &|ef, allow| self.walk(&q, k, ef, allow),
            &q,
            k,
            ef,
            None,
        )?;
        Ok(self.hits(found))
    }

    /// Approximate top-`k` among nodes whose label is in `labels`. Returns `min(k, matching)` hits:
    /// rare labels are scanned exactly, and a graph walk that comes back short is redone exactly.
    pub fn search_labels(
        &self,
        query: &[f32],
        k: usize,
        ef: usize,
        labels: &[LabelId],
    ) -> Result<Vec<Hit>, VectorError> {
        let q = self.query(query)?;
        let walk = |ef, allow: &dyn Fn(u32) -> bool| self.walk(&q, k, ef, allow);
        let found = answer(self, &walk, &q, k, ef, Some(labels))?;
        Ok(self.hits(found))
    }

    /// The graph walk over the vectors in memory (compact rows), its top `k` rescored exactly.
    fn walk(&self, q: &[f32], k: usize, ef: usize, allow: &dyn Fn(u32) -> bool) -> Vec<Scored> {
        let mut work = 0;
        let found = self.graph.search(&self.vectors, q, k, ef, allow, &mut work);
        self.scored.fetch_add(work, Ordering::Relaxed);
        found
    }

    /// Exact top-`k` by brute force (optionally among `labels`): the ground truth for recall.
    pub fn exact_search(
        &self,
        query: &[f32],
        k: usize,
        labels: Option<&[LabelId]>,
    ) -> Result<Vec<Hit>, VectorError> {
        let q = self.query(query)?;
        Ok(self.hits(self.exact(&q, k, labels)))
    }

    /// Iterates over live `(node, label, vector)`, e.g. to verify the index against the store.
    pub fn iter(&self) -> impl Iterator<Item = (NodeId, LabelId, &[f32])> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.deleted)
            .map(|(i, s)| {
                (
                    s.node,
                    s.label,
                    &self.vectors[i * self.dim..(i + 1) * self.dim],
                )
            })
    }

    fn exact(&self, q: &[f32], k: usize, labels: Option<&[LabelId]>) -> Vec<Scored> {
        let vec_of = |s: u32| {
            let i = s as usize * self.dim;
            (s, &self.vectors[i..i + self.dim])
        };
        let scanned = match labels {
            Some(ls) => ls
                .iter()
                .collect::<HashSet<_>>()
                .into_iter()
                .filter_map(|l| self.by_label.get(l).map(HashSet::len))
                .sum(),
            None => self.live.len(),
        };
        self.scored.fetch_add(scanned as u64, Ordering::Relaxed);
        match labels {
            Some(ls) => {
                let uniq: HashSet<&LabelId> = ls.iter().collect();
                let slots = uniq
                    .into_iter()
                    .filter_map(|l| self.by_label.get(l))
                    .flatten()
                    .map(|s| vec_of(*s));
                exact::top_k(q, k, slots)
            }
            None => exact::top_k(q, k, self.live.values().map(|s| vec_of(*s))),
        }
    }

    /// `found` (best first) with the [recent](Self::recent) slots `allow` accepts merged in.
    fn with_recent(
        &self,
        q: &[f32],
        mut found: Vec<Scored>,
        allow: &dyn Fn(u32) -> bool,
    ) -> Vec<Scored> {
        if self.recent.is_empty() {
            return found;
        }
        let seen: HashSet<u32> = found.iter().map(|f| f.slot).collect();
        let mut work = 0;
        for &r in &self.recent {
            if allow(r) && !seen.contains(&r) {
                work += 1;
                let i = r as usize * self.dim;
                if let Some(v) = self.vectors.get(i..i + self.dim) {
                    found.push(Scored {
                        score: cairn_embed::dot(q, v),
                        slot: r,
                    });
                }
            }
        }
        self.scored.fetch_add(work, Ordering::Relaxed);
        found.sort_by(|a, b| b.cmp(a));
        found
    }

    fn hits(&self, found: impl IntoIterator<Item = Scored>) -> Vec<Hit> {
        hits(self, found)
    }

    /// An index of loaded parts: the live map, label sets and tombstone count follow from
    /// `slots`. `None` when a node is live in two slots.
    fn from_parts(
        params: HnswParams,
        dim: usize,
        slots: Vec<Slot>,
        vectors: Vec<f32>,
        mut graph: Graph,
    ) -> Option<Self> {
        graph.encode_all(&vectors);
        let mut live = HashMap::with_capacity(slots.len());
        let mut by_label: HashMap<LabelId, HashSet<u32>> = HashMap::new();
        let mut tombstones = 0;
        for (i, s) in slots.iter().enumerate() {
            if s.deleted {
                tombstones += 1;
            } else if live.insert(s.node, i as u32).is_some() {
                return None;
            } else {
                by_label.entry(s.label).or_default().insert(i as u32);
            }
        }
        Some(VectorIndex {
            params,
            dim,
            slots,
            vectors,
            graph,
            live,
            by_label,
            tombstones,
            recent: Default::default(),
            scored: AtomicU64::new(0),
        })
    }

    fn query(&self, v: &[f32]) -> Result<Vec<f32>, VectorError> {
        normalised(self.dim, v, "query")
    }

    /// Validates, normalises and appends a slot (tombstoning any older slot of the node); unlinked.
    fn add_slot(&mut self, node: NodeId, label: LabelId, v: &[f32]) -> Result<u32, VectorError> {
        let v = normalised(self.dim, v, &node.to_string())?;
        if let Some(old) = self.live.remove(&node) {
            self.tombstone(old);
        }
        let slot = u32::try_from(self.slots.len())
            .map_err(|_| VectorError::Degenerate("index full".into()))?;
        self.push_valid(node, label, &v, slot);
        Ok(slot)
    }

    fn push_valid(&mut self, node: NodeId, label: LabelId, v: &[f32], slot: u32) {
        self.slots.push(Slot {
            node,
            label,
            deleted: false,
        });
        self.vectors.extend_from_slice(v);
        self.graph
            .push_slot(random_level(self.params.seed, slot, self.params.m));
        self.graph.encode(v);
        self.live.insert(node, slot);
        self.by_label.entry(label).or_default().insert(slot);
    }

    fn tombstone(&mut self, slot: u32) {
        if let Some(s) = self.slots.get_mut(slot as usize) {
            if !s.deleted {
                s.deleted = true;
                self.tombstones += 1;
                if let Some(set) = self.by_label.get_mut(&s.label) {
                    set.remove(&slot);
                }
            }
        }
    }

    /// Links slots `first..` on all cores. Slots are handed out in order through an atomic counter; the
    /// first is linked alone so the others find an entry point.
    fn link_parallel(&mut self, first: usize) {
        let n = self.slots.len();
        if first >= n {
            return;
        }
        let graph = &self.graph;
        let vectors = &self.vectors;
        let mut start = first;
        if graph.entry.read().is_none() {
            graph.insert(vectors, first as u32);
            start += 1;
        }
        let threads = match self.params.threads {
            0 => std::thread::available_parallelism().map_or(1, |t| t.get()),
            t => t,
        }
        .min(n - start)
        .max(1);
        let next = AtomicUsize::new(start);
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| loop {
                    let s = next.fetch_add(1, Ordering::Relaxed);
                    if s >= n {
                        break;
                    }
                    graph.insert(vectors, s as u32);
                });
            }
        });
    }
}

/// What the search policy ([`answer`]) reads beside the walk: the slots and an exact scan,
/// of an index in memory or of its file.
pub(crate) trait Slots {
    fn slot(&self, s: u32) -> Option<&Slot>;
    /// Live slots.
    fn live(&self) -> usize;
    /// Whether no slot is a tombstone: a walk then needs no slot record to filter.
    fn all_live(&self) -> bool;
    /// Live slots of `label`.
    fn label_count(&self, label: LabelId) -> usize;
    /// A label filter matching at most this many live slots is answered exactly.
    fn exact_filter_max(&self) -> usize;
    /// Exact top-`k` of the live slots (among `labels`, if given), best first.
    fn exact(
        &self,
        q: &[f32],
        k: usize,
        labels: Option<&[LabelId]>,
    ) -> Result<Vec<Scored>, VectorError>;
    /// `found` with slots the walk may not reach merged in (best first).
    fn with_recent(
        &self,
        _q: &[f32],
        found: Vec<Scored>,
        _allow: &dyn Fn(u32) -> bool,
    ) -> Vec<Scored> {
        found
    }
}

impl Slots for VectorIndex {
    fn slot(&self, s: u32) -> Option<&Slot> {
        self.slots.get(s as usize)
    }
    fn live(&self) -> usize {
        self.len()
    }
    fn all_live(&self) -> bool {
        self.tombstones == 0
    }
    fn label_count(&self, label: LabelId) -> usize {
        VectorIndex::label_count(self, label)
    }
    fn exact_filter_max(&self) -> usize {
        self.params.exact_filter_max
    }
    fn exact(
        &self,
        q: &[f32],
        k: usize,
        labels: Option<&[LabelId]>,
    ) -> Result<Vec<Scored>, VectorError> {
        Ok(VectorIndex::exact(self, q, k, labels))
    }
    fn with_recent(
        &self,
        q: &[f32],
        found: Vec<Scored>,
        allow: &dyn Fn(u32) -> bool,
    ) -> Vec<Scored> {
        VectorIndex::with_recent(self, q, found, allow)
    }
}

/// A graph walk of width `ef` among the slots a filter accepts, best first: at least the top `k`
/// the search asks for (the walk in memory returns only those, rescored exactly).
pub(crate) type WalkFn<'a> = dyn Fn(usize, &dyn Fn(u32) -> bool) -> Vec<Scored> + 'a;

/// The search policy, one for the index in memory and its file: top-`k` for the unit query `q`
/// (among `labels`, if given). A filter matching few slots is scanned exactly (a walk for a
/// rare label visits most of the graph anyway), and a walk that comes back with fewer than
/// `min(k, matching)` hits is redone exactly: never fewer than k when k exist.
pub(crate) fn answer<S: Slots>(
    src: &S,
    walk: &WalkFn<'_>,
    q: &[f32],
    k: usize,
    ef: usize,
    labels: Option<&[LabelId]>,
) -> Result<Vec<Scored>, VectorError> {
    let want = match labels {
        None => k.min(src.live()),
        Some(ls) => {
            let matching: usize = ls
                .iter()
                .collect::<HashSet<_>>()
                .iter()
                .map(|l| src.label_count(**l))
                .sum();
            if k > 0 && matching > 0 && matching <= src.exact_filter_max().max(k) {
                return src.exact(q, k, labels);
            }
            k.min(matching)
        }
    };
    if want == 0 {
        return Ok(Vec::new());
    }
    let allow = |s: u32| {
        src.slot(s)
            .is_some_and(|x| !x.deleted && labels.is_none_or(|l| l.contains(&x.label)))
    };
    // without tombstones or a filter every slot is allowed: the walk then reads no slot record
    // (another cache miss per candidate)
    let found = if labels.is_none() && src.all_live() {
        walk(ef.max(k), &|_| true)
    } else {
        walk(ef.max(k), &allow)
    };
    let found = src.with_recent(q, found, &allow);
    if found.len() < want {
        // only tombstones or a filter cut off part of the graph: never answer short
        return src.exact(q, k, labels);
    }
    Ok(found.into_iter().take(k).collect())
}

/// The hits of `found` (slots of `src`), in order.
fn hits<S: Slots>(src: &S, found: impl IntoIterator<Item = Scored>) -> Vec<Hit> {
    found
        .into_iter()
        .filter_map(|c| {
            let s = src.slot(c.slot)?;
            Some(Hit {
                node: s.node,
                label: s.label,
                score: c.score,
            })
        })
        .collect()
}

/// Checks the length and returns the unit-length copy of `v`.
pub(crate) fn normalised(dim: usize, v: &[f32], what: &str) -> Result<Vec<f32>, VectorError> {
    if v.len() != dim {
        return Err(VectorError::Dimension {
            expected: dim,
            got: v.len(),
        });
    }
    let mut out = v.to_vec();
    let norm = out
        .iter()
        .map(|x| f64::from(*x) * f64::from(*x))
        .sum::<f64>()
        .sqrt();
    if !norm.is_finite() || norm <= f64::MIN_POSITIVE {
        return Err(VectorError::Degenerate(what.to_owned()));
    }
    let inv = (1.0 / norm) as f32;
    out.iter_mut().for_each(|x| *x *= inv);
    Ok(out)
}
