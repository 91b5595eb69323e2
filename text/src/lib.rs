//! The full-text index of a database: BM25 over the words of every node's name, description
//! and short string properties ([`node_text`]), in a tantivy index beside the store
//! (`<db>/text/`), kept in step with the store's commits (docs/SEARCH.md).
//!
//! The index's tantivy commit carries the store's commit counter it reflects (its payload), so
//! the index and its stamp are replaced together by tantivy's atomic `meta.json` rename. A
//! process subscribes to the store's change sets at open; before a search it applies the
//! commits since the stamp (re-reading the nodes they touched) and, in a writable process,
//! commits them to the directory; on close it commits what it applied. Commits the process did
//! not see (a crash before the index caught up, another process's writes seen by a read-only
//! handle) are rebuilt from a scan of the store.

mod index;

pub use index::{node_text, PROPERTY_MAX_BYTES};

use cairn_storage_format::{LabelId, NodeId};
use cairn_store::{ChangeSet, EngineError, Graph, GraphRead};
use index::{Tantivy, SMALL_WRITER_BYTES};
use parking_lot::{Mutex, RwLock};
use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tantivy::IndexWriter;

/// Errors of the full-text index.
#[derive(Debug, thiserror::Error)]
pub enum TextError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("full-text index {}: {source}", .path.display())]
    Index {
        path: PathBuf,
        #[source]
        source: tantivy::TantivyError,
    },
    #[error("full-text index {}: another schema (written by another version); rebuild it with `cairn index build`", .0.display())]
    Schema(PathBuf),
    #[error("full-text index {}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl TextError {
    fn index(path: &Path) -> impl FnOnce(tantivy::TantivyError) -> TextError + '_ {
        move |source| TextError::Index {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The directory of a database's full-text index.
pub fn text_dir(db_dir: &Path) -> PathBuf {
    db_dir.join("text")
}

/// Change sets kept while the index is not open; past this the next open rebuilds.
const PENDING_MAX: usize = 10_000;
/// Nodes read from the store per batch when indexing many.
const READ_CHUNK: usize = 4096;
/// Memory of a bulk build's writer (per thread).
const BULK_WRITER_BYTES: usize = 128 << 20;

/// What [`TextStore::refresh`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextRefresh {
    /// Nothing changed since the last refresh.
    Current,
    /// The saved index matched the store and was opened.
    Opened,
    /// Commits since the index's stamp were applied (nodes re-indexed or removed).
    Updated { nodes: usize },
    /// Built from a scan of the store (no index, or commits it could not follow).
    Built { nodes: usize },
}

/// Outcome of a build.
#[derive(Clone, Debug)]
pub struct TextBuildReport {
    pub nodes: u64,
    pub elapsed: Duration,
    pub path: PathBuf,
}

struct Open {
    t: Tantivy,
    /// The store commit counter the searcher reflects.
    commits: u64,
    /// Whether `commits` is also what the directory's last tantivy commit says.
    saved: bool,
    /// In memory only (a read-only handle that had to build): never written to the directory.
    in_memory: bool,
}

enum State {
    /// Not opened yet: change sets since `opened_at` are in the inbox.
    Closed {
        opened_at: u64,
    },
    Open(Box<Open>),
}

struct Inbox {
    rx: Receiver<Arc<ChangeSet>>,
    pending: Vec<Arc<ChangeSet>>,
    overflowed: bool,
}

/// The full-text index of one database, opened on first use and kept current.
pub struct TextStore {
    graph: Arc<Graph>,
    dir: PathBuf,
    /// Whether changes are committed to the directory (off beside a writer: the directory is
    /// the writer's).
    persist: bool,
    state: RwLock<State>,
    inbox: Mutex<Inbox>,
}

impl std::fmt::Debug for TextStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextStore")
            .field("dir", &self.dir)
            .field("persist", &self.persist)
            .finish()
    }
}

impl TextStore {
    /// The index of `graph` in `db_dir`. Subscribes to its change sets now (so that commits
    /// before the first search are not missed); reads nothing until the first refresh.
    pub fn new(graph: Arc<Graph>, db_dir: &Path) -> Self {
        let rx = graph.subscribe();
        TextStore {
            dir: text_dir(db_dir),
            persist: !graph.is_read_only(),
            state: RwLock::new(State::Closed {
                opened_at: graph.commits(),
            }),
            inbox: Mutex::new(Inbox {
                rx,
                pending: Vec::new(),
                overflowed: false,
            }),
            graph,
        }
    }

    /// The index directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Moves delivered change sets to the pending list (the facade calls it after its commits,
    /// so that a process that never searches keeps a bounded list).
    pub fn absorb(&self) {
        let open = matches!(*self.state.read(), State::Open(_));
        let mut inbox = self.inbox.lock();
        while let Ok(cs) = inbox.rx.try_recv() {
            inbox.pending.push(cs);
        }
        if !open && inbox.pending.len() > PENDING_MAX {
            inbox.pending.clear();
            inbox.overflowed = true;
        }
    }

