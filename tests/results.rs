//! Result golden files, in the manner of sqllogictest: each `tests/results/*.test` names a fixed
//! graph, then statements and the exact rows each must return (docs/LANGUAGE.md, "Fuzzing,
//! tests, benchmark"). A real database is built in a temporary directory by importing the
//! graph, and every statement runs through `Cairn`.
//!
//! ```text
//! # a comment
//! graph movies.jsonl                   -- tests/results/movies.jsonl
//! graph kgqa geoquery/geo.jsonl        -- a development set beside the repository (skipped,
//!                                      -- with a notice, when it is absent)
//!
//! statement ok                         -- runs, returns nothing to check
//! CREATE INDEX ON Movie(rating)
//!
//! question what is the biggest city in arizona   -- (kgqa only) the rows' first column must be
//! query                                          -- the question's gold answers, as a set
//! EXPLORE "…" …
//! ----
//! phoenix
//!
//! query error query::bad_column        -- fails with this error code
//! EXPLORE "…" …
//! ```
//!
//! A statement may span lines; a blank line ends a record. Rows: the `RETURN NODES` columns (or
//! label, key and name), tab-separated; `RETURN COUNT` the number; aggregates the group keys
//! then the values; `RETURN SUBGRAPH` its nodes then its edges; every result set ends with
//! `stop: <reason>`. Numbers print as Python's `repr` would (`591000.0`, `0.25`), so they compare
//! with the development sets' answers. `CAIRN_BLESS=1 cargo test --test results` rewrites the
//! expected rows (review the diff).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn::{Cairn, CancelToken, Exploration, GraphRead, GroupValue, Value};
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One record of a results file.
#[derive(Debug)]
enum Record {
    Comment(String),
    Graph(String),
    Statement(String),
    Query {
        question: Option<String>,
        error: Option<String>,
        statement: String,
        expected: Vec<String>,
    },
}

fn parse(text: &str) -> Vec<Record> {
    let mut out = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim().is_empty() {
            continue;
        }
        if line.starts_with('#') {
            out.push(Record::Comment(line.to_owned()));
            continue;
        }
        if let Some(g) = line.strip_prefix("graph ") {
            out.push(Record::Graph(g.trim().to_owned()));
            continue;
        }
        let mut question = None;
        let mut head = line;
        if let Some(q) = line.strip_prefix("question ") {
            question = Some(q.trim().to_owned());
            head = lines.next().expect("a query after a question");
        }
        let mut statement = String::new();
        while let Some(l) = lines.peek() {
            if l.trim().is_empty() || *l == "----" {
                break;
            }
            if !statement.is_empty() {
                statement.push('\n');
            }
            statement.push_str(lines.next().unwrap_or_default());
        }
        if head == "statement ok" {
            out.push(Record::Statement(statement));
            continue;
        }
        let error = head
            .strip_prefix("query error ")
            .map(|c| c.trim().to_owned());
        assert!(
            head == "query" || error.is_some(),
            "unknown record head {head:?}"
        );
        let mut expected = Vec::new();
        if lines.peek() == Some(&"----") {
            lines.next();
            while let Some(l) = lines.peek() {
                if l.is_empty() {
                    break;
                }
                expected.push(lines.next().unwrap_or_default().to_owned());
            }
        }
        out.push(Record::Query {
            question,
            error,
            statement,
            expected,
        });
    }
    out
}

fn render(records: &[Record]) -> String {
    let mut out = String::new();
    for r in records {
        match r {
            Record::Comment(c) => {
                writeln!(out, "{c}").unwrap();
                continue;
            }
            Record::Graph(g) => writeln!(out, "graph {g}").unwrap(),
            Record::Statement(s) => writeln!(out, "statement ok\n{s}").unwrap(),
            Record::Query {
                question,
                error,
                statement,
                expected,
            } => {
                if let Some(q) = question {
                    writeln!(out, "question {q}").unwrap();
                }
                match error {
                    Some(code) => writeln!(out, "query error {code}\n{statement}").unwrap(),
                    None => {
                        writeln!(out, "query\n{statement}\n----").unwrap();
                        for row in expected {
                            writeln!(out, "{row}").unwrap();
                        }
                    }
                }
            }
        }
        writeln!(out).unwrap();
    }
    out.trim_end().to_owned() + "\n"
}

/// A value as Python's `repr` writes a number, strings as they are.
fn value(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(x) => {
            let s = format!("{x:?}");
            // Rust writes 1e21 where Python writes 1e+21.
            match s.split_once('e') {
                Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e}"),
                _ => s,
            }
        }
        Value::Str(s) => s.clone(),
        Value::List(items) => format!(
            "[{}]",
            items.iter().map(value).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The rows of an exploration (see the module docs).
fn rows(db: &Cairn, e: &Exploration) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(n) = e.count {
        out.push(n.to_string());
    } else if e.ret == cairn::query::ast::ReturnKind::Aggregate {
        for r in &e.rows {
            let cells: Vec<String> = r
                .keys
                .iter()
                .map(|k| match k {
                    GroupValue::Value(v) => value(v),
                    GroupValue::Node(n) => n.name.clone(),
                })
                .chain(r.values.iter().map(value))
                .collect();
            out.push(cells.join("\t"));
        }
    } else if let Some(g) = &e.subgraph {
        let records = db.graph().nodes(&g.nodes).unwrap();
        let keys: HashMap<cairn::NodeId, String> = g
            .nodes
            .iter()
            .zip(records)
            .map(|(id, r)| {
                let r = r.expect("a subgraph node exists");
                let label = db
                    .graph()
                    .catalog()
                    .label_name(r.label)
                    .unwrap_or("?")
                    .to_owned();
                (*id, format!("{label} {}", r.key))
            })
            .collect();
        let mut nodes: Vec<String> = keys.values().map(|k| format!("node {k}")).collect();
        nodes.sort();
        let mut edges: Vec<String> = g
            .edges
            .iter()
            .map(|x| format!("edge {} -{}-> {}", keys[&x.from], x.relation, keys[&x.to]))
            .collect();
        edges.sort();
        out.extend(nodes);
        out.extend(edges);
    } else {
        for r in &e.results {
            if e.columns.is_empty() {
                out.push(format!("{}\t{}\t{}", r.label, r.key, r.name));
            } else {
                out.push(r.values.iter().map(value).collect::<Vec<_>>().join("\t"));
            }
        }
    }
    out.push(format!("stop: {}", e.stop));
    out
}

