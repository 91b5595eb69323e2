//! The commit protocol's change sets and counter, savepoints, overlay reads, and the writer
//! lock's same-thread rule, on a real RocksDB database.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_storage_format::{EdgeProps, NodeId, Value};
use cairn_store::{ChangeSet, Direction, EngineError, Graph, GraphOptions, GraphRead};
use std::sync::Arc;
use std::time::Duration;

fn open(dir: &std::path::Path) -> Graph {
    Graph::open(dir, GraphOptions::default()).unwrap()
}

/// Upserts node (`label`, `key`) with property `v`.
fn upsert(w: &mut cairn_store::Writer<'_>, label: &str, key: &str, v: i64) -> NodeId {
    w.upsert_node(label, key, [("v", Value::Int(v))], None)
        .unwrap()
}

fn drain(rx: &std::sync::mpsc::Receiver<Arc<ChangeSet>>) -> Vec<Arc<ChangeSet>> {
    rx.try_iter().collect()
}

#[test]
fn subscribers_see_exactly_the_committed_change_sets_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let rx = g.subscribe();
    assert_eq!(g.commits(), 0);

    // Commit 1: two nodes, an edge, an index.
    let mut w = g.writer().unwrap();
    let a = w
        .upsert_node("Author", "a", [("name", Value::from("Ann"))], None)
        .unwrap();
    let p = w
        .upsert_node("Paper", "p", [("year", Value::Int(2020))], None)
        .unwrap();
    w.add_edge(a, "AUTHORED", p, EdgeProps::default()).unwrap();
    w.create_index("Paper", "year").unwrap();
    let stats = w.commit().unwrap();
    assert_eq!(stats.commit, 1);

    // Rolled back: a dropped writer, and a savepoint rolled back inside a committed one.
    let mut w = g.writer().unwrap();
    w.upsert_node("Author", "ghost", [("name", Value::from("No"))], None)
        .unwrap();
    drop(w);
    let mut w = g.writer().unwrap();
    let sp = w.savepoint();
    let ghost = w
        .upsert_node("Author", "ghost", [("name", Value::from("No"))], None)
        .unwrap();
    w.add_edge(ghost, "AUTHORED", p, EdgeProps::default())
        .unwrap();
    w.rollback_to(sp).unwrap();
    // Commit 2: p's year changes, a description-only change of a, the edge goes.
    w.upsert_node("Paper", "p", [("year", Value::Int(2021))], None)
        .unwrap();
    w.upsert_node(
        "Author",
        "a",
        Vec::<(&str, Value)>::new(),
        Some("an author"),
    )
    .unwrap();
    w.remove_edge(a, "AUTHORED", p).unwrap();
    w.commit().unwrap();

    // Nothing to commit: no change set, no counter step.
    let w = g.writer().unwrap();
    assert_eq!(w.commit().unwrap().commit, 0);

    // Commit 3: removing p removes nothing else (its edge is gone already).
    let mut w = g.writer().unwrap();
    assert!(w.remove_node(p).unwrap());
    w.commit().unwrap();

    let sets = drain(&rx);
    let rel = g.catalog().relation_id("AUTHORED").unwrap();
    assert_eq!(sets.len(), 3, "{sets:#?}");
    assert_eq!(
        *sets[0],
        ChangeSet {
            commit: 1,
            nodes_upserted: vec![a, p],
            edges_added: vec![(a, rel, p)],
            props_touched: vec![a, p],
            catalog_changed: true,
            ..ChangeSet::default()
        }
    );
    assert_eq!(
        *sets[1],
        ChangeSet {
            commit: 2,
            nodes_upserted: vec![a, p],
            edges_removed: vec![(a, rel, p)],
            props_touched: vec![p],
            // The savepoint's rollback undid the interning of nothing new: "Author" existed.
            catalog_changed: false,
            ..ChangeSet::default()
        }
    );
    assert_eq!(
        *sets[2],
        ChangeSet {
            commit: 3,
            nodes_removed: vec![p],
            props_touched: vec![p],
            ..ChangeSet::default()
        }
    );
    // The ghost's id was handed out again after the rollback: it never existed.
    assert!(g.node(ghost).unwrap().is_none());
    assert_eq!(g.commits(), 3);

    drop(rx);
    drop(g);
    let g = open(dir.path());
    assert_eq!(g.commits(), 3, "the counter survives reopening");
    let rx = g.subscribe();
    let mut w = g.writer().unwrap();
    w.upsert_node("Author", "b", [("name", Value::from("Bo"))], None)
        .unwrap();
    w.commit().unwrap();
    assert_eq!(drain(&rx).iter().map(|c| c.commit).collect::<Vec<_>>(), [4]);
}

