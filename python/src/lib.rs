//! `cairn._native`: the Cairn library for Python, one class per handle. Every call that does
//! work in Rust releases the GIL (`Python::detach`), so threads and asyncio executors run
//! queries at once. Results leave as Python built-ins; `cairn/__init__.py` gives them their
//! classes, `to_pandas()` and `to_networkx()`.

mod convert;
mod error;
mod tx;

use cairn::agent::{ChatConfig, LlmAgents, LlmBackend, OpenAiChat};
use cairn::query::Compiled;
use cairn::{
    Cairn, CairnError, CairnOptions, CancelToken, DumpRecord, EngineError, GraphOptions,
    ImportEmbedder, ImportOptions, NodeId, OpenMode, Output, TableMode, TransactionOptions,
};
use error::to_pyerr;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use tx::{Holders, TxHandle};

/// An open database (`cairn.Database` wraps it).
#[pyclass(module = "cairn._native", frozen)]
#[derive(Debug)]
struct Database {
    /// `None` once closed; each call clones the `Arc`, so a close waits for no call and the
    /// store closes when the last one returns.
    inner: RwLock<Option<Arc<Cairn>>>,
    path: PathBuf,
    read_only: bool,
    holders: Holders,
}

/// Runs `f` without the GIL and turns its error into the package's exception.
fn detached<T: Send>(
    py: Python<'_>,
    statement: Option<&str>,
    f: impl FnOnce() -> Result<T, CairnError> + Send,
) -> PyResult<T> {
    py.detach(f).map_err(|e| to_pyerr(py, e, statement))
}

fn closed_error(py: Python<'_>, what: &str) -> PyErr {
    error::Raised::new("ClosedError", format!("the {what} is closed")).into_pyerr(py)
}

impl Database {
    fn db(&self, py: Python<'_>) -> PyResult<Arc<Cairn>> {
        match self.inner.read() {
            Ok(guard) => guard.clone().ok_or_else(|| closed_error(py, "database")),
            Err(_) => Err(closed_error(py, "database")),
        }
    }

    /// Refuses a write on a thread whose own transaction holds the writer (it would wait for
    /// itself for ever): the store's rule for one thread, kept across the worker thread.
    fn writable_here(&self) -> Result<(), CairnError> {
        let me = std::thread::current().id();
        let held = self
            .holders
            .lock()
            .map(|h| h.contains(&me))
            .unwrap_or(false);
        if held {
            return Err(CairnError::Engine(EngineError::WriterBusy {
                path: self.path.clone(),
                reason: "this thread has a transaction open; write through it, or commit or \
                         roll it back first"
                    .into(),
            }));
        }
        Ok(())
    }
}

/// Whether a compiled statement writes (and so needs the writer).
fn writes(c: &Compiled) -> bool {
    !matches!(
        c,
        Compiled::Explore(_)
            | Compiled::Explain(_)
            | Compiled::Ask { .. }
            | Compiled::Show(_)
            | Compiled::Describe(_)
    )
}

fn embedder(name: &str) -> PyResult<ImportEmbedder> {
    match name {
        "database" => Ok(ImportEmbedder::Database),
        "hash" => Ok(ImportEmbedder::Use(
            Arc::new(cairn::HashEmbedder::default()),
        )),
        "none" => Ok(ImportEmbedder::None),
        other => Err(PyValueError::new_err(format!(
            "embedder must be \"database\", \"hash\" or \"none\", not {other:?}"
        ))),
    }
}