    /// Brings the index to the store's latest commit: opens it, applies the commits since its
    /// stamp, or rebuilds it when those commits cannot be followed.
    pub fn refresh(&self) -> Result<TextRefresh, TextError> {
        let graph = &*self.graph;
        let now = graph.commits();
        if let State::Open(o) = &*self.state.read() {
            if o.commits == now {
                return Ok(TextRefresh::Current);
            }
        }
        let mut state = self.state.write();
        self.wait_for(&state, now);
        let mut what = None;
        if let State::Closed { opened_at } = &*state {
            let opened_at = *opened_at;
            let (open, how) = self.open_or_build(graph, opened_at)?;
            what = Some(how);
            *state = State::Open(Box::new(open));
        }
        let State::Open(open) = &mut *state else {
            unreachable_state()?
        };
        let applied = self.catch_up(graph, open)?;
        Ok(match (what, applied) {
            (Some(TextRefresh::Built { nodes }), _) => TextRefresh::Built { nodes },
            (_, Some(TextRefresh::Built { nodes })) => TextRefresh::Built { nodes },
            (_, Some(TextRefresh::Updated { nodes })) if nodes > 0 => {
                TextRefresh::Updated { nodes }
            }
            (Some(w), _) => w,
            _ => TextRefresh::Current,
        })
    }

    /// Rebuilds the index from a scan of the store, whatever it holds.
    pub fn build(&self) -> Result<TextBuildReport, TextError> {
        let graph = &*self.graph;
        let started = Instant::now();
        let mut state = self.state.write();
        self.wait_for(&state, graph.commits());
        let open = match std::mem::replace(&mut *state, State::Closed { opened_at: 0 }) {
            State::Open(o) if !o.in_memory || !self.persist => *o,
            _ => self.open_dir_or_create()?,
        };
        let open = self.rebuild(graph, open)?;
        let nodes = open.t.len();
        *state = State::Open(Box::new(open));
        Ok(TextBuildReport {
            nodes,
            elapsed: started.elapsed(),
            path: self.dir.clone(),
        })
    }

    /// The `k` best nodes for the words of `text` (of `labels`, when given) by BM25, best first
    /// with their score, as of the last [`refresh`](Self::refresh).
    pub fn search(
        &self,
        text: &str,
        labels: Option<&[LabelId]>,
        k: usize,
    ) -> Result<Vec<(NodeId, f32)>, TextError> {
        match &*self.state.read() {
            State::Open(o) => o.t.search(text, labels, k),
            State::Closed { .. } => Ok(Vec::new()),
        }
    }

    /// Live documents in the index (`None` before it is opened).
    pub fn documents(&self) -> Option<u64> {
        match &*self.state.read() {
            State::Open(o) => Some(o.t.len()),
            State::Closed { .. } => None,
        }
    }

    /// Brings the directory up to the store's latest commit when this process committed
    /// anything since the index's stamp (also done on drop), so that the next process opens a
    /// current index instead of rebuilding. Returns whether it wrote.
    pub fn save(&self) -> Result<bool, TextError> {
        if !self.persist {
            return Ok(false);
        }
        self.absorb();
        let behind = match &*self.state.read() {
            State::Open(o) => !o.in_memory && (!o.saved || o.commits < self.graph.commits()),
            State::Closed { opened_at } => *opened_at < self.graph.commits(),
        };
        if !behind {
            return Ok(false);
        }
        self.refresh()?;
        Ok(true)
    }

    /// Takes delivered change sets; a writable handle also waits (briefly) for those of commits
    /// already counted but not yet delivered (the commit protocol publishes the counter a
    /// moment before it sends the change set).
    fn wait_for(&self, state: &State, now: u64) {
        let base = match state {
            State::Closed { opened_at } => *opened_at,
            State::Open(o) => o.commits,
        };
        let mut inbox = self.inbox.lock();
        while let Ok(cs) = inbox.rx.try_recv() {
            inbox.pending.push(cs);
        }
        if self.persist {
            while inbox.pending.last().map_or(base, |c| c.commit) < now {
                match inbox.rx.recv_timeout(Duration::from_secs(1)) {
                    Ok(cs) => inbox.pending.push(cs),
                    Err(_) => break,
                }
            }
        }
    }

