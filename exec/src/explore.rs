//! The executor: runs a compiled [`Plan`] as a beam search over the graph.
//!
//! Each round keeps the `BEAM` best unexpanded candidates, lists their neighbours through the
//! plan's relation steps (one prefix scan per step), scores every neighbour with
//! `R = (α·semantic + β·connectivity + γ·distance) / (α+β+γ) · step weight`, and stops as soon as
//! the `UNTIL` condition holds or a hard cap is reached. The formulas are in `docs/EXECUTOR.md`.
//! Everything is ordered by (score, node id), so the same data and plan give the same result.

use crate::result::{Exploration, PathStep, ResultNode, Stats, StopReason, TraceEvent};
use crate::score::Probe;
use crate::source::NodeSource;
use cairn_embed::{cosine, EmbedError, Embedder};
use cairn_query::ast::{CmpOp, Direction as QDir, ReturnKind, ViaMode};
use cairn_query::{EntryPlan, Filter, Plan, StepPlan, StopCondition};
use cairn_storage_format::{LabelId, NodeId, NodeRecord, RelId, Value};
use cairn_store::describe::{description, display_name};
use cairn_store::{Catalog, Direction, EngineError, Graph, GraphRead};
use hashbrown::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;
use thiserror::Error;

mod exact;
mod rank;
mod reads;
mod select;
mod subgraph;
mod subquery;

use exact::RECORD_CHUNK;

/// Errors of an exploration.
#[derive(Debug, Error)]
pub enum ExploreError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("embedding failed: {0}")]
    Embed(#[from] EmbedError),
    #[error("entry {0} does not exist")]
    MissingEntry(String),
    #[error("RETURN COUNT would list more than {limit} edges; narrow the pattern (entries, relations, TARGET) or count its parts")]
    CountTooLarge { limit: u64 },
    #[error("RETURN COUNT stopped early ({0}): no count")]
    CountCut(StopReason),
    #[error("a subquery was not run before its plan (an executor bug)")]
    Unresolved,
    #[error("SEARCH entries need a vector index or at most {limit} candidate nodes to scan; this one has {found} (build the index with `cairn index build`)")]
    SearchTooLarge { found: usize, limit: usize },
}

/// Weight of coverage against relevance in sufficiency (λ).
pub const SUFFICIENCY_LAMBDA: f64 = 0.5;
/// A node already expanded is expanded again only through a different relation sequence with a
/// score at least this much higher (relative)...
pub const REVISIT_MARGIN: f64 = 0.2;
/// ...and at most this many times.
pub const MAX_REVISITS: u32 = 2;
/// Adaptive expansions (beam ×2, depth +1) when the plan's depth is reached while insufficient
/// (only when DEPTH was not written: a written one is a hard bound).
pub const MAX_ADAPTIVE: u32 = 2;
/// Bytes a round that must read a remote store reads ahead at most, beyond what it reached
/// (`Run::read_round`), estimated as [`NODE_BYTES`] a node plus [`EDGE_BYTES`] an edge of the
/// average adjacency read so far ([`NodeSource::read_so_far`]): a whole layer of the walk, so that a search reads once per hop,
/// unless the layer is larger (then the best frontier candidates' neighbours first). A bound in
/// bytes, not nodes: a layer of hubs costs more than one of leaves, and the bound is what keeps
/// one batch's server work (and the client's wait for it) in bounds.
pub const READ_AHEAD_BYTES: u64 = 48 << 20;
/// What a node's facts (record, degree) weigh in a read, for [`READ_AHEAD_BYTES`].
pub const NODE_BYTES: u64 = 160;
/// What one edge of an adjacency list weighs in a read (relation and node), for
/// [`READ_AHEAD_BYTES`].
pub const EDGE_BYTES: u64 = 16;
/// The average adjacency estimated before the reads tell (edges a node), and how many nodes'
/// worth of reads it weighs as: the first layers are few nodes, often hubs, whose average
/// alone would overestimate the next layer many times over.
const PRIOR_EDGES: (u64, u64) = (16, 1024);
/// SEARCH entries without a vector index scan at most this many nodes.
pub const EXACT_SEARCH_LIMIT: usize = 200_000;

/// How many of the best results the stop rule looks at (`stale k`: did they change; the judge:
/// are they enough; sufficiency's relevance: the best three of them), whatever `LIMIT` is, so
/// that `LIMIT` only cuts the ranking: the best k results are the first k of the best k + 1.
pub const STOP_WINDOW: usize = cairn_query::limits::DEFAULT_LIMIT as usize;

/// Finds entry nodes: by meaning (the HNSW index, when the database has one) and by words
/// (the full-text index).
pub trait EntrySearch: Send + Sync {
    /// The `k` nodes nearest to `query` (optionally only of `labels`), best first, by cosine.
    fn search(
        &self,
        query: &[f32],
        labels: Option<&[LabelId]>,
        k: usize,
    ) -> Result<Vec<(NodeId, f32)>, ExploreError>;

    /// The `k` best entries for a `SEARCH "text"` (`query` is the text embedded), best first:
    /// by default the nearest vectors; a database with a full-text index ranks by its words
    /// and, with a semantic embedder, fuses both rankings. Scores are only an order.
    fn search_text(
        &self,
        text: &str,
        query: &[f32],
        labels: Option<&[LabelId]>,
        k: usize,
    ) -> Result<Vec<(NodeId, f32)>, ExploreError> {
        let _ = text;
        self.search(query, labels, k)
    }

    /// Whether [`EntrySearch::search`] answers from vectors (else callers that need cosines
    /// scan by themselves).
    fn has_vectors(&self) -> bool {
        true
    }
}

/// Decides whether the evidence is enough (`UNTIL judge`).
pub trait Judge: Send + Sync {
    fn enough(&self, goal: &str, results: &[ResultNode], sufficiency: f64) -> bool;
}

