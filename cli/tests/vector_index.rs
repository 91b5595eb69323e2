//! The HNSW index behind SEARCH entries, on a real database: same answers as exact search,
//! reloaded or rebuilt after reopening, kept current across deletes and new vectors.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn::{Cairn, CancelToken, DumpNode, DumpRecord, GraphRead, ImportOptions, NodeId};
use cairn_agent::Explorer;
use cairn_generate::{author_key, paper_key, Academic, AcademicConfig};
use cairn_vector::{index_path, Refresh};
use std::path::Path;
use std::process::Command;

const QUERIES: &[(&str, Option<&str>)] = &[
    ("graph neural networks", None),
    ("data mining of frequent patterns", Some("Paper")),
    ("database query optimization", Some("Paper")),
    ("information retrieval", Some("Venue")),
    ("machine learning", Some("Author")),
    ("computer vision", None),
];

/// Imports with hash vectors (a new database has none by default).
fn import(db: &Cairn, records: Vec<DumpRecord>) {
    let options = ImportOptions {
        embedder: cairn::ImportEmbedder::Use(std::sync::Arc::new(cairn::HashEmbedder::default())),
        ..Default::default()
    };
    db.import_records(records, options).unwrap();
}

fn academic(db: &Cairn) {
    let g = Academic::generate(&AcademicConfig::with_nodes(800, 11));
    let records = g.records().collect();
    import(db, records);
}

/// Brute force over the `vector` column family: the ground truth.
fn exact(db: &Cairn, text: &str, label: Option<&str>, k: usize) -> Vec<(NodeId, f32)> {
    let q = db.embedder().embed(text).unwrap();
    let allowed: Option<Vec<NodeId>> = label.map(|l| {
        let id = db.graph().catalog().label_id(l).unwrap();
        db.graph().label_nodes(id).unwrap()
    });
    let mut all = Vec::new();
    db.graph()
        .scan_vectors(|id, v| {
            if allowed.as_ref().is_none_or(|a| a.contains(&id)) {
                all.push((id, v.iter().zip(&q).map(|(a, b)| a * b).sum::<f32>()));
            }
        })
        .unwrap();
    all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    all.truncate(k);
    all
}

fn answers(db: &Cairn) -> Vec<Vec<(NodeId, f32)>> {
    QUERIES
        .iter()
        .map(|(t, l)| db.index_search(t, *l, 10).unwrap().expect("an index"))
        .collect()
}

fn assert_same_as_exact(db: &Cairn) {
    for (t, l) in QUERIES {
        let got = db.index_search(t, *l, 10).unwrap().expect("an index");
        let want = exact(db, t, *l, 10);
        let ids = |h: &[(NodeId, f32)]| h.iter().map(|x| x.0).collect::<Vec<_>>();
        assert_eq!(ids(&got), ids(&want), "{t:?} in {l:?}: {got:?} vs {want:?}");
        for (g, w) in got.iter().zip(&want) {
            assert!((g.1 - w.1).abs() < 1e-5, "{t:?}: {g:?} vs {w:?}");
        }
    }
}

#[test]
fn index_answers_like_exact_search() {
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    academic(&db);
    assert_eq!(db.refresh_index().unwrap(), Refresh::Built);
    assert!(index_path(dir.path()).exists());
    assert_same_as_exact(&db);

    // A whole exploration gives the same results with the index as with the exact scan.
    let stmt = r#"EXPLORE "data mining" FROM SEARCH "frequent pattern mining" IN Paper TOP 5 VIA CITES TARGET Paper"#;
    let with_index = db.explore(stmt).unwrap();
    let plan = match db.compile(stmt).unwrap() {
        cairn_query::Compiled::Explore(p) => p,
        _ => unreachable!(),
    };
    let table = db.node_table().unwrap();
    let exact_entries = ExactEntries(&db);
    let without = Explorer::new(db.graph(), db.embedder().as_ref(), &*table)
        .with_search(&exact_entries)
        .run(&plan, false, &CancelToken::default())
        .unwrap();
    let key = |e: &cairn::Exploration| {
        e.results
            .iter()
            .map(|r| (r.node, r.score))
            .collect::<Vec<_>>()
    };
    assert!(!with_index.results.is_empty());
    assert_eq!(key(&with_index), key(&without));
}

