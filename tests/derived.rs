//! Derived state that lives with the store: the executor reads node facts through a
//! store view or the in-memory table with the same answers, the table follows writes through
//! change sets instead of rebuilding, and the largest degree is a stored statistic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cairn::agent::{NodeTable, StoreView};
use cairn::{Cairn, CairnOptions, GraphRead};
use cairn_generate::{author_key, paper_key};
use common::{academic, answer, run_on};
use std::time::{Duration, Instant};

const NODES: usize = 3000;

/// Statements over several plan shapes: ordered paths, relation sets, filters, both directions.
fn statements() -> Vec<String> {
    let mut out = Vec::new();
    for i in [0, 3, 17, 101] {
        let a = author_key(i);
        out.push(format!(
            "EXPLORE \"co-authors\" FROM Author \"{a}\" VIA AUTHORED -> <AUTHORED TARGET Author"
        ));
        out.push(format!(
            "EXPLORE \"graph mining and databases\" FROM Author \"{a}\" VIA AUTHORED, CITES, <CITES DEPTH 3 BEAM 8"
        ));
        out.push(format!(
            "EXPLORE \"papers of co-authors\" FROM Author \"{a}\" VIA AUTHORED -> <AUTHORED -> AUTHORED TARGET Paper RETURN NODES LIMIT 20"
        ));
    }
    for i in [1, 42] {
        let p = paper_key(i);
        out.push(format!(
            "EXPLORE \"related work\" FROM Paper \"{p}\" VIA CITES, <CITES, HAS_TOPIC, <HAS_TOPIC DEPTH 3 BEAM 16 TARGET Paper"
        ));
    }
    out
}

