#!/usr/bin/env bash
# The strategy feedback experiment on the sets `benches/qa/run.sh` imported: each question file
# shuffled with a fixed seed (SEED, default 42; SEED=none keeps file order) and split in halves
# (A first, B second); B asked on a copy of the database with
# nothing learned, then A asked with `eval --feedback` (gold correctness fed back question by
# question, the record saved in the database), then B again. Prints one line per set:
# `name B-before B-after A-while-feeding-back` (Hits@1). A benchmark, not a CI test.
#   usage: bash benches/qa/feedback.sh WORK-DIR [SET...]   (WORK-DIR as given to run.sh;
#   default sets: all seven; CAIRN as for run.sh)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="$1"
shift
sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(PQ-2H PQ-3H PQL-2H PQL-3H WC-P2 WC-C geo)
seed="${SEED:-42}"
cairn="${CAIRN:-$repo/target/release/cairn}"
hit1() { python3 -c 'import json,sys; print("%.1f" % (100 * json.loads(sys.stdin.read().split(" ", 1)[1])["overall"]["hit1"]))'; }
for name in "${sets[@]}"; do
  q="$work/$name.jsonl" db="$work/$name.feedback.cairn"
  python3 - "$q" "$seed" "$work/$name.A.jsonl" "$work/$name.B.jsonl" <<'PY'
import random, sys
src, seed, a, b = sys.argv[1:5]
lines = [l for l in open(src, encoding="utf-8") if l.strip()]
if seed != "none":
    random.Random(int(seed)).shuffle(lines)
half = len(lines) // 2
open(a, "w", encoding="utf-8").writelines(lines[:half])
open(b, "w", encoding="utf-8").writelines(lines[half:])
PY
  rm -rf "$db"
  cp -r "$work/$name.cairn" "$db"
  before=$("$cairn" --db "$db" eval --questions "$work/$name.B.jsonl" --misses 0 | grep '^summary ' | hit1)
  during=$("$cairn" --db "$db" eval --questions "$work/$name.A.jsonl" --feedback --misses 0 | grep '^summary ' | hit1)
  after=$("$cairn" --db "$db" eval --questions "$work/$name.B.jsonl" --misses 0 | grep '^summary ' | hit1)
  echo "$name $before $after $during"
  rm -rf "$db"
done