/// Where the development sets are: `$KGQA_DATA`, else `shared/datasets/kgqa-dev` beside the
/// repository.
fn kgqa_dir() -> PathBuf {
    match std::env::var_os("KGQA_DATA") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets/kgqa-dev"),
    }
}

/// The gold answers of a development set's questions, by question text.
fn gold(dataset_dir: &Path) -> HashMap<String, Vec<String>> {
    let path = dataset_dir.join("dev-questions.jsonl");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return HashMap::new();
    };
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| {
            let q = v["question"].as_str()?.to_owned();
            let answers = v["answers"]
                .as_array()?
                .iter()
                .map(|a| match a {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect();
            Some((q, answers))
        })
        .collect()
}

/// Runs one results file; returns the failures (or rewrites it when blessing).
fn run_file(path: &Path, bless: bool) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut records = parse(&text);
    let dir = tempfile::tempdir().unwrap();
    let db_path = dir.path().join("db");
    let mut db: Option<Cairn> = None;
    let mut answers: HashMap<String, Vec<String>> = HashMap::new();
    let mut failures = Vec::new();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    for r in &mut records {
        match r {
            Record::Comment(_) => {}
            Record::Graph(g) => {
                let file = match g.strip_prefix("kgqa ") {
                    Some(rel) => {
                        let f = kgqa_dir().join(rel.trim());
                        if !f.exists() {
                            eprintln!(
                                "skipping {name}: {} is absent (set KGQA_DATA to the kgqa-dev directory)",
                                f.display()
                            );
                            return Vec::new();
                        }
                        answers = gold(f.parent().unwrap());
                        f
                    }
                    None => path.parent().unwrap().join(g.as_str()),
                };
                let cairn = Cairn::open(&db_path).unwrap();
                cairn
                    .import(&[file], cairn::ImportOptions::default())
                    .unwrap();
                db = Some(cairn);
            }
            Record::Statement(s) => {
                let cairn = db.as_ref().expect("a graph line first");
                cairn
                    .execute(s, &CancelToken::default())
                    .unwrap_or_else(|e| panic!("{name}: {s}: {e}"));
            }
            Record::Query {
                question,
                error,
                statement,
                expected,
            } => {
                let cairn = db.as_ref().expect("a graph line first");
                let got = cairn.explore(statement);
                match (error.as_deref(), got) {
                    (Some(code), Err(e)) => {
                        let found = match &e {
                            cairn::CairnError::Query(q) => q.kind().code().to_owned(),
                            other => format!("{other}"),
                        };
                        if found != *code {
                            failures.push(format!(
                                "{name}: {statement}\n  wanted error {code}, got {e}"
                            ));
                        }
                    }
                    (Some(code), Ok(_)) => failures.push(format!(
                        "{name}: {statement}\n  wanted error {code}, got rows"
                    )),
                    (None, Err(e)) => failures.push(format!("{name}: {statement}\n  failed: {e}")),
                    (None, Ok(e)) => {
                        let got = rows(cairn, &e);
                        if let Some(q) = question {
                            match answers.get(q.as_str()) {
                                None => failures.push(format!("{name}: no gold answers for {q:?}")),
                                Some(gold) => {
                                    let want: BTreeSet<&str> =
                                        gold.iter().map(String::as_str).collect();
                                    let have: BTreeSet<&str> = got[..got.len() - 1]
                                        .iter()
                                        .map(|r| r.split('\t').next().unwrap_or(""))
                                        .collect();
                                    if want != have {
                                        failures.push(format!(
                                            "{name}: {q:?}: gold {want:?}, the statement returns {have:?}"
                                        ));
                                    }
                                }
                            }
                        }
                        if bless {
                            *expected = got;
                        } else if *expected != got {
                            failures.push(format!(
                                "{name}: {statement}\n--- expected\n{}\n--- got\n{}",
                                expected.join("\n"),
                                got.join("\n")
                            ));
                        }
                    }
                }
            }
        }
    }
    if bless {
        std::fs::write(path, render(&records)).unwrap();
    }
    failures
}

#[test]
fn result_golden_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/results");
    let bless = std::env::var_os("CAIRN_BLESS").is_some();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "test"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut failures = Vec::new();
    for f in &files {
        failures.extend(run_file(f, bless));
    }
    assert!(
        failures.is_empty(),
        "{} result mismatches (CAIRN_BLESS=1 rewrites the expected rows):\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
