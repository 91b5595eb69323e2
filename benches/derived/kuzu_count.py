"""Kuzu side of benches/derived/count3.sh: in one process, for each author of a list, the
number of distinct nodes HOPS steps away (1: their papers; 2: co-authors, not the author;
3, the default: papers of co-authors, the author's own included: the pattern reaches them
through the author, as Cairn's walk does), timed per query.

Usage: python3 kuzu_count.py DB_DIR AUTHORS_FILE RUNS [HOPS]
Prints one JSON line per (run, author): {"system": "kuzu", "run", "author", "count", "ms"}.
Setup: pip install kuzu==0.11.3
"""
import json
import sys
import time

import kuzu

db_path, authors_file, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
hops = int(sys.argv[4]) if len(sys.argv) > 4 else 3
authors = [line.strip() for line in open(authors_file) if line.strip()]
db = kuzu.Database(db_path, read_only=True)
conn = kuzu.Connection(db)
QUERY = {
    1: "MATCH (a:Author {key: $k})-[:AUTHORED]->(p:Paper) RETURN count(DISTINCT p)",
    2: ("MATCH (a:Author {key: $k})-[:AUTHORED]->(:Paper)<-[:AUTHORED]-(c:Author) "
        "WHERE id(c) <> id(a) RETURN count(DISTINCT c)"),
    3: ("MATCH (a:Author {key: $k})-[:AUTHORED]->(:Paper)<-[:AUTHORED]-(c:Author)"
        "-[:AUTHORED]->(p:Paper) RETURN count(DISTINCT p)"),
}[hops]
for run in range(runs):
    for k in authors:
        t = time.perf_counter()
        result = conn.execute(QUERY, {"k": k})
        count = result.get_next()[0]
        ms = (time.perf_counter() - t) * 1e3
        print(json.dumps({"system": "kuzu", "run": run, "author": k, "count": count,
                          "ms": round(ms, 4)}))
