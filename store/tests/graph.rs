//! Store behaviour on real RocksDB databases in temporary directories.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_storage_format::{EdgeProps, NodeId, Value};
use cairn_store::{Direction, EngineError, Graph, GraphOptions, GraphRead};
use std::ops::Bound;

fn open(dir: &std::path::Path) -> Graph {
    Graph::open(dir, GraphOptions::default()).unwrap()
}

fn ids(ns: &[cairn_store::Neighbor]) -> Vec<NodeId> {
    let mut v: Vec<_> = ns.iter().map(|n| n.node).collect();
    v.sort();
    v
}

#[test]
fn reopen_keeps_nodes_edges_catalog_and_counters() {
    let dir = tempfile::tempdir().unwrap();
    let (a, p) = {
        let g = open(dir.path());
        let mut w = g.writer().unwrap();
        let a = w
            .upsert_node(
                "Author",
                "a1",
                [("name", Value::from("Ann Lee")), ("h", Value::Int(7))],
                Some("An author."),
            )
            .unwrap();
        let p = w
            .upsert_node("Paper", "p1", [("title", Value::from("Beams"))], None)
            .unwrap();
        w.add_edge(
            a,
            "AUTHORED",
            p,
            EdgeProps {
                weight: Some(0.5),
                props: vec![],
            },
        )
        .unwrap();
        w.set_relation_parent("AUTHORED", Some("CONTRIBUTED_TO"))
            .unwrap();
        w.create_index("Author", "name").unwrap();
        w.commit().unwrap();
        (a, p)
    };
    let g = open(dir.path());
    let rec = g.node(a).unwrap().unwrap();
    assert_eq!(rec.key, "a1");
    assert_eq!(rec.description.as_deref(), Some("An author."));
    let cat = g.catalog();
    assert_eq!(rec.prop(cat.prop_id("h").unwrap()), Some(&Value::Int(7)));
    assert_eq!(g.node_id("Paper", "p1").unwrap(), Some(p));
    let out = g.neighbors(a, Direction::Out, &[]).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].props.weight, Some(0.5));
    assert_eq!(cat.relation_name(out[0].rel), Some("AUTHORED"));
    assert_eq!(
        cat.parent(out[0].rel).and_then(|r| cat.relation_name(r)),
        Some("CONTRIBUTED_TO")
    );
    let rel = cat.relation(out[0].rel).unwrap();
    assert_eq!(
        rel.endpoints,
        vec![(
            cat.label_id("Author").unwrap(),
            cat.label_id("Paper").unwrap()
        )]
    );
    assert_eq!(
        g.find_eq("Author", "name", &Value::from("Ann Lee"))
            .unwrap(),
        vec![a]
    );
    // New ids continue after the persisted counter.
    let mut w = g.writer().unwrap();
    let b = w
        .upsert_node("Author", "a2", Vec::<(&str, Value)>::new(), None)
        .unwrap();
    w.commit().unwrap();
    assert!(b.0 > p.0 && b.0 > a.0);
}

#[test]
fn upsert_merges_properties_and_dedupes_keys() {
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let mut w = g.writer().unwrap();
    let a = w
        .upsert_node(
            "Author",
            "a1",
            [("name", Value::from("Ann")), ("h", Value::Int(1))],
            None,
        )
        .unwrap();
    let again = w
        .upsert_node("Author", "a1", [("h", Value::Int(2))], Some("d"))
        .unwrap();
    assert_eq!(a, again);
    let other_label = w
        .upsert_node("Paper", "a1", Vec::<(&str, Value)>::new(), None)
        .unwrap();
    assert_ne!(a, other_label);
    w.commit().unwrap();
    let rec = g.node(a).unwrap().unwrap();
    let cat = g.catalog();
    assert_eq!(
        rec.prop(cat.prop_id("name").unwrap()),
        Some(&Value::from("Ann"))
    );
    assert_eq!(rec.prop(cat.prop_id("h").unwrap()), Some(&Value::Int(2)));
    assert_eq!(rec.description.as_deref(), Some("d"));
}

