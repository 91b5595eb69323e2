//! `cairn eval`: question answering measured on a generated academic graph.
//!
//! Questions are written from templates (at least five phrasings per type) about entities drawn
//! from the generator's in-memory [`Academic`] graph, and their gold answers are computed from
//! that same structure — not from the store the agents read — so the store, the import and the
//! agents are all under test. Entities are drawn so each question has one well-defined answer:
//! papers with a title no other paper has, argmax questions without a tie, top-k questions
//! without a tie at the cut, and neighbourhoods of modest size (≤ 30 papers per author).
//!
//! Metrics per type and overall: Accuracy (the answer set equals the gold set), entity-level F1,
//! and Hit@1 (the first answer is in the gold set).

use crate::ask::Asker;
use crate::error::AgentError;
use crate::planner::QuestionType;
use crate::CancelToken;
use cairn_generate::{author_key, paper_key, topic_key, venue_key, Academic};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

/// One evaluation question with its gold answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Question {
    pub qtype: QuestionType,
    /// Which phrasing of its type (index into that type's templates).
    pub template: usize,
    pub text: String,
    /// Node keys, a property value, or a count.
    pub gold: Vec<String>,
}

/// Accuracy, F1 and Hit@1 over a set of questions, each in [0, 1].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Metrics {
    pub questions: usize,
    pub accuracy: f64,
    pub f1: f64,
    pub hit1: f64,
}

/// One wrong answer, for the report.
#[derive(Clone, Debug, PartialEq)]
pub struct Miss {
    pub question: String,
    pub qtype: QuestionType,
    pub gold: Vec<String>,
    pub got: Vec<String>,
    pub error: Option<String>,
}

/// The evaluation's outcome.
#[derive(Clone, Debug)]
pub struct Report {
    pub per_type: BTreeMap<QuestionType, Metrics>,
    pub overall: Metrics,
    /// Phrasings per type.
    pub phrasings: BTreeMap<QuestionType, usize>,
    pub misses: Vec<Miss>,
    pub elapsed: Duration,
    /// Answers the validator flagged uncertain.
    pub uncertain: usize,
}

/// Random-enough, dependency-free, deterministic choice (SplitMix64).
struct Pick(u64);

impl Pick {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Derived structure of the generated graph that the gold answers need.
struct Facts<'a> {
    g: &'a Academic,
    author_papers: Vec<Vec<u32>>,
    citers: Vec<Vec<u32>>,
    venue_papers: Vec<Vec<u32>>,
    unique_title: Vec<bool>,
    /// Whether an author's name is only theirs. The generator draws names from a finite pool,
    /// so two authors may share one; a question about such a name has no one right count or
    /// argmax (ASK answers for every candidate, docs/AGENTS.md), so it is not asked.
    unique_author: Vec<bool>,
}

impl<'a> Facts<'a> {
    fn new(g: &'a Academic) -> Self {
        let mut author_papers = vec![Vec::new(); g.authors.len()];
        let mut citers = vec![Vec::new(); g.papers.len()];
        let mut venue_papers = vec![Vec::new(); g.venues.len()];
        let mut titles: HashMap<String, usize> = HashMap::new();
        for (i, p) in g.papers.iter().enumerate() {
            for a in &p.authors {
                author_papers[*a as usize].push(i as u32);
            }
            for c in &p.cites {
                citers[*c as usize].push(i as u32);
            }
            venue_papers[p.venue as usize].push(i as u32);
            *titles
                .entry(crate::planner::normalize(&p.title))
                .or_default() += 1;
        }
        // A title that is also another node's name (or contains a quote) is not a clean mention.
        let other_names: HashSet<String> = g
            .authors
            .iter()
            .map(|a| &a.name)
            .chain(g.venues.iter().map(|v| &v.name))
            .chain(g.topics.iter().map(|t| &t.name))
            .map(|n| crate::planner::normalize(n))
            .collect();
        let unique_title = g
            .papers
            .iter()
            .map(|p| {
                let n = crate::planner::normalize(&p.title);
                titles.get(&n) == Some(&1) && !other_names.contains(&n) && !p.title.contains('"')
            })
            .collect();
        let mut author_names: HashMap<String, usize> = HashMap::new();
        for a in &g.authors {
            *author_names
                .entry(crate::planner::normalize(&a.name))
                .or_default() += 1;
        }
        let unique_author = g
            .authors
            .iter()
            .map(|a| author_names.get(&crate::planner::normalize(&a.name)) == Some(&1))
            .collect();
        Facts {
            g,
            author_papers,
            citers,
            venue_papers,
            unique_title,
            unique_author,
        }
    }

