//! Model-based property test: random sequences of writes, savepoints, rollbacks (to a savepoint
//! or of a whole batch) and index declarations, committed in random batches and across reopens,
//! leave the store — graph, catalog, property index — equal to a plain in-memory model.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_storage_format::{EdgeProps, NodeId, Value};
use cairn_store::{Direction, Graph, GraphOptions, GraphRead};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

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
        let dir = tempfile::tempdir().unwrap();
        let mut graph = Some(Graph::open(dir.path(), GraphOptions::default()).unwrap());
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
                        w.upsert_node(labels[l as usize], &k.to_string(), [("v", Value::Int(v))], None).unwrap();
                    }
                    Op::AddEdge { src, rel, dst } => {
                        if let (Some(s), Some(d)) = (id(&w, src), id(&w, dst)) {
                            w.add_edge(s, rels[rel as usize], d, EdgeProps::default()).unwrap();
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
                        graph = Some(Graph::open(dir.path(), GraphOptions::default()).unwrap());
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
                        let out: BTreeSet<_> = g.neighbors(id, Direction::Out, &[]).unwrap().into_iter()
                            .map(|n| (cat.relation_name(n.rel).unwrap().to_owned(), n.node)).collect();
                        let expected: BTreeSet<_> = committed.edges.iter().filter(|(s, _, _)| *s == (l, k))
                            .map(|(_, r, d)| (rels[*r as usize].to_owned(), g.node_id(labels[d.0 as usize], &d.1.to_string()).unwrap().unwrap())).collect();
                        prop_assert_eq!(&out, &expected);
                        let inc = g.neighbors(id, Direction::In, &[]).unwrap().len();
                        let expected_in = committed.edges.iter().filter(|(_, _, d)| *d == (l, k)).count();
                        prop_assert_eq!(inc, expected_in);
                        let deg = g.degree(id).unwrap();
                        prop_assert_eq!((deg.out as usize, deg.inc as usize), (expected.len(), expected_in));
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
                let mut found = g.find_eq(labels[l as usize], "v", &Value::Int(val)).unwrap();
                found.sort();
                let mut expected: Vec<NodeId> = committed.nodes.iter()
                    .filter(|((nl, _), x)| *nl == l && **x == val)
                    .map(|((nl, k), _)| g.node_id(labels[*nl as usize], &k.to_string()).unwrap().unwrap())
                    .collect();
                expected.sort();
                prop_assert_eq!(found, expected, "L{} v = {}", l, val);
            }
        }
    }
}
