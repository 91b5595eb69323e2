//! The language's promises about what a search returns, checked on random graphs and plans
//! (docs/LANGUAGE.md, "How a statement runs"):
//!
//! - `DEPTH` is a hard bound: no result's path, and no expansion, goes past it, whatever the
//!   beam, the budget or the stop rule (the search once deepened itself when insufficient);
//! - `RETURN COUNT` and `RETURN NODES` agree on a pattern: a search that runs to the end of its
//!   pattern returns exactly the nodes the count counts, as does the exact `ORDER BY COUNT`
//!   form, for ordered paths, relation sets, selections, `SEARCH` entries, `TARGET` and `WHERE`;
//! - `RETURN COUNT GROUP BY` counts the distinct (bound node, result) pairs of each group, grouped
//!   by the alias, its property or the result's property (checked against a walk written here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_embed::{Embedder, HashEmbedder};
use cairn_exec::{
    CancelToken, EngineCatalog, Exploration, Explorer, GroupValue, NodeTable, TraceEvent,
};
use cairn_query::{prepare, Compiled};
use cairn_storage_format::Value;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

mod common;

use common::{build, spec, step_text, Db, Spec, Step, LABELS};

fn run(db: &Db, q: &str) -> Exploration {
    let plan = match prepare(q, &EngineCatalog(db.graph.catalog()))
        .unwrap_or_else(|e| panic!("{}", e.render_plain(100)))
    {
        Compiled::Explore(p) => p,
        other => panic!("not an EXPLORE: {other:?}"),
    };
    let embedder = HashEmbedder::new(64);
    let table = NodeTable::build(&db.graph, embedder.id()).unwrap();
    Explorer::new(&db.graph, &embedder, &table)
        .run(&plan, true, &CancelToken::default())
        .unwrap_or_else(|e| panic!("{q}: {e}"))
}

/// A random pattern: an entry (a key, a label selection or a SEARCH), steps as a path or a set
/// (or none: a selection), TARGET and WHERE.
#[derive(Clone, Debug)]
struct Pattern {
    entry: u8,
    from: usize,
    steps: Vec<Step>,
    path: bool,
    depth: u32,
    target: Option<usize>,
    odd: bool,
}

fn pattern() -> impl Strategy<Value = Pattern> {
    (
        0u8..4,
        0usize..20,
        prop::collection::vec((0usize..2, 0u8..3), 0..4),
        any::<bool>(),
        1u32..5,
        prop::option::of(0usize..2),
        any::<bool>(),
    )
        .prop_map(|(entry, from, mut steps, path, depth, target, odd)| {
            // A set lists each step once.
            if !path {
                let mut seen = BTreeSet::new();
                steps.retain(|s| seen.insert(*s));
            }
            Pattern {
                entry,
                from,
                // An ordered path's DEPTH is its length.
                depth: if path && !steps.is_empty() {
                    steps.len() as u32
                } else {
                    depth
                },
                steps,
                path,
                target,
                odd,
            }
        })
}

/// The statement's text without RETURN and search clauses.
fn text(s: &Spec, p: &Pattern) -> String {
    let from = p.from % s.labels.len();
    let entry = match p.entry {
        0 => format!("{} \"n{from}\"", LABELS[s.labels[from]]),
        1 => format!("{} WHERE rank >= 2", LABELS[s.labels[from]]),
        2 => "SEARCH \"node number 3\" TOP 3".to_owned(),
        _ => format!("{} \"n{from}\", B WHERE rank = 1", LABELS[s.labels[from]]),
    };
    let mut q = format!("EXPLORE \"x\" FROM {entry}");
    if !p.steps.is_empty() {
        let steps: Vec<String> = p.steps.iter().map(|st| step_text(*st)).collect();
        let sep = if p.path { " -> " } else { ", " };
        q.push_str(&format!(" VIA {} DEPTH {}", steps.join(sep), p.depth));
    }
    if let Some(t) = p.target {
        q.push_str(&format!(" TARGET {}", LABELS[t]));
    }
    if p.odd {
        q.push_str(" WHERE odd = true");
    }
    q
}

