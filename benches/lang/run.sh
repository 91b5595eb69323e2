#!/usr/bin/env bash
# The language's index-backed queries beside Kuzu 0.11.3, on the same generated academic graphs
# (`cairn generate academic --seed 42`, CSV; Cairn: `import --no-index` (these queries use neither
# the full-text nor the vector index) and property indexes on
# Paper(citations) and Paper(year); Kuzu through benches/import/kuzu_import.py):
#   topk       1M nodes: the ten most cited papers
#              Cairn `FROM Paper RETURN NODES citations ORDER BY citations DESC LIMIT 10`
#              Kuzu  `MATCH (p:Paper) RETURN p.key, p.citations ORDER BY p.citations DESC, p.key LIMIT 10`
#   per_venue  1M nodes: papers per venue, every venue
#              Cairn `FROM Venue AS v VIA <PUBLISHED_IN TARGET Paper RETURN COUNT GROUP BY v`
#              Kuzu  `MATCH (p:Paper)-[:PUBLISHED_IN]->(v:Venue) RETURN v.key, count(*)`
#   filter     100k and 1M nodes: `EXPLORE "recent cited" TARGET Paper WHERE year >= 2015 AND
#              citations > 100` (every match; Kuzu: the same WHERE)
#   filter_top 100k and 1M nodes: that statement as written (the default RETURN NODES LIMIT 10,
#              the ten most relevant matches); Cairn only, Kuzu has no relevance order
# Each query runs in its own process per system (examples/queries.rs, kuzu_queries.py): the open
# and one warm-up pass are not counted, then PER timed passes. Processes alternate Cairn, Kuzu,
# Cairn, Kuzu, … for RUNS rounds, each line carrying /proc/loadavg. Both systems' rows are
# hashed alike (the sorted rows' text); the script fails when the digests differ. Prints the
# JSON lines, then one summary line per query and size: each system's median, and Cairn's
# median over Kuzu's.
#
# Usage: bash benches/lang/run.sh [RUNS] [PER]       (defaults 3 and 5)
# CAIRN_BENCH_DIR=DIR keeps the graphs and databases (DIR/lang-1000000, DIR/lang-100000) for the
# next run; without it they go to a temporary directory removed at the end. CAIRN_BIN and
# QUERIES_BIN name prebuilt release binaries (else they are built here).
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-3}
PER=${2:-5}
if [ -z "${CAIRN_BIN:-}" ] || [ -z "${QUERIES_BIN:-}" ]; then
  cargo build -q --release -p cairn-cli >&2
  cargo build -q --release -p cairn --example queries >&2
fi
CAIRN=${CAIRN_BIN:-${CARGO_TARGET_DIR:-target}/release/cairn}
QUERIES=${QUERIES_BIN:-${CARGO_TARGET_DIR:-target}/release/examples/queries}
python3 -c "import kuzu" 2>/dev/null || pip install -q kuzu==0.11.3
if [ -n "${CAIRN_BENCH_DIR:-}" ]; then
  BASE=$CAIRN_BENCH_DIR
  mkdir -p "$BASE"
else
  BASE=$(mktemp -d /tmp/cairn-lang.XXXXXX)
fi
LINES=$(mktemp /tmp/cairn-lang-lines.XXXXXX)
trap 'rm -f "$LINES"; [ -n "${CAIRN_BENCH_DIR:-}" ] || rm -rf "$BASE"' EXIT

# The graph of NODES nodes: dump, Cairn database with the two indexes, Kuzu database.
setup() {
  local dir=$BASE/lang-$1
  mkdir -p "$dir"
  if [ ! -e "$dir/dump" ]; then
    "$CAIRN" generate academic --nodes "$1" --seed 42 --format csv --out "$dir/dump" >&2
  fi
  if [ ! -e "$dir/cairn-db" ]; then
    "$CAIRN" --db "$dir/cairn-db" import --no-index "$dir/dump" >&2
    "$CAIRN" --db "$dir/cairn-db" query -e 'CREATE INDEX ON Paper(citations)' >&2
    "$CAIRN" --db "$dir/cairn-db" query -e 'CREATE INDEX ON Paper(year)' >&2
  fi
  [ -e "$dir/kuzu-db" ] || python3 benches/import/kuzu_import.py "$dir/dump" "$dir/kuzu-db" >&2
}
setup 1000000
setup 100000

# One process of one system: its JSON lines, tagged with the size, round and load.
one() {
  local system=$1 nodes=$2 query=$3 round=$4 dir=$BASE/lang-$2 load
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  if [ "$system" = cairn ]; then
    "$QUERIES" "$dir/cairn-db" "$query" "$PER"
  else
    python3 benches/lang/kuzu_queries.py "$dir/kuzu-db" "$query" "$PER"
  fi | sed "s/}\$/, \"nodes\": $nodes, \"round\": $round, \"load\": \"$load\"}/" >> "$LINES"
}
for round in $(seq 1 "$RUNS"); do
  for job in "1000000 topk" "1000000 per_venue" "100000 filter" "1000000 filter"; do
    set -- $job
    one cairn "$1" "$2" "$round"
    one kuzu "$1" "$2" "$round"
  done
  one cairn 100000 filter_top "$round"
  one cairn 1000000 filter_top "$round"
done

python3 - "$LINES" <<'PY'
import json, statistics, sys
from collections import defaultdict
rows = [json.loads(l) for l in open(sys.argv[1])]
for r in rows:
    print(json.dumps(r))
ms, digests, loads = defaultdict(list), defaultdict(set), defaultdict(list)
for r in rows:
    k = (r["query"], r["nodes"])
    ms[k + (r["system"],)].append(r["ms"])
    digests[k].add((r["digest"], r["rows"]))
    loads[k].append(float(r["load"].split()[0]))
bad = False
for k in sorted({(q, n) for q, n, _ in ms}):
    c = statistics.median(ms[k + ("cairn",)])
    out = {"summary": k[0], "nodes": k[1], "cairn_median_ms": round(c, 3)}
    if ms[k + ("kuzu",)]:
        z = statistics.median(ms[k + ("kuzu",)])
        same = len(digests[k]) == 1
        bad |= not same
        out.update({"kuzu_median_ms": round(z, 3), "cairn_over_kuzu": round(c / z, 3),
                    "same_rows": same})
    out.update({"rows": sorted(digests[k])[0][1], "load1_range": [min(loads[k]), max(loads[k])]})
    print(json.dumps(out))
if bad:
    sys.exit("the two systems returned different rows")
PY
