//! Keeps a database's HNSW index in step with its `vector` column family (docs/VECTOR.md,
//! "Integration").
//!
//! The stamp is the store's persisted commit counter ([`Graph::commits`], written in each
//! commit's batch): a file saved at counter `n` is current exactly while the counter is `n`, and
//! checking that reads nothing. The index is loaded on the first SEARCH only. From then on it
//! follows the store's change sets ([`Graph::subscribe`], subscribed at open so that commits
//! made before the first SEARCH are not missed): each commit's touched vectors are re-read and
//! applied in place (insert, update = tombstone + insert, delete), so a write costs what it
//! changed. A node without a vector is simply not in the index.

use super::delta::Delta;
use super::{
    file_seq, index_path, FileIndex, Hit, HnswParams, Stamp, VectorError, VectorIndex,
    FORMAT_VERSION,
};
use cairn_storage_format::{LabelId, NodeId};
use cairn_store::{ChangeSet, EngineError, Graph, GraphRead};
use parking_lot::{MappedRwLockReadGuard, Mutex, RwLock, RwLockReadGuard};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Beam width of index searches: recall@10 ≥ 0.999 at this width on the benchmark vectors.
pub const SEARCH_EF: usize = 128;
/// Indexes with at most this many live vectors answer by exact scan.
pub const EXACT_MAX: usize = 2_000;
/// Change sets kept while the index is not loaded; past this the first SEARCH rebuilds instead
/// of replaying them (bounds the memory of a process that writes and never searches).
const PENDING_MAX: usize = 10_000;
/// A bulk import of at most this many new nodes is applied in place; a larger one rebuilds (a
/// parallel build is faster than that many single-threaded inserts).
const IMPORT_IN_PLACE_MAX: u64 = 10_000;

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
    /// No vector changed since the last check.
    Current,
    /// The saved file matched the database and was loaded.
    Loaded,
    /// The file was missing, stale or damaged (or a rebuild was asked for): built from the column family.
    Built,
    /// Changed vectors were applied to the loaded index in place.
    Updated { upserted: usize, deleted: usize },
    /// The saved file's stamp matches and this store searches it in place instead of loading it
    /// ([`VectorStore::scanning_file`]).
    OnFile,
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
    /// The commit counter the index reflects.
    commits: u64,
    embedder_id: String,
    /// Changed since the last save (saved on drop).
    dirty: bool,
}

#[derive(Debug)]
enum State {
    /// Not loaded yet; the file should reflect the counter read at open.
    Empty {
        opened_at: u64,
        /// [`Graph::vectors_changed_at`] as of the open: a file stamped from it to `opened_at`
        /// holds the vectors of `opened_at`.
        vectors_at: u64,
    },
    Ready(Box<Loaded>),
    /// The file matches counter `commits` for `embedder_id` and is searched in place, not
    /// loaded.
    OnFile {
        commits: u64,
        /// The file's stamp may be from here to `commits` (see `Empty::vectors_at`).
        oldest: u64,
        embedder_id: String,
        file: Arc<FileIndex>,
        /// Vectors changed after the file's stamp (from the change log), searched beside it.
        delta: Option<Arc<Delta>>,
    },
    /// No usable index as of counter `commits` for queries of `embedder_id` (no vectors,
    /// another embedder).
    Unavailable {
        commits: u64,
        embedder_id: String,
        why: String,
    },
}

/// Change sets received since the index last took them in.
#[derive(Debug)]
struct Inbox {
    rx: Receiver<Arc<ChangeSet>>,
    pending: Vec<Arc<ChangeSet>>,
    /// More than [`PENDING_MAX`] arrived while not loaded: the next load rebuilds.
    overflowed: bool,
}

/// The HNSW index of one database directory, loaded or built on first use and kept current.
#[derive(Debug)]
pub struct VectorStore {
    path: PathBuf,
    params: HnswParams,
    state: RwLock<State>,
    inbox: Mutex<Inbox>,
    /// Whether builds and changes are saved to the file; off beside a writer (see
    /// [`VectorStore::read_only`]).
    persist: bool,
    /// Whether a current file is searched in place rather than loaded
    /// ([`VectorStore::scanning_file`]); cleared when a search finds the file damaged.
    scan_file: AtomicBool,
}

