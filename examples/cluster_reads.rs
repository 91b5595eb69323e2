//! Read throughput of a database (a Redis Cluster URL or a local directory) through the store's
//! batched read, the one a beam step of EXPLORE makes (`GraphRead::node_bundles`: the record,
//! degree and both adjacency lists of a batch of nodes; on a cluster one script per master per
//! batch). benches/cluster/run.sh runs it against clusters of 1, 3 and 6 masters.
//!
//! `cluster_reads DB NODES SECONDS THREADS BATCH [SEED]`: THREADS threads, each with a read-only
//! handle of its own (its own connections), no record cache, read batches of BATCH random node
//! ids below NODES for SECONDS; prints one JSON line: nodes read per second, batches per second, edges read, round
//! trips, and this process's CPU seconds (so that the client's share of a 2-core machine is
//! stated beside the figure).
//! Run: `cargo run --release --example cluster_reads -- redis://127.0.0.1:7100/g 1000000 10 4 64`
#![allow(clippy::unwrap_used, clippy::expect_used)] // a benchmark that cannot set up has nothing to report

use cairn::{Direction, Graph, GraphOptions, GraphRead, NodeId, OpenMode};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use std::time::{Duration, Instant};

/// This process's user + system CPU seconds (`/proc/self/stat`, clock ticks of 1/100 s).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = stat.rsplit(')').next().unwrap_or_default();
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    (tick(11) + tick(12)) / 100.0
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let db = args
        .first()
        .expect("DB (a redis:// URL or a directory)")
        .clone();
    let arg = |i: usize, default: u64| args.get(i).map_or(default, |s| s.parse().unwrap());
    let nodes = arg(1, 0);
    let seconds = arg(2, 10);
    let threads = arg(3, 4) as usize;
    let batch = arg(4, 64) as usize;
    let seed = arg(5, 7);
    assert!(nodes > 0, "NODES: how many node ids the database holds");
    let options = || GraphOptions {
        mode: OpenMode::ReadOnly,
        node_cache_capacity: 0,
        ..GraphOptions::default()
    };
    let graphs: Vec<Graph> = (0..threads)
        .map(|_| Graph::open_read_only(&db, options()).unwrap())
        .collect();
    let trips0: u64 = graphs.iter().filter_map(Graph::round_trips).sum();
    let cpu0 = cpu_seconds();
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let per_thread: Vec<(u64, u64, u64)> = std::thread::scope(|s| {
        let handles: Vec<_> = graphs
            .iter()
            .enumerate()
            .map(|(t, g)| {
                s.spawn(move || {
                    let mut rng = ChaCha8Rng::seed_from_u64(seed + t as u64);
                    let (mut batches, mut read, mut edges) = (0u64, 0u64, 0u64);
                    while Instant::now() < deadline {
                        let ids: Vec<NodeId> = (0..batch)
                            .map(|_| NodeId(rng.random_range(0..nodes)))
                            .collect();
                        let bundles = g.node_bundles(&ids, false, Some(Direction::Both)).unwrap();
                        batches += 1;
                        read += bundles.iter().filter(|b| b.record.is_some()).count() as u64;
                        edges += bundles
                            .iter()
                            .map(|b| (b.out.len() + b.inc.len()) as u64)
                            .sum::<u64>();
                    }
                    (batches, read, edges)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu0;
    let trips: u64 = graphs.iter().filter_map(Graph::round_trips).sum::<u64>() - trips0;
    let (batches, read, edges) = per_thread
        .iter()
        .fold((0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
    println!(
        "{}",
        json!({
            "db": db, "threads": threads, "batch": batch, "seconds": round(elapsed),
            "nodes_per_sec": (read as f64 / elapsed).round(),
            "batches_per_sec": (batches as f64 / elapsed).round(),
            "edges_read": edges, "round_trips": trips,
            "round_trips_per_batch": round(trips as f64 / batches.max(1) as f64),
            "client_cpu_seconds": round(cpu), "client_cores": round(cpu / elapsed),
        })
    );
}

fn round(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
