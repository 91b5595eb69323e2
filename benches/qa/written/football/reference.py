#!/usr/bin/env python3
"""Independent gold-answer computation for the football QA set. Reads graph.jsonl, writes questions.jsonl."""
import json
from collections import defaultdict

N = {}                      # key -> (label, props)
OUT = defaultdict(list)     # (key, rel) -> [to keys]
IN = defaultdict(list)      # (key, rel) -> [from keys]
for line in open("graph.jsonl"):
    o = json.loads(line)
    if o["type"] == "node":
        N[o["key"]] = (o["label"], o["props"])
    else:
        f, t = o["from"]["key"], o["to"]["key"]
        OUT[(f, o["rel"])].append(t)
        IN[(t, o["rel"])].append(f)

def P(k, p): return N[k][1].get(p)
def of(label): return [k for k, (l, _) in N.items() if l == label]
def by_name(label, name):
    ks = [k for k in of(label) if P(k, "name") == name]
    assert len(ks) == 1, (label, name, ks)
    return ks[0]
def num(x):
    if isinstance(x, float):
        x = round(x, 4)
        return str(int(x)) if x == int(x) else repr(x)
    return str(x)

Q = []
def q(question, answers, typ):
    answers = [a if isinstance(a, str) else num(a) for a in answers]
    assert answers, question
    Q.append({"question": question, "answers": sorted(set(answers)), "type": typ})

players = of("Player"); clubs = of("Club"); stadiums = of("Stadium"); coaches = of("Coach")
sponsors = of("Sponsor"); matches = of("Match")
def club_players(c): return IN[(c, "plays_for")]

# ---------------- attribute
q("What year was Grauhaven Rovers founded?", [P(by_name("Club", "Grauhaven Rovers"), "founded")], "attribute")
q("what's the capacity of Harbour Park", [P(by_name("Stadium", "Harbour Park"), "capacity")], "attribute")
q("Which position does Hugo Blanco play?", [P(by_name("Player", "Hugo Blanco"), "position")], "attribute")
q("how much is Santiago Vera worth", [P(by_name("Player", "Santiago Vera"), "market_value")], "attribute")
q("When did Olympia stadium open?", [P(by_name("Stadium", "Olympia"), "opened")], "attribute")

# ---------------- relation
q("Who coaches Mirbeck United?", OUT[(by_name("Club", "Mirbeck United"), "coached_by")], "relation")
q("list the players at Lunetta Town", club_players(by_name("Club", "Lunetta Town")), "relation")
q("where does the club Olympia play its home games", OUT[(by_name("Club", "Olympia"), "HOME_GROUND")], "relation")
q("Who are Grauhaven Rovers' sponsors?", OUT[(by_name("Club", "Grauhaven Rovers"), "sponsoredBy")], "relation")
q("which city is Corvel Athletic based in", OUT[(by_name("Club", "Corvel Athletic"), "BASED_IN")], "relation")

# ---------------- multi-hop
c = IN[(by_name("Coach", "Beatriz Lemos"), "coached_by")]
q("Which players play for the team managed by Beatriz Lemos?", [p for cl in c for p in club_players(cl)], "multi-hop")
st = OUT[(by_name("Club", "Real Mirbeck"), "HOME_GROUND")]
q("In which city is Real Mirbeck's stadium?", [ci for s in st for ci in OUT[(s, "located_in")]], "multi-hop")
cl = OUT[(by_name("Player", "Marcus Holm"), "plays_for")]
q("who is the coach of Marcus Holm's club", [ch for x in cl for ch in OUT[(x, "coached_by")]], "multi-hop")
nor = by_name("Country", "Norway")
sp = [s for s in sponsors if nor in OUT[(s, "headquarteredIn")]]
q("which clubs are sponsored by companies based in Norway", [x for s in sp for x in IN[(s, "sponsoredBy")]], "multi-hop")
vg = by_name("Stadium", "Victoria Ground")
ms = [m for m in matches if vg in OUT[(m, "PLAYED_AT")]]
q("Show me the players who scored in matches played at Victoria Ground", [p for m in ms for p in IN[(m, "scored_in")]], "multi-hop")

# ---------------- superlative
cap = max(P(s, "capacity") for s in stadiums)
q("Which stadium has the biggest capacity?", [s for s in stadiums if P(s, "capacity") == cap], "superlative")
mvp = sorted([p for p in players if P(p, "market_value") is not None], key=lambda p: -P(p, "market_value"))
assert P(mvp[2], "market_value") > P(mvp[3], "market_value")
q("top 3 most valuable players", mvp[:3], "superlative")
cnt = {c: len(OUT[(c, "WON")]) for c in clubs}
q("which club has won the most trophies", [c for c in clubs if cnt[c] == max(cnt.values())], "superlative")
cnt = {s: len(IN[(s, "sponsoredBy")]) for s in sponsors}
q("What sponsor backs the most clubs?", [s for s in sponsors if cnt[s] == max(cnt.values())], "superlative")
small = min(stadiums, key=lambda s: P(s, "capacity"))
pl = [p for c in IN[(small, "HOME_GROUND")] for p in club_players(c) if P(p, "market_value") is not None]
top = max(P(p, "market_value") for p in pl)
q("who is the most valuable player of the club with the smallest stadium", [p for p in pl if P(p, "market_value") == top], "superlative")

