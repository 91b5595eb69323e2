//! The graph store: opening a database and reading it.

use crate::cache::NodeCache;
use crate::catalog::Catalog;
use crate::cf;
use crate::changes::Subscribers;
use crate::error::{EngineError, Result};
use crate::files::{self, STAGING_DIR};
use crate::lock::{WriterLock, WriterSlot, WriterState};
use crate::marker;
use crate::space;
use cairn_storage_format::keys::{edge_prefix, edge_rel_prefix};
use cairn_storage_format::records::{decode_u64, decode_vector, decode_vector_into};
use cairn_storage_format::{
    AnnotationsRecord, CatalogRecord, Degree, EdgeProps, ExternalKey, LabelId, LinkingRecord,
    MetaKey, NameKey, NodeId, NodeKey, NodeRecord, OutEdgeKey, PropIndexKey, PropKeyId, RelId,
    Value, FORMAT_VERSION,
};
use parking_lot::{Mutex, RwLock};
use rocksdb::{ColumnFamily, ColumnFamilyDescriptor, DBPinnableSlice, Options, ReadOptions, DB};
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

/// An embedded graph database on RocksDB: one writer at a time, any number of readers.
///
/// `Graph` is `Send + Sync`; share it with `Arc`. Reads through `Graph` see the latest committed
/// state; for several reads that must agree with each other, take a [`GraphSnapshot`].
pub struct Graph {
    pub(crate) db: DB,
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
    /// Reads issued to RocksDB by kind (see `Graph::read_ops`).
    pub(crate) ops: crate::stats::OpCounters,
    pub(crate) subscribers: Subscribers,
    pub(crate) cache: NodeCache,
    pub(crate) options: GraphOptions,
    /// Shared by all column families; bulk import builds its SST files with the same options.
    pub(crate) block_cache: rocksdb::Cache,
    /// `Some` when opened read-only. Declared after `db`, so the secondary instance closes
    /// before its directory is removed.
    secondary: Option<Secondary>,
    /// In the writer: the first id of the bulk import that has ingested its files and not
    /// committed yet (`u64::MAX` when none), whose keys this process's own reads must not show
    /// either (see `Graph::committed_ids`).
    pub(crate) importing_from: AtomicU64,
}

impl Drop for Graph {
    /// A writable handle that leaves more than a little in its memtables flushes them, so the
    /// next open, and every read-only one, does not replay a large log (`settle.rs`). A failure
    /// costs only that replay, so it is logged, not raised.
    fn drop(&mut self) {
        if self.secondary.is_some() {
            return;
        }
        let large = crate::settle::memtable_bytes(&self.db)
            .is_ok_and(|b| b > crate::settle::CLOSE_FLUSH_MIN_BYTES);
        if large {
            if let Err(e) = crate::settle::flush_for_readers(&self.db) {
                tracing::warn!("flushing the memtables on close: {e}");
            }
        }
    }
}

