#!/usr/bin/env python3
"""hnswlib (PyPI 0.8.0) on a set written by gen_vectors.py or minilm_set.sh; prints JSON lines in the
shape of Cairn's bench (vector/benches/vector_ann.rs), which measures the same steps the same way.

Setup: pip install hnswlib==0.8.0 numpy
M=16, ef_construction=200, build on BENCH_THREADS (default all cores); searches on one thread and
on two; recall@10 against exact search by vector, a neighbour
tied with the 10th counting (truth.py). build_peak_mib is the rise of peak RSS over the RSS before the
build (the base vectors are loaded before, in both benches). Unfiltered queries go in one batch call
(hnswlib's own threads, no per-query Python cost: its best case). The filtered search keeps ids with
id % 10 == 3 (10%) through hnswlib's filter callback.
"""
import json, os, sys, time
import numpy as np
import hnswlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from truth import recall_hits  # noqa: E402

d = sys.argv[1]
meta = json.load(open(os.path.join(d, "meta.json")))
n, q, dim = meta["n"], meta["q"], meta["dim"]
base = np.fromfile(os.path.join(d, "base.f32"), dtype="<f4").reshape(n, dim)
queries = np.fromfile(os.path.join(d, "queries.f32"), dtype="<f4").reshape(q, dim)
kth = np.fromfile(os.path.join(d, "kth.f32"), dtype="<f4")
threads = int(os.environ.get("BENCH_THREADS", os.cpu_count() or 1))
LIB = "hnswlib-0.8.0"


def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024
    return 0.0


def load1():
    return os.getloadavg()[0]


def emit(**kw):
    print(json.dumps(dict(lib=LIB, load1=load1(), **kw)), flush=True)


with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # reset the peak RSS to the current RSS
rss0 = status("VmRSS:")
idx = hnswlib.Index(space="ip", dim=dim)
idx.init_index(max_elements=n, M=16, ef_construction=200, random_seed=100)
idx.set_num_threads(threads)
t0, c0 = time.perf_counter(), time.process_time()
idx.add_items(base, np.arange(n))
build, build_cpu = time.perf_counter() - t0, time.process_time() - c0
emit(step="build", n=n, dim=dim, m=16, ef_construction=200, threads=threads, build_secs=round(build, 2),
     build_cpu_secs=round(build_cpu, 2), build_peak_mib=round(status("VmHWM:") - rss0, 1))

idx.set_num_threads(1)
passes = max(1, int(os.environ.get("SEARCH_PASSES", "5")))
for ef in (32, 64, 128, 256):
    idx.set_ef(ef)
    for nthreads in (1, 2):
        # one batch call: hnswlib's own thread pool, no per-query Python overhead (its best case);
        # PASSES passes over the queries, the median pass by CPU time (as vector_ann.rs does)
        timed = []
        for _ in range(passes):
            t0, c0 = time.perf_counter(), time.process_time()
            found, _ = idx.knn_query(queries, k=10, num_threads=nthreads)
            timed.append((time.process_time() - c0, time.perf_counter() - t0))
        cpu, secs = sorted(timed)[len(timed) // 2]
        hits = sum(recall_hits(base, queries[i], found[i], kth[i]) for i in range(q))
        emit(step="search", ef=ef, threads=nthreads, k=10, queries=q, recall_at_10=round(hits / (10 * q), 4),
             qps=round(q / secs, 1), mean_ms=round(1000 * secs * nthreads / q, 3), qps_cpu=round(q / cpu, 1))

# filtered: ids with id % 10 == 3, through the filter callback, ef 128
keep = np.arange(n)[np.arange(n) % 10 == 3]
sub = base[keep]
idx.set_ef(128)
hits = 0
secs = cpu = 0.0
short = 0
for i in range(q):
    t0, c0 = time.perf_counter(), time.process_time()
    labels, _ = idx.knn_query(queries[i:i + 1], k=10, num_threads=1, filter=lambda x: x % 10 == 3)
    secs += time.perf_counter() - t0
    cpu += time.process_time() - c0
    s = sub @ queries[i]
    kf = np.partition(-s, 9)[9] * -1
    got = labels[0]
    short += int(len(got) < 10)
    hits += int((base[got.astype(np.int64)] @ queries[i] >= kf - 1e-5).sum())
emit(step="search_labels", selectivity=0.1, ef=128, k=10, recall_at_10=round(hits / (10 * q), 4),
     qps=round(q / secs, 1), qps_cpu=round(q / cpu, 1), short_answers=short)
