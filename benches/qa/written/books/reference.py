#!/usr/bin/env python3
"""Independent gold answers: loads graph.jsonl, computes each answer with explicit code."""
import json, os
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
N, OUT, IN = {}, defaultdict(list), defaultdict(list)   # key -> node ; key -> [(rel, other)]
for line in open(os.path.join(HERE, "graph.jsonl"), encoding="utf-8"):
    r = json.loads(line)
    if r["type"] == "node":
        N[r["key"]] = {"label": r["label"], **r["props"]}
    else:
        a, b = r["from"]["key"], r["to"]["key"]
        OUT[a].append((r["rel"], b)); IN[b].append((r["rel"], a))

def by(label):              return [k for k, v in N.items() if v["label"] == label]
def find(label, name):
    ks = [k for k in by(label) if N[k]["name"] == name]
    assert len(ks) == 1, (label, name, ks); return ks[0]
def out(k, rel):            return [b for r, b in OUT[k] if r == rel]
def inn(k, rel):            return [a for r, a in IN[k] if r == rel]
def num(x):
    x = round(x, 4)
    return str(int(x)) if float(x).is_integer() else str(x)

Q = []
def add(t, q, ans):
    if isinstance(ans, (set, list, tuple)): ans = sorted(set(ans)) if isinstance(ans, set) else list(ans)
    else: ans = [ans]
    assert ans, q
    Q.append({"question": q, "answers": [str(a) for a in ans], "type": t})

book = lambda n: find("Book", n)
author = lambda n: find("Author", n)
books_of = lambda a: out(a, "wrote")
authors_of = lambda b: inn(b, "wrote")

# ---------------- attribute
add("attribute", "What year was The Ferryman's Daughter published?", num(N[book("The Ferryman's Daughter")]["year"]))
add("attribute", "how many pages does Herring Light have", num(N[book("Herring Light")]["pages"]))
add("attribute", "What's the nationality of Hugo Vennström", N[author("Hugo Vennström")]["nationality"])
add("attribute", "what genre is Kettle Black", N[book("Kettle Black")]["genre"])
add("attribute", "What does the book The Salt Archive cost?", num(N[book("The Salt Archive")]["price"]))

# ---------------- relation
add("relation", "Who wrote Grey Quay?", set(authors_of(book("Grey Quay"))))
add("relation", "Which publisher put out Pampa Nocturna", set(out(book("Pampa Nocturna"), "PUBLISHED_BY")))
add("relation", "list the books in the Inspector Ruane series", set(inn(find("Series", "Inspector Ruane"), "part_of")))
add("relation", "who translated Province of Ash", set(out(book("Province of Ash"), "translatedBy")))
add("relation", "Which books did Ingrid Halvorsen write?", set(books_of(author("Ingrid Halvorsen"))))

# ---------------- multi-hop
s = find("Series", "The Glass Provinces")
add("multi-hop", "Which publishers published the books of the Glass Provinces series?",
    {p for b in inn(s, "part_of") for p in out(b, "PUBLISHED_BY")})
add("multi-hop", "In which city was the author of Grey Quay born?",
    {c for a in authors_of(book("Grey Quay")) for c in out(a, "born_in")})
add("multi-hop", "Which translators worked on books by Odile Marchetti?",
    {t for b in books_of(author("Odile Marchetti")) for t in out(b, "translatedBy")})
bergen = find("City", "Bergen")
add("multi-hop", "books written by authors who were born in Bergen",
    {b for a in by("Author") if bergen in out(a, "born_in") for b in books_of(a)})
add("multi-hop", "Which library members have borrowed books by Declan Furlong?",
    {m for b in books_of(author("Declan Furlong")) for lo in inn(b, "loanedBook") for m in out(lo, "borrowedBy")})

# ---------------- superlative
bks = by("Book")
mx = max(N[b]["pages"] for b in bks)
add("superlative", "What is the longest book?", {b for b in bks if N[b]["pages"] == mx})
mx = max(N[b]["rating"] for b in bks)
add("superlative", "Which book has the highest rating", {b for b in bks if N[b]["rating"] == mx})
cnt = {a: len(books_of(a)) for a in by("Author")}
mx = max(cnt.values())
add("superlative", "which author has written the most books", {a for a in cnt if cnt[a] == mx})
sold = sorted([b for b in bks if "copies_sold" in N[b]], key=lambda b: -N[b]["copies_sold"])
assert N[sold[2]]["copies_sold"] > N[sold[3]]["copies_sold"]
add("superlative", "top 3 best-selling books", sold[:3])
hl = {a for b in inn(find("Series", "Harbour Lights Mysteries"), "part_of") for a in authors_of(b)}
mn = min(N[a]["born"] for a in hl if "born" in N[a])
add("superlative", "Who is the oldest author with a book in the Harbour Lights Mysteries series?",
    {a for a in hl if N[a].get("born") == mn})

