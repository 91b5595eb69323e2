//! The JSON the tools reply with. Text from the graph (names, descriptions, property values)
//! only ever appears as JSON string values, never spliced into the server's own words.

use cairn::agent::AskOutcome;
use cairn::{
    Cairn, CairnError, Direction, Exploration, Neighbors, NodeId, NodeView, PathStep, Schema, Value,
};
use serde_json::{json, Map, Value as Json};

/// A property value: null, bool, number, string or array.
pub(crate) fn value(v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => json!(b),
        Value::Int(i) => json!(i),
        Value::Float(f) => json!(f),
        Value::Str(s) => json!(s),
        Value::List(items) => Json::Array(items.iter().map(value).collect()),
    }
}

pub(crate) fn direction(d: Direction) -> &'static str {
    match d {
        Direction::Out => "out",
        Direction::In => "in",
        Direction::Both => "both",
    }
}

/// A node's metadata: id, label, key, name, description, degrees; with `properties` too.
pub(crate) fn node(n: &NodeView, properties: bool) -> Json {
    let mut o = json!({
        "id": n.id.0, "label": n.label, "key": n.key, "name": n.name,
        "description": n.description, "out_degree": n.out_degree, "in_degree": n.in_degree,
    });
    if properties {
        let props: Map<String, Json> = n
            .properties
            .iter()
            .map(|(k, v)| (k.clone(), value(v)))
            .collect();
        o["properties"] = Json::Object(props);
    }
    o
}

pub(crate) fn neighbors(n: &Neighbors) -> Json {
    let items: Vec<Json> = n
        .items
        .iter()
        .map(|e| {
            json!({"relation": e.relation, "direction": direction(e.direction), "id": e.id.0,
                   "label": e.label, "key": e.key, "name": e.name})
        })
        .collect();
    let by_relation: Vec<Json> = n
        .by_relation
        .iter()
        .map(|(r, d, count)| json!({"relation": r, "direction": direction(*d), "edges": count}))
        .collect();
    json!({"neighbors": items, "total": n.total, "by_relation": by_relation})
}

/// An evidence path in words (`Ann -AUTHORED-> Paper <-AUTHORED- Bo`), with the steps.
fn path(db: &Cairn, steps: &[PathStep], end: Option<NodeId>) -> Result<(String, Json), CairnError> {
    let mut ids: Vec<NodeId> = steps.iter().map(|s| s.from).collect();
    ids.extend(end);
    let names = db.names(&ids)?;
    let mut text = names.first().cloned().unwrap_or_default();
    for (s, name) in steps.iter().zip(names.iter().skip(1)) {
        if s.reversed {
            text.push_str(&format!(" <-{}- {name}", s.relation));
        } else {
            text.push_str(&format!(" -{}-> {name}", s.relation));
        }
    }
    let steps = steps
        .iter()
        .map(|s| json!({"from": s.from.0, "relation": s.relation, "reversed": s.reversed, "to": s.to.0}))
        .collect();
    Ok((text, Json::Array(steps)))
}

/// An exploration's results (at most `max`), stop, sufficiency and counters; the second value
/// is how many results there were.
pub(crate) fn exploration(
    db: &Cairn,
    e: &Exploration,
    max: usize,
) -> Result<(Json, usize), CairnError> {
    let mut results = Vec::new();
    for r in e.results.iter().take(max) {
        let (evidence, steps) = path(db, &r.path, Some(r.node))?;
        results.push(json!({
            "id": r.node.0, "label": r.label, "key": r.key, "name": r.name, "score": r.score,
            "semantic": r.semantic, "hops": r.hops, "evidence": evidence, "path": steps,
        }));
    }
    let mut o = json!({
        "results": results, "stop": e.stop.to_string(), "sufficiency": e.sufficiency,
        "return": e.ret.to_string(),
        "stats": {"nodes_expanded": e.stats.nodes_expanded, "edges_scanned": e.stats.edges_scanned,
                  "nodes_scored": e.stats.nodes_scored, "elapsed_ms": e.stats.elapsed.as_secs_f64() * 1e3},
    });
    if let Some(c) = e.count {
        o["count"] = json!(c);
    }
    Ok((o, e.results.len()))
}

/// An ASK outcome: the answer, its items (at most `max`) with evidence, the validation.
pub(crate) fn answer(db: &Cairn, o: &AskOutcome, max: usize) -> Result<(Json, usize), CairnError> {
    let a = &o.answer;
    let mut items = Vec::new();
    for i in a.items.iter().take(max) {
        let (evidence, steps) = path(db, &i.evidence, i.node)?;
        items.push(json!({
            "id": i.node.map(|n| n.0), "label": i.label, "key": i.key, "name": i.name,
            "value": i.value, "support": i.support, "evidence": evidence, "path": steps,
        }));
    }
    let v = &o.validation;
    Ok((
        json!({
            "question": o.plan.question, "type": o.plan.qtype.name(), "answer": a.text,
            "values": a.values(), "count": a.count, "items": items, "uncertain": a.uncertain,
            "partial": a.partial,
            "validation": {"score": v.score, "entities": v.entities, "relations": v.relations,
                           "attributes": v.attributes, "problems": v.problems},
            "plan": o.plan.plan.to_string(),
        }),
        a.items.len(),
    ))
}

pub(crate) fn schema(s: &Schema) -> Json {
    let labels: Vec<Json> = s
        .labels
        .iter()
        .map(|l| {
            json!({"name": l.name, "description": l.description, "aliases": l.aliases,
                   "indexed": l.indexed})
        })
        .collect();
    let relations: Vec<Json> = s
        .relations
        .iter()
        .map(|r| {
            let ends: Vec<Json> = r
                .endpoints
                .iter()
                .map(|(a, b)| json!({"from": a, "to": b}))
                .collect();
            json!({"name": r.name, "parent": r.parent, "endpoints": ends,
                   "description": r.description, "aliases": r.aliases})
        })
        .collect();
    json!({
        "labels": labels, "relations": relations, "properties": s.properties,
        "embedder": s.embedder, "approx_nodes": s.approx_nodes, "approx_edges": s.approx_edges,
    })
}
