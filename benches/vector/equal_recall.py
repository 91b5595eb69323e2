#!/usr/bin/env python3
"""Queries per CPU-second at equal recall, from paired.py's medians per ef.

Each library's points (recall@10, median q/CPU-s), one per ef, are reduced to their frontier: a
point is dropped when another has at least its recall and at least its rate (an ef whose median
pass ran slower than a larger ef's is noise, not a trade-off). Then, at each recall hnswlib reached:
hnswlib's rate is its frontier's there (the fastest of its efs with at least that recall), and
Cairn's is read off its frontier, linear between the two points that bracket that recall, and also
without interpolating (the fastest Cairn ef with at least that recall). Below Cairn's lowest
recall its first point's rate is taken (an under-estimate, marked >=); above its highest, none.

usage: python3 benches/vector/equal_recall.py DIR/paired.jsonl   (paired.py calls it at its end)
"""
import json
import sys


def frontier(points):
    """[(recall, rate)] without dominated points, by recall ascending (rates then descending)."""
    keep = [p for p in points if not any(q != p and q[0] >= p[0] and q[1] >= p[1] for q in points)]
    return sorted(set(keep))


def best_at(points, target):
    """The fastest rate among points with recall >= target, or None."""
    return max((q for r, q in points if r >= target), default=None)


def read_off(front, target):
    """(rate, exact) on the frontier at `target` recall, or None above it."""
    if not front:
        return None
    if target <= front[0][0]:
        return front[0][1], target == front[0][0]
    for (r0, q0), (r1, q1) in zip(front, front[1:]):
        if r0 < target <= r1:
            return q0 + (q1 - q0) * (target - r0) / (r1 - r0), True
    return None


def summarise(rows, hnswlib="hnswlib-0.8.0"):
    """rows: paired.py's "paired" records. One record per (Cairn system, threads, hnswlib ef)."""
    out = []
    for threads in sorted({r["threads"] for r in rows}):
        for lib in sorted({r["lib"] for r in rows if r["threads"] == threads}):
            mine = sorted((r for r in rows if r["threads"] == threads and r["lib"] == lib), key=lambda r: r["ef"])
            cairn = [(r["recall_at_10"], r["qps_cpu"]) for r in mine]
            theirs = [(r["hnswlib_recall_at_10"], r["hnswlib_qps_cpu"]) for r in mine]
            front = frontier(cairn)
            for r in mine:
                target = r["hnswlib_recall_at_10"]
                h = best_at(theirs, target)
                got = read_off(front, target)
                floor = best_at(cairn, target)
                out.append(dict(step="equal_recall", lib=lib, threads=threads, hnswlib_ef=r["ef"],
                                hnswlib_recall_at_10=target, hnswlib_qps_cpu=h,
                                qps_cpu=round(got[0], 1) if got else None, exact=got[1] if got else None,
                                ratio=round(got[0] / h, 3) if got else None,
                                ratio_no_interpolation=round(floor / h, 3) if floor else None))
    return out


def table(recs):
    lines = ["| system | threads | hnswlib ef | hnswlib recall@10 | hnswlib q/CPU-s (frontier) | "
             "Cairn q/CPU-s at that recall | ratio | ratio, fastest Cairn ef at >= that recall |",
             "|---|---|---|---|---|---|---|---|"]
    for r in recs:
        got = "not reached" if r["qps_cpu"] is None else ("" if r["exact"] else ">= ") + f"{r['qps_cpu']:.0f}"
        ratio = "-" if r["ratio"] is None else ("" if r["exact"] else ">= ") + f"**{r['ratio']:.3f}x**"
        floor = "-" if r["ratio_no_interpolation"] is None else f"{r['ratio_no_interpolation']:.3f}x"
        lines.append(f"| {r['lib']} | {r['threads']} | {r['hnswlib_ef']} | {r['hnswlib_recall_at_10']} | "
                     f"{r['hnswlib_qps_cpu']:.0f} | {got} | {ratio} | {floor} |")
    return "\n".join(lines)


if __name__ == "__main__":
    rows = [json.loads(l) for l in open(sys.argv[1])]
    print(table(summarise([r for r in rows if r.get("step") == "paired"])))
