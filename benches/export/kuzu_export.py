"""Exports a Kuzu database loaded by benches/import/kuzu_import.py with EXPORT DATABASE (CSV).

Usage: python3 kuzu_export.py DB_DIR OUT_DIR
Prints one JSON line: the EXPORT time inside Kuzu.
Setup: pip install kuzu==0.11.3
"""
import json
import sys
import time

import kuzu

db_path, out = sys.argv[1], sys.argv[2]
db = kuzu.Database(db_path, read_only=True)
conn = kuzu.Connection(db)
start = time.perf_counter()
conn.execute(f"EXPORT DATABASE '{out}' (format=\"csv\")")
print(json.dumps({"system": "kuzu", "export_seconds": round(time.perf_counter() - start, 3)}))
