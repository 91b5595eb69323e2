//! Exact plans ([`Plan::is_exact`], `RETURN COUNT`): the pattern is matched exhaustively by the
//! level walk of [`crate::walk`] — never a beam, a budget, a fan-out sample or a stop rule —
//! and the results are then counted, ordered, projected or aggregated.
//!
//! The candidates are the nodes the main side ends at (the nodes at the end of an ordered
//! path; every node within `DEPTH` hops of a relation set, with the `SEARCH` entries; the
//! entries themselves for a selection without `VIA`) through a path that does not start at
//! them (a node is not its own result), reached so by every `MEET` side, by no `EXCEPT` side,
//! with a `TARGET` label, passing every `WHERE` filter (filters on a bound node apply to its
//! level of the walk).
//! This is the set `RETURN NODES` draws from for the same pattern, so a count and the nodes
//! agree. Each candidate's `COUNT` is the number of distinct paths reaching it (for `MEET`,
//! the product over the sides).

use super::*;
use crate::result::{AggregateRow, GroupValue, NodeRow};
use crate::value::{sort_cmp, Accumulator};
use crate::walk::{walk, End, NodeSet, WalkBounds, WalkCut, WalkShape, WalkStep, Walked};
use cairn_query::ast::{AggFunc, ReturnKind};
use cairn_query::limits::MAX_COUNT_EDGES;
use cairn_query::{GroupKey, PropAt, SortBy, ViaPlan};
use std::cmp::Ordering;

/// Records are read for checks and values this many at a time.
pub(super) const RECORD_CHUNK: usize = 4096;

/// What one side of the pattern reaches.
struct Reach {
    walked: Option<Walked>,
    /// Each end: its node, the distinct paths reaching it (0 when the plan needs no path
    /// counts, see [`Run::counts_paths`]) and where the walk has it.
    ends: Vec<Cand>,
}

/// One candidate: its node, its path count (support) and where its evidence is.
#[derive(Clone, Copy)]
struct Cand {
    node: NodeId,
    count: u64,
    end: Option<End>,
}

/// What an exact run returns.
pub(super) struct ExactOut {
    pub results: Vec<ResultNode>,
    pub count: Option<u64>,
    pub rows: Vec<AggregateRow>,
}

/// A `GROUP BY` key's value, hashable (numbers of equal value are one key).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum KeyVal {
    Missing,
    Node(NodeId),
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String),
    Other(String),
}

fn key_val(v: Option<&Value>) -> KeyVal {
    match v {
        None | Some(Value::Null) => KeyVal::Missing,
        Some(Value::Bool(b)) => KeyVal::Bool(*b),
        Some(Value::Int(i)) => KeyVal::Int(*i),
        Some(Value::Float(x)) if x.fract() == 0.0 && x.abs() < 9.0e18 => KeyVal::Int(*x as i64),
        Some(Value::Float(x)) => KeyVal::Float(x.to_bits()),
        Some(Value::Str(s)) => KeyVal::Str(s.clone()),
        Some(other) => KeyVal::Other(format!("{other:?}")),
    }
}

/// Which node of a row a value is read from: the end, or the node an alias binds.
fn hop_of(p: &PropAt) -> Option<u32> {
    p.at.as_ref().map(|b| b.hop)
}

impl Run<'_, '_> {
    /// Runs an exact plan (see the module docs).
    pub(super) fn exact(&mut self, cancel: &CancelToken) -> Result<ExactOut, ExploreError> {
        let plan = self.plan;
        let mut spent = 0u64;
        if let Some(top) = self.top_k_selection()? {
            let results = self.ranked_nodes(&top)?;
            return Ok(ExactOut {
                results,
                count: None,
                rows: Vec::new(),
            });
        }
        let (entries, searched) = self.entries(&plan.entries)?;
        let entries = self.keep_hop(0, &entries)?;
        let cands = self.candidates(&entries, &searched, cancel, &mut spent)?;
        if plan.ret == ReturnKind::Count {
            return Ok(ExactOut {
                results: Vec::new(),
                count: Some(cands.len() as u64),
                rows: Vec::new(),
            });
        }
        if plan.ret == ReturnKind::Aggregate {
            let rows = self.aggregate(&entries, &cands, cancel, &mut spent)?;
            return Ok(ExactOut {
                results: Vec::new(),
                count: None,
                rows,
            });
        }
        let results = self.ranked_nodes(&cands)?;
        Ok(ExactOut {
            results,
            count: None,
            rows: Vec::new(),
        })
    }

