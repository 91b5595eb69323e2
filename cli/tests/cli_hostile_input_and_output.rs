//! Hostile or unusual input and the shapes of output, through the `cairn` binary as a user would
//! meet them: node text with control characters reaches the terminal escaped, bad labels and
//! relations, truncated or empty files and script errors are refused with their place, and every
//! result kind has its own table and JSON form.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{assert_inert, cairn, cairn_stdin, import_json, path, text};
use std::path::Path;
use std::process::{Command, Output};

const EVIL: &str = "Evil\u{1b}[2J\u{1b}]0;pwned\u{7} Ann\u{9b}31m";

/// A database whose node names carry terminal escape sequences.
fn evil_db(dir: &Path) -> std::path::PathBuf {
    let lines = [
        serde_json::json!({"type": "node", "label": "Author", "key": "a1", "props": {"name": EVIL}, "description": "graph mining"}),
        serde_json::json!({"type": "node", "label": "Paper", "key": "p1", "props": {"title": "Graph mining"}, "description": "graph mining paper"}),
        serde_json::json!({"type": "edge", "rel": "AUTHORED", "from": {"label": "Author", "key": "a1"}, "to": {"label": "Paper", "key": "p1"}}),
    ];
    import_json(dir, &lines)
}

#[test]
fn node_text_reaches_the_terminal_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let db = evil_db(dir.path());
    // A selection: the author itself is the result (with VIA, an entry picked by key is not).
    let explore = r#"EXPLORE "x" FROM Author "a1""#;
    let o = cairn(&["--db", path(&db), "query", "-e", explore]);
    assert!(o.status.success(), "{:?}", text(&o));
    assert_inert("query table", &o.stdout);
    assert!(
        text(&o)
            .0
            .contains(r"Evil\u001b[2J\u001b]0;pwned\u0007 Ann\u009b31m"),
        "{}",
        text(&o).0
    );

    // JSON stays JSON, and carries the text unchanged.
    let o = cairn(&[
        "--db",
        path(&db),
        "query",
        "--format",
        "json",
        "-e",
        explore,
    ]);
    assert_inert("query json", &o.stdout);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["results"][0]["name"], EVIL);

    let o = cairn(&["--db", path(&db), "ask", "Who wrote \"Graph mining\"?"]);
    assert_inert("ask", &o.stdout);
    assert!(text(&o).0.contains("Evil\\u001b"), "{:?}", text(&o));

    // A label with an escape is refused by the language as by import (docs/FORMAT.md, "What a
    // value may be"), its error escaped; a value with one reaches the REPL's table escaped.
    let script = "UPSERT `Bad\u{1b}[2J` \"k1\";\nUPSERT Fine \"k1\" SET name = \"z\u{1b}[K\";\nSHOW LABELS;\nDESCRIBE Fine;\nEXPLORE \"z\" FROM Fine \"k1\";\n";
    let o = cairn_stdin(&["--db", path(&db), "repl"], script.as_bytes());
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert_inert("repl", &o.stdout);
    assert_inert("repl errors", &o.stderr);
    assert!(err.contains(r"Bad\u001b[2J"), "{err}");
    assert!(err.contains("control character U+001B"), "{err}");
    assert!(!out.contains("Bad"), "{out}");
    assert!(out.contains(r"z\u001b[K"), "{out}");
    let o = cairn(&["--db", path(&db), "stats"]);
    assert_inert("stats", &o.stdout);

    // Error messages echo the statement: a raw NUL and ESC come out escaped.
    let file = dir.path().join("q.explore");
    std::fs::write(&file, b"EXPLORE \"x\" FROM \x00\x1b[2J Author \"a1\"").unwrap();
    let o = cairn(&["--db", path(&db), "query", "-f", path(&file)]);
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    assert_inert("error message", &o.stderr);
    assert!(text(&o).1.contains(r"\u0000"), "{}", text(&o).1);
}

