#!/usr/bin/env bash
# The Python package on the 1M-node generated graph, beside Rust and Kuzu's Python API:
#   - per-call cost of a 1-hop EXPLORE from Python (calls.py) against the same call from Rust
#     (examples/calls.rs), both on a warmed handle; bar: Python <= 1.2 x Rust + 20 us;
#   - a 2-hop (co-author) query from Python against Kuzu's Python `execute` of the Cypher with
#     every distinct co-author fetched (kuzu_calls.py); bar: Cairn <= 0.5 x Kuzu. Cairn runs it
#     twice: as the beam search EXPLORE is by default (the 10 best co-authors: two-hop) and as an
#     exact match returning every co-author, the rows Kuzu returns (two-hop-all: ORDER BY COUNT);
#     the rows of each side are printed;
#   - the release wheel's size and the time of `import cairn` (median of 20 fresh interpreters,
#     less an empty one's).
# The five drivers run interleaved (order reversed on even runs), RUNS runs of ROUNDS rounds over
# 8 authors each; prints their JSON lines (each with /proc/loadavg), then one line of medians,
# ratios and bars.
#
# Usage: bash benches/python/run.sh [RUNS] [ROUNDS]        (defaults 3 runs, 200 rounds)
# CAIRN_BENCH_DIR=DIR keeps dump/, cairn-db/ and kuzu-db/ between calls (benches/derived/setup.sh
# builds them when missing; NODES, default 1,000,000); VENV (default target/bench-venv) gets the
# release wheel, maturin and kuzu==0.11.3 (and is put first on PATH).
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-3}
ROUNDS=${2:-200}
VENV=${VENV:-target/bench-venv}
# the venv first on PATH: setup.sh's python3 (Kuzu's import) and the maturin backend run from it
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
PATH="$(cd "$VENV/bin" && pwd):$PATH"
. benches/derived/setup.sh
cargo build -q --release -p cairn --example calls >&2
CALLS=${CARGO_TARGET_DIR:-target}/release/examples/calls
"$VENV/bin/pip" install -q "kuzu==0.11.3" "maturin>=1.9.4,<2" >&2
rm -rf "$WORK/wheel"
"$VENV/bin/pip" wheel -q --no-deps --no-build-isolation -w "$WORK/wheel" ./python >&2
"$VENV/bin/pip" install -q --force-reinstall --no-deps "$WORK"/wheel/*.whl >&2
PY="$VENV/bin/python"

AUTHORS=(a17 a4242 a123456 a300001 a5 a99 a2024 a250000)
printf '%s\n' "${AUTHORS[@]}" > "$WORK/authors.txt"
: > "$WORK/one-hop.txt"; : > "$WORK/two-hop.txt"; : > "$WORK/two-hop-all.txt"
for a in "${AUTHORS[@]}"; do
  echo "EXPLORE \"papers\" FROM Author \"$a\" VIA AUTHORED TARGET Paper" >> "$WORK/one-hop.txt"
  echo "EXPLORE \"co-authors\" FROM Author \"$a\" VIA AUTHORED -> <AUTHORED TARGET Author" >> "$WORK/two-hop.txt"
  echo "EXPLORE \"co-authors\" FROM Author \"$a\" VIA AUTHORED -> <AUTHORED TARGET Author RETURN NODES ORDER BY COUNT DESC LIMIT 10000" >> "$WORK/two-hop-all.txt"
done

tag() { "$PY" -c 'import json,sys; r=json.loads(sys.stdin.read()); r.update(bench=sys.argv[1], run=int(sys.argv[2])); print(json.dumps(r))' "$1" "$2"; }
LINES=()
step() { # bench run command...
  local bench=$1 run=$2; shift 2
  LINES+=("$("$@" | tail -n 1 | tag "$bench" "$run")"); echo "${LINES[-1]}"
}
for i in $(seq 1 "$RUNS"); do
  order=(rust py1 py2 py2x kuzu)
  [ $((i % 2)) -eq 0 ] && order=(kuzu py2x py2 py1 rust)
  for b in "${order[@]}"; do
    case $b in
      rust) step one-hop "$i" "$CALLS" "$WORK/cairn-db" "$WORK/one-hop.txt" "$ROUNDS" ;;
      py1) step one-hop "$i" "$PY" benches/python/calls.py "$WORK/cairn-db" "$WORK/one-hop.txt" "$ROUNDS" ;;
      py2) step two-hop "$i" "$PY" benches/python/calls.py "$WORK/cairn-db" "$WORK/two-hop.txt" "$ROUNDS" ;;
      py2x) step two-hop-all "$i" "$PY" benches/python/calls.py "$WORK/cairn-db" "$WORK/two-hop-all.txt" "$ROUNDS" ;;
      kuzu) step two-hop "$i" "$PY" benches/python/kuzu_calls.py "$WORK/kuzu-db" "$WORK/authors.txt" "$ROUNDS" ;;
    esac
  done
done

WHEEL=$(ls "$WORK"/wheel/*.whl)
IMPORT=$("$PY" - <<'PY'
import statistics, subprocess, sys, time
def t(code):
    runs = []
    for _ in range(20):
        s = time.perf_counter(); subprocess.run([sys.executable, "-c", code], check=True); runs.append(time.perf_counter() - s)
    return statistics.median(runs)
print(round((t("import cairn") - t("pass")) * 1e3, 1))
PY
)
printf '%s\n' "${LINES[@]}" | "$PY" -c '
import json, statistics, sys
runs = [json.loads(l) for l in sys.stdin]
med = lambda bench, system, k: statistics.median(r[k] for r in runs if r["bench"] == bench and r["system"] == system)
rust, py = med("one-hop", "rust", "p50_us"), med("one-hop", "python", "p50_us")
two, kuzu = med("two-hop", "python", "p50_us"), med("two-hop", "kuzu", "p50_us")
every = med("two-hop-all", "python", "p50_us")
rows = lambda bench, system: max(r["rows"] for r in runs if r["bench"] == bench and r["system"] == system)
print(json.dumps({
    "one_hop_p50_us": {"rust": round(rust, 1), "python": round(py, 1),
                       "python_minus_rust_us": round(py - rust, 1), "bar_us": round(1.2 * rust + 20, 1),
                       "within_bar": py <= 1.2 * rust + 20},
    "one_hop_mean_us": {"rust": round(med("one-hop", "rust", "mean_us"), 1), "python": round(med("one-hop", "python", "mean_us"), 1)},
    "two_hop_p50_us": {"cairn_python_beam": round(two, 1), "cairn_python_every": round(every, 1),
                       "kuzu_python": round(kuzu, 1),
                       "beam_over_kuzu": round(two / kuzu, 3), "every_over_kuzu": round(every / kuzu, 3),
                       "within_bar": every <= 0.5 * kuzu},
    "two_hop_rows_per_run": {"cairn_beam": rows("two-hop", "python"), "cairn_every": rows("two-hop-all", "python"),
                             "kuzu": rows("two-hop", "kuzu")},
    "wheel_bytes": int(sys.argv[1]), "import_ms": float(sys.argv[2]), "runs": int(sys.argv[3]),
}))' "$(stat -c %s "$WHEEL")" "$IMPORT" "$RUNS"
