//! Exploration benchmark: efficiency against BFS and EXPLORE latency, on a generated academic
//! graph. Prints one JSON object per line.
//!
//! Run: `cargo bench --bench explore` (env `CAIRN_BENCH_NODES`, default 1,000,000; `CAIRN_BENCH_QUERIES`, default 50).
//!
//! Efficiency: for authors X, the gold answer is the set of co-authors of X's co-authors (other
//! than X), computed from the generator. EXPLORE follows `AUTHORED -> <AUTHORED -> AUTHORED ->
//! <AUTHORED` with no fan-out sampling and stops when 90% of the gold authors are among its
//! results; BFS starts from the same author and expands in breadth-first order (over every
//! relation, and, for reference, over AUTHORED only) until 90% of the gold authors have been
//! reached. Both count node expansions (neighbour listings). Queries run until
//! `CAIRN_BENCH_QUERIES` authors with a gold set of at most 10,000 (the result LIMIT cap) have
//! been measured.
//!
//! Latency: EXPLORE with beam 8 and depth 3 from an author over `AUTHORED -> <AUTHORED ->
//! AUTHORED` (papers of co-authors), default stop conditions and fan-out, warm; p50 and p99.
//! Then the same with each FANOUT in `CAIRN_BENCH_FANOUTS` (default `256,512,1024,2048`), to
//! show what the per-expansion cap trades.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a benchmark that cannot set up has nothing to report

