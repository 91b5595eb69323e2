//! The derived-state benchmarks (a write-then-query loop, readers beside a writer), run the way
//! an application runs Cairn: through the [`Cairn`] facade on an existing database
//! (benches/derived/loop.sh and readers.sh drive it).
//!
//! `loop DB [ROUNDS] [SEED]`: ROUNDS rounds of (upsert a Paper with a new title drawn like the
//! generator's, add an AUTHORED edge from a random existing author, commit, EXPLORE from that
//! author that must reach the paper, SEARCH by the title that must find it). A round that does
//! not see its own write fails the run. Prints one JSON line per phase and a summary with
//! p50/p90/p99 of the round, of each part, and of the vectors each SEARCH scored.
//!
//! `readers DB [SECONDS] [THREADS] [EVERY_MS] [SEED]`: THREADS reader threads run EXPLORE
//! (1-, 2- and 3-hop plans from random authors), first alone for SECONDS / 6, then while one
//! writer commits a paper and an edge every EVERY_MS for SECONDS; reader p50/p99 (per hop
//! count, alone and beside the writer), what the reads above the p99 overlapped (a commit, a
//! node-table build or merge), and the process's peak RSS (sampled every 20 ms, and past the
//! end until a merge in flight is adopted) against the idle figure taken after warm-up, before
//! the readers start.
//!
//! Both warm up first (node table built, vector index loaded) and report how long that took.
//! Run: `cargo run --release --example derived -- loop /tmp/copy-of-1m-db 1000`
#![allow(clippy::unwrap_used, clippy::expect_used)] // a benchmark that cannot set up has nothing to report

use cairn::{Cairn, CairnError, GraphRead, NodeId, Value};
use cairn_generate::Titles;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: u64| -> u64 {
        args.get(i)
            .map(|v| v.parse().expect("a number"))
            .unwrap_or(default)
    };
    let usage = "usage: derived loop DB [ROUNDS] [SEED] | derived readers DB [SECONDS] [THREADS] [EVERY_MS] [SEED]";
    let db_path = args.get(1).expect(usage);
    let (db, authors, mut titles) = warm(db_path);
    match args.first().map(String::as_str) {
        Some("loop") => write_then_query(&db, &authors, &mut titles, arg(2, 1000), arg(3, 1)),
        Some("readers") => readers(
            &db,
            &authors,
            &mut titles,
            Duration::from_secs(arg(2, 60)),
            arg(3, 4) as usize,
            Duration::from_millis(arg(4, 10)),
            arg(5, 1),
        ),
        _ => panic!("{usage}"),
    }
}

/// Opens the database, builds its node table and loads its vector index (what a long-running
/// process has done before its steady state), lists the authors to start from, and reads the
/// papers' titles so that probe titles are new ones.
fn warm(path: &str) -> (Cairn, Vec<NodeId>, Titles) {
    let t = Instant::now();
    let db = Cairn::open(path).expect("open");
    let opened = t.elapsed();
    let t = Instant::now();
    db.node_table().expect("node table");
    let table = t.elapsed();
    let t = Instant::now();
    let refresh = db.refresh_index().expect("vector index");
    let index = t.elapsed();
    let author = db
        .graph()
        .catalog()
        .label_id("Author")
        .expect("an Author label");
    let authors = db.graph().label_nodes(author).expect("authors");
    let t = Instant::now();
    let titles = existing_titles(&db);
    let titles_ms = ms(t.elapsed());
    println!(
        "{}",
        json!({"phase": "warm", "open_ms": ms(opened), "table_ms": ms(table), "index_ms": ms(index),
               "index": format!("{refresh:?}"), "authors": authors.len(), "titles_ms": titles_ms,
               "rss_mib": rss_mib(), "loadavg": loadavg()})
    );
    (db, authors, titles)
}

/// The generator's title source with every existing paper title marked as given.
fn existing_titles(db: &Cairn) -> Titles {
    let mut titles = Titles::new();
    let graph = db.graph();
    let catalog = graph.catalog();
    let (Some(paper), Some(title)) = (catalog.label_id("Paper"), catalog.prop_id("title")) else {
        return titles;
    };
    let papers = graph.label_nodes(paper).expect("papers");
    for chunk in papers.chunks(4096) {
        for record in graph
            .nodes(chunk)
            .expect("paper records")
            .into_iter()
            .flatten()
        {
            if let Some(t) = record.prop(title).and_then(Value::as_str) {
                titles.mark_used(t);
            }
        }
    }
    titles
}

