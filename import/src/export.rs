//! Writing a graph out as a dump that [`crate::import_files`] reads back into the same graph:
//! nodes (label, key, properties, description, vector), edges (properties, weight), the
//! schema records of the elements they use (descriptions, aliases, linking) and an embedder
//! record naming what made the vectors (docs/IMPORT.md, "Export").
//!
//! Both formats stream: the nodes are read a page at a time in id order from one snapshot, the
//! edges page by page of their source nodes, so memory holds a page, not the graph. JSON Lines
//! holds every graph exactly (each line is a [`DumpRecord`]'s serde form, as the reader reads
//! it). CSV (Neo4j admin import style, one file per label and per relation and endpoint labels)
//! cannot hold some values — an empty string, `null`, an empty or nested or mixed list, a list
//! string with `;` — and is refused for a graph that has one, naming it, before any file is
//! written.

use crate::dump::{
    DumpEdge, DumpEmbedder, DumpNode, DumpRecord, DumpSchema, NodeRef, SchemaKind, NO_EMBEDDER,
};
use cairn_storage_format::{LabelId, NodeId, NodeRecord, PropKeyId, RelId, Value};
use cairn_store::{Catalog, Direction, Element, EngineError, GraphRead};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use thiserror::Error;

/// Nodes read (and held) at a time.
const PAGE: usize = 4096;

/// CSV writes one file per label and per (relation, source label, target label); past this many
/// the export is refused (JSON Lines has no such limit): each is an open file while writing.
pub const MAX_CSV_FILES: usize = 1000;

/// The file a JSON Lines export writes in its directory.
pub const JSONL_FILE: &str = "graph.jsonl";
/// The JSON Lines file of a CSV export that holds the embedder and schema records.
pub const CSV_SCHEMA_FILE: &str = "schema.jsonl";

/// The dump format of an export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    JsonLines,
    Csv,
}

/// What to export.
#[derive(Clone, Debug)]
pub enum Selection {
    /// Every node and edge.
    All,
    /// These nodes and these edges (`(from, relation, to)` as stored), for a query's result.
    /// An edge's endpoints are exported with it.
    Part {
        nodes: Vec<NodeId>,
        edges: Vec<(NodeId, RelId, NodeId)>,
    },
}

/// What an export wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportSummary {
    pub nodes: u64,
    pub edges: u64,
    /// Schema records (annotations) and the embedder record.
    pub schema: u64,
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Error)]
pub enum ExportError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A value CSV cannot hold; nothing was written.
    #[error(
        "{0}; CSV cannot hold it: export as JSON Lines (--format jsonl), which holds every graph"
    )]
    NotCsv(String),
    #[error("CSV would need {0} files (one per label and per relation with its endpoint labels), more than {MAX_CSV_FILES}: export as JSON Lines (--format jsonl)")]
    TooManyFiles(usize),
    /// The output directory holds files already: an export does not mix with them.
    #[error("{}: the directory is not empty; export into a new or empty directory", .0.display())]
    NotEmpty(PathBuf),
}

type Result<T> = std::result::Result<T, ExportError>;

/// Writes the selection as JSON Lines to `out`: the embedder record, the nodes in id order,
/// the edges by source, then the schema records.
pub fn write_jsonl(
    graph: &dyn GraphRead,
    selection: &Selection,
    out: &mut dyn Write,
    path: &Path,
) -> Result<ExportSummary> {
    let catalog = graph.catalog_view();
    let io = |source| ExportError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut line = |record: &DumpRecord| -> Result<()> {
        let mut json = serde_json::Serializer::with_formatter(&mut *out, Escaping);
        serde::Serialize::serialize(record, &mut json).map_err(|e| io(e.into()))?;
        out.write_all(b"\n").map_err(io)
    };
    let mut summary = ExportSummary::default();
    if let Some(e) = embedder_record(&catalog) {
        line(&e)?;
        summary.schema += 1;
    }
    let mut used = Used::default();
    walk_nodes(graph, selection, &mut |rec, vector| {
        let node = dump_node(&catalog, rec, vector);
        used.node(&node);
        summary.nodes += 1;
        line(&DumpRecord::Node(node))
    })?;
    walk_edges(graph, selection, &mut |edge| {
        used.edge(&edge);
        summary.edges += 1;
        line(&DumpRecord::Edge(edge))
    })?;
    for s in used.schema(&catalog) {
        line(&DumpRecord::Schema(s))?;
        summary.schema += 1;
    }
    out.flush().map_err(io)?;
    Ok(summary)
}

