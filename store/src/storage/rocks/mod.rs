//! The RocksDB backend of the storage boundary: a space is a column family, a [`Batch`] one
//! `WriteBatch`, a snapshot a RocksDB snapshot, a bulk part an SST file ingested under the import
//! marker. It also owns what only a local RocksDB directory has: atomic creation with the format
//! stamp, the writer's `LOCK`, read-only opens as secondary instances, free-space checks before
//! writes, and flushing so that readers open fast (docs/ARCHITECTURE.md, "Readers beside a
//! writer"; docs/FORMAT.md, "Directory").

mod bulk;
mod cf;
mod files;
mod settle;
pub(crate) mod space;
pub(crate) mod wal;

use super::{Batch, BulkPart, BulkSink, Each, Found, FoundAt, KvRead, Op, Scan, Space, Storage};
use crate::error::{BackendErrorKind, EngineError, Result};
use rocksdb::{
    ColumnFamily, ColumnFamilyDescriptor, Options, ReadOptions, SnapshotWithThreadMode, WriteBatch,
    WriteOptions, DB,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::thread::ThreadId;

pub(crate) use files::{remove_temporaries, BULK_DIR, SPILL_DIR};

/// The RocksDB directory inside a Cairn database directory. Other files next to it (the vector
/// index) stay out of RocksDB's own directory.
pub(crate) const ROCKSDB_DIR: &str = "rocksdb";

const NAME: &str = "RocksDB";

/// Maps RocksDB's error to the store's, keeping its kind.
pub(crate) fn err(e: rocksdb::Error) -> EngineError {
    use rocksdb::ErrorKind as K;
    let kind = match e.kind() {
        K::Corruption => BackendErrorKind::Corruption,
        K::IOError => BackendErrorKind::Io,
        K::Busy | K::TimedOut | K::TryAgain | K::Aborted => BackendErrorKind::Unavailable,
        _ => BackendErrorKind::Other,
    };
    EngineError::Backend {
        backend: NAME,
        kind,
        message: e.into_string(),
    }
}

/// How to open a RocksDB database.
#[derive(Clone, Debug)]
pub(crate) struct RocksOptions {
    pub(crate) create_if_missing: bool,
    pub(crate) read_only: bool,
    pub(crate) block_cache_bytes: usize,
}

/// A Cairn database in RocksDB (see the module docs).
pub(crate) struct RocksStorage {
    db: DB,
    /// The Cairn database directory (`rocksdb/` is inside it).
    path: PathBuf,
    /// Shared by all column families; bulk loads build their SST files with the same options.
    block_cache: rocksdb::Cache,
    /// `Some` when opened read-only: the secondary instance's own directory (RocksDB keeps
    /// only its info log there), a fresh temporary one per open, removed on drop. Declared
    /// after `db`, so the instance closes before its directory goes.
    secondary: Option<tempfile::TempDir>,
    /// A read-only open's live snapshots, which its catch-up waits for (see [`Pinned`]).
    pins: Pins,
    /// The writer's record of its last acknowledged write (`wal.rs`); `None` when read-only.
    ack: Option<wal::AckFile>,
}

/// RocksDB's secondary instances have no snapshots (their iterators refuse one); their view
/// moves only at a catch-up. So a snapshot of a read-only open is its current view, pinned: a
/// catch-up waits until the views other threads pinned are dropped (and new pins wait for the
/// catch-up). A thread that catches up while holding a snapshot of its own is not made to wait
/// for itself: its snapshot shows the caught-up view from then on.
#[derive(Debug, Default)]
struct Pins {
    /// (live pinned views by the thread that holds them, a catch-up is running)
    state: parking_lot::Mutex<(HashMap<ThreadId, usize>, bool)>,
    changed: parking_lot::Condvar,
}

/// How long a catch-up waits for the read-only open's snapshots to be dropped.
const PIN_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

impl Pins {
    fn pin(&self) {
        let mut state = self.state.lock();
        while state.1 {
            self.changed.wait(&mut state);
        }
        *state.0.entry(std::thread::current().id()).or_default() += 1;
    }

    fn unpin(&self, owner: ThreadId) {
        let mut state = self.state.lock();
        if let Some(n) = state.0.get_mut(&owner) {
            *n -= 1;
            if *n == 0 {
                state.0.remove(&owner);
            }
        }
        drop(state);
        self.changed.notify_all();
    }

    /// Runs `f` once no view is pinned, keeping new pins out meanwhile.
    fn exclusive<T>(&self, path: &Path, f: impl FnOnce() -> Result<T>) -> Result<T> {
        {
            let mut state = self.state.lock();
            let me = std::thread::current().id();
            while state.0.keys().any(|t| *t != me) || state.1 {
                if self.changed.wait_for(&mut state, PIN_WAIT).timed_out() {
                    return Err(EngineError::WriterBusy {
                        path: path.to_path_buf(),
                        reason: "another thread holds a snapshot of this read-only handle; \
                                 drop it before catching up"
                            .into(),
                    });
                }
            }
            state.1 = true;
        }
        let out = f();
        self.state.lock().1 = false;
        self.changed.notify_all();
        out
    }
}

impl std::fmt::Debug for RocksStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RocksStorage")
            .field("path", &self.path)
            .field("read_only", &self.secondary.is_some())
            .finish()
    }
}

