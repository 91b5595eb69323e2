//! The graph-level half of the storage boundary's conformance suite (docs/STORAGE.md), run on
//! every backend of `common::backends`: the model-based transaction test, readers beside a
//! writer, and the atomicity of imports. The key-value half is `store/src/storage/conformance.rs`.
//!
//! The model test: random sequences of writes, savepoints, rollbacks (to a savepoint or of a
//! whole batch) and index declarations, committed in random batches and across reopens, leave
//! the store — graph, catalog, property index — equal to a plain in-memory model.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cairn_storage_format::{Degree, EdgeProps, NodeId, NodeRecord, PropKeyId, Value};
use cairn_store::{Direction, Graph, GraphRead};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

#[derive(Clone, Debug)]
enum Op {
    Upsert { key: u8, v: i64 },
    AddEdge { src: u8, rel: u8, dst: u8 },
    RemoveEdge { src: u8, rel: u8, dst: u8 },
    RemoveNode { key: u8 },
    CreateIndex { label: u8 },
    Savepoint,
    RollbackToSavepoint,
    Rollback,
    Commit,
    Reopen,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..8u8, -3..3i64).prop_map(|(key, v)| Op::Upsert { key, v }),
        6 => (0..8u8, 0..2u8, 0..8u8).prop_map(|(src, rel, dst)| Op::AddEdge { src, rel, dst }),
        2 => (0..8u8, 0..2u8, 0..8u8).prop_map(|(src, rel, dst)| Op::RemoveEdge { src, rel, dst }),
        1 => (0..8u8).prop_map(|key| Op::RemoveNode { key }),
        1 => (0..2u8).prop_map(|label| Op::CreateIndex { label }),
        1 => Just(Op::Savepoint),
        1 => Just(Op::RollbackToSavepoint),
        1 => Just(Op::Rollback),
        2 => Just(Op::Commit),
        1 => Just(Op::Reopen),
    ]
}

/// Model: nodes by (label, key) with a value; edges between node keys. Node "key" k of the ops
/// refers to label k % 2 so that both labels take part.
/// (source node, relation, destination node).
type ModelEdge = ((u8, u8), u8, (u8, u8));

#[derive(Default, Clone)]
struct Model {
    nodes: BTreeMap<(u8, u8), i64>,
    edges: BTreeSet<ModelEdge>,
    /// Labels with an index on `v`.
    indexed: BTreeSet<u8>,
}

fn node_of(k: u8) -> (u8, u8) {
    (k % 2, k)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]
    #[test]
    fn store_matches_model(ops in proptest::collection::vec(op(), 1..60)) {
        for db in common::backends() {
            check_model(&db, ops.clone())?;
        }
    }
}

