//! `RETURN COUNT` against a brute-force enumeration of every path, on random graphs, through
//! both node sources (the in-memory table and the store view); a count above 10,000; the
//! intersection count against `MEET … RETURN NODES` run exhaustively.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_embed::{Embedder, HashEmbedder};
use cairn_exec::{
    CancelToken, EngineCatalog, ExploreError, Explorer, NodeSource, NodeTable, StoreView,
};
use cairn_query::{prepare, Compiled, Plan};
use cairn_storage_format::Value;
use cairn_store::{Graph, GraphOptions};
use proptest::prelude::*;
use std::collections::HashSet;

mod common;

use common::{build, spec, step_text, Db, Spec, Step, LABELS};

/// Every path from `from` through `steps`, enumerated one by one: the set of ends.
fn brute_ends(s: &Spec, from: usize, steps: &[Step]) -> HashSet<usize> {
    let mut ends = HashSet::new();
    fn go(s: &Spec, at: usize, steps: &[Step], ends: &mut HashSet<usize>) {
        let Some((&(r, d), rest)) = steps.split_first() else {
            ends.insert(at);
            return;
        };
        for &(a, er, b) in &s.edges {
            if er != r {
                continue;
            }
            if d != 1 && a == at {
                go(s, b, rest, ends);
            }
            if d != 0 && b == at {
                go(s, a, rest, ends);
            }
        }
    }
    go(s, from, steps, &mut ends);
    ends
}

fn plan(db: &Db, q: &str) -> Plan {
    match prepare(q, &EngineCatalog(db.graph.catalog()))
        .unwrap_or_else(|e| panic!("{}", e.render_plain(100)))
    {
        Compiled::Explore(p) => p,
        other => panic!("not an EXPLORE: {other:?}"),
    }
}

fn count_on(db: &Db, source: &dyn NodeSource, q: &str) -> Result<u64, ExploreError> {
    let embedder = HashEmbedder::new(64);
    let ex = Explorer::new(&db.graph, &embedder, source);
    let e = ex.run(&plan(db, q), false, &CancelToken::default())?;
    assert!(e.results.is_empty());
    Ok(e.count.expect("a count"))
}

/// The count through the table and through a store view (they must agree).
fn count(db: &Db, q: &str) -> u64 {
    let embedder = HashEmbedder::new(64);
    let table = NodeTable::build(&db.graph, embedder.id()).unwrap();
    let view = StoreView::new(&db.graph, embedder.id());
    let a = count_on(db, &table, q).unwrap();
    let b = count_on(db, &view, q).unwrap();
    assert_eq!(a, b, "table and store view disagree on {q}");
    a
}

