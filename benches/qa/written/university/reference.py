"""Independent gold answers: loads graph.jsonl, computes each answer with explicit code, writes questions.jsonl."""
import json
from collections import defaultdict

nodes, out_e, in_e = {}, defaultdict(list), defaultdict(list)
for line in open("graph.jsonl"):
    x = json.loads(line)
    if x["type"] == "node":
        nodes[x["key"]] = dict(label=x["label"], **x["props"])
    else:
        a, b = x["from"]["key"], x["to"]["key"]
        out_e[(a, x["rel"])].append(b)
        in_e[(b, x["rel"])].append(a)

def of(label): return [k for k, n in nodes.items() if n["label"] == label]
def key(name, label=None):
    ks = [k for k, n in nodes.items() if n["name"] == name and (label is None or n["label"] == label)]
    assert len(ks) == 1, (name, label, ks)
    return ks[0]
def out(k, rel): return out_e[(k, rel)]
def inc(k, rel): return in_e[(k, rel)]
def num(x):
    if isinstance(x, float):
        s = f"{x:.4f}".rstrip("0").rstrip(".")
        return s
    return str(x)
def argbest(keys, f, highest=True):
    keys = [k for k in keys if f(k) is not None]
    best = (max if highest else min)(f(k) for k in keys)
    return [k for k in keys if f(k) == best]

Q = []
def q(type_, question, answers):
    answers = sorted(set(answers)) if isinstance(answers, (list, set)) else [answers]
    assert answers, question
    Q.append({"question": question, "answers": [str(a) for a in answers], "type": type_})

P, S, C, D, R, F, B = (of(l) for l in ["Professor", "Student", "Course", "Department", "ResearchProject", "FundingAgency", "Building"])
yn = lambda b: "yes" if b else "no"

# ---------- attribute
q("attribute", "What is Ines Okafor's office?", nodes[key("Ines Okafor")]["office"])
q("attribute", "How many credits is Real Analysis worth?", num(nodes[key("Real Analysis")]["credits"]))
q("attribute", "when was the Quarry Science Center built", num(nodes[key("Quarry Science Center")]["built"]))
q("attribute", "What's Aisha Bello's GPA?", num(nodes[key("Aisha Bello")]["gpa"]))
q("attribute", "Which campus is the Economics department on?", nodes[key("Economics")]["campus"])

# ---------- relation
qc = key("Quantum Computing", "Course")
q("relation", "Who teaches Quantum Computing?", inc(qc, "teaches"))
q("relation", "Which students are enrolled in Genomics?", inc(key("Genomics"), "ENROLLED_IN"))
q("relation", "who is Kofi Mensah's advisor", out(key("Kofi Mensah"), "advised_by"))
qp = key("Quantum Computing", "ResearchProject")
q("relation", "Who is in charge of the Quantum Computing research project?", inc(qp, "leads"))
bio_maya = [s for s in S if nodes[s]["name"] == "Maya Chen" and key("Biology") in out(s, "majors_in")]
assert len(bio_maya) == 1
q("relation", "What courses is Maya Chen, the biology major, taking?", out(bio_maya[0], "ENROLLED_IN"))

# ---------- multi-hop
sp = key("Sam Porter")
q("multi-hop", "Who teaches the courses Sam Porter is enrolled in?", [p for c in out(sp, "ENROLLED_IN") for p in inc(c, "teaches")])
q("multi-hop", "Which research projects are led by Computer Science faculty?",
  [r for p in inc(key("Computer Science"), "MEMBER_OF") for r in out(p, "leads")])
q("multi-hop", "In which buildings does Ethan Park have classes?", [b for c in out(key("Ethan Park"), "ENROLLED_IN") for b in out(c, "HELD_IN")])
q("multi-hop", "Which students are advised by professors from the Physics department?",
  [s for p in inc(key("Physics"), "MEMBER_OF") for s in inc(p, "advised_by")])
q("multi-hop", "list the students taking a class taught by Margaret Ellery",
  [s for c in out(key("Margaret Ellery"), "teaches") for s in inc(c, "ENROLLED_IN")])

# ---------- superlative
q("superlative", "Which student has the highest GPA?", argbest(S, lambda s: nodes[s].get("gpa")))
q("superlative", "Which course has the most students enrolled?", argbest(C, lambda c: len(inc(c, "ENROLLED_IN"))))
q("superlative", "who is the longest-serving professor (earliest hire)?", argbest(P, lambda p: nodes[p].get("hired"), highest=False))
top3 = sorted(R, key=lambda r: -nodes[r]["budget"])[:3]
assert nodes[top3[2]]["budget"] > nodes[sorted(R, key=lambda r: -nodes[r]["budget"])[3]]["budget"]
q("superlative", "Show me the 3 research projects with the biggest budgets", top3)
newest = argbest(P, lambda p: nodes[p].get("hired"))
assert len(newest) == 1
q("superlative", "What's the course with the most credits taught by the most recently hired professor?",
  argbest(out(newest[0], "teaches"), lambda c: nodes[c]["credits"]))

