//! Bulk import of graph dumps (JSON Lines and Neo4j-admin-style CSV, gzip transparently).
//!
//! An import reads and validates everything first, so a bad line aborts it before the database
//! is touched. It then writes most data as sorted SST files ingested into RocksDB and commits
//! the rest in one batch; see `docs/FORMAT.md` ("Bulk import and its visibility rule") for why a
//! killed import is never half visible. Node keys dedupe, so importing a dump twice is a no-op.

pub mod dump;
pub mod read;

use crate::catalog::Catalog;
use crate::cf;
use crate::error::EngineError;
use crate::graph::Graph;
use cairn_storage_format::records::{encode_id_range, encode_u64, encode_vector};
use cairn_storage_format::{
    Degree, EdgeProps, EmbedderDef, ExternalKey, InEdgeKey, LabelId, MetaKey, NodeId, NodeKey,
    NodeRecord, OutEdgeKey, PropIndexKey, PropKeyId, RelId, Value,
};
use dump::{DumpEdge, DumpNode, DumpRecord, NodeRef};
use rocksdb::{IngestExternalFileOptions, SstFileWriter, WriteBatch, WriteOptions};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
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
    #[error("{}: unknown dump format (expected a .jsonl, .ndjson or .csv file, optionally .gz)", path.display())]
    UnknownFormat { path: PathBuf },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("vectors of dimension {found} do not match the database's {expected} (embedder `{embedder}`)")]
    VectorDimension {
        expected: u32,
        found: usize,
        embedder: String,
    },
    #[error(transparent)]
    Engine(#[from] EngineError),
}

impl From<rocksdb::Error> for ImportError {
    fn from(e: rocksdb::Error) -> Self {
        ImportError::Engine(EngineError::Rocks(e))
    }
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
    Write,
    Commit,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Read => "reading",
            Phase::Resolve => "resolving",
            Phase::Write => "writing",
            Phase::Commit => "committing",
        })
    }
}

/// Callback receiving [`Progress`].
pub type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

/// How to import.
#[derive(Clone, Default)]
pub struct ImportOptions {
    /// Bad lines to skip (each reported in the summary) before the import aborts. Default 0:
    /// the first bad line aborts and the database stays unchanged.
    pub max_errors: usize,
    pub progress: Option<ProgressFn>,
}

impl fmt::Debug for ImportOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImportOptions")
            .field("max_errors", &self.max_errors)
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
    pub elapsed: Duration,
}

impl ImportSummary {
    /// Edges per second over the whole import.
    pub fn edges_per_sec(&self) -> f64 {
        let edges = (self.edges_created + self.edges_updated + self.edges_unchanged) as f64;
        edges / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Imports dump files into `graph`. See the module documentation.
pub fn import_files<P: AsRef<Path>>(
    graph: &Graph,
    files: &[P],
    options: &ImportOptions,
) -> Result<ImportSummary, ImportError> {
    let start = Instant::now();
    let mut staging = Staging::default();
    let mut errors: Vec<LineError> = Vec::new();
    let files: Vec<&Path> = files.iter().map(|f| f.as_ref()).collect();
    let total: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    let mut done = 0u64;
    let mut last_report = 0u64;
    for (file_index, path) in files.iter().enumerate() {
        staging.files.push(path.to_path_buf());
        let max = options.max_errors;
        let finished = read::read_file(
            path,
            &mut |record, line| staging.add(record, file_index as u32, line),
            &mut |e| {
                errors.push(e);
                errors.len() <= max
            },
            &mut |bytes| {
                done += bytes;
                if done - last_report > (1 << 20) {
                    last_report = done;
                    report(options, Phase::Read, done, Some(total));
                }
            },
        )?;
        if !finished {
            break;
        }
    }
    if errors.len() > options.max_errors {
        return Err(ImportError::BadLines {
            errors,
            max: options.max_errors,
        });
    }
    let mut summary = apply(graph, staging, errors, options)?;
    summary.elapsed = start.elapsed();
    Ok(summary)
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
        staging.add(r, 0, i as u64 + 1);
    }
    let mut summary = apply(graph, staging, Vec::new(), options)?;
    summary.elapsed = start.elapsed();
    Ok(summary)
}

fn report(options: &ImportOptions, phase: Phase, done: u64, total: Option<u64>) {
    if let Some(p) = &options.progress {
        p(Progress { phase, done, total });
    }
}

/// Everything read, before it is resolved against the database.
#[derive(Default)]
struct Staging {
    files: Vec<PathBuf>,
    nodes: Vec<(DumpNode, u32, u64)>,
    edges: Vec<(DumpEdge, u32, u64)>,
}

impl Staging {
    fn add(&mut self, record: DumpRecord, file: u32, line: u64) {
        match record {
            DumpRecord::Node(n) => self.nodes.push((n, file, line)),
            DumpRecord::Edge(e) => self.edges.push((e, file, line)),
        }
    }