fn check_model(db: &common::TestDb, ops: Vec<Op>) -> Result<(), TestCaseError> {
    {
        let mut graph = Some(db.open());
        let mut committed = Model::default();
        let mut pending = committed.clone();
        // The model at each savepoint of the open batch.
        let mut saved: Vec<Model> = Vec::new();
        let labels = ["L0", "L1"];
        let rels = ["R0", "R1"];
        let mut batch: Vec<Op> = Vec::new();
        // Replays a batch on a writer; node ids are looked up through the writer, since ids of
        // rolled-back nodes are handed out again.
        let apply = |g: &Graph, batch: &mut Vec<Op>| {
            let mut w = g.writer().unwrap();
            let mut savepoints = Vec::new();
            let id = |w: &cairn_store::Writer<'_>, k: u8| -> Option<NodeId> {
                let (l, k) = node_of(k);
                let label = w.catalog().label_id(labels[l as usize])?;
                w.node_id(label, &k.to_string()).unwrap()
            };
            for op in batch.drain(..) {
                match op {
                    Op::Upsert { key, v } => {
                        let (l, k) = node_of(key);
                        w.upsert_node(
                            labels[l as usize],
                            &k.to_string(),
                            [("v", Value::Int(v))],
                            None,
                        )
                        .unwrap();
                    }
                    Op::AddEdge { src, rel, dst } => {
                        if let (Some(s), Some(d)) = (id(&w, src), id(&w, dst)) {
                            w.add_edge(s, rels[rel as usize], d, EdgeProps::default())
                                .unwrap();
                        }
                    }
                    Op::RemoveEdge { src, rel, dst } => {
                        if let (Some(s), Some(d)) = (id(&w, src), id(&w, dst)) {
                            w.remove_edge(s, rels[rel as usize], d).unwrap();
                        }
                    }
                    Op::RemoveNode { key } => {
                        if let Some(id) = id(&w, key) {
                            assert!(w.remove_node(id).unwrap());
                        }
                    }
                    Op::CreateIndex { label } => {
                        w.create_index(labels[label as usize], "v").unwrap();
                    }
                    Op::Savepoint => savepoints.push(w.savepoint()),
                    Op::RollbackToSavepoint => {
                        if let Some(sp) = savepoints.last() {
                            w.rollback_to(*sp).unwrap();
                        }
                    }
                    Op::Rollback | Op::Commit | Op::Reopen => {}
                }
            }
            w.commit().unwrap();
        };
        for op in ops {
            match &op {
                Op::Upsert { key, v } => {
                    pending.nodes.insert(node_of(*key), *v);
                }
                Op::AddEdge { src, rel, dst } => {
                    let (s, d) = (node_of(*src), node_of(*dst));
                    if pending.nodes.contains_key(&s) && pending.nodes.contains_key(&d) {
                        pending.edges.insert((s, *rel, d));
                    }
                }
                Op::RemoveEdge { src, rel, dst } => {
                    pending.edges.remove(&(node_of(*src), *rel, node_of(*dst)));
                }
                Op::RemoveNode { key } => {
                    let n = node_of(*key);
                    pending.nodes.remove(&n);
                    pending.edges.retain(|(s, _, d)| *s != n && *d != n);
                }
                Op::CreateIndex { label } => {
                    pending.indexed.insert(*label);
                }
                Op::Savepoint => saved.push(pending.clone()),
                Op::RollbackToSavepoint => {
                    if let Some(m) = saved.last() {
                        pending = m.clone();
                    }
                }
                Op::Commit => {
                    apply(graph.as_ref().unwrap(), &mut batch);
                    committed = pending.clone();
                    saved.clear();
                    continue;
                }
                Op::Rollback | Op::Reopen => {
                    // Uncommitted work is lost with the writer; the model forgets it too.
                    batch.clear();
                    saved.clear();
                    pending = committed.clone();
                    if matches!(op, Op::Reopen) {
                        drop(graph.take());
                        graph = Some(db.open());
                    }
                    continue;
                }
            }
            batch.push(op);
        }
        let g = graph.as_ref().unwrap();
        apply(g, &mut batch);
        committed = pending;

        // Compare: nodes, values, edges in both directions, degrees.
        let cat = g.catalog();
        let v = cat.prop_id("v");
        for l in 0..2u8 {
            for k in 0..8u8 {
                let id = g.node_id(labels[l as usize], &k.to_string()).unwrap();
                match committed.nodes.get(&(l, k)) {
                    Some(val) => {
                        let id = id.expect("node missing");
                        let rec = g.node(id).unwrap().expect("record missing");
                        prop_assert_eq!(rec.prop(v.unwrap()), Some(&Value::Int(*val)));
                        let out: BTreeSet<_> = g
                            .neighbors(id, Direction::Out, &[])
                            .unwrap()
                            .into_iter()
                            .map(|n| (cat.relation_name(n.rel).unwrap().to_owned(), n.node))
                            .collect();
                        let expected: BTreeSet<_> = committed
                            .edges
                            .iter()
                            .filter(|(s, _, _)| *s == (l, k))
                            .map(|(_, r, d)| {
                                (
                                    rels[*r as usize].to_owned(),
                                    g.node_id(labels[d.0 as usize], &d.1.to_string())
                                        .unwrap()
                                        .unwrap(),
                                )
                            })
                            .collect();
                        prop_assert_eq!(&out, &expected);
                        let inc = g.neighbors(id, Direction::In, &[]).unwrap().len();
                        let expected_in = committed
                            .edges
                            .iter()
                            .filter(|(_, _, d)| *d == (l, k))
                            .count();
                        prop_assert_eq!(inc, expected_in);
                        let deg = g.degree(id).unwrap();
                        prop_assert_eq!(
                            (deg.out as usize, deg.inc as usize),
                            (expected.len(), expected_in)
                        );
                    }
                    None => prop_assert!(id.is_none()),
                }
            }
        }
        // Catalog: the declared indexes; property index: every value's nodes, by index or scan.
        for l in 0..2u8 {
            let declared = match (cat.label_id(labels[l as usize]), v) {
                (Some(label), Some(p)) => cat.has_index(label, p),
                _ => false,
            };
            prop_assert_eq!(declared, committed.indexed.contains(&l), "index on L{}", l);
            for val in -3..3i64 {
                let mut found = g
                    .find_eq(labels[l as usize], "v", &Value::Int(val))
                    .unwrap();
                found.sort();
                let mut expected: Vec<NodeId> = committed
                    .nodes
                    .iter()
                    .filter(|((nl, _), x)| *nl == l && **x == val)
                    .map(|((nl, k), _)| {
                        g.node_id(labels[*nl as usize], &k.to_string())
                            .unwrap()
                            .unwrap()
                    })
                    .collect();
                expected.sort();
                prop_assert_eq!(found, expected, "L{} v = {}", l, val);
            }
        }
    }
    Ok(())
}

