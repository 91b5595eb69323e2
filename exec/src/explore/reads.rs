//! What a round reads: a remote store's layer at a time (the read-ahead), the nodes' labels,
//! degrees and vectors for scoring, and their records.

use super::*;

impl Run<'_, '_> {
    /// Reads, in one batch, the facts of the nodes `reached` (with the hops they were reached
    /// at) and the edges of those the search may walk on from. On a source that reads ahead (a
    /// remote store: [`NodeSource::reads_ahead`]), a round that must read at all also reads
    /// the next layer of the walk: the step neighbours (thinned as an expansion thins them) of
    /// the nodes read before whose neighbours were not, below `depth_cap`, and that a later
    /// round may still expand (a frontier candidate, or a node a frontier candidate nearer the
    /// entries may yet reach), best frontier candidates first, up to [`READ_AHEAD_BYTES`]. A
    /// later round that expands one of them finds what it reaches read: when a layer fits, an
    /// EXPLORE reads once per hop of its walk (its entries, then each layer; an adaptive
    /// expansion's hop reads the layer past the old cap, whose nodes were read with their
    /// edges) instead of once per round. Scores and results do not change.
    pub(super) fn read_round(
        &mut self,
        reached: &[(NodeId, u32)],
        depth_cap: u32,
        frontier: &Frontier,
    ) -> Result<(), ExploreError> {
        let table = self.ex.table;
        let ids: Vec<NodeId> = reached.iter().map(|r| r.0).collect();
        if !table.reads_ahead() {
            // (not the edges of nodes at the depth cap: nothing expands them unless the depth
            // grows, and then they are read when expanded)
            let onward = self.walks_on(reached.iter().map(|r| r.1).filter(|h| *h < depth_cap));
            table.prefetch(&ids, onward)?;
            return Ok(());
        }
        // (the edges of nodes at the cap too: their connectivity counts their edges through
        // the steps, and an adaptive expansion walks on from them)
        let onward = self.walks_on(reached.iter().map(|r| r.1));
        if table.unread(&ids, onward).is_empty() {
            self.note_read(reached);
            return Ok(());
        }
        // Frontier candidates rank the nodes to open (best first); a node that is none may
        // still be reached, and expanded, if some candidate is nearer the entries than it.
        let mut best: HashMap<NodeId, f64> = HashMap::new();
        let mut nearest = u32::MAX;
        for c in frontier.values() {
            let b = best.entry(c.node).or_insert(c.score);
            *b = b.max(c.score);
            let hops = self.paths[c.path].hops;
            if hops < depth_cap {
                nearest = nearest.min(hops);
            }
        }
        for &(node, hops) in reached {
            // about to be candidates (scored after this read)
            best.entry(node).or_insert(0.0);
            if hops < depth_cap {
                nearest = nearest.min(hops);
            }
        }
        let mut open: Vec<(NodeId, u32)> = Vec::new();
        let mut later = Vec::new();
        for (node, hops) in std::mem::take(&mut self.ahead) {
            let may_expand = best.contains_key(&node) || (nearest != u32::MAX && hops > nearest);
            if hops < depth_cap && may_expand {
                open.push((node, hops));
            } else {
                later.push((node, hops));
            }
        }
        let rank = |n: &NodeId| best.get(n).copied().unwrap_or(f64::NEG_INFINITY);
        open.sort_by(|a, b| rank(&b.0).total_cmp(&rank(&a.0)).then(a.cmp(b)));
        let (nodes, edges) = table.read_so_far();
        let (prior, weight) = PRIOR_EDGES;
        let per_node = NODE_BYTES + EDGE_BYTES * (edges + prior * weight) / (nodes + weight);
        let fanout = self.plan.fanout as usize;
        let mut want = reached.to_vec();
        let mut queued: HashSet<NodeId> = reached.iter().map(|r| r.0).collect();
        let mut bytes = 0u64;
        let mut rest = open.into_iter();
        for (node, hops) in rest.by_ref() {
            let mut found = Vec::new();
            for step in steps_at(self.plan, hops) {
                let mut more = self.neighbors(node, step)?;
                sample_evenly(&mut more, fanout);
                found.extend(more.into_iter().map(|(n, _, _)| n));
            }
            let mut fresh = table.unread(&found, self.walks_on([hops + 1]));
            fresh.retain(|n| queued.insert(*n));
            bytes += fresh.len() as u64 * per_node;
            want.extend(fresh.into_iter().map(|n| (n, hops + 1)));
            if bytes >= READ_AHEAD_BYTES {
                break;
            }
        }
        later.extend(rest);
        self.ahead = later;
        let ids: Vec<NodeId> = want.iter().map(|r| r.0).collect();
        let onward = self.walks_on(want.iter().map(|r| r.1));
        table.prefetch(&ids, onward)?;
        self.note_read(&want);
        Ok(())
    }

    /// Puts nodes read with their edges (and the hops they were read at) where the next
    /// `read_round` that reads looks for the next layer.
    pub(super) fn note_read(&mut self, read: &[(NodeId, u32)]) {
        for &(node, hops) in read {
            if has_steps_at(self.plan, hops) && self.ahead_seen.insert((node, self.state(hops))) {
                self.ahead.push((node, hops));
            }
        }
    }

