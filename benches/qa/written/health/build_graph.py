#!/usr/bin/env python3
"""Deterministic builder of a fictional healthcare graph -> graph.jsonl.

All data is hand-written (no randomness); the world is invented.
"""
import json
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "graph.jsonl")

# key, name, population, region
CITIES = [
    ("c1", "Halden", 612000, "North Coast"),
    ("c2", "Marisport", 1240000, "South Bay"),
    ("c3", "Velmora", 385000, "Midlands"),
    ("c4", "Brennick", 158000, "Midlands"),
    ("c5", "Lakemont", 274000, "Lake District"),
    ("c6", "Corvale", 903000, "East Valley"),
    ("c7", "Ashby Cross", 97000, "North Coast"),
    ("c8", "Ternfield", 431000, "East Valley"),
]

# key, name, beds, founded, type, city
HOSPITALS = [
    ("h1", "Halden General Hospital", 820, 1921, "public", "c1"),
    ("h2", "St. Aldric Medical Center", 450, 1956, "private", "c1"),
    ("h3", "Marisport University Hospital", 1150, 1898, "public", "c2"),
    ("h4", "Quayside Clinic", 180, 1994, "private", "c2"),
    ("h5", "Velmora Regional Hospital", 530, 1967, "public", "c3"),
    ("h6", "Brennick Community Hospital", 210, 1949, "public", "c4"),
    ("h7", "Lakemont Heart Institute", 300, 2003, "private", "c5"),
    ("h8", "Corvale Memorial Hospital", 690, 1932, "public", "c6"),
    ("h9", "Corvale Children's Hospital", 260, 1978, "public", "c6"),
    ("h10", "Northgate Private Hospital", 340, 2009, "private", "c6"),
    ("h11", "Ternfield Cancer Centre", 240, 1988, "private", "c8"),
    ("h12", "Ashby Cross Cottage Hospital", 65, 1912, "public", "c7"),
]

# key, name, staff, floor, hospital
DEPARTMENTS = [
    ("d1", "Halden General Cardiology", 64, 3, "h1"),
    ("d2", "Halden General Oncology", 58, 5, "h1"),
    ("d3", "Halden General Neurology", 41, 4, "h1"),
    ("d4", "St. Aldric Orthopedics", 37, 2, "h2"),
    ("d5", "St. Aldric Cardiology", 29, 3, "h2"),
    ("d6", "Marisport University Oncology", 112, 7, "h3"),
    ("d7", "Marisport University Neurology", 76, 6, "h3"),
    ("d8", "Marisport University Endocrinology", 45, 4, "h3"),
    ("d9", "Marisport University Infectious Diseases", 52, 2, "h3"),
    ("d10", "Velmora Regional Pulmonology", 33, 3, "h5"),
    ("d11", "Velmora Regional Endocrinology", 27, 2, "h5"),
    ("d12", "Lakemont Cardiac Surgery", 48, 1, "h7"),
    ("d13", "Corvale Memorial Rheumatology", 22, 4, "h8"),
    ("d14", "Corvale Memorial Psychiatry", 39, 6, "h8"),
    ("d15", "Corvale Children's Pediatrics", 71, 1, "h9"),
    ("d16", "Ternfield Hematology", 35, 3, "h11"),
]

