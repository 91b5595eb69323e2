//! How `cairn query` and the REPL show an exploration: one form per `RETURN` kind, as a table
//! or as JSON (docs/LANGUAGE.md, "RETURN").

use super::display::{self, cell};
use super::{Failure, OutputFormat};
use cairn::exec::TraceEvent;
use cairn::query::ast::ReturnKind;
use cairn::{AggregateRow, Cairn, Exploration, GraphRead, GroupValue, NodeId, ResultNode, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Duration;

/// A trace can hold thousands of events on a large graph; past this many the rest is counted.
const TRACE_LIMIT: usize = 1000;

/// Prints `e` as its statement's `RETURN` kind asks.
pub(crate) fn exploration(
    cairn: &Cairn,
    e: &Exploration,
    format: OutputFormat,
    elapsed: Duration,
) -> Result<(), Failure> {
    match (e.ret, format) {
        (ReturnKind::Nodes, OutputFormat::Table) if !e.columns.is_empty() => {
            print_columns(cairn, e, elapsed)
        }
        (ReturnKind::Nodes, OutputFormat::Table) => print_table(cairn, e, elapsed),
        (ReturnKind::Aggregate, OutputFormat::Table) => {
            print_aggregate(e);
            outln!(
                "{} row(s); exact; {} edges listed; {:.1} ms",
                e.rows.len(),
                e.stats.edges_scanned,
                elapsed.as_secs_f64() * 1e3
            );
            Ok(())
        }
        (ReturnKind::Paths, OutputFormat::Table) => print_paths(cairn, e, elapsed),
        (ReturnKind::Subgraph, OutputFormat::Table) => print_subgraph(cairn, e, elapsed),
        (ReturnKind::Answer, OutputFormat::Table) => print_answer(cairn, e),
        (ReturnKind::Count, OutputFormat::Table) => {
            outln!("count: {}", e.count.unwrap_or(0));
            outln!(
                "exact; {} edges listed; {:.1} ms",
                e.stats.edges_scanned,
                elapsed.as_secs_f64() * 1e3
            );
            Ok(())
        }
        (ReturnKind::Trace, OutputFormat::Table) => {
            print_trace(cairn, &e.trace)?;
            outln!("{}", summary(e, elapsed));
            Ok(())
        }
        (kind, OutputFormat::Json) => {
            let mut doc = match kind {
                ReturnKind::Nodes => nodes_json(cairn, e)?,
                ReturnKind::Paths => paths_json(cairn, e)?,
                ReturnKind::Subgraph => subgraph_json(cairn, e)?,
                ReturnKind::Answer => answer_json(cairn, e)?,
                ReturnKind::Count => serde_json::json!({"count": e.count.unwrap_or(0)}),
                ReturnKind::Aggregate => aggregate_json(e),
                ReturnKind::Trace => serde_json::json!({
                    "trace": trace_lines(cairn, &e.trace)?, "events": e.trace.len(),
                }),
            };
            doc["return"] = serde_json::json!(kind.to_string());
            doc["stop"] = serde_json::json!(e.stop.to_string());
            doc["complete"] = serde_json::json!(!e.incomplete());
            doc["sufficiency"] = serde_json::json!(e.sufficiency);
            doc["stats"] = stats_json(e);
            // `.trace on` in the REPL: the decisions beside what the statement returns.
            if !e.trace.is_empty() && kind != ReturnKind::Trace {
                doc["trace"] = serde_json::json!(trace_lines(cairn, &e.trace)?);
                doc["events"] = serde_json::json!(e.trace.len());
            }
            super::json::print(&super::json::document("exploration", doc));
            Ok(())
        }
    }
}

/// The last line of every table form: how the search went. A run cut by a hard cap says it
/// is incomplete: what it found is what it had by then, and none is "not found yet".
fn summary(e: &Exploration, elapsed: Duration) -> String {
    let stop = match e.stop {
        cairn::StopReason::BudgetCap => format!(
            "stopped: {}; INCOMPLETE: the budget ran out before the search was done (raise BUDGET)",
            e.stop
        ),
        s if s.incomplete() => {
            format!("stopped: {s}; INCOMPLETE: cut before the search was done")
        }
        s => format!("stopped: {s}"),
    };
    let trips = e
        .stats
        .round_trips
        .map(|n| format!(", {n} round trips"))
        .unwrap_or_default();
    format!(
        "{} result(s); {stop}; sufficiency {:.2}; {} expanded, {} edges scanned, {} scored{trips}; {:.1} ms",
        e.results.len(),
        e.sufficiency,
        e.stats.nodes_expanded,
        e.stats.edges_scanned,
        e.stats.nodes_scored,
        elapsed.as_secs_f64() * 1e3
    )
}

fn stats_json(e: &Exploration) -> serde_json::Value {
    serde_json::json!({"nodes_expanded": e.stats.nodes_expanded, "edges_scanned": e.stats.edges_scanned, "nodes_scored": e.stats.nodes_scored,
                       "cache_hits": e.stats.cache_hits, "rounds": e.stats.rounds, "adaptive_expansions": e.stats.adaptive_expansions,
                       "round_trips": e.stats.round_trips,
                       "elapsed_ms": e.stats.elapsed.as_secs_f64() * 1e3})
}

/// Prints rows under a header, columns padded to their widest cell in terminal columns; the
/// last column is not padded. Cells are escaped already ([`cell`]).
fn print_rows<const N: usize>(header: [&str; N], rows: &[[String; N]]) {
    let header: Vec<String> = header.iter().map(|h| (*h).to_owned()).collect();
    let rows: Vec<Vec<String>> = rows.iter().map(|r| r.to_vec()).collect();
    print_grid(&header, &rows);
}

/// [`print_rows`] for any number of columns (cells escaped already).
fn print_grid(header: &[String], rows: &[Vec<String>]) {
    let n = header.len();
    let mut width: Vec<usize> = header.iter().map(|h| display::width(h)).collect();
    for row in rows {
        for (w, c) in width.iter_mut().zip(row) {
            *w = (*w).max(display::width(c));
        }
    }
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == n {
                s.push_str(c);
            } else {
                s.push_str(&display::pad(c, width[i]));
                s.push_str("  ");
            }
        }
        s.trim_end().to_owned()
    };
    outln!("{}", line(header));
    for row in rows {
        outln!("{}", line(row));
    }
}