impl Drop for RocksStorage {
    /// A writable handle that leaves more than a little in its memtables flushes them, so the
    /// next open, and every read-only one, does not replay a large log, and merges the small
    /// table files that piled up (`settle.rs`). A failure costs only that replay or those
    /// files' opening, so it is logged, not raised.
    fn drop(&mut self) {
        if self.secondary.is_some() {
            return;
        }
        let large =
            settle::memtable_bytes(&self.db).is_ok_and(|b| b > settle::CLOSE_FLUSH_MIN_BYTES);
        if large {
            if let Err(e) = settle::flush_for_readers(&self.db) {
                tracing::warn!("flushing the memtables on close: {e}");
            }
        }
        if let Err(e) = settle::merge_small_files(&self.db) {
            tracing::warn!("compacting small table files on close: {e}");
        }
    }
}

impl RocksStorage {
    /// Opens (or creates, stamped with the format version) the database in directory `path`.
    /// The format check and everything else that reads `meta` is the graph's.
    pub(crate) fn open(path: &Path, options: &RocksOptions) -> Result<RocksStorage> {
        let path = path.to_path_buf();
        let db_dir = path.join(ROCKSDB_DIR);
        let read_only = options.read_only;
        let exists = db_dir.join("CURRENT").exists();
        if let Some(manifest) = wal::orphan_manifest(&db_dir) {
            return Err(EngineError::MissingCurrent { path, manifest });
        }
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
                        e.map(|e| {
                            e.file_name() != ROCKSDB_DIR && e.file_name() != files::STAGING_DIR
                        })
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
        wal::set_recovery_mode(&mut db_opts);
        db_opts.increase_parallelism(2);
        db_opts.set_max_background_jobs(2);
        db_opts.set_max_file_opening_threads(FILE_OPENING_THREADS);
        files::quiet_info_log(&mut db_opts);
        let block_cache = rocksdb::Cache::new_lru_cache(options.block_cache_bytes).map_err(err)?;
        if !read_only {
            space::ensure(&path, space::open_need(&db_dir))?;
        }
        if !exists {
            let descriptors = Space::ALL
                .iter()
                .map(|s| ColumnFamilyDescriptor::new(s.name(), cf::options(*s, &block_cache)))
                .collect();
            files::create_stamped(&path, &db_dir, &db_opts, descriptors)?;
        }

        // Open every column family present on disk, ours and any a newer version added, so that
        // the format check can report the version instead of a column-family mismatch.
        let existing = DB::list_cf(&db_opts, &db_dir).map_err(|e| open_error(&path, &db_dir, e))?;
        if !existing.iter().any(|c| c == Space::Meta.name()) {
            return Err(EngineError::NotCairn {
                path,
                reason: "a RocksDB database without Cairn's column families".into(),
            });
        }
        let mut descriptors: Vec<ColumnFamilyDescriptor> = Space::ALL
            .iter()
            // A secondary cannot create a column family; `cf` reports one that is missing.
            .filter(|s| !read_only || existing.iter().any(|e| e == s.name()))
            .map(|s| ColumnFamilyDescriptor::new(s.name(), cf::options(*s, &block_cache)))
            .collect();
        for name in existing
            .iter()
            .filter(|n| *n != "default" && Space::from_name(n).is_none())
        {
            descriptors.push(ColumnFamilyDescriptor::new(name, Options::default()));
        }
        // Read before the open: a writer's write is in the log before it is recorded there,
        // so a reader's open sees at least what the record says (wal.rs).
        let acknowledged = wal::read_acknowledged(&path);
        let (db, secondary) = if read_only {
            let (db, dir) = open_secondary(&path, &db_dir, descriptors)?;
            (db, Some(dir))
        } else {
            let db = DB::open_cf_descriptors(&db_opts, &db_dir, descriptors)
                .map_err(|e| open_error(&path, &db_dir, e))?;
            (db, None)
        };
        if let Some(loss) = wal::short_loss(&db, acknowledged)? {
            return Err(EngineError::DamagedLog { path, loss });
        }
        let ack = if read_only {
            None
        } else {
            files::tidy_after_open(&path, &db_dir)?;
            let ack = wal::AckFile::open(&path)?;
            ack.record(db.latest_sequence_number(), wal::commits_now(&db)?);
            Some(ack)
        };
        Ok(RocksStorage {
            db,
            path,
            block_cache,
            secondary,
            pins: Pins::default(),
            ack,
        })
    }

