//! The planner's reading of a question: a chain of set operations over the graph (start from
//! linked nodes or from every node of a label, follow relation paths, rank, compare, keep or
//! drop what another chain reaches) and what the answer reports of the final set (its nodes, how
//! many, a sum or average, a property, or whether it is empty). "The largest city in the
//! smallest state" reads as `State → rank by area, ascending → <STATE_NAME → rank by
//! population`; "rivers that do not run through texas" as `River → drop (texas → <TRAVERSE)`.
//!
//! [`evaluate`] computes a reading exactly on a node source (exhaustive walks, every property
//! read), independently of the beam search: the answerer uses it for what the EXPLORE statement
//! cannot yet say, and the validator recomputes every answer with it. Ties are broken by node
//! key, never by node id, so an answer does not depend on the order a dump was imported in.

use crate::error::AgentError;
use crate::result::PathStep;
use crate::walk::{count, there_and_back, walk_keeping, Step, WALK_MAX_EDGES};
use cairn_exec::NodeSource;
use cairn_storage_format::{NodeId, Value};
use cairn_store::{Catalog, Graph, GraphRead};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// Where a chain starts.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// Linked nodes (a mention), of one label.
    Nodes {
        label: String,
        nodes: Vec<NodeId>,
        keys: Vec<String>,
    },
    /// Every node of a label ("which *state* …" with no state named).
    Label(String),
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Cmp {
    /// The operator as EXPLORE writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
            Cmp::Eq => "=",
            Cmp::Ne => "<>",
        }
    }

    fn holds(self, ord: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            Cmp::Lt => ord == Less,
            Cmp::Le => ord != Greater,
            Cmp::Gt => ord == Greater,
            Cmp::Ge => ord != Less,
            Cmp::Eq => ord == Equal,
            Cmp::Ne => ord != Equal,
        }
    }
}

/// What a property is compared with.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A value the question states ("more than 5,000,000", "after 2015", "in Toulouse").
    Value(Value),
    /// The property of what another chain reaches ("higher than *colorado's* highest point"):
    /// its largest value for `>`/`>=`, its smallest for `<`/`<=`, any for `=`/`<>`.
    Of(Box<Chain>, String),
}

/// What a rank orders by.
#[derive(Clone, Debug, PartialEq)]
pub enum RankKey {
    /// A numeric property ("the *largest* city": population).
    Property(String),
    /// How many distinct nodes (of the label, if given) a path reaches from each node ("the
    /// state that borders the *most states*").
    Reach(Vec<Step>, Option<String>),
    /// How many paths of the chain reach each node (the planned path's support).
    Paths,
}

/// One operation on the current set of nodes.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// Follow a relation path; keep the ends of `target`'s label when one is given.
    Hop {
        path: Vec<Step>,
        target: Option<String>,
    },
    /// The `k` first by `key` (`k = 1`: every node tied for the first place); `word` is the
    /// question's word for it ("largest"), which the answer states with the key.
    Rank {
        key: RankKey,
        descending: bool,
        k: usize,
        word: Option<String>,
    },
    /// Keep the nodes whose property compares so.
    Compare {
        property: String,
        cmp: Cmp,
        value: Operand,
    },
    /// Keep the nodes another chain also reaches (an intersection).
    Keep(Box<Chain>),
    /// Drop the nodes another chain reaches (an exclusion: "not", "no", "except").
    Drop(Box<Chain>),
}

/// A start and the operations applied in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    pub source: Source,
    pub ops: Vec<Op>,
}

/// An aggregate of a numeric property over the final set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggFunc {
    Sum,
    Avg,
    Min,
    Max,
}

impl AggFunc {
    pub fn name(self) -> &'static str {
        match self {
            AggFunc::Sum => "SUM",
            AggFunc::Avg => "AVG",
            AggFunc::Min => "MIN",
            AggFunc::Max => "MAX",
        }
    }
}

/// What the answer reports of the final set.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// The nodes.
    Nodes,
    /// How many there are.
    Count,
    /// A sum, average, minimum or maximum of a property.
    Aggregate(AggFunc, String),
    /// A property of each ("what is the population of …").
    Property(String),
    /// Whether the set is empty: a yes/no question.
    Exists,
}

