#!/usr/bin/env bash
# One-shot SEARCH on the 1M-node generated graph: a fresh `cairn query -e` process
# whose EXPLORE enters through `FROM SEARCH`, wall time and peak RSS of the whole process
# (benches/lib/timed.sh), RUNS runs per text on one copy of the database. Kuzu-free: Kuzu has no
# text search to compare with. Prints one JSON line per run (with /proc/loadavg), then medians.
#
# Usage: bash benches/derived/search.sh [RUNS]     (default 5)
# Data as benches/derived/setup.sh says (CAIRN_BENCH_DIR); the copy lives in LOOP_TMP.
set -euo pipefail
cd "$(dirname "$0")/../.."
. benches/derived/setup.sh
. benches/lib/timed.sh
RUNS=${1:-5}
TMP=${LOOP_TMP:-/tmp/loop-run}
TEXTS=("graph neural networks" "session recommendation at scale" "document clustering")
rm -rf "$TMP"; mkdir -p "$TMP"; cp -r "$WORK/cairn-db" "$TMP/cairn-db"
WORK_DB=$TMP/cairn-db
WORK=$TMP  # timed() keeps its out/err/rss files here
LINES=()
for i in $(seq 1 "$RUNS"); do
  for t in "${TEXTS[@]}"; do
    timed cairn "$CAIRN" --db "$WORK_DB" query -e \
      "EXPLORE \"authors of $t\" FROM SEARCH \"$t\" IN Paper TOP 5 VIA <AUTHORED TARGET Author"
    LINES+=("$(python3 -c '
import json, sys
t0, t1, rss, load, text, i, out = sys.argv[1:]
print(json.dumps({"system": "cairn", "run": int(i), "text": text, "seconds": round(float(t1) - float(t0), 3),
                  "peak_rss_mib": round(int(rss) / 1024, 1), "output_lines": open(out).read().count("\n"),
                  "loadavg": load}))' "$T0" "$T1" "$RSS_KB" "$LOAD" "$t" "$i" "$WORK/out")")
    echo "${LINES[-1]}"
  done
done
rm -rf "$TMP"
printf '%s\n' "${LINES[@]}" | python3 -c '
import json, statistics, sys
runs = [json.loads(l) for l in sys.stdin]
print(json.dumps({"median_seconds": statistics.median(r["seconds"] for r in runs),
                  "median_peak_rss_mib": statistics.median(r["peak_rss_mib"] for r in runs),
                  "runs": len(runs), "bars": {"seconds": "<= 1.0", "peak_rss_mib": "<= 2048"}}))'