/// The chat backend and agents of an `llm=` setting (a dict from `cairn.LLM`).
fn llm_backend(settings: &Bound<'_, PyDict>) -> PyResult<(OpenAiChat, LlmAgents)> {
    let get = |k: &str| settings.get_item(k);
    let mut agents = LlmAgents::default();
    match get("agents")? {
        None => agents = LlmAgents::ALL,
        Some(a) if a.is_none() => agents = LlmAgents::ALL,
        Some(a) => {
            for name in a.try_iter()? {
                match name?.extract::<String>()?.as_str() {
                    "planner" => agents.planner = true,
                    "judge" => agents.judge = true,
                    "answerer" => agents.answerer = true,
                    other => {
                        return Err(PyValueError::new_err(format!(
                            "llm agents are \"planner\", \"judge\" and \"answerer\", not {other:?}"
                        )))
                    }
                }
            }
        }
    }
    let base_url: Option<String> = get("base_url")?.and_then(|v| v.extract().ok());
    let config = match base_url {
        // CAIRN_LLM_BASE_URL, CAIRN_LLM_MODEL, … as the CLI reads them
        None => ChatConfig::from_env().map_err(|e| PyValueError::new_err(e.to_string()))?,
        Some(url) => {
            let model: String = get("model")?
                .ok_or_else(|| PyValueError::new_err("llm: a model name is needed"))?
                .extract()?;
            let mut config = ChatConfig::new(url, model);
            if let Some(key) = get("api_key")?.filter(|v| !v.is_none()) {
                config.endpoint.api_key = Some(key.extract()?);
            }
            if let Some(t) = get("timeout")?.filter(|v| !v.is_none()) {
                let secs: f64 = t.extract()?;
                config.endpoint.timeout = Duration::try_from_secs_f64(secs)
                    .map_err(|_| PyValueError::new_err("llm timeout must be a positive number"))?;
            }
            if let Some(r) = get("retries")?.filter(|v| !v.is_none()) {
                config.endpoint.retries = r.extract()?;
            }
            config
        }
    };
    let chat = OpenAiChat::new(config).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok((chat, agents))
}

/// Node ids from a Python list of ints.
fn ids(list: &Bound<'_, PyAny>) -> PyResult<Vec<NodeId>> {
    let mut out = Vec::new();
    for item in list.try_iter()? {
        out.push(NodeId(item?.extract::<u64>().map_err(|_| {
            PyTypeError::new_err("node ids are non-negative int")
        })?));
    }
    Ok(out)
}

/// Records from JSON lines (the dump's JSON Lines form, docs/IMPORT.md), one error per bad
/// record naming its position.
fn records(lines: &[String]) -> Result<Vec<DumpRecord>, String> {
    lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_str::<DumpRecord>(line).map_err(|e| format!("record {}: {e}", i + 1))
        })
        .collect()
}

#[pymethods]
impl Database {
    #[new]
    #[pyo3(signature = (path, read_only = false, create = true))]
    fn new(py: Python<'_>, path: PathBuf, read_only: bool, create: bool) -> PyResult<Self> {
        let options = CairnOptions {
            path: path.clone(),
            graph: GraphOptions {
                create_if_missing: create && !read_only,
                mode: if read_only {
                    OpenMode::ReadOnly
                } else {
                    OpenMode::ReadWrite
                },
                ..GraphOptions::default()
            },
            table: TableMode::Background,
        };
        let cairn = detached(py, None, || Cairn::open_with(options))?;
        Ok(Database {
            inner: RwLock::new(Some(Arc::new(cairn))),
            path,
            read_only,
            holders: Arc::default(),
        })
    }

    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    #[getter]
    fn read_only(&self) -> bool {
        self.read_only
    }

    #[getter]
    fn closed(&self) -> bool {
        self.inner.read().map(|g| g.is_none()).unwrap_or(true)
    }

    fn close(&self, py: Python<'_>) {
        let handle = self.inner.write().ok().and_then(|mut g| g.take());
        // the store (and its flush) closes here unless a call still runs
        py.detach(move || drop(handle));
    }

    /// Builds the in-memory node table and loads the vector index now; returns the seconds
    /// it took.
    fn warm(&self, py: Python<'_>) -> PyResult<f64> {
        let db = self.db(py)?;
        detached(py, None, || {
            let start = std::time::Instant::now();
            db.node_table()?;
            db.refresh_index()?;
            Ok(start.elapsed().as_secs_f64())
        })
    }

