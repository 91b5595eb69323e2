//! The JSON documents `--format json` prints (docs/JSON.md): one envelope for every statement
//! kind, the stats and errors, versioned by [`VERSION`]. One document per statement, one line
//! each (JSON Lines), on standard output; errors on standard error.

use super::Failure;
use cairn::{Description, Done, Graph, Listing, Plan};
use miette::SourceSpan;
use serde_json::{json, Map, Value};
use std::path::Path;

/// The schema version every document carries as `"cairn"`. A field may be added within a
/// version; a field removed or changed in meaning is a new version.
pub(crate) const VERSION: u64 = 1;

/// `{"cairn": VERSION, "kind": kind, …body}`: the envelope around every document. `body` is an
/// object; its fields follow the two.
pub(crate) fn document(kind: &str, body: Value) -> Value {
    let mut doc = Map::new();
    doc.insert("cairn".into(), json!(VERSION));
    doc.insert("kind".into(), json!(kind));
    if let Value::Object(fields) = body {
        doc.extend(fields);
    }
    Value::Object(doc)
}

/// Prints a document on one line of standard output.
pub(crate) fn print(doc: &Value) {
    outln!("{doc}");
}

/// `EXPLAIN`.
pub(crate) fn plan(p: &Plan) -> Value {
    document(
        "plan",
        json!({"statement": p.statement, "question_type": p.question_type, "plan": p.text}),
    )
}

/// `SHOW …`.
pub(crate) fn listing(l: &Listing) -> Value {
    let (what, items) = match l {
        Listing::Labels(labels) => ("labels", json!(labels)),
        Listing::Relations(rels) => (
            "relations",
            json!(rels
                .iter()
                .map(|r| json!({"name": r.name, "parent": r.parent, "endpoints": endpoints(&r.endpoints)}))
                .collect::<Vec<_>>()),
        ),
        Listing::Indexes(indexes) => (
            "indexes",
            json!(indexes
                .iter()
                .map(|i| json!({"label": i.label, "property": i.property}))
                .collect::<Vec<_>>()),
        ),
        Listing::Strategies(s) => (
            "strategies",
            serde_json::to_value(s).unwrap_or(Value::Null),
        ),
    };
    document("listing", json!({"what": what, "items": items}))
}

fn endpoints(pairs: &[(String, String)]) -> Value {
    json!(pairs
        .iter()
        .map(|(from, to)| json!({"from": from, "to": to}))
        .collect::<Vec<_>>())
}

/// `DESCRIBE Label`.
pub(crate) fn description(d: &Description) -> Value {
    let properties: Vec<Value> = d
        .properties
        .iter()
        .map(|(name, count)| json!({"name": name, "count": count}))
        .collect();
    let relations: Vec<Value> = d
        .relations
        .iter()
        .map(|r| json!({"relation": r.relation, "endpoints": endpoints(&r.endpoints), "annotation": r.annotation}))
        .collect();
    document(
        "description",
        json!({"label": d.label, "nodes": d.nodes, "sampled": d.sampled, "properties": properties,
               "annotations": d.annotations, "indexes": d.indexes, "relations": relations}),
    )
}

/// A statement that changed the database or the session.
pub(crate) fn done(d: &Done) -> Value {
    document(
        "done",
        json!({"statement": d.statement, "outcome": d.outcome, "statements": d.statements, "message": d.message}),
    )
}

/// `cairn stats --format json` and the REPL's `.stats`: schema and size estimates.
pub(crate) fn stats(graph: &Graph, db: &Path) -> Result<Value, Failure> {
    let c = graph.catalog();
    let label = |id| c.label_name(id).unwrap_or("?").to_owned();
    let mut labels: Vec<&str> = c.labels().map(|(_, n)| n).collect();
    labels.sort_unstable();
    let relations: Vec<Value> = c
        .relations()
        .map(|(_, r)| {
            let pairs: Vec<(String, String)> =
                r.endpoints.iter().map(|(s, d)| (label(*s), label(*d))).collect();
            json!({"name": r.name, "parent": r.parent.and_then(|p| c.relation_name(p)), "endpoints": endpoints(&pairs)})
        })
        .collect();
    let indexes: Vec<Value> = c
        .indexes()
        .iter()
        .map(|i| json!({"label": label(i.label), "property": c.prop_name(i.prop).unwrap_or("?")}))
        .collect();
    let properties: Vec<&str> = c.prop_keys().map(|(_, n)| n).collect();
    let embedder = c.embedder().map(|e| json!({"id": e.id, "dim": e.dim}));
    Ok(document(
        "stats",
        json!({
            "database": db.display().to_string(),
            "nodes_estimate": graph.estimate_keys("node")?,
            "edges_estimate": graph.estimate_keys("out")?,
            "labels": labels, "relations": relations, "indexes": indexes, "properties": properties,
            "embedder": embedder,
        }),
    ))
}

/// An error as a document for standard error: the exit code, the message, the help, and where
/// in the statement (or the script file) it points when it points somewhere.
pub(crate) fn error(f: &Failure) -> Value {
    let r = &f.report;
    let mut body = json!({
        "exit": f.code,
        "message": r.to_string(),
        "code": r.code().map(|c| c.to_string()),
        "help": r.help().map(|h| h.to_string()),
    });
    if let Some(at) = location(r) {
        body["location"] = at;
    }
    document("error", body)
}

/// The primary label of a diagnostic with source: the file (a script) or `null` (a statement
/// given on the command line or typed), 1-based line and column (in characters), the byte
/// offset and length in that source, and the label's text.
fn location(r: &miette::Report) -> Option<Value> {
    let source = r.source_code()?;
    let mut labels: Vec<miette::LabeledSpan> = r.labels()?.collect();
    let at = labels
        .iter()
        .position(miette::LabeledSpan::primary)
        .unwrap_or(0);
    if labels.is_empty() {
        return None;
    }
    let label = labels.swap_remove(at);
    let span: SourceSpan = *label.inner();
    // Every line before the span as context: the contents start at the source's start.
    let contents = source.read_span(&span, usize::MAX, 0).ok()?;
    let before = contents.data().get(..span.offset())?;
    let before = String::from_utf8_lossy(before);
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.matches('\n').count() + 1;
    // In characters, not bytes.
    let column = before[line_start..].chars().count() + 1;
    Some(json!({
        "source": contents.name(),
        "line": line,
        "column": column,
        "offset": span.offset(),
        "length": span.len(),
        "label": label.label(),
    }))
}

/// The JSON form of what the statement produced other than an exploration or an answer.
pub(crate) fn output(out: &cairn::Output) -> Option<Value> {
    match out {
        cairn::Output::Plan(p) => Some(plan(p)),
        cairn::Output::Listing(l) => Some(listing(l)),
        cairn::Output::Description(d) => Some(description(d)),
        cairn::Output::Done(d) => Some(done(d)),
        cairn::Output::Exploration(_) | cairn::Output::Answer(_) => None,
    }
}