/// The offline judge: enough when sufficiency reaches its threshold.
#[derive(Clone, Copy, Debug)]
pub struct SufficiencyJudge(pub f64);

impl Judge for SufficiencyJudge {
    fn enough(&self, _goal: &str, _results: &[ResultNode], sufficiency: f64) -> bool {
        sufficiency >= self.0
    }
}

/// Nodes scored between two looks at the cancel token.
const CANCEL_BATCH: usize = 4096;

/// Cancels a running exploration; checked between expansions, and every [`CANCEL_BATCH`] nodes
/// a round scores.
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Runs plans against one graph.
pub struct Explorer<'g> {
    graph: &'g Graph,
    embedder: &'g dyn Embedder,
    search: Option<&'g dyn EntrySearch>,
    judge: Option<&'g dyn Judge>,
    table: &'g dyn NodeSource,
    /// ln(1 + max degree) of the graph: the connectivity normaliser.
    log_max_degree: f64,
}

impl std::fmt::Debug for Explorer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Explorer")
            .field("embedder", &self.embedder.id())
            .finish()
    }
}

impl<'g> Explorer<'g> {
    /// Round trips to the storage's servers since a reading of [`Graph::round_trips`].
    fn round_trips_since(&self, before: Option<u64>) -> Option<u64> {
        Some(self.graph.round_trips()?.saturating_sub(before?))
    }

    /// `table` gives the per-node facts scoring reads and the adjacency the search walks: an
    /// in-memory [`crate::NodeTable`], a [`crate::StoreView`] or an [`crate::Overlaid`] table.
    pub fn new(graph: &'g Graph, embedder: &'g dyn Embedder, table: &'g dyn NodeSource) -> Self {
        let log_max_degree = (1.0 + f64::from(table.max_degree())).ln().max(1e-9);
        Explorer {
            graph,
            embedder,
            search: None,
            judge: None,
            table,
            log_max_degree,
        }
    }

    pub fn with_search(mut self, search: &'g dyn EntrySearch) -> Self {
        self.search = Some(search);
        self
    }

    pub fn with_judge(mut self, judge: &'g dyn Judge) -> Self {
        self.judge = Some(judge);
        self
    }

    /// Runs `plan`. `trace` records every decision even when the plan does not ask for it.
    pub fn run(
        &self,
        plan: &Plan,
        trace: bool,
        cancel: &CancelToken,
    ) -> Result<Exploration, ExploreError> {
        let started = Instant::now();
        // Subqueries run first; the plan then holds their nodes and values.
        let resolved = self.resolve(plan, cancel)?;
        let plan = resolved.as_ref().unwrap_or(plan);
        let catalog = self.graph.catalog();
        let exact = plan.is_exact();
        // An exact plan scores nothing by meaning: the goal is not embedded.
        let goal_vec = if exact {
            Vec::new()
        } else {
            self.embedder.embed(&plan.goal)?
        };
        let trips = self.graph.round_trips();
        let mut run = Run {
            ex: self,
            plan,
            catalog: &catalog,
            probe: Probe::new(&goal_vec),
            goal_vec,
            trace: trace || plan.ret == ReturnKind::Trace,
            events: Vec::new(),
            stats: Stats::default(),
            infos: HashMap::new(),
            paths: Vec::new(),
            mentions: mentions(&plan.goal),
            mentioned: HashSet::new(),
            records: HashMap::new(),
            onward: HashMap::new(),
            entry_set: HashSet::new(),
            searched: HashSet::new(),
            excluded: HashSet::new(),
            main_walk: None,
            ahead: Vec::new(),
            ahead_seen: HashSet::new(),
            started,
        };
        let columns = column_names(plan);
        if exact {
            let out = run.exact(cancel)?;
            let subgraph = match plan.ret {
                ReturnKind::Subgraph => Some(run.subgraph(&out.results, cancel)?),
                _ => None,
            };
            run.stats.elapsed = started.elapsed();
            run.stats.round_trips = self.round_trips_since(trips);
            return Ok(Exploration {
                subgraph,
                results: out.results,
                sufficiency: 1.0,
                stop: StopReason::Exhausted,
                stats: run.stats,
                trace: run.events,
                ret: plan.ret,
                count: out.count,
                columns,
                rows: out.rows,
            });
        }
        let (stop, mut results, sufficiency) = run.search(cancel)?;
        run.fill_columns(&mut results)?;
        let subgraph = match plan.ret {
            ReturnKind::Subgraph => Some(run.subgraph(&results, cancel)?),
            _ => None,
        };
        run.stats.elapsed = started.elapsed();
        run.stats.round_trips = self.round_trips_since(trips);
        if run.trace {
            run.events.push(TraceEvent::Stop {
                reason: stop,
                sufficiency,
            });
        }
        Ok(Exploration {
            results,
            sufficiency,
            stop,
            stats: run.stats,
            trace: run.events,
            ret: plan.ret,
            count: None,
            columns,
            rows: Vec::new(),
            subgraph,
        })
    }
}

/// The names of the values a plan's results or rows carry (see [`Exploration::columns`]).
fn column_names(plan: &Plan) -> Vec<String> {
    let out = &plan.output;
    if plan.ret == ReturnKind::Aggregate {
        out.group_by
            .iter()
            .map(ToString::to_string)
            .chain(out.aggregates.iter().map(ToString::to_string))
            .collect()
    } else {
        out.columns.iter().map(ToString::to_string).collect()
    }
}

/// What the search knows about a scored node. The record is read only for nodes that need it
/// (entries, expanded nodes, WHERE checks, results).
struct Info {
    label: LabelId,
    semantic: f64,
    connectivity: f64,
    record: Option<Arc<NodeRecord>>,
}

