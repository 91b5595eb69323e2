//! Reading dump files: format detection, transparent gzip, JSON Lines and Neo4j-style CSV, each
//! record tagged with its file and line for error messages.

use super::dump::{DumpEdge, DumpEmbedder, DumpNode, DumpRecord, DumpSchema};
use super::{ImportError, LineError};
use cairn_storage_format::{rules, Value};
use std::io::{BufRead, BufReader};
use std::path::Path;

/// The format of a dump file, from its name (`.jsonl`, `.ndjson`, `.csv`, optionally `.gz`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DumpFormat {
    JsonLines,
    Csv,
    /// `subject \t relation \t object` lines (`.tsv`, `.triples`) or N-Triples (`.nt`), read by
    /// [`super::triples`].
    Triples,
}

impl DumpFormat {
    pub fn of(path: &Path) -> Result<DumpFormat, ImportError> {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let name = name.strip_suffix(".gz").unwrap_or(&name);
        if name.ends_with(".jsonl") || name.ends_with(".ndjson") || name.ends_with(".json") {
            Ok(DumpFormat::JsonLines)
        } else if name.ends_with(".csv") {
            Ok(DumpFormat::Csv)
        } else if named_as_triples(name) {
            Ok(DumpFormat::Triples)
        } else if name.ends_with(".txt") {
            Err(ImportError::TxtNotGuessed {
                path: path.to_path_buf(),
            })
        } else {
            Err(ImportError::UnknownFormat {
                path: path.to_path_buf(),
            })
        }
    }
}

/// Opens a file, decompressing it if it starts with the gzip magic bytes.
pub fn open(path: &Path) -> Result<Box<dyn BufRead + Send>, ImportError> {
    let io = |source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = BufReader::with_capacity(1 << 20, std::fs::File::open(path).map_err(io)?);
    let head = file.fill_buf().map_err(io)?;
    if head.starts_with(&[0x1f, 0x8b]) {
        Ok(Box::new(BufReader::with_capacity(
            1 << 20,
            flate2::bufread::MultiGzDecoder::new(file),
        )))
    } else {
        Ok(Box::new(file))
    }
}

/// A record as read. Edges borrow their names and keys from the line they came from: a dump has
/// many more edges than nodes, and staging copies the keys into its arena anyway.
#[derive(Debug)]
pub enum Record<'a> {
    Node(DumpNode),
    Edge(EdgeRef<'a>),
    Schema(DumpSchema),
    Embedder(DumpEmbedder),
}

/// An edge whose names and keys are borrowed; an empty label means an id without a group.
#[derive(Debug)]
pub struct EdgeRef<'a> {
    pub rel: &'a str,
    pub from_label: &'a str,
    pub from_key: &'a str,
    pub to_label: &'a str,
    pub to_key: &'a str,
    pub props: Vec<(String, Value)>,
    pub weight: Option<f32>,
}

impl<'a> EdgeRef<'a> {
    /// Borrows `e`'s names and keys and takes its properties.
    pub fn of(e: &'a mut DumpEdge) -> Self {
        EdgeRef {
            rel: &e.rel,
            from_label: &e.from.label,
            from_key: &e.from.key,
            to_label: &e.to.label,
            to_key: &e.to.key,
            props: std::mem::take(&mut e.props),
            weight: e.weight,
        }
    }
}

/// Passes an owned record on as a [`Record`].
pub fn emit(record: DumpRecord, line: u64, on_record: &mut dyn FnMut(Record<'_>, u64)) {
    match record {
        DumpRecord::Node(n) => on_record(Record::Node(n), line),
        DumpRecord::Edge(mut e) => on_record(Record::Edge(EdgeRef::of(&mut e)), line),
        DumpRecord::Schema(s) => on_record(Record::Schema(s), line),
        DumpRecord::Embedder(e) => on_record(Record::Embedder(e), line),
    }
}

/// Progress is reported per MiB, not per line: the callback touches a counter shared by the
/// reading threads.
struct ProgressBatch<'a> {
    pending: u64,
    on_progress: &'a mut dyn FnMut(u64),
}