    /// `FROM L [WHERE …] RETURN NODES … ORDER BY p … LIMIT k` with an index on `L(p)`: the
    /// first k (and the rows tied with the k-th on `p`) read from the index in order, each
    /// checked against the predicates and filters, instead of every node of the label.
    /// `None` when the plan is not of that shape or the index cannot answer.
    fn top_k_selection(&mut self) -> Result<Option<Vec<Cand>>, ExploreError> {
        let plan = self.plan;
        let (
            [EntryPlan::Match { label, predicates }],
            true,
            true,
            Some(SortBy::Property(PropAt { at: None, property })),
            ReturnKind::Nodes | ReturnKind::Paths | ReturnKind::Subgraph | ReturnKind::Answer,
        ) = (
            plan.entries.as_slice(),
            plan.is_selection(),
            plan.meet.is_empty() && plan.except.is_empty(),
            plan.output.order.first().map(|k| &k.by),
            plan.ret,
        )
        else {
            return Ok(None);
        };
        if !plan.targets.iter().all(|t| t.id == label.id) {
            return Ok(None);
        }
        let descending = plan.output.order[0].descending;
        let (label_id, prop) = (label.id, property.id);
        let graph = self.ex.graph;
        let mut keep = |ids: &[NodeId]| -> Result<Vec<bool>, ExploreError> {
            let hop0 = level_flags(graph, plan, 0, ids)?;
            let mut out = Vec::with_capacity(ids.len());
            for (rec, h) in graph.nodes(ids)?.into_iter().zip(hop0) {
                out.push(
                    h && rec.is_some_and(|r| {
                        r.label == label_id
                            && predicates.iter().all(|p| passes(p, &r))
                            && plan
                                .filters
                                .iter()
                                .filter(|f| f.at.is_none())
                                .all(|f| passes(f, &r))
                    }),
                );
            }
            Ok(out)
        };
        let Some(rows) =
            self.top_by_index(label_id, prop, descending, plan.limit as usize, &mut keep)?
        else {
            return Ok(None);
        };
        Ok(Some(
            rows.into_iter()
                .map(|(node, _)| Cand {
                    node,
                    count: 1,
                    end: None,
                })
                .collect(),
        ))
    }

    /// The nodes the `EXCEPT` sides reach (walked exactly): never results.
    pub(super) fn except_set(
        &mut self,
        cancel: &CancelToken,
    ) -> Result<HashSet<NodeId>, ExploreError> {
        let mut spent = 0u64;
        let mut gone = HashSet::new();
        for side in &self.plan.except {
            let (entries, _) = self.entries(&side.entries)?;
            let reach = self.reach(&entries, &side.via, None, cancel, &mut spent)?;
            gone.extend(reach.ends.iter().map(|e| e.node));
        }
        Ok(gone)
    }

    /// The entries that pass the filters on hop 0 (`FROM … AS a … WHERE a.p …`).
    pub(super) fn keep_hop(
        &mut self,
        hop: u32,
        nodes: &[NodeId],
    ) -> Result<Vec<NodeId>, ExploreError> {
        let flags = level_flags(self.ex.graph, self.plan, hop, nodes)?;
        Ok(nodes
            .iter()
            .zip(flags)
            .filter(|(_, k)| *k)
            .map(|(n, _)| *n)
            .collect())
    }

    /// The candidates (see the module docs), in the order the walk reached them.
    fn candidates(
        &mut self,
        entries: &[NodeId],
        searched: &HashSet<NodeId>,
        cancel: &CancelToken,
        spent: &mut u64,
    ) -> Result<Vec<Cand>, ExploreError> {
        let plan = self.plan;
        let main = if plan.is_selection() {
            Reach {
                walked: None,
                ends: entries
                    .iter()
                    .map(|&node| Cand {
                        node,
                        count: 1,
                        end: None,
                    })
                    .collect(),
            }
        } else {
            self.reach(entries, &plan.via, Some(searched), cancel, spent)?
        };
        let mut cands = main.ends;
        self.main_walk = main.walked;
        for side in &plan.meet {
            if cands.is_empty() {
                break;
            }
            let (side_entries, _) = self.entries(&side.entries)?;
            let reach = self.reach(&side_entries, &side.via, None, cancel, spent)?;
            let counts: HashMap<NodeId, u64> =
                reach.ends.iter().map(|e| (e.node, e.count)).collect();
            cands.retain_mut(|c| match counts.get(&c.node) {
                Some(n) => {
                    c.count = c.count.saturating_mul(*n);
                    true
                }
                None => false,
            });
        }
        if !plan.except.is_empty() && !cands.is_empty() {
            let gone = self.except_set(cancel)?;
            cands.retain(|c| !gone.contains(&c.node));
        }
        if !plan.targets.is_empty() {
            // In chunks, in place: no second array as long as the candidates.
            let (mut ids, mut labels) = (Vec::new(), Vec::new());
            let mut kept = 0;
            for start in (0..cands.len()).step_by(RECORD_CHUNK) {
                let end = (start + RECORD_CHUNK).min(cands.len());
                ids.clear();
                ids.extend(cands[start..end].iter().map(|c| c.node));
                labels.clear();
                self.ex.table.labels_into(&ids, &mut labels)?;
                for (k, l) in labels.iter().enumerate() {
                    if l.is_some_and(|l| plan.targets.iter().any(|t| t.id == l)) {
                        cands[kept] = cands[start + k];
                        kept += 1;
                    }
                }
            }
            cands.truncate(kept);
        }
        let result_filters: Vec<&Filter> = plan.filters.iter().filter(|f| f.at.is_none()).collect();
        if !result_filters.is_empty() {
            let mut kept = Vec::with_capacity(cands.len());
            for chunk in cands.chunks(RECORD_CHUNK) {
                let ids: Vec<NodeId> = chunk.iter().map(|c| c.node).collect();
                for (c, rec) in chunk.iter().zip(self.ex.graph.nodes(&ids)?) {
                    if rec.is_some_and(|r| result_filters.iter().all(|f| passes(f, &r))) {
                        kept.push(*c);
                    }
                }
            }
            cands = kept;
        }
        Ok(cands)
    }

