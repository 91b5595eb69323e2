//! The new nodes' index entries of a bulk load, written as several name files over key ranges,
//! on a real database in a temporary directory.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_storage_format::{NodeId, NodeRecord, Value};
use cairn_store::{Graph, GraphOptions, GraphRead, NewNodeIndex};

/// 300,000 new authors in three unsorted parts, half of their names alike in their first 8
/// bytes (so that order falls to the whole keys): large enough to be split over the cores,
/// and every name is found once the load commits.
#[test]
fn a_large_name_index_split_into_files_finds_every_name() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path(), GraphOptions::default()).unwrap();
    let mut w = g.writer().unwrap();
    w.upsert_node("Author", "seed", [("name", Value::from("Seed"))], None)
        .unwrap();
    w.commit().unwrap();
    let catalog = g.catalog();
    let author = catalog.label_id("Author").unwrap();
    let name = catalog.prop_id("name").unwrap();
    let n = 300_000u64;
    let name_of = |i: u64| match i % 2 {
        0 => format!("Same Prefix {:06}", (i * 7919) % n),
        _ => format!("{:06} Other", (i * 104_729) % n),
    };
    let mut bulk = g.bulk_load().unwrap();
    let first = bulk.next_node_id();
    let records: Vec<(NodeId, NodeRecord)> = (0..n)
        .map(|i| {
            let rec = NodeRecord {
                label: author,
                key: format!("k{i}"),
                props: vec![(name, Value::from(name_of(i).as_str()))],
                description: None,
            };
            (NodeId(first + i), rec)
        })
        .collect();
    let files = bulk.files(first..first + n).unwrap();
    let mut parts: Vec<NewNodeIndex> = (0..3).map(|_| NewNodeIndex::default()).collect();
    for (i, (id, rec)) in records.iter().enumerate() {
        parts[i % 3].add(&catalog, *id, rec).unwrap();
    }
    let mut ingested = files.write_index(&mut parts).unwrap();
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    assert_eq!(ingested.len(), cores, "one name file per core");
    let encoded: Vec<(NodeId, Vec<u8>)> = records
        .iter()
        .map(|(id, rec)| (*id, rec.encode().unwrap()))
        .collect();
    ingested.extend(
        files
            .node_records(&encoded, |(id, rec)| (*id, rec.as_slice()))
            .unwrap(),
    );
    let mut by_key: Vec<(&str, NodeId)> = records
        .iter()
        .map(|(id, rec)| (rec.key.as_str(), *id))
        .collect();
    by_key.sort();
    ingested.extend(
        files
            .node_keys(&by_key, |(key, id)| (author, *key, *id))
            .unwrap(),
    );
    bulk.ingest(ingested).unwrap();
    bulk.commit((*catalog).clone(), first + n).unwrap();
    for i in 0..n {
        let hits = g.nodes_named(&name_of(i).to_lowercase()).unwrap().nodes;
        assert_eq!(hits, vec![(NodeId(first + i), author)], "{}", name_of(i));
    }
}
