#!/usr/bin/env bash
# Comparative runs on the same vectors: hnswlib (PyPI) and Cairn's HNSW interleaved, RUNS times each
# (hnswlib, cairn, hnswlib, cairn, ...), and optionally the hnsw_rs and usearch probes once. Prints
# JSON lines (tee'd to $OUT/results.jsonl, each with the run number and load). Then the search
# comparison pass by pass (paired.py: ROUNDS rounds, default 15, on THREADS threads, default
# "1 2"; EFS, default "16 24 32 40 48 64 96 128 256", fine enough to read Cairn's rate at hnswlib's
# recall), whose ratios are the ones to quote: whole runs minutes apart moved by up to 2x on a shared
# VM. Recall at a small ef depends on the build's seed for both libraries: recall_curve.py measures
# it over several builds of each (separately, ~10 minutes). See docs/VECTOR.md.
#
#   bash benches/vector/run.sh                                  # generated vectors (gen_vectors.py)
#   OUT=/tmp/cairn-vector-minilm bash benches/vector/run.sh     # the MiniLM set (minilm_set.sh first)
#   PROBES=1 bash benches/vector/run.sh                         # also hnsw_rs 0.3.5 and usearch 2.26
#
# Setup: pip install numpy hnswlib==0.8.0. Env: OUT (data dir, default /tmp/cairn-vector-bench; a
# dir without base.f32 gets generated vectors), RUNS (default 3), SEARCH_PASSES (passes over the
# queries per search step, the median pass reported; default 5), BENCH_THREADS (build threads,
# default all cores), CARGO_TARGET_DIR (as usual), PROBE_TARGET_DIR. medians.py summarises.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
OUT="${OUT:-/tmp/cairn-vector-bench}"
RUNS="${RUNS:-3}"
mkdir -p "$OUT"
res="$OUT/results.jsonl"
: > "$res"
log() { sed -u "s/^{/{\"run\":$1,/" | tee -a "$res"; }
echo "{\"step\":\"machine\",\"nproc\":$(nproc),\"load1\":$(cut -d' ' -f1 /proc/loadavg),\"cpu\":\"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)\"}" | log 0
[ -f "$OUT/kth.f32" ] || python3 "$here/gen_vectors.py" "$OUT" | log 0
(cd "$root" && cargo bench -q -p cairn-vector --bench vector_ann --no-run 2>/dev/null)
for run in $(seq 1 "$RUNS"); do
  python3 "$here/hnswlib_bench.py" "$OUT" | log "$run"
  (cd "$root" && CAIRN_VECTOR_BENCH_DATA="$OUT" cargo bench -q -p cairn-vector --bench vector_ann 2>/dev/null) | log "$run"
done
if [ "${PROBES:-0}" = 1 ]; then
  tgt="${PROBE_TARGET_DIR:-$here/ann-probe/target}"
  (cd "$here/ann-probe" && CARGO_TARGET_DIR="$tgt" cargo build -q --release --features hnsw_rs,usearch)
  "$tgt/release/hnsw_rs_bench" "$OUT" | log 1
  "$tgt/release/usearch_bench" "$OUT" | log 1
fi
python3 "$here/medians.py" "$res"
# search figures at the grain of one pass (paired.py): both indexes in memory, passes alternated,
# so noise lasting seconds falls on both; built afresh so the graph is this tree's
rm -f "$OUT/cairn.hnsw" "$OUT/hnswlib-m16-efc200.bin"
(cd "$root" && ROUNDS="${ROUNDS:-15}" THREADS="${THREADS:-1 2}" EFS="${EFS:-16 24 32 40 48 64 96 128 256}" \
  python3 "$here/paired.py" "$OUT" | grep -v '^{"step": "pass"')
