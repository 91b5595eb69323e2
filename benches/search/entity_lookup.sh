#!/usr/bin/env bash
# Entity lookup precision on the dev QA sets: each set's KB imported with the hash embedder's
# vectors, then every distinct entity mention looked up by SEARCH's full-text index and by the
# vector index alone (examples/entity_lookup.rs). One JSON line per set, with the load.
#   bash benches/search/entity_lookup.sh [KGQA_DIR] [WORK_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
kgqa="${1:-$root/../shared/datasets/kgqa-dev}"
work="${2:-$(mktemp -d)}"
if [ ! -d "$kgqa/pathquestion" ]; then
  echo "no dev QA sets at $kgqa: skipped" >&2
  exit 0
fi
cargo build --release -q -p cairn-cli --bin cairn
cargo build --release -q -p cairn --example entity_lookup
bin="$root/target/release/cairn"
ex="$root/target/release/examples/entity_lookup"
python3 "$root/benches/search/mentions.py" "$kgqa" "$work/mentions"
rm -rf "$work/pq.db" "$work/wc.db" "$work/geo.db"
pq="$kgqa/pathquestion"
"$bin" --db "$work/pq.db" import "$pq/2H-kb.txt" "$pq/3H-kb.txt" "$pq/PQL2-KB.txt" "$pq/PQL3-KB.txt" \
  --format triples --embedder hash >/dev/null 2>&1
"$bin" --db "$work/wc.db" import "$kgqa/wc2014/kb.txt" --format triples --embedder hash >/dev/null 2>&1
"$bin" --db "$work/geo.db" import "$kgqa/geoquery/geo.jsonl" --embedder hash >/dev/null 2>&1
for set in pathquestion:pq wc2014:wc geoquery:geo; do
  name="${set%%:*}"; db="${set##*:}"
  printf '{"set": "%s", "load": "%s", "result": %s}\n' "$name" "$(cut -d' ' -f1-3 /proc/loadavg)" \
    "$("$ex" "$work/$db.db" "$work/mentions/$name.tsv")"
done
