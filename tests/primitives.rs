//! The facade's views for agents and bindings (src/primitives.rs), statements inside a
//! transaction (`Transaction::execute`) and searches by text and by a supplied vector, on a
//! real database in a temporary directory.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn::{
    Cairn, CairnError, Direction, DumpNode, DumpRecord, ImportEmbedder, ImportOptions, Output,
    Value,
};

fn small() -> (tempfile::TempDir, Cairn) {
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    db.transaction(|tx| {
        let ann = tx.upsert_node("Author", "a1", [("name", Value::from("Ann Lee"))], None)?;
        let bo = tx.upsert_node("Author", "a2", [("name", Value::from("Bo Chen"))], None)?;
        let p1 = tx.upsert_node(
            "Paper",
            "p1",
            [
                ("title", Value::from("Graph exploration")),
                ("year", Value::Int(2021)),
            ],
            Some("A paper about exploring graphs."),
        )?;
        let p2 = tx.upsert_node("Paper", "p2", [("title", Value::from("Beam search"))], None)?;
        tx.add_edge(ann, "AUTHORED", p1, Default::default())?;
        tx.add_edge(bo, "AUTHORED", p1, Default::default())?;
        tx.add_edge(ann, "AUTHORED", p2, Default::default())?;
        tx.add_edge(p2, "CITES", p1, Default::default())?;
        Ok::<_, CairnError>(())
    })
    .unwrap();
    (dir, db)
}

#[test]
fn node_views_carry_descriptions_degrees_and_properties() {
    let (_dir, db) = small();
    let p1 = db.node_view_by_key("Paper", "p1").unwrap().unwrap();
    assert_eq!(
        (p1.label.as_str(), p1.name.as_str()),
        ("Paper", "Graph exploration")
    );
    assert_eq!(p1.description, "A paper about exploring graphs.");
    assert_eq!((p1.out_degree, p1.in_degree), (0, 3));
    assert!(p1
        .properties
        .contains(&("year".to_owned(), Value::Int(2021))));
    let ann = db.node_view_by_key("Author", "a1").unwrap().unwrap();
    assert_eq!(ann.description, "Author: Ann Lee.");
    assert_eq!(db.node_view(ann.id).unwrap().unwrap(), ann);
    assert!(db.node_view_by_key("Author", "zz").unwrap().is_none());
    assert!(db.node_view_by_key("NoLabel", "a1").unwrap().is_none());
    let many = db.node_views(&[ann.id, cairn::NodeId(999_999)]).unwrap();
    assert!(many[0].is_some() && many[1].is_none());
}

#[test]
fn neighbours_are_limited_and_counted_by_relation() {
    let (_dir, db) = small();
    let p1 = db.node_view_by_key("Paper", "p1").unwrap().unwrap();
    let all = db.neighbor_views(p1.id, Direction::Both, &[], 10).unwrap();
    assert_eq!(all.total, 3);
    assert_eq!(
        all.by_relation,
        vec![
            ("AUTHORED".to_owned(), Direction::In, 2),
            ("CITES".to_owned(), Direction::In, 1)
        ]
    );
    let one = db
        .neighbor_views(p1.id, Direction::In, &["CITES"], 10)
        .unwrap();
    assert_eq!((one.total, one.items[0].key.as_str()), (1, "p2"));
    assert_eq!(one.items[0].direction, Direction::In);
    let cut = db.neighbor_views(p1.id, Direction::Both, &[], 1).unwrap();
    assert_eq!((cut.items.len(), cut.total), (1, 3));
    assert!(db
        .neighbor_views(p1.id, Direction::Out, &[], 10)
        .unwrap()
        .items
        .is_empty());
    let err = db
        .neighbor_views(p1.id, Direction::Both, &["NOPE"], 10)
        .unwrap_err();
    assert!(err.to_string().contains("NOPE"), "{err}");
}

#[test]
fn the_schema_lists_labels_relations_and_endpoints() {
    let (_dir, db) = small();
    db.execute("CREATE INDEX ON Author(name)", &Default::default())
        .unwrap();
    let s = db.schema().unwrap();
    let labels: Vec<&str> = s.labels.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(labels, ["Author", "Paper"]);
    assert_eq!(s.labels[0].indexed, ["name"]);
    let cites = s.relations.iter().find(|r| r.name == "CITES").unwrap();
    assert_eq!(cites.endpoints, [("Paper".to_owned(), "Paper".to_owned())]);
    assert!(s.properties.contains(&"title".to_owned()));
}

#[test]
fn statements_inside_a_transaction_see_its_writes_and_fail_alone() {
    let (_dir, db) = small();
    let result: Result<(), CairnError> = db.transaction(|tx| {
        let out = tx.execute(r#"UPSERT Author "a3" SET name = "Cy""#)?;
        assert!(matches!(out, Output::Done(d) if d.outcome == "added"));
        tx.execute(r#"ADD EDGE Author "a3" -[AUTHORED]-> Paper "p2""#)?;
        let found =
            match tx.execute(r#"EXPLORE "papers" FROM Author "a3" VIA AUTHORED TARGET Paper"#)? {
                Output::Exploration(e) => e,
                other => panic!("{other:?}"),
            };
        assert_eq!(found.results[0].key, "p2");
        // a failing statement leaves the transaction as it was
        assert!(tx
            .execute(r#"ADD EDGE Author "a3" -[AUTHORED]-> Paper "nope""#)
            .is_err());
        assert!(matches!(
            tx.execute("SHOW LABELS"),
            Err(CairnError::Transaction(_))
        ));
        Ok(())
    });
    result.unwrap();
    let a3 = db.node_view_by_key("Author", "a3").unwrap().unwrap();
    assert_eq!(a3.out_degree, 1);
}

#[test]
fn search_and_supplied_vector_search() {
    let (_dir, db) = small();
    let hits = db.search("graph exploration", None, 3).unwrap();
    let p1 = db.node_view_by_key("Paper", "p1").unwrap().unwrap();
    assert_eq!(hits[0].0, p1.id);
    assert!(db.search("graph", Some("NoLabel"), 3).unwrap().is_empty());

    // A database whose vectors came with the data: searched by a vector of the same model.
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    let node = |key: &str, v: [f32; 3]| {
        DumpRecord::Node(DumpNode {
            label: "E".into(),
            key: key.into(),
            props: Vec::new(),
            description: None,
            vector: Some(v.to_vec()),
        })
    };
    let options = ImportOptions {
        embedder: ImportEmbedder::None,
        ..Default::default()
    };
    db.import_records(
        [node("x", [1.0, 0.0, 0.0]), node("y", [0.0, 1.0, 0.0])],
        options,
    )
    .unwrap();
    let hits = db
        .vector_search(&[0.9, 0.1, 0.0], None, 2)
        .unwrap()
        .unwrap();
    let x = db.node_view_by_key("E", "x").unwrap().unwrap();
    assert_eq!(hits[0].0, x.id);
    assert!(hits[0].1 > hits[1].1);
    let wrong = db.vector_search(&[1.0, 0.0], None, 2).unwrap_err();
    assert!(wrong.to_string().contains("dimensions"), "{wrong}");
    // text search on the same handle does not spoil the vector index for the vector search
    let _ = db.search("x", None, 2).unwrap();
    assert!(db
        .vector_search(&[0.0, 1.0, 0.0], None, 1)
        .unwrap()
        .is_some());
}