#[test]
fn savepoints_undo_writes_and_overlay_reads_see_the_batch() {
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let mut w = g.writer().unwrap();
    let a = upsert(&mut w, "N", "a", 1);
    let b = upsert(&mut w, "N", "b", 2);
    w.add_edge(a, "R", b, EdgeProps::default()).unwrap();
    w.commit().unwrap();

    let mut w = g.writer().unwrap();
    let rel = w.relation("R").unwrap();
    let label = w.label("N").unwrap();
    let outer = w.savepoint();
    let c = upsert(&mut w, "N", "c", 3);
    w.add_edge(c, "R", a, EdgeProps::default()).unwrap();
    let inner = w.savepoint();
    w.remove_node(a).unwrap();
    assert!(w.node(a).unwrap().is_none());
    assert!(w.neighbors(b, Direction::In, &[]).unwrap().is_empty());
    w.rollback_to(inner).unwrap();
    let ins: Vec<NodeId> = w
        .neighbors(a, Direction::In, &[rel])
        .unwrap()
        .into_iter()
        .map(|n| n.node)
        .collect();
    assert_eq!(ins, [c], "the new edge is seen through the overlay");
    let outs: Vec<NodeId> = w
        .neighbors(a, Direction::Out, &[])
        .unwrap()
        .into_iter()
        .map(|n| n.node)
        .collect();
    assert_eq!(outs, [b], "the stored edge too");
    assert_eq!(w.node_id(label, "c").unwrap(), Some(c));
    w.rollback_to(outer).unwrap();
    assert!(w.node_id(label, "c").unwrap().is_none());
    assert!(
        w.rollback_to(inner).is_err(),
        "a savepoint after the one rolled back to is gone"
    );
    // The rolled-back node's id is free again; the database never saw it.
    let d = upsert(&mut w, "N", "d", 4);
    assert_eq!(d, c);
    w.commit().unwrap();
    assert!(g.node_id("N", "c").unwrap().is_none());
    assert_eq!(g.node_id("N", "d").unwrap(), Some(d));
    assert_eq!(g.neighbors(a, Direction::In, &[]).unwrap().len(), 0);
    assert_eq!(g.degree(a).unwrap().out, 1);
}

#[test]
fn a_second_writer_on_the_holding_thread_is_refused_not_deadlocked() {
    let dir = tempfile::tempdir().unwrap();
    let g = Arc::new(open(dir.path()));
    let w = g.writer().unwrap();
    assert!(matches!(g.writer(), Err(EngineError::WriterBusy { .. })));
    assert!(matches!(g.bulk_load(), Err(EngineError::WriterBusy { .. })));
    // Another thread waits; with a timeout it gives up.
    let other = Arc::clone(&g);
    let waited = std::thread::spawn(move || {
        matches!(
            other.writer_timeout(Duration::from_millis(50)),
            Err(EngineError::WriterBusy { .. })
        )
    })
    .join()
    .unwrap();
    assert!(waited);
    drop(w);
    // Released: the same thread may write again, and so may another.
    drop(g.writer().unwrap());
    let other = Arc::clone(&g);
    std::thread::spawn(move || drop(other.writer_timeout(Duration::from_secs(5)).unwrap()))
        .join()
        .unwrap();
}

#[test]
fn a_fork_holds_the_batch_and_the_database_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let mut w = g.writer().unwrap();
    let a = upsert(&mut w, "N", "a", 1);
    w.commit().unwrap();
    let mut w = g.writer().unwrap();
    let b = upsert(&mut w, "M", "b", 2);
    w.add_edge(a, "R", b, EdgeProps::default()).unwrap();
    let fork_dir = dir.path().join("fork");
    let fork = w.fork(&fork_dir).unwrap();
    assert_eq!(fork.node_id("M", "b").unwrap(), Some(b));
    assert_eq!(fork.neighbors(a, Direction::Out, &[]).unwrap().len(), 1);
    assert!(g.node_id("M", "b").unwrap().is_none());
    assert!(g.catalog().label_id("M").is_none());
    drop(fork);
    drop(w);
    assert!(g.neighbors(a, Direction::Out, &[]).unwrap().is_empty());
}

/// The change log (`changelog.rs`): each commit's change set is written in its own batch, so
/// that a process that did not see the commit (another process, or this one after a restart)
/// reads the same change sets the subscribers got.
#[test]
fn the_change_log_holds_the_change_set_of_every_commit() {
    let dir = tempfile::tempdir().unwrap();
    let g = open(dir.path());
    let rx = g.subscribe();
    let mut w = g.writer().unwrap();
    let a = upsert(&mut w, "Item", "a", 1);
    let b = upsert(&mut w, "Item", "b", 2);
    w.add_edge(a, "LINK", b, EdgeProps::default()).unwrap();
    w.commit().unwrap();
    let mut w = g.writer().unwrap();
    w.remove_edge(a, "LINK", b).unwrap();
    w.commit().unwrap();
    let mut w = g.writer().unwrap();
    w.remove_node(b).unwrap();
    upsert(&mut w, "Item", "c", 3);
    w.commit().unwrap();
    let seen = drain(&rx);
    assert_eq!(seen.len(), 3);
    assert_eq!(g.changes_between(0, 3).unwrap().unwrap(), seen);
    assert_eq!(g.changes_between(1, 3).unwrap().unwrap(), seen[1..]);
    assert_eq!(g.changes_between(3, 3).unwrap().unwrap(), []);
    assert!(
        g.changes_between(2, 4).unwrap().is_none(),
        "a commit not in the log"
    );

    // Another process (a reader beside the writer) reads the same entries.
    let r = Graph::open_read_only(dir.path(), GraphOptions::default()).unwrap();
    assert_eq!(r.changes_between(0, 3).unwrap().unwrap(), seen);
    assert!(r.prune_changes(3).is_err(), "a reader never writes");
    drop(r);

    // Pruned entries are gone: replaying across them is impossible, later ones stay.
    assert_eq!(g.prune_changes(1).unwrap(), 1);
    assert!(g.changes_between(0, 3).unwrap().is_none());
    assert_eq!(g.changes_between(1, 3).unwrap().unwrap(), seen[1..]);
    drop(g);
    let g = open(dir.path());
    assert_eq!(g.changes_between(1, 3).unwrap().unwrap(), seen[1..]);
    // A commit that changes nothing an index holds still has its entry: a gap means "unknown".
    let mut w = g.writer().unwrap();
    let c = g.node_id("Item", "c").unwrap().unwrap();
    w.add_edge(a, "LINK", c, EdgeProps::default()).unwrap();
    w.commit().unwrap();
    let last = g.changes_between(3, 4).unwrap().unwrap();
    assert_eq!(last.len(), 1);
    assert!(last[0].nodes_upserted.is_empty() && last[0].edges_added.len() == 1);
}
