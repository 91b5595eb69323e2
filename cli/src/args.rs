//! The command line: the flags and subcommands clap parses, with their help text and the
//! checks on values it runs before any database is opened.

use crate::triples_cli;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Cairn: an embedded graph database with an agent query language.
///
/// Exit codes: 0 success, 1 database or I/O error, 2 bad command line or statement (or an
/// embedder this build or environment cannot provide, or a write in a read-only session),
/// 3 bad input data (dump lines, headers).
///
/// Readers beside a writer: stats, query, explain, ask, export and repl open the database read-only
/// when another process holds it (an import, a REPL), or with --read-only, and say on stderr
/// which state they show.
///
/// JSON for scripts: query, explain, ask and stats take --format json (the REPL .format json):
/// one document per statement, one a line, {"cairn": 1, "kind": "exploration" | "answer" |
/// "plan" | "listing" | "description" | "done" | "stats", …}; errors go to stderr as
/// {"cairn": 1, "kind": "error", "exit": N, "message": …, "location": {"line", "column", …}}.
/// The schema is docs/JSON.md.
#[derive(Debug, Parser)]
#[command(version, about, long_about)]
pub(crate) struct Cli {
    /// Database directory [env: CAIRN_DB].
    #[arg(
        long,
        env = "CAIRN_DB",
        global = true,
        default_value = "cairn.db",
        hide_env = true
    )]
    pub(crate) db: PathBuf,
    /// Open the database read-only, beside the process that holds it for writing (stats,
    /// query, explain, ask, export and repl only; they also do so by themselves when it is
    /// locked).
    /// Shows the last commit as of the open; writes are refused.
    #[arg(long, global = true)]
    pub(crate) read_only: bool,
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Create an empty database (at PATH, else at --db).
    ///
    /// Statements (`cairn query -e 'UPSERT …'`, the REPL) and imports then write into it. A
    /// directory that already holds a Cairn database is left as it is; any other non-empty
    /// directory is refused.
    #[command(
        after_help = "Examples:\n  cairn init ./movies.cairn\n  cairn --db ./movies.cairn query -e 'UPSERT Movie \"m1\" SET title = \"Inception\", year = 2010'"
    )]
    Init {
        /// The database directory to create (default: --db).
        path: Option<PathBuf>,
    },
    /// Print the schema and size estimates of a database.
    #[command(
        after_help = "Examples:\n  cairn --db ./academic.cairn stats\n  cairn --db ./academic.cairn --read-only stats   # while another process writes\n  cairn --db ./academic.cairn stats --format json"
    )]
    Stats {
        /// How to print: text, or one JSON document (docs/JSON.md).
        #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
        format: OutputFormat,
    },
    /// Generate a synthetic graph dump (deterministic from the seed).
    #[command(
        after_help = "Examples:\n  cairn generate academic --nodes 10000 --out ./dump\n  cairn generate academic --nodes 1000000 --format jsonl --seed 7 --out ./big"
    )]
    Generate {
        /// What to generate.
        #[arg(value_enum)]
        kind: GenerateKind,
        /// Approximate number of nodes (at most 10,000,000: the graph is built in memory).
        #[arg(long, default_value_t = 10_000, value_parser = generated_nodes)]
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
    /// Build a small academic graph, run a few EXPLORE and ASK statements on it and print the
    /// results with their evidence paths.
    ///
    /// The database goes to --db (default ./cairn.db); running the demo again reuses it (the
    /// import is idempotent).
    #[command(
        after_help = "Example:\n  cairn demo\n  cairn --db /tmp/demo.cairn demo --nodes 20000"
    )]
    Demo {
        /// Approximate number of nodes of the generated graph (at most 10,000,000).
        #[arg(long, default_value_t = 5_000, value_parser = generated_nodes)]
        nodes: usize,
    },
    /// Run statements: EXPLORE, ASK, EXPLAIN, SHOW, DESCRIBE, UPSERT, ADD/REMOVE EDGE, REMOVE
    /// NODE, transactions (BEGIN … COMMIT), RELATION … UNDER …, CREATE INDEX, ANNOTATE.
    #[command(
        after_help = "Examples:\n  cairn query -e 'EXPLORE \"data mining venues\" FROM SEARCH \"data mining\" IN Venue TOP 3 VIA ANY'\n  cairn query -f queries.explore --format json"
    )]
    Query {
        /// The statement(s) to run, separated by `;`.
        #[arg(
            short = 'e',
            long = "execute",
            conflicts_with = "file",
            required_unless_present = "file"
        )]
        statement: Option<String>,
        /// A file of statements separated by `;`.
        #[arg(short, long)]
        file: Option<PathBuf>,
        /// How to print results: tables, or one JSON document per statement, one a line
        /// (docs/JSON.md; errors then go to stderr as JSON too).
        #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
        format: OutputFormat,
    },
    /// Print the compiled plan of a statement, every default filled in.
    #[command(
        after_help = "Example:\n  cairn explain 'EXPLORE \"x\" FROM Author \"a1\" VIA AUTHORED'"
    )]
    Explain {
        /// The statement.
        statement: String,
        /// How to print: the plan as text, or one JSON document (docs/JSON.md).
        #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
        format: OutputFormat,
    },
    /// Answer a question in plain language: plan, explore, judge, answer, validate.
    ///
    /// Offline by default. `--llm planner,judge,answerer` (or `all`) switches those agents to an
    /// OpenAI-compatible chat endpoint configured by CAIRN_LLM_BASE_URL, CAIRN_LLM_MODEL and
    /// CAIRN_LLM_API_KEY (see docs/AGENTS.md).
    #[command(
        after_help = "Examples:\n  cairn ask 'Who wrote \"Towards robust clustering\"?'\n  cairn ask --explain 'How many papers did Ada Smith write?'"
    )]
    Ask {
        /// The question.
        question: String,
        /// Print the plan (EXPLAIN ASK) instead of answering.
        #[arg(long)]
        explain: bool,
        /// Agents that use the LLM: planner, judge, answerer, all.
        #[arg(long)]
        llm: Option<String>,
        #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
        format: OutputFormat,
    },
    /// Measure question answering (Accuracy, F1, Hits@1 per type): on a generated academic
    /// graph, or with `--questions FILE` on --db (JSON lines `{"question","answers","type"}` or
    /// `question <TAB> a1|a2`).
    #[command(
        after_help = "Examples:\n  cairn eval --nodes 10000 --seed 42 --per-type 100 --out eval.json\n  cairn --db ./kg.cairn eval --questions questions.jsonl --json records.jsonl --out report.json"
    )]
    Eval {
        /// Ask the questions of this file against --db instead of generating a graph.
        #[arg(long)]
        questions: Option<PathBuf>,
        /// With --questions: write one JSON record per question (plan, entity, answer, correct?).
        #[arg(long)]
        json: Option<PathBuf>,
        /// Approximate number of nodes of the generated graph.
        #[arg(long, default_value_t = 10_000)]
        nodes: usize,
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Questions per type.
        #[arg(long, default_value_t = 100)]
        per_type: usize,
        /// Where to build the graph (default: a temporary directory, removed afterwards).
        #[arg(long)]
        workdir: Option<PathBuf>,
        /// The JSON report (scores per question type, latencies). Default: eval.json for a
        /// generated graph; with --questions, written only when given.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Agents that use the LLM: planner, judge, answerer, all.
        #[arg(long)]
        llm: Option<String>,
        /// Print this many wrong answers.
        #[arg(long, default_value_t = 10)]
        misses: usize,
        /// With --questions: feed each answer's gold correctness back to the database's
        /// strategy record as it goes (saved at the end), as `Cairn::feedback` would.
        #[arg(long)]
        feedback: bool,
    },
    /// Open an interactive shell on --db.
    ///
    /// Statements end with `;` and may span lines; `.help` lists the dot-commands (.schema,
    /// .stats, .trace on|off, .format table|json, .refresh, .quit). Tab completes keywords, labels and
    /// relations; Up recalls earlier statements, also those of earlier sessions.
    ///
    /// Ctrl-C cancels a running statement (its results so far are printed) and keeps the
    /// session; at the prompt it clears the line. Ctrl-D or .quit leaves.
    ///
    /// A session opened read-only (--read-only, or the database held by another process)
    /// catches up with the writer before each statement; .refresh catches up and says which
    /// state it shows. Statements that write are refused there.
    ///
    /// History is saved in --history (default $CAIRN_HISTORY, else ~/.cairn_history). Input
    /// that is not a terminal runs as a script, without history; the exit code is then 2 (1 for
    /// a database error) when a statement failed.
    #[command(
        after_help = "Examples:\n  cairn --db ./cairn.db repl\n  echo 'SHOW LABELS;' | cairn repl"
    )]
    Repl {
        /// History file [env: CAIRN_HISTORY] [default: ~/.cairn_history].
        #[arg(long, env = "CAIRN_HISTORY", hide_env = true)]
        history: Option<PathBuf>,
    },
    /// Bulk-import dump files (JSON Lines, Neo4j-style CSV, TSV triples or N-Triples, optionally
    /// gzipped) into --db.
    ///
    /// Every file is read and checked before the database is touched: by default the first bad
    /// line aborts the import with the database unchanged. A directory argument imports every
    /// .jsonl/.ndjson/.csv/.tsv/.triples/.nt(.gz) file in it.
    ///
    /// Triples files (`subject<TAB>relation<TAB>object`) make every entity a node keyed by its
    /// string, labelled by --label (default `Entity`), --infer-labels or --relation-label.
    /// N-Triples (`.nt`) the same way: an IRI (or `_:blank`) is a key, a predicate is named by
    /// its IRI's local name, an IRI object makes an edge and a literal a property; the name is
    /// the `rdfs:label`/`foaf:name`/`schema:name` literal, else the IRI's local name.
    ///
    /// New nodes' descriptions are embedded on all cores with --embedder; the database records
    /// it, and later imports and queries use the same one.
    #[command(
        after_help = "Examples:\n  cairn --db ./academic.cairn import ./dump\n  cairn --db ./db import nodes.jsonl edges.jsonl.gz --max-errors 10\n  cairn --db ./wc.cairn import kb.txt --format triples --infer-labels --relation-label is_aged=:Age\n  cairn --db ./rdf.cairn import people.nt.gz --infer-labels\n  CAIRN_MINILM_DIR=\"$(bash scripts/fetch-minilm.sh)\" cairn --db ./db import ./dump --embedder minilm   # build with --features minilm"
    )]
    Import {
        /// Files or directories to import.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Skip up to this many bad lines (each is reported) instead of aborting.
        #[arg(long, default_value_t = 0)]
        max_errors: usize,
        /// How to embed node descriptions. Default: the embedder the database records, none
        /// for a new one (SEARCH ranks by words in the full-text index; `hash` adds vectors
        /// that fill in for misspellings, `minilm` vectors fused by meaning). `minilm` needs a binary built with `--features minilm` and
        /// CAIRN_MINILM_DIR set to the model directory (scripts/fetch-minilm.sh prints it);
        /// otherwise it fails with exit code 2.
        #[arg(long, value_enum)]
        embedder: Option<EmbedderArg>,
        /// Do not bring the full-text and vector indexes up to date at the end (the first
        /// SEARCH does it instead).
        #[arg(long)]
        no_index: bool,
        /// Memory the import's edges may hold while staged and sorted (e.g. 512MiB, 2GiB;
        /// KB/MB/GB are powers of 1000); beyond it they spill to the database directory.
        /// The nodes are held beside it (about 150 bytes a node). Default 256MiB.
        #[arg(long, value_name = "SIZE", value_parser = parse_budget)]
        memory_budget: Option<u64>,
        #[command(flatten)]
        triples: triples_cli::TriplesArgs,
    },
    /// Write the database, or the result of an EXPLORE, as a dump that `cairn import` reads
    /// back into the same graph: nodes with their properties, descriptions and vectors, edges
    /// with their properties and weights, the annotations of the labels, relations and
    /// properties they use, and which embedder made the vectors.
    ///
    /// JSON Lines (`--format jsonl`, the default) holds every graph exactly; `--out -` writes it
    /// to standard output. CSV writes one file per label and per relation with its endpoint
    /// labels (Neo4j admin import style) and a schema.jsonl; a value CSV cannot hold (an empty
    /// string, null, an empty, nested or mixed list, a list string with `;`) is refused before
    /// anything is written. The export reads one snapshot a page at a time: a writer may go on
    /// meanwhile, and memory does not grow with the graph. Relation hierarchies (RELATION … UNDER
    /// …) and property indexes are not part of a dump: the command prints the statements that
    /// restore them.
    #[command(
        after_help = "Examples:\n  cairn --db ./academic.cairn export --out ./backup\n  cairn --db ./academic.cairn export --format csv --out ./csv\n  cairn --db ./academic.cairn export --out - | gzip > graph.jsonl.gz\n  cairn --db ./academic.cairn export --out ./venues --query 'EXPLORE \"x\" FROM Author \"a1\" VIA AUTHORED -> PUBLISHED_IN'\n  cairn --db ./copy.cairn import ./backup"
    )]
    Export {
        /// The directory to write (created; refused when it holds files), or `-` for JSON
        /// Lines on standard output.
        #[arg(long)]
        out: PathBuf,
        /// Dump format.
        #[arg(long, value_enum, default_value_t = DumpFormatArg::Jsonl)]
        format: DumpFormatArg,
        /// Export the results of this EXPLORE (each result with the nodes and edges of its
        /// evidence path; with RETURN SUBGRAPH the whole matched subgraph) instead of the whole
        /// database. A COUNT or an aggregate, which return no nodes, is refused.
        #[arg(long, value_name = "STATEMENT")]
        query: Option<String>,
    },
    /// Manage the indexes that answer SEARCH entries (full-text, and vectors when the database
    /// has them).
    #[command(subcommand)]
    Index(IndexCommand),
    /// Recover a database whose write-ahead log is damaged, or whose rocksdb/CURRENT is gone.
    ///
    /// A damaged log (or one that ends before the last acknowledged commit) is never opened
    /// short: every command refuses the database and says what recovering keeps and drops.
    /// This prints the same; with --apply it does it: the database is opened as of the last
    /// commit the log gives back whole (a prefix of the commits), the rest of the log is
    /// dropped, and the database opens normally afterwards. See docs/RELIABILITY.md.
    #[command(
        after_help = "Examples:\n  cairn --db ./db recover           # what recovering would keep and drop\n  cairn --db ./db recover --apply   # do it"
    )]
    Recover {
        /// Drop what the damage makes unreadable (otherwise only say what that would be).
        #[arg(long)]
        apply: bool,
    },
    /// Serve --db to LLM agents over the Model Context Protocol, on stdin/stdout.
    ///
    /// Tools: node, neighbors, node_details (the primitive operations of an exploring agent),
    /// search, explore, ask and schema; write with --allow-writes. Read-only by default: the
    /// database is opened read-only (beside any process that writes it) and statements that
    /// write are refused. Every call is bounded in time and reply size, and each reply states
    /// its bounds. Node text is returned as data. docs/MCP.md shows a desktop client's
    /// configuration.
    #[command(
        after_help = "Examples:\n  cairn --db ./academic.cairn mcp\n  cairn --db ./academic.cairn mcp --allow-writes --timeout-ms 30000 --max-items 100"
    )]
    Mcp {
        /// Open the database for writing and offer the `write` tool.
        #[arg(long)]
        allow_writes: bool,
        /// Wall time one call may take, in milliseconds (an EXPLORE or ASK past it returns what
        /// it found so far).
        #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
        timeout_ms: u64,
        /// Results, neighbours or nodes one reply lists at most.
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..=10_000))]
        max_items: u64,
        /// Bytes of JSON one reply holds at most.
        #[arg(long, default_value_t = 65_536, value_parser = clap::value_parser!(u64).range(1024..=67_108_864))]
        max_bytes: u64,
        /// Agents of `ask` that use the LLM of CAIRN_LLM_*: planner, judge, answerer, all.
        #[arg(long)]
        llm: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum IndexCommand {
    /// Build (or rebuild) the full-text index (text/) from the nodes and the vector index
    /// (vectors.hnsw) from the stored vectors, and save them next to the database. Queries
    /// keep them current by themselves; this makes the first SEARCH fast, e.g. after copying a
    /// database without its index files.
    #[command(after_help = "Example:\n  cairn --db ./academic.cairn index build")]
    Build,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum OutputFormat {
    /// Aligned columns with evidence paths.
    Table,
    /// One JSON document per statement, one a line, `{"cairn": 1, "kind": …}` (docs/JSON.md);
    /// errors as a JSON document on stderr.
    Json,
}

/// `--embedder`. `minilm` is accepted by every build, so `--help` and scripts do not depend on how
/// the binary was compiled; a build without the feature refuses it when it runs (exit code 2,
/// naming the fix) rather than at parse time with a bare "invalid value".
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum EmbedderArg {
    /// Built-in, model-free hashed n-gram embedder (384 dimensions).
    Hash,
    /// all-MiniLM-L6-v2 sentence embeddings (384 dimensions; cargo feature `minilm` and
    /// CAIRN_MINILM_DIR).
    Minilm,
    /// No embedder: only vectors supplied with the data.
    None,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum GenerateKind {
    /// Authors, papers, venues and topics (AUTHORED, PUBLISHED_IN, CITES, HAS_TOPIC).
    Academic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum DumpFormatArg {
    Csv,
    Jsonl,
}

/// The largest `--nodes` of a generated graph: it is built in memory before it is written, and
/// ten times the largest benchmark graph is far beyond what any test or demo needs.
pub(crate) const MAX_GENERATED_NODES: usize = 10_000_000;

/// `--nodes`: a count from 1 to [`MAX_GENERATED_NODES`], refused up front (exit code 2) rather
/// than by an allocation failure.
pub(crate) fn generated_nodes(s: &str) -> Result<usize, String> {
    let n: usize = s
        .parse()
        .map_err(|e| format!("`{s}` is not a node count: {e}"))?;
    if (1..=MAX_GENERATED_NODES).contains(&n) {
        Ok(n)
    } else {
        Err(format!("{n} is not in 1..={MAX_GENERATED_NODES}"))
    }
}

/// `--memory-budget`: a byte size such as `512MiB`, at least 1 MiB.
pub(crate) fn parse_budget(s: &str) -> Result<u64, String> {
    let bytes = parse_size::parse_size(s).map_err(|e| format!("`{s}` is not a size ({e})"))?;
    if bytes < 1 << 20 {
        return Err(format!("`{s}` is below the smallest budget, 1MiB"));
    }
    Ok(bytes)
}
