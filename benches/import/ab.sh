#!/usr/bin/env bash
# Two Cairn builds and Kuzu, interleaved on one generated CSV dump: A, B, Kuzu, A, B, Kuzu, …
# For "did this change slow the import down": the same dump, the same machine, the same minutes.
# Prints one JSON line per run (with /proc/loadavg), then one line of medians and ratios per
# size and embedder.
#
# Usage: bash benches/import/ab.sh OLD_CAIRN_BIN NEW_CAIRN_BIN [NODES] [RUNS]
#        bash benches/import/ab.sh OLD_CAIRN_BIN NEW_CAIRN_BIN NODES NODES... RUNS
#        (defaults 1,000,000 nodes, 3 runs; embeddings off, as in run.sh). With several sizes,
#        each is measured in turn (one dump at a time: the previous is deleted).
#   OLD_CAIRN_BIN `-` skips the old build (e.g. at sizes it cannot import).
# CAIRN_BENCH_EMBEDDERS="none hash" runs Cairn with each embedder in turn (default `none`; Kuzu
#   computes none, so its runs are the same for both).
# CAIRN_BENCH_BUDGET=SIZE passes --memory-budget SIZE to the new build.
# Setup (once): pip install kuzu==0.11.3 ; apt-get install -y time
# CAIRN_BENCH_DIR=DIR keeps DIR/dump between calls (regenerated when NODES changes).
set -euo pipefail
cd "$(dirname "$0")/../.."
. benches/lib/timed.sh
OLD=${1:?old cairn binary}
NEW=${2:?new cairn binary}
shift 2
SIZES=(1000000)
RUNS=3
if [ $# -ge 2 ]; then
  SIZES=("${@:1:$#-1}")
  RUNS=${*: -1}
elif [ $# -eq 1 ]; then
  SIZES=("$1")
fi
EMBEDDERS=${CAIRN_BENCH_EMBEDDERS:-none}
BUDGET=()
[ -n "${CAIRN_BENCH_BUDGET:-}" ] && BUDGET=(--memory-budget "$CAIRN_BENCH_BUDGET")
WORK=${CAIRN_BENCH_DIR:-$(mktemp -d /tmp/cairn-import-ab.XXXXXX)}
python3 -c "import kuzu" 2>/dev/null || pip install -q kuzu==0.11.3

run() { # system, run, command... -> JSON line
  local name=$1 i=$2; shift 2
  rm -rf "$WORK/db"
  sync
  timed "$name" "$@"
  rm -rf "$WORK/db"
  python3 - "$name" "$i" "$T0" "$T1" "$RSS_KB" "$EDGES" "$LOAD" "$NODES" <<'PY'
import json, sys
name, i, t0, t1, rss, edges, load, nodes = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), sys.argv[7], int(sys.argv[8])
secs = t1 - t0
print(json.dumps({"system": name, "nodes": nodes, "run": i, "edges": edges, "seconds": round(secs, 2),
                  "edges_per_sec": round(edges / secs), "peak_rss_mib": round(rss / 1024), "loadavg": load}))
PY
}

for NODES in "${SIZES[@]}"; do
  if [ "$(cat "$WORK/dump.nodes" 2>/dev/null)" != "$NODES" ]; then
    rm -rf "$WORK/dump"
    "$NEW" generate academic --nodes "$NODES" --seed 42 --format csv --out "$WORK/dump" >&2
    echo "$NODES" > "$WORK/dump.nodes"
  fi
  EDGES=$(( $(cat "$WORK"/dump/{authored,published_in,has_topic,cites}.csv | wc -l) - 4 ))
  for EMB in $EMBEDDERS; do
    LINES=()
    for i in $(seq 1 "$RUNS"); do
      if [ "$OLD" != - ]; then
        LINES+=("$(run "old-$EMB" "$i" "$OLD" --db "$WORK/db" import --embedder "$EMB" --no-index "$WORK/dump")"); echo "${LINES[-1]}"
      fi
      LINES+=("$(run "new-$EMB" "$i" "$NEW" --db "$WORK/db" import --embedder "$EMB" --no-index "${BUDGET[@]}" "$WORK/dump")"); echo "${LINES[-1]}"
      LINES+=("$(run kuzu "$i" python3 benches/import/kuzu_import.py "$WORK/dump" "$WORK/db")"); echo "${LINES[-1]}"
    done
    printf '%s\n' "${LINES[@]}" | python3 -c '
import json, statistics, sys
runs = [json.loads(l) for l in sys.stdin]
systems = sorted({r["system"] for r in runs})
med = {s: statistics.median(r["edges_per_sec"] for r in runs if r["system"] == s) for s in systems}
rss = {s: statistics.median(r["peak_rss_mib"] for r in runs if r["system"] == s) for s in systems}
new = [s for s in systems if s.startswith("new")][0]
out = {"nodes": runs[0]["nodes"], "median_edges_per_sec": med, "median_peak_rss_mib": rss,
       "new_over_kuzu": round(med[new] / med["kuzu"], 3),
       "new_rss_over_kuzu": round(rss[new] / rss["kuzu"], 3)}
old = [s for s in systems if s.startswith("old")]
if old:
    out["new_over_old"] = round(med[new] / med[old[0]], 3)
    out["old_over_kuzu"] = round(med[old[0]] / med["kuzu"], 3)
print(json.dumps(out))'
  done
done
