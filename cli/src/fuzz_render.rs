//! The render fuzz target (docs/RELIABILITY.md, "Fuzzing"): every way the CLI shows data —
//! the table and JSON forms of each `RETURN` kind, `ASK`'s answer, error reports of statements
//! — on a database whose names are long (up to 70,000 characters), wide (CJK, emoji with
//! joiners, combining marks, right-to-left scripts) and hostile (controls, bidirectional and
//! zero-width characters), and on statements with such text spliced in. Each input must render
//! without a panic, print nothing a terminal would act on or reorder, and keep JSON parseable.
//!
//! A unit test of the binary crate, since the renderers are its own: `render_fuzz_short` runs
//! in `cargo test` for a few seconds; the full run is
//! `CAIRN_FUZZ_SECS=600 cargo test -p cairn-cli --bin cairn -- --ignored --nocapture fuzz_render`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::display;
use crate::{ask_cli, Failure, OutputFormat};
use cairn::{
    Cairn, CancelToken, DumpEdge, DumpNode, DumpRecord, ImportEmbedder, ImportOptions, NodeRef,
};
use rand::{Rng as _, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

/// Pieces hostile text is made of.
const PIECES: &[&str] = &[
    "Ann Lee",
    "graph mining",
    "著者と論文",
    "🙂",
    "👩‍👩‍👧‍👦",
    "🇳🇴",
    "e\u{301}\u{302}\u{303}",
    "שלום עולם",
    "مرحبا",
    "\u{202e}",
    "\u{202a}",
    "\u{2066}",
    "\u{2069}",
    "\u{200b}",
    "\u{200d}",
    "\u{feff}",
    "\u{e0041}",
    "\u{1b}[2J",
    "\u{1b}]0;pwned\u{7}",
    "\u{9b}31m",
    "\u{0}",
    "\u{7f}",
    "\n",
    "\t",
    "\r",
    "\"",
    "`",
    ";",
    "\\",
    "/*",
    "--",
    "{}",
    "%s",
    "\u{fffd}",
    "Z\u{300}\u{301}\u{302}\u{303}\u{304}\u{305}\u{306}",
];

/// Labels and relations the rule allows that are still hard to show: wide, long, combining.
const LABELS: &[&str] = &["Author", "著者", "Ünïcödé", "e\u{301}tiquette", "Emoji🙂"];
const RELATIONS: &[&str] = &["WROTE", "書いた", "ÉCRIT", "REL_🙂"];

fn hostile(rng: &mut ChaCha8Rng) -> String {
    let mut s = String::new();
    for _ in 0..rng.random_range(1..12) {
        let piece = PIECES[rng.random_range(0..PIECES.len())];
        // Mostly short; now and then thousands of repeats (a 65k-column line, a 70k name).
        let times = match rng.random_range(0..200) {
            0 => rng.random_range(10_000..70_000),
            1..=4 => rng.random_range(200..5_000),
            5..=30 => rng.random_range(2..200),
            _ => 1,
        };
        for _ in 0..times.min(70_000 / piece.len().max(1)) {
            s.push_str(piece);
        }
    }
    s
}

/// A database of hostile names: nodes of each label, a ring of edges between them.
fn database(dir: &std::path::Path, rng: &mut ChaCha8Rng) -> Cairn {
    let cairn = Cairn::open(dir.join("db")).unwrap();
    let long_label = "L".repeat(1000);
    let mut labels: Vec<&str> = LABELS.to_vec();
    labels.push(&long_label);
    let mut records = Vec::new();
    let n = 60;
    for i in 0..n {
        records.push(DumpRecord::Node(DumpNode {
            label: labels[i % labels.len()].to_owned(),
            key: if i % 7 == 0 {
                hostile(rng)
            } else {
                format!("k{i}")
            },
            props: vec![("name".into(), hostile(rng).into())],
            description: Some(hostile(rng)),
            vector: None,
        }));
    }
    let refs: Vec<NodeRef> = records
        .iter()
        .map(|r| match r {
            DumpRecord::Node(n) => NodeRef {
                label: n.label.clone(),
                key: n.key.clone(),
            },
            _ => unreachable!(),
        })
        .collect();
    for i in 0..n {
        for step in [1, 7] {
            records.push(DumpRecord::Edge(DumpEdge {
                rel: RELATIONS[(i + step) % RELATIONS.len()].to_owned(),
                from: refs[i].clone(),
                to: refs[(i + step) % n].clone(),
                props: Vec::new(),
                weight: None,
            }));
        }
    }
    cairn
        .import_records(
            records,
            ImportOptions {
                embedder: ImportEmbedder::Database,
                ..Default::default()
            },
        )
        .unwrap();
    cairn
}

/// The name as the language writes it.
fn quoted(name: &str) -> String {
    cairn::query::printer::name(name).to_string()
}

fn string(text: &str) -> String {
    cairn::query::printer::str_lit(text).to_string()
}

/// One input: a statement (or question) and how to show it.
fn input(rng: &mut ChaCha8Rng, cairn: &Cairn) -> (String, bool, OutputFormat) {
    let format = if rng.random_bool(0.3) {
        OutputFormat::Json
    } else {
        OutputFormat::Table
    };
    let graph = cairn.graph();
    let catalog = graph.catalog();
    let labels: Vec<String> = catalog.labels().map(|(_, n)| n.to_owned()).collect();
    let label = &labels[rng.random_range(0..labels.len())];
    let kind = ["NODES", "PATHS", "SUBGRAPH", "ANSWER", "TRACE", "COUNT"][rng.random_range(0..6)];
    let text = match rng.random_range(0..10) {
        // A question: the ASK pipeline, offline. Capped at 4,000 characters: the planner
        // takes seconds on a few thousand (not a panic, but it would starve the other inputs).
        0 | 1 => {
            let q: String = hostile(rng).chars().take(4_000).collect();
            return (q, true, format);
        }
        // A statement with hostile text spliced in: an error report.
        2 | 3 => {
            let base = format!(
                "EXPLORE {} FROM {} WHERE name = {} VIA ANY RETURN {kind}",
                string(&hostile(rng)),
                quoted(label),
                string("x"),
            );
            let mut at = rng.random_range(0..=base.len());
            while !base.is_char_boundary(at) {
                at -= 1;
            }
            format!("{}{}{}", &base[..at], hostile(rng), &base[at..])
        }
        // An exploration from a node, or from its label's nodes, with a hostile goal.
        _ => format!(
            "EXPLORE {} FROM {} VIA ANY TARGET ANY DEPTH {} RETURN {kind}",
            string(&hostile(rng)),
            quoted(label),
            rng.random_range(1..4),
        ),
    };
    (text, false, format)
}

/// What a terminal must never get raw.
fn check_inert(out: &str) -> Result<(), String> {
    use cairn::format::rules::{is_control, is_invisible};
    match out
        .chars()
        .find(|&c| (is_control(c) && c != '\n' && c != '\t') || is_invisible(c))
    {
        Some(c) => Err(format!("raw U+{:04X} in the output", c as u32)),
        None => Ok(()),
    }
}

/// Renders one input as the CLI would; returns what it printed.
fn run(cairn: &Cairn, text: &str, ask: bool, format: OutputFormat) -> String {
    let ((), out) = display::capture(|| {
        let started = Instant::now();
        let shown: Result<(), Failure> = if ask {
            cairn
                .ask(text, &CancelToken::default(), None)
                .map_err(Failure::from)
                .and_then(|o| ask_cli::print_answer(cairn, &o, format, false))
        } else {
            cairn
                .execute(text, &CancelToken::default())
                .map_err(Failure::from)
                .and_then(|o| super::print_output(cairn, o, format, started.elapsed()))
        };
        if let Err(f) = shown {
            match format {
                OutputFormat::Json => errln!("{}", crate::json::error(&f)),
                OutputFormat::Table => errln!("{}", display::report(&f.report)),
            }
        }
    });
    out
}

/// Runs the target for `budget`; returns the inputs run. Panics (with the input) on a panic,
/// raw output or JSON that does not parse.
fn fuzz(budget: Duration, seed: u64) -> u64 {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let dir = tempfile::tempdir().unwrap();
    let cairn = database(dir.path(), &mut rng);
    let started = Instant::now();
    let mut inputs = 0;
    while started.elapsed() < budget {
        let (text, ask, format) = input(&mut rng, &cairn);
        let one = Instant::now();
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| run(&cairn, &text, ask, format)));
        if one.elapsed() > Duration::from_secs(3) {
            eprintln!(
                "render fuzz (CAIRN_FUZZ_SEED={seed}, input {inputs}): slow input ({:.1} s): {} of {} chars: {:?}",
                one.elapsed().as_secs_f64(),
                if ask { "ASK" } else { "statement" },
                text.chars().count(),
                text.chars().take(120).collect::<String>()
            );
        }
        let failure = match result {
            Err(_) => Some("panicked".to_owned()),
            Ok(out) => check_inert(&out).err().or_else(|| {
                let json_ok = format == OutputFormat::Table
                    || out
                        .lines()
                        .filter(|l| l.starts_with('{'))
                        .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok());
                (!json_ok).then(|| "JSON output does not parse".to_owned())
            }),
        };
        if let Some(why) = failure {
            let shown: String = text.chars().take(2000).collect();
            panic!(
                "render fuzz (CAIRN_FUZZ_SEED={seed}, input {inputs}): {why} on {} {shown:?} ({} chars)",
                if ask { "ASK" } else { "statement" },
                text.chars().count()
            );
        }
        inputs += 1;
    }
    inputs
}

/// `CAIRN_FUZZ_SEED`, else the clock: every report of an input names the seed that replays it.
fn seed() -> u64 {
    std::env::var("CAIRN_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        })
}

#[test]
fn render_fuzz_short() {
    let inputs = fuzz(Duration::from_secs(5), seed());
    assert!(inputs > 5, "{inputs} inputs");
}

#[test]
#[ignore = "long: docs/RELIABILITY.md gives the command"]
fn fuzz_render() {
    let secs = std::env::var("CAIRN_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let seed = seed();
    let started = Instant::now();
    let inputs = fuzz(Duration::from_secs(secs), seed);
    let elapsed = started.elapsed().as_secs_f64();
    eprintln!(
        "fuzz_render: seed {seed}, {inputs} inputs in {elapsed:.0} s ({:.1}/s), 0 panics",
        inputs as f64 / elapsed
    );
}
