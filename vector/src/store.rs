//! Keeps a database's HNSW index in step with its `vector` column family (docs/VECTOR.md,
//! "Integration").
//!
//! The stamp is a 64-bit fingerprint of the indexed content — every (node, label, vector bits) in
//! id order — not `Graph::sequence()`: the sequence moves on every write (an edge, a property), which
//! would throw away a 100k-node index (minutes to rebuild) for writes that leave every vector as it
//! was. The fingerprint changes exactly when an indexed vector or label changes, however the write
//! was made (facade, `Graph::writer`, import, another process), and costs one scan of the column
//! family — a second for 100k × 384, far below a rebuild. The sequence is only a fast path: while it
//! is unchanged nothing is rescanned.

use super::{index_path, Hit, HnswParams, Stamp, VectorError, VectorIndex};
use cairn_storage_format::{LabelId, NodeId};
use cairn_store::{EngineError, Graph, GraphRead};
use parking_lot::{MappedRwLockReadGuard, RwLock, RwLockReadGuard};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Beam width of index searches: recall@10 ≥ 0.999 at this width on the benchmark vectors.
pub const SEARCH_EF: usize = 128;
/// Indexes with at most this many live vectors answer by exact scan.
pub const EXACT_MAX: usize = 2_000;

/// Why the index could not be brought up to date.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error(transparent)]
    Vector(#[from] VectorError),
}

/// What [`VectorStore::refresh`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refresh {
    /// Nothing was written since the last check.
    Current,
    /// The saved file matched the database and was loaded.
    Loaded,
    /// The file was missing, stale or damaged (or a rebuild was asked for): built from the column family.
    Built,
    /// Changed vectors were applied to the loaded index in place.
    Updated { upserted: usize, deleted: usize },
    /// The index cannot answer for this database; callers scan exactly instead. Says why.
    Unavailable(String),
}

/// Outcome of [`VectorStore::build`].
#[derive(Debug, Clone)]
pub struct BuildReport {
    /// Live vectors indexed.
    pub count: usize,
    /// Time to scan, build and save.
    pub elapsed: Duration,
    /// The saved file.
    pub path: PathBuf,
}

#[derive(Debug)]
struct Loaded {
    index: VectorIndex,
    /// `Graph::sequence()` read before the scan that produced `fingerprint`.
    seq: u64,
    fingerprint: u64,
    embedder_id: String,
    /// Per-node (label, hash of the vector bits), to find what changed on the next scan.
    nodes: HashMap<NodeId, (LabelId, u64)>,
    /// Changed since the last save (saved on drop).
    dirty: bool,
}

#[derive(Debug)]
enum State {
    Empty,
    Ready(Box<Loaded>),
    /// No usable index as of `seq` (no vectors, another embedder, nodes without vectors).
    Unavailable {
        seq: u64,
        why: String,
    },
}

/// The HNSW index of one database directory, loaded or built on first use and kept current.
#[derive(Debug)]
pub struct VectorStore {
    path: PathBuf,
    params: HnswParams,
    state: RwLock<State>,
    /// Whether builds and changes are saved to the file; off beside a writer (see
    /// [`VectorStore::read_only`]).
    persist: bool,
}

/// A read handle on the current index (holds a read lock: drop it before writing).
pub type IndexGuard<'a> = MappedRwLockReadGuard<'a, VectorIndex>;

/// One scan of the store: what the index must contain.
struct Scan {
    fingerprint: u64,
    nodes: HashMap<NodeId, (LabelId, u64)>,
    /// Vectors of nodes that are new or changed (all of them when `keep_all`).
    vectors: Vec<(NodeId, LabelId, Vec<f32>)>,
    /// Nodes of the graph (any label), to tell whether every node has a vector.
    total_nodes: usize,
}

impl VectorStore {
    /// The index of the database in `db_dir` (at [`index_path`]); nothing is read yet.
    pub fn new(db_dir: &Path) -> Self {
        VectorStore {
            path: index_path(db_dir),
            params: HnswParams::default(),
            state: RwLock::new(State::Empty),
            persist: true,
        }
    }

    /// The index of a database opened read-only beside its writer: it loads the file when the
    /// file matches what the reader sees, and otherwise builds or updates the index in memory
    /// only. The file belongs to the writer, which may save it at any time; a reader that
    /// wrote it too could replace a newer index with one of an older view.
    pub fn read_only(db_dir: &Path) -> Self {
        let mut store = VectorStore::new(db_dir);
        store.persist = false;
        store
    }

