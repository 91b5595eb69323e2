#!/usr/bin/env bash
# 4 readers beside a writer on the 1M-node generated graph: the Cairn driver
# (examples/derived.rs, `readers`) runs THREADS reader threads of EXPLORE (1-, 2- and 3-hop plans
# from random authors) while one writer commits a paper and an edge every EVERY_MS for SECONDS,
# on a fresh copy of the database per run. Prints the driver's JSON line per run (reader
# p50/p99, idle and peak RSS of the process, /proc/loadavg), then the medians over runs.
#
# Usage: bash benches/derived/readers.sh [SECONDS] [RUNS] [THREADS] [EVERY_MS]  (60 s, 1 run, 4, 10)
# Data as benches/derived/setup.sh says (CAIRN_BENCH_DIR); the copy lives in LOOP_TMP.
set -euo pipefail
cd "$(dirname "$0")/../.."
. benches/derived/setup.sh
SECONDS_=${1:-60}
RUNS=${2:-1}
THREADS=${3:-4}
EVERY=${4:-10}
TMP=${LOOP_TMP:-/tmp/loop-run}
LINES=()
for i in $(seq 1 "$RUNS"); do
  rm -rf "$TMP"; mkdir -p "$TMP"; cp -r "$WORK/cairn-db" "$TMP/cairn-db"
  LINES+=("$("$DRIVER" readers "$TMP/cairn-db" "$SECONDS_" "$THREADS" "$EVERY" "$i" | tail -n 1)")
  echo "${LINES[-1]}"; rm -rf "$TMP"
done
printf '%s\n' "${LINES[@]}" | python3 -c '
import json, statistics, sys
runs = [json.loads(l) for l in sys.stdin]
med = lambda f: round(statistics.median(f(r) for r in runs), 3)
print(json.dumps({"median_over_runs": {"reader_p50_ms": med(lambda r: r["reader_ms"]["p50"]),
    "reader_p99_ms": med(lambda r: r["reader_ms"]["p99"]), "peak_over_idle": med(lambda r: r["peak_over_idle"])},
    "runs": len(runs), "bars": {"reader_p99_ms": "<= 20", "peak_over_idle": "<= 1.2"}}))'
