#!/usr/bin/env python3
"""Hand-written fictional airline world -> Cairn JSON Lines dump (graph.jsonl).
The script only formats the data below."""
import json

nodes, edges = [], []

def node(label, key, **props):
    nodes.append({"type": "node", "label": label, "key": key, "props": props})

def edge(rel, fl, fk, tl, tk):
    edges.append({"type": "edge", "rel": rel,
                  "from": {"label": fl, "key": fk}, "to": {"label": tl, "key": tk}})

# ---------------- Countries ----------------
countries = [
    ("c1", "Spain", "Europe", 47), ("c2", "Portugal", "Europe", 10),
    ("c3", "Norway", "Europe", 5), ("c4", "Germany", "Europe", 84),
    ("c5", "Brazil", "South America", 203), ("c6", "Japan", "Asia", 124),
    ("c7", "Kenya", "Africa", 54), ("c8", "Canada", "North America", 40),
    ("c9", "Australia", "Oceania", 26), ("c10", "Chile", "South America", 19),
    ("c11", "France", "Europe", 68),
]
for k, n, cont, pop in countries:
    node("Country", k, name=n, continent=cont, population_millions=pop)

# ---------------- Cities ----------------
cities = [
    ("ci1", "Almarena", 2100000, "c1"), ("ci2", "Valdoria", 780000, "c1"),
    ("ci3", "Porto Lume", 540000, "c2"), ("ci4", "Fjellby", 61000, "c3"),
    ("ci5", "Ostvik", 690000, "c3"), ("ci6", "Brandhafen", 1450000, "c4"),
    ("ci7", "Kellstadt", 320000, "c4"), ("ci8", "Serra Alta", 3900000, "c5"),
    ("ci9", "Rio Claro Norte", 1200000, "c5"), ("ci10", "Hanamura", 5600000, "c6"),
    ("ci11", "Kisemu", 900000, "c7"), ("ci12", "Lakeport", 2700000, "c8"),
    ("ci13", "Granite Falls", 48000, "c8"), ("ci14", "Coralbay", 1100000, "c9"),
    ("ci15", "Santa Veda", 1650000, "c10"), ("ci16", "Marivelle", 860000, "c11"),
    ("ci17", "Puerto Almendro", 95000, "c1"),
]
for k, n, pop, c in cities:
    node("City", k, name=n, population=pop)
    edge("in_country", "City", k, "Country", c)

# ---------------- Airports ----------------
# key, name, iata, elevation_m (None = missing), passengers_per_year, runways, opened, serves city
airports = [
    ("ap1", "Almarena International", "ALM", 610, 41200000, 4, 1931, "ci1"),
    ("ap2", "Almarena Sur", "ALS", 588, 3900000, 1, 1998, "ci1"),
    ("ap3", "Valdoria Airport", "VDR", 62, 18500000, 2, 1952, "ci2"),
    ("ap4", "Porto Lume Airport", "PLU", 114, 27300000, 2, 1942, "ci3"),
    ("ap5", "Fjellby Airport", "FJB", 208, 5100000, 1, 1955, "ci4"),
    ("ap6", "Ostvik Lufthavn", "OSV", 204, 28900000, 2, 1939, "ci5"),
    ("ap7", "Brandhafen Central", "BRH", 34, 22000000, 2, 1960, "ci6"),
    ("ap8", "Kellstadt", "KLS", 111, 47800000, 3, 1972, "ci6"),   # named after another city!
    ("ap9", "Serra Alta International", "SRA", 760, 38400000, 2, 1985, "ci8"),
    ("ap10", "Rio Claro Norte Airport", "RCN", 9, 12600000, 1, 1936, "ci9"),
    ("ap11", "Hanamura Kuko", "HNM", 6, 44100000, 4, 1978, "ci10"),
    ("ap12", "Kisemu International", "KSM", None, 7300000, 1, 1958, "ci11"),
    ("ap13", "Lakeport International", "LKP", 173, 49600000, 4, 1939, "ci12"),
    ("ap14", "Granite Falls Regional", "GRF", 1084, 1200000, 1, 1968, "ci13"),
    ("ap15", "Coralbay Airport", "CRB", 6, 19900000, 2, 1947, "ci14"),
    ("ap16", "Santa Veda International", "SVD", 474, 16800000, 2, 1967, "ci15"),
    ("ap17", "Marivelle Airport", "MRV", 165, 9800000, 2, 1964, "ci16"),
]
for k, n, iata, elev, pax, rw, opened, city in airports:
    p = dict(name=n, iata=iata, passengers_per_year=pax, runways=rw, opened=opened)
    if elev is not None:
        p["elevation_m"] = elev
    node("Airport", k, **p)
    edge("serves", "Airport", k, "City", city)

