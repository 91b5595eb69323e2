//! Cairn's HNSW (`cairn_vector`) on a set written by `benches/vector/gen_vectors.py` or
//! `minilm_set.sh`: build time and peak memory, then recall@10 (exact search by vector, ties with the
//! 10th counting) and queries/s on one and two threads for several `ef`, then a label-filtered
//! search. Prints JSON lines in the shape of `benches/vector/hnswlib_bench.py`, which measures the
//! same steps.
//!
//! Run through `benches/vector/run.sh` (which generates the data and runs hnswlib on the same files),
//! or directly: `CAIRN_VECTOR_BENCH_DATA=/path cargo bench -p cairn-vector --bench vector_ann`.
//! Without the variable it prints a skip line and exits 0, so `cargo bench` stays usable. With
//! `CAIRN_VECTOR_BENCH_INDEX=FILE` the built index is saved there, and a later run loads it and
//! only searches (to compare search changes without a build each time). `BENCH_SEED` sets the
//! build's seed. With
//! `CAIRN_VECTOR_BENCH_SERVE=1` it prints `{"step":"ready"}` once the index is there and then
//! answers lines `EF THREADS` on stdin with one timed pass over the queries each (a JSON line with
//! `cpu_secs`, `secs`, `hits`): `benches/vector/paired.py` alternates such passes with hnswlib's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_storage_format::{LabelId, NodeId};
use cairn_vector::{dot, HnswParams, VectorIndex};
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

