//! Conversions between Cairn's values and results and Python's built-in types. Results go out
//! as tuples, lists and dicts; `cairn/__init__.py` wraps them in the package's classes.

use cairn::agent::AskOutcome;
use cairn::exec::TraceEvent;
use cairn::{
    Direction, Exploration, ImportSummary, NeighborView, NodeId, NodeView, PathStep, Schema, Value,
};
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// A property value as Python: None, bool, int, float, str or a list of them.
pub(crate) fn value<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Int(i) => i.into_pyobject(py)?.into_any(),
        Value::Float(f) => PyFloat::new(py, *f).into_any(),
        Value::Str(s) => PyString::new(py, s).into_any(),
        Value::List(items) => {
            let items = items
                .iter()
                .map(|x| value(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
    })
}

/// A Python value as a property value; anything but None, bool, int, float, str and lists or
/// tuples of them is a `TypeError` naming `what`.
pub(crate) fn to_value(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    // bool before int: True is an int in Python
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        return obj
            .extract::<i64>()
            .map(Value::Int)
            .map_err(|_| PyOverflowError::new_err(format!("{what}: integers are 64-bit")));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(Value::Float(f.value()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::Str(s.extract::<String>()?));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for item in obj.try_iter()? {
            items.push(to_value(&item?, what)?);
        }
        return Ok(Value::List(items));
    }
    Err(PyTypeError::new_err(format!(
        "{what}: a property value is None, bool, int, float, str or a list of them, not {}",
        obj.get_type().name()?
    )))
}

/// A dict of property values as (name, value) pairs, in the dict's order.
pub(crate) fn to_props(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<(String, Value)>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(Vec::new());
    };
    let dict = obj
        .cast::<PyDict>()
        .map_err(|_| PyTypeError::new_err("properties must be a dict of name to value"))?;
    let mut props = Vec::with_capacity(dict.len());
    for (k, v) in dict.iter() {
        let name: String = k
            .extract()
            .map_err(|_| PyTypeError::new_err("property names must be str"))?;
        let value = to_value(&v, &format!("property {name:?}"))?;
        props.push((name, value));
    }
    Ok(props)
}

/// `"out"`, `"in"` or `"both"`.
pub(crate) fn direction(name: &str) -> PyResult<Direction> {
    match name {
        "out" => Ok(Direction::Out),
        "in" => Ok(Direction::In),
        "both" => Ok(Direction::Both),
        other => Err(PyValueError::new_err(format!(
            "direction must be \"out\", \"in\" or \"both\", not {other:?}"
        ))),
    }
}

pub(crate) fn direction_name(d: Direction) -> &'static str {
    match d {
        Direction::Out => "out",
        Direction::In => "in",
        Direction::Both => "both",
    }
}

/// A node: a dict of its id, label, key, name, description, degrees and properties.
pub(crate) fn node<'py>(py: Python<'py>, n: &NodeView) -> PyResult<Bound<'py, PyAny>> {
    let props = PyDict::new(py);
    for (k, v) in &n.properties {
        props.set_item(k, value(py, v)?)?;
    }
    let d = PyDict::new(py);
    d.set_item("id", n.id.0)?;
    d.set_item("label", &n.label)?;
    d.set_item("key", &n.key)?;
    d.set_item("name", &n.name)?;
    d.set_item("description", &n.description)?;
    d.set_item("out_degree", n.out_degree)?;
    d.set_item("in_degree", n.in_degree)?;
    d.set_item("properties", props)?;
    Ok(d.into_any())
}

pub(crate) fn optional_node<'py>(
    py: Python<'py>,
    n: Option<&NodeView>,
) -> PyResult<Bound<'py, PyAny>> {
    match n {
        Some(n) => node(py, n),
        None => Ok(py.None().into_bound(py)),
    }
}

/// A neighbour: (relation, direction, id, label, key, name).
pub(crate) fn neighbor<'py>(py: Python<'py>, n: &NeighborView) -> PyResult<Bound<'py, PyAny>> {
    Ok((
        &n.relation,
        direction_name(n.direction),
        n.id.0,
        &n.label,
        &n.key,
        &n.name,
    )
        .into_pyobject(py)?
        .into_any())
}

/// An evidence path: a list of (from, relation, reversed, to).
fn path<'py>(py: Python<'py>, steps: &[PathStep]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(
        py,
        steps
            .iter()
            .map(|s| (s.from.0, s.relation.as_str(), s.reversed, s.to.0)),
    )
}

