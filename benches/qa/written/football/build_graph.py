#!/usr/bin/env python3
"""Hand-written fictional football league (the Valdoran league). Emits graph.jsonl (Cairn JSON Lines dump)."""
import json

nodes = []
edges = []

def node(label, key, **props):
    nodes.append({"type": "node", "label": label, "key": key, "props": props})

def edge(rel, fl, fk, tl, tk):
    edges.append({"type": "edge", "rel": rel, "from": {"label": fl, "key": fk}, "to": {"label": tl, "key": tk}})

# ---------------- countries
countries = [
    ("cn1", "Valdora", 34), ("cn2", "Brazil", 5), ("cn3", "Spain", 8), ("cn4", "Portugal", 7),
    ("cn5", "Argentina", 1), ("cn6", "France", 2), ("cn7", "Nigeria", 40), ("cn8", "Norway", 45),
]
for k, n, r in countries:
    node("Country", k, name=n, fifa_rank=r)

# ---------------- cities (all in Valdora)
cities = [
    ("ci1", "Port Alessa", 1240000, "Coast"), ("ci2", "Mirbeck", 410000, "North"),
    ("ci3", "Santa Ilva", 285000, "South"), ("ci4", "Grauhaven", 530000, "North"),
    ("ci5", "Corvel", 172000, "Highlands"), ("ci6", "Lunetta", 96000, "Coast"),
]
for k, n, p, reg in cities:
    node("City", k, name=n, population=p, region=reg)
    edge("located_in", "City", k, "Country", "cn1")

# ---------------- stadiums
stadiums = [
    ("st1", "Harbour Park", 52000, 1924, "grass", "ci1"),
    ("st2", "Victoria Ground", 38500, 1910, "hybrid", "ci2"),
    ("st3", "Estadio do Sol", 24000, 1968, "grass", "ci3"),
    ("st4", "Ironworks Stadium", 41000, 1899, "grass", "ci4"),
    ("st5", "Olympia", 30500, 1950, "hybrid", "ci1"),          # same name as the club cl5
    ("st6", "Corvel Park", 15200, 1931, "artificial", "ci5"),
    ("st7", "Seaview Lane", 9800, 1935, "grass", "ci6"),
]
for k, n, cap, op, surf, city in stadiums:
    node("Stadium", k, name=n, capacity=cap, opened=op, surface=surf)
    edge("located_in", "Stadium", k, "City", city)

# ---------------- clubs  (key, name, founded, titles, budget (M EUR) or None, nickname, city, stadium)
clubs = [
    ("cl1", "Port Alessa FC", 1898, 11, 142.5, "The Harbourmen", "ci1", "st1"),
    ("cl2", "Mirbeck United", 1905, 7, 98.0, "The Millers", "ci2", "st2"),
    ("cl3", "Santa Ilva SC", 1921, 3, 61.2, "Os Solares", "ci3", "st3"),
    ("cl4", "Grauhaven Rovers", 1889, 9, 110.0, "The Ironmen", "ci4", "st4"),
    ("cl5", "Olympia", 1946, 2, 55.0, "The Olympians", "ci1", "st5"),
    ("cl6", "Corvel Athletic", 1921, 0, 38.4, "The Highlanders", "ci5", "st6"),
    ("cl7", "Lunetta Town", 1933, 0, 22.9, "The Gulls", "ci6", "st7"),
    ("cl8", "Real Mirbeck", 1952, 1, None, "Los Reales", "ci2", "st2"),   # budget unknown; shares Victoria Ground
]
for k, n, f, t, b, nick, city, st in clubs:
    props = dict(name=n, founded=f, league_titles=t, nickname=nick)
    if b is not None:
        props["budget"] = b
    node("Club", k, **props)
    edge("BASED_IN", "Club", k, "City", city)
    edge("HOME_GROUND", "Club", k, "Stadium", st)

# ---------------- coaches
coaches = [
    ("ch1", "Henrik Dahl", 1972, "Norway", 2020, "cl1"),
    ("ch2", "Rui Carvalho", 1968, "Portugal", 2019, "cl2"),
    ("ch3", "Beatriz Lemos", 1979, "Brazil", 2022, "cl3"),
    ("ch4", "Pablo Ortega", 1965, "Spain", 2016, "cl4"),
    ("ch5", "Tomas Varga", 1975, "Valdora", 2023, "cl5"),
    ("ch6", "Emeka Obi", 1970, "Nigeria", 2021, "cl6"),
    ("ch7", "Jorge Almada", 1981, "Argentina", 2023, "cl7"),
    ("ch8", "Luc Moreau", 1963, "France", 2018, "cl8"),
]
for k, n, b, nat, app, club in coaches:
    node("Coach", k, name=n, born=b, nationality=nat, appointed=app)
    edge("coached_by", "Club", club, "Coach", k)
