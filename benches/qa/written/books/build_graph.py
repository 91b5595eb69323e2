#!/usr/bin/env python3
"""Hand-written fictional literary world -> Cairn JSON Lines dump (graph.jsonl)."""
import json, os

nodes, edges = [], []

def node(label, key, **props):
    nodes.append({"type": "node", "label": label, "key": key, "props": props})

LABEL = {}
def edge(rel, a, b):
    edges.append({"type": "edge", "rel": rel,
                  "from": {"label": LABEL[a], "key": a}, "to": {"label": LABEL[b], "key": b}})

# ---------------- cities
cities = [
    ("ci1", "Turin", "Italy", 848000), ("ci2", "Lyon", "France", 522000),
    ("ci3", "Bergen", "Norway", 286000), ("ci4", "Krakow", "Poland", 780000),
    ("ci5", "Porto", "Portugal", 232000), ("ci6", "Dublin", "Ireland", 592000),
    ("ci7", "Rosario", "Argentina", 1276000), ("ci8", "Edinburgh", "United Kingdom", 526000),
    ("ci9", "Uppsala", "Sweden", 177000),
]
for k, n, c, p in cities:
    node("City", k, name=n, country=c, population=p); LABEL[k] = "City"

# ---------------- authors: key, name, born, nationality, birthplace, died
authors = [
    ("au1", "Odile Marchetti", 1951, "Italy", "ci1", None),
    ("au2", "Lucien Fabre-Morel", 1963, "France", "ci2", None),
    ("au3", "Ingrid Halvorsen", 1972, "Norway", "ci3", None),
    ("au4", "Marta Lindqvist", 1980, "Sweden", "ci9", None),
    ("au5", "Marta Lindquist", 1958, "Norway", "ci3", None),
    ("au6", "Tomasz Wierzba", 1945, "Poland", "ci4", 2011),
    ("au7", "Beatriz Caldeira", 1969, "Portugal", "ci5", None),
    ("au8", "Declan Furlong", 1977, "Ireland", "ci6", None),
    ("au9", "Ramiro Achával", 1938, "Argentina", "ci7", 2002),
    ("au10", "Fiona McAskill", 1985, "United Kingdom", "ci8", None),
    ("au11", "Giacomo Ferrante", 1990, "Italy", "ci1", None),
    ("au12", "Séverine Aubry", 1966, "France", "ci2", None),
    ("au13", "Kenji Arakawa", 1974, "Japan", None, None),
    ("au14", "Adaeze Okafor", 1983, "Nigeria", None, None),
    ("au15", "Nuala Breen", None, "Ireland", "ci6", None),      # missing birth year
    ("au16", "Piotr Zalewski", 1961, "Poland", "ci4", None),
    ("au17", "Elena Sartori", 1972, "Italy", "ci1", None),       # ties Halvorsen on born
    ("au18", "Hugo Vennström", 1949, "Sweden", "ci9", None),
    ("au19", "Clara Ibáñez", 1992, "Argentina", "ci7", None),
    ("au20", "Alasdair Crane", 1955, "United Kingdom", "ci8", None),
]
for k, n, b, nat, city, died in authors:
    p = {"name": n, "nationality": nat}
    if b is not None: p["born"] = b
    if died is not None: p["died"] = died
    node("Author", k, **p); LABEL[k] = "Author"

# ---------------- publishers
publishers = [
    ("pb1", "Lanterna Editore", 1921, "independent", "ci1"),
    ("pb2", "Maison Vérane", 1898, "group", "ci2"),
    ("pb3", "Fjordlys Forlag", 1976, "independent", "ci3"),
    ("pb4", "Harrow & Finch", 1932, "group", "ci8"),
    ("pb5", "Wydawnictwo Sowa", 1990, "independent", "ci4"),
    ("pb6", "Casa do Farol", 2004, "independent", "ci5"),
    ("pb7", "Liffey Press", 1959, "group", "ci6"),
]
for k, n, f, o, c in publishers:
    node("Publisher", k, name=n, founded=f, ownership=o); LABEL[k] = "Publisher"

