#!/usr/bin/env python3
"""Deterministically build a fictional space-exploration graph as graph.jsonl."""
import json, os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "graph.jsonl")

# key, name, population
COUNTRIES = [
    ("k1", "Norvania", 5400000), ("k2", "Kestrava", 38000000),
    ("k3", "Aldoria", 61000000), ("k4", "Velmora", 12500000),
    ("k5", "Tarsund", 8200000), ("k6", "Brevnia", 22700000),
    ("k7", "Castellane", 47300000), ("k8", "Oskaria", 3100000),
]
# key, name, founded, budget (millions), kind, country
AGENCIES = [
    ("a1", "Norvanian Space Directorate", 1961, 1200, "government", "k1"),
    ("a2", "Kestravan Orbital Agency", 1958, 9800, "government", "k2"),
    ("a3", "Aldorian Space Institute", 1969, 6400, "government", "k3"),
    ("a4", "Velmoran Aerospace Command", 1975, 2100, "military", "k4"),
    ("a5", "Tarsund Space Office", 1988, 650, "government", "k5"),
    ("a6", "Brevnian Launch Authority", 1992, 1750, "government", "k6"),
    ("a7", "Castellane Space Agency", 1964, 4300, "government", "k7"),
    ("a8", "Halcyon Orbital", 2004, 900, "private", "k8"),
]
# key, name, type, diameter_km, orbits
BODIES = [
    ("b1", "Sun", "star", 1392700, None),
    ("b2", "Earth", "planet", 12742, "b1"),
    ("b3", "Moon", "moon", 3474, "b2"),
    ("b4", "Mars", "planet", 6779, "b1"),
    ("b5", "Phobos", "moon", 22, "b4"),
    ("b6", "Deimos", "moon", 12, "b4"),
    ("b7", "Venus", "planet", 12104, "b1"),
    ("b8", "Mercury", "planet", 4879, "b1"),
    ("b9", "Jupiter", "planet", 139820, "b1"),
    ("b10", "Europa", "moon", 3122, "b9"),
    ("b11", "Ganymede", "moon", 5268, "b9"),
    ("b12", "Io", "moon", 3643, "b9"),
    ("b13", "Saturn", "planet", 116460, "b1"),
    ("b14", "Titan", "moon", 5150, "b13"),
    ("b15", "Enceladus", "moon", 504, "b13"),
    ("b16", "Ceres", "dwarf planet", 939, "b1"),
]
# key, name, established, country
SITES = [
    ("s1", "Kallvik Launch Complex", 1963, "k1"),
    ("s2", "Drevna Cosmodrome", 1957, "k2"),
    ("s3", "Port Aldor Spaceport", 1970, "k3"),
    ("s4", "Velm Island Range", 1977, "k4"),
    ("s5", "Tarsund Polar Pad", 1990, "k5"),
    ("s6", "Brevik Coast Spaceport", 1994, "k6"),
    ("s7", "Castel Mesa Launch Site", 1966, "k7"),
    ("s8", "Sarnow Plateau Cosmodrome", 1961, "k2"),
]
# key, name, type, mass_kg, first_flight, status, built_by
SPACECRAFT = [
    ("c1", "Skylark", "crew capsule", 8200, 1998, "retired", "a1"),
    ("c2", "Vostra", "crew capsule", 9600, 1985, "retired", "a2"),
    ("c3", "Vostra-M", "crew capsule", 10400, 2009, "active", "a2"),
    ("c4", "Meridian", "crew capsule", 12800, 2012, "active", "a3"),
    ("c5", "Pathwright", "probe", 1450, 2003, "retired", "a3"),
    ("c6", "Harrier", "lander", 3900, 2016, "lost", "a4"),
    ("c7", "Ironfinch", "probe", 720, 1994, "retired", "a7"),
    ("c8", "Odalys", "crew capsule", 7300, 2006, "active", "a7"),
    ("c9", "Tern", "probe", 2600, 2014, "active", "a5"),
    ("c10", "Kingfisher", "crew capsule", 6100, 2019, "active", "a8"),
    ("c11", "Marten", "rover", 1050, 2021, "active", "a6"),
    ("c12", "Cassiopeia", "orbiter", 5400, 2013, "active", "a2"),
    ("c13", "Lodestar", "probe", 6300, 2018, "active", "a3"),
    ("c14", "Nightjar", "lander", 2200, 2008, "lost", "a2"),
    ("c15", "Wren", "cubesat", 180, 2020, "active", "a1"),
    ("c16", "Seraph", "spaceplane", 15200, 2023, "active", "a4"),
]
# key, name, birth_year, status, country
ASTRONAUTS = [
    ("n1", "Ingrid Halvorsen", 1958, "retired", "k1"),
    ("n2", "Erik Sandvold", 1971, "retired", "k1"),
    ("n3", "Liv Marstrand", 1984, "active", "k1"),
    ("n4", "Dmitri Volkan", 1949, "retired", "k2"),
    ("n5", "Anya Terekhova", 1962, "retired", "k2"),
    ("n6", "Pavel Orlenko", 1975, "active", "k2"),
    ("n7", "Yelena Brusova", 1988, "active", "k2"),
    ("n8", "Marcus Aldane", 1965, "retired", "k3"),
    ("n9", "Sofia Renwick", 1979, "active", "k3"),
    ("n10", "Tobias Crane", 1983, "active", "k3"),
    ("n11", "Hana Okafor-Lind", 1990, "active", "k3"),
    ("n12", "Luca Ferrant", 1968, "retired", "k7"),
    ("n13", "Isabel Moreau-Vance", 1977, "active", "k7"),
    ("n14", "Rafael Solano", 1986, "active", "k7"),
    ("n15", "Katya Velimir", 1973, "active", "k4"),
    ("n16", "Jonas Vell", 1981, "active", "k4"),
    ("n17", "Astrid Koll", 1985, "active", "k5"),
    ("n18", "Mirela Dravic", 1992, "active", "k6"),
    ("n19", "Stefan Brunov", 1970, "retired", "k6"),
    ("n20", "Nadia Osterby", 1994, "active", "k8"),
    ("n21", "Owen Patrell", 1989, "active", "k8"),
    ("n22", "Grigor Samoyan", 1955, "retired", "k2"),
    ("n23", "Claire Devereux", 1960, "retired", "k7"),
    ("n24", "Teodor Halm", 1976, "active", "k3"),
    ("n25", "Mira Solberg", 1987, "active", "k1"),
]
# key, name, launch_year, duration_days, cost (millions), crew_size, outcome,
# agency, spacecraft, site, target, commander, other crew
MISSIONS = [
    ("m1", "Aurora 1", 1987, 12, 340, "success", "a2", "c2", "s2", "b2", "n4", ["n22", "n5"]),
    ("m2", "Aurora 2", 1990, 21, 360, "success", "a2", "c2", "s2", "b3", "n22", ["n4", "n5"]),
    ("m3", "Aurora 3", 1995, 186, 520, "success", "a2", "c2", "s8", "b2", "n5", ["n4"]),
    ("m4", "Fjord 1", 1999, 9, 210, "success", "a1", "c1", "s1", "b2", "n1", ["n2"]),
    ("m5", "Fjord 2", 2003, 14, 240, "success", "a1", "c1", "s1", "b3", "n1", ["n2", "n12"]),
    ("m6", "Fjord 3", 2011, 120, 410, "success", "a1", "c1", "s1", "b2", "n2", ["n3"]),
    ("m7", "Tessera 1", 2007, 30, 880, "success", "a7", "c8", "s7", "b2", "n23", ["n12", "n13"]),
    ("m8", "Tessera 2", 2013, 165, 950, "success", "a7", "c8", "s7", "b3", "n12", ["n13", "n14"]),
    ("m9", "Tessera 3", 2019, 210, 1100, "success", "a7", "c8", "s7", "b2", "n13", ["n14"]),
    ("m10", "Zenith 1", 2012, 45, 1500, "success", "a3", "c4", "s3", "b3", "n8", ["n9", "n24", "n6"]),
    ("m11", "Zenith 2", 2016, 320, 2300, "success", "a3", "c4", "s3", "b3", "n9", ["n10", "n24", "n15"]),
    ("m12", "Zenith 3", 2021, 510, 3400, "success", "a3", "c4", "s3", "b4", "n9", ["n10", "n11", "n6"]),
    ("m13", "Aurora 4", 2010, 150, 700, "success", "a2", "c3", "s8", "b2", "n6", ["n7", "n19"]),
    ("m14", "Aurora 5", 2017, 240, 820, "success", "a2", "c3", "s8", "b3", "n7", ["n6", "n18"]),
    ("m15", "Kestrel Run", 2022, 8, 95, "success", "a8", "c10", "s6", "b2", "n21", ["n20"]),
    ("m16", "Halcyon Ascent", 2024, 16, 130, "success", "a8", "c10", "s6", "b3", "n20", ["n21", "n17"]),
    ("m17", "Velm Dawn", 2023, 30, 1900, "success", "a4", "c16", "s4", "b2", "n15", ["n16", "n17"]),
    ("m18", "Ember Reach", 2004, 690, 410, "success", "a3", "c5", "s3", "b4", None, []),
    ("m19", "Glasswing", 1996, 1200, 290, "success", "a7", "c7", "s7", "b7", None, []),
    ("m20", "Copperline", 1998, 2400, 330, "success", "a7", "c7", "s7", "b9", None, []),
    ("m21", "Silent Harbor", 2009, 3, 260, "failure", "a2", "c14", "s2", "b4", None, []),
    ("m22", "Frost Lantern", 2015, 1460, 380, "success", "a5", "c9", "s5", "b3", None, []),
    ("m23", "Dust Crown", 2017, 1, 540, "failure", "a4", "c6", "s4", "b4", None, []),
    ("m24", "Deep Tide", 2018, 2900, 1650, "ongoing", "a3", "c13", "s3", "b10", None, []),
    ("m25", "Ring Chaser", 2019, 1800, 1220, "ongoing", "a2", "c12", "s8", "b14", None, []),
    ("m26", "Pebble Hop", 2021, 400, 85, "success", "a6", "c11", "s6", "b3", None, []),
    ("m27", "Little Lamp", 2020, 700, 12, "success", "a1", "c15", "s1", "b7", None, []),
    ("m28", "Scarlet Gate", 2022, 900, 460, "ongoing", "a5", "c9", "s5", "b4", None, []),
    ("m29", "Hollow Bell", 2013, 1100, 720, "success", "a2", "c12", "s2", "b5", None, []),
    ("m30", "Ember Reach 2", 2024, 200, 980, "ongoing", "a3", "c13", "s3", "b4", None, []),
    ("m31", "Sunward", 2008, 1600, 610, "success", "a7", "c7", "s7", "b8", None, []),
    ("m32", "Ice Sentinel", 2011, 2200, 1380, "success", "a3", "c5", "s3", "b11", None, []),
]


