//! `Cairn::transaction`: own-write reads, savepoints, rollback on error and panic, EXPLORE inside
//! a transaction, the same-thread writer rule, the async face, change sets from the facade, and a
//! model-based property test of transactions mixed with bulk imports. Real RocksDB databases and
//! real dump files in temp dirs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn::{
    AsyncCairn, Cairn, CairnError, CancelToken, Direction, Embedder, EngineError, GraphRead,
    HashEmbedder, ImportOptions, NodeId, TransactionOptions, Value,
};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::Duration;

fn open(dir: &Path) -> Cairn {
    Cairn::open(dir).unwrap()
}

/// A new database that records hash vectors (not the default), so that commits and imports
/// embed their nodes; its first commit records the embedder.
fn open_with_vectors(dir: &Path) -> Cairn {
    let db = open(dir);
    let hash = HashEmbedder::default();
    let mut w = db.graph().writer().unwrap();
    w.set_embedder(Some(cairn::format::EmbedderDef {
        id: hash.id().to_owned(),
        dim: hash.dim() as u32,
    }));
    w.commit().unwrap();
    db
}

fn seed(db: &Cairn) -> (NodeId, NodeId) {
    db.transaction(|tx| {
        let a = tx.upsert_node("Author", "a1", [("name", Value::from("Ann Lee"))], None)?;
        let p = tx.upsert_node(
            "Paper",
            "p1",
            [("title", Value::from("Graph exploration"))],
            None,
        )?;
        tx.add_edge(a, "AUTHORED", p, Default::default())?;
        Ok::<_, CairnError>((a, p))
    })
    .unwrap()
}

#[test]
fn reads_inside_see_own_writes_and_outside_see_them_only_after_commit() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    let (a, p1) = seed(&db);
    let before = db.graph().commits();
    db.transaction(|tx| {
        let p2 = tx.upsert_node("Paper", "p2", [("title", Value::from("Beams"))], None)?;
        tx.add_edge(a, "AUTHORED", p2, Default::default())?;
        tx.remove_node(p1)?;
        assert_eq!(tx.lookup("Paper", "p2")?, Some(p2));
        assert_eq!(tx.lookup("Paper", "p1")?, None);
        assert!(tx.node(p1)?.is_none());
        let outs: Vec<NodeId> = tx
            .neighbors(a, Direction::Out, &[])?
            .into_iter()
            .map(|n| n.node)
            .collect();
        assert_eq!(outs, [p2]);
        // The committed graph is untouched until the closure returns.
        assert!(db.graph().node_id("Paper", "p2")?.is_none());
        assert!(db.graph().node(p1)?.is_some());
        Ok::<_, CairnError>(())
    })
    .unwrap();
    assert_eq!(db.graph().commits(), before + 1);
    assert!(db.graph().node_id("Paper", "p1").unwrap().is_none());
    assert_eq!(db.graph().degree(a).unwrap().out, 1);
}

#[test]
fn an_error_or_a_panic_rolls_back_and_the_panic_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    let (a, _) = seed(&db);
    let before = db.graph().commits();

    let err = db
        .transaction(|tx| {
            tx.upsert_node("Author", "a2", [("name", Value::from("Bo"))], None)?;
            tx.remove_node(a)?;
            Err::<(), _>(CairnError::Unsupported("changed my mind".into()))
        })
        .unwrap_err();
    assert!(err.to_string().contains("changed my mind"));

    let panicked = catch_unwind(AssertUnwindSafe(|| {
        db.transaction(|tx| -> Result<(), CairnError> {
            tx.upsert_node("Author", "a3", [("name", Value::from("Cy"))], None)?;
            panic!("boom inside the transaction");
        })
    }));
    let payload = panicked.unwrap_err();
    assert_eq!(
        payload.downcast_ref::<&str>().copied(),
        Some("boom inside the transaction")
    );

    assert_eq!(db.graph().commits(), before, "nothing was committed");
    assert!(db.graph().node(a).unwrap().is_some());
    for key in ["a2", "a3"] {
        assert!(db.graph().node_id("Author", key).unwrap().is_none());
    }
    // The writer was released: the next transaction (synced) commits.
    db.transaction_with(
        TransactionOptions {
            sync: Some(true),
            wait: Some(Duration::from_secs(5)),
        },
        |tx| {
            tx.upsert_node("Author", "a4", Vec::<(&str, Value)>::new(), None)
                .map_err(CairnError::from)
        },
    )
    .unwrap();
    assert!(db.graph().node_id("Author", "a4").unwrap().is_some());
}