/// One round's write: a new paper with a title no other node has, authored by `author`.
fn write_probe(db: &Cairn, author: NodeId, key: &str, title: &str) -> Result<NodeId, CairnError> {
    db.transaction(|tx| {
        let paper = tx.upsert_node(
            "Paper",
            key,
            [("title", Value::from(title)), ("year", Value::Int(2026))],
            None,
        )?;
        tx.add_edge(author, "AUTHORED", paper, Default::default())?;
        Ok::<_, CairnError>(paper)
    })
}

/// A title drawn like the generator's (its vocabulary and forms, a random topic) that no paper
/// has: SEARCH then walks the index as it would for a real title, not for an outlier.
fn probe_title(rng: &mut ChaCha8Rng, titles: &mut Titles) -> String {
    loop {
        let topic = rng.random_range(0..Titles::TOPICS);
        if let Some(t) = titles.fresh(rng, topic) {
            return t;
        }
    }
}

fn write_then_query(db: &Cairn, authors: &[NodeId], titles: &mut Titles, rounds: u64, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // round, commit, index (the vector index takes in the commit: the first SEARCH after a
    // write would do it), explore, search
    let mut parts: [Vec<f64>; 5] = Default::default();
    let mut scored = Vec::new(); // vectors the SEARCH's index walk scored
    let started = Instant::now();
    for i in 0..rounds {
        let author = authors[rng.random_range(0..authors.len())];
        let key = format!("loop-{seed}-{i}");
        let title = probe_title(&mut rng, titles);
        let t0 = Instant::now();
        let paper = write_probe(db, author, &key, &title).expect("commit");
        let tc = Instant::now();
        db.refresh_index().expect("index refresh");
        let t1 = Instant::now();
        // FANOUT past the default 1,024: a prolific author has more papers than an expansion
        // scores by default (2,971 for one author at 1M), and the new one must be among them.
        let found = db
            .explore(&format!(
                "EXPLORE {title:?} FROM #{} VIA AUTHORED TARGET Paper FANOUT 1000000 RETURN NODES LIMIT 1000",
                author.0
            ))
            .expect("explore");
        let t2 = Instant::now();
        let scored_before = db.index_scored();
        let searched = db
            .explore(&format!(
                "EXPLORE {title:?} FROM SEARCH {title:?} IN Paper TOP 5 VIA <AUTHORED TARGET Author RETURN NODES LIMIT 1000"
            ))
            .expect("search");
        let t3 = Instant::now();
        if let (Some(a), Some(b)) = (scored_before, db.index_scored()) {
            scored.push(b.saturating_sub(a) as f64);
        }
        assert!(
            found.results.iter().any(|r| r.node == paper),
            "round {i}: EXPLORE from #{} did not reach its new paper #{}",
            author.0,
            paper.0
        );
        if !searched
            .results
            .iter()
            .any(|r| r.path.first().is_some_and(|s| s.from == paper))
        {
            // say whether the index or the exploration after it missed the paper
            let top = db
                .index_search(&title, Some("Paper"), 5)
                .expect("index search");
            panic!(
                "round {i}: SEARCH {title:?} did not find its new paper #{} (index top 5: {top:?}; \
                 stop {:?}, {} expanded)",
                paper.0, searched.stop, searched.stats.nodes_expanded
            );
        }
        for (v, d) in parts
            .iter_mut()
            .zip([t3 - t0, tc - t0, t1 - tc, t2 - t1, t3 - t2])
        {
            v.push(ms(d));
        }
    }
    let names = ["round", "commit", "index", "explore", "search"];
    let summary: serde_json::Map<String, serde_json::Value> = names
        .iter()
        .zip(parts.iter_mut())
        .map(|(n, v)| (n.to_string(), percentiles(v)))
        .collect();
    println!(
        "{}",
        json!({"phase": "loop", "rounds": rounds, "all_saw_their_write": true,
               "seconds": started.elapsed().as_secs_f64(), "ms": summary,
               "search_scored": percentiles(&mut scored),
               "table_builds": db.table_builds(), "rss_mib": rss_mib(), "loadavg": loadavg()})
    );
}

