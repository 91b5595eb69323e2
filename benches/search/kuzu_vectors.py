"""Builds Kuzu's vector index over the vectors of a Cairn export, to say what the index costs there.

Usage: python3 kuzu_vectors.py EXPORT.jsonl DB_DIR
Loads every node's vector of a `cairn export` (JSON Lines, hash or MiniLM vectors) into one Kuzu
table (key, FLOAT[dim]) with COPY from Parquet, then times `CREATE_VECTOR_INDEX` (cosine, Kuzu's defaults).
Prints one JSON line: vectors, dimension, the COPY and index build times.
Setup: pip install kuzu==0.11.3 pyarrow
"""
import json
import os
import sys
import time

import kuzu
import pyarrow as pa
import pyarrow.parquet as pq

export, db_path = sys.argv[1], sys.argv[2]
parquet_path = db_path.rstrip("/") + ".vectors.parquet"
keys, vectors = [], []
with open(export) as src:
    for line in src:
        record = json.loads(line)
        vector = record.get("vector")
        if record.get("type") != "node" or vector is None:
            continue
        keys.append(f"{record['label']}:{record['key']}")
        vectors.append(vector)
if not vectors:
    sys.exit(f"{export} holds no vectors: import with --embedder hash before exporting")
dim = len(vectors[0])
# Parquet, not CSV: Kuzu 0.11.3 parses a CSV of float lists at about 120 vectors a second
# (829 s for 100,000 of 384 floats), which is loading, not the index this script measures.
pq.write_table(
    pa.table({"key": keys, "v": pa.array(vectors, type=pa.list_(pa.float32(), dim))}), parquet_path
)
count = len(keys)
del keys, vectors

db = kuzu.Database(db_path)
conn = kuzu.Connection(db)
conn.execute("LOAD vector")
conn.execute(f"CREATE NODE TABLE Vec(key STRING PRIMARY KEY, v FLOAT[{dim}])")
start = time.perf_counter()
conn.execute(f"COPY Vec FROM '{parquet_path}'")
copy_seconds = time.perf_counter() - start
os.remove(parquet_path)
start = time.perf_counter()
conn.execute("CALL CREATE_VECTOR_INDEX('Vec', 'vec_index', 'v', metric := 'cosine')")
index_seconds = time.perf_counter() - start
print(json.dumps({"system": "kuzu", "vectors": count, "dim": dim, "copy_seconds": round(copy_seconds, 3),
                  "index_seconds": round(index_seconds, 3), "vectors_per_sec": round(count / index_seconds)}))