/// A question read as a chain and what its answer reports.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    pub chain: Chain,
    pub output: Output,
}

/// A node of an evaluated set, with how it was reached.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    pub node: NodeId,
    /// From a start node of the chain to this node (empty when it is a start node).
    pub evidence: Vec<PathStep>,
    /// How many distinct paths of the last hop reach it (1 for a start node).
    pub paths: u64,
    /// What the last rank ordered it by.
    pub support: Option<f64>,
}

/// An evaluated chain: its members, best first, and whether a work bound cut a walk.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evaluated {
    pub members: Vec<Member>,
    pub cut: bool,
}

/// Evaluates chains exactly on a node source, reading properties and keys from the store.
pub struct Evaluator<'a> {
    graph: &'a Graph,
    source: &'a dyn NodeSource,
    catalog: &'a Catalog,
    keys: std::cell::RefCell<HashMap<NodeId, String>>,
    /// How many nodes tied for the first place of each rank that is not a chain's last step
    /// ("the state that borders the most states" when two do): the steps after it read all.
    ties: std::cell::RefCell<Vec<usize>>,
}

impl fmt::Debug for Evaluator<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Evaluator").finish_non_exhaustive()
    }
}

impl<'a> Evaluator<'a> {
    pub fn new(graph: &'a Graph, source: &'a dyn NodeSource, catalog: &'a Catalog) -> Self {
        Evaluator {
            graph,
            source,
            catalog,
            keys: Default::default(),
            ties: Default::default(),
        }
    }

    /// The members of `chain`, best first: by the last rank's order, else by how many paths
    /// reach each, then by key.
    pub fn chain(&self, chain: &Chain) -> Result<Evaluated, AgentError> {
        let mut set = self.start(&chain.source)?;
        let mut ranked = false;
        for (i, op) in chain.ops.iter().enumerate() {
            set = match op {
                Op::Hop { path, target } => {
                    ranked = false;
                    self.hop(set, path, target.as_deref())?
                }
                Op::Rank {
                    key, descending, k, ..
                } => {
                    ranked = true;
                    let values = self.rank_values(&set.members, key)?;
                    let members = self.top(set.members, values, *descending, *k)?;
                    if *k <= 1 && members.len() > 1 && i + 1 < chain.ops.len() {
                        self.ties.borrow_mut().push(members.len());
                    }
                    Evaluated {
                        members,
                        cut: set.cut,
                    }
                }
                Op::Compare {
                    property,
                    cmp,
                    value,
                } => self.compare(set, property, *cmp, value)?,
                Op::Keep(other) | Op::Drop(other) => {
                    let keep = matches!(op, Op::Keep(_));
                    let theirs = self.chain(other)?;
                    let nodes: HashSet<NodeId> = theirs.members.iter().map(|m| m.node).collect();
                    let mut set = set;
                    set.members.retain(|m| nodes.contains(&m.node) == keep);
                    set.cut |= theirs.cut;
                    set
                }
            };
        }
        if !ranked {
            self.order(&mut set.members, |m| m.paths as f64)?;
        }
        Ok(set)
    }

    fn start(&self, source: &Source) -> Result<Evaluated, AgentError> {
        let nodes = match source {
            Source::Nodes { nodes, .. } => nodes.clone(),
            Source::Label(label) => match self.catalog.label_id(label) {
                Some(l) => self.graph.label_nodes(l)?,
                None => Vec::new(),
            },
        };
        Ok(Evaluated {
            members: nodes
                .into_iter()
                .map(|node| Member {
                    node,
                    evidence: Vec::new(),
                    paths: 1,
                    support: None,
                })
                .collect(),
            cut: false,
        })
    }