impl ProgressBatch<'_> {
    fn add(&mut self, bytes: u64) {
        self.pending += bytes;
        if self.pending >= 1 << 20 {
            (self.on_progress)(std::mem::take(&mut self.pending));
        }
    }
}

impl Drop for ProgressBatch<'_> {
    fn drop(&mut self) {
        if self.pending > 0 {
            (self.on_progress)(self.pending);
        }
    }
}

/// Reads every record of `path`, calling `on_record` for good ones and `on_error` for bad lines.
/// Stops early (returning `Ok(false)`) when `on_error` returns false. I/O errors are fatal.
pub fn read_file(
    path: &Path,
    on_record: &mut dyn FnMut(Record<'_>, u64),
    on_error: &mut dyn FnMut(LineError) -> bool,
    on_progress: &mut dyn FnMut(u64),
) -> Result<bool, ImportError> {
    match DumpFormat::of(path)? {
        DumpFormat::JsonLines => read_jsonl(path, open(path)?, on_record, on_error, on_progress),
        DumpFormat::Csv => read_csv(path, open(path)?, on_record, on_error, on_progress),
        // Labels of triples depend on every file: `import_files` hands them to `triples`.
        DumpFormat::Triples => Err(ImportError::Engine(cairn_store::EngineError::Invalid(
            format!(
                "{}: triples are read by `import_files`, not line by line",
                path.display()
            ),
        ))),
    }
}

fn read_jsonl(
    path: &Path,
    reader: Box<dyn BufRead + Send>,
    on_record: &mut dyn FnMut(Record<'_>, u64),
    on_error: &mut dyn FnMut(LineError) -> bool,
    on_progress: &mut dyn FnMut(u64),
) -> Result<bool, ImportError> {
    let mut reader = reader;
    let mut progress = ProgressBatch {
        pending: 0,
        on_progress,
    };
    let mut buf = Vec::new();
    let mut line_no = 0u64;
    let mut empty = true;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| read_error(path, line_no + 1, e))?;
        if n == 0 {
            if empty {
                warn_empty(path);
            }
            return Ok(true);
        }
        line_no += 1;
        progress.add(n as u64);
        // A UTF-8 byte-order mark, as some editors write, is not part of the first record.
        let line = match (line_no, buf.strip_prefix(UTF8_BOM)) {
            (1, Some(rest)) => rest,
            _ => &buf[..],
        };
        let text = line.trim_ascii();
        if text.is_empty() {
            continue;
        }
        empty = false;
        match serde_json::from_slice::<DumpRecord>(text) {
            Ok(record) => match validate(&record) {
                Ok(()) => emit(record, line_no, on_record),
                Err(reason) => {
                    if !on_error(LineError::new(path, line_no, reason)) {
                        return Ok(false);
                    }
                }
            },
            Err(e) => {
                if !on_error(LineError::new(path, line_no, json_reason(&e))) {
                    return Ok(false);
                }
            }
        }
    }
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// A read error at `line`: bad or truncated compressed data is bad input there (exit code 3
/// with the place), anything else an I/O error.
pub(crate) fn read_error(path: &Path, line: u64, e: std::io::Error) -> ImportError {
    use std::io::ErrorKind;
    // A quoting mistake in a CSV file (plain or compressed) is bad input at its own line.
    if let Some(q) = e.get_ref().and_then(|r| r.downcast_ref::<QuoteError>()) {
        return ImportError::Corrupt(LineError::new(path, q.line, q.reason.clone()));
    }
    match e.kind() {
        ErrorKind::UnexpectedEof | ErrorKind::InvalidData | ErrorKind::InvalidInput => {
            ImportError::Corrupt(LineError::new(
                path,
                line,
                format!("the compressed data is truncated or corrupt ({e})"),
            ))
        }
        _ => ImportError::Io {
            path: path.to_path_buf(),
            source: e,
        },
    }
}

/// An empty file (no bytes, or only blank lines) imports nothing, in every format; it is
/// worth a word, since it is usually a mistake.
fn warn_empty(path: &Path) {
    tracing::warn!("{}: the file is empty, nothing to import", path.display());
}

fn json_reason(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    // serde_json appends " at line 1 column N"; the line is ours, keep the column.
    match msg.rsplit_once(" at line ") {
        Some((head, tail)) => match tail.split_once(" column ") {
            Some((_, col)) => format!("{head} (column {col})"),
            None => head.to_owned(),
        },
        None => msg,
    }
}

/// Refuses a label, relation or property name that breaks the rule the language checks too
/// (`rules::check_name`: no control character, no bidirectional or zero-width character):
/// names are printed by every command and typed in statements.
pub(crate) fn check_name(what: &str, name: &str) -> Result<(), String> {
    rules::check_name(name).map_err(|e| format!("{what} `{}` {e}", name.escape_debug()))
}

/// Refuses a property value with a number that is not finite (`rules::check_value`).
fn check_props(props: &[(String, Value)]) -> Result<(), String> {
    for (name, value) in props {
        check_name("property name", name)?;
        rules::check_value(value).map_err(|e| format!("property `{name}` {e}"))?;
    }
    Ok(())
}

/// An edge weight by the language's rule (`rules::edge_weight`). A JSON weight beyond `f32`
/// arrives as an infinity (serde saturates): said as too large.
fn check_weight(w: f32) -> Result<f32, String> {
    rules::edge_weight(f64::from(w)).map_err(|e| match e {
        rules::RuleError::NotFinite(x) if x.is_infinite() && x > 0.0 => format!(
            "the weight is beyond {:e}, the largest weight an edge stores",
            f32::MAX
        ),
        e => format!("the weight {e}"),
    })
}

/// A vector whose components are all finite.
fn check_vector(v: &[f32]) -> Result<(), String> {
    match v.iter().find(|x| !x.is_finite()) {
        Some(x) => Err(format!("the vector holds {x}, not a finite number")),
        None => Ok(()),
    }
}

/// Checks what serde cannot: non-empty names and keys, names, values and weights by the rule
/// the language checks too (docs/FORMAT.md, "What a value may be").
fn validate(record: &DumpRecord) -> Result<(), String> {
    let name = |what: &str, s: &str| {
        if s.is_empty() {
            Err(format!("empty {what}"))
        } else {
            Ok(())
        }
    };
    match record {
        DumpRecord::Node(n) => {
            name("label", &n.label)?;
            check_name("label", &n.label)?;
            check_props(&n.props)?;
            if let Some(v) = &n.vector {
                check_vector(v)?;
            }
            name("key", &n.key)
        }
        DumpRecord::Edge(e) => {
            name("relation type", &e.rel)?;
            check_name("relation type", &e.rel)?;
            check_props(&e.props)?;
            if let Some(w) = e.weight {
                check_weight(w)?;
            }
            name("source label", &e.from.label)?;
            check_name("source label", &e.from.label)?;
            name("source key", &e.from.key)?;
            name("target label", &e.to.label)?;
            check_name("target label", &e.to.label)?;
            name("target key", &e.to.key)
        }
        DumpRecord::Embedder(e) => {
            name("embedder id", &e.id)?;
            check_name("embedder id", &e.id)?;
            if (e.dim == 0) != (e.id == crate::dump::NO_EMBEDDER) {
                return Err(format!(
                    "an embedder's dimension is at least 1, and 0 for `{}`",
                    crate::dump::NO_EMBEDDER
                ));
            }
            Ok(())
        }
        DumpRecord::Schema(s) => {
            name("schema element name", &s.name)?;
            if s.linking.is_some() && s.kind != crate::dump::SchemaKind::Label {
                return Err("`linking` applies to labels only".into());
            }
            if s.description.is_none() && s.aliases.is_none() && s.linking.is_none() {
                return Err("a schema record needs `description`, `aliases` or `linking`".into());
            }
            let mut seen = std::collections::HashSet::new();
            for a in s.aliases.iter().flatten() {
                if a.trim().is_empty() {
                    return Err("empty alias".into());
                }
                if !seen.insert(a.to_lowercase()) {
                    return Err(format!("alias {a:?} is listed twice"));
                }
            }
            Ok(())
        }
    }
}

// ---------------------------------------------------------------- CSV

/// The type of a CSV column, from its header (`name:int`, `:LABEL`, ...).
#[derive(Clone, Debug, PartialEq)]
enum Column {
    /// `:ID` / `name:ID(Group)`: the node's key; the group (if any) is the label by default.
    Id(Option<String>),
    Label,
    Description,
    Vector,
    StartId(Option<String>),
    EndId(Option<String>),
    Type,
    Weight,
    Ignore,
    Prop {
        name: String,
        ty: PropType,
        array: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PropType {
    Str,
    Int,
    Float,
    Bool,
}

fn parse_header_field(field: &str) -> Result<Column, String> {
    // A group in `:ID(Group)` becomes a label, a property name is shown like one.
    check_name("header field", field)?;
    // An id group may hold `:` (a label such as `Doc:v2`): `:ID(`, `:START_ID(` and `:END_ID(`
    // are found from the left, up to the `)` that ends the field.
    if let Some(inner) = field.strip_suffix(')') {
        for (kw, column) in [
            (
                ":START_ID(",
                Column::StartId as fn(Option<String>) -> Column,
            ),
            (":END_ID(", Column::EndId),
            (":ID(", Column::Id),
        ] {
            if let Some(at) = inner.find(kw) {
                return Ok(column(Some(inner[at + kw.len()..].to_owned())));
            }
        }
    }
    let (name, ty) = match field.rfind(':') {
        Some(i) => (&field[..i], &field[i + 1..]),
        None => (field, ""),
    };
    let group = |ty: &str, kw: &str| -> Option<Option<String>> {
        let rest = ty.strip_prefix(kw)?;
        if rest.is_empty() {
            return Some(None);
        }
        let g = rest.strip_prefix('(')?.strip_suffix(')')?;
        Some(Some(g.to_owned()))
    };
    if let Some(g) = group(ty, "ID") {
        return Ok(Column::Id(g));
    }
    if let Some(g) = group(ty, "START_ID") {
        return Ok(Column::StartId(g));
    }
    if let Some(g) = group(ty, "END_ID") {
        return Ok(Column::EndId(g));
    }
    match ty {
        "LABEL" => return Ok(Column::Label),
        "TYPE" => return Ok(Column::Type),
        "DESCRIPTION" => return Ok(Column::Description),
        "VECTOR" => return Ok(Column::Vector),
        "WEIGHT" => return Ok(Column::Weight),
        "IGNORE" => return Ok(Column::Ignore),
        _ => {}
    }
    if name.is_empty() {
        return Err(format!("header field `{field}` has no property name"));
    }
    let (base, array) = match ty.strip_suffix("[]") {
        Some(b) => (b, true),
        None => (ty, false),
    };
    let ty = match base.to_ascii_lowercase().as_str() {
        "" | "string" | "char" => PropType::Str,
        "int" | "long" | "short" | "byte" => PropType::Int,
        "float" | "double" => PropType::Float,
        "boolean" | "bool" => PropType::Bool,
        other => return Err(format!("header field `{field}`: unknown type `{other}` (expected string, int, long, float, double, boolean, or one of them with [])")),
    };
    Ok(Column::Prop {
        name: name.to_owned(),
        ty,
        array,
    })
}

fn parse_typed(raw: &str, ty: PropType) -> Result<Value, String> {
    match ty {
        PropType::Str => Ok(Value::Str(raw.to_owned())),
        PropType::Int => raw
            .trim()
            .parse::<i64>()
            .map(Value::Int)
            .map_err(|_| format!("`{raw}` is not an integer")),
        PropType::Float => match raw.trim().parse::<f64>() {
            Ok(x) => rules::check_number(x)
                .map(|()| Value::Float(x))
                .map_err(|_| format!("`{raw}` is not a finite number")),
            Err(_) => Err(format!("`{raw}` is not a number")),
        },
        PropType::Bool => match raw.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(format!("`{raw}` is not a boolean (true or false)")),
        },
    }
}

enum CsvKind {
    Nodes {
        id: usize,
        group: Option<String>,
        label: Option<usize>,
    },
    Edges {
        start: usize,
        start_group: Option<String>,
        end: usize,
        end_group: Option<String>,
        rel: usize,
    },
}

fn read_csv(
    path: &Path,
    reader: Box<dyn BufRead + Send>,
    on_record: &mut dyn FnMut(Record<'_>, u64),
    on_error: &mut dyn FnMut(LineError) -> bool,
    on_progress: &mut dyn FnMut(u64),
) -> Result<bool, ImportError> {
    let mut csv = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(QuoteCheck::new(reader));
    let mut row = csv::StringRecord::new();
    let header_error = |reason: String| ImportError::Header {
        path: path.to_path_buf(),
        reason,
    };
    let mut last_line = 0u64;
    let io_or_line = |e: csv::Error, last_line: u64| -> Result<LineError, ImportError> {
        let line = e.position().map(|p| p.line()).unwrap_or(last_line + 1);
        match e.into_kind() {
            csv::ErrorKind::Io(source) => Err(read_error(path, line, source)),
            csv::ErrorKind::Utf8 { .. } => Ok(LineError::new(path, line, "invalid UTF-8".into())),
            other => Ok(LineError::new(path, line, format!("{other:?}"))),
        }
    };
    match csv.read_record(&mut row) {
        Ok(true) => {}
        Ok(false) => {
            warn_empty(path);
            return Ok(true);
        }
        Err(e) => {
            let le = io_or_line(e, 0)?;
            return Err(header_error(le.reason));
        }
    }
    let columns: Vec<Column> = row
        .iter()
        .map(parse_header_field)
        .collect::<Result<_, _>>()
        .map_err(header_error)?;
    let find = |pred: &dyn Fn(&Column) -> bool| -> Vec<usize> {
        columns
            .iter()
            .enumerate()
            .filter(|(_, c)| pred(c))
            .map(|(i, _)| i)
            .collect()
    };
    let one = |what: &str, found: Vec<usize>| -> Result<Option<usize>, ImportError> {
        match found.len() {
            0 => Ok(None),
            1 => Ok(Some(found[0])),
            _ => Err(header_error(format!("more than one {what} column"))),
        }
    };
    let id = one(":ID", find(&|c| matches!(c, Column::Id(_))))?;
    let start = one(":START_ID", find(&|c| matches!(c, Column::StartId(_))))?;
    let end = one(":END_ID", find(&|c| matches!(c, Column::EndId(_))))?;
    let group_of = |i: usize| match &columns[i] {
        Column::Id(g) | Column::StartId(g) | Column::EndId(g) => g.clone(),
        _ => None,
    };
    let kind = match (id, start, end) {
        (Some(id), None, None) => {
            let label = one(":LABEL", find(&|c| matches!(c, Column::Label)))?;
            let group = group_of(id);
            if label.is_none() && group.is_none() {
                return Err(header_error(
                    "a node file needs a :LABEL column or an id group such as `key:ID(Author)`"
                        .into(),
                ));
            }
            CsvKind::Nodes { id, group, label }
        }
        (None, Some(start), Some(end)) => {
            let rel = one(":TYPE", find(&|c| matches!(c, Column::Type)))?
                .ok_or_else(|| header_error("an edge file needs a :TYPE column".into()))?;
            CsvKind::Edges {
                start,
                start_group: group_of(start),
                end,
                end_group: group_of(end),
                rel,
            }
        }
        _ => return Err(header_error(
            "expected a node file (an :ID column) or an edge file (:START_ID and :END_ID columns)"
                .into(),
        )),
    };
    let width = columns.len();
    let mut progress = ProgressBatch {
        pending: 0,
        on_progress,
    };
    loop {
        match csv.read_record(&mut row) {
            Ok(false) => return Ok(true),
            Ok(true) => {}
            Err(e) => {
                let le = io_or_line(e, last_line)?;
                if !on_error(le) {
                    return Ok(false);
                }
                continue;
            }
        }
        let line = row.position().map(|p| p.line()).unwrap_or(0);
        last_line = line;
        progress.add(row.as_slice().len() as u64 + row.len() as u64);
        if row.len() == 1 && row.get(0) == Some("") {
            continue; // blank line
        }
        let result = if row.len() != width {
            Err(format!(
                "expected {width} fields as in the header, found {}",
                row.len()
            ))
        } else {
            csv_row(&columns, &kind, &row)
        };
        match result {
            Ok(record) => on_record(record, line),
            Err(reason) => {
                if !on_error(LineError::new(path, line, reason)) {
                    return Ok(false);
                }
            }
        }
    }
}

/// Where a CSV reader is, for [`QuoteCheck`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum QuoteState {
    FieldStart,
    Unquoted,
    Quoted,
    /// A quote inside a quoted field: its end, or the first half of `""`.
    QuoteInQuoted,
}

/// A quoting mistake that the `csv` reader would accept in silence, at the line it shows.
#[derive(Debug)]
struct QuoteError {
    line: u64,
    reason: String,
}

impl std::fmt::Display for QuoteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

impl std::error::Error for QuoteError {}

/// Follows the quoting of the bytes the `csv` reader reads (its default dialect: `,`, `"`,
/// doubled quotes) and fails the read where `csv` would guess: at end of file inside a quoted
/// field (`csv` closes it, folding the rest of the file into the last record), and at text
/// after a field's closing quote (`csv` appends it to the field). The second is what a quote
/// missing in the middle of a file looks like: the field runs on into the next line up to
/// that line's first quote, and the record after it vanishes into the field.
struct QuoteCheck<R> {
    inner: R,
    state: QuoteState,
    line: u64,
    opened_on: u64,
}

impl<R> QuoteCheck<R> {
    fn new(inner: R) -> Self {
        QuoteCheck {
            inner,
            state: QuoteState::FieldStart,
            line: 1,
            opened_on: 0,
        }
    }
}

impl<R: std::io::Read> std::io::Read for QuoteCheck<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && buf.is_empty() {
            return Ok(0);
        }
        if n == 0 && self.state == QuoteState::Quoted {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                QuoteError {
                    line: self.opened_on,
                    reason: format!(
                        "the file ends inside a quoted field opened on line {} (a missing closing quote)",
                        self.opened_on
                    ),
                },
            ));
        }
        self.track(&buf[..n])
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        Ok(n)
    }
}

