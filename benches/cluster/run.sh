#!/usr/bin/env bash
# The cluster figures (docs/BENCHMARKS.md, "On a Redis Cluster"), on one generated CSV dump,
# local RocksDB beside clusters of 1, 3 and 6 masters on loopback (no replicas; started with
# scripts/redis-cluster.sh on ports from CAIRN_BENCH_PORT, default 7600, so that a CI run's
# cluster, which takes the first free range from 7100, is not met):
# - import: `cairn --db DB import --embedder none --no-index DUMP` into a local directory and
#   into a fresh 3-master cluster, interleaved, RUNS times (wall time -> edges/s); then once
#   into the 1- and 6-master clusters the throughput runs read;
# - EXPLORE: one `cairn --db DB --read-only query -f Q --format json` per run over the same
#   QUERIES EXPLOREs from random authors over a relation set (`VIA AUTHORED, <AUTHORED, CITES,
#   <CITES`, every other setting default: beam 8, depth 3 not written, so that the adaptive
#   expansion may deepen it), each on a fresh store view
#   (a one-shot process builds no node table), local and 3 masters interleaved: p50/p99 of the
#   statements' own elapsed_ms, queries per second (one client, one after another), and the
#   round trips each reports;
# - read throughput: `cluster_reads` (examples/cluster_reads.rs: THREADS threads with handles
#   of their own reading the facts and both adjacency lists of BATCH random nodes per batch,
#   no record cache) for SECONDS against 1, 3 and 6 masters and local, interleaved, RUNS times,
#   with the CPU seconds the client and the Redis servers used.
# Each measurement prints one JSON line (with /proc/loadavg); then one line of medians, ratios
# and bars, and the memory the 3-master cluster holds per node and per edge.
# Usage: bash benches/cluster/run.sh CAIRN_BIN READS_BIN DUMP_DIR [RUNS] [QUERIES] [SECONDS] [THREADS] [BATCH]
#   (CAIRN_BIN: a release `cairn`; READS_BIN: `cargo build --release --example cluster_reads`)
set -euo pipefail
cd "$(dirname "$0")/../.."
. benches/lib/timed.sh
CAIRN=${1:?cairn binary}
READS=${2:?cluster_reads binary}
DUMP=${3:?dump directory (cairn generate academic --format csv)}
RUNS=${4:-3}
QUERIES=${5:-100}
SECONDS_=${6:-10}
THREADS=${7:-4}
BATCH=${8:-64}
PORT=${CAIRN_BENCH_PORT:-7600}
WORK=${CAIRN_BENCH_DIR:-$(mktemp -d /tmp/cairn-cluster-bench.XXXXXX)}
mkdir -p "$WORK"
C1="$WORK/c1" C3="$WORK/c3" C6="$WORK/c6"
trap 'for c in "$C1" "$C3" "$C6"; do bash scripts/redis-cluster.sh stop "$c"; done' EXIT
EDGES=$(( $(cat "$DUMP"/{authored,published_in,has_topic,cites}.csv | wc -l) - 4 ))
NODES=$(( $(cat "$DUMP"/{authors,papers,venues,topics}.csv | wc -l) - 4 ))
AUTHORS=$(( $(wc -l < "$DUMP/authors.csv") - 1 ))
python3 - "$AUTHORS" "$QUERIES" > "$WORK/q.cairn" <<'PY'
import random, sys
n, q = int(sys.argv[1]), int(sys.argv[2])
r = random.Random(7)
for _ in range(q):
    print(f'EXPLORE "graph neural networks for molecules" FROM Author "a{r.randrange(n)}" '
          'VIA AUTHORED, <AUTHORED, CITES, <CITES;')