    /// The ends of `path` from the set, each with its evidence continued from the member it
    /// was reached from. Going there and back through one relation reaches others, not the
    /// start ("co-authors"), unless nothing else is there ("X 's parent 's son": X).
    fn hop(
        &self,
        set: Evaluated,
        path: &[Step],
        target: Option<&str>,
    ) -> Result<Evaluated, AgentError> {
        let entries: Vec<NodeId> = set.members.iter().map(|m| m.node).collect();
        let before: HashMap<NodeId, &Member> = set.members.iter().map(|m| (m.node, m)).collect();
        let back = there_and_back(path);
        let (mut reached, mut cut) = walk_keeping(
            self.source,
            self.catalog,
            &entries,
            path,
            WALK_MAX_EDGES,
            !back,
        )?;
        if reached.is_empty() && back {
            (reached, cut) = walk_keeping(
                self.source,
                self.catalog,
                &entries,
                path,
                WALK_MAX_EDGES,
                true,
            )?;
        }
        let reached = crate::walk::of_target(self.source, reached, target, self.catalog)?;
        let members = reached
            .into_iter()
            .map(|r| {
                let mut evidence = r
                    .evidence
                    .first()
                    .and_then(|s| before.get(&s.from))
                    .map(|m| m.evidence.clone())
                    .unwrap_or_default();
                evidence.extend(r.evidence);
                Member {
                    node: r.node,
                    evidence,
                    paths: r.paths,
                    support: None,
                }
            })
            .collect();
        Ok(Evaluated {
            members,
            cut: set.cut || cut,
        })
    }

    /// The ties seen so far at ranks followed by more steps (how many tied at each).
    pub fn nested_ties(&self) -> Vec<usize> {
        self.ties.borrow().clone()
    }

    /// The value each member is ranked by (`None`: it has none, and drops out).
    pub fn rank_values(
        &self,
        members: &[Member],
        key: &RankKey,
    ) -> Result<Vec<Option<f64>>, AgentError> {
        match key {
            RankKey::Paths => Ok(members.iter().map(|m| Some(m.paths as f64)).collect()),
            RankKey::Property(p) => {
                let ids: Vec<NodeId> = members.iter().map(|m| m.node).collect();
                Ok(self
                    .properties(&ids, p)?
                    .into_iter()
                    .map(|v| v.as_ref().and_then(numeric))
                    .collect())
            }
            RankKey::Reach(path, label) => {
                let target = label.as_deref().and_then(|l| self.catalog.label_id(l));
                members
                    .iter()
                    .map(|m| {
                        let (mut ends, _) =
                            count(self.source, self.catalog, &[m.node], path, WALK_MAX_EDGES)?;
                        if let Some(t) = target {
                            let mut labels = Vec::new();
                            self.source.labels_into(&ends, &mut labels)?;
                            let mut keep = labels.into_iter().map(|l| l == Some(t));
                            ends.retain(|_| keep.next().unwrap_or(false));
                        }
                        Ok(Some(ends.len() as f64))
                    })
                    .collect()
            }
        }
    }

    /// The `k` first of `members` by `values` (highest first when `descending`), each with its
    /// value as support; members without a value drop out; with `k = 1` every member tied for
    /// the first place, past it ties at the cut go by key.
    pub fn top(
        &self,
        members: Vec<Member>,
        values: Vec<Option<f64>>,
        descending: bool,
        k: usize,
    ) -> Result<Vec<Member>, AgentError> {
        let mut members: Vec<Member> = members
            .into_iter()
            .zip(values)
            .filter_map(|(mut m, v)| {
                m.support = v;
                v.map(|_| m)
            })
            .collect();
        let sign = if descending { 1.0 } else { -1.0 };
        self.order(&mut members, |m| {
            sign * m.support.unwrap_or(f64::NEG_INFINITY)
        })?;
        if let Some(first) = members.first().and_then(|m| m.support) {
            if k <= 1 {
                members.retain(|m| m.support == Some(first));
            } else {
                members.truncate(k);
            }
        }
        Ok(members)
    }

