//! The `Cairn` handle: a database plus the embedder and executor that answer statements.

use crate::error::CairnError;
use crate::import::{ImportEmbedder, ImportOptions};
use crate::mutation::apply;
use crate::output::{
    Description, Done, IndexInfo, LabelRelation, Listing, Output, Plan, RelationInfo,
};
use crate::{EngineError, Freshness, Graph, GraphOptions, GraphRead, OpenMode, Writer};
use cairn_embed::{minilm_from_env, Embedder, HashEmbedder, MINILM_ID};
use cairn_exec::{
    CancelToken, EngineCatalog, EntrySearch, Exploration, ExploreError, Explorer, NodeSource,
    NodeTable,
};
use cairn_exec::{Source, TableKeeper, TableMode};
use cairn_import::dump::DumpRecord;
use cairn_import::export::{export_dir, write_jsonl, ExportFormat, ExportSummary, Selection};
use cairn_import::{import_files, import_records, ImportError, ImportSummary, SUPPLIED_EMBEDDER};
use cairn_query::ast::ShowWhat;
use cairn_query::plan::{LabelRef, PropertyRef, RelationRef};
use cairn_query::{prepare, Compiled, ElementRef, EntryPlan};
use cairn_storage_format::{LabelId, NodeId};
use cairn_store::describe::display_name;
use cairn_store::{Catalog, Element};
use cairn_text::{TextBuildReport, TextRefresh, TextStore};
use cairn_vector::{BuildReport, Refresh, VectorError, VectorStore};
use parking_lot::RwLock;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How to open a database.
#[derive(Clone, Debug)]
pub struct CairnOptions {
    pub path: PathBuf,
    pub graph: GraphOptions,
    /// Whether the handle keeps an in-memory node table (built in the background, kept
    /// current with change sets) or reads every query's node facts from the store.
    pub table: TableMode,
}

/// How many of a label's nodes `DESCRIBE` reads to list its properties.
const DESCRIBE_SAMPLE: usize = 1000;

impl CairnOptions {
    pub fn new(path: impl AsRef<Path>) -> Self {
        CairnOptions {
            path: path.as_ref().to_path_buf(),
            graph: GraphOptions::default(),
            table: TableMode::Background,
        }
    }

    /// Never build the in-memory node table: every query reads the node facts and edges it
    /// touches from the store ([`TableMode::StoreOnly`]). For one-shot processes, which would
    /// otherwise pay for a scan of the whole graph before their first query. SEARCH then walks
    /// the graph on the saved vector index file instead of loading it, reading only the blocks
    /// it touches ([`VectorStore::scanning_file`]), until a write or a damaged file.
    pub fn store_only(mut self) -> Self {
        self.table = TableMode::StoreOnly;
        self
    }

    /// Open read-only, beside a writer that may hold the database in another process
    /// ([`OpenMode::ReadOnly`]): queries answer from the state as of the open or the last
    /// [`Cairn::catch_up`]; imports and statements that write are refused.
    pub fn read_only(mut self) -> Self {
        self.graph.mode = OpenMode::ReadOnly;
        self
    }
}

/// An open Cairn database.
///
/// ```
/// # fn main() -> Result<(), cairn::CairnError> {
/// # let dir = tempfile::tempdir().map_err(|e| cairn::CairnError::Unsupported(e.to_string()))?;
/// let db = cairn::Cairn::open(dir.path())?;
/// db.transaction(|tx| {
///     let han = tx.upsert_node("Author", "a1", [("name", cairn::Value::from("Jiawei Han"))], None)?;
///     let p = tx.upsert_node("Paper", "p1", [("title", cairn::Value::from("Data mining concepts"))], None)?;
///     tx.add_edge(han, "AUTHORED", p, Default::default())?;
///     Ok::<_, cairn::CairnError>(())
/// })?;
/// let found = db.explore(r#"EXPLORE "his papers" FROM Author "a1" VIA AUTHORED TARGET Paper"#)?;
/// assert_eq!(found.results[0].name, "Data mining concepts");
/// # Ok(()) }
/// ```
pub struct Cairn {
    graph: Arc<Graph>,
    /// Behind a lock because a read-only handle's catch-up can bring a catalog that records a
    /// different embedder (the writer's first import).
    embedder: RwLock<Arc<dyn Embedder>>,
    /// Per-node facts for scoring: the in-memory table kept current with change sets, or the
    /// store view while there is none.
    table: TableKeeper,
    /// The HNSW index for SEARCH entries: loaded or built on the first SEARCH, kept current
    /// with the `vector` column family, saved on drop when changed in place.
    vectors: VectorStore,
    /// The full-text (BM25) index for SEARCH's words: opened on the first SEARCH, kept current
    /// with the change sets, committed on close (docs/SEARCH.md).
    text: TextStore,
    /// What feedback taught the planner (see `crate::feedback`), loaded at open.
    pub(crate) strategies: std::sync::Mutex<cairn_agent::strategy::Strategies>,
    /// The schema's phrase vectors for the planner, with a semantic embedder (built on the
    /// first ASK of a catalog version).
    pub(crate) phrases: cairn_agent::PhraseCache,
}

impl std::fmt::Debug for Cairn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cairn")
            .field("graph", &self.graph)
            .field("embedder", &self.embedder.read().id())
            .finish()
    }
}