/// A read-only open's state: a RocksDB secondary instance and what it last caught up to.
struct Secondary {
    /// The secondary's own directory (RocksDB keeps only its info log there): a fresh temporary
    /// directory per open, removed on drop.
    dir: tempfile::TempDir,
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
    /// RocksDB's sequence number of the last write the view includes (it grows with every
    /// commit of the writer, by the commit's number of operations).
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

/// The RocksDB directory inside a Cairn database directory. Other files next to it (the vector
/// index) stay out of RocksDB's own directory.
pub(crate) const ROCKSDB_DIR: &str = "rocksdb";

impl Graph {
    /// Opens (or creates) the database in directory `path`.
    ///
    /// Fails with [`EngineError::Locked`] if another process has it open,
    /// [`EngineError::FutureFormat`] if a newer Cairn wrote it, and [`EngineError::NotCairn`] if
    /// the directory holds something else.
    pub fn open(path: impl AsRef<Path>, options: GraphOptions) -> Result<Graph> {
        let path = path.as_ref().to_path_buf();
        let db_dir = path.join(ROCKSDB_DIR);
        let read_only = options.mode == OpenMode::ReadOnly;
        let exists = db_dir.join("CURRENT").exists();
        if !exists {
            if read_only || !options.create_if_missing {
                return Err(EngineError::Missing { path });
            }
            if path.is_file() {
                return Err(EngineError::NotCairn {
                    path,
                    reason: "it is a file".into(),
                });
            }
            // A stale `rocksdb.new` is a creation that died (`files::create_stamped`).
            let foreign = std::fs::read_dir(&path)
                .map(|mut entries| {
                    entries.any(|e| {
                        e.map(|e| e.file_name() != ROCKSDB_DIR && e.file_name() != STAGING_DIR)
                            .unwrap_or(true)
                    })
                })
                .unwrap_or(false);
            if foreign {
                return Err(EngineError::NotCairn {
                    path,
                    reason: "the directory is not empty and holds no database".into(),
                });
            }
            std::fs::create_dir_all(&path).map_err(|source| EngineError::Io {
                path: path.clone(),
                source,
            })?;
        }

        let mut db_opts = Options::default();
        db_opts.create_if_missing(true);
        db_opts.create_missing_column_families(true);
        db_opts.increase_parallelism(2);
        db_opts.set_max_background_jobs(2);
        files::quiet_info_log(&mut db_opts);
        let block_cache = rocksdb::Cache::new_lru_cache(options.block_cache_bytes)?;
        if !read_only {
            space::ensure(&path, space::open_need(&db_dir))?;
        }
        if !exists {
            let descriptors = cf::ALL
                .iter()
                .map(|name| ColumnFamilyDescriptor::new(*name, cf::options(name, &block_cache)))
                .collect();
            files::create_stamped(&path, &db_dir, &db_opts, descriptors)?;
        }

        // Open every column family present on disk, ours and any a newer version added, so that
        // the format check below can report the version instead of a column-family mismatch.
        let existing = DB::list_cf(&db_opts, &db_dir).map_err(|e| open_error(&path, &db_dir, e))?;
        if !existing.iter().any(|c| c == cf::META) {
            return Err(EngineError::NotCairn {
                path,
                reason: "a RocksDB database without Cairn's column families".into(),
            });
        }
        let mut descriptors: Vec<ColumnFamilyDescriptor> = cf::ALL
            .iter()
            // A secondary cannot create a column family; `cf` reports one that is missing.
            .filter(|name| !read_only || existing.iter().any(|e| e == *name))
            .map(|name| ColumnFamilyDescriptor::new(*name, cf::options(name, &block_cache)))
            .collect();
        for name in existing
            .iter()
            .filter(|n| *n != "default" && !cf::ALL.contains(&n.as_str()))
        {
            descriptors.push(ColumnFamilyDescriptor::new(name, Options::default()));
        }
        let (db, secondary_dir) = if read_only {
            let (db, dir) = open_secondary(&path, &db_dir, descriptors)?;
            (db, Some(dir))
        } else {
            let db = DB::open_cf_descriptors(&db_opts, &db_dir, descriptors)
                .map_err(|e| open_error(&path, &db_dir, e))?;
            files::tidy_after_open(&path, &db_dir)?;
            (db, None)
        };

        let meta = db
            .cf_handle(cf::META)
            .ok_or_else(|| EngineError::NotCairn {
                path: path.clone(),
                reason: "no meta column family".into(),
            })?;
        // Stamped before `rocksdb/CURRENT` existed (`files::create_stamped`): a database
        // without the stamp is someone else's.
        let found = match db.get_cf(&meta, MetaKey::Format.encode())? {
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
            marker::roll_back(&db)?;
        }
        let mut committed = read_committed(&db)?;
        let pieces = (&committed.catalog, committed.commits);
        if crate::names::upgrade(&db, &path, pieces, found, !read_only)? {
            committed.vectors_at = committed.commits;
        }
        let max_degree = crate::stats::load_max_degree(&db, !read_only)?;
        let secondary = secondary_dir.map(|dir| Secondary {
            dir,
            committed_ids: AtomicU64::new(committed.next_node_id),
            import_pending: AtomicBool::new(committed.import_pending),
            caught_up: Mutex::new(SystemTime::now()),
        });
        Ok(Graph {
            db,
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
            ops: Default::default(),
            subscribers: Subscribers::default(),
            cache: NodeCache::new(options.node_cache_capacity),
            options,
            block_cache,
            secondary,
        })
    }

