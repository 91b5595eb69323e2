//! The full-text index on a real store: found by words, ranked by BM25, kept current by change
//! sets, saved with its stamp and opened (not rebuilt) by the next handle.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_storage_format::Value;
use cairn_store::{Graph, GraphOptions};
use cairn_text::{TextRefresh, TextStore};
use std::sync::Arc;

fn open(dir: &std::path::Path) -> Arc<Graph> {
    Arc::new(Graph::open(dir, GraphOptions::default()).unwrap())
}

fn names(g: &Graph, hits: &[(cairn_storage_format::NodeId, f32)]) -> Vec<String> {
    use cairn_store::GraphRead;
    hits.iter()
        .map(|(id, _)| g.node(*id).unwrap().unwrap().key.clone())
        .collect()
}

#[test]
fn words_find_nodes_and_rarer_words_rank_higher() {
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let text = TextStore::new(Arc::clone(&g), dir.path());
    let mut w = g.writer().unwrap();
    for (key, title) in [
        ("p1", "Graph neural networks for molecules"),
        ("p2", "Neural networks in practice"),
        ("p3", "A survey of graph databases"),
        ("p4", "Cooking with cast iron"),
    ] {
        w.upsert_node("Paper", key, [("title", Value::from(title))], None)
            .unwrap();
    }
    w.upsert_node("Author", "a1", [("name", Value::from("Jiawei Han"))], None)
        .unwrap();
    w.commit().unwrap();
    assert!(matches!(
        text.refresh().unwrap(),
        TextRefresh::Built { nodes: 5 }
    ));
    let hits = text.search("graph neural networks", None, 3).unwrap();
    assert_eq!(names(&g, &hits)[0], "p1");
    assert_eq!(hits.len(), 3);
    // accents and case folded
    let hits = text.search("JIAWEI hän", None, 5).unwrap();
    assert_eq!(names(&g, &hits), ["a1"]);
    // label filter
    let paper = g.catalog().label_id("Paper").unwrap();
    assert!(text.search("jiawei", Some(&[paper]), 5).unwrap().is_empty());
    assert!(text.search("?!", None, 5).unwrap().is_empty());
}

#[test]
fn writes_are_applied_in_place_saved_and_opened_by_the_next_handle() {
    let dir = tempfile::tempdir().unwrap();
    {
        let g = open(dir.path());
        let text = TextStore::new(Arc::clone(&g), dir.path());
        let mut w = g.writer().unwrap();
        w.upsert_node(
            "Paper",
            "p1",
            [("title", Value::from("Old title words"))],
            None,
        )
        .unwrap();
        w.upsert_node("Paper", "p2", [("title", Value::from("Stays here"))], None)
            .unwrap();
        w.commit().unwrap();
        text.refresh().unwrap();
        let mut w = g.writer().unwrap();
        w.upsert_node(
            "Paper",
            "p1",
            [("title", Value::from("Brand new heading"))],
            None,
        )
        .unwrap();
        w.commit().unwrap();
        assert_eq!(text.refresh().unwrap(), TextRefresh::Updated { nodes: 1 });
        assert!(text.search("old", None, 5).unwrap().is_empty());
        assert_eq!(names(&g, &text.search("heading", None, 5).unwrap()), ["p1"]);
        // a write after the last search: committed to the directory on drop
        let mut w = g.writer().unwrap();
        let paper = g.catalog().label_id("Paper").unwrap();
        let p2 = w.node_id(paper, "p2").unwrap().unwrap();
        w.remove_node(p2).unwrap();
        w.commit().unwrap();
    }
    let g = open(dir.path());
    let text = TextStore::new(Arc::clone(&g), dir.path());
    assert_eq!(text.refresh().unwrap(), TextRefresh::Opened);
    assert!(text.search("stays", None, 5).unwrap().is_empty());
    assert_eq!(names(&g, &text.search("brand", None, 5).unwrap()), ["p1"]);
    assert_eq!(text.documents(), Some(1));
}

#[test]
fn commits_it_did_not_see_are_rebuilt_and_a_damaged_index_replaced() {
    let dir = tempfile::tempdir().unwrap();
    {
        let g = open(dir.path());
        let text = TextStore::new(Arc::clone(&g), dir.path());
        let mut w = g.writer().unwrap();
        w.upsert_node("Topic", "t1", [("name", Value::from("Data mining"))], None)
            .unwrap();
        w.commit().unwrap();
        text.refresh().unwrap();
    }
    {
        // a process without the index writes (as a crash before its save would leave it)
        let g = open(dir.path());
        let mut w = g.writer().unwrap();
        w.upsert_node("Topic", "t2", [("name", Value::from("Data streams"))], None)
            .unwrap();
        w.commit().unwrap();
    }
    let g = open(dir.path());
    let text = TextStore::new(Arc::clone(&g), dir.path());
    assert!(matches!(
        text.refresh().unwrap(),
        TextRefresh::Built { nodes: 2 }
    ));
    assert_eq!(text.search("data", None, 5).unwrap().len(), 2);
    drop(text);
    // damage every file of the index: the next refresh rebuilds instead of failing
    for e in std::fs::read_dir(dir.path().join("text")).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::write(&p, b"garbage").unwrap();
        }
    }
    let text = TextStore::new(Arc::clone(&g), dir.path());
    assert!(matches!(
        text.refresh().unwrap(),
        TextRefresh::Built { nodes: 2 }
    ));
    assert_eq!(names(&g, &text.search("streams", None, 5).unwrap()), ["t2"]);
}
