#!/usr/bin/env bash
# What the indexes cost, Cairn beside Kuzu 0.11.3, whose fts and vector extensions ship in its
# wheel (release build, with the load):
#  1. full text, NODES nodes (default 1,000,000), RUNS rounds interleaved: Cairn's default import
#     (the data and the full-text index; the import prints the index's part) and Kuzu's COPY FROM
#     followed by CREATE_FTS_INDEX over the same text (every node's name, a paper's title);
#  2. vectors, VNODES nodes (default 100,000): the graph imported once with `--embedder hash` and
#     exported; RUNS rounds interleaved: Cairn's HNSW build over those vectors (`cairn index
#     build`, its printed vector part) and Kuzu's CREATE_VECTOR_INDEX over the same vectors.
# Prints JSON lines, then medians and ratios. Usage:
#   bash benches/search/kuzu_indexes.sh [NODES] [VNODES] [RUNS]   (0 nodes skips a part;
#   CAIRN_BENCH_DIR keeps dumps;
#   BIN=path uses a built cairn instead of building the release one)
set -euo pipefail
cd "$(dirname "$0")/../.."
. benches/lib/timed.sh
NODES=${1:-1000000}
VNODES=${2:-100000}
RUNS=${3:-3}
WORK=${CAIRN_BENCH_DIR:-$(mktemp -d /tmp/cairn-kuzu-indexes.XXXXXX)}
if [ -z "${BIN:-}" ]; then
  cargo build --release -q -p cairn-cli --bin cairn
  BIN=$PWD/target/release/cairn
fi
python3 -c "import kuzu, pyarrow" 2>/dev/null || pip install -q kuzu==0.11.3 pyarrow
dump() { # nodes dir
  if [ "$(cat "$2.nodes" 2>/dev/null)" != "$1" ]; then
    rm -rf "$2"
    "$BIN" generate academic --nodes "$1" --seed 42 --format csv --out "$2" >&2
    echo "$1" > "$2.nodes"
  fi
}
printed() { # sed pattern -> the seconds of the last line of the run's output it matches
  cat "$WORK/out" "$WORK/err" | sed -n "s/$1/\1/p" | tail -n 1
}
LINES=()
EDGES=0
[ "$NODES" = 0 ] || dump "$NODES" "$WORK/dump"
[ "$NODES" = 0 ] || EDGES=$(( $(cat "$WORK"/dump/{authored,published_in,has_topic,cites}.csv | wc -l) - 4 ))
for i in $(seq 1 "$RUNS"); do
  [ "$NODES" = 0 ] && break
  rm -rf "$WORK/db"; sync
  timed cairn "$BIN" --db "$WORK/db" import "$WORK/dump"
  LINES+=("{\"part\":\"text\",\"system\":\"cairn\",\"run\":$i,\"seconds\":$(python3 -c "print(round($T1-$T0,2))"),\"index_seconds\":$(printed "^full-text index: .* current in \\([0-9.]*\\)s.*"),\"cpu_seconds\":$CPU_S,\"loadavg\":\"$LOAD\"}")
  echo "${LINES[-1]}"
  rm -rf "$WORK/db" "$WORK/kuzu" "$WORK"/kuzu.*; sync
  timed kuzu python3 benches/import/kuzu_import.py "$WORK/dump" "$WORK/kuzu" --fts
  LINES+=("$(python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read()); print(json.dumps({"part":"text","system":"kuzu","run":int(sys.argv[2]),"seconds":round(float(sys.argv[3]),2),"copy_seconds":r["copy_seconds"],"index_seconds":r["fts_seconds"],"cpu_seconds":float(sys.argv[4]),"loadavg":sys.argv[5]}))' "$WORK/out" "$i" "$(python3 -c "print($T1-$T0)")" "$CPU_S" "$LOAD")")
  echo "${LINES[-1]}"
  rm -rf "$WORK/kuzu" "$WORK"/kuzu.*
done
[ "$VNODES" = 0 ] || dump "$VNODES" "$WORK/vdump"
[ "$VNODES" = 0 ] || rm -rf "$WORK/vdb" "$WORK/vexport"
[ "$VNODES" = 0 ] || "$BIN" --db "$WORK/vdb" import --embedder hash "$WORK/vdump" > /dev/null 2>&1
[ "$VNODES" = 0 ] || "$BIN" --db "$WORK/vdb" export --out "$WORK/vexport" > /dev/null
for i in $(seq 1 "$RUNS"); do
  [ "$VNODES" = 0 ] && break
  rm -f "$WORK/vdb/vectors.hnsw"; sync
  timed cairn "$BIN" --db "$WORK/vdb" index build
  LINES+=("{\"part\":\"vectors\",\"system\":\"cairn\",\"run\":$i,\"vectors\":$(grep -c '"vector":' "$WORK/vexport/graph.jsonl"),\"index_seconds\":$(printed "^indexed [0-9]* vectors in \\([0-9.]*\\)s.*"),\"cpu_seconds\":$CPU_S,\"loadavg\":\"$LOAD\"}")
  echo "${LINES[-1]}"
  rm -rf "$WORK/kvec" "$WORK"/kvec.*; sync
  timed kuzu python3 benches/search/kuzu_vectors.py "$WORK/vexport/graph.jsonl" "$WORK/kvec"
  LINES+=("$(python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read()); r.update(part="vectors",run=int(sys.argv[2]),cpu_seconds=float(sys.argv[3]),loadavg=sys.argv[4]); print(json.dumps(r))' "$WORK/out" "$i" "$CPU_S" "$LOAD")")
  echo "${LINES[-1]}"
  rm -rf "$WORK/kvec" "$WORK"/kvec.*
done
printf '%s\n' "${LINES[@]}" | python3 -c '
import json, statistics, sys
runs = [json.loads(l) for l in sys.stdin]
def med(part, system, field):
    return statistics.median(r[field] for r in runs if r["part"] == part and r["system"] == system)
summary = {}
if any(r["part"] == "text" for r in runs):
    c_total, c_text = med("text", "cairn", "seconds"), med("text", "cairn", "index_seconds")
    k_total, k_copy, k_fts = med("text", "kuzu", "seconds"), med("text", "kuzu", "copy_seconds"), med("text", "kuzu", "index_seconds")
    summary["text"] = {"cairn_import_seconds": c_total, "cairn_text_index_seconds": c_text,
                       "kuzu_seconds": k_total, "kuzu_copy_seconds": k_copy, "kuzu_fts_seconds": k_fts,
                       "cairn_over_kuzu_with_fts_edges_per_sec": round(k_total / c_total, 3),
                       "text_index_share": {"cairn": round(c_text / c_total, 3), "kuzu": round(k_fts / k_total, 3)}}
if any(r["part"] == "vectors" for r in runs):
    c_vec, k_vec = med("vectors", "cairn", "index_seconds"), med("vectors", "kuzu", "index_seconds")
    summary["vectors"] = {"cairn_build_seconds": c_vec, "kuzu_build_seconds": k_vec,
                          "cairn_build_cpu_seconds": med("vectors", "cairn", "cpu_seconds"),
                          "kuzu_over_cairn_build_time": round(k_vec / c_vec, 2)}
print(json.dumps(summary))' "$EDGES"
echo "{\"edges\": $EDGES, \"loadavg_end\": \"$(cut -d' ' -f1-3 /proc/loadavg)\"}"
