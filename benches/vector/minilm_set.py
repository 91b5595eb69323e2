#!/usr/bin/env python3
"""Picks the distinct node descriptions of a generated academic dump for the MiniLM benchmark set.

usage: minilm_set.py texts DUMP_DIR OUT_DIR COUNT   -> OUT_DIR/texts.txt (COUNT lines, shuffled)
       minilm_set.py truth OUT_DIR QUERIES          -> base/queries/gt/kth/meta from OUT_DIR/vectors.f32

The descriptions are the ones the import embeds for nodes without a written description
("Paper: <title>." and "Author: <name>.", store/src/describe.rs). The last QUERIES lines are the
queries (distinct texts, not in the base).
"""
import csv
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from truth import write_truth  # noqa: E402

cmd = sys.argv[1]
if cmd == "texts":
    dump, out, count = sys.argv[2], sys.argv[3], int(sys.argv[4])
    seen = set()
    for file, label, col in (("papers.csv", "Paper", "title"), ("authors.csv", "Author", "name")):
        with open(os.path.join(dump, file), newline="") as f:
            for row in csv.DictReader(f):
                seen.add(f"{label}: {row[col]}.")
    texts = sorted(seen)
    if len(texts) < count:
        sys.exit(f"only {len(texts)} distinct descriptions in {dump}, {count} wanted: generate more nodes")
    rng = np.random.default_rng(11)
    picked = [texts[i] for i in rng.permutation(len(texts))[:count]]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "texts.txt"), "w") as f:
        f.write("\n".join(picked) + "\n")
    print(json.dumps(dict(step="texts", distinct=len(texts), picked=count)))
elif cmd == "truth":
    out, nq = sys.argv[2], int(sys.argv[3])
    v = np.fromfile(os.path.join(out, "vectors.f32"), dtype="<f4").reshape(-1, 384)
    base, queries = v[:-nq], v[-nq:]
    meta = write_truth(out, base, queries, dict(source="all-MiniLM-L6-v2 over distinct generated descriptions"))
    print(json.dumps(dict(step="truth", **meta)))
else:
    sys.exit(f"unknown command {cmd}")
