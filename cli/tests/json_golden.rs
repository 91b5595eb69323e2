//! The JSON documents of every statement kind (docs/JSON.md), run through the built `cairn`
//! binary on a small movie graph written here, compared with `cli/tests/golden/json/*.json`.
//! Run with `UPDATE_GOLDEN=1` to (re)write them; without it a difference fails.
//!
//! Fields that change from run to run, or with the storage's internals rather than with the
//! document, are masked before comparing: `elapsed_ms` (0), `nodes_estimate` and
//! `edges_estimate` (RocksDB's estimates) and `cache_hits` (how reads are batched and cached;
//! each checked to be a number, then 0);
//! the temporary directory is written `$DIR`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{cairn, path, text};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// People, movies and a studio: every value type, descriptions, two relations.
const GRAPH: &str = r#"{"type":"node","label":"Person","key":"nolan","props":{"name":"Christopher Nolan","born":1970}}
{"type":"node","label":"Person","key":"villeneuve","props":{"name":"Denis Villeneuve","born":1967}}
{"type":"node","label":"Person","key":"bale","props":{"name":"Christian Bale","born":1974}}
{"type":"node","label":"Movie","key":"m1","props":{"title":"Inception","year":2010,"rating":8.8,"tags":["heist","dream"],"color":true},"description":"A thief enters dreams to plant an idea."}
{"type":"node","label":"Movie","key":"m2","props":{"title":"The Prestige","year":2006,"rating":8.5,"tags":["magic"],"color":true},"description":"Two magicians compete for the perfect illusion."}
{"type":"node","label":"Movie","key":"m3","props":{"title":"Arrival","year":2016,"rating":7.9,"tags":["aliens","language"],"color":true},"description":"A linguist learns the language of visitors."}
{"type":"node","label":"Studio","key":"s1","props":{"name":"Syncopy"}}
{"type":"edge","rel":"DIRECTED","from":{"label":"Person","key":"nolan"},"to":{"label":"Movie","key":"m1"}}
{"type":"edge","rel":"DIRECTED","from":{"label":"Person","key":"nolan"},"to":{"label":"Movie","key":"m2"}}
{"type":"edge","rel":"DIRECTED","from":{"label":"Person","key":"villeneuve"},"to":{"label":"Movie","key":"m3"}}
{"type":"edge","rel":"ACTED_IN","from":{"label":"Person","key":"bale"},"to":{"label":"Movie","key":"m2"},"props":{"role":"Alfred Borden"},"weight":0.9}
{"type":"edge","rel":"PRODUCED","from":{"label":"Studio","key":"s1"},"to":{"label":"Movie","key":"m1"}}
"#;

