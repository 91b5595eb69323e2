//! Keeps a process's node table in step with its store without rebuilding it after each write.
//!
//! The keeper subscribes to the store's change sets ([`Graph::subscribe`]). A table built at
//! commit `b` stays in use after later commits: the nodes those commits touched (records,
//! vectors, either end of an added or removed edge) are read from the store instead
//! ([`Overlaid`]). Past [`MERGE_AFTER`] changed nodes, after a bulk import (whose change set
//! does not list the edges it added to existing nodes), or when a read-only handle caught up
//! (no change sets reach it), one background thread builds a new table — single-flight — while
//! readers go on with the overlay or the plain store view; none of them waits for a build.
//!
//! With [`TableMode::StoreOnly`] no table is ever built: every query reads the store
//! ([`StoreView`]), which is what a one-shot process wants.

use crate::overlay::{Dirty, Overlaid};
use crate::source::{NodeSource, StoreOps, StoreView};
use crate::table::NodeTable;
use cairn_store::{ChangeSet, EngineError, Graph};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

/// Changed nodes an overlay takes before the keeper builds a fresh table in the background.
pub const MERGE_AFTER: usize = 10_000;

/// Whether a process keeps an in-memory node table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TableMode {
    /// Build the table in the background on first use and keep it current with change sets;
    /// queries read the store until it is ready. For long-running processes.
    #[default]
    Background,
    /// Never build one: every query reads the store. For one-shot processes.
    StoreOnly,
}

/// What a query reads node facts through (see [`TableKeeper::source`]).
#[derive(Debug)]
pub enum Source<'g> {
    Store(StoreView<'g>),
    Overlaid(Overlaid<'g>),
}

impl Source<'_> {
    /// The store operations the query issued through it (those of the store view part).
    pub fn ops(&self) -> StoreOps {
        match self {
            Source::Store(s) => s.ops(),
            Source::Overlaid(o) => o.store().ops(),
        }
    }

    /// How many nodes it reads from the store although a table is in use (changed since the
    /// table's build); 0 without a table.
    pub fn changed_nodes(&self) -> usize {
        match self {
            Source::Store(_) => 0,
            Source::Overlaid(o) => o.changed_nodes(),
        }
    }

    /// Whether it reads through an in-memory table.
    pub fn has_table(&self) -> bool {
        matches!(self, Source::Overlaid(_))
    }
}

/// A source is read as the view or overlay it holds.
impl<'g> std::ops::Deref for Source<'g> {
    type Target = dyn NodeSource + 'g;

    fn deref(&self) -> &Self::Target {
        match self {
            Source::Store(s) => s,
            Source::Overlaid(o) => o,
        }
    }
}

/// The node table of one process's database handle (see the module docs).
pub struct TableKeeper {
    inner: Arc<Inner>,
    worker: Mutex<Option<JoinHandle<()>>>,
}

struct Inner {
    graph: Arc<Graph>,
    mode: TableMode,
    state: Mutex<State>,
    builds: AtomicU64,
    merges: AtomicU64,
    /// Set on drop: a running build gives up.
    stop: AtomicBool,
}

struct State {
    changes: Receiver<Arc<ChangeSet>>,
    /// The last commit whose change set was taken in.
    seen: u64,
    base: Option<Arc<NodeTable>>,
    /// The commit `base` is complete up to.
    base_commit: u64,
    /// Change sets after `base_commit`, kept so that a build finishing at a later commit
    /// can recompute which nodes it does not cover.
    pending: Vec<Arc<ChangeSet>>,
    dirty: Arc<Dirty>,
    /// A build must have started at or after this commit to be usable (an import, or a gap in
    /// the change sets, made every older table unusable).
    valid_from: u64,
    building: bool,
}

impl std::fmt::Debug for TableKeeper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableKeeper")
            .field("mode", &self.inner.mode)
            .field("builds", &self.builds())
            .finish()
    }
}

