//! The graph store: opening a database and reading it.

use crate::cache::NodeCache;
use crate::catalog::Catalog;
use crate::changes::Subscribers;
use crate::error::{EngineError, Result};
use crate::lock::{WriterLock, WriterSlot, WriterState};
use crate::marker;
use crate::storage::rocks::{RocksOptions, RocksStorage};
use crate::storage::{successor, KvRead, Read, Scan, Space, Storage};
use cairn_storage_format::keys::{edge_prefix, edge_rel_prefix};
use cairn_storage_format::records::{decode_u64, decode_vector, decode_vector_into};
use cairn_storage_format::{
    AnnotationsRecord, CatalogRecord, Degree, EdgeProps, ExternalKey, LabelId, LinkingRecord,
    MetaKey, NameKey, NodeId, NodeKey, NodeRecord, OutEdgeKey, PropIndexKey, PropKeyId, RelId,
    Value, FORMAT_VERSION,
};
use parking_lot::{Mutex, RwLock};
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::SystemTime;

/// Whether a database is opened as its writer or as a reader beside one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OpenMode {
    /// The one writer (and any number of readers in the same process). Takes RocksDB's `LOCK`
    /// file, so a second open of the same database fails with [`EngineError::Locked`].
    #[default]
    ReadWrite,
    /// A reader beside the writer, in another process: a RocksDB secondary instance. It sees
    /// the database as of the open, and as of each [`Graph::catch_up`] later; every write is
    /// refused with [`EngineError::ReadOnly`], and a missing database is an error, never created.
    ReadOnly,
}

/// How to open a database.
#[derive(Clone, Debug)]
pub struct GraphOptions {
    /// Create the database if the directory holds none. Default: true.
    pub create_if_missing: bool,
    /// Decoded node records kept in memory for hot reads; 0 disables the cache. Default: 100,000.
    pub node_cache_capacity: usize,
    /// RocksDB block cache shared by all column families, in bytes. Default: 256 MiB.
    pub block_cache_bytes: usize,
    /// fsync the write-ahead log on every commit. Off by default: a committed batch already
    /// survives a killed process (it is in the OS page cache); this adds power-loss durability.
    pub sync_writes: bool,
    /// Writer or reader beside one. Default: [`OpenMode::ReadWrite`].
    pub mode: OpenMode,
}

impl Default for GraphOptions {
    fn default() -> Self {
        GraphOptions {
            mode: OpenMode::ReadWrite,
            create_if_missing: true,
            node_cache_capacity: 100_000,
            block_cache_bytes: 256 << 20,
            sync_writes: false,
        }
    }
}

/// Direction of the edges to list from a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Edges whose source is the node.
    Out,
    /// Edges whose destination is the node.
    In,
    /// Both, outgoing first.
    Both,
}

/// One edge seen from a node: the relation, the node at the other end, and which way it points.
#[derive(Clone, Debug, PartialEq)]
pub struct Neighbor {
    pub rel: RelId,
    pub node: NodeId,
    /// `Out` if the edge leaves the node we listed from, `In` if it arrives there.
    pub direction: Direction,
    pub props: EdgeProps,
}

/// What a step of a search reads of one node at once ([`GraphRead::node_bundles`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeBundle {
    /// `None`: no such node (or one an uncommitted import handed out).
    pub record: Option<Arc<NodeRecord>>,
    pub degree: Degree,
    /// The stored vector, when asked for and there is one.
    pub vector: Option<Vec<f32>>,
    /// Out-edges as (relation, destination), in key order, when asked for.
    pub out: Vec<(RelId, NodeId)>,
    /// In-edges as (relation, source), in key order, when asked for.
    pub inc: Vec<(RelId, NodeId)>,
}

/// An embedded graph database on a key-value engine (RocksDB; the storage boundary is
/// [`crate::storage`]): one writer at a time, any number of readers.
///
/// `Graph` is `Send + Sync`; share it with `Arc`. Reads through `Graph` see the latest committed
/// state; for several reads that must agree with each other, take a [`GraphSnapshot`].
pub struct Graph {
    pub(crate) storage: Box<dyn Storage>,
    pub(crate) path: PathBuf,
    pub(crate) catalog: RwLock<Arc<Catalog>>,
    /// The single writer's lock and state (see `lock.rs`).
    writer: WriterSlot,
    /// The commit counter as of the last commit, for readers (the writer's copy is in `writer`).
    pub(crate) commits: AtomicU64,
    /// The last commit that changed what a vector index holds (see `Graph::vectors_changed_at`).
    pub(crate) vectors_at: AtomicU64,
    /// The largest degree (see `Graph::max_degree`), as of the last commit.
    pub(crate) max_degree: AtomicU64,
    /// The next node id as of the last commit (or catch-up): no committed key names an id at
    /// or past it, so whole scans of node-keyed spaces stop there.
    pub(crate) next_id: AtomicU64,
    /// Reads issued to RocksDB by kind (see `Graph::read_ops`).
    pub(crate) ops: crate::stats::OpCounters,
    pub(crate) subscribers: Subscribers,
    pub(crate) cache: NodeCache,
    pub(crate) options: GraphOptions,
    /// `Some` when opened read-only.
    secondary: Option<Secondary>,
    /// In the writer: the first id of the bulk import that has ingested its files and not
    /// committed yet (`u64::MAX` when none), whose keys this process's own reads must not show
    /// either (see `Graph::committed_ids`).
    pub(crate) importing_from: AtomicU64,
}

/// A read-only open's state: what it last caught up to.
struct Secondary {
    /// The first node id not committed as of the last catch-up: keys of higher ids belong to
    /// an import that has ingested files but not committed, and scans skip them.
    committed_ids: AtomicU64,
    /// Whether the writer had such an import in progress at the last catch-up.
    import_pending: AtomicBool,
    /// When the view was last brought up to date; held during a catch-up, so catch-ups run
    /// one at a time.
    caught_up: Mutex<SystemTime>,
}

/// How current a read-only view is: see [`Graph::freshness`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Freshness {
    /// The storage's sequence number of the last write the view includes (RocksDB's: it grows
    /// with every commit of the writer, by the commit's number of operations).
    pub sequence: u64,
    /// When the view was opened or last caught up.
    pub as_of: SystemTime,
    /// The writer had ingested a bulk import's files but not committed it: its nodes are not
    /// in the view until a catch-up after the commit.
    pub import_pending: bool,
}