fn labelled(s: &Spec, ends: impl IntoIterator<Item = usize>, target: Option<usize>) -> usize {
    ends.into_iter()
        .filter(|n| target.is_none_or(|t| s.labels[*n] == t))
        .count()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn path_count_matches_brute_force(
        s in spec(),
        from in 0usize..24,
        steps in prop::collection::vec((0usize..2, 0u8..3), 1..5),
        target in prop::option::of(0usize..2),
    ) {
        let from = from % s.labels.len();
        let db = build(&s);
        let mut ends = brute_ends(&s, from, &steps);
        ends.remove(&from);
        let want = labelled(&s, ends, target);
        let via: Vec<String> = steps.iter().map(|st| step_text(*st)).collect();
        let q = format!(
            // One step is a relation set: DEPTH 1 makes it the same one hop.
            "EXPLORE \"x\" FROM {} \"n{from}\" VIA {}{}{} RETURN COUNT",
            LABELS[s.labels[from]],
            via.join(" -> "),
            if steps.len() == 1 { " DEPTH 1" } else { "" },
            target.map(|t| format!(" TARGET {}", LABELS[t])).unwrap_or_default(),
        );
        prop_assert_eq!(count(&db, &q), want as u64, "{}", q);
    }

    #[test]
    fn meet_count_matches_brute_force_and_meet_nodes(
        s in spec(),
        a in 0usize..24,
        b in 0usize..24,
        sa in prop::collection::vec((0usize..2, 0u8..3), 1..3),
        sb in prop::collection::vec((0usize..2, 0u8..3), 1..3),
        odd in any::<bool>(),
    ) {
        let (a, b) = (a % s.labels.len(), b % s.labels.len());
        let db = build(&s);
        // A single step is a relation set, walked up to DEPTH hops: the main path's length
        // (1 when the main side is one step too).
        let depth = if sa.len() == 1 { 1 } else { sa.len() };
        let within = |from: usize, st: &[Step]| -> HashSet<usize> {
            if st.len() > 1 {
                return brute_ends(&s, from, st);
            }
            (1..=depth)
                .flat_map(|k| brute_ends(&s, from, &vec![st[0]; k]))
                .collect()
        };
        let ea = within(a, &sa);
        let eb = within(b, &sb);
        let both: HashSet<usize> = ea
            .intersection(&eb)
            .copied()
            .filter(|n| *n != a && *n != b && (!odd || n % 2 == 1))
            .collect();
        let path = |st: &[Step]| st.iter().map(|x| step_text(*x)).collect::<Vec<_>>().join(" -> ");
        let pattern = format!(
            "FROM {} \"n{a}\" VIA {} MEET FROM {} \"n{b}\" VIA {}{}",
            LABELS[s.labels[a]],
            path(&sa),
            LABELS[s.labels[b]],
            path(&sb),
            if odd { " WHERE odd = true" } else { "" },
        );
        // A single main step is a set: DEPTH 1 makes it one hop (a path's DEPTH is its length).
        let depth = if sa.len() == 1 { " DEPTH 1" } else { "" };
        let q = format!("EXPLORE \"x\" {pattern}{depth} RETURN COUNT");
        let n = count(&db, &q);
        prop_assert_eq!(n, both.len() as u64, "{}", q);
        // The same set as the exhaustive intersection's results.
        let embedder = HashEmbedder::new(64);
        let table = NodeTable::build(&db.graph, embedder.id()).unwrap();
        let nodes = Explorer::new(&db.graph, &embedder, &table)
            .run(
                &plan(&db, &format!(
                    "EXPLORE \"x\" {pattern}{depth} BUDGET 1000000 FANOUT 1000000 RETURN NODES LIMIT 10000"
                )),
                false,
                &CancelToken::default(),
            )
            .unwrap();
        prop_assert_eq!(nodes.results.len() as u64, n);
    }

    #[test]
    fn set_sides_of_a_meet_count_every_node_within_depth(
        s in spec(),
        a in 0usize..24,
        b in 0usize..24,
        depth in 1u32..4,
    ) {
        let (a, b) = (a % s.labels.len(), b % s.labels.len());
        let db = build(&s);
        // Within `depth` hops either way through R or S (a set side), minus the entry.
        let within = |from: usize| {
            let mut seen: HashSet<usize> = [from].into();
            for _ in 0..depth {
                let mut more = HashSet::new();
                for n in &seen {
                    for r in 0..2 {
                        more.extend(brute_ends(&s, *n, &[(r, 2)]));
                    }
                }
                seen.extend(more);
            }
            seen.remove(&from);
            seen
        };
        let want = within(a)
            .intersection(&brute_ends(&s, b, &[(0, 0), (1, 1)]))
            .filter(|n| **n != a && **n != b)
            .count();
        let q = format!(
            "EXPLORE \"x\" FROM {} \"n{a}\" VIA <R>, <S> MEET FROM {} \"n{b}\" VIA R -> <S DEPTH {depth} RETURN COUNT",
            LABELS[s.labels[a]],
            LABELS[s.labels[b]],
        );
        prop_assert_eq!(count(&db, &q), want as u64, "{}", q);
    }
}

#[test]
fn a_count_above_ten_thousand_is_exact() {
    // x -R-> hub -R-> 12,345 leaves (and one leaf twice, through a second hub).
    let dir = tempfile::tempdir().unwrap();
    let graph = Graph::open(dir.path(), GraphOptions::default()).unwrap();
    let mut w = graph.writer().unwrap();
    let none: [(&str, Value); 0] = [];
    let x = w.upsert_node("A", "x", none.clone(), None).unwrap();
    let hub = w.upsert_node("A", "hub", none.clone(), None).unwrap();
    let hub2 = w.upsert_node("A", "hub2", none.clone(), None).unwrap();
    w.add_edge(x, "R", hub, Default::default()).unwrap();
    w.add_edge(x, "R", hub2, Default::default()).unwrap();
    let mut first = None;
    for i in 0..12_345 {
        let leaf = w
            .upsert_node("B", &format!("l{i}"), none.clone(), None)
            .unwrap();
        first.get_or_insert(leaf);
        w.add_edge(hub, "R", leaf, Default::default()).unwrap();
    }
    w.add_edge(hub2, "R", first.unwrap(), Default::default())
        .unwrap();
    w.commit().unwrap();
    let db = Db { _dir: dir, graph };
    let q = "EXPLORE \"x\" FROM A \"x\" VIA R -> R TARGET B RETURN COUNT";
    assert_eq!(count(&db, q), 12_345);
}