/// JSON whose strings also escape what JSON allows raw but a terminal acts on or hides: DEL and
/// C1 controls (U+007F–U+009F) and invisible formatting characters (bidirectional controls,
/// zero-width characters, the byte-order mark: the display rules of `rules::is_invisible`), as
/// `\u202e` (a surrogate pair beyond U+FFFF, as JSON writes it). The dump reads back the same
/// text, and a terminal it is printed on (`cairn export --out -`) shows what is there.
struct Escaping;

impl serde_json::ser::Formatter for Escaping {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        use cairn_storage_format::rules::{is_control, is_invisible};
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if is_control(c) || is_invisible(c) {
                writer.write_all(&fragment.as_bytes()[start..i])?;
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    write!(writer, "\\u{:04x}", u)?;
                }
                start = i + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }
}

/// Writes the selection into `dir` (created if missing, refused if it holds files): JSON Lines
/// as [`JSONL_FILE`], CSV as a file per label and per relation with its endpoint labels, plus
/// [`CSV_SCHEMA_FILE`] for the embedder and schema records.
pub fn export_dir(
    graph: &dyn GraphRead,
    selection: &Selection,
    format: ExportFormat,
    dir: &Path,
) -> Result<ExportSummary> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ExportError::Io { path, source }
    };
    if let Ok(mut entries) = std::fs::read_dir(dir) {
        if entries.next().is_some() {
            return Err(ExportError::NotEmpty(dir.to_path_buf()));
        }
    }
    match format {
        ExportFormat::JsonLines => {
            std::fs::create_dir_all(dir).map_err(io(dir))?;
            let path = dir.join(JSONL_FILE);
            let file = std::fs::File::create(&path).map_err(io(&path))?;
            let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
            let mut summary = write_jsonl(graph, selection, &mut out, &path)?;
            summary.files.push(path);
            Ok(summary)
        }
        ExportFormat::Csv => {
            // Everything CSV cannot hold is found before a file is written.
            let plan = csv_plan(graph, selection)?;
            std::fs::create_dir_all(dir).map_err(io(dir))?;
            write_csv(graph, selection, &plan, dir)
        }
    }
}

/// The embedder record: the database's embedder (whose vectors are exported), or
/// [`NO_EMBEDDER`], so that the import computes none either.
fn embedder_record(catalog: &Catalog) -> Option<DumpRecord> {
    let (id, dim) = catalog
        .embedder()
        .map_or((NO_EMBEDDER.to_owned(), 0), |e| (e.id.clone(), e.dim));
    Some(DumpRecord::Embedder(DumpEmbedder { id, dim }))
}

fn name_of(catalog: &Catalog, id: LabelId) -> String {
    catalog.label_name(id).unwrap_or("?").to_owned()
}

fn props_of(catalog: &Catalog, props: &[(PropKeyId, Value)]) -> Vec<(String, Value)> {
    props
        .iter()
        .map(|(k, v)| (catalog.prop_name(*k).unwrap_or("?").to_owned(), v.clone()))
        .collect()
}

fn dump_node(catalog: &Catalog, rec: &NodeRecord, vector: Option<Vec<f32>>) -> DumpNode {
    DumpNode {
        label: name_of(catalog, rec.label),
        key: rec.key.clone(),
        props: props_of(catalog, &rec.props),
        description: rec.description.clone(),
        vector,
    }
}

/// A page of nodes: ids with their records.
type Page = [(NodeId, Arc<NodeRecord>)];
/// What [`for_each_page`] calls with each page.
type PageVisitor<'a> = dyn FnMut(&Page) -> Result<()> + 'a;

/// Calls `f` with every node of the graph, a page of [`PAGE`] at a time, in id order: each page
/// one range scan of one snapshot, so memory stays flat on a large database.
fn for_each_page(graph: &dyn GraphRead, f: &mut PageVisitor<'_>) -> Result<()> {
    let mut start = NodeId(0);
    loop {
        let page = graph.nodes_from(start, PAGE)?;
        let Some((last, _)) = page.last() else {
            return Ok(());
        };
        start = NodeId(last.0 + 1);
        f(&page)?;
    }
}

