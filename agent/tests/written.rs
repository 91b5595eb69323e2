//! ASK on a small graph and questions written for it by hand (tests/fixtures/corporate*.jsonl:
//! suppliers, products, staff, customers — a schema no planner rule was written for): every
//! mechanism of the reading (superlatives over a property and over a relation count, counts,
//! aggregates, comparisons with a constant and with another node's value, negation, conditions
//! on a property, yes/no, nested paths) answers, and an answer not marked uncertain is right.
//! Then the same dump imported with its lines shuffled gives every question the same answer,
//! on a graph with same-named nodes (two products "Atlas", a supplier and an employee "Morgan
//! Ellis") and tied rankings. Real RocksDB in temporary directories, imported from real files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_agent::qa::{evaluate_questions, load_questions, QaQuestion};
use cairn_agent::{Asker, CancelToken, NodeTable};
use cairn_embed::{Embedder, HashEmbedder};
use cairn_import::{import_files, ImportOptions};
use cairn_store::{Graph, GraphOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

struct Fixture {
    _dir: tempfile::TempDir,
    graph: Graph,
    embedder: HashEmbedder,
    table: NodeTable,
}

/// A database imported from `lines` (dump lines, in the order given).
fn import(lines: &[String]) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("corporate.jsonl");
    std::fs::write(&dump, lines.join("\n")).unwrap();
    let graph = Graph::open(dir.path().join("db"), GraphOptions::default()).unwrap();
    let options = ImportOptions {
        embedder: Some(Arc::new(HashEmbedder::default())),
        ..Default::default()
    };
    import_files(&graph, &[dump], &options).unwrap();
    let embedder = HashEmbedder::default();
    let table = NodeTable::build(&graph, embedder.id()).unwrap();
    Fixture {
        _dir: dir,
        graph,
        embedder,
        table,
    }
}

fn dump_lines() -> Vec<String> {
    fixture_lines("corporate.jsonl")
}

/// The dump lines of a fixture file.
fn fixture_lines(name: &str) -> Vec<String> {
    std::fs::read_to_string(fixtures().join(name))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// Questions with their gold answers, all of one type.
fn cases_of(cases: &[(&str, &[&str])], qtype: &str) -> Vec<QaQuestion> {
    cases
        .iter()
        .map(|(q, a)| QaQuestion {
            text: (*q).to_owned(),
            answers: a.iter().map(|s| (*s).to_owned()).collect(),
            qtype: qtype.to_owned(),
        })
        .collect()
}

fn questions() -> Vec<QaQuestion> {
    load_questions(&fixtures().join("corporate-questions.jsonl")).unwrap()
}

#[test]
fn written_questions_answer_and_certain_answers_are_right() {
    let f = import(&dump_lines());
    let asker = Asker::new(&f.graph, &f.embedder, &f.table);
    let qs = questions();
    let report = evaluate_questions(&asker, &qs, &CancelToken::default(), &mut |_, _, _| {});
    let lines: Vec<String> = report
        .records
        .iter()
        .map(|r| {
            format!(
                "{} {} {:?} gold {:?} got {:?} ({})",
                if r.exact { "ok  " } else { "MISS" },
                if r.uncertain { "uncertain" } else { "certain" },
                r.question,
                r.gold,
                r.answers,
                r.reading.as_deref().unwrap_or(&r.plan)
            )
        })
        .collect();
    let all = lines.join("\n");
    // An answer the agents are sure of is right.
    for r in &report.records {
        assert!(r.uncertain || r.exact, "wrong but certain:\n{all}");
    }
    // Every kind of question is answered at least once.
    for kind in [
        "superlative",
        "comparison",
        "negation",
        "aggregate",
        "yes/no",
        "attribute",
        "multi-hop",
    ] {
        assert!(
            report.records.iter().any(|r| r.qtype == kind && r.exact),
            "no {kind} question answered:\n{all}"
        );
    }
    assert!(
        report.overall.accuracy >= 0.8,
        "accuracy {:.3}:\n{all}",
        report.overall.accuracy
    );
}

/// Questions whose answers depend on ties: two products named "Atlas", a supplier and an
/// employee both named "Morgan Ellis", two suppliers tied for the most products (s1, s2: three
/// each), two products ordered by the same number of customers besides the first.
const TIED: &[&str] = &[
    "Which suppliers supply Atlas?",
    "What is the price of Atlas?",
    "Who supplies the Atlas?",
    "What is the rating of Morgan Ellis?",
    "Which department does Morgan Ellis work in?",
    "Which supplier supplies the most products?",
    "Which products did Cask & Crown order?",
    "Which product has the lowest price?",
    "How many products are supplied by Kestrel Parts?",
];

/// A fixed permutation of `n` items from `seed` (xorshift, Fisher–Yates).
fn permutation(n: usize, mut seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        order.swap(i, (seed % (i as u64 + 1)) as usize);
    }
    order
}

