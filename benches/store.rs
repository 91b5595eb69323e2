//! Store micro-benchmarks, each beside the raw RocksDB operation on the same keys, same
//! database, same run (the machine is shared and noisy: compare the ratios, not the times).
//! The raw side opens the database's RocksDB directory read-only beside the graph.
//!
//! - `node_lookup/cairn_cached`: `Graph::node` with the record cache (the default).
//! - `node_lookup/cairn_uncached`: `Graph::node` with the cache off: RocksDB get + decode.
//! - `node_lookup/raw_get`: `DB::get_pinned_cf` of the same key, no decode.
//! - `neighbors/cairn`: `GraphRead::neighbors_into` of ~20 out-edges, decoded.
//! - `neighbors/raw_scan`: a raw iterator over the same 8-byte prefix, touching each key/value.
//!
//! Run: `cargo bench --bench store` (add `-- --quick` for a shorter run).
#![allow(clippy::expect_used)] // a benchmark that cannot set up has nothing to report

use cairn::format::keys::edge_prefix;
use cairn::format::NodeKey;
use cairn::{Direction, EdgeProps, Graph, GraphOptions, GraphRead, NodeId, Value};
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use std::path::Path;

const NODES: u64 = 50_000;
const DEGREE: u64 = 20;
const SAMPLE_IDS: usize = 4096;

/// A small deterministic generator (splitmix64), so runs see the same graph and ids.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn build(dir: &Path) -> Vec<NodeId> {
    let graph = Graph::open(dir, GraphOptions::default()).expect("open");
    let mut rng = Rng(7);
    let mut ids = Vec::with_capacity(NODES as usize);
    for chunk in 0..NODES / 5_000 {
        let mut w = graph.writer().expect("writer");
        for i in chunk * 5_000..(chunk + 1) * 5_000 {
            let props = [
                (
                    "title",
                    Value::from(format!("Paper number {i} on graph exploration")),
                ),
                ("year", Value::Int(1990 + (i % 35) as i64)),
            ];
            ids.push(
                w.upsert_node("Paper", &format!("p{i}"), props, None)
                    .expect("upsert"),
            );
        }
        w.commit().expect("commit");
    }
    for chunk in ids.chunks(2_000) {
        let mut w = graph.writer().expect("writer");
        for &src in chunk {
            for _ in 0..DEGREE {
                let dst = ids[(rng.next() % NODES) as usize];
                w.add_edge(src, "CITES", dst, EdgeProps::default())
                    .expect("edge");
            }
        }
        w.commit().expect("commit");
    }
    drop(graph);
    // Push everything into SST files so reads exercise the table path, not only memtables.
    let db = rocksdb::DB::open_cf(&rocksdb::Options::default(), dir.join("rocksdb"), CFS)
        .expect("open raw");
    for cf in ["node", "out", "in", "degree"] {
        db.flush_cf(db.cf_handle(cf).expect("cf")).expect("flush");
    }
    ids
}

/// Every column family of a Cairn database.
const CFS: [&str; 9] = [
    "meta", "node", "node_key", "out", "in", "degree", "prop", "vector", "name",
];

/// The database's RocksDB opened read-only beside the graph that holds it.
fn raw(dir: &Path) -> rocksdb::DB {
    rocksdb::DB::open_cf_for_read_only(
        &rocksdb::Options::default(),
        dir.join("rocksdb"),
        CFS,
        false,
    )
    .expect("open raw read-only")
}

fn sample(ids: &[NodeId]) -> Vec<NodeId> {
    let mut rng = Rng(42);
    (0..SAMPLE_IDS)
        .map(|_| ids[(rng.next() % ids.len() as u64) as usize])
        .collect()
}

fn bench_store(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let ids = build(dir.path());
    let probe = sample(&ids);

    let mut group = c.benchmark_group("node_lookup");
    for (name, capacity) in [("cairn_uncached", 0usize), ("cairn_cached", 100_000)] {
        let graph = Graph::open(
            dir.path(),
            GraphOptions {
                node_cache_capacity: capacity,
                ..Default::default()
            },
        )
        .expect("open");
        for id in &probe {
            black_box(graph.node(*id).expect("node"));
        }
        let mut i = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                i = (i + 1) % probe.len();
                black_box(graph.node(probe[i]).expect("node"))
            })
        });
        let db = raw(dir.path());
        let cf = db.cf_handle("node").expect("cf");
        let mut i = 0;
        group.bench_function(format!("raw_get_beside_{name}"), |b| {
            b.iter(|| {
                i = (i + 1) % probe.len();
                black_box(
                    db.get_pinned_cf(cf, NodeKey(probe[i]).encode())
                        .expect("get")
                        .map(|v| v.len()),
                )
            })
        });
    }
    group.finish();

    let graph = Graph::open(dir.path(), GraphOptions::default()).expect("open");
    let mut group = c.benchmark_group("neighbors");
    let mut buf = Vec::new();
    let mut i = 0;
    group.bench_function("cairn", |b| {
        b.iter(|| {
            i = (i + 1) % probe.len();
            buf.clear();
            graph
                .neighbors_into(probe[i], Direction::Out, &[], &mut buf)
                .expect("neighbors");
            black_box(buf.len())
        })
    });
    let db = raw(dir.path());
    let cf = db.cf_handle("out").expect("cf");
    let mut i = 0;
    group.bench_function("raw_scan", |b| {
        b.iter(|| {
            i = (i + 1) % probe.len();
            let prefix = edge_prefix(probe[i]);
            let upper = (probe[i].0 + 1).to_be_bytes(); // the prefix is the node id itself
            let mut opts = rocksdb::ReadOptions::default();
            opts.set_iterate_upper_bound(upper.to_vec());
            let mut it = db.raw_iterator_cf_opt(cf, opts);
            it.seek(prefix);
            let mut n = 0usize;
            while let (Some(k), Some(v)) = (it.key(), it.value()) {
                n += k.len() + v.len();
                it.next();
            }
            black_box(n)
        })
    });
    group.finish();
}

criterion_group!(benches, bench_store);
criterion_main!(benches);
