//! Compiled statements: the [`Plan`] an executor runs, with every default filled in and every
//! name resolved to a catalog id.

use crate::ast::{AggFunc, CmpOp, Direction, ReturnKind, ShowWhat, ViaMode};
use crate::printer::{
    name, side_start, str_lit, via_sep, write_aliases, write_column_name, write_float,
    write_linking, write_nested, write_sep, write_set, write_value,
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

/// An exploration plan. Produced by [`crate::compile()`] from `EXPLORE`. A plan runs one of two
/// ways (docs/LANGUAGE.md, "How a statement runs"):
///
/// - **exact**: when [`Plan::is_exact`] (`RETURN COUNT`, aggregates, `GROUP BY`, `ORDER BY` a
///   property or `COUNT`, a `COUNT` column, `MEET`), the pattern is matched exhaustively: every
///   node it ends at is a candidate, `BEAM`, `BUDGET`, `FANOUT` and `UNTIL` do not apply;
/// - **search** (otherwise), the executor's beam search:
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
    /// `MEET` sides. Empty by default. Otherwise the plan is an exact intersection: the main
    /// side (`entries`, `via`) and every side are walked exhaustively (sets within `depth`),
    /// and the results are the nodes all of them reach (a node is not its own result) that
    /// pass `targets` and `filters`.
    pub meet: Vec<MeetPlan>,
    /// `EXCEPT` sides: a node any of them reaches (walked exhaustively, as a `MEET` side is) is
    /// not a result. Empty by default.
    pub except: Vec<MeetPlan>,
    /// The names `AS` binds: the entry a path starts at (hop 0, `FROM … AS a`) and the nodes
    /// the steps of an ordered path reach (hop *i*, `VIA R AS b`). References to them in
    /// [`filters`](Plan::filters) and [`output`](Plan::output) carry the hop.
    pub aliases: Vec<Bound>,
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
    /// What to return (default `NODES`). [`ReturnKind::Count`] and [`ReturnKind::Aggregate`]
    /// run exactly (see [`Plan::is_exact`]).
    pub ret: ReturnKind,
    /// How many results (or groups) to return (1..=10 000, default 10; unused by `COUNT` and an
    /// ungrouped aggregate).
    pub limit: u32,
    /// Columns, aggregates, grouping and order of `RETURN` (all empty by default: the ranked
    /// result nodes).
    pub output: Output,
}

impl Plan {
    /// Whether the plan runs exactly (an exhaustive match) rather than as a beam search: a
    /// count, an aggregate, an order or a column that needs every match, or an intersection.
    pub fn is_exact(&self) -> bool {
        matches!(self.ret, ReturnKind::Count | ReturnKind::Aggregate)
            || !self.meet.is_empty()
            || self
                .output
                .columns
                .iter()
                .any(|c| matches!(c, Column::Count))
            || self
                .output
                .order
                .iter()
                .any(|k| !matches!(k.by, SortBy::Score))
    }

    /// Whether the plan is a selection: no relation steps, so its candidates are its entries.
    pub fn is_selection(&self) -> bool {
        self.via.steps.is_empty()
    }
}

/// A node an `AS` binds: its name and its hop on the path (0: the entry).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Bound {
    pub name: String,
    pub hop: u32,
}

/// The shape of what `RETURN` gives back, beyond its kind and limit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Output {
    /// `RETURN NODES c, …`: values shown for each result node.
    pub columns: Vec<Column>,
    /// `RETURN COUNT, SUM(p), …` ([`ReturnKind::Aggregate`]); empty otherwise.
    pub aggregates: Vec<Aggregate>,
    /// `GROUP BY`: one row per distinct combination of these keys.
    pub group_by: Vec<GroupKey>,
    /// `ORDER BY`, first key first. Empty: by score. Ties after every key: by label name, then
    /// external key (never by insertion order); groups by their keys' values.
    pub order: Vec<SortKey>,
    /// `LIMIT n WITH TIES`: rows equal to the n-th on every sort key are kept too.
    pub with_ties: bool,
}

/// A property of the result node, or of a node an alias binds.
#[derive(Clone, Debug, PartialEq)]
pub struct PropAt {
    /// `None`: the result node.
    pub at: Option<Bound>,
    pub property: PropertyRef,
}

/// A column of `RETURN NODES`.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    Property(PropAt),
    /// The number of distinct paths of the pattern reaching the result (exact plans).
    Count,
    /// The result's score.
    Score,
}

/// An aggregate over the results (of a group).
#[derive(Clone, Debug, PartialEq)]
pub struct Aggregate {
    pub func: AggFunc,
    /// The result nodes' property it reads (`None` for `COUNT`).
    pub property: Option<PropertyRef>,
}

/// A `GROUP BY` key.
#[derive(Clone, Debug, PartialEq)]
pub enum GroupKey {
    /// A property value (of the result, or of a bound node).
    Property(PropAt),
    /// The bound node itself: one group per node an alias binds.
    Node(Bound),
}

/// An `ORDER BY` key.
#[derive(Clone, Debug, PartialEq)]
pub struct SortKey {
    pub by: SortBy,
    pub descending: bool,
}

/// What a sort key reads.
#[derive(Clone, Debug, PartialEq)]
pub enum SortBy {
    Property(PropAt),
    /// The node an alias binds (a `GROUP BY` key, or on a result's evidence path), in the order
    /// of label name, then external key.
    Node(Bound),
    /// The result's score (a search's ranking).
    Score,
    /// The result's path count, or a group's `COUNT`.
    Count,
    /// A group's aggregate.
    Aggregate(Aggregate),
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
    /// Nodes of `label` meeting every predicate (property-index lookups or a label scan); with
    /// no predicate, every node of the label.
    Match {
        label: LabelRef,
        predicates: Vec<Filter>,
    },
    /// A node by internal id.
    Node(NodeId),
    /// The result nodes of another plan (what it returns, after its `ORDER BY` and `LIMIT`).
    Subquery(Box<Plan>),
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
    /// `AS name` (ordered paths): the name the node this step reaches is bound to (also in
    /// [`Plan::aliases`]).
    pub alias: Option<String>,
}

