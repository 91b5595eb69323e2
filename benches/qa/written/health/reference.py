#!/usr/bin/env python3
"""Gold answers computed from graph.jsonl -> questions.jsonl.

Each question is a small function over the loaded graph. Answers are node
names, property values as strings (as they appear in the data), or yes/no.
"""
import json
import os
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
GRAPH = os.path.join(HERE, "graph.jsonl")
OUT = os.path.join(HERE, "questions.jsonl")


class G:
    def __init__(self, path):
        self.nodes = {}                      # (label, key) -> props
        self.by_label = defaultdict(list)    # label -> [(label, key)]
        self.out = defaultdict(list)         # (rel, node) -> [node]
        self.inc = defaultdict(list)         # (rel, node) -> [node]
        with open(path, encoding="utf-8") as f:
            for line in f:
                o = json.loads(line)
                if o["type"] == "node":
                    n = (o["label"], o["key"])
                    self.nodes[n] = o["props"]
                    self.by_label[o["label"]].append(n)
                else:
                    a = (o["from"]["label"], o["from"]["key"])
                    b = (o["to"]["label"], o["to"]["key"])
                    self.out[(o["rel"], a)].append(b)
                    self.inc[(o["rel"], b)].append(a)

    def all(self, label):
        return list(self.by_label[label])

    def get(self, label, name):
        hits = [n for n in self.by_label[label] if self.nodes[n]["name"] == name]
        assert len(hits) == 1, (label, name, hits)
        return hits[0]

    def p(self, n, prop):
        return self.nodes[n][prop]

    def name(self, n):
        return self.nodes[n]["name"]

    def o(self, n, rel):
        return self.out[(rel, n)]

    def i(self, n, rel):
        return self.inc[(rel, n)]


def val(v):
    return str(v)


def names(g, ns):
    return sorted({g.name(n) for n in ns})


def yn(b):
    return ["yes" if b else "no"]


def argmax(g, ns, prop, lowest=False):
    vals = [g.p(n, prop) for n in ns]
    best = min(vals) if lowest else max(vals)
    winners = [n for n in ns if g.p(n, prop) == best]
    assert len(winners) == 1, ("tie", prop, [g.name(w) for w in winners])
    return [g.name(winners[0])]


def num(x):
    # integers print without a decimal point; otherwise as Python prints them
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


Q = []


def q(kind, text):
    def deco(fn):
        Q.append((kind, text, fn))
        return fn
    return deco


# ---------------------------------------------------------------- attribute
@q("attribute", "How many beds does Halden General Hospital have?")
def _(g):
    return [val(g.p(g.get("Hospital", "Halden General Hospital"), "beds"))]


@q("attribute", "what year was Norland Laboratories founded")
def _(g):
    return [val(g.p(g.get("Company", "Norland Laboratories"), "founded"))]


@q("attribute", "What's Rythmora's dosage in mg?")
def _(g):
    return [val(g.p(g.get("Drug", "Rythmora"), "dosage_mg"))]


@q("attribute", "Which phase is the LUNGSTAR study in?")
def _(g):
    return [val(g.p(g.get("Trial", "LUNGSTAR"), "phase"))]


@q("attribute", "When was physician Jonas Eklund born?")
def _(g):
    return [val(g.p(g.get("Doctor", "Jonas Eklund"), "birth_year"))]


# ---------------------------------------------------------------- relation
@q("relation", "Where is Quayside Clinic located?")
def _(g):
    return names(g, g.o(g.get("Hospital", "Quayside Clinic"), "LOCATED_IN"))


@q("relation", "who's the maker of Migrastat?")
def _(g):
    return names(g, g.o(g.get("Drug", "Migrastat"), "MADE_BY"))


@q("relation", "which illnesses is Breathaire used to treat?")
def _(g):
    return names(g, g.o(g.get("Drug", "Breathaire"), "TREATS"))


@q("relation", "Which hospital does Nadia Petrova work at?")
def _(g):
    return names(g, g.o(g.get("Doctor", "Nadia Petrova"), "WORKS_AT"))


@q("relation", "Where did Marcus Webb do his training?")
def _(g):
    return names(g, g.o(g.get("Doctor", "Marcus Webb"), "TRAINED_AT"))


# ---------------------------------------------------------------- multi-hop
@q("multi-hop", "Which drugs are made by companies headquartered in Marisport?")
def _(g):
    city = g.get("City", "Marisport")
    return names(g, [d for co in g.i(city, "HEADQUARTERED_IN") for d in g.i(co, "MADE_BY")])