# ---------------- series
series = [
    ("se1", "The Salt Archive", 3, "completed"),
    ("se2", "Harbour Lights Mysteries", 6, "ongoing"),
    ("se3", "The Glass Provinces", 3, "completed"),
    ("se4", "Inspector Ruane", 5, "ongoing"),
    ("se5", "Northern Verse Library", 10, "ongoing"),
]
for k, n, v, s in series:
    node("Series", k, name=n, planned_volumes=v, status=s); LABEL[k] = "Series"

# ---------------- prizes
prizes = [
    ("pz1", "Premio Lanterna d'Oro", 1962, 25000.0, "fiction", "ci1"),
    ("pz2", "Prix Vérane", 1985, 15000.0, "fiction", "ci2"),
    ("pz3", "Halvard Poetry Medal", 1971, 8000.0, "poetry", "ci3"),
    ("pz4", "Golden Quill Crime Award", 1999, 12000.0, "crime", "ci8"),
    ("pz5", "Liffey First Novel Prize", 2008, 10000.0, "debut", "ci6"),
]
for k, n, e, m, cat, c in prizes:
    node("Prize", k, name=n, established=e, prize_money=m, category=cat); LABEL[k] = "Prize"

# ---------------- translators
translators = [
    ("tr1", "Sophie Lalande", 1970, "Italian, French", "ci2"),
    ("tr2", "Mark Oduya", 1981, "Portuguese, English", "ci6"),
    ("tr3", "Kari Nystad", 1965, "Swedish, Norwegian, English", "ci3"),
    ("tr4", "Agnieszka Ros", 1977, "Polish, English", "ci4"),
    ("tr5", "Hannah Price", 1988, "Italian, Spanish, English", "ci8"),
    ("tr6", "Luca Benedetti", 1959, "French, English, Italian", "ci1"),
]
for k, n, b, l, c in translators:
    node("Translator", k, name=n, born=b, languages=l); LABEL[k] = "Translator"