impl<R> QuoteCheck<R> {
    /// Follows `bytes` from quote to quote. Between two quotes the state is `Quoted` if it was,
    /// else set by the last byte alone (a field separator or line end starts a field); lines
    /// are counted by SIMD. A byte at a time, this check was an eighth of parsing a dump.
    fn track(&mut self, bytes: &[u8]) -> Result<(), QuoteError> {
        use QuoteState::*;
        let mut rest = bytes;
        loop {
            let quote = memchr::memchr(b'"', rest);
            let (run, after) = match quote {
                Some(q) => (&rest[..q], rest.get(q + 1..).unwrap_or_default()),
                None => (rest, &[][..]),
            };
            if let Some(&first) = run.first() {
                if self.state == QuoteInQuoted && !matches!(first, b',' | b'\n' | b'\r') {
                    return Err(self.text_after_quote());
                }
            }
            if let Some(&last) = run.last() {
                self.line += bytecount::count(run, b'\n') as u64;
                if self.state != Quoted {
                    self.state = match last {
                        b',' | b'\n' | b'\r' => FieldStart,
                        _ => Unquoted,
                    };
                }
            }
            if quote.is_none() {
                return Ok(());
            }
            self.state = match self.state {
                FieldStart => {
                    self.opened_on = self.line;
                    Quoted
                }
                Quoted => QuoteInQuoted,
                QuoteInQuoted => Quoted,
                Unquoted => Unquoted,
            };
            rest = after;
        }
    }
}

