//! The name index (`name` column family): after random writes, renames, deletes, savepoint
//! rollbacks, commits and reopens it equals a rebuild from the records; its lookups agree with
//! a brute-force map of the names; an old database gets it once on a writable open and is
//! refused read-only.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_storage_format::{LabelId, NodeId, Value};
use cairn_store::describe::{display_name, normalize_name};
use cairn_store::{EngineError, Graph, GraphOptions, GraphRead, NameHits};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Words names are made of: few, so that names share prefixes and several nodes share a name.
const WORDS: [&str; 4] = ["Ann", "lee", "Bo_Ng", "ann's"];

#[derive(Clone, Debug)]
enum Op {
    /// Upsert node `key` of label `key % 2`; `name` and `title` as word lists (`None`: leave the
    /// property as it is; `Some(empty)`: set it to a non-string, which unnames the property).
    Upsert {
        key: u8,
        name: Option<Vec<u8>>,
        title: Option<Vec<u8>>,
    },
    Remove {
        key: u8,
    },
    Savepoint,
    RollbackToSavepoint,
    Commit,
    Rollback,
    Reopen,
}

fn words() -> impl Strategy<Value = Option<Vec<u8>>> {
    proptest::option::of(proptest::collection::vec(0..WORDS.len() as u8, 0..4))
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..10u8, words(), words()).prop_map(|(key, name, title)| Op::Upsert { key, name, title }),
        2 => (0..10u8).prop_map(|key| Op::Remove { key }),
        1 => Just(Op::Savepoint),
        1 => Just(Op::RollbackToSavepoint),
        2 => Just(Op::Commit),
        1 => Just(Op::Rollback),
        1 => Just(Op::Reopen),
    ]
}

fn text(words: &[u8]) -> Value {
    if words.is_empty() {
        return Value::Int(0);
    }
    let w: Vec<&str> = words.iter().map(|i| WORDS[*i as usize]).collect();
    Value::from(w.join(" "))
}

/// The names of every node, by brute force: every label's nodes read and named as the planner
/// names them.
fn brute_force(g: &Graph) -> BTreeMap<String, Vec<(NodeId, LabelId)>> {
    let catalog = g.catalog();
    let mut out: BTreeMap<String, Vec<(NodeId, LabelId)>> = BTreeMap::new();
    for (label, _) in catalog.labels() {
        for id in g.label_nodes(label).unwrap() {
            let rec = g.node(id).unwrap().unwrap();
            let name = normalize_name(&display_name(&rec, &catalog));
            if !name.is_empty() {
                out.entry(name).or_default().push((id, label));
            }
        }
    }
    for hits in out.values_mut() {
        hits.sort();
    }
    out
}