# key, name, category, chronic, icd_code
DISEASES = [
    ("s1", "Hypertension", "cardiovascular", "yes", "I10"),
    ("s2", "Atrial Fibrillation", "cardiovascular", "yes", "I48"),
    ("s3", "Heart Failure", "cardiovascular", "yes", "I50"),
    ("s4", "Type 2 Diabetes", "endocrine", "yes", "E11"),
    ("s5", "Hypothyroidism", "endocrine", "yes", "E03"),
    ("s6", "Breast Cancer", "oncological", "no", "C50"),
    ("s7", "Non-Small Cell Lung Cancer", "oncological", "no", "C34"),
    ("s8", "Chronic Lymphocytic Leukemia", "oncological", "yes", "C91"),
    ("s9", "Multiple Sclerosis", "neurological", "yes", "G35"),
    ("s10", "Migraine", "neurological", "yes", "G43"),
    ("s11", "Parkinson's Disease", "neurological", "yes", "G20"),
    ("s12", "Asthma", "respiratory", "yes", "J45"),
    ("s13", "COPD", "respiratory", "yes", "J44"),
    ("s14", "Rheumatoid Arthritis", "autoimmune", "yes", "M06"),
    ("s15", "Major Depressive Disorder", "psychiatric", "no", "F33"),
    ("s16", "Tuberculosis", "infectious", "no", "A15"),
    ("s17", "Hepatitis C", "infectious", "no", "B18"),
    ("s18", "Osteoarthritis", "musculoskeletal", "yes", "M19"),
]

# key, name, founded, employees, city
COMPANIES = [
    ("co1", "Veridian Pharma", 1962, 48000, "c2"),
    ("co2", "Halcyon Biotherapeutics", 2004, 3200, "c1"),
    ("co3", "Norland Laboratories", 1931, 21000, "c6"),
    ("co4", "Pellucid Therapeutics", 2011, 850, "c5"),
    ("co5", "Aurelius Generics", 1988, 6700, "c3"),
    ("co6", "Kestrel BioSciences", 1997, 12500, "c2"),
    ("co7", "Brightwater Pharmaceuticals", 1975, 9400, "c8"),
    ("co8", "Osprey Pharma", 2016, 420, "c1"),
]

# key, name, approval_year, dosage_mg, price, form, company, [diseases]
DRUGS = [
    ("dr1", "Cardiplex", 1998, 10, 12.5, "tablet", "co3", ["s1"]),
    ("dr2", "Lorvastin", 2007, 20, 18.0, "tablet", "co5", ["s1", "s3"]),
    ("dr3", "Rythmora", 2016, 150, 84.0, "tablet", "co1", ["s2"]),
    ("dr4", "Glucavance", 2012, 500, 22.0, "tablet", "co5", ["s4"]),
    ("dr5", "Insulara", 2019, 100, 145.0, "injection", "co6", ["s4"]),
    ("dr6", "Thyrolen", 1985, 25, 9.75, "tablet", "co3", ["s5"]),
    ("dr7", "Oncotraxa", 2018, 420, 2350.0, "infusion", "co1", ["s6"]),
    ("dr8", "Pulmitinib", 2020, 250, 1890.0, "tablet", "co6", ["s7"]),
    ("dr9", "Leucarex", 2014, 140, 1420.0, "capsule", "co7", ["s8"]),
    ("dr10", "Neuroclad", 2010, 14, 310.0, "tablet", "co2", ["s9"]),
    ("dr11", "Migrastat", 2021, 75, 95.0, "tablet", "co4", ["s10"]),
    ("dr12", "Dopalex", 1992, 100, 28.0, "tablet", "co3", ["s11"]),
    ("dr13", "Breathaire", 2003, 200, 41.0, "inhaler", "co7", ["s12", "s13"]),
    ("dr14", "Bronchavel", 2017, 50, 63.0, "inhaler", "co1", ["s13"]),
    ("dr15", "Artheva", 2015, 40, 620.0, "injection", "co2", ["s14"]),
    ("dr16", "Serenyl", 2001, 20, 14.0, "tablet", "co5", ["s15"]),
    ("dr17", "Tubercil", 1979, 300, 6.5, "tablet", "co3", ["s16"]),
    ("dr18", "Hepavex", 2022, 400, 980.0, "tablet", "co8", ["s17"]),
    ("dr19", "Jointaris", 2009, 200, 19.0, "capsule", "co5", ["s18", "s14"]),
    ("dr20", "Oncoveline", 2023, 60, 2780.0, "infusion", "co4", ["s6", "s7"]),
    ("dr21", "Anticor", 2019, 5, 47.0, "tablet", "co8", ["s2", "s3"]),
]

