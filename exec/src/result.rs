//! What an exploration returns: ranked results with their evidence paths, the stop reason,
//! statistics and (on request) the decision trace.

use cairn_storage_format::{NodeId, Value};
use std::fmt;
use std::time::Duration;

/// One edge of an evidence path, in the direction it was followed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathStep {
    pub from: NodeId,
    pub relation: String,
    /// True if the edge was followed against its direction (`<R`).
    pub reversed: bool,
    pub to: NodeId,
}

/// A result node with the path that reached it (the evidence).
#[derive(Clone, Debug, PartialEq)]
pub struct ResultNode {
    pub node: NodeId,
    pub label: String,
    pub key: String,
    /// Display name (name/title property, else the key).
    pub name: String,
    /// The relevance score `R` it was reached with.
    pub score: f64,
    /// Its semantic similarity to the goal, in [0, 1].
    pub semantic: f64,
    /// Hops from the entry its path starts at.
    pub hops: u32,
    /// Entry → … → this node.
    pub path: Vec<PathStep>,
    /// The values of the plan's `RETURN NODES` columns, in order (empty without columns); a
    /// missing property is `Null`.
    pub values: Vec<Value>,
    /// How many distinct paths of the pattern reach the node (exact plans only).
    pub count: Option<u64>,
}

/// A node as a group key or a row shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeRow {
    pub node: NodeId,
    pub label: String,
    pub key: String,
    pub name: String,
}

/// One `GROUP BY` key's value in a row: a property value, or the node an alias binds.
#[derive(Clone, Debug, PartialEq)]
pub enum GroupValue {
    Value(Value),
    Node(NodeRow),
}

/// The part of the graph a pattern matched for its results (`RETURN SUBGRAPH`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Subgraph {
    /// Every node on a matched path, and the results, in id order.
    pub nodes: Vec<NodeId>,
    /// Every edge on a matched path, once, in its stored direction, in (from, relation, to)
    /// order.
    pub edges: Vec<SubgraphEdge>,
}

/// An edge of a [`Subgraph`], as stored (`from -relation-> to`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubgraphEdge {
    pub from: NodeId,
    pub relation: String,
    pub to: NodeId,
}

/// One row of an aggregate (`RETURN COUNT, MAX(p) … [GROUP BY …]`): the group's keys, then one
/// value per aggregate.
#[derive(Clone, Debug, PartialEq)]
pub struct AggregateRow {
    pub keys: Vec<GroupValue>,
    pub values: Vec<Value>,
}

/// Why the search stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StopReason {
    /// `UNTIL sufficient`: sufficiency reached the threshold.
    Sufficient,
    /// `UNTIL found n`.
    Found,
    /// `UNTIL stale k`.
    Stale,
    /// `UNTIL steps n`.
    Steps,
    /// `UNTIL depth n`.
    Depth,
    /// `UNTIL time d`.
    Time,
    /// `UNTIL judge`: the evidence judge said enough.
    Judge,
    /// The expansion budget (a hard cap) is spent.
    BudgetCap,
    /// The plan's depth is reached (after any adaptive expansions): every node within it was
    /// expanded, nodes at the depth were left unexpanded.
    DepthCap,
    /// The time cap (a hard cap) passed.
    TimeCap,
    /// Nothing is left to expand.
    Exhausted,
    /// The caller cancelled.
    Cancelled,
}

impl StopReason {
    /// Whether a hard cap or the caller cut the run before its stop rule or its pattern said
    /// it was done (`budget cap`, `time cap`, `cancelled`): what it returns is what it had
    /// found by then, and an empty answer means "not found yet", not "none".
    pub fn incomplete(self) -> bool {
        matches!(
            self,
            StopReason::BudgetCap | StopReason::TimeCap | StopReason::Cancelled
        )
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StopReason::Sufficient => "sufficient",
            StopReason::Found => "found",
            StopReason::Stale => "stale",
            StopReason::Steps => "steps",
            StopReason::Depth => "depth",
            StopReason::Time => "time",
            StopReason::Judge => "judge",
            StopReason::BudgetCap => "budget cap",
            StopReason::DepthCap => "depth cap",
            StopReason::TimeCap => "time cap",
            StopReason::Exhausted => "exhausted",
            StopReason::Cancelled => "cancelled",
        })
    }
}

/// Counters of one exploration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Nodes whose neighbours were listed (the budget counts these).
    pub nodes_expanded: u64,
    /// Edges returned by those listings.
    pub edges_scanned: u64,
    /// Distinct nodes scored.
    pub nodes_scored: u64,
    /// Node-record reads answered by the engine's cache.
    pub cache_hits: u64,
    /// Beam rounds.
    pub rounds: u32,
    /// Neighbours left out by the per-expansion fan-out cap.
    pub neighbors_sampled_out: u64,
    /// Adaptive expansions (wider beam, one hop deeper) taken; only when DEPTH was not written.
    pub adaptive_expansions: u32,
    /// Requests to the storage's servers (one per server a batch reached) on a distributed
    /// store; `None` on an embedded one.
    pub round_trips: Option<u64>,
    pub elapsed: Duration,
}

/// One decision of the search, recorded for `RETURN TRACE`.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceEvent {
    Entry {
        node: NodeId,
        score: f64,
    },
    Expand {
        round: u32,
        node: NodeId,
        hops: u32,
        score: f64,
    },
    Scored {
        node: NodeId,
        from: NodeId,
        relation: String,
        semantic: f64,
        connectivity: f64,
        distance: f64,
        score: f64,
    },
    Revisit {
        node: NodeId,
        old_score: f64,
        new_score: f64,
    },
    /// A hub's neighbour list was thinned to `kept` of `of`.
    Sampled {
        node: NodeId,
        kept: usize,
        of: usize,
    },
    Fallback {
        node: NodeId,
        relation: String,
        parent: String,
        siblings: Vec<String>,
    },
    Adapt {
        beam: u32,
        depth: u32,
        sufficiency: f64,
    },
    Round {
        round: u32,
        frontier: usize,
        results: usize,
        sufficiency: f64,
    },
    Stop {
        reason: StopReason,
        sufficiency: f64,
    },
}

/// The outcome of an exploration.
#[derive(Clone, Debug, PartialEq)]
pub struct Exploration {
    /// Best first, at most the plan's limit.
    pub results: Vec<ResultNode>,
    /// λ·coverage + (1−λ)·relevance at the stop, in [0, 1].
    pub sufficiency: f64,
    pub stop: StopReason,
    pub stats: Stats,
    /// Every decision, when the plan asked for `RETURN TRACE` (or the caller for a trace).
    pub trace: Vec<TraceEvent>,
    /// What the statement asked to see (`RETURN NODES`, `PATHS`, …): how a client shows it.
    pub ret: cairn_query::ast::ReturnKind,
    /// The exact count of a `RETURN COUNT` plan (then `results` is empty).
    pub count: Option<u64>,
    /// The names of the values each result (`RETURN NODES c, …`) or each aggregate row carries:
    /// the columns, or the `GROUP BY` keys then the aggregates, as the statement writes them.
    pub columns: Vec<String>,
    /// The rows of an aggregate plan (then `results` is empty), in the plan's order.
    pub rows: Vec<AggregateRow>,
    /// `RETURN SUBGRAPH`: what the pattern matched for the results.
    pub subgraph: Option<Subgraph>,
}

impl Exploration {
    /// Whether the run was cut short (see [`StopReason::incomplete`]).
    pub fn incomplete(&self) -> bool {
        self.stop.incomplete()
    }
}