    fn catch_up(&self, py: Python<'_>) -> PyResult<bool> {
        let db = self.db(py)?;
        detached(py, None, || db.catch_up())
    }

    #[pyo3(signature = (paths, max_errors = 0, embedder = "database"))]
    fn import_files<'py>(
        &self,
        py: Python<'py>,
        paths: Vec<PathBuf>,
        max_errors: usize,
        embedder: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let db = self.db(py)?;
        let options = ImportOptions {
            max_errors,
            embedder: self::embedder(embedder)?,
            ..ImportOptions::default()
        };
        let summary = detached(py, None, || {
            self.writable_here()?;
            let files = expand(&paths)?;
            db.import(&files, options)
        })?;
        convert::import_summary(py, &summary)
    }

    /// `lines`: one JSON object per record, as in a JSON Lines dump.
    #[pyo3(signature = (lines, max_errors = 0, embedder = "database"))]
    fn import_records<'py>(
        &self,
        py: Python<'py>,
        lines: Vec<String>,
        max_errors: usize,
        embedder: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let db = self.db(py)?;
        let options = ImportOptions {
            max_errors,
            embedder: self::embedder(embedder)?,
            ..ImportOptions::default()
        };
        let parsed = py.detach(|| records(&lines));
        let parsed = parsed.map_err(|e| error::Raised::new("ImportDataError", e).into_pyerr(py))?;
        let summary = detached(py, None, || {
            self.writable_here()?;
            db.import_records(parsed, options)
        })?;
        convert::import_summary(py, &summary)
    }

    #[pyo3(signature = (statement, trace = false))]
    fn explore<'py>(
        &self,
        py: Python<'py>,
        statement: &str,
        trace: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let db = self.db(py)?;
        let e = detached(py, Some(statement), || {
            match db.execute_with(statement, &CancelToken::default(), trace)? {
                Output::Exploration(e) => Ok(e),
                _ => Err(CairnError::Unsupported(
                    "expected an EXPLORE statement (execute() runs the others)".into(),
                )),
            }
        })?;
        convert::exploration(py, &e)
    }

    /// Any statement: ("exploration", tuple) | ("answer", dict) | ("text", str).
    fn execute<'py>(&self, py: Python<'py>, statement: &str) -> PyResult<Bound<'py, PyTuple>> {
        let db = self.db(py)?;
        let out = detached(py, Some(statement), || {
            if self.writable_here().is_err() && writes(&db.compile(statement)?) {
                self.writable_here()?;
            }
            db.execute(statement, &CancelToken::default())
        })?;
        output(py, out)
    }

    fn explain(&self, py: Python<'_>, statement: &str) -> PyResult<String> {
        let db = self.db(py)?;
        detached(py, Some(statement), || db.explain(statement))
    }

    #[pyo3(signature = (question, llm = None))]
    fn ask<'py>(
        &self,
        py: Python<'py>,
        question: &str,
        llm: Option<Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let db = self.db(py)?;
        let backend = llm.as_ref().map(llm_backend).transpose()?;
        let outcome = detached(py, None, || {
            let llm = backend
                .as_ref()
                .map(|(chat, agents)| (chat as &dyn LlmBackend, *agents));
            db.ask(question, &CancelToken::default(), llm)
        })?;
        convert::answer(py, &outcome)
    }

    fn feedback(&self, py: Python<'_>, answer_id: u64, correct: bool) -> PyResult<()> {
        let db = self.db(py)?;
        detached(py, None, || {
            self.writable_here()?;
            db.feedback(answer_id, correct)
        })
    }

    /// [(node dict, score)] best first: where a SEARCH entry starts.
    #[pyo3(signature = (text, label = None, k = 10))]
    fn search<'py>(
        &self,
        py: Python<'py>,
        text: &str,
        label: Option<&str>,
        k: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let db = self.db(py)?;
        let found = detached(py, None, || {
            views_with_scores(&db, db.search(text, label, k)?).map(Some)
        })?;
        hits_to_py(py, found)
    }

    /// Like `search`, for a vector computed elsewhere (a database of supplied vectors).
    #[pyo3(signature = (vector, label = None, k = 10))]
    fn vector_search<'py>(
        &self,
        py: Python<'py>,
        vector: Vec<f32>,
        label: Option<&str>,
        k: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let db = self.db(py)?;
        let found = detached(py, None, || match db.vector_search(&vector, label, k)? {
            None => Ok(None),
            Some(hits) => views_with_scores(&db, hits).map(Some),
        })?;
        hits_to_py(py, found)
    }

    /// Nodes of `label` whose property equals `value` (an index lookup when one is declared,
    /// else a scan of the label's nodes).
    fn find<'py>(
        &self,
        py: Python<'py>,
        label: &str,
        property: &str,
        value: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let db = self.db(py)?;
        let value = convert::to_value(&value, property)?;
        let views = detached(py, None, || {
            use cairn::GraphRead;
            let ids = db.graph().find_eq(label, property, &value)?;
            Ok(db
                .node_views(&ids)?
                .into_iter()
                .flatten()
                .collect::<Vec<_>>())
        })?;
        let list = PyList::empty(py);
        for v in &views {
            list.append(convert::node(py, v)?)?;
        }
        Ok(list.into_any())
    }

    fn node<'py>(&self, py: Python<'py>, id: u64) -> PyResult<Bound<'py, PyAny>> {
        let db = self.db(py)?;
        let view = detached(py, None, || db.node_view(NodeId(id)))?;
        convert::optional_node(py, view.as_ref())
    }

    fn node_by_key<'py>(
        &self,
        py: Python<'py>,
        label: &str,
        key: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let db = self.db(py)?;
        let view = detached(py, None, || db.node_view_by_key(label, key))?;
        convert::optional_node(py, view.as_ref())
    }

    fn nodes<'py>(&self, py: Python<'py>, ids: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let db = self.db(py)?;
        let ids = self::ids(&ids)?;
        let views = detached(py, None, || db.node_views(&ids))?;
        let list = PyList::empty(py);
        for v in &views {
            list.append(convert::optional_node(py, v.as_ref())?)?;
        }
        Ok(list.into_any())
    }

    /// ([(relation, direction, id, label, key, name)], total before the limit,
    /// [(relation, direction, edges)] over all of them).
    #[pyo3(signature = (id, direction = "both", relations = None, limit = 100))]
    fn neighbors<'py>(
        &self,
        py: Python<'py>,
        id: u64,
        direction: &str,
        relations: Option<Vec<String>>,
        limit: usize,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let db = self.db(py)?;
        let direction = convert::direction(direction)?;
        let relations = relations.unwrap_or_default();
        let found = detached(py, None, || {
            let rels: Vec<&str> = relations.iter().map(String::as_str).collect();
            db.neighbor_views(NodeId(id), direction, &rels, limit)
        })?;
        let list = PyList::empty(py);
        for n in &found.items {
            list.append(convert::neighbor(py, n)?)?;
        }
        let by_relation: Vec<(&str, &str, usize)> = found
            .by_relation
            .iter()
            .map(|(r, d, n)| (r.as_str(), convert::direction_name(*d), *n))
            .collect();
        (list, found.total, by_relation).into_pyobject(py)
    }

    fn schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let db = self.db(py)?;
        let schema = detached(py, None, || db.schema())?;
        convert::schema(py, &schema)
    }

    /// Starts a transaction; `wait`: seconds to wait for another thread's writer.
    #[pyo3(signature = (sync = None, wait = None))]
    fn begin(
        &self,
        py: Python<'_>,
        sync: Option<bool>,
        wait: Option<f64>,
    ) -> PyResult<Transaction> {
        let db = self.db(py)?;
        let wait = wait
            .map(|w| {
                Duration::try_from_secs_f64(w)
                    .map_err(|_| PyValueError::new_err("wait must be a number of seconds >= 0"))
            })
            .transpose()?;
        let holders = Arc::clone(&self.holders);
        let handle = detached(py, None, || {
            self.writable_here()?;
            TxHandle::begin(db, TransactionOptions { sync, wait }, holders)
        })?;
        Ok(Transaction {
            handle: Mutex::new(Some(handle)),
        })
    }
}

