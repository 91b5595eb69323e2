#!/usr/bin/env bash
# Export benchmark: `cairn export` (JSON Lines and CSV) beside Kuzu's EXPORT DATABASE (CSV) on
# the same generated graph, interleaved (Cairn JSONL, Cairn CSV, Kuzu, then again) for RUNS
# rounds. Prints one JSON line per run (wall time of the whole command, peak RSS, output size,
# /proc/loadavg just before), then the medians and the ratio, then a round-trip check: the
# JSON Lines export imported into a new database and exported again gives the same lines.
#
# Setup (once): pip install kuzu==0.11.3 ; apt-get install -y time
# Usage: bash benches/export/run.sh [NODES] [SEED]     (default 1,000,000 nodes: ~6.5M edges)
# RUNS (default 3); CAIRN_BENCH_DIR=DIR keeps the work there (and reuses DIR/dump,
# DIR/cairn.db and DIR/kuzu.db of an earlier run of the same NODES and SEED when
# CAIRN_BENCH_REUSE=1); CARGO_TARGET_DIR is honoured.
set -euo pipefail
cd "$(dirname "$0")/../.."
NODES=${1:-1000000}
SEED=${2:-42}
RUNS=${RUNS:-3}
WORK=${CAIRN_BENCH_DIR:-$(mktemp -d /tmp/cairn-export-bench.XXXXXX)}
mkdir -p "$WORK"
source benches/lib/timed.sh
python3 -c "import kuzu" 2>/dev/null || pip install -q kuzu==0.11.3
cargo build --release -q -p cairn-cli
BIN=$(pwd)/${CARGO_TARGET_DIR:-target}/release/cairn

if [ "${CAIRN_BENCH_REUSE:-0}" != 1 ] || [ ! -d "$WORK/cairn.db" ] || [ ! -d "$WORK/kuzu.db" ]; then
  rm -rf "$WORK/dump" "$WORK/cairn.db" "$WORK/kuzu.db"
  "$BIN" generate academic --nodes "$NODES" --seed "$SEED" --format csv --out "$WORK/dump" >&2
  # No embedder: Kuzu stores no vectors, so neither side exports any.
  timed cairn_import "$BIN" --db "$WORK/cairn.db" import --embedder none --no-index "$WORK/dump"
  echo "# cairn import: $(head -n 1 "$WORK/out")" >&2
  timed kuzu_import python3 benches/import/kuzu_import.py "$WORK/dump" "$WORK/kuzu.db"
  echo "# kuzu import: $(tail -n 1 "$WORK/out")" >&2
  rm -rf "$WORK/dump"
fi

report() { # system, output dir -> one JSON line
  local bytes
  bytes=$(du -sb "$2" | cut -f1)
  python3 - "$1" "$T0" "$T1" "$RSS_KB" "$bytes" "$LOAD" "$NODES" <<'PY'
import json, sys
name, t0, t1, rss, size, load, nodes = sys.argv[1:8]
print(json.dumps({"system": name, "nodes_requested": int(nodes), "seconds": round(float(t1) - float(t0), 2),
                  "peak_rss_mib": round(int(rss) / 1024), "output_mib": round(int(size) / 2**20),
                  "loadavg": load}))
PY
}

LINES=$WORK/runs.jsonl
: > "$LINES"
for run in $(seq 1 "$RUNS"); do
  rm -rf "$WORK/export-jsonl"
  timed cairn_jsonl "$BIN" --db "$WORK/cairn.db" export --out "$WORK/export-jsonl"
  report cairn_jsonl "$WORK/export-jsonl" | tee -a "$LINES"
  rm -rf "$WORK/export-csv"
  timed cairn_csv "$BIN" --db "$WORK/cairn.db" export --format csv --out "$WORK/export-csv"
  report cairn_csv "$WORK/export-csv" | tee -a "$LINES"
  rm -rf "$WORK/export-csv"
  rm -rf "$WORK/export-kuzu"
  timed kuzu_csv python3 benches/export/kuzu_export.py "$WORK/kuzu.db" "$WORK/export-kuzu"
  report kuzu_csv "$WORK/export-kuzu" | tee -a "$LINES"
  rm -rf "$WORK/export-kuzu"
done
python3 - "$LINES" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
med = {}
for s in sorted({r["system"] for r in runs}):
    rs = [r for r in runs if r["system"] == s]
    med[s] = {"seconds": statistics.median(r["seconds"] for r in rs),
              "peak_rss_mib": statistics.median(r["peak_rss_mib"] for r in rs),
              "output_mib": rs[-1]["output_mib"], "runs": len(rs)}
    print(json.dumps({"median": s, **med[s]}))
print(json.dumps({"cairn_csv_over_kuzu_seconds": round(med["cairn_csv"]["seconds"] / med["kuzu_csv"]["seconds"], 2),
                  "cairn_jsonl_over_kuzu_seconds": round(med["cairn_jsonl"]["seconds"] / med["kuzu_csv"]["seconds"], 2)}))
PY

# Round trip at this size: import the JSON Lines export, export the copy, compare the lines
# (sorted, with each record's properties in key order: an import numbers property keys anew).
rm -rf "$WORK/copy.db" "$WORK/export-copy"
timed round_trip_import "$BIN" --db "$WORK/copy.db" import --no-index "$WORK/export-jsonl"
echo "# round trip import: $(head -n 1 "$WORK/out")" >&2
"$BIN" --db "$WORK/copy.db" export --out "$WORK/export-copy" > /dev/null
canon() { python3 -c '
import json, sys
for line in sys.stdin:
    print(json.dumps(json.loads(line), sort_keys=True))' < "$1" | LC_ALL=C sort | md5sum | cut -d" " -f1; }
A=$(canon "$WORK/export-jsonl/graph.jsonl")
B=$(canon "$WORK/export-copy/graph.jsonl")
echo "{\"round_trip_identical\": $([ "$A" = "$B" ] && echo true || echo false), \"lines\": $(wc -l < "$WORK/export-jsonl/graph.jsonl")}"
rm -rf "$WORK/copy.db" "$WORK/export-copy" "$WORK/export-jsonl"