    /// Where the name index differs from a rebuild from the node records, one line per entry
    /// (missing, extra or with another label); empty when they agree. One scan of `node` and
    /// `name`: a consistency check (the tests and the crash harness use it), not for queries.
    pub fn name_index_drift(&self) -> Result<Vec<String>> {
        crate::names::drift(&self.db, &self.catalog())
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
        let before = self.sequence();
        self.db.try_catch_up_with_primary()?;
        *caught_up = SystemTime::now();
        if self.sequence() == before {
            return Ok(false);
        }
        let committed = read_committed(&self.db)?;
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
        self.max_degree.store(
            crate::stats::load_max_degree(&self.db, false)?,
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

    /// Bytes in this handle's memtables, all column families: on a fresh read-only open, what it
    /// replayed from the writer's log (a settled database leaves next to nothing there).
    pub fn memtable_bytes(&self) -> Result<u64> {
        crate::settle::memtable_bytes(&self.db)
    }

    /// The secondary instance's own directory (a temporary one), for a read-only open.
    pub fn secondary_dir(&self) -> Option<&Path> {
        self.secondary.as_ref().map(|s| s.dir.path())
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
            snapshot: self.db.snapshot(),
            catalog: self.catalog(),
            committed,
        }
    }

    /// Record cache hits and misses since open.
    pub fn cache_stats(&self) -> (u64, u64) {
        self.cache.hits_misses()
    }

    /// RocksDB's estimate of the number of keys in a column family (`node`, `out`, ...).
    pub fn estimate_keys(&self, cf_name: &str) -> Result<u64> {
        let cf = self.cf(cf_name)?;
        Ok(self
            .db
            .property_int_value_cf(cf, "rocksdb.estimate-num-keys")?
            .unwrap_or(0))
    }

    /// RocksDB's latest sequence number: it changes with every committed write, so a cache
    /// built at one sequence is current while the sequence is unchanged.
    pub fn sequence(&self) -> u64 {
        self.db.latest_sequence_number()
    }

    /// Calls `f` with every node's degree, in id order (one scan of the degree column family).
    pub fn scan_degrees(&self, mut f: impl FnMut(NodeId, Degree)) -> Result<()> {
        let committed = self.committed_ids();
        let mut it = self.db.raw_iterator_cf(self.cf(cf::DEGREE)?);
        it.seek_to_first();
        while let (Some(k), Some(v)) = (it.key(), it.value()) {
            let id = NodeKey::decode(k)
                .map_err(EngineError::corrupt("degree key"))?
                .0;
            if id.0 < committed {
                f(
                    id,
                    Degree::decode(v).map_err(EngineError::corrupt("degree"))?,
                );
            }
            it.next();
        }
        Ok(it.status()?)
    }

    /// Calls `f` with every stored vector, in id order (one scan of the vector column family).
    /// Does nothing when the catalog records no embedder.
    pub fn scan_vectors(&self, mut f: impl FnMut(NodeId, &[f32])) -> Result<()> {
        let Some(dim) = self.catalog().embedder().map(|e| e.dim as usize) else {
            return Ok(());
        };
        let committed = self.committed_ids();
        let mut it = self.db.raw_iterator_cf(self.cf(cf::VECTOR)?);
        it.seek_to_first();
        let mut buf = Vec::with_capacity(dim);
        while let (Some(k), Some(v)) = (it.key(), it.value()) {
            let id = NodeKey::decode(k)
                .map_err(EngineError::corrupt("vector key"))?
                .0;
            if id.0 < committed {
                decode_vector_into(v, dim, &mut buf).map_err(EngineError::corrupt("vector"))?;
                f(id, &buf);
            }
            it.next();
        }
        Ok(it.status()?)
    }

    /// Calls `f(node, rel, other)` for every edge in one direction, in key order (`node`
    /// ascending, then relation, then `other`): one scan of the `out` or `in` column family.
    pub fn scan_edges(
        &self,
        direction: Direction,
        mut f: impl FnMut(NodeId, RelId, NodeId),
    ) -> Result<()> {
        let names: &[&str] = match direction {
            Direction::Out => &[cf::OUT],
            Direction::In => &[cf::IN],
            Direction::Both => &[cf::OUT, cf::IN],
        };
        let committed = self.committed_ids();
        for name in names {
            let mut it = self.db.raw_iterator_cf(self.cf(name)?);
            it.seek_to_first();
            while let Some(k) = it.key() {
                // Both layouts are `node · rel · other`.
                let e = OutEdgeKey::decode(k).map_err(EngineError::corrupt("edge key"))?;
                if e.src.0 < committed {
                    f(e.src, e.rel, e.dst);
                }
                it.next();
            }
            it.status()?;
        }
        Ok(())
    }

    /// The underlying RocksDB handle, so benchmarks can put raw RocksDB operations beside
    /// Cairn's on the same data. Not for application use: writes here bypass the catalog.
    #[doc(hidden)]
    pub fn raw_db(&self) -> &DB {
        &self.db
    }

    /// Takes the single writer's lock (see `lock.rs` for the same-thread rule).
    pub(crate) fn lock_writer(&self, wait: Option<std::time::Duration>) -> Result<WriterLock<'_>> {
        self.writer.acquire(&self.path, wait)
    }

