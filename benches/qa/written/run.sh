#!/usr/bin/env bash
# ASK on nine small graphs of other domains (music, university, airline, books, football, film,
# open-source software, space exploration, healthcare) and questions written for them by hand,
# blind to the planner, of nine kinds (attribute, relation, multi-hop, superlative, aggregate,
# comparison, negation, conjunction, yes/no); gold answers computed by each set's reference.py
# from its graph. Imports each as a new user would (one command) and prints one
# machine-readable line per set. A benchmark, not a CI test: the planner was since developed on
# them, so they are development sets now (docs/BENCHMARKS.md has the blind runs).
#   usage: bash benches/qa/written/run.sh [work-dir]   (CAIRN: the binary, default the release build)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
work="${1:-$(mktemp -d)}"
cairn="${CAIRN:-$repo/target/release/cairn}"
[ -x "$cairn" ] || cargo build --release -q --manifest-path "$repo/Cargo.toml" -p cairn-cli --bin cairn
for set in music university airline books football film oss space health; do
  db="$work/$set.cairn"
  rm -rf "$db"
  "$cairn" --db "$db" import "$here/$set/graph.jsonl" > /dev/null 2>&1
  line=$("$cairn" --db "$db" eval --questions "$here/$set/questions.jsonl" --misses 0 | grep '^summary ')
  echo "$set ${line#summary }"
done