/// A read handle on the current index (holds a read lock: drop it before writing).
pub type IndexGuard<'a> = MappedRwLockReadGuard<'a, VectorIndex>;

impl VectorStore {
    /// The index of `graph`, whose directory is `db_dir` (file at [`index_path`]). Subscribes
    /// to its change sets now; nothing is read until the first [`refresh`](Self::refresh).
    pub fn new(graph: &Graph, db_dir: &Path) -> Self {
        // subscribe before reading the counter: a commit in between is then both in the inbox
        // and newer than `opened_at`, never lost
        let rx = graph.subscribe();
        VectorStore {
            path: index_path(db_dir),
            params: HnswParams::default(),
            state: RwLock::new(State::Empty {
                opened_at: graph.commits(),
                vectors_at: graph.vectors_changed_at(),
            }),
            inbox: Mutex::new(Inbox {
                rx,
                pending: Vec::new(),
                overflowed: false,
            }),
            persist: true,
            scan_file: AtomicBool::new(false),
        }
    }

    /// For one-shot processes: while the saved file matches the database, SEARCH walks the
    /// graph on the file ([`FileIndex`]: the small sections read on open, then only the blocks
    /// of links and vectors the walk touches) instead of loading the whole index (1.6 GB at
    /// 1M nodes). A write, a format-1 file, or a file found damaged makes the next search
    /// load or rebuild as usual.
    pub fn scanning_file(self) -> Self {
        self.scan_file.store(true, Ordering::Relaxed);
        self
    }

    /// The index of a database opened read-only beside its writer: it loads the file when the
    /// file matches what the reader sees, and otherwise builds or updates the index in memory
    /// only. The file belongs to the writer, which may save it at any time; a reader that
    /// wrote it too could replace a newer index with one of an older view.
    pub fn read_only(graph: &Graph, db_dir: &Path) -> Self {
        let mut store = VectorStore::new(graph, db_dir);
        store.persist = false;
        store
    }

    /// The index file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Moves delivered change sets to the pending list (cheap; the facade calls it after its
    /// commits so that a process that never searches keeps a bounded list).
    pub fn absorb(&self) {
        let loaded = !matches!(
            *self.state.read(),
            State::Empty { .. } | State::OnFile { .. }
        );
        let mut inbox = self.inbox.lock();
        while let Ok(cs) = inbox.rx.try_recv() {
            inbox.pending.push(cs);
        }
        if !loaded && inbox.pending.len() > PENDING_MAX {
            inbox.pending.clear();
            inbox.overflowed = true;
        }
    }

    /// Makes the in-memory index match `graph` for queries embedded by `embedder_id`: load the file
    /// if its stamp matches, else rebuild and save; once loaded, apply change sets in place.
    pub fn refresh(&self, graph: &Graph, embedder_id: &str) -> Result<Refresh, StoreError> {
        let now = graph.commits();
        match &*self.state.read() {
            State::Ready(l) if l.commits == now && l.embedder_id == embedder_id => {
                return Ok(Refresh::Current)
            }
            State::OnFile {
                commits,
                embedder_id: id,
                ..
            } if *commits == now && id == embedder_id => return Ok(Refresh::OnFile),
            State::Unavailable {
                commits,
                embedder_id: id,
                why,
            } if *commits == now && id == embedder_id => {
                return Ok(Refresh::Unavailable(why.clone()))
            }
            _ => {}
        }
        let mut state = self.state.write();
        self.absorb_locked(&state, now);
        let previous = std::mem::replace(
            &mut *state,
            State::Empty {
                opened_at: 0,
                vectors_at: 0,
            },
        );
        let (next, what) = self.refresh_locked(graph, embedder_id, previous, false)?;
        *state = next;
        Ok(what)
    }

