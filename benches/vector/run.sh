#!/usr/bin/env bash
# One comparative run on the same vectors: hnswlib (PyPI), Cairn's HNSW, and optionally the hnsw_rs and
# usearch probes. Prints JSON lines (tee'd to $OUT/results.jsonl). See docs/VECTOR.md.
#
#   bash benches/vector/run.sh            # hnswlib + cairn
#   PROBES=1 bash benches/vector/run.sh   # also hnsw_rs 0.3.5 and usearch 2.26 (builds ann-probe/, ~6 min)
#
# Setup: pip install numpy hnswlib==0.8.0. Env: OUT (data dir, default /tmp/cairn-vector-bench),
# BENCH_THREADS (build threads, default all cores), CARGO_TARGET_DIR (as usual), PROBE_TARGET_DIR.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
OUT="${OUT:-/tmp/cairn-vector-bench}"
mkdir -p "$OUT"
res="$OUT/results.jsonl"
: > "$res"
log() { tee -a "$res"; }
echo "{\"step\":\"machine\",\"nproc\":$(nproc),\"load1\":$(cut -d' ' -f1 /proc/loadavg),\"cpu\":\"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)\"}" | log
[ -f "$OUT/gt.u32" ] || python3 "$here/gen_vectors.py" "$OUT" | log
python3 "$here/hnswlib_bench.py" "$OUT" | log
(cd "$root" && CAIRN_VECTOR_BENCH_DATA="$OUT" cargo bench -q -p cairn-vector --bench vector_ann 2>/dev/null) | log
if [ "${PROBES:-0}" = 1 ]; then
  tgt="${PROBE_TARGET_DIR:-$here/ann-probe/target}"
  (cd "$here/ann-probe" && CARGO_TARGET_DIR="$tgt" cargo build -q --release --features hnsw_rs,usearch)
  "$tgt/release/hnsw_rs_bench" "$OUT" | log
  "$tgt/release/usearch_bench" "$OUT" | log
fi