# ---------------- Alliances ----------------
for k, n, f in [("all1", "SkyCircle", 1997), ("all2", "Meridian Alliance", 1999),
                ("all3", "OpenWing", 2010)]:
    node("Alliance", k, name=n, founded=f)

# ---------------- Manufacturers ----------------
for k, n, f, emp, c in [("m1", "Aerovance", 1970, 134000, "c11"),
                        ("m2", "Halberd Aircraft", 1944, 88000, "c8"),
                        ("m3", "Kaito Aerospace", 1956, 41000, "c6"),
                        ("m4", "Embrava", 1969, 19000, "c5")]:
    node("Manufacturer", k, name=n, founded=f, employees=emp)
    edge("locatedIn", "Manufacturer", k, "Country", c)

# ---------------- Aircraft models ----------------
models = [
    ("am1", "AV-320", 180, 6300, 1987, 2, "narrow-body", "m1"),
    ("am2", "AV-350", 325, 15000, 2013, 2, "wide-body", "m1"),
    ("am3", "AV-380X", 520, 14800, 2005, 4, "wide-body", "m1"),
    ("am4", "Halberd 640", 180, 5600, 1967, 2, "narrow-body", "m2"),
    ("am5", "Halberd 880 Skyliner", 296, 14100, 2009, 2, "wide-body", "m2"),
    ("am6", "Kaito KJ-90", 92, 3400, 2015, 2, "narrow-body", "m3"),
    ("am7", "Embrava E-175", 88, 3700, 2002, 2, "narrow-body", "m4"),
    ("am8", "Embrava E-195", 124, 4200, 2004, 2, "narrow-body", "m4"),
    ("am9", "Halberd Dash 84", 78, 2000, 1998, 2, "turboprop", "m2"),
    ("am10", "Kaito KT-72", 70, 1500, 1988, 2, "turboprop", "m3"),
]
for k, n, seats, rng, ff, eng, body, m in models:
    node("AircraftModel", k, name=n, seats=seats, range_km=rng, first_flight=ff,
         engines=eng, body_type=body)
    edge("builtBy", "AircraftModel", k, "Manufacturer", m)