/// SEARCH entries as docs/SEARCH.md says a hash-vector database answers them, with the
/// vectors scanned exactly: the full-text index's words first, the nearest vectors after them.
struct ExactEntries<'a>(&'a Cairn);

impl cairn_agent::EntrySearch for ExactEntries<'_> {
    fn search(
        &self,
        query: &[f32],
        labels: Option<&[cairn::LabelId]>,
        k: usize,
    ) -> Result<Vec<(NodeId, f32)>, cairn_agent::ExploreError> {
        let db = self.0;
        let mut all = Vec::new();
        let allowed: Option<Vec<NodeId>> = labels.map(|l| {
            l.iter()
                .flat_map(|l| db.graph().label_nodes(*l).unwrap())
                .collect()
        });
        db.graph()
            .scan_vectors(|id, v| {
                if allowed.as_ref().is_none_or(|a| a.contains(&id)) {
                    all.push((id, v.iter().zip(query).map(|(a, b)| a * b).sum::<f32>()));
                }
            })
            .unwrap();
        all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        all.truncate(k);
        Ok(all)
    }

    fn search_text(
        &self,
        text: &str,
        query: &[f32],
        labels: Option<&[cairn::LabelId]>,
        k: usize,
    ) -> Result<Vec<(NodeId, f32)>, cairn_agent::ExploreError> {
        let label = labels.map(|l| {
            self.0
                .graph()
                .catalog()
                .label_name(l[0])
                .unwrap()
                .to_owned()
        });
        let mut hits = self.0.text_search(text, label.as_deref(), k).unwrap();
        let seen: Vec<NodeId> = hits.iter().map(|h| h.0).collect();
        let near = self.search(query, labels, k)?;
        let room = k - hits.len();
        hits.extend(near.into_iter().filter(|h| !seen.contains(&h.0)).take(room));
        Ok(hits)
    }
}

/// A commit that changes no vector: a property that is not the description, and an edge.
fn vector_neutral_write(db: &Cairn) {
    let mut w = db.graph().writer().unwrap();
    let a = w
        .upsert_node(
            "Author",
            &author_key(0),
            [("h_index", cairn::Value::from(99i64))],
            None,
        )
        .unwrap();
    let p = w
        .node_id(w.catalog().label_id("Paper").unwrap(), &paper_key(1))
        .unwrap()
        .unwrap();
    w.add_edge(a, "AUTHORED", p, Default::default()).unwrap();
    w.commit().unwrap();
}

#[test]
fn reopen_loads_or_rebuilds_and_answers_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let before = {
        let db = Cairn::open(dir.path()).unwrap();
        academic(&db);
        answers(&db)
    };
    // Clean reopen: the saved file matches.
    {
        let db = Cairn::open(dir.path()).unwrap();
        assert_eq!(db.refresh_index().unwrap(), Refresh::Loaded);
        assert_eq!(answers(&db), before);
        // A write that leaves every vector alone keeps the index (the stamp is the vectors').
        vector_neutral_write(&db);
        assert_eq!(db.refresh_index().unwrap(), Refresh::Current);
    }
    // Crash-like stop: the file is gone.
    std::fs::remove_file(index_path(dir.path())).unwrap();
    {
        let db = Cairn::open(dir.path()).unwrap();
        assert_eq!(db.refresh_index().unwrap(), Refresh::Built);
        assert_eq!(answers(&db), before);
    }
    // Damaged file.
    std::fs::write(index_path(dir.path()), b"CAIRNVX\0garbage garbage").unwrap();
    {
        let db = Cairn::open(dir.path()).unwrap();
        assert_eq!(db.refresh_index().unwrap(), Refresh::Built);
        assert_eq!(answers(&db), before);
    }
    // Behind: more vectors were written by a session that never searched (so never saved):
    // the file is loaded and the store's change log replayed into it.
    {
        let db = Cairn::open(dir.path()).unwrap();
        import(
            &db,
            vec![new_paper(
                "paper-new",
                "Frequent pattern mining of graph neural networks",
            )],
        );
    }
    {
        let db = Cairn::open(dir.path()).unwrap();
        assert_eq!(db.refresh_index().unwrap(), Refresh::Loaded);
        assert_same_as_exact(&db);
        let hits = db
            .index_search("Frequent pattern mining of graph neural networks", None, 1)
            .unwrap()
            .unwrap();
        assert_eq!(
            db.names(&[hits[0].0]).unwrap(),
            ["Frequent pattern mining of graph neural networks"]
        );
    }
    // Stale: the same, and the log no longer holds those commits: rebuilt.
    {
        let db = Cairn::open(dir.path()).unwrap();
        import(
            &db,
            vec![new_paper(
                "paper-newer",
                "Sparse tensor sketches for streaming joins",
            )],
        );
        db.graph().prune_changes(db.graph().commits()).unwrap();
    }
    {
        let db = Cairn::open(dir.path()).unwrap();
        assert_eq!(db.refresh_index().unwrap(), Refresh::Built);
        assert_same_as_exact(&db);
        let new = db.graph().catalog().label_id("Paper").unwrap();
        let id = db
            .graph()
            .writer()
            .unwrap()
            .node_id(new, "paper-new")
            .unwrap()
            .unwrap();
        let hits = db
            .index_search("Frequent pattern mining of graph neural networks", None, 1)
            .unwrap()
            .unwrap();
        assert_eq!(hits[0].0, id);
    }
}

