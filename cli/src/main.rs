//! The `cairn` command-line tool.

#[macro_use]
mod display;
mod args;
mod ask_cli;
#[cfg(test)]
mod fuzz_render;
mod json;
mod render;
mod repl;
mod triples_cli;

use args::{Cli, Command, DumpFormatArg, EmbedderArg, GenerateKind, IndexCommand, OutputFormat};
use cairn::TableMode;
use cairn::{
    Cairn, CairnError, CairnOptions, CancelToken, EngineError, Freshness, Graph, GraphOptions,
    OpenMode, Output,
};
use cairn::{
    ExportFormat, ImportEmbedder, ImportError, ImportOptions, Phase, Progress, ProgressFn,
    Selection, TriplesOptions,
};
use cairn_embed::{minilm_from_env, EmbedError, Embedder, HashEmbedder};
use cairn_generate::{Academic, AcademicConfig};
use clap::Parser;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// An error with the exit code it maps to.
struct Failure {
    code: u8,
    report: miette::Report,
}

impl From<EngineError> for Failure {
    fn from(e: EngineError) -> Self {
        let code = match e {
            // What was asked of the session, not a fault of the database.
            EngineError::ReadOnly { .. } => 2,
            _ => 1,
        };
        let report = match &e {
            EngineError::Missing { path } => {
                let p = path.display();
                miette::Report::new(miette::MietteDiagnostic::new(e.to_string()).with_help(
                    format!("create it with `cairn init {p}`, or import a dump into it with `cairn --db {p} import FILES`"),
                ))
            }
            EngineError::ReadOnly { path } => match READ_ONLY_WHY.get() {
                Some(why) => miette::Report::msg(read_only_refusal(path, why)),
                None => miette::Report::msg(e.to_string()),
            },
            _ => miette::Report::msg(e.to_string()),
        };
        Failure { code, report }
    }
}

/// `cairn export`.
fn export(
    db: &Path,
    read_only: bool,
    out: &Path,
    format: DumpFormatArg,
    query: Option<&str>,
) -> Result<(), Failure> {
    let started = Instant::now();
    let cairn = open_db_reading(db, read_only, TableMode::StoreOnly)?;
    let selection = match query {
        None => Selection::All,
        Some(statement) => match cairn.execute(statement, &CancelToken::default())? {
            Output::Exploration(e)
                if !matches!(e.ret, cairn::query::ast::ReturnKind::Count | cairn::query::ast::ReturnKind::Aggregate) =>
            {
                cairn.selection(&e)
            }
            _ => {
                return Err(Failure {
                    code: 2,
                    report: miette::Report::msg(
                        "--query takes an EXPLORE statement that returns nodes (NODES, PATHS, SUBGRAPH or ANSWER: its results and evidence paths are exported; a COUNT or an aggregate has no nodes to export)",
                    ),
                })
            }
        },
    };
    let format = match format {
        DumpFormatArg::Jsonl => ExportFormat::JsonLines,
        DumpFormatArg::Csv => ExportFormat::Csv,
    };
    let to_stdout = out == Path::new("-");
    let summary = if to_stdout {
        if format == ExportFormat::Csv {
            return Err(Failure {
                code: 2,
                report: miette::Report::msg(
                    "--out - writes JSON Lines; CSV needs a directory (one file per label and relation)",
                ),
            });
        }
        let mut stdout = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
        cairn.export_jsonl(&selection, &mut stdout, Path::new("<stdout>"))?
    } else {
        cairn.export_part(&selection, out, format)?
    };
    let mut said = format!(
        "exported {} nodes, {} edges and {} schema record(s) in {:.2}s",
        summary.nodes,
        summary.edges,
        summary.schema,
        started.elapsed().as_secs_f64()
    );
    if !to_stdout {
        said.push_str(&format!(" into {}", out.display()));
    }
    // The data goes to stdout with `--out -`: everything else to stderr then.
    let say = |text: &str| {
        if to_stdout {
            errln!("{text}");
        } else {
            outln!("{text}");
        }
    };
    say(&said);
    for f in &summary.files {
        say(&format!("  {}", f.display()));
    }
    // What a dump does not hold, as the statements that restore it after the import.
    let catalog = cairn.graph().catalog();
    let mut restore = Vec::new();
    for (_, rel) in catalog.relations() {
        if let Some(parent) = rel.parent.and_then(|p| catalog.relation_name(p)) {
            restore.push(format!(
                "RELATION {} UNDER {};",
                cairn::query::printer::name(&rel.name),
                cairn::query::printer::name(parent)
            ));
        }
    }
    for index in catalog.indexes() {
        restore.push(format!(
            "CREATE INDEX ON {}({});",
            cairn::query::printer::name(catalog.label_name(index.label).unwrap_or("?")),
            cairn::query::printer::name(catalog.prop_name(index.prop).unwrap_or("?"))
        ));
    }
    if !restore.is_empty() {
        say("not in the dump; after importing it, run:");
        for r in restore {
            say(&format!("  {r}"));
        }
    }
    Ok(())
}