# ---------------- Airlines ----------------
# key, name, iata, country, founded(None=missing), fleet, type, status, hq city, hubs, alliance, fleet models
airlines = [
    ("al1", "Nordvik Air", "NV", "Norway", 1962, 84, "full-service", "active", "ci5", ["ap6"], "all1", ["am1", "am5", "am9"]),
    ("al2", "Nordvik Express", "NX", "Norway", 1998, 22, "regional", "active", "ci4", ["ap5"], "all3", ["am9", "am7"]),
    ("al3", "Iberiana", "IA", "Spain", 1946, 120, "full-service", "active", "ci1", ["ap1"], "all1", ["am1", "am2", "am8"]),
    ("al4", "Vuela Sol", "VS", "Spain", 2004, 48, "low-cost", "active", "ci2", ["ap3"], None, ["am1"]),
    ("al5", "Almajet", "AJ", "Spain", 1991, 15, "low-cost", "defunct", "ci17", ["ap2"], None, ["am4"]),
    ("al6", "Iberjet", "IJ", "Spain", 1988, 12, "charter", "defunct", "ci1", [], None, ["am4"]),
    ("al7", "Lusa Atlântica", "LA", "Portugal", 1965, 55, "full-service", "active", "ci3", ["ap4"], "all2", ["am1", "am5", "am7"]),
    ("al8", "Brandair", "BD", "Germany", 2001, 35, "low-cost", "defunct", "ci6", ["ap7"], None, ["am1"]),
    ("al9", "Kestrel Luftverkehr", "KT", "Germany", 1955, 140, "full-service", "active", "ci7", ["ap8", "ap7"], "all1", ["am1", "am2", "am3", "am5"]),
    ("al10", "Aurora Brasil", "AB", "Brazil", 1973, 95, "full-service", "active", "ci8", ["ap9", "ap10"], "all2", ["am1", "am5", "am8"]),
    ("al11", "Sabiá Low Fare", "SB", "Brazil", 2008, 40, "low-cost", "active", "ci9", ["ap10"], "all3", ["am8", "am7"]),
    ("al12", "Hanamura Airlines", "HA", "Japan", 1951, 150, "full-service", "active", "ci10", ["ap11"], "all2", ["am2", "am3", "am6", "am5"]),
    ("al13", "Savanna Air", "SV", "Kenya", None, 18, "regional", "active", "ci11", ["ap12"], "all3", ["am9", "am8"]),
    ("al14", "Maple Northern", "MN", "Canada", 1962, 70, "full-service", "active", "ci12", ["ap13"], "all1", ["am4", "am5", "am9"]),
    ("al15", "Coral Skies", "CS", "Australia", 1999, 30, "low-cost", "active", "ci14", ["ap15"], "all3", ["am1", "am5"]),
    ("al16", "Andes Pacífico", "AP", "Chile", 1929, 60, "full-service", "active", "ci15", ["ap16"], "all2", ["am1", "am2"]),
    ("al17", "Envol", "EV", "France", 1978, 28, "low-cost", "active", "ci16", ["ap17"], "all3", ["am1"]),
]
for k, n, iata, country, founded, fleet, typ, status, hq, hubs, alli, fl in airlines:
    p = dict(name=n, iata=iata, country=country, fleet_size=fleet, carrier_type=typ, status=status)
    if founded is not None:
        p["founded"] = founded
    node("Airline", k, **p)
    edge("HEADQUARTERED_IN", "Airline", k, "City", hq)
    for h in hubs:
        edge("HUB_AT", "Airline", k, "Airport", h)
    if alli:
        edge("member_of", "Airline", k, "Alliance", alli)
    for m in fl:
        edge("has_in_fleet", "Airline", k, "AircraftModel", m)

