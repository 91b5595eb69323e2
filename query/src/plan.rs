//! Compiled statements: the [`Plan`] an executor runs, with every default filled in and every
//! name resolved to a catalog id.

use crate::ast::{CmpOp, Direction, ReturnKind, ShowWhat, ViaMode};
use crate::printer::{
    meet_side_start, name, str_lit, via_sep, write_aliases, write_float, write_linking, write_sep,
    write_set, write_value,
};
use cairn_storage_format::{LabelId, NodeId, PropKeyId, RelId, Value};
use std::fmt::{self, Display, Formatter};
use std::time::Duration;

/// A resolved label: its id, and its name for display.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LabelRef {
    pub id: LabelId,
    pub name: String,
}

/// A resolved relation type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RelationRef {
    pub id: RelId,
    pub name: String,
}

/// A resolved property key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PropertyRef {
    pub id: PropKeyId,
    pub name: String,
}

/// An exploration plan. Produced by [`crate::compile()`] from `EXPLORE`; consumed by the executor's
/// beam search:
///
/// 1. resolve [`entries`](Plan::entries) to start nodes;
/// 2. repeatedly score the unvisited neighbours reachable through [`via`](Plan::via) with
///    `R(n) = (semantic·s + connectivity·c + distance·d) / (semantic + connectivity + distance)`
///    (times the relation's weight), keep the best [`beam`](Plan::beam), expand them; an expanded
///    node with more than [`fanout`](Plan::fanout) neighbours through one step has only an evenly
///    spaced sample of that many scored (hubs would otherwise dominate the cost);
/// 3. count visited nodes that have a [`targets`](Plan::targets) label and pass every
///    [`filters`](Plan::filters) as results;
/// 4. stop when [`until`](Plan::until) holds, or when [`depth`](Plan::depth),
///    [`budget`](Plan::budget) or [`time_cap`](Plan::time_cap) is reached (these always apply);
/// 5. return [`limit`](Plan::limit) results of kind [`ret`](Plan::ret).
///
/// Defaults and caps are in [`crate::limits`].
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// What the user wants to find, in words; the semantic score compares nodes to it.
    pub goal: String,
    /// Start nodes. Default: `SEARCH <goal> TOP 5`.
    pub entries: Vec<EntryPlan>,
    /// Relations that may be followed. Default: `ANY` (every relation, both directions, weight 1).
    pub via: ViaPlan,
    /// `MEET` sides. Empty (the default): a beam search. Otherwise the plan is an intersection:
    /// the main side (`entries`, `via`) and every side are walked exhaustively within `depth`,
    /// `budget`, `fanout` and the time cap, and the results are the nodes all of them reach
    /// (never an entry of any side) that pass `targets` and `filters`.
    pub meet: Vec<MeetPlan>,
    /// Labels whose nodes count as results. Empty (the default) means every label.
    pub targets: Vec<LabelRef>,
    /// Conditions every result must meet (all of them). Default: none.
    pub filters: Vec<Filter>,
    /// Weights of the neighbour score, as written (not normalised). Default 0.5 / 0.3 / 0.2.
    pub score: ScoreWeights,
    /// Frontier nodes kept per round (1..=1024, default 8).
    pub beam: u32,
    /// Hops from the nearest entry (1..=16, default 3, or the length of an ordered path).
    pub depth: u32,
    /// `DEPTH` was written: the adaptive expansion (which otherwise grows a default depth
    /// when the results are not sufficient) never goes past it.
    pub depth_fixed: bool,
    /// Node expansions (1..=1 000 000, default 2000).
    pub budget: u32,
    /// Neighbours scored per expanded node per step (1..=1 000 000, default 1024); a longer list
    /// is thinned to an evenly spaced, deterministic sample. Raise it for completeness (every
    /// neighbour of a hub); the default keeps a hub's expansion cheap.
    pub fanout: u32,
    /// When to stop early. Default: `sufficient >= 0.8 OR stale 2`.
    pub until: StopCondition,
    /// Hard time cap, always on ([`crate::limits::MAX_TIME`]).
    pub time_cap: Duration,
    /// What to return (default `NODES`). [`ReturnKind::Count`] runs an exact, level-synchronous
    /// walk instead of the beam search (the executor's `count`): only the entries, the steps,
    /// `depth` (for `MEET` sides with a relation set), `targets` and `filters` apply.
    pub ret: ReturnKind,
    /// How many results to return (1..=10 000, default 10; unused by `COUNT`).
    pub limit: u32,
}

