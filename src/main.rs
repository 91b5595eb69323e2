//! The `cairn` command-line tool.

use cairn::engine::generate::{Academic, AcademicConfig};
use cairn::engine::import::{import_files, ImportError, ImportOptions, Phase, Progress};
use cairn::{EngineError, Graph, GraphOptions};
use clap::{Parser, Subcommand, ValueEnum};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Cairn: an embedded graph database with an agent query language.
///
/// Exit codes: 0 success, 1 database or I/O error, 2 bad command line, 3 bad input data
/// (dump lines, headers).
#[derive(Debug, Parser)]
#[command(version, about, long_about)]
struct Cli {
    /// Database directory [env: CAIRN_DB].
    #[arg(
        long,
        env = "CAIRN_DB",
        global = true,
        default_value = "cairn.db",
        hide_env = true
    )]
    db: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the schema and size estimates of a database.
    #[command(after_help = "Example:\n  cairn --db ./academic.cairn stats")]
    Stats,
    /// Generate a synthetic graph dump (deterministic from the seed).
    #[command(
        after_help = "Examples:\n  cairn generate academic --nodes 10000 --out ./dump\n  cairn generate academic --nodes 1000000 --format jsonl --seed 7 --out ./big"
    )]
    Generate {
        /// What to generate.
        #[arg(value_enum)]
        kind: GenerateKind,
        /// Approximate number of nodes.
        #[arg(long, default_value_t = 10_000)]
        nodes: usize,
        /// Random seed.
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Dump format.
        #[arg(long, value_enum, default_value_t = DumpFormatArg::Csv)]
        format: DumpFormatArg,
        /// Output directory (created if missing).
        #[arg(long)]
        out: PathBuf,
    },
    /// Bulk-import dump files (JSON Lines or Neo4j-style CSV, optionally gzipped) into --db.
    ///
    /// Every file is read and checked before the database is touched: by default the first bad
    /// line aborts the import with the database unchanged. A directory argument imports every
    /// .jsonl/.ndjson/.csv(.gz) file in it.
    #[command(
        after_help = "Examples:\n  cairn --db ./academic.cairn import ./dump\n  cairn --db ./db import nodes.jsonl edges.jsonl.gz --max-errors 10"
    )]
    Import {
        /// Files or directories to import.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Skip up to this many bad lines (each is reported) instead of aborting.
        #[arg(long, default_value_t = 0)]
        max_errors: usize,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum GenerateKind {
    /// Authors, papers, venues and topics (AUTHORED, PUBLISHED_IN, CITES, HAS_TOPIC).
    Academic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum DumpFormatArg {
    Csv,
    Jsonl,
}

/// An error with the exit code it maps to.
struct Failure {
    code: u8,
    report: miette::Report,
}

impl From<EngineError> for Failure {
    fn from(e: EngineError) -> Self {
        Failure {
            code: 1,
            report: miette::Report::msg(e.to_string()),
        }
    }
}

impl From<ImportError> for Failure {
    fn from(e: ImportError) -> Self {
        let code = match e {
            ImportError::BadLines { .. }
            | ImportError::Header { .. }
            | ImportError::UnknownFormat { .. }
            | ImportError::VectorDimension { .. } => 3,
            ImportError::Io { .. } | ImportError::Engine(_) => 1,
        };
        Failure {
            code,
            report: miette::Report::msg(e.to_string()),
        }
    }
}

fn io_failure(path: &Path, e: std::io::Error) -> Failure {
    Failure {
        code: 1,
        report: miette::Report::msg(format!("{}: {e}", path.display())),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    let result = match cli.command {
        Command::Stats => stats(&cli.db),
        Command::Generate {
            kind: GenerateKind::Academic,
            nodes,
            seed,
            format,
            out,
        } => generate(nodes, seed, format, &out),
        Command::Import { files, max_errors } => import(&cli.db, &files, max_errors),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("{:?}", f.report);
            ExitCode::from(f.code)
        }
    }
}

/// Diagnostics on stderr at the level named by `CAIRN_LOG` (error, warn, info, debug, trace);
/// warnings only by default.
fn init_logging() {
    let level = std::env::var("CAIRN_LOG")
        .ok()
        .and_then(|v| v.parse::<tracing_subscriber::filter::LevelFilter>().ok())
        .unwrap_or(tracing_subscriber::filter::LevelFilter::WARN);
    tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(std::io::stderr)
        .with_timer(tracing_subscriber::fmt::time::uptime())
        .init();
}

fn open_existing(db: &Path) -> Result<Graph, Failure> {
    Ok(Graph::open(
        db,
        GraphOptions {
            create_if_missing: false,
            ..GraphOptions::default()
        },
    )?)
}

fn stats(db: &Path) -> Result<(), Failure> {
    let graph = open_existing(db)?;
    let catalog = graph.catalog();
    println!("database   {}", db.display());
    println!("nodes      ~{}", graph.estimate_keys("node")?);
    println!("edges      ~{}", graph.estimate_keys("out")?);
    let labels: Vec<&str> = catalog.labels().map(|(_, n)| n).collect();
    println!("labels     {}", labels.join(", "));
    for (_, rel) in catalog.relations() {
        let ends: Vec<String> = rel
            .endpoints
            .iter()
            .map(|(s, d)| {
                format!(
                    "{}->{}",
                    catalog.label_name(*s).unwrap_or("?"),
                    catalog.label_name(*d).unwrap_or("?")
                )
            })
            .collect();
        match rel.parent.and_then(|p| catalog.relation_name(p)) {
            Some(p) => println!("relation   {} (under {p}) {}", rel.name, ends.join(" ")),
            None => println!("relation   {} {}", rel.name, ends.join(" ")),
        }
    }
    for index in catalog.indexes() {
        println!(
            "index      {}({})",
            catalog.label_name(index.label).unwrap_or("?"),
            catalog.prop_name(index.prop).unwrap_or("?")
        );
    }
    Ok(())
}

fn generate(nodes: usize, seed: u64, format: DumpFormatArg, out: &Path) -> Result<(), Failure> {
    let started = Instant::now();
    let graph = Academic::generate(&AcademicConfig::with_nodes(nodes, seed));
    let files = match format {
        DumpFormatArg::Csv => graph.write_csv(out),
        DumpFormatArg::Jsonl => graph.write_jsonl(out),
    }
    .map_err(|e| io_failure(out, e))?;
    println!(
        "generated {} nodes and {} edges (seed {seed}) in {:.1}s:",
        graph.node_count(),
        graph.edge_count(),
        started.elapsed().as_secs_f64()
    );
    for f in files {
        println!("  {}", f.display());
    }
    Ok(())
}

/// Expands directories into the dump files they hold, sorted by name.
fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut inside: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| io_failure(p, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| cairn::engine::import::read::DumpFormat::of(f).is_ok())
                .collect();
            inside.sort();
            if inside.is_empty() {
                return Err(Failure {
                    code: 3,
                    report: miette::Report::msg(format!(
                        "{}: no .jsonl, .ndjson or .csv files in this directory",
                        p.display()
                    )),
                });
            }
            files.extend(inside);
        } else if p.exists() {
            files.push(p.clone());
        } else {
            return Err(io_failure(
                p,
                std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
            ));
        }
    }
    Ok(files)
}

