//! The executor on small hand-built graphs with known answers, one test per behaviour.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_embed::{Embedder, HashEmbedder};
use cairn_exec::{
    CancelToken, EngineCatalog, Exploration, Explorer, Judge, NodeTable, ResultNode, StopReason,
    TraceEvent,
};
use cairn_query::{prepare, Compiled, Plan};
use cairn_storage_format::{NodeId, Value};
use cairn_store::{Graph, GraphOptions};
use std::collections::HashMap;

struct Fixture {
    _dir: tempfile::TempDir,
    graph: Graph,
    ids: HashMap<String, NodeId>,
}

/// Builds a graph from `Label:key name` nodes and `key REL key` edges.
fn build(
    nodes: &[(&str, &str, &str)],
    edges: &[(&str, &str, &str)],
    parents: &[(&str, &str)],
) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let graph = Graph::open(dir.path(), GraphOptions::default()).unwrap();
    let mut ids = HashMap::new();
    let mut w = graph.writer().unwrap();
    for (label, key, name) in nodes {
        let id = w
            .upsert_node(label, key, [("name", Value::from(*name))], None)
            .unwrap();
        ids.insert(key.to_string(), id);
    }
    for (a, rel, b) in edges {
        w.add_edge(ids[*a], rel, ids[*b], Default::default())
            .unwrap();
    }
    for (child, parent) in parents {
        w.set_relation_parent(child, Some(parent)).unwrap();
    }
    w.commit().unwrap();
    Fixture {
        _dir: dir,
        graph,
        ids,
    }
}

fn plan(f: &Fixture, q: &str) -> Plan {
    match prepare(q, &EngineCatalog(f.graph.catalog()))
        .unwrap_or_else(|e| panic!("{}", e.render_plain(100)))
    {
        Compiled::Explore(p) => p,
        other => panic!("not an EXPLORE: {other:?}"),
    }
}

fn run_with(f: &Fixture, q: &str, judge: Option<&dyn Judge>, cancel: &CancelToken) -> Exploration {
    let embedder = HashEmbedder::new(256);
    let table = NodeTable::build(&f.graph, embedder.id()).unwrap();
    let mut ex = Explorer::new(&f.graph, &embedder, &table);
    if let Some(j) = judge {
        ex = ex.with_judge(j);
    }
    ex.run(&plan(f, q), true, cancel).unwrap()
}

fn run(f: &Fixture, q: &str) -> Exploration {
    run_with(f, q, None, &CancelToken::default())
}

fn keys(results: &[ResultNode]) -> Vec<String> {
    results.iter().map(|r| r.key.clone()).collect()
}

fn expansions(e: &Exploration) -> HashMap<NodeId, usize> {
    let mut m = HashMap::new();
    for ev in &e.trace {
        if let TraceEvent::Expand { node, .. } = ev {
            *m.entry(*node).or_insert(0) += 1;
        }
    }
    m
}

/// A small academic graph: two authors, their papers, venues.
fn academic() -> Fixture {
    build(
        &[
            ("Author", "han", "Jiawei Han"),
            ("Author", "yu", "Philip Yu"),
            ("Author", "lone", "Lone Wolf"),
            ("Paper", "p1", "frequent pattern mining"),
            ("Paper", "p2", "graph pattern mining"),
            ("Paper", "p3", "stream clustering"),
            ("Paper", "p4", "medieval poetry"),
            ("Venue", "kdd", "KDD data mining conference"),
            ("Venue", "icde", "ICDE data engineering"),
            ("Venue", "arts", "Poetry review"),
        ],
        &[
            ("han", "AUTHORED", "p1"),
            ("han", "AUTHORED", "p2"),
            ("yu", "AUTHORED", "p2"),
            ("yu", "AUTHORED", "p3"),
            ("lone", "AUTHORED", "p4"),
            ("p1", "PUBLISHED_IN", "kdd"),
            ("p2", "PUBLISHED_IN", "kdd"),
            ("p3", "PUBLISHED_IN", "icde"),
            ("p4", "PUBLISHED_IN", "arts"),
            ("p2", "CITES", "p1"),
            ("p3", "CITES", "p2"),
        ],
        &[],
    )
}