#[test]
fn import_refuses_control_characters_in_labels_and_relations() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let cases: [(&str, &str, &str); 4] = [
        (
            "label.jsonl",
            "{\"type\":\"node\",\"label\":\"Au\\u001bthor\",\"key\":\"a1\"}\n",
            "label.jsonl:1:",
        ),
        (
            "rel.jsonl",
            "{\"type\":\"node\",\"label\":\"A\",\"key\":\"a1\"}\n{\"type\":\"edge\",\"rel\":\"R\\u0007\",\"from\":{\"label\":\"A\",\"key\":\"a1\"},\"to\":{\"label\":\"A\",\"key\":\"a1\"}}\n",
            "rel.jsonl:2:",
        ),
        (
            "nodes.csv",
            "id:ID,:LABEL\na1,Author\na2,Au\u{1b}[2Jthor\n",
            "nodes.csv:3:",
        ),
        (
            "group.csv",
            "id:ID(Au\u{9b}thor),name\na1,Ann\n",
            "group.csv: bad header",
        ),
    ];
    for (name, body, location) in cases {
        let file = dir.path().join(name);
        std::fs::write(&file, body).unwrap();
        let o = cairn(&["--db", path(&db), "import", path(&file)]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(3), "{name}: {out}{err}");
        assert!(err.contains(location), "{name}: {err}");
        assert!(err.contains("control character"), "{name}: {err}");
        assert_inert(name, &o.stderr);
    }
}

/// Two authors with one name, a paper each, in one venue.
fn twins_db(dir: &Path) -> std::path::PathBuf {
    let lines = [
        serde_json::json!({"type": "node", "label": "Author", "key": "a1", "props": {"name": "Ann Lee"}}),
        serde_json::json!({"type": "node", "label": "Author", "key": "a2", "props": {"name": "Ann Lee"}}),
        serde_json::json!({"type": "node", "label": "Paper", "key": "p1", "props": {"title": "Graph mining"}}),
        serde_json::json!({"type": "node", "label": "Paper", "key": "p2", "props": {"title": "Stream mining"}}),
        serde_json::json!({"type": "edge", "rel": "AUTHORED", "from": {"label": "Author", "key": "a1"}, "to": {"label": "Paper", "key": "p1"}}),
        serde_json::json!({"type": "edge", "rel": "AUTHORED", "from": {"label": "Author", "key": "a2"}, "to": {"label": "Paper", "key": "p2"}}),
        serde_json::json!({"type": "edge", "rel": "CITES", "from": {"label": "Paper", "key": "p2"}, "to": {"label": "Paper", "key": "p1"}}),
    ];
    import_json(dir, &lines)
}

const PATHS_OF_A1: &str =
    r#"EXPLORE "papers" FROM Author "a1" VIA AUTHORED -> <CITES -> <AUTHORED TARGET Author"#;

/// `cairn query -e statement`, whatever its outcome.
fn run_query(db: &Path, statement: &str) -> Output {
    cairn(&["--db", path(db), "query", "-e", statement])
}

