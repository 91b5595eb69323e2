//! Parsing and compiling a ~1 KB EXPLORE statement. Bar: under 50 µs for parse + compile.
//!
//! Run: `cargo bench -p cairn-query --bench parse`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_query::{compile, parse, prepare, MemoryCatalog};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

/// A realistic, deliberately busy statement of about 1 KB.
pub const STATEMENT: &str = r#"-- Which venues do Jiawei Han's co-authors publish in, and which of their papers are cited most?
EXPLORE "venues where Jiawei Han's co-authors publish most, with their most cited recent papers"
  FROM Author WHERE name = "Jiawei Han" AND h_index >= 50,
       SEARCH "data mining and knowledge discovery" IN Author TOP 5,
       Paper "p-123", #42
  VIA <AUTHORED:1.0, AUTHORED:0.8, PUBLISHED_IN:1.5, <CITES:0.4, AFFILIATED_WITH:0.2
  TARGET Venue, Paper
  WHERE Paper.year >= 2015 AND Paper.citations > 100 AND country IN ["CN", "US", "DE", "FR"]
    AND open_access = true AND title != null AND Venue.name != "arXiv (preprint server)"
    AND Paper.key IN ["p-1", "p-2", "p-3"]
  SCORE semantic 0.55, connectivity 0.25, distance 0.2
  BEAM 12 DEPTH 4 BUDGET 5000
  UNTIL (sufficient >= 0.85 AND found 20 Venue) OR (found 50 Paper AND stale 3)
    OR steps 4000 OR depth 4 OR time 30s OR (judge AND sufficient >= 0.6)
  RETURN PATHS LIMIT 25 /* evidence paths for the answerer */
"#;

fn catalog() -> MemoryCatalog {
    MemoryCatalog::with(
        &["Author", "Paper", "Venue", "Institution", "Topic"],
        &[
            "AUTHORED",
            "PUBLISHED_IN",
            "CITES",
            "AFFILIATED_WITH",
            "WORKS_AT",
            "ABOUT",
        ],
        &[
            "name",
            "title",
            "year",
            "citations",
            "h_index",
            "country",
            "open_access",
            "key",
        ],
    )
}

fn bench(c: &mut Criterion) {
    let cat = catalog();
    assert!(
        (900..1200).contains(&STATEMENT.len()),
        "{} bytes",
        STATEMENT.len()
    );
    let stmt = parse(STATEMENT).unwrap();
    compile(&stmt, &cat).unwrap();

    let mut g = c.benchmark_group("explore_1kb");
    g.throughput(Throughput::Bytes(STATEMENT.len() as u64));
    g.bench_function("parse", |b| b.iter(|| parse(black_box(STATEMENT)).unwrap()));
    g.bench_function("compile", |b| {
        b.iter(|| compile(black_box(&stmt), &cat).unwrap())
    });
    g.bench_function("parse+compile", |b| {
        b.iter(|| prepare(black_box(STATEMENT), &cat).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