@q("multi-hop", "In which city is the hospital where Yusuf Demir works?")
def _(g):
    doc = g.get("Doctor", "Yusuf Demir")
    return names(g, [c for h in g.o(doc, "WORKS_AT") for c in g.o(h, "LOCATED_IN")])


@q("multi-hop", "who are the trial leads for studies run at Marisport University Hospital?")
def _(g):
    h = g.get("Hospital", "Marisport University Hospital")
    return names(g, [d for t in g.i(h, "RUN_AT") for d in g.i(t, "LEADS")])


@q("multi-hop", "Which diseases are treated by medicines made by Aurelius Generics?")
def _(g):
    co = g.get("Company", "Aurelius Generics")
    return names(g, [s for d in g.i(co, "MADE_BY") for s in g.o(d, "TREATS")])


@q("multi-hop", "Which manufacturers make medications for breast cancer?")
def _(g):
    s = g.get("Disease", "Breast Cancer")
    return names(g, [co for d in g.i(s, "TREATS") for co in g.o(d, "MADE_BY")])


# ---------------------------------------------------------------- superlative
@q("superlative", "which clinic has the most beds")
def _(g):
    return argmax(g, g.all("Hospital"), "beds")


@q("superlative", "who is the most experienced doctor?")
def _(g):
    return argmax(g, g.all("Doctor"), "experience_years")


@q("superlative", "What is the newest drug?")
def _(g):
    return argmax(g, g.all("Drug"), "approval_year")


@q("superlative", "Which clinical trial enrolled the most patients?")
def _(g):
    return argmax(g, g.all("Trial"), "enrolled")


@q("superlative", "name the cheapest medicine made by Norland Laboratories")
def _(g):
    co = g.get("Company", "Norland Laboratories")
    return argmax(g, g.i(co, "MADE_BY"), "price", lowest=True)


# ---------------------------------------------------------------- aggregate
@q("aggregate", "How many doctors work at Corvale Memorial Hospital?")
def _(g):
    return [str(len(set(g.i(g.get("Hospital", "Corvale Memorial Hospital"), "WORKS_AT"))))]


@q("aggregate", "What is the average number of beds of hospitals in Corvale?")
def _(g):
    hs = g.i(g.get("City", "Corvale"), "LOCATED_IN")
    return [num(sum(g.p(h, "beds") for h in hs) / len(hs))]


@q("aggregate", "How many patients in total were enrolled in trials run at Ternfield Cancer Centre?")
def _(g):
    ts = g.i(g.get("Hospital", "Ternfield Cancer Centre"), "RUN_AT")
    return [num(sum(g.p(t, "enrolled") for t in ts))]


@q("aggregate", "how many drugs does Veridian Pharma make")
def _(g):
    return [str(len(set(g.i(g.get("Company", "Veridian Pharma"), "MADE_BY"))))]


@q("aggregate", "How many physicians trained at Marisport University Hospital?")
def _(g):
    return [str(len(set(g.i(g.get("Hospital", "Marisport University Hospital"), "TRAINED_AT"))))]


# ---------------------------------------------------------------- comparison
@q("comparison", "drugs approved after 2015 that cost less than 100")
def _(g):
    return names(g, [d for d in g.all("Drug")
                     if g.p(d, "approval_year") > 2015 and g.p(d, "price") < 100])


@q("comparison", "Which hospitals have more than 500 beds?")
def _(g):
    return names(g, [h for h in g.all("Hospital") if g.p(h, "beds") > 500])


@q("comparison", "list the surgeons with more than 20 years of experience")
def _(g):
    return names(g, [d for d in g.all("Doctor")
                     if "Surgery" in g.p(d, "specialty") and g.p(d, "experience_years") > 20])


@q("comparison", "Which trials started after 2018 and enrolled fewer than 300 patients?")
def _(g):
    return names(g, [t for t in g.all("Trial")
                     if g.p(t, "start_year") > 2018 and g.p(t, "enrolled") < 300])


@q("comparison", "Which companies were founded before 1980 and have more than 10000 employees?")
def _(g):
    return names(g, [c for c in g.all("Company")
                     if g.p(c, "founded") < 1980 and g.p(c, "employees") > 10000])


# ---------------------------------------------------------------- negation
@q("negation", "Which doctors at Corvale Memorial Hospital don't lead any trial?")
def _(g):
    h = g.get("Hospital", "Corvale Memorial Hospital")
    return names(g, [d for d in g.i(h, "WORKS_AT") if not g.o(d, "LEADS")])