    fn compare(
        &self,
        set: Evaluated,
        property: &str,
        cmp: Cmp,
        operand: &Operand,
    ) -> Result<Evaluated, AgentError> {
        let values: Vec<Value> = match operand {
            Operand::Value(v) => vec![v.clone()],
            Operand::Of(chain, p) => {
                let theirs = self.chain(chain)?;
                let ids: Vec<NodeId> = theirs.members.iter().map(|m| m.node).collect();
                self.properties(&ids, p)?.into_iter().flatten().collect()
            }
        };
        // Against several values: above the largest, below the smallest, equal to any.
        let bound = match cmp {
            Cmp::Gt | Cmp::Ge => values
                .iter()
                .max_by(|a, b| value_order(a, b).unwrap_or(std::cmp::Ordering::Equal)),
            Cmp::Lt | Cmp::Le => values
                .iter()
                .min_by(|a, b| value_order(a, b).unwrap_or(std::cmp::Ordering::Equal)),
            Cmp::Eq | Cmp::Ne => None,
        };
        let ids: Vec<NodeId> = set.members.iter().map(|m| m.node).collect();
        let own = self.properties(&ids, property)?;
        let mut members = Vec::new();
        for (m, v) in set.members.into_iter().zip(own) {
            let Some(v) = v else { continue };
            let holds = match (cmp, bound) {
                (Cmp::Eq, _) => values.iter().any(|x| value_order(&v, x) == Some(Equal)),
                (Cmp::Ne, _) => !values.iter().any(|x| value_order(&v, x) == Some(Equal)),
                (_, Some(b)) => value_order(&v, b).is_some_and(|o| cmp.holds(o)),
                (_, None) => false,
            };
            if holds {
                members.push(m);
            }
        }
        use std::cmp::Ordering::Equal;
        Ok(Evaluated {
            members,
            cut: set.cut,
        })
    }

    /// The value of property `name` of each node (`None` when unset).
    pub fn properties(&self, ids: &[NodeId], name: &str) -> Result<Vec<Option<Value>>, AgentError> {
        let Some(p) = self.catalog.prop_id(name) else {
            return Ok(vec![None; ids.len()]);
        };
        let mut out = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(1024) {
            for rec in self.graph.nodes(chunk)? {
                out.push(rec.and_then(|r| r.prop(p).cloned()));
            }
        }
        Ok(out)
    }

    /// Sorts members by `score` (highest first), ties by key (then id, for nodes without one).
    fn order(
        &self,
        members: &mut [Member],
        score: impl Fn(&Member) -> f64,
    ) -> Result<(), AgentError> {
        let ids: Vec<NodeId> = members.iter().map(|m| m.node).collect();
        self.load_keys(&ids)?;
        let keys = self.keys.borrow();
        members.sort_by(|a, b| {
            score(b)
                .total_cmp(&score(a))
                .then_with(|| keys.get(&a.node).cmp(&keys.get(&b.node)))
                .then(a.node.cmp(&b.node))
        });
        Ok(())
    }

    fn load_keys(&self, ids: &[NodeId]) -> Result<(), AgentError> {
        let missing: Vec<NodeId> = {
            let keys = self.keys.borrow();
            ids.iter()
                .copied()
                .filter(|n| !keys.contains_key(n))
                .collect()
        };
        for chunk in missing.chunks(1024) {
            let records = self.graph.nodes(chunk)?;
            let mut keys = self.keys.borrow_mut();
            for (id, rec) in chunk.iter().zip(records) {
                if let Some(r) = rec {
                    keys.insert(*id, r.key.clone());
                }
            }
        }
        Ok(())
    }

    /// The aggregate of `property` over the members (`None` when none has a numeric value);
    /// a sum or extreme of integers stays an integer.
    pub fn aggregate(
        &self,
        members: &[Member],
        func: AggFunc,
        property: &str,
    ) -> Result<Option<Value>, AgentError> {
        let ids: Vec<NodeId> = members.iter().map(|m| m.node).collect();
        let values: Vec<Value> = self
            .properties(&ids, property)?
            .into_iter()
            .flatten()
            .collect();
        let ints: Option<Vec<i64>> = values
            .iter()
            .map(|v| match v {
                Value::Int(i) => Some(*i),
                _ => None,
            })
            .collect();
        let floats: Vec<f64> = values.iter().filter_map(numeric).collect();
        if floats.is_empty() {
            return Ok(None);
        }
        let n = floats.len() as f64;
        Ok(Some(match (func, ints) {
            (AggFunc::Sum, Some(i)) => Value::Int(i.iter().sum()),
            (AggFunc::Min, Some(i)) => Value::Int(i.iter().copied().min().unwrap_or(0)),
            (AggFunc::Max, Some(i)) => Value::Int(i.iter().copied().max().unwrap_or(0)),
            (AggFunc::Sum, None) => Value::Float(floats.iter().sum()),
            (AggFunc::Avg, _) => Value::Float(floats.iter().sum::<f64>() / n),
            (AggFunc::Min, None) => {
                Value::Float(floats.iter().copied().fold(f64::INFINITY, f64::min))
            }
            (AggFunc::Max, None) => {
                Value::Float(floats.iter().copied().fold(f64::NEG_INFINITY, f64::max))
            }
        }))
    }
}

