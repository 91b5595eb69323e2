//! Driver of `benches/derived/count3.sh`: for each author of a list, the number of distinct
//! nodes HOPS steps along `AUTHORED -> <AUTHORED -> AUTHORED` (1: the author's papers; 2:
//! co-authors, not the author; 3, the default: papers of co-authors, the author's own
//! included), timed inside one process on a warm node table, two ways:
//!
//! - `explore`: the statement `EXPLORE … RETURN COUNT` (parse, compile, count);
//! - `ask`: the count the `ASK` answerer computes for a planned "how many" question
//!   (`cairn::agent::walk::count_ends`, with that plan's path and target label).
//!
//! Prints one JSON line per (run, author, way): `{"system", "run", "author", "count", "ms"}`.
//!
//! Run: `cargo run --release --example count3 -- DB_DIR AUTHORS_FILE [RUNS] [HOPS]`

use cairn::agent::walk::{count_ends, Step};
use cairn::{Cairn, CairnError, GraphRead};
use std::time::Instant;

fn main() -> Result<(), CairnError> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(db), Some(authors), runs) = (args.get(1), args.get(2), args.get(3)) else {
        eprintln!("usage: count3 DB_DIR AUTHORS_FILE [RUNS]");
        std::process::exit(2);
    };
    let runs: u32 = runs.and_then(|r| r.parse().ok()).unwrap_or(3);
    let hops: usize = match args.get(4).map(|h| h.parse()) {
        None => 3,
        Some(Ok(h @ 1..=3)) => h,
        Some(_) => {
            eprintln!("HOPS is 1, 2 or 3");
            std::process::exit(2);
        }
    };
    let authors: Vec<String> = std::fs::read_to_string(authors)
        .map_err(|e| CairnError::Unsupported(format!("{authors}: {e}")))?
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect();
    let db = Cairn::open_read_only(db)?;
    // Warm: the node table is built once, as a long-running process holds it.
    db.node_table()?;
    let graph = db.graph();
    let catalog = graph.catalog();
    // papers at odd steps, authors at even ones
    let (target, via) = match hops {
        1 => ("Paper", "AUTHORED"),
        2 => ("Author", "AUTHORED -> <AUTHORED"),
        _ => ("Paper", "AUTHORED -> <AUTHORED -> AUTHORED"),
    };
    let target_id = catalog
        .label_id(target)
        .ok_or_else(|| CairnError::Unsupported(format!("no {target} label")))?;
    let path = [
        Step {
            relation: "AUTHORED".into(),
            reversed: false,
        },
        Step {
            relation: "AUTHORED".into(),
            reversed: true,
        },
        Step {
            relation: "AUTHORED".into(),
            reversed: false,
        },
    ];
    let path = &path[..hops];
    for run in 0..runs {
        for author in &authors {
            let statement = format!(
                "EXPLORE \"neighbourhood\" FROM Author \"{author}\" \
                 VIA {via} TARGET {target} RETURN COUNT"
            );
            let t = Instant::now();
            let n = db.explore(&statement)?.count.unwrap_or(0);
            line("cairn-explore", run, author, n, t);

            let source = db.node_source();
            let t = Instant::now();
            let id = graph
                .node_id("Author", author)?
                .ok_or_else(|| CairnError::Unsupported(format!("no author {author}")))?;
            let (n, cut) = count_ends(&*source, &catalog, &[id], path, Some(target_id))?;
            if cut {
                return Err(CairnError::Unsupported(format!("{author}: walk cut")));
            }
            line("cairn-ask", run, author, n, t);
        }
    }
    Ok(())
}

fn line(system: &str, run: u32, author: &str, count: u64, t: Instant) {
    println!(
        "{{\"system\":\"{system}\",\"run\":{run},\"author\":\"{author}\",\"count\":{count},\"ms\":{:.4}}}",
        t.elapsed().as_secs_f64() * 1e3
    );
}