/// An exploration: (results, stop, sufficiency, stats, return kind, count, trace), each result
/// (id, label, key, name, score, semantic, hops, path).
pub(crate) fn exploration<'py>(py: Python<'py>, e: &Exploration) -> PyResult<Bound<'py, PyAny>> {
    let mut results = Vec::with_capacity(e.results.len());
    for r in &e.results {
        results.push(
            (
                r.node.0,
                r.label.as_str(),
                r.key.as_str(),
                r.name.as_str(),
                r.score,
                r.semantic,
                r.hops,
                path(py, &r.path)?,
            )
                .into_pyobject(py)?,
        );
    }
    let stats = PyDict::new(py);
    stats.set_item("nodes_expanded", e.stats.nodes_expanded)?;
    stats.set_item("edges_scanned", e.stats.edges_scanned)?;
    stats.set_item("nodes_scored", e.stats.nodes_scored)?;
    stats.set_item("cache_hits", e.stats.cache_hits)?;
    stats.set_item("rounds", e.stats.rounds)?;
    stats.set_item("neighbors_sampled_out", e.stats.neighbors_sampled_out)?;
    stats.set_item("adaptive_expansions", e.stats.adaptive_expansions)?;
    stats.set_item("elapsed_ms", e.stats.elapsed.as_secs_f64() * 1e3)?;
    let trace = e
        .trace
        .iter()
        .map(|t| trace_event(py, t))
        .collect::<PyResult<Vec<_>>>()?;
    Ok((
        PyList::new(py, results)?,
        e.stop.to_string(),
        e.sufficiency,
        stats,
        e.ret.to_string(),
        e.count,
        PyList::new(py, trace)?,
    )
        .into_pyobject(py)?
        .into_any())
}

/// One search decision as a dict with its `event` name and fields.
fn trace_event<'py>(py: Python<'py>, t: &TraceEvent) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let id = |n: &NodeId| n.0;
    match t {
        TraceEvent::Entry { node, score } => {
            d.set_item("event", "entry")?;
            d.set_item("node", id(node))?;
            d.set_item("score", score)?;
        }
        TraceEvent::Expand {
            round,
            node,
            hops,
            score,
        } => {
            d.set_item("event", "expand")?;
            d.set_item("round", round)?;
            d.set_item("node", id(node))?;
            d.set_item("hops", hops)?;
            d.set_item("score", score)?;
        }
        TraceEvent::Scored {
            node,
            from,
            relation,
            semantic,
            connectivity,
            distance,
            score,
        } => {
            d.set_item("event", "scored")?;
            d.set_item("node", id(node))?;
            d.set_item("from", id(from))?;
            d.set_item("relation", relation)?;
            d.set_item("semantic", semantic)?;
            d.set_item("connectivity", connectivity)?;
            d.set_item("distance", distance)?;
            d.set_item("score", score)?;
        }
        TraceEvent::Revisit {
            node,
            old_score,
            new_score,
        } => {
            d.set_item("event", "revisit")?;
            d.set_item("node", id(node))?;
            d.set_item("old_score", old_score)?;
            d.set_item("new_score", new_score)?;
        }
        TraceEvent::Sampled { node, kept, of } => {
            d.set_item("event", "sampled")?;
            d.set_item("node", id(node))?;
            d.set_item("kept", kept)?;
            d.set_item("of", of)?;
        }
        TraceEvent::Fallback {
            node,
            relation,
            parent,
            siblings,
        } => {
            d.set_item("event", "fallback")?;
            d.set_item("node", id(node))?;
            d.set_item("relation", relation)?;
            d.set_item("parent", parent)?;
            d.set_item("siblings", siblings)?;
        }
        TraceEvent::Adapt {
            beam,
            depth,
            sufficiency,
        } => {
            d.set_item("event", "adapt")?;
            d.set_item("beam", beam)?;
            d.set_item("depth", depth)?;
            d.set_item("sufficiency", sufficiency)?;
        }
        TraceEvent::Round {
            round,
            frontier,
            results,
            sufficiency,
        } => {
            d.set_item("event", "round")?;
            d.set_item("round", round)?;
            d.set_item("frontier", frontier)?;
            d.set_item("results", results)?;
            d.set_item("sufficiency", sufficiency)?;
        }
        TraceEvent::Stop {
            reason,
            sufficiency,
        } => {
            d.set_item("event", "stop")?;
            d.set_item("reason", reason.to_string())?;
            d.set_item("sufficiency", sufficiency)?;
        }
    }
    Ok(d)
}

