//! usearch (Rust binding of the C++ library; inner product on unit vectors) on the gen_vectors.py data.
use ann_probe::{threads, Data};
use std::time::Instant;
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

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
    let dir = std::env::args().nth(1).expect("usage: usearch_bench DATA_DIR");
    let d = Data::load(std::path::Path::new(&dir));
    let th = threads();
    let opts = IndexOptions {
        dimensions: d.dim,
        metric: MetricKind::IP,
        quantization: ScalarKind::F32,
        connectivity: 16,
        expansion_add: 200,
        expansion_search: 64,
        multi: false,
    };
    let index = Index::new(&opts).unwrap();
    index.reserve_capacity_and_threads(d.n, th).unwrap();
    let (t0, c0) = (Instant::now(), process_cpu());
    std::thread::scope(|s| {
        for t in 0..th {
            let (index, d) = (&index, &d);
            s.spawn(move || {
                for i in (t..d.n).step_by(th) {
                    index.add(i as u64, d.row(i)).unwrap();
                }
            });
        }
    });
    let build = t0.elapsed().as_secs_f64();
    let build_cpu = process_cpu() - c0;
    println!("{{\"lib\":\"usearch-{}\",\"step\":\"build\",\"n\":{},\"dim\":{},\"m\":16,\"ef_construction\":200,\"threads\":{th},\"build_secs\":{build:.2},\"build_cpu_secs\":{build_cpu:.2},\"load1\":{}}}", usearch::version(), d.n, d.dim, load1());
    for ef in [32usize, 64, 128, 256] {
        index.change_expansion_search(ef);
        let mut hits = 0;
        let (t0, c0) = (Instant::now(), thread_cpu());
        for qi in 0..d.q {
            let res = index.search(d.query(qi), 10).unwrap();
            let ids: Vec<usize> = res.keys.iter().map(|k| *k as usize).collect();
            hits += d.hits(qi, &ids);
        }
        let s = t0.elapsed().as_secs_f64();
        let cpu = thread_cpu() - c0;
        println!("{{\"lib\":\"usearch-{}\",\"step\":\"search\",\"ef\":{ef},\"k\":10,\"queries\":{},\"recall_at_10\":{:.4},\"qps\":{:.1},\"mean_ms\":{:.3},\"qps_cpu\":{:.1},\"load1\":{}}}",
            usearch::version(), d.q, hits as f64 / (10 * d.q) as f64, d.q as f64 / s, 1000.0 * s / d.q as f64, d.q as f64 / cpu, load1());
    }
}