/// A property value in a table cell (escaped); a missing one is `null`.
fn value_cell(v: &Value) -> String {
    match v {
        Value::Str(s) => cell(s).into_owned(),
        other => cell(&value_json(other).to_string()).into_owned(),
    }
}

/// A property value as JSON, in the one JSON form of a value (dumps, exports, documents).
fn value_json(v: &Value) -> serde_json::Value {
    serde_json::to_value(cairn::JsonValue(v)).unwrap_or(serde_json::Value::Null)
}

/// `RETURN NODES c, …`: the columns asked for, then the evidence.
fn print_columns(cairn: &Cairn, e: &Exploration, elapsed: Duration) -> Result<(), Failure> {
    let mut header = vec!["#".to_owned()];
    header.extend(e.columns.iter().map(|c| cell(c).into_owned()));
    header.push("evidence".to_owned());
    let mut rows = Vec::with_capacity(e.results.len());
    for (i, r) in e.results.iter().enumerate() {
        let mut row = vec![(i + 1).to_string()];
        row.extend(r.values.iter().map(value_cell));
        row.push(cell(&path_text(cairn, r)?).into_owned());
        rows.push(row);
    }
    print_grid(&header, &rows);
    outln!("{}", summary(e, elapsed));
    Ok(())
}

/// A group key in a cell: a value, or a node by name.
fn group_cell(g: &GroupValue) -> String {
    match g {
        GroupValue::Value(v) => value_cell(v),
        GroupValue::Node(n) => cell(&n.name).into_owned(),
    }
}

/// `RETURN COUNT, MAX(p) … [GROUP BY …]`: one row per group.
fn print_aggregate(e: &Exploration) {
    let header: Vec<String> = e.columns.iter().map(|c| cell(c).into_owned()).collect();
    let rows: Vec<Vec<String>> = e
        .rows
        .iter()
        .map(|r: &AggregateRow| {
            r.keys
                .iter()
                .map(group_cell)
                .chain(r.values.iter().map(value_cell))
                .collect()
        })
        .collect();
    print_grid(&header, &rows);
}

