"""One Kuzu query in a fresh process, as a one-shot CLI call would run it: open the database
built by benches/import/kuzu_import.py, run one Cypher statement, print the row count and the
time inside Kuzu as one JSON line.

Usage: python3 kuzu_query.py DB_DIR CYPHER [PARAM=VALUE ...]
Setup: pip install kuzu==0.11.3
"""
import json
import sys
import time

import kuzu

db_path, query = sys.argv[1], sys.argv[2]
params = dict(p.split("=", 1) for p in sys.argv[3:])
start = time.perf_counter()
db = kuzu.Database(db_path, read_only=True)
conn = kuzu.Connection(db)
opened = time.perf_counter()
result = conn.execute(query, params)
rows = []
while result.has_next():
    rows.append(result.get_next())
done = time.perf_counter()
print(json.dumps({"rows": len(rows), "first": rows[0] if rows else None,
                  "open_ms": round((opened - start) * 1e3, 2),
                  "query_ms": round((done - opened) * 1e3, 2)}))
