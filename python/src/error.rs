//! Cairn's errors as the typed Python exceptions of `cairn/errors.py`: a statement error carries
//! its position (offset, line, column) and the text with a caret, an import error its file and
//! line, a database error what to do.

use cairn::query::QueryError;
use cairn::{CairnError, EngineError, ImportError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The error a caller sees: the exception class (a name in `cairn.errors`), its message and
/// the attributes it carries.
pub(crate) struct Raised {
    class: &'static str,
    message: String,
    details: Vec<(&'static str, Detail)>,
}

/// An attribute of an exception.
pub(crate) enum Detail {
    Int(u64),
    Text(String),
    Lines(Vec<(String, u64, String)>),
}

impl Raised {
    pub(crate) fn new(class: &'static str, message: impl Into<String>) -> Self {
        Raised {
            class,
            message: message.into(),
            details: Vec::new(),
        }
    }

    fn with(mut self, key: &'static str, value: Detail) -> Self {
        self.details.push((key, value));
        self
    }

    /// The Python exception (built while attached to the interpreter).
    pub(crate) fn into_pyerr(self, py: Python<'_>) -> PyErr {
        match self.build(py) {
            Ok(e) => e,
            Err(e) => e,
        }
    }

    fn build(self, py: Python<'_>) -> PyResult<PyErr> {
        let class = py.import("cairn.errors")?.getattr(self.class)?;
        let kwargs = PyDict::new(py);
        for (key, value) in self.details {
            match value {
                Detail::Int(n) => kwargs.set_item(key, n)?,
                Detail::Text(s) => kwargs.set_item(key, s)?,
                Detail::Lines(lines) => kwargs.set_item(key, lines)?,
            }
        }
        let instance = class.call((self.message,), Some(&kwargs))?;
        Ok(PyErr::from_value(instance))
    }
}

/// The exception for `e`; `statement` is the text a statement error points into.
pub(crate) fn raised(e: CairnError, statement: Option<&str>) -> Raised {
    match e {
        CairnError::Query(q) => query_error(&q, statement),
        CairnError::Engine(e) => engine_error(e),
        CairnError::Import(ImportError::Engine(e)) => engine_error(e),
        CairnError::Import(e) => import_error(e),
        CairnError::Transaction(m) => Raised::new("TransactionError", m),
        CairnError::NoSuchNode(n) => Raised::new("InvalidInputError", format!("no node {n}")),
        CairnError::Agent(e) => Raised::new("AskError", e.to_string()),
        e @ CairnError::EmbedderUnavailable { .. } => {
            Raised::new("DatabaseError", with_sources(&e))
        }
        e => Raised::new("Error", with_sources(&e)),
    }
}

/// The message with its causes, as `a: b: c`.
fn with_sources(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

fn engine_error(e: EngineError) -> Raised {
    let class = match &e {
        EngineError::Missing { .. } => "DatabaseNotFoundError",
        EngineError::Locked { .. } => "DatabaseLockedError",
        EngineError::ReadOnly { .. } => "ReadOnlyError",
        EngineError::WriterBusy { .. } => "WriterBusyError",
        EngineError::Invalid(_) | EngineError::UnknownName { .. } => "InvalidInputError",
        EngineError::NodeNotFound(_) => "InvalidInputError",
        _ => "DatabaseError",
    };
    let mut message = e.to_string();
    if class == "DatabaseLockedError" {
        message.push_str("; open it with read_only=True to read beside the process that writes it");
    }
    Raised::new(class, message)
}

fn import_error(e: ImportError) -> Raised {
    let message = e.to_string();
    let raised = Raised::new("ImportDataError", message);
    match e {
        ImportError::BadLines { errors, .. } => {
            let lines = errors
                .iter()
                .map(|l| (l.file.display().to_string(), l.line, l.reason.clone()))
                .collect();
            raised.with("lines", Detail::Lines(lines))
        }
        ImportError::Corrupt(l) => raised.with(
            "lines",
            Detail::Lines(vec![(l.file.display().to_string(), l.line, l.reason)]),
        ),
        _ => raised,
    }
}

/// A statement error with where it points: the character offset (Python's, not bytes), the
/// 1-based line and column, the code, the help line and the text with a caret.
fn query_error(q: &QueryError, statement: Option<&str>) -> Raised {
    let kind = q.kind();
    let span = q.span();
    let mut raised =
        Raised::new("QueryError", q.to_string()).with("code", Detail::Text(kind.code().to_owned()));
    if let Some(help) = kind.help() {
        raised = raised.with("help", Detail::Text(help));
    }
    if let Some(text) = statement {
        let at = floor_boundary(text, span.start);
        let end = floor_boundary(text, span.end.max(span.start));
        let before = &text[..at];
        let line = before.matches('\n').count() as u64 + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u64 + 1;
        raised = raised
            .with("statement", Detail::Text(text.to_owned()))
            .with("position", Detail::Int(before.chars().count() as u64))
            .with("end", Detail::Int(text[..end].chars().count() as u64))
            .with("line", Detail::Int(line))
            .with("column", Detail::Int(column))
            .with(
                "rendered",
                Detail::Text(q.clone().with_source(text).render_plain(100)),
            );
    }
    raised
}

/// The largest char boundary of `text` at or before `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// A `CairnError` as a `PyErr` (attaches to the interpreter to build it).
pub(crate) fn to_pyerr(py: Python<'_>, e: CairnError, statement: Option<&str>) -> PyErr {
    raised(e, statement).into_pyerr(py)
}