# ---------------- aggregate
add("aggregate", "How many books has Liffey Press published?", num(len(inn(find("Publisher", "Liffey Press"), "PUBLISHED_BY"))))
add("aggregate", "how many poetry books are there", num(len([b for b in bks if N[b]["genre"] == "poetry"])))
add("aggregate", "total copies sold of the Glass Provinces books",
    num(sum(N[b].get("copies_sold", 0) for b in inn(s, "part_of"))))
fb = books_of(author("Declan Furlong"))
add("aggregate", "What's the average page count of Declan Furlong's books", num(sum(N[b]["pages"] for b in fb) / len(fb)))
turin = find("City", "Turin")
add("aggregate", "How many authors were born in Turin", num(len([a for a in by("Author") if turin in out(a, "born_in")])))

# ---------------- comparison
add("comparison", "Which books have more than 500 pages?", {b for b in bks if N[b]["pages"] > 500})
add("comparison", "books published before 1980", {b for b in bks if N[b]["year"] < 1980})
ob = N[author("Odile Marchetti")]["born"]
add("comparison", "Which authors were born before Odile Marchetti?",
    {a for a in by("Author") if "born" in N[a] and N[a]["born"] < ob})
hf = N[find("Publisher", "Harrow & Finch")]["founded"]
add("comparison", "publishers founded later than Harrow & Finch", {p for p in by("Publisher") if N[p]["founded"] > hf})
add("comparison", "Which prizes are worth more than 10000?", {p for p in by("Prize") if N[p]["prize_money"] > 10000})

# ---------------- negation
add("negation", "Which of Declan Furlong's books are not part of a series?", {b for b in fb if not out(b, "part_of")})
add("negation", "Which authors have never won a prize?",
    {a for a in by("Author") if not any(out(b, "WON") for b in books_of(a))})
eo = find("Library", "Edinburgh Old Town Library")
add("negation", "Which books at the Edinburgh Old Town Library have never been borrowed?",
    {b for b in out(eo, "holds") if not inn(b, "loanedBook")})
add("negation", "Which publishers haven't published any poetry?",
    {p for p in by("Publisher") if not any(N[b]["genre"] == "poetry" for b in inn(p, "PUBLISHED_BY"))})
add("negation", "italian-language books that have no translator",
    {b for b in bks if N[b]["language"] == "Italian" and not out(b, "translatedBy")})

# ---------------- conjunction
hfk = find("Publisher", "Harrow & Finch")
add("conjunction", "mystery novels published by Harrow & Finch",
    {b for b in inn(hfk, "PUBLISHED_BY") if N[b]["genre"] == "mystery"})
add("conjunction", "paperbacks written by Beatriz Caldeira",
    {b for b in books_of(author("Beatriz Caldeira")) if N[b]["format"] == "paperback"})
add("conjunction", "Which poetry books are out of print?",
    {b for b in bks if N[b]["genre"] == "poetry" and N[b]["status"] == "out of print"})
add("conjunction", "Show me hardcovers published after 2010",
    {b for b in bks if N[b]["format"] == "hardcover" and N[b]["year"] > 2010})
add("conjunction", "Italian authors born after 1960",
    {a for a in by("Author") if N[a]["nationality"] == "Italy" and N[a].get("born", 0) > 1960})

# ---------------- yes/no
yn = lambda c: "yes" if c else "no"
add("yes/no", "Did Marta Lindquist write Winter Inventory?", yn(book("Winter Inventory") in books_of(author("Marta Lindquist"))))
add("yes/no", "Was The Cartographer's Silence written by Marta Lindquist", yn(book("The Cartographer's Silence") in books_of(author("Marta Lindquist"))))
add("yes/no", "Was Pampa Nocturna published before 1990?", yn(N[book("Pampa Nocturna")]["year"] < 1990))
add("yes/no", "was Orbit of Lanterns published before 2010", yn(N[book("Orbit of Lanterns")]["year"] < 2010))
add("yes/no", "Did Glasswork win the Golden Quill Crime Award?", yn(find("Prize", "Golden Quill Crime Award") in out(book("Glasswork"), "WON")))

with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as f:
    for q in Q: f.write(json.dumps(q, ensure_ascii=False) + "\n")
from collections import Counter
print(len(Q), "questions", dict(Counter(q["type"] for q in Q)))
