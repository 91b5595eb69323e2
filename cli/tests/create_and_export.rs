//! Creating, exporting and re-importing databases through the `cairn` binary: `cairn init`,
//! the hint on a missing database, a failed first import leaving nothing behind, a failed
//! import into a database leaving it as it was, `cairn export` in both formats (whole database,
//! standard output, a query's result) read back by `cairn import`, and `eval --out`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{cairn, path, text};
use std::path::Path;

/// Every node and edge of the database as sorted JSON Lines, written by `cairn export --out -`
/// with the properties of each record sorted (an import may number property keys in another
/// order).
fn contents(db: &Path) -> Vec<String> {
    let o = cairn(&["--db", path(db), "export", "--out", "-"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let mut lines: Vec<String> = out
        .lines()
        .map(|l| {
            // serde_json's map is ordered by key: parsing sorts `props`.
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v.to_string()
        })
        .collect();
    lines.sort();
    lines
}

const MOVIES: &str = r#"{"type":"node","label":"Person","key":"nolan","props":{"name":"Christopher Nolan","born":1970}}
{"type":"node","label":"Movie","key":"m1","props":{"title":"Inception","year":2010,"rating":8.8,"tags":["heist","dream"]},"description":"A thief enters dreams."}
{"type":"node","label":"Movie","key":"m,2","props":{"title":"The \"Prestige\"","year":2006,"rating":8.5}}
{"type":"edge","rel":"DIRECTED","from":{"label":"Person","key":"nolan"},"to":{"label":"Movie","key":"m1"},"props":{"credit":"director"},"weight":0.5}
{"type":"edge","rel":"DIRECTED","from":{"label":"Person","key":"nolan"},"to":{"label":"Movie","key":"m,2"}}
{"type":"schema","kind":"relation","name":"DIRECTED","description":"who made the film","aliases":["director"]}
"#;

fn movies(dir: &Path) -> std::path::PathBuf {
    movies_with(dir, &[])
}

/// [`movies`] imported with `extra` arguments.
fn movies_with(dir: &Path, extra: &[&str]) -> std::path::PathBuf {
    let dump = dir.join("movies.jsonl");
    std::fs::write(&dump, MOVIES).unwrap();
    let db = dir.join("db");
    let mut args = vec!["--db", path(&db), "import", path(&dump)];
    args.extend_from_slice(extra);
    let o = cairn(&args);
    assert!(o.status.success(), "{:?}", text(&o));
    db
}

#[test]
fn init_creates_an_empty_database_and_a_missing_one_says_how() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("new.cairn");
    let upsert = r#"UPSERT Movie "m1" SET title = "Inception", year = 2010"#;
    // A missing database keeps its error and says how to make one.
    let o = cairn(&["--db", path(&db), "query", "-e", upsert]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("does not exist"), "{err}");
    assert!(
        err.contains(&format!("cairn init {}", db.display())),
        "{err}"
    );
    assert!(!db.exists(), "nothing is created by a failed query");
    // In JSON the hint is the error's `help`.
    let o = cairn(&["--db", path(&db), "query", "--format", "json", "-e", upsert]);
    let err: serde_json::Value = serde_json::from_str(text(&o).1.trim()).unwrap();
    assert_eq!(err["kind"], "error");
    assert_eq!(err["exit"], 1);
    assert!(
        err["help"].as_str().unwrap().contains("cairn init"),
        "{err}"
    );

    let o = cairn(&["init", path(&db)]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(out.contains("created an empty Cairn database"), "{out}");
    let o = cairn(&["--db", path(&db), "query", "-e", upsert]);
    assert!(o.status.success(), "{:?}", text(&o));
    assert!(text(&o).0.contains(r#"added Movie "m1""#));
    // A second init leaves the database as it is.
    let o = cairn(&["--db", path(&db), "init"]);
    assert!(o.status.success());
    assert!(text(&o).0.contains("already a Cairn database"));
    assert_eq!(contents(&db).len(), 2, "the embedder record and the node");
    // A directory holding something else is refused.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "mine").unwrap();
    let o = cairn(&["init", path(&other)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o).1.contains("not a Cairn database"),
        "{:?}",
        text(&o)
    );
}

#[test]
fn a_failed_first_import_leaves_no_database() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"type\":\"node\",\"label\":\"A\",\"key\":\"a\"}\n{\"type\":\"node\",\"label\":\"A\"}\n",
    )
    .unwrap();
    // A path that did not exist is removed again.
    let db = dir.path().join("db");
    let o = cairn(&["--db", path(&db), "import", path(&bad)]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("bad.jsonl:2"), "{err}");
    assert!(err.contains("the new database"), "{err}");
    assert!(!db.exists(), "no database is left behind");
    // An empty directory is emptied again, not removed.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let o = cairn(&["--db", path(&empty), "import", path(&bad)]);
    assert_eq!(o.status.code(), Some(3));
    assert!(empty.is_dir());
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0);
    // Then the query on it still says the database does not exist.
    let o = cairn(&["--db", path(&db), "stats"]);
    assert!(text(&o).1.contains("does not exist"));
}

#[test]
fn a_failed_import_into_a_database_leaves_it_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    // with hash vectors, so that vectors of another embedder are refused
    let db = movies_with(dir.path(), &["--embedder", "hash"]);
    let before = contents(&db);
    let files_before: std::collections::BTreeSet<_> = std::fs::read_dir(&db)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    for (name, body, code) in [
        // A bad line after good ones.
        ("bad.jsonl", "{\"type\":\"node\",\"label\":\"Movie\",\"key\":\"m9\",\"props\":{\"title\":\"X\"}}\n{\"type\":\"edge\",\"rel\":\"DIRECTED\",\"from\":{\"label\":\"Person\",\"key\":\"nobody\"},\"to\":{\"label\":\"Movie\",\"key\":\"m1\"}}\n", 3),
        // Vectors of another embedder.
        ("other.jsonl", "{\"type\":\"embedder\",\"id\":\"supplied\",\"dim\":2}\n{\"type\":\"node\",\"label\":\"Movie\",\"key\":\"m9\",\"vector\":[0.1,0.2]}\n", 3),
        // An update of an existing node with a value of the wrong type.
        ("bad.csv", "key:ID(Movie),year:int\nm1,nineteen\n", 3),
    ] {
        let file = dir.path().join(name);
        std::fs::write(&file, body).unwrap();
        let o = cairn(&["--db", path(&db), "import", path(&file)]);
        assert_eq!(o.status.code(), Some(code), "{name}: {:?}", text(&o));
        assert!(!text(&o).1.contains("the new database"), "{name}");
        assert_eq!(contents(&db), before, "{name}: the database changed");
    }
    let files_after: std::collections::BTreeSet<_> = std::fs::read_dir(&db)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(files_before, files_after, "no file added or removed");
}