/// An ASK outcome as a dict: the answer, its items with their evidence, the validation, the
/// plan, and the id feedback names it by.
pub(crate) fn answer<'py>(py: Python<'py>, o: &AskOutcome) -> PyResult<Bound<'py, PyAny>> {
    let a = &o.answer;
    let mut items = Vec::with_capacity(a.items.len());
    for i in &a.items {
        let d = PyDict::new(py);
        d.set_item("id", i.node.map(|n| n.0))?;
        d.set_item("label", &i.label)?;
        d.set_item("key", &i.key)?;
        d.set_item("name", &i.name)?;
        d.set_item("value", &i.value)?;
        d.set_item("support", i.support)?;
        d.set_item("path", path(py, &i.evidence)?)?;
        items.push(d);
    }
    let v = &o.validation;
    let validation = PyDict::new(py);
    validation.set_item("score", v.score)?;
    validation.set_item("entities", v.entities)?;
    validation.set_item("relations", v.relations)?;
    validation.set_item("attributes", v.attributes)?;
    validation.set_item("problems", &v.problems)?;
    let d = PyDict::new(py);
    d.set_item("question", &o.plan.question)?;
    d.set_item("type", o.plan.qtype.name())?;
    d.set_item("text", &a.text)?;
    d.set_item("values", a.values())?;
    d.set_item("count", a.count)?;
    d.set_item("items", PyList::new(py, items)?)?;
    d.set_item("uncertain", a.uncertain)?;
    d.set_item("partial", a.partial)?;
    d.set_item("by_llm", a.by_llm)?;
    d.set_item("validation", validation)?;
    d.set_item("plan", o.plan.plan.to_string())?;
    d.set_item("judge", &o.verdict.reason)?;
    d.set_item("expansions", o.expansions)?;
    d.set_item("regenerations", o.regenerations)?;
    d.set_item("answer_id", o.answer_id)?;
    Ok(d.into_any())
}

/// An import summary as a dict.
pub(crate) fn import_summary<'py>(
    py: Python<'py>,
    s: &ImportSummary,
) -> PyResult<Bound<'py, PyAny>> {
    let d = PyDict::new(py);
    d.set_item("records", s.records)?;
    d.set_item("nodes_created", s.nodes_created)?;
    d.set_item("nodes_updated", s.nodes_updated)?;
    d.set_item("nodes_unchanged", s.nodes_unchanged)?;
    d.set_item("edges_created", s.edges_created)?;
    d.set_item("edges_updated", s.edges_updated)?;
    d.set_item("edges_unchanged", s.edges_unchanged)?;
    d.set_item("vectors_computed", s.vectors_computed)?;
    d.set_item("seconds", s.elapsed.as_secs_f64())?;
    let skipped: Vec<(String, u64, String)> = s
        .skipped
        .iter()
        .map(|l| (l.file.display().to_string(), l.line, l.reason.clone()))
        .collect();
    d.set_item("skipped", skipped)?;
    Ok(d.into_any())
}

/// The schema as a dict of labels, relations, properties, embedder and size estimates.
pub(crate) fn schema<'py>(py: Python<'py>, s: &Schema) -> PyResult<Bound<'py, PyAny>> {
    let labels = PyList::empty(py);
    for l in &s.labels {
        let d = PyDict::new(py);
        d.set_item("name", &l.name)?;
        d.set_item("description", &l.description)?;
        d.set_item("aliases", &l.aliases)?;
        d.set_item("indexed", &l.indexed)?;
        labels.append(d)?;
    }
    let relations = PyList::empty(py);
    for r in &s.relations {
        let d = PyDict::new(py);
        d.set_item("name", &r.name)?;
        d.set_item("parent", &r.parent)?;
        d.set_item("endpoints", &r.endpoints)?;
        d.set_item("description", &r.description)?;
        d.set_item("aliases", &r.aliases)?;
        relations.append(d)?;
    }
    let d = PyDict::new(py);
    d.set_item("labels", labels)?;
    d.set_item("relations", relations)?;
    d.set_item("properties", &s.properties)?;
    d.set_item("embedder", &s.embedder)?;
    d.set_item("approx_nodes", s.approx_nodes)?;
    d.set_item("approx_edges", s.approx_edges)?;
    Ok(d.into_any())
}