    pub(crate) fn cf(&self, name: &str) -> Result<&ColumnFamily> {
        self.db
            .cf_handle(name)
            .ok_or_else(|| EngineError::NotCairn {
                path: self.path.clone(),
                reason: format!("column family `{name}` is missing"),
            })
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

/// Opens the RocksDB database in `db_dir` as a secondary instance in a fresh temporary
/// directory. A secondary, unlike RocksDB's read-only open, can catch up with the writer
/// without reopening; it needs `max_open_files = -1` (it keeps every table file open, so that
/// the writer's compactions cannot delete one from under it).
fn open_secondary(
    path: &Path,
    db_dir: &Path,
    descriptors: Vec<ColumnFamilyDescriptor>,
) -> Result<(DB, tempfile::TempDir)> {
    let dir = tempfile::Builder::new()
        .prefix("cairn-secondary-")
        .tempdir()
        .map_err(|source| EngineError::Io {
            path: std::env::temp_dir(),
            source,
        })?;
    // The secondary writes its info log there: the same abort on a full disk (space.rs).
    space::ensure(dir.path(), 0)?;
    let mut opts = Options::default();
    opts.set_max_open_files(-1);
    // The info log is all a secondary writes: keep one small file.
    opts.set_keep_log_file_num(1);
    opts.set_max_log_file_size(1 << 20);
    let db = DB::open_cf_descriptors_as_secondary(&opts, db_dir, dir.path(), descriptors)
        .map_err(|e| open_error(path, db_dir, e))?;
    Ok((db, dir))
}

/// The committed catalog, next node id and import marker, from `meta`.
fn read_committed(db: &DB) -> Result<Committed> {
    let meta = db
        .cf_handle(cf::META)
        .ok_or_else(|| EngineError::Invalid("column family `meta` is missing".into()))?;
    let catalog = match db.get_cf(meta, MetaKey::Catalog.encode())? {
        Some(bytes) => CatalogRecord::decode(&bytes).map_err(EngineError::corrupt("catalog"))?,
        None => CatalogRecord::default(),
    };
    let annotations = match db.get_cf(meta, MetaKey::Annotations.encode())? {
        Some(bytes) => {
            AnnotationsRecord::decode(&bytes).map_err(EngineError::corrupt("annotations"))?
        }
        None => AnnotationsRecord::default(),
    };
    let linking = match db.get_cf(meta, MetaKey::Linking.encode())? {
        Some(bytes) => LinkingRecord::decode(&bytes).map_err(EngineError::corrupt("linking"))?,
        None => LinkingRecord::default(),
    };
    let next_node_id = match db.get_cf(meta, MetaKey::NextNodeId.encode())? {
        Some(bytes) => decode_u64(&bytes).map_err(EngineError::corrupt("node id counter"))?,
        None => 0,
    };
    let commits = match db.get_cf(meta, MetaKey::Commits.encode())? {
        Some(bytes) => decode_u64(&bytes).map_err(EngineError::corrupt("commit counter"))?,
        None => 0,
    };
    let vectors_at = match db.get_cf(meta, MetaKey::VectorsAt.encode())? {
        Some(bytes) => decode_u64(&bytes).map_err(EngineError::corrupt("vectors_at counter"))?,
        None => 0,
    };
    let import_pending = db
        .get_pinned_cf(meta, MetaKey::ImportPending.encode())?
        .is_some();
    Ok(Committed {
        catalog,
        annotations,
        linking,
        next_node_id,
        commits,
        vectors_at,
        import_pending,
    })
}

/// Maps an error of opening RocksDB, telling a held `LOCK` file from everything else.
fn open_error(path: &Path, db_dir: &Path, e: rocksdb::Error) -> EngineError {
    if is_lock_error(&e, db_dir) {
        EngineError::Locked {
            path: path.to_path_buf(),
            detail: e.into_string(),
        }
    } else {
        EngineError::Rocks(e)
    }
}

/// RocksDB reports a `LOCK` file held by another process ("While lock file: <dir>/LOCK:
/// Resource temporarily unavailable") or by this one ("lock hold by current process, …:
/// <dir>/LOCK: …") as an I/O error naming the file; its status has no sub-code for it. So
/// the error kind decides first — a corruption such as "block checksum mismatch" is never a
/// lock — and the lock file's path tells a lock from other I/O errors.
fn is_lock_error(e: &rocksdb::Error, db_dir: &Path) -> bool {
    e.kind() == rocksdb::ErrorKind::IOError
        && e.to_string()
            .contains(&*db_dir.join("LOCK").to_string_lossy())
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
    snapshot: rocksdb::SnapshotWithThreadMode<'g, DB>,
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
            snapshot: Some(&self.snapshot),
            catalog: Arc::clone(&self.catalog),
            committed: self.committed,
        }
    }
}

/// Reads against the latest state (through the cache) or a snapshot.
#[doc(hidden)]
pub struct Reader<'a> {
    graph: &'a Graph,
    snapshot: Option<&'a rocksdb::SnapshotWithThreadMode<'a, DB>>,
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

impl Reader<'_> {
    fn opts(&self) -> ReadOptions {
        let mut o = ReadOptions::default();
        if let Some(s) = self.snapshot {
            o.set_snapshot(s);
        }
        o
    }