/// Readers beside a writer: every commit adds 7 edges to a hub and sets its `count` to the
/// number of edges; readers — snapshots of the writer's handle on other threads, and a
/// read-only handle that catches up — never see a count out of step with the edges or the
/// degree, and see the commits in order.
#[test]
fn readers_never_see_half_a_commit() {
    for db in common::backends() {
        let g = Arc::new(db.open());
        let hub = {
            let mut w = g.writer().unwrap();
            let hub = w
                .upsert_node("N", "hub", [("count", Value::Int(0))], None)
                .unwrap();
            w.commit().unwrap();
            hub
        };
        let count_key: PropKeyId = g.catalog().prop_id("count").unwrap();
        const BATCHES: i64 = 60;
        const PER_BATCH: i64 = 7;
        let reader = Arc::new(db.open_reader());
        let check = move |view: &dyn GraphRead| -> i64 {
            let count = match view.node(hub).unwrap().unwrap().prop(count_key) {
                Some(Value::Int(c)) => *c,
                other => panic!("bad count {other:?}"),
            };
            let edges = view.neighbors(hub, Direction::Out, &[]).unwrap().len() as i64;
            let degree = view.degree(hub).unwrap().out;
            assert_eq!(edges, count, "saw part of a commit");
            assert_eq!(degree, count, "degree out of step with edges");
            count
        };
        let writer = {
            let g = g.clone();
            std::thread::spawn(move || {
                for b in 0..BATCHES {
                    let mut w = g.writer().unwrap();
                    for i in 0..PER_BATCH {
                        let n = w
                            .upsert_node(
                                "N",
                                &format!("n{b}-{i}"),
                                Vec::<(&str, Value)>::new(),
                                None,
                            )
                            .unwrap();
                        w.add_edge(hub, "R", n, EdgeProps::default()).unwrap();
                    }
                    w.upsert_node(
                        "N",
                        "hub",
                        [("count", Value::Int((b + 1) * PER_BATCH))],
                        None,
                    )
                    .unwrap();
                    w.commit().unwrap();
                }
            })
        };
        let mut readers: Vec<std::thread::JoinHandle<usize>> = (0..2)
            .map(|_| {
                let g = g.clone();
                std::thread::spawn(move || {
                    let mut checks = 0;
                    loop {
                        let count = check(&g.snapshot());
                        // Latest-state reads of a single record are atomic too.
                        assert!(matches!(
                            g.node(hub).unwrap().unwrap().prop(count_key),
                            Some(Value::Int(c)) if c % PER_BATCH == 0
                        ));
                        checks += 1;
                        if count == BATCHES * PER_BATCH {
                            return checks;
                        }
                    }
                })
            })
            .collect();
        readers.push({
            let reader = reader.clone();
            std::thread::spawn(move || {
                let (mut checks, mut last) = (0, 0);
                loop {
                    reader.catch_up().unwrap();
                    let count = check(&reader.snapshot());
                    assert!(count >= last, "commits out of order: {count} after {last}");
                    last = count;
                    checks += 1;
                    if count == BATCHES * PER_BATCH {
                        return checks;
                    }
                }
            })
        });
        writer.join().unwrap();
        for r in readers {
            assert!(r.join().unwrap() > 0, "{}", db.name);
        }
    }
}

/// Adds the parts of a bulk load of `n` new authors `new<i>` named "Zed Newcomer", each with an
/// edge to `target`, to `bulk` (ingested, not committed): records, keys, name entries,
/// degrees and `out` edges as parts, and `target`'s `in` edges and degree in the final batch.
fn load_newcomers(
    g: &Graph,
    bulk: &mut cairn_store::BulkLoad<'_>,
    n: u64,
    target: NodeId,
) -> (u64, cairn_store::Catalog) {
    let mut catalog = (*g.catalog()).clone();
    let author = catalog.intern_label("Author").unwrap().0;
    let name = catalog.intern_prop("name").unwrap().0;
    let knows = catalog.intern_relation("KNOWS").unwrap().0;
    let first = bulk.next_node_id();
    let ids: Vec<NodeId> = (first..first + n).map(NodeId).collect();
    let files = bulk.files(first..first + n).unwrap();
    let records: Vec<(NodeId, NodeRecord)> = ids
        .iter()
        .map(|id| {
            let rec = NodeRecord {
                label: author,
                key: format!("new{}", id.0),
                props: vec![(name, Value::from("Zed Newcomer"))],
                description: None,
            };
            (*id, rec)
        })
        .collect();
    let encoded: Vec<(NodeId, Vec<u8>)> = records
        .iter()
        .map(|(id, r)| (*id, r.encode().unwrap()))
        .collect();
    let mut parts = Vec::new();
    parts.extend(
        files
            .node_records(&encoded, |(id, r)| (*id, r.as_slice()))
            .unwrap(),
    );
    let mut keys: Vec<(String, NodeId)> =
        records.iter().map(|(id, r)| (r.key.clone(), *id)).collect();
    keys.sort();
    parts.extend(
        files
            .node_keys(&keys, |(k, id)| (author, k.as_str(), *id))
            .unwrap(),
    );
    let mut index = cairn_store::NewNodeIndex::default();
    for (id, r) in &records {
        index.add(&catalog, *id, r).unwrap();
    }
    parts.extend(files.write_index(&mut [index]).unwrap());
    parts.extend(
        files
            .degrees(&ids, |id| (*id, Degree { out: 1, inc: 0 }))
            .unwrap(),
    );
    parts.extend(
        files
            .edges(Direction::Out, 0, &ids, |id| (*id, knows, target, &[][..]))
            .unwrap(),
    );
    for id in &ids {
        bulk.put_edge((*id, knows, target), &[], false, true)
            .unwrap();
    }
    bulk.add_degree(
        target,
        Degree {
            out: 0,
            inc: n as i64,
        },
    )
    .unwrap();
    bulk.ingest(parts).unwrap();
    (first, catalog)
}

