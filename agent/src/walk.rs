//! The exact walk of a planned relation path, used by the answerer for aggregation (counts,
//! argmax, top-k), by the validator to recount and by the planner to test where two paths
//! meet: the executor's exhaustive walker ([`cairn_exec::walk`], the one `RETURN COUNT` runs),
//! given relation names. The beam search samples hubs and stops early, which is right for
//! finding evidence and wrong for counting.

use crate::error::AgentError;
use crate::result::PathStep;
use cairn_exec::{
    walk as exact_walk, NodeSource, StoreView, WalkBounds, WalkShape, WalkStep, Walked,
};
use cairn_storage_format::{LabelId, NodeId};
use cairn_store::{Catalog, Direction, Graph};
use std::collections::HashSet;

/// One relation step of the planned path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    pub relation: String,
    /// Followed against its direction (`<R`).
    pub reversed: bool,
}

/// A node reached by walking a relation path.
#[derive(Clone, Debug)]
pub struct Reached {
    pub node: NodeId,
    /// How many distinct paths reach it.
    pub paths: u64,
    /// The first path found.
    pub evidence: Vec<PathStep>,
}

/// Walks `path` exactly from `entries` on `source` and returns the distinct end nodes, in
/// node-id order, without the entries themselves when the path goes there and back through one
/// relation (an author is not their own co-author; a spouse's spouse is the entry). `max_edges`
/// bounds the work; the flag says whether it was reached (no end is returned then).
pub fn walk(
    source: &dyn NodeSource,
    catalog: &Catalog,
    entries: &[NodeId],
    path: &[Step],
    max_edges: u64,
) -> Result<(Vec<Reached>, bool), AgentError> {
    walk_keeping(
        source,
        catalog,
        entries,
        path,
        max_edges,
        !there_and_back(path),
    )
}

/// [`walk`], keeping the entries among the ends or not as `keep_entries` says.
pub fn walk_keeping(
    source: &dyn NodeSource,
    catalog: &Catalog,
    entries: &[NodeId],
    path: &[Step],
    max_edges: u64,
    keep_entries: bool,
) -> Result<(Vec<Reached>, bool), AgentError> {
    let Some(walked) = walk_path(source, catalog, entries, path, true, max_edges)? else {
        return Ok((Vec::new(), false));
    };
    let entry_set: HashSet<NodeId> = if keep_entries {
        HashSet::new()
    } else {
        entries.iter().copied().collect()
    };
    let mut out: Vec<Reached> = walked
        .ends()
        .into_iter()
        .filter(|e| !entry_set.contains(&e.node))
        .map(|e| Reached {
            node: e.node,
            paths: e.paths,
            evidence: walked
                .evidence(&e)
                .into_iter()
                .zip(path)
                .map(|(h, step)| PathStep {
                    from: h.from,
                    relation: step.relation.clone(),
                    reversed: h.reversed,
                    to: h.to,
                })
                .collect(),
        })
        .collect();
    out.sort_by_key(|r| r.node);
    Ok((out, walked.cut.is_some()))
}

/// How many distinct nodes `path` ends at from `entries` (the entries excluded as [`walk`]
/// excludes them), with nothing tracked per path: what a "how many" answer needs.
pub fn count(
    source: &dyn NodeSource,
    catalog: &Catalog,
    entries: &[NodeId],
    path: &[Step],
    max_edges: u64,
) -> Result<(Vec<NodeId>, bool), AgentError> {
    let Some(walked) = walk_path(source, catalog, entries, path, false, max_edges)? else {
        return Ok((Vec::new(), false));
    };
    let mut ends = walked.end_nodes();
    if there_and_back(path) {
        let entry_set: HashSet<NodeId> = entries.iter().copied().collect();
        ends.retain(|n| !entry_set.contains(n));
    }
    Ok((ends, walked.cut.is_some()))
}

/// How many distinct nodes of `target` (any label when `None`) `path` ends at from
/// `entries`, with nothing tracked per path (what a "how many" answer computes), and whether
/// the walk was cut.
pub fn count_ends(
    source: &dyn NodeSource,
    catalog: &Catalog,
    entries: &[NodeId],
    path: &[Step],
    target: Option<LabelId>,
) -> Result<(u64, bool), AgentError> {
    let (mut ends, cut) = count(source, catalog, entries, path, WALK_MAX_EDGES)?;
    if let Some(label) = target {
        retain_label(source, &mut ends, label)?;
    }
    Ok((ends.len() as u64, cut))
}

