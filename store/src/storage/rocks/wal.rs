//! The write-ahead log's integrity (docs/RELIABILITY.md, "A damaged log"): how RocksDB replays
//! it, the record of acknowledged writes that tells a damaged log from a crash, and the
//! recovery that drops a damaged log's tail on request.
//!
//! **Recovery mode.** RocksDB's default, point-in-time recovery, stops replaying the log at the
//! first damaged record and opens with what came before, without a word: a log cut in half or
//! with 16 flipped bytes opened with half of its commits. Cairn opens with
//! `TolerateCorruptedTailRecords` instead: an *incomplete* last record (what a process killed
//! in the middle of a log write leaves, a commit that never returned) is dropped, and any other
//! damage fails the open with a corruption error, before anything is changed.
//!
//! **Acknowledged writes.** A log cut at a record boundary, or deleted, still replays cleanly.
//! So after every write that returned the writer records in `<db>/acknowledged` the RocksDB
//! sequence number it reached and the last commit counter written (a 32-byte write into the
//! page cache, like the log write before it; not fsynced, so it can only lag behind the log,
//! never run ahead of it, short of a power loss). An open that recovers less than the record
//! names has lost acknowledged commits: it is refused with [`EngineError::DamagedLog`], which
//! says what a recovery would keep and drop; [`recover`] does it when asked.

use super::{cf, err, files, space, ROCKSDB_DIR};
use crate::error::{EngineError, Result};
use crate::loss::{Acknowledged, LogDamage, LogLoss, Recovery};
use crate::storage::Space;
use cairn_storage_format::records::decode_u64;
use cairn_storage_format::MetaKey;
use rocksdb::{ColumnFamilyDescriptor, DBRecoveryMode, Options, DB};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The file, at the top of the database directory, that records the last acknowledged write.
pub(crate) const ACKNOWLEDGED_FILE: &str = "acknowledged";

const MAGIC: &[u8; 8] = b"CAIRNACK";
const RECORD_LEN: usize = 32;

fn encode(ack: Acknowledged) -> [u8; RECORD_LEN] {
    let mut b = [0u8; RECORD_LEN];
    b[..8].copy_from_slice(MAGIC);
    b[8..16].copy_from_slice(&ack.sequence.to_le_bytes());
    b[16..24].copy_from_slice(&ack.commits.to_le_bytes());
    let sum = crc32fast::hash(&b[..24]);
    b[24..28].copy_from_slice(&sum.to_le_bytes());
    b
}

fn decode(b: &[u8]) -> Option<Acknowledged> {
    if b.len() != RECORD_LEN || &b[..8] != MAGIC {
        return None;
    }
    let u64_at = |at: usize| b.get(at..at + 8)?.try_into().ok().map(u64::from_le_bytes);
    let sum = u32::from_le_bytes(b.get(24..28)?.try_into().ok()?);
    (crc32fast::hash(&b[..24]) == sum).then_some(())?;
    Some(Acknowledged {
        sequence: u64_at(8)?,
        commits: u64_at(16)?,
    })
}

/// Reads `<db>/acknowledged`. Absent or empty (a database written before the record existed, or
/// that never committed): `None`. A record that does not decode cannot vouch for the log:
/// `None` too, with a warning, since the check it enables is then skipped.
pub(crate) fn read_acknowledged(path: &Path) -> Option<Acknowledged> {
    let file = path.join(ACKNOWLEDGED_FILE);
    let bytes = std::fs::read(&file).ok()?;
    if bytes.is_empty() {
        return None;
    }
    let found = decode(&bytes);
    if found.is_none() {
        tracing::warn!(
            "{} is damaged: the log's completeness cannot be checked on this open",
            file.display()
        );
    }
    found
}

/// The writer's handle on `<db>/acknowledged`, with the commit counter last recorded (a write
/// that carries no counter, such as the import marker's, keeps it).
#[derive(Debug)]
pub(crate) struct AckFile {
    file: std::fs::File,
    path: PathBuf,
    commits: AtomicU64,
}