/// The nodes of search hits, with their scores, best first.
fn views_with_scores(
    db: &Cairn,
    hits: Vec<(NodeId, f32)>,
) -> Result<Vec<(cairn::NodeView, f32)>, CairnError> {
    let ids: Vec<NodeId> = hits.iter().map(|(id, _)| *id).collect();
    Ok(db
        .node_views(&ids)?
        .into_iter()
        .zip(hits)
        .filter_map(|(v, (_, score))| v.map(|v| (v, score)))
        .collect())
}

/// Hits as [(node dict, score)], or None (no usable index).
fn hits_to_py<'py>(
    py: Python<'py>,
    hits: Option<Vec<(cairn::NodeView, f32)>>,
) -> PyResult<Bound<'py, PyAny>> {
    let Some(hits) = hits else {
        return Ok(py.None().into_bound(py));
    };
    let list = PyList::empty(py);
    for (view, score) in &hits {
        list.append((convert::node(py, view)?, *score))?;
    }
    Ok(list.into_any())
}

/// Directories expand to the dump files they hold, sorted by name (as `cairn import` does).
fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, CairnError> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut inside: Vec<PathBuf> = std::fs::read_dir(p)
                .and_then(|d| d.map(|e| e.map(|e| e.path())).collect())
                .map_err(|e| CairnError::Unsupported(format!("{}: {e}", p.display())))?;
            inside.retain(|f| f.is_file());
            inside.sort();
            files.extend(inside);
        } else {
            files.push(p.clone());
        }
    }
    Ok(files)
}