/// What is committed, read from `meta`: the catalog, the next node id, and whether an import
/// marker is present.
struct Committed {
    catalog: CatalogRecord,
    /// `meta/annotations` (absent in databases written before annotations: none).
    annotations: AnnotationsRecord,
    /// `meta/linking` (absent: every label links).
    linking: LinkingRecord,
    next_node_id: u64,
    /// The commit counter (`meta/commits`; 0 in databases written before it existed).
    commits: u64,
    /// `meta/vectors_at` (absent: 0).
    vectors_at: u64,
    import_pending: bool,
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("path", &self.path)
            .field("read_only", &self.is_read_only())
            .field("cache", &self.cache)
            .finish()
    }
}

impl Graph {
    /// Opens (or creates) the database in directory `path`.
    ///
    /// Fails with [`EngineError::Locked`] if another process has it open,
    /// [`EngineError::FutureFormat`] if a newer Cairn wrote it, and [`EngineError::NotCairn`] if
    /// the directory holds something else.
    ///
    /// A path of the form `redis://HOST:PORT[,HOST:PORT…]/NAME` opens database `NAME` on a Redis
    /// Cluster instead (docs/STORAGE.md, "Redis Cluster"), with the same API; its local files
    /// (the vector index, an import's spill) go to `cairn-cluster-NAME` in the temporary
    /// directory.
    pub fn open(path: impl AsRef<Path>, options: GraphOptions) -> Result<Graph> {
        if let Some(url) = path.as_ref().to_str().filter(|p| p.starts_with("redis://")) {
            return Graph::open_cluster(url, options);
        }
        let path = path.as_ref().to_path_buf();
        let storage = RocksStorage::open(
            &path,
            &RocksOptions {
                create_if_missing: options.create_if_missing,
                read_only: options.mode == OpenMode::ReadOnly,
                block_cache_bytes: options.block_cache_bytes,
            },
        )?;
        Graph::open_storage(path, Box::new(storage), options)
    }

    /// Opens database `url` (`redis://HOST:PORT[,…]/NAME`) on a Redis Cluster, creating it (with
    /// its format stamp) when it has none and `options` allow.
    fn open_cluster(url: &str, options: GraphOptions) -> Result<Graph> {
        use crate::storage::redis::{parse_url, RedisOptions, RedisStorage};
        let (seeds, name) = parse_url(url)?;
        let read_only = options.mode == OpenMode::ReadOnly;
        let storage = RedisStorage::open(&RedisOptions {
            seeds,
            name: name.clone(),
            read_only,
        })?;
        if get_meta(&storage, MetaKey::Format)?.is_none() {
            if read_only || !options.create_if_missing {
                return Err(EngineError::Missing { path: url.into() });
            }
            let mut stamp = crate::storage::Batch::default();
            stamp.put(
                Space::Meta,
                MetaKey::Format.encode(),
                cairn_storage_format::records::encode_u64(u64::from(FORMAT_VERSION)),
            );
            storage.commit(&stamp, true)?;
        }
        let local = std::env::temp_dir().join(format!("cairn-cluster-{name}"));
        std::fs::create_dir_all(&local).map_err(|source| EngineError::Io {
            path: local.clone(),
            source,
        })?;
        if !read_only {
            // The writer lease is held: what a writer that died left here is nobody's.
            crate::storage::rocks::remove_temporaries(&local)?;
        }
        Graph::open_storage(local, Box::new(storage), options)
    }

    /// Opens the database `storage` holds (`path`: its local directory, for messages and the
    /// files kept beside it): checks the format stamp, rolls back an interrupted import (a
    /// writer), reads what is committed.
    fn open_storage(
        path: PathBuf,
        storage: Box<dyn Storage>,
        options: GraphOptions,
    ) -> Result<Graph> {
        let read_only = options.mode == OpenMode::ReadOnly;
        // Stamped when the database was created, before anything else: a database without the
        // stamp is someone else's.
        let found = match get_meta(storage.as_read(), MetaKey::Format)? {
            None => {
                return Err(EngineError::NotCairn {
                    path,
                    reason: "no format stamp".into(),
                })
            }
            Some(bytes) => {
                let found = decode_u64(&bytes).map_err(EngineError::corrupt("format stamp"))?;
                if found > u64::from(FORMAT_VERSION) {
                    return Err(EngineError::FutureFormat {
                        path,
                        found,
                        supported: FORMAT_VERSION,
                    });
                }
                found
            }
        };
        // The writer rolls back an interrupted import; a reader cannot write, and the import
        // may still be running in the writer: it hides the marker's ids instead (see `Secondary`).
        if !read_only {
            marker::roll_back(&*storage)?;
        }
        let mut committed = read_committed(storage.as_read())?;
        let pieces = (
            &committed.catalog,
            committed.commits,
            committed.next_node_id,
        );
        if crate::names::upgrade(&*storage, &path, pieces, found, !read_only)? {
            committed.vectors_at = committed.commits;
        }
        let max_degree =
            crate::stats::load_max_degree(&*storage, committed.next_node_id, !read_only)?;
        let secondary = read_only.then(|| Secondary {
            committed_ids: AtomicU64::new(committed.next_node_id),
            import_pending: AtomicBool::new(committed.import_pending),
            caught_up: Mutex::new(SystemTime::now()),
        });
        Ok(Graph {
            storage,
            path,
            catalog: RwLock::new(Arc::new(
                Catalog::from_record(committed.catalog)
                    .with_annotations(committed.annotations)
                    .with_linking(committed.linking),
            )),
            writer: WriterSlot::new(WriterState {
                next_node_id: committed.next_node_id,
                commits: committed.commits,
            }),
            commits: AtomicU64::new(committed.commits),
            vectors_at: AtomicU64::new(committed.vectors_at),
            importing_from: AtomicU64::new(u64::MAX),
            max_degree: AtomicU64::new(max_degree),
            next_id: AtomicU64::new(committed.next_node_id),
            ops: Default::default(),
            subscribers: Subscribers::default(),
            cache: NodeCache::new(options.node_cache_capacity),
            options,
            secondary,
        })
    }

    /// Where the name index differs from a rebuild from the node records, one line per entry
    /// (missing, extra or with another label); empty when they agree. One scan of `node` and
    /// `name`: a consistency check (the tests and the crash harness use it), not for queries.
    pub fn name_index_drift(&self) -> Result<Vec<String>> {
        crate::names::drift(&*self.storage, self.visible_ids(), &self.catalog())
    }