#[test]
fn removing_a_node_leaves_no_dangling_edge_in_either_direction() {
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let mut w = g.writer().unwrap();
    let hub = w
        .upsert_node("N", "hub", Vec::<(&str, Value)>::new(), None)
        .unwrap();
    let others: Vec<_> = (0..5)
        .map(|i| {
            w.upsert_node("N", &format!("n{i}"), Vec::<(&str, Value)>::new(), None)
                .unwrap()
        })
        .collect();
    for (i, o) in others.iter().enumerate() {
        if i % 2 == 0 {
            w.add_edge(hub, "R", *o, EdgeProps::default()).unwrap();
        } else {
            w.add_edge(*o, "S", hub, EdgeProps::default()).unwrap();
        }
    }
    w.add_edge(hub, "R", hub, EdgeProps::default()).unwrap(); // self-loop
    w.add_edge(others[0], "R", others[1], EdgeProps::default())
        .unwrap();
    w.commit().unwrap();
    assert_eq!(g.degree(hub).unwrap().out, 4);

    let mut w = g.writer().unwrap();
    assert!(w.remove_node(hub).unwrap());
    assert!(!w.remove_node(hub).unwrap());
    w.commit().unwrap();
    assert!(g.node(hub).unwrap().is_none());
    assert!(g.node_id("N", "hub").unwrap().is_none());
    assert!(g.neighbors(hub, Direction::Both, &[]).unwrap().is_empty());
    for o in &others {
        for n in g.neighbors(*o, Direction::Both, &[]).unwrap() {
            assert_ne!(n.node, hub, "dangling edge at {o}");
        }
    }
    assert_eq!(
        ids(&g.neighbors(others[0], Direction::Out, &[]).unwrap()),
        vec![others[1]]
    );
    assert_eq!(g.degree(others[0]).unwrap().out, 1);
    assert_eq!(g.degree(others[0]).unwrap().inc, 0);
    assert_eq!(g.degree(others[1]).unwrap().inc, 1);
    assert_eq!(g.degree(others[1]).unwrap().out, 0);
    assert_eq!(g.degree(hub).unwrap(), Default::default());
}

#[test]
fn degree_stays_correct_through_adds_duplicates_and_removes() {
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let mut w = g.writer().unwrap();
    let a = w
        .upsert_node("N", "a", Vec::<(&str, Value)>::new(), None)
        .unwrap();
    let b = w
        .upsert_node("N", "b", Vec::<(&str, Value)>::new(), None)
        .unwrap();
    assert!(w.add_edge(a, "R", b, EdgeProps::default()).unwrap());
    assert!(
        !w.add_edge(a, "R", b, EdgeProps::default()).unwrap(),
        "duplicate edge is not new"
    );
    assert!(w.add_edge(a, "S", b, EdgeProps::default()).unwrap());
    w.commit().unwrap();
    let mut w = g.writer().unwrap();
    assert!(
        !w.add_edge(a, "R", b, EdgeProps::default()).unwrap(),
        "duplicate across batches"
    );
    // Replacing properties is not a new edge either.
    assert!(!w
        .add_edge(
            a,
            "R",
            b,
            EdgeProps {
                weight: Some(2.0),
                props: vec![]
            }
        )
        .unwrap());
    w.commit().unwrap();
    assert_eq!((g.degree(a).unwrap().out, g.degree(b).unwrap().inc), (2, 2));
    let mut w = g.writer().unwrap();
    assert!(w.remove_edge(a, "R", b).unwrap());
    assert!(!w.remove_edge(a, "R", b).unwrap());
    assert!(!w.remove_edge(a, "NOPE", b).unwrap());
    w.commit().unwrap();
    assert_eq!((g.degree(a).unwrap().out, g.degree(b).unwrap().inc), (1, 1));
    drop(g);
    let g = open(dir.path());
    assert_eq!((g.degree(a).unwrap().out, g.degree(b).unwrap().inc), (1, 1));
}

#[test]
fn edges_need_existing_endpoints_and_a_dropped_writer_applies_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let mut w = g.writer().unwrap();
    let a = w
        .upsert_node("N", "a", Vec::<(&str, Value)>::new(), None)
        .unwrap();
    let err = w
        .add_edge(a, "R", NodeId(999), EdgeProps::default())
        .unwrap_err();
    assert!(
        matches!(err, EngineError::NodeNotFound(NodeId(999))),
        "{err}"
    );
    drop(w);
    assert!(g.node(a).unwrap().is_none());
    assert!(
        g.catalog().label_id("N").is_none(),
        "catalog changes of a dropped batch are discarded"
    );
}

