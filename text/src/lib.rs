//! The full-text index of a database: BM25 over the words of every node's name, description
//! and short string properties ([`node_text`]), in a tantivy index beside the store
//! (`<db>/text/`), kept in step with the store's commits (docs/SEARCH.md).
//!
//! The index's tantivy commit carries the store's commit counter it reflects (its payload), so
//! the index and its stamp are replaced together by tantivy's atomic `meta.json` rename. A
//! process subscribes to the store's change sets at open; before a search it applies the
//! commits since the stamp (re-reading the nodes they touched) and, in a writable process,
//! commits them to the directory; on close it commits what it applied. Commits the process did
//! not see (another process's, or its own after a crash before the index's save) are replayed
//! from the store's change log (`Graph::changes_between`); only when the log no longer holds
//! them is the index rebuilt from a scan of the store. Ranking (`rank.rs`) makes an index
//! brought up to date this way answer exactly as a rebuild.

mod index;
mod rank;
mod stats;

pub use index::{node_text, NodeText, PROPERTY_MAX_BYTES};
pub use rank::NAME_BOOST;

use cairn_storage_format::{LabelId, NodeId};
use cairn_store::{ChangeSet, EngineError, Graph, GraphRead};
use index::{Tantivy, SMALL_WRITER_BYTES};
use parking_lot::{Mutex, RwLock};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tantivy::indexer::UserOperation;
use tantivy::{IndexWriter, TantivyDocument};

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
    /// Tantivy panicked reading the directory: its files are damaged in a way its own checks
    /// missed (a torn or overwritten segment file, a `meta.json` that does not match them).
    #[error("full-text index {} is damaged: reading it failed ({reason})", .path.display())]
    Damaged { path: PathBuf, reason: String },
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
    /// Commits since the index's stamp were applied (nodes re-indexed or removed), from this
    /// process's change sets or the store's change log.
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

/// Where an open index lives, which says whether changes can be applied to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backing {
    /// The directory, which this (writable) handle commits to.
    Dir,
    /// The writer's directory, opened by a read-only handle: searched, never written.
    SharedDir,
    /// Memory only: a read-only handle's copy or build.
    Memory,
}