def node(label, key, props):
    return {"type": "node", "label": label, "key": key, "props": props}


def edge(rel, fl, fk, tl, tk):
    return {"type": "edge", "rel": rel, "from": {"label": fl, "key": fk},
            "to": {"label": tl, "key": tk}}


def main():
    lines = []
    for k, n, pop in COUNTRIES:
        lines.append(node("Country", k, {"name": n, "population": pop}))
    for k, n, f, b, kind, c in AGENCIES:
        lines.append(node("Agency", k, {"name": n, "founded": f, "budget": b, "kind": kind}))
    for k, n, t, d, _ in BODIES:
        lines.append(node("Body", k, {"name": n, "type": t, "diameter_km": d}))
    for k, n, e, _ in SITES:
        lines.append(node("LaunchSite", k, {"name": n, "established": e}))
    for k, n, t, m, ff, st, _ in SPACECRAFT:
        lines.append(node("Spacecraft", k, {"name": n, "type": t, "mass_kg": m,
                                            "first_flight": ff, "status": st}))
    for k, n, by, st, _ in ASTRONAUTS:
        lines.append(node("Astronaut", k, {"name": n, "birth_year": by, "status": st}))
    for (k, n, y, d, cost, outcome, *_rest) in MISSIONS:
        cmdr, crew = _rest[-2], _rest[-1]
        size = (1 if cmdr else 0) + len(crew)
        lines.append(node("Mission", k, {"name": n, "launch_year": y, "duration_days": d,
                                         "cost": cost, "crew_size": size, "outcome": outcome}))
    # edges
    for k, *_x, c in AGENCIES:
        lines.append(edge("BASED_IN", "Agency", k, "Country", c))
    for k, *_x, o in BODIES:
        if o:
            lines.append(edge("ORBITS", "Body", k, "Body", o))
    for k, *_x, c in SITES:
        lines.append(edge("LOCATED_IN", "LaunchSite", k, "Country", c))
    for k, *_x, a in SPACECRAFT:
        lines.append(edge("BUILT_BY", "Spacecraft", k, "Agency", a))
    for k, *_x, c in ASTRONAUTS:
        lines.append(edge("CITIZEN_OF", "Astronaut", k, "Country", c))
    for (k, n, y, d, cost, outcome, ag, sc, site, tgt, cmdr, crew) in MISSIONS:
        lines.append(edge("OPERATED_BY", "Mission", k, "Agency", ag))
        lines.append(edge("USED", "Mission", k, "Spacecraft", sc))
        lines.append(edge("LAUNCHED_FROM", "Mission", k, "LaunchSite", site))
        lines.append(edge("TARGETED", "Mission", k, "Body", tgt))
        if cmdr:
            lines.append(edge("COMMANDED", "Astronaut", cmdr, "Mission", k))
            lines.append(edge("FLEW_ON", "Astronaut", cmdr, "Mission", k))
        for a in crew:
            lines.append(edge("FLEW_ON", "Astronaut", a, "Mission", k))
    with open(OUT, "w", encoding="utf-8") as f:
        for obj in lines:
            f.write(json.dumps(obj, ensure_ascii=False, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