    fn coauthors(&self, a: usize) -> Vec<String> {
        let mut set: HashSet<u32> = HashSet::new();
        for p in &self.author_papers[a] {
            set.extend(self.g.papers[*p as usize].authors.iter().copied());
        }
        set.remove(&(a as u32));
        keys(set, author_key)
    }

    /// Distinct values of `f` over the author's papers, with multiplicity.
    fn tally(&self, a: usize, f: impl Fn(&cairn_generate::Paper) -> Vec<u32>) -> HashMap<u32, u64> {
        let mut m = HashMap::new();
        for p in &self.author_papers[a] {
            for x in f(&self.g.papers[*p as usize]) {
                *m.entry(x).or_default() += 1;
            }
        }
        m
    }
}

fn keys(set: impl IntoIterator<Item = u32>, key: fn(u32) -> String) -> Vec<String> {
    let mut v: Vec<String> = set.into_iter().map(key).collect();
    v.sort();
    v.dedup();
    v
}

/// The unique argmax of a tally, if there is one.
fn argmax(t: &HashMap<u32, u64>) -> Option<u32> {
    let best = t.values().copied().max()?;
    let top: Vec<u32> = t
        .iter()
        .filter(|(_, c)| **c == best)
        .map(|(k, _)| *k)
        .collect();
    (top.len() == 1).then(|| top[0])
}

/// Phrasings per type.
pub const TEMPLATES: [(QuestionType, &[&str]); 4] = [
    (
        QuestionType::Attribute,
        &[
            "In what year was \"{t}\" published?",
            "When did the paper \"{t}\" come out?",
            "How many citations does \"{t}\" have?",
            "How often has \"{t}\" been cited?",
            "What kind of venue is {v}?",
            "What is the publication year of \"{t}\"?",
        ],
    ),
    (
        QuestionType::Relation,
        &[
            "Who wrote \"{t}\"?",
            "Which papers did {a} write?",
            "Where was \"{t}\" published?",
            "What topics does \"{t}\" cover?",
            "Which papers does \"{t}\" cite?",
            "Which papers cite \"{t}\"?",
            "List the authors of \"{t}\".",
        ],
    ),
    (
        QuestionType::Aggregation,
        &[
            "How many papers did {a} write?",
            "How many papers cite \"{t}\"?",
            "How many papers were published in {v}?",
            "How many co-authors does {a} have?",
            "In which venue has {a} published the most papers?",
            "Which topic does {a} write about most often?",
            "What are the 3 most cited papers by {a}?",
        ],
    ),
    (
        QuestionType::MultiHop,
        &[
            "Who are the co-authors of {a}?",
            "In which venues has {a} published?",
            "What topics has {a} worked on?",
            "Who wrote the papers cited by \"{t}\"?",
            "In which venues were the papers citing \"{t}\" published?",
            "Which authors have collaborated with {a}?",
        ],
    ),
];

/// Authors asked about have between 1 and this many papers.
const MAX_AUTHOR_PAPERS: usize = 30;

/// `per_type` questions of each type, cycling through the phrasings, deterministic in `seed`.
pub fn questions(g: &Academic, per_type: usize, seed: u64) -> Vec<Question> {
    let facts = Facts::new(g);
    let mut pick = Pick(seed ^ 0x00C0_FFEE);
    let mut out = Vec::new();
    for (qtype, templates) in TEMPLATES {
        let mut made = 0;
        let mut tries = 0usize;
        while made < per_type && tries < per_type * 2000 {
            tries += 1;
            let template = made % templates.len();
            if let Some((text, gold)) =
                make(&facts, qtype, template, templates[template], &mut pick)
            {
                out.push(Question {
                    qtype,
                    template,
                    text,
                    gold,
                });
                made += 1;
            }
        }
    }
    out
}