impl Drop for Cairn {
    /// Saves what the derived indexes applied in place (so that the next process opens them
    /// current), then drops the store's change-log entries every saved index covers. A failure
    /// only costs the next process a replay or a rebuild, so it is logged, not raised.
    fn drop(&mut self) {
        if self.graph.is_read_only() {
            return;
        }
        if let Err(e) = self.text.save() {
            tracing::warn!("saving the full-text index on close: {e}");
        }
        if let Err(e) = self.vectors.save() {
            tracing::warn!("saving the vector index on close: {e}");
        }
        let text = match self.text.saved_stamp() {
            Ok(stamp) => stamp.unwrap_or(u64::MAX),
            Err(e) => {
                tracing::warn!("reading the full-text index's stamp: {e}");
                return;
            }
        };
        let through = text
            .min(self.vectors.log_covered(&self.graph))
            .min(self.graph.commits());
        if let Err(e) = self.graph.prune_changes(through) {
            tracing::warn!("pruning the change log: {e}");
        }
    }
}

impl Cairn {
    /// Opens (or creates) the database at `path` with default options.
    pub fn open(path: impl AsRef<Path>) -> Result<Cairn, CairnError> {
        Self::open_with(CairnOptions::new(path))
    }

    /// Opens (or creates) the database as `options` say, with the embedder its catalog records
    /// for queries. A database embedded by MiniLM needs the `minilm` feature and
    /// `CAIRN_MINILM_DIR`; without them this is [`CairnError::EmbedderUnavailable`].
    pub fn open_with(options: CairnOptions) -> Result<Cairn, CairnError> {
        let graph = Arc::new(Graph::open(&options.path, options.graph)?);
        // The files kept beside the store (vector and text indexes): the database directory, or
        // a cluster database's local directory.
        let local = graph.path().to_path_buf();
        let embedder = embedder_for(
            graph
                .catalog()
                .embedder()
                .map(|e| (e.id.as_str(), e.dim as usize)),
        )?;
        let mut vectors = if graph.is_read_only() {
            VectorStore::read_only(&graph, &local)
        } else {
            VectorStore::new(&graph, &local)
        };
        if options.table == TableMode::StoreOnly {
            // a one-shot process: SEARCH walks the saved index file rather than loading it
            vectors = vectors.scanning_file();
        }
        // A learned prior is not worth refusing the database for: a damaged record is set
        // aside (and replaced by the next feedback), with a warning.
        let strategies = cairn_agent::strategy::Strategies::decode(graph.strategies()?.as_deref())
            .unwrap_or_else(|e| {
                tracing::warn!("{e}; starting with no learned strategies");
                cairn_agent::strategy::Strategies::default()
            });
        Ok(Cairn {
            vectors,
            text: TextStore::new(Arc::clone(&graph), &local),
            table: TableKeeper::new(Arc::clone(&graph), options.table),
            graph,
            embedder: RwLock::new(embedder),
            strategies: std::sync::Mutex::new(strategies),
            phrases: cairn_agent::PhraseCache::new(),
        })
    }

    /// Opens the database at `path` read-only ([`CairnOptions::read_only`]); it must exist.
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Cairn, CairnError> {
        Self::open_with(CairnOptions::new(path).read_only())
    }

    /// Brings a read-only handle up to the writer's latest commit: the store's view, catalog
    /// and record cache at once, and the node table, the vector index and the embedder on
    /// their next use. Returns whether anything changed; a writable handle is always current.
    pub fn catch_up(&self) -> Result<bool, CairnError> {
        if !self.graph.catch_up()? {
            return Ok(false);
        }
        self.adopt_catalog_embedder(None)?;
        Ok(true)
    }

    /// Makes queries embed with the embedder the catalog records, when a commit (an import
    /// here, or the writer's, caught up with) recorded another: `given` when it is that one (no
    /// second load of a model), else the one [`embedder_for`] finds.
    fn adopt_catalog_embedder(&self, given: Option<&Arc<dyn Embedder>>) -> Result<(), CairnError> {
        let catalog = self.graph.catalog();
        let Some(recorded) = catalog.embedder() else {
            return Ok(());
        };
        if recorded.id == self.embedder.read().id() {
            return Ok(());
        }
        let embedder = match given.filter(|e| e.id() == recorded.id) {
            Some(e) => Arc::clone(e),
            None => embedder_for(Some((recorded.id.as_str(), recorded.dim as usize)))?,
        };
        if embedder.id() != self.embedder.read().id() {
            *self.embedder.write() = embedder;
        }
        Ok(())
    }

    /// How current a read-only handle is (`None` for the writer's, always current).
    pub fn freshness(&self) -> Option<Freshness> {
        self.graph.freshness()
    }

