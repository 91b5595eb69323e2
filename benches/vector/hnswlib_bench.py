#!/usr/bin/env python3
"""hnswlib (PyPI 0.8.0) on the vectors written by gen_vectors.py; prints JSON lines.

Setup: pip install hnswlib==0.8.0 numpy
Same parameters as the Rust benches: M=16, ef_construction=200, build on all cores, queries one at a time on
one thread (qps is single-thread throughput, the same way the Rust benches measure it).
"""
import json, os, sys, time
import numpy as np
import hnswlib

d = sys.argv[1]
meta = json.load(open(os.path.join(d, "meta.json")))
n, q, dim = meta["n"], meta["q"], meta["dim"]
base = np.fromfile(os.path.join(d, "base.f32"), dtype="<f4").reshape(n, dim)
queries = np.fromfile(os.path.join(d, "queries.f32"), dtype="<f4").reshape(q, dim)
gt = np.fromfile(os.path.join(d, "gt.u32"), dtype="<u4").reshape(q, 10)
threads = int(os.environ.get("BENCH_THREADS", os.cpu_count() or 1))

idx = hnswlib.Index(space="ip", dim=dim)
idx.init_index(max_elements=n, M=16, ef_construction=200, random_seed=100)
idx.set_num_threads(threads)
t0, c0 = time.perf_counter(), time.process_time()
idx.add_items(base, np.arange(n))
build, build_cpu = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps(dict(lib="hnswlib-0.8.0", step="build", n=n, dim=dim, m=16, ef_construction=200,
                      threads=threads, build_secs=round(build, 2), build_cpu_secs=round(build_cpu, 2), load1=os.getloadavg()[0])), flush=True)
idx.set_num_threads(1)
for ef in (32, 64, 128, 256):
    idx.set_ef(ef)
    hits = 0
    t0, c0 = time.perf_counter(), time.process_time()
    for i in range(q):
        labels, _ = idx.knn_query(queries[i:i + 1], k=10)
        hits += len(set(labels[0].tolist()) & set(gt[i].tolist()))
    secs, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(json.dumps(dict(lib="hnswlib-0.8.0", step="search", ef=ef, k=10, queries=q,
                          recall_at_10=round(hits / (10 * q), 4), qps=round(q / secs, 1),
                          mean_ms=round(1000 * secs / q, 3), qps_cpu=round(q / cpu, 1),
                          load1=os.getloadavg()[0])), flush=True)