/// One golden file: what it runs. `Query` statements run with `cairn query --format json -e`;
/// a failing one's error document (stderr) is the golden output.
enum Run {
    Query(&'static str),
    /// A script file (`query -f`): an error points at the file's line and column.
    Script(&'static str),
    Explain(&'static str),
    Stats,
    /// `cairn repl` with `.format json` first, fed this input.
    Repl(&'static str),
}

/// In order: later cases see what earlier ones wrote.
const CASES: &[(&str, Run)] = &[
    ("show_labels", Run::Query("SHOW LABELS")),
    ("show_relations", Run::Query("SHOW RELATIONS")),
    ("describe", Run::Query("DESCRIBE Movie")),
    (
        "explore_nodes",
        Run::Query(r#"EXPLORE "films by Nolan" FROM Person "nolan" VIA DIRECTED TARGET Movie"#),
    ),
    (
        "explore_paths",
        Run::Query(
            r#"EXPLORE "actors in Nolan films" FROM Person "nolan" VIA DIRECTED -> <ACTED_IN TARGET Person RETURN PATHS"#,
        ),
    ),
    (
        "explore_subgraph",
        Run::Query(
            r#"EXPLORE "Nolan" FROM Person "nolan" VIA DIRECTED -> <ACTED_IN RETURN SUBGRAPH"#,
        ),
    ),
    (
        "explore_answer",
        Run::Query(
            r#"EXPLORE "films by Nolan" FROM Person "nolan" VIA DIRECTED TARGET Movie RETURN ANSWER"#,
        ),
    ),
    (
        "explore_count",
        Run::Query(
            r#"EXPLORE "films by Nolan" FROM Person "nolan" VIA DIRECTED TARGET Movie RETURN COUNT"#,
        ),
    ),
    (
        "explore_trace",
        Run::Query(
            r#"EXPLORE "films by Nolan" FROM Person "nolan" VIA DIRECTED TARGET Movie BEAM 2 DEPTH 1 RETURN TRACE"#,
        ),
    ),
    (
        "explore_columns",
        Run::Query(
            r#"EXPLORE "films by Nolan" FROM Person "nolan" AS p VIA DIRECTED TARGET Movie RETURN NODES title, year, rating, tags, p.name, COUNT ORDER BY year DESC"#,
        ),
    ),
    (
        "explore_aggregate",
        Run::Query(
            r#"EXPLORE "films per director" FROM Person AS p VIA DIRECTED TARGET Movie RETURN COUNT, SUM(year), AVG(rating), MIN(title), MAX(year) GROUP BY p ORDER BY COUNT DESC"#,
        ),
    ),
    (
        "explore_group_by_value",
        Run::Query(
            r#"EXPLORE "films by colour" FROM Person AS p VIA DIRECTED TARGET Movie RETURN COUNT, AVG(rating) GROUP BY color"#,
        ),
    ),
    (
        "explore_incomplete",
        Run::Query(
            r#"EXPLORE "films" FROM Person "nolan" VIA DIRECTED -> <ACTED_IN -> ACTED_IN TARGET Movie BUDGET 1"#,
        ),
    ),
    ("ask", Run::Query(r#"ASK "Who directed Inception?""#)),
    (
        "explain_explore",
        Run::Query(r#"EXPLAIN EXPLORE "x" FROM Person "nolan" VIA DIRECTED"#),
    ),
    (
        "explain_command",
        Run::Explain(r#"EXPLORE "x" FROM Movie WHERE year >= 2010 VIA <DIRECTED"#),
    ),
    (
        "explain_ask",
        Run::Explain(r#"EXPLAIN ASK "Who directed Arrival?""#),
    ),
    (
        "upsert",
        Run::Query(r#"UPSERT Movie "m4" SET title = "Dune", year = 2021, rating = 8.0"#),
    ),
    (
        "add_edge",
        Run::Query(r#"ADD EDGE Person "villeneuve" -[DIRECTED]-> Movie "m4""#),
    ),
    (
        "transaction",
        Run::Query(
            r#"BEGIN; UPSERT Person "zimmer" SET name = "Hans Zimmer"; SAVEPOINT s; UPSERT Person "x"; ROLLBACK TO s; COMMIT; BEGIN; UPSERT Person "y"; ROLLBACK"#,
        ),
    ),
    (
        "remove_edge",
        Run::Query(r#"REMOVE EDGE Person "villeneuve" -[DIRECTED]-> Movie "m4""#),
    ),
    ("remove_node", Run::Query(r#"REMOVE NODE Movie "m4""#)),
    ("create_index", Run::Query("CREATE INDEX ON Movie(year)")),
    ("show_indexes", Run::Query("SHOW INDEXES")),
    ("relation_under", Run::Query("RELATION ACTED_IN UNDER DIRECTED")),
    (
        "annotate",
        Run::Query(
            r#"ANNOTATE RELATION DIRECTED DESCRIPTION "who made the film" ALIASES ("director", "made")"#,
        ),
    ),
    ("show_strategies", Run::Query("SHOW STRATEGIES")),
    ("stats", Run::Stats),
    (
        "error_statement",
        Run::Query(r#"EXPLORE "x" FROM Persn "nolan" VIA DIRECTED"#),
    ),
    (
        "error_script",
        Run::Script("SHOW LABELS;\n\nEXPLORE \"x\"\n  FROM Person \"nolan\"\n  VIA DIRECTD;\n"),
    ),
    (
        "error_no_node",
        Run::Query(r#"ADD EDGE Person "nobody" -[DIRECTED]-> Movie "m1""#),
    ),
    (
        "repl",
        Run::Repl(".stats\nSHOW LABELS;\nEXPLORE \"x\" FROM Person \"nolan\" VIA DIRECTED RETURN COUNT;\nDESCRIBE Nothing;\n"),
    ),
];

/// Every `RETURN` form, as the documents' `return` field names it. The match does not compile
/// when the language gains a form, so a new one cannot go without a golden document.
fn return_forms() -> BTreeSet<String> {
    use cairn::query::ast::ReturnKind as R;
    let all = [
        R::Nodes,
        R::Paths,
        R::Subgraph,
        R::Answer,
        R::Trace,
        R::Count,
        R::Aggregate,
    ];
    all.iter()
        .map(|k| {
            match k {
                R::Nodes
                | R::Paths
                | R::Subgraph
                | R::Answer
                | R::Trace
                | R::Count
                | R::Aggregate => {}
            }
            k.to_string()
        })
        .collect()
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/json")
}

/// Sets the fields that change between runs to 0, after checking that they are numbers, and
/// writes the test's temporary directory `dir` as `$DIR`.
fn mask(v: &mut Value, dir: &str) {
    match v {
        Value::String(s) if s.contains(dir) => *s = s.replace(dir, "$DIR"),
        Value::Object(map) => {
            for (k, field) in map.iter_mut() {
                if matches!(
                    k.as_str(),
                    "elapsed_ms" | "nodes_estimate" | "edges_estimate" | "cache_hits"
                ) {
                    assert!(field.is_number(), "{k} is {field}");
                    *field = Value::from(0);
                } else {
                    mask(field, dir);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| mask(v, dir)),
        _ => {}
    }
}

/// Every line of `out` is one JSON document with the envelope; returns them masked.
fn documents(out: &str, what: &str, dir: &Path) -> Vec<Value> {
    out.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let mut doc: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{what}: not one JSON document a line ({e}): {line}"));
            assert_eq!(doc["cairn"], 1, "{what}: the envelope's version: {line}");
            assert!(doc["kind"].is_string(), "{what}: no kind: {line}");
            mask(&mut doc, path(dir));
            doc
        })
        .collect()
}

fn run(db: &Path, dir: &Path, name: &str, case: &Run) -> Vec<Value> {
    let db = path(db);
    let o = match case {
        Run::Query(stmt) => cairn(&["--db", db, "query", "--format", "json", "-e", stmt]),
        Run::Script(text) => {
            let file = dir.join("script.explore");
            std::fs::write(&file, text).unwrap();
            cairn(&["--db", db, "query", "--format", "json", "-f", path(&file)])
        }
        Run::Explain(stmt) => cairn(&["--db", db, "explain", "--format", "json", stmt]),
        Run::Stats => cairn(&["--db", db, "stats", "--format", "json"]),
        Run::Repl(input) => {
            use std::io::Write;
            let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cairn"))
                .args(["--db", db, "repl"])
                .env_remove("CAIRN_DB")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            let mut stdin = child.stdin.take().unwrap();
            stdin
                .write_all(format!(".format json\n{input}").as_bytes())
                .unwrap();
            drop(stdin);
            child.wait_with_output().unwrap()
        }
    };
    let (out, err) = text(&o);
    let mut docs = documents(&out, name, dir);
    let errors = documents(&err, name, dir);
    let failing = name.starts_with("error") || matches!(case, Run::Repl(_));
    if failing {
        assert!(!o.status.success(), "{name} should fail: {out}");
        // The REPL adds "N error(s) in the input" after the statement's own error.
        let want = if matches!(case, Run::Repl(_)) { 2 } else { 1 };
        assert_eq!(
            errors.len(),
            want,
            "{name}: error documents on stderr: {err}"
        );
        assert_eq!(
            errors[want - 1]["exit"].as_u64(),
            o.status.code().map(|c| c as u64),
            "{name}: the document's exit code is the process's"
        );
    } else {
        assert!(o.status.success(), "{name}: {out}{err}");
        assert!(errors.is_empty(), "{name}: {err}");
    }
    docs.extend(errors);
    docs
}

#[test]
fn every_statement_kind_prints_its_json_document() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("movies.jsonl");
    std::fs::write(&dump, GRAPH).unwrap();
    let db = dir.path().join("db");
    // hash vectors (not the default), so that the documents show a semantic score too
    let o = cairn(&[
        "--db",
        path(&db),
        "import",
        path(&dump),
        "--embedder",
        "hash",
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let golden = golden_dir();
    if update {
        std::fs::create_dir_all(&golden).unwrap();
    }
    let mut kinds = BTreeSet::new();
    let mut done = BTreeSet::new();
    let mut returns = BTreeSet::new();
    let mut failures = Vec::new();
    for (name, case) in CASES {
        let docs = run(&db, dir.path(), name, case);
        for d in &docs {
            kinds.insert(d["kind"].as_str().unwrap().to_owned());
            if let Some(s) = d["statement"].as_str().filter(|_| d["kind"] == "done") {
                done.insert(s.to_owned());
            }
            if let Some(r) = d["return"].as_str() {
                returns.insert(r.to_owned());
            }
        }
        let mut actual = String::new();
        for d in &docs {
            actual.push_str(&serde_json::to_string_pretty(d).unwrap());
            actual.push('\n');
        }
        let file = golden.join(format!("{name}.json"));
        if update {
            std::fs::write(&file, &actual).unwrap();
            continue;
        }
        match std::fs::read_to_string(&file) {
            Ok(expected) if expected == actual => {}
            Ok(expected) => failures.push(format!(
                "{name}: output differs (run with UPDATE_GOLDEN=1 to accept)\n--- expected\n{expected}--- actual\n{actual}"
            )),
            Err(_) => failures.push(format!(
                "{name}: missing {} (run with UPDATE_GOLDEN=1)",
                file.display()
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every kind of document, every RETURN form and every changing statement has a golden.
    let want = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(
        kinds,
        want(&[
            "answer",
            "description",
            "done",
            "error",
            "exploration",
            "listing",
            "plan",
            "stats"
        ])
    );
    assert_eq!(returns, return_forms());
    // Projected columns (`values`) and a run cut short (`complete: false`) are in the goldens.
    let all: Vec<Value> = CASES
        .iter()
        .flat_map(|(name, _)| {
            let text = std::fs::read_to_string(golden.join(format!("{name}.json"))).unwrap();
            serde_json::Deserializer::from_str(&text)
                .into_iter::<Value>()
                .map(Result::unwrap)
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(all.iter().any(|d| d["results"][0]["values"].is_object()));
    assert!(all.iter().any(|d| d["complete"] == false));
    assert_eq!(
        done,
        want(&[
            "ADD EDGE",
            "ANNOTATE",
            "BEGIN",
            "COMMIT",
            "CREATE INDEX",
            "RELATION UNDER",
            "REMOVE EDGE",
            "REMOVE NODE",
            "ROLLBACK",
            "ROLLBACK TO",
            "SAVEPOINT",
            "UPSERT"
        ])
    );
    // docs/JSON.md documents every kind.
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/JSON.md"))
            .unwrap();
    for kind in &kinds {
        assert!(
            doc.contains(&format!("`\"kind\": \"{kind}\"`")),
            "docs/JSON.md does not document kind {kind}"
        );
    }
}