    fn error(&self, file: u32, line: u64, reason: String) -> LineError {
        LineError {
            file: self.files.get(file as usize).cloned().unwrap_or_default(),
            line,
            reason,
        }
    }
}

/// A node of the import after merging duplicate lines.
struct NodeIn {
    label: LabelId,
    key: String,
    props: Vec<(PropKeyId, Value)>,
    description: Option<String>,
    vector: Option<Vec<f32>>,
}

/// An edge of the import, resolved to ids.
#[derive(Clone)]
struct EdgeIn {
    src: NodeId,
    rel: RelId,
    dst: NodeId,
    props: EdgeProps,
}

fn apply(
    graph: &Graph,
    mut staging: Staging,
    mut errors: Vec<LineError>,
    options: &ImportOptions,
) -> Result<ImportSummary, ImportError> {
    let mut state = graph.writer.lock();
    let mut catalog: Catalog = (*graph.catalog()).clone();
    let reader = graph.reader();
    let mut summary = ImportSummary {
        records: (staging.nodes.len() + staging.edges.len()) as u64,
        ..Default::default()
    };
    report(options, Phase::Resolve, 0, Some(summary.records));

    // ---- nodes: intern names, merge duplicates, find the ones that exist ----
    let mut index: HashMap<LabelId, HashMap<String, usize>> = HashMap::new();
    let mut nodes: Vec<NodeIn> = Vec::with_capacity(staging.nodes.len());
    let mut vector_dim: Option<usize> = catalog.embedder().map(|e| e.dim as usize);
    for (n, file, line) in std::mem::take(&mut staging.nodes) {
        let (label, _) = catalog.intern_label(&n.label)?;
        let mut props = Vec::with_capacity(n.props.len());
        for (k, v) in n.props {
            props.push((catalog.intern_prop(&k)?.0, v));
        }
        // A property named twice on one line: the last value wins.
        props.reverse();
        props.sort_by_key(|(k, _)| *k);
        props.dedup_by_key(|(k, _)| *k);
        if let Some(v) = &n.vector {
            match vector_dim {
                Some(d) if d != v.len() => {
                    errors.push(staging.error(
                        file,
                        line,
                        format!("vector has {} dimensions, expected {d}", v.len()),
                    ));
                    continue;
                }
                _ => vector_dim = Some(v.len()),
            }
        }
        let slot = index.entry(label).or_default();
        match slot.get(&n.key) {
            Some(&i) => {
                let node = &mut nodes[i];
                merge_props(&mut node.props, props);
                if n.description.is_some() {
                    node.description = n.description;
                }
                if n.vector.is_some() {
                    node.vector = n.vector;
                }
            }
            None => {
                slot.insert(n.key.clone(), nodes.len());
                nodes.push(NodeIn {
                    label,
                    key: n.key,
                    props,
                    description: n.description,
                    vector: n.vector,
                });
            }
        }
    }

    // Existing ids: only labels the database already had can have existing nodes.
    let base_catalog = graph.catalog();
    let mut ids: Vec<Option<NodeId>> = vec![None; nodes.len()];
    let node_key_cf = graph.cf(cf::NODE_KEY)?;
    for chunk in (0..nodes.len()).collect::<Vec<_>>().chunks(4096) {
        let lookup: Vec<usize> = chunk
            .iter()
            .copied()
            .filter(|&i| base_catalog.label_name(nodes[i].label).is_some())
            .collect();
        if lookup.is_empty() {
            continue;
        }
        let keys: Vec<Vec<u8>> = lookup
            .iter()
            .map(|&i| {
                ExternalKey {
                    label: nodes[i].label,
                    key: nodes[i].key.clone(),
                }
                .encode()
            })
            .collect();
        for (&i, value) in
            lookup
                .iter()
                .zip(graph.db.batched_multi_get_cf(node_key_cf, &keys, false))
        {
            if let Some(bytes) = value? {
                let id = cairn_storage_format::records::decode_u64(&bytes)
                    .map_err(EngineError::corrupt("node key index"))?;
                ids[i] = Some(NodeId(id));
            }
        }
    }
    let first_new = state.next_node_id;
    let mut next = first_new;
    for id in ids.iter_mut().filter(|id| id.is_none()) {
        *id = Some(NodeId(next));
        next += 1;
    }
    let ids: Vec<NodeId> = ids
        .into_iter()
        .map(|id| id.unwrap_or(NodeId(u64::MAX)))
        .collect();
    let is_new = |id: NodeId| id.0 >= first_new;

    // ---- edges: resolve endpoints ----
    let mut by_key: Option<HashMap<&str, Vec<LabelId>>> = None;
    let mut edges: Vec<EdgeIn> = Vec::with_capacity(staging.edges.len());
    let mut edge_labels: HashMap<(RelId, LabelId, LabelId), ()> = HashMap::new();
    for (e, file, line) in &staging.edges {
        let rel = catalog.intern_relation(&e.rel)?.0;
        let mut resolve = |r: &NodeRef| -> Result<Option<(NodeId, LabelId)>, ImportError> {
            let labels: Vec<LabelId> = if r.label.is_empty() {
                let map = by_key.get_or_insert_with(|| {
                    let mut m: HashMap<&str, Vec<LabelId>> = HashMap::new();
                    for n in &nodes {
                        m.entry(n.key.as_str()).or_default().push(n.label);
                    }
                    m
                });
                let mut ls = map.get(r.key.as_str()).cloned().unwrap_or_default();
                for (l, _) in base_catalog.labels() {
                    if !ls.contains(&l) && reader.node_id(l, &r.key)?.is_some() {
                        ls.push(l);
                    }
                }
                ls
            } else {
                catalog.label_id(&r.label).into_iter().collect()
            };
            let mut found = Vec::new();
            for l in labels {
                if let Some(&i) = index.get(&l).and_then(|m| m.get(&r.key)) {
                    found.push((ids[i], l));
                } else if base_catalog.label_name(l).is_some() {
                    if let Some(id) = reader.node_id(l, &r.key)? {
                        found.push((id, l));
                    }
                }
            }
            match found.len() {
                1 => Ok(Some(found[0])),
                0 => Ok(None),
                _ => Ok(Some((NodeId(u64::MAX), LabelId(u32::MAX)))),
            }
        };
        let from = resolve(&e.from)?;
        let to = resolve(&e.to)?;
        let describe = |r: &NodeRef| {
            if r.label.is_empty() {
                format!("`{}`", r.key)
            } else {
                format!("{} `{}`", r.label, r.key)
            }
        };
        let (from, to) = match (from, to) {
            (Some(f), Some(t)) if f.0 .0 != u64::MAX && t.0 .0 != u64::MAX => (f, t),
            (Some(f), _) if f.0 .0 == u64::MAX => {
                errors.push(staging.error(
                    *file,
                    *line,
                    format!(
                        "source id {} matches nodes of several labels; give the id group",
                        describe(&e.from)
                    ),
                ));
                continue;
            }
            (_, Some(t)) if t.0 .0 == u64::MAX => {
                errors.push(staging.error(
                    *file,
                    *line,
                    format!(
                        "target id {} matches nodes of several labels; give the id group",
                        describe(&e.to)
                    ),
                ));
                continue;
            }
            (None, _) => {
                errors.push(staging.error(
                    *file,
                    *line,
                    format!(
                        "edge source {} is not a node of this import or the database",
                        describe(&e.from)
                    ),
                ));
                continue;
            }
            (_, _) => {
                errors.push(staging.error(
                    *file,
                    *line,
                    format!(
                        "edge target {} is not a node of this import or the database",
                        describe(&e.to)
                    ),
                ));
                continue;
            }
        };
        let mut props = Vec::with_capacity(e.props.len());
        for (k, v) in &e.props {
            props.push((catalog.intern_prop(k)?.0, v.clone()));
        }
        props.reverse();
        props.sort_by_key(|(k, _)| *k);
        props.dedup_by_key(|(k, _)| *k);
        edge_labels.insert((rel, from.1, to.1), ());
        edges.push(EdgeIn {
            src: from.0,
            rel,
            dst: to.0,
            props: EdgeProps {
                weight: e.weight,
                props,
            },
        });
    }
    if errors.len() > options.max_errors {
        return Err(ImportError::BadLines {
            errors,
            max: options.max_errors,
        });
    }
    summary.skipped = errors;
    for (rel, s, d) in edge_labels.into_keys() {
        catalog.note_endpoints(rel, s, d);
    }
    if let Some(dim) = vector_dim {
        if catalog.embedder().is_none() && nodes.iter().any(|n| n.vector.is_some()) {
            catalog.set_embedder(Some(EmbedderDef {
                id: "supplied".into(),
                dim: dim as u32,
            }));
        }
    }
    drop(index);

    // Sort and dedupe edges (the last line of a duplicate wins).
    let mut order: Vec<usize> = (0..edges.len()).collect();
    order.sort_by_key(|&i| {
        (
            edges[i].src,
            edges[i].rel,
            edges[i].dst,
            std::cmp::Reverse(i),
        )
    });
    order.dedup_by_key(|i| (edges[*i].src, edges[*i].rel, edges[*i].dst));
    let edges: Vec<EdgeIn> = order.into_iter().map(|i| edges[i].clone()).collect();

    // ---- plan the writes ----
    report(
        options,
        Phase::Write,
        0,
        Some((nodes.len() + edges.len()) as u64),
    );
    let mut batch = WriteBatch::default();
    let mut new_degree: Vec<Degree> = vec![Degree::default(); (next - first_new) as usize];
    let mut old_degree: HashMap<NodeId, Degree> = HashMap::new();
    let mut bump = |id: NodeId, d: Degree| {
        if is_new(id) {
            let slot = &mut new_degree[(id.0 - first_new) as usize];
            *slot = slot.plus(d);
        } else {
            let slot = old_degree.entry(id).or_default();
            *slot = slot.plus(d);
        }
    };
    let out_cf = graph.cf(cf::OUT)?;
    let in_cf = graph.cf(cf::IN)?;
    let mut sst_out: Vec<usize> = Vec::new();
    let mut sst_in: Vec<usize> = Vec::new();
    for (i, e) in edges.iter().enumerate() {
        let (src_new, dst_new) = (is_new(e.src), is_new(e.dst));
        if !src_new && !dst_new {
            match reader.edge(e.src, e.rel, e.dst)? {
                Some(old) if old == e.props => {
                    summary.edges_unchanged += 1;
                    continue;
                }
                Some(_) => summary.edges_updated += 1,
                None => {
                    summary.edges_created += 1;
                    bump(e.src, Degree { out: 1, inc: 0 });
                    bump(e.dst, Degree { out: 0, inc: 1 });
                }
            }
        } else {
            summary.edges_created += 1;
            bump(e.src, Degree { out: 1, inc: 0 });
            bump(e.dst, Degree { out: 0, inc: 1 });
        }
        let key = OutEdgeKey {
            src: e.src,
            rel: e.rel,
            dst: e.dst,
        };
        if src_new {
            sst_out.push(i);
        } else {
            batch.put_cf(out_cf, key.encode(), e.props.encode());
        }
        if dst_new {
            sst_in.push(i);
        } else {
            batch.put_cf(in_cf, key.reversed().encode(), e.props.encode());
        }
    }
    let degree_cf = graph.cf(cf::DEGREE)?;
    let mut old_degree: Vec<(NodeId, Degree)> = old_degree.into_iter().collect();
    old_degree.sort_by_key(|(id, _)| *id);
    for (id, d) in old_degree {
        batch.merge_cf(degree_cf, NodeKey(id).encode(), d.encode());
    }

    // Nodes: new ones go to files (records, vectors) and the batch (keys, index entries);
    // existing ones are updated in the batch like a Writer would.
    let node_cf = graph.cf(cf::NODE)?;
    let prop_cf = graph.cf(cf::PROP)?;
    let vector_cf = graph.cf(cf::VECTOR)?;
    let indexes = catalog.indexes().to_vec();
    let mut touched: Vec<NodeId> = Vec::new();
    let mut new_nodes: Vec<(NodeId, NodeRecord, Option<Vec<f32>>)> =
        Vec::with_capacity(new_degree.len());
    for (n, id) in nodes.into_iter().zip(ids.iter().copied()) {
        if is_new(id) {
            let rec = NodeRecord {
                label: n.label,
                key: n.key,
                props: n.props,
                description: n.description,
            };
            batch.put_cf(
                node_key_cf,
                ExternalKey {
                    label: rec.label,
                    key: rec.key.clone(),
                }
                .encode(),
                encode_u64(id.0),
            );
            for ix in indexes.iter().filter(|ix| ix.label == rec.label) {
                if let Some(v) = rec.prop(ix.prop).filter(|v| v.is_indexable()) {
                    let k = PropIndexKey {
                        label: ix.label,
                        prop: ix.prop,
                        value: v.clone(),
                        node: id,
                    };
                    batch.put_cf(
                        prop_cf,
                        k.encode()
                            .map_err(EngineError::corrupt("property index key"))?,
                        [],
                    );
                }
            }
            summary.nodes_created += 1;
            new_nodes.push((id, rec, n.vector));
            continue;
        }
        let Some(old) = reader.node(id)? else {
            continue;
        };
        let mut rec = (*old).clone();
        merge_props(&mut rec.props, n.props);
        if n.description.is_some() {
            rec.description = n.description;
        }
        if let Some(v) = &n.vector {
            batch.put_cf(vector_cf, NodeKey(id).encode(), encode_vector(v));
        }
        if rec == *old {
            if n.vector.is_none() {
                summary.nodes_unchanged += 1;
            } else {
                summary.nodes_updated += 1;
            }
            continue;
        }
        summary.nodes_updated += 1;
        for ix in indexes.iter().filter(|ix| ix.label == rec.label) {
            let (ov, nv) = (
                old.prop(ix.prop).filter(|v| v.is_indexable()),
                rec.prop(ix.prop).filter(|v| v.is_indexable()),
            );
            if ov == nv {
                continue;
            }
            if let Some(v) = ov {
                let k = PropIndexKey {
                    label: ix.label,
                    prop: ix.prop,
                    value: v.clone(),
                    node: id,
                };
                batch.delete_cf(
                    prop_cf,
                    k.encode()
                        .map_err(EngineError::corrupt("property index key"))?,
                );
            }
            if let Some(v) = nv {
                let k = PropIndexKey {
                    label: ix.label,
                    prop: ix.prop,
                    value: v.clone(),
                    node: id,
                };
                batch.put_cf(
                    prop_cf,
                    k.encode()
                        .map_err(EngineError::corrupt("property index key"))?,
                    [],
                );
            }
        }
        batch.put_cf(node_cf, NodeKey(id).encode(), rec.encode());
        touched.push(id);
    }

    // ---- write and ingest the files ----
    let meta_cf = graph.cf(cf::META)?;
    let has_files = !new_nodes.is_empty();
    let tmp = graph.path.join("import-tmp");
    if has_files {
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).map_err(|source| ImportError::Io {
            path: tmp.clone(),
            source,
        })?;
        let files = write_ssts(
            graph,
            &tmp,
            &edges,
            &sst_out,
            &sst_in,
            &new_nodes,
            &new_degree,
        )?;
        report(options, Phase::Commit, 0, None);
        // The marker goes first and durably: if we die from here on, open() rolls back.
        let mut sync = WriteOptions::default();
        sync.set_sync(true);
        graph.db.put_cf_opt(
            meta_cf,
            MetaKey::ImportPending.encode(),
            encode_id_range(first_new, next),
            &sync,
        )?;
        let mut ingest = IngestExternalFileOptions::default();
        ingest.set_move_files(true);
        for (cf_name, path) in files {
            graph
                .db
                .ingest_external_file_cf_opts(graph.cf(cf_name)?, &ingest, vec![path])?;
        }
        test_hook_pause();
    }
    report(options, Phase::Commit, 0, None);
    batch.put_cf(
        meta_cf,
        MetaKey::Catalog.encode(),
        catalog.record().encode(),
    );
    batch.put_cf(meta_cf, MetaKey::NextNodeId.encode(), encode_u64(next));
    batch.delete_cf(meta_cf, MetaKey::ImportPending.encode());
    let mut opts = WriteOptions::default();
    opts.set_sync(graph.options.sync_writes || has_files);
    graph.cache.begin_commit();
    let result = graph.db.write_opt(batch, &opts);
    graph.cache.end_commit(touched);
    result?;
    state.next_node_id = next;
    *graph.catalog.write() = Arc::new(catalog);
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(summary)
}

