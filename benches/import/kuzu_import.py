"""Imports a `cairn generate academic --format csv` dump into Kuzu with COPY FROM.

Usage: python3 kuzu_import.py DUMP_DIR DB_DIR [--fts]
Prints one JSON line: the COPY time inside Kuzu and the counts it loaded. With --fts it then
builds Kuzu's full-text indexes (its bundled fts extension) over the text Cairn's default import
indexes, every node's name (a paper's title), and adds their build time (`fts_seconds`).
Setup: pip install kuzu==0.11.3
"""
import json
import os
import sys
import time

import kuzu

dump, db_path = sys.argv[1], sys.argv[2]
db = kuzu.Database(db_path)
conn = kuzu.Connection(db)

# The same files Cairn imports. Edge files carry Cairn's :TYPE column, which Kuzu loads as a
# string property (it has no such column concept); node files map by position.
schema = [
    "CREATE NODE TABLE Topic(key STRING PRIMARY KEY, name STRING)",
    "CREATE NODE TABLE Venue(key STRING PRIMARY KEY, name STRING, kind STRING)",
    "CREATE NODE TABLE Author(key STRING PRIMARY KEY, name STRING)",
    "CREATE NODE TABLE Paper(key STRING PRIMARY KEY, title STRING, year INT64, citations INT64)",
    "CREATE REL TABLE AUTHORED(FROM Author TO Paper, t STRING)",
    "CREATE REL TABLE PUBLISHED_IN(FROM Paper TO Venue, t STRING)",
    "CREATE REL TABLE HAS_TOPIC(FROM Paper TO Topic, t STRING)",
    "CREATE REL TABLE CITES(FROM Paper TO Paper, t STRING)",
]
for s in schema:
    conn.execute(s)

copies = [
    ("Topic", "topics.csv"),
    ("Venue", "venues.csv"),
    ("Author", "authors.csv"),
    ("Paper", "papers.csv"),
    ("AUTHORED", "authored.csv"),
    ("PUBLISHED_IN", "published_in.csv"),
    ("HAS_TOPIC", "has_topic.csv"),
    ("CITES", "cites.csv"),
]
start = time.perf_counter()
for table, file in copies:
    conn.execute(f"COPY {table} FROM '{os.path.join(dump, file)}' (HEADER=true)")
copy_seconds = time.perf_counter() - start

nodes = conn.execute("MATCH (n) RETURN count(n)").get_next()[0]
edges = conn.execute("MATCH ()-[r]->() RETURN count(r)").get_next()[0]
result = {"system": "kuzu", "copy_seconds": round(copy_seconds, 3), "nodes": nodes, "edges": edges}
if "--fts" in sys.argv[3:]:
    conn.execute("LOAD fts")
    start = time.perf_counter()
    for table, column in (("Topic", "name"), ("Venue", "name"), ("Author", "name"), ("Paper", "title")):
        conn.execute(f"CALL CREATE_FTS_INDEX('{table}', '{table.lower()}_text', ['{column}'])")
    result["fts_seconds"] = round(time.perf_counter() - start, 3)
print(json.dumps(result))