    /// Rebuilds the index from the column family and saves it, whatever the file holds.
    pub fn build(&self, graph: &Graph, embedder_id: &str) -> Result<BuildReport, StoreError> {
        let start = Instant::now();
        let mut state = self.state.write();
        self.absorb_locked(&state, graph.commits());
        let previous = std::mem::replace(
            &mut *state,
            State::Empty {
                opened_at: 0,
                vectors_at: 0,
            },
        );
        let (next, what) = self.refresh_locked(graph, embedder_id, previous, true)?;
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

    /// Top-`k` of the index as [`refresh`](Self::refresh) left it: searched in memory, or the
    /// file scanned ([`Refresh::OnFile`]); `None` when there is none (or the scanned file was
    /// found damaged: the next refresh rebuilds).
    pub fn search_now(
        &self,
        query: &[f32],
        labels: Option<&[LabelId]>,
        k: usize,
    ) -> Result<Option<Vec<Hit>>, VectorError> {
        let state = self.state.read();
        match &*state {
            State::Ready(l) => Self::search(&l.index, query, labels, k).map(Some),
            State::OnFile {
                commits,
                oldest,
                file,
                delta,
                ..
            } => {
                let (commits, oldest) = (*commits, *oldest);
                let found = match delta {
                    None => Self::search_file(file, query, labels, k),
                    Some(d) => d.search(
                        |n| Self::search_file(file, query, labels, n),
                        query,
                        labels,
                        k,
                    ),
                };
                match found {
                    Ok(hits) => Ok(Some(hits)),
                    Err(e) if e.needs_rebuild() => {
                        tracing::warn!("searching the vector index file: {e}");
                        drop(state);
                        self.scan_file.store(false, Ordering::Relaxed);
                        let mut state = self.state.write();
                        if matches!(&*state, State::OnFile { .. }) {
                            *state = State::Empty {
                                opened_at: commits,
                                vectors_at: oldest,
                            };
                        }
                        Ok(None)
                    }
                    Err(e) => Err(e),
                }
            }
            _ => Ok(None),
        }
    }

    /// The current index, if [`refresh`](Self::refresh) loaded or built one.
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
            return index
                .exact_search(query, index.len(), labels)
                .map(|hits| by_node_on_ties(hits, k));
        }
        match labels {
            Some(l) => index.search_labels(query, k, SEARCH_EF, l),
            None => index.search(query, k, SEARCH_EF),
        }
    }

    /// [`VectorStore::search`] on the file: the same rule (small indexes exactly), the same
    /// beam width.
    pub fn search_file(
        file: &FileIndex,
        query: &[f32],
        labels: Option<&[LabelId]>,
        k: usize,
    ) -> Result<Vec<Hit>, VectorError> {
        if file.len() <= EXACT_MAX {
            return file
                .exact_search(query, file.len(), labels)
                .map(|hits| by_node_on_ties(hits, k));
        }
        file.search(query, k, SEARCH_EF, labels)
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
                    .save(&self.path, &stamp(l.commits, &l.embedder_id))?;
                l.dirty = false;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// [`absorb`](Self::absorb) under the state lock. A writable handle also waits (briefly) for
    /// change sets of commits already counted but not yet delivered: the commit protocol
    /// publishes the counter a moment before it sends the change set.
    fn absorb_locked(&self, state: &State, now: u64) {
        let mut inbox = self.inbox.lock();
        while let Ok(cs) = inbox.rx.try_recv() {
            inbox.pending.push(cs);
        }
        let base = match state {
            State::Empty { opened_at, .. } => *opened_at,
            State::Ready(l) => l.commits,
            State::OnFile { commits, .. } => *commits,
            State::Unavailable { commits, .. } => *commits,
        };
        if self.persist {
            while inbox.pending.last().map_or(base, |c| c.commit) < now {
                match inbox.rx.recv_timeout(Duration::from_secs(1)) {
                    Ok(cs) => inbox.pending.push(cs),
                    Err(_) => break,
                }
            }
        }
        if matches!(state, State::Empty { .. } | State::OnFile { .. })
            && inbox.pending.len() > PENDING_MAX
        {
            inbox.pending.clear();
            inbox.overflowed = true;
        }
    }

    /// Takes the pending change sets newer than `after`, in order, if they follow on from it
    /// without a gap; `None` when they cannot bring an index at `after` up to date (a gap, an
    /// overflow, or a large import).
    fn take_pending(&self, after: u64) -> Option<Vec<Arc<ChangeSet>>> {
        let mut inbox = self.inbox.lock();
        let overflowed = std::mem::take(&mut inbox.overflowed);
        let sets: Vec<Arc<ChangeSet>> = std::mem::take(&mut inbox.pending)
            .into_iter()
            .filter(|c| c.commit > after)
            .collect();
        if overflowed {
            return None;
        }
        for (expect, c) in (after + 1..).zip(&sets) {
            let large = c
                .imported
                .as_ref()
                .is_some_and(|r| r.end.saturating_sub(r.start) > IMPORT_IN_PLACE_MAX);
            if c.commit != expect || large {
                return None;
            }
        }
        Some(sets)
    }

    fn refresh_locked(
        &self,
        graph: &Graph,
        embedder_id: &str,
        previous: State,
        force_build: bool,
    ) -> Result<(State, Refresh), StoreError> {
        let now = graph.commits();
        let unavailable = |why: String| {
            self.inbox.lock().pending.clear();
            Ok((
                State::Unavailable {
                    commits: now,
                    embedder_id: embedder_id.to_owned(),
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
        let previous = match previous {
            // a commit since the file was found current: load it and apply the change sets
            State::OnFile {
                commits, oldest, ..
            } => State::Empty {
                opened_at: commits,
                vectors_at: oldest,
            },
            other => other,
        };
        if let State::Empty {
            opened_at,
            vectors_at,
        } = previous
        {
            let oldest = vectors_at.min(now);
            if !force_build && opened_at == now && self.scan_file.load(Ordering::Relaxed) {
                if let Some((file, delta)) = self.open_file(graph, now, oldest, dim, embedder_id)? {
                    let state = State::OnFile {
                        commits: now,
                        oldest,
                        embedder_id: embedder_id.to_owned(),
                        file: Arc::new(file),
                        delta: delta.map(Arc::new),
                    };
                    return Ok((state, Refresh::OnFile));
                }
            }
        }
        let (mut loaded, mut what) = match previous {
            State::Ready(l) if l.embedder_id == embedder_id && !force_build => (l, None),
            State::Empty {
                opened_at,
                vectors_at,
            } if !force_build => {
                match self.load_file(graph, opened_at, vectors_at, dim, embedder_id)? {
                    Some(l) => (l, Some(Refresh::Loaded)),
                    None => self.build_from_scan(graph, dim, embedder_id)?,
                }
            }
            _ => self.build_from_scan(graph, dim, embedder_id)?,
        };
        let (mut upserted, mut deleted) = (0, 0);
        match self.take_pending(loaded.commits) {
            Some(sets) => {
                (upserted, deleted) = replay(&mut loaded, graph, &sets)?;
            }
            None => match replayable(graph.changes_between(loaded.commits, now)?) {
                // commits this process did not see as change sets: the store's change log
                Some(sets) => {
                    let (u, d) = replay(&mut loaded, graph, &sets)?;
                    (upserted, deleted) = (upserted + u, deleted + d);
                }
                // a large import, or commits the log no longer holds: rebuild
                None => {
                    (loaded, what) = self.build_from_scan(graph, dim, embedder_id)?;
                    if let Some(sets) = self.take_pending(loaded.commits) {
                        replay(&mut loaded, graph, &sets)?;
                    }
                }
            },
        }
        if loaded.commits < now {
            // Commits without change sets: another process's, seen through a read-only
            // handle's catch-up. The change log tells what they changed; else the writer's
            // file may match; else only a rebuild covers them.
            match replayable(graph.changes_between(loaded.commits, now)?) {
                Some(sets) => {
                    let (u, d) = replay(&mut loaded, graph, &sets)?;
                    (upserted, deleted) = (upserted + u, deleted + d);
                }
                None => {
                    let oldest = graph.vectors_changed_at();
                    (loaded, what) = match self.load_file(graph, now, oldest, dim, embedder_id)? {
                        Some(l) => (l, Some(Refresh::Loaded)),
                        None => self.build_from_scan(graph, dim, embedder_id)?,
                    };
                }
            }
        }
        if loaded.index.is_empty() {
            return unavailable("the database has no vectors".into());
        }
        let what = what.unwrap_or(if upserted + deleted > 0 {
            Refresh::Updated { upserted, deleted }
        } else {
            Refresh::Current
        });
        if what == Refresh::Built && self.persist {
            loaded
                .index
                .save(&self.path, &stamp(loaded.commits, embedder_id))?;
            loaded.dirty = false;
        }
        Ok((State::Ready(loaded), what))
    }

    /// The saved index if it was saved at a counter from `vectors_at` to `commits` for this
    /// embedder (the commits between changed no vector), or at an earlier counter whose later
    /// commits the store's change log still holds (queued in front of the pending change sets,
    /// so that the caller applies them); `None` when it is missing, stale or damaged
    /// (rebuild), other I/O errors returned.
    fn load_file(
        &self,
        graph: &Graph,
        commits: u64,
        vectors_at: u64,
        dim: usize,
        embedder_id: &str,
    ) -> Result<Option<Box<Loaded>>, StoreError> {
        // Commits from `vectors_at` to `commits` changed no vector: a file of any of them is current.
        let mut oldest = vectors_at.min(commits);
        let behind = self.replay_from(graph, commits, oldest)?;
        if let Some((seq, _)) = &behind {
            oldest = *seq;
        }
        match VectorIndex::load_any(
            &self.path,
            &stamp(commits, embedder_id),
            oldest,
            dim,
            self.params.clone(),
        ) {
            Ok((index, version)) => {
                let mut at = commits;
                if let Some((seq, sets)) = behind {
                    at = seq;
                    self.queue_front(sets, commits);
                }
                Ok(Some(Box::new(Loaded {
                    index,
                    commits: at,
                    embedder_id: embedder_id.to_owned(),
                    // an older format is saved again in the current one (on save or close)
                    dirty: version != FORMAT_VERSION,
                })))
            }
            Err(e) if e.needs_rebuild() => {
                // Minutes on a large graph: never silently.
                tracing::warn!("rebuilding the vector index: {e}");
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// When the file's stamp is older than `oldest` (vectors changed since) and the change log
    /// holds every commit from it to `commits`: the stamp and those commits' change sets.
    fn replay_from(
        &self,
        graph: &Graph,
        commits: u64,
        oldest: u64,
    ) -> Result<Option<Behind>, StoreError> {
        let Ok(seq) = file_seq(&self.path) else {
            return Ok(None);
        };
        if seq >= oldest || seq > commits {
            return Ok(None);
        }
        Ok(replayable(graph.changes_between(seq, commits)?).map(|sets| (seq, sets)))
    }

    /// The file to search in place as of commit `now`, with the vectors changed after its
    /// stamp when there are any (few enough to keep beside it); `None` when it must be loaded
    /// or rebuilt instead.
    fn open_file(
        &self,
        graph: &Graph,
        now: u64,
        oldest: u64,
        dim: usize,
        embedder_id: &str,
    ) -> Result<Option<(FileIndex, Option<Delta>)>, StoreError> {
        let (oldest, delta) = match self.replay_from(graph, now, oldest)? {
            None => (oldest, None),
            Some((seq, sets)) => match Delta::from_log::<StoreError>(graph, &sets)? {
                Some(delta) => (seq, Some(delta)),
                None => return Ok(None),
            },
        };
        match FileIndex::open(&self.path, &stamp(now, embedder_id), oldest, dim) {
            Ok(file) => Ok(Some((file, delta))),
            Err(e) if e.needs_rebuild() => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Puts `sets` (commits up to `through`) in front of the pending change sets.
    fn queue_front(&self, mut sets: Vec<Arc<ChangeSet>>, through: u64) {
        let mut inbox = self.inbox.lock();
        sets.extend(
            std::mem::take(&mut inbox.pending)
                .into_iter()
                .filter(|c| c.commit > through),
        );
        inbox.pending = sets;
    }

    /// The counter up to which the saved file needs none of the store's change log: its stamp
    /// while vectors changed after it (the log replays them), else the current counter (the
    /// file is current, or missing or unusable, which a rebuild answers). Call it after
    /// [`save`](Self::save).
    pub fn log_covered(&self, graph: &Graph) -> u64 {
        let now = graph.commits();
        let Some(embedder) = graph.catalog().embedder().cloned() else {
            return now;
        };
        let current = stamp(now, &embedder.id);
        if VectorIndex::check_file(&self.path, &current, 0, embedder.dim as usize).is_err() {
            return now;
        }
        match file_seq(&self.path) {
            Ok(seq) if seq < graph.vectors_changed_at() => seq,
            _ => now,
        }
    }

    /// Builds from a full scan of the vectors, as of the counter read before the scan (change
    /// sets after it are applied on top; applying one twice is harmless, it re-reads).
    fn build_from_scan(
        &self,
        graph: &Graph,
        dim: usize,
        embedder_id: &str,
    ) -> Result<(Box<Loaded>, Option<Refresh>), StoreError> {
        let commits = graph.commits();
        let items = scan(graph)?;
        let index = VectorIndex::build(dim, self.params.clone(), items)?;
        Ok((
            Box::new(Loaded {
                index,
                commits,
                embedder_id: embedder_id.to_owned(),
                dirty: true,
            }),
            Some(Refresh::Built),
        ))
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

/// The best `k` of every hit, ties by node id: which of equally near nodes an exact answer
/// holds then depends on the nodes, not on the slots an index's history gave them (an index
/// brought up to date in place answers exactly as a rebuild).
fn by_node_on_ties(mut hits: Vec<Hit>, k: usize) -> Vec<Hit> {
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.node.cmp(&b.node)));
    hits.truncate(k);
    hits
}

/// A saved file's stamp and the change sets of the commits after it.
type Behind = (u64, Vec<Arc<ChangeSet>>);

/// Applies `sets` in order, moving the index's counter along; returns (upserted, deleted).
fn replay(
    loaded: &mut Loaded,
    graph: &Graph,
    sets: &[Arc<ChangeSet>],
) -> Result<(usize, usize), StoreError> {
    let (mut upserted, mut deleted) = (0, 0);
    for cs in sets {
        let (u, d) = apply(&mut loaded.index, graph, cs)?;
        upserted += u;
        deleted += d;
        loaded.commits = cs.commit;
        // A commit that changed no vector leaves the file current: no save for it.
        loaded.dirty |= cs.touches_vectors();
    }
    Ok((upserted, deleted))
}

/// `sets` when they can be applied in place (no large import: a build is faster then).
fn replayable(sets: Option<Vec<Arc<ChangeSet>>>) -> Option<Vec<Arc<ChangeSet>>> {
    sets.filter(|sets| {
        !sets.iter().any(|c| {
            c.imported
                .as_ref()
                .is_some_and(|r| r.end.saturating_sub(r.start) > IMPORT_IN_PLACE_MAX)
        })
    })
}

/// Applies one commit's vector changes: every touched node's current vector is read back and
/// inserted (or replaced), a node without one (removed, or its vector dropped) is deleted.
fn apply(
    index: &mut VectorIndex,
    graph: &Graph,
    cs: &ChangeSet,
) -> Result<(usize, usize), StoreError> {
    let mut ids: Vec<NodeId> = cs
        .vectors_touched
        .iter()
        .chain(&cs.nodes_removed)
        .copied()
        .chain(cs.imported.iter().flat_map(|r| r.clone().map(NodeId)))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        return Ok((0, 0));
    }
    let vectors = graph.vectors(&ids)?;
    let records = graph.nodes(&ids)?;
    let (mut upserted, mut deleted) = (0, 0);
    for ((id, v), rec) in ids.iter().zip(vectors).zip(records) {
        match (rec, v) {
            (Some(rec), Some(v)) => {
                if !index.holds(*id, rec.label, &v) {
                    index.insert(*id, rec.label, &v)?;
                    upserted += 1;
                }
            }
            _ => {
                if index.delete(*id) {
                    deleted += 1;
                }
            }
        }
    }
    Ok((upserted, deleted))
}

fn stamp(commits: u64, embedder_id: &str) -> Stamp {
    Stamp {
        seq: commits,
        embedder_id: embedder_id.to_owned(),
    }
}

/// Every vector with its node's label.
fn scan(graph: &Graph) -> Result<Vec<(NodeId, LabelId, Vec<f32>)>, EngineError> {
    let labels: Vec<LabelId> = graph.catalog().labels().map(|(id, _)| id).collect();
    let mut label_of = HashMap::new();
    for l in labels {
        for n in graph.label_nodes(l)? {
            label_of.insert(n, l);
        }
    }
    let mut out = Vec::with_capacity(label_of.len());
    graph.scan_vectors(|node, v| {
        // A vector without a label was written after the label scan: its change set follows.
        if let Some(&label) = label_of.get(&node) {
            out.push((node, label, v.to_vec()));
        }
    })?;
    Ok(out)
}