/// A way of reaching a node: an entry, or a step from an earlier path.
struct PathNode {
    node: NodeId,
    prev: Option<usize>,
    rel: Option<RelId>,
    reversed: bool,
    hops: u32,
    /// Hash of the relation sequence, for the revisit rule.
    signature: u64,
}

#[derive(Clone, Copy)]
struct Candidate {
    node: NodeId,
    score: f64,
    path: usize,
}

struct Visit {
    expansions: u32,
    best: f64,
    signatures: Vec<u64>,
    /// The entries the expanded paths started at (at most two: see `Run::offer`).
    roots: Vec<NodeId>,
}

/// The frontier: per search state (node, position in an ordered path), the best candidate
/// (slot 0) and the best one whose path starts at another entry (slot 1).
type Frontier = HashMap<(NodeId, u32, u8), Candidate>;

struct Run<'a, 'g> {
    ex: &'a Explorer<'g>,
    plan: &'a Plan,
    catalog: &'a Catalog,
    goal_vec: Vec<f32>,
    /// The goal in the node table's quantised form, for scoring neighbours.
    probe: Probe,
    trace: bool,
    events: Vec<TraceEvent>,
    stats: Stats,
    infos: HashMap<NodeId, Info>,
    paths: Vec<PathNode>,
    mentions: Vec<String>,
    /// Indexes of the mentions some visited node's name contains.
    mentioned: HashSet<usize>,
    /// Records read for nodes not scored (yet).
    records: HashMap<NodeId, Arc<NodeRecord>>,
    /// Connectivity through the onward VIA steps, by search state (see `Run::connectivity`).
    onward: HashMap<(NodeId, u32), f64>,
    entry_set: HashSet<NodeId>,
    /// Entries a `SEARCH` found: candidates themselves in a relation set (found for the goal),
    /// unlike entries picked by key, id, label or subquery (where a pattern starts).
    searched: HashSet<NodeId>,
    /// Nodes an `EXCEPT` side reaches: never results.
    excluded: HashSet<NodeId>,
    /// An exact plan's main walk (its evidence paths).
    main_walk: Option<crate::walk::Walked>,
    /// Reading ahead (a remote store, see `Run::read_round`): nodes read with their edges
    /// whose step neighbours are not read yet, with the hops they were read at...
    ahead: Vec<(NodeId, u32)>,
    /// ...and every search state ever put there.
    ahead_seen: HashSet<(NodeId, u32)>,
    started: Instant,
}