impl AckFile {
    pub(crate) fn open(path: &Path) -> Result<AckFile> {
        let path = path.join(ACKNOWLEDGED_FILE);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|source| EngineError::Io {
                path: path.clone(),
                source,
            })?;
        Ok(AckFile {
            file,
            path,
            commits: AtomicU64::new(0),
        })
    }

    /// Records a write that returned, at `sequence`, with the commit counter it wrote (if any).
    /// A failure costs only the check on the next open, and the write is already in the log:
    /// it is logged, not raised.
    pub(crate) fn record(&self, sequence: u64, commits: Option<u64>) {
        let commits = match commits {
            Some(c) => {
                self.commits.store(c, Ordering::Relaxed);
                c
            }
            None => self.commits.load(Ordering::Relaxed),
        };
        let ack = Acknowledged { sequence, commits };
        if let Err(e) = self.file.write_all_at(&encode(ack), 0) {
            tracing::warn!(
                "recording the acknowledged write in {}: {e}",
                self.path.display()
            );
        }
    }

    /// The commit counter of a batch: its `meta/commits` put, if it has one.
    pub(crate) fn commits_of(batch: &crate::storage::Batch) -> Option<u64> {
        let key = MetaKey::Commits.encode();
        batch.iter().find_map(|op| match op {
            crate::storage::Op::Put(Space::Meta, k, v) if k == key => decode_u64(v).ok(),
            _ => None,
        })
    }
}

/// The recovery mode of every open (see the module comment).
pub(crate) fn set_recovery_mode(opts: &mut Options) {
    opts.set_wal_recovery_mode(DBRecoveryMode::TolerateCorruptedTailRecords);
}

/// Every column family on disk, with Cairn's options for its own (the degree merge operator
/// among them: a recovery flushes them), for the raw opens below.
fn descriptors(db_dir: &Path) -> Result<Vec<ColumnFamilyDescriptor>> {
    let cache = rocksdb::Cache::new_lru_cache(8 << 20).map_err(err)?;
    Ok(DB::list_cf(&Options::default(), db_dir)
        .map_err(err)?
        .into_iter()
        .map(|n| {
            let opts = match Space::from_name(&n) {
                Some(space) => cf::options(space, &cache),
                None => Options::default(),
            };
            ColumnFamilyDescriptor::new(n, opts)
        })
        .collect())
}

/// The commit counter of an open database (`meta/commits`; `None` before the first commit).
pub(crate) fn commits_now(db: &DB) -> Result<Option<u64>> {
    let meta = db
        .cf_handle(Space::Meta.name())
        .ok_or_else(|| EngineError::Invalid("column family `meta` is missing".into()))?;
    match db.get_cf(meta, MetaKey::Commits.encode()).map_err(err)? {
        Some(bytes) => Ok(Some(
            decode_u64(&bytes).map_err(EngineError::corrupt("commit counter"))?,
        )),
        None => Ok(None),
    }
}

/// The commit counter and sequence of an open database.
fn position(db: &DB) -> Result<(u64, u64)> {
    let meta = db
        .cf_handle(Space::Meta.name())
        .ok_or_else(|| EngineError::Invalid("column family `meta` is missing".into()))?;
    let commits = match db.get_cf(meta, MetaKey::Commits.encode()).map_err(err)? {
        Some(bytes) => decode_u64(&bytes).map_err(EngineError::corrupt("commit counter"))?,
        None => 0,
    };
    Ok((commits, db.latest_sequence_number()))
}

fn options(mode: DBRecoveryMode) -> Options {
    let mut opts = Options::default();
    files::quiet_info_log(&mut opts);
    opts.set_wal_recovery_mode(mode);
    opts
}

/// What a recovery would keep of the database in `path` whose log RocksDB refused
/// (`detail`): a read-only open with point-in-time recovery, which replays the log up to the
/// damage in memory and changes nothing. `None` when even that open fails (the damage is not
/// in the log alone: nothing the recovery could fix).
pub(crate) fn corrupt_loss(path: &Path, db_dir: &Path, detail: String) -> Option<LogLoss> {
    let opts = options(DBRecoveryMode::PointInTime);
    let db =
        DB::open_cf_descriptors_read_only(&opts, db_dir, descriptors(db_dir).ok()?, false).ok()?;
    let (kept_commits, kept_sequence) = position(&db).ok()?;
    Some(LogLoss {
        damage: LogDamage::Corrupt { detail },
        kept_commits,
        kept_sequence,
        acknowledged: read_acknowledged(path),
    })
}

/// The loss of an open that recovered to `db`'s state, against the acknowledged record read
/// before the open: `Some` when acknowledged commits are missing.
pub(crate) fn short_loss(db: &DB, acknowledged: Option<Acknowledged>) -> Result<Option<LogLoss>> {
    let Some(ack) = acknowledged else {
        return Ok(None);
    };
    let (kept_commits, kept_sequence) = position(db)?;
    Ok((kept_sequence < ack.sequence).then_some(LogLoss {
        damage: LogDamage::Short,
        kept_commits,
        kept_sequence,
        acknowledged: Some(ack),
    }))
}