/// Every question's answer (values in the order given), its certainty and its notes.
fn answers(f: &Fixture, questions: &[String]) -> Vec<(String, Vec<String>, bool, Vec<String>)> {
    let asker = Asker::new(&f.graph, &f.embedder, &f.table);
    questions
        .iter()
        .map(|q| {
            let o = asker.ask(q, &CancelToken::default()).unwrap();
            (
                q.clone(),
                o.answer.values(),
                o.answer.uncertain,
                o.answer.notes.clone(),
            )
        })
        .collect()
}

#[test]
fn shuffling_the_dump_lines_changes_no_answer() {
    let lines = dump_lines();
    let mut asked: Vec<String> = questions().into_iter().map(|q| q.text).collect();
    asked.extend(TIED.iter().map(|q| (*q).to_owned()));
    let first = answers(&import(&lines), &asked);
    // Same-named nodes are asked about and answered (the test means something).
    let atlas = &first[asked.len() - TIED.len()];
    assert!(!atlas.1.is_empty(), "{atlas:?}");
    // The reverse order puts every node after the edges' other ends; shuffles mix the rest.
    let reversed: Vec<String> = lines.iter().rev().cloned().collect();
    let mut orders = vec![reversed];
    for seed in [7u64, 42, 1234] {
        let p = permutation(lines.len(), seed);
        orders.push(p.into_iter().map(|i| lines[i].clone()).collect());
    }
    for (n, order) in orders.iter().enumerate() {
        let again = answers(&import(order), &asked);
        for (a, b) in first.iter().zip(&again) {
            assert_eq!(a, b, "order {n} answered differently");
        }
    }
}

/// A long run of label nouns with no wh-word (each group the other's nearest) is answered or
/// refused, never recursed on without end.
#[test]
fn a_question_of_many_groups_does_not_recurse_without_end() {
    let f = import(&dump_lines());
    let asker = Asker::new(&f.graph, &f.embedder, &f.table);
    for n in [2, 3, 40] {
        let q = "suppliers products employees departments customers ".repeat(n);
        asker.ask(&q, &CancelToken::default()).unwrap();
    }
}

/// Words that name the compared property of the answer's label are that property, not a node
/// of another label bearing them as a name: in "which islands high peak is higher than that of
/// mull", *high peak* is each island's `highest_peak` (compared by its elevation), not the
/// village called High Peak (on Arran, whose peak is lower than Mull's: read so, nothing
/// answers). A small graph written for this test, of another domain than the sets.
#[test]
fn a_compared_property_wins_over_a_node_of_another_label_named_so() {
    let island = |key: &str, name: &str, peak: &str, elevation: u32| {
        format!(
            r#"{{"type": "node", "label": "Island", "key": "{key}", "props": {{"name": "{name}", "highest_peak": "{peak}", "peak_elevation": {elevation}}}}}"#
        )
    };
    let lines = vec![
        island("skye", "Skye", "Sgurr Alasdair", 992),
        island("mull", "Mull", "Ben More", 966),
        island("arran", "Arran", "Goat Fell", 874),
        island("rum", "Rum", "Askival", 812),
        r#"{"type": "node", "label": "Village", "key": "v1", "props": {"name": "High Peak"}}"#.into(),
        r#"{"type": "node", "label": "Village", "key": "v2", "props": {"name": "Portree"}}"#.into(),
        r#"{"type": "edge", "rel": "ON_ISLAND", "from": {"label": "Village", "key": "v1"}, "to": {"label": "Island", "key": "arran"}}"#.into(),
        r#"{"type": "edge", "rel": "ON_ISLAND", "from": {"label": "Village", "key": "v2"}, "to": {"label": "Island", "key": "skye"}}"#.into(),
    ];
    let f = import(&lines);
    let asker = Asker::new(&f.graph, &f.embedder, &f.table);
    let o = asker
        .ask(
            "which islands high peak is higher than that of mull",
            &CancelToken::default(),
        )
        .unwrap();
    let keys: Vec<&str> = o.answer.items.iter().map(|i| i.key.as_str()).collect();
    assert_eq!(keys, ["skye"], "{}\n{:?}", o.plan.header(), o.answer.notes);
    // The village is still linked where no comparison reads the words as a property.
    let o = asker
        .ask("which island is high peak on", &CancelToken::default())
        .unwrap();
    let keys: Vec<&str> = o.answer.items.iter().map(|i| i.key.as_str()).collect();
    assert_eq!(keys, ["arran"], "{}", o.plan.header());
}

