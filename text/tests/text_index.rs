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

/// A description is found by its words though most nodes have none: the rest of a node's text
/// is weighed against the nodes that have one, not against all (whose average length is
/// nearly nothing), so one word in a name does not beat every word of a description.
#[test]
fn a_description_counts_where_most_nodes_have_only_a_name() {
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let text = TextStore::new(Arc::clone(&g), dir.path());
    let mut w = g.writer().unwrap();
    for i in 0..2000 {
        let title = match i % 400 {
            0 => format!("Tree search number {i}"),
            _ => format!("Filler paper number {i}"),
        };
        w.upsert_node(
            "Paper",
            &format!("p{i}"),
            [("title", Value::from(title))],
            None,
        )
        .unwrap();
    }
    w.upsert_node(
        "Paper",
        "described",
        [("title", Value::from("Stone markers"))],
        Some("Cairn stones mark hiking trails above the tree line"),
    )
    .unwrap();
    w.commit().unwrap();
    text.refresh().unwrap();
    let hits = text
        .search(
            "Cairn stones mark hiking trails above the tree line",
            None,
            1,
        )
        .unwrap();
    assert_eq!(names(&g, &hits), ["described"]);
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
fn commits_it_did_not_see_are_replayed_from_the_log_and_a_damaged_index_replaced() {
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
    assert_eq!(text.refresh().unwrap(), TextRefresh::Updated { nodes: 1 });
    assert_eq!(text.search("data", None, 5).unwrap().len(), 2);
    drop(text);
    // commits the log no longer holds: rebuilt
    {
        let mut w = g.writer().unwrap();
        w.upsert_node("Topic", "t3", [("name", Value::from("Data lakes"))], None)
            .unwrap();
        w.commit().unwrap();
        g.prune_changes(g.commits()).unwrap();
    }
    let text = TextStore::new(Arc::clone(&g), dir.path());
    // this handle saw no change set of that commit either (it subscribed after it)
    assert_eq!(text.refresh().unwrap(), TextRefresh::Built { nodes: 3 });
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
        TextRefresh::Built { nodes: 3 }
    ));
    assert_eq!(names(&g, &text.search("streams", None, 5).unwrap()), ["t2"]);
}

/// A word in a node's name ranks it above nodes that only mention the word elsewhere.
#[test]
fn a_name_outranks_a_mention_in_other_properties() {
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let text = TextStore::new(Arc::clone(&g), dir.path());
    let mut w = g.writer().unwrap();
    w.upsert_node(
        "State",
        "texas",
        [
            ("name", Value::from("texas")),
            ("highest_point", Value::from("guadalupe peak")),
            ("capital", Value::from("austin")),
        ],
        None,
    )
    .unwrap();
    w.upsert_node(
        "Mountain",
        "guadalupe",
        [("name", Value::from("guadalupe peak"))],
        Some("a mountain in the guadalupe range of texas, the highest point of the state"),
    )
    .unwrap();
    w.commit().unwrap();
    text.refresh().unwrap();
    assert_eq!(
        names(&g, &text.search("guadalupe peak", None, 2).unwrap()),
        ["guadalupe", "texas"]
    );
    assert_eq!(
        names(&g, &text.search("texas", None, 1).unwrap()),
        ["texas"]
    );
}

/// Upserts and removals applied in place, in this process and replayed from the change log in
/// the next, give the index a rebuild of the same nodes gives: the same nodes in the same
/// order with the same scores, for every query (statistics of live documents only, scores
/// summed in one order: `rank.rs`).
#[test]
fn an_index_brought_up_to_date_answers_as_a_rebuild_does() {
    let dir = tempfile::tempdir().unwrap();
    let words = [
        "graph", "neural", "network", "data", "mining", "stream", "query", "index", "vector",
        "search", "learning", "deep", "survey", "method", "system",
    ];
    let title = |i: usize| {
        let mut t = String::new();
        for j in 0..1 + i % 5 {
            t.push_str(words[(i * 7 + j * 3 + i / 11) % words.len()]);
            t.push(' ');
        }
        t
    };
    let queries = [
        "graph neural network",
        "data",
        "deep learning survey",
        "vector index search",
        "mining stream",
        "system method query",
    ];
    let answers = |t: &TextStore| {
        queries
            .iter()
            .map(|q| t.search(q, None, 7).unwrap())
            .collect::<Vec<_>>()
    };
    {
        let g = open(dir.path());
        let text = TextStore::new(Arc::clone(&g), dir.path());
        let mut w = g.writer().unwrap();
        for i in 0..300 {
            w.upsert_node(
                "Paper",
                &format!("p{i}"),
                [("title", Value::from(title(i)))],
                None,
            )
            .unwrap();
        }
        w.commit().unwrap();
        text.refresh().unwrap();
        // many small commits, applied in place: rewrites, removals, new nodes
        for round in 0..30 {
            let mut w = g.writer().unwrap();
            for i in (round..300).step_by(37) {
                w.upsert_node(
                    "Paper",
                    &format!("p{i}"),
                    [("title", Value::from(title(i + round + 1)))],
                    None,
                )
                .unwrap();
            }
            if round % 3 == 0 {
                let paper = g.catalog().label_id("Paper").unwrap();
                if let Some(id) = w.node_id(paper, &format!("p{}", round * 9)).unwrap() {
                    w.remove_node(id).unwrap();
                }
            }
            w.upsert_node(
                "Paper",
                &format!("n{round}"),
                [("title", Value::from(title(round)))],
                None,
            )
            .unwrap();
            w.commit().unwrap();
            if round % 4 == 0 {
                text.refresh().unwrap();
            }
        }
        text.refresh().unwrap();
        let fresh_dir = tempfile::tempdir().unwrap();
        let fresh = TextStore::new(Arc::clone(&g), fresh_dir.path());
        fresh.build().unwrap();
        assert_eq!(answers(&text), answers(&fresh), "updated in place");
        // commits of a process without the index (or killed before its save): replayed from
        // the log next time
        drop(text);
        let mut w = g.writer().unwrap();
        for i in 0..40 {
            w.upsert_node(
                "Paper",
                &format!("p{}", i * 5),
                [("title", Value::from(title(i)))],
                None,
            )
            .unwrap();
        }
        w.commit().unwrap();
    }
    let g = open(dir.path());
    let text = TextStore::new(Arc::clone(&g), dir.path());
    assert!(matches!(
        text.refresh().unwrap(),
        TextRefresh::Updated { .. }
    ));
    let fresh_dir = tempfile::tempdir().unwrap();
    let fresh = TextStore::new(Arc::clone(&g), fresh_dir.path());
    fresh.build().unwrap();
    let (a, b) = (answers(&text), answers(&fresh));
    assert!(a.iter().all(|r| r.len() == 7));
    assert_eq!(a, b, "replayed from the change log");
}