/// The newest `MANIFEST-*` of a RocksDB directory whose `CURRENT` is missing: what `CURRENT`
/// named (a writable open starts a new MANIFEST and retires the old ones, so there is one but
/// for a crash in between). `None` when the directory holds no MANIFEST (no database).
pub(crate) fn orphan_manifest(db_dir: &Path) -> Option<String> {
    if db_dir.join("CURRENT").exists() {
        return None;
    }
    std::fs::read_dir(db_dir)
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| Some((n.strip_prefix("MANIFEST-")?.parse::<u64>().ok()?, n.clone())))
        .max()
        .map(|(_, name)| name)
}

/// What recovering the database in `path` would do, without changing anything (see
/// [`Recovery`]). Fails like an open when the database is damaged beyond what it can fix.
pub fn inspect(path: &Path) -> Result<Recovery> {
    let db_dir = path.join(ROCKSDB_DIR);
    if let Some(m) = orphan_manifest(&db_dir) {
        return Ok(Recovery {
            current: Some(m),
            loss: None,
        });
    }
    if !db_dir.join("CURRENT").exists() {
        return Err(EngineError::Missing {
            path: path.to_path_buf(),
        });
    }
    Ok(Recovery {
        current: None,
        loss: inspect_log(path, &db_dir)?,
    })
}

fn inspect_log(path: &Path, db_dir: &Path) -> Result<Option<LogLoss>> {
    let acknowledged = read_acknowledged(path);
    let opts = options(DBRecoveryMode::TolerateCorruptedTailRecords);
    match DB::open_cf_descriptors_read_only(&opts, db_dir, descriptors(db_dir)?, false) {
        Ok(db) => short_loss(&db, acknowledged),
        Err(e) if e.kind() == rocksdb::ErrorKind::Corruption => {
            match corrupt_loss(path, db_dir, e.clone().into_string()) {
                Some(loss) => Ok(Some(loss)),
                None => Err(err(e)),
            }
        }
        Err(e) => Err(err(e)),
    }
}

/// Recovers the database in `path`: writes a missing `CURRENT` again, then, when the log is
/// damaged, opens it for writing with point-in-time recovery (RocksDB keeps the log up to its
/// first damaged record, and the open retires the log) and records the state it kept as
/// acknowledged, so that the next open accepts it. Returns what it did (clean: nothing was
/// wrong, nothing changed). Takes the database's lock like any writable open.
pub fn recover(path: &Path) -> Result<Recovery> {
    let db_dir = path.join(ROCKSDB_DIR);
    let mut done = Recovery::default();
    if let Some(m) = orphan_manifest(&db_dir) {
        let tmp = db_dir.join("CURRENT.cairn-tmp");
        let io = |source| EngineError::Io {
            path: db_dir.join("CURRENT"),
            source,
        };
        std::fs::write(&tmp, format!("{m}\n")).map_err(io)?;
        std::fs::File::open(&tmp)
            .and_then(|f| f.sync_all())
            .map_err(io)?;
        std::fs::rename(&tmp, db_dir.join("CURRENT")).map_err(io)?;
        files::sync_dir(&db_dir);
        done.current = Some(m);
    }
    let Some(loss) = inspect(path)?.loss else {
        return Ok(done);
    };
    space::ensure(path, space::open_need(&db_dir))?;
    let opts = options(DBRecoveryMode::PointInTime);
    let db = DB::open_cf_descriptors(&opts, &db_dir, descriptors(&db_dir)?).map_err(err)?;
    let (commits, sequence) = position(&db)?;
    // Retire the damaged log for good: flushed, the next open replays nothing of it.
    for name in DB::list_cf(&Options::default(), &db_dir).map_err(err)? {
        if let Some(family) = db.cf_handle(&name) {
            db.flush_cf(family).map_err(err)?;
        }
    }
    drop(db);
    let ack = AckFile::open(path)?;
    ack.record(sequence, Some(commits));
    ack.file.sync_all().map_err(|source| EngineError::Io {
        path: ack.path.clone(),
        source,
    })?;
    files::sync_dir(path);
    done.loss = Some(LogLoss {
        kept_commits: commits,
        kept_sequence: sequence,
        ..loss
    });
    Ok(done)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_record_round_trips_and_damage_is_seen() {
        let a = Acknowledged {
            sequence: 1234,
            commits: 40,
        };
        let bytes = encode(a);
        assert_eq!(decode(&bytes), Some(a));
        for i in 0..28 {
            let mut bad = bytes;
            bad[i] ^= 0x10;
            assert_eq!(decode(&bad), None, "flip at {i}");
        }
        assert_eq!(decode(&bytes[..20]), None);
    }
}