/// A statement's output as (kind, payload).
fn output<'py>(py: Python<'py>, out: Output) -> PyResult<Bound<'py, PyTuple>> {
    match out {
        Output::Exploration(e) => ("exploration", convert::exploration(py, &e)?).into_pyobject(py),
        Output::Answer(a) => ("answer", convert::answer(py, &a)?).into_pyobject(py),
        // SHOW, DESCRIBE, EXPLAIN and data statements: the text the REPL prints
        other => ("text", other.text().unwrap_or_default()).into_pyobject(py),
    }
}

/// An open transaction (`cairn.Transaction` wraps it).
#[pyclass(module = "cairn._native", frozen)]
#[derive(Debug)]
struct Transaction {
    handle: Mutex<Option<TxHandle>>,
}

impl Transaction {
    /// Runs `f` on the open transaction without the GIL.
    fn call<R: Send + 'static>(
        &self,
        py: Python<'_>,
        statement: Option<&str>,
        f: impl FnOnce(&mut cairn::Transaction<'_>) -> Result<R, CairnError> + Send + 'static,
    ) -> PyResult<R> {
        let guard = self
            .handle
            .lock()
            .map_err(|_| closed_error(py, "transaction"))?;
        let Some(handle) = guard.as_ref() else {
            return Err(closed_error(py, "transaction"));
        };
        py.detach(|| handle.call(f))
            .map_err(|e| to_pyerr(py, e, statement))
    }

    fn finish(&self, py: Python<'_>, commit: bool) -> PyResult<()> {
        let handle = self
            .handle
            .lock()
            .map_err(|_| closed_error(py, "transaction"))?
            .take();
        let Some(handle) = handle else {
            return Err(closed_error(py, "transaction"));
        };
        detached(py, None, || handle.finish(commit))
    }
}

/// A node reference from Python: an id, or a (label, key) pair.
enum NodeArg {
    Id(NodeId),
    Key(String, String),
}

impl NodeArg {
    fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<NodeArg> {
        if let Ok(id) = obj.extract::<u64>() {
            return Ok(NodeArg::Id(NodeId(id)));
        }
        if let Ok((label, key)) = obj.extract::<(String, String)>() {
            return Ok(NodeArg::Key(label, key));
        }
        Err(PyTypeError::new_err(
            "a node is its id (int) or a (label, key) tuple",
        ))
    }

