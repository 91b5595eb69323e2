#!/usr/bin/env python3
"""Deterministically build a fictional open-source-software graph as graph.jsonl."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

CITIES = [  # key, name, country, population
    ("ci1", "Oslo", "Norway", 700000),
    ("ci2", "Austin", "United States", 960000),
    ("ci3", "Amsterdam", "Netherlands", 880000),
    ("ci4", "Seattle", "United States", 750000),
    ("ci5", "Berlin", "Germany", 3700000),
    ("ci6", "Toronto", "Canada", 2800000),
    ("ci7", "Bangalore", "India", 8400000),
    ("ci8", "Boston", "United States", 650000),
    ("ci9", "San Francisco", "United States", 810000),
    ("ci10", "Gothenburg", "Sweden", 600000),
    ("ci11", "Osaka", "Japan", 2700000),
    ("ci12", "São Paulo", "Brazil", 12300000),
    ("ci13", "Kraków", "Poland", 780000),
    ("ci14", "Lisbon", "Portugal", 550000),
]

LANGUAGES = [  # key, name, year_created, typing
    ("l1", "Rust", 2010, "static"),
    ("l2", "Python", 1991, "dynamic"),
    ("l3", "Go", 2009, "static"),
    ("l4", "C++", 1985, "static"),
    ("l5", "TypeScript", 2012, "static"),
    ("l6", "JavaScript", 1995, "dynamic"),
    ("l7", "Java", 1995, "static"),
    ("l8", "Kotlin", 2011, "static"),
    ("l9", "C", 1972, "static"),
    ("l10", "Haskell", 1990, "static"),
]

LICENSES = [  # key, name, year_published, copyleft
    ("li1", "MIT", 1988, "no"),
    ("li2", "Apache-2.0", 2004, "no"),
    ("li3", "GPL-3.0", 2007, "yes"),
    ("li4", "BSD-3-Clause", 1999, "no"),
    ("li5", "MPL-2.0", 2012, "yes"),
    ("li6", "LGPL-2.1", 1999, "yes"),
    ("li7", "AGPL-3.0", 2007, "yes"),
]

ORGS = [  # key, name, kind, founded_year, employees, city
    ("o1", "Fjordline Software", "company", 2004, 420, "ci1"),
    ("o2", "Copperleaf Systems", "company", 1998, 5200, "ci2"),
    ("o3", "Bluefen Foundation", "foundation", 2009, 35, "ci3"),
    ("o4", "Stratus Nine", "company", 2012, 1800, "ci4"),
    ("o5", "Meridian Data", "company", 2007, 950, "ci5"),
    ("o6", "Palisade Cloud", "company", 2015, 2600, "ci6"),
    ("o7", "Obsidian Works", "company", 2001, 12000, "ci7"),
    ("o8", "Harborlight Foundation", "foundation", 1999, 60, "ci8"),
    ("o9", "Tessellate", "company", 2017, 310, "ci9"),
    ("o10", "Lindqvist Digital", "company", 1994, 780, "ci10"),
    ("o11", "Sakura Devworks", "company", 2010, 140, "ci11"),
    ("o12", "Pampas Tecnologia", "company", 2006, 650, "ci12"),
]

PROJECTS = [  # key, name, category, stars, first_release_year, lines_of_code, downloads
    ("p1", "Halyard", "HTTP server", 18400, 2016, 142000, 2300000),
    ("p2", "Quillmark", "Markdown parser", 6200, 2013, 38000, 5400000),
    ("p3", "Tidepool", "container orchestration", 27500, 2015, 610000, 890000),
    ("p4", "Brambledb", "embedded database", 12100, 2011, 455000, 1200000),
    ("p5", "Corvid", "async runtime", 21300, 2018, 98000, 7600000),
    ("p6", "Lanternfish", "log shipping agent", 4300, 2017, 67000, 310000),
    ("p7", "Sorrel", "UI component library", 9800, 2019, 54000, 3100000),
    ("p8", "Ferrox", "regular expression engine", 3100, 2020, 21000, 4200000),
    ("p9", "Pebblestone", "build tool", 7400, 2009, 230000, 950000),
    ("p10", "Gannet", "data pipeline framework", 5600, 2018, 88000, 640000),
    ("p11", "Thistle", "test runner", 11700, 2014, 47000, 8900000),
    ("p12", "Driftwood", "command-line toolkit", 2900, 2021, 15000, 410000),
    ("p13", "Saltmarsh", "machine learning library", 31200, 2016, 720000, 6100000),
    ("p14", "Kittiwake", "Android library", 1800, 2019, 26000, 150000),
    ("p15", "Mossbank", "compression library", 4700, 2008, 33000, 2700000),
    ("p16", "Ironbark", "HTTP server", 950, 2022, 139000, 42000),
    ("p17", "Larchwood", "message broker", 8300, 2012, 310000, 520000),
    ("p18", "Nettlefield", "JavaScript bundler", 14600, 2020, 76000, 5200000),
    ("p19", "Oriole", "web framework", 16900, 2012, 112000, 3800000),
    ("p20", "Ravensong", "game engine", 22800, 2014, 980000, 270000),
    ("p21", "Skerry", "DNS server", 3600, 2017, 41000, 120000),
    ("p22", "Tamarack", "object-relational mapper", 5100, 2010, 160000, 880000),
    ("p23", "Verdigris", "file search tool", 7900, 2021, 12000, 730000),
    ("p24", "Whinchat", "chat SDK", 2200, 2018, 29000, 190000),
    ("p25", "Yarrow", "plotting library", 10400, 2015, 83000, 2500000),
    ("p26", "Zephyrine", "real-time operating system", 6700, 2013, 270000, 60000),
    ("p27", "Cindervale", "container orchestration", 4100, 2020, 590000, 95000),
    ("p28", "Oriole-NG", "web framework", 1300, 2023, 115000, 38000),
    ("p29", "Glasswort", "parser combinator library", 1600, 2016, 9000, 85000),
    ("p30", "Heronsbill", "state management library", 12900, 2017, 18000, 4700000),
]

DEVELOPERS = [  # key, name, birth_year, handle, city, employer (or None)
    ("d1", "Ingrid Solberg", 1986, "isolberg", "ci1", "o1"),
    ("d2", "Marcus Whitfield", 1979, "mwhitfield", "ci2", "o2"),
    ("d3", "Priya Raman", 1991, "priyar", "ci7", "o7"),
    ("d4", "Tomasz Wierzbicki", 1988, "twierz", "ci13", "o4"),
    ("d5", "Lena Hoffmann", 1983, "lhoff", "ci5", "o5"),
    ("d6", "Kenji Arakawa", 1990, "karakawa", "ci11", "o11"),
    ("d7", "Amara Okafor", 1994, "amarao", "ci6", "o6"),
    ("d8", "Diego Carvalho", 1985, "dcarvalho", "ci12", "o12"),
    ("d9", "Sofia Lindqvist", 1977, "sofial", "ci10", "o10"),
    ("d10", "Noah Brennan", 1992, "nbrennan", "ci4", "o4"),
    ("d11", "Elif Demir", 1989, "elifd", "ci5", "o9"),
    ("d12", "Rafael Mendes", 1996, "rmendes", "ci14", None),
    ("d13", "Hannah Kowalczyk", 1981, "hkowal", "ci8", "o8"),
    ("d14", "Arjun Mehta", 1987, "arjunm", "ci7", "o7"),
    ("d15", "Chloe Dubois", 1993, "cdubois", "ci3", "o3"),
    ("d16", "Felix Brandt", 1984, "fbrandt", "ci5", "o5"),
    ("d17", "Yuki Tanabe", 1998, "ytanabe", "ci11", "o11"),
    ("d18", "Oliver Grant", 1975, "ogrant", "ci9", "o9"),
    ("d19", "Maya Castillo", 1990, "mcastillo", "ci2", "o2"),
    ("d20", "Jonas Eriksen", 1995, "jeriksen", "ci1", "o1"),
    ("d21", "Zainab Yusuf", 1992, "zyusuf", "ci6", "o6"),
    ("d22", "Lucas Moreau", 1980, "lmoreau", "ci3", "o3"),
    ("d23", "Ana Ferreira", 1997, "aferreira", "ci14", "o1"),
    ("d24", "Ethan Cole", 1988, "ecole", "ci4", "o4"),
    ("d25", "Mira Novak", 1991, "mnovak", "ci13", None),
    ("d26", "Samuel Osei", 1986, "sosei", "ci8", "o8"),
    ("d27", "Greta Holm", 1982, "gholm", "ci10", "o10"),
    ("d28", "Ravi Iyer", 1999, "raviiyer", "ci7", "o7"),
    ("d29", "Isabel Romero", 1987, "iromero", "ci12", "o12"),
    ("d30", "Theo Nakamura", 1993, "tnakamura", "ci9", "o9"),
]

RELEASES = [  # key, project, name, version, release_year
    ("r1", "p1", "Halyard 1.0", "1.0.0", 2017),
    ("r2", "p1", "Halyard 2.0", "2.0.0", 2020),
    ("r3", "p1", "Halyard 2.3", "2.3.1", 2023),
    ("r4", "p3", "Tidepool 3.1", "3.1.0", 2022),
    ("r5", "p3", "Tidepool 4.0", "4.0.0", 2024),
    ("r6", "p5", "Corvid 0.9", "0.9.0", 2019),
    ("r7", "p5", "Corvid 1.0", "1.0.0", 2021),
    ("r8", "p13", "Saltmarsh 5.2", "5.2.0", 2023),
    ("r9", "p13", "Saltmarsh 6.0", "6.0.0", 2024),
    ("r10", "p4", "Brambledb 7.4", "7.4.2", 2022),
    ("r11", "p19", "Oriole 4.0", "4.0.0", 2021),
    ("r12", "p19", "Oriole 4.2", "4.2.3", 2024),
    ("r13", "p11", "Thistle 29.0", "29.0.0", 2023),
    ("r14", "p18", "Nettlefield 2.0", "2.0.0", 2023),
    ("r15", "p20", "Ravensong 11.0", "11.0.0", 2022),
    ("r16", "p15", "Mossbank 1.3", "1.3.0", 2021),
    ("r17", "p25", "Yarrow 3.8", "3.8.1", 2024),
    ("r18", "p8", "Ferrox 1.10", "1.10.0", 2023),
    ("r19", "p9", "Pebblestone 8.0", "8.0.0", 2022),
    ("r20", "p30", "Heronsbill 5.0", "5.0.0", 2024),
]

WRITTEN_IN = {
    "p1": ["l1"], "p2": ["l2"], "p3": ["l3"], "p4": ["l4", "l9"], "p5": ["l1"],
    "p6": ["l3"], "p7": ["l5", "l6"], "p8": ["l1"], "p9": ["l7", "l8"], "p10": ["l2"],
    "p11": ["l6"], "p12": ["l3"], "p13": ["l2", "l4"], "p14": ["l8"], "p15": ["l9"],
    "p16": ["l1"], "p17": ["l7"], "p18": ["l5", "l1"], "p19": ["l2"], "p20": ["l4"],
    "p21": ["l3"], "p22": ["l7"], "p23": ["l1"], "p24": ["l6", "l5"], "p25": ["l2"],
    "p26": ["l9"], "p27": ["l3"], "p28": ["l2"], "p29": ["l10"], "p30": ["l5"],
}

LICENSED_UNDER = {
    "p1": ["li1", "li2"], "p2": ["li4"], "p3": ["li2"], "p4": ["li5"], "p5": ["li1"],
    "p6": ["li2"], "p7": ["li1"], "p8": ["li1", "li2"], "p9": ["li2"], "p10": ["li3"],
    "p11": ["li1"], "p12": ["li1"], "p13": ["li4"], "p14": ["li2"], "p15": ["li6"],
    "p16": ["li7"], "p17": ["li2"], "p18": ["li1"], "p19": ["li4"], "p20": ["li3"],
    "p21": ["li5"], "p22": ["li6"], "p23": ["li3"], "p24": ["li1"], "p25": ["li4"],
    "p26": ["li2"], "p27": ["li2"], "p28": ["li7"], "p29": ["li4"], "p30": ["li1"],
}

DEPENDS_ON = {
    "p1": ["p5", "p8"], "p16": ["p5", "p8"], "p23": ["p8"], "p18": ["p8"],
    "p7": ["p30", "p11"], "p24": ["p30"], "p10": ["p13", "p2"], "p19": ["p2"],
    "p28": ["p2", "p25"], "p13": ["p15", "p25"], "p4": ["p15"], "p20": ["p15", "p4"],
    "p3": ["p6", "p21"], "p27": ["p6", "p21", "p12"], "p21": ["p12"], "p6": ["p12"],
    "p14": ["p22"], "p26": ["p15"], "p17": ["p22"],
}

FORK_OF = {"p16": "p1", "p27": "p3", "p28": "p19"}

SPONSORS = {
    "o1": ["p1", "p5", "p8", "p2"],
    "o2": ["p9", "p22", "p17", "p14"],
    "o3": ["p13", "p25", "p10", "p19", "p29"],
    "o4": ["p3", "p6", "p5", "p23", "p21"],
    "o5": ["p4", "p15", "p10"],
    "o6": ["p3", "p27", "p12"],
    "o7": ["p20", "p13", "p17"],
    "o8": ["p15", "p26", "p19", "p11"],
    "o9": ["p7", "p30", "p18", "p24"],
    "o10": ["p26", "p4"],
    "o11": ["p30", "p14"],
    "o12": ["p11", "p28", "p24"],
}

MAINTAINS = {
    "p1": ["d1", "d20"], "p2": ["d23"], "p3": ["d10", "d7"], "p4": ["d5", "d27"],
    "p5": ["d1", "d4"], "p6": ["d24"], "p7": ["d11"], "p8": ["d20"], "p9": ["d2"],
    "p10": ["d15"], "p11": ["d8"], "p12": ["d21"], "p13": ["d3", "d22"], "p14": ["d6"],
    "p15": ["d16", "d13"], "p16": ["d12"], "p17": ["d19"], "p18": ["d30"],
    "p19": ["d26", "d22"], "p20": ["d14"], "p21": ["d4"], "p22": ["d2", "d19"],
    "p23": ["d25"], "p24": ["d29"], "p25": ["d15"], "p26": ["d9"], "p27": ["d7"],
    "p28": ["d12"], "p29": ["d15"], "p30": ["d17", "d18"],
}

CONTRIBUTES_TO = {
    "d1": ["p8", "p23", "p16"], "d2": ["p17", "p14"], "d3": ["p10", "p25", "p20"],
    "d4": ["p1", "p3", "p12"], "d5": ["p15", "p20"], "d6": ["p30", "p9"],
    "d7": ["p6", "p21", "p12"], "d8": ["p7", "p24", "p18"], "d9": ["p15", "p4"],
    "d10": ["p6", "p5", "p27"], "d11": ["p30", "p11", "p18"], "d12": ["p1", "p5", "p19"],
    "d13": ["p26", "p4"], "d14": ["p13", "p4"], "d15": ["p13", "p19", "p2"],
    "d16": ["p4", "p26"], "d17": ["p7", "p14"], "d18": ["p7", "p18"],
    "d19": ["p9", "p14"], "d20": ["p5", "p23", "p18"], "d21": ["p3", "p21", "p27"],
    "d22": ["p25", "p10", "p2"], "d23": ["p19", "p28", "p10"], "d24": ["p3", "p12"],
    "d25": ["p8", "p29", "p1"], "d26": ["p2", "p11", "p15"], "d27": ["p15", "p26"],
    "d28": ["p13", "p20", "p25"], "d29": ["p11", "p30"], "d30": ["p7", "p30", "p11"],
}


def main():
    label_of = {}
    lines = []

    def node(label, key, props):
        assert key not in label_of, key
        label_of[key] = label
        lines.append({"type": "node", "label": label, "key": key, "props": props})

    def edge(a, rel, b):
        lines.append({"type": "edge",
                      "from": {"label": label_of[a], "key": a},
                      "rel": rel,
                      "to": {"label": label_of[b], "key": b}})

    for k, n, c, pop in CITIES:
        node("City", k, {"name": n, "country": c, "population": pop})
    for k, n, y, t in LANGUAGES:
        node("Language", k, {"name": n, "year_created": y, "typing": t})
    for k, n, y, cl in LICENSES:
        node("License", k, {"name": n, "year_published": y, "copyleft": cl})
    for k, n, kind, fy, emp, _ in ORGS:
        node("Organization", k, {"name": n, "kind": kind, "founded_year": fy, "employees": emp})
    for k, n, cat, st, fy, loc, dl in PROJECTS:
        node("Project", k, {"name": n, "category": cat, "stars": st,
                            "first_release_year": fy, "lines_of_code": loc, "downloads": dl})
    for k, n, by, h, _, _ in DEVELOPERS:
        node("Developer", k, {"name": n, "birth_year": by, "github_handle": h})
    for k, _, n, v, y in RELEASES:
        node("Release", k, {"name": n, "version": v, "release_year": y})

    for k, *_, city in ORGS:
        edge(k, "LOCATED_IN", city)
    for k, _, _, _, city, emp in DEVELOPERS:
        edge(k, "LIVES_IN", city)
        if emp:
            edge(k, "EMPLOYED_BY", emp)
    for p, ls in WRITTEN_IN.items():
        for l in ls:
            edge(p, "WRITTEN_IN", l)
    for p, ls in LICENSED_UNDER.items():
        for l in ls:
            edge(p, "LICENSED_UNDER", l)
    for p, ds in DEPENDS_ON.items():
        for d in ds:
            edge(p, "DEPENDS_ON", d)
    for p, q in FORK_OF.items():
        edge(p, "FORK_OF", q)
    for o, ps in SPONSORS.items():
        for p in ps:
            edge(o, "SPONSORS", p)
    for p, ds in MAINTAINS.items():
        for d in ds:
            edge(d, "MAINTAINS", p)
    for d, ps in CONTRIBUTES_TO.items():
        for p in ps:
            assert d not in MAINTAINS.get(p, []), (d, p)
            edge(d, "CONTRIBUTES_TO", p)
    for k, p, *_ in RELEASES:
        edge(p, "HAS_RELEASE", k)

    with open(os.path.join(HERE, "graph.jsonl"), "w", encoding="utf-8") as f:
        for obj in lines:
            f.write(json.dumps(obj, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
