//! Driver of `benches/lang/run.sh`: the language benchmark's queries through `Cairn::explore`,
//! timed one by one inside one process on a warm node table (the open, the table build and a
//! warm-up pass not counted), as a long-running application runs them.
//!
//! - `topk`: `FROM Paper RETURN NODES citations ORDER BY citations DESC LIMIT 10` (read from the
//!   property index on `Paper(citations)`, which the bench's setup declares);
//! - `per_venue`: `FROM Venue AS v VIA <PUBLISHED_IN TARGET Paper RETURN COUNT GROUP BY v`, every
//!   venue;
//! - `filter`: `EXPLORE "recent cited" TARGET Paper WHERE year >= 2015 AND citations > 100`
//!   (the selection through the indexes on `year` and `citations`, ranked by relevance), every
//!   match (`RETURN NODES LIMIT 10000`, to compare the rows with Kuzu's);
//! - `filter_top`: the same statement as a user writes it, the default `RETURN NODES LIMIT 10`
//!   (the ten most relevant matches; Kuzu has no relevance order, so no peer runs it).
//!
//! Prints one JSON line per run: `{"system": "cairn", "query", "run", "ms", "rows", "digest"}`,
//! the digest computed as `kuzu_queries.py` computes it (the rows' text, sorted, hashed).
//!
//! Run: `cargo run --release --example queries -- DB_DIR QUERY RUNS`

use cairn::{Cairn, CairnError, GroupValue, Value};
use std::time::Instant;

fn statement(query: &str) -> Option<&'static str> {
    Some(match query {
        "topk" => "EXPLORE \"the ten most cited papers\" FROM Paper RETURN NODES citations ORDER BY citations DESC LIMIT 10",
        "per_venue" => "EXPLORE \"papers per venue\" FROM Venue AS v VIA <PUBLISHED_IN TARGET Paper RETURN COUNT GROUP BY v LIMIT 10000",
        "filter" => "EXPLORE \"recent cited\" TARGET Paper WHERE year >= 2015 AND citations > 100 RETURN NODES LIMIT 10000",
        "filter_top" => "EXPLORE \"recent cited\" TARGET Paper WHERE year >= 2015 AND citations > 100",
        _ => return None,
    })
}

fn cell(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        Value::Int(i) => i.to_string(),
        other => format!("{other:?}"),
    }
}

/// The rows as `kuzu_queries.py` prints them: (key, value) for the top k and the groups, the
/// key alone for the filter.
fn rows(query: &str, e: &cairn::Exploration) -> Vec<String> {
    match query {
        "per_venue" => e
            .rows
            .iter()
            .map(|r| {
                let key = match &r.keys[0] {
                    GroupValue::Node(n) => n.key.clone(),
                    GroupValue::Value(v) => cell(v),
                };
                format!("{key}\t{}", cell(&r.values[0]))
            })
            .collect(),
        "topk" => e
            .results
            .iter()
            .map(|r| format!("{}\t{}", r.key, cell(&r.values[0])))
            .collect(),
        _ => e.results.iter().map(|r| r.key.clone()).collect(),
    }
}

/// sha256 of the sorted rows, first 16 hex digits (what the Python side prints).
fn digest(mut rows: Vec<String>) -> String {
    rows.sort();
    let text = rows.join("\n");
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import hashlib,sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest()[:16])",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .map(|mut s| s.write_all(text.as_bytes()))
                .transpose()?;
            child.wait_with_output()
        });
    match out {
        Ok(o) => String::from_utf8_lossy(&o.stdout).trim().to_owned(),
        Err(_) => String::new(),
    }
}

fn main() -> Result<(), CairnError> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(db), Some(query), runs) = (args.get(1), args.get(2), args.get(3)) else {
        eprintln!("usage: queries DB_DIR topk|per_venue|filter|filter_top [RUNS]");
        std::process::exit(2);
    };
    let Some(text) = statement(query) else {
        eprintln!("unknown query {query}: topk, per_venue, filter or filter_top");
        std::process::exit(2);
    };
    let runs: u32 = runs.and_then(|r| r.parse().ok()).unwrap_or(5);
    let db = Cairn::open_read_only(db)?;
    // Warm: the node table is built once, as a long-running process holds it.
    db.node_table()?;
    for run in 0..=runs {
        let t = Instant::now();
        let e = db.explore(text)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if run == 0 {
            continue;
        }
        let rows = rows(query, &e);
        println!(
            "{{\"system\": \"cairn\", \"query\": \"{query}\", \"run\": {run}, \"ms\": {:.4}, \"rows\": {}, \"digest\": \"{}\"}}",
            ms,
            rows.len(),
            digest(rows)
        );
    }
    Ok(())
}
