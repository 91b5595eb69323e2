#!/usr/bin/env bash
# QA benchmark on the public KGQA development sets (PathQuestion, WC2014, GeoQuery): converts each
# question file to the `cairn eval --questions` format, imports its knowledge graph (triples for
# PathQuestion and WC2014, the JSON Lines dump for GeoQuery), asks every question in one process
# and prints one machine-readable line per set (SETS="PQ-2H geo" runs some of them).
# A benchmark, not a CI test. KGQA_DATA names the directory holding pathquestion/, wc2014/ and geoquery/
# (default: shared/datasets/kgqa-dev beside the repository, where the development machines keep it).
#   usage: bash benches/qa/run.sh [work-dir]   (LABELS="--infer-labels" to infer labels; default one Entity label;
#   EMBEDDER=minilm to import with MiniLM — CAIRN pointing at a binary built with `--features minilm`
#   and CAIRN_MINILM_DIR set, EMBEDDER=hash for hash vectors; default: what a new database gets, no vectors)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
data="${KGQA_DATA:-$repo/../shared/datasets/kgqa-dev}"
work="${1:-$(mktemp -d)}"
labels="${LABELS:-}"
embedder="${EMBEDDER:+--embedder $EMBEDDER}"
cairn="${CAIRN:-$repo/target/release/cairn}"
[ -x "$cairn" ] || { cargo build --release --manifest-path "$repo/Cargo.toml" >&2; }
mkdir -p "$work"
sets="${SETS:-PQ-2H PQ-3H PQL-2H PQL-3H WC-P2 WC-C geo}"
run() { # name kind questions kb
  local name="$1" kind="$2" questions="$3" kb="$4" db="$work/$1.cairn"
  case " $sets " in *" $name "*) ;; *) return 0 ;; esac
  rm -rf "$db"
  if [ "$kind" = geo ]; then # already JSON lines with types; a typed JSONL dump
    cp "$data/$questions" "$work/$name.jsonl"
    "$cairn" --db "$db" import "$data/$kb" $embedder --no-index >&2
  else
    python3 "$repo/benches/qa/questions.py" "$kind" "$data/$questions" "$work/$name.jsonl" "$name"
    "$cairn" --db "$db" import "$data/$kb" --format triples $labels $embedder --no-index >&2
  fi
  "$cairn" --db "$db" eval --questions "$work/$name.jsonl" --json "$work/$name.records.jsonl" --misses 0 \
    | sed -n "s/^summary /$name /p"
}
run PQ-2H pq pathquestion/PQ-2H.txt pathquestion/2H-kb.txt
run PQ-3H pq pathquestion/PQ-3H.txt pathquestion/3H-kb.txt
run PQL-2H pq pathquestion/PQL-2H.txt pathquestion/PQL2-KB.txt
run PQL-3H pq pathquestion/PQL-3H.txt pathquestion/PQL3-KB.txt
run WC-P2 wc wc2014/WC-P2.txt wc2014/kb.txt
run WC-C wc wc2014/WC-C.txt wc2014/kb.txt
run geo geo geoquery/dev-questions.jsonl geoquery/geo.jsonl
