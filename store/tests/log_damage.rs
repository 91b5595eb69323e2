//! The log-damage matrix (docs/RELIABILITY.md, "A damaged log"): 40 acknowledged commits that
//! live only in the write-ahead log, then the log truncated, flipped, deleted or replaced by
//! garbage. Every case is refused with `DamagedLog`, which says what recovering keeps and drops;
//! `recover` then opens it with a prefix of the commits, whole, and later opens are normal.
//! Also: a torn last record of a commit that never returned (a crash) is not damage, a deleted
//! `CURRENT` is named and written again, and RocksDB's `OPTIONS-*.dbtmp` leftovers go.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_storage_format::Value;
use cairn_store::{wal, EngineError, Graph, GraphOptions, GraphRead, LogDamage, LogLoss, OpenMode};
use std::path::{Path, PathBuf};

const COMMITS: u64 = 40;

/// A database with `n` commits of one node each (`k0`…), made by a child process (this test
/// binary, [`child`]) that aborts after them, like a killed process: they live in the log only.
/// With `torn`, the child also writes one more commit and then puts the acknowledged record
/// back as it was, as if killed in the middle of that commit's log write.
fn database(dir: &Path, n: u64, torn: bool) -> PathBuf {
    let db = dir.join("db");
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child", "--nocapture", "--test-threads=1"])
        .env(
            "CAIRN_LOG_DAMAGE_CHILD",
            format!("{n} {torn} {}", db.display()),
        )
        .output()
        .unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&out.status),
        Some(6),
        "the child aborts: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    db
}

/// The child of [`database`]; does nothing in a normal test run.
#[test]
fn child() {
    let Ok(args) = std::env::var("CAIRN_LOG_DAMAGE_CHILD") else {
        return;
    };
    let mut args = args.splitn(3, ' ');
    let n: u64 = args.next().unwrap().parse().unwrap();
    let torn = args.next().unwrap() == "true";
    let db = PathBuf::from(args.next().unwrap());
    let g = Graph::open(&db, GraphOptions::default()).unwrap();
    let commit = |i: u64| {
        let mut w = g.writer().unwrap();
        w.upsert_node(
            "Item",
            &format!("k{i}"),
            [("v", Value::Int(i as i64))],
            None,
        )
        .unwrap();
        w.commit().unwrap();
    };
    for i in 0..n {
        commit(i);
    }
    assert_eq!(g.commits(), n);
    if torn {
        let record = std::fs::read(db.join("acknowledged")).unwrap();
        commit(n);
        std::fs::write(db.join("acknowledged"), record).unwrap();
    }
    std::process::abort();
}

