# Independent gold-answer computation over graph.jsonl. Writes questions.jsonl.
import json
from collections import defaultdict

nodes = {}            # (label, key) -> props
by_key = {}           # key -> (label, props)   (keys are unique across labels in this dump)
out_e = defaultdict(list)   # (rel, key) -> [to_key]
in_e = defaultdict(list)    # (rel, key) -> [from_key]
for line in open("graph.jsonl"):
    o = json.loads(line)
    if o["type"] == "node":
        assert o["key"] not in by_key
        nodes[(o["label"], o["key"])] = o["props"]; by_key[o["key"]] = (o["label"], o["props"])
    else:
        out_e[(o["rel"], o["from"]["key"])].append(o["to"]["key"])
        in_e[(o["rel"], o["to"]["key"])].append(o["from"]["key"])

def keys(label): return sorted(k for (l, k) in nodes if l == label)
def P(k, p): return by_key[k][1].get(p)
def find(label, name):
    m = [k for k in keys(label) if P(k, "name") == name]; assert len(m) == 1, (label, name, m); return m[0]
def out(rel, k): return out_e[(rel, k)]
def inn(rel, k): return in_e[(rel, k)]
def num(x):
    x = round(x, 4)
    return str(int(x)) if float(x).is_integer() else str(x)
def argmax(cands, f):
    vals = {c: f(c) for c in cands if f(c) is not None}
    m = max(vals.values()); return sorted(c for c, v in vals.items() if v == m)
def argmin(cands, f):
    vals = {c: f(c) for c in cands if f(c) is not None}
    m = min(vals.values()); return sorted(c for c, v in vals.items() if v == m)

Q = []
def q(t, text, ans):
    assert ans, text
    Q.append({"question": text, "answers": sorted(ans) if isinstance(ans, list) else [ans], "type": t})

ALB, ART, BAND, TRK, RL, GEN = keys("Album"), keys("Artist"), keys("Band"), keys("Track"), keys("RecordLabel"), keys("Genre")

# ---------- attribute ----------
q("attribute", "What year did Glass Harbour form?", num(P(find("Band", "Glass Harbour"), "formed")))
q("attribute", "how long is Tram Lines in seconds", num(P(find("Track", "Tram Lines"), "duration_seconds")))
q("attribute", "What's the rating of Winter Ferry?", num(P(find("Album", "Winter Ferry"), "rating")))  # album and song share the name; only albums have ratings
q("attribute", "When was Lena Holmberg born?", num(P(find("Artist", "Lena Holmberg"), "born")))
q("attribute", "What is the capacity of Red River Hall?", num(P(find("Venue", "Red River Hall"), "capacity")))

# ---------- relation ----------
q("relation", "Who are the members of Velvet Static?", inn("member_of", find("Band", "Velvet Static")))
q("relation", "Which label is Hollow Pines signed with?", out("signedTo", find("Band", "Hollow Pines")))
q("relation", "Which album is the song Lamplighter on?", out("APPEARS_ON", find("Track", "Lamplighter")))
q("relation", "who produced Quiet Rooms", out("produced_by", find("Album", "Quiet Rooms")))
q("relation", "List the songs written by Priya Nandakumar", inn("written_by", find("Artist", "Priya Nandakumar")))

# ---------- multi-hop ----------
gh = find("Band", "Glass Harbour")
q("multi-hop", "Which record label put out Glass Harbour's albums?",
  sorted({rl for al in inn("performed_by", gh) for rl in out("RELEASED_ON", al)}))
sf = find("Album", "Small Fires")
q("multi-hop", "Who wrote the songs on Small Fires?", sorted({w for t in inn("APPEARS_ON", sf) for w in out("written_by", t)}))
city = out("born_in", find("Artist", "Mara Lindqvist"))
q("multi-hop", "Which bands are based in the city where Mara Lindqvist was born?",
  sorted({b for c in city for b in inn("based_in", c) if by_key[b][0] == "Band"}))
dw = find("RecordLabel", "Driftwood Records")
q("multi-hop", "What genres do the bands signed to Driftwood Records play?",
  sorted({g for b in inn("signedTo", dw) if by_key[b][0] == "Band" for g in out("plays_genre", b)}))
manc = find("City", "Manchester")
q("multi-hop", "Which bands were influenced by a band from Manchester?",
  sorted({b for b in BAND if any(manc in out("based_in", x) for x in out("influenced_by", b))}))

# ---------- superlative ----------
q("superlative", "Which album sold the most copies?", argmax(ALB, lambda a: P(a, "sales")))
q("superlative", "who's the oldest member of Northern Arcade",
  argmin(inn("member_of", find("Band", "Northern Arcade")), lambda a: P(a, "born")))