    /// The storage engine, for primitive reads (and raw writes; applications write through
    /// [`Cairn::transaction`]).
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The embedder queries use (the one the database's vectors came from, when known).
    pub fn embedder(&self) -> Arc<dyn Embedder> {
        Arc::clone(&self.embedder.read())
    }

    /// Bulk-imports dump files (formats and guarantees: docs/IMPORT.md), embedding new nodes as
    /// `options.embedder` says. A directory stands for the dump files in it, as with
    /// `cairn import` ([`cairn_import::dump_files`]). All or nothing: a refused import leaves
    /// the database unchanged.
    pub fn import<P: AsRef<Path>>(
        &self,
        files: &[P],
        options: ImportOptions,
    ) -> Result<ImportSummary, CairnError> {
        self.bulk(options, |graph, options| {
            import_files(graph, files, options)
        })
    }

    /// Bulk-imports records built in memory (by an application or the generator) on the same
    /// path as [`Cairn::import`]; the summary names the source `<records>`.
    pub fn import_records(
        &self,
        records: impl IntoIterator<Item = DumpRecord>,
        options: ImportOptions,
    ) -> Result<ImportSummary, CairnError> {
        self.bulk(options, |graph, options| {
            import_records(graph, records, options)
        })
    }

    /// Writes the database as a dump in `dir` (created; refused when it holds files) that
    /// [`Cairn::import`] reads back into the same graph: JSON Lines or CSV (docs/IMPORT.md,
    /// "Export"). Reads one snapshot a page at a time, so memory does not grow with the graph.
    pub fn export(&self, dir: &Path, format: ExportFormat) -> Result<ExportSummary, CairnError> {
        self.export_part(&Selection::All, dir, format)
    }

    /// [`Cairn::export`] of some nodes and edges: [`Cairn::selection`] of an exploration's
    /// results, for instance.
    pub fn export_part(
        &self,
        selection: &Selection,
        dir: &Path,
        format: ExportFormat,
    ) -> Result<ExportSummary, CairnError> {
        let snapshot = self.graph.snapshot();
        Ok(export_dir(&snapshot, selection, format, dir)?)
    }

    /// [`Cairn::export_part`] to a writer, as JSON Lines (`path` names it in errors).
    pub fn export_jsonl(
        &self,
        selection: &Selection,
        out: &mut dyn std::io::Write,
        path: &Path,
    ) -> Result<ExportSummary, CairnError> {
        let snapshot = self.graph.snapshot();
        Ok(write_jsonl(&snapshot, selection, out, path)?)
    }

    /// The nodes and edges of an exploration's results: each result and the nodes and edges
    /// (in their stored direction) of its evidence path, and with `RETURN SUBGRAPH` the whole
    /// subgraph the pattern matched.
    pub fn selection(&self, e: &Exploration) -> Selection {
        let catalog = self.graph.catalog();
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        if let Some(matched) = &e.subgraph {
            nodes.extend(&matched.nodes);
            edges.extend(
                matched
                    .edges
                    .iter()
                    .filter_map(|x| Some((x.from, catalog.relation_id(&x.relation)?, x.to))),
            );
        }
        for r in &e.results {
            nodes.push(r.node);
            for step in &r.path {
                let Some(rel) = catalog.relation_id(&step.relation) else {
                    continue;
                };
                edges.push(if step.reversed {
                    (step.to, rel, step.from)
                } else {
                    (step.from, rel, step.to)
                });
            }
        }
        Selection::Part { nodes, edges }
    }

    /// Runs one bulk import with the embedder resolved, then lets queries embed with the
    /// embedder the import recorded (a first import may record one other than the default).
    fn bulk(
        &self,
        options: ImportOptions,
        run: impl FnOnce(&Graph, &cairn_import::ImportOptions) -> Result<ImportSummary, ImportError>,
    ) -> Result<ImportSummary, CairnError> {
        self.graph.ensure_writable()?;
        let embedder = match &options.embedder {
            // A database without vectors stays without (SEARCH's words come from the
            // full-text index); one whose vectors were supplied stores only supplied ones.
            ImportEmbedder::Database => self
                .graph
                .catalog()
                .embedder()
                .is_some_and(|e| e.id != SUPPLIED_EMBEDDER)
                .then(|| self.embedder()),
            ImportEmbedder::Use(e) => Some(Arc::clone(e)),
            ImportEmbedder::None => None,
        };
        let options = options.resolve(embedder);
        let summary = run(&self.graph, &options)?;
        self.adopt_catalog_embedder(options.embedder.as_ref())?;
        Ok(summary)
    }

    /// The in-memory node table, current as of now: the kept one when no commit touched it
    /// since its build, else built here (blocking). Queries do not need this; they read
    /// through [`Cairn::node_source`].
    pub fn node_table(&self) -> Result<Arc<NodeTable>, CairnError> {
        Ok(self.table.table_now(self.embedder().id())?)
    }

    /// What the next query reads node facts and edges through: the in-memory table with the
    /// nodes later commits changed read from the store, or (no table yet, or
    /// [`CairnOptions::store_only`]) the store alone. Never waits for a table build.
    pub fn node_source(&self) -> Source<'_> {
        self.table.source(self.embedder().id())
    }

    /// How many in-memory node tables this handle has built (a write does not cause one).
    pub fn table_builds(&self) -> u64 {
        self.table.builds()
    }

    /// How many times this handle merged the nodes changed since its table's build into a
    /// copy of the table (past `MERGE_AFTER` of them) instead of building one from the store.
    pub fn table_merges(&self) -> u64 {
        self.table.merges()
    }

    /// Embeds, in `writer`'s batch, the descriptions of the nodes it created or whose
    /// description it changed and that got no vector from the caller ([`Writer::unembedded`]),
    /// with the database's embedder, so that SEARCH finds them as soon as the batch commits
    /// (synchronously at commit rather than in a background queue: a commit is then visible to
    /// SEARCH exactly when it is visible to everything else, and one description costs
    /// microseconds with the hash embedder, milliseconds with MiniLM). A database that records
    /// no embedder (the default: SEARCH's words are the full-text index's) is left without
    /// vectors, and one whose vectors come from another embedder (supplied with the data) is
    /// left alone: mixing models would make scores meaningless; such nodes stay outside the
    /// index.
    pub(crate) fn embed_pending(&self, writer: &mut Writer<'_>) -> Result<(), CairnError> {
        let embedder = self.embedder();
        match writer.catalog().embedder() {
            Some(def) if def.id == embedder.id() => {}
            // no vectors (the default: words are the full-text index's), or supplied ones
            _ => return Ok(()),
        }
        let todo = writer.unembedded()?;
        if todo.is_empty() {
            return Ok(());
        }
        let texts: Vec<&str> = todo.iter().map(|(_, t)| t.as_str()).collect();
        let vectors = embedder
            .embed_batch(&texts)
            .map_err(|e| CairnError::Explore(ExploreError::Embed(e)))?;
        for ((id, _), v) in todo.iter().zip(&vectors) {
            writer.set_vector(*id, v)?;
        }
        Ok(())
    }

