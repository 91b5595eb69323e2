#!/usr/bin/env bash
# SEARCH at scale on a generated graph (default 1,000,000 nodes), release build, with the load:
#  1. imports interleaved, RUNS times: Cairn data only (`--no-index`), Cairn default (data and
#     the full-text index; a new database stores no vectors), Kuzu 0.11.3 `COPY FROM` (no
#     index); medians and ratios;
#  2. on the default import: a one-shot `UPSERT` then a one-shot SEARCH in a new process (the
#     second command timed, the written node looked for), RUNS times; then 1,000 one-shot
#     writes in a row and the same SEARCH;
#  3. a one-shot full-text SEARCH (the statement of the issue that asked for it), RUNS times;
#  4. in one process, entity lookups by the words of 2,000 generated names and titles: precision
#     at 1 and the median statement time (an upper bound of the lookup's).
# Usage: bash benches/search/run.sh [NODES] [RUNS]     (CAIRN_BENCH_DIR keeps the dump)
set -euo pipefail
cd "$(dirname "$0")/../.."
. benches/lib/timed.sh
NODES=${1:-1000000}
RUNS=${2:-3}
WORK=${CAIRN_BENCH_DIR:-$(mktemp -d /tmp/cairn-search.XXXXXX)}
cargo build --release -q -p cairn-cli --bin cairn
BIN=$PWD/target/release/cairn
python3 -c "import kuzu" 2>/dev/null || pip install -q kuzu==0.11.3
if [ "$(cat "$WORK/dump.nodes" 2>/dev/null)" != "$NODES" ]; then
  rm -rf "$WORK/dump"
  "$BIN" generate academic --nodes "$NODES" --seed 42 --format csv --out "$WORK/dump" >&2
  echo "$NODES" > "$WORK/dump.nodes"
fi
EDGES=$(( $(cat "$WORK"/dump/{authored,published_in,has_topic,cites}.csv | wc -l) - 4 ))
line() { # system run -> JSON line from the last `timed`
  python3 -c 'import json,sys; n,i,t0,t1,rss,e,load,cpu=sys.argv[1:9]; s=float(t1)-float(t0); print(json.dumps({"system":n,"run":int(i),"seconds":round(s,2),"cpu_seconds":float(cpu),"edges_per_sec":round(int(e)/s),"peak_rss_mib":round(int(rss)/1024),"loadavg":load}))' "$1" "$2" "$T0" "$T1" "$RSS_KB" "$EDGES" "$LOAD" "$CPU_S"
}
LINES=()
for i in $(seq 1 "$RUNS"); do
  rm -rf "$WORK/db"; sync
  timed no-index "$BIN" --db "$WORK/db" import --no-index "$WORK/dump"; LINES+=("$(line no-index "$i")"); echo "${LINES[-1]}"
  rm -rf "$WORK/db"; sync
  timed default "$BIN" --db "$WORK/db" import "$WORK/dump"; LINES+=("$(line default "$i")"); echo "${LINES[-1]}"
  grep -E "full-text index|vector index" "$WORK/out" >&2 || true
  rm -rf "$WORK/kuzu"; sync
  timed kuzu python3 benches/import/kuzu_import.py "$WORK/dump" "$WORK/kuzu"; LINES+=("$(line kuzu "$i")"); echo "${LINES[-1]}"
  rm -rf "$WORK/kuzu"
done
printf '%s\n' "${LINES[@]}" | python3 -c '
import json, statistics, sys
runs = [json.loads(l) for l in sys.stdin]
med = {s: statistics.median(r["seconds"] for r in runs if r["system"] == s) for s in ("no-index", "default", "kuzu")}
eps = {s: statistics.median(r["edges_per_sec"] for r in runs if r["system"] == s) for s in med}
print(json.dumps({"import_median_seconds": med, "default_over_no_index_time": round(med["default"] / med["no-index"], 3),
                  "default_over_kuzu_edges_per_sec": round(eps["default"] / eps["kuzu"], 3),
                  "no_index_over_kuzu_edges_per_sec": round(eps["no-index"] / eps["kuzu"], 3)}))'