for ch, cl in [("ch4", "cl2"), ("ch2", "cl6"), ("ch8", "cl1")]:
    edge("previously_managed", "Coach", ch, "Club", cl)

# ---------------- sponsors
sponsors = [
    ("sp1", "AeroValdora", "airline", 12.5, "cn1"),
    ("sp2", "Banco Meridia", "bank", 18.0, "cn3"),
    ("sp3", "NordTel", "telecom", 9.0, "cn8"),
    ("sp4", "Lusa Energia", "energy", 7.5, "cn4"),
    ("sp5", "BetStar", "betting", 4.0, "cn1"),
    ("sp6", "Verde Foods", "food", 3.2, "cn2"),
]
for k, n, ind, deal, hq in sponsors:
    node("Sponsor", k, name=n, industry=ind, deal_value=deal)
    edge("headquarteredIn", "Sponsor", k, "Country", hq)
for cl, sp in [("cl1", "sp1"), ("cl1", "sp2"), ("cl2", "sp3"), ("cl3", "sp6"), ("cl4", "sp2"),
               ("cl4", "sp4"), ("cl5", "sp5"), ("cl6", "sp5"), ("cl8", "sp2"), ("cl8", "sp3")]:
    edge("sponsoredBy", "Club", cl, "Sponsor", sp)
# cl7 Lunetta Town has no sponsor

