#!/usr/bin/env bash
# The strategy feedback experiment on the sets `benches/qa/run.sh` imported: each question file
# split in halves in file order (A first, B second); B asked on a copy of the database with
# nothing learned, then A asked with `eval --feedback` (gold correctness fed back question by
# question, the record saved in the database), then B again. Prints one line per set:
# `name B-before B-after A-while-feeding-back` (Hits@1). A benchmark, not a CI test.
#   usage: bash benches/qa/feedback.sh WORK-DIR [SET...]   (WORK-DIR as given to run.sh;
#   default sets: all six; CAIRN as for run.sh)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="$1"
shift
sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(PQ-2H PQ-3H PQL-2H PQL-3H WC-P2 WC-C)
cairn="${CAIRN:-$repo/target/release/cairn}"
hit1() { python3 -c 'import json,sys; print("%.1f" % (100 * json.loads(sys.stdin.read().split(" ", 1)[1])["overall"]["hit1"]))'; }
for name in "${sets[@]}"; do
  q="$work/$name.jsonl" db="$work/$name.feedback.cairn"
  n=$(wc -l < "$q")
  head -n $((n / 2)) "$q" > "$work/$name.A.jsonl"
  tail -n +$((n / 2 + 1)) "$q" > "$work/$name.B.jsonl"
  rm -rf "$db"
  cp -r "$work/$name.cairn" "$db"
  before=$("$cairn" --db "$db" eval --questions "$work/$name.B.jsonl" --misses 0 | grep '^summary ' | hit1)
  during=$("$cairn" --db "$db" eval --questions "$work/$name.A.jsonl" --feedback --misses 0 | grep '^summary ' | hit1)
  after=$("$cairn" --db "$db" eval --questions "$work/$name.B.jsonl" --misses 0 | grep '^summary ' | hit1)
  echo "$name $before $after $during"
  rm -rf "$db"
done