struct Open {
    t: Tantivy,
    /// The store commit counter the searcher reflects.
    commits: u64,
    /// Whether `commits` is also what the directory's last tantivy commit says.
    saved: bool,
    backing: Backing,
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
    /// The directory was found damaged by a search: never opened again by this handle (a
    /// writable one removed it; a read-only one cannot, and builds in memory instead).
    damaged: AtomicBool,
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
            damaged: AtomicBool::new(false),
        }
    }

    /// The index directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Moves delivered change sets to the pending list (the facade calls it after its commits,
    /// so that a process that never searches keeps a bounded list: past it, the store's change
    /// log has them).
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
    /// stamp (this process's change sets, else the store's change log), or rebuilds it when
    /// neither can tell what those commits changed.
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
        let previous = std::mem::replace(&mut *state, State::Closed { opened_at: now });
        let (open, what) = self.bring_up(graph, previous, now)?;
        *state = State::Open(Box::new(open));
        Ok(what)
    }

    /// Rebuilds the index from a scan of the store, whatever it holds.
    pub fn build(&self) -> Result<TextBuildReport, TextError> {
        let graph = &*self.graph;
        let started = Instant::now();
        let mut state = self.state.write();
        self.wait_for(&state, graph.commits());
        *state = State::Closed { opened_at: 0 };
        let open = self.build_fresh(graph)?;
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
        match self.search_open(text, labels, k) {
            // Tantivy's errors at search time are of its files too (a bad offset, a short file).
            Err(e @ (TextError::Damaged { .. } | TextError::Index { .. })) => {
                // Derived data: rebuilt from the store, and the search answered from that.
                let reason = match e {
                    TextError::Damaged { reason, .. } => reason,
                    other => other.to_string(),
                };
                let e = TextError::Damaged {
                    path: self.dir.clone(),
                    reason,
                };
                tracing::warn!("rebuilding the full-text index: {e}");
                self.forget_damaged()?;
                self.refresh()?;
                self.search_open(text, labels, k)
            }
            other => other,
        }
    }

    /// [`search`](Self::search) in the index as it is open, a panic of tantivy caught.
    fn search_open(
        &self,
        text: &str,
        labels: Option<&[LabelId]>,
        k: usize,
    ) -> Result<Vec<(NodeId, f32)>, TextError> {
        match &*self.state.read() {
            State::Open(o) => index::guarded(&self.dir, || rank::search(&o.t, text, labels, k)),
            State::Closed { .. } => Ok(Vec::new()),
        }
    }

    /// Drops an index a search found damaged, so that the next refresh rebuilds it: a writable
    /// handle removes the directory, a read-only one builds in memory from now on.
    fn forget_damaged(&self) -> Result<(), TextError> {
        let mut state = self.state.write();
        self.damaged.store(true, Ordering::Relaxed);
        *state = State::Closed { opened_at: 0 };
        if self.persist && self.dir.exists() {
            std::fs::remove_dir_all(&self.dir).map_err(|source| TextError::Io {
                path: self.dir.clone(),
                source,
            })?;
        }
        Ok(())
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
    /// current index without replaying. Returns whether it wrote. Only what costs about what
    /// the commits changed is done here: with no saved index, or after an import (`cairn
    /// import --no-index`), indexing waits for the first SEARCH, whose process needs it.
    pub fn save(&self) -> Result<bool, TextError> {
        if !self.persist {
            return Ok(false);
        }
        self.absorb();
        let behind = match &*self.state.read() {
            State::Open(o) => !o.saved || o.commits < self.graph.commits(),
            State::Closed { opened_at } => {
                *opened_at < self.graph.commits() && self.saved_stamp()?.is_some()
            }
        };
        let imported = self
            .inbox
            .lock()
            .pending
            .iter()
            .any(|c| c.imported.is_some());
        if !behind || imported {
            return Ok(false);
        }
        self.refresh()?;
        Ok(true)
    }

    /// The store commit counter the index in the directory reflects: the change log before it
    /// is no longer needed by this index. `None` when there is no usable saved index (the
    /// next open rebuilds whatever the log holds).
    pub fn saved_stamp(&self) -> Result<Option<u64>, TextError> {
        if let State::Open(o) = &*self.state.read() {
            if o.saved && o.backing == Backing::Dir {
                return Ok(Some(o.commits));
            }
        }
        match Tantivy::open(&self.dir) {
            Ok(Some(t)) => t.stamp(),
            Ok(None) => Ok(None),
            Err(e @ TextError::Io { .. }) => Err(e),
            Err(_) => Ok(None),
        }
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

    /// The change sets after `after`, in order and without a gap up to `now`; `None` when this
    /// process's change sets cannot bring an index at `after` up to date.
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

    /// `previous` brought to commit `now`: the open index caught up, or the saved one opened and
    /// caught up, or a build.
    fn bring_up(
        &self,
        graph: &Graph,
        previous: State,
        now: u64,
    ) -> Result<(Open, TextRefresh), TextError> {
        let (mut open, mut what) = match previous {
            State::Open(o) => (*o, TextRefresh::Current),
            State::Closed { opened_at } => match self.open_saved(graph, opened_at)? {
                Some(o) => (o, TextRefresh::Opened),
                None => self.built(graph)?,
            },
        };
        // Twice at most: a second pass follows a reopen or build that the commits of another
        // process overtook.
        for _ in 0..2 {
            if open.commits >= now {
                self.take_pending(now, now);
                return Ok((open, what));
            }
            let sets = match self.take_pending(open.commits, now) {
                Some(sets) => Some(sets),
                // commits this process did not see (another process's, or past its inbox)
                None => graph.changes_between(open.commits, now)?,
            };
            match sets {
                Some(sets) if open.backing != Backing::SharedDir => {
                    let nodes = self.apply(graph, &mut open, &sets)?;
                    if !matches!(what, TextRefresh::Built { .. }) {
                        what = TextRefresh::Updated { nodes };
                    }
                    return Ok((open, what));
                }
                _ => {
                    drop(open);
                    (open, what) = match self.open_saved(graph, now)? {
                        Some(o) => (o, TextRefresh::Opened),
                        None => self.built(graph)?,
                    };
                }
            }
        }
        Ok((open, what))
    }

    /// The saved index, with the change-log entries that bring it to commit `base` queued in
    /// front of the pending change sets (a read-only handle, which receives none, copies it
    /// into memory when it must apply any); `None` when there is no usable one (none, damaged,
    /// foreign, or commits since its stamp the log no longer holds).
    fn open_saved(&self, graph: &Graph, base: u64) -> Result<Option<Open>, TextError> {
        let now = graph.commits();
        let saved = match Tantivy::open(&self.dir) {
            Ok(_) if self.damaged.load(Ordering::Relaxed) => None,
            Ok(t) => t,
            Err(e @ TextError::Io { .. }) => return Err(e),
            Err(e) => {
                tracing::warn!("rebuilding the full-text index: {e}");
                return Ok(None);
            }
        };
        let Some(t) = saved else {
            return Ok(None);
        };
        let Some(stamp) = t.stamp()?.filter(|s| *s <= now) else {
            tracing::warn!(
                "rebuilding the full-text index: it reflects no commit of this database (at {now})"
            );
            return Ok(None);
        };
        if !self.persist && stamp < now {
            // A reader applies the log to a copy in memory, never to the writer's directory.
            drop(t);
            let Some(copy) = Tantivy::open_copy(&self.dir)? else {
                return Ok(None);
            };
            return Ok(match copy.stamp()?.filter(|s| *s <= now) {
                Some(stamp) if self.queue_log(graph, stamp, now)? => Some(Open {
                    t: copy,
                    commits: stamp,
                    saved: false,
                    backing: Backing::Memory,
                }),
                _ => None,
            });
        }
        if stamp < base && !self.queue_log(graph, stamp, base)? {
            tracing::warn!(
                "rebuilding the full-text index: it reflects commit {stamp}, the database is at {now} and its change log no longer holds the commits between"
            );
            return Ok(None);
        }
        Ok(Some(Open {
            t,
            commits: stamp,
            saved: true,
            backing: if self.persist {
                Backing::Dir
            } else {
                Backing::SharedDir
            },
        }))
    }

    /// Queues the change-log entries of the commits after `after` up to `through` in front of
    /// the pending change sets; false when the log does not hold them all.
    fn queue_log(&self, graph: &Graph, after: u64, through: u64) -> Result<bool, TextError> {
        let Some(mut sets) = graph.changes_between(after, through)? else {
            return Ok(false);
        };
        let mut inbox = self.inbox.lock();
        sets.extend(
            std::mem::take(&mut inbox.pending)
                .into_iter()
                .filter(|c| c.commit > through),
        );
        inbox.pending = sets;
        Ok(true)
    }

    fn built(&self, graph: &Graph) -> Result<(Open, TextRefresh), TextError> {
        let open = self.build_fresh(graph)?;
        let nodes = open.t.len() as usize;
        Ok((open, TextRefresh::Built { nodes }))
    }

    /// A new index of every node: in the directory for a writable handle (replacing a damaged
    /// or foreign one), in memory for a read-only one.
    fn build_fresh(&self, graph: &Graph) -> Result<Open, TextError> {
        if !self.persist {
            let open = Open {
                t: Tantivy::create(None)?,
                commits: 0,
                saved: false,
                backing: Backing::Memory,
            };
            return self.rebuild(graph, open);
        }
        let t = match Tantivy::open(&self.dir) {
            Ok(Some(t)) => t,
            Ok(None) => Tantivy::create(Some(&self.dir))?,
            Err(e @ TextError::Io { .. }) => return Err(e),
            Err(_) => {
                // A damaged or foreign directory is replaced: the index is derived data.
                std::fs::remove_dir_all(&self.dir).map_err(|source| TextError::Io {
                    path: self.dir.clone(),
                    source,
                })?;
                Tantivy::create(Some(&self.dir))?
            }
        };
        let open = Open {
            t,
            commits: 0,
            saved: false,
            backing: Backing::Dir,
        };
        self.rebuild(graph, open)
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
            changed.extend(cs.text_touched());
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
            // New ids: nothing to delete first. Those a later commit of `sets` also touched
            // were re-indexed above (once: adding them again would make a second document).
            let fresh = |id: &NodeId| changed.binary_search(id).is_err();
            count += add_range(graph, &open.t, &w, range, &fresh, &catalog, &self.dir)?;
        }
        drop(catalog);
        cairn_store::failpoint!("text.apply.before_commit");
        self.commit(open, &mut w, last)?;
        finish_writer(w);
        open.t
            .reader
            .reload()
            .map_err(TextError::index(&self.dir))?;
        open.commits = last;
        open.saved = open.backing == Backing::Dir;
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
        // one range scan of the node records in id order, past the record cache
        let mut start = NodeId(0);
        loop {
            let page = graph.nodes_from(start, READ_CHUNK)?;
            let Some((last, _)) = page.last() else {
                break;
            };
            start = NodeId(last.0 + 1);
            let docs = page
                .iter()
                .map(|(id, rec)| open.t.document(*id, rec.label, &node_text(rec, &catalog)))
                .collect();
            add_batch(&w, docs, &self.dir)?;
        }
        drop(catalog);
        cairn_store::failpoint!("text.rebuild.before_commit");
        self.commit(&open, &mut w, commits)?;
        finish_writer(w);
        open.t
            .reader
            .reload()
            .map_err(TextError::index(&self.dir))?;
        open.commits = commits;
        open.saved = open.backing == Backing::Dir;
        // change sets up to the scan's counter are in it
        self.take_pending(commits, commits);
        Ok(open)
    }

    /// Commits `w`; in the directory with the store counter `commits` as the stamp (the
    /// segments and the stamp are replaced together by tantivy's atomic rename of
    /// `meta.json`: a crash leaves the previous commit or this one).
    fn commit(&self, open: &Open, w: &mut IndexWriter, commits: u64) -> Result<(), TextError> {
        if open.backing != Backing::Dir {
            w.commit().map_err(TextError::index(&self.dir))?;
            return Ok(());
        }
        let mut prepared = w.prepare_commit().map_err(TextError::index(&self.dir))?;
        prepared.set_payload(&commits.to_string());
        prepared.commit().map_err(TextError::index(&self.dir))?;
        cairn_store::failpoint!("text.commit.after");
        Ok(())
    }
}

