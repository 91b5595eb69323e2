//! The second hardening probe's reproductions (issue 33), each through the `cairn` binary:
//! exit 0, 2 or 3 as documented, never 101; nothing lost in silence; no raw control,
//! bidirectional or zero-width character on a terminal.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{assert_inert, cairn, cairn_stdin, import_json, path, text};
use std::path::{Path, PathBuf};
use std::process::Command;

const TROJAN: &str = "Ann\u{202e}eeL\u{2066}x\u{2069}\u{200b}y\u{feff}";

/// A database of two authors (one with a 70,000-character name, one with trojan-source
/// characters), a paper each, and edges.
fn db(dir: &Path) -> PathBuf {
    let long = "A".repeat(70_000);
    let lines = [
        serde_json::json!({"type": "node", "label": "Author", "key": "a1", "props": {"name": long}, "description": "graph mining"}),
        serde_json::json!({"type": "node", "label": "Author", "key": "a2", "props": {"name": TROJAN}, "description": "graph mining"}),
        serde_json::json!({"type": "node", "label": "Paper", "key": "p1", "props": {"title": "Graph mining 著者"}, "description": "graph mining paper"}),
        serde_json::json!({"type": "edge", "rel": "AUTHORED", "from": {"label": "Author", "key": "a1"}, "to": {"label": "Paper", "key": "p1"}}),
        serde_json::json!({"type": "edge", "rel": "AUTHORED", "from": {"label": "Author", "key": "a2"}, "to": {"label": "Paper", "key": "p1"}}),
    ];
    import_json(dir, &lines)
}

#[test]
fn long_names_and_long_lines_render_without_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let db = db(dir.path());
    // An error on a 65,534-character line (exit 101 before).
    let stmt = format!("EXPLORE \"{}\" BEEM 8", "A".repeat(65_534));
    let o = cairn(&["--db", path(&db), "query", "-e", &stmt]);
    let (out, err) = text(&o);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{out}{}",
        &err[..err.len().min(2000)]
    );
    assert!(
        err.contains("[query:1:65546]"),
        "{}",
        &err[..err.len().min(2000)]
    );
    // Tables of every kind showing the 70,000-character name (exit 101 before), and the REPL.
    for kind in ["NODES", "PATHS", "SUBGRAPH", "ANSWER", "TRACE"] {
        let q = format!(
            "EXPLORE \"graph\" FROM Paper \"p1\" VIA <AUTHORED TARGET Author RETURN {kind}"
        );
        let o = cairn(&["--db", path(&db), "query", "-e", &q]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{kind}: {err}");
        assert!(out.contains(&"A".repeat(70_000)), "{kind}");
        assert_inert(kind, &o.stdout);
        let o = cairn_stdin(&["--db", path(&db), "repl"], format!("{q};\n").as_bytes());
        assert_eq!(o.status.code(), Some(0), "repl {kind}: {:?}", text(&o).1);
    }
}

#[test]
fn trojan_source_characters_never_reach_the_terminal_raw() {
    let dir = tempfile::tempdir().unwrap();
    let db = db(dir.path());
    let explore = "EXPLORE \"x\" FROM Paper \"p1\" VIA <AUTHORED TARGET Author";
    let o = cairn(&["--db", path(&db), "query", "-e", explore]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert_inert("table", &o.stdout);
    assert!(text(&o)
        .0
        .contains(r"Ann\u202eeeL\u2066x\u2069\u200by\ufeff"));
    // JSON carries the text unchanged once parsed.
    let o = cairn(&[
        "--db",
        path(&db),
        "query",
        "--format",
        "json",
        "-e",
        explore,
    ]);
    assert_inert("json", &o.stdout);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let names: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&TROJAN), "{names:?}");
    // In errors, ask, explain, and the REPL.
    let bad = format!("EXPLORE \"x\" FROM `Au{TROJAN}` \"a\"");
    for args in [
        vec!["query", "-e", bad.as_str()],
        vec!["ask", TROJAN],
        vec!["ask", "--explain", TROJAN],
        vec!["explain", bad.as_str()],
    ] {
        let mut all = vec!["--db", path(&db)];
        all.extend(args.iter().copied());
        let o = cairn(&all);
        assert_ne!(o.status.code(), Some(101), "{args:?}");
        assert_inert(&format!("{args:?} out"), &o.stdout);
        assert_inert(&format!("{args:?} err"), &o.stderr);
    }
    let o = cairn_stdin(
        &["--db", path(&db), "repl"],
        format!("{explore};\n{bad};\n.schema\n").as_bytes(),
    );
    assert_inert("repl", &o.stdout);
    assert_inert("repl errors", &o.stderr);
}