impl<R> QuoteCheck<R> {
    fn text_after_quote(&self) -> QuoteError {
        let reason = if self.opened_on == self.line {
            "text after the closing quote of a field (a stray or missing quote)".to_string()
        } else {
            format!(
                "a quoted field opened on line {} is closed on line {} and followed by text (a missing closing quote on line {0}?)",
                self.opened_on, self.line
            )
        };
        QuoteError {
            line: self.opened_on,
            reason,
        }
    }
}

fn csv_row<'a>(
    columns: &[Column],
    kind: &'a CsvKind,
    row: &'a csv::StringRecord,
) -> Result<Record<'a>, String> {
    let mut props = Vec::new();
    let mut description = None;
    let mut vector = None;
    let mut weight = None;
    for (col, raw) in columns.iter().zip(row.iter()) {
        match col {
            Column::Prop { name, ty, array } => {
                if raw.is_empty() {
                    continue; // an empty field means "no value", as in Neo4j's importer
                }
                let value = if *array {
                    Value::List(
                        raw.split(';')
                            .map(|p| parse_typed(p, *ty))
                            .collect::<Result<_, _>>()
                            .map_err(|e| format!("column `{name}`: {e}"))?,
                    )
                } else {
                    parse_typed(raw, *ty).map_err(|e| format!("column `{name}`: {e}"))?
                };
                props.push((name.clone(), value));
            }
            Column::Description if !raw.is_empty() => description = Some(raw.to_owned()),
            Column::Vector if !raw.is_empty() => {
                let v: Result<Vec<f32>, _> =
                    raw.split(';').map(|x| x.trim().parse::<f32>()).collect();
                let v = v.map_err(|_| {
                    format!("column :VECTOR: `{raw}` is not a ;-separated list of numbers")
                })?;
                check_vector(&v).map_err(|e| format!("column :VECTOR: {e}"))?;
                vector = Some(v);
            }
            Column::Weight if !raw.is_empty() => {
                let w = raw
                    .trim()
                    .parse::<f64>()
                    .map_err(|_| format!("column :WEIGHT: `{raw}` is not a number"))?;
                weight = Some(
                    rules::edge_weight(w).map_err(|e| format!("column :WEIGHT: `{raw}` {e}"))?,
                );
            }
            _ => {}
        }
    }
    let field = |i: usize, what: &str| -> Result<&'a str, String> {
        match row.get(i) {
            Some(s) if !s.is_empty() => Ok(s),
            _ => Err(format!("missing {what}")),
        }
    };
    match kind {
        CsvKind::Nodes { id, group, label } => {
            let label = match label {
                Some(i) => {
                    let l = field(*i, "label")?;
                    check_name("label", l)?;
                    if l.contains(';') {
                        return Err(format!(
                            "node has several labels `{l}`; Cairn nodes have exactly one"
                        ));
                    }
                    l.to_owned()
                }
                None => group.clone().unwrap_or_default(),
            };
            Ok(Record::Node(DumpNode {
                label,
                key: field(*id, "id")?.to_owned(),
                props,
                description,
                vector,
            }))
        }
        CsvKind::Edges {
            start,
            start_group,
            end,
            end_group,
            rel,
        } => Ok(Record::Edge(EdgeRef {
            rel: field(*rel, "relation type (:TYPE)")
                .and_then(|r| check_name("relation type", r).map(|()| r))?,
            from_label: start_group.as_deref().unwrap_or_default(),
            from_key: field(*start, "start id")?,
            to_label: end_group.as_deref().unwrap_or_default(),
            to_key: field(*end, "end id")?,
            props,
            weight,
        })),
    }
}