impl Run<'_, '_> {
    fn search(
        &mut self,
        cancel: &CancelToken,
    ) -> Result<(StopReason, Vec<ResultNode>, f64), ExploreError> {
        let plan = self.plan;
        let weights = plan.score.normalized();
        let mut beam = plan.beam as usize;
        let mut depth_cap = plan.depth;
        let mut adaptive = 0u32;
        let sufficient_at = sufficiency_threshold(&plan.until);

        // Keyed by (node, state): in an ordered VIA path the same node at another position is a
        // different state of the search (it follows another step), so it is visited separately.
        let (mut frontier, mut results) = self.start(cancel, depth_cap, weights)?;
        let mut visits: HashMap<(NodeId, u32), Visit> = HashMap::new();

        let mut stale = 0u32;
        let mut last_top: Vec<NodeId> = Vec::new();
        let mut depth_reached = 0u32;
        let ranked = STOP_WINDOW.max(plan.limit as usize);
        // The ranking the end of a round computed: results do not change before the next
        // round's start, which needs the same one.
        let mut ranking: Option<Vec<Candidate>> = None;
        loop {
            // The stop rule sees the best STOP_WINDOW results, whatever LIMIT is; LIMIT only
            // cuts the ranking returned.
            let window = match ranking.take() {
                Some(r) => r,
                None => self.best(&results, ranked),
            };
            let top = &window[..window.len().min(plan.limit as usize)];
            let window = &window[..window.len().min(STOP_WINDOW)];
            let top_ids: Vec<NodeId> = top.iter().chain(window).map(|c| c.node).collect();
            self.ensure_records(&top_ids)?;
            let sufficiency = self.sufficiency(&results, window);
            if self.trace {
                self.events.push(TraceEvent::Round {
                    round: self.stats.rounds,
                    frontier: frontier.len(),
                    results: results.len(),
                    sufficiency,
                });
            }
            // Stop conditions, cheapest first; hard caps always apply.
            if cancel.is_cancelled() {
                return Ok((StopReason::Cancelled, self.ranked(&results)?, sufficiency));
            }
            if let Some(reason) = self.until(
                &plan.until,
                &results,
                window,
                sufficiency,
                stale,
                depth_reached,
            ) {
                return Ok((reason, self.ranked(&results)?, sufficiency));
            }
            if self.started.elapsed() >= plan.time_cap {
                return Ok((StopReason::TimeCap, self.ranked(&results)?, sufficiency));
            }
            if self.stats.nodes_expanded >= u64::from(plan.budget) {
                return Ok((StopReason::BudgetCap, self.ranked(&results)?, sufficiency));
            }
            // Candidates that may still be expanded at this depth cap.
            let mut selected: Vec<Candidate> = frontier
                .values()
                .copied()
                .filter(|c| self.paths[c.path].hops < depth_cap && self.expandable(c))
                .collect();
            if selected.is_empty() {
                let exhausted = frontier.values().all(|c| !self.expandable(c));
                if let Some(threshold) = sufficient_at {
                    // A written DEPTH is a hard cap: nothing past it is expanded.
                    if sufficiency < threshold
                        && !plan.depth_fixed
                        && adaptive < MAX_ADAPTIVE
                        && !exhausted
                        && depth_cap < cairn_query::limits::MAX_DEPTH
                    {
                        adaptive += 1;
                        self.stats.adaptive_expansions += 1;
                        beam = (beam * 2).min(cairn_query::limits::MAX_BEAM as usize);
                        depth_cap += 1;
                        if self.trace {
                            self.events.push(TraceEvent::Adapt {
                                beam: beam as u32,
                                depth: depth_cap,
                                sufficiency,
                            });
                        }
                        continue;
                    }
                }
                let reason = if exhausted {
                    StopReason::Exhausted
                } else {
                    StopReason::DepthCap
                };
                return Ok((reason, self.ranked(&results)?, sufficiency));
            }
            // Frontier iteration order is arbitrary; this order is not: score, node, hops.
            selected.sort_by(|a, b| {
                b.score
                    .total_cmp(&a.score)
                    .then(a.node.cmp(&b.node))
                    .then(self.paths[a.path].hops.cmp(&self.paths[b.path].hops))
            });
            selected.truncate(beam);
            // Expanded nodes are "visited": their names count for the goal's mentions.
            let beam_ids: Vec<NodeId> = selected.iter().map(|c| c.node).collect();
            self.ensure_records(&beam_ids)?;
            let floor = selected.last().map(|c| c.score).unwrap_or(0.0);

            // Expand the beam.
            self.stats.rounds += 1;
            let round = self.stats.rounds;
            let mut reached: Vec<(Candidate, NodeId, RelId)> = Vec::new();
            for c in &selected {
                if cancel.is_cancelled()
                    || self.stats.nodes_expanded >= u64::from(plan.budget)
                    || self.started.elapsed() >= plan.time_cap
                {
                    break;
                }
                let state = self.state(self.paths[c.path].hops);
                for slot in 0..2 {
                    let key = (c.node, state, slot);
                    if frontier.get(&key).is_some_and(|f| f.path == c.path) {
                        frontier.remove(&key);
                    }
                }
                let root = self.root(c.path);
                let v = visits.entry((c.node, state)).or_insert(Visit {
                    expansions: 0,
                    best: c.score,
                    signatures: Vec::new(),
                    roots: Vec::new(),
                });
                v.expansions += 1;
                v.best = v.best.max(c.score);
                v.signatures.push(self.paths[c.path].signature);
                if !v.roots.contains(&root) {
                    v.roots.push(root);
                }
                self.stats.nodes_expanded += 1;
                let hops = self.paths[c.path].hops;
                depth_reached = depth_reached.max(hops + 1);
                if self.trace {
                    self.events.push(TraceEvent::Expand {
                        round,
                        node: c.node,
                        hops,
                        score: c.score,
                    });
                }
                self.expand(c, hops, floor, weights, &mut reached)?;
            }

            // Everything the scoring below and the next round read of the nodes reached, in
            // one batch: facts, and the edges of those the search may walk on from.
            let at: Vec<(NodeId, u32)> = reached
                .iter()
                .map(|(c, _, _)| (c.node, self.paths[c.path].hops))
                .collect();
            self.read_round(&at, depth_cap, &frontier)?;

            self.score_reached(
                reached,
                cancel,
                weights,
                &mut results,
                &mut visits,
                &mut frontier,
            )?;

            // Staleness: did the best STOP_WINDOW results change this round?
            // A search that has found nothing yet is not stale, only not there yet.
            // (the best STOP_WINDOW are the first of the best `ranked`: one total order)
            let next = self.best(&results, ranked);
            let top: Vec<NodeId> = next.iter().take(STOP_WINDOW).map(|c| c.node).collect();
            ranking = Some(next);
            if top == last_top && !top.is_empty() {
                stale += 1;
            } else {
                stale = 0;
                last_top = top;
            }
        }
    }

    /// The entries, what EXCEPT takes away, and the first frontier and results: each entry
    /// scored at distance 0.
    fn start(
        &mut self,
        cancel: &CancelToken,
        depth_cap: u32,
        weights: cairn_query::ScoreWeights,
    ) -> Result<(Frontier, HashMap<NodeId, Candidate>), ExploreError> {
        let plan = self.plan;
        // Entries, and what EXCEPT takes away.
        let (entries, searched) = self.entries(&plan.entries)?;
        let entries = self.keep_hop(0, &entries)?;
        self.entry_set = entries.iter().copied().collect();
        self.searched = searched;
        self.excluded = self.except_set(cancel)?;
        let at_entries: Vec<(NodeId, u32)> = entries.iter().map(|&n| (n, 0)).collect();
        self.read_round(&at_entries, depth_cap, &HashMap::new())?;
        self.ensure_records(&entries)?;
        let mut frontier: Frontier = HashMap::new();
        let mut results: HashMap<NodeId, Candidate> = HashMap::new();
        self.load(&entries)?;
        for &node in &entries {
            let Some(info) = self.infos.get(&node) else {
                continue;
            };
            let (semantic, node_conn) = (info.semantic, info.connectivity);
            let score = weights.semantic * semantic
                + weights.connectivity * self.connectivity(node, 0, node_conn)?
                + weights.distance;
            let path = self.entry_path(node);
            let c = Candidate { node, score, path };
            frontier.insert((node, 0, 0), c);
            self.consider_result(&mut results, c);
            if self.trace {
                self.events.push(TraceEvent::Entry { node, score });
            }
        }
        Ok((frontier, results))
    }