# ---------------- Routes ----------------
# key, code, distance_km, weekly_flights, status, operator, origin, destination, aircraft
routes = [
    ("r1", "NV101", 2950, 7, "scheduled", "al1", "ap6", "ap1", "am1"),
    ("r2", "NV210", 6100, 5, "scheduled", "al1", "ap6", "ap13", "am5"),
    ("r3", "NV33", 410, 21, "scheduled", "al1", "ap5", "ap6", "am9"),
    ("r4", "NX12", 410, 14, "scheduled", "al2", "ap5", "ap6", "am9"),
    ("r5", "IA600", 8200, 7, "scheduled", "al3", "ap1", "ap9", "am2"),
    ("r6", "IA310", 520, 28, "scheduled", "al3", "ap1", "ap4", "am8"),
    ("r7", "IA450", 1870, 14, "scheduled", "al3", "ap1", "ap7", "am1"),
    ("r8", "IA880", 10650, 4, "scheduled", "al3", "ap1", "ap16", "am2"),
    ("r9", "VS22", 1240, 10, "scheduled", "al4", "ap3", "ap17", "am1"),
    ("r10", "VS40", 560, 12, "seasonal", "al4", "ap2", "ap4", "am1"),
    ("r11", "LA90", 7400, 5, "scheduled", "al7", "ap4", "ap10", "am5"),
    ("r12", "LA15", 610, 14, "scheduled", "al7", "ap4", "ap3", "am7"),
    ("r13", "KT700", 9300, 7, "scheduled", "al9", "ap8", "ap11", "am3"),
    ("r14", "KT120", 1150, 21, "scheduled", "al9", "ap8", "ap6", "am1"),
    ("r15", "KT455", 6400, 6, "scheduled", "al9", "ap7", "ap13", "am2"),
    ("r16", "BD8", 1790, 7, "suspended", "al8", "ap7", "ap3", "am1"),
    ("r17", "AB300", 880, 35, "scheduled", "al10", "ap9", "ap10", "am8"),
    ("r18", "AB910", 8200, 5, "scheduled", "al10", "ap9", "ap1", "am5"),
    ("r19", "SB55", 880, 28, "scheduled", "al11", "ap10", "ap9", "am7"),
    ("r20", "HA1", 7100, 7, "scheduled", "al12", "ap11", "ap15", "am5"),
    ("r21", "HA77", 8900, 7, "scheduled", "al12", "ap11", "ap13", "am3"),
    ("r22", "MN18", 1320, 12, "scheduled", "al14", "ap13", "ap14", "am9"),
    ("r23", "CS9", 7100, 4, "seasonal", "al15", "ap15", "ap11", "am5"),
    ("r24", "AP500", 3050, 6, "scheduled", "al16", "ap16", "ap9", "am1"),
    ("r25", "EV7", 1050, 9, "scheduled", "al17", "ap17", "ap2", "am1"),
    ("r26", "MN400", 5600, 4, "scheduled", "al14", "ap13", "ap17", "am5"),
]
for k, code, dist, weekly, status, op, o, d, am in routes:
    node("Route", k, name=code, distance_km=dist, weekly_flights=weekly, status=status)
    edge("operates", "Airline", op, "Route", k)
    edge("departsFrom", "Route", k, "Airport", o)
    edge("arrivesAt", "Route", k, "Airport", d)
    edge("flownWith", "Route", k, "AircraftModel", am)

# ---------------- Pilots ----------------
pilots = [
    ("p1", "Ingrid Solberg", "captain", 14200, 1975, "al1", ["am1", "am5"]),
    ("p2", "Mateo Ferrer", "first officer", 3100, 1994, "al3", ["am1"]),
    ("p3", "Lucía Ortega", "captain", 11800, 1979, "al3", ["am2", "am1"]),
    ("p4", "Jonas Richter", "captain", 16500, 1970, "al9", ["am3", "am2"]),
    ("p5", "Ana Beatriz Lima", "captain", 9800, 1982, "al10", ["am5"]),
    ("p6", "Kenji Mori", "captain", 18900, 1968, "al12", ["am3"]),
    ("p7", "Wanjiru Kamau", "first officer", 4200, 1991, "al13", ["am9", "am10"]),
    ("p8", "Émile Durand", "first officer", 2600, 1996, "al17", ["am1"]),
    ("p9", "Tomás Rivas", "captain", 12100, 1977, "al16", ["am2"]),
    ("p10", "Hiro Tanaka", "first officer", 5400, 1989, "al12", ["am3", "am6"]),
]
for k, n, rank, hours, born, al, certs in pilots:
    node("Pilot", k, name=n, rank=rank, flight_hours=hours, born=born)
    edge("employedBy", "Pilot", k, "Airline", al)
    for c in certs:
        edge("CERTIFIED_ON", "Pilot", k, "AircraftModel", c)

with open("graph.jsonl", "w", encoding="utf-8") as f:
    for rec in nodes + edges:
        f.write(json.dumps(rec, ensure_ascii=False) + "\n")
print(f"{len(nodes)} nodes, {len(edges)} edges")
