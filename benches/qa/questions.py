#!/usr/bin/env python3
"""Converts a PathQuestion or WC2014 question file to the `cairn eval --questions` JSON-lines format.

usage: questions.py pq|wc IN OUT TYPE
  pq: `question \t answer(a1/a2/...) \t path`   -> gold = the part in parentheses, split on `/`
  wc: `question \t answer \t path(s) \t a1/a2/.../ \t ...` -> gold = the 4th field, split on `/`
"""
import json
import sys


def gold(kind, fields):
    if kind == "pq":
        a = fields[1]
        inner = a[a.index("(") + 1 : a.rindex(")")] if "(" in a else a
        return [x for x in inner.split("/") if x]
    return [x for x in fields[3].split("/") if x]


def main():
    kind, src, dst, qtype = sys.argv[1:5]
    n = 0
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as out:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 2 or not fields[0].strip():
                continue
            rec = {"question": fields[0].strip(), "answers": gold(kind, fields), "type": qtype}
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
            n += 1
    print(f"{dst}: {n} questions", file=sys.stderr)


if __name__ == "__main__":
    main()