    /// Lists the neighbours of an expanded candidate through the plan's steps at its depth
    /// (with the hierarchy fallback), each a new path, into `reached`.
    fn expand(
        &mut self,
        c: &Candidate,
        hops: u32,
        floor: f64,
        weights: cairn_query::ScoreWeights,
        reached: &mut Vec<(Candidate, NodeId, RelId)>,
    ) -> Result<(), ExploreError> {
        let plan = self.plan;
        for step in steps_at(plan, hops) {
            let mut found = self.neighbors(c.node, step)?;
            self.stats.edges_scanned += found.len() as u64;
            self.thin(c.node, &mut found);
            // Hierarchy fallback: nothing promising through this relation → its siblings.
            // (Only a relation with a parent has siblings: without one, whether any
            // neighbour is promising decides nothing, and they are scored below.)
            if let Some((rel, parent)) = step
                .relation
                .as_ref()
                .and_then(|rel| Some((rel, self.catalog.parent(rel.id)?)))
            {
                let promising = self.any_above(&found, c, step, floor, weights)?;
                if !promising {
                    let siblings: Vec<RelId> = self
                        .catalog
                        .children(parent)
                        .into_iter()
                        .filter(|r| *r != rel.id)
                        .collect();
                    if !siblings.is_empty() {
                        if self.trace {
                            self.events.push(TraceEvent::Fallback {
                                node: c.node,
                                relation: rel.name.clone(),
                                parent: self
                                    .catalog
                                    .relation_name(parent)
                                    .unwrap_or("?")
                                    .to_owned(),
                                siblings: siblings
                                    .iter()
                                    .map(|r| {
                                        self.catalog.relation_name(*r).unwrap_or("?").to_owned()
                                    })
                                    .collect(),
                            });
                        }
                        let more =
                            self.neighbors_of(c.node, engine_dir(step.direction), &siblings)?;
                        self.stats.edges_scanned += more.len() as u64;
                        found.extend(more);
                    }
                }
            }
            for (node, rel, reversed) in found {
                let path = self.push_path(PathNode {
                    node,
                    prev: Some(c.path),
                    rel: Some(rel),
                    reversed,
                    hops: hops + 1,
                    signature: mix(
                        self.paths[c.path].signature,
                        u64::from(rel.0) * 2 + u64::from(reversed),
                    ),
                });
                reached.push((
                    Candidate {
                        node,
                        score: step.weight,
                        path,
                    },
                    c.node,
                    rel,
                ));
            }
        }
        Ok(())
    }

    /// Scores every node a round reached and offers it as a result and, by the visited set's
    /// revisit rule, to the frontier.
    fn score_reached(
        &mut self,
        reached: Vec<(Candidate, NodeId, RelId)>,
        cancel: &CancelToken,
        weights: cairn_query::ScoreWeights,
        results: &mut HashMap<NodeId, Candidate>,
        visits: &mut HashMap<(NodeId, u32), Visit>,
        frontier: &mut Frontier,
    ) -> Result<(), ExploreError> {
        let plan = self.plan;
        // Score everything reached this round (records, degrees and vectors in batches).
        let mut fresh: Vec<NodeId> = reached
            .iter()
            .map(|(c, _, _)| c.node)
            .filter(|n| !self.infos.contains_key(n))
            .collect();
        fresh.sort();
        fresh.dedup();
        // In batches, so that a cancel (Ctrl-C in the REPL) is seen within one batch: a
        // wide round (BEAM 1024, a large FANOUT) reaches hundreds of thousands of nodes,
        // seconds of scoring.
        for batch in fresh.chunks(CANCEL_BATCH) {
            if cancel.is_cancelled() {
                break;
            }
            self.load(batch)?;
        }
        if !plan.filters.is_empty() {
            // every node reached, not only the fresh ones: a hierarchy check may have
            // scored some already, without their records
            let all: Vec<NodeId> = reached.iter().map(|(c, _, _)| c.node).collect();
            self.ensure_records(&all)?;
        }
        for (k, (mut cand, from, rel)) in reached.into_iter().enumerate() {
            if k % CANCEL_BATCH == 0 && cancel.is_cancelled() {
                break;
            }
            let Some(info) = self.infos.get(&cand.node) else {
                continue;
            };
            // A node where an alias binds must pass the filters on it to be a way on.
            if !self.passes_hop(cand.node, self.paths[cand.path].hops) {
                continue;
            }
            let (semantic, node_conn) = (info.semantic, info.connectivity);
            let hops = self.paths[cand.path].hops;
            let distance = 1.0 / (1.0 + f64::from(hops));
            let connectivity = self.connectivity(cand.node, hops, node_conn)?;
            let base = weights.semantic * semantic
                + weights.connectivity * connectivity
                + weights.distance * distance;
            cand.score *= base; // cand.score held the step weight
            if self.trace {
                self.events.push(TraceEvent::Scored {
                    node: cand.node,
                    from,
                    relation: self.catalog.relation_name(rel).unwrap_or("?").to_owned(),
                    semantic,
                    connectivity,
                    distance,
                    score: cand.score,
                });
            }
            self.consider_result(results, cand);
            // A node at the end of an ordered path has no step left to follow (and was
            // never expanded in that state: the visited set has nothing on it).
            if !has_steps_at(plan, self.paths[cand.path].hops) {
                continue;
            }
            // Visited set with the revisit rule.
            let state = self.state(self.paths[cand.path].hops);
            let root = self.root(cand.path);
            if let Some(v) = visits.get(&(cand.node, state)) {
                // A path from a second entry goes on from a node expanded once: what lies
                // beyond may be that entry's result only (a node is not its own result).
                let second_root = !v.roots.contains(&root) && v.roots.len() < 2;
                let sig = self.paths[cand.path].signature;
                let better = cand.score > v.best * (1.0 + REVISIT_MARGIN);
                if !second_root
                    && (v.expansions > MAX_REVISITS || v.signatures.contains(&sig) || !better)
                {
                    continue;
                }
                if self.trace && !second_root {
                    self.events.push(TraceEvent::Revisit {
                        node: cand.node,
                        old_score: v.best,
                        new_score: cand.score,
                    });
                }
            }
            self.offer(frontier, (cand.node, state), cand, root);
        }
        Ok(())
    }