/// Waits until the handle's background table is in use (a build it started on first use).
fn wait_for_table(db: &Cairn) {
    let started = Instant::now();
    while !db.node_source().has_table() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no table after 60 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn store_view_and_table_give_the_same_explorations() {
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    academic(&db, NODES);
    let embedder = db.embedder();
    let table = NodeTable::build(db.graph(), embedder.id()).unwrap();
    let mut nonempty = 0;
    for s in statements() {
        let view = StoreView::new(db.graph(), embedder.id());
        let from_table = run_on(&db, &table, &s);
        let from_store = run_on(&db, &view, &s);
        assert_eq!(answer(&from_table), answer(&from_store), "{s}");
        nonempty += usize::from(!from_table.results.is_empty());
        // The view read what it touched, a beam step at a time: the facts and onward edges of
        // the nodes each round reached in one batch (the entries' in one more), and at most a
        // prefix scan per direction of each node expanded or scored besides.
        let ops = view.ops();
        let touched = from_store.stats.nodes_expanded + from_store.stats.nodes_scored;
        assert!(
            ops.multi_gets > 0 && ops.multi_gets <= 2 * (u64::from(from_store.stats.rounds) + 2),
            "{ops:?} {s}"
        );
        assert!(ops.prefix_scans <= 2 * touched, "{ops:?} {s}");
    }
    assert!(nonempty >= 8, "too few statements found anything");
}

#[test]
fn a_one_shot_handle_never_builds_a_table() {
    let dir = tempfile::tempdir().unwrap();
    academic(&Cairn::open(dir.path()).unwrap(), NODES);
    let db = Cairn::open_with(CairnOptions::new(dir.path()).store_only()).unwrap();
    for s in statements() {
        db.explore(&s).unwrap();
    }
    assert!(!db.node_source().has_table());
    assert_eq!(db.table_builds(), 0);
}

#[test]
fn writes_are_seen_without_a_rebuild_and_match_a_fresh_build() {
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    academic(&db, NODES);
    // First use starts the background build; meanwhile the query reads the store.
    let first = db.explore(&statements()[0]).unwrap();
    wait_for_table(&db);
    assert_eq!(db.table_builds(), 1);
    let from_table = db.explore(&statements()[0]).unwrap();
    assert_eq!(answer(&first), answer(&from_table));

    // A new author on an existing paper, and a new paper of an existing author.
    let p = db.graph().node_id("Paper", &paper_key(5)).unwrap().unwrap();
    let a = db
        .graph()
        .node_id("Author", &author_key(3))
        .unwrap()
        .unwrap();
    db.transaction(|tx| {
        let n = tx.upsert_node(
            "Author",
            "new-author",
            [("name", cairn::Value::from("Nova Newcomer"))],
            Some("graph mining"),
        )?;
        tx.add_edge(n, "AUTHORED", p, Default::default())?;
        let q = tx.upsert_node(
            "Paper",
            "new-paper",
            [("title", cairn::Value::from("Fresh results on graph mining"))],
            None,
        )?;
        tx.add_edge(a, "AUTHORED", q, Default::default())?;
        tx.add_edge(q, "CITES", p, Default::default())?;
        Ok::<_, cairn::CairnError>(())
    })
    .unwrap();

    let mut more = statements();
    more.push(
        "EXPLORE \"co-authors\" FROM Author \"new-author\" VIA AUTHORED -> <AUTHORED TARGET Author"
            .into(),
    );
    let co = db.explore(more.last().unwrap()).unwrap();
    assert!(!co.results.is_empty(), "the new author's co-authors");
    let fresh = NodeTable::build(db.graph(), db.embedder().id()).unwrap();
    for s in &more {
        let kept = db.explore(s).unwrap();
        assert_eq!(answer(&kept), answer(&run_on(&db, &fresh, s)), "{s}");
    }
    let papers = db
        .explore(&format!(
            "EXPLORE \"papers\" FROM Author \"{}\" VIA AUTHORED TARGET Paper RETURN NODES LIMIT 100",
            author_key(3)
        ))
        .unwrap();
    assert!(papers.results.iter().any(|r| r.key == "new-paper"));
    assert_eq!(db.table_builds(), 1, "a write must not rebuild the table");
}

#[test]
fn concurrent_queries_after_a_write_build_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    academic(&db, NODES);
    db.explore(&statements()[0]).unwrap();
    wait_for_table(&db);
    let p = db.graph().node_id("Paper", &paper_key(9)).unwrap().unwrap();
    db.transaction(|tx| {
        let n = tx.upsert_node(
            "Author",
            "late",
            [("name", cairn::Value::from("Late"))],
            None,
        )?;
        tx.add_edge(n, "AUTHORED", p, Default::default())?;
        Ok::<_, cairn::CairnError>(())
    })
    .unwrap();
    std::thread::scope(|s| {
        for t in 0..8 {
            let db = &db;
            s.spawn(move || {
                for st in statements().iter().skip(t % 3) {
                    db.explore(st).unwrap();
                }
            });
        }
    });
    assert_eq!(db.table_builds(), 1);
}

#[test]
fn the_largest_degree_is_kept_by_commits_and_recomputed_for_old_databases() {
    let dir = tempfile::tempdir().unwrap();
    let scan_max = |db: &Cairn| {
        let mut max = 0u64;
        db.graph()
            .scan_degrees(|_, d| max = max.max((d.out + d.inc) as u64))
            .unwrap();
        max
    };
    {
        let db = Cairn::open(dir.path()).unwrap();
        academic(&db, NODES);
        assert_eq!(db.graph().max_degree(), scan_max(&db), "after the import");
        // A new hub above every degree so far.
        let hub_degree = scan_max(&db) + 5;
        db.transaction(|tx| {
            let hub =
                tx.upsert_node("Venue", "hub", [("name", cairn::Value::from("Hub"))], None)?;
            for i in 0..hub_degree {
                let p = tx.upsert_node(
                    "Paper",
                    &format!("hub-paper-{i}"),
                    [("title", cairn::Value::from("x"))],
                    None,
                )?;
                tx.add_edge(p, "PUBLISHED_IN", hub, Default::default())?;
            }
            Ok::<_, cairn::CairnError>(())
        })
        .unwrap();
        assert_eq!(db.graph().max_degree(), hub_degree);
        assert_eq!(scan_max(&db), hub_degree);
    }
    let db = Cairn::open(dir.path()).unwrap();
    let kept = db.graph().max_degree();
    assert_eq!(kept, scan_max(&db), "survives reopening");
    // A database written before the statistic existed has no `meta/max_degree`.
    drop(db);
    let raw_meta = |f: &dyn Fn(&rocksdb::DB, &rocksdb::ColumnFamily)| {
        let raw = rocksdb::DB::open_cf(
            &rocksdb::Options::default(),
            dir.path().join("rocksdb"),
            cairn_store::Space::ALL.map(|s| s.name()),
        )
        .unwrap();
        f(&raw, raw.cf_handle("meta").unwrap());
    };
    raw_meta(&|raw, meta| raw.delete_cf(meta, b"max_degree").unwrap());
    let db = Cairn::open(dir.path()).unwrap();
    assert_eq!(db.graph().max_degree(), kept, "recomputed on open");
    drop(db);
    raw_meta(&|raw, meta| assert!(raw.get_cf(meta, b"max_degree").unwrap().is_some()));
}