/// What [`walk_nodes`] calls with each node's record and vector.
type NodeVisitor<'a> = dyn FnMut(&NodeRecord, Option<Vec<f32>>) -> Result<()> + 'a;

/// Calls `f` with every selected node, its record and its vector, in id order, a page at a
/// time.
fn walk_nodes(graph: &dyn GraphRead, selection: &Selection, f: &mut NodeVisitor<'_>) -> Result<()> {
    let mut emit = |page: &[(NodeId, Arc<NodeRecord>)]| -> Result<()> {
        let ids: Vec<NodeId> = page.iter().map(|(id, _)| *id).collect();
        let vectors = graph.vectors(&ids)?;
        for ((_, rec), v) in page.iter().zip(vectors) {
            f(rec, v)?;
        }
        Ok(())
    };
    match selection {
        Selection::All => for_each_page(graph, &mut emit),
        Selection::Part { nodes, edges } => {
            let ids: BTreeSet<NodeId> = (nodes.iter().copied())
                .chain(edges.iter().flat_map(|(a, _, b)| [*a, *b]))
                .collect();
            let ids: Vec<NodeId> = ids.into_iter().collect();
            for chunk in ids.chunks(PAGE) {
                let page: Vec<(NodeId, Arc<NodeRecord>)> = chunk
                    .iter()
                    .zip(graph.nodes(chunk)?)
                    .filter_map(|(id, rec)| rec.map(|r| (*id, r)))
                    .collect();
                emit(&page)?;
            }
            Ok(())
        }
    }
}

/// Calls `f` with every selected edge, by source node in id order.
fn walk_edges(
    graph: &dyn GraphRead,
    selection: &Selection,
    f: &mut dyn FnMut(DumpEdge) -> Result<()>,
) -> Result<()> {
    let catalog = graph.catalog_view();
    let node_ref = |rec: &NodeRecord| NodeRef {
        label: name_of(&catalog, rec.label),
        key: rec.key.clone(),
    };
    // The edges of one page of sources, their targets read in one batch.
    let mut emit = |sources: &[(NodeId, Arc<NodeRecord>)],
                    edges: &[(usize, RelId, NodeId, cairn_storage_format::EdgeProps)]|
     -> Result<()> {
        let targets: Vec<NodeId> = edges.iter().map(|(_, _, to, _)| *to).collect();
        let records = graph.nodes(&targets)?;
        for ((source, rel, to, props), target) in edges.iter().zip(records) {
            let target = target.ok_or(EngineError::NodeNotFound(*to))?;
            f(DumpEdge {
                rel: catalog.relation_name(*rel).unwrap_or("?").to_owned(),
                from: node_ref(&sources[*source].1),
                to: node_ref(&target),
                props: props_of(&catalog, &props.props),
                weight: props.weight,
            })?;
        }
        Ok(())
    };
    let mut neighbors = Vec::new();
    match selection {
        Selection::All => for_each_page(graph, &mut |page| {
            let mut edges = Vec::new();
            for (i, (id, _)) in page.iter().enumerate() {
                neighbors.clear();
                graph.neighbors_into(*id, Direction::Out, &[], &mut neighbors)?;
                edges.extend(neighbors.drain(..).map(|n| (i, n.rel, n.node, n.props)));
            }
            emit(page, &edges)
        }),
        Selection::Part { edges, .. } => {
            let mut by_source: BTreeMap<NodeId, BTreeSet<(RelId, NodeId)>> = BTreeMap::new();
            for (a, rel, b) in edges {
                by_source.entry(*a).or_default().insert((*rel, *b));
            }
            let sources: Vec<NodeId> = by_source.keys().copied().collect();
            for chunk in sources.chunks(PAGE) {
                let records = graph.nodes(chunk)?;
                let mut page = Vec::new();
                let mut edges = Vec::new();
                for (id, rec) in chunk.iter().zip(records) {
                    let Some(rec) = rec else { continue };
                    let wanted = &by_source[id];
                    for rel in wanted.iter().map(|(r, _)| *r).collect::<BTreeSet<_>>() {
                        neighbors.clear();
                        graph.neighbors_into(*id, Direction::Out, &[rel], &mut neighbors)?;
                        edges.extend(
                            (neighbors.drain(..))
                                .filter(|n| wanted.contains(&(n.rel, n.node)))
                                .map(|n| (page.len(), n.rel, n.node, n.props)),
                        );
                    }
                    page.push((*id, rec));
                }
                emit(&page, &edges)?;
            }
            Ok(())
        }
    }
}

