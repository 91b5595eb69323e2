//! A name several nodes bear: ASK answers for every candidate (two films titled "Safe"), and
//! `EXPLAIN ASK`'s plan names them all. Real RocksDB in a temporary directory, imported from a
//! real JSONL dump.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_agent::{Asker, CancelToken, NodeTable};
use cairn_embed::{Embedder, HashEmbedder};
use cairn_import::{import_files, ImportOptions};
use cairn_store::{Graph, GraphOptions};

#[test]
fn an_ambiguous_title_answers_for_every_candidate() {
    let dir = tempfile::tempdir().unwrap();
    let node = |label: &str, key: &str, props: serde_json::Value| {
        serde_json::json!({"type": "node", "label": label, "key": key, "props": props}).to_string()
    };
    let edge = |from: &str, to: &str| {
        serde_json::json!({"type": "edge", "rel": "directed_by",
            "from": {"label": "Film", "key": from}, "to": {"label": "Person", "key": to}})
        .to_string()
    };
    let lines = [
        node(
            "Film",
            "f1",
            serde_json::json!({"title": "Safe", "year": 1995}),
        ),
        node(
            "Film",
            "f2",
            serde_json::json!({"title": "Safe", "year": 2012}),
        ),
        node(
            "Film",
            "f3",
            serde_json::json!({"title": "Heat", "year": 1995}),
        ),
        node("Person", "p1", serde_json::json!({"name": "Todd Haynes"})),
        node("Person", "p2", serde_json::json!({"name": "Boaz Yakin"})),
        node("Person", "p3", serde_json::json!({"name": "Michael Mann"})),
        edge("f1", "p1"),
        edge("f2", "p2"),
        edge("f3", "p3"),
    ];
    let dump = dir.path().join("films.jsonl");
    std::fs::write(&dump, lines.join("\n")).unwrap();
    let graph = Graph::open(dir.path().join("db"), GraphOptions::default()).unwrap();
    import_files(&graph, &[dump], &ImportOptions::default()).unwrap();
    let embedder = HashEmbedder::default();
    let table = NodeTable::build(&graph, embedder.id()).unwrap();
    let asker = Asker::new(&graph, &embedder, &table);

    let plan = asker.plan("Who directed Safe?").unwrap();
    let e = plan.entity.as_ref().unwrap();
    assert_eq!(e.keys, ["f1", "f2"], "both films named Safe: {}", plan.text);
    assert!(
        plan.text.contains(r#"FROM Film "f1", Film "f2""#),
        "{}",
        plan.text
    );

    let o = asker
        .ask("Who directed Safe?", &CancelToken::default())
        .unwrap();
    let mut got = o.answer.values();
    got.sort();
    assert_eq!(got, ["p1", "p2"], "{}", o.plan.text);
}