# ---------------- players (key, name, born, nationality, position, foot, goals, appearances, market_value or None, status, club or None)
players = [
    ("pl1", "Tomas Ruiz", 1996, "Spain", "forward", "right", 14, 31, 28.0, "active", "cl1"),
    ("pl2", "Daniel Okafor", 1998, "Nigeria", "forward", "left", 9, 28, 15.5, "active", "cl1"),
    ("pl3", "Erik Solberg", 1993, "Norway", "goalkeeper", "right", 0, 34, 6.0, "active", "cl1"),
    ("pl4", "Mateus Lima", 1995, "Brazil", "defender", "left", 2, 30, 12.0, "injured", "cl1"),
    ("pl5", "Ivo Marek", 2001, "Valdora", "midfielder", "right", 5, 25, 9.5, "active", "cl1"),
    ("pl6", "Lucas Moreira", 1997, "Brazil", "midfielder", "right", 7, 33, 18.0, "active", "cl2"),
    ("pl7", "Jonas Keller", 1994, "Valdora", "defender", "right", 1, 32, 5.5, "active", "cl2"),
    ("pl8", "Andre Costa", 1999, "Portugal", "forward", "right", 11, 29, 16.0, "active", "cl2"),
    ("pl9", "Felix Brandt", 1990, "Valdora", "goalkeeper", "left", 0, 30, 2.5, "active", "cl2"),
    ("pl10", "Sami Haddad", 2002, "France", "midfielder", "left", 3, 18, 7.0, "active", "cl2"),
    ("pl11", "Rafael Souza", 1996, "Brazil", "forward", "left", 12, 30, 11.0, "active", "cl3"),
    ("pl12", "Diego Ferraz", 1992, "Argentina", "defender", "right", 0, 27, 3.0, "active", "cl3"),
    ("pl13", "Nuno Pires", 2000, "Portugal", "midfielder", "right", 4, 26, 6.5, "injured", "cl3"),
    ("pl14", "Karl Vesti", 1997, "Valdora", "goalkeeper", "right", 0, 22, 1.8, "active", "cl3"),
    ("pl15", "Lucas Moreira", 2003, "Portugal", "forward", "right", 6, 15, 4.0, "active", "cl3"),  # namesake of pl6
    ("pl16", "Marcus Holm", 1995, "Norway", "forward", "right", 14, 32, 21.0, "active", "cl4"),
    ("pl17", "Julien Petit", 1993, "France", "defender", "right", 3, 31, 10.0, "active", "cl4"),
    ("pl18", "Hugo Blanco", 1998, "Spain", "midfielder", "left", 8, 30, 14.5, "active", "cl4"),
    ("pl19", "Oskar Fjell", 1991, "Norway", "goalkeeper", "right", 0, 33, 4.5, "active", "cl4"),
    ("pl20", "Chinedu Eze", 2000, "Nigeria", "defender", "left", 1, 24, 8.0, "injured", "cl4"),
    ("pl21", "Bruno Tavares", 1997, "Portugal", "midfielder", "right", 6, 29, 9.0, "active", "cl5"),
    ("pl22", "Martin Rask", 1996, "Valdora", "forward", "left", 10, 31, 8.5, "active", "cl5"),
    ("pl23", "Gabriel Nunes", 1994, "Brazil", "defender", "right", 2, 28, 7.5, "active", "cl5"),
    ("pl24", "Leo Danner", 1999, "Valdora", "goalkeeper", "right", 0, 31, 3.5, "active", "cl5"),
    ("pl25", "Facundo Rios", 1995, "Argentina", "forward", "right", 9, 30, 5.0, "active", "cl6"),
    ("pl26", "Ilja Brenner", 1992, "Valdora", "defender", "left", 0, 29, 1.2, "active", "cl6"),
    ("pl27", "Samuel Adeyemi", 2001, "Nigeria", "midfielder", "right", 4, 27, 3.8, "active", "cl6"),
    ("pl28", "Theo Marchal", 1990, "France", "goalkeeper", "right", 0, 30, 1.5, "active", "cl6"),
    ("pl29", "Pedro Alves", 1989, "Portugal", "forward", "right", 7, 28, 1.0, "active", "cl7"),
    ("pl30", "Viktor Hald", 1997, "Valdora", "defender", "right", 1, 26, 0.9, "active", "cl7"),
    ("pl31", "Nico Sandri", 2004, "Argentina", "midfielder", "left", 2, 14, 2.2, "active", "cl7"),
    ("pl32", "Arne Lund", 1988, "Norway", "goalkeeper", "left", 0, 25, 0.5, "active", "cl7"),
    ("pl33", "Santiago Vera", 1994, "Argentina", "forward", "left", 13, 31, 9.8, "active", "cl8"),
    ("pl34", "Paulo Henrique", 1996, "Brazil", "midfielder", "right", 5, 30, None, "active", "cl8"),  # no market value
    ("pl35", "Anton Krall", 1993, "Valdora", "defender", "right", 2, 29, 2.0, "active", "cl8"),
    ("pl36", "Yann Leclerc", 1998, "France", "goalkeeper", "right", 0, 24, 2.8, "injured", "cl8"),
    # retired club legends (career totals, no market value)
    ("pl37", "Carlos Mendes", 1978, "Brazil", "forward", "right", 187, 402, None, "retired", None),
    ("pl38", "Stefan Voss", 1975, "Valdora", "defender", "left", 22, 455, None, "retired", None),
    ("pl39", "Manuel Ibarra", 1980, "Spain", "midfielder", "right", 64, 310, None, "retired", None),
    ("pl40", "Ola Nygaard", 1982, "Norway", "goalkeeper", "right", 0, 380, None, "retired", None),
]
for k, n, b, nat, pos, foot, g, apps, mv, status, club in players:
    props = dict(name=n, born=b, nationality=nat, position=pos, foot=foot, goals=g, appearances=apps, status=status)
    if mv is not None:
        props["market_value"] = mv
    node("Player", k, **props)
    if club:
        edge("plays_for", "Player", k, "Club", club)
former = [("pl37", "cl1"), ("pl37", "cl4"), ("pl38", "cl2"), ("pl39", "cl3"), ("pl39", "cl5"),
          ("pl40", "cl4"), ("pl40", "cl7"), ("pl8", "cl6"), ("pl16", "cl7"), ("pl33", "cl2"), ("pl22", "cl3")]
for p, c in former:
    edge("formerlyPlayedFor", "Player", p, "Club", c)
for p, c in [("pl1", "cl1"), ("pl7", "cl2"), ("pl12", "cl3"), ("pl17", "cl4"), ("pl21", "cl5"),
             ("pl25", "cl6"), ("pl29", "cl7"), ("pl33", "cl8")]:
    edge("CAPTAIN_OF", "Player", p, "Club", c)
for p, c in [("pl5", "ci1"), ("pl7", "ci2"), ("pl9", "ci4"), ("pl14", "ci3"), ("pl22", "ci1"),
             ("pl24", "ci5"), ("pl26", "ci5"), ("pl30", "ci6"), ("pl35", "ci2"), ("pl38", "ci2")]:
    edge("born_in", "Player", p, "City", c)

