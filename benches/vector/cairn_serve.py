"""Cairn's vector bench in serve mode (CAIRN_VECTOR_BENCH_SERVE=1), as paired.py and recall_curve.py
drive it: the child builds or loads its index, says it is ready, then answers each `EF THREADS` line
with one pass over the queries as a JSON line (cpu_secs, secs, hits, scored_per_query)."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class CairnServe:
    def __init__(self, data_dir, index_path, binary=None, **env):
        """`binary`: a built bench (else `cargo bench -p cairn-vector --bench vector_ann`); `env`:
        more variables for the child (BENCH_SEED, BENCH_THREADS)."""
        env = dict(os.environ, CAIRN_VECTOR_BENCH_DATA=data_dir, CAIRN_VECTOR_BENCH_SERVE="1",
                   CAIRN_VECTOR_BENCH_INDEX=index_path, **env)
        if binary:
            cmd, self.name = [binary], "cairn-hnsw:" + os.path.basename(binary)
        else:
            cmd, self.name = ["cargo", "bench", "-q", "-p", "cairn-vector", "--bench", "vector_ann"], "cairn-hnsw"
        self.p = subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit(f"{self.name} ended before it was ready")
            if json.loads(line).get("step") == "ready":
                break

    def run(self, ef, nthreads):
        """One timed pass: the child's JSON record."""
        self.p.stdin.write(f"{ef} {nthreads}\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            sys.exit(f"{self.name} ended during a pass (ef {ef}, {nthreads} threads)")
        return json.loads(line)

    def close(self):
        self.p.stdin.close()
        self.p.wait()