    /// Called after every commit of the facade: the vector index takes in the change set now,
    /// so its pending list stays bounded in a process that writes and never searches.
    pub(crate) fn committed(&self) {
        self.vectors.absorb();
        self.text.absorb();
    }

    /// Brings the full-text index up to date (open, apply the commits since its stamp, or
    /// rebuild) and says what it did.
    pub fn refresh_text(&self) -> Result<TextRefresh, CairnError> {
        Ok(self.text.refresh()?)
    }

    /// Rebuilds the full-text index from the store and saves it.
    pub fn build_text_index(&self) -> Result<TextBuildReport, CairnError> {
        self.graph.ensure_writable()?;
        Ok(self.text.build()?)
    }

    /// The `k` best nodes for the words of `text` (of `label`, if given) by the full-text
    /// index's BM25, best first with their score.
    pub fn text_search(
        &self,
        text: &str,
        label: Option<&str>,
        k: usize,
    ) -> Result<Vec<(NodeId, f32)>, CairnError> {
        let Some(labels) = self.label_filter(label) else {
            return Ok(Vec::new());
        };
        self.text.refresh()?;
        Ok(self.text.search(text, labels.as_deref(), k)?)
    }

    /// Builds (or rebuilds) the vector index from the `vector` column family and saves it.
    /// Fails when the index could not answer for this database (no vectors, or vectors of
    /// another embedder).
    pub fn build_index(&self) -> Result<BuildReport, CairnError> {
        self.graph.ensure_writable()?;
        Ok(self.vectors.build(&self.graph, self.embedder().id())?)
    }

    /// Brings the vector index up to date (load, rebuild or apply changed vectors) and says what
    /// it did; `Refresh::Unavailable` means SEARCH scans exactly.
    pub fn refresh_index(&self) -> Result<Refresh, CairnError> {
        Ok(self.vectors.refresh(&self.graph, self.embedder().id())?)
    }

    /// Vectors the loaded index has scored in all its searches so far (`None` before it is
    /// loaded): read around a SEARCH to see how much work it took.
    pub fn index_scored(&self) -> Option<u64> {
        self.vectors.index().map(|i| i.scored())
    }

    /// The `k` nodes nearest to `text` (of `label`, if given) by the vector index, best first
    /// with their cosine; `None` when the database has no usable index (SEARCH then scans exactly).
    pub fn index_search(
        &self,
        text: &str,
        label: Option<&str>,
        k: usize,
    ) -> Result<Option<Vec<(NodeId, f32)>>, CairnError> {
        let Some(labels) = self.label_filter(label) else {
            return Ok(Some(Vec::new()));
        };
        let Some(search) = self.entry_search()? else {
            return Ok(None);
        };
        if !search.vectors()? {
            return Ok(None);
        }
        let query = self
            .embedder()
            .embed(text)
            .map_err(|e| CairnError::Explore(ExploreError::Embed(e)))?;
        Ok(Some(search.search(&query, labels.as_deref(), k)?))
    }

    /// The labels a search of `label` keeps (`Some(None)`: every label), or `None` when the
    /// schema has no such label (the search finds nothing).
    fn label_filter(&self, label: Option<&str>) -> Option<Option<Vec<LabelId>>> {
        match label {
            Some(name) => self.graph.catalog().label_id(name).map(|id| Some(vec![id])),
            None => Some(None),
        }
    }

    /// The `k` nodes (of `label`, if given) a `SEARCH "text"` entry starts from, best first:
    /// the full-text index's ranking of the words, with the vectors fused in or filling in as
    /// docs/SEARCH.md says. The scores only order the hits.
    pub fn search(
        &self,
        text: &str,
        label: Option<&str>,
        k: usize,
    ) -> Result<Vec<(NodeId, f32)>, CairnError> {
        let Some(labels) = self.label_filter(label) else {
            return Ok(Vec::new());
        };
        let Some(search) = self.entry_search()? else {
            return Ok(Vec::new());
        };
        let query = self
            .embedder()
            .embed(text)
            .map_err(|e| CairnError::Explore(ExploreError::Embed(e)))?;
        Ok(search.search_text(text, &query, labels.as_deref(), k)?)
    }