    /// Read options for a scan of keys starting with `prefix`.
    fn scan_opts(&self, prefix: &[u8]) -> ReadOptions {
        let mut o = self.opts();
        if let Some(upper) = prefix_successor(prefix) {
            o.set_iterate_upper_bound(upper);
        }
        o
    }

    /// A node of an import the writer has not committed (read-only views only; see
    /// `Graph::committed_ids`): reads by id treat it as absent.
    fn hidden(&self, id: NodeId) -> bool {
        id.0 >= self.committed
    }

    fn get(&self, cf: &'static str, key: &[u8]) -> Result<Option<DBPinnableSlice<'_>>> {
        self.graph.ops.count(crate::stats::Op::PointGet);
        let cf = self.graph.cf(cf)?;
        Ok(self.graph.db.get_pinned_cf_opt(cf, key, &self.opts())?)
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
        let Some(bytes) = self.get(cf::NODE, &NodeKey(id).encode())? else {
            return Ok(None);
        };
        let rec =
            Arc::new(NodeRecord::decode(&bytes).map_err(EngineError::corrupt("node record"))?);
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
        let cf = self.graph.cf(cf::NODE)?;
        let keys: Vec<[u8; 8]> = missing.iter().map(|&i| NodeKey(ids[i]).encode()).collect();
        let values = self
            .graph
            .db
            .batched_multi_get_cf_opt(cf, &keys, false, &self.opts());
        self.graph.ops.count(crate::stats::Op::MultiGet);
        for (&i, value) in missing.iter().zip(values) {
            if let Some(bytes) = value? {
                let rec = Arc::new(
                    NodeRecord::decode(&bytes).map_err(EngineError::corrupt("node record"))?,
                );
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
        match self.get(cf::NODE_KEY, &k)? {
            Some(bytes) => Ok(Some(NodeId(
                decode_u64(&bytes).map_err(EngineError::corrupt("node key index"))?,
            ))
            .filter(|id| !self.hidden(*id))),
            None => Ok(None),
        }
    }

    /// The properties of edge (src, rel, dst), if it exists.
    pub fn edge(&self, src: NodeId, rel: RelId, dst: NodeId) -> Result<Option<EdgeProps>> {
        match self.get(cf::OUT, &OutEdgeKey { src, rel, dst }.encode())? {
            Some(bytes) => Ok(Some(
                EdgeProps::decode(&bytes).map_err(EngineError::corrupt("edge properties"))?,
            )),
            None => Ok(None),
        }
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
            self.scan_edges(cf::OUT, node, rels, Direction::Out, out)?;
        }
        if matches!(direction, Direction::In | Direction::Both) {
            self.scan_edges(cf::IN, node, rels, Direction::In, out)?;
        }
        Ok(())
    }

    /// One prefix scan per relation in `rels` (or one over the node's whole prefix).
    fn scan_edges(
        &self,
        cf_name: &'static str,
        node: NodeId,
        rels: &[RelId],
        direction: Direction,
        out: &mut Vec<Neighbor>,
    ) -> Result<()> {
        let cf = self.graph.cf(cf_name)?;
        let node_prefix = edge_prefix(node);
        let mut scan = |prefix: &[u8]| -> Result<()> {
            let mut it = self
                .graph
                .db
                .raw_iterator_cf_opt(cf, self.scan_opts(prefix));
            self.graph.ops.count(crate::stats::Op::PrefixScan);
            it.seek(prefix);
            while let (Some(k), Some(v)) = (it.key(), it.value()) {
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
                it.next();
            }
            Ok(it.status()?)
        };
        if rels.is_empty() {
            scan(&node_prefix)
        } else {
            rels.iter()
                .try_for_each(|rel| scan(&edge_rel_prefix(node, *rel)))
        }
    }

    pub(crate) fn degree(&self, node: NodeId) -> Result<Degree> {
        if self.hidden(node) {
            return Ok(Degree::default());
        }
        match self.get(cf::DEGREE, &NodeKey(node).encode())? {
            Some(bytes) => Degree::decode(&bytes).map_err(EngineError::corrupt("degree")),
            None => Ok(Degree::default()),
        }
    }

    /// The values of `ids`' keys in `cf`, one batched multi-get; ids an uncommitted import
    /// handed out read as absent (`hidden`).
    fn multi_get_by_id(
        &self,
        cf: &'static str,
        ids: &[NodeId],
    ) -> Result<Vec<Option<DBPinnableSlice<'_>>>> {
        let handle = self.graph.cf(cf)?;
        let keys: Vec<[u8; 8]> = ids.iter().map(|id| NodeKey(*id).encode()).collect();
        let values = self
            .graph
            .db
            .batched_multi_get_cf_opt(handle, &keys, false, &self.opts());
        self.graph.ops.count(crate::stats::Op::MultiGet);
        ids.iter()
            .zip(values)
            .map(|(id, value)| Ok(value?.filter(|_| !self.hidden(*id))))
            .collect()
    }

    pub(crate) fn degrees(&self, ids: &[NodeId]) -> Result<Vec<Degree>> {
        self.multi_get_by_id(cf::DEGREE, ids)?
            .into_iter()
            .map(|value| match value {
                Some(bytes) => Degree::decode(&bytes).map_err(EngineError::corrupt("degree")),
                None => Ok(Degree::default()),
            })
            .collect()
    }

    pub(crate) fn vectors(&self, ids: &[NodeId]) -> Result<Vec<Option<Vec<f32>>>> {
        let Some(dim) = self.catalog.embedder().map(|e| e.dim as usize) else {
            return Ok(vec![None; ids.len()]);
        };
        self.multi_get_by_id(cf::VECTOR, ids)?
            .into_iter()
            .map(|value| {
                value
                    .map(|bytes| decode_vector(&bytes, dim).map_err(EngineError::corrupt("vector")))
                    .transpose()
            })
            .collect()
    }

    pub(crate) fn label_nodes(&self, label: LabelId) -> Result<Vec<NodeId>> {
        self.label_nodes_limit(label, usize::MAX)
    }

    pub(crate) fn label_nodes_limit(&self, label: LabelId, limit: usize) -> Result<Vec<NodeId>> {
        let cf = self.graph.cf(cf::NODE_KEY)?;
        let prefix = ExternalKey::label_prefix(label);
        let mut it = self
            .graph
            .db
            .raw_iterator_cf_opt(cf, self.scan_opts(&prefix));
        self.graph.ops.count(crate::stats::Op::PrefixScan);
        it.seek(prefix);
        let mut out = Vec::new();
        while let Some(v) = it.value().filter(|_| out.len() < limit) {
            let id = NodeId(decode_u64(v).map_err(EngineError::corrupt("node key index"))?);
            if !self.hidden(id) {
                out.push(id);
            }
            it.next();
        }
        it.status()?;
        Ok(out)
    }

    /// One seek to `name · 00`: the entries of the name, then a look at the next key, which
    /// starts with `name · 20` exactly when a longer name continues this one (docs/FORMAT.md).
    pub(crate) fn nodes_named(&self, name: &str) -> Result<NameHits> {
        let cf = self.graph.cf(cf::NAME)?;
        let prefix = NameKey::name_prefix(name);
        let mut longer_prefix = name.as_bytes().to_vec();
        longer_prefix.push(b' ');
        let mut opts = self.opts();
        if let Some(upper) = prefix_successor(&longer_prefix) {
            opts.set_iterate_upper_bound(upper);
        }
        let mut it = self.graph.db.raw_iterator_cf_opt(cf, opts);
        self.graph.ops.count(crate::stats::Op::PrefixScan);
        it.seek(&prefix);
        let mut hits = NameHits::default();
        while let Some((k, v)) = it.item() {
            if !k.starts_with(&prefix) {
                hits.longer = k.starts_with(&longer_prefix);
                break;
            }
            let key = NameKey::decode(k).map_err(EngineError::corrupt("name index key"))?;
            let label = LabelId(u32::from_be_bytes(v.try_into().map_err(|_| {
                EngineError::Invalid("name index value is not a label".into())
            })?));
            if !self.hidden(key.node) {
                hits.nodes.push((key.node, label));
            }
            it.next();
        }
        it.status()?;
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
        let vp = |v: &Value| {
            PropIndexKey::value_prefix(label, prop, v)
                .map_err(EngineError::corrupt("property index key"))
        };
        let start = match lo {
            Bound::Included(v) => vp(v)?,
            Bound::Excluded(v) => {
                let p = vp(v)?;
                match prefix_successor(&p) {
                    Some(s) => s,
                    None => return Ok(vec![]),
                }
            }
            Bound::Unbounded => PropIndexKey::index_prefix(label, prop).to_vec(),
        };
        let end = match hi {
            Bound::Included(v) => prefix_successor(&vp(v)?),
            Bound::Excluded(v) => Some(vp(v)?),
            Bound::Unbounded => prefix_successor(&PropIndexKey::index_prefix(label, prop)),
        };
        let cf = self.graph.cf(cf::PROP)?;
        let mut opts = self.opts();
        if let Some(end) = &end {
            if end.as_slice() <= start.as_slice() {
                return Ok(vec![]);
            }
            opts.set_iterate_upper_bound(end.clone());
        }
        let mut it = self.graph.db.raw_iterator_cf_opt(cf, opts);
        self.graph.ops.count(crate::stats::Op::PrefixScan);
        it.seek(&start);
        let mut out = Vec::new();
        while let Some(k) = it.key() {
            let node = PropIndexKey::decode(k)
                .map_err(EngineError::corrupt("property index key"))?
                .node;
            if !self.hidden(node) {
                out.push(node);
            }
            it.next();
        }
        it.status()?;
        Ok(out)
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

/// The smallest byte string greater than every string starting with `prefix`; `None` if there
/// is none (all bytes 0xFF).
pub(crate) fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut out = prefix.to_vec();
    while let Some(last) = out.pop() {
        if last < 0xFF {
            out.push(last + 1);
            return Some(out);
        }
    }
    None
}

#[allow(dead_code)]
fn _assert_send_sync() {
    fn is<T: Send + Sync>() {}
    is::<Graph>();
}