/// One question from one template, or `None` when the drawn entity does not fit it.
fn make(
    f: &Facts<'_>,
    qtype: QuestionType,
    template: usize,
    form: &str,
    pick: &mut Pick,
) -> Option<(String, Vec<String>)> {
    let g = f.g;
    let p = pick.below(g.papers.len());
    let a = pick.below(g.authors.len());
    let v = pick.below(g.venues.len());
    let paper = &g.papers[p];
    let n_papers = f.author_papers[a].len();
    let text = form
        .replace("{t}", &paper.title)
        .replace("{a}", &g.authors[a].name)
        .replace("{v}", &g.venues[v].name);
    let uses_title = form.contains("{t}");
    let uses_author = form.contains("{a}");
    if uses_title && !f.unique_title[p] {
        return None;
    }
    if uses_author && (!f.unique_author[a] || !(1..=MAX_AUTHOR_PAPERS).contains(&n_papers)) {
        return None;
    }
    let gold: Vec<String> = match (qtype, template) {
        (QuestionType::Attribute, 0 | 1 | 5) => vec![paper.year.to_string()],
        (QuestionType::Attribute, 2 | 3) => vec![paper.citations.to_string()],
        (QuestionType::Attribute, 4) => vec![g.venues[v].kind.to_owned()],
        (QuestionType::Relation, 0 | 6) => keys(paper.authors.iter().copied(), author_key),
        (QuestionType::Relation, 1) => keys(f.author_papers[a].iter().copied(), paper_key),
        (QuestionType::Relation, 2) => vec![venue_key(paper.venue)],
        (QuestionType::Relation, 3) => keys(paper.topics.iter().copied(), topic_key),
        (QuestionType::Relation, 4) if !paper.cites.is_empty() => {
            keys(paper.cites.iter().copied(), paper_key)
        }
        (QuestionType::Relation, 5) if (1..=200).contains(&f.citers[p].len()) => {
            keys(f.citers[p].iter().copied(), paper_key)
        }
        (QuestionType::Aggregation, 0) => vec![n_papers.to_string()],
        (QuestionType::Aggregation, 1) if !f.citers[p].is_empty() => {
            vec![f.citers[p].len().to_string()]
        }
        (QuestionType::Aggregation, 2) => vec![f.venue_papers[v].len().to_string()],
        (QuestionType::Aggregation, 3) => vec![f.coauthors(a).len().to_string()],
        (QuestionType::Aggregation, 4) => vec![venue_key(argmax(&f.tally(a, |p| vec![p.venue]))?)],
        (QuestionType::Aggregation, 5) => {
            vec![topic_key(argmax(&f.tally(a, |p| p.topics.clone()))?)]
        }
        (QuestionType::Aggregation, 6) if n_papers > 3 => {
            let mut ps: Vec<u32> = f.author_papers[a].clone();
            ps.sort_by_key(|p| std::cmp::Reverse(g.papers[*p as usize].citations));
            let cut = |i: usize| g.papers[ps[i] as usize].citations;
            if cut(2) == cut(3) {
                return None;
            }
            keys(ps[..3].iter().copied(), paper_key)
        }
        (QuestionType::MultiHop, 0 | 5) => {
            let c = f.coauthors(a);
            if c.is_empty() {
                return None;
            }
            c
        }
        (QuestionType::MultiHop, 1) => keys(
            f.author_papers[a]
                .iter()
                .map(|p| g.papers[*p as usize].venue),
            venue_key,
        ),
        (QuestionType::MultiHop, 2) => keys(
            f.author_papers[a]
                .iter()
                .flat_map(|p| g.papers[*p as usize].topics.clone()),
            topic_key,
        ),
        (QuestionType::MultiHop, 3) if !paper.cites.is_empty() => keys(
            paper
                .cites
                .iter()
                .flat_map(|c| g.papers[*c as usize].authors.clone()),
            author_key,
        ),
        (QuestionType::MultiHop, 4) if (1..=200).contains(&f.citers[p].len()) => keys(
            f.citers[p].iter().map(|c| g.papers[*c as usize].venue),
            venue_key,
        ),
        _ => return None,
    };
    Some((text, gold))
}

/// Scores one answer against its gold: (exact set match, F1, Hit@1).
pub fn score(got: &[String], gold: &[String]) -> (bool, f64, bool) {
    let g: HashSet<&str> = gold.iter().map(String::as_str).collect();
    let a: HashSet<&str> = got.iter().map(String::as_str).collect();
    let hit = a.intersection(&g).count() as f64;
    let f1 = if a.is_empty() && g.is_empty() {
        1.0
    } else if a.is_empty() || g.is_empty() || hit == 0.0 {
        0.0
    } else {
        let (p, r) = (hit / a.len() as f64, hit / g.len() as f64);
        2.0 * p * r / (p + r)
    };
    (
        a == g,
        f1,
        got.first().is_some_and(|x| g.contains(x.as_str())),
    )
}