    /// The directions the VIA steps at any of `hops` follow (`None`: no step applies), for
    /// reading ahead the edges a search walks on through.
    fn walks_on(&self, hops: impl IntoIterator<Item = u32>) -> Option<Direction> {
        let mut seen: Vec<u32> = hops.into_iter().collect();
        seen.sort_unstable();
        seen.dedup();
        let (mut out, mut inc) = (false, false);
        for step in seen.into_iter().flat_map(|h| steps_at(self.plan, h)) {
            match engine_dir(step.direction) {
                Direction::Out => out = true,
                Direction::In => inc = true,
                Direction::Both => (out, inc) = (true, true),
            }
        }
        match (out, inc) {
            (true, true) => Some(Direction::Both),
            (true, false) => Some(Direction::Out),
            (false, true) => Some(Direction::In),
            (false, false) => None,
        }
    }

    /// The visited-set state of a node reached at `hops`: its position in an ordered VIA path,
    /// or 0 for a relation set (where every hop follows the same steps).
    fn state(&self, hops: u32) -> u32 {
        match self.plan.via.mode {
            ViaMode::Set => 0,
            ViaMode::Path => hops,
        }
    }

    /// A frontier candidate can be expanded if a VIA step applies at its hop count. (Nodes
    /// expanded before re-enter the frontier only through the revisit rule.)
    fn expandable(&self, c: &Candidate) -> bool {
        has_steps_at(self.plan, self.paths[c.path].hops)
    }

    /// The FANOUT rule: a neighbour list longer than the plan's fan-out is thinned to an evenly
    /// spaced, deterministic sample of that many (counted, and traced).
    fn thin(&mut self, node: NodeId, found: &mut Vec<(NodeId, RelId, bool)>) {
        let fanout = self.plan.fanout as usize;
        if found.len() <= fanout {
            return;
        }
        let total = found.len();
        sample_evenly(found, fanout);
        self.stats.neighbors_sampled_out += (total - fanout) as u64;
        if self.trace {
            self.events.push(TraceEvent::Sampled {
                node,
                kept: fanout,
                of: total,
            });
        }
    }

    fn neighbors(
        &self,
        node: NodeId,
        step: &StepPlan,
    ) -> Result<Vec<(NodeId, RelId, bool)>, ExploreError> {
        let rels: Vec<RelId> = step.relation.iter().map(|r| r.id).collect();
        self.neighbors_of(node, engine_dir(step.direction), &rels)
    }

    /// From the node source's adjacency.
    fn neighbors_of(
        &self,
        node: NodeId,
        direction: Direction,
        rels: &[RelId],
    ) -> Result<Vec<(NodeId, RelId, bool)>, ExploreError> {
        let mut out = Vec::new();
        self.ex
            .table
            .neighbors_into(node, direction, rels, &mut out)?;
        Ok(out)
    }