    /// Whether the plan reads how many paths reach a candidate (its `COUNT` as a result's
    /// support, `ORDER BY COUNT` of nodes) or where the walk reached it (evidence paths, values
    /// on the path): a count of nodes or an aggregate reads neither, and its walks keep only
    /// the nodes of each level.
    fn counts_paths(&self) -> bool {
        !matches!(self.plan.ret, ReturnKind::Count | ReturnKind::Aggregate)
    }

    /// Walks one side exhaustively from `entries`: an ordered path to its end, a relation set
    /// breadth-first to the plan's depth (a step of weight 0 is switched off: a path through
    /// it ends nowhere). The main side (`searched`: its `SEARCH` entries) applies the filters on
    /// bound nodes to their levels. The statement lists at most [`MAX_COUNT_EDGES`] edges over
    /// all its walks (`spent`).
    ///
    /// A node is not its own result: a path that starts at a node does not make it an end, a
    /// path from another entry does (`FROM State VIA BORDER` ends at every state bordered by
    /// some state; an author is not their own co-author). An entry's count is then the number
    /// of (shortest, for a set) paths from the other entries. A `SEARCH` entry of a relation set
    /// is an end by itself (it was found for the goal).
    fn reach(
        &mut self,
        entries: &[NodeId],
        via: &ViaPlan,
        searched: Option<&HashSet<NodeId>>,
        cancel: &CancelToken,
        spent: &mut u64,
    ) -> Result<Reach, ExploreError> {
        let main = searched.is_some();
        let off: Vec<bool> = via.steps.iter().map(|s| s.weight <= 0.0).collect();
        let shape = match via.mode {
            ViaMode::Path if off.iter().any(|o| *o) => {
                return Ok(Reach {
                    walked: None,
                    ends: Vec::new(),
                })
            }
            ViaMode::Path => WalkShape::Path,
            ViaMode::Set => WalkShape::Set {
                depth: self.plan.depth,
            },
        };
        let steps: Vec<WalkStep> = via
            .steps
            .iter()
            .zip(&off)
            .filter(|(_, o)| !**o)
            .map(|(s, _)| walk_step(s))
            .collect();
        let track = self.counts_paths();
        let walked = self.walk_steps(entries, &steps, shape, 0, main, track, cancel, spent)?;
        let entry_set: HashSet<NodeId> = entries.iter().copied().collect();
        let mut ends: Vec<Cand> = Vec::with_capacity(walked.end_count());
        for e in walked.each_end() {
            if entry_set.contains(&e.node) {
                // A path's end that is also an entry: only the other entries' paths count.
                let n = self.paths_from_others(e.node, &entry_set, &steps, shape, main, spent)?;
                if n > 0 {
                    ends.push(Cand {
                        node: e.node,
                        count: n,
                        end: None,
                    });
                }
            } else {
                ends.push(Cand {
                    node: e.node,
                    count: e.paths,
                    end: Some(e),
                });
            }
        }
        if let WalkShape::Set { .. } = shape {
            // A set's walk never comes back to its entries (they are its first level).
            for &n in entries {
                let count = if searched.is_some_and(|s| s.contains(&n)) {
                    1
                } else {
                    self.paths_from_others(n, &entry_set, &steps, shape, main, spent)?
                };
                if count > 0 {
                    ends.push(Cand {
                        node: n,
                        count,
                        end: None,
                    });
                }
            }
        }
        Ok(Reach {
            walked: Some(walked),
            ends,
        })
    }

    /// How many paths of the pattern reach the entry `node` from the other entries (for a set,
    /// the shortest ones within its depth): a walk backwards from `node`, one level per step.
    fn paths_from_others(
        &mut self,
        node: NodeId,
        entries: &HashSet<NodeId>,
        steps: &[WalkStep],
        shape: WalkShape,
        filtered: bool,
        spent: &mut u64,
    ) -> Result<u64, ExploreError> {
        let back = |s: &WalkStep| WalkStep {
            rels: s.rels.clone(),
            direction: match s.direction {
                Direction::Out => Direction::In,
                Direction::In => Direction::Out,
                Direction::Both => Direction::Both,
            },
        };
        let hops = match shape {
            WalkShape::Path => steps.len(),
            WalkShape::Set { depth } => depth as usize,
        };
        let mut level: HashMap<NodeId, u64> = HashMap::from([(node, 1)]);
        let mut seen: HashSet<NodeId> = HashSet::from([node]);
        let mut buf = Vec::new();
        for j in 0..hops {
            let hop_steps: Vec<WalkStep> = match shape {
                WalkShape::Path => vec![back(&steps[steps.len() - 1 - j])],
                WalkShape::Set { .. } => steps.iter().map(back).collect(),
            };
            let mut next: HashMap<NodeId, u64> = HashMap::new();
            for (&u, &c) in &level {
                for st in &hop_steps {
                    buf.clear();
                    self.ex
                        .table
                        .neighbors_into(u, st.direction, &st.rels, &mut buf)?;
                    *spent += buf.len() as u64;
                    if *spent > MAX_COUNT_EDGES {
                        return Err(ExploreError::CountTooLarge {
                            limit: MAX_COUNT_EDGES,
                        });
                    }
                    for &(v, _, _) in &buf {
                        if matches!(shape, WalkShape::Set { .. }) && seen.contains(&v) {
                            continue;
                        }
                        let slot = next.entry(v).or_insert(0);
                        *slot = slot.saturating_add(c);
                    }
                }
            }
            // The level reached is hop `hops - 1 - j` of a forward path: its filters apply.
            let forward_hop = (hops - 1 - j) as u32;
            if filtered && forward_hop > 0 && matches!(shape, WalkShape::Path) {
                let ids: Vec<NodeId> = next.keys().copied().collect();
                let flags = level_flags(self.ex.graph, self.plan, forward_hop, &ids)?;
                for (id, k) in ids.into_iter().zip(flags) {
                    if !k {
                        next.remove(&id);
                    }
                }
            }
            match shape {
                WalkShape::Set { .. } => {
                    let from: u64 = next
                        .iter()
                        .filter(|(n, _)| **n != node && entries.contains(*n))
                        .map(|(_, c)| *c)
                        .fold(0u64, u64::saturating_add);
                    if from > 0 {
                        return Ok(from);
                    }
                    seen.extend(next.keys().copied());
                }
                WalkShape::Path => {}
            }
            level = next;
            if level.is_empty() {
                return Ok(0);
            }
        }
        Ok(match shape {
            WalkShape::Path => level
                .iter()
                .filter(|(n, _)| **n != node && entries.contains(*n))
                .map(|(_, c)| *c)
                .fold(0u64, u64::saturating_add),
            WalkShape::Set { .. } => 0,
        })
    }

