#!/usr/bin/env python3
"""Compute gold answers from graph.jsonl and write questions.jsonl."""
import json
import os
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))

nodes = {}                      # (label, key) -> props
out_e = defaultdict(list)       # (node, rel) -> [node]
in_e = defaultdict(list)        # (node, rel) -> [node]
with open(os.path.join(HERE, "graph.jsonl"), encoding="utf-8") as f:
    for line in f:
        o = json.loads(line)
        if o["type"] == "node":
            nodes[(o["label"], o["key"])] = o["props"]
        else:
            a = (o["from"]["label"], o["from"]["key"])
            b = (o["to"]["label"], o["to"]["key"])
            out_e[(a, o["rel"])].append(b)
            in_e[(b, o["rel"])].append(a)


def N(label, name):
    hits = [k for k, p in nodes.items() if k[0] == label and p["name"] == name]
    assert len(hits) == 1, (label, name, hits)
    return hits[0]


def name(n):
    return nodes[n]["name"]


def prop(n, p):
    return nodes[n][p]


def out(n, rel):
    return list(out_e[(n, rel)])


def inn(n, rel):
    return list(in_e[(n, rel)])


def all_(label):
    return [k for k in nodes if k[0] == label]


def names(ns):
    seen = []
    for n in ns:
        if name(n) not in seen:
            seen.append(name(n))
    return seen


def s(v):
    return str(v)


def argbest(label, key, maxi=True, among=None):
    cand = among if among is not None else all_(label)
    best = max(prop(n, key) for n in cand) if maxi else min(prop(n, key) for n in cand)
    winners = [n for n in cand if prop(n, key) == best]
    assert len(winners) == 1, winners
    return [name(winners[0])]


def yn(b):
    return ["yes" if b else "no"]


P = lambda x: N("Project", x)
D = lambda x: N("Developer", x)
O = lambda x: N("Organization", x)
L = lambda x: N("Language", x)
LI = lambda x: N("License", x)
C = lambda x: N("City", x)

Q = []


def q(kind, text):
    def deco(fn):
        Q.append((kind, text, fn))
        return fn
    return deco


# ---------------- attribute ----------------
q("attribute", "How many stars does Tidepool have?")(lambda: [s(prop(P("Tidepool"), "stars"))])
q("attribute", "what year was mossbank first released?")(lambda: [s(prop(P("Mossbank"), "first_release_year"))])
q("attribute", "When was Copperleaf Systems founded?")(lambda: [s(prop(O("Copperleaf Systems"), "founded_year"))])
q("attribute", "What's Obsidian Works' employee count?")(lambda: [s(prop(O("Obsidian Works"), "employees"))])
q("attribute", "what year was Priya Raman born")(lambda: [s(prop(D("Priya Raman"), "birth_year"))])

# ---------------- relation ----------------
q("relation", "Who maintains Halyard?")(lambda: names(inn(P("Halyard"), "MAINTAINS")))
q("relation", "Name the orgs that sponsor Saltmarsh")(lambda: names(inn(P("Saltmarsh"), "SPONSORS")))
q("relation", "what language is the Skerry repo written in?")(lambda: names(out(P("Skerry"), "WRITTEN_IN")))
q("relation", "Where does Kenji Arakawa live?")(lambda: names(out(D("Kenji Arakawa"), "LIVES_IN")))
q("relation", "Ironbark is a fork of which project?")(lambda: names(out(P("Ironbark"), "FORK_OF")))

# ---------------- multi-hop ----------------
q("multi-hop", "Which languages are used by the repos that Tomasz Wierzbicki contributes to?")(
    lambda: names(l for p in out(D("Tomasz Wierzbicki"), "CONTRIBUTES_TO") for l in out(p, "WRITTEN_IN")))
q("multi-hop", "In which city is the company that employs Amara Okafor located?")(
    lambda: names(c for o in out(D("Amara Okafor"), "EMPLOYED_BY") for c in out(o, "LOCATED_IN")))
q("multi-hop", "what licenses do the projects maintained by Chloe Dubois use?")(
    lambda: names(l for p in out(D("Chloe Dubois"), "MAINTAINS") for l in out(p, "LICENSED_UNDER")))
q("multi-hop", "who maintains the libraries that Halyard depends on?")(
    lambda: names(d for p in out(P("Halyard"), "DEPENDS_ON") for d in inn(p, "MAINTAINS")))
q("multi-hop", "Which developers work for companies that sponsor Tidepool?")(
    lambda: names(d for o in inn(P("Tidepool"), "SPONSORS") for d in inn(o, "EMPLOYED_BY")))

# ---------------- superlative ----------------
q("superlative", "Which project has the most stars?")(lambda: argbest("Project", "stars"))
q("superlative", "What is the oldest organisation?")(lambda: argbest("Organization", "founded_year", maxi=False))
q("superlative", "which repo has the most lines of code")(lambda: argbest("Project", "lines_of_code"))
q("superlative", "Who is the youngest developer?")(lambda: argbest("Developer", "birth_year", maxi=True))
q("superlative", "Which Rust project has the most downloads?")(
    lambda: argbest("Project", "downloads", among=inn(L("Rust"), "WRITTEN_IN")))