    /// Whether any of `found` would score above `floor` (loads what it needs).
    fn any_above(
        &mut self,
        found: &[(NodeId, RelId, bool)],
        from: &Candidate,
        step: &StepPlan,
        floor: f64,
        w: cairn_query::ScoreWeights,
    ) -> Result<bool, ExploreError> {
        let mut fresh: Vec<NodeId> = found
            .iter()
            .map(|(n, _, _)| *n)
            .filter(|n| !self.infos.contains_key(n))
            .collect();
        fresh.sort();
        fresh.dedup();
        self.load(&fresh)?;
        let hops = self.paths[from.path].hops + 1;
        let distance = 1.0 / (1.0 + f64::from(hops));
        for (n, _, _) in found {
            let Some((semantic, node_conn)) =
                self.infos.get(n).map(|i| (i.semantic, i.connectivity))
            else {
                continue;
            };
            let connectivity = self.connectivity(*n, hops, node_conn)?;
            let score =
                (w.semantic * semantic + w.connectivity * connectivity + w.distance * distance)
                    * step.weight;
            if score >= floor {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Connectivity of `node` reached at `hops`: how far the search can go on from it, i.e. the
    /// log of its degree through the VIA steps usable at that hop, normalised by the graph's
    /// largest degree. (A paper with a thousand citations but three authors opens three ways
    /// on for a co-author search, not a thousand.) A node with no step left — the end of an
    /// ordered path — keeps its whole degree (`node_conn`), a measure of its prominence.
    fn connectivity(
        &mut self,
        node: NodeId,
        hops: u32,
        node_conn: f64,
    ) -> Result<f64, ExploreError> {
        let table = self.ex.table;
        if !has_steps_at(self.plan, hops) {
            return Ok(node_conn);
        }
        let key = (node, self.state(hops));
        if let Some(c) = self.onward.get(&key) {
            return Ok(*c);
        }
        let mut degree = 0u32;
        for s in steps_at(self.plan, hops) {
            let rels: Vec<RelId> = s.relation.iter().map(|r| r.id).collect();
            degree = degree.saturating_add(table.degree_through(
                node,
                engine_dir(s.direction),
                &rels,
            )?);
        }
        let c = ((1.0 + f64::from(degree)).ln() / self.ex.log_max_degree).min(1.0);
        self.onward.insert(key, c);
        Ok(c)
    }

    fn push_path(&mut self, p: PathNode) -> usize {
        self.paths.push(p);
        self.paths.len() - 1
    }

    /// The path of an entry node: where evidence starts.
    fn entry_path(&mut self, node: NodeId) -> usize {
        self.push_path(PathNode {
            node,
            prev: None,
            rel: None,
            reversed: false,
            hops: 0,
            signature: 0,
        })
    }

    /// Puts `cand` (starting at `root`) into the frontier: slot 0 holds a state's best
    /// candidate, slot 1 the best one starting at another entry than slot 0's. Two roots are
    /// enough for "reached from an entry other than itself": if a node is reachable so, one
    /// of any node's two roots differs from it.
    fn offer(&self, frontier: &mut Frontier, key: (NodeId, u32), cand: Candidate, root: NodeId) {
        let (node, state) = key;
        let primary = frontier.get(&(node, state, 0)).copied();
        match primary {
            None => {
                frontier.insert((node, state, 0), cand);
            }
            Some(p) if self.root(p.path) == root => {
                if cand.score > p.score {
                    frontier.insert((node, state, 0), cand);
                }
            }
            Some(p) if cand.score > p.score => {
                frontier.insert((node, state, 0), cand);
                frontier.insert((node, state, 1), p);
            }
            Some(_) => match frontier.get(&(node, state, 1)) {
                Some(alt) if alt.score >= cand.score => {}
                _ => {
                    frontier.insert((node, state, 1), cand);
                }
            },
        }
    }

    /// The entry a search path starts at.
    fn root(&self, mut at: usize) -> NodeId {
        while let Some(prev) = self.paths[at].prev {
            at = prev;
        }
        self.paths[at].node
    }

    /// The evidence path of a search path, entry first.
    fn path_of(&self, at: usize) -> Vec<PathStep> {
        let mut path = Vec::new();
        let mut cursor = Some(at);
        while let Some(i) = cursor {
            let p = &self.paths[i];
            if let (Some(prev), Some(rel)) = (p.prev, p.rel) {
                path.push(PathStep {
                    from: self.paths[prev].node,
                    relation: self.catalog.relation_name(rel).unwrap_or("?").to_owned(),
                    reversed: p.reversed,
                    to: p.node,
                });
            }
            cursor = p.prev;
        }
        path.reverse();
        path
    }

    /// Whether `node`, reached at `hops` of an ordered path, passes the filters on the node an
    /// alias binds there (records of filtered nodes were read before).
    fn passes_hop(&self, node: NodeId, hops: u32) -> bool {
        let mut filters = self
            .plan
            .filters
            .iter()
            .filter(|f| f.at.as_ref().is_some_and(|b| b.hop == hops))
            .peekable();
        if filters.peek().is_none() || self.plan.via.mode != ViaMode::Path {
            return true;
        }
        self.record(node)
            .is_some_and(|r| filters.all(|f| passes(f, r)))
    }

    /// Whether `cond` holds. `results` is every result found so far (what `found n` counts),
    /// `top` the best STOP_WINDOW of them (what the judge sees).
    fn until(
        &self,
        cond: &StopCondition,
        results: &HashMap<NodeId, Candidate>,
        top: &[Candidate],
        sufficiency: f64,
        stale: u32,
        depth: u32,
    ) -> Option<StopReason> {
        match cond {
            StopCondition::Sufficient(x) => (sufficiency >= *x).then_some(StopReason::Sufficient),
            StopCondition::Found { count, label } => {
                let n = results
                    .values()
                    .filter(|c| {
                        label.as_ref().is_none_or(|l| {
                            self.infos.get(&c.node).is_some_and(|i| i.label == l.id)
                        })
                    })
                    .count();
                (n >= *count as usize).then_some(StopReason::Found)
            }
            StopCondition::Stale(k) => (stale >= *k).then_some(StopReason::Stale),
            StopCondition::Steps(n) => {
                (self.stats.nodes_expanded >= u64::from(*n)).then_some(StopReason::Steps)
            }
            StopCondition::Depth(n) => (depth >= *n).then_some(StopReason::Depth),
            StopCondition::Time(d) => (self.started.elapsed() >= *d).then_some(StopReason::Time),
            StopCondition::Judge => {
                let judge = self.ex.judge.unwrap_or(&SufficiencyJudge(0.8));
                (!top.is_empty() && judge.enough(&self.plan.goal, &self.finish(top), sufficiency))
                    .then_some(StopReason::Judge)
            }
            StopCondition::Any(items) => items
                .iter()
                .find_map(|c| self.until(c, results, top, sufficiency, stale, depth)),
            StopCondition::All(items) => {
                let reasons: Vec<StopReason> = items
                    .iter()
                    .filter_map(|c| self.until(c, results, top, sufficiency, stale, depth))
                    .collect();
                (reasons.len() == items.len())
                    .then(|| reasons.last().copied())
                    .flatten()
            }
        }
    }

    /// Entries, deduplicated, in the order the entry forms give them, and which of them a
    /// `SEARCH` found. (Subquery entries were resolved to nodes before the run.)
    fn entries(
        &mut self,
        entries: &[EntryPlan],
    ) -> Result<(Vec<NodeId>, HashSet<NodeId>), ExploreError> {
        let mut out = Vec::new();
        let mut searched = HashSet::new();
        let graph = self.ex.graph;
        for entry in entries {
            match entry {
                EntryPlan::Node(id) => {
                    if graph.node(*id)?.is_none() {
                        return Err(ExploreError::MissingEntry(id.to_string()));
                    }
                    out.push(*id);
                }
                EntryPlan::Key { label, key } => match graph.node_id(&label.name, key)? {
                    Some(id) => out.push(id),
                    None => {
                        return Err(ExploreError::MissingEntry(format!(
                            "{} \"{key}\"",
                            label.name
                        )))
                    }
                },
                EntryPlan::Match { label, predicates } => {
                    out.extend(self.select(label, predicates)?);
                }
                EntryPlan::Search { text, label, top } => {
                    let query = self.ex.embedder.embed(text)?;
                    let labels: Option<Vec<LabelId>> = label.as_ref().map(|l| vec![l.id]);
                    let hits = match self.ex.search {
                        Some(s) => s.search_text(text, &query, labels.as_deref(), *top as usize)?,
                        None => self.exact_search(&query, labels.as_deref(), *top as usize)?,
                    };
                    for (id, _) in hits {
                        searched.insert(id);
                        out.push(id);
                    }
                }
                EntryPlan::Subquery(_) => {
                    return Err(ExploreError::Unresolved);
                }
            }
        }
        let mut seen = HashSet::new();
        out.retain(|id| seen.insert(*id));
        Ok((out, searched))
    }

    /// Exact nearest nodes without an index: the node table's vectors when it holds them (a
    /// scan of memory), else embedded descriptions, which only small graphs can afford.
    fn exact_search(
        &self,
        query: &[f32],
        labels: Option<&[LabelId]>,
        k: usize,
    ) -> Result<Vec<(NodeId, f32)>, ExploreError> {
        let graph = self.ex.graph;
        let label_ids: Vec<LabelId> = match labels {
            Some(l) => l.to_vec(),
            None => self.catalog.labels().map(|(id, _)| id).collect(),
        };
        let mut ids = Vec::new();
        for l in label_ids {
            ids.extend(graph.label_nodes(l)?);
        }
        let mut scored = Vec::with_capacity(ids.len());
        let mut rest = Vec::new();
        for (id, c) in ids.iter().zip(self.ex.table.cosines(&ids, query)?) {
            match c {
                Some(c) => scored.push((*id, c)),
                None => rest.push(*id),
            }
        }
        if rest.len() > EXACT_SEARCH_LIMIT {
            return Err(ExploreError::SearchTooLarge {
                found: rest.len(),
                limit: EXACT_SEARCH_LIMIT,
            });
        }
        for chunk in rest.chunks(512) {
            let records = graph.nodes(chunk)?;
            let texts: Vec<String> = records
                .iter()
                .map(|r| {
                    r.as_ref()
                        .map(|r| description(r, self.catalog))
                        .unwrap_or_default()
                })
                .collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            for (id, v) in chunk.iter().zip(self.ex.embedder.embed_batch(&refs)?) {
                scored.push((*id, cosine(query, &v)));
            }
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(k);
        Ok(scored)
    }
}

/// The FANOUT rule's sample: a list longer than `fanout` becomes `fanout` evenly spaced items
/// of it (deterministic).
fn sample_evenly<T: Copy>(found: &mut Vec<T>, fanout: usize) {
    let total = found.len();
    if total > fanout {
        *found = (0..fanout).map(|i| found[i * total / fanout]).collect();
    }
}

/// The VIA steps usable at `hops`: all of them for a set, the hop's own for a path.
/// Whether any VIA step applies at `hops` (without collecting them: called per candidate).
fn has_steps_at(plan: &Plan, hops: u32) -> bool {
    match plan.via.mode {
        ViaMode::Set => !plan.via.steps.is_empty(),
        ViaMode::Path => (hops as usize) < plan.via.steps.len(),
    }
}

fn steps_at(plan: &Plan, hops: u32) -> Vec<&StepPlan> {
    match plan.via.mode {
        ViaMode::Set => plan.via.steps.iter().collect(),
        ViaMode::Path => plan.via.steps.get(hops as usize).into_iter().collect(),
    }
}

/// The threshold of the first `sufficient` condition in the UNTIL tree, if any.
fn sufficiency_threshold(cond: &StopCondition) -> Option<f64> {
    match cond {
        StopCondition::Sufficient(x) => Some(*x),
        StopCondition::Any(items) | StopCondition::All(items) => {
            items.iter().find_map(sufficiency_threshold)
        }
        _ => None,
    }
}

fn engine_dir(d: QDir) -> Direction {
    match d {
        QDir::Out => Direction::Out,
        QDir::In => Direction::In,
        QDir::Both => Direction::Both,
    }
}

/// Does `record` meet `filter`? Filters naming another label do not apply to it; a negated
/// filter holds where the comparison does not (a node without the property passes it).
pub(crate) fn passes(filter: &Filter, record: &NodeRecord) -> bool {
    if filter.label.as_ref().is_some_and(|l| l.id != record.label) {
        return true;
    }
    let want = match &filter.value {
        cairn_query::Operand::Value(v) => v,
        // Resolved before the run; an unresolved one matches nothing.
        cairn_query::Operand::Subquery(_) => return filter.negated,
    };
    let holds = record
        .prop(filter.property.id)
        .is_some_and(|v| crate::value::compare(v, filter.op, want));
    holds != filter.negated
}

/// Entity mentions of a goal: quoted phrases and runs of capitalised words ("Jiawei Han").
pub fn mentions(goal: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = goal;
    while let Some(start) = rest.find(['"', '\'']) {
        let quote = rest[start..].chars().next().unwrap_or('"');
        let after = &rest[start + 1..];
        match after.find(quote) {
            Some(end) if end > 0 => {
                out.push(after[..end].to_lowercase());
                rest = &after[end + 1..];
            }
            _ => break,
        }
    }
    let words: Vec<&str> = goal
        .split(|c: char| c.is_whitespace() || c == ',' || c == '?' || c == '.')
        .collect();
    let mut run: Vec<&str> = Vec::new();
    let flush = |run: &mut Vec<&str>, out: &mut Vec<String>| {
        if run.len() >= 2 {
            out.push(run.join(" ").to_lowercase());
        }
        run.clear();
    };
    for (i, w) in words.iter().enumerate() {
        let w = w
            .trim_end_matches("'s")
            .trim_matches(|c: char| !c.is_alphanumeric() && c != '.' && c != '-');
        let capital = w.chars().next().is_some_and(char::is_uppercase) && w.len() > 1;
        // The sentence's first word is capitalised by grammar, not because it names something.
        if capital
            && !(i == 0
                && run.is_empty()
                && words.len() > 1
                && !words[1].chars().next().is_some_and(char::is_uppercase))
        {
            run.push(w);
        } else {
            flush(&mut run, &mut out);
        }
    }
    flush(&mut run, &mut out);
    out.sort();
    out.dedup();
    out
}

fn mix(h: u64, x: u64) -> u64 {
    (h ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17)
}
