"""Writes graph.jsonl: a small fictional university (hand-written data)."""
import json

nodes, edges = [], []
def N(label, key, **props): nodes.append({"type": "node", "label": label, "key": key, "props": props})
LBL = {}
def E(rel, a, b):
    edges.append({"type": "edge", "rel": rel, "from": {"label": LBL[a], "key": a}, "to": {"label": LBL[b], "key": b}})

# Departments
for k, name, code, founded, budget, campus in [
    ("d1", "Computer Science", "CS", 1972, 4800000, "North"),
    ("d2", "Physics", "PHYS", 1921, 3900000, "North"),
    ("d3", "Mathematics", "MATH", 1905, 2100000, "North"),
    ("d4", "Biology", "BIO", 1948, 3500000, "Riverside"),
    ("d5", "Economics", "ECON", 1960, 1800000, "South"),
    ("d6", "History", "HIST", 1899, 950000, "South")]:
    N("Department", k, name=name, code=code, founded=founded, budget=budget, campus=campus); LBL[k] = "Department"

# Buildings
for k, name, campus, floors, built in [
    ("b1", "Halvorsen Hall", "North", 5, 1968),
    ("b2", "Quarry Science Center", "North", 7, 2004),
    ("b3", "Birchwood Building", "South", 3, 1931),
    ("b4", "Marlowe Library Annex", "South", 4, 1987),
    ("b5", "Riverside Lab Complex", "Riverside", 2, 2016)]:
    N("Building", k, name=name, campus=campus, floors=floors, built=built); LBL[k] = "Building"

# Professors: key, name, hired, office, rank, h_index, dept
profs = [
    ("pr1", "Ines Okafor", 2009, "HH-214", "Full", 41, "d1"),
    ("pr2", "Tomasz Brennan", 2015, "HH-118", "Associate", 22, "d1"),
    ("pr3", "Leila Haddad", 2021, "HH-305", "Assistant", 9, "d1"),
    ("pr4", "Rafael Ortega", 1998, "QS-502", "Full", 57, "d2"),
    ("pr5", "Hannah Lindqvist", 2012, "QS-410", "Associate", 27, "d2"),
    ("pr6", "Kwame Asante", 2022, "QS-207", "Assistant", 11, "d2"),
    ("pr7", "Margaret Ellery", 1994, "HH-220", "Full", 35, "d3"),
    ("pr8", "Daniel Kowalczyk", 2010, "HH-224", "Associate", 18, "d3"),
    ("pr9", "Priya Raman", 2015, "RL-12", "Associate", 24, "d4"),
    ("pr10", "Oliver Stroud", 2003, "RL-20", "Full", 46, "d4"),
    ("pr11", "Beatriz Santos", 2008, "BB-110", "Full", 30, "d5"),
    ("pr12", "Yusuf Demir", 2019, "BB-204", "Assistant", 8, "d5"),
    ("pr13", "Clara Weiss", None, "ML-301", "Full", 15, "d6"),   # hired unknown
    ("pr14", "Samuel Achebe", 2011, "ML-305", "Associate", 12, "d6"),
    ("pr15", "Victor Nakamura", 2017, "QS-611", "Research", 33, "d2"),
]
for k, name, hired, office, rank, h, d in profs:
    p = dict(name=name, office=office, rank=rank, h_index=h)
    if hired is not None: p["hired"] = hired
    N("Professor", k, **p); LBL[k] = "Professor"