#[test]
fn neighbours_filter_by_relation_and_direction() {
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let mut w = g.writer().unwrap();
    let x = w
        .upsert_node("N", "x", Vec::<(&str, Value)>::new(), None)
        .unwrap();
    let ys: Vec<_> = (0..6)
        .map(|i| {
            w.upsert_node("N", &format!("y{i}"), Vec::<(&str, Value)>::new(), None)
                .unwrap()
        })
        .collect();
    w.add_edge(x, "A", ys[0], EdgeProps::default()).unwrap();
    w.add_edge(x, "A", ys[1], EdgeProps::default()).unwrap();
    w.add_edge(x, "B", ys[2], EdgeProps::default()).unwrap();
    w.add_edge(ys[3], "A", x, EdgeProps::default()).unwrap();
    w.add_edge(ys[4], "C", x, EdgeProps::default()).unwrap();
    // An edge of a neighbouring node id must not leak into x's prefix scan.
    w.add_edge(ys[0], "A", ys[5], EdgeProps::default()).unwrap();
    w.commit().unwrap();
    let cat = g.catalog();
    let (ra, rb, rc) = (
        cat.relation_id("A").unwrap(),
        cat.relation_id("B").unwrap(),
        cat.relation_id("C").unwrap(),
    );
    assert_eq!(
        ids(&g.neighbors(x, Direction::Out, &[]).unwrap()),
        vec![ys[0], ys[1], ys[2]]
    );
    assert_eq!(
        ids(&g.neighbors(x, Direction::Out, &[ra]).unwrap()),
        vec![ys[0], ys[1]]
    );
    assert_eq!(
        ids(&g.neighbors(x, Direction::In, &[]).unwrap()),
        vec![ys[3], ys[4]]
    );
    assert_eq!(
        ids(&g.neighbors(x, Direction::In, &[rc, rb]).unwrap()),
        vec![ys[4]]
    );
    let both = g.neighbors(x, Direction::Both, &[ra]).unwrap();
    assert_eq!(ids(&both), vec![ys[0], ys[1], ys[3]]);
    assert!(both
        .iter()
        .any(|n| n.node == ys[3] && n.direction == Direction::In));
}

#[test]
fn property_index_equality_range_backfill_and_maintenance() {
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let mut w = g.writer().unwrap();
    let mut by_year = Vec::new();
    for (i, year) in [2001i64, 1999, 2010, 2005, 2010, -3].iter().enumerate() {
        by_year.push((
            *year,
            w.upsert_node(
                "Paper",
                &format!("p{i}"),
                [("year", Value::Int(*year))],
                None,
            )
            .unwrap(),
        ));
    }
    let odd = w
        .upsert_node("Paper", "odd", [("year", Value::from("unknown"))], None)
        .unwrap();
    w.upsert_node("Author", "a", [("year", Value::Int(2010))], None)
        .unwrap();
    w.commit().unwrap();
    // Without an index the same answers come from a label scan.
    let scan = g.find_eq("Paper", "year", &Value::Int(2010)).unwrap();
    let mut w = g.writer().unwrap();
    assert!(w.create_index("Paper", "year").unwrap());
    assert!(!w.create_index("Paper", "year").unwrap());
    w.commit().unwrap();
    let eq = g.find_eq("Paper", "year", &Value::Int(2010)).unwrap();
    assert_eq!(eq, scan);
    assert_eq!(eq.len(), 2);
    let range = g
        .find_range(
            "Paper",
            "year",
            Bound::Included(&Value::Int(2000)),
            Bound::Excluded(&Value::Int(2010)),
        )
        .unwrap();
    assert_eq!(range, vec![by_year[0].1, by_year[3].1]);
    let below = g
        .find_range(
            "Paper",
            "year",
            Bound::Unbounded,
            Bound::Included(&Value::Int(1999)),
        )
        .unwrap();
    assert_eq!(below, vec![by_year[5].1, by_year[1].1]);
    let strings = g
        .find_range(
            "Paper",
            "year",
            Bound::Included(&Value::from("")),
            Bound::Unbounded,
        )
        .unwrap();
    assert_eq!(strings, vec![odd]);
    // Updates move index entries; removals delete them.
    let mut w = g.writer().unwrap();
    w.upsert_node("Paper", "p0", [("year", Value::Int(2010))], None)
        .unwrap();
    w.remove_node(by_year[2].1).unwrap();
    w.commit().unwrap();
    let mut eq = g.find_eq("Paper", "year", &Value::Int(2010)).unwrap();
    eq.sort();
    assert_eq!(eq, vec![by_year[0].1, by_year[4].1]);
    assert!(g
        .find_eq("Paper", "year", &Value::Int(2001))
        .unwrap()
        .is_empty());
    assert!(g
        .find_eq("Paper", "nope", &Value::Int(1))
        .unwrap()
        .is_empty());
}