fn keys(e: &Exploration) -> BTreeSet<String> {
    e.results.iter().map(|r| r.key.clone()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn depth_is_never_exceeded(
        s in spec(),
        p in pattern(),
        beam in 1u32..6,
        budget in 1u32..60,
        threshold in 0.5f64..1.0,
    ) {
        prop_assume!(!p.steps.is_empty());
        let db = build(&s);
        // An insufficient `sufficient` stop rule is what once made the search deepen itself.
        let q = format!(
            "{} BEAM {beam} BUDGET {budget} UNTIL sufficient >= {threshold} RETURN TRACE LIMIT 1000",
            text(&s, &p)
        );
        let e = run(&db, &q);
        for r in &e.results {
            prop_assert!(r.hops <= p.depth && r.path.len() as u32 <= p.depth, "{}: {:?}", q, r);
        }
        for t in &e.trace {
            if let TraceEvent::Expand { hops, .. } = t {
                prop_assert!(*hops < p.depth, "{}: expanded at hop {}", q, hops);
            }
        }
    }

    #[test]
    fn count_and_nodes_agree(s in spec(), p in pattern()) {
        let db = build(&s);
        let base = text(&s, &p);
        let count = run(&db, &format!("{base} RETURN COUNT")).count.unwrap();
        // A search that runs to the end of its pattern.
        let search = run(
            &db,
            &format!("{base} BEAM 1024 BUDGET 1000000 FANOUT 1000000 UNTIL steps 1000000 RETURN NODES LIMIT 10000"),
        );
        prop_assert!(!search.incomplete(), "{}: {:?}", base, search.stop);
        prop_assert_eq!(search.results.len() as u64, count, "{}", base);
        // The exact form: the same nodes.
        let exact = run(&db, &format!("{base} RETURN NODES ORDER BY COUNT DESC LIMIT 10000"));
        prop_assert_eq!(keys(&exact), keys(&search), "{}", base);
    }
}

/// The nodes an ordered path of `steps` reaches from node `x` (each level deduplicated).
fn path_ends(s: &Spec, x: usize, steps: &[Step]) -> BTreeSet<usize> {
    let mut level = BTreeSet::from([x]);
    for &(r, d) in steps {
        let mut next = BTreeSet::new();
        for &(a, rel, b) in &s.edges {
            if rel != r {
                continue;
            }
            if d != 1 && level.contains(&a) {
                next.insert(b);
            }
            if d != 0 && level.contains(&b) {
                next.insert(a);
            }
        }
        level = next;
    }
    level
}

/// A grouped aggregate's rows as (the keys' text, the count).
fn group_rows(e: &Exploration) -> BTreeMap<String, i64> {
    e.rows
        .iter()
        .map(|r| {
            let keys: Vec<String> = r
                .keys
                .iter()
                .map(|k| match k {
                    GroupValue::Node(n) => n.key.clone(),
                    GroupValue::Value(Value::Int(i)) => i.to_string(),
                    GroupValue::Value(v) => format!("{v:?}"),
                })
                .collect();
            let count = match r.values.first() {
                Some(Value::Int(i)) => *i,
                other => panic!("a count: {other:?}"),
            };
            (keys.join(","), count)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn a_grouped_count_counts_the_pairs_of_each_group(
        s in spec(),
        steps in prop::collection::vec((0usize..2, 0u8..3), 1..4),
    ) {
        let db = build(&s);
        let via: Vec<String> = steps.iter().map(|st| step_text(*st)).collect();
        let base = format!("EXPLORE \"x\" FROM A AS a VIA {} TARGET B RETURN COUNT", via.join(" -> "));
        // From every A node (the entries), the B nodes its path reaches: the results are B,
        // never an entry, so every pair counts.
        let mut by_a: BTreeMap<String, i64> = BTreeMap::new();
        let mut by_a_rank: BTreeMap<String, i64> = BTreeMap::new();
        let mut results = BTreeSet::new();
        for x in (0..s.labels.len()).filter(|&x| s.labels[x] == 0) {
            let ends: Vec<usize> = path_ends(&s, x, &steps)
                .into_iter()
                .filter(|&e| s.labels[e] == 1)
                .collect();
            if !ends.is_empty() {
                by_a.insert(format!("n{x}"), ends.len() as i64);
                *by_a_rank.entry(((x * 7 % 5) as i64).to_string()).or_insert(0) += ends.len() as i64;
            }
            results.extend(ends);
        }
        let mut by_rank: BTreeMap<String, i64> = BTreeMap::new();
        for e in &results {
            *by_rank.entry(((e * 7 % 5) as i64).to_string()).or_insert(0) += 1;
        }
        let q = format!("{base} GROUP BY a LIMIT 1000");
        prop_assert_eq!(group_rows(&run(&db, &q)), by_a, "{}", q);
        let q = format!("{base} GROUP BY a.rank LIMIT 1000");
        prop_assert_eq!(group_rows(&run(&db, &q)), by_a_rank, "{}", q);
        let q = format!("{base} GROUP BY rank LIMIT 1000");
        prop_assert_eq!(group_rows(&run(&db, &q)), by_rank, "{}", q);
    }
}

#[test]
fn a_cut_search_says_it_is_incomplete() {
    let s = Spec {
        labels: vec![0; 10],
        edges: (0..9).map(|i| (i, 0, i + 1)).collect(),
    };
    let db = build(&s);
    let e = run(
        &db,
        "EXPLORE \"x\" FROM A \"n0\" VIA R DEPTH 9 BEAM 1 BUDGET 2 UNTIL found 100 RETURN NODES",
    );
    assert!(e.incomplete(), "{:?}", e.stop);
    let e = run(
        &db,
        "EXPLORE \"x\" FROM A \"n0\" VIA R DEPTH 9 UNTIL found 100 RETURN NODES",
    );
    assert!(!e.incomplete(), "{:?}", e.stop);
    assert_eq!(e.results.len(), 9);
}