# Courses: key, name, code, credits, level, capacity, semester, dept, building, teachers
courses = [
    ("c1", "Introduction to Programming", "CS101", 4, "undergraduate", 180, "Fall", "d1", "b1", ["pr2"]),
    ("c2", "Data Structures", "CS201", 4, "undergraduate", 120, "Spring", "d1", "b1", ["pr2"]),
    ("c3", "Machine Learning", "CS540", 3, "graduate", 60, "Fall", "d1", "b2", ["pr1"]),
    ("c4", "Distributed Systems", "CS560", 3, "graduate", 40, "Spring", "d1", "b1", ["pr3"]),
    ("c5", "Quantum Computing", "CS590", 3, "graduate", 25, "Fall", "d1", "b2", ["pr3", "pr5"]),
    ("c6", "Classical Mechanics", "PHYS110", 5, "undergraduate", 150, "Fall", "d2", "b2", ["pr5"]),
    ("c7", "Electromagnetism", "PHYS210", 5, "undergraduate", 90, "Spring", "d2", "b2", ["pr6"]),
    ("c8", "Quantum Field Theory", "PHYS620", 4, "graduate", 20, "Spring", "d2", "b2", ["pr4"]),
    ("c9", "Astrophysics Seminar", "PHYS480", 2, "undergraduate", None, "Fall", "d2", "b2", ["pr6"]),
    ("c10", "Calculus I", "MATH101", 5, "undergraduate", 200, "Fall", "d3", "b1", ["pr8"]),
    ("c11", "Linear Algebra", "MATH220", 4, "undergraduate", 110, "Spring", "d3", "b1", ["pr8"]),
    ("c12", "Real Analysis", "MATH510", 4, "graduate", 30, "Fall", "d3", "b1", ["pr7"]),
    ("c13", "Probability Theory", "MATH330", 3, "undergraduate", 80, "Spring", "d3", "b1", ["pr7"]),
    ("c14", "Cell Biology", "BIO150", 4, "undergraduate", 140, "Fall", "d4", "b5", ["pr9"]),
    ("c15", "Genomics", "BIO520", 3, "graduate", 35, "Spring", "d4", "b5", ["pr10"]),
    ("c16", "Ecology Field Methods", "BIO310", 3, "undergraduate", 45, "Spring", "d4", "b5", ["pr9"]),
    ("c17", "Principles of Microeconomics", "ECON101", 3, "undergraduate", 220, "Fall", "d5", "b3", ["pr12"]),
    ("c18", "Econometrics", "ECON540", 4, "graduate", 40, "Spring", "d5", "b3", ["pr11"]),
    ("c19", "Behavioral Economics", "ECON350", 3, "undergraduate", 70, "Fall", "d5", "b3", ["pr12"]),
    ("c20", "Medieval Europe", "HIST210", 3, "undergraduate", 60, "Fall", "d6", "b4", ["pr14"]),
    ("c21", "History of Science", "HIST330", 3, "undergraduate", 50, "Spring", "d6", "b4", ["pr13"]),
    ("c22", "Archival Research Methods", "HIST610", 2, "graduate", 15, "Fall", "d6", "b4", ["pr13"]),
]
for k, name, code, cr, lvl, cap, sem, d, b, ts in courses:
    p = dict(name=name, code=code, credits=cr, level=lvl, semester=sem)
    if cap is not None: p["capacity"] = cap
    N("Course", k, **p); LBL[k] = "Course"

# Research projects
projects = [
    ("rp1", "Quantum Computing", 1200000, 2019, "active", "pr4", ["fa1", "fa3"]),
    ("rp2", "Federated Learning for Health Records", 850000, 2021, "active", "pr1", ["fa2"]),
    ("rp3", "Dark Matter Detector Calibration", 2300000, 2016, "completed", "pr15", ["fa1", "fa3"]),
    ("rp4", "Coral Reef Genomics", 640000, 2020, "active", "pr10", ["fa4"]),
    ("rp5", "Urban Housing Markets", 410000, 2018, "completed", "pr11", ["fa1"]),
    ("rp6", "Soil Microbiome Atlas", 640000, 2022, "active", "pr9", ["fa1"]),
    ("rp7", "Byzantine Trade Networks", 180000, 2017, "completed", "pr14", ["fa5"]),
    ("rp8", "Secure Consensus Protocols", 520000, 2022, "active", "pr3", ["fa1", "fa2"]),
]
for k, name, budget, start, status, lead, funders in projects:
    N("ResearchProject", k, name=name, budget=budget, start_year=start, status=status); LBL[k] = "ResearchProject"

