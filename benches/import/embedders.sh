#!/usr/bin/env bash
# What embedding node descriptions adds to `cairn import`: the same generated CSV dump imported
# with `--embedder none`, `hash` and `minilm` (each with --no-index, into a fresh database), one
# after the other. Prints one JSON line per embedder: wall time and CPU time of the whole command
# (/usr/bin/time), the embed time the import's summary reports, descriptions per second of that
# embed time and per CPU-second added over `none` (robust on a shared machine), and both
# extrapolated to 1,000,000 descriptions.
#
# Usage: bash benches/import/embedders.sh [NODES] [SEED]        (default 20,000 nodes)
# CAIRN_BENCH_EMBEDDERS="none hash" skips MiniLM (e.g. for 1,000,000 nodes); CAIRN_BENCH_DIR and
# CAIRN_BENCH_REUSE_DUMP=1 keep DIR/dump-NODES as run.sh does. Needs the model files:
# scripts/fetch-minilm.sh is run unless CAIRN_MINILM_DIR is set. CARGO_TARGET_DIR is honoured.
set -euo pipefail
cd "$(dirname "$0")/../.."
NODES=${1:-20000}
SEED=${2:-42}
EMBEDDERS=${CAIRN_BENCH_EMBEDDERS:-none hash minilm}
WORK=${CAIRN_BENCH_DIR:-$(mktemp -d /tmp/cairn-embed-bench.XXXXXX)}
DUMP="$WORK/dump-$NODES"
if [[ " $EMBEDDERS " == *" minilm "* ]]; then
  CAIRN_MINILM_DIR=${CAIRN_MINILM_DIR:-$(bash scripts/fetch-minilm.sh)}
  export CAIRN_MINILM_DIR
fi
cargo build --release -q -p cairn-cli --features minilm
BIN=${CARGO_TARGET_DIR:-target}/release/cairn
if [ "${CAIRN_BENCH_REUSE_DUMP:-0}" != 1 ] || [ ! -d "$DUMP" ]; then
  rm -rf "$DUMP"
  "$BIN" generate academic --nodes "$NODES" --seed "$SEED" --format csv --out "$DUMP" >&2
fi
sync

none_wall="" none_cpu=""
for emb in $EMBEDDERS; do
  db="$WORK/embed-$emb.db"
  rm -rf "$db"
  load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f "%e %U %S %M" -o "$WORK/embed-$emb.time" \
    "$BIN" --db "$db" import --embedder "$emb" --no-index "$DUMP" > "$WORK/embed-$emb.out" 2> "$WORK/embed-$emb.err"
  rm -rf "$db"
  read -r wall user sys rss < <(tail -n 1 "$WORK/embed-$emb.time")
  cpu=$(python3 -c "print(round($user + $sys, 2))")
  if [ "$emb" = none ]; then none_wall=$wall none_cpu=$cpu; fi
  echo "# $emb: $(tail -n 2 "$WORK/embed-$emb.out" | tr '\n' ' ')" >&2
  python3 - "$emb" "$NODES" "$wall" "$cpu" "$rss" "$load" "${none_wall:-}" "${none_cpu:-}" "$WORK/embed-$emb.out" <<'PY'
import json, re, sys
emb, nodes, wall, cpu, rss, load, none_wall, none_cpu, out = sys.argv[1:]
wall, cpu = float(wall), float(cpu)
line = {"embedder": emb, "nodes": int(nodes), "seconds": round(wall, 2), "cpu_seconds": cpu,
        "peak_rss_mib": round(int(rss) / 1024), "load_before": float(load)}
m = re.search(r"embedded (\d+) node descriptions in ([0-9.]+)s", open(out).read())
if m:
    n, secs = int(m.group(1)), float(m.group(2))
    line.update({"descriptions": n, "embed_seconds": secs,
                 "descriptions_per_s": round(n / secs, 1),
                 "embed_seconds_per_1m": round(secs * 1e6 / n)})
    if none_cpu:
        added = cpu - float(none_cpu)
        line.update({"cpu_seconds_added": round(added, 2),
                     "descriptions_per_cpu_s": round(n / max(added, 1e-9), 1),
                     "cpu_seconds_per_1m": round(added * 1e6 / n)})
    if none_wall:
        line["seconds_added"] = round(wall - float(none_wall), 2)
print(json.dumps(line))
PY
done
