//! What the `cairn` binary tells a user about a dump it cannot read (an unterminated quote at the
//! end of a CSV file, a file of an unknown kind in a dump directory), a damaged vector index it
//! rebuilds, and a long import's progress.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{cairn, imported, item_dump, path, text};

#[test]
fn an_unterminated_csv_quote_at_end_of_file_is_refused_with_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("authors.csv");
    std::fs::write(&csv, ":ID(Author),name\na1,Ann\na2,\"Bo\na3,Cy\n").unwrap();
    let db = tmp.path().join("db");
    let import = || {
        cairn(&[
            "--db",
            path(&db),
            "import",
            path(&csv),
            "--embedder",
            "none",
        ])
    };
    let o = import();
    let (out, err) = text(&o);
    assert!(!o.status.success(), "accepted: {out}");
    assert!(
        err.contains("quoted field opened on line 3"),
        "no location: {err}"
    );
    // Nothing was imported: the database has no Author.
    let o = cairn(&["--db", path(&db), "query", "-e", "SHOW LABELS"]);
    assert!(!text(&o).0.contains("Author"), "{:?}", text(&o));
    // A quote closed on the last line is fine.
    std::fs::write(&csv, ":ID(Author),name\na1,\"Ann\"\"s\nsecond line\"").unwrap();
    let o = import();
    assert!(o.status.success(), "{:?}", text(&o));
}

#[test]
fn a_tsv_in_a_dump_directory_is_named_not_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dump");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("authors.csv"), ":ID(Author),name\na1,Ann\n").unwrap();
    std::fs::write(dir.join("extra.tsv"), "a1\tKNOWS\ta2\n").unwrap();
    let o = cairn(&["--db", path(&tmp.path().join("db")), "import", path(&dir)]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("extra.tsv"), "{err}");
}

#[test]
fn a_damaged_index_is_rebuilt_with_a_word_on_stderr() {
    let tmp = tempfile::tempdir().unwrap();
    let db = imported(tmp.path(), &item_dump(tmp.path(), 40, false));
    let index = db.join("vectors.hnsw");
    let mut bytes = std::fs::read(&index).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    std::fs::write(&index, bytes).unwrap();
    let o = cairn(&[
        "--db",
        path(&db),
        "query",
        "-e",
        // a word no node has: the hash vectors answer (words would not read the vector index)
        "EXPLORE \"x\" FROM SEARCH \"itemz\" IN Item TOP 3",
    ]);
    let (_, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("rebuilding the vector index"), "silent: {err}");
}

#[test]
fn an_import_says_when_it_builds_the_index_and_reports_the_whole_time() {
    let tmp = tempfile::tempdir().unwrap();
    let dump = item_dump(tmp.path(), 40, false);
    let db = tmp.path().join("db");
    // stderr is a pipe here, not a terminal: the line-based progress.
    let o = cairn(&["--db", path(&db), "import", path(&dump)]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("vector index: building"), "{err}");
    // The reading line moves on: `reading 0%` is followed by `reading done`.
    let reading = err.find("import: reading 0%").expect("no reading line");
    assert!(err[reading..].contains("import: reading done"), "{err}");
    assert!(out.contains("import finished in"), "{out}");
}
