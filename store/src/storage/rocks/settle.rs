//! Leaving nothing large in the write-ahead log for the next process: every read-only open (a
//! RocksDB secondary) replays the log from the last flush, so a 1M-node import's last batch
//! (~96 MB of log) cost every one-shot query about a second and 240 MB until the next flush.
//!
//! Flushing alone is not enough for a reader that is already open. A secondary that replayed
//! a key from the log before the flush keeps it in its active memtable, and a memtable is read
//! before the table files: once the writer has flushed a newer value of that key (and retired
//! the log), the reader's catch-up installs the new file but keeps serving the old value
//! (RocksDB issues 14444 and 15051). In `meta` that is the import marker: a reader that saw
//! it set kept seeing it after the import committed. So after the flush the `meta` entries are
//! written again (the same values, and the marker's removal) into the new, tiny log: a reader's
//! catch-up replays them on top of whatever it held.

use super::err;
use crate::error::{EngineError, Result};
use crate::failpoint;
use crate::storage::Space;
use cairn_storage_format::MetaKey;
use rocksdb::{ColumnFamily, DB};

/// Memtables (all families) above this are flushed when a writable handle closes: below it the
/// next open's replay costs a few milliseconds.
pub(crate) const CLOSE_FLUSH_MIN_BYTES: u64 = 4 << 20;

/// Flushes every column family, then re-writes `meta` (see the module comment), synced. The
/// caller holds the writer's slot (or the only handle), so no commit runs in between.
pub(crate) fn flush_for_readers(db: &DB) -> Result<()> {
    for space in Space::ALL {
        db.flush_cf(family(db, space)?).map_err(err)?;
    }
    let meta = family(db, Space::Meta)?;
    let mut batch = rocksdb::WriteBatch::default();
    let mut it = db.raw_iterator_cf(meta);
    it.seek_to_first();
    while let (Some(k), Some(v)) = (it.key(), it.value()) {
        batch.put_cf(meta, k, v);
        it.next();
    }
    it.status().map_err(err)?;
    drop(it);
    if db
        .get_pinned_cf(meta, MetaKey::ImportPending.encode())
        .map_err(err)?
        .is_none()
    {
        batch.delete_cf(meta, MetaKey::ImportPending.encode());
    }
    let mut sync = rocksdb::WriteOptions::default();
    sync.set_sync(true);
    db.write_opt(batch, &sync).map_err(err)?;
    Ok(())
}

/// Bytes held in the memtables of every column family (what the next open would replay).
pub(crate) fn memtable_bytes(db: &DB) -> Result<u64> {
    let mut total = 0;
    // A read-only open of a database from before the change log has no `changes` family.
    for space in Space::ALL
        .into_iter()
        .filter(|s| db.cf_handle(s.name()).is_some())
    {
        total += db
            .property_int_value_cf(family(db, space)?, "rocksdb.cur-size-all-mem-tables")
            .map_err(err)?
            .ok_or_else(|| EngineError::Invalid("memtable size property missing".into()))?;
    }
    Ok(total)
}

/// Small table files of one column family past which a writable handle merges them on close.
/// Every open of a database that a process wrote and closed replays that process's log and
/// writes what it held as one small level-0 file per column family it touched; RocksDB's
/// compaction moves such files down whole when their keys overlap nothing below (new ids,
/// new names), so they are never merged. 1,000 one-shot writes left about 4,000 table files,
/// every one of which the next open opens (`max_open_files = -1`): 0.5–0.9 s at 1M nodes.
pub(crate) const CLOSE_MERGE_SMALL_FILES: usize = 32;
/// In a `test-hooks` build, `CAIRN_CLOSE_MERGE_FILES` lowers [`CLOSE_MERGE_SMALL_FILES`], so
/// that the crash harness's short rounds (a few dozen processes) reach the merge.
fn close_merge_small_files() -> usize {
    #[cfg(feature = "test-hooks")]
    if let Some(n) = std::env::var("CAIRN_CLOSE_MERGE_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    CLOSE_MERGE_SMALL_FILES
}
/// A table file below this size counts as small.
const SMALL_FILE_BYTES: usize = 1 << 20;

/// Merges the small table files of every column family that has more than
/// [`CLOSE_MERGE_SMALL_FILES`] of them: one manual compaction, forced down to the last level,
/// over the key range they span only (larger files are rewritten only where that range
/// overlaps them). Returns the number of column families compacted.
pub(crate) fn merge_small_files(db: &DB) -> Result<usize> {
    let files = db.live_files().map_err(err)?;
    let mut opts = rocksdb::CompactOptions::default();
    opts.set_bottommost_level_compaction(rocksdb::BottommostLevelCompaction::Force);
    let mut merged = 0;
    for space in Space::ALL {
        let small: Vec<_> = files
            .iter()
            .filter(|f| f.column_family_name == space.name() && f.size < SMALL_FILE_BYTES)
            .collect();
        if small.len() <= close_merge_small_files() {
            continue;
        }
        let start = small.iter().filter_map(|f| f.start_key.as_deref()).min();
        let end = small.iter().filter_map(|f| f.end_key.as_deref()).max();
        // A crash anywhere here loses nothing: a compaction's output files join the database
        // only with the manifest record that also drops its inputs (an atomic, synced append);
        // before it they are orphans the next open deletes. `close.merge.writing` (test-hooks:
        // `crash_filter`) crashes with the output half written.
        failpoint!("close.merge.before");
        db.compact_range_cf_opt(family(db, space)?, start, end, &opts);
        failpoint!("close.merge.after");
        merged += 1;
    }
    Ok(merged)
}

fn family(db: &DB, space: Space) -> Result<&ColumnFamily> {
    db.cf_handle(space.name())
        .ok_or_else(|| EngineError::Invalid(format!("column family `{}` is missing", space.name())))
}

/// In a `test-hooks` build, every column family runs this compaction filter, which keeps every
/// entry and, on the first entry of each manual compaction (the close's merge is the only
/// one), passes the `close.merge.writing` failpoint: the crash harness aborts the process
/// there, in RocksDB's compaction thread, with the merge's output file open and partly written.
#[cfg(feature = "test-hooks")]
pub(crate) mod crash_filter {
    use rocksdb::compaction_filter::{CompactionFilter, Decision};
    use rocksdb::compaction_filter_factory::{CompactionFilterContext, CompactionFilterFactory};
    use std::ffi::CStr;

    pub(crate) struct Factory;

    pub(crate) struct Filter {
        manual: bool,
        passed: bool,
    }

    impl CompactionFilter for Filter {
        fn filter(&mut self, _level: u32, _key: &[u8], _value: &[u8]) -> Decision {
            if self.manual && !self.passed {
                self.passed = true;
                crate::failpoint!("close.merge.writing");
            }
            Decision::Keep
        }

        fn name(&self) -> &CStr {
            c"cairn.crash_filter"
        }
    }

    impl CompactionFilterFactory for Factory {
        type Filter = Filter;

        fn create(&mut self, context: CompactionFilterContext) -> Filter {
            Filter {
                manual: context.is_manual_compaction,
                passed: false,
            }
        }

        fn name(&self) -> &CStr {
            c"cairn.crash_filter_factory"
        }
    }
}