    /// [`Cairn::index_search`] for a vector computed elsewhere (a database whose vectors were
    /// supplied with the data, by the application's own model): it must have the dimension
    /// the catalog records.
    pub fn vector_search(
        &self,
        vector: &[f32],
        label: Option<&str>,
        k: usize,
    ) -> Result<Option<Vec<(NodeId, f32)>>, CairnError> {
        let catalog = self.graph.catalog();
        match catalog.embedder() {
            Some(e) if e.dim as usize == vector.len() => {}
            Some(e) => {
                return Err(CairnError::Unsupported(format!(
                    "the query vector has {} dimensions; the database's vectors have {}",
                    vector.len(),
                    e.dim
                )))
            }
            None => return Ok(None),
        }
        let Some(labels) = self.label_filter(label) else {
            return Ok(Some(Vec::new()));
        };
        // The index of the vectors the catalog records, whichever embedder queries use: the
        // caller's vector comes from the model that made them.
        let recorded = catalog.embedder().map(|e| e.id.clone()).unwrap_or_default();
        drop(catalog);
        if let Refresh::Unavailable(why) = self.vectors.refresh(&self.graph, &recorded)? {
            tracing::debug!("no vector index: {why}");
            return Ok(None);
        }
        match self.vectors.search_now(vector, labels.as_deref(), k) {
            Ok(Some(hits)) => Ok(Some(hits.into_iter().map(|h| (h.node, h.score)).collect())),
            Ok(None) => Ok(None),
            // a zero vector is near nothing
            Err(VectorError::Degenerate(_)) => Ok(Some(Vec::new())),
            Err(e) => Err(CairnError::Explore(ExploreError::Engine(
                EngineError::Invalid(e.to_string()),
            ))),
        }
    }