# key, name, phase, start_year, enrolled, status, hospital, [drugs], [diseases]
TRIALS = [
    ("t1", "RHYTHM-2", 3, 2014, 1240, "completed", "h7", ["dr3"], ["s2"]),
    ("t2", "ONCO-BRIDGE", 3, 2016, 860, "completed", "h11", ["dr7"], ["s6"]),
    ("t3", "LUNGSTAR", 2, 2018, 310, "completed", "h3", ["dr8"], ["s7"]),
    ("t4", "CLEAR-CLL", 3, 2012, 540, "completed", "h11", ["dr9"], ["s8"]),
    ("t5", "MS-FORWARD", 3, 2008, 920, "completed", "h3", ["dr10"], ["s9"]),
    ("t6", "HALO-MIGRAINE", 3, 2019, 680, "completed", "h1", ["dr11"], ["s10"]),
    ("t7", "GLUCO-NEXT", 3, 2017, 1500, "completed", "h5", ["dr5"], ["s4"]),
    ("t8", "AIRWAY-1", 2, 2015, 220, "completed", "h5", ["dr14"], ["s13"]),
    ("t9", "JOINT-RA", 3, 2013, 760, "completed", "h8", ["dr15", "dr19"], ["s14"]),
    ("t10", "HEPCURE", 3, 2020, 410, "completed", "h3", ["dr18"], ["s17"]),
    ("t11", "VELINE-1", 1, 2021, 48, "completed", "h10", ["dr20"], ["s6", "s7"]),
    ("t12", "VELINE-2", 2, 2023, 190, "recruiting", "h11", ["dr20"], ["s6"]),
    ("t13", "AFIB-LOW", 2, 2024, 150, "recruiting", "h2", ["dr21"], ["s2"]),
    ("t14", "PEDI-ASTHMA", 4, 2022, 330, "active", "h9", ["dr13"], ["s12"]),
    ("t15", "MOOD-LIFT", 4, 2021, 500, "active", "h8", ["dr16"], ["s15"]),
]

