#!/usr/bin/env python3
"""Independent gold-answer computation over graph.jsonl -> questions.jsonl."""
import json
from collections import defaultdict

N = {}                      # key -> {"label":..., "props":...}
OUT = defaultdict(list)     # (key, rel) -> [to keys]
IN = defaultdict(list)      # (key, rel) -> [from keys]
for line in open("graph.jsonl", encoding="utf-8"):
    r = json.loads(line)
    if r["type"] == "node":
        N[r["key"]] = {"label": r["label"], "props": r["props"]}
    else:
        f, t = r["from"]["key"], r["to"]["key"]
        OUT[(f, r["rel"])].append(t)
        IN[(t, r["rel"])].append(f)

def P(k, p):
    return N[k]["props"].get(p)

def of(label):
    return [k for k in N if N[k]["label"] == label]

def by_name(label, name):
    ks = [k for k in of(label) if P(k, "name") == name]
    assert len(ks) == 1, (label, name, ks)
    return ks[0]

def num(x):
    if isinstance(x, float) and not x.is_integer():
        return str(round(x, 2))
    return str(int(x))

def argbest(keys, f, best=max):
    vals = {k: f(k) for k in keys if f(k) is not None}
    b = best(vals.values())
    return [k for k, v in vals.items() if v == b]

def yn(b):
    return "yes" if b else "no"

Q = []
def q(type_, text, answers):
    answers = list(answers)
    assert answers, text
    Q.append({"question": text, "answers": [str(a) for a in answers], "type": type_})

airlines, airports, cities = of("Airline"), of("Airport"), of("City")
models, routes = of("AircraftModel"), of("Route")

# ---------------- attribute ----------------
q("attribute", "What year was Lusa Atlântica founded?", [P(by_name("Airline", "Lusa Atlântica"), "founded")])
q("attribute", "how many seats does the Kaito KJ-90 have", [P(by_name("AircraftModel", "Kaito KJ-90"), "seats")])
q("attribute", "What's the IATA code of Serra Alta International", [P(by_name("Airport", "Serra Alta International"), "iata")])
q("attribute", "elevation of Santa Veda International airport", [P(by_name("Airport", "Santa Veda International"), "elevation_m")])
q("attribute", "Which continent is Kenya on?", [P(by_name("Country", "Kenya"), "continent")])

# ---------------- relation ----------------
q("relation", "Which alliance is Iberiana part of?", OUT[(by_name("Airline", "Iberiana"), "member_of")])
q("relation", "What are Aurora Brasil's hub airports?", OUT[(by_name("Airline", "Aurora Brasil"), "HUB_AT")])
q("relation", "who manufactures the Halberd 880 Skyliner", OUT[(by_name("AircraftModel", "Halberd 880 Skyliner"), "builtBy")])
q("relation", "which airlines have the Embrava E-195 in their fleet", IN[(by_name("AircraftModel", "Embrava E-195"), "has_in_fleet")])
q("relation", "Which city does Kellstadt airport serve?", OUT[(by_name("Airport", "Kellstadt"), "serves")])

# ---------------- multi-hop ----------------
mer = by_name("Alliance", "Meridian Alliance")
ans = sorted({h for a in IN[(mer, "member_of")] for h in OUT[(a, "HUB_AT")]})
q("multi-hop", "Which airports are hubs for members of the Meridian Alliance?", ans)
ib = by_name("Airline", "Iberiana")
ans = sorted({m for am in OUT[(ib, "has_in_fleet")] for m in OUT[(am, "builtBy")]})
q("multi-hop", "which manufacturers build the aircraft in Iberiana's fleet", ans)
kt = by_name("Airline", "Kestrel Luftverkehr")
ans = sorted({d for r in OUT[(kt, "operates")] for d in OUT[(r, "arrivesAt")]})
q("multi-hop", "Which airports do Kestrel Luftverkehr's routes fly to?", ans)
a380 = by_name("AircraftModel", "AV-380X")
ans = sorted({al for p in IN[(a380, "CERTIFIED_ON")] for al in OUT[(p, "employedBy")]})
q("multi-hop", "Which airlines employ pilots certified on the AV-380X?", ans)
sky = by_name("Alliance", "SkyCircle")
ans = sorted({c for a in IN[(sky, "member_of")] for h in OUT[(a, "HUB_AT")] for c in OUT[(h, "serves")]})
q("multi-hop", "list the cities served by the hub airports of SkyCircle airlines", ans)

# ---------------- superlative ----------------
q("superlative", "Which airport has the lowest elevation?", argbest(airports, lambda k: P(k, "elevation_m"), min))
q("superlative", "Which airline operates the most routes?", argbest(airlines, lambda k: len(OUT[(k, "operates")])))
top3 = sorted(airlines, key=lambda k: -P(k, "fleet_size"))[:3]
assert P(top3[2], "fleet_size") > P(sorted(airlines, key=lambda k: -P(k, "fleet_size"))[3], "fleet_size")
q("superlative", "top 3 airlines by fleet size", top3)
q("superlative", "oldest airline in the SkyCircle alliance", argbest(IN[(sky, "member_of")], lambda k: P(k, "founded"), min))
q("superlative", "which airport is a hub for the most airlines", argbest(airports, lambda k: len(IN[(k, "HUB_AT")])))