/// The store operations one beam-8, depth-3 EXPLORE needs when nothing is in memory (a cold
/// one-shot process): the figures docs/ARCHITECTURE.md quotes (`--nocapture` prints them).
#[test]
fn store_reads_of_a_beam_8_depth_3_explore() {
    let dir = tempfile::tempdir().unwrap();
    academic(&Cairn::open(dir.path()).unwrap(), NODES);
    for (statement, via) in [
        (
            "VIA AUTHORED -> <AUTHORED -> AUTHORED TARGET Paper",
            "ordered path",
        ),
        ("VIA AUTHORED, <AUTHORED, CITES, <CITES", "relation set"),
    ] {
        let db = Cairn::open_with(CairnOptions::new(dir.path()).store_only()).unwrap();
        let s = format!(
            "EXPLORE \"graph mining\" FROM Author \"{}\" {statement} BEAM 8 DEPTH 3",
            author_key(3)
        );
        let before = db.graph().read_ops();
        let e = db.explore(&s).unwrap();
        let ops = db.graph().read_ops() - before;
        let st = &e.stats;
        println!(
            "{via}: rounds {} expanded {} scored {} -> point gets {}, multi-gets {}, prefix scans {}",
            st.rounds, st.nodes_expanded, st.nodes_scored, ops.point_gets, ops.multi_gets, ops.prefix_scans
        );
        assert!(st.nodes_expanded > 0 && !e.results.is_empty(), "{s}");
        // Facts, records and vectors come in batches per round and per expanded node, never
        // one get per neighbour; edges in one scan per node and direction touched.
        assert!(ops.point_gets <= 2, "{ops:?}");
        assert!(
            ops.multi_gets <= 8 * (u64::from(st.rounds) + st.nodes_expanded) + 8,
            "{ops:?}"
        );
        assert!(
            ops.prefix_scans <= 2 * (st.nodes_expanded + st.nodes_scored),
            "{ops:?}"
        );
    }
}