#[test]
fn ask_explain_takes_a_question_with_a_control_character() {
    let dir = tempfile::tempdir().unwrap();
    let db = db(dir.path());
    let o = cairn(&[
        "--db",
        path(&db),
        "ask",
        "--explain",
        "who wrote\u{1}\u{7f} it?",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(!err.contains("invalid escape"), "{err}");
    assert_inert("explain", &o.stdout);
}

#[test]
fn invalid_utf8_in_a_script_names_its_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let db = db(dir.path());
    let file = dir.path().join("q.explore");
    std::fs::write(&file, b"SHOW LABELS;\nSHOW RE\xffLATIONS;\n").unwrap();
    let o = cairn(&["--db", path(&db), "query", "-f", path(&file)]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(
        err.contains("q.explore:2:8: not valid UTF-8 (byte 0xff)"),
        "{err}"
    );
    let o = cairn_stdin(
        &["--db", path(&db), "repl"],
        b"SHOW LABELS;\nSHOW RE\xffLATIONS;\nSHOW RELATIONS;\n",
    );
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(
        err.contains("input:2:8: not valid UTF-8 (byte 0xff)"),
        "{err}"
    );
    assert!(out.contains("AUTHORED"), "the script goes on: {out}");
}

/// `Item` keys present after a run.
fn keys(db: &Path) -> Vec<String> {
    let o = cairn(&[
        "--db",
        path(db),
        "query",
        "--format",
        "json",
        "-e",
        "EXPLORE \"x\" FROM Item WHERE v >= 0 TARGET Item",
    ]);
    if !o.status.success() {
        return Vec::new();
    }
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut keys: Vec<String> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap().to_owned())
        .collect();
    keys.sort();
    keys
}

#[test]
fn an_unclosed_comment_at_the_end_of_a_script_is_an_error() {
    let script = "UPSERT Item \"a\" SET v = 1; /* forgot to close\nUPSERT Item \"b\" SET v = 2;\nUPSERT Item \"c\" SET v = 3;\n";
    for via_repl in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let db = db(dir.path());
        let o = if via_repl {
            cairn_stdin(&["--db", path(&db), "repl"], script.as_bytes())
        } else {
            let file = dir.path().join("s.explore");
            std::fs::write(&file, script).unwrap();
            cairn(&["--db", path(&db), "query", "-f", path(&file)])
        };
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "repl {via_repl}: {out}{err}");
        assert!(
            err.contains("comment has no closing"),
            "repl {via_repl}: {err}"
        );
        assert_eq!(keys(&db), ["a"], "repl {via_repl}");
    }
}

#[test]
fn a_failed_statement_inside_begin_rolls_back_in_a_repl_script_as_in_query_f() {
    let script = "BEGIN;\nUPSERT Item \"a\" SET v = 1;\nADD EDGE Item \"a\" -[R]-> Item \"nobody\";\nUPSERT Item \"b\" SET v = 2;\nCOMMIT;\nUPSERT Item \"c\" SET v = 3;\n";
    let dir = tempfile::tempdir().unwrap();
    let db = db(dir.path());
    let o = cairn_stdin(&["--db", path(&db), "repl"], script.as_bytes());
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(err.contains("the transaction is rolled back"), "{err}");
    // Nothing of the transaction; the statement after it runs, as a REPL script goes on.
    assert_eq!(keys(&db), ["c"], "{out}{err}");
    // query -f: rolled back too (and it stops at the failure).
    let dir = tempfile::tempdir().unwrap();
    let db = self::db(dir.path());
    let file = dir.path().join("s.explore");
    std::fs::write(&file, script).unwrap();
    let o = cairn(&["--db", path(&db), "query", "-f", path(&file)]);
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    assert!(keys(&db).is_empty());
}

/// A missing closing quote in a CSV file, at its end or in its middle, plain or gzipped: bad
/// input (exit 3) at the line of the opening quote, named as a quoting mistake (not as
/// compressed data), nothing imported. In the middle, the `csv` reader alone folds the next
/// record into the field and imports the rest without a word.
#[test]
fn a_missing_closing_quote_in_a_csv_is_refused_at_its_line() {
    let mut middle = String::from(":ID,:LABEL,name\n");
    for i in 0..2000 {
        middle += &format!("n{i},N,\"name {i}\"\n");
    }
    middle += "bad,N,\"never closed\n"; // line 2002
    for i in 0..3000 {
        middle += &format!("m{i},N,\"name {i}\"\n");
    }
    let end = ":ID,:LABEL,name\na,N,\"ok\"\nb,N,\"missing close\nc,N,fine\n".to_string();
    for (body, line) in [(middle, 2002), (end, 3)] {
        for gz in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let csv = dir.path().join("nodes.csv");
            std::fs::write(&csv, &body).unwrap();
            let file = if gz {
                let o = Command::new("gzip").arg(&csv).output().unwrap();
                assert!(o.status.success());
                dir.path().join("nodes.csv.gz")
            } else {
                csv
            };
            let db = dir.path().join("db");
            let o = cairn(&["--db", path(&db), "import", path(&file)]);
            let (out, err) = text(&o);
            assert_eq!(o.status.code(), Some(3), "line {line} gz {gz}: {out}{err}");
            let name = file.file_name().unwrap().to_str().unwrap();
            assert!(err.contains(&format!("{name}:{line}: ")), "{err}");
            assert!(err.contains("missing closing quote"), "{err}");
            assert!(!err.contains("compressed"), "{err}");
            // Nothing was imported.
            if db.join("rocksdb").exists() {
                use cairn::GraphRead;
                let cairn = cairn::Cairn::open(&db).unwrap();
                let graph = cairn.graph();
                for key in ["a", "n0", "bad"] {
                    assert!(graph.node_id("N", key).unwrap().is_none(), "{key}");
                }
            }
        }
    }
}