    /// The change sets after `after`, in order and without a gap up to the store's counter;
    /// `None` when they cannot bring an index at `after` up to date.
    fn take_pending(&self, after: u64, now: u64) -> Option<Vec<Arc<ChangeSet>>> {
        let mut inbox = self.inbox.lock();
        let overflowed = std::mem::take(&mut inbox.overflowed);
        let sets: Vec<Arc<ChangeSet>> = std::mem::take(&mut inbox.pending)
            .into_iter()
            .filter(|c| c.commit > after)
            .collect();
        if overflowed {
            return None;
        }
        let mut expect = after + 1;
        for c in &sets {
            if c.commit != expect {
                return None;
            }
            expect += 1;
        }
        (expect > now).then_some(sets)
    }

    /// Opens the saved index, or creates and fills one (a read-only handle builds in memory).
    fn open_or_build(
        &self,
        graph: &Graph,
        opened_at: u64,
    ) -> Result<(Open, TextRefresh), TextError> {
        let saved = match Tantivy::open(&self.dir) {
            Ok(t) => t,
            Err(e @ TextError::Io { .. }) => return Err(e),
            Err(e) => {
                tracing::warn!("rebuilding the full-text index: {e}");
                None
            }
        };
        if let Some(t) = saved {
            if let Some(stamp) = t.stamp()? {
                // Usable when the process saw every commit since the stamp: its change sets
                // (from `opened_at` on) cover them.
                if stamp >= opened_at && stamp <= graph.commits() {
                    let open = Open {
                        t,
                        commits: stamp,
                        saved: true,
                        in_memory: false,
                    };
                    return Ok((open, TextRefresh::Opened));
                }
                tracing::warn!(
                    "rebuilding the full-text index: it reflects commit {stamp}, the database is at {}",
                    graph.commits()
                );
            }
            if self.persist {
                let open = Open {
                    t,
                    commits: 0,
                    saved: false,
                    in_memory: false,
                };
                let open = self.rebuild(graph, open)?;
                let nodes = open.t.len() as usize;
                return Ok((open, TextRefresh::Built { nodes }));
            }
        }
        let open = self.open_dir_or_create()?;
        let open = self.rebuild(graph, open)?;
        let nodes = open.t.len() as usize;
        Ok((open, TextRefresh::Built { nodes }))
    }

    /// An empty index: in the directory for a writable handle, in memory for a read-only one.
    fn open_dir_or_create(&self) -> Result<Open, TextError> {
        if !self.persist {
            return Ok(Open {
                t: Tantivy::create(None)?,
                commits: 0,
                saved: false,
                in_memory: true,
            });
        }
        // A damaged or foreign directory is replaced: the index is derived data.
        if self.dir.exists() && Tantivy::open(&self.dir).is_err() {
            std::fs::remove_dir_all(&self.dir).map_err(|source| TextError::Io {
                path: self.dir.clone(),
                source,
            })?;
        }
        let t = match Tantivy::open(&self.dir)? {
            Some(t) => t,
            None => Tantivy::create(Some(&self.dir))?,
        };
        Ok(Open {
            t,
            commits: 0,
            saved: false,
            in_memory: false,
        })
    }

    /// Applies the pending change sets to `open`, or rebuilds when they do not follow on.
    fn catch_up(&self, graph: &Graph, open: &mut Open) -> Result<Option<TextRefresh>, TextError> {
        let now = graph.commits();
        if open.commits >= now {
            self.take_pending(now, now);
            return Ok(None);
        }
        let Some(sets) = self.take_pending(open.commits, now) else {
            let taken = std::mem::replace(
                open,
                Open {
                    t: Tantivy::create(None)?,
                    commits: 0,
                    saved: false,
                    in_memory: true,
                },
            );
            let base = if taken.in_memory || !self.persist {
                Open {
                    t: Tantivy::create(None)?,
                    commits: 0,
                    saved: false,
                    in_memory: true,
                }
            } else {
                taken
            };
            *open = self.rebuild(graph, base)?;
            return Ok(Some(TextRefresh::Built {
                nodes: open.t.len() as usize,
            }));
        };
        let nodes = self.apply(graph, open, &sets)?;
        Ok(Some(TextRefresh::Updated { nodes }))
    }