/// `cairn init`: an empty database, or the one already there.
fn init(db: &Path) -> Result<(), Failure> {
    match Graph::open(db, existing(false)) {
        Ok(_) => {
            outln!(
                "{} is already a Cairn database: left as it is",
                db.display()
            );
            return Ok(());
        }
        Err(EngineError::Missing { .. }) => {}
        Err(e) => return Err(e.into()),
    }
    drop(Graph::open(db, GraphOptions::default())?);
    outln!("created an empty Cairn database in {}", db.display());
    Ok(())
}

/// Why this process opened its database read-only ([`FORCED`], [`HELD`] or [`FULL`]), for the
/// words of a refused write: a full disk is not another process's doing.
static READ_ONLY_WHY: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

fn read_only_refusal(path: &Path, why: &str) -> String {
    let path = path.display();
    match why {
        FULL => format!(
            "database {path} is open read-only because its disk is full: writes are refused; free some space and retry"
        ),
        HELD => format!(
            "database {path} is open read-only because another process holds it for writing: writes are refused (make them in that process, or once it has closed the database)"
        ),
        _ => format!("database {path} is open read-only ({why}): writes are refused"),
    }
}

impl From<ImportError> for Failure {
    fn from(e: ImportError) -> Self {
        let code = match e {
            ImportError::BadLines { .. }
            | ImportError::Header { .. }
            | ImportError::Corrupt(_)
            | ImportError::UnknownFormat { .. }
            | ImportError::TxtNotGuessed { .. }
            | ImportError::MixedFormats { .. }
            | ImportError::NoDumpFiles { .. }
            | ImportError::EmbedderMismatch { .. } => 3,
            ImportError::LabelsWithoutTriples { .. } => 2,
            ImportError::Io { .. } | ImportError::Engine(_) | ImportError::Embed(_) => 1,
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

/// jemalloc, not glibc's malloc: the full-text build hands each document to tantivy's indexing
/// threads, which free it, and glibc's arenas serialise those frees (docs/BUILD.md, "Allocator").
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    let format = match &cli.command {
        Command::Stats { format }
        | Command::Query { format, .. }
        | Command::Explain { format, .. }
        | Command::Ask { format, .. } => *format,
        _ => OutputFormat::Table,
    };
    set_error_format(format);
    let result = run(cli);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            report_failure(&f);
            ExitCode::from(f.code)
        }
    }
}

/// Whether errors print as JSON documents: the command's `--format json`, or the REPL's
/// `.format json` when it was last set (its closing "N error(s)" too).
static ERRORS_AS_JSON: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn set_error_format(format: OutputFormat) {
    ERRORS_AS_JSON.store(
        format == OutputFormat::Json,
        std::sync::atomic::Ordering::Relaxed,
    );
}

/// Prints an error on stderr: a report with the offending text underlined, or a JSON document
/// when the output is JSON.
fn report_failure(f: &Failure) {
    if ERRORS_AS_JSON.load(std::sync::atomic::Ordering::Relaxed) {
        errln!("{}", json::error(f));
    } else {
        errln!("{}", crate::display::report(&f.report));
    }
}