/// What a reader sees of the newcomers: (nodes by key, by name, in-edges of the target, its
/// in-degree, degrees scanned of new ids).
fn newcomers_seen(view: &dyn GraphRead, first: u64, n: u64, target: NodeId) -> [usize; 5] {
    let by_key = (first..first + n)
        .filter(|i| {
            view.node_id("Author", &format!("new{i}"))
                .unwrap()
                .is_some()
        })
        .count();
    let by_name = view.nodes_named("zed newcomer").unwrap().nodes.len();
    let in_edges = view.neighbors(target, Direction::In, &[]).unwrap().len();
    let in_degree = view.degree(target).unwrap().inc as usize;
    let records = view
        .nodes(&(first..first + n).map(NodeId).collect::<Vec<_>>())
        .unwrap()
        .iter()
        .filter(|r| r.is_some())
        .count();
    [by_key, by_name, in_edges, in_degree, records]
}

/// An import is all or nothing: dropped after its parts are in (an error before the commit),
/// nothing of it is seen — by the writer's handle, a reader beside it, after a reopen — and its
/// ids are handed out again; committed, all of it is, and a snapshot from before still shows
/// none of it.
#[test]
fn an_import_is_all_or_nothing() {
    const N: u64 = 40;
    for db in common::backends() {
        let g = db.open();
        let target = {
            let mut w = g.writer().unwrap();
            let t = w
                .upsert_node("Author", "target", [("name", Value::from("T"))], None)
                .unwrap();
            w.commit().unwrap();
            t
        };
        let reader = db.open_reader();
        let none = [0, 0, 0, 0, 0];
        let mut bulk = g.bulk_load().unwrap();
        let (first, _) = load_newcomers(&g, &mut bulk, N, target);
        assert_eq!(
            newcomers_seen(&g, first, N, target),
            none,
            "{}: before the commit",
            db.name
        );
        reader.catch_up().unwrap();
        assert_eq!(newcomers_seen(&reader, first, N, target), none);
        drop(bulk);
        assert_eq!(
            newcomers_seen(&g, first, N, target),
            none,
            "{}: dropped",
            db.name
        );
        drop(g);
        let g = db.open();
        assert_eq!(
            newcomers_seen(&g, first, N, target),
            none,
            "{}: reopened",
            db.name
        );
        let mut degrees = Vec::new();
        g.scan_degrees(|id, _| degrees.push(id)).unwrap();
        assert_eq!(
            degrees,
            vec![],
            "{}: no degree of a dropped import",
            db.name
        );

        let mut bulk = g.bulk_load().unwrap();
        let (again, catalog) = load_newcomers(&g, &mut bulk, N, target);
        assert_eq!(again, first, "the dropped ids are handed out again");
        let before = g.snapshot();
        bulk.commit(catalog, first + N).unwrap();
        let all = [N as usize; 5];
        assert_eq!(
            newcomers_seen(&g, first, N, target),
            all,
            "{}: committed",
            db.name
        );
        assert_eq!(
            newcomers_seen(&before, first, N, target),
            none,
            "{}: older snapshot",
            db.name
        );
        reader.catch_up().unwrap();
        assert_eq!(
            newcomers_seen(&reader, first, N, target),
            all,
            "{}: reader",
            db.name
        );
        drop(before);
        drop(g);
        let g = db.open();
        assert_eq!(
            newcomers_seen(&g, first, N, target),
            all,
            "{}: reopened",
            db.name
        );
    }
}
