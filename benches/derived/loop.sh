#!/usr/bin/env bash
# Write-then-query loop on the 1M-node generated graph: the Cairn driver
# (examples/derived.rs, `loop`: upsert a paper, add an edge, commit, EXPLORE reaching it, SEARCH
# finding it by its title) against Kuzu's equivalent in Python (benches/derived/kuzu_loop.py:
# CREATE node + edge, then MATCH reaching it), interleaved A/B (Cairn first on odd runs, Kuzu
# first on even ones), each run on a fresh copy of its database. Every round must see its own
# write (a driver fails otherwise). Prints the drivers' JSON lines (each with /proc/loadavg), then
# one line with the medians over runs of each p50/p99 and the ratio of the round p50s.
#
# Usage: bash benches/derived/loop.sh [ROUNDS] [RUNS]      (defaults 1000 rounds, 3 runs)
# Needs CAIRN_BENCH_DIR=DIR holding dump/, cairn-db/ (imported with `--embedder hash`: hash vectors and vector
# index) and kuzu-db/ (benches/import/kuzu_import.py); they are built when missing (NODES, default
# 1,000,000) and only read. The copies live in LOOP_TMP (default /tmp/loop-run, ~3 GB at 1M).
# Setup (once): pip install kuzu==0.11.3
set -euo pipefail
cd "$(dirname "$0")/../.."
. benches/derived/setup.sh
ROUNDS=${1:-1000}
RUNS=${2:-3}
TMP=${LOOP_TMP:-/tmp/loop-run}

LINES=()
cairn_run() {
  rm -rf "$TMP"; mkdir -p "$TMP"; cp -r "$WORK/cairn-db" "$TMP/cairn-db"
  LINES+=("$("$DRIVER" loop "$TMP/cairn-db" "$ROUNDS" "$1" | tail -n 1 | python3 -c '
import json, sys; r = json.loads(sys.stdin.read()); r.update(system="cairn", run=int(sys.argv[1])); print(json.dumps(r))' "$1")")
  echo "${LINES[-1]}"; rm -rf "$TMP"
}
kuzu_run() {
  rm -rf "$TMP"; mkdir -p "$TMP"; cp -r "$WORK/kuzu-db" "$TMP/kuzu-db"
  LINES+=("$(python3 benches/derived/kuzu_loop.py "$TMP/kuzu-db" "$ROUNDS" "$1" | python3 -c '
import json, sys; r = json.loads(sys.stdin.read()); r.update(run=int(sys.argv[1])); print(json.dumps(r))' "$1")")
  echo "${LINES[-1]}"; rm -rf "$TMP"
}
for i in $(seq 1 "$RUNS"); do
  if [ $((i % 2)) -eq 1 ]; then cairn_run "$i"; kuzu_run "$i"; else kuzu_run "$i"; cairn_run "$i"; fi
done
printf '%s\n' "${LINES[@]}" | python3 -c '
import json, statistics, sys
runs = [json.loads(l) for l in sys.stdin]
med = lambda s, part, q: statistics.median(r["ms"][part][q] for r in runs if r["system"] == s)
out = {s: {part: {q: round(med(s, part, q), 3) for q in ("p50", "p99")} for part in parts}
       for s, parts in (("cairn", ("round", "commit", "index", "explore", "search")), ("kuzu", ("round", "commit", "match")))}
out["cairn"]["search_scored_p50"] = statistics.median(r["search_scored"]["p50"] for r in runs if r["system"] == "cairn")
out["cairn_over_kuzu_round_p50"] = round(out["cairn"]["round"]["p50"] / out["kuzu"]["round"]["p50"], 3)
out["every_round_saw_its_write"] = all(r["all_saw_their_write"] for r in runs)
out["bars"] = {"cairn_round_p50_ms": "<= 5", "cairn_over_kuzu_round_p50": "<= 1.0"}
print(json.dumps({"median_over_runs": out, "runs": len(runs) // 2}))'
