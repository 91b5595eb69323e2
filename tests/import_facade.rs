//! `Cairn::import` and `Cairn::import_records` on real databases: each embedder choice
//! (the database's, a given one, none) stores and records what it says, queries then embed
//! with the embedder the import recorded, and a refused import changes nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn::{
    Cairn, CairnError, DumpNode, DumpRecord, Embedder, GraphRead, HashEmbedder, ImportEmbedder,
    ImportError, ImportOptions,
};
use std::sync::Arc;

fn paper(key: &str, vector: Option<Vec<f32>>) -> DumpRecord {
    DumpRecord::Node(DumpNode {
        label: "Paper".into(),
        key: key.into(),
        props: vec![("title".into(), format!("On {key}").into())],
        description: Some(format!("A paper about {key}.")),
        vector,
    })
}

fn with(embedder: ImportEmbedder) -> ImportOptions {
    ImportOptions {
        embedder,
        ..Default::default()
    }
}

fn recorded(db: &Cairn) -> Option<String> {
    db.graph().catalog().embedder().map(|e| e.id.clone())
}

fn vector_count(db: &Cairn) -> usize {
    let mut n = 0;
    db.graph().scan_vectors(|_, _| n += 1).unwrap();
    n
}

#[test]
fn a_new_database_stores_no_vectors_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    let s = db
        .import_records([paper("beams", None)], ImportOptions::default())
        .unwrap();
    assert_eq!((s.nodes_created, s.vectors_computed), (1, 0));
    assert_eq!(recorded(&db), None);
    assert_eq!(vector_count(&db), 0);
}

#[test]
fn a_given_embedder_is_recorded_and_queries_use_it_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    let small: Arc<dyn Embedder> = Arc::new(HashEmbedder::new(32));
    let small_id = small.id().to_owned();
    db.import_records([paper("beams", None)], with(ImportEmbedder::Use(small)))
        .unwrap();
    assert_eq!(recorded(&db), Some(small_id.clone()));
    assert_eq!(db.embedder().id(), small_id, "adopted without reopening");
    let hits = db.index_search("beams", Some("Paper"), 1).unwrap();
    assert_eq!(
        hits.map(|h| h.len()),
        Some(1),
        "query vectors of the stored dimension"
    );

    // The database's embedder is now the small one: a default import embeds with it ...
    let s = db
        .import_records([paper("graphs", None)], ImportOptions::default())
        .unwrap();
    assert_eq!(s.vectors_computed, 1);
    assert_eq!(recorded(&db), Some(small_id));
    // ... and another embedder is refused, leaving the database as it was.
    let other = ImportEmbedder::Use(Arc::new(HashEmbedder::default()));
    let err = db
        .import_records([paper("late", None)], with(other))
        .unwrap_err();
    assert!(
        matches!(
            err,
            CairnError::Import(ImportError::EmbedderMismatch { .. })
        ),
        "{err}"
    );
    let label = db.graph().catalog().label_id("Paper").unwrap();
    assert_eq!(db.graph().label_nodes(label).unwrap().len(), 2);
}

#[test]
fn no_embedder_stores_only_supplied_vectors_and_stays_so() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("plain.jsonl");
    // A dump line is a record's serde form (docs/IMPORT.md).
    std::fs::write(&dump, serde_json::to_string(&paper("plain", None)).unwrap()).unwrap();
    let db = Cairn::open(dir.path().join("db")).unwrap();
    let s = db.import(&[&dump], with(ImportEmbedder::None)).unwrap();
    assert_eq!((s.nodes_created, s.vectors_computed), (1, 0));
    assert_eq!((recorded(&db), vector_count(&db)), (None, 0));

    // Vectors supplied with the data record the database as "supplied" ...
    db.import_records(
        [paper("given", Some(vec![0.6, 0.8, 0.0]))],
        with(ImportEmbedder::None),
    )
    .unwrap();
    assert_eq!(
        recorded(&db).as_deref(),
        Some(cairn_import::SUPPLIED_EMBEDDER)
    );
    // ... and the database's embedder then computes none for new nodes.
    let s = db
        .import_records([paper("more", None)], ImportOptions::default())
        .unwrap();
    assert_eq!((s.nodes_created, s.vectors_computed), (1, 0));
    assert_eq!(vector_count(&db), 1);
}

#[test]
fn a_read_only_handle_refuses_imports() {
    let dir = tempfile::tempdir().unwrap();
    drop(Cairn::open(dir.path()).unwrap());
    let reader = Cairn::open_read_only(dir.path()).unwrap();
    let err = reader
        .import_records([paper("x", None)], ImportOptions::default())
        .unwrap_err();
    assert!(
        matches!(err, CairnError::Engine(cairn::EngineError::ReadOnly { .. })),
        "{err}"
    );
}

fn described(key: &str, description: &str, vector: Option<Vec<f32>>) -> DumpRecord {
    DumpRecord::Node(DumpNode {
        label: "Paper".into(),
        key: key.into(),
        props: vec![],
        description: Some(description.into()),
        vector,
    })
}

fn stored_vector(db: &Cairn, key: &str) -> Option<Vec<f32>> {
    let id = db.graph().node_id("Paper", key).unwrap().unwrap();
    db.graph().vectors(&[id]).unwrap().pop().flatten()
}

#[test]
fn an_import_that_changes_a_description_replaces_its_vector() {
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    let hash = HashEmbedder::default();
    // The first text embedded with the chosen embedder; then the new text of the existing
    // node (the database's embedder); then the same text again, which keeps its vector.
    for (i, text) in [
        "beams over graphs",
        "proteins that fold",
        "proteins that fold",
    ]
    .into_iter()
    .enumerate()
    {
        // the first import chooses hash vectors (a new database has none by default)
        let options = if i == 0 {
            ImportOptions {
                embedder: ImportEmbedder::Use(Arc::new(HashEmbedder::default())),
                ..Default::default()
            }
        } else {
            ImportOptions::default()
        };
        db.import_records([described("p", text, None)], options)
            .unwrap();
        assert_eq!(
            stored_vector(&db, "p"),
            Some(hash.embed(text).unwrap()),
            "{text}"
        );
    }
    // A supplied vector is stored as given.
    let mine = hash.embed("something else").unwrap();
    db.import_records(
        [described("p", "a third text", Some(mine.clone()))],
        ImportOptions::default(),
    )
    .unwrap();
    assert_eq!(stored_vector(&db, "p"), Some(mine));
    // Without an embedder the stale vector goes.
    db.import_records(
        [described("p", "a fourth text", None)],
        with(ImportEmbedder::None),
    )
    .unwrap();
    assert_eq!(stored_vector(&db, "p"), None);
}
