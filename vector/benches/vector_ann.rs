//! Cairn's HNSW (`cairn_vector`) on the vectors written by `benches/vector/gen_vectors.py`:
//! build time, then recall@10 against the exact ground truth and single-thread queries/s for several
//! `ef`. Prints JSON lines in the same shape as `benches/vector/hnswlib_bench.py`.
//!
//! Run through `benches/vector/run.sh` (which generates the data and runs hnswlib on the same files),
//! or directly: `CAIRN_VECTOR_BENCH_DATA=/path cargo bench -p cairn-vector --bench vector_ann`.
//! Without the variable it prints a skip line and exits 0, so `cargo bench` stays usable.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_storage_format::{LabelId, NodeId};
use cairn_vector::{HnswParams, VectorIndex};
use std::path::Path;
use std::time::Instant;

fn f32s(p: &Path) -> Vec<f32> {
    let b = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn meta_num(meta: &str, key: &str) -> usize {
    let at = meta
        .find(&format!("\"{key}\""))
        .unwrap_or_else(|| panic!("meta.json lacks {key}"));
    let rest = meta[at + key.len() + 3..].trim_start();
    rest.chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap()
}

/// CPU seconds of this thread (queries run on one thread; immune to other processes' load).
fn thread_cpu() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| {
            s.split_whitespace()
                .next()
                .and_then(|x| x.parse::<f64>().ok())
        })
        .map_or(0.0, |ns| ns / 1e9)
}

/// CPU seconds of the whole process (all build threads).
fn process_cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let f: Vec<&str> = s
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let t = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (t(11) + t(12)) / 100.0
}

fn load1() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .next()
        .unwrap_or("0")
        .to_owned()
}

fn main() {
    let Some(dir) = std::env::var_os("CAIRN_VECTOR_BENCH_DATA") else {
        println!("{{\"lib\":\"cairn-hnsw\",\"step\":\"skip\",\"why\":\"set CAIRN_VECTOR_BENCH_DATA (see benches/vector/run.sh)\"}}");
        return;
    };
    let dir = Path::new(&dir);
    let meta = std::fs::read_to_string(dir.join("meta.json")).expect("meta.json");
    let (n, q, dim) = (
        meta_num(&meta, "n"),
        meta_num(&meta, "q"),
        meta_num(&meta, "dim"),
    );
    let base = f32s(&dir.join("base.f32"));
    let queries = f32s(&dir.join("queries.f32"));
    let gt: Vec<u32> = std::fs::read(dir.join("gt.u32"))
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let threads = std::env::var("BENCH_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let params = HnswParams {
        m: 16,
        ef_construction: 200,
        threads,
        ..HnswParams::default()
    };
    let (t0, c0) = (Instant::now(), process_cpu());
    let idx = VectorIndex::build(
        dim,
        params,
        (0..n).map(|i| {
            (
                NodeId(i as u64),
                LabelId((i % 10) as u32),
                base[i * dim..(i + 1) * dim].to_vec(),
            )
        }),
    )
    .unwrap();
    let build = t0.elapsed().as_secs_f64();
    let build_cpu = process_cpu() - c0;
    let threads = if threads == 0 {
        std::thread::available_parallelism().map_or(1, |t| t.get())
    } else {
        threads
    };
    println!("{{\"lib\":\"cairn-hnsw\",\"step\":\"build\",\"n\":{n},\"dim\":{dim},\"m\":16,\"ef_construction\":200,\"threads\":{threads},\"build_secs\":{build:.2},\"build_cpu_secs\":{build_cpu:.2},\"load1\":{}}}", load1());
    for ef in [32usize, 64, 128, 256] {
        let mut hits = 0;
        let (t0, c0) = (Instant::now(), thread_cpu());
        for qi in 0..q {
            let res = idx
                .search(&queries[qi * dim..(qi + 1) * dim], 10, ef)
                .unwrap();
            let want = &gt[qi * 10..qi * 10 + 10];
            hits += res
                .iter()
                .filter(|h| want.contains(&(h.node.0 as u32)))
                .count();
        }
        let s = t0.elapsed().as_secs_f64();
        let cpu = thread_cpu() - c0;
        println!(
            "{{\"lib\":\"cairn-hnsw\",\"step\":\"search\",\"ef\":{ef},\"k\":10,\"queries\":{q},\"recall_at_10\":{:.4},\"qps\":{:.1},\"mean_ms\":{:.3},\"qps_cpu\":{:.1},\"load1\":{}}}",
            hits as f64 / (10 * q) as f64,
            q as f64 / s,
            1000.0 * s / q as f64,
            q as f64 / cpu,
            load1()
        );
    }
    // label-filtered search: one label of ten (10% of nodes), recall against exact filtered search
    let label = [LabelId(3)];
    let mut hits = 0;
    let t0 = Instant::now();
    for qi in 0..q {
        let qv = &queries[qi * dim..(qi + 1) * dim];
        let got = idx.search_labels(qv, 10, 128, &label).unwrap();
        let want = idx.exact_search(qv, 10, Some(&label)).unwrap();
        hits += got
            .iter()
            .filter(|h| want.iter().any(|w| w.node == h.node))
            .count();
    }
    let s = t0.elapsed().as_secs_f64();
    println!(
        "{{\"lib\":\"cairn-hnsw\",\"step\":\"search_labels\",\"selectivity\":0.1,\"ef\":128,\"k\":10,\"recall_at_10\":{:.4},\"ms_incl_exact_check\":{:.3}}}",
        hits as f64 / (10 * q) as f64,
        1000.0 * s / q as f64
    );
    // save + load round trip time
    let tmp = std::env::temp_dir().join(format!("cairn-vector-bench-{}.hnsw", std::process::id()));
    let stamp = cairn_vector::Stamp {
        seq: 1,
        embedder_id: "bench".into(),
    };
    let t0 = Instant::now();
    idx.save(&tmp, &stamp).unwrap();
    let save = t0.elapsed().as_secs_f64();
    let t0 = Instant::now();
    let back = VectorIndex::load(&tmp, &stamp, dim, HnswParams::default()).unwrap();
    let load = t0.elapsed().as_secs_f64();
    let size = std::fs::metadata(&tmp).map(|m| m.len()).unwrap_or(0);
    let _ = std::fs::remove_file(&tmp);
    println!("{{\"lib\":\"cairn-hnsw\",\"step\":\"persist\",\"file_bytes\":{size},\"save_secs\":{save:.2},\"load_secs\":{load:.2},\"len\":{}}}", back.len());
}