# ---------------- books
# key, title, authors, year, pages, genre, format, language, status, copies_sold, price, rating,
# publisher, series, translators, prizes
B = [
    ("bk1", "The Salt Archive", ["au1"], 1987, 412, "historical", "hardcover", "Italian", "out of print", 180000, 24.5, 4.3, "pb1", "se1", ["tr1", "tr6"], ["pz1"]),
    ("bk2", "Salt and Ledger", ["au1"], 1990, 388, "historical", "paperback", "Italian", "in print", 95000, 14.5, 4.1, "pb1", "se1", ["tr6"], []),
    ("bk3", "The Last Salt Road", ["au1"], 1994, 455, "historical", "hardcover", "Italian", "in print", 120000, 26.0, 4.5, "pb1", "se1", ["tr1"], ["pz1"]),
    ("bk4", "Quiet Rooms in Lyon", ["au2"], 1995, 240, "literary", "paperback", "French", "in print", 60000, 12.9, 3.9, "pb2", None, ["tr6"], ["pz2"]),
    ("bk5", "Le Dernier Quai", ["au2"], 2003, 310, "mystery", "hardcover", "French", "in print", 88000, 22.0, 4.0, "pb2", "se2", [], []),
    ("bk6", "Fog over Fourvière", ["au2"], 2006, 298, "mystery", "paperback", "French", "in print", 72000, 11.5, 3.8, "pb2", "se2", [], []),
    ("bk7", "Herring Light", ["au3"], 1999, 96, "poetry", "paperback", "Norwegian", "in print", 9000, 9.9, 4.7, "pb3", "se5", ["tr3"], ["pz3"]),
    ("bk8", "Tide Tables", ["au3"], 2005, 112, "poetry", "hardcover", "Norwegian", "out of print", 6500, 18.0, 4.4, "pb3", "se5", [], []),
    ("bk9", "The Ferryman's Daughter", ["au3"], 2012, 356, "literary", "hardcover", "Norwegian", "in print", 140000, 27.5, 4.2, "pb3", None, ["tr3"], []),
    ("bk10", "Winter Inventory", ["au4"], 2016, 280, "literary", "paperback", "Swedish", "in print", 54000, 15.0, 4.0, "pb3", None, ["tr3"], []),
    ("bk11", "The Cartographer's Silence", ["au5"], 1989, 334, "literary", "hardcover", "Norwegian", "out of print", 41000, 21.0, 4.6, "pb3", None, [], []),
    ("bk12", "Ash Psalms", ["au5"], 1984, 88, "poetry", "paperback", "Norwegian", "out of print", 4200, 8.5, 4.5, "pb3", "se5", [], ["pz3"]),
    ("bk13", "Province of Mirrors", ["au6"], 1979, 502, "fantasy", "hardcover", "Polish", "out of print", 230000, 29.0, 4.7, "pb4", "se3", ["tr4"], []),
    ("bk14", "Province of Smoke", ["au6"], 1983, 478, "fantasy", "hardcover", "Polish", "out of print", 190000, 28.0, 4.4, "pb5", "se3", ["tr4"], []),
    ("bk15", "Province of Ash", ["au6"], 1988, 530, "fantasy", "paperback", "Polish", "in print", 210000, 16.0, 4.3, "pb5", "se3", ["tr4"], []),
    ("bk16", "Atlantic Ledger", ["au7"], 2001, 264, "literary", "paperback", "Portuguese", "in print", 47000, 13.0, 4.1, "pb6", None, ["tr2"], []),
    ("bk17", "A Casa das Gaivotas", ["au7"], 2010, 198, "literary", "hardcover", "Portuguese", "in print", 39000, 19.5, 3.7, "pb6", None, ["tr2"], []),
    ("bk18", "Salt on the Douro", ["au7"], 2018, 221, "mystery", "paperback", "Portuguese", "in print", 33000, 12.0, 3.6, "pb6", "se2", [], []),
    ("bk19", "Grey Quay", ["au8"], 2008, 302, "mystery", "paperback", "English", "in print", 150000, 10.99, 4.0, "pb7", "se4", [], ["pz4"]),
    ("bk20", "The Drowned Assizes", ["au8"], 2011, 344, "mystery", "hardcover", "English", "in print", 175000, 21.99, 4.2, "pb7", "se4", [], []),
    ("bk21", "Ruane Goes North", ["au8"], 2015, 320, "mystery", "paperback", "English", "in print", 98000, 10.99, 3.9, "pb7", "se4", [], []),
    ("bk22", "Low Water", ["au8"], 2007, 280, "literary", "paperback", "English", "out of print", 12000, 9.99, 3.5, "pb7", None, [], ["pz5"]),
    ("bk23", "Kettle Black", ["au10"], 2019, 352, "mystery", "hardcover", "English", "in print", 61000, 18.99, 4.1, "pb4", None, [], ["pz4"]),
    ("bk24", "Thistle and Bone", ["au10"], 2022, 296, "mystery", "paperback", "English", "in print", None, 9.99, 4.3, "pb4", None, [], []),  # copies_sold missing
    ("bk25", "Il Giardino Capovolto", ["au11"], 2020, 176, "literary", "paperback", "Italian", "in print", 22000, 14.0, 3.8, "pb1", None, ["tr5"], ["pz1"]),
    ("bk26", "Notti di Vetro", ["au11"], 2023, 154, "poetry", "paperback", "Italian", "in print", 5000, 11.0, 4.0, "pb1", None, [], []),
    ("bk27", "Pampa Nocturna", ["au9"], 1968, 288, "literary", "hardcover", "Spanish", "out of print", 310000, 23.0, 4.6, "pb4", None, ["tr5"], []),
    ("bk28", "El Río Quieto", ["au9"], 1975, 204, "literary", "paperback", "Spanish", "out of print", 140000, 12.0, 4.2, "pb4", None, ["tr5"], []),
    ("bk29", "Lighthouse Grammar", ["au12"], 1998, 132, "poetry", "paperback", "French", "in print", 14000, 10.0, 4.1, "pb2", None, ["tr1"], ["pz2"]),
    ("bk30", "The Paper Orchard", ["au13"], 2009, 368, "science fiction", "hardcover", "Japanese", "in print", 205000, 25.0, 4.4, "pb4", None, [], []),
    ("bk31", "Orbit of Lanterns", ["au13"], 2014, 410, "science fiction", "paperback", "Japanese", "in print", 130000, 13.5, 4.0, "pb4", None, [], []),
    ("bk32", "The Weaver of Onitsha", ["au14"], 2017, 336, "literary", "hardcover", "English", "in print", 88000, 22.5, 4.5, "pb7", None, [], ["pz5"]),
    ("bk33", "Brine", ["au15"], 2013, 72, "poetry", "paperback", "English", "in print", 3000, 8.0, 4.2, "pb7", None, [], []),
    ("bk34", "Copper Hymns", ["au16"], 1993, 144, "poetry", "hardcover", "Polish", "out of print", 7000, 15.0, 3.9, "pb5", None, ["tr4"], []),
    ("bk35", "The Inspector's Widow", ["au17"], 2004, 318, "mystery", "paperback", "Italian", "in print", 66000, 11.0, 3.7, "pb1", None, ["tr5"], []),
    ("bk36", "Cloudberry Summer", ["au18"], 1978, 260, "literary", "hardcover", "Swedish", "out of print", 52000, 20.0, 4.0, "pb3", None, ["tr3"], []),
    ("bk37", "Bajo la Lluvia de Rosario", ["au19"], 2021, 230, "literary", "paperback", "Spanish", "in print", 18000, 13.0, 4.0, "pb6", None, ["tr5"], ["pz5"]),
    ("bk38", "The Lowland Clock", ["au20"], 1986, 392, "historical", "hardcover", "English", "out of print", 99000, 19.0, 4.1, "pb4", None, [], []),
    ("bk39", "Glasswork", ["au20", "au10"], 2021, 248, "mystery", "hardcover", "English", "in print", 45000, 20.0, 3.9, "pb4", None, [], []),
]
for (k, t, aus, y, pg, g, fmt, lang, st, cs, pr, rt, pub, ser, trs, pzs) in B:
    p = {"name": t, "year": y, "pages": pg, "genre": g, "format": fmt, "language": lang,
         "status": st, "price": pr, "rating": rt}
    if cs is not None: p["copies_sold"] = cs
    node("Book", k, **p); LABEL[k] = "Book"

