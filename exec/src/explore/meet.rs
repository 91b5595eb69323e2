//! `MEET`: an exact intersection. The main side (`FROM`/`VIA`) and every `MEET` side are walked
//! exhaustively with the beam search's own expansion (`neighbors`, the FANOUT rule, the entry
//! forms, result building); the results are the nodes every side reaches. A beam would drop
//! answers of one side that rank low for the goal, and an intersection of samples is not the
//! intersection.

use super::*;
use cairn_query::ViaPlan;

/// What one side reaches: node → (shortest paths reaching it, its first evidence path).
type Reach = HashMap<NodeId, (u64, usize)>;

impl Run<'_, '_> {
    /// Runs a plan with `MEET` sides (see [`Plan::meet`]).
    pub(super) fn intersect(
        &mut self,
        cancel: &CancelToken,
    ) -> Result<(StopReason, Vec<ResultNode>, f64), ExploreError> {
        let plan = self.plan;
        let mut cut = None;
        let main_entries = self.entries(&plan.entries)?;
        self.entry_set = main_entries.iter().copied().collect();
        let main = self.reach(&main_entries, &plan.via, cancel, &mut cut)?;
        let mut sides = Vec::with_capacity(plan.meet.len());
        for side in &plan.meet {
            let entries = self.entries(&side.entries)?;
            self.entry_set.extend(entries.iter().copied());
            sides.push(self.reach(&entries, &side.via, cancel, &mut cut)?);
        }
        // Reached by every side, never a named entity.
        let mut both: Vec<(NodeId, u64, usize)> = main
            .iter()
            .filter(|(n, _)| !self.entry_set.contains(*n))
            .filter_map(|(n, &(count, path))| {
                let mut support = count;
                for side in &sides {
                    support = support.saturating_mul(side.get(n)?.0);
                }
                Some((*n, support, path))
            })
            .collect();
        both.sort_by_key(|(n, _, _)| *n);
        let ids: Vec<NodeId> = both.iter().map(|(n, _, _)| *n).collect();
        self.load(&ids)?;
        if !plan.filters.is_empty() {
            self.ensure_records(&ids)?;
        }
        both.retain(|(n, _, _)| self.is_result(*n));
        let best = both.iter().map(|(_, s, _)| *s).max().unwrap_or(1).max(1) as f64;
        let mut ranked: Vec<Candidate> = both
            .into_iter()
            .map(|(node, support, path)| Candidate {
                node,
                score: support as f64 / best,
                path,
            })
            .collect();
        ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.node.cmp(&b.node)));
        let sufficiency = match cut {
            None => 1.0,
            Some(_) => {
                let window = &ranked[..ranked.len().min(STOP_WINDOW)];
                let all: HashMap<NodeId, Candidate> = ranked.iter().map(|c| (c.node, *c)).collect();
                self.ensure_records(&window.iter().map(|c| c.node).collect::<Vec<_>>())?;
                self.sufficiency(&all, window)
            }
        };
        ranked.truncate(plan.limit as usize);
        let top_ids: Vec<NodeId> = ranked.iter().map(|c| c.node).collect();
        self.ensure_records(&top_ids)?;
        Ok((
            cut.unwrap_or(StopReason::Exhausted),
            self.finish(&ranked),
            sufficiency,
        ))
    }

    /// Whether a node reached by every side is a result: a `TARGET` label, every `WHERE` filter.
    fn is_result(&self, node: NodeId) -> bool {
        let Some(info) = self.infos.get(&node) else {
            return false;
        };
        if !self.plan.targets.is_empty() && !self.plan.targets.iter().any(|t| t.id == info.label) {
            return false;
        }
        self.plan.filters.is_empty()
            || self
                .record(node)
                .is_some_and(|r| self.plan.filters.iter().all(|f| passes(f, r)))
    }

    /// Walks one side exhaustively: an ordered path to its end (the nodes at its end), a set of
    /// steps breadth-first up to the plan's depth (every node reached). Stops early, setting
    /// `cut`, when the budget, the time cap or the caller says so.
    fn reach(
        &mut self,
        entries: &[NodeId],
        via: &ViaPlan,
        cancel: &CancelToken,
        cut: &mut Option<StopReason>,
    ) -> Result<Reach, ExploreError> {
        let mut layer: Reach = HashMap::new();
        for &node in entries {
            let path = self.entry_path(node);
            layer.insert(node, (1, path));
            if self.trace {
                self.events.push(TraceEvent::Entry { node, score: 1.0 });
            }
        }
        let hops = match via.mode {
            ViaMode::Path => via.steps.len() as u32,
            ViaMode::Set => self.plan.depth,
        };
        // Set mode: every node seen, so that a node counts once, at its shortest distance.
        let mut seen: Reach = layer.clone();
        // The hop count of `layer`.
        let mut at = 0;
        for hop in 0..hops {
            let steps: Vec<&StepPlan> = match via.mode {
                ViaMode::Path => via.steps.get(hop as usize).into_iter().collect(),
                ViaMode::Set => via.steps.iter().collect(),
            };
            self.stats.rounds += 1;
            let mut next: Reach = HashMap::new();
            let mut from: Vec<(NodeId, (u64, usize))> =
                layer.iter().map(|(n, v)| (*n, *v)).collect();
            from.sort_by_key(|(n, _)| *n);
            for (node, (count, path)) in from {
                if cut.is_none() {
                    *cut = if cancel.is_cancelled() {
                        Some(StopReason::Cancelled)
                    } else if self.stats.nodes_expanded >= u64::from(self.plan.budget) {
                        Some(StopReason::BudgetCap)
                    } else if self.started.elapsed() >= self.plan.time_cap {
                        Some(StopReason::TimeCap)
                    } else {
                        None
                    };
                }
                if cut.is_some() {
                    break;
                }
                self.stats.nodes_expanded += 1;
                if self.trace {
                    self.events.push(TraceEvent::Expand {
                        round: self.stats.rounds,
                        node,
                        hops: hop,
                        score: 1.0,
                    });
                }
                for step in steps.iter().filter(|s| s.weight > 0.0) {
                    let mut found = self.neighbors(node, step)?;
                    self.stats.edges_scanned += found.len() as u64;
                    self.thin(node, &mut found);
                    for (n, rel, reversed) in found {
                        if via.mode == ViaMode::Set && seen.contains_key(&n) {
                            continue;
                        }
                        match next.get_mut(&n) {
                            Some(slot) => slot.0 = slot.0.saturating_add(count),
                            None => {
                                let p = self.push_path(PathNode {
                                    node: n,
                                    prev: Some(path),
                                    rel: Some(rel),
                                    reversed,
                                    hops: hop + 1,
                                    signature: 0,
                                });
                                next.insert(n, (count, p));
                            }
                        }
                    }
                }
            }
            if via.mode == ViaMode::Set {
                seen.extend(next.iter().map(|(n, v)| (*n, *v)));
            }
            layer = next;
            at = hop + 1;
            if cut.is_some() || layer.is_empty() {
                break;
            }
        }
        Ok(match via.mode {
            ViaMode::Path if at == hops => layer,
            // A path cut short of its end: nothing it reached is at the end.
            ViaMode::Path => HashMap::new(),
            ViaMode::Set => {
                for e in entries {
                    seen.remove(e);
                }
                seen
            }
        })
    }
}