/// Two values in order: numbers as numbers, text as normalised text (case and punctuation
/// aside), other pairs not at all.
pub fn value_order(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    if let (Some(x), Some(y)) = (numeric(a), numeric(b)) {
        return x.partial_cmp(&y);
    }
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => Some(
            cairn_store::describe::normalize_name(x).cmp(&cairn_store::describe::normalize_name(y)),
        ),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

impl Chain {
    /// The start alone.
    pub fn from(source: Source) -> Chain {
        Chain {
            source,
            ops: Vec::new(),
        }
    }

    /// Every relation step of the chain's hops, in order (what feedback calls its shape).
    pub fn steps(&self) -> Vec<Step> {
        self.ops
            .iter()
            .filter_map(|op| match op {
                Op::Hop { path, .. } => Some(path.clone()),
                _ => None,
            })
            .flatten()
            .collect()
    }

    /// The keys of every linked start of the chain and of the chains inside it.
    pub fn starts(&self) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        if let Source::Nodes { keys, .. } = &self.source {
            out.push(keys.clone());
        }
        for op in &self.ops {
            match op {
                Op::Keep(c) | Op::Drop(c) => out.extend(c.starts()),
                Op::Compare {
                    value: Operand::Of(c, _),
                    ..
                } => out.extend(c.starts()),
                _ => {}
            }
        }
        out
    }

    /// The label of the final set, when the chain says it.
    pub fn label(&self) -> Option<&str> {
        let mut label = match &self.source {
            Source::Nodes { label, .. } | Source::Label(label) => Some(label.as_str()),
        };
        for op in &self.ops {
            if let Op::Hop { target, .. } = op {
                label = target.as_deref();
            }
        }
        label
    }
}

impl fmt::Display for Chain {
    /// One line: `State → rank by area ascending → <STATE_NAME City → …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            Source::Nodes { label, keys, .. } => write!(f, "{label} {keys:?}")?,
            Source::Label(label) => write!(f, "every {label}")?,
        }
        for op in &self.ops {
            f.write_str(" → ")?;
            match op {
                Op::Hop { path, target } => {
                    let p: Vec<String> = path.iter().map(|s| s.to_string()).collect();
                    write!(f, "{}", p.join(" -> "))?;
                    if let Some(t) = target {
                        write!(f, " {t}")?;
                    }
                }
                Op::Rank {
                    key, descending, k, ..
                } => {
                    let by = match key {
                        RankKey::Property(p) => p.clone(),
                        RankKey::Reach(path, label) => {
                            let p: Vec<String> = path.iter().map(|s| s.to_string()).collect();
                            format!(
                                "how many {} through {}",
                                label.as_deref().unwrap_or("nodes"),
                                p.join(" -> ")
                            )
                        }
                        RankKey::Paths => "paths".into(),
                    };
                    let dir = if *descending { "most" } else { "least" };
                    write!(f, "{k} {dir} by {by}")?;
                }
                Op::Compare {
                    property,
                    cmp,
                    value,
                } => match value {
                    Operand::Value(v) => write!(f, "{property} {} {v}", cmp.symbol())?,
                    Operand::Of(c, p) => write!(f, "{property} {} {p} of ({c})", cmp.symbol())?,
                },
                Op::Keep(c) => write!(f, "also reached from ({c})")?,
                Op::Drop(c) => write!(f, "not reached from ({c})")?,
            }
        }
        Ok(())
    }
}

/// The numeric value of a property, for ranking and comparing.
pub(crate) fn numeric(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}