# ---------- aggregate
q("aggregate", "How many students are majoring in Economics?", num(len(inc(key("Economics"), "majors_in"))))
q("aggregate", "What is the total budget of all research projects funded by the National Science Council?",
  num(sum(nodes[r]["budget"] for r in inc(key("National Science Council"), "fundedBy"))))
grads = [s for s in S if nodes[s]["level"] == "graduate" and "gpa" in nodes[s]]
q("aggregate", "average gpa of graduate students", num(round(sum(nodes[s]["gpa"] for s in grads) / len(grads), 4)))
q("aggregate", "how many courses does Tomasz Brennan teach?", num(len(out(key("Tomasz Brennan"), "teaches"))))
q("aggregate", "How many credits is Sam Porter taking in total?", num(sum(nodes[c]["credits"] for c in out(sp, "ENROLLED_IN"))))

# ---------- comparison
q("comparison", "Which courses have more than 4 credits?", [c for c in C if nodes[c]["credits"] > 4])
q("comparison", "List professors hired before 2005", [p for p in P if nodes[p].get("hired") is not None and nodes[p]["hired"] < 2005])
pr_h = nodes[key("Priya Raman")]["hired"]
q("comparison", "Which professors were hired after Priya Raman?", [p for p in P if nodes[p].get("hired") is not None and nodes[p]["hired"] > pr_h])
q("comparison", "show me research projects with a budget over 1 million", [r for r in R if nodes[r]["budget"] > 1_000_000])
ra = nodes[key("Ruth Adeyemi")]["gpa"]
q("comparison", "Which students have a higher GPA than Ruth Adeyemi?", [s for s in S if nodes[s].get("gpa") is not None and nodes[s]["gpa"] > ra])

# ---------- negation
q("negation", "Which professors don't teach any course?", [p for p in P if not out(p, "teaches")])
ds = key("Data Structures")
q("negation", "Which Computer Science students are not enrolled in Data Structures?",
  [s for s in inc(key("Computer Science"), "majors_in") if ds not in out(s, "ENROLLED_IN")])
q("negation", "graduate students who are not working on any research project", [s for s in S if nodes[s]["level"] == "graduate" and not out(s, "works_on")])
nsc = key("National Science Council")
q("negation", "Which research projects are not funded by the National Science Council?", [r for r in R if nsc not in out(r, "fundedBy")])
q("negation", "Which professors do not lead a research project?", [p for p in P if not out(p, "leads")])

# ---------- conjunction
q("conjunction", "Which graduate courses does Margaret Ellery teach?", [c for c in out(key("Margaret Ellery"), "teaches") if nodes[c]["level"] == "graduate"])
q("conjunction", "Physics students with a GPA above 3.5", [s for s in inc(key("Physics"), "majors_in") if nodes[s].get("gpa") is not None and nodes[s]["gpa"] > 3.5])
q("conjunction", "Which undergraduate courses are held in Halvorsen Hall?", [c for c in inc(key("Halvorsen Hall"), "HELD_IN") if nodes[c]["level"] == "undergraduate"])
q("conjunction", "Which active projects does the National Science Council fund?", [r for r in inc(nsc, "fundedBy") if nodes[r]["status"] == "active"])
q("conjunction", "Which students are enrolled in both Linear Algebra and Probability Theory?",
  set(inc(key("Linear Algebra"), "ENROLLED_IN")) & set(inc(key("Probability Theory"), "ENROLLED_IN")))

# ---------- yes/no
q("yes/no", "Does Ines Okafor teach Machine Learning?", yn(key("Machine Learning") in out(key("Ines Okafor"), "teaches")))
q("yes/no", "Is Genomics a graduate course?", yn(nodes[key("Genomics")]["level"] == "graduate"))
q("yes/no", "is Zara Ahmed enrolled in Quantum Field Theory", yn(key("Quantum Field Theory") in out(key("Zara Ahmed"), "ENROLLED_IN")))
q("yes/no", "Was Hannah Lindqvist hired before 2010?", yn(nodes[key("Hannah Lindqvist")]["hired"] < 2010))
q("yes/no", "Is the Coral Reef Genomics project funded by the Blue Tide Foundation?", yn(key("Blue Tide Foundation") in out(key("Coral Reef Genomics"), "fundedBy")))

with open("questions.jsonl", "w") as f:
    for x in Q: f.write(json.dumps(x) + "\n")
from collections import Counter
print(len(Q), Counter(x["type"] for x in Q))
for x in Q: print(x["type"], "|", x["question"], "|", x["answers"])