# ---------------- aggregate ----------------
ow = by_name("Alliance", "OpenWing")
q("aggregate", "How many airlines are members of OpenWing?", [len(IN[(ow, "member_of")])])
q("aggregate", "total fleet size of Brazilian airlines", [num(sum(P(a, "fleet_size") for a in airlines if P(a, "country") == "Brazil"))])
emb = by_name("Manufacturer", "Embrava")
seats = [P(m, "seats") for m in IN[(emb, "builtBy")]]
q("aggregate", "what's the average number of seats on Embrava aircraft", [num(sum(seats) / len(seats))])
alm = by_name("Airport", "Almarena International")
q("aggregate", "how many routes depart from Almarena International", [len(IN[(alm, "departsFrom")])])
no = by_name("Country", "Norway")
q("aggregate", "how many airports are there in Norway", [len([a for a in airports if any(no in OUT[(c, "in_country")] for c in OUT[(a, "serves")])])])

# ---------------- comparison ----------------
q("comparison", "Which airports have an elevation above 500 meters?", [a for a in airports if (P(a, "elevation_m") or 0) > 500])
q("comparison", "airlines founded before 1960", [a for a in airlines if P(a, "founded") is not None and P(a, "founded") < 1960])
sk = P(by_name("AircraftModel", "Halberd 880 Skyliner"), "seats")
q("comparison", "Which aircraft have more seats than the Halberd 880 Skyliner?", [m for m in models if P(m, "seats") > sk])
q("comparison", "show me routes longer than 8000 km", [r for r in routes if P(r, "distance_km") > 8000])
ab = P(by_name("Airline", "Aurora Brasil"), "fleet_size")
q("comparison", "Which airlines have a bigger fleet than Aurora Brasil", [a for a in airlines if P(a, "fleet_size") > ab])

# ---------------- negation ----------------
q("negation", "Which airlines are not in any alliance?", [a for a in airlines if not OUT[(a, "member_of")]])
q("negation", "which cities have no airport", [c for c in cities if not IN[(c, "serves")]])
q("negation", "Which aircraft models are not in any airline's fleet?", [m for m in models if not IN[(m, "has_in_fleet")]])
q("negation", "full-service airlines that aren't in SkyCircle",
  [a for a in airlines if P(a, "carrier_type") == "full-service" and sky not in OUT[(a, "member_of")]])
q("negation", "List the airlines that don't operate any routes", [a for a in airlines if not OUT[(a, "operates")]])

# ---------------- conjunction ----------------
q("conjunction", "low-cost airlines based in Spain", [a for a in airlines if P(a, "carrier_type") == "low-cost" and P(a, "country") == "Spain"])
q("conjunction", "Which active low-cost airlines were founded after 2000?",
  [a for a in airlines if P(a, "status") == "active" and P(a, "carrier_type") == "low-cost" and (P(a, "founded") or 0) > 2000])
q("conjunction", "wide-body aircraft with a range over 14500 km", [m for m in models if P(m, "body_type") == "wide-body" and P(m, "range_km") > 14500])
q("conjunction", "Which Brazilian airlines are in the Meridian Alliance?", [a for a in airlines if P(a, "country") == "Brazil" and mer in OUT[(a, "member_of")]])
q("conjunction", "routes operated by Iberiana that are longer than 2000 km", [r for r in OUT[(ib, "operates")] if P(r, "distance_km") > 2000])

# ---------------- yes/no ----------------
kls_ap, kls_city = by_name("Airport", "Kellstadt"), by_name("City", "Kellstadt")
q("yes/no", "Does the Kellstadt airport serve the city of Kellstadt?", [yn(kls_city in OUT[(kls_ap, "serves")])])
q("yes/no", "was Nordvik Air founded before 1980", [yn(P(by_name("Airline", "Nordvik Air"), "founded") < 1980)])
q("yes/no", "Is Brandair still active?", [yn(P(by_name("Airline", "Brandair"), "status") == "active")])
q("yes/no", "Is Nordvik Express a member of SkyCircle?", [yn(sky in OUT[(by_name("Airline", "Nordvik Express"), "member_of")])])
q("yes/no", "does Hanamura Airlines fly the AV-380X", [yn(a380 in OUT[(by_name("Airline", "Hanamura Airlines"), "has_in_fleet")])])

with open("questions.jsonl", "w", encoding="utf-8") as f:
    for x in Q:
        f.write(json.dumps(x, ensure_ascii=False) + "\n")
from collections import Counter
print(len(Q), Counter(x["type"] for x in Q))
for x in Q:
    print(x["type"], "|", x["question"], "|", x["answers"], [P(a, "name") for a in x["answers"] if a in N])
