"""The Python side of the per-call benchmarks (run.sh): `db.explore` on a warmed handle, each
statement of the file in turn for ROUNDS rounds, touching each result's name and path as the Rust
driver (examples/calls.rs) does. Prints one JSON line: calls, p50 and mean microseconds per call,
results seen (name and path touched) and rows returned, /proc/loadavg.

Usage: python3 calls.py DB STATEMENTS_FILE [ROUNDS]
"""
import json
import statistics
import sys
import time

import cairn

db = cairn.open(sys.argv[1])
statements = [l for l in open(sys.argv[2]).read().splitlines() if l.strip()]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 200
warm = db.warm()
for s in statements:
    db.explore(s)
micros = []
results = 0
rows = 0
for _ in range(rounds):
    for s in statements:
        t = time.perf_counter()
        found = db.explore(s)
        results += sum(min(len(r.name), 1) + len(r.path) for r in found.results)
        rows += len(found.results)
        micros.append((time.perf_counter() - t) * 1e6)
print(json.dumps({
    "system": "python", "calls": len(micros), "p50_us": statistics.median(micros),
    "mean_us": statistics.fmean(micros), "results": results, "rows": rows, "warm_s": warm,
    "loadavg": " ".join(open("/proc/loadavg").read().split()[:3]),
}))