    /// Opens the database in directory `path` read-only, beside a writer that may hold it in
    /// another process: [`Graph::open`] with [`OpenMode::ReadOnly`].
    pub fn open_read_only(path: impl AsRef<Path>, options: GraphOptions) -> Result<Graph> {
        Graph::open(
            path,
            GraphOptions {
                mode: OpenMode::ReadOnly,
                ..options
            },
        )
    }

    /// Whether this handle was opened read-only.
    pub fn is_read_only(&self) -> bool {
        self.secondary.is_some()
    }

    /// Fails with [`EngineError::ReadOnly`] on a read-only open: every write path checks it
    /// before it touches anything.
    pub fn ensure_writable(&self) -> Result<()> {
        match self.secondary {
            Some(_) => Err(EngineError::ReadOnly {
                path: self.path.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Brings a read-only view up to the writer's latest commit (RocksDB's
    /// `try_catch_up_with_primary`: the new part of the writer's log and file list) and, when
    /// that moved the view, reloads the catalog and the committed node ids and drops the cached
    /// records. Returns whether the view changed. On a writable open it does nothing (the
    /// writer's view is always current).
    ///
    /// Derived structures keyed by [`Graph::sequence`] (the executor's node table, the vector
    /// index) notice the change on their next use. Reads running while a catch-up runs may
    /// see the new records with the previous catalog.
    pub fn catch_up(&self) -> Result<bool> {
        let Some(secondary) = &self.secondary else {
            return Ok(false);
        };
        let mut caught_up = secondary.caught_up.lock();
        let moved = self.storage.catch_up()?;
        *caught_up = SystemTime::now();
        if !moved {
            return Ok(false);
        }
        let committed = read_committed(self.storage.as_read())?;
        secondary
            .committed_ids
            .store(committed.next_node_id, Ordering::SeqCst);
        secondary
            .import_pending
            .store(committed.import_pending, Ordering::SeqCst);
        *self.catalog.write() = Arc::new(
            Catalog::from_record(committed.catalog)
                .with_annotations(committed.annotations)
                .with_linking(committed.linking),
        );
        self.commits.store(committed.commits, Ordering::SeqCst);
        self.vectors_at
            .store(committed.vectors_at, Ordering::SeqCst);
        self.next_id.store(committed.next_node_id, Ordering::SeqCst);
        self.max_degree.store(
            crate::stats::load_max_degree(&*self.storage, committed.next_node_id, false)?,
            Ordering::SeqCst,
        );
        self.cache.invalidate_all();
        Ok(true)
    }

    /// How current a read-only view is; `None` for the writer's (always current) view.
    pub fn freshness(&self) -> Option<Freshness> {
        let secondary = self.secondary.as_ref()?;
        let as_of = *secondary.caught_up.lock();
        Some(Freshness {
            sequence: self.sequence(),
            as_of,
            import_pending: secondary.import_pending.load(Ordering::SeqCst),
        })
    }

    /// Bytes of recent writes this handle holds in memory (RocksDB: its memtables, all column
    /// families): on a fresh read-only open, what it replayed from the writer's log (a settled
    /// database leaves next to nothing there).
    pub fn memtable_bytes(&self) -> Result<u64> {
        self.storage.memory_bytes()
    }

    /// The read-only handle's own directory (a RocksDB secondary's: a temporary one), if any.
    pub fn secondary_dir(&self) -> Option<&Path> {
        self.storage.private_dir()
    }

    /// Requests sent to the storage's servers so far, one per server a batch reaches (`None`
    /// for an embedded engine such as RocksDB): subtract two readings to count one query's.
    pub fn round_trips(&self) -> Option<u64> {
        self.storage.round_trips()
    }

    /// The name of the key-value engine that holds the database (`"RocksDB"`).
    pub fn backend(&self) -> &'static str {
        self.storage.backend()
    }

    /// Ids at or past this are not committed (an import in progress in the writer): scans skip
    /// them and reads by id or by key treat them as absent. A read-only view knows them from its
    /// last catch-up; the writer's own view, from the import it is running.
    fn committed_ids(&self) -> u64 {
        self.secondary.as_ref().map_or_else(
            || self.importing_from.load(Ordering::SeqCst),
            |s| s.committed_ids.load(Ordering::SeqCst),
        )
    }

    /// The node ids whole scans visit: below the committed next id, and below any import
    /// in progress.
    pub(crate) fn visible_ids(&self) -> std::ops::Range<u64> {
        0..self
            .committed_ids()
            .min(self.next_id.load(Ordering::SeqCst))
    }

    /// The database directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The catalog as of now (cheap: an `Arc`).
    pub fn catalog(&self) -> Arc<Catalog> {
        Arc::clone(&self.catalog.read())
    }

    /// A consistent view of the database as of now, unaffected by later commits.
    pub fn snapshot(&self) -> GraphSnapshot<'_> {
        // Read before the snapshot is taken: an import committing in between is then hidden
        // (the view is older), never shown with part of its data.
        let committed = self.committed_ids();
        GraphSnapshot {
            graph: self,
            snapshot: self.storage.snapshot(),
            catalog: self.catalog(),
            committed,
        }
    }

    /// Record cache hits and misses since open.
    pub fn cache_stats(&self) -> (u64, u64) {
        self.cache.hits_misses()
    }

    /// The storage's estimate of the number of keys in a keyspace named as
    /// [`Space::name`] does (`node`, `out`, ...).
    pub fn estimate_keys(&self, space: &str) -> Result<u64> {
        let space = Space::from_name(space)
            .ok_or_else(|| EngineError::Invalid(format!("no keyspace `{space}`")))?;
        self.storage.estimate_keys(space)
    }

    /// The storage's latest sequence number (RocksDB's): it changes with every committed
    /// write, so a cache built at one sequence is current while the sequence is unchanged.
    pub fn sequence(&self) -> u64 {
        self.storage.sequence()
    }

    /// Calls `f` with every node's degree, in id order (one scan of the degree keyspace).
    pub fn scan_degrees(&self, mut f: impl FnMut(NodeId, Degree)) -> Result<()> {
        let ids = self.visible_ids();
        self.storage
            .scan(Space::Degree, Scan::Nodes(ids), &mut |k, v| {
                let id = NodeKey::decode(k).map_err(EngineError::corrupt("degree key"))?;
                f(
                    id.0,
                    Degree::decode(v).map_err(EngineError::corrupt("degree"))?,
                );
                Ok(true)
            })
    }

    /// Calls `f` with every stored vector, in id order (one scan of the vector keyspace).
    /// Does nothing when the catalog records no embedder.
    pub fn scan_vectors(&self, mut f: impl FnMut(NodeId, &[f32])) -> Result<()> {
        let Some(dim) = self.catalog().embedder().map(|e| e.dim as usize) else {
            return Ok(());
        };
        let ids = self.visible_ids();
        let mut buf = Vec::with_capacity(dim);
        self.storage
            .scan(Space::Vector, Scan::Nodes(ids), &mut |k, v| {
                let id = NodeKey::decode(k).map_err(EngineError::corrupt("vector key"))?;
                decode_vector_into(v, dim, &mut buf).map_err(EngineError::corrupt("vector"))?;
                f(id.0, &buf);
                Ok(true)
            })
    }

    /// Calls `f(node, rel, other)` for every edge in one direction, in key order (`node`
    /// ascending, then relation, then `other`): one scan of the `out` or `in` keyspace.
    pub fn scan_edges(
        &self,
        direction: Direction,
        mut f: impl FnMut(NodeId, RelId, NodeId),
    ) -> Result<()> {
        let spaces: &[Space] = match direction {
            Direction::Out => &[Space::Out],
            Direction::In => &[Space::In],
            Direction::Both => &[Space::Out, Space::In],
        };
        for space in spaces {
            let ids = self.visible_ids();
            self.storage.scan(*space, Scan::Nodes(ids), &mut |k, _| {
                // Both layouts are `node · rel · other`.
                let e = OutEdgeKey::decode(k).map_err(EngineError::corrupt("edge key"))?;
                f(e.src, e.rel, e.dst);
                Ok(true)
            })?;
        }
        Ok(())
    }

    /// Takes the single writer's lock (see `lock.rs` for the same-thread rule).
    pub(crate) fn lock_writer(&self, wait: Option<std::time::Duration>) -> Result<WriterLock<'_>> {
        self.writer.acquire(&self.path, wait)
    }

    pub(crate) fn reader(&self) -> Reader<'_> {
        Reader {
            graph: self,
            snapshot: None,
            catalog: self.catalog(),
            committed: self.committed_ids(),
        }
    }
}