/// A reader beside the writer never writes the writer's directory: it opens the saved index
/// when current, and otherwise copies it into memory and replays the log there.
#[test]
fn a_reader_replays_the_log_into_a_copy_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    {
        let text = TextStore::new(Arc::clone(&g), dir.path());
        let mut w = g.writer().unwrap();
        w.upsert_node("Topic", "t1", [("name", Value::from("Data mining"))], None)
            .unwrap();
        w.commit().unwrap();
        text.refresh().unwrap();
    }
    let r = Arc::new(Graph::open_read_only(dir.path(), GraphOptions::default()).unwrap());
    let text = TextStore::new(Arc::clone(&r), dir.path());
    assert_eq!(text.refresh().unwrap(), TextRefresh::Opened);
    // the writer commits without saving its index
    let mut w = g.writer().unwrap();
    w.upsert_node("Topic", "t2", [("name", Value::from("Data streams"))], None)
        .unwrap();
    w.commit().unwrap();
    let before: Vec<_> = std::fs::read_dir(dir.path().join("text"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(r.catch_up().unwrap());
    assert_eq!(text.refresh().unwrap(), TextRefresh::Updated { nodes: 1 });
    assert_eq!(names(&r, &text.search("streams", None, 5).unwrap()), ["t2"]);
    let after: Vec<_> = std::fs::read_dir(dir.path().join("text"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(before, after, "the reader wrote nothing");
}

/// Damage tantivy's own checks miss (it reads no checksum on open): each file of a saved
/// index cut short, or with a run of bytes overwritten, at several places. A handle opened on
/// it — writable or read-only — answers a search (from the index, or from one rebuilt because
/// reading it failed), and never panics: before the guard, several of these panicked inside
/// tantivy (an overflow, a slice out of range).
#[test]
fn a_partly_damaged_index_is_rebuilt_and_never_panics() {
    let dir = tempfile::tempdir().unwrap();
    {
        let g = open(dir.path());
        let text = TextStore::new(Arc::clone(&g), dir.path());
        let mut w = g.writer().unwrap();
        for i in 0..40 {
            let name = format!("{} paper {i}", ["graph mining", "query plans"][i % 2]);
            w.upsert_node(
                "Paper",
                &format!("p{i}"),
                [("title", Value::from(name))],
                None,
            )
            .unwrap();
        }
        w.commit().unwrap();
        text.refresh().unwrap();
    }
    let text_dir = dir.path().join("text");
    let mut files: Vec<_> = std::fs::read_dir(&text_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && !p.to_string_lossy().ends_with(".lock"))
        .collect();
    files.sort();
    let saved: Vec<(std::path::PathBuf, Vec<u8>)> = files
        .iter()
        .map(|p| (p.clone(), std::fs::read(p).unwrap()))
        .collect();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut panics = Vec::new();
    for (path, bytes) in &saved {
        for cut in [1, 4, 7] {
            let at = bytes.len() * cut / 8;
            for damage in 0..3 {
                for (p, b) in &saved {
                    if !p.exists() {
                        std::fs::create_dir_all(&text_dir).unwrap();
                    }
                    std::fs::write(p, b).unwrap();
                }
                let mut b = bytes.clone();
                match damage {
                    0 => b.truncate(at),
                    1 => b[at..(at + 16).min(bytes.len())].fill(0xff),
                    _ => b[at..(at + 16).min(bytes.len())].fill(0),
                }
                std::fs::write(path, &b).unwrap();
                for read_only in [true, false] {
                    let g = if read_only {
                        Arc::new(
                            Graph::open_read_only(dir.path(), GraphOptions::default()).unwrap(),
                        )
                    } else {
                        open(dir.path())
                    };
                    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        let text = TextStore::new(Arc::clone(&g), dir.path());
                        text.refresh().unwrap();
                        text.search("graph mining", None, 5).unwrap()
                    }));
                    match ran {
                        Ok(hits) => assert!(hits.len() <= 5),
                        Err(e) => {
                            let why = e
                                .downcast_ref::<String>()
                                .cloned()
                                .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                                .unwrap_or_default();
                            let name = path.file_name().unwrap().to_string_lossy();
                            panics.push(format!(
                                "{name} {cut}/8 damage {damage} read-only {read_only}: {why}"
                            ));
                        }
                    }
                }
            }
        }
    }
    std::panic::set_hook(hook);
    assert!(panics.is_empty(), "{} panics: {panics:?}", panics.len());
}