# key, name, birth_year, experience_years, specialty, works_at, trained_at,
# [specializes_in diseases], [heads departments], [leads trials], [participates_in trials]
DOCTORS = [
    ("p1", "Ingrid Solvang", 1968, 27, "Cardiology", "h1", "h3", ["s1", "s3"], ["d1"], [], ["t13"]),
    ("p2", "Tomas Ferreira", 1975, 20, "Oncology", "h1", "h11", ["s6"], ["d2"], [], ["t2", "t12"]),
    ("p3", "Amara Okafor", 1981, 14, "Neurology", "h1", "h3", ["s10", "s9"], ["d3"], ["t6"], ["t5"]),
    ("p4", "Lukas Brandt", 1972, 23, "Orthopedic Surgery", "h2", "h1", ["s18"], ["d4"], [], []),
    ("p5", "Helena Marsh", 1979, 16, "Cardiology", "h2", "h7", ["s2"], ["d5"], ["t13"], ["t1"]),
    ("p6", "Rafael Quintero", 1965, 33, "Oncology", "h3", "h3", ["s7"], ["d6"], ["t3"], []),
    ("p7", "Mei-Lin Zhao", 1970, 26, "Neurology", "h3", "h1", ["s9", "s11"], ["d7"], ["t5"], ["t6"]),
    ("p8", "Samuel Adeyemi", 1977, 19, "Endocrinology", "h3", "h5", ["s4"], ["d8"], [], ["t7"]),
    ("p9", "Katarina Novak", 1983, 12, "Infectious Diseases", "h3", "h3", ["s17", "s16"], ["d9"], ["t10"], []),
    ("p10", "Owen Pritchard", 1988, 8, "General Practice", "h4", "h3", ["s1"], [], [], []),
    ("p11", "Leila Haddad", 1974, 22, "Pulmonology", "h5", "h8", ["s12", "s13"], ["d10"], ["t8"], ["t14"]),
    ("p12", "Jonas Eklund", 1962, 35, "Endocrinology", "h5", "h3", ["s4", "s5"], ["d11"], ["t7"], []),
    ("p13", "Priya Raman", 1985, 10, "Family Medicine", "h6", "h5", ["s1", "s4"], [], [], ["t7"]),
    ("p14", "Victor Lindqvist", 1966, 31, "Cardiothoracic Surgery", "h7", "h3", ["s3"], ["d12"], [], []),
    ("p15", "Nadia Petrova", 1976, 21, "Cardiology", "h7", "h1", ["s2"], [], ["t1"], ["t13"]),
    ("p16", "Gabriel Moreau", 1971, 25, "Rheumatology", "h8", "h8", ["s14"], ["d13"], ["t9"], []),
    ("p17", "Fiona Gallagher", 1980, 15, "Psychiatry", "h8", "h2", ["s15"], ["d14"], ["t15"], []),
    ("p18", "Daniel Achterberg", 1978, 18, "Pediatrics", "h9", "h3", ["s12"], ["d15"], ["t14"], []),
    ("p19", "Yusuf Demir", 1984, 11, "Oncology", "h10", "h11", ["s6"], [], ["t11"], ["t2", "t12"]),
    ("p20", "Claire Beaumont", 1969, 29, "Hematology", "h11", "h3", ["s8"], ["d16"], ["t4"], []),
    ("p21", "Marcus Webb", 1973, 24, "Oncology", "h11", "h1", ["s6", "s7"], [], ["t2", "t12"], ["t3", "t11"]),
    ("p22", "Elsa Hartmann", 1958, 38, "General Practice", "h12", "h1", ["s1", "s13"], [], [], ["t8"]),
    ("p23", "Tobias Reinholt", 1987, 9, "Neurology", "h8", "h3", ["s11"], [], [], []),
    ("p24", "Ana Lucia Vargas", 1986, 9, "Oncology", "h3", "h11", ["s6"], [], [], ["t2", "t3"]),
    ("p25", "Henrik Dahl", 1982, 13, "Orthopedic Surgery", "h10", "h2", ["s18"], [], [], []),
    ("p26", "Sophie Laurent", 1990, 6, "Cardiology", "h1", "h7", ["s1"], [], [], ["t1"]),
    ("p27", "Kwame Mensah", 1975, 20, "Infectious Diseases", "h8", "h3", ["s16"], [], [], ["t10"]),
    ("p28", "Isabel Cortez", 1979, 17, "Pulmonology", "h8", "h5", ["s13", "s12"], [], [], ["t8"]),
    ("p29", "Ruth Abernathy", 1963, 34, "Psychiatry", "h2", "h8", ["s15"], [], [], ["t15"]),
    ("p30", "Paolo Bianchi", 1989, 7, "Endocrinology", "h10", "h5", ["s4"], [], [], ["t7"]),
    ("p31", "Hannah Kowalski", 1991, 5, "Pediatrics", "h9", "h9", ["s12"], [], [], ["t14"]),
    ("p32", "Erik Thorsen", 1980, 15, "Rheumatology", "h6", "h8", ["s14", "s18"], [], [], ["t9"]),
]


def node(label, key, props):
    return {"type": "node", "label": label, "key": key, "props": props}


def edge(rel, fl, fk, tl, tk):
    return {"type": "edge", "rel": rel, "from": {"label": fl, "key": fk},
            "to": {"label": tl, "key": tk}}