/// The labels, relations and property keys the exported records use: the schema records of
/// the others would name an element the import does not have.
#[derive(Debug, Default)]
struct Used {
    labels: BTreeSet<String>,
    relations: BTreeSet<String>,
    props: BTreeSet<String>,
}

impl Used {
    fn node(&mut self, n: &DumpNode) {
        if !self.labels.contains(&n.label) {
            self.labels.insert(n.label.clone());
        }
        for (k, _) in &n.props {
            if !self.props.contains(k) {
                self.props.insert(k.clone());
            }
        }
    }

    fn edge(&mut self, e: &DumpEdge) {
        if !self.relations.contains(&e.rel) {
            self.relations.insert(e.rel.clone());
        }
        for (k, _) in &e.props {
            if !self.props.contains(k) {
                self.props.insert(k.clone());
            }
        }
    }

    /// Schema records of the used elements that have an annotation (or a label that links only
    /// from marked mentions).
    fn schema(&self, catalog: &Catalog) -> Vec<DumpSchema> {
        let mut out = Vec::new();
        let record = |kind, name: &str, element| -> Option<DumpSchema> {
            let linking = match element {
                Element::Label(id) => (!catalog.links_unmarked(id)).then_some(false),
                _ => None,
            };
            let a = catalog.annotation(element);
            let description = a.and_then(|a| a.description.clone());
            let aliases = a.map(|a| a.aliases.clone()).filter(|a| !a.is_empty());
            (description.is_some() || aliases.is_some() || linking.is_some()).then(|| DumpSchema {
                kind,
                name: name.to_owned(),
                description,
                aliases,
                linking,
            })
        };
        for name in &self.labels {
            if let Some(id) = catalog.label_id(name) {
                out.extend(record(SchemaKind::Label, name, Element::Label(id)));
            }
        }
        for name in &self.relations {
            if let Some(id) = catalog.relation_id(name) {
                out.extend(record(SchemaKind::Relation, name, Element::Relation(id)));
            }
        }
        for name in &self.props {
            if let Some(id) = catalog.prop_id(name) {
                out.extend(record(SchemaKind::Property, name, Element::Property(id)));
            }
        }
        out
    }
}

// ---------------------------------------------------------------- CSV

/// A CSV column's type, as its header writes it (`year:int`, `tags:string[]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct CsvType {
    base: Base,
    list: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Base {
    Str,
    Int,
    Float,
    Bool,
}

impl CsvType {
    fn header(self, name: &str) -> String {
        let base = match self.base {
            Base::Str => "string",
            Base::Int => "int",
            Base::Float => "float",
            Base::Bool => "boolean",
        };
        format!("{name}:{base}{}", if self.list { "[]" } else { "" })
    }
}

/// The CSV type that holds `v` exactly, or why none does.
fn csv_type(v: &Value) -> std::result::Result<CsvType, &'static str> {
    let scalar = |v: &Value, in_list: bool| match v {
        Value::Str(s) if s.is_empty() => Err("is an empty string (an empty field means no value)"),
        Value::Str(s) if in_list && s.contains(';') => {
            Err("is a list with a string holding `;`, the list separator")
        }
        Value::Str(_) => Ok(Base::Str),
        Value::Int(_) => Ok(Base::Int),
        Value::Float(_) => Ok(Base::Float),
        Value::Bool(_) => Ok(Base::Bool),
        Value::Null => Err("is null"),
        Value::List(_) => Err("is a list of lists"),
    };
    match v {
        Value::List(items) => {
            let mut base = None;
            for item in items {
                let b = scalar(item, true)?;
                if base.is_some_and(|x| x != b) {
                    return Err("is a list of values of several types");
                }
                base = Some(b);
            }
            Ok(CsvType {
                base: base.ok_or("is an empty list (an empty field means no value)")?,
                list: true,
            })
        }
        v => Ok(CsvType {
            base: scalar(v, false)?,
            list: false,
        }),
    }
}

/// A value as its CSV column writes it (the reader parses it back to the same value).
fn csv_text(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        Value::Int(i) => i.to_string(),
        // `{:?}` is the shortest text that parses back to the same float (`1e300`, `0.1`).
        Value::Float(x) => format!("{x:?}"),
        Value::Bool(b) => b.to_string(),
        Value::Null => String::new(),
        Value::List(items) => items.iter().map(csv_text).collect::<Vec<_>>().join(";"),
    }
}