/// Aggregate rows as JSON: `columns`, and `rows` of objects keyed by column (a node key as
/// `{node, label, key, name}`).
fn aggregate_json(e: &Exploration) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = e
        .rows
        .iter()
        .map(|r| {
            let cells = r
                .keys
                .iter()
                .map(|g| match g {
                    GroupValue::Value(v) => value_json(v),
                    GroupValue::Node(n) => serde_json::json!({
                        "node": n.node.0, "label": n.label, "key": n.key, "name": n.name,
                    }),
                })
                .chain(r.values.iter().map(value_json));
            serde_json::Value::Object(e.columns.iter().cloned().zip(cells).collect())
        })
        .collect();
    serde_json::json!({"columns": e.columns, "rows": rows})
}

fn path_text(cairn: &Cairn, r: &ResultNode) -> Result<String, Failure> {
    let mut ids: Vec<cairn::NodeId> = r.path.iter().map(|s| s.from).collect();
    ids.push(r.node);
    let names = cairn.names(&ids)?;
    let mut out = names[0].clone();
    for (step, name) in r.path.iter().zip(names.iter().skip(1)) {
        if step.reversed {
            out.push_str(&format!(" <-{}- {name}", step.relation));
        } else {
            out.push_str(&format!(" -{}-> {name}", step.relation));
        }
    }
    Ok(out)
}

/// A table of one row per result, `row` making the cells from the rank, the result and its
/// evidence path (escaped), then the summary line.
fn print_results<const N: usize>(
    cairn: &Cairn,
    e: &Exploration,
    elapsed: Duration,
    header: [&str; N],
    row: impl Fn(usize, &ResultNode, String) -> [String; N],
) -> Result<(), Failure> {
    let rows: Vec<[String; N]> = e
        .results
        .iter()
        .enumerate()
        .map(|(i, r)| Ok(row(i + 1, r, cell(&path_text(cairn, r)?).into_owned())))
        .collect::<Result<_, Failure>>()?;
    print_rows(header, &rows);
    outln!("{}", summary(e, elapsed));
    Ok(())
}

/// `RETURN NODES`: one row per result, with its key (two nodes may share a name) and evidence.
fn print_table(cairn: &Cairn, e: &Exploration, elapsed: Duration) -> Result<(), Failure> {
    let header = ["#", "score", "label", "key", "name", "evidence"];
    print_results(cairn, e, elapsed, header, |i, r, path| {
        [
            i.to_string(),
            format!("{:.3}", r.score),
            cell(&r.label).into_owned(),
            cell(&r.key).into_owned(),
            cell(&r.name).into_owned(),
            path,
        ]
    })
}

fn path_json(r: &ResultNode) -> serde_json::Value {
    serde_json::json!(r
        .path
        .iter()
        .map(|s| serde_json::json!({"from": s.from.0, "relation": s.relation, "reversed": s.reversed, "to": s.to.0}))
        .collect::<Vec<_>>())
}

fn nodes_json(cairn: &Cairn, e: &Exploration) -> Result<serde_json::Value, Failure> {
    let mut results = Vec::new();
    for r in &e.results {
        let mut doc = serde_json::json!({
            "node": r.node.0, "label": r.label, "key": r.key, "name": r.name, "score": r.score,
            "semantic": r.semantic, "hops": r.hops, "evidence": path_text(cairn, r)?,
            "path": path_json(r),
        });
        if !e.columns.is_empty() {
            doc["values"] = serde_json::Value::Object(
                e.columns
                    .iter()
                    .cloned()
                    .zip(r.values.iter().map(value_json))
                    .collect(),
            );
        }
        if let Some(c) = r.count {
            doc["count"] = serde_json::json!(c);
        }
        results.push(doc);
    }
    Ok(serde_json::json!({ "results": results }))
}

/// `RETURN PATHS`: the evidence paths themselves, best result first, one per row.
fn print_paths(cairn: &Cairn, e: &Exploration, elapsed: Duration) -> Result<(), Failure> {
    let header = ["#", "score", "hops", "path"];
    print_results(cairn, e, elapsed, header, |i, r, path| {
        [
            i.to_string(),
            format!("{:.3}", r.score),
            r.hops.to_string(),
            path,
        ]
    })
}

