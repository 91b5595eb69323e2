#!/usr/bin/env python3
"""Generate embedding-like test vectors for the HNSW benchmarks (see docs/VECTOR.md).

Real sentence embeddings are unit vectors with low intrinsic dimension that cluster by topic, so the
vectors here are: a topic centre (one of C) plus a topic-specific low-rank offset plus a little isotropic
noise, all inside a shared rank-R subspace of R^384, L2-normalised. Uniform random vectors are no test of
an ANN index (every neighbour is about as far as every other), so they are not used.

Writes into OUT_DIR:
  base.f32     n x d little-endian f32, row-major (the indexed vectors)
  queries.f32  q x d (drawn from the same distribution, not in base)
  gt.u32       q x 10 exact top-10 ids by cosine (inner product on unit vectors), best first
  meta.json    shape and parameters
"""
import argparse, json, os, sys, time
import numpy as np

p = argparse.ArgumentParser()
p.add_argument("out_dir")
p.add_argument("--n", type=int, default=100_000)
p.add_argument("--q", type=int, default=1_000)
p.add_argument("--dim", type=int, default=384)
p.add_argument("--rank", type=int, default=96)
p.add_argument("--clusters", type=int, default=1000)
p.add_argument("--seed", type=int, default=7)
p.add_argument("--noise", type=float, default=0.7)
p.add_argument("--spread", type=float, default=0.5)
a = p.parse_args()

t0 = time.time()
rng = np.random.default_rng(a.seed)
basis, _ = np.linalg.qr(rng.standard_normal((a.dim, a.rank)))  # dim x rank, orthonormal columns
centres = rng.standard_normal((a.clusters, a.rank)).astype(np.float32)
# each topic spreads along its own few directions, as topics do in embedding space
spread = rng.standard_normal((a.clusters, 8, a.rank)).astype(np.float32) * a.spread


def draw(m):
    c = rng.integers(0, a.clusters, m)
    z = centres[c] + np.einsum("mk,mkr->mr", rng.standard_normal((m, 8)).astype(np.float32), spread[c])
    z += rng.standard_normal((m, a.rank)).astype(np.float32) * a.noise
    x = z @ basis.T.astype(np.float32)
    x += rng.standard_normal((m, a.dim)).astype(np.float32) * 0.02
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x.astype("<f4")


base = draw(a.n)
queries = draw(a.q)
gt = np.empty((a.q, 10), dtype="<u4")
for i in range(0, a.q, 100):
    s = queries[i:i + 100] @ base.T
    top = np.argpartition(-s, 10, axis=1)[:, :10]
    order = np.argsort(-np.take_along_axis(s, top, 1), axis=1)
    gt[i:i + 100] = np.take_along_axis(top, order, 1)
os.makedirs(a.out_dir, exist_ok=True)
base.tofile(os.path.join(a.out_dir, "base.f32"))
queries.tofile(os.path.join(a.out_dir, "queries.f32"))
gt.tofile(os.path.join(a.out_dir, "gt.u32"))
s = queries @ base.T
top = -np.sort(-s, axis=1)
stats = dict(cos_top1=round(float(top[:, 0].mean()), 3), cos_top10=round(float(top[:, 9].mean()), 3),
             cos_median=round(float(np.median(s)), 3))
meta = dict(n=a.n, q=a.q, dim=a.dim, rank=a.rank, clusters=a.clusters, seed=a.seed, noise=a.noise,
            spread=a.spread, k=10, **stats)
json.dump(meta, open(os.path.join(a.out_dir, "meta.json"), "w"))
print(json.dumps(dict(step="gen", secs=round(time.time() - t0, 2), **meta)))