fn import(db: &Path, paths: &[PathBuf], max_errors: usize) -> Result<(), Failure> {
    let files = expand(paths)?;
    let graph = Graph::open(db, GraphOptions::default())?;
    let progress = progress_reporter();
    let options = ImportOptions {
        max_errors,
        progress: Some(progress.callback()),
    };
    let result = import_files(&graph, &files, &options);
    progress.finish();
    let s = result?;
    for e in &s.skipped {
        eprintln!("skipped {e}");
    }
    let secs = s.elapsed.as_secs_f64();
    println!(
        "imported into {} in {secs:.2}s: nodes {} new, {} updated, {} unchanged; edges {} new, {} updated, {} unchanged; {} line(s) skipped; {:.0} edges/s",
        db.display(),
        s.nodes_created,
        s.nodes_updated,
        s.nodes_unchanged,
        s.edges_created,
        s.edges_updated,
        s.edges_unchanged,
        s.skipped.len(),
        s.edges_per_sec(),
    );
    Ok(())
}

/// Shows import progress: a bar with rate and ETA on a terminal, a plain line every few
/// seconds otherwise (logs, CI).
enum Reporter {
    Bar(indicatif::ProgressBar),
    Plain(Arc<Mutex<(Instant, Option<Phase>)>>),
}

fn progress_reporter() -> Reporter {
    if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(0);
        let style = indicatif::ProgressStyle::with_template(
            "{msg:>10} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> ");
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(200));
        Reporter::Bar(bar)
    } else {
        Reporter::Plain(Arc::new(Mutex::new((Instant::now(), None))))
    }
}

impl Reporter {
    fn callback(&self) -> cairn::engine::import::ProgressFn {
        match self {
            Reporter::Bar(bar) => {
                let bar = bar.clone();
                Arc::new(move |p: Progress| {
                    bar.set_message(p.phase.to_string());
                    match (p.phase, p.total) {
                        (Phase::Read, Some(total)) => {
                            bar.set_length(total);
                            bar.set_position(p.done);
                        }
                        _ => bar.set_position(bar.length().unwrap_or(0)),
                    }
                })
            }
            Reporter::Plain(state) => {
                let state = Arc::clone(state);
                Arc::new(move |p: Progress| {
                    let Ok(mut s) = state.lock() else { return };
                    let phase_changed = s.1 != Some(p.phase);
                    if phase_changed || s.0.elapsed() >= Duration::from_secs(5) {
                        s.0 = Instant::now();
                        s.1 = Some(p.phase);
                        match p.total {
                            Some(t) if p.phase == Phase::Read && t > 0 => {
                                eprintln!(
                                    "import: {} {:.0}% ({} of {} MB)",
                                    p.phase,
                                    100.0 * p.done as f64 / t as f64,
                                    p.done >> 20,
                                    t >> 20
                                )
                            }
                            _ => eprintln!("import: {}", p.phase),
                        }
                    }
                })
            }
        }
    }

    fn finish(&self) {
        if let Reporter::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}