fn floats_text(v: &[f32]) -> String {
    let mut out = String::new();
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            out.push(';');
        }
        let _ = write!(out, "{x:?}");
    }
    out
}

/// The columns of one CSV file, from every row it will hold.
#[derive(Debug, Default)]
struct Columns {
    props: BTreeSet<(String, CsvType)>,
    description: bool,
    vector: bool,
    weight: bool,
}

impl Columns {
    fn props(&mut self, props: &[(String, Value)], what: &dyn Fn() -> String) -> Result<()> {
        for (k, v) in props {
            let ty = csv_type(v).map_err(|why| {
                ExportError::NotCsv(format!("property `{k}` of {} {why}", what()))
            })?;
            if !self.props.contains(&(k.clone(), ty)) {
                self.props.insert((k.clone(), ty));
            }
        }
        Ok(())
    }

    /// The property cells of a row, in the columns' order.
    fn cells(&self, props: &[(String, Value)]) -> Vec<String> {
        self.props
            .iter()
            .map(|(name, ty)| {
                props
                    .iter()
                    .find(|(k, v)| k == name && csv_type(v).ok() == Some(*ty))
                    .map(|(_, v)| csv_text(v))
                    .unwrap_or_default()
            })
            .collect()
    }
}

/// Every CSV file's columns, and the elements the rows use.
#[derive(Debug, Default)]
struct CsvPlan {
    nodes: BTreeMap<String, Columns>,
    /// By (relation, source label, target label).
    edges: BTreeMap<(String, String, String), Columns>,
    used: Used,
}

fn node_what(n: &DumpNode) -> String {
    format!("{} {:?}", n.label, n.key)
}

fn edge_what(e: &DumpEdge) -> String {
    format!(
        "edge {} {:?} -[{}]-> {} {:?}",
        e.from.label, e.from.key, e.rel, e.to.label, e.to.key
    )
}

/// The first pass: every file's columns; a value CSV cannot hold is an error here.
fn csv_plan(graph: &dyn GraphRead, selection: &Selection) -> Result<CsvPlan> {
    let catalog = graph.catalog_view();
    let mut plan = CsvPlan::default();
    walk_nodes(graph, selection, &mut |rec, vector| {
        let node = dump_node(&catalog, rec, vector);
        let what = || node_what(&node);
        if node.description.as_deref() == Some("") {
            return Err(ExportError::NotCsv(format!(
                "the description of {} is empty",
                what()
            )));
        }
        let columns = match plan.nodes.get_mut(&node.label) {
            Some(c) => c,
            None => plan.nodes.entry(node.label.clone()).or_default(),
        };
        columns.props(&node.props, &what)?;
        columns.description |= node.description.is_some();
        columns.vector |= node.vector.is_some();
        plan.used.node(&node);
        Ok(())
    })?;
    walk_edges(graph, selection, &mut |edge| {
        let group = (
            edge.rel.clone(),
            edge.from.label.clone(),
            edge.to.label.clone(),
        );
        let columns = plan.edges.entry(group).or_default();
        columns.props(&edge.props, &|| edge_what(&edge))?;
        columns.weight |= edge.weight.is_some();
        plan.used.edge(&edge);
        Ok(())
    })?;
    let files = plan.nodes.len() + plan.edges.len();
    if files > MAX_CSV_FILES {
        return Err(ExportError::TooManyFiles(files));
    }
    Ok(plan)
}

/// A file name part from a label or relation: its letters, digits, `-` and `_` (the header
/// holds the name itself; the file name only helps a reader find it).
fn file_part(name: &str) -> String {
    let part: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .take(40)
        .collect();
    if part.is_empty() {
        "x".to_owned()
    } else {
        part
    }
}

struct CsvFile {
    path: PathBuf,
    writer: csv::Writer<std::fs::File>,
}

impl CsvFile {
    fn create(path: PathBuf, header: &[String]) -> Result<CsvFile> {
        let file = std::fs::File::create(&path).map_err(|source| ExportError::Io {
            path: path.clone(),
            source,
        })?;
        let writer = csv::WriterBuilder::new()
            .buffer_capacity(1 << 16)
            .from_writer(file);
        let mut f = CsvFile { path, writer };
        f.row(header)?;
        Ok(f)
    }