/// A `/proc/self/status` figure in MiB.
fn status_mib(key: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
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
    let kth: &'static [f32] = f32s(&dir.join("kth.f32")).leak();
    let row = |v: &'static [f32], i: usize| &v[i * dim..(i + 1) * dim];
    let base: &'static [f32] = base.leak();
    let queries: &'static [f32] = queries.leak();
    // a returned node counts when its true score reaches the 10th (ties count), as in truth.py
    let hits_of = |qi: usize, found: &[cairn_vector::Hit], kth: f32| {
        found
            .iter()
            .take(10)
            .filter(|h| dot(row(queries, qi), row(base, h.node.0 as usize)) >= kth - 1e-5)
            .count()
    };
    let threads = std::env::var("BENCH_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    // BENCH_SEED: the seed of the node levels (the build's one random choice), to see how much
    // recall at a small ef owes to it
    let defaults = HnswParams::default();
    let params = HnswParams {
        m: 16,
        ef_construction: 200,
        threads,
        seed: std::env::var("BENCH_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(defaults.seed),
        ..defaults
    };
    // CAIRN_VECTOR_BENCH_INDEX=FILE: search an index saved there by an earlier run (built and
    // saved when the file is missing), to compare search changes without paying for a build
    let saved = std::env::var_os("CAIRN_VECTOR_BENCH_INDEX").map(std::path::PathBuf::from);
    let stamp = cairn_vector::Stamp {
        seq: 1,
        embedder_id: "bench".into(),
    };
    let serve = std::env::var_os("CAIRN_VECTOR_BENCH_SERVE").is_some_and(|v| v == "1");
    if let Some(idx) = saved
        .as_ref()
        .and_then(|p| VectorIndex::load(p, &stamp, dim, HnswParams::default()).ok())
    {
        println!(
            "{{\"lib\":\"cairn-hnsw\",\"step\":\"loaded\",\"n\":{}}}",
            idx.len()
        );
        if serve {
            return serve_passes(&idx, q, kth, &hits_of, queries, dim);
        }
        return searches(&idx, q, kth, &hits_of, queries, base, n, dim);
    }
    // reset the peak RSS to the current RSS, so the peak below is the build's own
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let rss0 = status_mib("VmRSS:");
    let (t0, c0) = (Instant::now(), process_cpu());
    let idx = VectorIndex::build(
        dim,
        params,
        (0..n).map(|i| {
            (
                NodeId(i as u64),
                LabelId((i % 10) as u32),
                row(base, i).to_vec(),
            )
        }),
    )
    .unwrap();
    let build = t0.elapsed().as_secs_f64();
    let build_cpu = process_cpu() - c0;
    let peak = status_mib("VmHWM:") - rss0;
    let threads = if threads == 0 {
        std::thread::available_parallelism().map_or(1, |t| t.get())
    } else {
        threads
    };
    println!("{{\"lib\":\"cairn-hnsw\",\"step\":\"build\",\"n\":{n},\"dim\":{dim},\"m\":16,\"ef_construction\":200,\"threads\":{threads},\"build_secs\":{build:.2},\"build_cpu_secs\":{build_cpu:.2},\"build_peak_mib\":{peak:.1},\"load1\":{}}}", load1());
    if let Some(p) = &saved {
        idx.save(p, &stamp).unwrap();
    }
    if serve {
        return serve_passes(&idx, q, kth, &hits_of, queries, dim);
    }
    searches(&idx, q, kth, &hits_of, queries, base, n, dim);
}

/// The scoring of a pass: the hits of a query's answer against its true 10th score.
type HitsOf<'a> = dyn Fn(usize, &[cairn_vector::Hit], f32) -> usize + Sync + 'a;

/// One pass over the `q` queries, split over `nthreads` threads: the threads' CPU seconds, the
/// wall seconds, the recall hits (counted after the clock stops) and the rows scored (the walk's
/// work, which does not depend on the machine's noise).
fn pass(
    idx: &VectorIndex,
    (q, dim): (usize, usize),
    queries: &'static [f32],
    (ef, nthreads): (usize, usize),
    kth: &[f32],
    hits_of: &HitsOf<'_>,
) -> (f64, f64, usize, u64) {
    let row = |v: &'static [f32], i: usize| &v[i * dim..(i + 1) * dim];
    let scored0 = idx.scored();
    let t0 = Instant::now();
    let parts: Vec<(Found, f64)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..nthreads)
            .map(|part| {
                s.spawn(move || {
                    let c0 = thread_cpu();
                    let found: Vec<_> = (part..q)
                        .step_by(nthreads)
                        .map(|qi| (qi, idx.search(row(queries, qi), 10, ef).unwrap()))
                        .collect();
                    (found, thread_cpu() - c0)
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let secs = t0.elapsed().as_secs_f64();
    let scored = idx.scored() - scored0;
    let cpu: f64 = parts.iter().map(|p| p.1).sum();
    let hits: usize = (parts.iter().flat_map(|p| &p.0))
        .map(|(qi, res)| hits_of(*qi, res, kth[*qi]))
        .sum();
    (cpu, secs, hits, scored)
}

/// Answers `EF THREADS` lines on stdin with one pass each, until stdin closes.
fn serve_passes(
    idx: &VectorIndex,
    q: usize,
    kth: &[f32],
    hits_of: &HitsOf<'_>,
    queries: &'static [f32],
    dim: usize,
) {
    use std::io::{BufRead, Write};
    println!("{{\"lib\":\"cairn-hnsw\",\"step\":\"ready\"}}");
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let mut w = line.split_whitespace().map(|x| x.parse::<usize>());
        let (Some(Ok(ef)), Some(Ok(nthreads))) = (w.next(), w.next()) else {
            panic!("expected `EF THREADS`, got {line:?}");
        };
        let (cpu, secs, hits, scored) =
            pass(idx, (q, dim), queries, (ef, nthreads.max(1)), kth, hits_of);
        println!(
            "{{\"lib\":\"cairn-hnsw\",\"step\":\"pass\",\"ef\":{ef},\"threads\":{nthreads},\"cpu_secs\":{cpu:.6},\"secs\":{secs:.6},\"hits\":{hits},\"scored_per_query\":{:.1}}}",
            scored as f64 / q as f64
        );
        std::io::stdout().flush().unwrap();
    }
}

/// One thread's answers: each query's index and its hits.
type Found = Vec<(usize, Vec<cairn_vector::Hit>)>;

/// Recall and queries/s at each ef on one and two threads, the label-filtered search, and the
/// save + load round trip.
#[allow(clippy::too_many_arguments)]
fn searches(
    idx: &VectorIndex,
    q: usize,
    kth: &[f32],
    hits_of: &HitsOf<'_>,
    queries: &'static [f32],
    base: &'static [f32],
    n: usize,
    dim: usize,
) {
    let stamp = cairn_vector::Stamp {
        seq: 1,
        embedder_id: "bench".into(),
    };
    let row = |v: &'static [f32], i: usize| &v[i * dim..(i + 1) * dim];
    let passes: usize = std::env::var("SEARCH_PASSES")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(5)
        .max(1);
    for ef in [32usize, 64, 128, 256] {
        for nthreads in [1usize, 2] {
            // `passes` passes over the queries, the median pass by CPU time: one pass of 1,000
            // queries lasts a fraction of a second, and a burst of noise on a shared machine
            // moved single passes by up to 4x. Recall is counted outside the timed loop.
            let mut timed: Vec<(f64, f64, usize, u64)> = (0..passes)
                .map(|_| pass(idx, (q, dim), queries, (ef, nthreads), kth, hits_of))
                .collect();
            timed.sort_by(|a, b| a.0.total_cmp(&b.0));
            let (cpu, s, hits, scored) = timed[timed.len() / 2];
            println!(
                "{{\"lib\":\"cairn-hnsw\",\"step\":\"search\",\"ef\":{ef},\"threads\":{nthreads},\"k\":10,\"queries\":{q},\"recall_at_10\":{:.4},\"qps\":{:.1},\"mean_ms\":{:.3},\"qps_cpu\":{:.1},\"scored_per_query\":{:.1},\"load1\":{}}}",
                hits as f64 / (10 * q) as f64,
                q as f64 / s,
                1000.0 * s * nthreads as f64 / q as f64,
                q as f64 / cpu,
                scored as f64 / q as f64,
                load1()
            );
        }
    }
    // label-filtered search: one label of ten (10% of nodes, ids with id % 10 == 3 as in the
    // hnswlib bench's filter callback), recall against exact filtered search by vector
    let label = [LabelId(3)];
    let (mut hits, mut short, mut secs, mut cpu) = (0, 0, 0.0, 0.0);
    for qi in 0..q {
        let qv = row(queries, qi);
        let (t0, c0) = (Instant::now(), thread_cpu());
        let got = idx.search_labels(qv, 10, 128, &label).unwrap();
        secs += t0.elapsed().as_secs_f64();
        cpu += thread_cpu() - c0;
        short += usize::from(got.len() < 10);
        let mut scores: Vec<f32> = (3..n).step_by(10).map(|i| dot(qv, row(base, i))).collect();
        scores.sort_by(|a, b| b.total_cmp(a));
        hits += hits_of(qi, &got, scores[9]);
    }
    println!(
        "{{\"lib\":\"cairn-hnsw\",\"step\":\"search_labels\",\"selectivity\":0.1,\"ef\":128,\"k\":10,\"recall_at_10\":{:.4},\"qps\":{:.1},\"qps_cpu\":{:.1},\"short_answers\":{short},\"load1\":{}}}",
        hits as f64 / (10 * q) as f64,
        q as f64 / secs,
        q as f64 / cpu,
        load1()
    );
    // save + load round trip time
    let tmp = std::env::temp_dir().join(format!("cairn-vector-bench-{}.hnsw", std::process::id()));
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