    fn cf(&self, space: Space) -> Result<&ColumnFamily> {
        cf_of(&self.db, &self.path, space)
    }
}

/// The family of `space` for a read: `None` for the change log of a database that has none
/// yet (a read-only open of one no writer of this version opened), which reads as empty.
fn read_cf<'d>(db: &'d DB, path: &Path, space: Space) -> Result<Option<&'d ColumnFamily>> {
    match db.cf_handle(space.name()) {
        None if space == Space::Changes => Ok(None),
        _ => cf_of(db, path, space).map(Some),
    }
}

fn cf_of<'d>(db: &'d DB, path: &Path, space: Space) -> Result<&'d ColumnFamily> {
    db.cf_handle(space.name())
        .ok_or_else(|| EngineError::NotCairn {
            path: path.to_path_buf(),
            reason: format!("column family `{}` is missing", space.name()),
        })
}

/// Reads of the latest state or of one snapshot.
struct Reads<'a> {
    db: &'a DB,
    path: &'a Path,
    snapshot: Option<SnapshotWithThreadMode<'a, DB>>,
    /// A read-only open's pinned view (see [`Pins`]) and the thread that pinned it, released
    /// on drop.
    pinned: Option<(&'a Pins, ThreadId)>,
}

impl Drop for Reads<'_> {
    fn drop(&mut self) {
        if let Some((pins, owner)) = self.pinned {
            pins.unpin(owner);
        }
    }
}

