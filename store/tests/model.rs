//! Model-based property test: random sequences of writes, committed in random batches and
//! across reopens, leave the store equal to a plain in-memory model of the graph.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_storage_format::{EdgeProps, NodeId, Value};
use cairn_store::{Direction, Graph, GraphOptions, GraphRead};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug)]
enum Op {
    Upsert { label: u8, key: u8, v: i64 },
    AddEdge { src: u8, rel: u8, dst: u8 },
    RemoveEdge { src: u8, rel: u8, dst: u8 },
    RemoveNode { key: u8 },
    Commit,
    Reopen,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..2u8, 0..8u8, -3..3i64).prop_map(|(label, key, v)| Op::Upsert { label, key, v }),
        6 => (0..8u8, 0..2u8, 0..8u8).prop_map(|(src, rel, dst)| Op::AddEdge { src, rel, dst }),
        2 => (0..8u8, 0..2u8, 0..8u8).prop_map(|(src, rel, dst)| Op::RemoveEdge { src, rel, dst }),
        1 => (0..8u8).prop_map(|key| Op::RemoveNode { key }),
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
}

fn node_of(k: u8) -> (u8, u8) {
    (k % 2, k)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn store_matches_model(ops in proptest::collection::vec(op(), 1..60)) {
        let dir = tempfile::tempdir().unwrap();
        let mut graph = Some(Graph::open(dir.path(), GraphOptions::default()).unwrap());
        let mut committed = Model::default();
        let mut pending = committed.clone();
        let mut ids: BTreeMap<(u8, u8), NodeId> = BTreeMap::new();
        let labels = ["L0", "L1"];
        let rels = ["R0", "R1"];
        let mut batch: Vec<Op> = Vec::new();
        let apply = |g: &Graph, batch: &mut Vec<Op>, ids: &mut BTreeMap<(u8, u8), NodeId>| {
            let mut w = g.writer();
            for op in batch.drain(..) {
                match op {
                    Op::Upsert { label, key, v } => {
                        let _ = label;
                        let (l, k) = node_of(key);
                        let id = w.upsert_node(labels[l as usize], &k.to_string(), [("v", Value::Int(v))], None).unwrap();
                        ids.insert((l, k), id);
                    }
                    Op::AddEdge { src, rel, dst } => {
                        let (s, d) = (ids.get(&node_of(src)).copied(), ids.get(&node_of(dst)).copied());
                        if let (Some(s), Some(d)) = (s, d) {
                            if w.node(s).unwrap().is_some() && w.node(d).unwrap().is_some() {
                                w.add_edge(s, rels[rel as usize], d, EdgeProps::default()).unwrap();
                            }
                        }
                    }
                    Op::RemoveEdge { src, rel, dst } => {
                        if let (Some(s), Some(d)) = (ids.get(&node_of(src)), ids.get(&node_of(dst))) {
                            w.remove_edge(*s, rels[rel as usize], *d).unwrap();
                        }
                    }
                    Op::RemoveNode { key } => {
                        if let Some(id) = ids.get(&node_of(key)) {
                            w.remove_node(*id).unwrap();
                        }
                    }
                    Op::Commit | Op::Reopen => {}
                }
            }
            w.commit().unwrap();
        };
        for op in ops {
            match &op {
                Op::Upsert { key, v, .. } => {
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
                Op::Commit => {
                    apply(graph.as_ref().unwrap(), &mut batch, &mut ids);
                    committed = pending.clone();
                    continue;
                }
                Op::Reopen => {
                    // Uncommitted work is lost with the writer; the model forgets it too.
                    batch.clear();
                    pending = committed.clone();
                    // Ids of nodes created in the discarded batch stay in `ids`; ops check
                    // existence through the writer before using them.
                    drop(graph.take());
                    graph = Some(Graph::open(dir.path(), GraphOptions::default()).unwrap());
                    continue;
                }
            }
            batch.push(op);
        }
        let g = graph.as_ref().unwrap();
        apply(g, &mut batch, &mut ids);
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
    }
}