#[test]
fn explore_inside_a_transaction_sees_its_own_writes() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    let (a, _) = seed(&db);
    let statement = r#"EXPLORE "her papers" FROM Author "a1" VIA AUTHORED TARGET Paper"#;
    assert_eq!(db.explore(statement).unwrap().results.len(), 1);
    db.transaction(|tx| {
        let p2 = tx.upsert_node(
            "Paper",
            "p2",
            [("title", Value::from("Transactions in graph stores"))],
            None,
        )?;
        tx.add_edge(a, "AUTHORED", p2, Default::default())?;
        let inside = tx.explore(statement)?;
        let mut names: Vec<String> = inside.results.iter().map(|r| r.name.clone()).collect();
        names.sort();
        assert_eq!(names, ["Graph exploration", "Transactions in graph stores"]);
        // Outside, the same statement still sees one paper.
        assert_eq!(db.explore(statement)?.results.len(), 1);
        Err::<(), _>(CairnError::Unsupported("roll back".into()))
    })
    .unwrap_err();
    assert_eq!(db.explore(statement).unwrap().results.len(), 1);
    // The private copies are gone.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("tx-view"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // A session's EXPLORE inside BEGIN sees its writes the same way.
    let mut s = db.session();
    let c = CancelToken::default();
    s.execute_with("BEGIN", &c, false).unwrap();
    s.execute_with(r#"UPSERT Paper "p3" SET title = "Savepoints""#, &c, false)
        .unwrap();
    s.execute_with(
        r#"ADD EDGE Author "a1" -[AUTHORED]-> Paper "p3""#,
        &c,
        false,
    )
    .unwrap();
    match s.execute_with(statement, &c, false).unwrap() {
        cairn::Output::Exploration(e) => assert_eq!(e.results.len(), 2),
        other => panic!("{other:?}"),
    }
    s.execute_with("ROLLBACK", &c, false).unwrap();
    assert_eq!(db.explore(statement).unwrap().results.len(), 1);
}

/// Today's deadlock: holding a writer and running `CREATE INDEX` on the same thread. Run on a
/// thread of its own so that a regression fails the test instead of hanging it.
#[test]
fn create_index_while_this_thread_holds_the_writer_is_an_error_not_a_deadlock() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    let (done, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let db = open(&path);
        seed(&db);
        let w = db.graph().writer().unwrap();
        let inner = db.execute("CREATE INDEX ON Paper(title)", &CancelToken::default());
        let nested = db.transaction(|_| Ok::<_, CairnError>(()));
        drop(w);
        let after = db.execute("CREATE INDEX ON Paper(title)", &CancelToken::default());
        done.send((
            inner.map(|_| ()).map_err(|e| e.to_string()),
            matches!(
                nested,
                Err(CairnError::Engine(EngineError::WriterBusy { .. }))
            ),
            after.is_ok(),
        ))
        .unwrap();
    });
    let (inner, nested_busy, after_ok) = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("deadlocked: no answer within a minute");
    let err = inner.unwrap_err();
    assert!(err.contains("busy"), "{err}");
    assert!(nested_busy);
    assert!(after_ok);
}

#[tokio::test(flavor = "current_thread")]
async fn the_async_face_writes_on_the_blocking_pool() {
    let dir = tempfile::tempdir().unwrap();
    let db = AsyncCairn::open(dir.path().to_path_buf()).await.unwrap();
    let id = db
        .transaction(|tx| {
            tx.upsert_node("Author", "a1", [("name", Value::from("Ann"))], None)
                .map_err(CairnError::from)
        })
        .await
        .unwrap();
    assert_eq!(db.sync().graph().node_id("Author", "a1").unwrap(), Some(id));
    let db2 = db.clone();
    let panicked = tokio::spawn(async move {
        db2.transaction(|tx| -> Result<(), CairnError> {
            tx.upsert_node("Author", "a2", Vec::<(&str, Value)>::new(), None)?;
            panic!("async boom");
        })
        .await
    })
    .await;
    assert!(panicked.unwrap_err().is_panic());
    assert!(db.sync().graph().node_id("Author", "a2").unwrap().is_none());
}

