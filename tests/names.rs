//! The name index through the facade: bulk imports (new nodes and renamed existing ones) keep
//! it equal to a rebuild from the records, and the planner links the longest name a question
//! spells, by the index.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn::{
    Cairn, CancelToken, DumpEdge, DumpNode, DumpRecord, GraphRead, ImportOptions, NodeRef,
};

fn node(label: &str, key: &str, name: &str) -> DumpRecord {
    DumpRecord::Node(DumpNode {
        label: label.into(),
        key: key.into(),
        props: vec![("name".into(), name.into())],
        description: None,
        vector: None,
    })
}

fn edge(from: (&str, &str), rel: &str, to: (&str, &str)) -> DumpRecord {
    DumpRecord::Edge(DumpEdge {
        rel: rel.into(),
        from: NodeRef {
            label: from.0.into(),
            key: from.1.into(),
        },
        to: NodeRef {
            label: to.0.into(),
            key: to.1.into(),
        },
        props: vec![],
        weight: None,
    })
}

fn drift(db: &Cairn) -> Vec<String> {
    db.graph().name_index_drift().unwrap()
}

#[test]
fn imports_keep_the_name_index() {
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    let first: Vec<DumpRecord> = (0..40)
        .map(|i| node("Author", &format!("a{i}"), &format!("Ann Lee {}", i % 5)))
        .collect();
    db.import_records(first, ImportOptions::default()).unwrap();
    assert_eq!(drift(&db), Vec::<String>::new());
    assert_eq!(db.graph().nodes_named("ann lee 3").unwrap().nodes.len(), 8);
    assert!(db.graph().nodes_named("ann lee").unwrap().longer);

    // A second import renames existing nodes (in its final batch) and adds new ones (files).
    let second: Vec<DumpRecord> = (0..10)
        .map(|i| node("Author", &format!("a{i}"), &format!("Bo Ng {i}")))
        .chain((40..45).map(|i| node("Author", &format!("a{i}"), "Ann Lee 3")))
        .collect();
    db.import_records(second, ImportOptions::default()).unwrap();
    assert_eq!(drift(&db), Vec::<String>::new());
    // a3 and a8 became "Bo Ng …"; a13 … a38 keep the name, a40 … a44 join them.
    assert_eq!(db.graph().nodes_named("ann lee 3").unwrap().nodes.len(), 11);
    assert_eq!(db.graph().nodes_named("bo ng 7").unwrap().nodes.len(), 1);

    // And statements (upsert, rename, delete) keep it too.
    for statement in [
        "UPSERT Author \"a23\" SET name = \"Cy Ode\"",
        "REMOVE NODE Author \"a28\"",
        "UPSERT Author \"new\" SET name = \"Ann Lee 3\"",
    ] {
        db.execute(statement, &CancelToken::default()).unwrap();
    }
    assert_eq!(drift(&db), Vec::<String>::new());
    assert_eq!(db.graph().nodes_named("ann lee 3").unwrap().nodes.len(), 10);
    assert_eq!(db.graph().nodes_named("cy ode").unwrap().nodes.len(), 1);
}

#[test]
fn the_planner_links_the_longest_indexed_name() {
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    let records = vec![
        node("Author", "a1", "Ann Lee"),
        node("Author", "a2", "Ann Lee Moss"),
        node("Paper", "p1", "Graph Beams"),
        node("Paper", "p2", "Deep Nets"),
        edge(("Author", "a1"), "AUTHORED", ("Paper", "p1")),
        edge(("Author", "a2"), "AUTHORED", ("Paper", "p2")),
    ];
    db.import_records(records, ImportOptions::default())
        .unwrap();
    let plan = db
        .explain("EXPLAIN ASK \"which papers did Ann Lee Moss write?\"")
        .unwrap();
    assert!(plan.contains("\"a2\""), "{plan}");
    assert!(!plan.contains("\"a1\""), "{plan}");
    let plan = db
        .explain("EXPLAIN ASK \"which papers did Ann Lee write?\"")
        .unwrap();
    assert!(plan.contains("\"a1\""), "{plan}");
    let reads = db.graph().read_ops();
    db.explain("EXPLAIN ASK \"who wrote Graph Beams?\"")
        .unwrap();
    let used = db.graph().read_ops() - reads;
    // A few seeks per question word, not a read of every node.
    assert!(used.prefix_scans < 40, "{used:?}");
}
