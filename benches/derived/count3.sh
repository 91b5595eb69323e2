#!/usr/bin/env bash
# Exhaustive k-hop distinct count on the 1M-node generated graph: for 400
# authors sampled with a fixed seed, the distinct nodes HOPS steps along
# author -AUTHORED-> paper <-AUTHORED- coauthor -AUTHORED-> paper (3, the default: papers of
# co-authors, the author's own papers included in both systems; 2: co-authors, not the author,
# in both; 1: the author's papers), measured per query inside one process per system:
#   cairn-explore  `EXPLORE … VIA AUTHORED -> <AUTHORED -> AUTHORED TARGET Paper RETURN COUNT`
#   cairn-ask      the exact walk behind ASK's aggregation answers (cairn::agent::walk)
#   kuzu           `MATCH …-(c:Author)-[:AUTHORED]->(p:Paper) RETURN count(DISTINCT p)` (Kuzu 0.11.3)
# Processes alternate (Cairn, Kuzu, Cairn, Kuzu, …) for ROUNDS rounds; each does one warm-up pass
# (not reported) and one measured pass over the 400 authors. Every count must be equal across the
# three for every author, or the script fails. Prints JSON lines (each process's /proc/loadavg),
# then one summary line per system (p50, p90, max count) and the ratio of p50s.
#
# Usage: bash benches/derived/count3.sh COUNT3_BIN [ROUNDS] [HOPS]
#   COUNT3_BIN: the release build of examples/count3.rs (cargo build --release --example count3)
# CAIRN_BENCH_DIR=DIR holds dump/, cairn-db/ and kuzu-db/ (built with
# `cairn generate academic --nodes 1000000 --seed 42 --format csv`, its default import, and
# benches/import/kuzu_import.py); KUZU_DB overrides the Kuzu database path.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:?count3 binary}
ROUNDS=${2:-3}
HOPS=${3:-3}
DIR=${CAIRN_BENCH_DIR:?CAIRN_BENCH_DIR with dump/, cairn-db/, kuzu-db/}
KUZU_DB=${KUZU_DB:-$DIR/kuzu-db}
WORK=$(mktemp -d /tmp/count3.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
python3 - "$DIR/dump/authors.csv" > "$WORK/authors" <<'PY'
import random, sys
keys = [l.split(",", 1)[0] for l in open(sys.argv[1]).read().splitlines()[1:] if l]
for k in random.Random(42).sample(keys, 400):
    print(k)
PY
for r in $(seq 1 "$ROUNDS"); do
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  "$BIN" "$DIR/cairn-db" "$WORK/authors" 2 "$HOPS" | sed "s/}\$/,\"round\":$r,\"load\":\"$load\"}/" >> "$WORK/lines"
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  python3 benches/derived/kuzu_count.py "$KUZU_DB" "$WORK/authors" 2 "$HOPS" | sed "s/}\$/, \"round\": $r, \"load\": \"$load\"}/" >> "$WORK/lines"
done
python3 - "$WORK/lines" "$HOPS" <<'PY'
import json, sys
from collections import defaultdict
rows = [json.loads(l) for l in open(sys.argv[1])]
for r in rows:
    print(json.dumps(r))
measured = [r for r in rows if r["run"] >= 1]
counts = defaultdict(set)
ms = defaultdict(list)
for r in rows:
    counts[r["author"]].add(r["count"])
for r in measured:
    ms[r["system"]].append(r["ms"])
bad = {a: sorted(c) for a, c in counts.items() if len(c) != 1}
def q(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]
per = {a: next(iter(c)) for a, c in counts.items() if len(c) == 1}
summary = {}
for s, xs in sorted(ms.items()):
    summary[s] = {"p50_ms": round(q(xs, 0.5), 4), "p90_ms": round(q(xs, 0.9), 4), "queries": len(xs)}
# The same over the authors with a non-empty neighbourhood and over those above 10,000.
for name, keep in (("nonzero", lambda c: c > 0), ("above_10000", lambda c: c > 10000)):
    sub = defaultdict(list)
    for r in measured:
        if keep(per.get(r["author"], 0)):
            sub[r["system"]].append(r["ms"])
    for s, xs in sub.items():
        summary[s][name] = {"p50_ms": round(q(xs, 0.5), 4), "p90_ms": round(q(xs, 0.9), 4), "queries": len(xs)}
print(json.dumps({"summary": summary, "hops": int(sys.argv[2]), "authors": len(counts),
                  "above_10000": sum(1 for c in per.values() if c > 10000),
                  "max_count": max(per.values()) if per else None,
                  "explore_p50_over_kuzu": round(summary["cairn-explore"]["p50_ms"] / summary["kuzu"]["p50_ms"], 3),
                  "ask_p50_over_kuzu": round(summary["cairn-ask"]["p50_ms"] / summary["kuzu"]["p50_ms"], 3),
                  "mismatches": len(bad)}))
if bad:
    print("counts differ:", json.dumps(dict(list(bad.items())[:10])), file=sys.stderr)
    sys.exit(1)
PY