    /// The index file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Makes the in-memory index match `graph` for queries embedded by `embedder_id`: load the file
    /// if its stamp matches, else rebuild and save; once loaded, apply changed vectors in place.
    pub fn refresh(&self, graph: &Graph, embedder_id: &str) -> Result<Refresh, StoreError> {
        let seq = graph.sequence();
        match &*self.state.read() {
            State::Ready(l) if l.seq == seq && l.embedder_id == embedder_id => {
                return Ok(Refresh::Current)
            }
            State::Unavailable { seq: s, why } if *s == seq => {
                return Ok(Refresh::Unavailable(why.clone()))
            }
            _ => {}
        }
        let mut state = self.state.write();
        let previous = match std::mem::replace(&mut *state, State::Empty) {
            State::Ready(l) if l.embedder_id == embedder_id => Some(l),
            _ => None,
        };
        let result = self.refresh_locked(graph, embedder_id, previous, false);
        match result {
            Ok((next, what)) => {
                *state = next;
                Ok(what)
            }
            Err(e) => Err(e),
        }
    }

    /// Rebuilds the index from the column family and saves it, whatever the file holds.
    pub fn build(&self, graph: &Graph, embedder_id: &str) -> Result<BuildReport, StoreError> {
        let start = Instant::now();
        let mut state = self.state.write();
        *state = State::Empty;
        let (next, what) = self.refresh_locked(graph, embedder_id, None, true)?;
        let count = match &next {
            State::Ready(l) => l.index.len(),
            _ => 0,
        };
        *state = next;
        if let Refresh::Unavailable(why) = what {
            return Err(StoreError::Engine(EngineError::Invalid(format!(
                "cannot build the vector index: {why}"
            ))));
        }
        Ok(BuildReport {
            count,
            elapsed: start.elapsed(),
            path: self.path.clone(),
        })
    }