#[test]
fn facade_commits_and_imports_emit_change_sets() {
    let dir = tempfile::tempdir().unwrap();
    let db = open_with_vectors(dir.path());
    let rx = db.graph().subscribe();
    let (a, _) = seed(&db);
    let dump = tempfile::tempdir().unwrap();
    let file = dump.path().join("more.jsonl");
    std::fs::write(
        &file,
        r#"{"type":"node","label":"Paper","key":"p9","props":{"title":"Imported"}}
{"type":"node","label":"Author","key":"a1","props":{"name":"Ann B. Lee"}}
{"type":"edge","rel":"AUTHORED","from":{"label":"Author","key":"a1"},"to":{"label":"Paper","key":"p9"}}
"#,
    )
    .unwrap();
    db.import(&[file], ImportOptions::default()).unwrap();
    let sets: Vec<_> = rx.try_iter().collect();
    assert_eq!(sets.len(), 2);
    assert_eq!(sets[0].commit + 1, sets[1].commit);
    let p9 = db.graph().node_id("Paper", "p9").unwrap().unwrap();
    let import = &sets[1];
    assert_eq!(import.imported, Some(p9.0..p9.0 + 1));
    assert_eq!(
        import.nodes_upserted,
        [a],
        "the existing author was updated"
    );
    assert_eq!(import.props_touched, [a]);
    // New nodes are embedded in the import's files; the existing author's description text
    // ("Author: <name>.") changed with its name, so its vector is embedded anew in the batch.
    assert_eq!(
        import.vectors_touched,
        [a],
        "the renamed author's vector follows its text"
    );
    // The seed's commit embedded its two new nodes with the recorded embedder.
    let (a1, p1) = (a, db.graph().node_id("Paper", "p1").unwrap().unwrap());
    assert_eq!(sets[0].vectors_touched, [a1, p1]);
    assert!(db.graph().catalog().embedder().is_some());
    drop(db);
    assert_eq!(open(dir.path()).graph().commits(), import.commit);
}

// ---- model-based: transactions and imports against an in-memory graph ----

#[derive(Clone, Debug)]
enum Op {
    Upsert { key: u8, v: i64 },
    AddEdge { src: u8, dst: u8 },
    RemoveEdge { src: u8, dst: u8 },
    RemoveNode { key: u8 },
    Index,
    Savepoint,
    RollbackToSavepoint,
}

#[derive(Clone, Debug)]
enum End {
    Commit,
    Error,
    Panic,
}

#[derive(Clone, Debug)]
enum Step {
    Transaction(Vec<Op>, End),
    /// Nodes (key, v) and edges (src, dst) in one JSON Lines dump.
    Import(Vec<(u8, i64)>, Vec<(u8, u8)>),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..6u8, -2..3i64).prop_map(|(key, v)| Op::Upsert { key, v }),
        4 => (0..6u8, 0..6u8).prop_map(|(src, dst)| Op::AddEdge { src, dst }),
        1 => (0..6u8, 0..6u8).prop_map(|(src, dst)| Op::RemoveEdge { src, dst }),
        1 => (0..6u8).prop_map(|key| Op::RemoveNode { key }),
        1 => Just(Op::Index),
        1 => Just(Op::Savepoint),
        1 => Just(Op::RollbackToSavepoint),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    let end = prop_oneof![3 => Just(End::Commit), 1 => Just(End::Error), 1 => Just(End::Panic)];
    prop_oneof![
        3 => (proptest::collection::vec(op(), 0..12), end).prop_map(|(ops, e)| Step::Transaction(ops, e)),
        1 => (
            proptest::collection::vec((0..6u8, -2..3i64), 0..5),
            proptest::collection::vec((0..6u8, 0..6u8), 0..5),
        ).prop_map(|(n, e)| Step::Import(n, e)),
    ]
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Model {
    nodes: BTreeMap<u8, i64>,
    edges: BTreeSet<(u8, u8)>,
    indexed: bool,
    /// Nodes with a stored vector: an import and a transaction's commit embed the nodes they
    /// create (the database's hash embedder; a description that never changes here, "N: k."),
    /// and removing a node drops it.
    vectored: BTreeSet<u8>,
}