/// A `meta` record's value.
pub(crate) fn get_meta(kv: &dyn KvRead, key: MetaKey) -> Result<Option<Vec<u8>>> {
    let mut out = None;
    kv.get(Space::Meta, key.encode(), &mut |v| {
        out = Some(v.to_vec());
        Ok(())
    })?;
    Ok(out)
}

/// The committed catalog, next node id and import marker, from `meta` (one multi-get).
fn read_committed(kv: &dyn KvRead) -> Result<Committed> {
    const KEYS: [MetaKey; 7] = [
        MetaKey::Catalog,
        MetaKey::Annotations,
        MetaKey::Linking,
        MetaKey::NextNodeId,
        MetaKey::Commits,
        MetaKey::VectorsAt,
        MetaKey::ImportPending,
    ];
    let keys: Vec<&[u8]> = KEYS.iter().map(|k| k.encode()).collect();
    let mut values: [Option<Vec<u8>>; 7] = Default::default();
    kv.multi_get(Space::Meta, &keys, &mut |i, v| {
        if let Some(slot) = values.get_mut(i) {
            *slot = Some(v.to_vec());
        }
        Ok(())
    })?;
    let [catalog, annotations, linking, next_node_id, commits, vectors_at, import_pending] = values;
    let u64_of = |v: Option<Vec<u8>>, what: &'static str| -> Result<u64> {
        v.map(|b| decode_u64(&b).map_err(EngineError::corrupt(what)))
            .transpose()
            .map(Option::unwrap_or_default)
    };
    Ok(Committed {
        catalog: catalog
            .map(|b| CatalogRecord::decode(&b).map_err(EngineError::corrupt("catalog")))
            .transpose()?
            .unwrap_or_default(),
        annotations: annotations
            .map(|b| AnnotationsRecord::decode(&b).map_err(EngineError::corrupt("annotations")))
            .transpose()?
            .unwrap_or_default(),
        linking: linking
            .map(|b| LinkingRecord::decode(&b).map_err(EngineError::corrupt("linking")))
            .transpose()?
            .unwrap_or_default(),
        next_node_id: u64_of(next_node_id, "node id counter")?,
        commits: u64_of(commits, "commit counter")?,
        vectors_at: u64_of(vectors_at, "vectors_at counter")?,
        import_pending: import_pending.is_some(),
    })
}

/// What the name index holds for one name ([`GraphRead::nodes_named`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameHits {
    /// The nodes of exactly this name with their labels, in node-id order.
    pub nodes: Vec<(NodeId, LabelId)>,
    /// Some longer name starts with this one and a space: a mention may go on.
    pub longer: bool,
}

/// A read-only, point-in-time view of the graph. Reads bypass the record cache (which holds
/// the latest state) and read the snapshot directly.
pub struct GraphSnapshot<'g> {
    graph: &'g Graph,
    snapshot: Box<dyn KvRead + 'g>,
    catalog: Arc<Catalog>,
    committed: u64,
}

impl std::fmt::Debug for GraphSnapshot<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphSnapshot")
            .field("path", &self.graph.path)
            .finish()
    }
}

/// Read operations, shared by [`Graph`] (latest state, cached) and [`GraphSnapshot`].
pub trait GraphRead {
    #[doc(hidden)]
    fn reader(&self) -> Reader<'_>;