    fn resolve(&self, tx: &cairn::Transaction<'_>) -> Result<NodeId, CairnError> {
        match self {
            NodeArg::Id(id) => {
                if tx.contains(*id)? {
                    Ok(*id)
                } else {
                    Err(CairnError::NoSuchNode(format!("#{}", id.0)))
                }
            }
            NodeArg::Key(label, key) => tx
                .lookup(label, key)?
                .ok_or_else(|| CairnError::NoSuchNode(format!("{label} {key:?}"))),
        }
    }
}

#[pymethods]
impl Transaction {
    #[pyo3(signature = (label, key, properties = None, description = None))]
    fn upsert_node(
        &self,
        py: Python<'_>,
        label: String,
        key: String,
        properties: Option<Bound<'_, PyAny>>,
        description: Option<String>,
    ) -> PyResult<u64> {
        let props = convert::to_props(properties.as_ref())?;
        self.call(py, None, move |tx| {
            let id = tx.upsert_node(&label, &key, props, description.as_deref())?;
            Ok(id.0)
        })
    }

    #[pyo3(signature = (source, relation, target, properties = None, weight = None))]
    fn add_edge(
        &self,
        py: Python<'_>,
        source: Bound<'_, PyAny>,
        relation: String,
        target: Bound<'_, PyAny>,
        properties: Option<Bound<'_, PyAny>>,
        weight: Option<f32>,
    ) -> PyResult<bool> {
        let (src, dst) = (NodeArg::from_py(&source)?, NodeArg::from_py(&target)?);
        let props = convert::to_props(properties.as_ref())?;
        self.call(py, None, move |tx| {
            let (s, d) = (src.resolve(tx)?, dst.resolve(tx)?);
            let mut edge = cairn::EdgeProps {
                weight,
                ..Default::default()
            };
            for (name, value) in props {
                let key = tx.prop_key(&name)?;
                edge.props.push((key, value));
            }
            edge.props.sort_by_key(|(k, _)| *k);
            Ok(tx.add_edge(s, &relation, d, edge)?)
        })
    }

    fn remove_node(&self, py: Python<'_>, node: Bound<'_, PyAny>) -> PyResult<bool> {
        let node = NodeArg::from_py(&node)?;
        self.call(py, None, move |tx| match node.resolve(tx) {
            Ok(id) => Ok(tx.remove_node(id)?),
            Err(CairnError::NoSuchNode(_)) => Ok(false),
            Err(e) => Err(e),
        })
    }

    fn remove_edge(
        &self,
        py: Python<'_>,
        source: Bound<'_, PyAny>,
        relation: String,
        target: Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let (src, dst) = (NodeArg::from_py(&source)?, NodeArg::from_py(&target)?);
        self.call(py, None, move |tx| {
            let (s, d) = (src.resolve(tx)?, dst.resolve(tx)?);
            Ok(tx.remove_edge(s, &relation, d)?)
        })
    }

    fn lookup(&self, py: Python<'_>, label: String, key: String) -> PyResult<Option<u64>> {
        self.call(py, None, move |tx| {
            Ok(tx.lookup(&label, &key)?.map(|id| id.0))
        })
    }

    /// A data statement or EXPLORE inside the transaction: ("text", str) | ("exploration", tuple).
    fn execute<'py>(&self, py: Python<'py>, statement: String) -> PyResult<Bound<'py, PyTuple>> {
        let text = statement.clone();
        let out = self.call(py, Some(&text), move |tx| tx.execute(&statement))?;
        output(py, out)
    }

    fn commit(&self, py: Python<'_>) -> PyResult<()> {
        self.finish(py, true)
    }

    fn rollback(&self, py: Python<'_>) -> PyResult<()> {
        self.finish(py, false)
    }

    #[getter]
    fn closed(&self) -> bool {
        self.handle.lock().map(|h| h.is_none()).unwrap_or(true)
    }
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Database>()?;
    m.add_class::<Transaction>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
