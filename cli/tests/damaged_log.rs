//! A damaged write-ahead log through the `cairn` binary (docs/RELIABILITY.md, "A damaged log"):
//! 40 acknowledged commits living only in the log (the writing process is aborted right after
//! the 40th), the log truncated or flipped: every command refuses the database (exit 1) naming
//! what recovering drops, `cairn recover` says it again and changes nothing, `recover --apply`
//! keeps a prefix and the database works again. The full matrix is store/tests/log_damage.rs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cairn::GraphRead;
use common::{cairn, path, text};
use std::path::Path;
use std::process::Command;

/// A database made by importing one node.
fn create(db: &Path) {
    let dump = db.with_extension("jsonl");
    std::fs::write(
        &dump,
        "{\"type\":\"node\",\"label\":\"Item\",\"key\":\"k0\",\"props\":{\"v\":0}}\n",
    )
    .unwrap();
    let o = cairn(&["--db", path(db), "import", path(&dump)]);
    assert!(o.status.success(), "{:?}", text(&o));
}

/// 40 commits by one script, the process aborted right after the 40th was written.
fn forty_in_the_log(db: &Path) {
    create(db);
    let script: String = (1..=40)
        .map(|i| format!("UPSERT Item \"k{i}\" SET v = {i};\n"))
        .collect();
    let file = db.with_extension("explore");
    std::fs::write(&file, script).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(["--db", path(db), "query", "-f", path(&file)])
        .env_remove("CAIRN_DB")
        .env("CAIRN_CRASH_AT", "commit.after_write@40")
        .output()
        .unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&o.status),
        Some(6),
        "{:?}",
        text(&o)
    );
}

fn live_log(db: &Path) -> std::path::PathBuf {
    std::fs::read_dir(db.join("rocksdb"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap()
}

/// The `Item` nodes of a database that opens.
fn count(db: &Path) -> usize {
    let cairn = cairn::Cairn::open(db).unwrap();
    let graph = cairn.graph();
    let label = graph.catalog().label_id("Item").unwrap();
    graph.label_nodes(label).unwrap().len()
}

/// An error report's words, without miette's wrapping.
fn flat(err: &str) -> String {
    err.split_whitespace()
        .filter(|w| *w != "│")
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_damaged_log_is_refused_then_recovered_on_request() {
    for damage in ["truncate", "flip"] {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db");
        forty_in_the_log(&db);
        let log = live_log(&db);
        let mut bytes = std::fs::read(&log).unwrap();
        let n = bytes.len();
        match damage {
            "truncate" => bytes.truncate(n / 2),
            _ => bytes[n / 2..n / 2 + 16].iter_mut().for_each(|b| *b ^= 0x5a),
        }
        std::fs::write(&log, &bytes).unwrap();

        for args in [
            vec!["stats"],
            vec!["query", "-e", "SHOW LABELS"],
            vec!["query", "-e", "UPSERT Item \"new\""],
        ] {
            let mut all = vec!["--db", path(&db)];
            all.extend(args.iter().copied());
            let o = cairn(&all);
            let (out, err) = text(&o);
            assert_eq!(o.status.code(), Some(1), "{damage} {args:?}: {out}{err}");
            let err = flat(&err);
            assert!(err.contains("was not opened"), "{err}");
            assert!(err.contains("acknowledged commits"), "{err}");
            assert!(err.contains("recover --apply"), "{err}");
        }
        let files = |db: &Path| {
            let mut all: Vec<(String, Vec<u8>)> = std::fs::read_dir(db.join("rocksdb"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| !p.ends_with("LOG") && !p.to_string_lossy().contains("LOG.old"))
                .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
                .collect();
            all.sort();
            all
        };
        let before = files(&db);
        if damage == "flip" {
            // Refused before RocksDB changed anything: the damaged log is still there.
            assert!(
                before.iter().any(|(_, b)| *b == bytes),
                "the damaged log is gone"
            );
        }
        let o = cairn(&["--db", path(&db), "recover"]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{out}{err}");
        assert!(
            out.contains("recovering keeps the database as of commit"),
            "{out}"
        );
        assert!(out.contains("nothing was changed"), "{out}");
        assert!(files(&db) == before, "the dry run changed the database");

        let o = cairn(&["--db", path(&db), "recover", "--apply"]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{out}{err}");
        assert!(out.contains("recovered"), "{out}");
        let kept = count(&db);
        assert!(kept < 41, "{damage}: {kept}");
        let o = cairn(&["--db", path(&db), "recover"]);
        assert!(text(&o).0.contains("nothing to recover"), "{:?}", text(&o));
        let o = cairn(&[
            "--db",
            path(&db),
            "query",
            "-e",
            "UPSERT Item \"new\" SET v = 99",
        ]);
        assert!(o.status.success(), "{:?}", text(&o));
        assert_eq!(count(&db), kept + 1);
    }
}

#[test]
fn a_deleted_current_is_named_and_written_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    create(&db);
    std::fs::remove_file(db.join("rocksdb/CURRENT")).unwrap();
    let o = cairn(&["--db", path(&db), "stats"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    let err = flat(&err);
    assert!(!err.contains("does not exist"), "{err}");
    assert!(err.contains("rocksdb/CURRENT is missing"), "{err}");
    let o = cairn(&["--db", path(&db), "recover", "--apply"]);
    assert!(o.status.success(), "{:?}", text(&o));
    assert_eq!(count(&db), 1);
}