/// How exploration starts.
#[derive(Clone, Debug, PartialEq)]
pub enum EntryPlan {
    /// The `top` nodes (optionally of one label) nearest to the text's embedding.
    Search {
        text: String,
        label: Option<LabelRef>,
        top: u32,
    },
    /// The node of `label` with external key `key`.
    Key { label: LabelRef, key: String },
    /// Nodes of `label` meeting every predicate (a property-index lookup or a label scan).
    Match {
        label: LabelRef,
        predicates: Vec<Filter>,
    },
    /// A node by internal id.
    Node(NodeId),
}

/// One `MEET` side: its own entries and relation steps.
#[derive(Clone, Debug, PartialEq)]
pub struct MeetPlan {
    pub entries: Vec<EntryPlan>,
    pub via: ViaPlan,
}

/// Relations that may be followed.
#[derive(Clone, Debug, PartialEq)]
pub struct ViaPlan {
    /// [`ViaMode::Set`]: any step at any hop. [`ViaMode::Path`]: hop *i* uses step *i* only.
    pub mode: ViaMode,
    pub steps: Vec<StepPlan>,
}

/// One relation step.
#[derive(Clone, Debug, PartialEq)]
pub struct StepPlan {
    /// `None` is `ANY`: every relation type.
    pub relation: Option<RelationRef>,
    pub direction: Direction,
    /// Multiplies the score of neighbours reached through this step (≥ 0, default 1).
    pub weight: f64,
}

/// `[label.]property op value`: a node meets it if it has the property and the comparison holds
/// (and, when `label` is given, it has that label; nodes of other labels are not filtered).
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    pub label: Option<LabelRef>,
    pub property: PropertyRef,
    pub op: CmpOp,
    pub value: Value,
}

/// Weights of the three score terms (each ≥ 0, not all 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoreWeights {
    /// α: cosine similarity of the node to the goal.
    pub semantic: f64,
    /// β: normalised log-degree.
    pub connectivity: f64,
    /// γ: decay with hops from the nearest entry.
    pub distance: f64,
}

impl ScoreWeights {
    /// The weights scaled to sum to 1.
    pub fn normalized(&self) -> ScoreWeights {
        let sum = self.semantic + self.connectivity + self.distance;
        if sum <= 0.0 {
            return *self;
        }
        ScoreWeights {
            semantic: self.semantic / sum,
            connectivity: self.connectivity / sum,
            distance: self.distance / sum,
        }
    }
}

/// The `UNTIL` tree.
#[derive(Clone, Debug, PartialEq)]
pub enum StopCondition {
    /// Sufficiency (λ·coverage + (1−λ)·relevance) has reached the threshold in [0, 1].
    Sufficient(f64),
    /// At least `count` results (of `label`, if given) have been found.
    Found { count: u32, label: Option<LabelRef> },
    /// This many rounds in a row brought no new high-value node.
    Stale(u32),
    /// This many node expansions have been spent.
    Steps(u32),
    /// The frontier is this many hops from the entries.
    Depth(u32),
    /// This much time has passed.
    Time(Duration),
    /// The evidence judge says the evidence is enough.
    Judge,
    /// Every operand holds.
    All(Vec<StopCondition>),
    /// Any operand holds.
    Any(Vec<StopCondition>),
}