fn paths_json(cairn: &Cairn, e: &Exploration) -> Result<serde_json::Value, Failure> {
    let mut paths = Vec::new();
    for r in &e.results {
        let mut ids: Vec<NodeId> = r.path.iter().map(|s| s.from).collect();
        ids.push(r.node);
        let names = cairn.names(&ids)?;
        let nodes: Vec<serde_json::Value> = ids
            .iter()
            .zip(&names)
            .map(|(id, name)| serde_json::json!({"node": id.0, "name": name}))
            .collect();
        paths.push(serde_json::json!({
            "score": r.score, "hops": r.hops, "end": r.node.0, "nodes": nodes, "edges": path_json(r),
            "text": path_text(cairn, r)?,
        }));
    }
    Ok(serde_json::json!({ "paths": paths }))
}

/// The subgraph the pattern matched for the results (every matched path, not one evidence
/// path per result), nodes in id order.
struct Subgraph {
    /// id → (label, key, name).
    nodes: BTreeMap<NodeId, (String, String, String)>,
    /// (from, relation, to), the direction the edge is stored in.
    edges: BTreeSet<(NodeId, String, NodeId)>,
}

fn subgraph(cairn: &Cairn, e: &Exploration) -> Result<Subgraph, Failure> {
    let matched = e.subgraph.clone().unwrap_or_default();
    let edges = matched
        .edges
        .into_iter()
        .map(|x| (x.from, x.relation, x.to))
        .collect();
    let ids: BTreeSet<NodeId> = matched.nodes.into_iter().collect();
    let ids: Vec<NodeId> = ids.into_iter().collect();
    let names = cairn.names(&ids)?;
    let graph = cairn.graph();
    let catalog = graph.catalog();
    let records = graph
        .nodes(&ids)
        .map_err(|e| Failure::from(cairn::CairnError::from(e)))?;
    let nodes = ids
        .iter()
        .zip(names)
        .zip(records)
        .map(|((id, name), rec)| {
            let (label, key) = rec.map_or_else(Default::default, |r| {
                (
                    catalog.label_name(r.label).unwrap_or("?").to_owned(),
                    r.key.clone(),
                )
            });
            (*id, (label, key, name))
        })
        .collect();
    Ok(Subgraph { nodes, edges })
}

/// `RETURN SUBGRAPH`: the nodes, then the edges, of the subgraph the evidence paths form.
fn print_subgraph(cairn: &Cairn, e: &Exploration, elapsed: Duration) -> Result<(), Failure> {
    let g = subgraph(cairn, e)?;
    let nodes: Vec<[String; 4]> = g
        .nodes
        .iter()
        .map(|(id, (label, key, name))| {
            [
                id.to_string(),
                cell(label).into_owned(),
                cell(key).into_owned(),
                cell(name).into_owned(),
            ]
        })
        .collect();
    print_rows(["node", "label", "key", "name"], &nodes);
    let name = |id: &NodeId| g.nodes.get(id).map_or("?", |n| n.2.as_str());
    let edges: Vec<[String; 3]> = g
        .edges
        .iter()
        .map(|(a, rel, b)| {
            [
                cell(name(a)).into_owned(),
                cell(rel).into_owned(),
                cell(name(b)).into_owned(),
            ]
        })
        .collect();
    outln!();
    print_rows(["from", "relation", "to"], &edges);
    outln!(
        "{} node(s), {} edge(s) from {}",
        g.nodes.len(),
        g.edges.len(),
        summary(e, elapsed)
    );
    Ok(())
}

fn subgraph_json(cairn: &Cairn, e: &Exploration) -> Result<serde_json::Value, Failure> {
    let g = subgraph(cairn, e)?;
    let nodes: Vec<serde_json::Value> = g
        .nodes
        .iter()
        .map(|(id, (label, key, name))| serde_json::json!({"node": id.0, "label": label, "key": key, "name": name}))
        .collect();
    let edges: Vec<serde_json::Value> = g
        .edges
        .iter()
        .map(|(a, rel, b)| serde_json::json!({"from": a.0, "relation": rel, "to": b.0}))
        .collect();
    Ok(serde_json::json!({"nodes": nodes, "edges": edges}))
}

/// The answer an EXPLORE gives without a question: the result names, best first.
fn answer_text(e: &Exploration) -> String {
    if e.results.is_empty() {
        return "Nothing in the graph answers the exploration.".to_owned();
    }
    let names: Vec<&str> = e.results.iter().map(|r| r.name.as_str()).collect();
    format!("{}.", names.join("; "))
}