    /// One exhaustive walk; `first_hop` is the hop of `entries` in the plan's path (the level
    /// filters of hop `first_hop + k` apply to the walk's level k).
    #[allow(clippy::too_many_arguments)]
    fn walk_steps(
        &mut self,
        entries: &[NodeId],
        steps: &[WalkStep],
        shape: WalkShape,
        first_hop: u32,
        filtered: bool,
        track: bool,
        cancel: &CancelToken,
        spent: &mut u64,
    ) -> Result<Walked, ExploreError> {
        let graph = self.ex.graph;
        let plan = self.plan;
        let cancelled = || cancel.is_cancelled();
        let keep = |hop: u32, nodes: &[NodeId]| level_flags(graph, plan, hop + first_hop, nodes);
        let bounds = WalkBounds {
            max_edges: MAX_COUNT_EDGES.saturating_sub(*spent),
            deadline: Some(self.started + plan.time_cap),
            cancelled: Some(&cancelled),
            keep: (filtered && has_level_filters(plan)).then_some(&keep as _),
        };
        let walked = walk(self.ex.table, entries, steps, shape, track, bounds)?;
        *spent += walked.edges;
        self.stats.edges_scanned += walked.edges;
        self.stats.rounds += 1;
        match walked.cut {
            None => Ok(walked),
            Some(WalkCut::Edges) => Err(ExploreError::CountTooLarge {
                limit: MAX_COUNT_EDGES,
            }),
            Some(WalkCut::Time) => Err(ExploreError::CountCut(StopReason::TimeCap)),
            Some(WalkCut::Cancelled) => Err(ExploreError::CountCut(StopReason::Cancelled)),
        }
    }

    /// `RETURN NODES …` of an exact plan: the candidates in the plan's order, cut at its limit.
    fn ranked_nodes(&mut self, cands: &[Cand]) -> Result<Vec<ResultNode>, ExploreError> {
        let plan = self.plan;
        let out = &plan.output;
        let best = cands.iter().map(|c| c.count).max().unwrap_or(1).max(1) as f64;
        let order: Vec<cairn_query::SortKey> = if out.order.is_empty() {
            vec![cairn_query::SortKey {
                by: SortBy::Count,
                descending: true,
            }]
        } else {
            out.order.clone()
        };
        // The values of every sort key, per candidate.
        let mut keys: Vec<Vec<Option<Value>>> = vec![Vec::with_capacity(order.len()); cands.len()];
        for k in &order {
            match &k.by {
                SortBy::Property(p) => {
                    let vals = self.prop_values(cands, p)?;
                    for (row, v) in keys.iter_mut().zip(vals) {
                        row.push(v);
                    }
                }
                SortBy::Node(b) => {
                    let nodes: Vec<NodeId> = cands
                        .iter()
                        .filter_map(|c| self.node_on_path(c.node, c.end, b.hop))
                        .collect();
                    let names = self.label_keys(&nodes)?;
                    for (row, c) in keys.iter_mut().zip(cands.iter()) {
                        let n = self.node_on_path(c.node, c.end, b.hop);
                        row.push(
                            n.and_then(|n| names.get(&n))
                                .map(|(l, k)| Value::Str(format!("{l}\u{0}{k}"))),
                        );
                    }
                }
                SortBy::Count | SortBy::Aggregate(_) => {
                    for (row, c) in keys.iter_mut().zip(cands.iter()) {
                        row.push(Some(Value::Int(i64::try_from(c.count).unwrap_or(i64::MAX))));
                    }
                }
                SortBy::Score => {
                    for (row, c) in keys.iter_mut().zip(cands.iter()) {
                        row.push(Some(Value::Float(c.count as f64 / best)));
                    }
                }
            }
        }
        let mut idx: Vec<usize> = (0..cands.len()).collect();
        let by_keys = |a: &usize, b: &usize| {
            for (j, k) in order.iter().enumerate() {
                let o = sort_cmp(keys[*a][j].as_ref(), keys[*b][j].as_ref(), k.descending);
                if o != Ordering::Equal {
                    return o;
                }
            }
            Ordering::Equal
        };
        idx.sort_by(|a, b| by_keys(a, b).then(cands[*a].node.cmp(&cands[*b].node)));
        let chosen = self.cut(
            &idx,
            plan.limit as usize,
            out.with_ties,
            |a, b| by_keys(a, b),
            |i| cands[*i].node,
        )?;
        let picked: Vec<Cand> = chosen.iter().map(|i| cands[*i]).collect();
        let ids: Vec<NodeId> = picked.iter().map(|c| c.node).collect();
        self.load(&ids)?;
        self.ensure_records(&ids)?;
        let mut results = Vec::with_capacity(picked.len());
        for c in picked {
            let path = self.evidence(c.end);
            let Some(mut r) = self.result_node(c.node, c.count as f64 / best, path) else {
                continue;
            };
            r.count = Some(c.count);
            results.push(r);
        }
        self.fill_columns(&mut results)?;
        Ok(results)
    }

