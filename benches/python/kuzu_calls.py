"""Kuzu's side of the 2-hop benchmark (run.sh): the co-author question in Cypher through Kuzu's
Python API on the database benches/import/kuzu_import.py builds, one warm connection, each author
of the file in turn for ROUNDS rounds, every row fetched. Prints one JSON line like calls.py.

Usage: python3 kuzu_calls.py KUZU_DB AUTHORS_FILE [ROUNDS]
Setup: pip install kuzu==0.11.3
"""
import json
import statistics
import sys
import time

import kuzu

QUERY = ("MATCH (a:Author {key: $k})-[:AUTHORED]->(:Paper)<-[:AUTHORED]-(c:Author) "
         "WHERE c.key <> $k RETURN DISTINCT c.key, c.name")

db = kuzu.Database(sys.argv[1], read_only=True)
conn = kuzu.Connection(db)
authors = [l.strip() for l in open(sys.argv[2]) if l.strip()]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 200


def run(author: str) -> int:
    result = conn.execute(QUERY, {"k": author})
    rows = 0
    while result.has_next():
        result.get_next()
        rows += 1
    return rows


for a in authors:
    run(a)
micros = []
results = 0
for _ in range(rounds):
    for a in authors:
        t = time.perf_counter()
        results += run(a)
        micros.append((time.perf_counter() - t) * 1e6)
print(json.dumps({
    "system": "kuzu", "calls": len(micros), "p50_us": statistics.median(micros),
    "mean_us": statistics.fmean(micros), "results": results, "rows": results,
    "loadavg": " ".join(open("/proc/loadavg").read().split()[:3]),
}))
