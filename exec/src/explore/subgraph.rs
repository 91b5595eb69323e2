//! `RETURN SUBGRAPH`: the part of the graph the pattern matched for the results — every edge of
//! every path of the pattern (each side's, for `MEET`) from an entry to a returned result, not
//! one evidence path per result. An ordered path is walked level by level to its end and pruned
//! back from the results; a relation set keeps, as its counts do, the shortest paths (the
//! edges from each breadth-first level to the next). A selection is its results alone.

use super::*;
use crate::result::{Subgraph, SubgraphEdge};
use cairn_query::limits::MAX_COUNT_EDGES;
use cairn_query::ViaPlan;
use std::collections::BTreeSet;

/// One edge as a walk followed it: (from, relation, against its direction, to).
type Followed = (NodeId, RelId, bool, NodeId);

impl Run<'_, '_> {
    /// The matched subgraph of `results` (see the module docs).
    pub(super) fn subgraph(
        &mut self,
        results: &[ResultNode],
        cancel: &CancelToken,
    ) -> Result<Subgraph, ExploreError> {
        let plan = self.plan;
        let wanted: HashSet<NodeId> = results.iter().map(|r| r.node).collect();
        let mut nodes: BTreeSet<NodeId> = wanted.iter().copied().collect();
        let mut edges: BTreeSet<(NodeId, RelId, NodeId)> = BTreeSet::new();
        let mut spent = 0u64;
        if !plan.is_selection() {
            let (entries, _) = self.entries(&plan.entries)?;
            let entries = self.keep_hop(0, &entries)?;
            let mut sides = vec![(entries, &plan.via, true)];
            for side in &plan.meet {
                sides.push((self.entries(&side.entries)?.0, &side.via, false));
            }
            for (entries, via, main) in sides {
                for (a, rel, reversed, b) in
                    self.matched(&entries, via, main, &wanted, cancel, &mut spent)?
                {
                    nodes.extend([a, b]);
                    edges.insert(if reversed { (b, rel, a) } else { (a, rel, b) });
                }
            }
        }
        Ok(Subgraph {
            nodes: nodes.into_iter().collect(),
            edges: edges
                .into_iter()
                .map(|(from, rel, to)| SubgraphEdge {
                    from,
                    relation: self.catalog.relation_name(rel).unwrap_or("?").to_owned(),
                    to,
                })
                .collect(),
        })
    }

    /// The edges of one side's paths from `entries` that end at a node of `wanted`.
    fn matched(
        &mut self,
        entries: &[NodeId],
        via: &ViaPlan,
        main: bool,
        wanted: &HashSet<NodeId>,
        cancel: &CancelToken,
        spent: &mut u64,
    ) -> Result<Vec<Followed>, ExploreError> {
        let plan = self.plan;
        let hops = match via.mode {
            ViaMode::Path => via.steps.len(),
            ViaMode::Set => plan.depth as usize,
        };
        // Forward: each level's edges (from the previous level).
        let mut seen: HashSet<NodeId> = entries.iter().copied().collect();
        let mut level: Vec<NodeId> = entries.to_vec();
        let mut layers: Vec<Vec<Followed>> = Vec::with_capacity(hops);
        let mut buf = Vec::new();
        for hop in 0..hops {
            if level.is_empty() {
                break;
            }
            let steps: Vec<&StepPlan> = match via.mode {
                ViaMode::Path => via.steps.get(hop).into_iter().collect(),
                ViaMode::Set => via.steps.iter().collect(),
            };
            let mut layer: Vec<Followed> = Vec::new();
            let mut next: Vec<NodeId> = Vec::new();
            let mut in_next: HashSet<NodeId> = HashSet::new();
            for &u in &level {
                if cancel.is_cancelled() {
                    return Err(ExploreError::CountCut(StopReason::Cancelled));
                }
                for step in steps.iter().filter(|s| s.weight > 0.0) {
                    buf.clear();
                    let rels: Vec<RelId> = step.relation.iter().map(|r| r.id).collect();
                    self.ex
                        .table
                        .neighbors_into(u, engine_dir(step.direction), &rels, &mut buf)?;
                    *spent += buf.len() as u64;
                    if *spent > MAX_COUNT_EDGES {
                        return Err(ExploreError::CountTooLarge {
                            limit: MAX_COUNT_EDGES,
                        });
                    }
                    for &(v, rel, reversed) in &buf {
                        // A set keeps shortest paths: nothing back to an earlier level.
                        if via.mode == ViaMode::Set && seen.contains(&v) {
                            continue;
                        }
                        layer.push((u, rel, reversed, v));
                        if in_next.insert(v) {
                            next.push(v);
                        }
                    }
                }
            }
            if main && via.mode == ViaMode::Path {
                let flags = exact::level_flags(self.ex.graph, plan, hop as u32 + 1, &next)?;
                let dropped: HashSet<NodeId> = next
                    .iter()
                    .zip(&flags)
                    .filter(|(_, k)| !**k)
                    .map(|(n, _)| *n)
                    .collect();
                if !dropped.is_empty() {
                    layer.retain(|e| !dropped.contains(&e.3));
                    next.retain(|n| !dropped.contains(n));
                }
            }
            if via.mode == ViaMode::Set {
                seen.extend(next.iter().copied());
            }
            layers.push(layer);
            level = next;
        }
        // Backward: keep the edges into a kept node, from the results back to the entries.
        let mut kept: HashSet<NodeId> = match via.mode {
            // Only the end of a path is matched.
            ViaMode::Path if layers.len() == hops => level
                .iter()
                .copied()
                .filter(|n| wanted.contains(n))
                .collect(),
            ViaMode::Path => HashSet::new(),
            ViaMode::Set => HashSet::new(),
        };
        let mut out = Vec::new();
        for layer in layers.iter().rev() {
            let mut earlier: HashSet<NodeId> = HashSet::new();
            for e in layer {
                let into_result = via.mode == ViaMode::Set && wanted.contains(&e.3);
                if kept.contains(&e.3) || into_result {
                    out.push(*e);
                    earlier.insert(e.0);
                }
            }
            kept = earlier;
        }
        Ok(out)
    }
}