/// A compiled statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Compiled {
    /// Run this plan.
    Explore(Plan),
    /// Hand the question to the planner agent, which produces a plan.
    Ask { question: String },
    /// Show the compiled form of the inner statement instead of running it.
    Explain(Box<Compiled>),
    /// List labels, relations or indexes.
    Show(ShowWhat),
    /// Describe a label (its properties, counts, relations).
    Describe(LabelRef),
    /// Record `relation`'s parent in the relation hierarchy.
    DeclareRelation {
        relation: RelationRef,
        parent: RelationRef,
    },
    /// Build a property index on `label`'s `property`.
    CreateIndex {
        label: LabelRef,
        property: PropertyRef,
    },
    /// Set a schema element's description and/or aliases (`None`: keep; empty: clear).
    Annotate {
        element: ElementRef,
        description: Option<String>,
        aliases: Option<Vec<String>>,
        /// Labels only: whether `ASK` links the label's nodes from unmarked words.
        linking: Option<bool>,
    },
    /// Change data: a node or an edge.
    Mutation(Mutation),
    /// Begin, end or roll back (part of) a transaction.
    Transaction(TransactionControl),
}

/// A resolved schema element.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ElementRef {
    Label(LabelRef),
    Relation(RelationRef),
    Property(PropertyRef),
}

/// A name a data statement may create: its id when the catalog has it, `None` when the statement
/// adds it (a new label, relation type or property key).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NewName<Id> {
    pub name: String,
    pub id: Option<Id>,
}

/// A node by label and external key. The label exists; whether the node does is known only when
/// the statement runs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NodeAt {
    pub label: LabelRef,
    pub key: String,
}

/// A compiled data statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Mutation {
    /// Insert node (`label`, `key`) or update it: the `set` properties replace those keys'
    /// values, other properties are kept; a given description replaces the old one.
    Upsert {
        label: NewName<LabelId>,
        key: String,
        set: Vec<(NewName<PropKeyId>, Value)>,
        description: Option<String>,
    },
    /// Add edge `from -[relation]-> to` (both nodes must exist when it runs), or replace the
    /// properties and weight of the existing one.
    AddEdge {
        from: NodeAt,
        relation: NewName<RelId>,
        to: NodeAt,
        set: Vec<(NewName<PropKeyId>, Value)>,
        weight: Option<f32>,
    },
    /// Remove edge `from -[relation]-> to`.
    RemoveEdge {
        from: NodeAt,
        relation: RelationRef,
        to: NodeAt,
    },
    /// Remove a node and every edge touching it.
    RemoveNode(NodeAt),
}

/// A compiled transaction statement.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TransactionControl {
    Begin,
    Commit,
    Rollback,
    Savepoint(String),
    RollbackTo(String),
}

// ---------------------------------------------------------------------------------------------
// Display: a plan prints as the EXPLORE statement that compiles to it, every clause written out.

/// Writes a duration in the largest unit that divides it.
pub fn fmt_duration(f: &mut Formatter<'_>, d: Duration) -> fmt::Result {
    let ms = d.as_millis();
    if ms != 0 && ms % 3_600_000 == 0 {
        write!(f, "{}h", ms / 3_600_000)
    } else if ms != 0 && ms % 60_000 == 0 {
        write!(f, "{}m", ms / 60_000)
    } else if ms != 0 && ms % 1000 == 0 {
        write!(f, "{}s", ms / 1000)
    } else {
        write!(f, "{ms}ms")
    }
}

fn fmt_num(f: &mut Formatter<'_>, x: f64) -> fmt::Result {
    crate::printer::write_float(f, x)
}

impl Display for Filter {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(l) = &self.label {
            write!(f, "{}.", name(&l.name))?;
        }
        write!(f, "{} {} ", name(&self.property.name), self.op)?;
        write_value(f, &self.value)
    }
}

fn write_filters(f: &mut Formatter<'_>, filters: &[Filter]) -> fmt::Result {
    write_sep(f, filters, " AND ")
}

impl Display for EntryPlan {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            EntryPlan::Search { text, label, top } => {
                write!(f, "SEARCH {}", str_lit(text))?;
                if let Some(l) = label {
                    write!(f, " IN {}", name(&l.name))?;
                }
                write!(f, " TOP {top}")
            }
            EntryPlan::Key { label, key } => write!(f, "{} {}", name(&label.name), str_lit(key)),
            EntryPlan::Match { label, predicates } => {
                write!(f, "{} WHERE ", name(&label.name))?;
                write_filters(f, predicates)
            }
            EntryPlan::Node(id) => write!(f, "#{}", id.0),
        }
    }
}