/// A pause between ingesting files and committing, so that the kill test can hit that window.
/// Only active when `CAIRN_TEST_IMPORT_PAUSE_MS` is set.
fn test_hook_pause() {
    if let Some(ms) = std::env::var("CAIRN_TEST_IMPORT_PAUSE_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        eprintln!("import: files ingested, pausing {ms} ms before commit");
        std::thread::sleep(Duration::from_millis(ms));
    }
}

fn merge_props(into: &mut Vec<(PropKeyId, Value)>, from: Vec<(PropKeyId, Value)>) {
    for (k, v) in from {
        match into.binary_search_by_key(&k, |(pk, _)| *pk) {
            Ok(i) => into[i].1 = v,
            Err(i) => into.insert(i, (k, v)),
        }
    }
}

/// Writes one SST file per column family that receives new keys; in parallel, since each file
/// is independent. Returns (column family, file) pairs in ingestion order.
fn write_ssts(
    graph: &Graph,
    dir: &Path,
    edges: &[EdgeIn],
    sst_out: &[usize],
    sst_in: &[usize],
    new_nodes: &[(NodeId, NodeRecord, Option<Vec<f32>>)],
    new_degree: &[Degree],
) -> Result<Vec<(&'static str, PathBuf)>, ImportError> {
    let first_new = new_nodes.first().map(|n| n.0 .0).unwrap_or(0);
    let write = |cf_name: &'static str,
                 fill: &dyn Fn(&mut SstFileWriter<'_>) -> Result<u64, rocksdb::Error>|
     -> Result<Option<(&'static str, PathBuf)>, ImportError> {
        let opts = cf::options(cf_name, &graph.block_cache);
        let mut w = SstFileWriter::create(&opts);
        let path = dir.join(format!("{cf_name}.sst"));
        w.open(&path)?;
        let n = fill(&mut w)?;
        if n == 0 {
            return Ok(None);
        }
        w.finish()?;
        Ok(Some((cf_name, path)))
    };
    let results: Vec<Result<Option<(&'static str, PathBuf)>, ImportError>> =
        std::thread::scope(|s| {
            let nodes = s.spawn(|| {
                write(cf::NODE, &|w| {
                    for (id, rec, _) in new_nodes {
                        w.put(NodeKey(*id).encode(), rec.encode())?;
                    }
                    Ok(new_nodes.len() as u64)
                })
            });
            let degrees = s.spawn(|| {
                write(cf::DEGREE, &|w| {
                    let mut n = 0;
                    for (i, d) in new_degree.iter().enumerate() {
                        if *d != Degree::default() {
                            w.put(NodeKey(NodeId(first_new + i as u64)).encode(), d.encode())?;
                            n += 1;
                        }
                    }
                    Ok(n)
                })
            });
            let vectors = s.spawn(|| {
                write(cf::VECTOR, &|w| {
                    let mut n = 0;
                    for (id, _, v) in new_nodes {
                        if let Some(v) = v {
                            w.put(NodeKey(*id).encode(), encode_vector(v))?;
                            n += 1;
                        }
                    }
                    Ok(n)
                })
            });
            let outs = s.spawn(|| {
                write(cf::OUT, &|w| {
                    for &i in sst_out {
                        let e = &edges[i];
                        w.put(
                            OutEdgeKey {
                                src: e.src,
                                rel: e.rel,
                                dst: e.dst,
                            }
                            .encode(),
                            e.props.encode(),
                        )?;
                    }
                    Ok(sst_out.len() as u64)
                })
            });
            let mut in_order: Vec<usize> = sst_in.to_vec();
            in_order.sort_unstable_by_key(|&i| (edges[i].dst, edges[i].rel, edges[i].src));
            let ins = write(cf::IN, &|w| {
                for &i in &in_order {
                    let e = &edges[i];
                    w.put(
                        InEdgeKey {
                            dst: e.dst,
                            rel: e.rel,
                            src: e.src,
                        }
                        .encode(),
                        e.props.encode(),
                    )?;
                }
                Ok(in_order.len() as u64)
            });
            let join = |h: std::thread::ScopedJoinHandle<
                '_,
                Result<Option<(&'static str, PathBuf)>, ImportError>,
            >| {
                h.join().unwrap_or_else(|_| {
                    Err(ImportError::Engine(EngineError::Invalid(
                        "SST writer thread panicked".into(),
                    )))
                })
            };
            vec![join(nodes), join(degrees), join(vectors), join(outs), ins]
        });
    let mut files = Vec::new();
    for r in results {
        if let Some(f) = r? {
            files.push(f);
        }
    }
    Ok(files)
}