fn query(db: &Path, format: &str, statement: &str) -> String {
    let o = cairn(&[
        "--db",
        path(db),
        "query",
        "--format",
        format,
        "-e",
        statement,
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{statement}: {out}{err}");
    out
}

/// The lines of a table form without its last (timing) line.
fn table(db: &Path, statement: &str) -> Vec<String> {
    let out = query(db, "table", statement);
    let mut lines: Vec<String> = out.lines().map(str::to_owned).collect();
    let last = lines.pop().unwrap();
    assert!(last.contains("result(s); stopped: "), "{out}");
    lines
}

#[test]
fn node_tables_have_a_key_column() {
    let dir = tempfile::tempdir().unwrap();
    let db = twins_db(dir.path());
    let lines = table(
        &db,
        r#"EXPLORE "Ann Lee" FROM Author WHERE name = "Ann Lee" TARGET Author"#,
    );
    assert_eq!(
        lines[0], "#  score  label   key  name     evidence",
        "{lines:?}"
    );
    let keys: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l.split_whitespace().nth(3).unwrap())
        .collect();
    assert_eq!(keys, ["a1", "a2"], "{lines:?}");
}

#[test]
fn every_return_kind_has_its_own_table_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let db = twins_db(dir.path());
    let with = |kind: &str| format!("{PATHS_OF_A1} RETURN {kind}");

    assert_eq!(
        table(&db, &with("PATHS")),
        [
            "#  score  hops  path",
            &format!(
                "1  {}  3     Ann Lee -AUTHORED-> Graph mining <-CITES- Stream mining <-AUTHORED- Ann Lee",
                table(&db, &with("NODES"))[1].split_whitespace().nth(1).unwrap()
            ),
        ]
    );
    let v: serde_json::Value = serde_json::from_str(&query(&db, "json", &with("PATHS"))).unwrap();
    assert_eq!(v["return"], "PATHS");
    let p = &v["paths"][0];
    assert_eq!(p["hops"], 3);
    assert_eq!(p["nodes"].as_array().unwrap().len(), 4);
    assert_eq!(p["edges"][1]["relation"], "CITES");
    assert_eq!(p["edges"][1]["reversed"], true);

    assert_eq!(
        table(&db, &with("SUBGRAPH")),
        [
            "node  label   key  name",
            "#0    Author  a1   Ann Lee",
            "#1    Author  a2   Ann Lee",
            "#2    Paper   p1   Graph mining",
            "#3    Paper   p2   Stream mining",
            "",
            "from           relation  to",
            "Ann Lee        AUTHORED  Graph mining",
            "Ann Lee        AUTHORED  Stream mining",
            "Stream mining  CITES     Graph mining",
        ]
    );
    let v: serde_json::Value =
        serde_json::from_str(&query(&db, "json", &with("SUBGRAPH"))).unwrap();
    assert_eq!(v["nodes"].as_array().unwrap().len(), 4);
    assert_eq!(
        v["edges"][2],
        serde_json::json!({"from": 3, "relation": "CITES", "to": 2})
    );

    let out = query(&db, "table", &with("ANSWER"));
    assert!(
        out.starts_with(
            "answer: Ann Lee.\n   1. Ann Lee  [Author a2]  evidence: Ann Lee -AUTHORED->"
        ),
        "{out}"
    );
    let v: serde_json::Value = serde_json::from_str(&query(&db, "json", &with("ANSWER"))).unwrap();
    assert_eq!(v["answer"], "Ann Lee.");
    assert_eq!(v["results"][0]["key"], "a2");

    let out = query(&db, "table", &with("TRACE"));
    assert!(out.starts_with("trace ("), "{out}");
    assert!(out.contains("\n  entry     Ann Lee score"), "{out}");
    assert!(out.contains("\n  stop      "), "{out}");
    let v: serde_json::Value = serde_json::from_str(&query(&db, "json", &with("TRACE"))).unwrap();
    let trace = v["trace"].as_array().unwrap();
    assert_eq!(trace.len() as u64, v["events"].as_u64().unwrap());
    assert!(trace[0].as_str().unwrap().starts_with("entry"), "{v}");
    assert!(
        v.get("results").is_none(),
        "TRACE is not the node table: {v}"
    );
}

#[test]
fn a_closed_pipe_ends_output_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let db = twins_db(dir.path());
    // Far more than a pipe holds, so that writing meets the closed pipe.
    let script = dir.path().join("many.explore");
    std::fs::write(&script, "SHOW LABELS;".repeat(20_000)).unwrap();
    let o = Command::new("bash")
        .args([
            "-c",
            r#""$0" --db "$1" query -f "$2" 2>"$3" | head -c 10 >/dev/null; echo "${PIPESTATUS[0]}""#,
            env!("CARGO_BIN_EXE_cairn"),
            path(&db),
            path(&script),
            path(&dir.path().join("err")),
        ])
        .output()
        .unwrap();
    let err = std::fs::read_to_string(dir.path().join("err")).unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "0", "{err}");
    assert!(err.is_empty(), "nothing on stderr, no panic: {err}");
}