    /// Re-indexes the nodes `sets` touched and commits (to the directory when it is ours).
    fn apply(
        &self,
        graph: &Graph,
        open: &mut Open,
        sets: &[Arc<ChangeSet>],
    ) -> Result<usize, TextError> {
        let Some(last) = sets.last().map(|c| c.commit) else {
            return Ok(0);
        };
        let mut changed: Vec<NodeId> = Vec::new();
        let mut imported: Vec<std::ops::Range<u64>> = Vec::new();
        for cs in sets {
            changed.extend(cs.nodes_upserted.iter().chain(&cs.nodes_removed).copied());
            imported.extend(cs.imported.clone());
        }
        changed.sort_unstable();
        changed.dedup();
        let new_nodes: u64 = imported.iter().map(|r| r.end - r.start).sum();
        let bulk = new_nodes > READ_CHUNK as u64;
        let mut w = if bulk {
            bulk_writer(&open.t)?
        } else {
            open.t.writer(1, SMALL_WRITER_BYTES)?
        };
        let catalog = graph.catalog();
        let mut count = 0;
        for chunk in changed.chunks(READ_CHUNK) {
            let records = graph.nodes(chunk)?;
            for (id, rec) in chunk.iter().zip(records) {
                w.delete_term(open.t.node_term(*id));
                if let Some(rec) = rec {
                    let text = node_text(&rec, &catalog);
                    w.add_document(open.t.document(*id, rec.label, &text))
                        .map_err(TextError::index(&self.dir))?;
                }
                count += 1;
            }
        }
        for range in imported {
            // New ids: nothing to delete first.
            count += add_range(graph, &open.t, &w, range, &catalog, &self.dir)?;
        }
        drop(catalog);
        if open.in_memory || !self.persist {
            w.commit().map_err(TextError::index(&self.dir))?;
        } else {
            commit(&mut w, last, &self.dir)?;
        }
        finish_writer(w);
        open.t
            .reader
            .reload()
            .map_err(TextError::index(&self.dir))?;
        open.commits = last;
        open.saved = !open.in_memory && self.persist;
        Ok(count)
    }

    /// Replaces the index's content with every node of the store, stamped with the counter
    /// read before the scan (later change sets are applied on top; applying one twice is
    /// harmless, it re-reads).
    fn rebuild(&self, graph: &Graph, mut open: Open) -> Result<Open, TextError> {
        let commits = graph.commits();
        let mut w = bulk_writer(&open.t)?;
        w.delete_all_documents()
            .map_err(TextError::index(&self.dir))?;
        let catalog = graph.catalog();
        let labels: Vec<LabelId> = catalog.labels().map(|(id, _)| id).collect();
        for label in labels {
            let ids = graph.label_nodes(label)?;
            for chunk in ids.chunks(READ_CHUNK) {
                let records = graph.nodes(chunk)?;
                for (id, rec) in chunk.iter().zip(records) {
                    if let Some(rec) = rec {
                        let text = node_text(&rec, &catalog);
                        w.add_document(open.t.document(*id, rec.label, &text))
                            .map_err(TextError::index(&self.dir))?;
                    }
                }
            }
        }
        drop(catalog);
        if open.in_memory {
            w.commit().map_err(TextError::index(&self.dir))?;
        } else {
            commit(&mut w, commits, &self.dir)?;
        }
        finish_writer(w);
        open.t
            .reader
            .reload()
            .map_err(TextError::index(&self.dir))?;
        open.commits = commits;
        open.saved = !open.in_memory;
        // change sets up to the scan's counter are in it
        self.take_pending(commits, commits);
        Ok(open)
    }
}

impl Drop for TextStore {
    /// Commits a lagging stamp on close; a failure only costs a rebuild later.
    fn drop(&mut self) {
        if let Err(e) = self.save() {
            tracing::warn!("saving the full-text index on close: {e}");
        }
    }
}

/// Adds the nodes with ids in `range` (new ones, from an import).
fn add_range(
    graph: &Graph,
    t: &Tantivy,
    w: &IndexWriter,
    range: std::ops::Range<u64>,
    catalog: &cairn_store::Catalog,
    dir: &Path,
) -> Result<usize, TextError> {
    let mut count = 0;
    let mut start = range.start;
    while start < range.end {
        let end = (start + READ_CHUNK as u64).min(range.end);
        let ids: Vec<NodeId> = (start..end).map(NodeId).collect();
        for (id, rec) in ids.iter().zip(graph.nodes(&ids)?) {
            if let Some(rec) = rec {
                let text = node_text(&rec, catalog);
                w.add_document(t.document(*id, rec.label, &text))
                    .map_err(TextError::index(dir))?;
                count += 1;
            }
        }
        start = end;
    }
    Ok(count)
}

fn bulk_writer(t: &Tantivy) -> Result<IndexWriter, TextError> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(4);
    t.writer(threads, threads * BULK_WRITER_BYTES)
}

/// Commits `w` with the store counter `commits` as the stamp.
fn commit(w: &mut IndexWriter, commits: u64, dir: &Path) -> Result<(), TextError> {
    let mut prepared = w.prepare_commit().map_err(TextError::index(dir))?;
    prepared.set_payload(&commits.to_string());
    prepared.commit().map_err(TextError::index(dir))?;
    Ok(())
}

/// Lets the writer's merges finish, so that small commits do not pile up as segments.
fn finish_writer(w: IndexWriter) {
    if let Err(e) = w.wait_merging_threads() {
        tracing::warn!("merging full-text index segments: {e}");
    }
}

fn unreachable_state<T>() -> Result<T, TextError> {
    Err(TextError::Engine(EngineError::Invalid(
        "full-text index state lost during refresh".into(),
    )))
}
