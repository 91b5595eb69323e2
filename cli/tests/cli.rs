//! The `cairn` binary, run as a user would: happy paths and bad input, with exit codes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{cairn, path, text};

#[test]
fn generate_import_stats_query_explain() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("dump");
    let db = dir.path().join("db");
    let o = cairn(&[
        "generate",
        "academic",
        "--nodes",
        "2000",
        "--seed",
        "5",
        "--out",
        path(&dump),
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    assert!(text(&o).0.contains("authors.csv"));
    let o = cairn(&["--db", path(&db), "import", path(&dump)]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(
        out.contains("nodes 2000 new") || out.contains("new, 0 updated"),
        "{out}"
    );
    assert!(
        err.contains("import: reading"),
        "plain progress lines when not on a terminal: {err}"
    );
    let o = cairn(&["--db", path(&db), "stats"]);
    let (out, _) = text(&o);
    assert!(out.contains("relation   AUTHORED Author->Paper"), "{out}");
    let o = cairn(&[
        "--db",
        path(&db),
        "query",
        "-e",
        r#"EXPLORE "venues" FROM Author "a1" VIA AUTHORED -> PUBLISHED_IN TARGET Venue"#,
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(
        out.lines().next().unwrap().starts_with("#  score  label"),
        "{out}"
    );
    assert!(
        out.contains("-AUTHORED->") && out.contains("-PUBLISHED_IN->"),
        "evidence paths: {out}"
    );
    let o = cairn(&[
        "--db",
        path(&db),
        "query",
        "--format",
        "json",
        "-e",
        r#"EXPLORE "venues" FROM Author "a1" VIA AUTHORED -> PUBLISHED_IN TARGET Venue"#,
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(!v["results"].as_array().unwrap().is_empty());
    assert_eq!(v["results"][0]["label"], "Venue");
    let o = cairn(&[
        "--db",
        path(&db),
        "explain",
        r#"EXPLORE "x" FROM Author "a1" VIA AUTHORED"#,
    ]);
    let (out, _) = text(&o);
    assert!(
        out.contains("BEAM 8") && out.contains("BUDGET 2000"),
        "defaults written out: {out}"
    );
    // A script of several statements, from a file.
    let script = dir.path().join("q.explore");
    std::fs::write(
        &script,
        "-- labels first\nSHOW LABELS;\nCREATE INDEX ON Author(name);\nSHOW INDEXES;\n",
    )
    .unwrap();
    let o = cairn(&["--db", path(&db), "query", "-f", path(&script)]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(
        out.contains("Author\nPaper") && out.contains("Author(name)"),
        "{out}"
    );
}

#[test]
fn bad_input_gets_clear_errors_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    // Missing database: 1, nothing created.
    let o = cairn(&["--db", path(&db), "stats"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).1.contains("does not exist"), "{:?}", text(&o));
    assert!(!db.exists());
    // Bad flag: clap's usage error, 2.
    let o = cairn(&["stats", "--frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
    // Bad dump line: 3, with file:line.
    let dump = dir.path().join("bad.csv");
    std::fs::write(&dump, "key:ID(Paper),year:int\np1,x\n").unwrap();
    let o = cairn(&["--db", path(&db), "import", path(&dump)]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        text(&o)
            .1
            .contains("bad.csv:2: column `year`: `x` is not an integer"),
        "{:?}",
        text(&o)
    );
    // Bad statement: 2, with a caret under the offending text and a suggestion.
    let good = dir.path().join("good.csv");
    std::fs::write(&good, "key:ID(Paper),year:int\np1,1999\n").unwrap();
    assert!(cairn(&["--db", path(&db), "import", path(&good)])
        .status
        .success());
    let o = cairn(&[
        "--db",
        path(&db),
        "query",
        "-e",
        r#"EXPLORE "x" FROM Paper "p1" BEEM 4"#,
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o).1;
    assert!(
        err.contains("BEAM") && err.contains("unexpected here") && err.contains("BEEM 4"),
        "points at the word: {err}"
    );
    let o = cairn(&[
        "--db",
        path(&db),
        "query",
        "-e",
        r#"EXPLORE "x" FROM Papr "p1""#,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).1.contains("Paper"),
        "suggests the nearest label: {:?}",
        text(&o)
    );
}

#[test]
fn demo_runs_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.db");
    let o = cairn(&["--db", path(&db), "demo", "--nodes", "1500"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert_eq!(out.matches("cairn> EXPLORE").count(), 3, "{out}");
    assert_eq!(out.matches("cairn> ASK").count(), 2, "{out}");
    assert!(out.contains("aggregation question; answer: "), "{out}");
    assert!(out.contains("-PUBLISHED_IN->"), "{out}");
    assert!(out.contains("result(s); stopped:"), "{out}");
    // Again: the import is a no-op and the answers are the same.
    let again = cairn(&["--db", path(&db), "demo", "--nodes", "1500"]);
    let (out2, _) = text(&again);
    assert!(out2.contains("(0 new nodes, 0 new edges)"), "{out2}");
    // Result rows and stop lines, without the timings.
    let tables = |s: &str| {
        s.lines()
            .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
            .map(|l| {
                l.rsplit_once("; ")
                    .filter(|(_, t)| t.ends_with(" ms"))
                    .map_or(l, |(head, _)| head)
                    .to_owned()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(tables(&out), tables(&out2));
}

/// Every subcommand answers a missing database with exit 1, a bad flag with exit 2, and (where
/// it takes one) a bad statement with exit 2 and a pointed message.
#[test]
fn every_subcommand_rejects_missing_database_and_bad_flags() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let m = path(&missing);
    let needs_db: [&[&str]; 7] = [
        &["stats"],
        &["query", "-e", "SHOW LABELS"],
        &["explain", r#"EXPLORE "x""#],
        &["ask", "Who wrote \"x\"?"],
        &["index", "build"],
        &["repl"],
        &["import", "/definitely/not/here.csv"],
    ];
    for args in needs_db {
        let mut full = vec!["--db", m];
        full.extend_from_slice(args);
        let o = cairn(&full);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {:?}", text(&o));
        assert!(!text(&o).1.is_empty(), "{args:?} explains the failure");
    }
    assert!(!missing.exists(), "no command created the missing database");
    let bad_flags: [&[&str]; 9] = [
        &["generate", "academic", "--nodes", "many", "--out", "x"],
        &["generate", "social", "--out", "x"],
        &["import", "--max-errors", "-3", "x.csv"],
        &["query", "--format", "xml", "-e", "SHOW LABELS"],
        &["demo", "--nodes", "lots"],
        &["eval", "--per-type", "none"],
        &["explain"],
        &["index", "rebuild-everything"],
        &["frobnicate"],
    ];
    for args in bad_flags {
        let o = cairn(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {:?}", text(&o));
    }
    // Bad statements through explain as well as query.
    let db = dir.path().join("db");
    let csv = dir.path().join("p.csv");
    std::fs::write(&csv, "key:ID(Paper),year:int\np1,1999\n").unwrap();
    assert!(cairn(&["--db", path(&db), "import", path(&csv)])
        .status
        .success());
    let o = cairn(&[
        "--db",
        path(&db),
        "explain",
        r#"EXPLORE "x" FROM Paper "p1" UNTIL sufficent"#,
    ]);
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    assert!(
        text(&o).1.contains("sufficient"),
        "suggests the condition: {:?}",
        text(&o)
    );
}

/// A binary built without the `minilm` feature accepts `--embedder minilm` on the command line
/// (the help is the same in every build) but refuses to run it: exit code 2, naming the fix, and
/// no database created. A database whose catalog records MiniLM is refused the same way for
/// queries and imports, instead of being queried with the hash embedder.
#[cfg(not(feature = "minilm"))]
#[test]
fn minilm_without_the_feature_is_a_usage_error_naming_the_fix() {
    use cairn::format::EmbedderDef;
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("papers.csv");
    std::fs::write(&dump, "key:ID(Paper),title\np1,Graph mining\n").unwrap();
    // however the error report wrapped its lines (at spaces and hyphens, indented with `│`)
    let squash = |s: &str| -> String {
        s.chars()
            .filter(|c| !c.is_whitespace() && *c != '│')
            .collect()
    };
    let names_fix = |err: &str| {
        let err = squash(err);
        [
            "sentence-transformers/all-MiniLM-L6-v2",
            "--featuresminilm",
            "scripts/fetch-minilm.sh",
            "CAIRN_MINILM_DIR",
        ]
        .iter()
        .all(|needle| err.contains(needle))
    };

    let fresh = dir.path().join("fresh");
    let o = cairn(&[
        "--db",
        path(&fresh),
        "import",
        path(&dump),
        "--embedder",
        "minilm",
    ]);
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    assert!(names_fix(&text(&o).1), "{:?}", text(&o));
    assert!(!fresh.exists(), "a refused import creates no database");
    let o = cairn(&["import", "--help"]);
    assert!(text(&o).0.contains("minilm"), "{:?}", text(&o));

    // A database that records MiniLM (as one imported by a MiniLM build would).
    let db = dir.path().join("db");
    {
        let graph = cairn::Graph::open(&db, cairn::GraphOptions::default()).unwrap();
        let mut w = graph.writer().unwrap();
        w.upsert_node("Paper", "p0", [("title", cairn::Value::from("Seed"))], None)
            .unwrap();
        w.set_embedder(Some(EmbedderDef {
            id: "sentence-transformers/all-MiniLM-L6-v2".into(),
            dim: 384,
        }));
        w.commit().unwrap();
    }
    let o = cairn(&[
        "--db",
        path(&db),
        "query",
        "-e",
        r#"EXPLORE "x" FROM Paper "p0""#,
    ]);
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    assert!(names_fix(&text(&o).1), "{:?}", text(&o));
    // Without --embedder an import keeps the recorded embedder: refused too, nothing imported.
    let o = cairn(&["--db", path(&db), "import", path(&dump)]);
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    assert!(names_fix(&text(&o).1), "{:?}", text(&o));
    // What needs no embedding still works.
    let o = cairn(&["--db", path(&db), "stats"]);
    assert!(o.status.success(), "{:?}", text(&o));
    assert!(text(&o).0.contains("labels     Paper"), "{:?}", text(&o));
    // The library refuses the same way, with a typed error.
    match cairn::Cairn::open(&db) {
        Err(cairn::CairnError::EmbedderUnavailable { id, .. }) => {
            assert_eq!(id, "sentence-transformers/all-MiniLM-L6-v2")
        }
        other => panic!("expected EmbedderUnavailable, got {other:?}"),
    }
}

/// `query -e` and `-f` cut the script where the language does: a `;` inside a backquoted name, a
/// string or a comment does not end a statement.
#[test]
fn query_splits_statements_like_the_language() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("odd.jsonl");
    std::fs::write(
        &dump,
        concat!(
            r#"{"type":"node","label":"Odd;Label","key":"k;1","props":{"name":"Semi;Colon"}}"#,
            "\n",
            r#"{"type":"node","label":"Paper","key":"p1","props":{"title":"Plain"}}"#,
            "\n",
        ),
    )
    .unwrap();
    let db = dir.path().join("db");
    let o = cairn(&["--db", path(&db), "import", path(&dump), "--no-index"]);
    assert!(o.status.success(), "{:?}", text(&o));
    let script = "DESCRIBE `Odd;Label`; /* DESCRIBE Nope; */ DESCRIBE Paper -- ; DESCRIBE Nope\n;\
                  EXPLORE \"a;b\" FROM `Odd;Label` \"k;1\" DEPTH 1";
    let o = cairn(&["--db", path(&db), "query", "-e", script]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(err.is_empty(), "{err}");
    assert!(out.contains("Odd;Label: 1 nodes"), "{out}");
    assert!(out.contains("Paper: 1 nodes"), "{out}");
    assert!(out.contains("Semi;Colon"), "the exploration ran: {out}");
    assert!(!out.contains("Nope"), "{out}");
    let file = dir.path().join("script.explore");
    std::fs::write(&file, script).unwrap();
    let o = cairn(&["--db", path(&db), "query", "-f", path(&file)]);
    assert!(o.status.success(), "{:?}", text(&o));
    assert_eq!(text(&o).0.matches(" nodes").count(), 2, "{:?}", text(&o));
    // A `;` inside an unterminated backquoted name is not a separator: the error points at it.
    let o = cairn(&[
        "--db",
        path(&db),
        "query",
        "-e",
        "DESCRIBE `Odd; SHOW LABELS",
    ]);
    let (_, err) = text(&o);
    assert!(!o.status.success());
    assert!(err.contains("unterminated quoted name"), "{err}");

    // A script's transaction: a failing statement stops the script and rolls BEGIN back.
    let o = cairn(&[
        "--db",
        path(&db),
        "query",
        "-e",
        r#"BEGIN; UPSERT Paper "p2"; ADD EDGE Paper "p2" -[CITES]-> Paper "p404"; COMMIT"#,
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(out.contains(r#"added Paper "p2""#), "{out}");
    assert!(
        err.contains("rolled back") && err.contains(r#"no node Paper "p404""#),
        "{err}"
    );
    let o = cairn(&["--db", path(&db), "query", "-e", "DESCRIBE Paper"]);
    assert!(text(&o).0.starts_with("Paper: 1 nodes"), "{:?}", text(&o));
    // The same with COMMIT reached: the node is there.
    let o = cairn(&[
        "--db",
        path(&db),
        "query",
        "-e",
        r#"BEGIN; UPSERT Paper "p2" SET title = "Two"; ADD EDGE Paper "p2" -[CITES]-> Paper "p1"; COMMIT"#,
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    let o = cairn(&["--db", path(&db), "query", "-e", "DESCRIBE Paper"]);
    assert!(text(&o).0.starts_with("Paper: 2 nodes"), "{:?}", text(&o));
}

#[test]
fn import_triples_with_inferred_labels_and_refuse_unguessed_txt() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let kb = dir.path().join("kb.txt");
    std::fs::write(
        &kb,
        "Alan_PULIDO\tplays_in_club\tTigres_UANL\n\
         Tigres_UANL\tplays_in_club_inverse\tAlan_PULIDO\n\
         Alan_PULIDO\tplays_for_country\tMexico\n\
         Alan_PULIDO\twears_number\t11\n",
    )
    .unwrap();
    // A .txt file is never guessed: exit code 3, naming the flag, nothing created.
    let o = cairn(&["--db", path(&db), "import", path(&kb)]);
    assert_eq!(o.status.code(), Some(3), "{:?}", text(&o));
    assert!(text(&o).1.contains("--format triples"), "{:?}", text(&o));
    assert!(!db.exists());
    let import = [
        "--db",
        path(&db),
        "import",
        path(&kb),
        "--format",
        "triples",
        "--infer-labels",
        "--relation-label",
        "wears_number=:ShirtNumber",
        "--no-index",
    ];
    let o = cairn(&import);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(out.contains("nodes 4 new"), "{out}");
    assert!(out.contains("edges 4 new"), "{out}");
    assert!(
        out.contains("labels: Club 1, Country 1, Entity 1, ShirtNumber 1"),
        "{out}"
    );
    let o = cairn(&["--db", path(&db), "query", "-e", "SHOW LABELS;"]);
    let shown = text(&o).0;
    for label in ["Club", "Country", "ShirtNumber", "Entity"] {
        assert!(shown.contains(label), "{label} in {shown}");
    }
    // Again: a no-op.
    let o = cairn(&import);
    assert!(
        text(&o)
            .0
            .contains("nodes 0 new, 0 updated, 4 unchanged; edges 0 new, 0 updated, 4 unchanged"),
        "{:?}",
        text(&o)
    );
    // A bad line: file:line and exit code 3.
    let bad = dir.path().join("bad.tsv");
    std::fs::write(&bad, "a\tr\tb\nno tabs here\n").unwrap();
    let o = cairn(&["--db", path(&db), "import", path(&bad)]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        text(&o)
            .1
            .contains("bad.tsv:2: expected 3 tab-separated fields"),
        "{:?}",
        text(&o)
    );
    let o = cairn(&["import", "--help"]);
    let help = text(&o).0;
    assert!(
        help.contains("--infer-labels") && help.contains("--relation-label"),
        "{help}"
    );
}

/// `import --embedder none` stores only the vectors the dump supplies (here none); so does an
/// import without `--embedder` into a database without vectors (the default: SEARCH's words
/// are the full-text index's); `--embedder hash` embeds and records the embedder, which the
/// next import without `--embedder` keeps.
#[test]
fn import_embedder_none_and_the_default_store_no_vectors_until_one_is_chosen() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let import = |n: usize, extra: &[&str]| {
        let file = dir.path().join(format!("{n}.jsonl"));
        std::fs::write(
            &file,
            format!(
                r#"{{"type":"node","label":"Paper","key":"p{n}","props":{{"title":"Title {n}"}}}}"#
            ),
        )
        .unwrap();
        let mut args = vec!["--db", path(&db), "import", path(&file)];
        args.extend_from_slice(extra);
        let o = cairn(&args);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{out}{err}");
        out
    };
    let no_vectors = |out: &str| {
        assert!(!out.contains("embedded"), "{out}");
        assert!(out.contains("vector index: not built"), "{out}");
        let c = cairn::Cairn::open(&db).unwrap();
        assert!(c.graph().catalog().embedder().is_none());
    };
    no_vectors(&import(1, &["--embedder", "none"]));
    no_vectors(&import(2, &[]));
    let hash = cairn::Embedder::id(&cairn::HashEmbedder::default()).to_owned();
    for (n, extra) in [(3, &["--embedder", "hash"][..]), (4, &[][..])] {
        let out = import(n, extra);
        assert!(
            out.contains("embedded 1 node descriptions") && out.contains(&hash),
            "{out}"
        );
    }
}