/// A 1-, 2- or 3-hop plan from `author`, with its hop count.
fn reader_statement(rng: &mut ChaCha8Rng, author: NodeId) -> (usize, String) {
    let hops = rng.random_range(1..=3);
    let (goal, via, target) = match hops {
        1 => ("papers", "AUTHORED", "Paper"),
        2 => ("co-authors", "AUTHORED -> <AUTHORED", "Author"),
        _ => (
            "papers of co-authors",
            "AUTHORED -> <AUTHORED -> AUTHORED",
            "Paper",
        ),
    };
    let statement = format!(
        "EXPLORE \"{goal}\" FROM #{} VIA {via} TARGET {target}",
        author.0
    );
    (hops, statement)
}

/// One reader's EXPLORE: when it started (since the run began), how long it took, its hops.
#[derive(Clone, Copy)]
struct Read {
    at: Duration,
    ms: f64,
    hops: usize,
}

/// Runs the readers first alone for `quiet` (their own tail, no writer), then beside the
/// writer for `run_for`, and says what the slow reads (above the p99 beside the writer)
/// overlapped: a commit in progress, or a node-table build or merge started in the 2 s before.
fn readers(
    db: &Cairn,
    authors: &[NodeId],
    titles: &mut Titles,
    run_for: Duration,
    threads: usize,
    every: Duration,
    seed: u64,
) {
    // warm the readers' paths once before taking the idle figure
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..30 {
        let a = authors[rng.random_range(0..authors.len())];
        db.explore(&reader_statement(&mut rng, a).1)
            .expect("explore");
    }
    let idle = rss_mib();
    let quiet = run_for / 6;
    let stop = AtomicBool::new(false);
    let peak = AtomicU64::new(0);
    let reads = Mutex::new(Vec::new());
    let mut commit_spans: Vec<(Duration, Duration)> = Vec::new();
    let table_events = Mutex::new(Vec::new()); // (when, "build" | "merge")
    let late = AtomicU64::new(0);
    let started = Instant::now();
    std::thread::scope(|s| {
        s.spawn(|| {
            let (mut builds, mut merges) = (db.table_builds(), db.table_merges());
            // A merge started late in the run holds its memory after the run ends: the peak
            // counts until it is adopted (the overlay shrinks below MERGE_AFTER), up to 60 s.
            let unmerged = || db.node_source().changed_nodes() > cairn::agent::MERGE_AFTER;
            let mut ended = None;
            while !stop.load(Ordering::Relaxed)
                || (unmerged() && ended.get_or_insert_with(Instant::now).elapsed().as_secs() < 60)
            {
                peak.fetch_max((rss_mib() * 1024.0) as u64, Ordering::Relaxed);
                let (b, m) = (db.table_builds(), db.table_merges());
                if b != builds || m != merges {
                    let what = if b != builds { "build" } else { "merge" };
                    table_events.lock().unwrap().push((started.elapsed(), what));
                    (builds, merges) = (b, m);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        for t in 0..threads {
            let (reads, stop) = (&reads, &stop);
            s.spawn(move || {
                let mut rng = ChaCha8Rng::seed_from_u64(seed * 1000 + t as u64 + 1);
                let mut mine = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    let a = authors[rng.random_range(0..authors.len())];
                    let (hops, statement) = reader_statement(&mut rng, a);
                    let at = started.elapsed();
                    let t0 = Instant::now();
                    db.explore(&statement).expect("explore");
                    mine.push(Read {
                        at,
                        ms: ms(t0.elapsed()),
                        hops,
                    });
                }
                reads.lock().unwrap().extend(mine);
            });
        }
        std::thread::sleep(quiet);
        let mut rng = ChaCha8Rng::seed_from_u64(seed + 7);
        let mut next = Instant::now();
        while started.elapsed() < quiet + run_for {
            let author = authors[rng.random_range(0..authors.len())];
            let n = commit_spans.len();
            let title = probe_title(&mut rng, titles);
            let t0 = started.elapsed();
            write_probe(db, author, &format!("writer-{seed}-{n}"), &title).expect("commit");
            commit_spans.push((t0, started.elapsed()));
            next += every;
            match next.checked_duration_since(Instant::now()) {
                Some(wait) => std::thread::sleep(wait),
                None => {
                    late.fetch_add(1, Ordering::Relaxed);
                    next = Instant::now();
                }
            }
        }
        stop.store(true, Ordering::Relaxed);
    });
    let reads = reads.into_inner().unwrap();
    let table_events = table_events.into_inner().unwrap();
    let (alone, beside): (Vec<Read>, Vec<Read>) = reads.iter().partition(|r| r.at < quiet);
    let lat = |rs: &[Read], hops: Option<usize>| -> serde_json::Value {
        let mut v: Vec<f64> = rs
            .iter()
            .filter(|r| hops.is_none_or(|h| r.hops == h))
            .map(|r| r.ms)
            .collect();
        percentiles(&mut v)
    };
    let by_hops = |rs: &[Read]| -> serde_json::Value {
        json!({"1": lat(rs, Some(1)), "2": lat(rs, Some(2)), "3": lat(rs, Some(3))})
    };
    // the slow reads beside the writer, and what they overlapped
    let mut sorted: Vec<f64> = beside.iter().map(|r| r.ms).collect();
    sorted.sort_by(f64::total_cmp);
    let p99 = sorted
        .get(((sorted.len() as f64 - 1.0) * 0.99).round() as usize)
        .copied()
        .unwrap_or(0.0);
    let slow: Vec<&Read> = beside.iter().filter(|r| r.ms > p99).collect();
    let overlaps_commit = |r: &Read| {
        let end = r.at + Duration::from_secs_f64(r.ms / 1e3);
        commit_spans.iter().any(|&(a, b)| a < end && b > r.at)
    };
    let near_table_work = |r: &Read| {
        table_events.iter().any(|&(t, _)| {
            t <= r.at + Duration::from_millis(20) && r.at < t + Duration::from_secs(2)
        })
    };
    let slow_by_hops = [1, 2, 3].map(|h| slow.iter().filter(|r| r.hops == h).count());
    let mut commit_ms: Vec<f64> = commit_spans.iter().map(|&(a, b)| ms(b - a)).collect();
    let peak = peak.load(Ordering::Relaxed) as f64 / 1024.0;
    println!(
        "{}",
        json!({"phase": "readers", "threads": threads, "seconds": run_for.as_secs_f64(),
               "quiet_seconds": quiet.as_secs_f64(),
               "commits": commit_spans.len(), "commits_late": late.load(Ordering::Relaxed),
               "commit_ms": percentiles(&mut commit_ms),
               "reads": beside.len(), "reader_ms": lat(&beside, None), "reader_ms_by_hops": by_hops(&beside),
               "alone": {"reads": alone.len(), "reader_ms": lat(&alone, None), "reader_ms_by_hops": by_hops(&alone)},
               "slow_reads": {"count": slow.len(), "over_ms": p99,
                   "by_hops": slow_by_hops,
                   "overlapping_a_commit": slow.iter().filter(|r| overlaps_commit(r)).count(),
                   "within_2s_of_table_work": slow.iter().filter(|r| near_table_work(r)).count()},
               "table_events": table_events.iter().map(|(t, w)| json!([t.as_secs_f64(), w])).collect::<Vec<_>>(),
               "idle_rss_mib": idle, "peak_rss_mib": peak, "peak_over_idle": peak / idle,
               "table_builds": db.table_builds(), "table_merges": db.table_merges(), "loadavg": loadavg()})
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn percentiles(v: &mut [f64]) -> serde_json::Value {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| {
        v.get(((v.len() as f64 - 1.0) * q).round() as usize)
            .copied()
    };
    json!({"p50": at(0.5), "p90": at(0.9), "p99": at(0.99), "max": v.last()})
}

/// The process's resident set now, MiB (from /proc/self/status).
fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .trim()
        .to_owned()
}
