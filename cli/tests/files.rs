//! What the database directory holds after kills and repeated opens (docs/FORMAT.md,
//! "Directory"): a creation killed at any moment leaves a directory that opens, and opening a
//! database again and again adds nothing that stays.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{cairn, imported, item_dump, path, text};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// After the creating process died: `stats` opens the directory, and an import into it works.
fn assert_usable(db: &Path, dump: &Path, what: &str) {
    let o = cairn(&["--db", path(db), "stats"]);
    if db.join("rocksdb").join("CURRENT").exists() {
        assert!(o.status.success(), "{what}: stats failed: {:?}", text(&o));
    } else {
        // Nothing was created yet: the directory still counts as new.
        let (_, err) = text(&o);
        assert!(err.contains("does not exist"), "{what}: {err}");
    }
    let o = cairn(&["--db", path(db), "import", path(dump), "--embedder", "none"]);
    assert!(
        o.status.success(),
        "{what}: re-import failed: {:?}",
        text(&o)
    );
    assert!(!db.join("rocksdb.new").exists(), "{what}: staging left");
}

#[test]
fn an_import_killed_while_it_creates_the_database_leaves_a_directory_that_opens() {
    let tmp = tempfile::tempdir().unwrap();
    let dump = item_dump(tmp.path(), 50, true);
    // The moment between RocksDB's CURRENT file and the format stamp (before the fix, this left
    // "not a Cairn database: no format stamp"), and the ones around it.
    for point in [
        "create.before_stamp",
        "create.before_rename",
        "create.after_rename",
    ] {
        let db = tmp.path().join(point);
        let o = Command::new(env!("CARGO_BIN_EXE_cairn"))
            .args(["--db", path(&db), "import", path(&dump)])
            .env("CAIRN_CRASH_AT", point)
            .output()
            .unwrap();
        assert!(!o.status.success(), "{point}: no crash: {:?}", text(&o));
        assert_usable(&db, &dump, point);
    }
    // Real kills in the first tenth of a second.
    for ms in (0..=100).step_by(10) {
        let db = tmp.path().join(format!("kill-{ms}"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_cairn"))
            .args(["--db", path(&db), "import", path(&dump)])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(ms));
        let _ = child.kill();
        child.wait().unwrap();
        assert_usable(&db, &dump, &format!("killed after {ms} ms"));
    }
}

/// The files of `rocksdb/`: (name, size).
fn files(db: &Path) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = std::fs::read_dir(db.join("rocksdb"))
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                e.metadata().unwrap().len(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn twenty_opens_leave_no_empty_logs_and_no_old_info_logs() {
    let tmp = tempfile::tempdir().unwrap();
    let db = imported(tmp.path(), &item_dump(tmp.path(), 20, true));
    let o = cairn(&["--db", path(&db), "stats"]);
    assert!(o.status.success(), "{:?}", text(&o));
    let before: u64 = files(&db).iter().map(|(_, n)| n).sum();
    for _ in 0..20 {
        let o = cairn(&["--db", path(&db), "stats"]);
        assert!(o.status.success(), "{:?}", text(&o));
    }
    let after = files(&db);
    let empty_logs: Vec<_> = after
        .iter()
        .filter(|(n, len)| n.ends_with(".log") && *len == 0)
        .collect();
    assert!(empty_logs.len() <= 1, "empty logs pile up: {after:?}");
    let old_logs = after
        .iter()
        .filter(|(n, _)| n.starts_with("LOG.old"))
        .count();
    assert!(old_logs <= 1, "old info logs pile up: {after:?}");
    let total: u64 = after.iter().map(|(_, n)| n).sum();
    assert!(
        total <= before + 64 * 1024,
        "20 opens grew rocksdb/ from {before} to {total} bytes: {after:?}"
    );
}