#[test]
fn ordered_path_finds_the_known_answer_with_evidence() {
    let f = academic();
    let e = run(
        &f,
        r#"EXPLORE "venues where Jiawei Han's co-authors publish" FROM Author "han"
           VIA AUTHORED -> <AUTHORED -> AUTHORED -> PUBLISHED_IN TARGET Venue UNTIL depth 4"#,
    );
    let mut got = keys(&e.results);
    got.sort();
    assert_eq!(got, vec!["icde", "kdd"], "{e:#?}");
    assert_eq!(e.stop, StopReason::Depth);
    // The evidence path of ICDE: han -AUTHORED-> p2 <-AUTHORED- yu -AUTHORED-> p3 -PUBLISHED_IN-> icde.
    let icde = e.results.iter().find(|r| r.key == "icde").unwrap();
    let rels: Vec<(&str, bool)> = icde
        .path
        .iter()
        .map(|s| (s.relation.as_str(), s.reversed))
        .collect();
    assert_eq!(
        rels,
        vec![
            ("AUTHORED", false),
            ("AUTHORED", true),
            ("AUTHORED", false),
            ("PUBLISHED_IN", false)
        ]
    );
    assert_eq!(icde.path[0].from, f.ids["han"]);
    assert_eq!(icde.path[3].to, f.ids["icde"]);
    assert!(
        !e.results.iter().any(|r| r.key == "arts"),
        "an unrelated venue is not reachable by that path"
    );
}

#[test]
fn stop_found() {
    let f = academic();
    let e = run(
        &f,
        r#"EXPLORE "papers" FROM Author "han" VIA ANY TARGET Paper UNTIL found 2"#,
    );
    assert_eq!(e.stop, StopReason::Found);
    assert!(e.results.len() >= 2);
}

#[test]
fn stop_found_with_label() {
    let f = academic();
    let e = run(
        &f,
        r#"EXPLORE "venues" FROM Author "han" VIA ANY UNTIL found 1 Venue"#,
    );
    assert_eq!(e.stop, StopReason::Found);
    assert!(e.results.iter().any(|r| r.label == "Venue"));
}

#[test]
fn stop_sufficient() {
    let f = academic();
    // Coverage: the TARGET label is met as soon as a venue is a result; threshold low enough.
    let e = run(
        &f,
        r#"EXPLORE "data mining venue" FROM Author "han" VIA ANY TARGET Venue UNTIL sufficient >= 0.5"#,
    );
    assert_eq!(e.stop, StopReason::Sufficient, "{:?}", e.sufficiency);
    assert!(e.sufficiency >= 0.5);
}

#[test]
fn stop_stale() {
    let f = academic();
    let e = run(
        &f,
        r#"EXPLORE "anything" FROM Author "lone" VIA ANY DEPTH 10 UNTIL stale 1"#,
    );
    assert_eq!(e.stop, StopReason::Stale);
}

#[test]
fn stop_steps_and_budget_cap_are_exact() {
    let f = academic();
    let e = run(
        &f,
        r#"EXPLORE "x" FROM Author "han" VIA ANY DEPTH 10 UNTIL steps 3"#,
    );
    assert_eq!(e.stop, StopReason::Steps);
    assert_eq!(e.stats.nodes_expanded, 3);
    let e = run(
        &f,
        r#"EXPLORE "x" FROM Author "han" VIA ANY DEPTH 10 BUDGET 4 UNTIL found 100"#,
    );
    assert_eq!(e.stop, StopReason::BudgetCap);
    assert_eq!(e.stats.nodes_expanded, 4, "the budget is spent exactly");
    let e = run(
        &f,
        r#"EXPLORE "x" FROM Author "han" VIA ANY DEPTH 10 BEAM 1 BUDGET 1 UNTIL found 100"#,
    );
    assert_eq!(e.stats.nodes_expanded, 1);
}

#[test]
fn stop_depth_condition_and_depth_cap() {
    let f = academic();
    let e = run(
        &f,
        r#"EXPLORE "x" FROM Author "han" VIA ANY DEPTH 5 UNTIL depth 1"#,
    );
    assert_eq!(e.stop, StopReason::Depth);
    assert!(e.results.iter().all(|r| r.hops <= 1));
    // No sufficiency condition: no adaptive expansion, the plan's depth is the cap.
    let e = run(
        &f,
        r#"EXPLORE "x" FROM Author "han" VIA AUTHORED DEPTH 1 UNTIL found 100"#,
    );
    assert_eq!(e.stop, StopReason::DepthCap);
}

#[test]
fn stop_exhausted() {
    let f = academic();
    let e = run(
        &f,
        r#"EXPLORE "x" FROM Author "lone" VIA ANY DEPTH 16 UNTIL found 100"#,
    );
    assert_eq!(e.stop, StopReason::Exhausted);
    let mut got = keys(&e.results);
    got.sort();
    // The entry, picked by key, is where the search starts, not one of its results.
    assert_eq!(got, vec!["arts", "p4"]);
}