    /// The indexes as an entry search: the full-text index, and the vector index when the
    /// database has usable vectors (or `None` when exact search must answer instead). The
    /// vector index is brought up to date now when its vectors are semantic (SEARCH fuses
    /// them), else only when a search needs it (hash vectors only fill in after the words).
    fn entry_search(&self) -> Result<Option<IndexSearch<'_>>, CairnError> {
        self.text.refresh()?;
        let embedder = self.embedder();
        let usable = self
            .graph
            .catalog()
            .embedder()
            .is_some_and(|e| e.id == embedder.id());
        let semantic = usable && !is_hash(embedder.as_ref());
        let search = IndexSearch {
            db: self,
            vectors: std::sync::OnceLock::new(),
            semantic,
        };
        if semantic {
            search.vectors()?;
        }
        Ok(Some(search))
    }

    fn run_plan(
        &self,
        plan: &cairn_query::Plan,
        trace: bool,
        cancel: &CancelToken,
    ) -> Result<Exploration, CairnError> {
        let table = self.node_source();
        // Only SEARCH entries need the index: other plans never pay for loading or building it.
        let wants_index = plan
            .entries
            .iter()
            .any(|e| matches!(e, EntryPlan::Search { .. }));
        let search = if wants_index {
            self.entry_search()?
        } else {
            None
        };
        self.run_plan_on(
            &self.graph,
            &*table,
            search.as_ref().map(|s| s as &dyn EntrySearch),
            plan,
            trace,
            cancel,
        )
    }

    /// Runs `plan` on `graph` (this database, or a transaction's private copy of it) with its
    /// node table, and the vector index when `search` is given (else SEARCH scans exactly).
    pub(crate) fn run_plan_on(
        &self,
        graph: &Graph,
        table: &dyn NodeSource,
        search: Option<&dyn EntrySearch>,
        plan: &cairn_query::Plan,
        trace: bool,
        cancel: &CancelToken,
    ) -> Result<Exploration, CairnError> {
        let embedder = self.embedder();
        let mut explorer = Explorer::new(graph, embedder.as_ref(), table);
        if let Some(s) = search {
            explorer = explorer.with_search(s);
        }
        Ok(explorer.run(plan, trace, cancel)?)
    }

    /// Compiles a statement against this database's catalog.
    pub fn compile(&self, statement: &str) -> Result<Compiled, CairnError> {
        Ok(prepare(statement, &EngineCatalog(self.graph.catalog()))?)
    }

    /// Runs an `EXPLORE` statement.
    pub fn explore(&self, statement: &str) -> Result<Exploration, CairnError> {
        match self.compile(statement)? {
            Compiled::Explore(plan) => self.run_plan(&plan, false, &CancelToken::default()),
            _ => Err(CairnError::Unsupported(
                "expected an EXPLORE statement".into(),
            )),
        }
    }

    /// The compiled plan of a statement, every default filled in.
    pub fn explain(&self, statement: &str) -> Result<String, CairnError> {
        Ok(self.plan(statement)?.text)
    }

    /// [`Cairn::explain`] with the statement's kind (and an `ASK`'s question type).
    pub fn plan(&self, statement: &str) -> Result<Plan, CairnError> {
        match self.compile(statement)? {
            Compiled::Explain(inner) => self.explain_compiled(*inner),
            other => self.explain_compiled(other),
        }
    }

    /// `EXPLAIN ASK` prints the plan the planner chose; anything else its compiled form.
    fn explain_compiled(&self, inner: Compiled) -> Result<Plan, CairnError> {
        let statement = statement_kind(&inner);
        match inner {
            Compiled::Ask { question } => {
                let table = self.node_source();
                let search = self.entry_search()?;
                let embedder = self.embedder();
                let mut asker = self.asker(embedder.as_ref(), &*table);
                if let Some(s) = &search {
                    asker = asker.with_search(s);
                }
                let plan = asker.plan(&question)?;
                Ok(Plan {
                    statement,
                    question_type: Some(plan.qtype.name().to_owned()),
                    text: format!("{}\n{}", plan.header(), plan.plan),
                })
            }
            other => Ok(Plan {
                statement,
                question_type: None,
                text: other.to_string(),
            }),
        }
    }

    /// Answers a natural-language question (planner → executor → judge → answerer →
    /// validator), offline unless `llm` names a backend and the agents that use it.
    pub fn ask(
        &self,
        question: &str,
        cancel: &CancelToken,
        llm: Option<(&dyn cairn_agent::LlmBackend, cairn_agent::LlmAgents)>,
    ) -> Result<cairn_agent::AskOutcome, CairnError> {
        let table = self.node_source();
        let search = self.entry_search()?;
        let embedder = self.embedder();
        let mut asker = self.asker(embedder.as_ref(), &*table);
        if let Some(s) = &search {
            asker = asker.with_search(s);
        }
        if let Some((backend, agents)) = llm {
            asker = asker.with_llm(backend, agents);
        }
        let mut outcome = asker.ask(question, cancel)?;
        outcome.answer_id = Some(self.record_answer(&outcome));
        Ok(outcome)
    }

    /// Runs any statement; `cancel` stops a running exploration between expansions.
    pub fn execute(&self, statement: &str, cancel: &CancelToken) -> Result<Output, CairnError> {
        self.execute_with(statement, cancel, false)
    }

    /// [`Cairn::execute`], recording every search decision in `Exploration::trace` when `trace`
    /// is set (as `RETURN TRACE` would, without changing what the statement returns).
    pub fn execute_with(
        &self,
        statement: &str,
        cancel: &CancelToken,
        trace: bool,
    ) -> Result<Output, CairnError> {
        self.run(self.compile(statement)?, cancel, trace)
    }

    /// Runs a compiled statement. A data statement commits alone; transaction statements need
    /// a [`crate::Session`].
    pub(crate) fn run(
        &self,
        compiled: Compiled,
        cancel: &CancelToken,
        trace: bool,
    ) -> Result<Output, CairnError> {
        match compiled {
            Compiled::Explore(plan) => {
                Ok(Output::Exploration(self.run_plan(&plan, trace, cancel)?))
            }
            Compiled::Mutation(m) => Ok(Output::Done(self.transaction(|tx| apply(tx, &m))?)),
            Compiled::Transaction(t) => Err(CairnError::Transaction(format!(
                "{t} needs a session (Cairn::session, the REPL or `cairn query`)"
            ))),
            Compiled::Explain(inner) => Ok(Output::Plan(self.explain_compiled(*inner)?)),
            Compiled::Ask { question } => {
                Ok(Output::Answer(Box::new(self.ask(&question, cancel, None)?)))
            }
            Compiled::Show(what) => Ok(Output::Listing(self.show(what)?)),
            Compiled::Describe(label) => Ok(Output::Description(self.describe(label.id)?)),
            Compiled::DeclareRelation { relation, parent } => {
                self.transaction(|tx| {
                    tx.set_relation_parent(&relation.name, Some(&parent.name))
                        .map_err(CairnError::from)
                })?;
                Ok(Output::Done(Done {
                    statement: "RELATION UNDER",
                    outcome: "set",
                    statements: None,
                    message: format!("relation {} is now under {}", relation.name, parent.name),
                }))
            }
            Compiled::Annotate {
                element,
                description,
                aliases,
                linking,
            } => {
                let target = match &element {
                    ElementRef::Label(l) => Element::Label(l.id),
                    ElementRef::Relation(r) => Element::Relation(r.id),
                    ElementRef::Property(p) => Element::Property(p.id),
                };
                self.transaction(|tx| {
                    tx.annotate(target, description, aliases, linking)
                        .map_err(CairnError::from)
                })?;
                let c = self.graph.catalog();
                let text = annotation_statement(&c, target);
                Ok(Output::Done(Done {
                    statement: "ANNOTATE",
                    outcome: if text.is_some() { "set" } else { "cleared" },
                    statements: None,
                    message: text.unwrap_or_else(|| "annotation cleared".to_owned()),
                }))
            }
            Compiled::CreateIndex { label, property } => {
                let created = self.transaction(|tx| {
                    tx.create_index(&label.name, &property.name)
                        .map_err(CairnError::from)
                })?;
                let index = format!("{}({})", label.name, property.name);
                Ok(Output::Done(Done {
                    statement: "CREATE INDEX",
                    outcome: if created { "created" } else { "exists" },
                    statements: None,
                    message: if created {
                        format!("index on {index} created")
                    } else {
                        format!("index on {index} already exists")
                    },
                }))
            }
        }
    }

    fn show(&self, what: ShowWhat) -> Result<Listing, CairnError> {
        let c = self.graph.catalog();
        Ok(match what {
            ShowWhat::Strategies => Listing::Strategies(self.lock_strategies()?.clone()),
            ShowWhat::Labels => {
                let mut labels: Vec<String> = c.labels().map(|(_, n)| n.to_owned()).collect();
                labels.sort();
                Listing::Labels(labels)
            }
            ShowWhat::Relations => {
                let mut rels: Vec<RelationInfo> = c
                    .relations()
                    .map(|(_, r)| RelationInfo {
                        name: r.name.clone(),
                        parent: r.parent.and_then(|p| c.relation_name(p)).map(str::to_owned),
                        endpoints: r
                            .endpoints
                            .iter()
                            .map(|(s, d)| (label_name(&c, *s), label_name(&c, *d)))
                            .collect(),
                    })
                    .collect();
                rels.sort_by(|a, b| a.name.cmp(&b.name));
                Listing::Relations(rels)
            }
            ShowWhat::Indexes => {
                let mut indexes: Vec<IndexInfo> = c
                    .indexes()
                    .iter()
                    .map(|i| IndexInfo {
                        label: label_name(&c, i.label),
                        property: c.prop_name(i.prop).unwrap_or("?").to_owned(),
                    })
                    .collect();
                indexes.sort();
                Listing::Indexes(indexes)
            }
        })
    }

    /// `DESCRIBE Label`: node count, the properties its nodes have (with how many have each),
    /// its indexes and the relations it is an endpoint of.
    fn describe(&self, label: LabelId) -> Result<Description, CairnError> {
        let c = self.graph.catalog();
        let ids = self.graph.label_nodes(label)?;
        // The catalog keeps property keys, not which label uses which: count them on (at most)
        // the first DESCRIBE_SAMPLE nodes.
        let sample = &ids[..ids.len().min(DESCRIBE_SAMPLE)];
        let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
        for record in self.graph.nodes(sample)?.into_iter().flatten() {
            for (k, _) in &record.props {
                *counts
                    .entry(c.prop_name(*k).unwrap_or("?").to_owned())
                    .or_default() += 1;
            }
        }
        let mut annotations: Vec<String> = annotation_statement(&c, Element::Label(label))
            .into_iter()
            .collect();
        annotations.extend(counts.keys().filter_map(|name| {
            c.prop_id(name)
                .and_then(|p| annotation_statement(&c, Element::Property(p)))
        }));
        let indexes = (c.indexes().iter().filter(|i| i.label == label))
            .map(|i| c.prop_name(i.prop).unwrap_or("?").to_owned())
            .collect();
        let relations = c
            .relations()
            .filter_map(|(id, r)| {
                let endpoints: Vec<(String, String)> = (r.endpoints.iter())
                    .filter(|(s, d)| *s == label || *d == label)
                    .map(|(s, d)| (label_name(&c, *s), label_name(&c, *d)))
                    .collect();
                (!endpoints.is_empty()).then(|| LabelRelation {
                    relation: r.name.clone(),
                    endpoints,
                    annotation: annotation_statement(&c, Element::Relation(id)),
                })
            })
            .collect();
        Ok(Description {
            label: label_name(&c, label),
            nodes: ids.len(),
            sampled: sample.len(),
            properties: counts.into_iter().collect(),
            annotations,
            indexes,
            relations,
        })
    }

    /// Display names of nodes (name/title property, else key), for printing evidence paths.
    pub fn names(&self, ids: &[NodeId]) -> Result<Vec<String>, CairnError> {
        let catalog = self.graph.catalog();
        Ok(self
            .graph
            .nodes(ids)?
            .into_iter()
            .zip(ids)
            .map(|(r, id)| {
                r.map(|r| display_name(&r, &catalog))
                    .unwrap_or_else(|| id.to_string())
            })
            .collect())
    }
}