/// Yes/no questions check their object and their condition, a text value (or an adjective for
/// it) narrows a set or is checked of a mention, and "top k … by" and "90 thousand" are read:
/// the answers are exact, both ways (a "no" is as checked as a "yes").
#[test]
fn yes_no_objects_conditions_and_text_values_are_checked() {
    let f = import(&dump_lines());
    let asker = Asker::new(&f.graph, &f.embedder, &f.table);
    let cases: &[(&str, &[&str])] = &[
        // the object: an edge to that node, not any edge of the relation
        ("Does Norbridge Supply supply the Vega Router?", &["yes"]),
        ("Does Halvard Components supply the Vega Router?", &["no"]),
        // a comparison of the mention itself ("before" a number: its year)
        ("Was Ivo Petrov hired before 2016?", &["yes"]),
        ("Was Dana Kim hired before 2016?", &["no"]),
        ("Which employees were hired after 2018?", &["e3", "e5"]),
        // a text value before the noun, after it, and as the copula's complement
        (
            "Which networking products does Norbridge Supply supply?",
            &["p1", "p6"],
        ),
        ("Which suppliers are in Toulouse?", &["s1", "s4"]),
        ("Is the Lumen Lamp a lighting product?", &["yes"]),
        ("Is the Tern Saw a networking product?", &["no"]),
        // negated, and a plural of the value
        ("Which suppliers are not in Toulouse?", &["s2", "s3", "s5"]),
        ("Which employees are engineers?", &["e2", "e6"]),
        ("how many tools products are there", &["3"]),
        // an adjective for the noun a value names (French: "France"), of a set and of a mention
        ("Which French suppliers supply the Lumen Lamp?", &["s4"]),
        ("Is Norbridge Supply French?", &["yes"]),
        ("Is Kestrel Parts French?", &["no"]),
        // "top k … by", a number's magnitude word
        ("top 2 products by price", &["p6", "p3"]),
        (
            "Which employees have a salary over 90 thousand?",
            &["e2", "e4", "e6"],
        ),
    ];
    exact_or_unsure(&asker, &cases_of(cases, "exact"), "");
}

/// On a second schema (tests/fixtures/league.jsonl: players, clubs, coaches, stadiums), readings
/// of questions people write: when no word tells relations between the same two labels apart,
/// the general link (`plays_for`, not `captain_of`) is read; "what year was X founded" asks
/// for the time property the verb names, not another label's `*_years`; a negated clause
/// subject ("did X not scout") excludes what X did; "100 million" against budgets written in
/// millions compares with 100. A negation with nothing to scope over, a count property read
/// for its members, and a number read on the data's scale are never certain answers.
#[test]
fn general_links_event_times_and_negated_subjects_are_read() {
    let f = import(&fixture_lines("league.jsonl"));
    let asker = Asker::new(&f.graph, &f.embedder, &f.table);
    let cases: &[(&str, &[&str])] = &[
        ("How many players does Red Harbour have?", &["4"]),
        ("What year was Red Harbour founded?", &["1899"]),
        ("When did Harbour Park open?", &["1954"]),
        // the verb after "did" and its subject names the event, not a label
        ("What year did Harbour Park open?", &["1954"]),
        // budgets written in millions: "100 million" compares with 100
        ("Which clubs have a budget over 100 million?", &["c1"]),
        (
            "Which players of Red Harbour did Lena Voss not scout?",
            &["p2", "p4"],
        ),
        (
            "Which players of Red Harbour has Lena Voss never scouted?",
            &["p2", "p4"],
        ),
    ];
    let mut qs = cases_of(cases, "exact");
    // whatever is answered is unsure: the negation scopes over no mention, group or subject;
    // the squad is its members, not `squad_size`; "100 million" is read on the data's scale
    qs.extend(cases_of(
        &[
            ("Which Red Harbour players did not score?", &[]),
            ("list the squad of Red Harbour", &[]),
            ("Which clubs have a budget over 100 million?", &[]),
        ],
        "unsure",
    ));
    exact_or_unsure(&asker, &qs, "unsure");
}