fn run(cli: Cli) -> Result<(), Failure> {
    let reads_only = matches!(
        cli.command,
        Command::Stats { .. }
            | Command::Export { .. }
            | Command::Query { .. }
            | Command::Explain { .. }
            | Command::Ask { .. }
            | Command::Repl { .. }
            | Command::Mcp {
                allow_writes: false,
                ..
            }
    );
    if cli.read_only && !reads_only {
        return Err(Failure {
            code: 2,
            report: miette::Report::msg(
                "--read-only is for stats, query, explain, ask, export, repl and mcp (without \
                 --allow-writes); this command writes",
            ),
        });
    }
    let read_only = cli.read_only;
    match cli.command {
        Command::Stats { format } => stats(&cli.db, read_only, format),
        Command::Generate {
            kind: GenerateKind::Academic,
            nodes,
            seed,
            format,
            out,
        } => generate(nodes, seed, format, &out),
        Command::Import {
            files,
            max_errors,
            embedder,
            no_index,
            memory_budget,
            triples,
        } => import(
            &cli.db,
            &files,
            ImportArgs {
                max_errors,
                embedder,
                no_index,
                memory_budget,
            },
            triples.options(),
        ),
        Command::Index(IndexCommand::Build) => index_build(&cli.db),
        Command::Recover { apply } => recover(&cli.db, apply),
        Command::Demo { nodes } => demo(&cli.db, nodes),
        Command::Init { path } => init(path.as_deref().unwrap_or(&cli.db)),
        Command::Export { out, format, query } => {
            export(&cli.db, read_only, &out, format, query.as_deref())
        }
        Command::Query {
            statement,
            file,
            format,
        } => query(&cli.db, read_only, statement, file, format),
        Command::Explain { statement, format } => explain(&cli.db, &statement, read_only, format),
        Command::Ask {
            question,
            explain,
            llm,
            format,
        } => ask_cli::ask(
            &cli.db,
            read_only,
            &question,
            llm.as_deref(),
            explain,
            format,
        ),
        Command::Eval {
            questions: Some(questions),
            json,
            out,
            llm,
            misses,
            feedback,
            ..
        } => ask_cli::eval_questions(
            &cli.db,
            &questions,
            ask_cli::EvalOutputs {
                records: json.as_deref(),
                report: out.as_deref(),
            },
            llm.as_deref(),
            misses,
            feedback,
        ),
        Command::Eval {
            nodes,
            seed,
            per_type,
            workdir,
            out,
            llm,
            misses,
            ..
        } => ask_cli::eval(
            nodes,
            seed,
            per_type,
            workdir,
            &out.unwrap_or_else(|| PathBuf::from("eval.json")),
            llm.as_deref(),
            misses,
        ),
        Command::Repl { history } => repl::run(&cli.db, history, read_only),
        Command::Mcp {
            allow_writes,
            timeout_ms,
            max_items,
            max_bytes,
            llm,
        } => {
            let options = cairn_mcp::Options {
                allow_writes,
                time_limit: Duration::from_millis(timeout_ms),
                max_items: max_items as usize,
                max_bytes: max_bytes as usize,
                llm: ask_cli::llm_agents(llm.as_deref())?,
                ..cairn_mcp::Options::new(&cli.db)
            };
            cairn_mcp::run_stdio(options).map_err(|e| match e {
                cairn_mcp::McpError::Open(e) => Failure::from(e),
                e => Failure {
                    code: 1,
                    report: miette::Report::msg(e.to_string()),
                },
            })
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
        .with_writer(|| display::Diagnostics)
        .with_timer(tracing_subscriber::fmt::time::uptime())
        .init();
}

/// Options of an existing database, as the writer or as a reader beside one.
fn existing(read_only: bool) -> GraphOptions {
    GraphOptions {
        create_if_missing: false,
        mode: if read_only {
            OpenMode::ReadOnly
        } else {
            OpenMode::ReadWrite
        },
        ..GraphOptions::default()
    }
}

/// Why a reading command opened read-only, for the line it prints.
const FORCED: &str = "--read-only";
const HELD: &str = "another process holds the database";
const FULL: &str = "the disk is full, so it cannot be opened for writing";

/// The store for a command that only reads: as the writer when it can, read-only with
/// `--read-only` or when another process holds the database.
fn open_graph_reading(db: &Path, read_only: bool) -> Result<Graph, Failure> {
    let (graph, why) = match Graph::open(db, existing(read_only)) {
        Err(EngineError::Locked { .. }) if !read_only => (Graph::open(db, existing(true))?, HELD),
        Err(EngineError::DiskFull { .. }) if !read_only => (Graph::open(db, existing(true))?, FULL),
        opened => (opened?, FORCED),
    };
    announce(graph.freshness(), why);
    if graph.is_read_only() {
        let _ = READ_ONLY_WHY.set(why);
    }
    Ok(graph)
}

/// [`open_graph_reading`] for the commands that run statements. `table`: one-shot commands
/// read the store ([`TableMode::StoreOnly`]: they would wait seconds for an in-memory table
/// of a large graph before a millisecond query); the REPL builds one in the background.
fn open_db_reading(db: &Path, read_only: bool, table: TableMode) -> Result<Cairn, Failure> {
    let options = |read_only| CairnOptions {
        path: db.to_path_buf(),
        graph: existing(read_only),
        table,
    };
    let (cairn, why) = match Cairn::open_with(options(read_only)) {
        Err(CairnError::Engine(EngineError::Locked { .. })) if !read_only => {
            (Cairn::open_with(options(true))?, HELD)
        }
        Err(CairnError::Engine(EngineError::DiskFull { .. })) if !read_only => {
            (Cairn::open_with(options(true))?, FULL)
        }
        opened => (opened?, FORCED),
    };
    announce(cairn.freshness(), why);
    if cairn.freshness().is_some() {
        let _ = READ_ONLY_WHY.set(why);
    }
    Ok(cairn)
}

/// The one stderr line of a read-only open (nothing for the writer's).
fn announce(freshness: Option<Freshness>, why: &str) {
    if let Some(f) = freshness {
        errln!("opened read-only ({why}); {}", freshness_text(&f));
    }
}

/// Which state a read-only view shows: "showing sequence N as of HH:MM:SS UTC", and whether
/// the writer's import in progress is left out.
fn freshness_text(f: &Freshness) -> String {
    let secs = f
        .as_of
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (h, m, s) = (secs / 3600 % 24, secs / 60 % 60, secs % 60);
    let mut text = format!(
        "showing sequence {} as of {h:02}:{m:02}:{s:02} UTC",
        f.sequence
    );
    if f.import_pending {
        text.push_str("; an import in progress there is not shown until it commits");
    }
    text
}

fn stats(db: &Path, read_only: bool, format: OutputFormat) -> Result<(), Failure> {
    let graph = open_graph_reading(db, read_only)?;
    if format == OutputFormat::Json {
        json::print(&json::stats(&graph, db)?);
        return Ok(());
    }
    let catalog = graph.catalog();
    outln!("database   {}", db.display());
    outln!("nodes      ~{}", graph.estimate_keys("node")?);
    outln!("edges      ~{}", graph.estimate_keys("out")?);
    let labels: Vec<&str> = catalog.labels().map(|(_, n)| n).collect();
    outln!("labels     {}", labels.join(", "));
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
            Some(p) => outln!("relation   {} (under {p}) {}", rel.name, ends.join(" ")),
            None => outln!("relation   {} {}", rel.name, ends.join(" ")),
        }
    }
    for index in catalog.indexes() {
        outln!(
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
    outln!(
        "generated {} nodes and {} edges (seed {seed}) in {:.1}s:",
        graph.node_count(),
        graph.edge_count(),
        started.elapsed().as_secs_f64()
    );
    for f in files {
        outln!("  {}", f.display());
    }
    Ok(())
}

/// Whether an import's database directory existed before it: a first import that fails takes
/// away what it created (a missing directory, or the contents of an empty one), so that no empty
/// database is left behind to be mistaken for a loaded one.
#[derive(Debug)]
enum Fresh {
    /// A database (or something the open refuses): never touched.
    Existing,
    Missing(PathBuf),
    Empty(PathBuf),
}

impl Fresh {
    fn before_open(db: &Path) -> Fresh {
        match std::fs::read_dir(db).map(|mut entries| entries.next().is_none()) {
            Ok(true) => Fresh::Empty(db.to_path_buf()),
            Ok(false) => Fresh::Existing,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Fresh::Missing(db.to_path_buf()),
            Err(_) => Fresh::Existing,
        }
    }

    /// Removes what the failed import created and passes its failure on (saying so).
    fn undo(&self, f: Failure) -> Failure {
        let removed = match self {
            Fresh::Existing => return f,
            Fresh::Missing(db) => std::fs::remove_dir_all(db),
            Fresh::Empty(db) => std::fs::read_dir(db).and_then(|entries| {
                entries.into_iter().try_for_each(|e| {
                    let path = e?.path();
                    if path.is_dir() {
                        std::fs::remove_dir_all(path)
                    } else {
                        std::fs::remove_file(path)
                    }
                })
            }),
        };
        match (self, removed) {
            (Fresh::Missing(db) | Fresh::Empty(db), Err(e)) => {
                errln!(
                    "warning: cannot remove the new database {}: {e}",
                    db.display()
                )
            }
            (Fresh::Missing(db) | Fresh::Empty(db), Ok(())) => {
                errln!(
                    "the import failed: the new database {} is removed",
                    db.display()
                )
            }
            _ => {}
        }
        f
    }
}

/// `cairn import`'s options other than the files and the triples options.
struct ImportArgs {
    max_errors: usize,
    embedder: Option<EmbedderArg>,
    no_index: bool,
    memory_budget: Option<u64>,
}

fn import(
    db: &Path,
    paths: &[PathBuf],
    args: ImportArgs,
    triples: TriplesOptions,
) -> Result<(), Failure> {
    let command_started = Instant::now();
    let ImportArgs {
        max_errors,
        embedder,
        no_index,
        memory_budget,
    } = args;
    // A missing file, a directory without dumps, an unknown or unguessed file format are
    // reported before a database is created for them.
    let files = cairn_import::dump_files(paths)?;
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    cairn_import::triples_files(&refs, &triples)?;
    // An embedder named on the command line is set up before the database is opened (or
    // created), so one this build or environment cannot provide leaves nothing behind.
    let embedder = match embedder {
        None => ImportEmbedder::Database,
        Some(e) => {
            load_embedder(e, "--embedder")?.map_or(ImportEmbedder::None, ImportEmbedder::Use)
        }
    };
    // A database this import creates is removed again when the import fails.
    let fresh = Fresh::before_open(db);
    // Opening loads the database's own embedder for queries: one that records MiniLM is refused
    // here (exit 2) in a process that cannot load it, before anything is imported.
    let cairn = Cairn::open(db).map_err(|e| fresh.undo(Failure::from(e)))?;
    let progress = progress_reporter();
    let options = ImportOptions {
        max_errors,
        progress: Some(progress.callback()),
        embedder,
        triples,
        memory_budget,
    };
    let result = cairn.import(&files, options);
    progress.finish();
    let s = match result {
        Ok(s) => s,
        Err(e) => {
            drop(cairn);
            return Err(fresh.undo(e.into()));
        }
    };
    for e in &s.skipped {
        errln!("skipped {e}");
    }
    let secs = s.elapsed.as_secs_f64();
    outln!(
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
    if !s.labels.is_empty() {
        let labels: Vec<String> = s.labels.iter().map(|(l, n)| format!("{l} {n}")).collect();
        outln!("labels: {}", labels.join(", "));
    }
    if s.vectors_computed > 0 {
        let secs = s.embed_time.as_secs_f64();
        outln!(
            "embedded {} node descriptions in {secs:.2}s ({:.0}/s) with {}",
            s.vectors_computed,
            s.vectors_computed as f64 / secs.max(1e-9),
            cairn.embedder().id(),
        );
    }
    if !no_index {
        let started = Instant::now();
        errln!("full-text index: indexing new and changed nodes");
        let text = cairn.refresh_text()?;
        outln!(
            "full-text index: {} current in {:.2}s ({})",
            cairn::text_dir(db).display(),
            started.elapsed().as_secs_f64(),
            match text {
                cairn::TextRefresh::Built { nodes } => format!("{nodes} nodes indexed"),
                cairn::TextRefresh::Updated { nodes } => format!("{nodes} nodes re-indexed"),
                _ => "unchanged".to_owned(),
            }
        );
        let started = Instant::now();
        let refreshed = while_building_index(|| cairn.refresh_index());
        match refreshed? {
            cairn_vector::Refresh::Unavailable(why) => {
                outln!("vector index: not built ({why}); SEARCH scans exactly")
            }
            _ => outln!(
                "vector index: {} current in {:.2}s",
                cairn_vector::index_path(db).display(),
                started.elapsed().as_secs_f64()
            ),
        }
    }
    outln!(
        "import finished in {:.2}s (reading to index)",
        command_started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Runs the index build `f`, saying on stderr that it runs and, when stderr is not a terminal
/// (logs, CI), one line every 10 seconds while it does: on a large graph it takes minutes.
fn while_building_index<T>(f: impl FnOnce() -> T) -> T {
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        errln!("vector index: building or updating");
        if !std::io::stderr().is_terminal() {
            s.spawn(|| {
                let started = Instant::now();
                let mut said = Instant::now();
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(100));
                    if said.elapsed() >= Duration::from_secs(10) {
                        said = Instant::now();
                        errln!(
                            "vector index: still building ({:.0}s)",
                            started.elapsed().as_secs_f64()
                        );
                    }
                }
            });
        }
        let result = f();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        result
    })
}

/// The embedder `choice` names (`None` for `none`); `origin` says where the choice came from in
/// an error.
fn load_embedder(choice: EmbedderArg, origin: &str) -> Result<Option<Arc<dyn Embedder>>, Failure> {
    Ok(match choice {
        EmbedderArg::Hash => Some(Arc::new(HashEmbedder::default())),
        EmbedderArg::Minilm => Some(minilm_from_env().map_err(|e| embedder_failure(e, origin))?),
        EmbedderArg::None => None,
    })
}

/// An embedder that could not be set up: the build lacks its feature, or its setting (the model
/// directory) is missing or wrong. That is how cairn was invoked, not the data: exit code 2.
fn embedder_failure(e: EmbedError, origin: &str) -> Failure {
    let code = match e {
        EmbedError::NotCompiled { .. } | EmbedError::Setting(_) => 2,
        _ => 1,
    };
    Failure {
        code,
        report: miette::Report::msg(format!("{origin}: {e}")),
    }
}

/// `cairn recover`: says what recovering keeps and drops; with `apply`, does it.
fn recover(db: &Path, apply: bool) -> Result<(), Failure> {
    if !apply {
        let plan = cairn::wal::inspect(db)?;
        outln!("{}: {plan}", db.display());
        if !plan.is_clean() {
            outln!(
                "nothing was changed; `cairn --db {} recover --apply` does it",
                db.display()
            );
        }
        return Ok(());
    }
    let done = cairn::wal::recover(db)?;
    if done.is_clean() {
        outln!("{}: {done}", db.display());
        return Ok(());
    }
    if let Some(m) = &done.current {
        outln!("wrote rocksdb/CURRENT again, naming {m}");
    }
    if let Some(loss) = &done.loss {
        outln!(
            "recovered {} ({}): it holds the database as of commit {} (sequence {}); dropped {}",
            db.display(),
            loss.cause(),
            loss.kept_commits,
            loss.kept_sequence,
            loss.dropped()
        );
    }
    Ok(())
}

fn index_build(db: &Path) -> Result<(), Failure> {
    let cairn = open_db(db)?;
    let t = cairn.build_text_index()?;
    outln!(
        "indexed the words of {} nodes in {:.2}s into {}",
        t.nodes,
        t.elapsed.as_secs_f64(),
        t.path.display()
    );
    if cairn.graph().catalog().embedder().is_none() {
        outln!("no vectors: no vector index (SEARCH ranks by words)");
        return Ok(());
    }
    let r = cairn.build_index()?;
    outln!(
        "indexed {} vectors in {:.2}s into {}",
        r.count,
        r.elapsed.as_secs_f64(),
        r.path.display()
    );
    Ok(())
}

impl From<CairnError> for Failure {
    /// A store or import error reports as it does on its own (the same code and message
    /// whichever layer returned it).
    fn from(e: CairnError) -> Self {
        let e = match e {
            CairnError::Engine(e) => return e.into(),
            CairnError::Import(e) => return e.into(),
            CairnError::Export(cairn::ExportError::Engine(e)) => return e.into(),
            e => e,
        };
        let code = match &e {
            // The format cannot hold this graph, or the directory is taken: how it was asked.
            CairnError::Export(
                cairn::ExportError::NotCsv(_)
                | cairn::ExportError::TooManyFiles(_)
                | cairn::ExportError::NotEmpty(_),
            ) => 2,
            CairnError::Query(_)
            | CairnError::Unsupported(_)
            | CairnError::NoSuchNode(_)
            | CairnError::Transaction(_)
            | CairnError::EmbedderUnavailable { .. } => 2,
            _ => 1,
        };
        Failure {
            code,
            report: miette::Report::new(e),
        }
    }
}

fn open_db(db: &Path) -> Result<Cairn, Failure> {
    Ok(Cairn::open_with(CairnOptions {
        path: db.to_path_buf(),
        graph: GraphOptions {
            create_if_missing: false,
            ..GraphOptions::default()
        },
        table: TableMode::Background,
    })?)
}

fn explain(
    db: &Path,
    statement: &str,
    read_only: bool,
    format: OutputFormat,
) -> Result<(), Failure> {
    let plan = open_db_reading(db, read_only, TableMode::StoreOnly)?.plan(statement)?;
    match format {
        OutputFormat::Table => outln!("{plan}"),
        OutputFormat::Json => json::print(&json::plan(&plan)),
    }
    Ok(())
}

fn query(
    db: &Path,
    read_only: bool,
    statement: Option<String>,
    file: Option<PathBuf>,
    format: OutputFormat,
) -> Result<(), Failure> {
    let text = match (statement, &file) {
        (Some(s), _) => s,
        (None, Some(f)) => script_text(f)?,
        (None, None) => {
            return Err(Failure {
                code: 2,
                report: miette::Report::msg("give a statement with -e or a file with -f"),
            })
        }
    };
    let cairn = open_db_reading(db, read_only, TableMode::StoreOnly)?;
    // One session for the script: BEGIN … COMMIT may span its statements, and a transaction
    // still open at the end (or at a failing statement) is rolled back.
    let mut session = cairn.session();
    for (_, stmt) in cairn::query::split_statements(&text) {
        let started = Instant::now();
        // `stmt` is a slice of `text`: where it starts there.
        let offset = stmt.as_ptr() as usize - text.as_ptr() as usize;
        let run = session
            .execute_with(stmt, &CancelToken::default(), false)
            .map_err(|e| match (e, &file) {
                // A file's errors point at the file's line and column, not the statement's.
                (CairnError::Query(q), Some(f)) => {
                    CairnError::Query(q.in_script(&f.display().to_string(), &text, offset))
                }
                (e, _) => e,
            });
        if let Err(f) = run
            .map_err(Failure::from)
            .and_then(|out| print_output(&cairn, out, format, started.elapsed()))
        {
            if session.in_transaction() {
                errln!("a statement failed inside BEGIN: the transaction is rolled back");
            }
            return Err(f);
        }
    }
    if session.in_transaction() {
        return Err(Failure {
            code: 2,
            report: miette::Report::msg("the script ends inside BEGIN without COMMIT: rolled back"),
        });
    }
    Ok(())
}

/// A script file's text; one that is not UTF-8 is a bad statement (exit 2) at its line and
/// column, like any other.
fn script_text(file: &Path) -> Result<String, Failure> {
    let bytes = std::fs::read(file).map_err(|e| io_failure(file, e))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let before = String::from_utf8_lossy(&e.as_bytes()[..at]);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        Failure {
            code: 2,
            report: miette::Report::msg(format!(
                "{}:{line}:{column}: not valid UTF-8 (byte 0x{:02x})",
                file.display(),
                e.as_bytes()[at]
            )),
        }
    })
}