#[test]
fn stop_time() {
    // A 100-node clique: the second round alone scans 9,900 edges, well over a millisecond.
    let names: Vec<String> = (0..100).map(|i| format!("n{i}")).collect();
    let nodes: Vec<(&str, &str, &str)> = names
        .iter()
        .map(|n| ("N", n.as_str(), n.as_str()))
        .collect();
    let edges: Vec<(&str, &str, &str)> = names
        .iter()
        .flat_map(|a| {
            names
                .iter()
                .filter(move |b| *b != a)
                .map(move |b| (a.as_str(), "R", b.as_str()))
        })
        .collect();
    let f = build(&nodes, &edges, &[]);
    let e = run(
        &f,
        r#"EXPLORE "x" FROM N "n0" VIA R BEAM 1024 DEPTH 16 UNTIL time 1ms"#,
    );
    assert_eq!(e.stop, StopReason::Time);
}

#[test]
fn stop_judge_uses_the_judge() {
    struct Yes;
    impl Judge for Yes {
        fn enough(&self, _: &str, results: &[ResultNode], _: f64) -> bool {
            results.iter().any(|r| r.label == "Venue")
        }
    }
    let f = academic();
    let e = run_with(
        &f,
        r#"EXPLORE "x" FROM Author "han" VIA ANY DEPTH 10 UNTIL judge"#,
        Some(&Yes),
        &CancelToken::default(),
    );
    assert_eq!(e.stop, StopReason::Judge);
    assert!(e.results.iter().any(|r| r.label == "Venue"));
    // Offline, `judge` falls back to sufficiency.
    let e = run(
        &f,
        r#"EXPLORE "data mining venue" FROM Author "han" VIA ANY TARGET Venue DEPTH 10 UNTIL judge"#,
    );
    assert!(
        matches!(e.stop, StopReason::Judge | StopReason::Exhausted),
        "{:?}",
        e.stop
    );
}

#[test]
fn stop_cancelled() {
    let f = academic();
    let cancel = CancelToken::default();
    cancel.cancel();
    let e = run_with(
        &f,
        r#"EXPLORE "x" FROM Author "han" VIA ANY DEPTH 10 UNTIL found 100"#,
        None,
        &cancel,
    );
    assert_eq!(e.stop, StopReason::Cancelled);
    assert_eq!(e.stats.nodes_expanded, 0);
}

#[test]
fn a_written_depth_is_a_hard_bound_a_default_one_adapts() {
    // Venues are two hops from an author: a written DEPTH 1 never reaches them, however
    // insufficient the evidence.
    let f = academic();
    // A written DEPTH is a hard cap: no adaptive expansion past it, no venue two hops away.
    let e = run(
        &f,
        r#"EXPLORE "venue" FROM Author "han" VIA ANY TARGET Venue DEPTH 1 UNTIL sufficient >= 0.99"#,
    );
    assert_eq!(e.stats.adaptive_expansions, 0, "{:?}", e.stats);
    assert!(e.results.is_empty(), "{:?}", e.results);
    assert_eq!(e.stop, StopReason::DepthCap);
    let e = run(
        &f,
        r#"EXPLORE "venue" FROM Author "han" VIA ANY DEPTH 1 UNTIL sufficient >= 0.99"#,
    );
    assert!(e.results.iter().all(|r| r.hops <= 1 && r.path.len() <= 1));
    assert!(e
        .trace
        .iter()
        .all(|t| !matches!(t, TraceEvent::Expand { hops, .. } if *hops >= 1)));
    // The default depth (3, not written) grows when the results are insufficient.
    let e = run(
        &f,
        r#"EXPLORE "venue" FROM Author "han" VIA ANY TARGET Venue UNTIL sufficient >= 0.99"#,
    );
    assert!(e.stats.adaptive_expansions >= 1, "{:?}", e.stats);
    assert!(e.stats.adaptive_expansions <= 2);
    assert!(
        e.results.iter().any(|r| r.label == "Venue"),
        "the search reached venues"
    );
    assert!(e
        .trace
        .iter()
        .any(|t| matches!(t, TraceEvent::Adapt { .. })));
}

