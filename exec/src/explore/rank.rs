//! Results: which candidates count as results, their order, their rows and columns, and how
//! sufficient the results found so far are.

use super::*;

impl Run<'_, '_> {
    pub(super) fn consider_result(&self, results: &mut HashMap<NodeId, Candidate>, c: Candidate) {
        let Some(info) = self.infos.get(&c.node) else {
            return;
        };
        // A node is not its own result: a path that starts at it does not make it one (an
        // author is not their own co-author), a path from another entry does. An ordered path
        // names what it leads to: its results are the nodes at its end. In a relation set an
        // entry a SEARCH found is a candidate by itself. Without VIA the entries are all there
        // is.
        let own = self.root(c.path) == c.node
            && !self.plan.is_selection()
            && !(self.plan.via.mode == ViaMode::Set && self.searched.contains(&c.node));
        if own
            || (self.plan.via.mode == ViaMode::Path
                && self.paths[c.path].hops as usize != self.plan.via.steps.len())
            || self.excluded.contains(&c.node)
        {
            return;
        }
        if !self.plan.targets.is_empty() && !self.plan.targets.iter().any(|t| t.id == info.label) {
            return;
        }
        if !self.plan.filters.is_empty() {
            // Records of this round's nodes were read before scoring when filters exist.
            let Some(record) = self.record(c.node) else {
                return;
            };
            if !self
                .plan
                .filters
                .iter()
                .filter(|f| f.at.is_none())
                .all(|f| passes(f, record))
            {
                return;
            }
        }
        match results.get(&c.node) {
            Some(old) if old.score >= c.score => {}
            _ => {
                results.insert(c.node, c);
            }
        }
    }

    /// The best `limit` result candidates, best first (score, then node id): a prefix of the
    /// one ranking of every result.
    pub(super) fn best(
        &self,
        results: &HashMap<NodeId, Candidate>,
        limit: usize,
    ) -> Vec<Candidate> {
        let mut all: Vec<Candidate> = results.values().copied().collect();
        let by_rank =
            |a: &Candidate, b: &Candidate| b.score.total_cmp(&a.score).then(a.node.cmp(&b.node));
        if limit > 0 && all.len() > limit {
            all.select_nth_unstable_by(limit - 1, by_rank);
            all.truncate(limit);
        }
        all.sort_by(by_rank);
        all
    }

    /// The result nodes of `top`, with their evidence paths (what the judge reads).
    pub(super) fn finish(&self, top: &[Candidate]) -> Vec<ResultNode> {
        top.iter()
            .filter_map(|c| {
                let info = self.infos.get(&c.node)?;
                self.result_node(c.node, c.score, self.path_of(c.path))
                    .map(|r| ResultNode {
                        semantic: info.semantic,
                        hops: self.paths[c.path].hops,
                        ..r
                    })
            })
            .collect()
    }

    /// The search's answer: every result ranked by score, ties by label name then external
    /// key (never by insertion order), cut at `LIMIT` (keeping ties `WITH TIES`).
    pub(super) fn ranked(
        &mut self,
        results: &HashMap<NodeId, Candidate>,
    ) -> Result<Vec<ResultNode>, ExploreError> {
        let mut all: Vec<Candidate> = results.values().copied().collect();
        all.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.node.cmp(&b.node)));
        let top = self.cut(
            &all,
            self.plan.limit as usize,
            self.plan.output.with_ties,
            |a, b| b.score.total_cmp(&a.score),
            |c| c.node,
        )?;
        let ids: Vec<NodeId> = top.iter().map(|c| c.node).collect();
        self.ensure_records(&ids)?;
        Ok(self.finish(&top))
    }

    /// A result node from its record (read before): label, key, name; `semantic` 0 and `hops`
    /// the path's length until the caller knows better.
    pub(super) fn result_node(
        &self,
        node: NodeId,
        score: f64,
        path: Vec<PathStep>,
    ) -> Option<ResultNode> {
        let record = self.record(node)?;
        Some(ResultNode {
            node,
            label: self
                .catalog
                .label_name(record.label)
                .unwrap_or("?")
                .to_owned(),
            key: record.key.clone(),
            name: display_name(record, self.catalog),
            score,
            semantic: self.infos.get(&node).map_or(0.0, |i| i.semantic),
            hops: u32::try_from(path.len()).unwrap_or(u32::MAX),
            path,
            values: Vec::new(),
            count: None,
        })
    }

    /// The values of the plan's `RETURN NODES` columns for each result: its properties, those
    /// of the nodes aliases bind on its evidence path, its count and its score.
    pub(super) fn fill_columns(&mut self, results: &mut [ResultNode]) -> Result<(), ExploreError> {
        let columns = &self.plan.output.columns;
        if columns.is_empty() {
            return Ok(());
        }
        for col in columns {
            let values: Vec<Value> = match col {
                cairn_query::Column::Count => results
                    .iter()
                    .map(|r| r.count.map_or(Value::Null, |c| Value::Int(c as i64)))
                    .collect(),
                cairn_query::Column::Score => {
                    results.iter().map(|r| Value::Float(r.score)).collect()
                }
                cairn_query::Column::Property(p) => {
                    let nodes: Vec<Option<NodeId>> = results
                        .iter()
                        .map(|r| match p.at.as_ref().map(|b| b.hop) {
                            None => Some(r.node),
                            Some(0) => Some(r.path.first().map_or(r.node, |s| s.from)),
                            Some(h) => r.path.get(h as usize - 1).map(|s| s.to),
                        })
                        .collect();
                    self.values_of(&nodes, p.property.id)?
                        .into_iter()
                        .map(|v| v.unwrap_or(Value::Null))
                        .collect()
                }
            };
            for (r, v) in results.iter_mut().zip(values) {
                r.values.push(v);
            }
        }
        Ok(())
    }

    /// λ·coverage + (1−λ)·relevance: coverage over every result found, relevance over the best
    /// three of `window`.
    pub(super) fn sufficiency(
        &self,
        results: &HashMap<NodeId, Candidate>,
        top: &[Candidate],
    ) -> f64 {
        let label_of = |c: &Candidate| self.infos.get(&c.node).map(|i| i.label);
        let wanted = self.mentions.len() + self.plan.targets.len();
        let met = self.mentioned.len()
            + self
                .plan
                .targets
                .iter()
                .filter(|t| results.values().any(|c| label_of(c) == Some(t.id)))
                .count();
        let coverage = if wanted == 0 {
            if results.is_empty() {
                0.0
            } else {
                1.0
            }
        } else {
            met as f64 / wanted as f64
        };
        let k = top.len().min(3);
        let relevance = if k == 0 {
            0.0
        } else {
            top[..k]
                .iter()
                .filter_map(|c| self.infos.get(&c.node))
                .map(|i| i.semantic)
                .sum::<f64>()
                / k as f64
        };
        SUFFICIENCY_LAMBDA * coverage + (1.0 - SUFFICIENCY_LAMBDA) * relevance
    }
}