PY
start() { # dir masters port -> URL of database g
  echo "$(bash scripts/redis-cluster.sh start "$1" "$2" 0 "$3" | tail -n 1)/g"
}
# CPU seconds (user + system) of the Redis servers of a cluster directory so far.
server_cpu() {
  local total=0 pid t
  for f in "$1"/*/redis.pid; do
    pid=$(cat "$f")
    t=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    total=$((total + t))
  done
  python3 -c "print($total / $(getconf CLK_TCK))"
}
import() { # name run db
  timed "$1" "$CAIRN" --db "$3" import --embedder none --no-index "$DUMP"
  python3 -c 'import json,sys; n,i,t0,t1,e,l=sys.argv[1:]; s=float(t1)-float(t0); print(json.dumps({"phase":"import","system":n,"run":int(i),"edges":int(e),"seconds":round(s,2),"edges_per_sec":round(int(e)/s),"loadavg":l}))' "$1" "$2" "$T0" "$T1" "$EDGES" "$LOAD"
}
explore() { # name run db
  timed "$1" "$CAIRN" --db "$3" --read-only query -f "$WORK/q.cairn" --format json
  python3 - "$1" "$2" "$WORK/out" "$LOAD" <<'PY'
import json, sys
name, i, out, load = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
docs = [json.loads(l) for l in open(out) if l.strip().startswith("{")]
st = [d["stats"] for d in docs if "stats" in d]
ms = sorted(s["elapsed_ms"] for s in st)
trips = sorted(s["round_trips"] for s in st if s.get("round_trips") is not None)
print(json.dumps({"phase": "explore", "system": name, "run": i, "queries": len(ms),
                  "p50_ms": round(ms[len(ms) // 2], 2), "p99_ms": round(ms[min(len(ms) - 1, int(len(ms) * 0.99))], 2),
                  "qps": round(len(ms) / (sum(ms) / 1e3), 1),
                  "round_trips_p50": trips[len(trips) // 2] if trips else None,
                  "round_trips_max": trips[-1] if trips else None,
                  "rounds_max": max(s["rounds"] for s in st),
                  "adaptive_max": max(s.get("adaptive_expansions") or 0 for s in st),
                  # statements past (depth + 2) x 3 masters, the depth counting adaptive expansions
                  "over_bound": sum((s.get("round_trips") or 0) > 3 * (3 + (s.get("adaptive_expansions") or 0) + 2) for s in st),
                  "loadavg": load}))
PY
}
reads() { # name run db cluster-dir-or-empty
  local before=0 after=0
  [ -n "$4" ] && before=$(server_cpu "$4")
  timed "$1" "$READS" "$3" "$NODES" "$SECONDS_" "$THREADS" "$BATCH" "$2"
  [ -n "$4" ] && after=$(server_cpu "$4")
  python3 - "$1" "$2" "$WORK/out" "$LOAD" "$before" "$after" <<'PY'
import json, sys
name, i, out, load, b, a = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], float(sys.argv[5]), float(sys.argv[6])
r = json.loads(open(out).read().strip().splitlines()[-1])
r.pop("db")
r.update({"phase": "reads", "system": name, "run": i, "server_cpu_seconds": round(a - b, 2),
          "server_cores": round((a - b) / r["seconds"], 2), "loadavg": load})
print(json.dumps(r))
PY
}
LINES=()
emit() { LINES+=("$1"); echo "$1"; }
for i in $(seq 1 "$RUNS"); do
  rm -rf "$WORK/local"; emit "$(import local "$i" "$WORK/local")"
  U3=$(start "$C3" 3 $((PORT + 100)))
  emit "$(import cluster3 "$i" "$U3")"
  [ "$i" -lt "$RUNS" ] && bash scripts/redis-cluster.sh stop "$C3"
done
U1=$(start "$C1" 1 "$PORT"); emit "$(import cluster1 1 "$U1")"
U6=$(start "$C6" 6 $((PORT + 200))); emit "$(import cluster6 1 "$U6")"
for i in $(seq 1 "$RUNS"); do
  emit "$(explore local "$i" "$WORK/local")"
  emit "$(explore cluster3 "$i" "$U3")"
done
for i in $(seq 1 "$RUNS"); do
  emit "$(reads cluster1 "$i" "$U1" "$C1")"
  emit "$(reads cluster3 "$i" "$U3" "$C3")"
  emit "$(reads cluster6 "$i" "$U6" "$C6")"
  emit "$(reads local "$i" "$WORK/local" "")"
done
# Memory of the 3-master cluster: every master's used_memory (less an empty instance's), and
# the adjacency hashes' share from MEMORY USAGE of a sample of nodes (both directions), so that
# the rest is what the nodes hold (records, degrees, keys and names).
MEM=$(python3 - "$C3" "$NODES" "$EDGES" <<'PY'
import glob, json, os, random, subprocess, sys
cdir, nodes, edges = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ports = [os.path.basename(os.path.dirname(p)) for p in glob.glob(f"{cdir}/*/redis.pid")]
def cli(port, *args, stdin=None):
    return subprocess.run(["redis-cli", "-c", "-p", port, *args], input=stdin, capture_output=True, text=True, check=True).stdout
used = 0
for p in ports:
    info = dict(l.split(":", 1) for l in cli(p, "info", "memory").splitlines() if ":" in l)
    used += int(info["used_memory"]) - int(info["used_memory_startup"])
r = random.Random(7)
sample = [r.randrange(nodes) for _ in range(500)]
adj = fields = 0
for letter in "oi":
    for node in sample:
        key = f"g:{letter}:{{{node}}}"
        out = cli(ports[0], "memory", "usage", key, "samples", "0").strip()
        adj += int(out) if out.isdigit() else 0
        out = cli(ports[0], "hlen", key).strip()
        fields += int(out) if out.isdigit() else 0
per_field = adj / max(fields, 1)
edge_bytes = per_field * 2 * edges
print(json.dumps({"phase": "memory", "system": "cluster3", "used_bytes": used,
                  "bytes_per_edge": round(2 * per_field), "bytes_per_node": round((used - edge_bytes) / nodes),
                  "nodes": nodes, "edges": edges}))
PY
)
emit "$MEM"
printf '%s\n' "${LINES[@]}" | python3 -c '
import json, statistics, sys
rows = [json.loads(l) for l in sys.stdin]
def m(ph, sy, k):
    v = [r[k] for r in rows if r["phase"] == ph and r["system"] == sy]
    return statistics.median(v) if v else None