#[test]
fn relation_hierarchy_refuses_cycles() {
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let mut w = g.writer().unwrap();
    w.set_relation_parent("WORKS_AT", Some("AFFILIATED_WITH"))
        .unwrap();
    w.set_relation_parent("AFFILIATED_WITH", Some("RELATED_TO"))
        .unwrap();
    let err = w
        .set_relation_parent("RELATED_TO", Some("WORKS_AT"))
        .unwrap_err();
    assert!(matches!(err, EngineError::RelationCycle { .. }), "{err}");
    w.commit().unwrap();
    let cat = g.catalog();
    let related = cat.relation_id("RELATED_TO").unwrap();
    assert_eq!(cat.parent(related), None);
    assert_eq!(
        cat.children(related),
        vec![cat.relation_id("AFFILIATED_WITH").unwrap()]
    );
}

#[test]
fn future_format_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    drop(open(dir.path()));
    {
        // Stamp the database as written by a future version, through RocksDB directly.
        let path = dir.path().join("rocksdb");
        let opts = rocksdb::Options::default();
        let cfs = rocksdb::DB::list_cf(&opts, &path).unwrap();
        let db = rocksdb::DB::open_cf(&opts, &path, &cfs).unwrap();
        db.put_cf(db.cf_handle("meta").unwrap(), b"format", 7u64.to_be_bytes())
            .unwrap();
    }
    let err = Graph::open(dir.path(), GraphOptions::default()).unwrap_err();
    assert!(
        matches!(
            err,
            EngineError::FutureFormat {
                found: 7,
                supported: 2,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("format version 7"), "{err}");
}

#[test]
fn foreign_and_missing_directories_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    let err = Graph::open(dir.path(), GraphOptions::default()).unwrap_err();
    assert!(matches!(err, EngineError::NotCairn { .. }), "{err}");
    let missing = dir.path().join("nothing-here");
    let err = Graph::open(
        &missing,
        GraphOptions {
            create_if_missing: false,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(matches!(err, EngineError::Missing { .. }), "{err}");
    assert!(!missing.exists(), "a refused open creates nothing");
}

#[test]
fn second_open_in_same_process_is_a_lock_error() {
    let dir = tempfile::tempdir().unwrap();
    let _g = open(dir.path());
    let err = Graph::open(dir.path(), GraphOptions::default()).unwrap_err();
    assert!(matches!(err, EngineError::Locked { .. }), "{err}");
}

/// Runs only as the child of `second_open_in_another_process_is_a_lock_error`.
#[test]
fn lock_child() {
    let Ok(path) = std::env::var("CAIRN_LOCK_CHILD_DB") else {
        return;
    };
    match Graph::open(&path, GraphOptions::default()) {
        Ok(_) => println!("CHILD-OPENED"),
        Err(e) => println!("CHILD-ERROR: {e}"),
    }
}

#[test]
fn second_open_in_another_process_is_a_lock_error() {
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let run_child = || {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "lock_child", "--nocapture", "--test-threads=1"])
            .env("CAIRN_LOCK_CHILD_DB", dir.path())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let stdout = run_child();
    assert!(
        stdout.contains("CHILD-ERROR"),
        "child opened a locked database: {stdout}"
    );
    assert!(stdout.contains("is locked by another process"), "{stdout}");
    drop(g);
    let stdout = run_child();
    assert!(
        stdout.contains("CHILD-OPENED"),
        "lock not released on drop: {stdout}"
    );
}

#[test]
fn cache_never_serves_a_stale_record() {
    let dir = tempfile::tempdir().unwrap();
    let g = std::sync::Arc::new(open(dir.path()));
    let id = {
        let mut w = g.writer().unwrap();
        let id = w
            .upsert_node("N", "x", [("v", Value::Int(0))], None)
            .unwrap();
        w.commit().unwrap();
        id
    };
    let v = g.catalog().prop_id("v").unwrap();
    let reader = {
        let g = g.clone();
        std::thread::spawn(move || {
            let mut last = 0;
            for _ in 0..20_000 {
                let Some(Value::Int(x)) = g.node(id).unwrap().unwrap().prop(v).cloned() else {
                    panic!()
                };
                assert!(x >= last, "went back from {last} to {x}");
                last = x;
            }
        })
    };
    for i in 1..=300 {
        let mut w = g.writer().unwrap();
        w.upsert_node("N", "x", [("v", Value::Int(i))], None)
            .unwrap();
        w.commit().unwrap();
        assert_eq!(
            g.node(id).unwrap().unwrap().prop(v),
            Some(&Value::Int(i)),
            "read-your-writes after commit"
        );
    }
    reader.join().unwrap();
}

#[test]
fn annotations_commit_with_the_batch_and_roll_back_with_it() {
    use cairn_store::Element;
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let mut w = g.writer().unwrap();
    w.upsert_node("Film", "f1", [("title", Value::from("Blue"))], None)
        .unwrap();
    let film = w.catalog().label_id("Film").unwrap();
    w.annotate(Element::Label(film), Some("a movie".into()), None, None)
        .unwrap();
    // Not visible before the commit; a savepoint rolled back drops a later change.
    assert!(g.catalog().annotation(Element::Label(film)).is_none());
    let sp = w.savepoint();
    w.annotate(
        Element::Label(film),
        None,
        Some(vec!["picture".into()]),
        None,
    )
    .unwrap();
    w.rollback_to(sp).unwrap();
    w.commit().unwrap();
    let a = g
        .catalog()
        .annotation(Element::Label(film))
        .cloned()
        .unwrap();
    assert_eq!(a.description.as_deref(), Some("a movie"));
    assert!(a.aliases.is_empty());
    // A dropped writer changes nothing; an unknown element is refused.
    let mut w = g.writer().unwrap();
    w.annotate(Element::Label(film), Some(String::new()), None, None)
        .unwrap();
    assert!(w
        .annotate(
            Element::Relation(cairn_storage_format::RelId(7)),
            None,
            Some(vec![]),
            None
        )
        .is_err());
    drop(w);
    drop(g);
    let g = open(dir.path());
    assert_eq!(g.catalog().annotation(Element::Label(film)), Some(&a));
}

#[test]
fn label_linking_commits_persists_and_is_refused_for_relations() {
    use cairn_store::Element;
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let mut w = g.writer().unwrap();
    let t1 = w
        .upsert_node("Term", "t1", [("name", Value::from("graphs"))], None)
        .unwrap();
    w.add_edge(t1, "RELATED", t1, EdgeProps::default()).unwrap();
    let term = w.catalog().label_id("Term").unwrap();
    let related = w.catalog().relation_id("RELATED").unwrap();
    assert!(w
        .annotate(Element::Relation(related), None, None, Some(false))
        .is_err());
    w.annotate(Element::Label(term), None, None, Some(false))
        .unwrap();
    assert!(g.catalog().links_unmarked(term), "not before the commit");
    w.commit().unwrap();
    assert!(!g.catalog().links_unmarked(term));
    // no description or aliases: the label has no annotation, only its linking
    assert!(g.catalog().annotation(Element::Label(term)).is_none());
    drop(g);
    let g = open(dir.path());
    assert!(!g.catalog().links_unmarked(term), "persisted");
    let mut w = g.writer().unwrap();
    w.annotate(Element::Label(term), None, None, Some(true))
        .unwrap();
    w.commit().unwrap();
    drop(g);
    let g = open(dir.path());
    assert!(g.catalog().links_unmarked(term));
}