impl Reads<'_> {
    fn opts(&self) -> ReadOptions {
        let mut o = ReadOptions::default();
        if let Some(s) = &self.snapshot {
            o.set_snapshot(s);
        }
        o
    }

    fn get(&self, space: Space, key: &[u8], found: &mut Found<'_>) -> Result<bool> {
        let Some(cf) = read_cf(self.db, self.path, space)? else {
            return Ok(false);
        };
        match self
            .db
            .get_pinned_cf_opt(cf, key, &self.opts())
            .map_err(err)?
        {
            Some(v) => {
                found(&v)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn multi_get(&self, space: Space, keys: &[&[u8]], found: &mut FoundAt<'_>) -> Result<()> {
        let cf = cf_of(self.db, self.path, space)?;
        let values = self
            .db
            .batched_multi_get_cf_opt(cf, keys, false, &self.opts());
        for (i, value) in values.into_iter().enumerate() {
            if let Some(v) = value.map_err(err)? {
                found(i, &v)?;
            }
        }
        Ok(())
    }

    fn scan(&self, space: Space, scan: Scan<'_>, each: &mut Each<'_>) -> Result<()> {
        let Some(cf) = read_cf(self.db, self.path, space)? else {
            return Ok(());
        };
        let mut opts = self.opts();
        let reverse = matches!(scan, Scan::Reverse { .. });
        let (start, end): (Vec<u8>, Option<Vec<u8>>) = match scan {
            Scan::Range { start, end } => (start.to_vec(), end.map(<[u8]>::to_vec)),
            // Backwards, "to the group's end" starts at the group's last key.
            Scan::Reverse { start, end } => (
                start.to_vec(),
                match end {
                    Some(e) => Some(e.to_vec()),
                    None => crate::storage::successor(space.group_of(start)),
                },
            ),
            Scan::Nodes(ids) => {
                if ids.start >= ids.end {
                    return Ok(());
                }
                // Across nodes: past the prefix extractor of `out` and `in` (a seek there
                // would only promise the keys of the first node).
                opts.set_total_order_seek(true);
                (
                    ids.start.to_be_bytes().to_vec(),
                    Some(ids.end.to_be_bytes().to_vec()),
                )
            }
            Scan::All => {
                // Past the prefix extractor too: with it, a first seek after a range deletion
                // in `out` listed nothing (the conformance suite's bulk test).
                opts.set_total_order_seek(true);
                (Vec::new(), None)
            }
        };
        if let Some(end) = end {
            if end.as_slice() <= start.as_slice() {
                return Ok(());
            }
            opts.set_iterate_upper_bound(end);
        }
        if reverse {
            // Backwards from the end of the range: the lower bound keeps the walk in it, and
            // past the prefix extractor (a reverse seek is not a prefix seek).
            opts.set_iterate_lower_bound(start.clone());
            opts.set_total_order_seek(true);
        }
        let mut it = self.db.raw_iterator_cf_opt(cf, opts);
        if reverse {
            it.seek_to_last();
        } else if start.is_empty() {
            it.seek_to_first();
        } else {
            it.seek(&start);
        }
        while let Some((k, v)) = it.item() {
            if !each(k, v)? {
                return Ok(());
            }
            if reverse {
                it.prev();
            } else {
                it.next();
            }
        }
        it.status().map_err(err)
    }
}

impl KvRead for Reads<'_> {
    fn get(&self, space: Space, key: &[u8], found: &mut Found<'_>) -> Result<bool> {
        Reads::get(self, space, key, found)
    }
    fn multi_get(&self, space: Space, keys: &[&[u8]], found: &mut FoundAt<'_>) -> Result<()> {
        Reads::multi_get(self, space, keys, found)
    }
    fn scan(&self, space: Space, scan: Scan<'_>, each: &mut Each<'_>) -> Result<()> {
        Reads::scan(self, space, scan, each)
    }
}

impl RocksStorage {
    fn latest(&self) -> Reads<'_> {
        Reads {
            db: &self.db,
            path: &self.path,
            snapshot: None,
            pinned: None,
        }
    }
}

impl KvRead for RocksStorage {
    fn get(&self, space: Space, key: &[u8], found: &mut Found<'_>) -> Result<bool> {
        self.latest().get(space, key, found)
    }
    fn multi_get(&self, space: Space, keys: &[&[u8]], found: &mut FoundAt<'_>) -> Result<()> {
        self.latest().multi_get(space, keys, found)
    }
    fn scan(&self, space: Space, scan: Scan<'_>, each: &mut Each<'_>) -> Result<()> {
        self.latest().scan(space, scan, each)
    }
}