# ---------------- libraries
libraries = [
    ("lb1", "Turin Central Library", 1898, "central", 60, "ci1"),
    ("lb2", "Dublin Quays Branch", 1972, "branch", 44, "ci6"),
    ("lb3", "Bergen Harbour Branch", 1985, "branch", 38, "ci3"),
    ("lb4", "Edinburgh Old Town Library", 1905, "central", 60, "ci8"),
    ("lb5", "Krakow Kazimierz Branch", 2001, "branch", 32, "ci4"),
]
for k, n, o, kind, h, c in libraries:
    node("Library", k, name=n, opened=o, kind=kind, weekly_hours=h); LABEL[k] = "Library"

holdings = {
    "lb1": ["bk1", "bk2", "bk3", "bk25", "bk26", "bk35", "bk13", "bk27", "bk4"],
    "lb2": ["bk19", "bk20", "bk21", "bk22", "bk32", "bk33", "bk9", "bk30"],
    "lb3": ["bk7", "bk8", "bk9", "bk10", "bk11", "bk12", "bk36"],
    "lb4": ["bk23", "bk24", "bk38", "bk39", "bk30", "bk31", "bk27", "bk28"],
    "lb5": ["bk13", "bk14", "bk15", "bk34", "bk16"],
}

# ---------------- members
members = [
    ("mb1", "Ivo Santini", 2015, "adult", "lb1"),
    ("mb2", "Orla Keane", 2020, "student", "lb2"),
    ("mb3", "Sigrid Moe", 2012, "senior", "lb3"),
    ("mb4", "Callum Reid", 2019, "adult", "lb4"),
    ("mb5", "Zofia Nowak", 2021, "student", "lb5"),
    ("mb6", "Aoife Daly", 2009, "senior", "lb2"),
]
for k, n, j, m, lb in members:
    node("Member", k, name=n, joined=j, membership=m); LABEL[k] = "Member"