# ---------------- referees
for k, n, nat, exp in [("rf1", "Johan Strand", "Valdora", 15), ("rf2", "Miguel Serra", "Portugal", 9),
                       ("rf3", "Petra Lind", "Valdora", 12)]:
    node("Referee", k, name=n, nationality=nat, experience_years=exp)

# ---------------- seasons
for k, n, y in [("se1", "2021-22", 2021), ("se2", "2022-23", 2022), ("se3", "2023-24", 2023)]:
    node("Season", k, name=n, start_year=y, teams=8)

# ---------------- trophies (key, name, competition, prize_money, winner, season)
trophies = [
    ("tr1", "League Championship 2021-22", "league", 20.0, "cl1", "se1"),
    ("tr2", "Valdoran Cup 2022", "cup", 5.0, "cl4", "se1"),
    ("tr3", "League Championship 2022-23", "league", 20.0, "cl4", "se2"),
    ("tr4", "Valdoran Cup 2023", "cup", 5.0, "cl3", "se2"),
    ("tr5", "League Championship 2023-24", "league", 22.0, "cl1", "se3"),
    ("tr6", "Valdoran Cup 2024", "cup", 5.5, "cl5", "se3"),
    ("tr7", "Super Shield 2023", "super cup", 1.5, "cl4", "se3"),
]
for k, n, comp, prize, winner, season in trophies:
    node("Trophy", k, name=n, competition=comp, prize_money=prize)
    edge("WON", "Club", winner, "Trophy", k)
    edge("awarded_in", "Trophy", k, "Season", season)

# ---------------- matches (key, home, away, date, hg, ag, attendance, stadium, season, referee, scorers)
clubname = {c[0]: c[1] for c in clubs}
matches = [
    ("m1", "cl1", "cl2", "2023-08-19", 2, 1, 48210, "st1", "se3", "rf1", ["pl1", "pl5", "pl8"]),
    ("m2", "cl4", "cl5", "2023-08-20", 1, 1, 39800, "st4", "se3", "rf2", ["pl16", "pl22"]),
    ("m3", "cl3", "cl6", "2023-08-26", 3, 0, 21450, "st3", "se3", "rf3", ["pl11", "pl15", "pl13"]),
    ("m4", "cl8", "cl7", "2023-08-27", 2, 2, 18300, "st2", "se3", "rf1", ["pl33", "pl34", "pl29", "pl31"]),
    ("m5", "cl5", "cl1", "2023-09-02", 0, 2, 30500, "st5", "se3", "rf2", ["pl1", "pl2"]),
    ("m6", "cl2", "cl4", "2023-09-03", 1, 3, 37950, "st2", "se3", "rf3", ["pl6", "pl16", "pl18", "pl17"]),
    ("m7", "cl6", "cl8", "2023-09-09", 0, 0, 11200, "st6", "se3", "rf1", []),
    ("m8", "cl7", "cl3", "2023-09-10", 1, 2, 8900, "st7", "se3", "rf2", ["pl29", "pl11", "pl15"]),
    ("m9", "cl1", "cl4", "2023-05-14", 2, 2, 51800, "st1", "se2", "rf1", ["pl1", "pl2", "pl16", "pl18"]),
    ("m10", "cl2", "cl8", "2023-04-02", 1, 0, 38500, "st2", "se2", "rf3", ["pl8"]),
    ("m11", "cl4", "cl1", "2022-03-12", 0, 1, 40100, "st4", "se1", "rf2", ["pl1"]),
    ("m12", "cl5", "cl3", "2022-04-09", 2, 0, 27600, "st5", "se1", "rf3", ["pl22", "pl21"]),
]
for k, h, a, d, hg, ag, att, st, se, rf, scorers in matches:
    node("Match", k, name=f"{clubname[h]} vs {clubname[a]} ({d})", date=d, home_goals=hg, away_goals=ag, attendance=att)
    edge("home_team", "Match", k, "Club", h)
    edge("away_team", "Match", k, "Club", a)
    edge("PLAYED_AT", "Match", k, "Stadium", st)
    edge("inSeason", "Match", k, "Season", se)
    edge("refereed_by", "Match", k, "Referee", rf)
    for p in scorers:
        edge("scored_in", "Player", p, "Match", k)

with open("graph.jsonl", "w") as f:
    for o in nodes + edges:
        f.write(json.dumps(o, ensure_ascii=False) + "\n")
print(f"{len(nodes)} nodes, {len(edges)} edges")
