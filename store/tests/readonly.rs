//! Read-only opens (RocksDB secondary instances) beside a writer, on real databases in
//! temporary directories. The writer and the reader share this process here; cli/tests/readers.rs
//! in the root crate runs them as two processes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_storage_format::{Degree, EdgeProps, NodeId, NodeRecord, Value};
use cairn_store::{
    BackendErrorKind, Direction, EngineError, Graph, GraphOptions, GraphRead, OpenMode,
};

fn writer(dir: &std::path::Path) -> Graph {
    Graph::open(dir, GraphOptions::default()).unwrap()
}

fn reader(dir: &std::path::Path) -> Graph {
    Graph::open_read_only(dir, GraphOptions::default()).unwrap()
}

/// A writable database holding one author, "a1" named Ann.
fn with_ann(dir: &std::path::Path) -> (Graph, NodeId) {
    let w = writer(dir);
    let mut b = w.writer().unwrap();
    let ann = b
        .upsert_node("Author", "a1", [("name", Value::from("Ann"))], None)
        .unwrap();
    b.commit().unwrap();
    (w, ann)
}

fn name_of(g: &Graph, id: NodeId) -> Option<Value> {
    let rec = g.node(id).unwrap()?;
    let key = g.catalog().prop_id("name")?;
    rec.prop(key).cloned()
}

#[test]
fn a_reader_sees_the_writers_commits_after_catching_up() {
    let dir = tempfile::tempdir().unwrap();
    let (w, ann) = with_ann(dir.path());
    let mut b = w.writer().unwrap();
    let p = b
        .upsert_node("Paper", "p1", [("name", Value::from("Beams"))], None)
        .unwrap();
    b.add_edge(ann, "AUTHORED", p, EdgeProps::default())
        .unwrap();
    b.commit().unwrap();

    let r = reader(dir.path());
    assert!(r.is_read_only() && !w.is_read_only());
    assert_eq!(r.node_id("Author", "a1").unwrap(), Some(ann));
    assert_eq!(r.neighbors(ann, Direction::Out, &[]).unwrap().len(), 1);
    // Cached on the reader: the catch-up must drop it.
    assert_eq!(name_of(&r, ann), Some(Value::from("Ann")));
    let fresh = r.freshness().unwrap();
    assert_eq!(fresh.sequence, w.sequence());
    assert!(!fresh.import_pending);
    assert!(w.freshness().is_none());

    let mut b = w.writer().unwrap();
    b.upsert_node("Author", "a1", [("name", Value::from("Ann Lee"))], None)
        .unwrap();
    let v = b
        .upsert_node("Venue", "v1", [("name", Value::from("KDD"))], None)
        .unwrap();
    b.add_edge(p, "PUBLISHED_IN", v, EdgeProps::default())
        .unwrap();
    b.commit().unwrap();

    // Until it catches up, the reader keeps the state it opened on.
    assert_eq!(r.node_id("Venue", "v1").unwrap(), None);
    assert!(r.catalog().label_id("Venue").is_none());
    assert_eq!(name_of(&r, ann), Some(Value::from("Ann")));
    assert_eq!(r.freshness().unwrap().sequence, fresh.sequence);

    assert!(r.catch_up().unwrap(), "the writer committed");
    assert_eq!(r.node_id("Venue", "v1").unwrap(), Some(v));
    assert!(r.catalog().label_id("Venue").is_some(), "catalog reloaded");
    assert_eq!(
        name_of(&r, ann),
        Some(Value::from("Ann Lee")),
        "cache dropped"
    );
    assert_eq!(r.neighbors(p, Direction::Out, &[]).unwrap()[0].node, v);
    let snap = r.snapshot();
    assert_eq!(snap.node_id("Venue", "v1").unwrap(), Some(v));
    let now = r.freshness().unwrap();
    assert_eq!(now.sequence, w.sequence());
    assert!(now.as_of >= fresh.as_of);
    assert!(!r.catch_up().unwrap(), "nothing new");
    // The writer's catch-up is a no-op.
    assert!(!w.catch_up().unwrap());
}