#[test]
fn cycles_terminate_and_nodes_expand_once() {
    // A clique of 8 nodes plus a ring: every node reachable many ways.
    let names: Vec<String> = (0..8).map(|i| format!("n{i}")).collect();
    let nodes: Vec<(&str, &str, &str)> = names
        .iter()
        .map(|n| ("N", n.as_str(), n.as_str()))
        .collect();
    let mut edges = Vec::new();
    for a in &names {
        for b in &names {
            if a != b {
                edges.push((a.as_str(), "R", b.as_str()));
            }
        }
    }
    let f = build(&nodes, &edges, &[]);
    let e = run(
        &f,
        r#"EXPLORE "n" FROM N "n0" VIA R, <R DEPTH 16 BEAM 4 UNTIL found 1000"#,
    );
    assert!(
        matches!(e.stop, StopReason::Exhausted | StopReason::DepthCap),
        "{:?}",
        e.stop
    );
    for (node, n) in expansions(&e) {
        assert!(
            n <= 1 + cairn_exec::explore::MAX_REVISITS as usize,
            "{node} expanded {n} times"
        );
    }
    // Every node but the entry.
    assert_eq!(e.results.len(), 7);
    // With one relation sequence per depth the revisit rule cannot fire: exactly once each.
    let e = run(
        &f,
        r#"EXPLORE "n" FROM N "n0" VIA R DEPTH 16 BEAM 4 UNTIL found 1000"#,
    );
    assert!(
        expansions(&e).values().all(|&n| n == 1),
        "{:?}",
        expansions(&e)
    );
}

#[test]
fn revisit_through_a_different_relation_sequence_with_a_clearly_better_score() {
    // e -WEAK-> x is followed first (weight 0.1); e -GOOD-> y -GOOD-> x reaches x again with a
    // much better score through another relation sequence, so x is expanded a second time.
    let f = build(
        &[
            ("N", "e", "entry"),
            ("N", "x", "target hub"),
            ("N", "y", "bridge"),
            ("N", "z", "beyond x"),
        ],
        &[
            ("e", "WEAK", "x"),
            ("e", "GOOD", "y"),
            ("y", "GOOD", "x"),
            ("x", "GOOD", "z"),
        ],
        &[],
    );
    let e = run(
        &f,
        r#"EXPLORE "x" FROM N "e" VIA WEAK:0.1, GOOD DEPTH 5 BEAM 4 UNTIL found 1000"#,
    );
    let x = f.ids["x"];
    assert!(
        e.trace
            .iter()
            .any(|t| matches!(t, TraceEvent::Revisit { node, .. } if *node == x)),
        "{:#?}",
        e.trace
    );
    assert_eq!(expansions(&e)[&x], 2);
    // The same shape with equal weights: the second path is not clearly better, no revisit.
    let e = run(
        &f,
        r#"EXPLORE "x" FROM N "e" VIA WEAK, GOOD DEPTH 5 BEAM 4 UNTIL found 1000"#,
    );
    assert_eq!(expansions(&e)[&x], 1);
}

#[test]
fn hierarchy_fallback_to_sibling_relations() {
    let f = build(
        &[
            ("Person", "ann", "Ann"),
            ("Org", "uni", "University"),
            ("Org", "lab", "Lab"),
        ],
        &[("ann", "VISITED", "lab"), ("ann", "STUDIED_AT", "uni")],
        &[
            ("WORKS_AT", "AFFILIATED_WITH"),
            ("VISITED", "AFFILIATED_WITH"),
            ("STUDIED_AT", "AFFILIATED_WITH"),
        ],
    );
    let e = run(
        &f,
        r#"EXPLORE "where does Ann work" FROM Person "ann" VIA WORKS_AT TARGET Org UNTIL found 10"#,
    );
    let mut got = keys(&e.results);
    got.sort();
    assert_eq!(
        got,
        vec!["lab", "uni"],
        "found through the siblings of WORKS_AT"
    );
    assert!(e.trace.iter().any(|t| matches!(t, TraceEvent::Fallback { relation, parent, .. } if relation == "WORKS_AT" && parent == "AFFILIATED_WITH")));
    // a filter sees the records of neighbours the hierarchy check scored first
    let e = run(
        &f,
        r#"EXPLORE "where did Ann go" FROM Person "ann" VIA VISITED TARGET Org WHERE name = "Lab" UNTIL found 10"#,
    );
    assert_eq!(keys(&e.results), vec!["lab"]);
}

#[test]
fn where_filters_and_target_restrict_results() {
    let f = academic();
    let e = run(
        &f,
        r#"EXPLORE "papers" FROM Author "han" VIA ANY TARGET Paper WHERE name = "graph pattern mining" DEPTH 3 UNTIL found 100"#,
    );
    assert_eq!(keys(&e.results), vec!["p2"]);
    // the same through a named relation
    let e = run(
        &f,
        r#"EXPLORE "papers" FROM Author "han" VIA AUTHORED TARGET Paper WHERE name = "graph pattern mining" UNTIL found 100"#,
    );
    assert_eq!(keys(&e.results), vec!["p2"]);
}

