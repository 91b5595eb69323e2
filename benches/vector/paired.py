#!/usr/bin/env python3
"""Search-only comparison at the grain of one pass: hnswlib (in this process) and Cairn's bench (a
child process in serve mode, CAIRN_VECTOR_BENCH_SERVE=1) hold their indexes in memory side by side,
and single passes over the 1,000 queries alternate between them, the order turned round every
round (A B, B A, ...), ROUNDS rounds per ef. A burst of noise lasting seconds (on a shared 2-core VM,
runs of the same binary a minute apart differed by up to 2x) then falls on
both alike. Reported per ef: each system's median queries per CPU-second and the median over rounds
of Cairn's / hnswlib's ratio in that round, the load, and the CPU time the hypervisor stole
during the passes (/proc/stat).

usage: python3 benches/vector/paired.py DIR [CAIRN_BENCH_BINARY ...]

DIR is a set written by gen_vectors.py or minilm_set.sh. Without binaries, Cairn's bench runs
through `cargo bench -p cairn-vector --bench vector_ann`; with several, each is one more system
in the rotation (to compare two builds of Cairn under the same noise). Env: ROUNDS (default 9),
EFS (default "32 64 128 256"), THREADS (default "1"; "1 2" adds two-thread passes). Cairn loads
DIR/cairn.hnsw (its bench builds and saves it there when missing); hnswlib loads
DIR/hnswlib-m16-efc200.bin (built with M=16, ef_construction=200, seed 100 and saved when missing).
Prints JSON lines (also to DIR/paired.jsonl) and a Markdown table.

Then the comparison at equal recall (equal_recall.py, which says how it is read off).
"""
import json, os, statistics, sys, time
import numpy as np
import hnswlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from truth import recall_hits  # noqa: E402
from equal_recall import summarise, table  # noqa: E402
from cairn_serve import CairnServe  # noqa: E402

HNSWLIB = "hnswlib-0.8.0"
d = sys.argv[1]
binaries = sys.argv[2:]
meta = json.load(open(os.path.join(d, "meta.json")))
n, q, dim = meta["n"], meta["q"], meta["dim"]
base = np.fromfile(os.path.join(d, "base.f32"), dtype="<f4").reshape(n, dim)
queries = np.fromfile(os.path.join(d, "queries.f32"), dtype="<f4").reshape(q, dim)
kth = np.fromfile(os.path.join(d, "kth.f32"), dtype="<f4")
rounds = max(1, int(os.environ.get("ROUNDS", "9")))
efs = [int(x) for x in os.environ.get("EFS", "32 64 128 256").split()]
threads = [int(x) for x in os.environ.get("THREADS", "1").split()]
out = open(os.path.join(d, "paired.jsonl"), "w")


def emit(**kw):
    line = json.dumps(kw)
    print(line, flush=True)
    out.write(line + "\n")


def steal_secs():
    """CPU time stolen by the hypervisor so far, all CPUs (the 8th field of /proc/stat's cpu line)."""
    with open("/proc/stat") as f:
        return int(f.readline().split()[8]) / os.sysconf("SC_CLK_TCK")


def hnswlib_index():
    path = os.path.join(d, "hnswlib-m16-efc200.bin")
    idx = hnswlib.Index(space="ip", dim=dim)
    if os.path.exists(path):
        idx.load_index(path, max_elements=n)
    else:
        idx.init_index(max_elements=n, M=16, ef_construction=200, random_seed=100)
        idx.set_num_threads(os.cpu_count() or 1)
        idx.add_items(base, np.arange(n))
        idx.save_index(path)
    return idx


class Hnswlib:
    name = HNSWLIB

    def __init__(self):
        self.idx = hnswlib_index()

    def run(self, ef, nthreads):
        self.idx.set_ef(ef)
        # one batch call: hnswlib's own threads, no per-query Python cost (its best case)
        t0, c0 = time.perf_counter(), time.process_time()
        found, _ = self.idx.knn_query(queries, k=10, num_threads=nthreads)
        cpu, secs = time.process_time() - c0, time.perf_counter() - t0
        hits = sum(recall_hits(base, queries[i], found[i], kth[i]) for i in range(q))
        return cpu, secs, hits


class Cairn(CairnServe):
    def __init__(self, binary):
        super().__init__(d, os.path.join(d, "cairn.hnsw"), binary)

    def run(self, ef, nthreads):
        r = super().run(ef, nthreads)
        return r["cpu_secs"], r["secs"], r["hits"]


systems = [Hnswlib()] + ([Cairn(b) for b in binaries] if binaries else [Cairn(None)])
emit(step="machine", nproc=os.cpu_count(), load1=os.getloadavg()[0], rounds=rounds,
     systems=[s.name for s in systems])
rows = []
for nthreads in threads:
    for ef in efs:
        for s in systems:  # one untimed pass each: the first touches cold pages
            s.run(ef, nthreads)
        per = {s.name: [] for s in systems}
        for r in range(rounds):
            order = systems if r % 2 == 0 else systems[::-1]
            for s in order:
                st0 = steal_secs()
                cpu, secs, hits = s.run(ef, nthreads)
                rec = dict(step="pass", lib=s.name, ef=ef, threads=nthreads, round=r, qps_cpu=round(q / cpu, 1),
                           qps=round(q / secs, 1), recall_at_10=round(hits / (10 * q), 4),
                           steal_secs=round(steal_secs() - st0, 2), load1=os.getloadavg()[0])
                per[s.name].append(rec)
                emit(**rec)
        h = per[HNSWLIB]
        for s in systems[1:]:
            c = per[s.name]
            ratios = [a["qps_cpu"] / b["qps_cpu"] for a, b in zip(c, h)]
            summary = dict(step="paired", lib=s.name, ef=ef, threads=nthreads, rounds=rounds,
                           recall_at_10=c[0]["recall_at_10"], hnswlib_recall_at_10=h[0]["recall_at_10"],
                           qps_cpu=statistics.median(x["qps_cpu"] for x in c),
                           hnswlib_qps_cpu=statistics.median(x["qps_cpu"] for x in h),
                           ratio_median=round(statistics.median(ratios), 3),
                           ratio_min=round(min(ratios), 3), ratio_max=round(max(ratios), 3),
                           rounds_ahead=sum(x >= 1.0 for x in ratios),
                           load_min=min(x["load1"] for x in c + h), load_max=max(x["load1"] for x in c + h),
                           steal_secs=round(sum(x["steal_secs"] for x in c + h), 2))
            rows.append(summary)
            emit(**summary)
for s in systems[1:]:
    s.close()


equal = summarise(rows, HNSWLIB)
for rec in equal:
    emit(**rec)

print("\n| system | threads | ef | recall@10 (hnswlib) | q/CPU-s (hnswlib) | ratio median (min-max) | rounds ahead | load | stolen s |")
print("|---|---|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r['lib']} | {r['threads']} | {r['ef']} | {r['recall_at_10']} ({r['hnswlib_recall_at_10']}) | "
          f"{r['qps_cpu']:.0f} ({r['hnswlib_qps_cpu']:.0f}) | **{r['ratio_median']:.3f}x** ({r['ratio_min']:.2f}-{r['ratio_max']:.2f}) | "
          f"{r['rounds_ahead']}/{r['rounds']} | {r['load_min']:.1f}-{r['load_max']:.1f} | {r['steal_secs']} |")

print("\nAt equal recall (equal_recall.py: each library's frontier of rate against recall, Cairn's read off "
      "at hnswlib's recall):\n")
print(table(equal))
