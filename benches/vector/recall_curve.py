#!/usr/bin/env python3
"""Recall@10 against ef over several builds of each library: the curve that "equal recall" is read
from. At a small ef the recall depends on the build (the seed of the node levels and, with several
build threads, the threads' interleaving) by more than the two libraries differ, so one build of
each decides nothing there. For each seed, hnswlib and Cairn's bench each build an index (M = 16,
ef_construction = 200, BUILD_THREADS threads) and answer the 1,000 queries once per ef; no timing.

usage: python3 benches/vector/recall_curve.py DIR [CAIRN_BENCH_BINARY]

Env: SEEDS (default "1 2 3 4 5 6 7 8"), EFS (default "24 32 40 48 56 64 96 128"), BUILD_THREADS
(default 1: a one-thread build is a function of its seed for both libraries). Without a binary,
Cairn's bench runs through `cargo bench -p cairn-vector --bench vector_ann`. Prints JSON lines (also
to DIR/recall_curve.jsonl) and a Markdown table of each library's mean (min-max) per ef.
"""
import json, os, statistics, sys, tempfile
import numpy as np
import hnswlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from truth import recall_hits  # noqa: E402
from cairn_serve import CairnServe  # noqa: E402

d = sys.argv[1]
binary = sys.argv[2] if len(sys.argv) > 2 else None
meta = json.load(open(os.path.join(d, "meta.json")))
n, q, dim = meta["n"], meta["q"], meta["dim"]
base = np.fromfile(os.path.join(d, "base.f32"), dtype="<f4").reshape(n, dim)
queries = np.fromfile(os.path.join(d, "queries.f32"), dtype="<f4").reshape(q, dim)
kth = np.fromfile(os.path.join(d, "kth.f32"), dtype="<f4")
seeds = [int(x) for x in os.environ.get("SEEDS", "1 2 3 4 5 6 7 8").split()]
efs = [int(x) for x in os.environ.get("EFS", "24 32 40 48 56 64 96 128").split()]
build_threads = int(os.environ.get("BUILD_THREADS", "1"))
out = open(os.path.join(d, "recall_curve.jsonl"), "w")


def emit(**kw):
    line = json.dumps(kw)
    print(line, flush=True)
    out.write(line + "\n")


def hnswlib_recalls(seed):
    idx = hnswlib.Index(space="ip", dim=dim)
    idx.init_index(max_elements=n, M=16, ef_construction=200, random_seed=seed)
    idx.set_num_threads(build_threads)
    idx.add_items(base, np.arange(n))
    got = {}
    for ef in efs:
        idx.set_ef(ef)
        found, _ = idx.knn_query(queries, k=10, num_threads=1)
        got[ef] = sum(recall_hits(base, queries[i], found[i], kth[i]) for i in range(q)) / (10 * q)
    return got


def cairn_recalls(seed):
    with tempfile.TemporaryDirectory() as tmp:
        cairn = CairnServe(d, os.path.join(tmp, "cairn.hnsw"), binary, BENCH_SEED=str(seed),
                           BENCH_THREADS=str(build_threads))
        got = {ef: cairn.run(ef, 1)["hits"] / (10 * q) for ef in efs}
        cairn.close()
    return got


curves = {"hnswlib-0.8.0": [], "cairn-hnsw": []}
for seed in seeds:
    for lib, f in (("hnswlib-0.8.0", hnswlib_recalls), ("cairn-hnsw", cairn_recalls)):
        got = f(seed)
        curves[lib].append(got)
        emit(step="build", lib=lib, seed=seed, build_threads=build_threads,
             recall_at_10={str(ef): round(r, 4) for ef, r in got.items()})

print(f"\nrecall@10, mean (min-max) over {len(seeds)} builds each, {build_threads} build thread(s)\n")
print("| ef | " + " | ".join(curves) + " | difference of means |")
print("|---:|" + "---|" * len(curves) + "---:|")
for ef in efs:
    cells, means = [], []
    for lib, runs in curves.items():
        xs = [r[ef] for r in runs]
        means.append(statistics.mean(xs))
        cells.append(f"{statistics.mean(xs):.4f} ({min(xs):.4f}-{max(xs):.4f})")
    emit(step="curve", ef=ef, **{lib: round(m, 5) for lib, m in zip(curves, means)})
    print(f"| {ef} | " + " | ".join(cells) + f" | {means[1] - means[0]:+.4f} |")