for k, name, country, typ in [
    ("fa1", "National Science Council", "United States", "government"),
    ("fa2", "Helix Health Foundation", "United States", "foundation"),
    ("fa3", "Energy Futures Agency", "Canada", "government"),
    ("fa4", "Blue Tide Foundation", "Australia", "foundation"),
    ("fa5", "Aldermere Heritage Trust", "United Kingdom", "private")]:
    N("FundingAgency", k, name=name, country=country, type=typ); LBL[k] = "FundingAgency"

# Students: key, name, gpa, level, year, major, courses, advisor, projects
students = [
    ("s1", "Maya Chen", 3.72, "undergraduate", 3, "d1", ["c2", "c11", "c13"], None, ["rp2"]),
    ("s2", "Liam O'Connell", 3.10, "undergraduate", 2, "d1", ["c1", "c10"], None, []),
    ("s3", "Aisha Bello", 3.95, "graduate", 2, "d1", ["c3", "c5"], "pr1", ["rp2"]),
    ("s4", "Noah Fischer", 2.85, "undergraduate", 1, "d1", ["c1", "c10"], None, []),
    ("s5", "Sofia Marchetti", 3.48, "graduate", 1, "d1", ["c3", "c4"], "pr1", []),
    ("s6", "Ethan Park", 3.33, "undergraduate", 4, "d1", ["c2", "c13", "c19"], None, []),
    ("s7", "Zara Ahmed", 3.60, "undergraduate", 2, "d2", ["c6", "c10"], None, []),
    ("s8", "Lucas Moreau", 3.05, "undergraduate", 3, "d2", ["c7", "c11"], None, []),
    ("s9", "Grace Whitfield", 3.81, "graduate", 3, "d2", ["c8", "c5"], "pr4", ["rp3", "rp1"]),
    ("s10", "Mateo Alvarez", 3.55, "graduate", 1, "d2", ["c8"], "pr4", ["rp1"]),
    ("s11", "Hana Suzuki", 3.67, "undergraduate", 4, "d2", ["c7", "c9"], None, []),
    ("s12", "Maya Chen", 2.94, "undergraduate", 1, "d4", ["c14", "c10"], None, []),
    ("s13", "Jonas Berg", 3.22, "undergraduate", 2, "d3", ["c11", "c13"], None, []),
    ("s14", "Fatima Nouri", 3.89, "graduate", 2, "d3", ["c12", "c5"], "pr7", ["rp1"]),
    ("s15", "Caleb Dunn", 2.71, "undergraduate", 3, "d3", ["c10", "c11"], None, []),
    ("s16", "Elena Petrova", 3.58, "undergraduate", 4, "d3", ["c13", "c21"], None, []),
    ("s17", "Arjun Mehta", 3.95, "graduate", 4, "d2", ["c8", "c3"], "pr4", ["rp1"]),
    ("s18", "Chloe Martin", 3.40, "undergraduate", 2, "d4", ["c14", "c16"], None, []),
    ("s19", "Samir Haddad", 3.12, "undergraduate", 3, "d4", ["c14", "c16"], None, []),
    ("s20", "Ruth Adeyemi", 3.74, "graduate", 2, "d4", ["c15"], "pr10", ["rp4"]),
    ("s21", "Owen Gallagher", 2.60, "undergraduate", 1, "d4", ["c14", "c10"], None, []),
    ("s22", "Isabel Reyes", 3.50, "graduate", 1, "d4", ["c15", "c3"], "pr9", ["rp6"]),
    ("s23", "Daniel Cho", 3.28, "undergraduate", 3, "d5", ["c17", "c19"], None, []),
    ("s24", "Nadia Karimi", 3.77, "graduate", 3, "d5", ["c18"], "pr11", ["rp5"]),
    ("s25", "Felix Wagner", 3.02, "undergraduate", 2, "d5", ["c17", "c13"], None, []),
    ("s26", "Priya Nair", 3.45, "undergraduate", 4, "d5", ["c19", "c20"], None, []),
    ("s27", "Tobias Lund", 2.98, "undergraduate", 1, "d5", ["c17", "c10"], None, []),
    ("s28", "Amelia Hart", 3.63, "undergraduate", 3, "d6", ["c20", "c21"], None, ["rp7"]),
    ("s29", "Kofi Mensah", 3.36, "graduate", 2, "d6", ["c22"], "pr14", ["rp7"]),
    ("s30", "Lena Vogel", 3.15, "undergraduate", 2, "d6", ["c20", "c17"], None, []),
    ("s31", "Marcus Bell", 2.88, "undergraduate", 4, "d6", ["c21", "c9"], None, []),
    ("s32", "Yuki Tanaka", 3.84, "undergraduate", 4, "d1", ["c2", "c13", "c9"], None, []),
    ("s33", "Emre Yilmaz", 3.50, "graduate", 1, "d1", ["c4", "c5"], "pr3", ["rp8"]),
    ("s34", "Olivia Brandt", 3.20, "undergraduate", 1, "d3", ["c10", "c1"], None, []),
    ("s35", "Ben Okoro", None, "undergraduate", 1, "d2", ["c6", "c10"], None, []),   # transfer, no gpa yet
    ("s36", "Clara Jensen", 3.70, "undergraduate", 3, "d4", ["c14", "c16"], None, ["rp6"]),
    ("s37", "Diego Fernandez", 3.08, "undergraduate", 2, "d5", ["c17", "c19"], None, []),
    ("s38", "Ivy Thompson", 3.92, "undergraduate", 4, "d3", ["c11", "c13", "c12"], None, []),
    ("s39", "Rohan Gupta", 3.42, "graduate", 3, "d5", ["c18", "c3"], "pr11", []),
    ("s40", "Sam Porter", 3.47, "undergraduate", 3, "d1", ["c1", "c11", "c20"], None, []),
]
for k, name, gpa, lvl, yr, *_ in students:
    p = dict(name=name, level=lvl, year=yr)
    if gpa is not None: p["gpa"] = gpa
    N("Student", k, **p); LBL[k] = "Student"