impl Storage for RocksStorage {
    fn backend(&self) -> &'static str {
        NAME
    }

    fn as_read(&self) -> &dyn KvRead {
        self
    }

    fn snapshot(&self) -> Box<dyn KvRead + '_> {
        if self.secondary.is_some() {
            self.pins.pin();
            return Box::new(Reads {
                db: &self.db,
                path: &self.path,
                snapshot: None,
                pinned: Some((&self.pins, std::thread::current().id())),
            });
        }
        Box::new(Reads {
            db: &self.db,
            path: &self.path,
            snapshot: Some(self.db.snapshot()),
            pinned: None,
        })
    }

    fn commit(&self, batch: &Batch, sync: bool) -> Result<()> {
        let mut wb = WriteBatch::default();
        for op in batch.iter() {
            match op {
                Op::Put(s, k, v) => wb.put_cf(self.cf(s)?, k, v),
                Op::Delete(s, k) => wb.delete_cf(self.cf(s)?, k),
                Op::Merge(s, k, v) => wb.merge_cf(self.cf(s)?, k, v),
                Op::DeleteNodes(s, ids) => {
                    wb.delete_range_cf(self.cf(s)?, ids.start.to_be_bytes(), ids.end.to_be_bytes())
                }
            }
        }
        let mut opts = WriteOptions::default();
        opts.set_sync(sync);
        // A failed log write would abort the process inside RocksDB: refuse it before (space.rs).
        space::ensure(&self.path, 2 * wb.size_in_bytes() as u64)?;
        self.db.write_opt(wb, &opts).map_err(err)?;
        if let Some(ack) = &self.ack {
            ack.record(
                self.db.latest_sequence_number(),
                wal::AckFile::commits_of(batch),
            );
        }
        Ok(())
    }

    fn sequence(&self) -> u64 {
        self.db.latest_sequence_number()
    }

    fn catch_up(&self) -> Result<bool> {
        if self.secondary.is_none() {
            return Ok(false);
        }
        self.pins.exclusive(&self.path, || {
            let before = self.sequence();
            self.db.try_catch_up_with_primary().map_err(err)?;
            Ok(self.sequence() != before)
        })
    }

    fn settle(&self) -> Result<()> {
        settle::flush_for_readers(&self.db)
    }

    fn memory_bytes(&self) -> Result<u64> {
        settle::memtable_bytes(&self.db)
    }

    fn estimate_keys(&self, space: Space) -> Result<u64> {
        Ok(self
            .db
            .property_int_value_cf(self.cf(space)?, "rocksdb.estimate-num-keys")
            .map_err(err)?
            .unwrap_or(0))
    }

    fn private_dir(&self) -> Option<&Path> {
        self.secondary.as_ref().map(|d| d.path())
    }

    fn checkpoint(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(|source| EngineError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        rocksdb::checkpoint::Checkpoint::new(&self.db)
            .map_err(err)?
            .create_checkpoint(dir.join(ROCKSDB_DIR))
            .map_err(err)
    }

    fn bulk_in_place(&self) -> bool {
        false
    }

    fn bulk_begin(&self) -> Result<()> {
        bulk::begin(&self.path)
    }

    fn bulk_write(
        &self,
        space: Space,
        part: usize,
        fill: &mut dyn FnMut(&mut dyn BulkSink) -> Result<()>,
    ) -> Result<Option<BulkPart>> {
        bulk::write(&self.path, &self.block_cache, space, part, fill)
    }

    fn bulk_ingest(&self, parts: Vec<BulkPart>) -> Result<()> {
        bulk::ingest(&self.db, &self.path, parts)
    }

    fn bulk_end(&self) {
        let _ = std::fs::remove_dir_all(self.path.join(BULK_DIR));
    }
}

/// Threads RocksDB opens table files with, per column family, when a database opens. Its
/// default, 16, made a one-shot statement start about 160 threads (ten column families) that
/// each opened a file or two and exited.
const FILE_OPENING_THREADS: i32 = 2;

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
    wal::set_recovery_mode(&mut opts);
    opts.set_max_open_files(-1);
    opts.set_max_file_opening_threads(FILE_OPENING_THREADS);
    // The info log is all a secondary writes: keep one small file.
    opts.set_keep_log_file_num(1);
    opts.set_max_log_file_size(1 << 20);
    let db = DB::open_cf_descriptors_as_secondary(&opts, db_dir, dir.path(), descriptors)
        .map_err(|e| open_error(path, db_dir, e))?;
    Ok((db, dir))
}

/// Maps an error of opening RocksDB, telling a held `LOCK` file from everything else.
/// Maps an error of opening RocksDB, telling a held `LOCK` file and a damaged log (one that a
/// point-in-time recovery would open, `wal.rs`) from everything else.
fn open_error(path: &Path, db_dir: &Path, e: rocksdb::Error) -> EngineError {
    if is_lock_error(&e, db_dir) {
        return EngineError::Locked {
            path: path.to_path_buf(),
            detail: e.into_string(),
        };
    }
    if e.kind() == rocksdb::ErrorKind::Corruption {
        if let Some(loss) = wal::corrupt_loss(path, db_dir, e.clone().into_string()) {
            return EngineError::DamagedLog {
                path: path.to_path_buf(),
                loss,
            };
        }
    }
    err(e)
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