impl TableKeeper {
    pub fn new(graph: Arc<Graph>, mode: TableMode) -> Self {
        let changes = graph.subscribe();
        let seen = graph.commits();
        TableKeeper {
            inner: Arc::new(Inner {
                graph,
                mode,
                state: Mutex::new(State {
                    changes,
                    seen,
                    base: None,
                    base_commit: 0,
                    pending: Vec::new(),
                    dirty: Arc::new(Dirty::default()),
                    valid_from: seen,
                    building: false,
                }),
                builds: AtomicU64::new(0),
                merges: AtomicU64::new(0),
                stop: AtomicBool::new(false),
            }),
            worker: Mutex::new(None),
        }
    }

    pub fn mode(&self) -> TableMode {
        self.inner.mode
    }

    /// Node-table builds so far (background and [`TableKeeper::table_now`]).
    pub fn builds(&self) -> u64 {
        self.inner.builds.load(Ordering::SeqCst)
    }

    /// Tables made by merging a large overlay into a copy of the kept table.
    pub fn merges(&self) -> u64 {
        self.inner.merges.load(Ordering::SeqCst)
    }

    /// What a query embedding with `embedder_id` should read through now: the table with its
    /// overlay when one is usable, else the store. Never waits for a build; in
    /// [`TableMode::Background`] it starts one when none is usable or the overlay grew past
    /// [`MERGE_AFTER`].
    pub fn source(&self, embedder_id: &str) -> Source<'_> {
        let graph: &Graph = &self.inner.graph;
        let mut state = self.inner.lock();
        state.take_changes(graph);
        let usable = state.base.as_ref().filter(|b| b.embedder() == embedder_id);
        let wants_build = usable.is_none_or(|_| state.dirty.len() > MERGE_AFTER);
        let source = match usable {
            Some(base) => Source::Overlaid(Overlaid::new(
                Arc::clone(base),
                Arc::clone(&state.dirty),
                StoreView::new(graph, embedder_id),
            )),
            None => Source::Store(StoreView::new(graph, embedder_id)),
        };
        if wants_build && self.inner.mode == TableMode::Background && !state.building {
            state.building = true;
            let start = state.seen;
            // a large overlay on a usable table is merged into a copy of it, not rebuilt
            let from = match &source {
                Source::Overlaid(_) => state
                    .base
                    .as_ref()
                    .map(|b| (Arc::clone(b), Arc::clone(&state.dirty))),
                Source::Store(_) => None,
            };
            drop(state);
            self.spawn_build(embedder_id.to_owned(), start, from);
        }
        source
    }

    /// A table with no overlay, current as of now: the kept one when nothing changed since
    /// it was built, else one built here (blocking; it becomes the kept table).
    pub fn table_now(&self, embedder_id: &str) -> Result<Arc<NodeTable>, EngineError> {
        let graph: &Graph = &self.inner.graph;
        let start = {
            let mut state = self.inner.lock();
            state.take_changes(graph);
            if let Some(b) = state
                .base
                .as_ref()
                .filter(|b| b.embedder() == embedder_id && state.dirty.is_empty())
            {
                return Ok(Arc::clone(b));
            }
            state.seen
        };
        let table = Arc::new(self.inner.build(embedder_id)?);
        self.inner.adopt(Arc::clone(&table), start);
        Ok(table)
    }

    /// Builds a table complete up to commit `start` on a background thread: from the store, or
    /// `from` a table and the nodes changed since it (all of commits after it up to `start`).
    fn spawn_build(
        &self,
        embedder_id: String,
        start: u64,
        from: Option<(Arc<NodeTable>, Arc<Dirty>)>,
    ) {
        let inner = Arc::clone(&self.inner);
        let mut worker = self.worker.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(done) = worker.take() {
            // The previous build has finished (`building` was clear): reap its thread.
            let _ = done.join();
        }
        let spawned = std::thread::Builder::new()
            .name("cairn-node-table".into())
            .spawn(move || {
                let built = match &from {
                    Some((base, dirty)) => inner.merge(base, dirty),
                    None => inner.build(&embedder_id),
                };
                match built {
                    Ok(table) => inner.adopt(Arc::new(table), start),
                    Err(e) => {
                        if !inner.stop.load(Ordering::Relaxed) {
                            tracing::warn!("background node-table build failed: {e}");
                        }
                    }
                }
                inner.lock().building = false;
            });
        match spawned {
            Ok(handle) => *worker = Some(handle),
            // No thread: queries keep reading the store; the next one tries again.
            Err(_) => self.inner.lock().building = false,
        }
    }
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Every update of the state is a few assignments that cannot panic half-way.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Builds a table. Started after the change set of commit `start` was taken in, it sees
    /// every commit up to `start` (change sets are sent after their batch is written); what
    /// it sees of later ones does not matter, as their nodes are read from the store.
    fn build(&self, embedder_id: &str) -> Result<NodeTable, EngineError> {
        self.builds.fetch_add(1, Ordering::SeqCst);
        NodeTable::build_until(&self.graph, embedder_id, &self.stop)
    }

    /// [`NodeTable::merged`] (counted apart from builds).
    fn merge(&self, base: &NodeTable, dirty: &Dirty) -> Result<NodeTable, EngineError> {
        self.merges.fetch_add(1, Ordering::SeqCst);
        base.merged(&self.graph, dirty.iter(), &self.stop)
    }

    /// Makes `table`, complete up to commit `start`, the kept table, unless a later one is
    /// kept already or a change after `start` made it unusable.
    fn adopt(&self, table: Arc<NodeTable>, start: u64) {
        let mut state = self.lock();
        state.take_changes(&self.graph);
        if start < state.valid_from || (state.base.is_some() && start < state.base_commit) {
            return;
        }
        state.base = Some(table);
        state.base_commit = start;
        state.pending.retain(|c| c.commit > start);
        let mut dirty = Dirty::default();
        for c in &state.pending {
            mark(&mut dirty, c);
        }
        state.dirty = Arc::new(dirty);
    }
}