impl Model {
    fn apply(&mut self, op: &Op, saved: &mut Vec<Model>) {
        match *op {
            Op::Upsert { key, v } => {
                if self.nodes.insert(key, v).is_none() {
                    self.vectored.insert(key);
                }
            }
            Op::AddEdge { src, dst } => {
                if self.nodes.contains_key(&src) && self.nodes.contains_key(&dst) {
                    self.edges.insert((src, dst));
                }
            }
            Op::RemoveEdge { src, dst } => {
                self.edges.remove(&(src, dst));
            }
            Op::RemoveNode { key } => {
                self.nodes.remove(&key);
                self.vectored.remove(&key);
                self.edges.retain(|(s, d)| *s != key && *d != key);
            }
            Op::Index => self.indexed = true,
            Op::Savepoint => saved.push(self.clone()),
            Op::RollbackToSavepoint => {
                if let Some(m) = saved.last() {
                    *self = m.clone();
                }
            }
        }
    }
}

fn run_ops(tx: &mut cairn::Transaction<'_>, ops: &[Op]) -> Result<(), CairnError> {
    let mut savepoints = Vec::new();
    let id = |tx: &cairn::Transaction<'_>, k: u8| tx.lookup("N", &k.to_string());
    for op in ops {
        match *op {
            Op::Upsert { key, v } => {
                tx.upsert_node("N", &key.to_string(), [("v", Value::Int(v))], None)?;
            }
            Op::AddEdge { src, dst } => {
                if let (Some(s), Some(d)) = (id(tx, src)?, id(tx, dst)?) {
                    tx.add_edge(s, "R", d, Default::default())?;
                }
            }
            Op::RemoveEdge { src, dst } => {
                if let (Some(s), Some(d)) = (id(tx, src)?, id(tx, dst)?) {
                    tx.remove_edge(s, "R", d)?;
                }
            }
            Op::RemoveNode { key } => {
                if let Some(n) = id(tx, key)? {
                    tx.remove_node(n)?;
                }
            }
            Op::Index => {
                tx.create_index("N", "v")?;
            }
            Op::Savepoint => savepoints.push(tx.savepoint()),
            Op::RollbackToSavepoint => {
                if let Some(sp) = savepoints.last() {
                    tx.rollback_to(*sp)?;
                }
            }
        }
    }
    Ok(())
}

fn write_dump(dir: &Path, n: usize, nodes: &[(u8, i64)], edges: &[(u8, u8)]) -> std::path::PathBuf {
    let mut text = String::new();
    for (k, v) in nodes {
        text.push_str(&format!(
            r#"{{"type":"node","label":"N","key":"{k}","props":{{"v":{v}}}}}"#
        ));
        text.push('\n');
    }
    for (s, d) in edges {
        text.push_str(&format!(
            r#"{{"type":"edge","rel":"R","from":{{"label":"N","key":"{s}"}},"to":{{"label":"N","key":"{d}"}}}}"#
        ));
        text.push('\n');
    }
    let path = dir.join(format!("dump{n}.jsonl"));
    std::fs::write(&path, text).unwrap();
    path
}