    /// The first `limit` of `sorted` (already in the order of `keys`, then node id), ties on
    /// every key broken by label name and external key — read only for the rows that can
    /// come back — and, `with_ties`, every row equal on the keys to the last kept.
    pub(super) fn cut<T: Copy>(
        &mut self,
        sorted: &[T],
        limit: usize,
        with_ties: bool,
        keys: impl Fn(&T, &T) -> Ordering,
        node: impl Fn(&T) -> NodeId,
    ) -> Result<Vec<T>, ExploreError> {
        if sorted.is_empty() {
            return Ok(Vec::new());
        }
        // Every row that can come back: the first `limit`, and the rows tied with the last.
        let mut end = limit.min(sorted.len());
        if end > 0 {
            while end < sorted.len() && keys(&sorted[end - 1], &sorted[end]) == Ordering::Equal {
                end += 1;
            }
        }
        let mut prefix: Vec<T> = sorted[..end].to_vec();
        let ids: Vec<NodeId> = prefix.iter().map(&node).collect();
        let names = self.label_keys(&ids)?;
        prefix.sort_by(|a, b| {
            keys(a, b).then_with(|| {
                let (x, y) = (names.get(&node(a)), names.get(&node(b)));
                x.cmp(&y)
            })
        });
        if !with_ties {
            prefix.truncate(limit);
        }
        Ok(prefix)
    }

    /// (label name, external key) of each node: the order ties fall in.
    fn label_keys(
        &mut self,
        ids: &[NodeId],
    ) -> Result<HashMap<NodeId, (String, String)>, ExploreError> {
        let mut out = HashMap::with_capacity(ids.len());
        for chunk in ids.chunks(RECORD_CHUNK) {
            for (id, rec) in chunk.iter().zip(self.ex.graph.nodes(chunk)?) {
                if let Some(r) = rec {
                    let label = self.catalog.label_name(r.label).unwrap_or("?").to_owned();
                    out.insert(*id, (label, r.key.clone()));
                }
            }
        }
        Ok(out)
    }

    /// The value of `p` for each candidate: the candidate's own property, or the property of
    /// the node at the alias's hop on its evidence path.
    fn prop_values(
        &mut self,
        cands: &[Cand],
        p: &PropAt,
    ) -> Result<Vec<Option<Value>>, ExploreError> {
        let nodes: Vec<Option<NodeId>> = match hop_of(p) {
            None => cands.iter().map(|c| Some(c.node)).collect(),
            Some(h) => cands
                .iter()
                .map(|c| self.node_on_path(c.node, c.end, h))
                .collect(),
        };
        self.values_of(&nodes, p.property.id)
    }

    /// The property `prop` of each node (records read in batches, not kept).
    pub(super) fn values_of(
        &mut self,
        nodes: &[Option<NodeId>],
        prop: cairn_storage_format::PropKeyId,
    ) -> Result<Vec<Option<Value>>, ExploreError> {
        let mut out = Vec::with_capacity(nodes.len());
        for chunk in nodes.chunks(RECORD_CHUNK) {
            let ids: Vec<NodeId> = chunk.iter().flatten().copied().collect();
            let mut recs = self.ex.graph.nodes(&ids)?.into_iter();
            for n in chunk {
                out.push(match n {
                    Some(_) => recs.next().flatten().and_then(|r| r.prop(prop).cloned()),
                    None => None,
                });
            }
        }
        Ok(out)
    }

    /// The node at `hop` on the evidence path ending at `node` (hop 0: where it starts).
    fn node_on_path(&self, node: NodeId, end: Option<End>, hop: u32) -> Option<NodeId> {
        let path = match (end, &self.main_walk) {
            (Some(e), Some(w)) => w.evidence(&e),
            _ => Vec::new(),
        };
        if path.is_empty() {
            return (hop == 0).then_some(node);
        }
        match hop {
            0 => path.first().map(|h| h.from),
            h => path.get(h as usize - 1).map(|s| s.to),
        }
    }

    /// The main walk's evidence path of an end, as the results show it.
    fn evidence(&self, end: Option<End>) -> Vec<PathStep> {
        let (Some(e), Some(w)) = (end, &self.main_walk) else {
            return Vec::new();
        };
        w.evidence(&e)
            .into_iter()
            .map(|h| PathStep {
                from: h.from,
                relation: self.catalog.relation_name(h.rel).unwrap_or("?").to_owned(),
                reversed: h.reversed,
                to: h.to,
            })
            .collect()
    }