# ---------------- loans: key, number, member, book, branch, date, days, status
loans = [
    ("lo1", "Loan 1001", "mb1", "bk3", "lb1", "2024-01-10", 21, "returned"),
    ("lo2", "Loan 1002", "mb2", "bk19", "lb2", "2024-02-03", 14, "returned"),
    ("lo3", "Loan 1003", "mb2", "bk32", "lb2", "2024-03-15", 28, "overdue"),
    ("lo4", "Loan 1004", "mb3", "bk12", "lb3", "2024-01-22", 14, "returned"),
    ("lo5", "Loan 1005", "mb4", "bk23", "lb4", "2024-04-01", 21, "overdue"),
    ("lo6", "Loan 1006", "mb4", "bk30", "lb4", "2024-04-18", 14, "returned"),
    ("lo7", "Loan 1007", "mb5", "bk14", "lb5", "2024-05-02", 35, "overdue"),
    ("lo8", "Loan 1008", "mb6", "bk20", "lb2", "2024-02-20", 21, "returned"),
    ("lo9", "Loan 1009", "mb1", "bk13", "lb1", "2024-03-05", 14, "returned"),
]
for k, n, mb, bk, lb, d, days, st in loans:
    node("Loan", k, name=n, loan_date=d, days=days, status=st); LABEL[k] = "Loan"

influences = [("au11", "au1"), ("au17", "au1"), ("au19", "au9"), ("au10", "au20"),
              ("au8", "au20"), ("au4", "au18"), ("au3", "au5")]

# ---------------- edges
for k, n, b, nat, city, died in authors:
    if city: edge("born_in", k, city)
for k, n, f, o, c in publishers:
    edge("BASED_IN", k, c)
for k, n, e, m, cat, c in prizes:
    edge("PRESENTED_IN", k, c)
for k, n, b, l, c in translators:
    edge("livesIn", k, c)
for (k, t, aus, y, pg, g, fmt, lang, st, cs, pr, rt, pub, ser, trs, pzs) in B:
    for a in aus: edge("wrote", a, k)
    edge("PUBLISHED_BY", k, pub)
    if ser: edge("part_of", k, ser)
    for tr in trs: edge("translatedBy", k, tr)
    for pz in pzs: edge("WON", k, pz)
for k, n, o, kind, h, c in libraries:
    edge("located_in", k, c)
for lb, bks in holdings.items():
    for bk in bks: edge("holds", lb, bk)
for k, n, j, m, lb in members:
    edge("member_of", k, lb)
for k, n, mb, bk, lb, d, days, st in loans:
    edge("loanedBook", k, bk); edge("borrowedBy", k, mb); edge("fromBranch", k, lb)
for a, b in influences:
    edge("influencedBy", a, b)

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "graph.jsonl")
with open(out, "w", encoding="utf-8") as f:
    for r in nodes + edges:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(f"{len(nodes)} nodes, {len(edges)} edges -> {out}")
