"""Kuzu side of benches/derived/count3.sh: in one process, for each author of a list, the
number of distinct papers of their co-authors (the author's own papers count: the pattern
reaches them through the author, as Cairn's walk does), timed per query.

Usage: python3 kuzu_count.py DB_DIR AUTHORS_FILE RUNS
Prints one JSON line per (run, author): {"system": "kuzu", "run", "author", "count", "ms"}.
Setup: pip install kuzu==0.11.3
"""
import json
import sys
import time

import kuzu

db_path, authors_file, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
authors = [line.strip() for line in open(authors_file) if line.strip()]
db = kuzu.Database(db_path, read_only=True)
conn = kuzu.Connection(db)
QUERY = ("MATCH (a:Author {key: $k})-[:AUTHORED]->(:Paper)<-[:AUTHORED]-(c:Author)"
         "-[:AUTHORED]->(p:Paper) RETURN count(DISTINCT p)")
for run in range(runs):
    for k in authors:
        t = time.perf_counter()
        result = conn.execute(QUERY, {"k": k})
        count = result.get_next()[0]
        ms = (time.perf_counter() - t) * 1e3
        print(json.dumps({"system": "kuzu", "run": run, "author": k, "count": count,
                          "ms": round(ms, 4)}))
