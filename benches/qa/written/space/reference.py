#!/usr/bin/env python3
"""Compute gold answers from graph.jsonl and write questions.jsonl."""
import json, os
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))


class G:
    def __init__(self, path):
        self.nodes = {}                       # (label,key) -> props
        self.out = defaultdict(list)          # (label,key) -> [(rel, (label,key))]
        self.inc = defaultdict(list)
        with open(path, encoding="utf-8") as f:
            for line in f:
                o = json.loads(line)
                if o["type"] == "node":
                    self.nodes[(o["label"], o["key"])] = o["props"]
                else:
                    a = (o["from"]["label"], o["from"]["key"])
                    b = (o["to"]["label"], o["to"]["key"])
                    self.out[a].append((o["rel"], b))
                    self.inc[b].append((o["rel"], a))

    def all(self, label):
        return sorted(k for k in self.nodes if k[0] == label)

    def by_name(self, label, name):
        hits = [k for k in self.all(label) if self.nodes[k]["name"] == name]
        assert len(hits) == 1, (label, name, hits)
        return hits[0]

    def p(self, n, prop):
        return self.nodes[n][prop]

    def name(self, n):
        return self.nodes[n]["name"]

    def fwd(self, n, rel):
        return sorted(b for r, b in self.out[n] if r == rel)

    def back(self, n, rel):
        return sorted(a for r, a in self.inc[n] if r == rel)

    def one(self, n, rel):
        x = self.fwd(n, rel)
        assert len(x) == 1, (n, rel, x)
        return x[0]


def num(v):
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, float):
        return str(round(v, 2))
    return str(v)


def names(g, ns):
    return sorted({g.name(n) for n in ns})


def yn(b):
    return ["yes" if b else "no"]


def argmax(g, ns, prop, sign=1):
    best = max(sign * g.p(n, prop) for n in ns)
    return names(g, [n for n in ns if sign * g.p(n, prop) == best])