fn check(db: &Cairn, model: &Model) -> Result<(), TestCaseError> {
    let g = db.graph();
    let cat = g.catalog();
    for k in 0..6u8 {
        let id = g.node_id("N", &k.to_string()).unwrap();
        match model.nodes.get(&k) {
            None => prop_assert!(id.is_none(), "node {} should not exist", k),
            Some(v) => {
                let id = id.expect("node missing");
                let rec = g.node(id).unwrap().expect("record missing");
                prop_assert_eq!(rec.prop(cat.prop_id("v").unwrap()), Some(&Value::Int(*v)));
                let outs: BTreeSet<NodeId> = g
                    .neighbors(id, Direction::Out, &[])
                    .unwrap()
                    .into_iter()
                    .map(|n| n.node)
                    .collect();
                let expected: BTreeSet<NodeId> = model
                    .edges
                    .iter()
                    .filter(|(s, _)| *s == k)
                    .map(|(_, d)| g.node_id("N", &d.to_string()).unwrap().unwrap())
                    .collect();
                prop_assert_eq!(&outs, &expected);
                let ins = model.edges.iter().filter(|(_, d)| *d == k).count();
                let deg = g.degree(id).unwrap();
                prop_assert_eq!((deg.out as usize, deg.inc as usize), (expected.len(), ins));
                let vector = g.vectors(&[id]).unwrap().pop().flatten();
                prop_assert_eq!(
                    vector.is_some(),
                    model.vectored.contains(&k),
                    "vector of node {}",
                    k
                );
            }
        }
    }
    let declared = match (cat.label_id("N"), cat.prop_id("v")) {
        (Some(l), Some(p)) => cat.has_index(l, p),
        _ => false,
    };
    prop_assert_eq!(declared, model.indexed);
    for v in -2..3i64 {
        let mut found = g.find_eq("N", "v", &Value::Int(v)).unwrap();
        found.sort();
        let mut expected: Vec<NodeId> = model
            .nodes
            .iter()
            .filter(|(_, x)| **x == v)
            .map(|(k, _)| g.node_id("N", &k.to_string()).unwrap().unwrap())
            .collect();
        expected.sort();
        prop_assert_eq!(found, expected, "v = {}", v);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]
    #[test]
    fn transactions_and_imports_match_the_model(steps in proptest::collection::vec(step(), 1..10)) {
        let dir = tempfile::tempdir().unwrap();
        let dumps = tempfile::tempdir().unwrap();
        let db = open_with_vectors(dir.path());
        let rx = db.graph().subscribe();
        let mut model = Model::default();
        let mut commits = db.graph().commits();
        for (n, step) in steps.iter().enumerate() {
            match step {
                Step::Transaction(ops, end) => {
                    let mut after = model.clone();
                    let mut saved = Vec::new();
                    for op in ops {
                        after.apply(op, &mut saved);
                    }
                    let result = catch_unwind(AssertUnwindSafe(|| {
                        db.transaction(|tx| {
                            run_ops(tx, ops)?;
                            match end {
                                End::Commit => Ok(()),
                                End::Error => Err(CairnError::Unsupported("rolled back".into())),
                                End::Panic => panic!("rolled back by a panic"),
                            }
                        })
                    }));
                    match end {
                        End::Commit => {
                            prop_assert!(matches!(result, Ok(Ok(()))), "{:?}", result.map(|r| r.map_err(|e| e.to_string())));
                            model = after;
                        }
                        End::Error => prop_assert!(matches!(result, Ok(Err(_)))),
                        End::Panic => prop_assert!(result.is_err()),
                    }
                }
                Step::Import(nodes, edges) => {
                    // An edge to a node neither in the dump nor in the database is a bad line:
                    // keep the import valid by naming only known nodes.
                    let known: BTreeSet<u8> = model.nodes.keys().copied().chain(nodes.iter().map(|(k, _)| *k)).collect();
                    let edges: Vec<(u8, u8)> = edges.iter().copied().filter(|(s, d)| known.contains(s) && known.contains(d)).collect();
                    let file = write_dump(dumps.path(), n, nodes, &edges);
                    db.import(&[file], ImportOptions::default()).unwrap();
                    for (k, v) in nodes {
                        if model.nodes.insert(*k, *v).is_none() {
                            model.vectored.insert(*k);
                        }
                    }
                    model.edges.extend(edges);
                }
            }
            check(&db, &model)?;
            for set in rx.try_iter() {
                prop_assert_eq!(set.commit, commits + 1, "change sets in commit order");
                commits = set.commit;
            }
            prop_assert_eq!(db.graph().commits(), commits);
        }
        drop(db);
        let db = open(dir.path());
        check(&db, &model)?;
        prop_assert_eq!(db.graph().commits(), commits, "the counter after reopen is the last emitted");
    }
}