    /// Scores nodes not seen yet: label, degree and vector from the node source; vectors it
    /// does not hold come from the store (or the embedder).
    pub(super) fn load(&mut self, nodes: &[NodeId]) -> Result<(), ExploreError> {
        let mut from_store: Vec<NodeId> = Vec::new();
        let mut need_vector: Vec<NodeId> = Vec::new();
        let mut facts = Vec::new();
        self.ex.table.facts(nodes, &self.probe, &mut facts)?;
        self.infos.reserve(nodes.len());
        for (&id, f) in nodes.iter().zip(facts) {
            let Some(f) = f else {
                if !self.infos.contains_key(&id) {
                    from_store.push(id);
                }
                continue;
            };
            let hashbrown::hash_map::Entry::Vacant(slot) = self.infos.entry(id) else {
                continue;
            };
            let semantic = match f.cosine {
                Some(c) => f64::from(c).max(0.0),
                None => {
                    need_vector.push(id);
                    0.0
                }
            };
            slot.insert(Info {
                label: f.label,
                semantic,
                connectivity: f.connectivity,
                record: None,
            });
            self.stats.nodes_scored += 1;
        }
        if !from_store.is_empty() {
            let degrees = self.ex.graph.degrees(&from_store)?;
            self.ensure_records(&from_store)?;
            for (id, d) in from_store.iter().zip(degrees) {
                let Some(label) = self.record(*id).map(|r| r.label) else {
                    continue;
                };
                let connectivity =
                    ((1.0 + (d.out + d.inc).max(0) as f64).ln() / self.ex.log_max_degree).min(1.0);
                let record = self.record(*id).cloned();
                self.infos.insert(
                    *id,
                    Info {
                        label,
                        semantic: 0.0,
                        connectivity,
                        record,
                    },
                );
                self.stats.nodes_scored += 1;
                need_vector.push(*id);
            }
        }
        if !need_vector.is_empty() {
            self.semantic_from_store(&need_vector)?;
        }
        Ok(())
    }

    /// Semantic scores for nodes whose vector the table does not hold: the stored vector if
    /// the database's embedder is ours, else the embedding of the description, in one batch.
    pub(super) fn semantic_from_store(&mut self, ids: &[NodeId]) -> Result<(), ExploreError> {
        let stored = match self.catalog.embedder() {
            Some(e) if e.id == self.ex.embedder.id() => self.ex.graph.vectors(ids)?,
            _ => vec![None; ids.len()],
        };
        let missing: Vec<NodeId> = ids
            .iter()
            .zip(&stored)
            .filter(|(_, v)| v.is_none())
            .map(|(id, _)| *id)
            .collect();
        self.ensure_records(&missing)?;
        let texts: Vec<String> = missing
            .iter()
            .filter_map(|id| self.record(*id).map(|r| description(r, self.catalog)))
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let embedded = if refs.is_empty() {
            Vec::new()
        } else {
            self.ex.embedder.embed_batch(&refs)?
        };
        let with_text: Vec<NodeId> = missing
            .iter()
            .copied()
            .filter(|id| self.record(*id).is_some())
            .collect();
        let mut vectors: HashMap<NodeId, Vec<f32>> = with_text.into_iter().zip(embedded).collect();
        for (id, v) in ids.iter().zip(stored) {
            let v = v.or_else(|| vectors.remove(id));
            if let (Some(v), Some(info)) = (v, self.infos.get_mut(id)) {
                info.semantic = f64::from(cosine(&self.goal_vec, &v)).max(0.0);
            }
        }
        Ok(())
    }

    pub(super) fn record(&self, id: NodeId) -> Option<&Arc<NodeRecord>> {
        self.infos
            .get(&id)
            .and_then(|i| i.record.as_ref())
            .or_else(|| self.records.get(&id))
    }

    /// Reads the records of `ids` not read yet (one batched multi-get), and checks the goal's
    /// mentions against their names.
    pub(super) fn ensure_records(&mut self, ids: &[NodeId]) -> Result<(), ExploreError> {
        let mut todo: Vec<NodeId> = ids
            .iter()
            .copied()
            .filter(|id| self.record(*id).is_none())
            .collect();
        todo.sort();
        todo.dedup();
        if todo.is_empty() {
            return Ok(());
        }
        // Records the node source read with the facts (counted as cache hits), then the store.
        let held: Vec<Option<Arc<NodeRecord>>> =
            todo.iter().map(|id| self.ex.table.record(*id)).collect();
        let missing: Vec<NodeId> = todo
            .iter()
            .zip(&held)
            .filter(|(_, r)| r.is_none())
            .map(|(id, _)| *id)
            .collect();
        self.stats.cache_hits += (todo.len() - missing.len()) as u64;
        let graph = self.ex.graph;
        let (hits_before, _) = graph.cache_stats();
        let mut read = graph.nodes(&missing)?.into_iter();
        let (hits_after, _) = graph.cache_stats();
        self.stats.cache_hits += hits_after.saturating_sub(hits_before);
        let records: Vec<Option<Arc<NodeRecord>>> = held
            .into_iter()
            .map(|r| r.or_else(|| read.next().flatten()))
            .collect();
        for (id, rec) in todo.into_iter().zip(records) {
            let Some(rec) = rec else { continue };
            if self.mentioned.len() < self.mentions.len() {
                let name = display_name(&rec, self.catalog).to_lowercase();
                for (m, mention) in self.mentions.iter().enumerate() {
                    if name.contains(mention.as_str()) {
                        self.mentioned.insert(m);
                    }
                }
            }
            match self.infos.get_mut(&id) {
                Some(info) => info.record = Some(rec),
                None => {
                    self.records.insert(id, rec);
                }
            }
        }
        Ok(())
    }
}