#[test]
fn generate_refuses_an_impossible_size_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dump");
    let o = cairn(&[
        "generate",
        "academic",
        "--nodes",
        "99999999999999",
        "--out",
        path(&out),
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("99999999999999 is not in 1..=10000000"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn a_byte_order_mark_is_fine_in_jsonl_as_in_csv() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let jsonl = dir.path().join("bom.jsonl");
    std::fs::write(
        &jsonl,
        "\u{feff}{\"type\":\"node\",\"label\":\"A\",\"key\":\"a1\"}\n",
    )
    .unwrap();
    let csv = dir.path().join("bom.csv");
    std::fs::write(&csv, "\u{feff}id:ID,:LABEL\nb1,B\n").unwrap();
    let o = cairn(&["--db", path(&db), "import", path(&jsonl), path(&csv)]);
    assert!(o.status.success(), "{:?}", text(&o));
    let out = query(&db, "table", r#"EXPLORE "x" FROM A "a1""#);
    assert!(out.contains("a1"), "{out}");
}

#[test]
fn empty_csv_and_jsonl_files_agree() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    for name in ["empty.csv", "empty.jsonl", "blank.csv", "blank.jsonl"] {
        let file = dir.path().join(name);
        let body = if name.starts_with("blank") {
            "\n\n"
        } else {
            ""
        };
        std::fs::write(&file, body).unwrap();
        let o = cairn(&["--db", path(&db), "import", path(&file)]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{name}: {out}{err}");
        assert!(
            err.contains(&format!("{name}: the file is empty, nothing to import")),
            "{name}: {err}"
        );
    }
}

#[test]
fn a_truncated_gzip_is_bad_input_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let plain = dir.path().join("nodes.jsonl");
    let body: String = (0..5000)
        .map(|i| {
            format!(
                "{{\"type\":\"node\",\"label\":\"A\",\"key\":\"a{i}\",\"props\":{{\"n\":{i}}}}}\n"
            )
        })
        .collect();
    std::fs::write(&plain, body).unwrap();
    let o = Command::new("gzip").arg(&plain).output().unwrap();
    assert!(o.status.success());
    let gz = dir.path().join("nodes.jsonl.gz");
    let bytes = std::fs::read(&gz).unwrap();
    std::fs::write(&gz, &bytes[..bytes.len() / 2]).unwrap();
    let o = cairn(&["--db", path(&db), "import", path(&gz)]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(3), "{out}{err}");
    assert!(err.contains("nodes.jsonl.gz:"), "{err}");
    assert!(err.contains("truncated or corrupt"), "{err}");
    // Nothing was imported: the database has no A node.
    let o = run_query(&db, r#"EXPLORE "x" FROM A "a0""#);
    assert_ne!(o.status.code(), Some(0), "{:?}", text(&o));
}

#[test]
fn a_script_file_error_names_the_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let db = twins_db(dir.path());
    let file = dir.path().join("q.explore");
    std::fs::write(
        &file,
        "SHOW LABELS;\n\n-- a comment\nEXPLORE \"x\"\n  FROM Author \"a1\"\n  VIA ANY TARGET Nope;\n",
    )
    .unwrap();
    let o = cairn(&["--db", path(&db), "query", "-f", path(&file)]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(err.contains(&format!("[{}:6:18]", file.display())), "{err}");
    assert!(err.contains(" 6 │   VIA ANY TARGET Nope;"), "{err}");
    // `-e` keeps naming the statement itself.
    let o = run_query(&db, "EXPLORE \"x\" FROM Nope \"a\"");
    assert!(text(&o).1.contains("[query:1:18]"), "{:?}", text(&o));
}

#[test]
fn describe_lists_a_labels_properties_and_indexes() {
    let dir = tempfile::tempdir().unwrap();
    let db = twins_db(dir.path());
    let out = query(
        &db,
        "table",
        "UPSERT Author \"a3\" SET name = \"Bo Chen\", h_index = 3; CREATE INDEX ON Author(name); DESCRIBE Author",
    );
    assert!(out.contains("Author: 3 nodes\n  properties: h_index (1), name (3)\n  index on name\n  (Author)-[AUTHORED]->(Paper)"), "{out}");
}

#[test]
fn a_repeated_id_within_one_file_is_last_wins_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let csv = dir.path().join("authors.csv");
    std::fs::write(&csv, "id:ID(Author),name\na1,Ann\na2,Bo\na1,Ann Lee\n").unwrap();
    let o = cairn(&["--db", path(&db), "import", path(&csv)]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(
        err.contains("authors.csv:4: repeats the id `a1` of line 2; the later line's values win"),
        "{err}"
    );
    let out = query(&db, "table", r#"EXPLORE "x" FROM Author "a1" DEPTH 1"#);
    assert!(out.contains("Ann Lee"), "{out}");
    // The same id in two files is an update, not a mistake: no warning.
    let more = dir.path().join("more.csv");
    std::fs::write(&more, "id:ID(Author),name\na2,Bo Chen\n").unwrap();
    let o = cairn(&["--db", path(&db), "import", path(&csv), path(&more)]);
    let (_, err) = text(&o);
    assert!(!err.contains("a2"), "{err}");
}
