//! Bulk import of graph dumps (JSON Lines and Neo4j-admin-style CSV, gzip transparently).
//!
//! An import reads and validates everything first, so a bad line aborts it before the database
//! is touched. It then writes most data as sorted SST files ingested into RocksDB and commits
//! the rest in one batch; see `docs/FORMAT.md` ("Bulk import and its visibility rule") for why a
//! killed import is never half visible. Node keys dedupe, so importing a dump twice is a no-op.

mod apply;
mod budget;
pub mod dump;
pub mod export;
mod nodes;
pub mod read;
mod spill;
mod stage;
pub mod triples;

use apply::apply;
use cairn_store::EngineError;
use cairn_store::Graph;
use dump::DumpRecord;
use stage::Staging;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use thiserror::Error;

/// A bad line of a dump: `file:line: reason`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    pub file: PathBuf,
    pub line: u64,
    pub reason: String,
}

impl LineError {
    pub fn new(file: &Path, line: u64, reason: String) -> Self {
        LineError {
            file: file.to_path_buf(),
            line,
            reason,
        }
    }
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file.display(), self.line, self.reason)
    }
}

#[derive(Debug, Error)]
pub enum ImportError {
    #[error("{} bad line(s), more than --max-errors {max} allows; nothing was imported:\n{}", errors.len(), list(errors))]
    BadLines { errors: Vec<LineError>, max: usize },
    #[error("{}: bad header: {reason}", path.display())]
    Header { path: PathBuf, reason: String },
    /// A compressed file that ends early or holds bad data: nothing after the place can be
    /// read, so `--max-errors` cannot skip it.
    #[error("{0}; nothing was imported")]
    Corrupt(LineError),
    #[error("{}: unknown dump format (expected a .jsonl, .ndjson, .csv, .tsv, .triples or .nt file, optionally .gz)", path.display())]
    UnknownFormat { path: PathBuf },
    #[error("{}: a .txt file is not guessed to be triples; pass --format triples to read it as `subject<TAB>relation<TAB>object` lines", path.display())]
    TxtNotGuessed { path: PathBuf },
    #[error("{}: triples files cannot be imported together with CSV dumps in one run ({} is a dump; beside triples, only JSON Lines files of schema records are read)", triples.display(), dump.display())]
    MixedFormats { triples: PathBuf, dump: PathBuf },
    #[error("--label, --infer-labels and --relation-label apply to triples files (.tsv, .triples, or --format triples); {} is a JSON Lines or CSV dump, whose records name their labels", path.display())]
    LabelsWithoutTriples { path: PathBuf },
    #[error("{}: no .jsonl, .ndjson, .json, .csv, .tsv, .triples or .nt files (optionally .gz) in this directory", path.display())]
    NoDumpFiles { path: PathBuf },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the database's vectors come from embedder `{recorded}`; this import uses `{given}` (vectors of two embedders cannot be compared)")]
    EmbedderMismatch { recorded: String, given: String },
    #[error("embedding node descriptions failed: {0}")]
    Embed(#[from] cairn_embed::EmbedError),
    #[error(transparent)]
    Engine(#[from] EngineError),
}

fn list(errors: &[LineError]) -> String {
    errors
        .iter()
        .map(|e| format!("  {e}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Progress of an import, reported to [`ImportOptions::progress`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub phase: Phase,
    /// Units done in this phase (bytes while reading, items otherwise).
    pub done: u64,
    pub total: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Read,
    Resolve,
    /// Computing vectors for node descriptions; `done`/`total` count descriptions.
    Embed,
    Write,
    Commit,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Read => "reading",
            Phase::Resolve => "resolving",
            Phase::Embed => "embedding",
            Phase::Write => "writing",
            Phase::Commit => "committing",
        })
    }
}

/// The embedder id the catalog records when the vectors came with the data (no embedder made
/// them), so that later imports store only supplied vectors too.
pub const SUPPLIED_EMBEDDER: &str = "supplied";

/// Callback receiving [`Progress`].
pub type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

/// How to import.
#[derive(Clone, Default)]
pub struct ImportOptions {
    /// Bad lines to skip (each reported in the summary) before the import aborts. Default 0:
    /// the first bad line aborts and the database stays unchanged.
    pub max_errors: usize,
    pub progress: Option<ProgressFn>,
    /// Computes a vector for every new node from its description (in parallel) and records the
    /// embedder in the catalog. `None`: only vectors supplied in the dump are stored.
    pub embedder: Option<Arc<dyn cairn_embed::Embedder>>,
    /// `embedder` is a default, not the caller's choice: a dump with an embedder record (which
    /// says which embedder made its vectors) imports as that record says instead, storing only
    /// the dump's vectors.
    pub embedder_is_default: bool,
    /// How triples files are recognised and labelled (see [`triples`]).
    pub triples: triples::TriplesOptions,
    /// Bytes the staged and the resolved edges may hold in memory ([`DEFAULT_MEMORY_BUDGET`]
    /// when `None`); beyond it they spill to the database directory (`spill.rs`).
    pub memory_budget: Option<u64>,
}

pub use budget::DEFAULT_BUDGET as DEFAULT_MEMORY_BUDGET;

impl ImportOptions {
    pub(crate) fn budget(&self) -> u64 {
        self.memory_budget.unwrap_or(DEFAULT_MEMORY_BUDGET)
    }
}

impl fmt::Debug for ImportOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImportOptions")
            .field("max_errors", &self.max_errors)
            .field(
                "embedder",
                &self.embedder.as_ref().map(|e| e.id().to_owned()),
            )
            .field("triples", &self.triples)
            .field("memory_budget", &self.memory_budget)
            .finish()
    }
}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportSummary {
    pub records: u64,
    pub nodes_created: u64,
    pub nodes_updated: u64,
    pub nodes_unchanged: u64,
    pub edges_created: u64,
    pub edges_updated: u64,
    pub edges_unchanged: u64,
    /// Lines skipped under `max_errors`, each with its reason.
    pub skipped: Vec<LineError>,
    /// Vectors computed by the embedder, and the time that took (part of `elapsed`).
    pub vectors_computed: u64,
    pub embed_time: Duration,
    pub elapsed: Duration,
    /// Triples imports: the labels given to the entities and how many entities got each, most
    /// first (empty for other formats).
    pub labels: Vec<(String, u64)>,
}

