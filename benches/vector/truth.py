"""Exact top-10 by inner product (cosine on unit vectors), shared by the two set makers.

Writes gt.u32 (q x 10 ids, best first) and kth.f32 (q scores of the 10th neighbour). Recall counts
a returned id whose true score is at least the 10th score (less 1e-5 for float rounding), so a
neighbour tied with the 10th counts whichever of the tied ids a search returns.
"""
import json
import os

import numpy as np


def write_truth(out_dir, base, queries, meta):
    q = len(queries)
    gt = np.empty((q, 10), dtype="<u4")
    kth = np.empty(q, dtype="<f4")
    for i in range(0, q, 100):
        s = queries[i:i + 100] @ base.T
        top = np.argpartition(-s, 10, axis=1)[:, :10]
        order = np.argsort(-np.take_along_axis(s, top, 1), axis=1)
        gt[i:i + 100] = np.take_along_axis(top, order, 1)
        kth[i:i + 100] = np.take_along_axis(s, gt[i:i + 100].astype(np.int64), 1)[:, 9]
    os.makedirs(out_dir, exist_ok=True)
    base.astype("<f4").tofile(os.path.join(out_dir, "base.f32"))
    queries.astype("<f4").tofile(os.path.join(out_dir, "queries.f32"))
    gt.tofile(os.path.join(out_dir, "gt.u32"))
    kth.tofile(os.path.join(out_dir, "kth.f32"))
    sample = queries[: min(q, 200)] @ base.T
    ordered = -np.sort(-sample, axis=1)
    meta = dict(meta, n=len(base), q=q, dim=base.shape[1], k=10,
                cos_top1=round(float(ordered[:, 0].mean()), 3),
                cos_top10=round(float(ordered[:, 9].mean()), 3),
                cos_median=round(float(np.median(sample)), 3),
                ties_at_10th=int(((sample >= kth[: len(sample), None] - 1e-5).sum(1) > 10).sum()))
    json.dump(meta, open(os.path.join(out_dir, "meta.json"), "w"))
    return meta


def recall_hits(base, query, ids, kth):
    """How many of `ids` are true top-10 neighbours of `query` (ties with the 10th count)."""
    ids = np.asarray(ids, dtype=np.int64)[:10]
    return int((base[ids] @ query >= kth - 1e-5).sum())
