#!/usr/bin/env bash
# Bulk-import benchmark: Cairn's `cairn import` beside Kuzu's COPY FROM, on the same generated
# CSV files, in the same run. Prints one JSON line per system (wall time of the whole command,
# edges/s, peak RSS from /usr/bin/time), then a ratio line.
#
# Setup (once): pip install kuzu==0.11.3 ; apt-get install -y time
# Usage: bash benches/import/run.sh [NODES] [SEED]      (default 1,000,000 nodes: ~6.5M edges)
# CARGO_TARGET_DIR is honoured; CAIRN_BENCH_DIR=DIR with CAIRN_BENCH_REUSE_DUMP=1 keeps DIR/dump
# from an earlier run of the same NODES and SEED instead of generating it again;
# CAIRN_BENCH_SKIP_HASH=1 skips the hash-embedder run (hash embedder and a 1M-vector index:
# minutes), for repeating the side-by-side.
# CAIRN_BENCH_MINILM_NODES=N (opt-in, e.g. 20000) then runs benches/import/embedders.sh on an
# N-node dump: the time the hash and MiniLM embedders add (MiniLM on 1M nodes takes an hour).
set -euo pipefail
cd "$(dirname "$0")/../.."
NODES=${1:-1000000}
SEED=${2:-42}
WORK=${CAIRN_BENCH_DIR:-$(mktemp -d /tmp/cairn-import-bench.XXXXXX)}
python3 -c "import kuzu" 2>/dev/null || pip install -q kuzu==0.11.3
cargo build --release -q -p cairn-cli
BIN=${CARGO_TARGET_DIR:-target}/release/cairn

rm -rf "$WORK/cairn.db" "$WORK/kuzu.db" "$WORK/cairn-hash.db"
if [ "${CAIRN_BENCH_REUSE_DUMP:-0}" != 1 ] || [ ! -d "$WORK/dump" ]; then
  rm -rf "$WORK/dump"
  "$BIN" generate academic --nodes "$NODES" --seed "$SEED" --format csv --out "$WORK/dump" >&2
fi
EDGES=$(( $(cat "$WORK"/dump/{authored,published_in,has_topic,cites}.csv | wc -l) - 4 ))
sync

measure() { # name, command... -> JSON line
  local name=$1; shift
  local t0 t1 rss
  t0=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$WORK/$name.rss" "$@" > "$WORK/$name.out" 2> "$WORK/$name.err"
  t1=$(date +%s.%N)
  rss=$(tail -n 1 "$WORK/$name.rss")
  python3 - "$name" "$t0" "$t1" "$rss" "$EDGES" "$NODES" <<'PY'
import json, sys
name, t0, t1, rss, edges, nodes = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
secs = t1 - t0
print(json.dumps({"system": name, "nodes_requested": nodes, "edges": edges, "seconds": round(secs, 2),
                  "edges_per_sec": round(edges / secs), "peak_rss_mib": round(rss / 1024)}))
PY
}

# Embeddings off for the side-by-side (Kuzu computes none); then once more with the built-in
# hash embedder, to report what embedding node descriptions adds.
CAIRN=$(measure cairn "$BIN" --db "$WORK/cairn.db" import --embedder none "$WORK/dump")
echo "$CAIRN"
KUZU=$(measure kuzu python3 benches/import/kuzu_import.py "$WORK/dump" "$WORK/kuzu.db")
echo "$KUZU"
python3 - "$CAIRN" "$KUZU" <<'PY'
import json, sys
c, k = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(json.dumps({"cairn_over_kuzu_edges_per_sec": round(c["edges_per_sec"] / k["edges_per_sec"], 2)}))
PY
echo "# cairn: $(head -n 1 "$WORK/cairn.out")" >&2
echo "# kuzu:  $(tail -n 1 "$WORK/kuzu.out")" >&2
if [ "${CAIRN_BENCH_SKIP_HASH:-0}" != 1 ]; then
  rm -rf "$WORK/cairn-hash.db"
  measure cairn_hash_embedder "$BIN" --db "$WORK/cairn-hash.db" import --embedder hash "$WORK/dump"
  echo "# cairn with hash embedder: $(tail -n 2 "$WORK/cairn_hash_embedder.out" | tr '\n' ' ')" >&2
  rm -rf "$WORK/cairn-hash.db"
fi
if [ -n "${CAIRN_BENCH_MINILM_NODES:-}" ]; then
  CAIRN_BENCH_DIR="$WORK" bash benches/import/embedders.sh "$CAIRN_BENCH_MINILM_NODES" "$SEED"
fi