    /// The catalog this view resolves names with.
    fn catalog_view(&self) -> Arc<Catalog> {
        self.reader().catalog
    }
    /// The node record with id `id`.
    fn node(&self, id: NodeId) -> Result<Option<Arc<NodeRecord>>> {
        self.reader().node(id)
    }
    /// Records of many nodes at once (one batched multi-get for the cache misses).
    fn nodes(&self, ids: &[NodeId]) -> Result<Vec<Option<Arc<NodeRecord>>>> {
        self.reader().nodes(ids)
    }
    /// The id of the node with external key `key` under `label`.
    fn node_id(&self, label: &str, key: &str) -> Result<Option<NodeId>> {
        let r = self.reader();
        match r.catalog.label_id(label) {
            Some(l) => r.node_id(l, key),
            None => Ok(None),
        }
    }
    /// Edges of `node` in `direction`, restricted to relations `rels` (all when empty).
    fn neighbors(
        &self,
        node: NodeId,
        direction: Direction,
        rels: &[RelId],
    ) -> Result<Vec<Neighbor>> {
        let mut out = Vec::new();
        self.reader()
            .neighbors_into(node, direction, rels, &mut out)?;
        Ok(out)
    }
    /// Like [`GraphRead::neighbors`], appending into a caller's buffer.
    fn neighbors_into(
        &self,
        node: NodeId,
        direction: Direction,
        rels: &[RelId],
        out: &mut Vec<Neighbor>,
    ) -> Result<()> {
        self.reader().neighbors_into(node, direction, rels, out)
    }
    /// Out- and in-degree of a node (0/0 for a node without edges or that does not exist).
    fn degree(&self, node: NodeId) -> Result<Degree> {
        self.reader().degree(node)
    }
    /// Up to `limit` nodes with ids from `start` on, in id order (one range scan of the node
    /// records): a page of a walk over every node that holds one page at a time (an export).
    fn nodes_from(&self, start: NodeId, limit: usize) -> Result<Vec<(NodeId, Arc<NodeRecord>)>> {
        self.reader().nodes_from(start, limit)
    }
    /// Nodes of `label` whose property `prop` equals `value`: an index lookup when the index is
    /// declared, a scan of the label's nodes otherwise.
    fn find_eq(&self, label: &str, prop: &str, value: &Value) -> Result<Vec<NodeId>> {
        self.find_range(label, prop, Bound::Included(value), Bound::Included(value))
    }
    /// Nodes of `label` whose property `prop` lies in the range, in value order (index) or id
    /// order (scan). Values compare within one type (see `Value::index_cmp`).
    fn find_range(
        &self,
        label: &str,
        prop: &str,
        lo: Bound<&Value>,
        hi: Bound<&Value>,
    ) -> Result<Vec<NodeId>> {
        let r = self.reader();
        let (Some(l), Some(p)) = (r.catalog.label_id(label), r.catalog.prop_id(prop)) else {
            return Ok(vec![]);
        };
        r.find_range(l, p, lo, hi)
    }
    /// Walks the property index on (`label`, `prop`) over the values in `range`, in value
    /// order or (`reverse`) from the largest, starting after the entry `after` (the last one a
    /// previous walk saw, to resume it) when given, handing `visit` each node and its value
    /// until it returns false; `Ok(false)` when no such index exists. Values order by type
    /// first (null, bool, int, float, string), then within their type (`Value::index_cmp`);
    /// equal values by node id.
    fn scan_index(
        &self,
        label: LabelId,
        prop: PropKeyId,
        range: (Bound<&Value>, Bound<&Value>),
        reverse: bool,
        after: Option<(&Value, NodeId)>,
        visit: &mut dyn FnMut(NodeId, Value) -> bool,
    ) -> Result<bool> {
        self.reader()
            .scan_index(label, prop, range, reverse, after, visit)
    }
    /// Whether a property index on (`label`, `prop`) exists.
    fn has_index(&self, label: LabelId, prop: PropKeyId) -> bool {
        self.reader().catalog.has_index(label, prop)
    }
    /// All nodes of a label, in external-key order.
    fn label_nodes(&self, label: LabelId) -> Result<Vec<NodeId>> {
        self.reader().label_nodes(label)
    }
    /// The first `limit` nodes of a label, in external-key order (one prefix scan that stops
    /// there).
    fn label_nodes_first(&self, label: LabelId, limit: usize) -> Result<Vec<NodeId>> {
        self.reader().label_nodes_limit(label, limit)
    }
    /// The nodes whose name is exactly `name` (normalised, as [`crate::describe::normalize_name`]
    /// writes it) and whether longer names start with it: one seek of the name index.
    fn nodes_named(&self, name: &str) -> Result<NameHits> {
        self.reader().nodes_named(name)
    }
    /// Degrees of many nodes at once (one batched multi-get).
    fn degrees(&self, ids: &[NodeId]) -> Result<Vec<Degree>> {
        self.reader().degrees(ids)
    }
    /// Stored vectors of many nodes at once; `None` for nodes without one. Empty when the
    /// database records no embedder.
    fn vectors(&self, ids: &[NodeId]) -> Result<Vec<Option<Vec<f32>>>> {
        self.reader().vectors(ids)
    }
    /// Records, degrees, and (when asked) vectors and the edges in `edges`' directions of many
    /// nodes in one read of the storage: one round trip per shard on a cluster, whatever the
    /// mix. Records read go to the record cache.
    fn node_bundles(
        &self,
        ids: &[NodeId],
        vectors: bool,
        edges: Option<Direction>,
    ) -> Result<Vec<NodeBundle>> {
        self.reader().node_bundles(ids, vectors, edges)
    }
}

impl GraphRead for Graph {
    fn reader(&self) -> Reader<'_> {
        Graph::reader(self)
    }
}

impl GraphRead for GraphSnapshot<'_> {
    fn reader(&self) -> Reader<'_> {
        Reader {
            graph: self.graph,
            snapshot: Some(&*self.snapshot),
            catalog: Arc::clone(&self.catalog),
            committed: self.committed,
        }
    }
}

/// Reads against the latest state (through the cache) or a snapshot.
#[doc(hidden)]
pub struct Reader<'a> {
    graph: &'a Graph,
    snapshot: Option<&'a dyn KvRead>,
    pub(crate) catalog: Arc<Catalog>,
    /// `Graph::committed_ids` when the view was taken: a snapshot keeps hiding an import that
    /// commits after it.
    committed: u64,
}

impl std::fmt::Debug for Reader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("snapshot", &self.snapshot.is_some())
            .finish()
    }
}

/// Decodes a node id stored as a value.
fn id_value(v: &[u8], what: &'static str) -> Result<NodeId> {
    Ok(NodeId(decode_u64(v).map_err(EngineError::corrupt(what))?))
}