impl State {
    /// Takes in the change sets sent since the last call.
    fn take_changes(&mut self, graph: &Graph) {
        loop {
            match self.changes.try_recv() {
                Ok(c) => {
                    if c.commit <= self.seen {
                        continue;
                    }
                    if c.commit != self.seen + 1 || c.imported.is_some() {
                        self.invalidate(c.commit);
                    } else if self.base.is_some() || self.building {
                        mark(Arc::make_mut(&mut self.dirty), &c);
                        self.pending.push(Arc::clone(&c));
                    }
                    self.seen = c.commit;
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    // Cannot happen while the graph lives; start over from the store.
                    let commits = graph.commits();
                    self.invalidate(commits);
                    self.seen = commits;
                    break;
                }
            }
        }
        // A read-only handle's catch-up moves the counter without sending change sets.
        if graph.is_read_only() && graph.commits() != self.seen {
            let commits = graph.commits();
            self.invalidate(commits);
            self.seen = commits;
        }
    }

    fn invalidate(&mut self, commit: u64) {
        self.base = None;
        self.pending.clear();
        self.dirty = Arc::new(Dirty::default());
        self.valid_from = commit;
    }
}

/// Marks every node whose facts or edges `c` changed.
fn mark(dirty: &mut Dirty, c: &ChangeSet) {
    for id in c
        .nodes_upserted
        .iter()
        .chain(&c.nodes_removed)
        .chain(&c.vectors_touched)
    {
        dirty.insert(*id);
    }
    for (a, _, b) in c.edges_added.iter().chain(&c.edges_removed) {
        dirty.insert(*a);
        dirty.insert(*b);
    }
}

impl Drop for TableKeeper {
    fn drop(&mut self) {
        self.inner.stop.store(true, Ordering::SeqCst);
        let worker = self
            .worker
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(handle) = worker {
            let _ = handle.join();
        }
    }
}