q("superlative", "Which label put out the most albums?", argmax(RL, lambda r: len(inn("RELEASED_ON", r))))
newest = argmax(inn("performed_by", find("Band", "Northern Arcade")), lambda a: P(a, "year"))
assert len(newest) == 1
q("superlative", "What's the longest song on the newest Northern Arcade album?",
  argmax(inn("APPEARS_ON", newest[0]), lambda t: P(t, "duration_seconds")))
ranked = sorted([a for a in ALB if P(a, "rating") is not None], key=lambda a: -P(a, "rating"))
assert P(ranked[2], "rating") > P(ranked[3], "rating")
q("superlative", "top 3 highest rated albums", ranked[:3])
q("superlative", "Which song is the longest?", argmax(TRK, lambda t: P(t, "duration_seconds")))  # tie

# ---------- aggregate ----------
q("aggregate", "How many albums has Velvet Static released?", num(len(inn("performed_by", find("Band", "Velvet Static")))))
cl = find("RecordLabel", "Copperline Music")
q("aggregate", "How many bands are signed to Copperline Music?", num(len([x for x in inn("signedTo", cl) if by_key[x][0] == "Band"])))
q("aggregate", "What is the total sales of Glass Harbour's albums?", num(sum(P(a, "sales") for a in inn("performed_by", gh))))
dr = inn("APPEARS_ON", find("Album", "Dust & Radio"))
q("aggregate", "average duration of the songs on Dust & Radio", num(sum(P(t, "duration_seconds") for t in dr) / len(dr)))
q("aggregate", "How many tracks are on the album Northern Lights?", num(len(inn("APPEARS_ON", find("Album", "Northern Lights")))))

# ---------- comparison ----------
q("comparison", "Which albums came out after 2018?", [a for a in ALB if P(a, "year") > 2018])
q("comparison", "Show me songs longer than 6 minutes", [t for t in TRK if P(t, "duration_seconds") > 360])
mara = P(find("Artist", "Mara Lindqvist"), "born")
q("comparison", "Which artists are older than Mara Lindqvist?", [a for a in ART if P(a, "born") is not None and P(a, "born") < mara])
sfs = P(sf, "sales")
q("comparison", "Which albums sold more copies than Small Fires?", [a for a in ALB if P(a, "sales") > sfs])
q("comparison", "record labels founded before 2000", [r for r in RL if P(r, "founded") < 2000])

# ---------- negation ----------
q("negation", "Which bands are not signed to Driftwood Records?", [b for b in BAND if dw not in out("signedTo", b)])
q("negation", "List the albums that haven't won any award", [a for a in ALB if not out("won", a)])
q("negation", "Which artists aren't in any band?", [a for a in ART if not out("member_of", a)])
md = find("Artist", "Marcus Dale")
q("negation", "Which Copperline Music albums were not produced by Marcus Dale?",
  [a for a in inn("RELEASED_ON", cl) if md not in out("produced_by", a)])
q("negation", "Which genres are not played by any band?",
  [g for g in GEN if not any(by_key[x][0] == "Band" for x in inn("plays_genre", g))])

# ---------- conjunction ----------
q("conjunction", "Swedish artists signed to Driftwood Records", [a for a in ART if P(a, "country") == "Sweden" and dw in out("signedTo", a)])
q("conjunction", "shoegaze albums released before 2005", [a for a in ALB if P(a, "genre") == "shoegaze" and P(a, "year") < 2005])
q("conjunction", "Which folk albums have a rating above 8?",
  [a for a in ALB if P(a, "genre") == "folk" and P(a, "rating") is not None and P(a, "rating") > 8])
pp = find("Genre", "Post-Punk")
q("conjunction", "Which post-punk bands are based in Manchester?", [b for b in BAND if pp in out("plays_genre", b) and manc in out("based_in", b)])
q("conjunction", "UK artists who play guitar", [a for a in ART if P(a, "country") == "UK" and P(a, "instrument") == "guitar"])

# ---------- yes/no ----------
yn = lambda c: "yes" if c else "no"
q("yes/no", "Is Liam Hartley a member of The Paper Lanterns?", yn(find("Band", "The Paper Lanterns") in out("member_of", find("Artist", "Liam Hartley"))))
q("yes/no", "Did Hugo Lindqvist produce Northern Lights?", yn(find("Artist", "Hugo Lindqvist") in out("produced_by", find("Album", "Northern Lights"))))
q("yes/no", "Is Velvet Static signed to Copperline Music?", yn(cl in out("signedTo", find("Band", "Velvet Static"))))
q("yes/no", "Was Concrete Bloom released before 1995?", yn(P(find("Album", "Concrete Bloom"), "year") < 1995))

with open("questions.jsonl", "w") as f:
    for x in Q: f.write(json.dumps(x, ensure_ascii=False) + "\n")
from collections import Counter
print(len(Q), "questions", dict(Counter(x["type"] for x in Q)))
for x in Q: print(x["type"], "|", x["question"], "|", x["answers"])