    /// `RETURN COUNT, SUM(p)… [GROUP BY …]`: one row per group (or one row), in the plan's
    /// order, cut at its limit.
    fn aggregate(
        &mut self,
        entries: &[NodeId],
        cands: &[Cand],
        cancel: &CancelToken,
        spent: &mut u64,
    ) -> Result<Vec<AggregateRow>, ExploreError> {
        let plan = self.plan;
        let out = &plan.output;
        // The hop a key reads from a bound node (at most one: checked when compiled).
        let bound_hop = out.group_by.iter().find_map(|k| match k {
            GroupKey::Node(b) => Some(b.hop),
            GroupKey::Property(p) => hop_of(p),
        });
        // Rows: (the bound node, the candidate).
        let rows: Vec<(NodeId, NodeId)> = match bound_hop {
            None => cands.iter().map(|c| (c.node, c.node)).collect(),
            Some(h) => self.pairs(h, entries, cands, cancel, spent)?,
        };
        let aggs = accumulated(out);
        let columns = self.columns(out, &aggs, &rows)?;
        let groups = group_rows(out, &aggs, &rows, &columns);
        let values: Vec<Vec<Value>> = (groups.iter())
            .map(|g| g.accs.iter().map(Accumulator::value).collect())
            .collect();
        // Nodes a key binds, shown by name; also their order among equal groups.
        let key_nodes: Vec<NodeId> = groups.iter().flat_map(Group::nodes).collect();
        let names = self.label_keys(&key_nodes)?;
        let order = GroupOrder {
            out,
            aggs: &aggs,
            groups: &groups,
            values: &values,
            names: &names,
        };
        let limit = match out.group_by.is_empty() {
            true => 1,
            false => plan.limit as usize,
        };
        let shown = order.shown(limit, out.with_ties);
        // The shown groups' nodes, read in one batch rather than one lookup per row.
        let shown_nodes: Vec<NodeId> = shown.iter().flat_map(|&g| groups[g].nodes()).collect();
        self.ensure_records(&shown_nodes)?;
        let mut result = Vec::with_capacity(shown.len());
        for &g in &shown {
            let mut keys = Vec::with_capacity(out.group_by.len());
            for (j, k) in groups[g].key.iter().enumerate() {
                keys.push(match k {
                    KeyVal::Node(n) => GroupValue::Node(self.node_row(*n)?),
                    _ => GroupValue::Value(groups[g].shown[j].clone().unwrap_or(Value::Null)),
                });
            }
            result.push(AggregateRow {
                keys,
                values: values[g][..out.aggregates.len()].to_vec(),
            });
        }
        Ok(result)
    }

    /// The values an aggregate reads, per row: each group key's (from the bound node or the
    /// end) and each aggregated property's (from the end). The nodes are listed only when
    /// some key or aggregate reads one.
    fn columns(
        &mut self,
        out: &cairn_query::Output,
        aggs: &[cairn_query::Aggregate],
        rows: &[(NodeId, NodeId)],
    ) -> Result<Columns, ExploreError> {
        let reads_bound = (out.group_by.iter())
            .any(|k| matches!(k, GroupKey::Property(p) if hop_of(p).is_some()));
        let reads_end = aggs.iter().any(|a| a.property.is_some())
            || (out.group_by.iter())
                .any(|k| matches!(k, GroupKey::Property(p) if hop_of(p).is_none()));
        let column = |on: bool, pick: fn(&(NodeId, NodeId)) -> NodeId| -> Vec<Option<NodeId>> {
            match on {
                true => rows.iter().map(|r| Some(pick(r))).collect(),
                false => Vec::new(),
            }
        };
        let ends = column(reads_end, |r| r.1);
        let bound = column(reads_bound, |r| r.0);
        let mut keys = Vec::with_capacity(out.group_by.len());
        for k in &out.group_by {
            keys.push(match k {
                GroupKey::Node(_) => Vec::new(),
                GroupKey::Property(p) => {
                    let src = if hop_of(p).is_some() { &bound } else { &ends };
                    self.values_of(src, p.property.id)?
                }
            });
        }
        let mut values = Vec::with_capacity(aggs.len());
        for a in aggs {
            values.push(match &a.property {
                Some(p) => self.values_of(&ends, p.id)?,
                None => Vec::new(),
            });
        }
        Ok(Columns { keys, values })
    }

