#!/usr/bin/env python3
"""Entity mentions of the dev QA sets, one `mention<TAB>gold name` a line, for entity_lookup.

PathQuestion and WC2014: the topic entity of each question (the first element of its path), as
the words a user types (underscores are spaces); GeoQuery: every string literal of the gold SQL
(a state, city, river... name). Distinct mentions only. Usage: mentions.py KGQA_DIR OUT_DIR
"""
import json
import os
import re
import sys


def words(entity):
    return entity.replace("_", " ").strip()


def pathquestion(d):
    out = set()
    for f in ["PQ-2H.txt", "PQ-3H.txt", "PQL-2H.txt", "PQL-3H.txt"]:
        for line in open(os.path.join(d, "pathquestion", f), encoding="utf-8"):
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 3:
                subject = parts[2].split("#")[0]
                out.add((words(subject), words(subject)))
    return out


def wc2014(d):
    out = set()
    for f in ["WC-P2.txt", "WC-C.txt"]:
        for line in open(os.path.join(d, "wc2014", f), encoding="utf-8"):
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 3:
                # a conjunctive question has two paths joined by `*`
                for path in parts[2].split("*"):
                    subject = path.split("#")[0]
                    out.add((words(subject), words(subject)))
    return out


def geoquery(d):
    names = set()
    for line in open(os.path.join(d, "geoquery", "geo.jsonl"), encoding="utf-8"):
        rec = json.loads(line)
        if rec.get("type") == "node":
            names.add(str(rec.get("props", {}).get("name", "")).lower())
    out = set()
    for line in open(os.path.join(d, "geoquery", "dev-questions.jsonl"), encoding="utf-8"):
        q = json.loads(line)
        for lit in re.findall(r'"([^"]+)"', q["sql"]):
            # literals that name an entity (not a country code like "usa")
            if lit.lower() in names:
                out.add((lit, lit))
    return out


def main():
    src, dst = sys.argv[1], sys.argv[2]
    os.makedirs(dst, exist_ok=True)
    for name, f in [("pathquestion", pathquestion), ("wc2014", wc2014), ("geoquery", geoquery)]:
        rows = sorted(f(src))
        with open(os.path.join(dst, name + ".tsv"), "w", encoding="utf-8") as out:
            for m, g in rows:
                out.write(f"{m}\t{g}\n")
        print(f"{name}: {len(rows)} mentions", file=sys.stderr)


if __name__ == "__main__":
    main()