#[test]
fn a_reader_refuses_every_write_and_leaves_the_database_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    drop(with_ann(dir.path()));
    let r = reader(dir.path());
    let mut b = r.writer().unwrap();
    b.upsert_node("Author", "a2", [("name", Value::from("Bo"))], None)
        .unwrap();
    let err = b.commit().unwrap_err();
    assert!(matches!(err, EngineError::ReadOnly { .. }), "{err}");
    assert!(err.to_string().contains("read-only"), "{err}");
    let mut b = r.writer().unwrap();
    b.create_index("Author", "name").unwrap();
    assert!(matches!(b.commit(), Err(EngineError::ReadOnly { .. })));
    let mut bulk = r.bulk_load().unwrap();
    assert!(matches!(
        bulk.files(10..20),
        Err(EngineError::ReadOnly { .. })
    ));
    drop(bulk);
    assert!(matches!(
        r.ensure_writable(),
        Err(EngineError::ReadOnly { .. })
    ));
    drop(r);

    let w = writer(dir.path());
    assert_eq!(w.node_id("Author", "a2").unwrap(), None);
    assert!(w.catalog().indexes().is_empty());
}

#[test]
fn a_read_only_open_of_a_missing_database_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nothing-here");
    let err = Graph::open_read_only(&missing, GraphOptions::default()).unwrap_err();
    assert!(matches!(err, EngineError::Missing { .. }), "{err}");
    assert!(err.to_string().contains("does not exist"), "{err}");
    assert!(!missing.exists());
    // `create_if_missing` does not apply to a reader.
    let err = Graph::open(
        dir.path(),
        GraphOptions {
            mode: OpenMode::ReadOnly,
            create_if_missing: true,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(matches!(err, EngineError::Missing { .. }), "{err}");
    assert!(!dir.path().join("rocksdb").exists());
}

#[test]
fn the_secondarys_directory_is_removed_on_drop() {
    let dir = tempfile::tempdir().unwrap();
    drop(writer(dir.path()));
    let r = reader(dir.path());
    let secondary = r.secondary_dir().unwrap().to_path_buf();
    assert!(secondary.is_dir());
    assert!(
        !secondary.starts_with(dir.path()),
        "not inside the database"
    );
    drop(r);
    assert!(!secondary.exists());
}

/// FORMAT.md, "Bulk import": files of an import are ingested before it commits, under the
/// import marker. A reader that catches up in between must not see their nodes, edges, degrees
/// or vectors — nor roll them back, since the writer is still importing.
#[test]
fn a_reader_does_not_see_an_import_that_has_not_committed() {
    let dir = tempfile::tempdir().unwrap();
    let (w, ann) = with_ann(dir.path());
    let r = reader(dir.path());

    let mut bulk = w.bulk_load().unwrap();
    let first = bulk.next_node_id();
    let new: Vec<u64> = (first..first + 3).collect();
    let catalog = w.catalog();
    let author = catalog.label_id("Author").unwrap();
    let rel = {
        let mut c = (*catalog).clone();
        c.intern_relation("KNOWS").unwrap();
        c
    };
    let knows = rel.relation_id("KNOWS").unwrap();
    let files = bulk.files(first..first + 3).unwrap();
    let records: Vec<(NodeId, Vec<u8>)> = new
        .iter()
        .map(|id| {
            let rec = NodeRecord {
                label: author,
                key: format!("new{id}"),
                props: vec![],
                description: None,
            };
            (NodeId(*id), rec.encode().unwrap())
        })
        .collect();
    let mut ingested = Vec::new();
    ingested.extend(
        files
            .node_records(&records, |(id, rec)| (*id, rec.as_slice()))
            .unwrap(),
    );
    ingested.extend(
        files
            .degrees(&new, |id| (NodeId(*id), Degree { out: 1, inc: 0 }))
            .unwrap(),
    );
    let props = EdgeProps::default().encode().unwrap();
    ingested.extend(
        files
            .edges(Direction::Out, 0, &new, |id| {
                (NodeId(*id), knows, ann, props.as_slice())
            })
            .unwrap(),
    );
    let keys: Vec<(String, NodeId)> = new
        .iter()
        .map(|id| (format!("new{id}"), NodeId(*id)))
        .collect();
    ingested.extend(
        files
            .node_keys(&keys, |(key, id)| (author, key.as_str(), *id))
            .unwrap(),
    );
    bulk.ingest(ingested).unwrap();

    assert!(r.catch_up().unwrap(), "the marker and the files are new");
    assert!(r.freshness().unwrap().import_pending);
    let mut degrees = Vec::new();
    r.scan_degrees(|id, _| degrees.push(id)).unwrap();
    assert!(degrees.iter().all(|id| id.0 < first), "{degrees:?}");
    let mut sources = Vec::new();
    r.scan_edges(Direction::Out, |src, _, _| sources.push(src))
        .unwrap();
    assert!(sources.is_empty(), "{sources:?}");
    assert_eq!(r.node_id("Author", &format!("new{first}")).unwrap(), None);
    assert!(r.catalog().relation_id("KNOWS").is_none());
    // Reads by id, for an application that guesses the next ids.
    let guessed: Vec<NodeId> = new.iter().map(|id| NodeId(*id)).collect();
    assert!(r.node(guessed[0]).unwrap().is_none());
    assert!(r.nodes(&guessed).unwrap().iter().all(Option::is_none));
    assert_eq!(r.degree(guessed[0]).unwrap(), Degree::default());
    assert!(r
        .degrees(&guessed)
        .unwrap()
        .iter()
        .all(|d| *d == Degree::default()));
    assert!(r
        .neighbors(guessed[0], Direction::Both, &[])
        .unwrap()
        .is_empty());
    // A fresh reader opened now hides them as well, and leaves the marker to the writer.
    let r2 = reader(dir.path());
    let mut degrees = Vec::new();
    r2.scan_degrees(|id, _| degrees.push(id)).unwrap();
    assert!(degrees.iter().all(|id| id.0 < first), "{degrees:?}");
    drop(r2);

    bulk.commit(rel, first + 3).unwrap();

    assert!(r.catch_up().unwrap());
    assert!(!r.freshness().unwrap().import_pending);
    assert_eq!(
        r.node_id("Author", &format!("new{first}")).unwrap(),
        Some(NodeId(first))
    );
    let mut sources = Vec::new();
    r.scan_edges(Direction::Out, |src, _, _| sources.push(src))
        .unwrap();
    assert_eq!(sources.len(), 3);
    assert!(r.catalog().relation_id("KNOWS").is_some());
    assert_eq!(r.degree(NodeId(first)).unwrap(), Degree { out: 1, inc: 0 });
    assert_eq!(
        r.neighbors(NodeId(first), Direction::Out, &[]).unwrap()[0].node,
        ann
    );
}

/// "block checksum mismatch" contains "lock": the open error is classified by RocksDB's error
/// kind, so a damaged table is reported as what it is, not as a database held by someone else.
#[test]
fn a_damaged_table_is_not_reported_as_locked() {
    let dir = tempfile::tempdir().unwrap();
    {
        let w = writer(dir.path());
        let mut b = w.writer().unwrap();
        for i in 0..200 {
            b.upsert_node(
                "Author",
                &format!("a{i}"),
                [("name", Value::from("x"))],
                None,
            )
            .unwrap();
        }
        b.commit().unwrap();
    }
    // Into a table file, which the damage below hits.
    {
        let db = rocksdb::DB::open_cf(
            &rocksdb::Options::default(),
            dir.path().join("rocksdb"),
            cairn_store::Space::ALL.map(|s| s.name()),
        )
        .unwrap();
        db.flush_cf(db.cf_handle("node").unwrap()).unwrap();
    }
    let sst = std::fs::read_dir(dir.path().join("rocksdb"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sst"))
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap();
    let mut bytes = std::fs::read(&sst).unwrap();
    // Everything but the footer (the last 53 bytes): the index and meta blocks that open reads.
    let end = bytes.len() - 60;
    for b in &mut bytes[end - 200..end] {
        *b ^= 0x5a;
    }
    std::fs::write(&sst, bytes).unwrap();
    let err = Graph::open(dir.path(), GraphOptions::default()).unwrap_err();
    assert!(
        !matches!(err, EngineError::Locked { .. }),
        "a damaged table reported as a lock: {err}"
    );
    let EngineError::Backend { kind, .. } = &err else {
        panic!("expected RocksDB's error, got {err}");
    };
    assert_eq!(*kind, BackendErrorKind::Corruption, "{err}");
}

/// Ingests the files of an import of two authors named "Zed Newcomer" (records, keys, name and
/// property-index entries) and returns the load, not committed.
fn ingest_two(w: &Graph) -> (cairn_store::BulkLoad<'_>, u64) {
    let catalog = w.catalog();
    let author = catalog.label_id("Author").unwrap();
    let name = catalog.prop_id("name").unwrap();
    let mut bulk = w.bulk_load().unwrap();
    let first = bulk.next_node_id();
    let new: Vec<(NodeId, NodeRecord)> = (first..first + 2)
        .map(|id| {
            let rec = NodeRecord {
                label: author,
                key: format!("new{id}"),
                props: vec![(name, Value::from("Zed Newcomer"))],
                description: None,
            };
            (NodeId(id), rec)
        })
        .collect();
    let files = bulk.files(first..first + 2).unwrap();
    let mut index = cairn_store::NewNodeIndex::default();
    for (id, rec) in &new {
        index.add(&catalog, *id, rec).unwrap();
    }
    let mut ingested = files.write_index(&mut [index]).unwrap();
    assert_eq!(ingested.len(), 2, "a property-index file and a name file");
    let records: Vec<(NodeId, Vec<u8>)> = new
        .iter()
        .map(|(id, rec)| (*id, rec.encode().unwrap()))
        .collect();
    ingested.extend(
        files
            .node_records(&records, |(id, rec)| (*id, rec.as_slice()))
            .unwrap(),
    );
    ingested.extend(
        files
            .node_keys(&new, |(id, rec)| (author, rec.key.as_str(), *id))
            .unwrap(),
    );
    bulk.ingest(ingested).unwrap();
    (bulk, first)
}

fn assert_hidden(g: &dyn GraphRead, first: u64) {
    assert_eq!(g.node_id("Author", &format!("new{first}")).unwrap(), None);
    assert!(g.node(NodeId(first)).unwrap().is_none());
    assert!(g.nodes_named("zed newcomer").unwrap().nodes.is_empty());
    let by_value = g
        .find_eq("Author", "name", &Value::from("Zed Newcomer"))
        .unwrap();
    assert!(by_value.is_empty(), "{by_value:?}");
}

/// FORMAT.md, "Bulk import": the new nodes' `node_key`, `name` and `prop` entries are ingested
/// with their records, so the writer's own process must hide them until the commit too; a
/// snapshot taken before the commit keeps hiding them; a load dropped after its ingest (an
/// error before the commit) is rolled back at once, index entries included.
#[test]
fn an_ingested_import_is_hidden_in_the_writers_process_until_it_commits() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _ann) = with_ann(dir.path());
    let mut b = w.writer().unwrap();
    b.create_index("Author", "name").unwrap();
    b.commit().unwrap();

    // Dropped after its ingest: rolled back at once, and nothing of it after a reopen either.
    let (bulk, first) = ingest_two(&w);
    assert_hidden(&w, first);
    drop(bulk);
    assert_hidden(&w, first);
    drop(w);
    let w = writer(dir.path());
    assert_hidden(&w, first);

    // Committed: hidden until then, in the writer's process and in an older snapshot.
    let (bulk, again) = ingest_two(&w);
    assert_eq!(again, first, "the rolled-back ids are handed out again");
    assert_hidden(&w, first);
    let before = w.snapshot();
    bulk.commit((*w.catalog()).clone(), first + 2).unwrap();
    assert_hidden(&before, first);
    assert_eq!(
        w.node_id("Author", &format!("new{first}")).unwrap(),
        Some(NodeId(first))
    );
    assert_eq!(w.nodes_named("zed newcomer").unwrap().nodes.len(), 2);
    assert_eq!(
        w.find_eq("Author", "name", &Value::from("Zed Newcomer"))
            .unwrap()
            .len(),
        2
    );
}
