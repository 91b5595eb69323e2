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
  kth.f32      q scores of the 10th neighbour (recall counts ties with it; truth.py)
  meta.json    shape and parameters
"""
import argparse, json, os, sys, time
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from truth import write_truth  # noqa: E402

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
meta = write_truth(a.out_dir, base, queries, dict(rank=a.rank, clusters=a.clusters, seed=a.seed, noise=a.noise,
                                                  spread=a.spread))
print(json.dumps(dict(step="gen", secs=round(time.time() - t0, 2), **meta)))
