#!/usr/bin/env bash
# Two Cairn builds and Kuzu, interleaved on one generated CSV dump: A, B, Kuzu, A, B, Kuzu, …
# For "did this change slow the import down": the same dump, the same machine, the same minutes.
# Prints one JSON line per run (with /proc/loadavg), then one line of medians and ratios.
#
# Usage: bash benches/import/ab.sh OLD_CAIRN_BIN NEW_CAIRN_BIN [NODES] [RUNS]
#        (defaults 1,000,000 nodes, 3 runs; embeddings off, as in run.sh)
# Setup (once): pip install kuzu==0.11.3 ; apt-get install -y time
# CAIRN_BENCH_DIR=DIR keeps DIR/dump between calls (regenerated when NODES changes).
set -euo pipefail
cd "$(dirname "$0")/../.."
. benches/lib/timed.sh
OLD=${1:?old cairn binary}
NEW=${2:?new cairn binary}
NODES=${3:-1000000}
RUNS=${4:-3}
WORK=${CAIRN_BENCH_DIR:-$(mktemp -d /tmp/cairn-import-ab.XXXXXX)}
python3 -c "import kuzu" 2>/dev/null || pip install -q kuzu==0.11.3
if [ "$(cat "$WORK/dump.nodes" 2>/dev/null)" != "$NODES" ]; then
  rm -rf "$WORK/dump"
  "$NEW" generate academic --nodes "$NODES" --seed 42 --format csv --out "$WORK/dump" >&2
  echo "$NODES" > "$WORK/dump.nodes"
fi
EDGES=$(( $(cat "$WORK"/dump/{authored,published_in,has_topic,cites}.csv | wc -l) - 4 ))

run() { # system, run, command... -> JSON line
  local name=$1 i=$2; shift 2
  rm -rf "$WORK/db"
  sync
  timed "$name" "$@"
  python3 - "$name" "$i" "$T0" "$T1" "$RSS_KB" "$EDGES" "$LOAD" <<'PY'
import json, sys
name, i, t0, t1, rss, edges, load = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
secs = t1 - t0
print(json.dumps({"system": name, "run": i, "edges": edges, "seconds": round(secs, 2),
                  "edges_per_sec": round(edges / secs), "peak_rss_mib": round(rss / 1024), "loadavg": load}))
PY
}

LINES=()
for i in $(seq 1 "$RUNS"); do
  LINES+=("$(run old "$i" "$OLD" --db "$WORK/db" import --embedder none --no-index "$WORK/dump")"); echo "${LINES[-1]}"
  LINES+=("$(run new "$i" "$NEW" --db "$WORK/db" import --embedder none --no-index "$WORK/dump")"); echo "${LINES[-1]}"
  LINES+=("$(run kuzu "$i" python3 benches/import/kuzu_import.py "$WORK/dump" "$WORK/db")"); echo "${LINES[-1]}"
done
printf '%s\n' "${LINES[@]}" | python3 -c '
import json, statistics, sys
runs = [json.loads(l) for l in sys.stdin]
med = {s: statistics.median(r["edges_per_sec"] for r in runs if r["system"] == s) for s in ("old", "new", "kuzu")}
rss = {s: statistics.median(r["peak_rss_mib"] for r in runs if r["system"] == s) for s in ("old", "new", "kuzu")}
print(json.dumps({"median_edges_per_sec": med, "median_peak_rss_mib": rss,
                  "new_over_old": round(med["new"] / med["old"], 3),
                  "new_over_kuzu": round(med["new"] / med["kuzu"], 3),
                  "old_over_kuzu": round(med["old"] / med["kuzu"], 3)}))'
