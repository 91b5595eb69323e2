//! Bulk import on real files and real RocksDB databases.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_generate::{Academic, AcademicConfig};
use cairn_import::{import_files, ImportError, ImportOptions};
use cairn_store::{Direction, Graph, GraphOptions, GraphRead};
use std::io::Write;
use std::path::{Path, PathBuf};

mod common;
use common::canonical;

fn open(dir: &Path) -> Graph {
    Graph::open(dir, GraphOptions::default()).unwrap()
}

fn small() -> Academic {
    Academic::generate(&AcademicConfig::small(3))
}

#[test]
fn jsonl_and_csv_dumps_give_identical_databases() {
    let graph = small();
    let files = tempfile::tempdir().unwrap();
    let jsonl = graph.write_jsonl(&files.path().join("jsonl")).unwrap();
    let csv = graph.write_csv(&files.path().join("csv")).unwrap();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let ga = open(a.path());
    let sa = import_files(&ga, &jsonl, &ImportOptions::default()).unwrap();
    let gb = open(b.path());
    let sb = import_files(&gb, &csv, &ImportOptions::default()).unwrap();
    assert_eq!(sa.nodes_created as usize, graph.node_count());
    assert_eq!(sa.edges_created as usize, graph.edge_count());
    assert_eq!(
        (sb.nodes_created, sb.edges_created),
        (sa.nodes_created, sa.edges_created)
    );
    let ca = canonical(&ga);
    assert_eq!(ca, canonical(&gb));
    // The store agrees with the generator: every paper's authors, venue and citations.
    for (i, p) in graph.papers.iter().enumerate().take(50) {
        let id = ga.node_id("Paper", &format!("p{i}")).unwrap().unwrap();
        let cat = ga.catalog();
        let cites = cat.relation_id("CITES").unwrap();
        let authored = cat.relation_id("AUTHORED").unwrap();
        assert_eq!(
            ga.neighbors(id, Direction::Out, &[cites]).unwrap().len(),
            p.cites.len()
        );
        assert_eq!(
            ga.neighbors(id, Direction::In, &[authored]).unwrap().len(),
            p.authors.len()
        );
        assert_eq!(
            ga.degree(id).unwrap().inc as u32,
            p.citations + p.authors.len() as u32
        );
    }
    // And survives a reopen.
    drop(ga);
    assert_eq!(canonical(&open(a.path())), ca);
}

#[test]
fn reimporting_the_same_dump_changes_nothing() {
    let graph = small();
    let files = tempfile::tempdir().unwrap();
    let jsonl = graph.write_jsonl(files.path()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    import_files(&g, &jsonl, &ImportOptions::default()).unwrap();
    let before = canonical(&g);
    let again = import_files(&g, &jsonl, &ImportOptions::default()).unwrap();
    assert_eq!(
        (
            again.nodes_created,
            again.nodes_updated,
            again.edges_created,
            again.edges_updated
        ),
        (0, 0, 0, 0)
    );
    assert_eq!(again.nodes_unchanged as usize, graph.node_count());
    assert_eq!(again.edges_unchanged as usize, graph.edge_count());
    assert_eq!(canonical(&g), before);
}

#[test]
fn gzip_is_read_transparently() {
    let graph = small();
    let files = tempfile::tempdir().unwrap();
    let plain = graph.write_jsonl(files.path()).unwrap();
    let mut gz = Vec::new();
    for p in &plain {
        let out = PathBuf::from(format!("{}.gz", p.display()));
        let mut enc = flate2::write::GzEncoder::new(
            std::fs::File::create(&out).unwrap(),
            flate2::Compression::fast(),
        );
        enc.write_all(&std::fs::read(p).unwrap()).unwrap();
        enc.finish().unwrap();
        gz.push(out);
    }
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (ga, gb) = (open(a.path()), open(b.path()));
    import_files(&ga, &plain, &ImportOptions::default()).unwrap();
    import_files(&gb, &gz, &ImportOptions::default()).unwrap();
    assert_eq!(canonical(&ga), canonical(&gb));
}

#[test]
fn importing_into_a_non_empty_database_links_to_existing_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let mut w = g.writer().unwrap();
    let old = w
        .upsert_node(
            "Author",
            "a0",
            [("name", cairn_storage_format::Value::from("Old Name"))],
            None,
        )
        .unwrap();
    w.commit().unwrap();
    let f = files.path().join("more.jsonl");
    std::fs::write(
        &f,
        r#"{"type":"node","label":"Paper","key":"p1","props":{"title":"New"}}
{"type":"node","label":"Author","key":"a0","props":{"h":3}}
{"type":"edge","rel":"AUTHORED","from":{"label":"Author","key":"a0"},"to":{"label":"Paper","key":"p1"}}
"#,
    )
    .unwrap();
    let s = import_files(&g, &[f], &ImportOptions::default()).unwrap();
    assert_eq!(
        (s.nodes_created, s.nodes_updated, s.edges_created),
        (1, 1, 1)
    );
    let rec = g.node(old).unwrap().unwrap();
    assert_eq!(rec.props.len(), 2, "props merged: {rec:?}");
    let p1 = g.node_id("Paper", "p1").unwrap().unwrap();
    assert!(p1.0 > old.0);
    assert_eq!(g.neighbors(old, Direction::Out, &[]).unwrap()[0].node, p1);
    assert_eq!(
        (g.degree(old).unwrap().out, g.degree(p1).unwrap().inc),
        (1, 1)
    );
}