#[test]
fn export_then_import_gives_the_same_graph_in_both_formats() {
    let dir = tempfile::tempdir().unwrap();
    let db = movies(dir.path());
    // Things a dump does not hold are printed as the statements that restore them.
    let o = cairn(&[
        "--db",
        path(&db),
        "query",
        "-e",
        "CREATE INDEX ON Movie(year)",
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    let want = contents(&db);
    assert!(
        want.iter().any(|l| l.contains("\"type\":\"schema\"")),
        "{want:?}"
    );
    for format in ["jsonl", "csv"] {
        let out = dir.path().join(format!("dump-{format}"));
        let o = cairn(&[
            "--db",
            path(&db),
            "export",
            "--format",
            format,
            "--out",
            path(&out),
        ]);
        let (stdout, err) = text(&o);
        assert!(o.status.success(), "{stdout}{err}");
        assert!(stdout.contains("exported 3 nodes, 2 edges"), "{stdout}");
        assert!(stdout.contains("CREATE INDEX ON Movie(year);"), "{stdout}");
        let copy = dir.path().join(format!("copy-{format}"));
        let o = cairn(&["--db", path(&copy), "import", path(&out)]);
        assert!(o.status.success(), "{format}: {:?}", text(&o));
        assert_eq!(contents(&copy), want, "{format}");
        // Exporting into the same directory again is refused: it holds the dump.
        let o = cairn(&[
            "--db",
            path(&db),
            "export",
            "--format",
            format,
            "--out",
            path(&out),
        ]);
        assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
        assert!(text(&o).1.contains("not empty"));
    }
    // Standard output: JSON Lines, the summary on stderr; a file of it imports the same.
    let o = cairn(&["--db", path(&db), "export", "--out", "-"]);
    let (stdout, err) = text(&o);
    assert!(err.contains("exported 3 nodes"), "{err}");
    let file = dir.path().join("piped.jsonl");
    std::fs::write(&file, stdout).unwrap();
    let copy = dir.path().join("copy-piped");
    let o = cairn(&["--db", path(&copy), "import", path(&file)]);
    assert!(o.status.success(), "{:?}", text(&o));
    assert_eq!(contents(&copy), want);
    let o = cairn(&["--db", path(&db), "export", "--format", "csv", "--out", "-"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn export_of_a_query_result_holds_its_nodes_and_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let db = movies(dir.path());
    let out = dir.path().join("result");
    let o = cairn(&[
        "--db",
        path(&db),
        "export",
        "--out",
        path(&out),
        "--query",
        r#"EXPLORE "films" FROM Person "nolan" VIA DIRECTED TARGET Movie WHERE year >= 2010"#,
    ]);
    let (stdout, err) = text(&o);
    assert!(o.status.success(), "{stdout}{err}");
    let copy = dir.path().join("copy");
    let o = cairn(&["--db", path(&copy), "import", path(&out)]);
    assert!(o.status.success(), "{:?}", text(&o));
    let got = contents(&copy);
    let nodes: Vec<&String> = got
        .iter()
        .filter(|l| l.contains("\"type\":\"node\""))
        .collect();
    let edges: Vec<&String> = got
        .iter()
        .filter(|l| l.contains("\"type\":\"edge\""))
        .collect();
    assert_eq!(
        nodes.len(),
        2,
        "Inception and the entry its path starts at: {got:?}"
    );
    assert!(
        nodes.iter().any(|n| n.contains("Inception"))
            && !nodes.iter().any(|n| n.contains("Prestige"))
    );
    assert_eq!(edges.len(), 1, "{got:?}");
    assert!(edges[0].contains("\"credit\":\"director\""), "{got:?}");
    // Not an EXPLORE: a usage error.
    let o = cairn(&[
        "--db",
        path(&db),
        "export",
        "--out",
        path(&dir.path().join("x")),
        "--query",
        "SHOW LABELS",
    ]);
    assert_eq!(o.status.code(), Some(2));
    // A COUNT has no nodes to export: refused, saying so, and nothing written.
    let none = dir.path().join("count");
    let o = cairn(&[
        "--db",
        path(&db),
        "export",
        "--out",
        path(&none),
        "--query",
        r#"EXPLORE "films" FROM Person "nolan" VIA DIRECTED TARGET Movie RETURN COUNT"#,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("no nodes to export"), "{:?}", text(&o));
    assert!(!none.exists());
}

/// `RETURN SUBGRAPH` exports the subgraph the pattern matched: a result reached by two paths
/// brings both, not only its evidence path.
#[test]
fn export_of_a_subgraph_result_holds_every_matched_path() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("diamond.jsonl");
    let node = |k: &str| format!(r#"{{"type":"node","label":"X","key":"{k}"}}"#);
    let edge = |r: &str, a: &str, b: &str| {
        format!(
            r#"{{"type":"edge","rel":"{r}","from":{{"label":"X","key":"{a}"}},"to":{{"label":"X","key":"{b}"}}}}"#
        )
    };
    let lines = [
        node("a"),
        node("b"),
        node("c"),
        node("d"),
        node("e"),
        edge("R", "a", "b"),
        edge("R", "a", "c"),
        edge("S", "b", "d"),
        edge("S", "c", "d"),
        edge("S", "e", "d"),
    ];
    std::fs::write(&dump, lines.join("\n")).unwrap();
    let db = dir.path().join("db");
    let o = cairn(&["--db", path(&db), "import", path(&dump)]);
    assert!(o.status.success(), "{:?}", text(&o));
    let out = dir.path().join("sub");
    let o = cairn(&[
        "--db",
        path(&db),
        "export",
        "--out",
        path(&out),
        "--query",
        r#"EXPLORE "d" FROM X "a" VIA R -> S TARGET X RETURN SUBGRAPH"#,
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    let copy = dir.path().join("copy");
    let o = cairn(&["--db", path(&copy), "import", path(&out)]);
    assert!(o.status.success(), "{:?}", text(&o));
    let got = contents(&copy);
    let count = |kind: &str| got.iter().filter(|l| l.contains(kind)).count();
    assert_eq!(count(r#""type":"node""#), 4, "a, b, c, d (not e): {got:?}");
    assert_eq!(count(r#""type":"edge""#), 4, "both paths to d: {got:?}");
    assert!(!got.iter().any(|l| l.contains(r#""key":"e""#)), "{got:?}");
}

#[test]
fn library_import_reads_a_directory_as_the_cli_does() {
    let dir = tempfile::tempdir().unwrap();
    let db = movies(dir.path());
    let out = dir.path().join("dump");
    let o = cairn(&[
        "--db",
        path(&db),
        "export",
        "--format",
        "csv",
        "--out",
        path(&out),
    ]);
    assert!(o.status.success());
    let copy = dir.path().join("copy");
    {
        let cairn = cairn::Cairn::open(&copy).unwrap();
        let s = cairn
            .import(&[&out], cairn::ImportOptions::default())
            .unwrap();
        assert_eq!((s.nodes_created, s.edges_created), (3, 2));
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        match cairn.import(&[&empty], cairn::ImportOptions::default()) {
            Err(cairn::CairnError::Import(cairn::ImportError::NoDumpFiles { .. })) => {}
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(contents(&copy), contents(&db));
}

#[test]
fn eval_questions_writes_its_report_to_out() {
    let dir = tempfile::tempdir().unwrap();
    let db = movies(dir.path());
    let questions = dir.path().join("q.tsv");
    std::fs::write(&questions, "who directed Inception ?\tChristopher Nolan\n").unwrap();
    let report = dir.path().join("report.json");
    let o = cairn(&[
        "--db",
        path(&db),
        "eval",
        "--questions",
        path(&questions),
        "--out",
        path(&report),
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(
        out.contains(&format!("wrote {}", report.display())),
        "{out}"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["overall"]["questions"], 1, "{r}");
    assert_eq!(r["questions"], path(&questions));
}

/// `cairn export --out -` prints data on a terminal: characters a terminal acts on or hides
/// (C1 controls, DEL, a right-to-left override, a zero-width space, a character beyond U+FFFF
/// that is a format character) are JSON escapes on the wire, and the dump reads back the same
/// text.
#[test]
fn export_to_stdout_escapes_what_a_terminal_acts_on_and_reads_back_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let hostile = "a\u{85}b\u{7f}c\u{202e}d\u{200b}e\u{e0001}f";
    let dump = dir.path().join("hostile.jsonl");
    let record = serde_json::json!({"type": "node", "label": "Doc", "key": hostile,
        "props": {"name": hostile}, "description": hostile});
    std::fs::write(&dump, format!("{record}\n")).unwrap();
    let db = dir.path().join("db");
    let o = cairn(&["--db", path(&db), "import", path(&dump)]);
    assert!(o.status.success(), "{:?}", text(&o));
    let o = cairn(&["--db", path(&db), "export", "--out", "-"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let raw = out.chars().find(|&c| {
        cairn::format::rules::is_invisible(c) || (cairn::format::rules::is_control(c) && c != '\n')
    });
    assert_eq!(raw, None, "raw character on standard output: {out:?}");
    assert!(
        out.contains(r"\u202e") && out.contains(r"\udb40\udc01"),
        "{out}"
    );
    let file = dir.path().join("again.jsonl");
    std::fs::write(&file, &out).unwrap();
    let copy = dir.path().join("copy");
    let o = cairn(&["--db", path(&copy), "import", path(&file)]);
    assert!(o.status.success(), "{:?}", text(&o));
    assert_eq!(contents(&copy), contents(&db));
    // `contents` parses the lines: the text itself, not its escape.
    assert!(contents(&copy).concat().contains('\u{202e}'));
    let node: serde_json::Value = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|r| r["type"] == "node")
        .unwrap();
    assert_eq!(node["key"], hostile);
    assert_eq!(node["description"], hostile);
}