fn new_paper(key: &str, title: &str) -> DumpRecord {
    DumpRecord::Node(DumpNode {
        label: "Paper".into(),
        key: key.into(),
        props: vec![("title".into(), cairn::Value::from(title))],
        description: None,
        vector: None,
    })
}

#[test]
fn deleted_nodes_never_return_and_new_vectors_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    academic(&db);
    let first = answers(&db);
    // Delete the best hit of every query.
    let gone: Vec<NodeId> = first.iter().map(|h| h[0].0).collect();
    let mut w = db.graph().writer().unwrap();
    for id in &gone {
        w.remove_node(*id).unwrap();
    }
    w.commit().unwrap();
    match db.refresh_index().unwrap() {
        Refresh::Updated { deleted, upserted } => {
            assert!(deleted >= 1);
            assert_eq!(upserted, 0);
        }
        other => panic!("expected an in-place update, got {other:?}"),
    }
    for hits in answers(&db) {
        assert!(hits.iter().all(|h| !gone.contains(&h.0)), "{hits:?}");
    }
    assert_same_as_exact(&db);

    // New vectors are found without a rebuild.
    import(
        &db,
        vec![new_paper(
            "paper-fresh",
            "Quantum annealing for sparse tensor sketches",
        )],
    );
    assert!(matches!(
        db.refresh_index().unwrap(),
        Refresh::Updated { upserted: 1, .. }
    ));
    let hits = db
        .index_search(
            "Quantum annealing for sparse tensor sketches",
            Some("Paper"),
            3,
        )
        .unwrap()
        .unwrap();
    let paper = db.graph().catalog().label_id("Paper").unwrap();
    let fresh = db
        .graph()
        .writer()
        .unwrap()
        .node_id(paper, "paper-fresh")
        .unwrap()
        .unwrap();
    assert_eq!(hits[0].0, fresh);
    assert_same_as_exact(&db);
    let after = answers(&db);
    drop(db);

    // Changes made in place were saved on close: the next open loads them.
    let db = Cairn::open(dir.path()).unwrap();
    assert_eq!(db.refresh_index().unwrap(), Refresh::Loaded);
    assert_eq!(answers(&db), after);
}