# the database of the last default run is gone: import once more for the query part
rm -rf "$WORK/db"; "$BIN" --db "$WORK/db" import "$WORK/dump" > /dev/null 2>&1
search() { # title -> one-shot SEARCH for it, timed; prints wall seconds, CPU seconds and
  # whether it found the key
  local key=$1 words=$2
  timed search "$BIN" --db "$WORK/db" query --format json -e "EXPLORE \"x\" FROM SEARCH \"$words\" IN Paper TOP 3 DEPTH 1"
  python3 -c 'import sys; print(round(float(sys.argv[1])-float(sys.argv[2]),3), "cpu", sys.argv[5], sys.argv[3] in open(sys.argv[4]).read(), "load", sys.argv[6])' "$T1" "$T0" "\"$key\"" "$WORK/out" "$CPU_S" "$LOAD"
}
for i in $(seq 1 "$RUNS"); do
  "$BIN" --db "$WORK/db" query -e "UPSERT Paper \"bench-w$i\" SET title = \"Wombat$i lattice cryptography survey\"" > /dev/null
  echo "{\"one_shot_search_after_write\": \"$(search "bench-w$i" "wombat$i lattice")\"}"
done
started=$(date +%s.%N)
for j in $(seq 1 1000); do
  "$BIN" --db "$WORK/db" query -e "UPSERT Paper \"bench-r$j\" SET title = \"Numbat$j sparse tensor sketch\"" > /dev/null
done
ended=$(date +%s.%N)
echo "{\"thousand_one_shot_writes_seconds\": $(python3 -c "print(round($ended-$started,1))"), \"loadavg\": \"$(cut -d' ' -f1-3 /proc/loadavg)\"}"
for i in $(seq 1 "$RUNS"); do
  echo "{\"one_shot_search_after_1000_writes\": \"$(search "bench-r1000" "numbat1000 tensor")\"}"
done
for i in $(seq 1 "$RUNS"); do
  timed search "$BIN" --db "$WORK/db" query -e 'EXPLORE "graph neural networks" FROM SEARCH "graph neural networks" IN Paper TOP 3 DEPTH 1'
  echo "{\"one_shot_fulltext_search_seconds\": $(python3 -c "print(round($T1-$T0,3))"), \"cpu_seconds\": $CPU_S, \"stats\": \"$(tail -n 1 "$WORK/out" | cut -c1-120)\", \"loadavg\": \"$LOAD\"}"
done
# 2,000 names and titles of the dump looked up by their words in one process (`query -f`, each
# a SEARCH TOP 1 DEPTH 1 statement): precision at 1 (the entry bears the name) and the
# median statement time (the lookup, compile and the entry's expansion; the first, which opens
# the index, left out)
python3 - "$WORK/dump" "$WORK/lookups" <<'PY'
import csv, random, sys
rows = []
for f in ("authors.csv", "papers.csv", "venues.csv"):
    with open(f"{sys.argv[1]}/{f}", newline="") as h:
        r = csv.reader(h); next(r)
        rows += [row[1] for row in r]
random.Random(7).shuffle(rows)
with open(sys.argv[2] + ".explore", "w") as s, open(sys.argv[2] + ".gold", "w") as g:
    for name in rows[:2000]:
        q = name.replace("\\", " ").replace('"', " ")
        s.write(f'EXPLORE "m" FROM SEARCH "{q}" TOP 1 DEPTH 1;\n')
        g.write(name + "\n")
PY
timed lookups "$BIN" --db "$WORK/db" query -f "$WORK/lookups.explore" --format json
python3 - "$WORK/out" "$WORK/lookups.gold" "$LOAD" <<'PY'
import json, statistics, sys
docs = [json.loads(l) for l in open(sys.argv[1])]
gold = [l.rstrip("\n") for l in open(sys.argv[2])]
# the entry (hops 0) is SEARCH's first hit; the other results are its expansion
entry = lambda d: next((r.get("name", "") for r in d.get("results", []) if r.get("hops") == 0), "")
ok = sum(1 for d, g in zip(docs, gold) if entry(d).lower() == g.lower())
ms = [d["stats"]["elapsed_ms"] for d in docs[1:] if "stats" in d]
print(json.dumps({"entity_lookup_generated": {"mentions": len(gold), "p_at_1": round(ok / len(gold), 4),
                  "statement_ms_p50": round(statistics.median(ms), 3)}, "loadavg": sys.argv[3]}))
PY