impl Display for StepPlan {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match (&self.relation, self.direction) {
            (None, _) => f.write_str("ANY")?,
            (Some(r), Direction::Out) => write!(f, "{}", name(&r.name))?,
            (Some(r), Direction::In) => write!(f, "<{}", name(&r.name))?,
            (Some(r), Direction::Both) => write!(f, "<{}>", name(&r.name))?,
        }
        f.write_str(":")?;
        fmt_num(f, self.weight)
    }
}

impl Display for StopCondition {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            StopCondition::Sufficient(t) => {
                f.write_str("sufficient >= ")?;
                fmt_num(f, *t)
            }
            StopCondition::Found { count, label } => {
                write!(f, "found {count}")?;
                if let Some(l) = label {
                    write!(f, " {}", name(&l.name))?;
                }
                Ok(())
            }
            StopCondition::Stale(k) => write!(f, "stale {k}"),
            StopCondition::Steps(n) => write!(f, "steps {n}"),
            StopCondition::Depth(n) => write!(f, "depth {n}"),
            StopCondition::Time(d) => {
                f.write_str("time ")?;
                fmt_duration(f, *d)
            }
            StopCondition::Judge => f.write_str("judge"),
            StopCondition::Any(items) => {
                for (k, c) in items.iter().enumerate() {
                    if k > 0 {
                        f.write_str(" OR ")?;
                    }
                    if matches!(c, StopCondition::Any(_) | StopCondition::All(_)) {
                        write!(f, "({c})")?;
                    } else {
                        write!(f, "{c}")?;
                    }
                }
                Ok(())
            }
            StopCondition::All(items) => {
                for (k, c) in items.iter().enumerate() {
                    if k > 0 {
                        f.write_str(" AND ")?;
                    }
                    if matches!(c, StopCondition::Any(_) | StopCondition::All(_)) {
                        write!(f, "({c})")?;
                    } else {
                        write!(f, "{c}")?;
                    }
                }
                Ok(())
            }
        }
    }
}

fn write_entry_plans(f: &mut Formatter<'_>, entries: &[EntryPlan]) -> fmt::Result {
    write_sep(f, entries, ", ")
}

impl Display for ViaPlan {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_sep(f, &self.steps, via_sep(self.mode))
    }
}

impl Display for Plan {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "EXPLORE {}", str_lit(&self.goal))?;
        f.write_str("\n  FROM ")?;
        write_entry_plans(f, &self.entries)?;
        f.write_str("\n  VIA ")?;
        write!(f, "{}", self.via)?;
        for (k, side) in self.meet.iter().enumerate() {
            f.write_str(meet_side_start(k))?;
            write_entry_plans(f, &side.entries)?;
            write!(f, " VIA {}", side.via)?;
        }
        if self.targets.is_empty() {
            f.write_str("\n  -- TARGET: every label")?;
        } else {
            f.write_str("\n  TARGET ")?;
            write_sep(f, self.targets.iter().map(|l| name(&l.name)), ", ")?;
        }
        if self.filters.is_empty() {
            f.write_str("\n  -- WHERE: no filter")?;
        } else {
            f.write_str("\n  WHERE ")?;
            write_filters(f, &self.filters)?;
        }
        f.write_str("\n  SCORE semantic ")?;
        fmt_num(f, self.score.semantic)?;
        f.write_str(", connectivity ")?;
        fmt_num(f, self.score.connectivity)?;
        f.write_str(", distance ")?;
        fmt_num(f, self.score.distance)?;
        write!(f, "\n  BEAM {}", self.beam)?;
        // A depth not written is the default the compiler derives again (3, or the ordered
        // path's length): shown as a comment, so that the printed plan compiles to this one.
        if self.depth_fixed {
            write!(f, "\n  DEPTH {}", self.depth)?;
        } else {
            write!(
                f,
                "\n  -- DEPTH {} (default: the adaptive expansion may go past it)",
                self.depth
            )?;
        }
        write!(
            f,
            "\n  BUDGET {}\n  FANOUT {}\n  UNTIL {}\n  -- always: DEPTH, BUDGET and time ",
            self.budget, self.fanout, self.until
        )?;
        fmt_duration(f, self.time_cap)?;
        if self.ret == ReturnKind::Count {
            return f.write_str(
                "\n  RETURN COUNT\n  -- COUNT: exact and exhaustive; BEAM, BUDGET, FANOUT and UNTIL do not apply",
            );
        }
        write!(f, "\n  RETURN {} LIMIT {}", self.ret, self.limit)
    }
}