#[test]
fn csv_ids_without_group_resolve_globally_and_ambiguity_is_an_error() {
    let files = tempfile::tempdir().unwrap();
    let nodes = files.path().join("nodes.csv");
    std::fs::write(
        &nodes,
        ":ID,name,:LABEL\nx1,Ann,Author\nx2,Paper one,Paper\nx3,Dup A,Author\nx3,Dup P,Paper\n",
    )
    .unwrap();
    let edges = files.path().join("edges.csv");
    std::fs::write(
        &edges,
        ":START_ID,:END_ID,:TYPE,:WEIGHT,role\nx1,x2,AUTHORED,0.5,first\n",
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    import_files(&g, &[nodes.clone(), edges], &ImportOptions::default()).unwrap();
    let a = g.node_id("Author", "x1").unwrap().unwrap();
    let out = g.neighbors(a, Direction::Out, &[]).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].props.weight, Some(0.5));
    assert_eq!(out[0].props.props.len(), 1);
    let bad = files.path().join("bad.csv");
    std::fs::write(&bad, ":START_ID,:END_ID,:TYPE\nx1,x3,AUTHORED\n").unwrap();
    let err = import_files(&g, &[&bad], &ImportOptions::default()).unwrap_err();
    assert!(
        err.to_string().contains(&format!(
            "{}:2: target id `x3` matches nodes of several labels",
            bad.display()
        )),
        "{err}"
    );
}

/// One bad line of each kind: the error names file and line, and the database is unchanged.
#[test]
fn each_kind_of_bad_line_reports_file_and_line_and_changes_nothing() {
    let files = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let seed = files.path().join("seed.jsonl");
    std::fs::write(
        &seed,
        "{\"type\":\"node\",\"label\":\"Author\",\"key\":\"a0\",\"props\":{\"name\":\"Ann\"}}\n",
    )
    .unwrap();
    import_files(&g, &[seed], &ImportOptions::default()).unwrap();
    let before = canonical(&g);
    let good_node = r#"{"type":"node","label":"Paper","key":"p1","props":{"title":"T"}}"#;
    let cases: Vec<(&str, String, &str)> = vec![
        ("bad-json.jsonl", format!("{good_node}\n{{\"type\":\"node\",\"label\":\"Paper\",\n"), ":2: EOF while parsing"),
        ("missing-id.jsonl", format!("{good_node}\n{{\"type\":\"node\",\"label\":\"Paper\"}}\n"), ":2: missing field `key`"),
        ("empty-id.jsonl", format!("{good_node}\n{{\"type\":\"node\",\"label\":\"Paper\",\"key\":\"\"}}\n"), ":2: empty key"),
        ("unknown-tag.jsonl", format!("{good_node}\n{{\"type\":\"nod\",\"label\":\"Paper\",\"key\":\"p2\"}}\n"), ":2: unknown variant `nod`"),
        (
            "dangling.jsonl",
            format!("{good_node}\n\n{{\"type\":\"edge\",\"rel\":\"CITES\",\"from\":{{\"label\":\"Paper\",\"key\":\"p1\"}},\"to\":{{\"label\":\"Paper\",\"key\":\"p9\"}}}}\n"),
            ":3: edge target Paper `p9` is not a node of this import or the database",
        ),
        ("nested.jsonl", format!("{good_node}\n{{\"type\":\"node\",\"label\":\"Paper\",\"key\":\"p2\",\"props\":{{\"x\":{{}}}}}}\n"), ":2: property `x`: nested objects are not supported"),
        ("bad-int.csv", "key:ID(Paper),year:int\np1,1999\np2,nineteen\n".into(), ":3: column `year`: `nineteen` is not an integer"),
        ("bad-bool.csv", "key:ID(Paper),open:boolean\np1,maybe\n".into(), ":2: column `open`: `maybe` is not a boolean"),
        ("short-row.csv", "key:ID(Paper),title\np1,A\np2\n".into(), ":3: expected 2 fields as in the header, found 1"),
        ("dangling.csv", ":START_ID(Author),:END_ID(Paper),:TYPE\na0,p404,AUTHORED\n".into(), ":2: edge target Paper `p404` is not a node"),
        ("missing-type.csv", ":START_ID(Author),:END_ID(Paper),:TYPE\na0,a0,\n".into(), ":2: missing relation type"),
    ];
    for (name, body, expected) in cases {
        let f = files.path().join(name);
        std::fs::write(&f, body).unwrap();
        let err = import_files(&g, &[&f], &ImportOptions::default()).unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(err, ImportError::BadLines { .. }),
            "{name}: {text}"
        );
        let want = format!("{}{expected}", f.display());
        assert!(
            text.contains(&want),
            "{name}: expected `{want}` in:\n{text}"
        );
        assert_eq!(canonical(&g), before, "{name} changed the database");
    }
    // A bad header is an error about the file, not a line.
    let f = files.path().join("header.csv");
    std::fs::write(&f, "name,year:date\nx,1\n").unwrap();
    let err = import_files(&g, &[f], &ImportOptions::default()).unwrap_err();
    assert!(matches!(err, ImportError::Header { .. }), "{err}");
    let f = files.path().join("dump.xml");
    std::fs::write(&f, "hello").unwrap();
    assert!(matches!(
        import_files(&g, &[f], &ImportOptions::default()).unwrap_err(),
        ImportError::UnknownFormat { .. }
    ));
    // The catalog did not pick up names from any failed import.
    assert!(g.catalog().label_id("Paper").is_none());
    drop(g);
    assert_eq!(canonical(&open(dir.path())), before);
}

