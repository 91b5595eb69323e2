#!/usr/bin/env python3
"""Compute gold answers from graph.jsonl and write questions.jsonl."""
import json, os
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))


class G:
    def __init__(self, path):
        self.nodes = {}            # (label,key) -> props
        self.out = defaultdict(list)   # (node, rel) -> [node]
        self.inn = defaultdict(list)
        for line in open(path, encoding="utf-8"):
            o = json.loads(line)
            if o["type"] == "node":
                self.nodes[(o["label"], o["key"])] = o["props"]
            elif o["type"] == "edge":
                f = (o["from"]["label"], o["from"]["key"]); t = (o["to"]["label"], o["to"]["key"])
                self.out[(f, o["rel"])].append(t)
                self.inn[(t, o["rel"])].append(f)

    def by_name(self, label, name):
        m = [k for k, p in self.nodes.items() if k[0] == label and p["name"] == name]
        assert len(m) == 1, (label, name, m)
        return m[0]

    def all(self, label):
        return [k for k in self.nodes if k[0] == label]

    def name(self, n): return self.nodes[n]["name"]
    def p(self, n, prop): return self.nodes[n][prop]
    def o(self, n, rel): return self.out[(n, rel)]
    def i(self, n, rel): return self.inn[(n, rel)]
    def both(self, n, rel): return self.out[(n, rel)] + self.inn[(n, rel)]


g = G(os.path.join(HERE, "graph.jsonl"))
F = lambda name: g.by_name("Film", name)
P = lambda name: g.by_name("Person", name)
S = lambda name: g.by_name("Studio", name)
GEN = lambda name: g.by_name("Genre", name)
C = lambda name: g.by_name("City", name)
A = lambda name: g.by_name("Award", name)
films = lambda: g.all("Film")
directors = lambda: [p for p in g.all("Person") if g.o(p, "DIRECTED")]
actors = lambda: [p for p in g.all("Person") if g.o(p, "ACTED_IN")]


def names(nodes):
    return sorted({g.name(n) for n in nodes})


def val(v):
    return str(v)


def argmax(nodes, key):
    best = max(key(n) for n in nodes)
    return names([n for n in nodes if key(n) == best])


def argmin(nodes, key):
    best = min(key(n) for n in nodes)
    return names([n for n in nodes if key(n) == best])


def yn(b): return ["yes" if b else "no"]


Q = []
def q(kind, text, fn):
    Q.append((kind, text, fn))

# ---------------- attribute
q("attribute", "What is the runtime of The Last Cartographer?",
  lambda: [val(g.p(F("The Last Cartographer"), "runtime"))])
q("attribute", "when was Neon Koi released",
  lambda: [val(g.p(F("Neon Koi"), "release_year"))])
q("attribute", "What was the budget for Iron Meridian: Fallout?",
  lambda: [val(g.p(F("Iron Meridian: Fallout"), "budget"))])
q("attribute", "In what year was Bluefjord Studios founded?",
  lambda: [val(g.p(S("Bluefjord Studios"), "founded"))])
q("attribute", "what nationality is Thomas Brandt?",
  lambda: [val(g.p(P("Thomas Brandt"), "nationality"))])

# ---------------- relation
q("relation", "Who directed Quiet Hours?",
  lambda: names(g.i(F("Quiet Hours"), "DIRECTED")))
q("relation", "who starred in Neon Koi",
  lambda: names(g.i(F("Neon Koi"), "ACTED_IN")))
q("relation", "Which studio made Tidewater?",
  lambda: names(g.o(F("Tidewater"), "PRODUCED_BY")))
q("relation", "Who wrote the screenplay of The Clockmaker's Daughter?",
  lambda: names(g.i(F("The Clockmaker's Daughter"), "WROTE")))
q("relation", "Who is Kenji Arakawa married to?",
  lambda: names(g.both(P("Kenji Arakawa"), "MARRIED_TO")))

# ---------------- multi-hop
q("multi-hop", "Which studios produced the films directed by Helena Marchetti?",
  lambda: names(s for f in g.o(P("Helena Marchetti"), "DIRECTED") for s in g.o(f, "PRODUCED_BY")))
q("multi-hop", "In which city is the studio behind Neon Koi based?",
  lambda: names(c for s in g.o(F("Neon Koi"), "PRODUCED_BY") for c in g.o(s, "BASED_IN")))
q("multi-hop", "who directed the movies Jonah Pryce acted in?",
  lambda: names(d for f in g.o(P("Jonah Pryce"), "ACTED_IN") for d in g.i(f, "DIRECTED")))
q("multi-hop", "what genres are the movies made by Kitsune Works",
  lambda: names(ge for f in g.i(S("Kitsune Works"), "PRODUCED_BY") for ge in g.o(f, "HAS_GENRE")))
q("multi-hop", "In which country was the director of Tidewater born?",
  lambda: names(k for d in g.i(F("Tidewater"), "DIRECTED") for c in g.o(d, "BORN_IN")
                for k in g.o(c, "LOCATED_IN")))

# ---------------- superlative
q("superlative", "Which film has the highest box office?",
  lambda: argmax(films(), lambda f: g.p(f, "box_office")))
q("superlative", "Who is the oldest director?",
  lambda: argmin(directors(), lambda p: g.p(p, "birth_year")))
q("superlative", "what's the longest movie",
  lambda: argmax(films(), lambda f: g.p(f, "runtime")))
q("superlative", "Which of Grant Whitaker's films has the best rating?",
  lambda: argmax(g.o(P("Grant Whitaker"), "DIRECTED"), lambda f: g.p(f, "rating")))