/// A label by its synonym ("movies" for `Film`), a node by the plural of its name ("both
/// *comedies* and crime films": the genre Comedy), a person noun by the relation it is the
/// agent of ("the oldest *director*": of those who `DIRECTED`, not the oldest person), and a
/// superlative whose adjective WordNet only places about as near one property as another ("the
/// longest movie" where the runtime is a word it lacks, by `rating` or `release_year`): that
/// guess is never certain.
#[test]
fn synonyms_plural_names_agent_nouns_and_guessed_adjectives() {
    let mut lines = Vec::new();
    let node = |label: &str, key: &str, props: &str| {
        format!(r#"{{"type":"node","label":"{label}","key":"{key}","props":{{{props}}}}}"#)
    };
    for (key, name) in [("g1", "Comedy"), ("g2", "Crime"), ("g3", "Drama")] {
        lines.push(node("Genre", key, &format!(r#""name":"{name}""#)));
    }
    let films = [
        ("f1", "Sugar Run", 131, 7.1, 2001, &["g1", "g2"][..]),
        ("f2", "Cold Pier", 98, 8.4, 2011, &["g2"][..]),
        ("f3", "Paper Kings", 142, 6.2, 1995, &["g1", "g3"][..]),
        ("f4", "Night Ledger", 117, 7.7, 2019, &["g2", "g3"][..]),
    ];
    for (key, name, runtime, rating, year, genres) in films {
        lines.push(node(
            "Film",
            key,
            &format!(
                r#""name":"{name}","runtime":{runtime},"rating":{rating},"release_year":{year}"#
            ),
        ));
        for g in genres {
            lines.push(format!(
                r#"{{"type":"edge","rel":"HAS_GENRE","from":{{"label":"Film","key":"{key}"}},"to":{{"label":"Genre","key":"{g}"}}}}"#
            ));
        }
    }
    // directors and actors: a person noun is the agent of its verb's relation
    for (key, name, born, directed, acted) in [
        ("p1", "Ada Wren", 1950, &["f1", "f3"][..], &[][..]),
        ("p2", "Bo Lind", 1970, &["f2"][..], &["f1", "f2"][..]),
        ("p3", "Cy Moss", 1940, &[][..], &["f3", "f4"][..]),
    ] {
        lines.push(node(
            "Person",
            key,
            &format!(r#""name":"{name}","born":{born}"#),
        ));
        for (rel, films) in [("DIRECTED", directed), ("ACTED_IN", acted)] {
            for film in films {
                lines.push(format!(
                    r#"{{"type":"edge","rel":"{rel}","from":{{"label":"Person","key":"{key}"}},"to":{{"label":"Film","key":"{film}"}}}}"#
                ));
            }
        }
    }
    let f = import(&lines);
    let asker = Asker::new(&f.graph, &f.embedder, &f.table);
    let mut qs = cases_of(
        &[
            ("Who is the oldest director?", &["p1"]),
            ("Which actors were born before 1960?", &["p3"]),
            ("How many movies are there?", &["4"]),
            ("Which movies are both comedies and crime films?", &["f1"]),
        ],
        "exact",
    );
    qs.extend(cases_of(&[("what is the longest movie", &["f3"])], "guess"));
    exact_or_unsure(&asker, &qs, "guess");
}

/// Asks `qs`: each of type `unsure` must come back uncertain, every other exactly right.
fn exact_or_unsure(asker: &Asker<'_>, qs: &[QaQuestion], unsure: &str) {
    let report = evaluate_questions(asker, qs, &CancelToken::default(), &mut |_, _, _| {});
    for r in &report.records {
        let shown = r.reading.as_deref().unwrap_or(&r.plan);
        if r.qtype == unsure {
            assert!(
                r.uncertain,
                "{:?} answered as certain ({shown})",
                r.question
            );
        } else {
            assert!(
                r.exact,
                "{:?}: gold {:?}, got {:?} ({shown})",
                r.question, r.gold, r.answers
            );
        }
    }
}
