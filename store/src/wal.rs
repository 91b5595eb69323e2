//! A damaged write-ahead log (docs/RELIABILITY.md, "A damaged log"): what recovering it would
//! keep and drop, and the recovery. An open refuses such a database with
//! [`crate::EngineError::DamagedLog`]; these are what that error's command runs. The RocksDB
//! backend does the work (`storage/rocks/wal.rs`).

use crate::error::Result;
pub use crate::loss::{Acknowledged, LogDamage, LogLoss, Recovery};
use std::path::Path;

/// What recovering the database in `path` would do, without changing anything.
pub fn inspect(path: &Path) -> Result<Recovery> {
    crate::storage::rocks::wal::inspect(path)
}

/// Recovers the database in `path`: writes a missing `rocksdb/CURRENT` again and, when its log
/// is damaged, keeps the commits the log gives back whole (a prefix) and drops the rest, then
/// records that state as acknowledged. Returns what it did; clean when nothing was wrong.
pub fn recover(path: &Path) -> Result<Recovery> {
    crate::storage::rocks::wal::recover(path)
}