impl ImportSummary {
    /// Edges per second over the whole import.
    pub fn edges_per_sec(&self) -> f64 {
        let edges = (self.edges_created + self.edges_updated + self.edges_unchanged) as f64;
        edges / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// The dump files `paths` name: a file as it is, a directory as the dump files in it (by
/// name: [`read::DumpFormat::of`] knows their format), sorted by name. A path that does not
/// exist, or a directory without dump files, is an error.
pub fn dump_files<P: AsRef<Path>>(paths: &[P]) -> Result<Vec<PathBuf>, ImportError> {
    let mut files = Vec::new();
    for p in paths.iter().map(AsRef::as_ref) {
        let io = |source| ImportError::Io {
            path: p.to_path_buf(),
            source,
        };
        let meta = std::fs::metadata(p).map_err(io)?;
        if !meta.is_dir() {
            files.push(p.to_path_buf());
            continue;
        }
        let mut inside = Vec::new();
        for entry in std::fs::read_dir(p).map_err(io)? {
            let path = entry.map_err(io)?.path();
            if path.is_file() && read::DumpFormat::of(&path).is_ok() {
                inside.push(path);
            }
        }
        if inside.is_empty() {
            return Err(ImportError::NoDumpFiles {
                path: p.to_path_buf(),
            });
        }
        inside.sort();
        files.extend(inside);
    }
    Ok(files)
}

/// Imports dump files into `graph`. See the module documentation.
pub fn import_files<P: AsRef<Path>>(
    graph: &Graph,
    files: &[P],
    options: &ImportOptions,
) -> Result<ImportSummary, ImportError> {
    let start = Instant::now();
    let files = dump_files(files)?;
    let files: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    if let Some(triples) = triples_files(&files, &options.triples)? {
        return triples::import_triples(graph, &triples, options);
    }
    let sizes: Vec<u64> = files
        .iter()
        .map(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0))
        .collect();
    let total: u64 = sizes.iter().sum();
    let max = options.max_errors;
    report(options, Phase::Read, 0, Some(total));
    let done = AtomicU64::new(0);
    let last_report = AtomicU64::new(0);
    // Files are parsed in parallel (one per core) into per-file lists, then staged in the
    // order given, so "the later line wins" holds across files too. The largest are parsed
    // first, so that no core ends the phase alone on a big file.
    let mut by_size: Vec<usize> = (0..files.len()).collect();
    by_size.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    let next_file = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(files.len())
        .max(1);
    // Staged edges beyond half the budget are spilled; the directory lives until the end.
    let stage_budget = spill::StageBudget::new(graph, options.budget());
    let parsed: Vec<Mutex<Option<Result<Staging, ImportError>>>> =
        files.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(&i) = by_size.get(next_file.fetch_add(1, Ordering::Relaxed)) {
                    let Some(path) = files.get(i) else { break };
                    let mut part = Staging::default();
                    let mut errors = Vec::new();
                    let mut kept = spill::Kept::default();
                    let mut spill_error = None;
                    let result = read::read_file(
                        path,
                        &mut |record, line| {
                            part.add(record, i as u32, line);
                            if spill_error.is_none() {
                                spill_error = stage_budget.check(&mut part, i, &mut kept).err();
                            }
                        },
                        &mut |e| {
                            errors.push(e);
                            errors.len() <= max
                        },
                        &mut |bytes| {
                            let now = done.fetch_add(bytes, Ordering::Relaxed) + bytes;
                            let last = last_report.load(Ordering::Relaxed);
                            if now.saturating_sub(last) > (1 << 20)
                                && last_report
                                    .compare_exchange(
                                        last,
                                        now,
                                        Ordering::Relaxed,
                                        Ordering::Relaxed,
                                    )
                                    .is_ok()
                            {
                                report(options, Phase::Read, now, Some(total));
                            }
                        },
                    );
                    part.errors = errors;
                    let result = result.and_then(|ok| match spill_error {
                        Some(e) => Err(e),
                        None => part.finish_spill().map(|()| ok),
                    });
                    if let Ok(mut slot) = parsed[i].lock() {
                        *slot = Some(result.map(|_| part));
                    }
                }
            });
        }
    });
    tracing::debug!(
        "import: files parsed in {:.0} ms{}{}",
        start.elapsed().as_secs_f64() * 1e3,
        if stage_budget.spilled() {
            ", edges spilled"
        } else {
            ""
        },
        budget::rss_note()
    );
    let mut staging = Staging::default();
    for (path, slot) in files.iter().zip(parsed) {
        staging.files.push(path.to_path_buf());
        let part = slot.into_inner().ok().flatten().ok_or_else(|| {
            ImportError::Engine(EngineError::Invalid(format!(
                "reading {} did not finish",
                path.display()
            )))
        })??;
        staging.append(part);
    }
    let mut errors = std::mem::take(&mut staging.errors);
    if errors.len() > max {
        errors.truncate(max + 1);
        return Err(ImportError::BadLines { errors, max });
    }
    let mut summary = apply(graph, staging, errors, options)?;
    summary.elapsed = start.elapsed();
    Ok(summary)
}

