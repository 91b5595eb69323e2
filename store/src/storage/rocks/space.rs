//! Free-space checks before RocksDB writes (docs/RELIABILITY.md, "Full disks").
//!
//! Debian's RocksDB 7.8 is built with assertions: when a write fails with ENOSPC and the file
//! is flushed or closed afterwards, an assertion in its file writer aborts the whole process
//! (exit 134, no message) — on an open (which writes a MANIFEST, an OPTIONS file, a log and
//! flushes the recovered log) as on a commit. Cairn cannot catch that abort, so it refuses to
//! start a write that could run out of space, with [`EngineError::DiskFull`]: before a
//! writable open and before each commit and bulk-load file, the file system of the database
//! must have [`RESERVE`] bytes free beyond what the step writes.

use crate::error::{EngineError, Result};
use std::path::Path;

/// Headroom kept free: RocksDB's own files of an open (OPTIONS ~40 KB, MANIFEST, info log),
/// a memtable flush of small commits, and the vector index's temporary file beside it.
pub const RESERVE: u64 = 8 << 20;

/// Bytes available to this process on the file system of `dir` (None when it cannot be told,
/// e.g. the directory does not exist yet: the check then passes).
fn available(dir: &Path) -> Option<u64> {
    let mut probe = dir;
    loop {
        if let Ok(s) = rustix::fs::statvfs(probe) {
            return Some(s.f_bavail.saturating_mul(s.f_frsize));
        }
        probe = probe.parent()?;
    }
}

/// Fails with [`EngineError::DiskFull`] unless `need` bytes plus [`RESERVE`] are free for `dir`.
pub(crate) fn ensure(dir: &Path, need: u64) -> Result<()> {
    let Some(free) = available(dir) else {
        return Ok(());
    };
    let need = need.saturating_add(RESERVE);
    if free < need {
        return Err(EngineError::DiskFull {
            path: dir.to_path_buf(),
            free,
            need,
        });
    }
    Ok(())
}

/// What a writable open of `db_dir` may write: the reserve plus the write-ahead logs it
/// replays (recovery flushes them into table files).
pub(crate) fn open_need(db_dir: &Path) -> u64 {
    std::fs::read_dir(db_dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().ends_with(".log"))
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}