impl Reader<'_> {
    /// The state read: the snapshot's, or the latest.
    fn kv(&self) -> &dyn KvRead {
        match self.snapshot {
            Some(s) => s,
            None => self.graph.storage.as_read(),
        }
    }

    /// A node of an import the writer has not committed (read-only views only; see
    /// `Graph::committed_ids`): reads by id treat it as absent.
    fn hidden(&self, id: NodeId) -> bool {
        id.0 >= self.committed
    }

    /// One point get, its value decoded by `decode`.
    fn get<T>(
        &self,
        space: Space,
        key: &[u8],
        decode: impl FnOnce(&[u8]) -> Result<T>,
    ) -> Result<Option<T>> {
        self.graph.ops.count(crate::stats::Op::PointGet);
        let mut decode = Some(decode);
        let mut out = None;
        self.kv().get(space, key, &mut |v| {
            if let Some(d) = decode.take() {
                out = Some(d(v)?);
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// One multi-get of the node-keyed `space` for `ids` (ids an uncommitted import handed out
    /// read as absent: `hidden`), each value decoded by `decode` into its slot of `out`.
    fn multi_get_by_id<T>(
        &self,
        space: Space,
        ids: &[NodeId],
        out: &mut [Option<T>],
        mut decode: impl FnMut(&[u8]) -> Result<T>,
    ) -> Result<()> {
        let encoded: Vec<[u8; 8]> = ids.iter().map(|id| NodeKey(*id).encode()).collect();
        let keys: Vec<&[u8]> = encoded.iter().map(|k| k.as_slice()).collect();
        self.graph.ops.count(crate::stats::Op::MultiGet);
        self.kv().multi_get(space, &keys, &mut |i, v| {
            if let (Some(id), Some(slot)) = (ids.get(i), out.get_mut(i)) {
                if !self.hidden(*id) {
                    *slot = Some(decode(v)?);
                }
            }
            Ok(())
        })
    }

    /// The node record, through the cache unless reading a snapshot.
    pub fn node(&self, id: NodeId) -> Result<Option<Arc<NodeRecord>>> {
        if self.hidden(id) {
            return Ok(None);
        }
        let cached = self.snapshot.is_none();
        if cached {
            if let Some(rec) = self.graph.cache.get(id) {
                return Ok(Some(rec));
            }
        }
        let ticket = self.graph.cache.ticket();
        let Some(rec) = self.get(Space::Node, &NodeKey(id).encode(), |bytes| {
            NodeRecord::decode(bytes).map_err(EngineError::corrupt("node record"))
        })?
        else {
            return Ok(None);
        };
        let rec = Arc::new(rec);
        if cached {
            self.graph.cache.fill(&ticket, id, &rec);
        }
        Ok(Some(rec))
    }

    pub(crate) fn nodes(&self, ids: &[NodeId]) -> Result<Vec<Option<Arc<NodeRecord>>>> {
        let cached = self.snapshot.is_none();
        let mut out: Vec<Option<Arc<NodeRecord>>> = vec![None; ids.len()];
        let mut missing = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            if self.hidden(*id) {
                continue;
            }
            match cached.then(|| self.graph.cache.get(*id)).flatten() {
                Some(rec) => out[i] = Some(rec),
                None => missing.push(i),
            }
        }
        if missing.is_empty() {
            return Ok(out);
        }
        let ticket = self.graph.cache.ticket();
        let missing_ids: Vec<NodeId> = missing.iter().map(|&i| ids[i]).collect();
        let mut found: Vec<Option<NodeRecord>> = vec![None; missing.len()];
        self.multi_get_by_id(Space::Node, &missing_ids, &mut found, |bytes| {
            NodeRecord::decode(bytes).map_err(EngineError::corrupt("node record"))
        })?;
        for (&i, rec) in missing.iter().zip(found) {
            if let Some(rec) = rec {
                let rec = Arc::new(rec);
                if cached {
                    self.graph.cache.fill(&ticket, ids[i], &rec);
                }
                out[i] = Some(rec);
            }
        }
        Ok(out)
    }

    /// The id of the node with this label id and key.
    pub fn node_id(&self, label: LabelId, key: &str) -> Result<Option<NodeId>> {
        let k = ExternalKey {
            label,
            key: key.to_owned(),
        }
        .encode();
        Ok(self
            .get(Space::NodeKey, &k, |v| id_value(v, "node key index"))?
            .filter(|id| !self.hidden(*id)))
    }

    /// The ids of the nodes with these label ids and keys, in one multi-get (`None`: no such
    /// node).
    pub fn node_ids(&self, keys: &[(LabelId, &str)]) -> Result<Vec<Option<NodeId>>> {
        let encoded: Vec<Vec<u8>> = keys
            .iter()
            .map(|(label, key)| {
                let mut k = Vec::with_capacity(4 + key.len());
                ExternalKey::encode_into(*label, key, &mut k);
                k
            })
            .collect();
        let slices: Vec<&[u8]> = encoded.iter().map(Vec::as_slice).collect();
        let mut out = vec![None; keys.len()];
        self.graph.ops.count(crate::stats::Op::MultiGet);
        self.kv().multi_get(Space::NodeKey, &slices, &mut |i, v| {
            let id = id_value(v, "node key index")?;
            if let Some(slot) = out.get_mut(i) {
                *slot = Some(id).filter(|id| !self.hidden(*id));
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// The properties of edge (src, rel, dst), if it exists.
    pub fn edge(&self, src: NodeId, rel: RelId, dst: NodeId) -> Result<Option<EdgeProps>> {
        self.get(
            Space::Out,
            &OutEdgeKey { src, rel, dst }.encode(),
            |bytes| EdgeProps::decode(bytes).map_err(EngineError::corrupt("edge properties")),
        )
    }

    pub(crate) fn neighbors_into(
        &self,
        node: NodeId,
        direction: Direction,
        rels: &[RelId],
        out: &mut Vec<Neighbor>,
    ) -> Result<()> {
        if self.hidden(node) {
            return Ok(());
        }
        if matches!(direction, Direction::Out | Direction::Both) {
            self.scan_edges(Space::Out, node, rels, Direction::Out, out)?;
        }
        if matches!(direction, Direction::In | Direction::Both) {
            self.scan_edges(Space::In, node, rels, Direction::In, out)?;
        }
        Ok(())
    }

    /// One prefix scan per relation in `rels` (or one over the node's whole prefix).
    fn scan_edges(
        &self,
        space: Space,
        node: NodeId,
        rels: &[RelId],
        direction: Direction,
        out: &mut Vec<Neighbor>,
    ) -> Result<()> {
        let mut scan = |prefix: &[u8]| -> Result<()> {
            self.graph.ops.count(crate::stats::Op::PrefixScan);
            let end = successor(prefix);
            self.kv()
                .scan(space, Scan::prefix(prefix, &end), &mut |k, v| {
                    // Both edge key layouts are `node · rel · other`.
                    let key = OutEdgeKey::decode(k).map_err(EngineError::corrupt("edge key"))?;
                    let props =
                        EdgeProps::decode(v).map_err(EngineError::corrupt("edge properties"))?;
                    out.push(Neighbor {
                        rel: key.rel,
                        node: key.dst,
                        direction,
                        props,
                    });
                    Ok(true)
                })
        };
        if rels.is_empty() {
            scan(&edge_prefix(node))
        } else {
            rels.iter()
                .try_for_each(|rel| scan(&edge_rel_prefix(node, *rel)))
        }
    }

    pub(crate) fn nodes_from(
        &self,
        start: NodeId,
        limit: usize,
    ) -> Result<Vec<(NodeId, Arc<NodeRecord>)>> {
        let mut out = Vec::new();
        if limit == 0 || self.hidden(start) {
            return Ok(out);
        }
        self.graph.ops.count(crate::stats::Op::PrefixScan);
        // Ids an uncommitted import handed out (`hidden`) are past `committed`: not scanned;
        // nor ids never handed out (`committed` is unbounded when no import runs, and a
        // cluster's node scan walks the id range a page at a time, not its keys).
        let end = self
            .committed
            .min(self.graph.next_id.load(Ordering::SeqCst));
        let scan = Scan::Nodes(start.0..end);
        self.kv().scan(Space::Node, scan, &mut |k, v| {
            let id = NodeKey::decode(k)
                .map_err(EngineError::corrupt("node key"))?
                .0;
            let rec = NodeRecord::decode(v).map_err(EngineError::corrupt("node record"))?;
            out.push((id, Arc::new(rec)));
            Ok(out.len() < limit)
        })?;
        Ok(out)
    }

    pub(crate) fn degree(&self, node: NodeId) -> Result<Degree> {
        if self.hidden(node) {
            return Ok(Degree::default());
        }
        Ok(self
            .get(Space::Degree, &NodeKey(node).encode(), |bytes| {
                Degree::decode(bytes).map_err(EngineError::corrupt("degree"))
            })?
            .unwrap_or_default())
    }

    pub(crate) fn degrees(&self, ids: &[NodeId]) -> Result<Vec<Degree>> {
        let mut out = vec![None; ids.len()];
        self.multi_get_by_id(Space::Degree, ids, &mut out, |bytes| {
            Degree::decode(bytes).map_err(EngineError::corrupt("degree"))
        })?;
        Ok(out.into_iter().map(Option::unwrap_or_default).collect())
    }

    pub(crate) fn vectors(&self, ids: &[NodeId]) -> Result<Vec<Option<Vec<f32>>>> {
        let Some(dim) = self.catalog.embedder().map(|e| e.dim as usize) else {
            return Ok(vec![None; ids.len()]);
        };
        let mut out = vec![None; ids.len()];
        self.multi_get_by_id(Space::Vector, ids, &mut out, |bytes| {
            decode_vector(bytes, dim).map_err(EngineError::corrupt("vector"))
        })?;
        Ok(out)
    }

    pub(crate) fn node_bundles(
        &self,
        ids: &[NodeId],
        vectors: bool,
        edges: Option<Direction>,
    ) -> Result<Vec<NodeBundle>> {
        #[derive(Clone, Copy)]
        enum Part {
            Record,
            Degree,
            Vector,
            Out,
            In,
        }
        let dim = self
            .catalog
            .embedder()
            .map(|e| e.dim as usize)
            .filter(|_| vectors);
        let (out_edges, in_edges) = match edges {
            None => (false, false),
            Some(Direction::Out) => (true, false),
            Some(Direction::In) => (false, true),
            Some(Direction::Both) => (true, true),
        };
        let cached = self.snapshot.is_none();
        let mut out = vec![NodeBundle::default(); ids.len()];
        let keys: Vec<[u8; 8]> = ids.iter().map(|id| NodeKey(*id).encode()).collect();
        let mut reads = Vec::new();
        let mut parts = Vec::new();
        for ((i, id), key) in ids.iter().enumerate().zip(&keys) {
            if self.hidden(*id) {
                continue;
            }
            let mut want = |read, part| {
                reads.push(read);
                parts.push((i, part));
            };
            match cached.then(|| self.graph.cache.get(*id)).flatten() {
                Some(rec) => out[i].record = Some(rec),
                None => want(Read::Get(Space::Node, key), Part::Record),
            }
            want(Read::Get(Space::Degree, key), Part::Degree);
            if dim.is_some() {
                want(Read::Get(Space::Vector, key), Part::Vector);
            }
            if out_edges {
                want(Read::Node(Space::Out, id.0), Part::Out);
            }
            if in_edges {
                want(Read::Node(Space::In, id.0), Part::In);
            }
        }
        if reads.is_empty() {
            return Ok(out);
        }
        let ticket = self.graph.cache.ticket();
        self.graph.ops.count(crate::stats::Op::MultiGet);
        self.kv().multi_read(&reads, &mut |r, k, v| {
            let Some((i, part)) = parts.get(r).copied() else {
                return Ok(());
            };
            let Some(b) = out.get_mut(i) else {
                return Ok(());
            };
            match part {
                Part::Record => {
                    let rec = NodeRecord::decode(v).map_err(EngineError::corrupt("node record"))?;
                    b.record = Some(Arc::new(rec));
                }
                Part::Degree => {
                    b.degree = Degree::decode(v).map_err(EngineError::corrupt("degree"))?;
                }
                Part::Vector => {
                    b.vector = Some(
                        decode_vector(v, dim.unwrap_or_default())
                            .map_err(EngineError::corrupt("vector"))?,
                    );
                }
                Part::Out | Part::In => {
                    // Both edge key layouts are `node · rel · other`.
                    let key = OutEdgeKey::decode(k).map_err(EngineError::corrupt("edge key"))?;
                    let list = if matches!(part, Part::Out) {
                        &mut b.out
                    } else {
                        &mut b.inc
                    };
                    list.push((key.rel, key.dst));
                }
            }
            Ok(())
        })?;
        if cached {
            for (id, b) in ids.iter().zip(&out) {
                if let Some(rec) = &b.record {
                    self.graph.cache.fill(&ticket, *id, rec);
                }
            }
        }
        Ok(out)
    }

    pub(crate) fn label_nodes(&self, label: LabelId) -> Result<Vec<NodeId>> {
        self.label_nodes_limit(label, usize::MAX)
    }

    pub(crate) fn label_nodes_limit(&self, label: LabelId, limit: usize) -> Result<Vec<NodeId>> {
        let prefix = ExternalKey::label_prefix(label);
        let end = successor(&prefix);
        self.graph.ops.count(crate::stats::Op::PrefixScan);
        let mut out = Vec::new();
        if limit == 0 {
            return Ok(out);
        }
        self.kv()
            .scan(Space::NodeKey, Scan::prefix(&prefix, &end), &mut |_, v| {
                let id = id_value(v, "node key index")?;
                if !self.hidden(id) {
                    out.push(id);
                }
                Ok(out.len() < limit)
            })?;
        Ok(out)
    }

    /// One seek to `name · 00`: the entries of the name, then a look at the next key, which
    /// starts with `name · 20` exactly when a longer name continues this one (docs/FORMAT.md).
    pub(crate) fn nodes_named(&self, name: &str) -> Result<NameHits> {
        let prefix = NameKey::name_prefix(name);
        let mut longer_prefix = name.as_bytes().to_vec();
        longer_prefix.push(b' ');
        let end = successor(&longer_prefix);
        self.graph.ops.count(crate::stats::Op::PrefixScan);
        let mut hits = NameHits::default();
        self.kv()
            .scan(Space::Name, Scan::prefix(&prefix, &end), &mut |k, v| {
                if !k.starts_with(&prefix) {
                    hits.longer = k.starts_with(&longer_prefix);
                    return Ok(false);
                }
                let key = NameKey::decode(k).map_err(EngineError::corrupt("name index key"))?;
                let label = LabelId(u32::from_be_bytes(v.try_into().map_err(|_| {
                    EngineError::Invalid("name index value is not a label".into())
                })?));
                if !self.hidden(key.node) {
                    hits.nodes.push((key.node, label));
                }
                Ok(true)
            })?;
        Ok(hits)
    }

    pub(crate) fn find_range(
        &self,
        label: LabelId,
        prop: PropKeyId,
        lo: Bound<&Value>,
        hi: Bound<&Value>,
    ) -> Result<Vec<NodeId>> {
        if !self.catalog.has_index(label, prop) {
            return self.scan_range(label, prop, lo, hi);
        }
        let mut out = Vec::new();
        self.scan_index(label, prop, (lo, hi), false, None, &mut |node, _| {
            out.push(node);
            true
        })?;
        Ok(out)
    }

    /// Walks the entries of the property index on (`label`, `prop`) whose value lies in
    /// `range`, in value order (`reverse`: from the largest), starting after the entry
    /// `after` (in the walk's order) when given, handing `visit` each node and value until it
    /// returns false. `Ok(false)` when the index does not exist.
    pub(crate) fn scan_index(
        &self,
        label: LabelId,
        prop: PropKeyId,
        (lo, hi): (Bound<&Value>, Bound<&Value>),
        reverse: bool,
        after: Option<(&Value, NodeId)>,
        visit: &mut dyn FnMut(NodeId, Value) -> bool,
    ) -> Result<bool> {
        if !self.catalog.has_index(label, prop) {
            return Ok(false);
        }
        let vp = |v: &Value| {
            PropIndexKey::value_prefix(label, prop, v)
                .map_err(EngineError::corrupt("property index key"))
        };
        let mut start = match lo {
            Bound::Included(v) => vp(v)?,
            Bound::Excluded(v) => match successor(&vp(v)?) {
                Some(s) => s,
                None => return Ok(true),
            },
            Bound::Unbounded => PropIndexKey::index_prefix(label, prop).to_vec(),
        };
        let mut end = match hi {
            Bound::Included(v) => successor(&vp(v)?),
            Bound::Excluded(v) => Some(vp(v)?),
            Bound::Unbounded => successor(&PropIndexKey::index_prefix(label, prop)),
        };
        if let Some((v, node)) = after {
            // The entry's own key: the next one forwards is the smallest key past it (the key
            // with a zero byte appended), the next one backwards any key below it.
            let mut key = vp(v)?;
            key.extend_from_slice(&node.0.to_be_bytes());
            if reverse {
                if end.as_ref().is_none_or(|e| key < *e) {
                    end = Some(key);
                }
            } else {
                key.push(0);
                if key > start {
                    start = key;
                }
            }
        }
        if end
            .as_ref()
            .is_some_and(|end| end.as_slice() <= start.as_slice())
        {
            return Ok(true);
        }
        self.graph.ops.count(crate::stats::Op::PrefixScan);
        let scan = if reverse {
            Scan::Reverse {
                start: &start,
                end: end.as_deref(),
            }
        } else {
            Scan::prefix(&start, &end)
        };
        self.kv().scan(Space::Prop, scan, &mut |k, _| {
            let key =
                PropIndexKey::decode(k).map_err(EngineError::corrupt("property index key"))?;
            if self.hidden(key.node) {
                return Ok(true);
            }
            Ok(visit(key.node, key.value))
        })?;
        Ok(true)
    }

    /// Range lookup without an index: decode every node of the label.
    fn scan_range(
        &self,
        label: LabelId,
        prop: PropKeyId,
        lo: Bound<&Value>,
        hi: Bound<&Value>,
    ) -> Result<Vec<NodeId>> {
        let ids = self.label_nodes(label)?;
        let mut out = Vec::new();
        for chunk in ids.chunks(1024) {
            for (id, rec) in chunk.iter().zip(self.nodes(chunk)?) {
                let Some(v) = rec.as_ref().and_then(|r| r.prop(prop)) else {
                    continue;
                };
                if in_range(v, lo, hi) {
                    out.push(*id);
                }
            }
        }
        out.sort();
        Ok(out)
    }
}

fn in_range(v: &Value, lo: Bound<&Value>, hi: Bound<&Value>) -> bool {
    use std::cmp::Ordering::*;
    let lo_ok = match lo {
        Bound::Included(b) => matches!(v.index_cmp(b), Some(Greater | Equal)),
        Bound::Excluded(b) => matches!(v.index_cmp(b), Some(Greater)),
        Bound::Unbounded => v.is_indexable(),
    };
    let hi_ok = match hi {
        Bound::Included(b) => matches!(v.index_cmp(b), Some(Less | Equal)),
        Bound::Excluded(b) => matches!(v.index_cmp(b), Some(Less)),
        Bound::Unbounded => v.is_indexable(),
    };
    lo_ok && hi_ok
}

#[allow(dead_code)]
fn _assert_send_sync() {
    fn is<T: Send + Sync>() {}
    is::<Graph>();
}