/// Whether a file is read as triples by its name: `.tsv`, `.triples` or N-Triples `.nt`,
/// optionally `.gz`.
pub fn named_as_triples(name: &str) -> bool {
    name.ends_with(".tsv") || name.ends_with(".triples") || named_as_ntriples(name)
}

/// Whether a file is N-Triples by its name: `.nt` (the caller strips a `.gz`).
pub(crate) fn named_as_ntriples(name: &str) -> bool {
    name.ends_with(".nt")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quote check, a byte at a time: the definition [`QuoteCheck::track`] must agree with.
    /// `Err` at text right after a closing quote.
    fn track_bytewise(
        state: &mut QuoteState,
        line: &mut u64,
        opened_on: &mut u64,
        bytes: &[u8],
    ) -> Result<(), ()> {
        use QuoteState::*;
        for &b in bytes {
            *state = match (*state, b) {
                (FieldStart, b'"') => {
                    *opened_on = *line;
                    Quoted
                }
                (Quoted, b'"') => QuoteInQuoted,
                (Quoted, _) => Quoted,
                (QuoteInQuoted, b'"') => Quoted,
                (_, b',' | b'\n' | b'\r') => FieldStart,
                (QuoteInQuoted, _) => return Err(()),
                _ => Unquoted,
            };
            if b == b'\n' {
                *line += 1;
            }
        }
        Ok(())
    }

    /// Random mixes of quotes, separators, line ends and text, fed in random pieces: the same
    /// state, line and opening line as the byte-at-a-time check after every piece, and the
    /// same piece refused. Half without text, so that most inputs run to their end.
    #[test]
    fn the_quote_check_agrees_with_the_bytewise_one() {
        let alphabets: [&[u8]; 2] = [b"\"\",,\n\rab ", b"\"\"\",,\n\r"];
        let mut next = crate::test_numbers(3);
        let (mut refused, mut whole) = (0, 0);
        for round in 0..6000 {
            let alphabet = alphabets[round % 2];
            let len = next(60) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| alphabet[next(alphabet.len() as u64) as usize])
                .collect();
            let mut check = QuoteCheck::new(std::io::empty());
            let (mut state, mut line, mut opened) = (QuoteState::FieldStart, 1u64, 0u64);
            let mut at = 0;
            while at < bytes.len() {
                let end = (at + 1 + next(8) as usize).min(bytes.len());
                let fast = check.track(&bytes[at..end]);
                let slow = track_bytewise(&mut state, &mut line, &mut opened, &bytes[at..end]);
                let input = String::from_utf8_lossy(&bytes);
                assert_eq!(fast.is_err(), slow.is_err(), "{input:?}");
                if let Err(e) = fast {
                    assert_eq!(e.line, opened, "{input:?}");
                    refused += 1;
                    break;
                }
                assert!(check.state == state, "{input:?}");
                assert_eq!((check.line, check.opened_on), (line, opened));
                at = end;
            }
            whole += usize::from(at == bytes.len());
        }
        assert!(refused > 1000 && whole > 1000, "{refused} {whole}");
    }

    #[test]
    fn header_fields() {
        assert_eq!(
            parse_header_field("key:ID(Author)"),
            Ok(Column::Id(Some("Author".into())))
        );
        assert_eq!(parse_header_field(":ID"), Ok(Column::Id(None)));
        assert_eq!(
            parse_header_field(":START_ID(Paper)"),
            Ok(Column::StartId(Some("Paper".into())))
        );
        assert_eq!(
            parse_header_field("year:int"),
            Ok(Column::Prop {
                name: "year".into(),
                ty: PropType::Int,
                array: false
            })
        );
        assert_eq!(
            parse_header_field("tags:string[]"),
            Ok(Column::Prop {
                name: "tags".into(),
                ty: PropType::Str,
                array: true
            })
        );
        assert_eq!(
            parse_header_field("name"),
            Ok(Column::Prop {
                name: "name".into(),
                ty: PropType::Str,
                array: false
            })
        );
        assert!(parse_header_field("x:date").is_err());
        assert!(parse_header_field(":int").is_err());
    }
}