fn run_statement(
    cairn: &Cairn,
    session: &mut cairn::Session<'_>,
    stmt: &str,
    format: OutputFormat,
) -> Result<(), Failure> {
    let started = Instant::now();
    let out = session.execute_with(stmt, &CancelToken::default(), false)?;
    print_output(cairn, out, format, started.elapsed())
}

fn print_output(
    cairn: &Cairn,
    out: Output,
    format: OutputFormat,
    elapsed: Duration,
) -> Result<(), Failure> {
    match out {
        Output::Answer(a) => ask_cli::print_answer(cairn, &a, format, false)?,
        Output::Exploration(e) => render::exploration(cairn, &e, format, elapsed)?,
        other => print_text_output(&other, format),
    }
    Ok(())
}

/// Prints what a statement other than EXPLORE or ASK produced: its text, or its JSON document.
fn print_text_output(out: &Output, format: OutputFormat) {
    match (format, json::output(out), out.text()) {
        (OutputFormat::Json, Some(doc), _) => json::print(&doc),
        (_, _, Some(text)) => outln!("{text}"),
        (_, _, None) => {}
    }
}

fn demo(db: &Path, nodes: usize) -> Result<(), Failure> {
    let started = Instant::now();
    let graph = Academic::generate(&AcademicConfig::with_nodes(nodes, 42));
    let cairn = Cairn::open(db)?;
    outln!("Cairn demo: a generated academic graph in {}", db.display());
    let records = graph.records();
    let s = cairn.import_records(records, ImportOptions::default())?;
    outln!(
        "  {} nodes and {} edges ({} new nodes, {} new edges) imported in {:.2}s\n",
        graph.node_count(),
        graph.edge_count(),
        s.nodes_created,
        s.edges_created,
        started.elapsed().as_secs_f64()
    );
    let mut papers = vec![0usize; graph.authors.len()];
    for p in &graph.papers {
        for a in &p.authors {
            papers[*a as usize] += 1;
        }
    }
    // An author with a readable amount of work (about eight papers), not the biggest hub.
    let star = (0..graph.authors.len())
        .min_by_key(|&a| (papers[a].abs_diff(8), a))
        .unwrap_or(0);
    let author = &graph.authors[star];
    let topic = &graph.topics[author.community as usize].name;
    let statements = [
        format!("EXPLORE \"venues where co-authors of {name} publish\"\n  FROM Author WHERE name = \"{name}\"\n  VIA AUTHORED -> <AUTHORED -> AUTHORED -> PUBLISHED_IN\n  TARGET Venue\n  UNTIL found 5\n  RETURN NODES LIMIT 5", name = author.name),
        format!("EXPLORE \"papers about {topic}\"\n  FROM SEARCH \"{topic}\" IN Topic TOP 1\n  VIA <HAS_TOPIC, CITES\n  TARGET Paper\n  BEAM 8 DEPTH 2\n  RETURN NODES LIMIT 5"),
        format!("EXPLORE \"who works with {name} on {topic}\"\n  FROM Author WHERE name = \"{name}\"\n  VIA AUTHORED -> <AUTHORED\n  TARGET Author\n  RETURN NODES LIMIT 5", name = author.name),
    ];
    let questions = [
        format!("ASK \"How many papers did {} write?\"", author.name),
        format!("ASK \"Who are the co-authors of {}?\"", author.name),
    ];
    let mut session = cairn.session();
    for stmt in statements.iter().chain(&questions) {
        outln!("cairn> {stmt};");
        run_statement(&cairn, &mut session, stmt, OutputFormat::Table)?;
        outln!();
    }
    outln!(
        "Ask in plain language:  cairn --db {} ask 'Which venue did {} publish in most?'",
        db.display(),
        author.name
    );
    outln!("Explore interactively: cairn --db {} repl", db.display());
    outln!("Or run one statement:  cairn --db {} query -e 'EXPLORE \"...\" FROM SEARCH \"...\" VIA ANY'", db.display());
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
    fn callback(&self) -> ProgressFn {
        match self {
            Reporter::Bar(bar) => {
                let bar = bar.clone();
                let counting = Mutex::new(false);
                Arc::new(move |p: Progress| {
                    bar.set_message(p.phase.to_string());
                    match (p.phase, p.total) {
                        (Phase::Read, Some(total)) => {
                            bar.set_length(total);
                            bar.set_position(p.done);
                        }
                        (Phase::Embed, Some(total)) => {
                            // descriptions, not bytes: switch the bar's units once
                            if let Ok(mut c) = counting.lock() {
                                if !*c {
                                    *c = true;
                                    if let Ok(style) = indicatif::ProgressStyle::with_template(
                                        "{msg:>10} [{bar:30}] {pos}/{len} descriptions {per_sec} eta {eta}",
                                    ) {
                                        bar.set_style(style.progress_chars("=> "));
                                    }
                                    bar.reset();
                                }
                            }
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
                    if phase_changed && s.1 == Some(Phase::Read) {
                        // Reading is over: a file read in under five seconds showed only 0%.
                        errln!("import: reading done");
                    }
                    if phase_changed || s.0.elapsed() >= Duration::from_secs(5) {
                        s.0 = Instant::now();
                        s.1 = Some(p.phase);
                        match p.total {
                            Some(t) if p.phase == Phase::Read && t > 0 => {
                                errln!(
                                    "import: {} {:.0}% ({} of {} MB)",
                                    p.phase,
                                    100.0 * p.done as f64 / t as f64,
                                    p.done >> 20,
                                    t >> 20
                                )
                            }
                            Some(t) if p.phase == Phase::Embed && t > 0 => {
                                errln!(
                                    "import: {} {:.0}% ({} of {} descriptions)",
                                    p.phase,
                                    100.0 * p.done as f64 / t as f64,
                                    p.done,
                                    t
                                )
                            }
                            _ => errln!("import: {}", p.phase),
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
