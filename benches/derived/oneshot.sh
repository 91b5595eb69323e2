#!/usr/bin/env bash
# One-shot 2-hop co-author query on the 1M-node generated graph: a fresh `cairn query -e` process
# against a fresh Python process that opens Kuzu and runs the same question, interleaved
# (Cairn, Kuzu, Cairn, Kuzu, …), wall time and peak RSS of each whole process.
# Prints one JSON line per run (with /proc/loadavg), then one line of medians and ratios.
#
# Usage: bash benches/derived/oneshot.sh CAIRN_BIN [NODES] [RUNS]
#        (defaults 1,000,000 nodes, 5 runs per author, 4 authors)
# Setup (once): pip install kuzu==0.11.3 ; apt-get install -y time
# CAIRN_BENCH_DIR=DIR keeps DIR/dump and both databases between calls (the dump layout of
# benches/import/ab.sh; rebuilt when NODES changes).
set -euo pipefail
cd "$(dirname "$0")/../.."
. benches/lib/timed.sh
CAIRN=${1:?cairn binary}
NODES=${2:-1000000}
RUNS=${3:-5}
AUTHORS=(a17 a4242 a123456 a300001)
WORK=${CAIRN_BENCH_DIR:-$(mktemp -d /tmp/cairn-derived-oneshot.XXXXXX)}
python3 -c "import kuzu" 2>/dev/null || pip install -q kuzu==0.11.3
if [ "$(cat "$WORK/dump.nodes" 2>/dev/null)" != "$NODES" ]; then
  rm -rf "$WORK/dump" "$WORK/cairn-db" "$WORK/kuzu-db"
  "$CAIRN" generate academic --nodes "$NODES" --seed 42 --format csv --out "$WORK/dump" >&2
  echo "$NODES" > "$WORK/dump.nodes"
fi
# The databases the import benchmarks build: Cairn's import without embeddings, Kuzu's COPY FROM.
[ -e "$WORK/cairn-db" ] || "$CAIRN" --db "$WORK/cairn-db" import --embedder none --no-index "$WORK/dump" >&2
[ -e "$WORK/kuzu-db" ] || python3 benches/import/kuzu_import.py "$WORK/dump" "$WORK/kuzu-db" >&2

KUZU_Q='MATCH (a:Author {key: $k})-[:AUTHORED]->(:Paper)<-[:AUTHORED]-(c:Author) WHERE c.key <> $k RETURN DISTINCT c.key, c.name'

run() { # system, run, author, command... -> JSON line
  local name=$1 i=$2 author=$3; shift 3
  timed "$name" "$@"
  python3 - "$name" "$i" "$author" "$T0" "$T1" "$RSS_KB" "$LOAD" "$WORK/out" <<'PY'
import json, sys
name, i, author, t0, t1, rss, load, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), sys.argv[7], sys.argv[8]
text = open(out).read()
rows = json.loads(text.strip().splitlines()[-1])["rows"] if name == "kuzu" else text.count("\n")
print(json.dumps({"system": name, "run": i, "author": author, "seconds": round(t1 - t0, 3),
                  "peak_rss_mib": round(rss / 1024, 1), "output_lines": rows, "loadavg": load}))
PY
}

LINES=()
for i in $(seq 1 "$RUNS"); do
  for a in "${AUTHORS[@]}"; do
    LINES+=("$(run cairn "$i" "$a" "$CAIRN" --db "$WORK/cairn-db" query -e \
      "EXPLORE \"co-authors\" FROM Author \"$a\" VIA AUTHORED -> <AUTHORED TARGET Author")"); echo "${LINES[-1]}"
    LINES+=("$(run kuzu "$i" "$a" python3 benches/derived/kuzu_query.py "$WORK/kuzu-db" "$KUZU_Q" "k=$a")"); echo "${LINES[-1]}"
  done
done
printf '%s\n' "${LINES[@]}" | python3 -c '
import json, statistics, sys
runs = [json.loads(l) for l in sys.stdin]
wall = {s: statistics.median(r["seconds"] for r in runs if r["system"] == s) for s in ("cairn", "kuzu")}
rss = {s: statistics.median(r["peak_rss_mib"] for r in runs if r["system"] == s) for s in ("cairn", "kuzu")}
print(json.dumps({"median_seconds": wall, "median_peak_rss_mib": rss,
                  "cairn_over_kuzu_seconds": round(wall["cairn"] / wall["kuzu"], 3),
                  "cairn_over_kuzu_rss": round(rss["cairn"] / rss["kuzu"], 3),
                  "bars": {"seconds": "<= 1.0", "rss": "<= 1.5"}}))'