impl Display for Compiled {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Compiled::Explore(p) => write!(f, "{p}"),
            Compiled::Ask { question } => write!(f, "ASK {}", str_lit(question)),
            Compiled::Explain(inner) => write!(f, "EXPLAIN {inner}"),
            Compiled::Show(ShowWhat::Labels) => f.write_str("SHOW LABELS"),
            Compiled::Show(ShowWhat::Relations) => f.write_str("SHOW RELATIONS"),
            Compiled::Show(ShowWhat::Indexes) => f.write_str("SHOW INDEXES"),
            Compiled::Show(ShowWhat::Strategies) => f.write_str("SHOW STRATEGIES"),
            Compiled::Describe(l) => write!(f, "DESCRIBE {}", name(&l.name)),
            Compiled::DeclareRelation { relation, parent } => write!(
                f,
                "RELATION {} UNDER {}",
                name(&relation.name),
                name(&parent.name)
            ),
            Compiled::CreateIndex { label, property } => write!(
                f,
                "CREATE INDEX ON {}({})",
                name(&label.name),
                name(&property.name)
            ),
            Compiled::Annotate {
                element,
                description,
                aliases,
                linking,
            } => {
                let (kind, n) = match element {
                    ElementRef::Label(l) => ("LABEL", &l.name),
                    ElementRef::Relation(r) => ("RELATION", &r.name),
                    ElementRef::Property(p) => ("PROPERTY", &p.name),
                };
                write!(f, "ANNOTATE {kind} {}", name(n))?;
                if let Some(d) = description {
                    write!(f, " DESCRIPTION {}", str_lit(d))?;
                }
                if let Some(a) = aliases {
                    write_aliases(f, a.iter().map(String::as_str))?;
                }
                write_linking(f, *linking)
            }
            Compiled::Mutation(m) => write!(f, "{m}"),
            Compiled::Transaction(t) => write!(f, "{t}"),
        }
    }
}

impl Display for NodeAt {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", name(&self.label.name), str_lit(&self.key))
    }
}

fn set_pairs<Id>(set: &[(NewName<Id>, Value)]) -> impl Iterator<Item = (&str, &Value)> {
    set.iter().map(|(k, v)| (k.name.as_str(), v))
}

impl Display for Mutation {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Mutation::Upsert {
                label,
                key,
                set,
                description,
            } => {
                write!(f, "UPSERT {} {}", name(&label.name), str_lit(key))?;
                write_set(f, set_pairs(set))?;
                if let Some(d) = description {
                    write!(f, " DESCRIPTION {}", str_lit(d))?;
                }
                Ok(())
            }
            Mutation::AddEdge {
                from,
                relation,
                to,
                set,
                weight,
            } => {
                write!(f, "ADD EDGE {from} -[{}]-> {to}", name(&relation.name))?;
                write_set(f, set_pairs(set))?;
                if let Some(w) = weight {
                    f.write_str(" WEIGHT ")?;
                    write_float(f, f64::from(*w))?;
                }
                Ok(())
            }
            Mutation::RemoveEdge { from, relation, to } => {
                write!(f, "REMOVE EDGE {from} -[{}]-> {to}", name(&relation.name))
            }
            Mutation::RemoveNode(n) => write!(f, "REMOVE NODE {n}"),
        }
    }
}

impl Display for TransactionControl {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            TransactionControl::Begin => f.write_str("BEGIN"),
            TransactionControl::Commit => f.write_str("COMMIT"),
            TransactionControl::Rollback => f.write_str("ROLLBACK"),
            TransactionControl::Savepoint(n) => write!(f, "SAVEPOINT {}", name(n)),
            TransactionControl::RollbackTo(n) => write!(f, "ROLLBACK TO {}", name(n)),
        }
    }
}