/// Asks every question and scores the answers. An error counts as a wrong answer.
pub fn evaluate(
    asker: &Asker<'_>,
    questions: &[Question],
    cancel: &CancelToken,
) -> Result<Report, AgentError> {
    let started = Instant::now();
    let mut sums: BTreeMap<QuestionType, (usize, f64, f64, f64)> = BTreeMap::new();
    let mut misses = Vec::new();
    let mut uncertain = 0;
    for q in questions {
        if cancel.is_cancelled() {
            break;
        }
        let (got, error) = match asker.ask(&q.text, cancel) {
            Ok(o) => {
                uncertain += usize::from(o.answer.uncertain);
                (o.answer.values(), None)
            }
            Err(e) => (Vec::new(), Some(e.to_string())),
        };
        let (exact, f1, hit) = score(&got, &q.gold);
        let s = sums.entry(q.qtype).or_default();
        s.0 += 1;
        s.1 += f64::from(u8::from(exact));
        s.2 += f1;
        s.3 += f64::from(u8::from(hit));
        if !exact {
            misses.push(Miss {
                question: q.text.clone(),
                qtype: q.qtype,
                gold: q.gold.clone(),
                got,
                error,
            });
        }
    }
    let metrics = |(n, acc, f1, hit): (usize, f64, f64, f64)| {
        let d = n.max(1) as f64;
        Metrics {
            questions: n,
            accuracy: acc / d,
            f1: f1 / d,
            hit1: hit / d,
        }
    };
    let total = sums.values().fold((0, 0.0, 0.0, 0.0), |t, s| {
        (t.0 + s.0, t.1 + s.1, t.2 + s.2, t.3 + s.3)
    });
    let phrasings: BTreeMap<QuestionType, usize> =
        TEMPLATES.iter().map(|(t, f)| (*t, f.len())).collect();
    Ok(Report {
        per_type: sums.into_iter().map(|(t, s)| (t, metrics(s))).collect(),
        overall: metrics(total),
        phrasings,
        misses,
        elapsed: started.elapsed(),
        uncertain,
    })
}

impl Report {
    /// The Markdown table docs/BENCHMARKS.md shows.
    pub fn table(&self) -> String {
        let mut out = String::from("| type | questions | phrasings | Accuracy | F1 | Hit@1 |\n|---|---:|---:|---:|---:|---:|\n");
        let row = |name: &str, m: &Metrics, phr: String| {
            format!(
                "| {name} | {} | {phr} | {:.1}% | {:.3} | {:.1}% |\n",
                m.questions,
                m.accuracy * 100.0,
                m.f1,
                m.hit1 * 100.0
            )
        };
        for (t, m) in &self.per_type {
            out.push_str(&row(
                t.name(),
                m,
                self.phrasings
                    .get(t)
                    .map(|p| p.to_string())
                    .unwrap_or_default(),
            ));
        }
        out.push_str(&row("**overall**", &self.overall, String::new()));
        out
    }

    /// The report as JSON (metrics, plus up to 50 misses).
    pub fn to_json(&self) -> serde_json::Value {
        let m = |m: &Metrics| serde_json::json!({"questions": m.questions, "accuracy": m.accuracy, "f1": m.f1, "hit1": m.hit1});
        serde_json::json!({
            "per_type": self.per_type.iter().map(|(t, x)| (t.name().to_owned(), m(x))).collect::<serde_json::Map<_, _>>(),
            "overall": m(&self.overall),
            "phrasings": self.phrasings.iter().map(|(t, n)| (t.name().to_owned(), serde_json::json!(n))).collect::<serde_json::Map<_, _>>(),
            "uncertain": self.uncertain,
            "elapsed_s": self.elapsed.as_secs_f64(),
            "misses": self.misses.iter().take(50).map(|x| serde_json::json!({
                "type": x.qtype.name(), "question": x.question, "gold": x.gold, "got": x.got.iter().take(20).collect::<Vec<_>>(), "error": x.error,
            })).collect::<Vec<_>>(),
        })
    }
}