impl Drop for TextStore {
    /// Commits a lagging stamp on close; a failure only costs a replay (or rebuild) later.
    fn drop(&mut self) {
        if let Err(e) = self.save() {
            tracing::warn!("saving the full-text index on close: {e}");
        }
    }
}

/// Adds the nodes with ids in `range` (new ones, from an import) that `take` accepts.
fn add_range(
    graph: &Graph,
    t: &Tantivy,
    w: &IndexWriter,
    range: std::ops::Range<u64>,
    take: &dyn Fn(&NodeId) -> bool,
    catalog: &cairn_store::Catalog,
    dir: &Path,
) -> Result<usize, TextError> {
    let mut count = 0;
    let mut start = range.start;
    while start < range.end {
        // a range scan of the node records, past the record cache
        let want = (range.end - start).min(READ_CHUNK as u64) as usize;
        let page = graph.nodes_from(NodeId(start), want)?;
        let Some((last, _)) = page.last() else {
            break;
        };
        start = last.0 + 1;
        let docs: Vec<TantivyDocument> = page
            .iter()
            .filter(|(id, _)| id.0 < range.end && take(id))
            .map(|(id, rec)| t.document(*id, rec.label, &node_text(rec, catalog)))
            .collect();
        count += docs.len();
        add_batch(w, docs, dir)?;
    }
    Ok(count)
}

/// Adds new documents as one batch: tantivy's `add_document` hands each to its indexing
/// threads as a message of its own, and waking them per document cost about a tenth of a
/// bulk build in the kernel's scheduler.
fn add_batch(w: &IndexWriter, docs: Vec<TantivyDocument>, dir: &Path) -> Result<(), TextError> {
    w.run(docs.into_iter().map(UserOperation::Add))
        .map_err(TextError::index(dir))?;
    Ok(())
}

fn bulk_writer(t: &Tantivy) -> Result<IndexWriter, TextError> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(4);
    t.writer(threads, threads * BULK_WRITER_BYTES)
}

/// Lets the writer's merges finish, so that small commits do not pile up as segments.
fn finish_writer(w: IndexWriter) {
    if let Err(e) = w.wait_merging_threads() {
        tracing::warn!("merging full-text index segments: {e}");
    }
}
