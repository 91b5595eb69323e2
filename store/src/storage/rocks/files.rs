//! What a writable open does with the files of the database directory (docs/FORMAT.md,
//! "Directory"): a new database is created under a temporary name, stamped and renamed into
//! place, so a process killed while creating it leaves either no database or a stamped one;
//! the info log stays small; empty write-ahead logs and temporaries of a process that died are
//! removed, so that repeated opens leave nothing behind.

use crate::error::{EngineError, Result};
use crate::failpoint;
use crate::storage::Space;
use cairn_storage_format::records::encode_u64;
use cairn_storage_format::{MetaKey, FORMAT_VERSION};
use rocksdb::{ColumnFamilyDescriptor, Options, WriteOptions, DB};
use std::path::Path;

/// Where a new database is built before it is renamed to `rocksdb/`; a leftover one is the
/// remains of a creation that died and is removed.
pub(crate) const STAGING_DIR: &str = "rocksdb.new";

/// Directory of a bulk load's SST files (see `bulk.rs`); a leftover one is removed on open.
pub(crate) const BULK_DIR: &str = "import-tmp";

/// Directory where an import spills what does not fit its memory budget (staged and sorted
/// edges) until its SST files are written (see `bulk::SpillDir`); a leftover one is removed on open.
pub(crate) const SPILL_DIR: &str = "import-spill";

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> EngineError + '_ {
    move |source| EngineError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Keeps RocksDB's info log to warnings and one old file: at the default level every open
/// wrote ~100 KB of options into `LOG` and kept each previous one as `LOG.old.*`.
pub(crate) fn quiet_info_log(opts: &mut Options) {
    opts.set_log_level(rocksdb::LogLevel::Warn);
    opts.set_keep_log_file_num(1);
    opts.set_max_log_file_size(1 << 20);
}

/// Creates the RocksDB database `db_dir` (`<db>/rocksdb`) with every column family and the
/// format stamp: built in `<db>/rocksdb.new`, the stamp written synced, closed, then renamed
/// into place (and the rename made durable). Until the rename there is no `rocksdb/CURRENT`,
/// and a directory holding only a stale `rocksdb.new` counts as empty.
pub(crate) fn create_stamped(
    path: &Path,
    db_dir: &Path,
    opts: &Options,
    descriptors: Vec<ColumnFamilyDescriptor>,
) -> Result<()> {
    let staging = path.join(STAGING_DIR);
    if staging.exists() {
        std::fs::remove_dir_all(&staging).map_err(io(&staging))?;
    }
    std::fs::create_dir_all(&staging).map_err(io(&staging))?;
    {
        let db = DB::open_cf_descriptors(opts, &staging, descriptors).map_err(super::err)?;
        failpoint!("create.before_stamp");
        let meta = db
            .cf_handle(Space::Meta.name())
            .ok_or_else(|| EngineError::Invalid("column family `meta` is missing".into()))?;
        let mut sync = WriteOptions::default();
        sync.set_sync(true);
        db.put_cf_opt(
            meta,
            MetaKey::Format.encode(),
            encode_u64(u64::from(FORMAT_VERSION)),
            &sync,
        )
        .map_err(super::err)?;
        failpoint!("create.before_rename");
    }
    // An empty `rocksdb/` (left by an older build) is replaced; a non-empty one fails here.
    std::fs::rename(&staging, db_dir).map_err(io(db_dir))?;
    sync_dir(path);
    failpoint!("create.after_rename");
    Ok(())
}

/// fsyncs a directory so that a rename or removal in it survives a power loss (best effort:
/// a failure costs durability of the name only, never the data).
pub(crate) fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// After a writable open (the `LOCK` is held, so no other process writes here): removes the
/// empty write-ahead logs that RocksDB 7.8 leaves at each open (it advances the log number
/// only at a flush; fixed in RocksDB 8.3, and safe to delete by hand while WALs are not
/// tracked in the MANIFEST, the default), keeping the newest — the one this open writes to;
/// and the temporaries of a process that died: a bulk load's SST directory, a staging
/// directory, and `*.tmp` files at the top of the database directory (the vector index is
/// written as `vectors.hnsw.tmp` and renamed).
pub(crate) fn tidy_after_open(path: &Path, db_dir: &Path) -> Result<()> {
    let mut empty_logs = Vec::new();
    for entry in std::fs::read_dir(db_dir).map_err(io(db_dir))? {
        let entry = entry.map_err(io(db_dir))?;
        let name = entry.file_name();
        let Some(number) = name
            .to_str()
            .and_then(|n| n.strip_suffix(".log"))
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        let len = entry.metadata().map_err(io(db_dir))?.len();
        empty_logs.push((number, len == 0, entry.path()));
    }
    empty_logs.sort_by_key(|(number, _, _)| *number);
    empty_logs.pop(); // the live log of this open
    for (_, empty, log) in empty_logs {
        if empty {
            std::fs::remove_file(&log).map_err(io(&log))?;
        }
    }
    // RocksDB writes its OPTIONS file as `OPTIONS-N.dbtmp` and renames it: a process killed
    // in between leaves one that RocksDB itself never removes.
    for entry in std::fs::read_dir(db_dir).map_err(io(db_dir))? {
        let entry = entry.map_err(io(db_dir))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("OPTIONS-") && name.ends_with(".dbtmp") {
            std::fs::remove_file(entry.path()).map_err(io(db_dir))?;
        }
    }
    remove_temporaries(path)
}

/// Removes what a process that died while writing left in a database's directory of files (a
/// RocksDB database's, or a cluster database's local one): a bulk load's SST directory, an
/// import's spill, a staging directory, and `*.tmp` files at its top (the vector index is
/// written as `vectors.hnsw.tmp` and renamed). Only a writer may: it holds the lock (or the
/// cluster's writer lease), so no other process is writing them.
pub(crate) fn remove_temporaries(path: &Path) -> Result<()> {
    for dir in [BULK_DIR, SPILL_DIR, STAGING_DIR] {
        let dir = path.join(dir);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(io(&dir))?;
        }
    }
    for entry in std::fs::read_dir(path).map_err(io(path))? {
        let entry = entry.map_err(io(path))?;
        let p = entry.path();
        if p.extension().is_some_and(|e| e == "tmp") && p.is_file() {
            std::fs::remove_file(&p).map_err(io(&p))?;
        }
    }
    Ok(())
}