/// A label's name, `?` for an id the catalog does not know (never in a consistent catalog).
fn label_name(c: &Catalog, id: LabelId) -> String {
    c.label_name(id).unwrap_or("?").to_owned()
}

/// A compiled statement's kind as `EXPLAIN` names it (lower case).
fn statement_kind(c: &Compiled) -> String {
    match c {
        Compiled::Explore(_) => "explore",
        Compiled::Ask { .. } => "ask",
        Compiled::Explain(_) => "explain",
        Compiled::Show(_) => "show",
        Compiled::Describe(_) => "describe",
        Compiled::Mutation(m) => match m {
            cairn_query::Mutation::Upsert { .. } => "upsert",
            cairn_query::Mutation::AddEdge { .. } => "add edge",
            cairn_query::Mutation::RemoveEdge { .. } => "remove edge",
            cairn_query::Mutation::RemoveNode(_) => "remove node",
        },
        Compiled::Transaction(_) => "transaction",
        Compiled::DeclareRelation { .. } => "relation",
        Compiled::Annotate { .. } => "annotate",
        Compiled::CreateIndex { .. } => "create index",
    }
    .to_owned()
}

/// The embedder for a database that records `recorded` (id, dimension): the built-in hash
/// embedder of that dimension when it is one; all-MiniLM-L6-v2 from `CAIRN_MINILM_DIR` when it
/// is that, or an error saying how to get it (never the hash embedder in its place); else (no
/// vectors yet, or vectors supplied with the data) the default hash embedder.
fn embedder_for(recorded: Option<(&str, usize)>) -> Result<Arc<dyn Embedder>, CairnError> {
    Ok(match recorded {
        Some((id, dim)) if id.starts_with("cairn-hash-v1/") => Arc::new(HashEmbedder::new(dim)),
        Some((MINILM_ID, _)) => {
            minilm_from_env().map_err(|source| CairnError::EmbedderUnavailable {
                id: MINILM_ID.to_owned(),
                source,
            })?
        }
        _ => Arc::new(HashEmbedder::default()),
    })
}

/// The id prefix of the built-in hash embedder's ids.
const HASH_PREFIX: &str = "cairn-hash-v1/";

/// Whether `e` is the built-in hash embedder (hashed words, not meaning).
fn is_hash(e: &dyn Embedder) -> bool {
    e.id().starts_with(HASH_PREFIX)
}

/// Reciprocal rank fusion's constant: a node ranked r-th in a list gets 1 / (RRF_K + r).
/// 60 is the value of the method's paper (Cormack et al. 2009), used unchanged by most
/// engines that fuse lexical and vector rankings.
pub const RRF_K: f32 = 60.0;
/// How many of each ranking fusion reads for a top k: a node that is k-th in one ranking and
/// just below it in the other should still be considered.
pub const FUSE_DEPTH: usize = 4;

/// SEARCH entries answered by the full-text index and the HNSW index (or, in a one-shot
/// process, a walk of its file). Locks are taken per search, not held for the whole
/// exploration, so a concurrent refresh is never blocked behind a long query.
#[derive(Debug)]
struct IndexSearch<'a> {
    db: &'a Cairn,
    /// Whether the vector index can answer, found out (and the index brought up to date) on
    /// first need.
    vectors: std::sync::OnceLock<bool>,
    /// The database's vectors come from a semantic embedder (fused with the words' ranking).
    semantic: bool,
}