    /// (bound node, candidate) pairs for a `GROUP BY` on the node an alias binds at `hop`:
    /// each distinct node at that hop, walked on to the end of the pattern on its own.
    fn pairs(
        &mut self,
        hop: u32,
        entries: &[NodeId],
        cands: &[Cand],
        cancel: &CancelToken,
        spent: &mut u64,
    ) -> Result<Vec<(NodeId, NodeId)>, ExploreError> {
        let plan = self.plan;
        let steps_len = plan.via.steps.len() as u32;
        if plan.is_selection() || (plan.via.mode == ViaMode::Path && hop >= steps_len) {
            return Ok(cands.iter().map(|c| (c.node, c.node)).collect());
        }
        let mut wanted = NodeSet::new(self.ex.table);
        for c in cands {
            wanted.insert(c.node);
        }
        let sources: Vec<NodeId> = if hop == 0 {
            entries.to_vec()
        } else {
            self.main_walk
                .as_ref()
                .map(|w| w.level(hop as usize).to_vec())
                .unwrap_or_default()
        };
        let (steps, shape): (Vec<WalkStep>, WalkShape) = match plan.via.mode {
            ViaMode::Path => (
                plan.via.steps[hop as usize..]
                    .iter()
                    .map(walk_step)
                    .collect(),
                WalkShape::Path,
            ),
            ViaMode::Set => (
                plan.via.steps.iter().map(walk_step).collect(),
                WalkShape::Set { depth: plan.depth },
            ),
        };
        let filtered = has_level_filters(plan);
        let mut out = Vec::new();
        let (mut buf, mut ends) = (Vec::new(), Vec::new());
        for x in sources {
            // One step to go and nothing to filter on the way: the neighbours, deduplicated.
            if steps.len() == 1 && (shape == WalkShape::Path || plan.depth == 1) && !filtered {
                buf.clear();
                self.ex
                    .table
                    .neighbors_into(x, steps[0].direction, &steps[0].rels, &mut buf)?;
                *spent += buf.len() as u64;
                self.stats.edges_scanned += buf.len() as u64;
                if *spent > MAX_COUNT_EDGES {
                    return Err(ExploreError::CountTooLarge {
                        limit: MAX_COUNT_EDGES,
                    });
                }
                ends.clear();
                ends.extend(buf.iter().map(|(n, _, _)| *n));
                ends.sort_unstable();
                ends.dedup();
                out.extend(
                    ends.iter()
                        .filter(|e| wanted.contains(**e))
                        .map(|e| (x, *e)),
                );
                continue;
            }
            let walked = self.walk_steps(&[x], &steps, shape, hop, true, false, cancel, spent)?;
            out.extend(
                walked
                    .end_nodes()
                    .into_iter()
                    .filter(|e| *e != x && wanted.contains(*e))
                    .map(|e| (x, e)),
            );
        }
        Ok(out)
    }

    /// A node as a row shows it.
    pub(super) fn node_row(&mut self, node: NodeId) -> Result<NodeRow, ExploreError> {
        self.ensure_records(&[node])?;
        let rec = self.record(node);
        Ok(NodeRow {
            node,
            label: rec
                .and_then(|r| self.catalog.label_name(r.label))
                .unwrap_or("?")
                .to_owned(),
            key: rec.map(|r| r.key.clone()).unwrap_or_default(),
            name: rec
                .map(|r| display_name(r, self.catalog))
                .unwrap_or_default(),
        })
    }
}

/// The values an aggregate reads, per row ([`Run::columns`]): one column per group key (empty
/// for a node key) and per aggregate (empty for one that reads no property).
struct Columns {
    keys: Vec<Vec<Option<Value>>>,
    values: Vec<Vec<Option<Value>>>,
}

/// One group of an aggregate: its key, the key's values as shown, an accumulator per
/// aggregate.
struct Group {
    key: Vec<KeyVal>,
    shown: Vec<Option<Value>>,
    accs: Vec<Accumulator>,
}

impl Group {
    fn new(key: Vec<KeyVal>, shown: Vec<Option<Value>>, aggs: &[cairn_query::Aggregate]) -> Self {
        let accs = aggs.iter().map(|a| Accumulator::new(a.func)).collect();
        Group { key, shown, accs }
    }

    /// The nodes its key binds.
    fn nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.key.iter().filter_map(|k| match k {
            KeyVal::Node(n) => Some(*n),
            _ => None,
        })
    }
}

/// `COUNT`, as an aggregate.
fn count_aggregate() -> cairn_query::Aggregate {
    cairn_query::Aggregate {
        func: AggFunc::Count,
        property: None,
    }
}

/// The aggregates to accumulate: those returned, then those only sorted by (and `ORDER BY
/// COUNT`).
fn accumulated(out: &cairn_query::Output) -> Vec<cairn_query::Aggregate> {
    let count = count_aggregate();
    let mut aggs: Vec<cairn_query::Aggregate> = out.aggregates.clone();
    for k in &out.order {
        let a = match &k.by {
            SortBy::Aggregate(a) => a,
            SortBy::Count => &count,
            _ => continue,
        };
        if !aggs.contains(a) {
            aggs.push(a.clone());
        }
    }
    aggs
}

/// The rows grouped by key, groups in order of their first row; without `GROUP BY`, one group
/// even for no rows.
fn group_rows(
    out: &cairn_query::Output,
    aggs: &[cairn_query::Aggregate],
    rows: &[(NodeId, NodeId)],
    columns: &Columns,
) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    let mut index: HashMap<Vec<KeyVal>, usize> = HashMap::new();
    // One key buffer for every row: a row allocates only when it starts a group.
    let mut key: Vec<KeyVal> = Vec::with_capacity(out.group_by.len());
    for (r, row) in rows.iter().enumerate() {
        key.clear();
        for (j, k) in out.group_by.iter().enumerate() {
            key.push(match k {
                GroupKey::Node(_) => KeyVal::Node(row.0),
                GroupKey::Property(_) => key_val(columns.keys[j][r].as_ref()),
            });
        }
        let g = match index.get(key.as_slice()) {
            Some(g) => *g,
            None => {
                let shown = (out.group_by.iter().enumerate())
                    .map(|(j, k)| match k {
                        GroupKey::Node(_) => None,
                        GroupKey::Property(_) => columns.keys[j][r].clone(),
                    })
                    .collect();
                index.insert(key.clone(), groups.len());
                groups.push(Group::new(key.clone(), shown, aggs));
                groups.len() - 1
            }
        };
        for (j, acc) in groups[g].accs.iter_mut().enumerate() {
            acc.add(columns.values[j].get(r).and_then(Option::as_ref));
        }
    }
    if out.group_by.is_empty() && groups.is_empty() {
        groups.push(Group::new(Vec::new(), Vec::new(), aggs));
    }
    groups
}