/// `RETURN ANSWER`: one answer line, then each result's evidence.
fn print_answer(cairn: &Cairn, e: &Exploration) -> Result<(), Failure> {
    outln!("answer: {}", cell(&answer_text(e)));
    for (i, r) in e.results.iter().enumerate() {
        outln!(
            "  {:>2}. {}  [{} {}]  evidence: {}",
            i + 1,
            cell(&r.name),
            cell(&r.label),
            cell(&r.key),
            cell(&path_text(cairn, r)?)
        );
    }
    outln!("stopped: {}; sufficiency {:.2}", e.stop, e.sufficiency);
    Ok(())
}

fn answer_json(cairn: &Cairn, e: &Exploration) -> Result<serde_json::Value, Failure> {
    let mut doc = nodes_json(cairn, e)?;
    doc["answer"] = serde_json::json!(answer_text(e));
    Ok(doc)
}

/// The search decisions as lines (unescaped), nodes by display name; at most TRACE_LIMIT of
/// them.
fn trace_lines(cairn: &Cairn, trace: &[TraceEvent]) -> Result<Vec<String>, Failure> {
    let shown = &trace[..trace.len().min(TRACE_LIMIT)];
    let mut ids: Vec<NodeId> = Vec::new();
    for ev in shown {
        match ev {
            TraceEvent::Entry { node, .. }
            | TraceEvent::Expand { node, .. }
            | TraceEvent::Revisit { node, .. }
            | TraceEvent::Sampled { node, .. }
            | TraceEvent::Fallback { node, .. } => ids.push(*node),
            TraceEvent::Scored { node, from, .. } => ids.extend([*node, *from]),
            TraceEvent::Adapt { .. } | TraceEvent::Round { .. } | TraceEvent::Stop { .. } => {}
        }
    }
    ids.sort_unstable();
    ids.dedup();
    let names: HashMap<NodeId, String> = ids.iter().copied().zip(cairn.names(&ids)?).collect();
    let name = |n: &NodeId| names.get(n).cloned().unwrap_or_else(|| n.to_string());
    let mut lines = Vec::with_capacity(shown.len());
    for ev in shown {
        let line = match ev {
            TraceEvent::Entry { node, score } => format!("entry     {} score {score:.3}", name(node)),
            TraceEvent::Expand { round, node, hops, score } => {
                format!("expand    round {round}: {} ({hops} hops, score {score:.3})", name(node))
            }
            TraceEvent::Scored { node, from, relation, semantic, connectivity, distance, score } => format!(
                "score     {} -{relation}- {}: {score:.3} (semantic {semantic:.3}, connectivity {connectivity:.3}, distance {distance:.3})",
                name(from),
                name(node)
            ),
            TraceEvent::Revisit { node, old_score, new_score } => {
                format!("revisit   {}: {old_score:.3} -> {new_score:.3}", name(node))
            }
            TraceEvent::Sampled { node, kept, of } => {
                format!("sample    {}: kept {kept} of {of} neighbours", name(node))
            }
            TraceEvent::Fallback { node, relation, parent, siblings } => format!(
                "fallback  {}: no {relation}; tried {parent} ({})",
                name(node),
                siblings.join(", ")
            ),
            TraceEvent::Adapt { beam, depth, sufficiency } => {
                format!("adapt     beam {beam}, depth {depth} (sufficiency {sufficiency:.2})")
            }
            TraceEvent::Round { round, frontier, results, sufficiency } => format!(
                "round     {round}: frontier {frontier}, {results} results, sufficiency {sufficiency:.2}"
            ),
            TraceEvent::Stop { reason, sufficiency } => {
                format!("stop      {reason} (sufficiency {sufficiency:.2})")
            }
        };
        lines.push(line);
    }
    Ok(lines)
}

/// Prints the search decisions (`RETURN TRACE`, or `.trace on` in the REPL).
pub(crate) fn print_trace(cairn: &Cairn, trace: &[TraceEvent]) -> Result<(), Failure> {
    let lines = trace_lines(cairn, trace)?;
    outln!("trace ({} events):", trace.len());
    for line in &lines {
        outln!("  {}", cell(line));
    }
    if trace.len() > lines.len() {
        outln!("  … {} more events", trace.len() - lines.len());
    }
    Ok(())
}