/// Keeps the nodes of `label`, read through `source`.
fn retain_label(
    source: &dyn NodeSource,
    nodes: &mut Vec<NodeId>,
    label: LabelId,
) -> Result<(), AgentError> {
    let mut labels = Vec::with_capacity(nodes.len());
    source.labels_into(nodes, &mut labels)?;
    let mut keep = labels.into_iter().map(|l| l == Some(label));
    nodes.retain(|_| keep.next().unwrap_or(false));
    Ok(())
}

/// The nodes `path` from `entries` and `other_path` from `others` both end at, never an entry
/// of either, of the plan's target label, in node-id order: what a counted intersection
/// counts (the executor's `MEET … RETURN COUNT`), recounted independently by the validator.
pub fn meet_ends(
    source: &dyn NodeSource,
    catalog: &Catalog,
    (entries, path): (&[NodeId], &[Step]),
    (others, other_path): (&[NodeId], &[Step]),
    target: Option<LabelId>,
) -> Result<(Vec<NodeId>, bool), AgentError> {
    let (mut ends, cut_a) = count(source, catalog, entries, path, WALK_MAX_EDGES)?;
    let (mut more, cut_b) = count(source, catalog, others, other_path, WALK_MAX_EDGES)?;
    more.sort_unstable();
    let named: HashSet<NodeId> = entries.iter().chain(others).copied().collect();
    ends.retain(|n| more.binary_search(n).is_ok() && !named.contains(n));
    ends.sort_unstable();
    if let Some(label) = target {
        retain_label(source, &mut ends, label)?;
    }
    Ok((ends, cut_a || cut_b))
}

/// The reached nodes with label `label`, read through `source` (the table's labels when it
/// holds the node, one multi-get per 4096 nodes on a store view).
fn of_label(
    source: &dyn NodeSource,
    reached: Vec<Reached>,
    label: LabelId,
) -> Result<Vec<Reached>, AgentError> {
    let ids: Vec<NodeId> = reached.iter().map(|r| r.node).collect();
    let mut labels = Vec::with_capacity(ids.len());
    source.labels_into(&ids, &mut labels)?;
    Ok(reached
        .into_iter()
        .zip(labels)
        .filter(|(_, l)| *l == Some(label))
        .map(|(r, _)| r)
        .collect())
}

/// The reached nodes of a plan's target label (all of them when it names none).
pub(crate) fn of_target(
    source: &dyn NodeSource,
    reached: Vec<Reached>,
    target: Option<&str>,
    catalog: &Catalog,
) -> Result<Vec<Reached>, AgentError> {
    match target.and_then(|t| catalog.label_id(t)) {
        Some(target) => of_label(source, reached, target),
        None => Ok(reached),
    }
}

/// Where exact walks read: the given source, else a store view of `graph` kept in `view`.
pub(crate) fn source_or_view<'a>(
    source: Option<&'a dyn NodeSource>,
    graph: &'a Graph,
    view: &'a mut Option<StoreView<'a>>,
) -> &'a dyn NodeSource {
    match source {
        Some(s) => s,
        None => view.insert(StoreView::new(graph, "")),
    }
}

/// The executor's walk of a path of relation names (`track`: path counts and parents);
/// `None` when a relation does not exist (then nothing is reached).
fn walk_path(
    source: &dyn NodeSource,
    catalog: &Catalog,
    entries: &[NodeId],
    path: &[Step],
    track: bool,
    max_edges: u64,
) -> Result<Option<Walked>, AgentError> {
    let Some(steps) = walk_steps(catalog, path) else {
        return Ok(None);
    };
    Ok(Some(exact_walk(
        source,
        entries,
        &steps,
        WalkShape::Path,
        track,
        WalkBounds::edges(max_edges),
    )?))
}

/// The walker's steps for a path of relation names; `None` when a relation does not exist.
fn walk_steps(catalog: &Catalog, path: &[Step]) -> Option<Vec<WalkStep>> {
    path.iter()
        .map(|step| {
            Some(WalkStep {
                rels: vec![catalog.relation_id(&step.relation)?],
                direction: if step.reversed {
                    Direction::In
                } else {
                    Direction::Out
                },
            })
        })
        .collect()
}

/// Whether a step is followed at once by its own reverse (`AUTHORED -> <AUTHORED`): the path
/// asks for *others* related the same way.
pub fn there_and_back(path: &[Step]) -> bool {
    path.windows(2)
        .any(|w| w[0].relation == w[1].relation && w[0].reversed != w[1].reversed)
}

/// Work bound of an exact walk, in edges listed: the one `RETURN COUNT` has.
pub const WALK_MAX_EDGES: u64 = cairn_query::limits::MAX_COUNT_EDGES;