/// The live log: the largest `*.log` of the RocksDB directory.
fn live_log(db: &Path) -> PathBuf {
    std::fs::read_dir(db.join("rocksdb"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap()
}

/// The keys `k0…` present, which must be a prefix, and the commit counter.
fn state(db: &Path) -> (u64, u64) {
    let g = Graph::open(db, GraphOptions::default()).unwrap();
    let mut present = 0;
    for i in 0..COMMITS {
        match g.node_id("Item", &format!("k{i}")).unwrap() {
            Some(_) if present == i => present += 1,
            Some(_) => panic!("k{i} present after a gap at k{present}: not a prefix"),
            None => {}
        }
    }
    (present, g.commits())
}

fn refused(db: &Path) -> LogLoss {
    match Graph::open(db, GraphOptions::default()) {
        Err(EngineError::DamagedLog { loss, .. }) => {
            let text = EngineError::DamagedLog {
                path: db.into(),
                loss: loss.clone(),
            }
            .to_string();
            assert!(text.contains("recover --apply"), "{text}");
            assert!(
                text.contains("recovering keeps the database as of commit"),
                "{text}"
            );
            loss
        }
        Err(e) => panic!("another error than DamagedLog: {e}"),
        Ok(g) => panic!(
            "a damaged log opened in silence with {} of {COMMITS} commits",
            g.commits()
        ),
    }
}

fn flip(bytes: &mut [u8], at: usize) {
    for b in &mut bytes[at..at + 16] {
        *b ^= 0x5a;
    }
}

/// Damages the live log as `case` says.
fn damage(db: &Path, case: &str) {
    let log = live_log(db);
    let mut bytes = std::fs::read(&log).unwrap();
    let n = bytes.len();
    assert!(n > 1000, "the commits are in the log: {n} bytes");
    match case {
        "truncate-half" => bytes.truncate(n / 2),
        "truncate-tail" => bytes.truncate(n - 3),
        "truncate-all" => bytes.clear(),
        "flip-middle" => flip(&mut bytes, n / 2),
        "flip-start" => flip(&mut bytes, 20),
        "flip-end" => flip(&mut bytes, n - 20),
        "garbage" => {
            let mut x = 0x2545_f491_u32;
            for b in &mut bytes {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                *b = x as u8;
            }
        }
        "delete" => {
            std::fs::remove_file(&log).unwrap();
            return;
        }
        _ => unreachable!(),
    }
    std::fs::write(&log, bytes).unwrap();
}

#[test]
fn every_damaged_log_is_refused_then_recovered_to_a_prefix() {
    let cases = [
        "truncate-half",
        "truncate-tail",
        "truncate-all",
        "flip-middle",
        "flip-start",
        "flip-end",
        "garbage",
        "delete",
    ];
    for case in cases {
        let dir = tempfile::tempdir().unwrap();
        let db = database(dir.path(), COMMITS, false);
        damage(&db, case);
        let loss = refused(&db);
        let ack = loss.acknowledged.expect("the acknowledged record");
        assert_eq!(ack.commits, COMMITS, "{case}");
        assert!(loss.kept_commits < COMMITS, "{case}: {loss}");
        // Garbage may fail its first record's length check at the end of the file, which is
        // a torn tail to RocksDB: the acknowledged record catches it then.
        eprintln!("{case}: {loss}");
        if case.starts_with("flip") {
            assert!(
                matches!(loss.damage, LogDamage::Corrupt { .. }),
                "{case}: {loss:?}"
            );
        }
        // A second refusal says the same; so does the dry run, which changes nothing.
        assert_eq!(refused(&db), loss, "{case}");
        let plan = wal::inspect(&db).unwrap();
        assert_eq!(plan.loss.as_ref(), Some(&loss), "{case}");
        // A reader is refused too: it would show the same loss.
        assert!(
            matches!(
                Graph::open(
                    &db,
                    GraphOptions {
                        mode: OpenMode::ReadOnly,
                        ..Default::default()
                    }
                ),
                Err(EngineError::DamagedLog { .. })
            ),
            "{case}: a reader opened"
        );

        let done = wal::recover(&db).unwrap();
        let kept = done.loss.expect("recover reports the loss").kept_commits;
        assert_eq!(kept, loss.kept_commits, "{case}");
        let (present, commits) = state(&db);
        assert_eq!((present, commits), (kept, kept), "{case}");
        assert!(wal::inspect(&db).unwrap().is_clean(), "{case}");
        assert!(wal::recover(&db).unwrap().is_clean(), "{case}");
        // The database goes on: a new commit, a clean reopen.
        let g = Graph::open(&db, GraphOptions::default()).unwrap();
        let mut w = g.writer().unwrap();
        w.upsert_node("Item", "after", [("v", Value::Int(-1))], None)
            .unwrap();
        w.commit().unwrap();
        drop(g);
        let g = Graph::open(&db, GraphOptions::default()).unwrap();
        assert_eq!(g.commits(), kept + 1, "{case}");
        assert!(g.node_id("Item", "after").unwrap().is_some(), "{case}");
    }
}

#[test]
fn a_torn_last_record_of_an_unacknowledged_commit_is_a_crash_not_damage() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), COMMITS - 1, true);
    let log = live_log(&db);
    let bytes = std::fs::read(&log).unwrap();
    std::fs::write(&log, &bytes[..bytes.len() - 5]).unwrap();
    assert_eq!(state(&db), (COMMITS - 1, COMMITS - 1));
}

#[test]
fn a_database_without_the_record_opens_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), 3, false);
    std::fs::remove_file(db.join("acknowledged")).unwrap();
    assert_eq!(state(&db), (3, 3));
    // A damaged record is a warning, not a refusal: the check is skipped.
    std::fs::write(db.join("acknowledged"), b"not a record").unwrap();
    assert_eq!(state(&db), (3, 3));
}

#[test]
fn a_deleted_current_is_named_and_written_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), 5, false);
    std::fs::remove_file(db.join("rocksdb").join("CURRENT")).unwrap();
    for mode in [OpenMode::ReadWrite, OpenMode::ReadOnly] {
        let opened = Graph::open(
            &db,
            GraphOptions {
                mode,
                ..Default::default()
            },
        );
        match opened {
            Err(e @ EngineError::MissingCurrent { .. }) => {
                let text = e.to_string();
                assert!(text.contains("rocksdb/CURRENT is missing"), "{text}");
                assert!(text.contains("MANIFEST-"), "{text}");
            }
            other => panic!("{mode:?}: {other:?}"),
        }
    }
    let plan = wal::inspect(&db).unwrap();
    assert!(plan.current.is_some() && plan.loss.is_none(), "{plan:?}");
    let done = wal::recover(&db).unwrap();
    assert_eq!(done.current, plan.current);
    assert_eq!(state(&db), (5, 5));
}

#[test]
fn an_options_temporary_left_by_a_killed_open_is_removed() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), 1, false);
    let stray = db.join("rocksdb").join("OPTIONS-000099.dbtmp");
    std::fs::write(&stray, "partial").unwrap();
    drop(Graph::open(&db, GraphOptions::default()).unwrap());
    assert!(!stray.exists());
}