# ---------------- aggregate
q("How many players does Port Alessa FC have?", [len(club_players(by_name("Club", "Port Alessa FC")))], "aggregate")
q("what is the total capacity of all stadiums", [sum(P(s, "capacity") for s in stadiums)], "aggregate")
gp = club_players(by_name("Club", "Grauhaven Rovers"))
q("average goals of Grauhaven Rovers players", [sum(P(p, "goals") for p in gp) / len(gp)], "aggregate")
q("how many brazilian players are there", [len([p for p in players if P(p, "nationality") == "Brazil"])], "aggregate")
q("How many matches did Johan Strand referee?", [len(IN[(by_name("Referee", "Johan Strand"), "refereed_by")])], "aggregate")

# ---------------- comparison
q("Which stadiums hold more than 35000 people?", [s for s in stadiums if P(s, "capacity") > 35000], "comparison")
q("players born after 2000", [p for p in players if P(p, "born") > 2000], "comparison")
mu = P(by_name("Club", "Mirbeck United"), "founded")
q("Which clubs were founded before Mirbeck United?", [c for c in clubs if P(c, "founded") < mu], "comparison")
ac = P(by_name("Player", "Andre Costa"), "goals")
q("who has scored more goals than Andre Costa", [p for p in players if P(p, "goals") > ac], "comparison")
q("sponsors whose deal is worth less than 5 million", [s for s in sponsors if P(s, "deal_value") < 5], "comparison")

# ---------------- negation
q("Which clubs don't have a sponsor?", [c for c in clubs if not OUT[(c, "sponsoredBy")]], "negation")
q("which Port Alessa FC players haven't scored in any match",
  [p for p in club_players(by_name("Club", "Port Alessa FC")) if not OUT[(p, "scored_in")]], "negation")
q("Mirbeck United players who are not midfielders",
  [p for p in club_players(by_name("Club", "Mirbeck United")) if P(p, "position") != "midfielder"], "negation")
q("Which clubs have never won a trophy?", [c for c in clubs if not OUT[(c, "WON")]], "negation")
q("stadiums that don't have a grass pitch", [s for s in stadiums if P(s, "surface") != "grass"], "negation")

# ---------------- conjunction
q("left-footed defenders", [p for p in players if P(p, "position") == "defender" and P(p, "foot") == "left"], "conjunction")
q("Which Brazilian players are midfielders?", [p for p in players if P(p, "nationality") == "Brazil" and P(p, "position") == "midfielder"], "conjunction")
q("forwards with more than 10 goals and a market value over 15 million",
  [p for p in players if P(p, "position") == "forward" and P(p, "goals") > 10 and (P(p, "market_value") or 0) > 15], "conjunction")
q("Which Grauhaven Rovers players are injured?",
  [p for p in club_players(by_name("Club", "Grauhaven Rovers")) if P(p, "status") == "injured"], "conjunction")
q("Norwegian goalkeepers who are still active",
  [p for p in players if P(p, "nationality") == "Norway" and P(p, "position") == "goalkeeper" and P(p, "status") == "active"], "conjunction")

# ---------------- yes/no
def yn(b): return ["yes" if b else "no"]
q("Does Tomas Ruiz play for Port Alessa FC?",
  yn(by_name("Club", "Port Alessa FC") in OUT[(by_name("Player", "Tomas Ruiz"), "plays_for")]), "yes/no")
q("Is Harbour Park bigger than Ironworks Stadium?",
  yn(P(by_name("Stadium", "Harbour Park"), "capacity") > P(by_name("Stadium", "Ironworks Stadium"), "capacity")), "yes/no")
q("is Lucas Moreira a goalkeeper",  # two players share the name; neither is a goalkeeper
  yn(any(P(p, "position") == "goalkeeper" for p in players if P(p, "name") == "Lucas Moreira")), "yes/no")
q("Has Lunetta Town ever won a trophy?", yn(bool(OUT[(by_name("Club", "Lunetta Town"), "WON")])), "yes/no")
q("Is Real Mirbeck coached by Rui Carvalho?",
  yn(by_name("Coach", "Rui Carvalho") in OUT[(by_name("Club", "Real Mirbeck"), "coached_by")]), "yes/no")

with open("questions.jsonl", "w") as f:
    for x in Q:
        f.write(json.dumps(x, ensure_ascii=False) + "\n")
from collections import Counter
print(len(Q), Counter(x["type"] for x in Q))
