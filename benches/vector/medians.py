#!/usr/bin/env python3
"""Median per (library, step, ef, threads) over the runs of a results.jsonl written by run.sh, with
the load range, as a Markdown table; Cairn's ratio to hnswlib beside each figure."""
import json, statistics, sys
from collections import defaultdict

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
groups = defaultdict(list)
for r in rows:
    if r.get("step") in ("build", "search", "search_labels"):
        groups[(r["lib"], r["step"], r.get("ef", ""), r.get("threads", 1) if r["step"] == "search" else "")].append(r)
fields = {"build": ["build_secs", "build_cpu_secs", "build_peak_mib"],
          "search": ["recall_at_10", "qps", "qps_cpu"],
          "search_labels": ["recall_at_10", "qps", "qps_cpu", "short_answers"]}


def med(rs, f):
    v = [r[f] for r in rs if f in r]
    return statistics.median(v) if v else None


print("| step | ef | threads | lib | runs | load | " + " | ".join(["a", "b", "c", "d"]) + " |")
print("|---|---|---|---|---|---|---|---|---|---|")
for key in sorted(groups, key=lambda k: (k[1], str(k[2]), str(k[3]), k[0])):
    lib, step, ef, th = key
    rs = groups[key]
    loads = [r.get("load1", 0) for r in rs]
    other = groups.get(("hnswlib-0.8.0", step, ef, th)) if lib != "hnswlib-0.8.0" else None
    cells = []
    for f in fields[step]:
        m = med(rs, f)
        s = f"{f}={m}"
        if other and m is not None and med(other, f) and f != "recall_at_10":
            s += f" ({m / med(other, f):.2f}x)"
        cells.append(s)
    cells += [""] * (4 - len(cells))
    print(f"| {step} | {ef} | {th} | {lib} | {len(rs)} | {min(loads):.1f}-{max(loads):.1f} | " + " | ".join(cells) + " |")