@q("negation", "hospitals in Corvale that are not public")
def _(g):
    c = g.get("City", "Corvale")
    return names(g, [h for h in g.i(c, "LOCATED_IN") if g.p(h, "type") != "public"])


@q("negation", "Which of Aurelius Generics' drugs have never been tested in a trial?")
def _(g):
    co = g.get("Company", "Aurelius Generics")
    return names(g, [d for d in g.i(co, "MADE_BY") if not g.o(d, "TESTED_IN")])


@q("negation", "Which cities are not home to any pharmaceutical company?")
def _(g):
    return names(g, [c for c in g.all("City") if not g.i(c, "HEADQUARTERED_IN")])


@q("negation", "Which oncologists don't work at Ternfield Cancer Centre?")
def _(g):
    h = g.get("Hospital", "Ternfield Cancer Centre")
    return names(g, [d for d in g.all("Doctor")
                     if g.p(d, "specialty") == "Oncology" and h not in g.o(d, "WORKS_AT")])


# ---------------------------------------------------------------- conjunction
@q("conjunction", "Which diseases are treated by both Lorvastin and Anticor?")
def _(g):
    a = set(g.o(g.get("Drug", "Lorvastin"), "TREATS"))
    b = set(g.o(g.get("Drug", "Anticor"), "TREATS"))
    return names(g, a & b)


@q("conjunction", "doctors at Halden General Hospital who specialize in hypertension")
def _(g):
    h = g.get("Hospital", "Halden General Hospital")
    s = g.get("Disease", "Hypertension")
    return names(g, [d for d in g.i(h, "WORKS_AT") if s in g.o(d, "SPECIALIZES_IN")])


@q("conjunction", "Who took part in both ONCO-BRIDGE and VELINE-2?")
def _(g):
    a = set(g.i(g.get("Trial", "ONCO-BRIDGE"), "PARTICIPATES_IN"))
    b = set(g.i(g.get("Trial", "VELINE-2"), "PARTICIPATES_IN"))
    return names(g, a & b)


@q("conjunction", "Which medications treat both asthma and COPD?")
def _(g):
    a = set(g.i(g.get("Disease", "Asthma"), "TREATS"))
    b = set(g.i(g.get("Disease", "COPD"), "TREATS"))
    return names(g, a & b)


@q("conjunction", "Which doctors specialize in Type 2 Diabetes and trained at Velmora Regional Hospital?")
def _(g):
    s = g.get("Disease", "Type 2 Diabetes")
    h = g.get("Hospital", "Velmora Regional Hospital")
    return names(g, [d for d in g.i(s, "SPECIALIZES_IN") if h in g.o(d, "TRAINED_AT")])


# ---------------------------------------------------------------- yes/no
@q("yes/no", "Does Cardiplex treat hypertension?")
def _(g):
    return yn(g.get("Disease", "Hypertension") in g.o(g.get("Drug", "Cardiplex"), "TREATS"))


@q("yes/no", "Is Velmora Regional Hospital bigger than 500 beds?")
def _(g):
    return yn(g.p(g.get("Hospital", "Velmora Regional Hospital"), "beds") > 500)


@q("yes/no", "Did Helena Marsh lead the AFIB-LOW trial?")
def _(g):
    return yn(g.get("Trial", "AFIB-LOW") in g.o(g.get("Doctor", "Helena Marsh"), "LEADS"))


@q("yes/no", "is Kestrel BioSciences headquartered in Halden?")
def _(g):
    return yn(g.get("City", "Halden") in g.o(g.get("Company", "Kestrel BioSciences"), "HEADQUARTERED_IN"))


@q("yes/no", "Does Nadia Petrova work at Halden General Hospital?")
def _(g):
    return yn(g.get("Hospital", "Halden General Hospital") in g.o(g.get("Doctor", "Nadia Petrova"), "WORKS_AT"))


def main():
    g = G(GRAPH)
    counts = defaultdict(int)
    with open(OUT, "w", encoding="utf-8") as f:
        for kind, text, fn in Q:
            ans = fn(g)
            assert ans, (text, "empty gold")
            counts[kind] += 1
            f.write(json.dumps({"question": text, "answers": ans, "type": kind},
                               ensure_ascii=False) + "\n")
    assert len(Q) == 45 and all(v == 5 for v in counts.values()) and len(counts) == 9, counts
    print(f"wrote {OUT}: {len(Q)} questions")


if __name__ == "__main__":
    main()