    /// The current index, if [`refresh`](Self::refresh) made one available.
    pub fn index(&self) -> Option<IndexGuard<'_>> {
        RwLockReadGuard::try_map(self.state.read(), |s| match s {
            State::Ready(l) => Some(&l.index),
            _ => None,
        })
        .ok()
    }

    /// Top-`k` of the current index (label-filtered when `labels` is given), best first.
    pub fn search(
        index: &VectorIndex,
        query: &[f32],
        labels: Option<&[LabelId]>,
        k: usize,
    ) -> Result<Vec<Hit>, VectorError> {
        // A small index is scanned exactly: under a millisecond, and exact answers (a parallel
        // build links in no fixed order, so a walk's rare misses would differ between builds).
        if index.len() <= EXACT_MAX {
            return index.exact_search(query, k, labels);
        }
        match labels {
            Some(l) => index.search_labels(query, k, SEARCH_EF, l),
            None => index.search(query, k, SEARCH_EF),
        }
    }

    /// Saves the index if it changed since it was loaded or saved. Also done on drop.
    pub fn save(&self) -> Result<bool, VectorError> {
        if !self.persist {
            return Ok(false);
        }
        let mut state = self.state.write();
        if let State::Ready(l) = &mut *state {
            if l.dirty {
                l.index
                    .save(&self.path, &stamp(l.fingerprint, &l.embedder_id))?;
                l.dirty = false;
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn refresh_locked(
        &self,
        graph: &Graph,
        embedder_id: &str,
        previous: Option<Box<Loaded>>,
        force_build: bool,
    ) -> Result<(State, Refresh), StoreError> {
        let seq = graph.sequence();
        let unavailable = |why: String| {
            Ok((
                State::Unavailable {
                    seq,
                    why: why.clone(),
                },
                Refresh::Unavailable(why),
            ))
        };
        let catalog = graph.catalog();
        let dim = match catalog.embedder() {
            None => return unavailable("the database has no vectors".into()),
            Some(e) if e.id != embedder_id => {
                return unavailable(format!(
                    "the vectors come from embedder `{}`, queries from `{embedder_id}`",
                    e.id
                ))
            }
            Some(e) => e.dim as usize,
        };
        drop(catalog);
        let scan = scan(graph, previous.as_ref().map(|l| &l.nodes))?;
        if scan.nodes.is_empty() {
            return unavailable("the database has no vectors".into());
        }
        if scan.nodes.len() < scan.total_nodes {
            // Exact search embeds the descriptions of nodes without a vector; the index would miss them.
            return unavailable(format!(
                "{} of {} nodes have no vector",
                scan.total_nodes - scan.nodes.len(),
                scan.total_nodes
            ));
        }
        if let Some(mut l) = previous {
            if l.fingerprint == scan.fingerprint {
                l.seq = seq;
                return Ok((State::Ready(l), Refresh::Current));
            }
            let mut deleted = 0;
            for node in l.nodes.keys() {
                if !scan.nodes.contains_key(node) && l.index.delete(*node) {
                    deleted += 1;
                }
            }
            let upserted = scan.vectors.len();
            for (node, label, v) in &scan.vectors {
                l.index.insert(*node, *label, v)?;
            }
            l.seq = seq;
            l.fingerprint = scan.fingerprint;
            l.nodes = scan.nodes;
            l.dirty = true;
            return Ok((State::Ready(l), Refresh::Updated { upserted, deleted }));
        }
        let st = stamp(scan.fingerprint, embedder_id);
        if !force_build {
            match VectorIndex::load(&self.path, &st, dim, self.params.clone()) {
                Ok(index) => {
                    return Ok((ready(index, seq, scan, embedder_id, false), Refresh::Loaded))
                }
                Err(e) if e.needs_rebuild() => {
                    // Minutes on a large graph: never silently (issue 15, defect 6).
                    tracing::warn!(
                        "rebuilding the vector index from {} stored vectors: {e}",
                        scan.nodes.len()
                    );
                }
                Err(e) => return Err(e.into()),
            }
        }
        let index = VectorIndex::build(dim, self.params.clone(), scan.vectors.iter().cloned())?;
        if self.persist {
            index.save(&self.path, &st)?;
        }
        Ok((ready(index, seq, scan, embedder_id, false), Refresh::Built))
    }
}

impl Drop for VectorStore {
    /// Saves incremental changes on close so the next open loads instead of rebuilding. A failure
    /// only costs a rebuild later (the stamp will not match), so it is logged, not raised.
    fn drop(&mut self) {
        if let Err(e) = self.save() {
            tracing::warn!("saving the vector index on close: {e}");
        }
    }
}

fn ready(index: VectorIndex, seq: u64, scan: Scan, embedder_id: &str, dirty: bool) -> State {
    State::Ready(Box::new(Loaded {
        index,
        seq,
        fingerprint: scan.fingerprint,
        embedder_id: embedder_id.to_owned(),
        nodes: scan.nodes,
        dirty,
    }))
}

fn stamp(fingerprint: u64, embedder_id: &str) -> Stamp {
    Stamp {
        seq: fingerprint,
        embedder_id: embedder_id.to_owned(),
    }
}

/// Reads every vector and node label. With `known`, only new or changed vectors are kept.
fn scan(
    graph: &Graph,
    known: Option<&HashMap<NodeId, (LabelId, u64)>>,
) -> Result<Scan, EngineError> {
    let labels: Vec<LabelId> = graph.catalog().labels().map(|(id, _)| id).collect();
    let mut label_of = HashMap::new();
    for l in labels {
        for n in graph.label_nodes(l)? {
            label_of.insert(n, l);
        }
    }
    let mut out = Scan {
        fingerprint: FP_SEED,
        nodes: HashMap::with_capacity(label_of.len()),
        vectors: Vec::new(),
        total_nodes: label_of.len(),
    };
    graph.scan_vectors(|node, v| {
        // A vector without a label was written after the label scan: the sequence moved, so the
        // next refresh sees it.
        let Some(&label) = label_of.get(&node) else {
            return;
        };
        let h = node_hash(node, label, v);
        out.fingerprint = mix(out.fingerprint ^ h);
        out.nodes.insert(node, (label, h));
        if known.is_none_or(|k| k.get(&node) != Some(&(label, h))) {
            out.vectors.push((node, label, v.to_vec()));
        }
    })?;
    Ok(out)
}

const FP_SEED: u64 = 0xcb1f_6a3e_5d2c_9b07;

fn mix(h: u64) -> u64 {
    (h ^ (h >> 29))
        .wrapping_mul(0xbf58_476d_1ce4_e5b9)
        .rotate_left(27)
}

/// Hash of one indexed entry over the exact bits of its vector.
fn node_hash(node: NodeId, label: LabelId, v: &[f32]) -> u64 {
    let mut h = mix(FP_SEED ^ node.0);
    h = mix(h ^ u64::from(label.0));
    for pair in v.chunks(2) {
        let lo = u64::from(pair[0].to_bits());
        let hi = pair.get(1).map_or(0, |x| u64::from(x.to_bits()));
        h = mix(h ^ (lo | hi << 32));
    }
    mix(h ^ v.len() as u64)
}
