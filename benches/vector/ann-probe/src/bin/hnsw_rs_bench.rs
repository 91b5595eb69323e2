//! hnsw_rs 0.3.5 (DistDot on unit vectors, simdeez_f) on the gen_vectors.py data; JSON lines.
use ann_probe::{threads, Data};
use anndists::dist::DistDot;
use hnsw_rs::prelude::*;
use std::time::Instant;

/// CPU seconds of this thread (queries run on one thread; immune to other processes' load).
fn thread_cpu() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|x| x.parse::<f64>().ok()))
        .map_or(0.0, |ns| ns / 1e9)
}

/// CPU seconds of the whole process (all build threads).
fn process_cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let f: Vec<&str> = s.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let t = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (t(11) + t(12)) / 100.0
}

fn load1() -> String {
    std::fs::read_to_string("/proc/loadavg").unwrap_or_default().split_whitespace().next().unwrap_or("0").to_owned()
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: hnsw_rs_bench DATA_DIR");
    let d = Data::load(std::path::Path::new(&dir));
    let th = threads();
    let pool = rayon_threads(th);
    let hnsw = Hnsw::<f32, DistDot>::new(16, d.n, 16, 200, DistDot {});
    let rows: Vec<(&[f32], usize)> = (0..d.n).map(|i| (d.row(i), i)).collect();
    let (t0, c0) = (Instant::now(), process_cpu());
    pool(&|| hnsw.parallel_insert_slice(&rows));
    let build = t0.elapsed().as_secs_f64();
    let build_cpu = process_cpu() - c0;
    println!("{{\"lib\":\"hnsw_rs-0.3.5\",\"step\":\"build\",\"n\":{},\"dim\":{},\"m\":16,\"ef_construction\":200,\"threads\":{th},\"build_secs\":{build:.2},\"build_cpu_secs\":{build_cpu:.2},\"load1\":{}}}", d.n, d.dim, load1());
    for ef in [32usize, 64, 128, 256] {
        let mut hits = 0;
        let (t0, c0) = (Instant::now(), thread_cpu());
        for qi in 0..d.q {
            let res = hnsw.search(d.query(qi), 10, ef);
            let ids: Vec<usize> = res.iter().map(|n| n.d_id).collect();
            hits += d.hits(qi, &ids);
        }
        let s = t0.elapsed().as_secs_f64();
        let cpu = thread_cpu() - c0;
        println!("{{\"lib\":\"hnsw_rs-0.3.5\",\"step\":\"search\",\"ef\":{ef},\"k\":10,\"queries\":{},\"recall_at_10\":{:.4},\"qps\":{:.1},\"mean_ms\":{:.3},\"qps_cpu\":{:.1},\"load1\":{}}}",
            d.q, hits as f64 / (10 * d.q) as f64, d.q as f64 / s, 1000.0 * s / d.q as f64, d.q as f64 / cpu, load1());
    }
}

/// hnsw_rs inserts on rayon's global pool; size it to BENCH_THREADS.
fn rayon_threads(n: usize) -> impl Fn(&dyn Fn()) {
    std::env::set_var("RAYON_NUM_THREADS", n.to_string());
    |f: &dyn Fn()| f()
}