/// Every lookup of a word sequence (up to three words) agrees with the brute-force map.
fn check(g: &Graph) -> Result<(), TestCaseError> {
    prop_assert_eq!(g.name_index_drift().unwrap(), Vec::<String>::new());
    let names = brute_force(g);
    let vocab: Vec<String> = WORDS
        .iter()
        .flat_map(|w| {
            normalize_name(w)
                .split(' ')
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .chain(["k3".to_owned(), "zz".to_owned()])
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut queries: Vec<String> = vocab.clone();
    for _ in 0..2 {
        let longer: Vec<String> = queries
            .iter()
            .filter(|q| q.split(' ').count() < 3)
            .flat_map(|q| vocab.iter().map(move |w| format!("{q} {w}")))
            .collect();
        queries.extend(longer);
    }
    queries.sort();
    queries.dedup();
    for q in queries {
        let expected = NameHits {
            nodes: names.get(&q).cloned().unwrap_or_default(),
            longer: names.keys().any(|n| n.starts_with(&format!("{q} "))),
        };
        prop_assert_eq!(g.nodes_named(&q).unwrap(), expected, "lookup {:?}", q);
    }
    Ok(())
}

fn apply(g: &Graph, ops: &[Op]) {
    let mut w = g.writer().unwrap();
    let mut savepoints = Vec::new();
    for op in ops {
        match op {
            Op::Upsert { key, name, title } => {
                let mut props = Vec::new();
                if let Some(n) = name {
                    props.push(("name", text(n)));
                }
                if let Some(t) = title {
                    props.push(("title", text(t)));
                }
                let label = if key % 2 == 0 { "A" } else { "B" };
                w.upsert_node(label, &format!("k{key}"), props, None)
                    .unwrap();
            }
            Op::Remove { key } => {
                let label = if key % 2 == 0 { "A" } else { "B" };
                let id = w
                    .catalog()
                    .label_id(label)
                    .and_then(|l| w.node_id(l, &format!("k{key}")).unwrap());
                if let Some(id) = id {
                    w.remove_node(id).unwrap();
                }
            }
            Op::Savepoint => savepoints.push(w.savepoint()),
            Op::RollbackToSavepoint => {
                if let Some(sp) = savepoints.last() {
                    w.rollback_to(*sp).unwrap();
                }
            }
            _ => {}
        }
    }
    w.commit().unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]
    #[test]
    fn name_index_equals_a_rebuild(ops in proptest::collection::vec(op(), 1..50)) {
        let dir = tempfile::tempdir().unwrap();
        let mut graph = Some(Graph::open(dir.path(), GraphOptions::default()).unwrap());
        let mut batch: Vec<Op> = Vec::new();
        for op in ops {
            match op {
                Op::Commit => {
                    apply(graph.as_ref().unwrap(), &batch);
                    batch.clear();
                    check(graph.as_ref().unwrap())?;
                }
                Op::Rollback => batch.clear(),
                Op::Reopen => {
                    batch.clear();
                    drop(graph.take());
                    graph = Some(Graph::open(dir.path(), GraphOptions::default()).unwrap());
                    check(graph.as_ref().unwrap())?;
                }
                op => batch.push(op),
            }
        }
        apply(graph.as_ref().unwrap(), &batch);
        check(graph.as_ref().unwrap())?;
    }
}

/// Names of more than 16 words are not indexed (no mention is that long); 16 are.
#[test]
fn long_names_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path(), GraphOptions::default()).unwrap();
    let sixteen = vec!["w"; 16].join(" ");
    let seventeen = vec!["w"; 17].join(" ");
    let mut w = g.writer().unwrap();
    let a = w
        .upsert_node("T", "a", [("text", Value::from(sixteen.as_str()))], None)
        .unwrap();
    w.upsert_node("T", "b", [("text", Value::from(seventeen.as_str()))], None)
        .unwrap();
    w.commit().unwrap();
    assert_eq!(g.nodes_named(&sixteen).unwrap().nodes.len(), 1);
    assert_eq!(g.nodes_named(&sixteen).unwrap().nodes[0].0, a);
    assert!(!g.nodes_named(&sixteen).unwrap().longer);
    assert!(g.nodes_named(&seventeen).unwrap().nodes.is_empty());
    assert_eq!(g.name_index_drift().unwrap(), Vec::<String>::new());
}

/// Turns a database back into format 1: no name entries, stamp 1 (what a database written
/// before the index looks like).
fn make_format_1(dir: &std::path::Path) {
    let path = dir.join("rocksdb");
    let opts = rocksdb::Options::default();
    let cfs = rocksdb::DB::list_cf(&opts, &path).unwrap();
    let db = rocksdb::DB::open_cf(&opts, &path, &cfs).unwrap();
    let name = db.cf_handle("name").unwrap();
    db.delete_range_cf(name, b"".as_slice(), b"\xFF".as_slice())
        .unwrap();
    db.put_cf(db.cf_handle("meta").unwrap(), b"format", 1u64.to_be_bytes())
        .unwrap();
    drop(db);
}

#[test]
fn an_old_database_gets_its_name_index_once() {
    let dir = tempfile::tempdir().unwrap();
    {
        let g = Graph::open(dir.path(), GraphOptions::default()).unwrap();
        let mut w = g.writer().unwrap();
        for i in 0..300 {
            w.upsert_node(
                "P",
                &format!("p{i}"),
                [("name", Value::from(format!("Person {}", i % 7)))],
                None,
            )
            .unwrap();
        }
        w.commit().unwrap();
    }
    make_format_1(dir.path());

    // Read-only cannot build it: a clear error naming the way out.
    let err = Graph::open_read_only(dir.path(), GraphOptions::default()).unwrap_err();
    assert!(
        matches!(err, EngineError::OldFormat { found: 1, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("stats"), "{err}");

    // A writable open builds it and stamps format 2.
    let g = Graph::open(dir.path(), GraphOptions::default()).unwrap();
    assert_eq!(g.name_index_drift().unwrap(), Vec::<String>::new());
    assert_eq!(g.nodes_named("person 3").unwrap().nodes.len(), 43);
    drop(g);
    let raw = {
        let path = dir.path().join("rocksdb");
        let opts = rocksdb::Options::default();
        let cfs = rocksdb::DB::list_cf(&opts, &path).unwrap();
        let db = rocksdb::DB::open_cf_for_read_only(&opts, &path, &cfs, false).unwrap();
        let v = db
            .get_cf(db.cf_handle("meta").unwrap(), b"format")
            .unwrap()
            .unwrap();
        u64::from_be_bytes(v.try_into().unwrap())
    };
    assert_eq!(raw, 2);
    // And now read-only opens work.
    let r = Graph::open_read_only(dir.path(), GraphOptions::default()).unwrap();
    assert_eq!(r.nodes_named("person 3").unwrap().nodes.len(), 43);
}