# ---------------- aggregate ----------------
q("aggregate", "How many projects does Chloe Dubois maintain?")(lambda: [s(len(out(D("Chloe Dubois"), "MAINTAINS")))])
q("aggregate", "how many projects are written in Python?")(lambda: [s(len(inn(L("Python"), "WRITTEN_IN")))])
q("aggregate", "how many devs contribute to Sorrel?")(lambda: [s(len(inn(P("Sorrel"), "CONTRIBUTES_TO")))])
q("aggregate", "How many developers live in Berlin?")(lambda: [s(len(inn(C("Berlin"), "LIVES_IN")))])
q("aggregate", "What is the total number of stars of the projects Tessellate sponsors?")(
    lambda: [s(sum(prop(p, "stars") for p in out(O("Tessellate"), "SPONSORS")))])

# ---------------- comparison ----------------
q("comparison", "Which projects started after 2015 have more than 10000 stars?")(
    lambda: names(p for p in all_("Project") if prop(p, "first_release_year") > 2015 and prop(p, "stars") > 10000))
q("comparison", "which projects built with Go have more than 4000 stars?")(
    lambda: names(p for p in inn(L("Go"), "WRITTEN_IN") if prop(p, "stars") > 4000))
q("comparison", "List the organizations founded before 2000.")(
    lambda: names(o for o in all_("Organization") if prop(o, "founded_year") < 2000))
q("comparison", "Which has more stars, Oriole or Halyard?")(
    lambda: [max(["Oriole", "Halyard"], key=lambda x: prop(P(x), "stars"))])
q("comparison", "developers born before 1982")(
    lambda: names(d for d in all_("Developer") if prop(d, "birth_year") < 1982))

# ---------------- negation ----------------
q("negation", "Which projects sponsored by Stratus Nine are not written in Rust?")(
    lambda: names(p for p in out(O("Stratus Nine"), "SPONSORS") if L("Rust") not in out(p, "WRITTEN_IN")))
q("negation", "Which Python projects are not licensed under BSD-3-Clause?")(
    lambda: names(p for p in inn(L("Python"), "WRITTEN_IN") if LI("BSD-3-Clause") not in out(p, "LICENSED_UNDER")))
q("negation", "which contributors to Heronsbill don't live in Osaka?")(
    lambda: names(d for d in inn(P("Heronsbill"), "CONTRIBUTES_TO") if C("Osaka") not in out(d, "LIVES_IN")))
q("negation", "Which Rust repos have no releases?")(
    lambda: names(p for p in inn(L("Rust"), "WRITTEN_IN") if not out(p, "HAS_RELEASE")))
q("negation", "Which of the projects Copperleaf Systems sponsors aren't licensed under Apache-2.0?")(
    lambda: names(p for p in out(O("Copperleaf Systems"), "SPONSORS") if LI("Apache-2.0") not in out(p, "LICENSED_UNDER")))

# ---------------- conjunction ----------------
q("conjunction", "Which projects do Ingrid Solberg and Jonas Eriksen both maintain?")(
    lambda: names(p for p in out(D("Ingrid Solberg"), "MAINTAINS") if p in out(D("Jonas Eriksen"), "MAINTAINS")))
q("conjunction", "projects written in Go that are licensed under Apache-2.0")(
    lambda: names(p for p in inn(L("Go"), "WRITTEN_IN") if LI("Apache-2.0") in out(p, "LICENSED_UNDER")))
q("conjunction", "Which projects do Diego Carvalho and Oliver Grant both contribute to?")(
    lambda: names(p for p in out(D("Diego Carvalho"), "CONTRIBUTES_TO") if p in out(D("Oliver Grant"), "CONTRIBUTES_TO")))
q("conjunction", "Which projects are sponsored by both Bluefen Foundation and Obsidian Works?")(
    lambda: names(p for p in out(O("Bluefen Foundation"), "SPONSORS") if p in out(O("Obsidian Works"), "SPONSORS")))
q("conjunction", "which devs live in Berlin and work for Meridian Data?")(
    lambda: names(d for d in inn(C("Berlin"), "LIVES_IN") if O("Meridian Data") in out(d, "EMPLOYED_BY")))

# ---------------- yes/no ----------------
q("yes/no", "Does Halyard depend on Ferrox?")(lambda: yn(P("Ferrox") in out(P("Halyard"), "DEPENDS_ON")))
q("yes/no", "Does Tidepool use the MIT license?")(lambda: yn(LI("MIT") in out(P("Tidepool"), "LICENSED_UNDER")))
q("yes/no", "is Cindervale a fork of Tidepool?")(lambda: yn(P("Tidepool") in out(P("Cindervale"), "FORK_OF")))
q("yes/no", "Does Ana Ferreira maintain Oriole?")(lambda: yn(P("Oriole") in out(D("Ana Ferreira"), "MAINTAINS")))
q("yes/no", "Does Tessellate sponsor Heronsbill?")(lambda: yn(P("Heronsbill") in out(O("Tessellate"), "SPONSORS")))


def main():
    counts = defaultdict(int)
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as f:
        for kind, text, fn in Q:
            ans = fn()
            assert ans, text
            counts[kind] += 1
            f.write(json.dumps({"question": text, "answers": ans, "type": kind}, ensure_ascii=False) + "\n")
    assert len(Q) == 45 and all(v == 5 for v in counts.values()) and len(counts) == 9, counts


if __name__ == "__main__":
    main()