# ---- edges
for k, *_, d in profs: E("MEMBER_OF", k, d)
for p, d in [("pr1", "d1"), ("pr4", "d2"), ("pr7", "d3"), ("pr10", "d4"), ("pr11", "d5"), ("pr13", "d6")]: E("chairs", p, d)
for d, b in [("d1", "b1"), ("d2", "b2"), ("d3", "b1"), ("d4", "b5"), ("d5", "b3"), ("d6", "b4")]: E("locatedIn", d, b)
for k, name, code, cr, lvl, cap, sem, d, b, ts in courses:
    for t in ts: E("teaches", t, k)
    E("offered_by", k, d)
    E("HELD_IN", k, b)
for a, b in [("c2", "c1"), ("c3", "c11"), ("c3", "c13"), ("c4", "c2"), ("c5", "c11"), ("c7", "c6"), ("c7", "c10"), ("c12", "c11"), ("c18", "c13")]:
    E("has_prerequisite", a, b)
for k, name, budget, start, status, lead, funders in projects:
    E("leads", lead, k)
    for f in funders: E("fundedBy", k, f)
for k, name, gpa, lvl, yr, major, cs, adv, prj in students:
    E("majors_in", k, major)
    for c in cs: E("ENROLLED_IN", k, c)
    if adv: E("advised_by", k, adv)
    for r in prj: E("works_on", k, r)

with open("graph.jsonl", "w") as f:
    for x in nodes + edges: f.write(json.dumps(x, ensure_ascii=False) + "\n")
print(len(nodes), "nodes", len(edges), "edges")