/// The order of an aggregate's groups: the plan's `ORDER BY`, then the group keys (nodes by
/// label and key, values as sorted), so that ties do not depend on the order rows came in.
struct GroupOrder<'a> {
    out: &'a cairn_query::Output,
    aggs: &'a [cairn_query::Aggregate],
    groups: &'a [Group],
    /// Each group's aggregate values, as `aggs`.
    values: &'a [Vec<Value>],
    /// (label, key) of the nodes the keys bind.
    names: &'a HashMap<NodeId, (String, String)>,
}

impl GroupOrder<'_> {
    /// The groups shown, in order: the first `limit`, and those tied with the last of them
    /// when `with_ties`.
    fn shown(&self, limit: usize, with_ties: bool) -> Vec<usize> {
        let sort_vals: Vec<Vec<Option<Value>>> = (0..self.groups.len())
            .map(|g| {
                self.out
                    .order
                    .iter()
                    .map(|k| self.sort_value(g, k))
                    .collect()
            })
            .collect();
        let by_order = |a: usize, b: usize| -> Ordering {
            for (j, k) in self.out.order.iter().enumerate() {
                let o = sort_cmp(
                    sort_vals[a][j].as_ref(),
                    sort_vals[b][j].as_ref(),
                    k.descending,
                );
                if o != Ordering::Equal {
                    return o;
                }
            }
            Ordering::Equal
        };
        let mut idx: Vec<usize> = (0..self.groups.len()).collect();
        idx.sort_by(|&a, &b| by_order(a, b).then_with(|| self.key_order(a, b)));
        let mut end = limit.min(idx.len());
        if with_ties && end > 0 {
            while end < idx.len() && by_order(idx[end - 1], idx[end]) == Ordering::Equal {
                end += 1;
            }
        }
        idx.truncate(end);
        idx
    }

    /// The value group `g` sorts by under key `k`.
    fn sort_value(&self, g: usize, k: &cairn_query::SortKey) -> Option<Value> {
        let (out, group) = (self.out, &self.groups[g]);
        let agg = |a: &cairn_query::Aggregate| {
            (self.aggs.iter().position(|x| x == a)).map(|j| self.values[g][j].clone())
        };
        match &k.by {
            SortBy::Property(p) => (out.group_by.iter())
                .position(|gk| *gk == GroupKey::Property(p.clone()))
                .and_then(|j| group.shown[j].clone()),
            SortBy::Count => agg(&count_aggregate()),
            SortBy::Aggregate(a) => agg(a),
            SortBy::Node(b) => (out.group_by.iter())
                .position(|gk| *gk == GroupKey::Node(b.clone()))
                .and_then(|j| match group.key[j] {
                    KeyVal::Node(n) => self.names.get(&n),
                    _ => None,
                })
                .map(|(l, k)| Value::Str(format!("{l}\u{0}{k}"))),
            SortBy::Score => None,
        }
    }

    /// Groups `a` and `b` by their keys.
    fn key_order(&self, a: usize, b: usize) -> Ordering {
        let (ga, gb) = (&self.groups[a], &self.groups[b]);
        for (j, k) in self.out.group_by.iter().enumerate() {
            let o = match k {
                GroupKey::Node(_) => {
                    let name = |g: &Group| match g.key[j] {
                        KeyVal::Node(n) => self.names.get(&n).cloned(),
                        _ => None,
                    };
                    name(ga).cmp(&name(gb))
                }
                GroupKey::Property(_) => {
                    sort_cmp(ga.shown[j].as_ref(), gb.shown[j].as_ref(), false)
                }
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }
}

/// The walk step of a plan step.
fn walk_step(s: &StepPlan) -> WalkStep {
    WalkStep {
        rels: s.relation.iter().map(|r| r.id).collect(),
        direction: engine_dir(s.direction),
    }
}

/// Whether some filter reads a bound node.
pub(super) fn has_level_filters(plan: &Plan) -> bool {
    plan.filters.iter().any(|f| f.at.is_some())
}

/// For each of `nodes` (at `hop` of the path), whether it passes the filters on the node an
/// alias binds at that hop.
pub(super) fn level_flags(
    graph: &Graph,
    plan: &Plan,
    hop: u32,
    nodes: &[NodeId],
) -> Result<Vec<bool>, EngineError> {
    let filters: Vec<&Filter> = plan
        .filters
        .iter()
        .filter(|f| f.at.as_ref().is_some_and(|b| b.hop == hop))
        .collect();
    if filters.is_empty() {
        return Ok(vec![true; nodes.len()]);
    }
    let mut out = Vec::with_capacity(nodes.len());
    for chunk in nodes.chunks(RECORD_CHUNK) {
        for rec in graph.nodes(chunk)? {
            out.push(rec.is_some_and(|r| filters.iter().all(|f| passes(f, &r))));
        }
    }
    Ok(out)
}