fn cairn_cli(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(args)
        .env_remove("CAIRN_DB")
        .output()
        .unwrap()
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn cli_index_build_and_import_flag() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("dump");
    let o = cairn_cli(&["generate", "academic", "--nodes", "600", "--out", p(&dump)]);
    assert!(o.status.success(), "{o:?}");

    let plain = dir.path().join("plain");
    let o = cairn_cli(&[
        "--db",
        p(&plain),
        "import",
        p(&dump),
        "--no-index",
        "--embedder",
        "hash",
    ]);
    assert!(o.status.success(), "{o:?}");
    assert!(!index_path(&plain).exists());

    let o = cairn_cli(&["--db", p(&plain), "index", "build"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{o:?}");
    assert!(out.starts_with("indexed "), "{out}");
    assert!(out.contains("vectors.hnsw"), "{out}");
    assert!(index_path(&plain).exists());

    let with = dir.path().join("with");
    let o = cairn_cli(&["--db", p(&with), "import", p(&dump), "--embedder", "hash"]);
    assert!(o.status.success(), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("vector index:"));
    assert!(index_path(&with).exists());

    let o = cairn_cli(&["index", "build", "--help"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("cairn --db ./academic.cairn index build"));

    let o = cairn_cli(&["--db", p(&dir.path().join("nope")), "index", "build"]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("does not exist"),
        "{o:?}"
    );
}

/// The best index hit for `text`, if any.
fn top(db: &Cairn, text: &str) -> Option<(NodeId, f32)> {
    db.index_search(text, None, 1)
        .unwrap()
        .expect("an index")
        .first()
        .copied()
}

#[test]
fn writes_get_vectors_and_the_index_follows_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    academic(&db);
    assert_eq!(db.refresh_index().unwrap(), Refresh::Built);
    let first = "Cairn stones mark hiking trails above the tree line";
    let changed = "Tidal lagoons host migrating flamingo colonies each spring";

    // Upsert with a description: embedded at commit, found by the same process's index.
    let id = db
        .transaction(|tx| {
            Ok::<_, cairn::CairnError>(tx.upsert_node(
                "Paper",
                "paper-upserted",
                [("title", cairn::Value::from("Stone markers"))],
                Some(first),
            )?)
        })
        .unwrap();
    assert!(matches!(
        db.refresh_index().unwrap(),
        Refresh::Updated {
            upserted: 1,
            deleted: 0
        }
    ));
    let (hit, score) = top(&db, first).unwrap();
    assert_eq!(hit, id);
    assert!(score > 0.999, "{score}");
    drop(db);

    // A fresh process finds it too (the index saved on close, loaded by the CLI).
    let found = |text: &str| {
        let stmt = format!(r#"EXPLORE "x" FROM SEARCH "{text}" TOP 1 TARGET Paper"#);
        let o = cairn_cli(&[
            "--db",
            p(dir.path()),
            "query",
            "--format",
            "json",
            "-e",
            &stmt,
        ]);
        assert!(o.status.success(), "{o:?}");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    assert!(found(first).contains("paper-upserted"), "{}", found(first));

    // Change the description: the old vector goes, the new text is found.
    let db = Cairn::open(dir.path()).unwrap();
    assert_eq!(db.refresh_index().unwrap(), Refresh::Loaded);
    db.transaction(|tx| {
        Ok::<_, cairn::CairnError>(tx.upsert_node(
            "Paper",
            "paper-upserted",
            Vec::<(&str, cairn::Value)>::new(),
            Some(changed),
        )?)
    })
    .unwrap();
    let want = db.embedder().embed(changed).unwrap();
    assert_eq!(
        db.graph().vectors(&[id]).unwrap()[0].as_deref(),
        Some(&want[..])
    );
    assert_eq!(top(&db, changed).unwrap().0, id);
    let old = top(&db, first).unwrap();
    assert!(
        old.0 != id || old.1 < 0.99,
        "old vector still indexed: {old:?}"
    );

    // A node written without a vector (the store's writer embeds nothing) keeps the index on.
    let mut w = db.graph().writer().unwrap();
    let bare = w
        .upsert_node(
            "Paper",
            "paper-bare",
            [("title", cairn::Value::from("Bare"))],
            None,
        )
        .unwrap();
    w.commit().unwrap();
    assert!(db.graph().vectors(&[bare]).unwrap()[0].is_none());
    assert!(!matches!(
        db.refresh_index().unwrap(),
        Refresh::Unavailable(_)
    ));

    // A supplied vector through the writer: the node sits exactly where it was put.
    let target = db.embedder().embed(first).unwrap();
    let mut w = db.graph().writer().unwrap();
    w.set_vector(bare, &target).unwrap();
    w.commit().unwrap();
    assert_eq!(top(&db, first).unwrap().0, bare);

    // Delete: never returned again, here or in a fresh process.
    let mut w = db.graph().writer().unwrap();
    w.remove_node(id).unwrap();
    w.commit().unwrap();
    let hits = db.index_search(changed, None, 10).unwrap().unwrap();
    assert!(hits.iter().all(|h| h.0 != id), "{hits:?}");
    drop(db);
    assert!(
        !found(changed).contains("paper-upserted"),
        "{}",
        found(changed)
    );
    // SEARCH ranks words first on a hash-vector database: the supplied vector, which has none
    // of `first`'s words, is checked on the vector index of a fresh handle (loaded from the file).
    let db = Cairn::open(dir.path()).unwrap();
    assert_eq!(top(&db, first).unwrap().0, bare);
}

#[test]
fn supplied_vectors_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    let mut w = db.graph().writer().unwrap();
    let a = w
        .upsert_node("Author", "a1", [("name", cairn::Value::from("Ann"))], None)
        .unwrap();
    let err = w.set_vector(a, &[1.0, 0.0]).unwrap_err().to_string();
    assert!(err.contains("records no embedder"), "{err}");
    w.set_embedder(Some(cairn_storage_format::EmbedderDef {
        id: "supplied-test".into(),
        dim: 2,
    }));
    let err = w.set_vector(a, &[1.0, 0.0, 0.0]).unwrap_err().to_string();
    assert!(err.contains("has 3 components"), "{err}");
    let err = w.set_vector(a, &[0.0, 0.0]).unwrap_err().to_string();
    assert!(err.contains("zero or not finite"), "{err}");
    let err = w
        .set_vector(NodeId(999), &[1.0, 0.0])
        .unwrap_err()
        .to_string();
    assert!(err.contains("no such node"), "{err}");
    // A rolled-back vector is neither written nor reported.
    let sp = w.savepoint();
    w.set_vector(a, &[0.0, 1.0]).unwrap();
    w.rollback_to(sp).unwrap();
    let (_, changes) = w.commit_changes().unwrap();
    assert!(changes.unwrap().vectors_touched.is_empty());
    assert!(db.graph().vectors(&[a]).unwrap()[0].is_none());
}

/// Commits that change no vector do not rewrite the file on close (the file of an earlier
/// counter still holds the current vectors: `meta/vectors_at`), and a process that dies between
/// a commit that changed vectors and the save on close leaves an index that is rebuilt, not
/// trusted.
#[test]
fn the_file_is_rewritten_only_for_vector_changes_and_survives_a_crash_before_close() {
    let dir = tempfile::tempdir().unwrap();
    let before = {
        let db = Cairn::open(dir.path()).unwrap();
        academic(&db);
        answers(&db)
    };
    let saved = std::fs::read(index_path(dir.path())).unwrap();
    {
        let db = Cairn::open(dir.path()).unwrap();
        assert_eq!(db.refresh_index().unwrap(), Refresh::Loaded);
        vector_neutral_write(&db);
        assert_eq!(db.refresh_index().unwrap(), Refresh::Current);
    }
    assert!(
        std::fs::read(index_path(dir.path())).unwrap() == saved,
        "an edge-only commit rewrote the index file"
    );
    {
        // The older file still answers for the newer counter.
        let db = Cairn::open(dir.path()).unwrap();
        assert_eq!(db.refresh_index().unwrap(), Refresh::Loaded);
        assert_eq!(answers(&db), before);
    }

    // A process that searched (loading the index), wrote a new paper (a vector) and died while
    // saving the index on close.
    let script = dir.path().join("script.txt");
    std::fs::write(
        &script,
        // words no node has: the hash vectors answer, so the index is loaded
        "EXPLORE \"a\" FROM SEARCH \"grph nrl ntwrks\" TOP 3;\n\
         UPSERT Paper \"zebra\" SET title = \"Zebra migration acoustics\" DESCRIPTION \"Zebra migration acoustics\";\n\
         EXPLORE \"b\" FROM SEARCH \"Zebr migratio acoustic\" TOP 1;\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(["--db", p(dir.path()), "query", "-f", p(&script)])
        .env_remove("CAIRN_DB")
        .env("CAIRN_CRASH_AT", "vector.save.tmp_written")
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "the process was to die saving the index"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("zebra"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(std::fs::read(index_path(dir.path())).unwrap() == saved);
    let db = Cairn::open(dir.path()).unwrap();
    // The old file is not trusted for the new vector: rebuilt, and it finds the paper.
    assert_eq!(db.refresh_index().unwrap(), Refresh::Built);
    let zebra = db.graph().node_id("Paper", "zebra").unwrap().unwrap();
    let hits = db
        .index_search("Zebra migration acoustics", None, 1)
        .unwrap()
        .unwrap();
    assert_eq!(hits[0].0, zebra);
    assert_same_as_exact(&db);
}

/// A one-shot handle ([`CairnOptions::store_only`]) searches the current index file in place
/// instead of loading it (exactly, at this size); after its own write it loads and applies the
/// change; a damaged block makes its search rebuild instead of failing.
#[test]
fn one_shot_handles_scan_the_file_then_load_after_a_write_or_damage() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Cairn::open(dir.path()).unwrap();
        academic(&db);
        assert_eq!(db.refresh_index().unwrap(), Refresh::Built);
    }
    let one_shot = || Cairn::open_with(cairn::CairnOptions::new(dir.path()).store_only()).unwrap();
    {
        let db = one_shot();
        assert_eq!(db.refresh_index().unwrap(), Refresh::OnFile);
        assert_same_as_exact(&db);
        let title = "zyxwv unmistakable probe title";
        let paper = db
            .transaction(|tx| {
                Ok::<_, cairn::CairnError>(tx.upsert_node(
                    "Paper",
                    "probe",
                    [("title", cairn::Value::from(title))],
                    None,
                )?)
            })
            .unwrap();
        let hits = db.index_search(title, Some("Paper"), 1).unwrap().unwrap();
        assert_eq!(hits[0].0, paper);
        assert!(matches!(
            db.refresh_index().unwrap(),
            Refresh::Current | Refresh::Updated { .. }
        ));
    }
    // the closing handle saved the index it loaded and updated: the next one-shot scans it
    let db = one_shot();
    assert_eq!(db.refresh_index().unwrap(), Refresh::OnFile);
    assert_same_as_exact(&db);
    drop(db);
    let path = index_path(dir.path());
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() - 100;
    bytes[at] ^= 0x10; // a vector byte: only its block's checksum sees it
    std::fs::write(&path, &bytes).unwrap();
    let db = one_shot();
    assert_eq!(db.refresh_index().unwrap(), Refresh::OnFile);
    assert_same_as_exact(&db); // the scan found the damage, the search rebuilt and answered
    assert_eq!(db.refresh_index().unwrap(), Refresh::Current);
}

/// A write by a process that never loaded the index (a one-shot `UPSERT`) leaves the file
/// behind the store; the change log names what changed, so the next one-shot handle searches
/// the file beside the changed vectors (no load, no rebuild), and the next long-lived handle
/// loads the file and replays the log into it.
#[test]
fn another_process_writes_are_searched_beside_the_file_then_replayed() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Cairn::open(dir.path()).unwrap();
        academic(&db);
        assert_eq!(db.refresh_index().unwrap(), Refresh::Built);
    }
    let one_shot = || Cairn::open_with(cairn::CairnOptions::new(dir.path()).store_only()).unwrap();
    let title = "zyxwv unmistakable probe title";
    let (probe, gone) = {
        let db = one_shot();
        let paper = db.graph().catalog().label_id("Paper").unwrap();
        let gone = db.graph().label_nodes(paper).unwrap()[1];
        let probe = db
            .transaction(|tx| {
                let p = tx.upsert_node(
                    "Paper",
                    "probe",
                    [("title", cairn::Value::from(title))],
                    None,
                )?;
                tx.remove_node(gone)?;
                Ok::<_, cairn::CairnError>(p)
            })
            .unwrap();
        (probe, gone)
    };
    let stamp_before = std::fs::metadata(index_path(dir.path()))
        .unwrap()
        .modified()
        .unwrap();
    let db = one_shot();
    assert_eq!(db.refresh_index().unwrap(), Refresh::OnFile);
    let hits = db.index_search(title, Some("Paper"), 1).unwrap().unwrap();
    assert_eq!(hits[0].0, probe);
    let all = db.index_search(title, None, 10_000).unwrap().unwrap();
    assert!(all.iter().all(|h| h.0 != gone), "a removed node answered");
    assert_same_as_exact(&db);
    drop(db);
    assert_eq!(
        std::fs::metadata(index_path(dir.path()))
            .unwrap()
            .modified()
            .unwrap(),
        stamp_before,
        "the one-shot search wrote the file"
    );
    let db = Cairn::open(dir.path()).unwrap();
    let what = db.refresh_index().unwrap();
    assert!(
        matches!(what, Refresh::Loaded | Refresh::Updated { .. }),
        "{what:?}"
    );
    let hits = db.index_search(title, Some("Paper"), 1).unwrap().unwrap();
    assert_eq!(hits[0].0, probe);
    assert_same_as_exact(&db);
}