impl IndexSearch<'_> {
    fn vectors(&self) -> Result<bool, CairnError> {
        if let Some(v) = self.vectors.get() {
            return Ok(*v);
        }
        let v = match self.db.refresh_index()? {
            Refresh::Unavailable(why) => {
                tracing::debug!("no vector index: {why}");
                false
            }
            _ => true,
        };
        Ok(*self.vectors.get_or_init(|| v))
    }

    fn words(
        &self,
        text: &str,
        labels: Option<&[LabelId]>,
        k: usize,
    ) -> Result<Vec<(NodeId, f32)>, ExploreError> {
        self.db
            .text
            .search(text, labels, k)
            .map_err(|e| ExploreError::Engine(EngineError::Invalid(e.to_string())))
    }
}

/// Reciprocal rank fusion of rankings (each best first): a node's score is the sum over the
/// rankings it is in of 1 / (`RRF_K` + its rank, from 1). Ties by node id.
pub fn fuse(rankings: &[&[(NodeId, f32)]], k: usize) -> Vec<(NodeId, f32)> {
    let mut scores: std::collections::HashMap<NodeId, f32> = Default::default();
    for ranking in rankings {
        for (rank, (id, _)) in ranking.iter().enumerate() {
            *scores.entry(*id).or_default() += 1.0 / (RRF_K + rank as f32 + 1.0);
        }
    }
    let mut out: Vec<(NodeId, f32)> = scores.into_iter().collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out.truncate(k);
    out
}

impl EntrySearch for IndexSearch<'_> {
    fn has_vectors(&self) -> bool {
        self.vectors().unwrap_or_else(|e| {
            tracing::warn!("the vector index: {e}");
            false
        })
    }

    fn search_text(
        &self,
        text: &str,
        query: &[f32],
        labels: Option<&[LabelId]>,
        k: usize,
    ) -> Result<Vec<(NodeId, f32)>, ExploreError> {
        if self.semantic {
            let depth = k.saturating_mul(FUSE_DEPTH).max(k);
            let words = self.words(text, labels, depth)?;
            let near = self.search(query, labels, depth)?;
            return Ok(fuse(&[&words, &near], k));
        }
        let mut hits = self.words(text, labels, k)?;
        if hits.len() < k && self.has_vectors() {
            // No (or too few) nodes share a word with the query: the nearest hashed words
            // (character n-grams: misspellings, inflections) fill in after them.
            let seen: std::collections::HashSet<NodeId> = hits.iter().map(|h| h.0).collect();
            let near = self.search(query, labels, k)?;
            hits.extend(
                near.into_iter()
                    .filter(|h| !seen.contains(&h.0))
                    .take(k - hits.len()),
            );
        }
        Ok(hits)
    }

    fn search(
        &self,
        query: &[f32],
        labels: Option<&[LabelId]>,
        k: usize,
    ) -> Result<Vec<(NodeId, f32)>, ExploreError> {
        if !self
            .vectors()
            .map_err(|e| ExploreError::Engine(EngineError::Invalid(e.to_string())))?
        {
            return Ok(Vec::new());
        }
        let mut hits = self.db.vectors.search_now(query, labels, k);
        if matches!(hits, Ok(None)) {
            // The scanned file was damaged (or another thread's refresh found the index
            // unusable): refresh once, which loads or rebuilds, and search again.
            self.db
                .refresh_index()
                .map_err(|e| ExploreError::Engine(EngineError::Invalid(e.to_string())))?;
            hits = self.db.vectors.search_now(query, labels, k);
        }
        match hits {
            Ok(Some(hits)) => Ok(hits.into_iter().map(|h| (h.node, h.score)).collect()),
            Ok(None) => Err(ExploreError::Engine(EngineError::Invalid(
                "the vector index became unavailable during the query; run it again".into(),
            ))),
            // A query with no direction (e.g. no words) is near nothing.
            Err(VectorError::Degenerate(_)) => Ok(Vec::new()),
            Err(e) => Err(ExploreError::Engine(EngineError::Invalid(e.to_string()))),
        }
    }
}

/// An element's annotation as the `ANNOTATE` statement that sets it (what `DESCRIBE` and the
/// REPL's `.schema` print: the text is escaped like any string literal), or `None` without one.
pub fn annotation_statement(c: &Catalog, element: Element) -> Option<String> {
    let linking = match element {
        Element::Label(id) => (!c.links_unmarked(id)).then_some(false),
        _ => None,
    };
    let empty = Default::default();
    let a = match c.annotation(element) {
        Some(a) => a,
        None if linking.is_some() => &empty,
        None => return None,
    };
    let element = match element {
        Element::Label(id) => ElementRef::Label(LabelRef {
            id,
            name: c.label_name(id)?.to_owned(),
        }),
        Element::Relation(id) => ElementRef::Relation(RelationRef {
            id,
            name: c.relation_name(id)?.to_owned(),
        }),
        Element::Property(id) => ElementRef::Property(PropertyRef {
            id,
            name: c.prop_name(id)?.to_owned(),
        }),
    };
    let statement = Compiled::Annotate {
        element,
        description: a.description.clone(),
        aliases: (!a.aliases.is_empty()).then(|| a.aliases.clone()),
        linking,
    };
    Some(statement.to_string())
}