/// `[NOT] [label.|alias.]property op value`: a node meets it if it has the property and the
/// comparison holds (negated: if not), and, when `label` is given, only nodes of that label are
/// filtered. With `at`, the filter applies to the node the alias binds instead of the result.
/// Numbers compare by value whether integer or decimal.
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    pub label: Option<LabelRef>,
    /// The bound node the filter reads (`None`: the result node, or the entry of a `Match`).
    pub at: Option<Bound>,
    pub property: PropertyRef,
    pub op: CmpOp,
    pub value: Operand,
    /// `NOT`: the node passes when the comparison does not hold (or it lacks the property).
    pub negated: bool,
}

/// What a filter compares with.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Value(Value),
    /// The one value an aggregate plan returns (computed before the plan that uses it).
    Subquery(Box<Plan>),
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
// One `Compiled` is made per statement and moved a few times: the plan's size beside the small
// variants costs nothing worth a box that every `Compiled::Explore(plan)` match would unwrap.
#[allow(clippy::large_enum_variant)]
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
        if self.negated {
            f.write_str("NOT ")?;
        }
        if let Some(b) = &self.at {
            write!(f, "{}.", name(&b.name))?;
        } else if let Some(l) = &self.label {
            write!(f, "{}.", name(&l.name))?;
        }
        write!(f, "{} {} ", name(&self.property.name), self.op)?;
        match &self.value {
            Operand::Value(v) => write_value(f, v),
            Operand::Subquery(p) => write_nested(f, p),
        }
    }
}

impl Display for PropAt {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(b) = &self.at {
            write_column_name(f, &b.name)?;
            f.write_str(".")?;
        }
        write_column_name(f, &self.property.name)
    }
}

impl Display for Column {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Column::Property(p) => write!(f, "{p}"),
            Column::Count => f.write_str("COUNT"),
            Column::Score => f.write_str("SCORE"),
        }
    }
}

impl Display for Aggregate {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.func)?;
        if let Some(p) = &self.property {
            write!(f, "({})", name(&p.name))?;
        }
        Ok(())
    }
}

impl Display for GroupKey {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            GroupKey::Property(p) => write!(f, "{p}"),
            GroupKey::Node(b) => write_column_name(f, &b.name),
        }
    }
}

impl Display for SortKey {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.by {
            SortBy::Property(p) => write!(f, "{p}")?,
            SortBy::Node(b) => write_column_name(f, &b.name)?,
            SortBy::Score => f.write_str("SCORE")?,
            SortBy::Count => f.write_str("COUNT")?,
            SortBy::Aggregate(a) => write!(f, "{a}")?,
        }
        f.write_str(if self.descending { " DESC" } else { " ASC" })
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
            EntryPlan::Match { label, predicates } if predicates.is_empty() => {
                write!(f, "{}", name(&label.name))
            }
            EntryPlan::Match { label, predicates } => {
                write!(f, "{} WHERE ", name(&label.name))?;
                write_filters(f, predicates)
            }
            EntryPlan::Node(id) => write!(f, "#{}", id.0),
            EntryPlan::Subquery(p) => write_nested(f, p),
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
        fmt_num(f, self.weight)?;
        if let Some(a) = &self.alias {
            write!(f, " AS {}", name(a))?;
        }
        Ok(())
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
        if let Some(a) = self.aliases.iter().find(|a| a.hop == 0) {
            write!(f, " AS {}", name(&a.name))?;
        }
        if self.via.steps.is_empty() {
            f.write_str("\n  -- VIA: none (a selection: the entries are the candidates)")?;
        } else {
            f.write_str("\n  VIA ")?;
            write!(f, "{}", self.via)?;
        }
        for (clause, sides) in [("MEET", &self.meet), ("EXCEPT", &self.except)] {
            for (k, side) in sides.iter().enumerate() {
                side_start(f, clause, k)?;
                write_entry_plans(f, &side.entries)?;
                write!(f, " VIA {}", side.via)?;
            }
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
        if self.is_exact() {
            f.write_str(
                "\n  -- exact: every match counts; BEAM, BUDGET, FANOUT and UNTIL do not apply",
            )?;
        }
        f.write_str("\n  RETURN ")?;
        let out = &self.output;
        if out.aggregates.is_empty() {
            write!(f, "{}", self.ret)?;
            if !out.columns.is_empty() {
                f.write_str(" ")?;
                write_sep(f, &out.columns, ", ")?;
            }
        } else {
            write_sep(f, &out.aggregates, ", ")?;
        }
        if !out.group_by.is_empty() {
            f.write_str(" GROUP BY ")?;
            write_sep(f, &out.group_by, ", ")?;
        }
        if !out.order.is_empty() {
            f.write_str(" ORDER BY ")?;
            write_sep(f, &out.order, ", ")?;
        }
        // A count, or one aggregate row, is one row: no LIMIT.
        if self.ret == ReturnKind::Count
            || (self.ret == ReturnKind::Aggregate && out.group_by.is_empty())
        {
            return Ok(());
        }
        write!(f, " LIMIT {}", self.limit)?;
        if out.with_ties {
            f.write_str(" WITH TIES")?;
        }
        Ok(())
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