use cairn::{Direction, Graph, GraphOptions, GraphRead, NodeId, RelId};
use cairn_agent::{CancelToken, EngineCatalog, Explorer, NodeTable, StopReason};
use cairn_embed::{Embedder, HashEmbedder};
use cairn_generate::{author_key, Academic, AcademicConfig};
use cairn_import::{import_records, ImportOptions};
use cairn_query::{prepare, Compiled};
use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::time::Instant;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let nodes = env("CAIRN_BENCH_NODES", 1_000_000);
    let queries = env("CAIRN_BENCH_QUERIES", 50);
    let started = Instant::now();
    let academic = Academic::generate(&AcademicConfig::with_nodes(nodes, 11));
    let dir = tempfile::tempdir().unwrap();
    let graph = Graph::open(dir.path(), GraphOptions::default()).unwrap();
    let embedder: Arc<dyn Embedder> = Arc::new(HashEmbedder::default());
    let records = academic.records();
    let summary = import_records(
        &graph,
        records,
        &ImportOptions {
            embedder: Some(embedder.clone()),
            ..Default::default()
        },
    )
    .unwrap();
    println!(
        "{{\"setup\":\"graph\",\"nodes\":{},\"edges\":{},\"import_s\":{:.1},\"embed_s\":{:.1},\"total_setup_s\":{:.1}}}",
        academic.node_count(),
        academic.edge_count(),
        summary.elapsed.as_secs_f64(),
        summary.embed_time.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let table = NodeTable::build(&graph, embedder.id()).unwrap();
    println!(
        "{{\"setup\":\"node_table\",\"build_s\":{:.2},\"holds_vectors\":{}}}",
        t.elapsed().as_secs_f64(),
        table.holds_vectors()
    );
    let explorer = Explorer::new(&graph, embedder.as_ref(), &table);
    let catalog = EngineCatalog(graph.catalog());

    // Authors with at least two papers, spread over the id range.
    let mut papers_of: Vec<Vec<u32>> = vec![Vec::new(); academic.authors.len()];
    for (i, p) in academic.papers.iter().enumerate() {
        for a in &p.authors {
            papers_of[*a as usize].push(i as u32);
        }
    }
    // Dense enough that `queries` of them have a gold set under the cap: in the generator with
    // distinct names, 8 candidates per query left only 48 of 50.
    let step = (academic.authors.len() / (queries * 32)).max(1);
    // Authors with 2 to 30 papers (the generator's hubs have thousands), spread over the ids.
    let candidates: Vec<u32> = (0..academic.authors.len())
        .step_by(step)
        .filter(|&a| (2..=30).contains(&papers_of[a].len()))
        .map(|a| a as u32)
        .collect();
    // Latency queries: `queries` of them, spread over all the candidates.
    let picks: Vec<u32> = candidates
        .iter()
        .copied()
        .step_by((candidates.len() / queries.max(1)).max(1))
        .take(queries)
        .collect();

    // ---- efficiency ---- (CAIRN_BENCH_SKIP_EFFICIENCY=1 skips it, e.g. to profile latency)
    let skip_efficiency = std::env::var_os("CAIRN_BENCH_SKIP_EFFICIENCY").is_some();
    // Gold: the co-authors of X's co-authors (authors of papers written by X or a co-author of X),
    // other than X: `AUTHORED -> <AUTHORED -> AUTHORED -> <AUTHORED` from X, four hops.
    let cat = graph.catalog();
    let all_rels: Vec<RelId> = vec![];
    let via_rels: Vec<RelId> = ["AUTHORED"]
        .iter()
        .filter_map(|r| cat.relation_id(r))
        .collect();
    let (mut sum_explore, mut sum_bfs, mut sum_bfs_via, mut reached, mut ran) =
        (0u64, 0u64, 0u64, 0usize, 0usize);
    // Mean of the per-query ratios, beside the ratio of the totals (which large queries dominate).
    let (mut sum_ratio, mut sum_ratio_via) = (0f64, 0f64);
    for &a in candidates.iter().filter(|_| !skip_efficiency) {
        if ran == queries {
            break;
        }
        let mut first: HashSet<u32> = HashSet::from([a]);
        for p in &papers_of[a as usize] {
            first.extend(academic.papers[*p as usize].authors.iter().copied());
        }
        let mut gold: HashSet<u32> = HashSet::new();
        for x in &first {
            for p in &papers_of[*x as usize] {
                gold.extend(academic.papers[*p as usize].authors.iter().copied());
            }
        }
        gold.remove(&a);
        if gold.is_empty() || gold.len() > 10_000 {
            continue;
        }
        ran += 1;
        let gold_ids: HashSet<NodeId> = gold
            .iter()
            .map(|b| graph.node_id("Author", &author_key(*b)).unwrap().unwrap())
            .collect();
        let need = (gold_ids.len() * 9).div_ceil(10);
        let q = format!(
            "EXPLORE \"co-authors of the co-authors of {}\" FROM Author \"{}\" VIA AUTHORED -> <AUTHORED -> AUTHORED -> <AUTHORED \
             TARGET Author BEAM 8 DEPTH 4 BUDGET 1000000 FANOUT 1000000 UNTIL found {need} RETURN NODES LIMIT 10000",
            academic.authors[a as usize].name,
            author_key(a)
        );
        let Compiled::Explore(plan) = prepare(&q, &catalog).unwrap() else {
            panic!()
        };
        let e = explorer.run(&plan, false, &CancelToken::default()).unwrap();
        let found: usize = e
            .results
            .iter()
            .filter(|r| gold_ids.contains(&r.node))
            .count();
        if e.stop == StopReason::Found && found >= need {
            reached += 1;
        }
        let entry = graph.node_id("Author", &author_key(a)).unwrap().unwrap();
        let bfs = bfs_until(&table, entry, &all_rels, &gold_ids, need);
        let bfs_via = bfs_until(&table, entry, &via_rels, &gold_ids, need);
        println!(
            "{{\"query\":\"coauthors_of_coauthors\",\"author\":\"{}\",\"gold\":{},\"explore_found\":{found},\"explore_expanded\":{},\"explore_stop\":\"{}\",\"bfs_expanded\":{},\"bfs_authored_expanded\":{}}}",
            author_key(a),
            gold_ids.len(),
            e.stats.nodes_expanded,
            e.stop,
            bfs,
            bfs_via
        );
        sum_ratio += e.stats.nodes_expanded as f64 / bfs.max(1) as f64;
        sum_ratio_via += e.stats.nodes_expanded as f64 / bfs_via.max(1) as f64;
        sum_explore += e.stats.nodes_expanded;
        sum_bfs += bfs;
        sum_bfs_via += bfs_via;
    }
    let n = ran.max(1) as f64;
    println!(
        "{{\"summary\":\"efficiency\",\"queries\":{ran},\"explore_reached_90pct\":{reached},\"mean_explore_expanded\":{:.1},\"mean_bfs_expanded\":{:.1},\"mean_bfs_authored_expanded\":{:.1},\"explore_over_bfs\":{:.4},\"explore_over_bfs_authored\":{:.4},\"mean_ratio_explore_bfs\":{:.4},\"mean_ratio_explore_bfs_authored\":{:.4}}}",
        sum_explore as f64 / n,
        sum_bfs as f64 / n,
        sum_bfs_via as f64 / n,
        sum_explore as f64 / sum_bfs.max(1) as f64,
        sum_explore as f64 / sum_bfs_via.max(1) as f64,
        sum_ratio / n,
        sum_ratio_via / n,
    );

    // ---- latency ----
    let fanouts: Vec<Option<usize>> = std::iter::once(None)
        .chain(
            std::env::var("CAIRN_BENCH_FANOUTS")
                .unwrap_or_else(|_| "256,512,1024,2048".into())
                .split(',')
                .filter_map(|f| f.trim().parse().ok())
                .map(Some),
        )
        .collect();
    for fanout in fanouts {
        let clause = fanout.map(|f| format!(" FANOUT {f}")).unwrap_or_default();
        let plans: Vec<_> = picks
            .iter()
            .map(|&a| {
                let q = format!(
                    "EXPLORE \"papers by co-authors of {}\" FROM Author \"{}\" VIA AUTHORED -> <AUTHORED -> AUTHORED TARGET Paper BEAM 8 DEPTH 3{clause}",
                    academic.authors[a as usize].name,
                    author_key(a)
                );
                let Compiled::Explore(plan) = prepare(&q, &catalog).unwrap() else { panic!() };
                plan
            })
            .collect();
        for p in &plans {
            explorer.run(p, false, &CancelToken::default()).unwrap(); // warm
        }
        let mut times = Vec::new();
        let mut expanded = Vec::new();
        let mut scored = Vec::new();
        let mut edges = Vec::new();
        for _ in 0..env("CAIRN_BENCH_LATENCY_ROUNDS", 5) {
            for p in &plans {
                let t = Instant::now();
                let e = explorer.run(p, false, &CancelToken::default()).unwrap();
                times.push(t.elapsed().as_secs_f64() * 1e3);
                expanded.push(e.stats.nodes_expanded);
                scored.push(e.stats.nodes_scored);
                edges.push(e.stats.edges_scanned);
            }
        }
        times.sort_by(f64::total_cmp);
        expanded.sort();
        scored.sort();
        edges.sort();
        let pct = |v: &[f64], q: f64| v[((v.len() as f64 - 1.0) * q).round() as usize];
        println!(
            "{{\"summary\":\"latency\",\"fanout\":\"{}\",\"runs\":{},\"p50_ms\":{:.3},\"p99_ms\":{:.3},\"median_nodes_expanded\":{},\"median_nodes_scored\":{},\"median_edges_scanned\":{}}}",
            fanout.map_or_else(|| "default".to_owned(), |f| f.to_string()),
            times.len(),
            pct(&times, 0.5),
            pct(&times, 0.99),
            expanded[expanded.len() / 2],
            scored[scored.len() / 2],
            edges[edges.len() / 2]
        );
    }
}

/// Breadth-first search from `entry` over `rels` (all when empty), both directions: node
/// expansions until `need` of `gold` have been reached. Reads the in-memory adjacency, like the
/// executor, so the comparison is about how many nodes each expands, not how fast it reads.
fn bfs_until(
    table: &NodeTable,
    entry: NodeId,
    rels: &[RelId],
    gold: &HashSet<NodeId>,
    need: usize,
) -> u64 {
    let mut seen: HashSet<NodeId> = HashSet::from([entry]);
    let mut queue = VecDeque::from([entry]);
    let mut found = usize::from(gold.contains(&entry));
    let mut expanded = 0u64;
    let mut buf = Vec::new();
    while let Some(n) = queue.pop_front() {
        if found >= need {
            break;
        }
        expanded += 1;
        buf.clear();
        table.neighbors_into(n, Direction::Both, rels, &mut buf);
        for (nb, _, _) in &buf {
            if seen.insert(*nb) {
                if gold.contains(nb) {
                    found += 1;
                }
                queue.push_back(*nb);
            }
        }
    }
    expanded
}
