"""Kuzu's side of the write-then-query loop (benches/derived/loop.sh): in one process on a copy of
the database benches/import/kuzu_import.py built, ROUNDS rounds of (CREATE a Paper with a
distinct title and its AUTHORED edge from a random existing author, auto-committed; MATCH from
that author reaching the new paper). A round whose MATCH does not return the paper fails the run.
Prints one JSON line shaped like the Cairn driver's (examples/derived.rs): p50/p90/p99 of the
round and of its parts, in ms.

Usage: python3 kuzu_loop.py DB_DIR [ROUNDS] [SEED]
Setup: pip install kuzu==0.11.3
"""
import json
import random
import sys
import time

import kuzu

db_path = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
rng = random.Random(seed)

start = time.perf_counter()
db = kuzu.Database(db_path)
conn = kuzu.Connection(db)
authors = conn.execute("MATCH (a:Author) RETURN count(a)").get_next()[0]
opened = time.perf_counter()

CREATE = ("MATCH (a:Author {key: $a}) "
          "CREATE (a)-[:AUTHORED {t: 'AUTHORED'}]->(:Paper {key: $k, title: $t, year: 2026})")
MATCH = "MATCH (a:Author {key: $a})-[:AUTHORED]->(p:Paper) WHERE p.key = $k RETURN p.key, p.title"


def percentiles(v):
    v = sorted(v)
    at = lambda q: v[round((len(v) - 1) * q)]
    return {"p50": at(0.5), "p90": at(0.9), "p99": at(0.99), "max": v[-1]}


parts = {"round": [], "commit": [], "match": []}
loop_start = time.perf_counter()
for i in range(rounds):
    author = f"a{rng.randrange(authors)}"
    key = f"loop-{seed}-{i}"
    title = f"loop probe {seed} {i} " + " ".join(f"w{rng.getrandbits(32):x}" for _ in range(4))
    t0 = time.perf_counter()
    conn.execute(CREATE, {"a": author, "k": key, "t": title})
    t1 = time.perf_counter()
    result = conn.execute(MATCH, {"a": author, "k": key})
    rows = []
    while result.has_next():
        rows.append(result.get_next())
    t2 = time.perf_counter()
    if rows != [[key, title]]:
        sys.exit(f"round {i}: MATCH from {author} did not return its new paper {key}: {rows}")
    for name, d in (("round", t2 - t0), ("commit", t1 - t0), ("match", t2 - t1)):
        parts[name].append(d * 1e3)

with open("/proc/loadavg") as f:
    load = f.read().strip()
print(json.dumps({"phase": "loop", "system": "kuzu", "rounds": rounds, "all_saw_their_write": True,
                  "open_ms": round((opened - start) * 1e3, 2),
                  "seconds": time.perf_counter() - loop_start,
                  "ms": {n: percentiles(v) for n, v in parts.items()}, "loadavg": load}))
