//! The Rust side of the Python per-call benchmark (benches/python/run.sh): the same `explore`
//! calls the Python driver (benches/python/calls.py) makes, through the facade, on a warmed
//! handle (node table built, vector index loaded), each statement of the file in turn for ROUNDS
//! rounds. Prints one JSON line: the calls, the p50 and mean microseconds per call, results
//! seen, and /proc/loadavg.
//!
//! Run: `cargo run --release --example calls -- DB STATEMENTS_FILE [ROUNDS]`
#![allow(clippy::unwrap_used, clippy::expect_used)] // a benchmark that cannot set up has nothing to report

use cairn::Cairn;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: calls DB STATEMENTS_FILE [ROUNDS]";
    let db = Cairn::open(args.first().expect(usage)).expect("open");
    let text = std::fs::read_to_string(args.get(1).expect(usage)).expect("statements");
    let statements: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let rounds: usize = args.get(2).map_or(200, |r| r.parse().expect("a number"));
    let warm = Instant::now();
    db.node_table().expect("node table");
    db.refresh_index().expect("vector index");
    let warm = warm.elapsed();
    for s in &statements {
        db.explore(s).expect("statement");
    }
    let mut micros = Vec::with_capacity(rounds * statements.len());
    let mut results = 0usize;
    for _ in 0..rounds {
        for s in &statements {
            let t = Instant::now();
            let found = db.explore(s).expect("statement");
            // what the Python side does with each result: read its name and path
            results += found
                .results
                .iter()
                .map(|r| r.name.len().min(1) + r.path.len())
                .sum::<usize>();
            micros.push(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    micros.sort_by(f64::total_cmp);
    let mean = micros.iter().sum::<f64>() / micros.len() as f64;
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "{}",
        serde_json::json!({
            "system": "rust", "calls": micros.len(), "p50_us": micros[micros.len() / 2],
            "mean_us": mean, "results": results, "warm_s": warm.as_secs_f64(),
            "loadavg": load.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
        })
    );
}