#[test]
fn entry_forms() {
    let f = academic();
    let by_match = run(
        &f,
        r#"EXPLORE "x" FROM Author WHERE name = "Philip Yu" VIA AUTHORED TARGET Paper UNTIL found 100"#,
    );
    let mut got = keys(&by_match.results);
    got.sort();
    assert_eq!(got, vec!["p2", "p3"]);
    let id = f.ids["yu"].0;
    let by_id = run(
        &f,
        &format!(r#"EXPLORE "x" FROM #{id} VIA AUTHORED TARGET Paper UNTIL found 100"#),
    );
    assert_eq!(keys(&by_id.results).len(), 2);
    let by_search = run(
        &f,
        r#"EXPLORE "poetry" FROM SEARCH "medieval poetry" IN Paper TOP 1 VIA ANY UNTIL depth 1"#,
    );
    assert!(
        by_search
            .trace
            .iter()
            .any(|t| matches!(t, TraceEvent::Entry { node, .. } if *node == f.ids["p4"])),
        "{:?}",
        by_search.trace
    );
}

#[test]
fn same_data_and_plan_give_the_same_result() {
    let f = academic();
    let q = r#"EXPLORE "data mining venues" FROM SEARCH "pattern mining" TOP 2 VIA ANY BEAM 2 DEPTH 4 UNTIL found 100"#;
    let a = run(&f, q);
    let b = run(&f, q);
    assert_eq!(a.results, b.results);
    assert_eq!(a.trace, b.trace);
    assert_eq!(
        (a.stop, a.stats.nodes_expanded, a.stats.edges_scanned),
        (b.stop, b.stats.nodes_expanded, b.stats.edges_scanned)
    );
}

#[test]
fn fanout_thins_a_hub_to_an_evenly_spaced_sample() {
    let papers: Vec<String> = (0..10).map(|i| format!("p{i}")).collect();
    let mut nodes = vec![("Author", "hub", "Prolific Author")];
    nodes.extend(papers.iter().map(|k| ("Paper", k.as_str(), "a paper")));
    let edges: Vec<(&str, &str, &str)> = papers
        .iter()
        .map(|k| ("hub", "AUTHORED", k.as_str()))
        .collect();
    let f = build(&nodes, &edges, &[]);
    let q = |fanout: &str| {
        format!(
            r#"EXPLORE "papers" FROM Author "hub" VIA AUTHORED TARGET Paper DEPTH 1 {fanout}
               UNTIL found 100 RETURN NODES LIMIT 100"#
        )
    };

    let thin = run(&f, &q("FANOUT 3"));
    assert_eq!(thin.results.len(), 3, "only the sample is scored");
    assert_eq!(thin.stats.neighbors_sampled_out, 7);
    assert!(
        thin.trace.iter().any(|t| matches!(
            t,
            TraceEvent::Sampled { node, kept: 3, of: 10 } if *node == f.ids["hub"]
        )),
        "{:?}",
        thin.trace
    );
    assert_eq!(
        run(&f, &q("FANOUT 3")).results,
        thin.results,
        "deterministic"
    );

    for all in ["FANOUT 10", ""] {
        let e = run(&f, &q(all));
        assert_eq!(e.results.len(), 10, "{all:?} scores every paper");
        assert_eq!(e.stats.neighbors_sampled_out, 0);
        assert!(!e
            .trace
            .iter()
            .any(|t| matches!(t, TraceEvent::Sampled { .. })));
    }
}

/// Connectivity counts the edges the search can go on through, not the node's whole degree:
/// of an author's two papers, the one with four co-authors is expanded before the one with a
/// single co-author and many citations, though the latter has the larger degree.
#[test]
fn connectivity_counts_the_edges_the_search_can_follow() {
    let mut nodes = vec![
        ("Author", "x", "x"),
        ("Paper", "cited", "c"),
        ("Paper", "team", "t"),
        ("Author", "solo", "s"),
    ];
    let citing: Vec<String> = (0..12).map(|i| format!("citing{i}")).collect();
    let team: Vec<String> = (0..4).map(|i| format!("member{i}")).collect();
    for k in &citing {
        nodes.push(("Paper", k, "z"));
    }
    for k in &team {
        nodes.push(("Author", k, "m"));
    }
    let mut edges = vec![
        ("x", "AUTHORED", "cited"),
        ("x", "AUTHORED", "team"),
        ("solo", "AUTHORED", "cited"),
    ];
    for k in &citing {
        edges.push((k.as_str(), "CITES", "cited"));
    }
    for k in &team {
        edges.push((k.as_str(), "AUTHORED", "team"));
    }
    let f = build(&nodes, &edges, &[]);
    let table_degree = |key: &str| {
        let embedder = HashEmbedder::new(256);
        NodeTable::build(&f.graph, embedder.id())
            .unwrap()
            .degree(f.ids[key])
    };
    assert!(table_degree("cited") > table_degree("team"));
    let e = run(
        &f,
        "EXPLORE \"co-authors\" FROM Author \"x\" VIA AUTHORED -> <AUTHORED \
         SCORE connectivity 1 BEAM 1 RETURN TRACE",
    );
    let expanded: Vec<NodeId> = e
        .trace
        .iter()
        .filter_map(|ev| match ev {
            TraceEvent::Expand { node, hops: 1, .. } => Some(*node),
            _ => None,
        })
        .collect();
    assert_eq!(expanded.first(), Some(&f.ids["team"]), "{:?}", e.trace);
    let scored = |key: &str| {
        e.trace.iter().find_map(|ev| match ev {
            TraceEvent::Scored {
                node, connectivity, ..
            } if *node == f.ids[key] => Some(*connectivity),
            _ => None,
        })
    };
    assert!(scored("team").unwrap() > scored("cited").unwrap());
}

mod limit {
    use super::*;
    use proptest::prelude::*;

    const WORDS: &[&str] = &[
        "graph", "mining", "stream", "poetry", "data", "pattern", "cluster",
    ];

    /// A random graph of `n` nodes labelled A or B, named from a small vocabulary.
    fn graph(n: usize, names: &[(bool, u8, u8)], edges: &[(usize, usize, bool)]) -> Fixture {
        let keys: Vec<String> = (0..n).map(|i| format!("n{i}")).collect();
        let labelled: Vec<(&str, &str, String)> = (0..n)
            .map(|i| {
                // n0 (the entry) is an A, n1 a B: both labels exist.
                let (b, w1, w2) = names[i];
                let b = i == 1 || (b && i != 0);
                let name = format!(
                    "{} {}",
                    WORDS[w1 as usize % WORDS.len()],
                    WORDS[w2 as usize % WORDS.len()]
                );
                (if b { "B" } else { "A" }, keys[i].as_str(), name)
            })
            .collect();
        let nodes: Vec<(&str, &str, &str)> = labelled
            .iter()
            .map(|(l, k, name)| (*l, *k, name.as_str()))
            .collect();
        let es: Vec<(&str, &str, &str)> = edges
            .iter()
            .map(|(a, b, r)| {
                (
                    keys[a % n].as_str(),
                    if *r { "R" } else { "S" },
                    keys[b % n].as_str(),
                )
            })
            .collect();
        build(&nodes, &es, &[])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// LIMIT only cuts the ranking: for the same stop rule, the best k results are the
        /// first k of the best k + 1.
        #[test]
        fn top_k_is_a_prefix_of_top_k_plus_one(
            n in 6usize..30,
            names in proptest::collection::vec((any::<bool>(), any::<u8>(), any::<u8>()), 30),
            edges in proptest::collection::vec((0usize..30, 0usize..30, any::<bool>()), 10..80),
            rule in 0usize..5,
            found in 1u32..12,
        ) {
            let f = graph(n, &names, &edges);
            let until = [
                String::new(),
                format!("UNTIL found {found}"),
                "UNTIL stale 1".to_owned(),
                format!("UNTIL found {found} B OR stale 2"),
                "UNTIL sufficient >= 0.6".to_owned(),
            ][rule].clone();
            let ranked = |k: u32| -> Vec<(String, u64)> {
                run(&f, &format!(
                    r#"EXPLORE "graph mining data" FROM A "n0" VIA ANY BEAM 2 DEPTH 4 {until} RETURN NODES LIMIT {k}"#
                ))
                .results
                .iter()
                .map(|r| (r.key.clone(), r.score.to_bits()))
                .collect()
            };
            let mut longer = ranked(1);
            for k in 1..8 {
                let shorter = longer;
                longer = ranked(k + 1);
                prop_assert!(shorter.len() <= k as usize);
                let cut = &longer[..shorter.len().min(longer.len())];
                prop_assert_eq!(&shorter[..], cut, "LIMIT {} vs {} under `{}`", k, k + 1, until);
            }
        }
    }
}

/// A pseudo-random league: players play for clubs and have nationalities; clubs are in cities.
/// Returns the fixture and its edges, for brute-force answers.
fn league(seed: u64) -> (Fixture, Vec<(String, String, String)>) {
    let mut x = seed;
    let mut next = move |n: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % n
    };
    let mut nodes: Vec<(String, String, String)> = Vec::new();
    for c in 0..4 {
        nodes.push(("Club".into(), format!("c{c}"), format!("club {c}")));
    }
    for k in 0..3 {
        nodes.push(("Country".into(), format!("k{k}"), format!("country {k}")));
    }
    for t in 0..2 {
        nodes.push(("City".into(), format!("t{t}"), format!("city {t}")));
    }
    let mut edges: Vec<(String, String, String)> = Vec::new();
    for p in 0..60 {
        nodes.push(("Player".into(), format!("p{p}"), format!("player {p}")));
        for _ in 0..=next(2) {
            edges.push((format!("p{p}"), "plays_for".into(), format!("c{}", next(4))));
        }
        edges.push((
            format!("p{p}"),
            "nationality".into(),
            format!("k{}", next(3)),
        ));
    }
    for c in 0..4 {
        edges.push((format!("c{c}"), "located_in".into(), format!("t{}", c % 2)));
    }
    edges.sort();
    edges.dedup();
    let n: Vec<(&str, &str, &str)> = nodes
        .iter()
        .map(|(l, k, m)| (l.as_str(), k.as_str(), m.as_str()))
        .collect();
    let e: Vec<(&str, &str, &str)> = edges
        .iter()
        .map(|(a, r, b)| (a.as_str(), r.as_str(), b.as_str()))
        .collect();
    (build(&n, &e, &[]), edges)
}