/// The files as triples files, if they are (all of them, or none: mixing is refused). Callers
/// may check this before opening or creating a database; [`import_files`] checks it too.
pub fn triples_files<'a>(
    files: &[&'a Path],
    options: &triples::TriplesOptions,
) -> Result<Option<Vec<&'a Path>>, ImportError> {
    if options.forced {
        return Ok(Some(files.to_vec()));
    }
    let formats = files
        .iter()
        .map(|f| read::DumpFormat::of(f))
        .collect::<Result<Vec<_>, _>>()?;
    let triples = files
        .iter()
        .zip(&formats)
        .find(|(_, f)| **f == read::DumpFormat::Triples);
    // Beside triples, a JSON Lines file may carry schema records (read by `triples`).
    let dump = files.iter().zip(&formats).find(|(_, f)| match triples {
        Some(_) => **f == read::DumpFormat::Csv,
        None => **f != read::DumpFormat::Triples,
    });
    match (triples, dump) {
        (Some((t, _)), Some((d, _))) => Err(ImportError::MixedFormats {
            triples: t.to_path_buf(),
            dump: d.to_path_buf(),
        }),
        (Some(_), None) => Ok(Some(files.to_vec())),
        (None, Some((d, _)))
            if options.label.is_some() || options.infer || !options.relation_labels.is_empty() =>
        {
            Err(ImportError::LabelsWithoutTriples {
                path: d.to_path_buf(),
            })
        }
        _ => Ok(None),
    }
}

/// Imports records produced in memory (by the generator, or an application) through the same
/// bulk path as files.
pub fn import_records(
    graph: &Graph,
    records: impl IntoIterator<Item = DumpRecord>,
    options: &ImportOptions,
) -> Result<ImportSummary, ImportError> {
    let start = Instant::now();
    let mut staging = Staging::default();
    staging.files.push(PathBuf::from("<records>"));
    for (i, r) in records.into_iter().enumerate() {
        staging.add_owned(r, 0, i as u64 + 1);
    }
    let mut summary = apply(graph, staging, Vec::new(), options)?;
    summary.elapsed = start.elapsed();
    Ok(summary)
}

pub(crate) fn report(options: &ImportOptions, phase: Phase, done: u64, total: Option<u64>) {
    if done == 0 {
        tracing::debug!(%phase, "import phase starts");
    }
    if let Some(p) = &options.progress {
        p(Progress { phase, done, total });
    }
}

/// Reproducible numbers for the unit tests (a linear congruential generator): `next(n)` is in
/// `0..n`.
#[cfg(test)]
pub(crate) fn test_numbers(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |n| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    }
}