def build(g):
    M = lambda s: g.by_name("Mission", s)
    A = lambda s: g.by_name("Astronaut", s)
    AG = lambda s: g.by_name("Agency", s)
    SC = lambda s: g.by_name("Spacecraft", s)
    S = lambda s: g.by_name("LaunchSite", s)
    B = lambda s: g.by_name("Body", s)
    missions, astronauts = g.all("Mission"), g.all("Astronaut")
    agencies, craft = g.all("Agency"), g.all("Spacecraft")

    def agency_missions(a):
        return g.back(AG(a), "OPERATED_BY")

    qs = []

    def q(kind, text, fn):
        qs.append({"question": text, "answers": fn(), "type": kind})

    # ---- attribute
    q("attribute", "What year did Zenith 2 launch?", lambda: [num(g.p(M("Zenith 2"), "launch_year"))])
    q("attribute", "how heavy is the Meridian spacecraft", lambda: [num(g.p(SC("Meridian"), "mass_kg"))])
    q("attribute", "When was the Tarsund Space Office founded?", lambda: [num(g.p(AG("Tarsund Space Office"), "founded"))])
    q("attribute", "What's Titan's diameter in km?", lambda: [num(g.p(B("Titan"), "diameter_km"))])
    q("attribute", "what year was Liv Marstrand born", lambda: [num(g.p(A("Liv Marstrand"), "birth_year"))])

    # ---- relation
    q("relation", "Which space agency operated Ember Reach?", lambda: names(g, g.fwd(M("Ember Reach"), "OPERATED_BY")))
    q("relation", "Who was the commander of Tessera 2?", lambda: names(g, g.back(M("Tessera 2"), "COMMANDED")))
    q("relation", "what spaceship did Halcyon Ascent use", lambda: names(g, g.fwd(M("Halcyon Ascent"), "USED")))
    q("relation", "Drevna Cosmodrome is located in which country?", lambda: names(g, g.fwd(S("Drevna Cosmodrome"), "LOCATED_IN")))
    q("relation", "list the crew of Zenith 3", lambda: names(g, g.back(M("Zenith 3"), "FLEW_ON")))

    # ---- multi-hop
    q("multi-hop", "Which country is the agency that ran Frost Lantern based in?",
      lambda: names(g, [c for a in g.fwd(M("Frost Lantern"), "OPERATED_BY") for c in g.fwd(a, "BASED_IN")]))
    q("multi-hop", "What does the body targeted by Hollow Bell orbit?",
      lambda: names(g, [o for b in g.fwd(M("Hollow Bell"), "TARGETED") for o in g.fwd(b, "ORBITS")]))
    q("multi-hop", "Who built the spacecraft used on Aurora 4?",
      lambda: names(g, [a for s in g.fwd(M("Aurora 4"), "USED") for a in g.fwd(s, "BUILT_BY")]))
    q("multi-hop", "which countries are Zenith 2's crew members citizens of",
      lambda: names(g, [c for a in g.back(M("Zenith 2"), "FLEW_ON") for c in g.fwd(a, "CITIZEN_OF")]))
    q("multi-hop", "From which launch sites has Pavel Orlenko flown?",
      lambda: names(g, [s for m in g.fwd(A("Pavel Orlenko"), "FLEW_ON") for s in g.fwd(m, "LAUNCHED_FROM")]))

    # ---- superlative
    q("superlative", "What is the heaviest spacecraft?", lambda: argmax(g, craft, "mass_kg"))
    q("superlative", "who is the youngest astronaut", lambda: argmax(g, astronauts, "birth_year"))
    q("superlative", "Which is the oldest space agency?", lambda: argmax(g, agencies, "founded", -1))
    q("superlative", "Which mission lasted the longest?", lambda: argmax(g, missions, "duration_days"))
    q("superlative", "name the most expensive mission run by the Castellane Space Agency",
      lambda: argmax(g, agency_missions("Castellane Space Agency"), "cost"))

    # ---- aggregate
    q("aggregate", "How many missions did Pavel Orlenko fly on?",
      lambda: [num(len(g.fwd(A("Pavel Orlenko"), "FLEW_ON")))])
    q("aggregate", "how many missions has the Aldorian Space Institute operated",
      lambda: [num(len(agency_missions("Aldorian Space Institute")))])
    q("aggregate", "What is the total cost of all Kestravan Orbital Agency missions?",
      lambda: [num(sum(g.p(m, "cost") for m in agency_missions("Kestravan Orbital Agency")))])
    q("aggregate", "What's the average mass of spacecraft built by the Aldorian Space Institute?",
      lambda: (lambda xs: [num(sum(xs) / len(xs))])([g.p(s, "mass_kg") for s in g.back(AG("Aldorian Space Institute"), "BUILT_BY")]))
    q("aggregate", "How many moons orbit Jupiter?",
      lambda: [num(len([b for b in g.back(B("Jupiter"), "ORBITS") if g.p(b, "type") == "moon"]))])

    # ---- comparison
    q("comparison", "Which missions launched after 2010 lasted more than 100 days?",
      lambda: names(g, [m for m in missions if g.p(m, "launch_year") > 2010 and g.p(m, "duration_days") > 100]))
    q("comparison", "list spacecraft heavier than 10000 kg",
      lambda: names(g, [s for s in craft if g.p(s, "mass_kg") > 10000]))
    q("comparison", "Which astronauts were born before 1960?",
      lambda: names(g, [a for a in astronauts if g.p(a, "birth_year") < 1960]))
    q("comparison", "space agencies with a budget over 4000 million",
      lambda: names(g, [a for a in agencies if g.p(a, "budget") > 4000]))
    q("comparison", "which missions cost under 200 million?",
      lambda: names(g, [m for m in missions if g.p(m, "cost") < 200]))

    # ---- negation
    q("negation", "Which astronauts never commanded a mission?",
      lambda: names(g, [a for a in astronauts if not g.fwd(a, "COMMANDED")]))
    q("negation", "Which Aldorian Space Institute missions did not target Mars?",
      lambda: names(g, [m for m in agency_missions("Aldorian Space Institute") if B("Mars") not in g.fwd(m, "TARGETED")]))
    q("negation", "which astronauts have never gone on a flight?",
      lambda: names(g, [a for a in astronauts if not g.fwd(a, "FLEW_ON")]))
    q("negation", "Which spacecraft are not active?",
      lambda: names(g, [s for s in craft if g.p(s, "status") != "active"]))
    q("negation", "Which space agencies never sent a mission to Mars?",
      lambda: names(g, [a for a in agencies if not any(B("Mars") in g.fwd(m, "TARGETED") for m in g.back(a, "OPERATED_BY"))]))

    # ---- conjunction
    q("conjunction", "Which missions did both Pavel Orlenko and Tobias Crane fly on?",
      lambda: names(g, set(g.fwd(A("Pavel Orlenko"), "FLEW_ON")) & set(g.fwd(A("Tobias Crane"), "FLEW_ON"))))
    q("conjunction", "Which of Sofia Renwick's flights went to the Moon?",
      lambda: names(g, [m for m in g.fwd(A("Sofia Renwick"), "FLEW_ON") if B("Moon") in g.fwd(m, "TARGETED")]))
    q("conjunction", "Kestravan Orbital Agency missions that launched from Sarnow Plateau Cosmodrome",
      lambda: names(g, [m for m in agency_missions("Kestravan Orbital Agency") if S("Sarnow Plateau Cosmodrome") in g.fwd(m, "LAUNCHED_FROM")]))
    q("conjunction", "which missions used the Odalys spacecraft and lasted more than 100 days",
      lambda: names(g, [m for m in g.back(SC("Odalys"), "USED") if g.p(m, "duration_days") > 100]))
    q("conjunction", "Which Aldorian citizens were crew on Zenith 2?",
      lambda: names(g, [a for a in g.back(M("Zenith 2"), "FLEW_ON") if g.by_name("Country", "Aldoria") in g.fwd(a, "CITIZEN_OF")]))

    # ---- yes/no
    q("yes/no", "Did Luca Ferrant command Tessera 1?",
      lambda: yn(M("Tessera 1") in g.fwd(A("Luca Ferrant"), "COMMANDED")))
    q("yes/no", "Is the spacecraft used by Deep Tide heavier than 5000 kg?",
      lambda: yn(all(g.p(s, "mass_kg") > 5000 for s in g.fwd(M("Deep Tide"), "USED"))))
    q("yes/no", "did Astrid Koll fly on Velm Dawn?",
      lambda: yn(M("Velm Dawn") in g.fwd(A("Astrid Koll"), "FLEW_ON")))
    q("yes/no", "Was Ring Chaser launched from Drevna Cosmodrome?",
      lambda: yn(S("Drevna Cosmodrome") in g.fwd(M("Ring Chaser"), "LAUNCHED_FROM")))
    q("yes/no", "Is Europa a moon of Saturn?",
      lambda: yn(B("Saturn") in g.fwd(B("Europa"), "ORBITS")))
    return qs


def main():
    g = G(os.path.join(HERE, "graph.jsonl"))
    qs = build(g)
    assert len(qs) == 45
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as f:
        for x in qs:
            assert x["answers"], x
            f.write(json.dumps(x, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