/// Past `MERGE_AFTER` changed nodes the keeper merges them into a copy of its table (no rescan
/// of the store): the merged table answers as a fresh build does, new nodes, a removed edge and
/// a removed node included.
#[test]
fn a_large_overlay_is_merged_into_a_table_that_matches_a_fresh_build() {
    let dir = tempfile::tempdir().unwrap();
    let db = Cairn::open(dir.path()).unwrap();
    academic(&db, NODES);
    db.explore(&statements()[0]).unwrap();
    wait_for_table(&db);
    let before = db.node_table().unwrap();
    let author = |i| {
        db.graph()
            .node_id("Author", &author_key(i))
            .unwrap()
            .unwrap()
    };
    let (a3, a17) = (author(3), author(17));
    let gone = db.graph().node_id("Paper", &paper_key(7)).unwrap().unwrap();
    let first_paper = db
        .graph()
        .neighbors(a3, cairn::Direction::Out, &[])
        .unwrap()[0]
        .node;
    db.transaction(|tx| {
        for i in 0..cairn::agent::MERGE_AFTER + 50 {
            let p = tx.upsert_node(
                "Paper",
                &format!("merged-{i}"),
                [(
                    "title",
                    cairn::Value::from(format!("merged graph mining study {i}")),
                )],
                None,
            )?;
            tx.add_edge(
                if i % 2 == 0 { a3 } else { a17 },
                "AUTHORED",
                p,
                Default::default(),
            )?;
        }
        tx.remove_edge(a3, "AUTHORED", first_paper)?;
        tx.remove_node(gone)?;
        // a retitled paper: its vector changes, in a chunk the merge must copy
        tx.upsert_node(
            "Paper",
            &paper_key(8),
            [("title", cairn::Value::from("retitled spectral methods"))],
            None,
        )?;
        Ok::<_, cairn::CairnError>(())
    })
    .unwrap();
    let retitled = db.graph().node_id("Paper", &paper_key(8)).unwrap().unwrap();
    // the next query reads the overlay and starts the merge in the background
    assert!(db.node_source().changed_nodes() > cairn::agent::MERGE_AFTER);
    let started = Instant::now();
    while db.node_source().changed_nodes() > 0 {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no merge after 120 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!((db.table_builds(), db.table_merges()), (1, 1));
    let merged = db.node_table().unwrap();
    assert_eq!(db.table_builds(), 1, "the merged table is the kept one");
    let fresh = NodeTable::build(db.graph(), db.embedder().id()).unwrap();
    assert_eq!(merged.len(), fresh.len());
    let mut more = statements();
    for a in [3, 17] {
        more.push(format!(
            "EXPLORE \"merged graph mining study\" FROM Author \"{}\" VIA AUTHORED TARGET Paper RETURN NODES LIMIT 100",
            author_key(a)
        ));
    }
    for s in &more {
        assert_eq!(
            answer(&run_on(&db, &*merged, s)),
            answer(&run_on(&db, &fresh, s)),
            "{s}"
        );
    }
    let papers = run_on(&db, &*merged, more.last().unwrap());
    assert!(papers.results.iter().any(|r| r.key.starts_with("merged-")));
    for id in [a3, a17, gone, first_paper, retitled] {
        assert_eq!(merged.label(id), fresh.label(id));
        assert_eq!(merged.degree(id), fresh.degree(id));
    }
    // vectors: the merged table's equal a fresh build's; the table it was merged from kept its own
    let q = db.embedder().embed("retitled spectral methods").unwrap();
    let new_paper = db.graph().node_id("Paper", "merged-0").unwrap().unwrap();
    for id in [retitled, new_paper, first_paper, a3] {
        assert_eq!(merged.cosine(id, &q), fresh.cosine(id, &q), "{id:?}");
    }
    let (now, then) = (
        merged.cosine(retitled, &q).unwrap(),
        before.cosine(retitled, &q).unwrap(),
    );
    assert!(now > then + 0.3, "{now} {then}");
}

/// Bytes of write-ahead log files in a database directory.
fn log_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "log"))
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

/// An import leaves its entries in table files, not in the log a read-only open replays; and a
/// writable session that wrote a lot flushes on close. Both measured by what a fresh read-only
/// open holds in its memtables (RocksDB's `cur-size-all-mem-tables`) and by the log's size.
#[test]
fn a_read_only_open_after_an_import_or_a_session_replays_no_large_log() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Cairn::open(dir.path()).unwrap();
        academic(&db, NODES);
        // the import's last batch (3,000 nodes' key, name and degree entries) is in table files
        let reader = Cairn::open_read_only(dir.path()).unwrap();
        let replayed = reader.graph().memtable_bytes().unwrap();
        assert!(replayed < 64 << 10, "a reader replayed {replayed} bytes");
        assert!(
            log_bytes(dir.path()) < 64 << 10,
            "{}",
            log_bytes(dir.path())
        );
    }
    {
        let db = Cairn::open(dir.path()).unwrap();
        let mut w = db.graph().writer().unwrap();
        for i in 0..20_000 {
            w.upsert_node(
                "Note",
                &format!("n{i}"),
                [("text", cairn::Value::from("x".repeat(300)))],
                None,
            )
            .unwrap();
        }
        w.commit().unwrap();
        assert!(db.graph().memtable_bytes().unwrap() > 4 << 20);
    }
    let reader = Cairn::open_read_only(dir.path()).unwrap();
    let replayed = reader.graph().memtable_bytes().unwrap();
    assert!(replayed < 64 << 10, "a reader replayed {replayed} bytes");
    assert!(reader.graph().node_id("Note", "n19999").unwrap().is_some());
}