def build():
    out = []
    for k, n, pop, reg in CITIES:
        out.append(node("City", k, {"name": n, "population": pop, "region": reg}))
    for k, n, beds, founded, typ, city in HOSPITALS:
        out.append(node("Hospital", k, {"name": n, "beds": beds, "founded": founded, "type": typ}))
    for k, n, staff, floor, h in DEPARTMENTS:
        out.append(node("Department", k, {"name": n, "staff": staff, "floor": floor}))
    for k, n, cat, chronic, icd in DISEASES:
        out.append(node("Disease", k, {"name": n, "category": cat, "chronic": chronic, "icd_code": icd}))
    for k, n, founded, emp, city in COMPANIES:
        out.append(node("Company", k, {"name": n, "founded": founded, "employees": emp}))
    for k, n, yr, mg, price, form, co, dis in DRUGS:
        out.append(node("Drug", k, {"name": n, "approval_year": yr, "dosage_mg": mg,
                                    "price": price, "form": form}))
    for k, n, phase, start, enrolled, status, h, drugs, dis in TRIALS:
        out.append(node("Trial", k, {"name": n, "phase": phase, "start_year": start,
                                     "enrolled": enrolled, "status": status}))
    for (k, n, born, exp, spec, works, trained, sp, heads, leads, parts) in DOCTORS:
        out.append(node("Doctor", k, {"name": n, "birth_year": born, "experience_years": exp,
                                      "specialty": spec}))

    for k, n, beds, founded, typ, city in HOSPITALS:
        out.append(edge("LOCATED_IN", "Hospital", k, "City", city))
    for k, n, staff, floor, h in DEPARTMENTS:
        out.append(edge("PART_OF", "Department", k, "Hospital", h))
    for k, n, founded, emp, city in COMPANIES:
        out.append(edge("HEADQUARTERED_IN", "Company", k, "City", city))
    for k, n, yr, mg, price, form, co, dis in DRUGS:
        out.append(edge("MADE_BY", "Drug", k, "Company", co))
        for d in dis:
            out.append(edge("TREATS", "Drug", k, "Disease", d))
    for k, n, phase, start, enrolled, status, h, drugs, dis in TRIALS:
        out.append(edge("RUN_AT", "Trial", k, "Hospital", h))
        for d in drugs:
            out.append(edge("TESTED_IN", "Drug", d, "Trial", k))
        for d in dis:
            out.append(edge("STUDIES", "Trial", k, "Disease", d))
    for (k, n, born, exp, spec, works, trained, sp, heads, leads, parts) in DOCTORS:
        out.append(edge("WORKS_AT", "Doctor", k, "Hospital", works))
        out.append(edge("TRAINED_AT", "Doctor", k, "Hospital", trained))
        for d in sp:
            out.append(edge("SPECIALIZES_IN", "Doctor", k, "Disease", d))
        for d in heads:
            out.append(edge("HEADS", "Doctor", k, "Department", d))
        for t in leads:
            out.append(edge("LEADS", "Doctor", k, "Trial", t))
        for t in parts:
            out.append(edge("PARTICIPATES_IN", "Doctor", k, "Trial", t))

    # sanity: unique keys per label, unique names globally
    seen = set()
    names = set()
    for o in out:
        if o["type"] == "node":
            lk = (o["label"], o["key"])
            assert lk not in seen, lk
            seen.add(lk)
            assert o["props"]["name"] not in names, o["props"]["name"]
            names.add(o["props"]["name"])
    for o in out:
        if o["type"] == "edge":
            assert (o["from"]["label"], o["from"]["key"]) in seen, o
            assert (o["to"]["label"], o["to"]["key"]) in seen, o

    with open(OUT, "w", encoding="utf-8") as f:
        for o in out:
            f.write(json.dumps(o, ensure_ascii=False, sort_keys=False) + "\n")
    n_nodes = sum(1 for o in out if o["type"] == "node")
    print(f"wrote {OUT}: {n_nodes} nodes, {len(out) - n_nodes} edges")


if __name__ == "__main__":
    build()