imp = {s: m("import", s, "edges_per_sec") for s in ("local", "cluster1", "cluster3", "cluster6")}
p50 = {s: m("explore", s, "p50_ms") for s in ("local", "cluster3")}
p99 = {s: m("explore", s, "p99_ms") for s in ("local", "cluster3")}
qps = {s: m("explore", s, "qps") for s in ("local", "cluster3")}
reads = {s: m("reads", s, "nodes_per_sec") for s in ("cluster1", "cluster3", "cluster6", "local")}
cpu = {s: {"client_cores": m("reads", s, "client_cores"), "server_cores": m("reads", s, "server_cores")}
       for s in ("cluster1", "cluster3", "cluster6", "local")}
trips = max(r["round_trips_max"] for r in rows if r["phase"] == "explore" and r["system"] == "cluster3")
print(json.dumps({"import_edges_per_sec": imp, "cluster3_over_local_import": round(imp["cluster3"] / imp["local"], 3),
                  "explore_p50_ms": p50, "explore_p99_ms": p99, "explore_qps": qps,
                  "cluster3_over_local_p50": round(p50["cluster3"] / p50["local"], 2),
                  "explore_round_trips_max": trips, "reads_nodes_per_sec": reads, "reads_cpu": cpu,
                  "reads_3_over_1": round(reads["cluster3"] / reads["cluster1"], 2),
                  "reads_6_over_1": round(reads["cluster6"] / reads["cluster1"], 2),
                  "bars": {"import": ">= 0.30", "p50": "<= 5", "round_trips": "<= (3 + 2) x 3 = 15", "reads_3_over_1": ">= 1.8"}}))'
