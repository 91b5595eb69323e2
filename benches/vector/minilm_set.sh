#!/usr/bin/env bash
# Makes the real-embedding benchmark set once: all-MiniLM-L6-v2 vectors (the project's own
# embedder) of COUNT distinct descriptions of a generated academic graph, the last 1,000 as
# queries, and the exact top-10 with the 10th score (ties count). run.sh reads it with DATA=$OUT.
#
#   OUT=/tmp/cairn-vector-minilm bash benches/vector/minilm_set.sh
#
# Env: OUT (default /tmp/cairn-vector-minilm), NODES (generated graph size, default 200000),
# COUNT (base + queries, default 101000), CAIRN (a cairn binary; default `cargo run`),
# CAIRN_MINILM_DIR (default: what scripts/fetch-minilm.sh prints). About 15 CPU-minutes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
OUT="${OUT:-/tmp/cairn-vector-minilm}"
NODES="${NODES:-200000}"
COUNT="${COUNT:-101000}"
export CAIRN_MINILM_DIR="${CAIRN_MINILM_DIR:-$(bash "$root/scripts/fetch-minilm.sh")}"
mkdir -p "$OUT"
cd "$root"
if [ ! -f "$OUT/dump/papers.csv" ]; then
  ${CAIRN:-cargo run -q --bin cairn --} generate academic --nodes "$NODES" --seed 42 --out "$OUT/dump" >&2
fi
python3 "$here/minilm_set.py" texts "$OUT/dump" "$OUT" "$COUNT"
cargo run -q --release -p cairn-embed --features minilm --example embed_lines -- "$OUT/texts.txt" "$OUT/vectors.f32"
python3 "$here/minilm_set.py" truth "$OUT" 1000
