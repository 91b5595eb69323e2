//! The exact walk of a planned relation path, used by the answerer for aggregation (counts,
//! argmax, top-k) and by the validator to recount: the beam search samples hubs and stops early,
//! which is right for finding evidence and wrong for counting.

use crate::error::AgentError;
use crate::result::PathStep;
use cairn_storage_format::NodeId;
use cairn_store::{Catalog, Direction, Graph, GraphRead};
use std::collections::{HashMap, HashSet};

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

/// Walks `path` exactly from `entries` and returns the distinct end nodes, in node-id order,
/// without the entries themselves when the path goes there and back through one relation (an
/// author is not their own co-author; a spouse's spouse is the entry). `max_edges` bounds the
/// work; the flag says whether it was reached (the result is then partial).
pub fn walk(
    graph: &Graph,
    catalog: &Catalog,
    entries: &[NodeId],
    path: &[Step],
    max_edges: usize,
) -> Result<(Vec<Reached>, bool), AgentError> {
    walk_keeping(
        graph,
        catalog,
        entries,
        path,
        max_edges,
        !there_and_back(path),
    )
}

/// [`walk`], keeping the entries among the ends or not as `keep_entries` says.
pub fn walk_keeping(
    graph: &Graph,
    catalog: &Catalog,
    entries: &[NodeId],
    path: &[Step],
    max_edges: usize,
    keep_entries: bool,
) -> Result<(Vec<Reached>, bool), AgentError> {
    let mut layer: HashMap<NodeId, (u64, Vec<PathStep>)> =
        entries.iter().map(|e| (*e, (1, Vec::new()))).collect();
    let mut scanned = 0usize;
    let mut truncated = false;
    for step in path {
        let Some(rel) = catalog.relation_id(&step.relation) else {
            return Ok((Vec::new(), false));
        };
        let dir = if step.reversed {
            Direction::In
        } else {
            Direction::Out
        };
        let mut next: HashMap<NodeId, (u64, Vec<PathStep>)> = HashMap::new();
        let mut from: Vec<(&NodeId, &(u64, Vec<PathStep>))> = layer.iter().collect();
        from.sort_by_key(|(n, _)| **n);
        for (node, (mult, evidence)) in from {
            let neighbours = graph.neighbors(*node, dir, &[rel])?;
            scanned += neighbours.len();
            for n in neighbours {
                let slot = next.entry(n.node).or_insert_with(|| {
                    let mut e = evidence.clone();
                    e.push(PathStep {
                        from: *node,
                        relation: step.relation.clone(),
                        reversed: step.reversed,
                        to: n.node,
                    });
                    (0, e)
                });
                slot.0 += mult;
            }
            if scanned > max_edges {
                truncated = true;
                break;
            }
        }
        layer = next;
        if truncated {
            break;
        }
    }
    let entry_set: HashSet<NodeId> = if keep_entries {
        HashSet::new()
    } else {
        entries.iter().copied().collect()
    };
    let mut out: Vec<Reached> = layer
        .into_iter()
        .filter(|(n, _)| !entry_set.contains(n))
        .map(|(node, (paths, evidence))| Reached {
            node,
            paths,
            evidence,
        })
        .collect();
    out.sort_by_key(|r| r.node);
    Ok((out, truncated))
}

/// Whether a step is followed at once by its own reverse (`AUTHORED -> <AUTHORED`): the path
/// asks for *others* related the same way.
pub fn there_and_back(path: &[Step]) -> bool {
    path.windows(2)
        .any(|w| w[0].relation == w[1].relation && w[0].reversed != w[1].reversed)
}

/// Work bound of an exact walk, in edges listed.
pub const WALK_MAX_EDGES: usize = 5_000_000;

/// Indexes of the top `k` by support (then key order, for a stable cut); with `k = 1`, every
/// node tied for the maximum.
pub(crate) fn rank(reached: &[Reached], support: &[f64], k: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..reached.len()).collect();
    order.sort_by(|a, b| {
        support[*b]
            .total_cmp(&support[*a])
            .then(reached[*a].node.cmp(&reached[*b].node))
    });
    if k <= 1 {
        let Some(best) = order.first().map(|i| support[*i]) else {
            return Vec::new();
        };
        order.retain(|i| support[*i] == best);
        order
    } else {
        order.truncate(k);
        order
    }
}