q("superlative", "What is the most recent film from Lanterne Films?",
  lambda: argmax(g.i(S("Lanterne Films"), "PRODUCED_BY"), lambda f: g.p(f, "release_year")))

# ---------------- aggregate
q("aggregate", "How many films did Grant Whitaker direct?",
  lambda: [str(len(set(g.o(P("Grant Whitaker"), "DIRECTED"))))])
q("aggregate", "how many movies has Jonah Pryce starred in?",
  lambda: [str(len(set(g.o(P("Jonah Pryce"), "ACTED_IN"))))])
q("aggregate", "How many films were produced by Meridian Pictures?",
  lambda: [str(len(set(g.i(S("Meridian Pictures"), "PRODUCED_BY"))))])
q("aggregate", "What is the total budget of the films produced by Lakeshore Productions?",
  lambda: [str(sum(g.p(f, "budget") for f in set(g.i(S("Lakeshore Productions"), "PRODUCED_BY"))))])
q("aggregate", "How many people were born in Chicago?",
  lambda: [str(len(set(g.i(C("Chicago"), "BORN_IN"))))])

# ---------------- comparison
q("comparison", "Which films released after 2005 have a rating above 8?",
  lambda: names(f for f in films() if g.p(f, "release_year") > 2005 and g.p(f, "rating") > 8))
q("comparison", "list movies longer than 140 minutes",
  lambda: names(f for f in films() if g.p(f, "runtime") > 140))
q("comparison", "Which films had a budget of more than 100000000 dollars?",
  lambda: names(f for f in films() if g.p(f, "budget") > 100000000))
q("comparison", "Which actors were born before 1960?",
  lambda: names(p for p in actors() if g.p(p, "birth_year") < 1960))
q("comparison", "Which Bluefjord Studios films came out before 2010?",
  lambda: names(f for f in g.i(S("Bluefjord Studios"), "PRODUCED_BY") if g.p(f, "release_year") < 2010))

# ---------------- negation
q("negation", "Which films of Meridian Pictures did Jonah Pryce not act in?",
  lambda: names(f for f in g.i(S("Meridian Pictures"), "PRODUCED_BY")
                if f not in g.o(P("Jonah Pryce"), "ACTED_IN")))
q("negation", "Which directors have never won an award?",
  lambda: names(d for d in directors() if not g.o(d, "WON")))
q("negation", "Which Kitsune Works films were not directed by Kenji Arakawa?",
  lambda: names(f for f in g.i(S("Kitsune Works"), "PRODUCED_BY")
                if P("Kenji Arakawa") not in g.i(f, "DIRECTED")))
q("negation", "name the Norwegian actors who didn't appear in Wolves of the Fjord",
  lambda: names(p for p in actors() if g.p(p, "nationality") == "Norwegian"
                and F("Wolves of the Fjord") not in g.o(p, "ACTED_IN")))
q("negation", "Which of Owen Gallagher's movies are not horror films?",
  lambda: names(f for f in g.o(P("Owen Gallagher"), "ACTED_IN")
                if GEN("Horror") not in g.o(f, "HAS_GENRE")))

# ---------------- conjunction
q("conjunction", "Which films did Jonah Pryce and Vivian Cole both act in?",
  lambda: names(set(g.o(P("Jonah Pryce"), "ACTED_IN")) & set(g.o(P("Vivian Cole"), "ACTED_IN"))))
q("conjunction", "films directed by Marisol Teixeira that won an award",
  lambda: names(f for f in g.o(P("Marisol Teixeira"), "DIRECTED") if g.o(f, "WON")))
q("conjunction", "Which movies are both comedies and crime films?",
  lambda: names(f for f in films() if GEN("Comedy") in g.o(f, "HAS_GENRE")
                and GEN("Crime") in g.o(f, "HAS_GENRE")))
q("conjunction", "Who directed a film that they also acted in?",
  lambda: names(p for p in g.all("Person") if set(g.o(p, "DIRECTED")) & set(g.o(p, "ACTED_IN"))))
q("conjunction", "Which science fiction films were produced by Meridian Pictures and released after 2010?",
  lambda: names(f for f in g.i(S("Meridian Pictures"), "PRODUCED_BY")
                if GEN("Science Fiction") in g.o(f, "HAS_GENRE") and g.p(f, "release_year") > 2010))

# ---------------- yes/no
q("yes/no", "Did Lucien Darrow direct The Ferryman's Wager?",
  lambda: yn(P("Lucien Darrow") in g.i(F("The Ferryman's Wager"), "DIRECTED")))
q("yes/no", "is The Ninth Garden longer than 2 hours?",
  lambda: yn(g.p(F("The Ninth Garden"), "runtime") > 120))
q("yes/no", "Did Grace Whitfield star in Iron Meridian: Ascent?",
  lambda: yn(P("Grace Whitfield") in g.i(F("Iron Meridian: Ascent"), "ACTED_IN")))
q("yes/no", "Is Kitsune Works based in Osaka?",
  lambda: yn(C("Osaka") in g.o(S("Kitsune Works"), "BASED_IN")))
q("yes/no", "did Tidewater win the Golden Lantern",
  lambda: yn(A("Golden Lantern") in g.o(F("Tidewater"), "WON")))


def main():
    kinds = defaultdict(int)
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as fh:
        for kind, text, fn in Q:
            ans = fn()
            assert ans, text
            kinds[kind] += 1
            fh.write(json.dumps({"question": text, "answers": ans, "type": kind}, ensure_ascii=False) + "\n")
    assert len(Q) == 45 and all(v == 5 for v in kinds.values()), dict(kinds)
    print(f"wrote {len(Q)} questions")


if __name__ == "__main__":
    main()
