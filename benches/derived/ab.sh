#!/usr/bin/env bash
# Two Cairn builds on the same one-shot query, interleaved (old, new, old, new, …): a fresh
# `cairn query -e` process per run on the 1M-node generated graph (the 2-hop co-author EXPLORE
# of oneshot.sh, from several authors), wall time and peak RSS of each whole process. For "did
# this change slow the read path down": same database, same machine, same minutes.
# Prints one JSON line per run (with /proc/loadavg), then one line of medians and the ratio.
#
# Usage: bash benches/derived/ab.sh OLD_CAIRN_BIN NEW_CAIRN_BIN [NODES] [RUNS]
#        (defaults 1,000,000 nodes, 5 runs per author, 4 authors)
# CAIRN_BENCH_DIR=DIR keeps DIR/dump and DIR/cairn-db between calls (the layout of oneshot.sh;
# the database is imported by the old build).
set -euo pipefail
cd "$(dirname "$0")/../.."
. benches/lib/timed.sh
OLD=${1:?old cairn binary}
NEW=${2:?new cairn binary}
NODES=${3:-1000000}
RUNS=${4:-5}
AUTHORS=(a17 a4242 a123456 a300001)
WORK=${CAIRN_BENCH_DIR:-$(mktemp -d /tmp/cairn-derived-ab.XXXXXX)}
if [ "$(cat "$WORK/dump.nodes" 2>/dev/null)" != "$NODES" ]; then
  rm -rf "$WORK/dump" "$WORK/cairn-db"
  "$OLD" generate academic --nodes "$NODES" --seed 42 --format csv --out "$WORK/dump" >&2
  echo "$NODES" > "$WORK/dump.nodes"
fi
[ -e "$WORK/cairn-db" ] || "$OLD" --db "$WORK/cairn-db" import --embedder none --no-index "$WORK/dump" >&2

run() { # system, run, author, command... -> JSON line
  local name=$1 i=$2 author=$3; shift 3
  timed "$name" "$@"
  python3 - "$name" "$i" "$author" "$T0" "$T1" "$RSS_KB" "$LOAD" "$WORK/out" <<'PY'
import json, sys
name, i, author, t0, t1, rss, load, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), sys.argv[7], sys.argv[8]
print(json.dumps({"system": name, "run": i, "author": author, "seconds": round(t1 - t0, 3),
                  "peak_rss_mib": round(rss / 1024, 1), "output_lines": open(out).read().count("\n"),
                  "loadavg": load}))
PY
}

LINES=()
for i in $(seq 1 "$RUNS"); do
  for a in "${AUTHORS[@]}"; do
    Q="EXPLORE \"co-authors\" FROM Author \"$a\" VIA AUTHORED -> <AUTHORED TARGET Author"
    LINES+=("$(run old "$i" "$a" "$OLD" --db "$WORK/cairn-db" query -e "$Q")"); echo "${LINES[-1]}"
    LINES+=("$(run new "$i" "$a" "$NEW" --db "$WORK/cairn-db" query -e "$Q")"); echo "${LINES[-1]}"
  done
done
printf '%s\n' "${LINES[@]}" | python3 -c '
import json, statistics, sys
runs = [json.loads(l) for l in sys.stdin]
wall = {s: statistics.median(r["seconds"] for r in runs if r["system"] == s) for s in ("old", "new")}
rss = {s: statistics.median(r["peak_rss_mib"] for r in runs if r["system"] == s) for s in ("old", "new")}
same = all(a["output_lines"] == b["output_lines"] for a, b in zip(runs[0::2], runs[1::2]))
print(json.dumps({"median_seconds": wall, "median_peak_rss_mib": rss,
                  "new_over_old_seconds": round(wall["new"] / wall["old"], 3),
                  "same_output_lines": same}))'
