"""Kuzu side of benches/lang/run.sh: the language benchmark's queries, timed one by one in one
process (the database open and a warm-up pass not counted).

Usage: python3 kuzu_queries.py DB_DIR QUERY RUNS
  QUERY: topk (the ten most cited papers), per_venue (papers per venue, every venue) or
         filter (papers since 2015 with more than 100 citations)
Prints one JSON line per run: {"system": "kuzu", "query", "run", "ms", "rows", "digest"}; the
digest is the rows' text, sorted, hashed, so that both systems' answers can be compared.
Setup: pip install kuzu==0.11.3
"""
import hashlib
import json
import sys
import time

import kuzu

db_path, query, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
db = kuzu.Database(db_path, read_only=True)
conn = kuzu.Connection(db)
CYPHER = {
    "topk": "MATCH (p:Paper) RETURN p.key, p.citations ORDER BY p.citations DESC, p.key LIMIT 10",
    "per_venue": ("MATCH (p:Paper)-[:PUBLISHED_IN]->(v:Venue) "
                  "RETURN v.key, count(*)"),
    "filter": ("MATCH (p:Paper) WHERE p.year >= 2015 AND p.citations > 100 "
               "RETURN p.key"),
}[query]


def digest(rows):
    text = "\n".join(sorted("\t".join(str(c) for c in r) for r in rows))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


for run in range(runs + 1):
    t = time.perf_counter()
    result = conn.execute(CYPHER)
    rows = []
    while result.has_next():
        rows.append(result.get_next())
    ms = (time.perf_counter() - t) * 1e3
    if run == 0:
        continue  # warm-up
    print(json.dumps({"system": "kuzu", "query": query, "run": run, "ms": round(ms, 4),
                      "rows": len(rows), "digest": digest(rows)}))