    fn row(&mut self, cells: &[String]) -> Result<()> {
        self.writer.write_record(cells).map_err(csv_io(&self.path))
    }

    fn finish(mut self) -> Result<PathBuf> {
        self.writer.flush().map_err(|source| ExportError::Io {
            path: self.path.clone(),
            source,
        })?;
        Ok(self.path)
    }
}

fn csv_io(path: &Path) -> impl Fn(csv::Error) -> ExportError + '_ {
    move |e| ExportError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    }
}

/// The second pass: the rows, into one file per label and per edge group, then the schema
/// file.
fn write_csv(
    graph: &dyn GraphRead,
    selection: &Selection,
    plan: &CsvPlan,
    dir: &Path,
) -> Result<ExportSummary> {
    let catalog = graph.catalog_view();
    let mut summary = ExportSummary::default();
    let mut node_files: BTreeMap<&str, (usize, CsvFile)> = BTreeMap::new();
    for (i, (label, columns)) in plan.nodes.iter().enumerate() {
        let mut header = vec![format!(":ID({label})")];
        header.extend(columns.props.iter().map(|(k, ty)| ty.header(k)));
        if columns.description {
            header.push(":DESCRIPTION".into());
        }
        if columns.vector {
            header.push(":VECTOR".into());
        }
        let path = dir.join(format!("nodes-{:03}-{}.csv", i + 1, file_part(label)));
        node_files.insert(label, (i, CsvFile::create(path, &header)?));
    }
    walk_nodes(graph, selection, &mut |rec, vector| {
        let node = dump_node(&catalog, rec, vector);
        let (Some(columns), Some((_, file))) = (
            plan.nodes.get(&node.label),
            node_files.get_mut(node.label.as_str()),
        ) else {
            return Ok(());
        };
        let mut row = vec![node.key.clone()];
        row.extend(columns.cells(&node.props));
        if columns.description {
            row.push(node.description.clone().unwrap_or_default());
        }
        if columns.vector {
            row.push(node.vector.as_deref().map(floats_text).unwrap_or_default());
        }
        summary.nodes += 1;
        file.row(&row)
    })?;
    for (_, (_, file)) in node_files {
        summary.files.push(file.finish()?);
    }
    let mut edge_files: BTreeMap<&(String, String, String), CsvFile> = BTreeMap::new();
    for (i, (group, columns)) in plan.edges.iter().enumerate() {
        let (rel, from, to) = group;
        let mut header = vec![
            format!(":START_ID({from})"),
            format!(":END_ID({to})"),
            ":TYPE".to_owned(),
        ];
        header.extend(columns.props.iter().map(|(k, ty)| ty.header(k)));
        if columns.weight {
            header.push(":WEIGHT".into());
        }
        let path = dir.join(format!("edges-{:03}-{}.csv", i + 1, file_part(rel)));
        edge_files.insert(group, CsvFile::create(path, &header)?);
    }
    walk_edges(graph, selection, &mut |edge| {
        let group = (
            edge.rel.clone(),
            edge.from.label.clone(),
            edge.to.label.clone(),
        );
        let (Some(columns), Some(file)) = (plan.edges.get(&group), edge_files.get_mut(&group))
        else {
            return Ok(());
        };
        let mut row = vec![edge.from.key.clone(), edge.to.key.clone(), edge.rel.clone()];
        row.extend(columns.cells(&edge.props));
        if columns.weight {
            row.push(edge.weight.map(|w| format!("{w:?}")).unwrap_or_default());
        }
        summary.edges += 1;
        file.row(&row)
    })?;
    for (_, file) in edge_files {
        summary.files.push(file.finish()?);
    }
    let mut records: Vec<DumpRecord> = embedder_record(&catalog).into_iter().collect();
    records.extend(
        plan.used
            .schema(&catalog)
            .into_iter()
            .map(DumpRecord::Schema),
    );
    if !records.is_empty() {
        let path = dir.join(CSV_SCHEMA_FILE);
        let io = |source| ExportError::Io {
            path: path.clone(),
            source,
        };
        let mut text = String::new();
        for r in &records {
            text.push_str(&serde_json::to_string(r).map_err(|e| io(e.into()))?);
            text.push('\n');
        }
        std::fs::write(&path, text).map_err(io)?;
        summary.schema = records.len() as u64;
        summary.files.push(path);
    }
    Ok(summary)
}
