//! Random graphs shared by the executor's property tests: node `i` has a label of
//! [`LABELS`], key `n{i}`, a name, `odd` (i is odd), `rank` (i·7 mod 5) and a description;
//! edges `(a, relation index, b)`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use cairn_storage_format::Value;
use cairn_store::{Graph, GraphOptions};
use proptest::prelude::*;

pub const LABELS: [&str; 2] = ["A", "B"];
pub const RELS: [&str; 2] = ["R", "S"];

/// A step of a path: relation index and direction (0 out, 1 in, 2 both).
pub type Step = (usize, u8);

/// A step as the language writes it (`R`, `<R`, `<R>`).
pub fn step_text((r, d): Step) -> String {
    match d {
        0 => RELS[r].to_owned(),
        1 => format!("<{}", RELS[r]),
        _ => format!("<{}>", RELS[r]),
    }
}

#[derive(Clone, Debug)]
pub struct Spec {
    pub labels: Vec<usize>,
    pub edges: Vec<(usize, usize, usize)>,
}

pub fn spec() -> impl Strategy<Value = Spec> {
    (2usize..20).prop_flat_map(|n| {
        (
            prop::collection::vec(0usize..2, n).prop_map(|mut l| {
                l[0] = 0;
                l[1] = 1;
                l
            }),
            prop::collection::vec((0..n, 0usize..2, 0..n), 0..(n * 3)),
        )
            .prop_map(move |(labels, mut edges)| {
                edges.push((0, 0, n - 1));
                edges.push((n - 1, 1, 0));
                Spec { labels, edges }
            })
    })
}

pub struct Db {
    pub _dir: tempfile::TempDir,
    pub graph: Graph,
}

pub fn build(s: &Spec) -> Db {
    let dir = tempfile::tempdir().unwrap();
    let graph = Graph::open(dir.path(), GraphOptions::default()).unwrap();
    let mut w = graph.writer().unwrap();
    let mut ids = Vec::new();
    for (i, l) in s.labels.iter().enumerate() {
        ids.push(
            w.upsert_node(
                LABELS[*l],
                &format!("n{i}"),
                [
                    ("name", Value::from(format!("node {i}"))),
                    ("odd", Value::from(i % 2 == 1)),
                    ("rank", Value::from((i * 7 % 5) as i64)),
                ],
                Some(&format!("node number {i}")),
            )
            .unwrap(),
        );
    }
    for (a, r, b) in &s.edges {
        w.add_edge(ids[*a], RELS[*r], ids[*b], Default::default())
            .unwrap();
    }
    w.commit().unwrap();
    Db { _dir: dir, graph }
}