/// The sources of `rel` edges into `to`.
fn sources(edges: &[(String, String, String)], rel: &str, to: &[String]) -> Vec<String> {
    let mut out: Vec<String> = edges
        .iter()
        .filter(|(_, r, b)| r == rel && to.contains(b))
        .map(|(a, _, _)| a.clone())
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn meet_returns_the_exact_intersection_of_both_sides() {
    for seed in 1..6 {
        let (f, edges) = league(seed);
        for (club, country) in [("c0", "k0"), ("c1", "k2"), ("c3", "k1")] {
            let q = format!(
                "EXPLORE \"players of {club} from {country}\" FROM Club \"{club}\" VIA <plays_for \
                 MEET FROM Country \"{country}\" VIA <nationality TARGET Player RETURN NODES LIMIT 1000"
            );
            let e = run(&f, &q);
            let of_club = sources(&edges, "plays_for", &[club.to_string()]);
            let of_country = sources(&edges, "nationality", &[country.to_string()]);
            let want: Vec<String> = of_club
                .iter()
                .filter(|p| of_country.contains(p))
                .cloned()
                .collect();
            let mut got = keys(&e.results);
            got.sort();
            assert_eq!(got, want, "seed {seed}, {club} ∩ {country}");
            assert_eq!(e.stop, StopReason::Exhausted);
            assert_eq!(e.sufficiency, 1.0);
            // The evidence is the main side's path.
            for r in &e.results {
                assert_eq!(r.path.len(), 1);
                assert_eq!(r.path[0].relation, "plays_for");
                assert!(r.path[0].reversed);
            }
        }
    }
}

#[test]
fn meet_with_a_two_step_side_and_set_mode_matches_brute_force() {
    let (f, edges) = league(7);
    // Players from k1 who play in a club of city t0 and are reached from c2 within two hops
    // (set mode: c2's players, and their other clubs… only Players count).
    let q = "EXPLORE \"x\" FROM Country \"k1\" VIA <nationality \
             MEET FROM City \"t0\" VIA <located_in -> <plays_for \
             AND FROM Club \"c2\" VIA <plays_for, plays_for DEPTH 2 \
             TARGET Player RETURN NODES LIMIT 1000";
    let e = run(&f, q);
    let from_k1 = sources(&edges, "nationality", &["k1".into()]);
    let clubs_t0 = sources(&edges, "located_in", &["t0".into()]);
    let in_t0 = sources(&edges, "plays_for", &clubs_t0);
    // Two hops from c2 along plays_for either way reach only c2's players (hop 1) and their
    // clubs (hop 2): the players are hop 1.
    let of_c2 = sources(&edges, "plays_for", &["c2".into()]);
    let want: Vec<String> = from_k1
        .iter()
        .filter(|p| in_t0.contains(p) && of_c2.contains(p))
        .cloned()
        .collect();
    let mut got = keys(&e.results);
    got.sort();
    assert_eq!(got, want);
    assert!(!want.is_empty(), "the fixture should have an answer");
}

#[test]
fn meet_ranks_by_support_and_counts_paths() {
    // a1 and a2 both reach x twice over (two papers each), y once.
    let f = build(
        &[
            ("Author", "a1", "A One"),
            ("Author", "a2", "A Two"),
            ("Paper", "p1", "p1"),
            ("Paper", "p2", "p2"),
            ("Paper", "p3", "p3"),
            ("Paper", "p4", "p4"),
            ("Venue", "x", "venue x"),
            ("Venue", "y", "venue y"),
        ],
        &[
            ("a1", "AUTHORED", "p1"),
            ("a1", "AUTHORED", "p2"),
            ("a2", "AUTHORED", "p3"),
            ("a2", "AUTHORED", "p4"),
            ("p1", "PUBLISHED_IN", "x"),
            ("p2", "PUBLISHED_IN", "x"),
            ("p3", "PUBLISHED_IN", "x"),
            ("p4", "PUBLISHED_IN", "y"),
            ("p2", "PUBLISHED_IN", "y"),
        ],
        &[],
    );
    let e = run(
        &f,
        "EXPLORE \"venues both published in\" FROM Author \"a1\" VIA AUTHORED -> PUBLISHED_IN \
         MEET FROM Author \"a2\" VIA AUTHORED -> PUBLISHED_IN",
    );
    assert_eq!(keys(&e.results), vec!["x", "y"]);
    // x: 2 paths from a1 × 1 from a2; y: 1 × 1.
    assert_eq!(e.results[0].score, 1.0);
    assert_eq!(e.results[1].score, 0.5);
    // LIMIT cuts the same ranking.
    let one = run(
        &f,
        "EXPLORE \"v\" FROM Author \"a1\" VIA AUTHORED -> PUBLISHED_IN \
         MEET FROM Author \"a2\" VIA AUTHORED -> PUBLISHED_IN RETURN NODES LIMIT 1",
    );
    assert_eq!(keys(&one.results), vec!["x"]);
}

#[test]
fn meet_is_exact_whatever_the_budget() {
    let (f, _) = league(3);
    let small = run(
        &f,
        "EXPLORE \"x\" FROM Club \"c0\" VIA <plays_for MEET FROM Country \"k0\" VIA <nationality \
         BUDGET 1",
    );
    let large = run(
        &f,
        "EXPLORE \"x\" FROM Club \"c0\" VIA <plays_for MEET FROM Country \"k0\" VIA <nationality",
    );
    assert_eq!(small.stop, StopReason::Exhausted);
    assert_eq!(keys(&small.results), keys(&large.results));
    assert!(!small.results.is_empty());
}

#[test]
fn a_bad_meet_clause_is_a_caret_error() {
    let f = academic();
    let err = prepare(
        "EXPLORE \"x\" FROM Author \"han\" VIA AUTHORED MEET FROM Author \"yu\" TARGET Paper",
        &EngineCatalog(f.graph.catalog()),
    )
    .unwrap_err();
    let text = err.render_plain(100);
    assert!(
        text.contains("expected `,` or `VIA`, found `TARGET`"),
        "{text}"
    );
    assert!(text.contains('^'), "{text}");
}

/// The store view counts a node's edges through every relation from its degree record (a
/// venue's in-edges are not listed to score it): the same count as listing them, in each
/// direction, after edges were added, removed and looped back, and as the node table's.
#[test]
fn a_store_view_counts_every_relation_from_the_degree_record() {
    use cairn_exec::{NodeSource, StoreView};
    use cairn_store::Direction;
    let nodes = [
        ("Venue", "v", "VLDB"),
        ("Paper", "p1", "a"),
        ("Paper", "p2", "b"),
        ("Paper", "p3", "c"),
        ("Author", "a", "Ann"),
    ];
    let edges = [
        ("p1", "PUBLISHED_IN", "v"),
        ("p2", "PUBLISHED_IN", "v"),
        ("p3", "PUBLISHED_IN", "v"),
        ("a", "AUTHORED", "p1"),
        ("a", "AUTHORED", "p2"),
        ("p2", "CITES", "p1"),
    ];
    let f = build(&nodes, &edges, &[]);
    let mut w = f.graph.writer().unwrap();
    w.remove_edge(f.ids["p3"], "PUBLISHED_IN", f.ids["v"])
        .unwrap();
    w.add_edge(f.ids["p1"], "CITES", f.ids["p1"], Default::default())
        .unwrap();
    w.commit().unwrap();
    let embedder = HashEmbedder::new(256);
    let table = NodeTable::build(&f.graph, embedder.id()).unwrap();
    let ids: Vec<NodeId> = f.ids.values().copied().collect();
    let counted = StoreView::new(&f.graph, embedder.id());
    counted.prefetch(&ids, None).unwrap();
    for id in &ids {
        for dir in [Direction::Out, Direction::In, Direction::Both] {
            let listed = StoreView::new(&f.graph, embedder.id());
            let mut found = Vec::new();
            listed.neighbors_into(*id, dir, &[], &mut found).unwrap();
            let n = counted.degree_through(*id, dir, &[]).unwrap();
            assert_eq!(n as usize, found.len(), "{id:?} {dir:?}");
            assert_eq!(
                n,
                NodeSource::degree_through(&table, *id, dir, &[]).unwrap(),
                "{id:?} {dir:?}"
            );
        }
    }
}