#[test]
fn max_errors_skips_and_reports_each_bad_line() {
    let files = tempfile::tempdir().unwrap();
    let f = files.path().join("mixed.csv");
    std::fs::write(&f, "key:ID(Paper),year:int\np1,1999\np2,x\np3,2001\np4,y\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let err = import_files(
        &g,
        &[&f],
        &ImportOptions {
            max_errors: 1,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        matches!(&err, ImportError::BadLines { errors, .. } if errors.len() == 2),
        "{err}"
    );
    let s = import_files(
        &g,
        &[&f],
        &ImportOptions {
            max_errors: 2,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(s.nodes_created, 2);
    let lines: Vec<String> = s.skipped.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        lines,
        vec![
            format!("{}:3: column `year`: `x` is not an integer", f.display()),
            format!("{}:5: column `year`: `y` is not an integer", f.display())
        ]
    );
}

/// Child side of the kill test: imports the dump named by the environment.
#[test]
fn import_child() {
    let (Ok(db), Ok(dump)) = (
        std::env::var("CAIRN_IMPORT_CHILD_DB"),
        std::env::var("CAIRN_IMPORT_CHILD_DUMP"),
    ) else {
        return;
    };
    let g = Graph::open(&db, GraphOptions::default()).unwrap();
    let files: Vec<PathBuf> = std::fs::read_dir(&dump)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .collect();
    // Order does not matter: every file is read before any edge is resolved.
    let options = ImportOptions {
        memory_budget: std::env::var("CAIRN_IMPORT_CHILD_BUDGET")
            .ok()
            .map(|b| b.parse().unwrap()),
        ..Default::default()
    };
    import_files(&g, &files, &options).unwrap();
    println!("CHILD-DONE");
}

/// Two nodes and an edge written before any import, in a fresh database at `dir`.
fn seed_own_content(dir: &Path) {
    let g = open(dir);
    let mut w = g.writer().unwrap();
    let none = || Vec::<(&str, cairn_storage_format::Value)>::new();
    let a = w.upsert_node("Author", "keep", none(), None).unwrap();
    let b = w.upsert_node("Author", "keep2", none(), None).unwrap();
    w.add_edge(a, "KNOWS", b, Default::default()).unwrap();
    w.commit().unwrap();
}

fn spawn_child(db: &Path, dump: &Path, pause_ms: Option<u64>) -> std::process::Child {
    spawn_child_with(db, dump, pause_ms, None)
}

fn spawn_child_with(
    db: &Path,
    dump: &Path,
    pause_ms: Option<u64>,
    budget: Option<u64>,
) -> std::process::Child {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    if let Some(b) = budget {
        cmd.env("CAIRN_IMPORT_CHILD_BUDGET", b.to_string());
    }
    cmd.args(["--exact", "import_child", "--nocapture", "--test-threads=1"])
        .env("CAIRN_IMPORT_CHILD_DB", db)
        .env("CAIRN_IMPORT_CHILD_DUMP", dump)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    if let Some(ms) = pause_ms {
        cmd.env("CAIRN_TEST_IMPORT_PAUSE_MS", ms.to_string());
    }
    cmd.spawn().unwrap()
}

/// For the kill tests: a 20,000-node CSV dump, and a database with some content of its own
/// (which must survive every kill), with that content in canonical form.
fn dump_and_seeded_db() -> (tempfile::TempDir, tempfile::TempDir, Vec<String>) {
    let graph = Academic::generate(&AcademicConfig::with_nodes(20_000, 5));
    let files = tempfile::tempdir().unwrap();
    graph.write_csv(files.path()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    seed_own_content(dir.path());
    let before = canonical(&open(dir.path()));
    (files, dir, before)
}

#[test]
fn a_killed_import_is_either_fully_absent_or_fully_present() {
    use std::io::BufRead;
    let (files, dir, before) = dump_and_seeded_db();

    // 1. Killed in the widest window: files ingested, final batch not yet written.
    let mut child = spawn_child(dir.path(), files.path(), Some(60_000));
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut saw_pause = false;
    for line in stderr.lines() {
        if line.unwrap().contains("files ingested, pausing") {
            saw_pause = true;
            break;
        }
    }
    assert!(saw_pause, "child never reached the ingest window");
    child.kill().unwrap();
    child.wait().unwrap();
    let g = open(dir.path());
    assert_eq!(
        canonical(&g),
        before,
        "killed after ingest: import must be invisible"
    );
    assert!(g.node_id("Paper", "p0").unwrap().is_none());
    drop(g);

    // 2. Killed at several moments of the run: absent or complete, never in between.
    let complete = {
        let other = tempfile::tempdir().unwrap();
        std::process::Command::new("cp")
            .arg("-r")
            .arg(dir.path().join("rocksdb"))
            .arg(other.path())
            .status()
            .unwrap();
        let g = open(other.path());
        let all: Vec<PathBuf> = std::fs::read_dir(files.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        import_files(&g, &all, &ImportOptions::default()).unwrap();
        canonical(&g)
    };
    let mut outcomes = (0, 0);
    // u64::MAX: let the child finish, the "fully present" end of the spectrum.
    for delay_ms in [50u64, 400, 1500, 3000, u64::MAX] {
        let mut child = spawn_child(dir.path(), files.path(), None);
        if delay_ms == u64::MAX {
            assert!(child.wait().unwrap().success());
        } else {
            std::thread::sleep(std::time::Duration::from_millis(delay_ms));
            let _ = child.kill();
        }
        let out = child.wait_with_output().unwrap();
        let g = open(dir.path());
        let now = canonical(&g);
        if now == before {
            outcomes.0 += 1;
        } else {
            assert_eq!(
                now,
                complete,
                "kill after {delay_ms} ms left a partial import (child said {:?})",
                String::from_utf8_lossy(&out.stdout)
            );
            outcomes.1 += 1;
            // Reset for the next round: a fresh copy of the original database.
            drop(g);
            std::fs::remove_dir_all(dir.path()).unwrap();
            std::fs::create_dir_all(dir.path()).unwrap();
            seed_own_content(dir.path());
        }
    }
    eprintln!(
        "kill outcomes: {} absent, {} complete",
        outcomes.0, outcomes.1
    );
    assert!(outcomes.1 >= 1, "the uninterrupted run must complete");
}

#[test]
fn the_embedder_fills_vectors_and_a_different_one_is_refused() {
    use cairn_embed::{Embedder, HashEmbedder};
    use std::sync::Arc;
    let graph = small();
    let files = tempfile::tempdir().unwrap();
    let jsonl = graph.write_jsonl(files.path()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let hash: Arc<dyn Embedder> = Arc::new(HashEmbedder::new(64));
    let s = import_files(
        &g,
        &jsonl,
        &ImportOptions {
            embedder: Some(hash.clone()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(s.vectors_computed as usize, graph.node_count());
    let def = g.catalog().embedder().cloned().unwrap();
    assert_eq!((def.id.as_str(), def.dim), (hash.id(), 64));
    // The stored vector is the embedding of the node's description.
    let id = g.node_id("Paper", "p3").unwrap().unwrap();
    let stored = g.vectors(&[id]).unwrap().remove(0).unwrap();
    let rec = g.node(id).unwrap().unwrap();
    let text = cairn_store::describe::description(&rec, &g.catalog());
    assert!(text.starts_with("Paper: "), "{text}");
    assert_eq!(stored, hash.embed(&text).unwrap());
    // Another embedder would mix incomparable vectors: refused, nothing changed.
    let before = canonical(&g);
    let other: Arc<dyn Embedder> = Arc::new(HashEmbedder::new(32));
    let extra = files.path().join("extra.jsonl");
    std::fs::write(
        &extra,
        "{\"type\":\"node\",\"label\":\"Paper\",\"key\":\"new\"}\n",
    )
    .unwrap();
    let err = import_files(
        &g,
        &[&extra],
        &ImportOptions {
            embedder: Some(other),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(matches!(err, ImportError::EmbedderMismatch { .. }), "{err}");
    assert_eq!(canonical(&g), before);
}

#[test]
fn supplied_vectors_are_stored_and_their_dimension_checked() {
    let files = tempfile::tempdir().unwrap();
    let f = files.path().join("v.jsonl");
    std::fs::write(
        &f,
        "{\"type\":\"node\",\"label\":\"Doc\",\"key\":\"d1\",\"vector\":[0.6,0.8]}\n{\"type\":\"node\",\"label\":\"Doc\",\"key\":\"d2\",\"vector\":[1.0,0.0,0.0]}\n",
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let err = import_files(&g, &[&f], &ImportOptions::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains(":2: vector has 3 dimensions, expected 2"),
        "{err}"
    );
    std::fs::write(
        &f,
        "{\"type\":\"node\",\"label\":\"Doc\",\"key\":\"d1\",\"vector\":[0.6,0.8]}\n",
    )
    .unwrap();
    import_files(&g, &[&f], &ImportOptions::default()).unwrap();
    assert_eq!(
        g.catalog().embedder().map(|e| (e.id.clone(), e.dim)),
        Some(("supplied".to_owned(), 2))
    );
    let id = g.node_id("Doc", "d1").unwrap().unwrap();
    assert_eq!(g.vectors(&[id]).unwrap()[0], Some(vec![0.6, 0.8]));
}

/// Bulk import and the edge-by-edge `Writer` agree on a dump with short and long keys (the
/// node table keeps keys of up to 23 bytes inline), edges between new and existing nodes in
/// random order, and repeated edges whose last line must win.
#[test]
fn bulk_import_matches_edge_by_edge_writes() {
    use cairn_storage_format::{EdgeProps, Value};
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let key = |label: &str, i: usize| match label {
        "A" => format!("a{i}"),
        _ => format!("b-{i}-a-key-longer-than-twenty-three-bytes"),
    };
    let labels = ["A", "B"];
    let (existing, total) = (20, 220);
    let seed_db = |g: &Graph| {
        let mut w = g.writer().unwrap();
        for label in labels {
            for i in 0..existing {
                w.upsert_node(label, &key(label, i), [("old", Value::Int(i as i64))], None)
                    .unwrap();
            }
        }
        w.commit().unwrap();
    };
    let mut lines = Vec::new();
    let mut nodes = Vec::new();
    for label in labels {
        for i in existing..total {
            lines.push(format!(
                r#"{{"type":"node","label":"{label}","key":"{}","props":{{"n":{i}}}}}"#,
                key(label, i)
            ));
            nodes.push((label, key(label, i), i));
        }
    }
    let mut edges: Vec<(String, &str, String, &str, String, f32)> = Vec::new();
    for _ in 0..4000 {
        let e = if !edges.is_empty() && next(3) == 0 {
            let mut e = edges[next(edges.len())].clone();
            e.5 = next(100) as f32;
            e
        } else {
            let (fl, tl) = (labels[next(2)], labels[next(2)]);
            let rel = ["R1", "R2"][next(2)].to_owned();
            (
                rel,
                fl,
                key(fl, next(total)),
                tl,
                key(tl, next(total)),
                next(100) as f32,
            )
        };
        lines.push(format!(
            r#"{{"type":"edge","rel":"{}","from":{{"label":"{}","key":"{}"}},"to":{{"label":"{}","key":"{}"}},"weight":{}}}"#,
            e.0, e.1, e.2, e.3, e.4, e.5
        ));
        edges.push(e);
    }
    let files = tempfile::tempdir().unwrap();
    let dump = files.path().join("dump.jsonl");
    std::fs::write(&dump, lines.join("\n")).unwrap();

    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (bulk, written) = (open(da.path()), open(db.path()));
    seed_db(&bulk);
    seed_db(&written);
    import_files(&bulk, &[&dump], &ImportOptions::default()).unwrap();
    let mut w = written.writer().unwrap();
    for (label, k, i) in &nodes {
        w.upsert_node(label, k, [("n", Value::Int(*i as i64))], None)
            .unwrap();
    }
    for (rel, fl, fk, tl, tk, weight) in &edges {
        let src = w
            .node_id(w.catalog().label_id(fl).unwrap(), fk)
            .unwrap()
            .unwrap();
        let dst = w
            .node_id(w.catalog().label_id(tl).unwrap(), tk)
            .unwrap()
            .unwrap();
        let props = EdgeProps {
            weight: Some(*weight),
            props: vec![],
        };
        w.add_edge(src, rel, dst, props).unwrap();
    }
    w.commit().unwrap();
    assert_eq!(canonical(&bulk), canonical(&written));
}

#[test]
fn schema_records_annotate_elements_atomically_with_the_import() {
    use cairn_store::Element;
    let files = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    // A JSON Lines dump with its own schema records, before or after the data they describe.
    let dump = files.path().join("films.jsonl");
    std::fs::write(
        &dump,
        concat!(
            r#"{"type":"schema","kind":"relation","name":"P57","description":"the director","aliases":["director","directed by"]}"#,
            "\n",
            r#"{"type":"node","label":"Film","key":"f1","props":{"title":"Blue"}}"#,
            "\n",
            r#"{"type":"node","label":"Person","key":"p1","props":{"name":"Ada"}}"#,
            "\n",
            r#"{"type":"edge","rel":"P57","from":{"label":"Film","key":"f1"},"to":{"label":"Person","key":"p1"}}"#,
            "\n",
            r#"{"type":"schema","kind":"label","name":"Film","aliases":["movie"]}"#,
            "\n",
            r#"{"type":"schema","kind":"label","name":"Person","linking":false}"#,
            "\n",
        ),
    )
    .unwrap();
    import_files(&g, &[&dump], &ImportOptions::default()).unwrap();
    let c = g.catalog();
    assert!(!c.links_unmarked(c.label_id("Person").unwrap()));
    assert!(c.links_unmarked(c.label_id("Film").unwrap()));
    let rel = c
        .annotation(Element::Relation(c.relation_id("P57").unwrap()))
        .unwrap();
    assert_eq!(rel.description.as_deref(), Some("the director"));
    assert_eq!(rel.aliases, ["director", "directed by"]);
    let film = c
        .annotation(Element::Label(c.label_id("Film").unwrap()))
        .unwrap();
    assert_eq!(film.aliases, ["movie"]);
    // CSV dumps take theirs from a JSON Lines file beside them; it may name existing elements.
    let schema = files.path().join("schema.jsonl");
    std::fs::write(
        &schema,
        r#"{"type":"schema","kind":"property","name":"year","description":"the year it came out"}"#,
    )
    .unwrap();
    let csv = files.path().join("films.csv");
    std::fs::write(&csv, "key:ID(Film),year:int\nf2,1999\n").unwrap();
    import_files(&g, &[&csv, &schema], &ImportOptions::default()).unwrap();
    let c = g.catalog();
    let year = c
        .annotation(Element::Property(c.prop_id("year").unwrap()))
        .unwrap();
    assert_eq!(year.description.as_deref(), Some("the year it came out"));
    // Importing again changes nothing.
    let before = canonical(&g);
    let annotations = g.catalog().annotations().clone();
    import_files(&g, &[&dump], &ImportOptions::default()).unwrap();
    assert_eq!(canonical(&g), before);
    assert_eq!(g.catalog().annotations(), &annotations);
    // Bad schema records are file:line errors, and the import around them changes nothing.
    let cases = [
        (
            "unknown.jsonl",
            r#"{"type":"schema","kind":"relation","name":"P58","aliases":["x"]}"#,
            ":2: unknown relation `P58`: neither the database nor this import has it",
        ),
        (
            "empty.jsonl",
            r#"{"type":"schema","kind":"label","name":"Film"}"#,
            ":2: a schema record needs `description`, `aliases` or `linking`",
        ),
        (
            "linking.jsonl",
            r#"{"type":"schema","kind":"relation","name":"P57","linking":false}"#,
            ":2: `linking` applies to labels only",
        ),
        (
            "twice.jsonl",
            r#"{"type":"schema","kind":"label","name":"Film","aliases":["a","A"]}"#,
            ":2: alias \"A\" is listed twice",
        ),
        (
            "kind.jsonl",
            r#"{"type":"schema","kind":"table","name":"Film","aliases":["a"]}"#,
            ":2: unknown variant `table`",
        ),
    ];
    for (name, bad, expected) in cases {
        let f = files.path().join(name);
        let node = r#"{"type":"node","label":"Film","key":"f9","props":{"title":"New"}}"#;
        std::fs::write(&f, format!("{node}\n{bad}\n")).unwrap();
        let err = import_files(&g, &[&f], &ImportOptions::default()).unwrap_err();
        let want = format!("{}{expected}", f.display());
        assert!(err.to_string().contains(&want), "{name}: {err}");
        assert_eq!(canonical(&g), before, "{name} changed the database");
        assert_eq!(g.catalog().annotations(), &annotations);
    }
    let linking = g.catalog().linking().clone();
    drop(g);
    let g = open(dir.path());
    assert_eq!(g.catalog().annotations(), &annotations);
    assert_eq!(g.catalog().linking(), &linking);
}

/// A budget far below the dump's size: staged edges spill in small blocks and the edge sort in
/// many buckets.
const TINY_BUDGET: u64 = 64 << 10;

/// The vectors of every `Paper`, by key, for comparing two databases.
fn paper_vectors(g: &Graph) -> Vec<(String, Option<Vec<f32>>)> {
    let label = g.catalog().label_id("Paper").unwrap();
    let ids = g.label_nodes(label).unwrap();
    let vectors = g.vectors(&ids).unwrap();
    let mut out: Vec<_> = ids
        .iter()
        .zip(vectors)
        .map(|(id, v)| (g.node(*id).unwrap().unwrap().key.clone(), v))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn a_tiny_memory_budget_spills_and_gives_the_same_database() {
    use cairn_embed::HashEmbedder;
    use std::sync::Arc;
    let graph = Academic::generate(&AcademicConfig::with_nodes(20_000, 9));
    let files = tempfile::tempdir().unwrap();
    let mut csv = graph.write_csv(files.path()).unwrap();
    // A second file repeating edges of the first (the later line wins) and linking to nodes.
    let extra = files.path().join("extra.jsonl");
    std::fs::write(
        &extra,
        r#"{"type":"edge","rel":"CITES","from":{"label":"Paper","key":"p1"},"to":{"label":"Paper","key":"p0"},"props":{"note":"later"}}
{"type":"edge","rel":"AUTHORED","from":{"label":"Author","key":"a3"},"to":{"label":"Paper","key":"p7"},"weight":0.5}
"#,
    )
    .unwrap();
    csv.push(extra);
    let with = |budget| ImportOptions {
        memory_budget: budget,
        embedder: Some(Arc::new(HashEmbedder::default())),
        ..Default::default()
    };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (ga, gb) = (open(a.path()), open(b.path()));
    let sa = import_files(&ga, &csv, &with(None)).unwrap();
    let sb = import_files(&gb, &csv, &with(Some(TINY_BUDGET))).unwrap();
    let counts = |s: &cairn_import::ImportSummary| {
        (
            s.nodes_created,
            s.nodes_updated,
            s.edges_created,
            s.edges_updated,
            s.edges_unchanged,
            s.vectors_computed,
        )
    };
    assert_eq!(counts(&sb), counts(&sa));
    assert_eq!(sa.nodes_created as usize, graph.node_count());
    assert!(sa.vectors_computed > 0);
    assert_eq!(canonical(&gb), canonical(&ga));
    assert_eq!(paper_vectors(&gb), paper_vectors(&ga));
    assert_eq!(gb.catalog().record(), ga.catalog().record());
    for g in [&ga, &gb] {
        assert!(std::fs::read_dir(g.path()).unwrap().all(|e| {
            let name = e.unwrap().file_name();
            name != "import-spill" && name != "import-tmp"
        }));
    }

    // Into the now non-empty databases: edges from existing nodes (the spilled sort's bucket
    // of old ids), to new ones and between two existing ones, with the same outcome.
    let more = files.path().join("more.jsonl");
    std::fs::write(
        &more,
        r#"{"type":"node","label":"Paper","key":"new1","props":{"title":"New"}}
{"type":"edge","rel":"AUTHORED","from":{"label":"Author","key":"a0"},"to":{"label":"Paper","key":"new1"}}
{"type":"edge","rel":"CITES","from":{"label":"Paper","key":"new1"},"to":{"label":"Paper","key":"p2"}}
{"type":"edge","rel":"CITES","from":{"label":"Paper","key":"p5"},"to":{"label":"Paper","key":"p3"}}
{"type":"edge","rel":"CITES","from":{"label":"Paper","key":"p1"},"to":{"label":"Paper","key":"p0"},"props":{"note":"later"}}
"#,
    )
    .unwrap();
    let sa = import_files(&ga, &[&more], &with(None)).unwrap();
    let sb = import_files(&gb, &[&more], &with(Some(TINY_BUDGET))).unwrap();
    assert_eq!(counts(&sb), counts(&sa));
    assert_eq!((sa.nodes_created, sa.edges_unchanged), (1, 1));
    assert_eq!(canonical(&gb), canonical(&ga));
    assert_eq!(paper_vectors(&gb), paper_vectors(&ga));
}

#[test]
fn a_killed_spilling_import_leaves_no_spill_files_after_reopen() {
    let (files, dir, before) = dump_and_seeded_db();
    let spill = dir.path().join("import-spill");
    let mut child = spawn_child_with(dir.path(), files.path(), None, Some(TINY_BUDGET));
    // Killed as soon as it has spilled something.
    let started = std::time::Instant::now();
    let spilled = loop {
        let any = walk(&spill).into_iter().any(|f| f.is_file());
        if any || started.elapsed() > std::time::Duration::from_secs(120) {
            break any;
        }
        if child.try_wait().unwrap().is_some() {
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    let _ = child.kill();
    child.wait().unwrap();
    assert!(spilled, "the child never spilled");
    let g = open(dir.path());
    assert!(!spill.exists(), "spill files left after reopen");
    assert_eq!(canonical(&g), before);
}

/// Every path under `dir` (none if it does not exist).
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        }
        out.push(p);
    }
    out
}

/// The node list's arena: repeats within and across files merge (the later line wins, property
/// by property), a record larger than an arena chunk (4 MiB) gets one of its own, and the
/// database is the one the same nodes give when written one file per node; a re-import changes
/// nothing.
#[test]
fn nodes_held_encoded_merge_repeats_and_keep_large_records() {
    let files = tempfile::tempdir().unwrap();
    let big = "x".repeat(5 << 20);
    let first = files.path().join("a.jsonl");
    let mut lines = String::new();
    for i in 0..3000 {
        lines.push_str(&format!(
            "{{\"type\":\"node\",\"label\":\"Paper\",\"key\":\"p{i}\",\"props\":{{\"title\":\"T{i}\",\"year\":{}}}}}\n",
            1990 + i % 30
        ));
    }
    lines.push_str(&format!(
        "{{\"type\":\"node\",\"label\":\"Paper\",\"key\":\"big\",\"description\":\"{big}\"}}\n"
    ));
    // A repeat in the same file: its title wins, its year is kept.
    lines.push_str(
        "{\"type\":\"node\",\"label\":\"Paper\",\"key\":\"p7\",\"props\":{\"title\":\"again\"}}\n",
    );
    lines.push_str("{\"type\":\"edge\",\"rel\":\"CITES\",\"from\":{\"label\":\"Paper\",\"key\":\"big\"},\"to\":{\"label\":\"Paper\",\"key\":\"p7\"}}\n");
    std::fs::write(&first, lines).unwrap();
    let second = files.path().join("b.jsonl");
    std::fs::write(
        &second,
        "{\"type\":\"node\",\"label\":\"Paper\",\"key\":\"p9\",\"props\":{\"venue\":\"V\"},\"description\":\"later\"}\n\
         {\"type\":\"node\",\"label\":\"Author\",\"key\":\"p9\",\"props\":{\"name\":\"same key, other label\"}}\n",
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let options = ImportOptions {
        memory_budget: Some(TINY_BUDGET),
        ..Default::default()
    };
    let s = import_files(&g, &[&first, &second], &options).unwrap();
    assert_eq!((s.nodes_created, s.edges_created), (3002, 1));
    let node = |label: &str, key: &str| {
        let id = g.node_id(label, key).unwrap().unwrap();
        g.node(id).unwrap().unwrap()
    };
    let cat = g.catalog();
    let prop = |rec: &cairn_storage_format::NodeRecord, name: &str| {
        rec.prop(cat.prop_id(name).unwrap()).map(|v| v.to_string())
    };
    let p7 = node("Paper", "p7");
    assert_eq!(prop(&p7, "title").as_deref(), Some("\"again\""));
    assert_eq!(prop(&p7, "year").as_deref(), Some("1997"));
    let p9 = node("Paper", "p9");
    assert_eq!(prop(&p9, "title").as_deref(), Some("\"T9\""));
    assert_eq!(prop(&p9, "venue").as_deref(), Some("\"V\""));
    assert_eq!(p9.description.as_deref(), Some("later"));
    assert_eq!(
        node("Paper", "big").description.as_deref(),
        Some(big.as_str())
    );
    assert!(g.node_id("Author", "p9").unwrap().is_some());
    let before = canonical(&g);
    let again = import_files(&g, &[&first, &second], &options).unwrap();
    assert_eq!(
        (
            again.nodes_created,
            again.nodes_updated,
            again.edges_created
        ),
        (0, 0, 0)
    );
    assert_eq!(canonical(&g), before);
}
