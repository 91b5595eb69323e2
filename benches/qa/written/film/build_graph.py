#!/usr/bin/env python3
"""Deterministically build a small fictional film graph -> graph.jsonl"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))

COUNTRIES = [  # key, name, continent
    ("k_fr", "France", "Europe"), ("k_no", "Norway", "Europe"), ("k_it", "Italy", "Europe"),
    ("k_us", "United States", "North America"), ("k_jp", "Japan", "Asia"), ("k_br", "Brazil", "South America"),
]
CITIES = [  # key, name, population, country
    ("c_paris", "Paris", 2100000, "k_fr"), ("c_lyon", "Lyon", 520000, "k_fr"),
    ("c_oslo", "Oslo", 700000, "k_no"), ("c_bergen", "Bergen", 290000, "k_no"),
    ("c_rome", "Rome", 2800000, "k_it"), ("c_turin", "Turin", 850000, "k_it"),
    ("c_la", "Los Angeles", 3800000, "k_us"), ("c_chicago", "Chicago", 2700000, "k_us"),
    ("c_tokyo", "Tokyo", 14000000, "k_jp"), ("c_osaka", "Osaka", 2700000, "k_jp"),
    ("c_saopaulo", "São Paulo", 12300000, "k_br"), ("c_recife", "Recife", 1600000, "k_br"),
]
STUDIOS = [  # key, name, founded, city
    ("s_meridian", "Meridian Pictures", 1931, "c_la"),
    ("s_bluefjord", "Bluefjord Studios", 1978, "c_oslo"),
    ("s_cinetta", "Cinetta Romana", 1946, "c_rome"),
    ("s_lanterne", "Lanterne Films", 1962, "c_paris"),
    ("s_kitsune", "Kitsune Works", 1985, "c_tokyo"),
    ("s_lakeshore", "Lakeshore Productions", 1999, "c_chicago"),
    ("s_atlantico", "Atlântico Filmes", 1971, "c_saopaulo"),
    ("s_northlight", "Northlight Entertainment", 2004, "c_la"),
]
GENRES = [("g_drama", "Drama"), ("g_comedy", "Comedy"), ("g_thriller", "Thriller"),
          ("g_scifi", "Science Fiction"), ("g_horror", "Horror"), ("g_animation", "Animation"),
          ("g_crime", "Crime"), ("g_romance", "Romance")]
AWARDS = [  # key, name, category, established
    ("a_lantern", "Golden Lantern", "best film", 1950),
    ("a_compass", "Silver Compass", "best screenplay", 1961),
    ("a_critics", "Critics' Circle Prize", "critics' choice", 1974),
    ("a_aurora", "Aurora Prize for Best Director", "best director", 1958),
    ("a_actress", "Harbor Award for Best Actress", "best actress", 1966),
    ("a_actor", "Harbor Award for Best Actor", "best actor", 1966),
]
PEOPLE = [  # key, name, birth_year, nationality, born_in
    ("p_marchetti", "Helena Marchetti", 1962, "Italian", "c_rome"),
    ("p_holmvik", "Anders Holmvik", 1955, "Norwegian", "c_bergen"),
    ("p_arakawa", "Kenji Arakawa", 1970, "Japanese", "c_osaka"),
    ("p_darrow", "Lucien Darrow", 1948, "French", "c_lyon"),
    ("p_teixeira", "Marisol Teixeira", 1975, "Brazilian", "c_recife"),
    ("p_whitaker", "Grant Whitaker", 1966, "American", "c_chicago"),
    ("p_fournier", "Odile Fournier", 1981, "French", "c_paris"),
    ("p_okafor", "Samuel Okafor-Reyes", 1972, "American", "c_la"),
    ("p_tanabe", "Yuki Tanabe", 1988, "Japanese", "c_tokyo"),
    ("p_benedetti", "Paolo Benedetti", 1940, "Italian", "c_turin"),
    ("p_solberg", "Ingrid Solberg", 1979, "Norwegian", "c_oslo"),
    ("p_hale", "Marcus Hale", 1969, "American", "c_chicago"),
    ("p_valente", "Clara Valente", 1980, "Italian", "c_rome"),
    ("p_pryce", "Jonah Pryce", 1974, "American", "c_la"),
    ("p_lund", "Sofia Lund", 1985, "Norwegian", "c_oslo"),
    ("p_roux", "Étienne Roux", 1968, "French", "c_paris"),
    ("p_takeda", "Mei Takeda", 1990, "Japanese", "c_tokyo"),
    ("p_moreira", "Rafael Moreira", 1977, "Brazilian", "c_saopaulo"),
    ("p_cole", "Vivian Cole", 1962, "American", "c_chicago"),
    ("p_brandt", "Thomas Brandt", 1959, "German", "c_paris"),
    ("p_morimoto", "Aiko Morimoto", 1983, "Japanese", "c_osaka"),
    ("p_alencar", "Beatriz Alencar", 1992, "Brazilian", "c_recife"),
    ("p_ferraro", "Luca Ferraro", 1971, "Italian", "c_turin"),
    ("p_eklund", "Nora Eklund", 1987, "Norwegian", "c_bergen"),
    ("p_mercer", "Daniel Mercer", 1982, "American", "c_la"),
    ("p_garnier", "Amélie Garnier", 1995, "French", "c_lyon"),
    ("p_dahl", "Henrik Dahl", 1950, "Norwegian", "c_oslo"),
    ("p_whitfield", "Grace Whitfield", 1978, "British", "c_la"),
    ("p_santini", "Marco Santini", 1965, "Italian", "c_rome"),
    ("p_rocha", "Isabela Rocha", 1984, "Brazilian", "c_saopaulo"),
    ("p_hasegawa", "Ryo Hasegawa", 1976, "Japanese", "c_tokyo"),
    ("p_dubois", "Claire Dubois", 1973, "French", "c_paris"),
    ("p_gallagher", "Owen Gallagher", 1989, "Irish", "c_chicago"),
    ("p_strand", "Lena Strand", 1993, "Norwegian", "c_bergen"),
    ("p_almeida", "Victor Almeida", 1961, "Portuguese", "c_saopaulo"),
    ("p_fischer", "Hannah Fischer", 1986, "American", "c_la"),
    ("p_romano", "Giulia Romano", 1945, "Italian", "c_turin"),
    ("p_bellini", "Franco Bellini", 1938, "Italian", "c_rome"),
    ("p_asher", "Julian Asher", 1960, "American", "c_chicago"),
    ("p_lemaire", "Beatrice Lemaire", 1970, "French", "c_lyon"),
    ("p_wren", "Tomasz Wren", 1964, "Polish", "c_oslo"),
]
# key, title, year, runtime, budget, box_office, rating, language,
# directors, writers, actors, studios, genres, shot_in, sequel_of
FILMS = [
    ("f01", "The Glass Orchard", 1998, 124, 18000000, 64000000, 7.8, "Italian",
     ["p_marchetti"], ["p_marchetti"], ["p_santini", "p_ferraro", "p_valente"], ["s_cinetta"], ["g_drama"], "c_rome", None),
    ("f02", "Northern Static", 2003, 109, 9500000, 22000000, 7.1, "Norwegian",
     ["p_holmvik"], ["p_wren"], ["p_dahl", "p_lund", "p_brandt"], ["s_bluefjord"], ["g_thriller"], "c_bergen", None),
    ("f03", "Paper Lanterns of Osaka", 2001, 97, 6000000, 31000000, 7.6, "Japanese",
     ["p_arakawa"], ["p_arakawa"], ["p_morimoto", "p_hasegawa"], ["s_kitsune"], ["g_drama", "g_romance"], "c_osaka", None),
    ("f04", "The Last Cartographer", 1985, 141, 12000000, 48000000, 8.2, "French",
     ["p_darrow"], ["p_darrow"], ["p_brandt", "p_cole", "p_dahl"], ["s_lanterne"], ["g_drama"], "c_lyon", None),
    ("f05", "Salt and Thunder", 2010, 118, 4500000, 15000000, 7.4, "Portuguese",
     ["p_teixeira"], ["p_teixeira"], ["p_moreira", "p_rocha", "p_alencar"], ["s_atlantico"], ["g_drama"], "c_recife", None),
    ("f06", "Iron Meridian", 2007, 132, 95000000, 310000000, 6.9, "English",
     ["p_whitaker"], ["p_asher"], ["p_pryce", "p_mercer", "p_cole"], ["s_meridian"], ["g_scifi", "g_thriller"], "c_la", None),
    ("f07", "Iron Meridian: Fallout", 2011, 138, 140000000, 455000000, 6.5, "English",
     ["p_whitaker"], ["p_asher"], ["p_pryce", "p_mercer", "p_fischer"], ["s_meridian"], ["g_scifi"], "c_chicago", "f06"),
    ("f08", "Iron Meridian: Ascent", 2015, 145, 180000000, 520000000, 6.2, "English",
     ["p_okafor"], ["p_asher"], ["p_pryce", "p_fischer", "p_gallagher"], ["s_meridian", "s_northlight"], ["g_scifi", "g_thriller"], "c_la", "f07"),
    ("f09", "Quiet Hours", 2012, 101, 3000000, 9000000, 8.1, "French",
     ["p_fournier"], ["p_fournier", "p_lemaire"], ["p_garnier", "p_roux", "p_dubois"], ["s_lanterne"], ["g_drama", "g_romance"], "c_paris", None),
    ("f10", "Wolves of the Fjord", 2016, 127, 22000000, 58000000, 7.3, "Norwegian",
     ["p_solberg"], ["p_wren"], ["p_lund", "p_eklund", "p_strand", "p_solberg"], ["s_bluefjord"], ["g_thriller", "g_drama"], "c_oslo", None),
    ("f11", "Neon Koi", 2019, 94, 14000000, 76000000, 7.9, "Japanese",
     ["p_tanabe"], ["p_tanabe"], ["p_takeda", "p_hasegawa"], ["s_kitsune"], ["g_animation", "g_scifi"], "c_tokyo", None),
    ("f12", "The Marble Saint", 1972, 156, 2500000, 19000000, 8.4, "Italian",
     ["p_benedetti"], ["p_benedetti"], ["p_romano", "p_bellini"], ["s_cinetta"], ["g_drama"], "c_rome", None),
    ("f13", "Bitter Harvest", 1979, 133, 3200000, 14000000, 7.9, "Italian",
     ["p_benedetti"], ["p_benedetti"], ["p_romano", "p_bellini", "p_dahl"], ["s_cinetta"], ["g_crime", "g_drama"], "c_turin", None),
    ("f14", "Chicago Nocturne", 1996, 112, 28000000, 87000000, 7.5, "English",
     ["p_whitaker"], ["p_asher"], ["p_cole", "p_hale", "p_pryce"], ["s_meridian"], ["g_crime", "g_thriller"], "c_chicago", None),
    ("f15", "Hollow Pines", 2014, 89, 1200000, 41000000, 6.4, "English",
     ["p_hale"], ["p_hale"], ["p_gallagher", "p_fischer", "p_mercer"], ["s_lakeshore"], ["g_horror"], "c_chicago", None),
    ("f16", "Hollow Pines II", 2017, 92, 5000000, 38000000, 5.8, "English",
     ["p_hale"], ["p_hale", "p_asher"], ["p_gallagher", "p_fischer"], ["s_lakeshore"], ["g_horror"], "c_chicago", "f15"),
    ("f17", "The Clockmaker's Daughter", 2005, 116, 11000000, 27000000, 7.7, "French",
     ["p_darrow"], ["p_lemaire"], ["p_dubois", "p_roux", "p_brandt"], ["s_lanterne"], ["g_drama", "g_romance"], "c_lyon", None),
    ("f18", "Samba for the Drowned", 2008, 104, 3800000, 12500000, 7.0, "Portuguese",
     ["p_teixeira"], ["p_teixeira"], ["p_moreira", "p_almeida", "p_rocha"], ["s_atlantico"], ["g_comedy", "g_drama"], "c_saopaulo", None),
    ("f19", "Tidewater", 2021, 121, 8000000, 19500000, 8.3, "Portuguese",
     ["p_teixeira"], ["p_teixeira"], ["p_alencar", "p_moreira"], ["s_atlantico"], ["g_drama"], "c_recife", None),
    ("f20", "Static Bloom", 2022, 98, 16000000, 44000000, 7.2, "Japanese",
     ["p_tanabe"], ["p_tanabe"], ["p_takeda", "p_morimoto"], ["s_kitsune"], ["g_animation", "g_romance"], "c_tokyo", None),
    ("f21", "The Lighthouse Accord", 2009, 128, 35000000, 102000000, 7.6, "English",
     ["p_okafor"], ["p_asher"], ["p_mercer", "p_whitfield", "p_pryce"], ["s_northlight"], ["g_thriller", "g_drama"], "c_la", None),
    ("f22", "Small Mercies", 2018, 107, 6500000, 23000000, 8.0, "English",
     ["p_okafor"], ["p_okafor"], ["p_whitfield", "p_gallagher", "p_cole"], ["s_northlight"], ["g_drama"], "c_la", None),
    ("f23", "Dust Over Turin", 1991, 119, 7000000, 16000000, 7.3, "Italian",
     ["p_marchetti"], ["p_marchetti"], ["p_santini", "p_romano", "p_ferraro"], ["s_cinetta"], ["g_crime", "g_drama"], "c_turin", None),
    ("f24", "Carnival of Ghosts", 2006, 99, 9000000, 33000000, 6.7, "Italian",
     ["p_marchetti"], ["p_wren"], ["p_valente", "p_santini", "p_ferraro"], ["s_cinetta"], ["g_horror", "g_comedy"], "c_rome", None),
    ("f25", "Velvet Monsoon", 2013, 115, 19000000, 51000000, 7.0, "English",
     ["p_marchetti"], ["p_marchetti"], ["p_valente", "p_whitfield", "p_mercer"], ["s_northlight"], ["g_romance", "g_drama"], "c_turin", None),
    ("f26", "The Quiet Engine", 2000, 135, 55000000, 120000000, 7.4, "English",
     ["p_whitaker"], ["p_asher"], ["p_pryce", "p_cole", "p_brandt"], ["s_meridian"], ["g_scifi", "g_drama"], "c_la", None),
    ("f27", "Fjordlight", 1988, 103, 2000000, 6000000, 7.8, "Norwegian",
     ["p_holmvik"], ["p_holmvik"], ["p_dahl", "p_brandt"], ["s_bluefjord"], ["g_drama"], "c_bergen", None),
    ("f28", "A Pocketful of Small Lies", 2011, 111, 7500000, 18000000, 6.8, "Norwegian",
     ["p_holmvik"], ["p_wren"], ["p_lund", "p_eklund", "p_dahl"], ["s_bluefjord"], ["g_comedy", "g_drama"], "c_bergen", None),
    ("f29", "Midnight Ferry", 2020, 96, 12000000, 29000000, 6.6, "Norwegian",
     ["p_solberg"], ["p_solberg"], ["p_strand", "p_lund", "p_gallagher"], ["s_bluefjord"], ["g_thriller"], "c_oslo", None),
    ("f30", "Paper Tigers", 2004, 108, 10000000, 39000000, 7.1, "Japanese",
     ["p_arakawa"], ["p_arakawa"], ["p_hasegawa", "p_morimoto", "p_takeda"], ["s_kitsune"], ["g_comedy"], "c_osaka", None),
    ("f31", "The Ninth Garden", 2010, 140, 25000000, 95000000, 8.6, "Japanese",
     ["p_arakawa"], ["p_arakawa"], ["p_hasegawa", "p_morimoto"], ["s_kitsune"], ["g_drama", "g_scifi"], "c_tokyo", None),
    ("f32", "Rue des Absents", 2015, 113, 5500000, 14500000, 7.5, "French",
     ["p_fournier"], ["p_lemaire"], ["p_garnier", "p_dubois"], ["s_lanterne"], ["g_drama", "g_crime"], "c_paris", None),
    ("f33", "Sugar and Gunpowder", 2019, 102, 7000000, 26000000, 7.0, "French",
     ["p_fournier"], ["p_fournier"], ["p_roux", "p_garnier", "p_brandt"], ["s_lanterne"], ["g_comedy", "g_crime"], "c_lyon", None),
    ("f34", "Orbit of Embers", 2023, 150, 120000000, 290000000, 7.7, "English",
     ["p_okafor"], ["p_asher"], ["p_mercer", "p_fischer", "p_whitfield"], ["s_meridian"], ["g_scifi", "g_drama"], "c_la", None),
    ("f35", "Wind City Blues", 2002, 106, 8500000, 21000000, 7.2, "English",
     ["p_hale"], ["p_hale"], ["p_hale", "p_cole", "p_pryce"], ["s_lakeshore"], ["g_drama", "g_comedy"], "c_chicago", None),
    ("f36", "The Long Tuesday", 1999, 118, 6000000, 13000000, 7.6, "Italian",
     ["p_benedetti"], ["p_benedetti"], ["p_romano", "p_santini", "p_valente"], ["s_cinetta"], ["g_drama", "g_comedy"], "c_turin", None),
    ("f37", "Kingdom of Rust", 2016, 94, 45000000, 160000000, 6.3, "English",
     ["p_tanabe"], ["p_tanabe", "p_asher"], ["p_gallagher", "p_takeda", "p_mercer"], ["s_meridian"], ["g_animation", "g_comedy"], "c_tokyo", None),
    ("f38", "Glasshouse", 2024, 110, 13000000, 17000000, 7.8, "English",
     ["p_fournier"], ["p_fournier"], ["p_whitfield", "p_garnier", "p_gallagher"], ["s_northlight"], ["g_thriller", "g_horror"], "c_paris", None),
    ("f39", "The Ferryman's Wager", 1994, 122, 4000000, 11000000, 7.7, "French",
     ["p_darrow"], ["p_lemaire"], ["p_roux", "p_dubois", "p_brandt"], ["s_lanterne"], ["g_drama", "g_crime"], "c_paris", None),
    ("f40", "Two Rivers", 2013, 100, 1500000, 4000000, 7.4, "Portuguese",
     ["p_moreira"], ["p_moreira", "p_teixeira"], ["p_moreira", "p_rocha", "p_almeida"], ["s_atlantico"], ["g_drama"], "c_saopaulo", None),
]
FILM_AWARDS = [("f01", "a_lantern"), ("f04", "a_lantern"), ("f12", "a_lantern"), ("f19", "a_lantern"),
               ("f31", "a_lantern"), ("f09", "a_compass"), ("f11", "a_compass"), ("f22", "a_compass"),
               ("f05", "a_critics"), ("f27", "a_critics"), ("f38", "a_critics")]
PERSON_AWARDS = [("p_darrow", "a_aurora"), ("p_arakawa", "a_aurora"), ("p_okafor", "a_aurora"),
                 ("p_benedetti", "a_aurora"), ("p_dubois", "a_actress"), ("p_alencar", "a_actress"),
                 ("p_whitfield", "a_actress"), ("p_roux", "a_actor"), ("p_bellini", "a_actor"),
                 ("p_moreira", "a_actor")]
MARRIAGES = [("p_morimoto", "p_arakawa"), ("p_marchetti", "p_santini"), ("p_pryce", "p_fischer"),
             ("p_darrow", "p_dubois"), ("p_solberg", "p_brandt")]


def main():
    lines = []
    def node(label, key, props):
        lines.append({"type": "node", "label": label, "key": key, "props": props})
    def edge(fl, fk, rel, tl, tk):
        lines.append({"type": "edge", "from": {"label": fl, "key": fk}, "rel": rel,
                      "to": {"label": tl, "key": tk}})
    for k, n, cont in COUNTRIES:
        node("Country", k, {"name": n, "continent": cont})
    for k, n, pop, _ in CITIES:
        node("City", k, {"name": n, "population": pop})
    for k, n, f, _ in STUDIOS:
        node("Studio", k, {"name": n, "founded": f})
    for k, n in GENRES:
        node("Genre", k, {"name": n})
    for k, n, cat, est in AWARDS:
        node("Award", k, {"name": n, "category": cat, "established": est})
    for k, n, by, nat, _ in PEOPLE:
        node("Person", k, {"name": n, "birth_year": by, "nationality": nat})
    for (k, t, y, rt, bud, bo, r, lang, *_rest) in FILMS:
        node("Film", k, {"name": t, "release_year": y, "runtime": rt, "budget": bud,
                         "box_office": bo, "rating": r, "language": lang})
    for k, _, _, c in CITIES:
        edge("City", k, "LOCATED_IN", "Country", c)
    for k, _, _, c in STUDIOS:
        edge("Studio", k, "BASED_IN", "City", c)
    for k, *_x, c in PEOPLE:
        edge("Person", k, "BORN_IN", "City", c)
    for (k, t, y, rt, bud, bo, r, lang, dirs, wrs, acts, studs, gens, shot, seq) in FILMS:
        for p in dirs: edge("Person", p, "DIRECTED", "Film", k)
        for p in wrs: edge("Person", p, "WROTE", "Film", k)
        for p in acts: edge("Person", p, "ACTED_IN", "Film", k)
        for s in studs: edge("Film", k, "PRODUCED_BY", "Studio", s)
        for g in gens: edge("Film", k, "HAS_GENRE", "Genre", g)
        edge("Film", k, "SHOT_IN", "City", shot)
        if seq: edge("Film", k, "SEQUEL_OF", "Film", seq)
    for f, a in FILM_AWARDS:
        edge("Film", f, "WON", "Award", a)
    for p, a in PERSON_AWARDS:
        edge("Person", p, "WON", "Award", a)
    for a, b in MARRIAGES:
        edge("Person", a, "MARRIED_TO", "Person", b)
    with open(os.path.join(HERE, "graph.jsonl"), "w", encoding="utf-8") as fh:
        for l in lines:
            fh.write(json.dumps(l, ensure_ascii=False) + "\n")
    print(f"wrote {len(lines)} lines")


if __name__ == "__main__":
    main()
