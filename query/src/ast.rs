//! The syntax tree. Every node carries the byte [`Span`] it was parsed from.
//!
//! The tree is purely syntactic: names are unresolved strings and numbers are unchecked (a
//! `BEAM 0` parses; the compiler rejects it with a span-pointed error). [`crate::print()`] turns any
//! tree back into canonical text, and parsing that text gives the same tree (spans aside).

use crate::span::Span;
use cairn_storage_format::Value;

/// One statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Statement {
    /// `EXPLORE "goal" …`
    Explore(Box<Explore>),
    /// `ASK "question"`
    Ask(Ask),
    /// `EXPLAIN <statement>` (not nestable).
    Explain(Explain),
    /// `SHOW LABELS`, `SHOW RELATIONS`, `SHOW INDEXES`, `SHOW STRATEGIES`.
    Show(Show),
    /// `DESCRIBE Label`
    Describe(Describe),
    /// `RELATION Child UNDER Parent`
    DeclareRelation(DeclareRelation),
    /// `CREATE INDEX ON Label(property)`
    CreateIndex(CreateIndex),
    /// `ANNOTATE LABEL|RELATION|PROPERTY name [DESCRIPTION "…"] [ALIASES ("…", …)] [LINKING ON|OFF]`
    Annotate(Annotate),
    /// `UPSERT Label "key" [SET p = v, …] [DESCRIPTION "text"]`
    Upsert(Upsert),
    /// `ADD EDGE Label "key" -[REL]-> Label "key" [SET p = v, …] [WEIGHT w]`
    AddEdge(AddEdge),
    /// `REMOVE EDGE Label "key" -[REL]-> Label "key"`
    RemoveEdge(RemoveEdge),
    /// `REMOVE NODE Label "key"` (with its edges)
    RemoveNode(RemoveNode),
    /// `BEGIN`, `COMMIT`, `ROLLBACK`, `SAVEPOINT name`, `ROLLBACK TO name`
    Transaction(Transaction),
}

impl Statement {
    /// Span of the whole statement.
    pub fn span(&self) -> Span {
        match self {
            Statement::Explore(s) => s.span,
            Statement::Ask(s) => s.span,
            Statement::Explain(s) => s.span,
            Statement::Show(s) => s.span,
            Statement::Describe(s) => s.span,
            Statement::DeclareRelation(s) => s.span,
            Statement::CreateIndex(s) => s.span,
            Statement::Annotate(s) => s.span,
            Statement::Upsert(s) => s.span,
            Statement::AddEdge(s) => s.span,
            Statement::RemoveEdge(s) => s.span,
            Statement::RemoveNode(s) => s.span,
            Statement::Transaction(s) => s.span,
        }
    }
}

/// `EXPLORE "goal" [FROM …] [VIA …] [MEET …] [EXCEPT …] [TARGET …] [WHERE …] [SCORE …] [BEAM n]
/// [DEPTH n] [BUDGET n] [FANOUT n] [UNTIL …] [RETURN …]`. Clauses may come in any order, each at
/// most once.
#[derive(Clone, Debug, PartialEq)]
pub struct Explore {
    pub span: Span,
    pub goal: StrLit,
    pub from: Option<FromClause>,
    pub via: Option<ViaClause>,
    /// Further constraints the results must also meet (an intersection).
    pub meet: Option<MeetClause>,
    /// Patterns whose nodes are not results (an exclusion): `EXCEPT FROM … VIA …`.
    pub except: Option<MeetClause>,
    pub target: Option<TargetClause>,
    pub filter: Option<WhereClause>,
    pub score: Option<ScoreClause>,
    pub beam: Option<CountClause>,
    pub depth: Option<CountClause>,
    pub budget: Option<CountClause>,
    pub fanout: Option<CountClause>,
    pub until: Option<UntilClause>,
    pub ret: Option<ReturnClause>,
}

/// `ASK "question"`
#[derive(Clone, Debug, PartialEq)]
pub struct Ask {
    pub span: Span,
    pub question: StrLit,
}

/// `EXPLAIN <statement>`
#[derive(Clone, Debug, PartialEq)]
pub struct Explain {
    pub span: Span,
    pub statement: Box<Statement>,
}

/// `SHOW LABELS | RELATIONS | INDEXES | STRATEGIES`
#[derive(Clone, Debug, PartialEq)]
pub struct Show {
    pub span: Span,
    pub what: ShowWhat,
}

/// What `SHOW` lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShowWhat {
    Labels,
    Relations,
    Indexes,
    /// What the strategy feedback loop has learned (plan shapes, phrase → relation choices).
    Strategies,
}

/// `DESCRIBE Label`
#[derive(Clone, Debug, PartialEq)]
pub struct Describe {
    pub span: Span,
    pub label: Name,
}

/// `RELATION Child UNDER Parent`
#[derive(Clone, Debug, PartialEq)]
pub struct DeclareRelation {
    pub span: Span,
    pub relation: Name,
    pub parent: Name,
}

/// `CREATE INDEX ON Label(property)`
#[derive(Clone, Debug, PartialEq)]
pub struct CreateIndex {
    pub span: Span,
    pub label: Name,
    pub property: Name,
}

/// `ANNOTATE LABEL|RELATION|PROPERTY name [DESCRIPTION "text"] [ALIASES ("a", …)]
/// [LINKING ON|OFF]`: what a schema element means, in words the planner can match, and (labels
/// only) whether its nodes are linked from unmarked words (at least one of the parts).
#[derive(Clone, Debug, PartialEq)]
pub struct Annotate {
    pub span: Span,
    pub kind: ElementKind,
    pub name: Name,
    pub description: Option<StrLit>,
    /// `ALIASES ( … )`, possibly empty (which clears the aliases).
    pub aliases: Option<Vec<StrLit>>,
    /// `LINKING ON|OFF` (labels only): whether `ASK` links the label's nodes from unmarked words.
    pub linking: Option<bool>,
}

/// What kind of schema element a name is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementKind {
    Label,
    Relation,
    Property,
}

/// A node named by its label and external key: `Author "a9"`.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeRef {
    pub span: Span,
    pub label: Name,
    pub key: StrLit,
}

/// `property = value` in a `SET` list.
#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
    pub span: Span,
    pub property: Name,
    pub value: Literal,
}

/// `UPSERT Label "key" [SET p = v, …] [DESCRIPTION "text"]`: insert the node or update it.
#[derive(Clone, Debug, PartialEq)]
pub struct Upsert {
    pub span: Span,
    pub node: NodeRef,
    pub set: Vec<Assignment>,
    pub description: Option<StrLit>,
}

/// `Label "key" -[REL]-> Label "key"`: one edge.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeRef {
    pub span: Span,
    pub from: NodeRef,
    pub relation: Name,
    pub to: NodeRef,
}

/// `ADD EDGE <edge> [SET p = v, …] [WEIGHT w]`: add the edge or replace its properties.
#[derive(Clone, Debug, PartialEq)]
pub struct AddEdge {
    pub span: Span,
    pub edge: EdgeRef,
    pub set: Vec<Assignment>,
    pub weight: Option<Number>,
}

/// `REMOVE EDGE <edge>`
#[derive(Clone, Debug, PartialEq)]
pub struct RemoveEdge {
    pub span: Span,
    pub edge: EdgeRef,
}

/// `REMOVE NODE Label "key"`
#[derive(Clone, Debug, PartialEq)]
pub struct RemoveNode {
    pub span: Span,
    pub node: NodeRef,
}

/// A transaction statement.
#[derive(Clone, Debug, PartialEq)]
pub struct Transaction {
    pub span: Span,
    pub kind: TransactionKind,
}

/// What a transaction statement does.
#[derive(Clone, Debug, PartialEq)]
pub enum TransactionKind {
    /// `BEGIN`: later data statements accumulate until `COMMIT` or `ROLLBACK`.
    Begin,
    /// `COMMIT`: apply them all at once.
    Commit,
    /// `ROLLBACK`: drop them all.
    Rollback,
    /// `SAVEPOINT name`: remember this point of the transaction.
    Savepoint(Name),
    /// `ROLLBACK TO name`: drop what came after the savepoint (which stays).
    RollbackTo(Name),
}

/// A label, relation or property name (plain identifier, or backquoted).
#[derive(Clone, Debug, PartialEq)]
pub struct Name {
    pub text: String,
    pub span: Span,
}

/// A string literal, unescaped.
#[derive(Clone, Debug, PartialEq)]
pub struct StrLit {
    pub value: String,
    pub span: Span,
}

/// A numeric literal as written: integer or decimal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Number {
    pub value: NumberValue,
    pub span: Span,
}

/// The value of a [`Number`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NumberValue {
    Int(i64),
    Float(f64),
}

impl NumberValue {
    /// The value as a float.
    pub fn as_f64(self) -> f64 {
        match self {
            NumberValue::Int(i) => i as f64,
            NumberValue::Float(f) => f,
        }
    }
}

/// A literal value in a predicate: `null`, `true`, `42`, `0.5`, `"text"`, `[1, 2]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Literal {
    pub value: Value,
    pub span: Span,
}

/// `FROM entry {, entry} [AS alias]`
#[derive(Clone, Debug, PartialEq)]
pub struct FromClause {
    pub span: Span,
    pub entries: Vec<Entry>,
    /// `AS name`: binds the entry a result's path starts at (hop 0), for `WHERE`, `RETURN` and
    /// `GROUP BY` (main `FROM` only).
    pub alias: Option<Name>,
}

/// One entry form.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub span: Span,
    pub kind: EntryKind,
}

/// The entry forms.
#[derive(Clone, Debug, PartialEq)]
pub enum EntryKind {
    /// `SEARCH "text" [IN Label] [TOP k]`: nearest neighbours of the text's embedding.
    Search {
        text: StrLit,
        label: Option<Name>,
        top: Option<Number>,
    },
    /// `Label "key"`: the node with this external key.
    Key { label: Name, key: StrLit },
    /// `Label WHERE prop op value {AND …}`: nodes of the label matching every predicate;
    /// `Label` alone (no predicates): every node of the label.
    Match {
        label: Name,
        predicates: Vec<Predicate>,
    },
    /// `#123`: a node by internal id.
    Id { id: u64 },
    /// `( EXPLORE … )`: the result nodes of another exploration.
    Subquery(Box<Explore>),
}

/// `[NOT] [qualifier.]property op operand`
#[derive(Clone, Debug, PartialEq)]
pub struct Predicate {
    pub span: Span,
    /// `NOT`: the predicate holds when the comparison does not (a node without the property
    /// passes a negated predicate).
    pub negated: bool,
    /// `Label.` (the predicate applies to result nodes of that label) or `alias.` (it applies to
    /// the node an `AS` binds).
    pub label: Option<Name>,
    pub property: Name,
    pub op: CmpOp,
    pub op_span: Span,
    pub value: Operand,
}

/// What a property is compared with.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A literal value.
    Literal(Literal),
    /// `( EXPLORE … RETURN MAX(p) )`: the one value an aggregate subquery returns.
    Subquery(Box<Explore>),
}

impl Operand {
    /// The operand's span.
    pub fn span(&self) -> Span {
        match self {
            Operand::Literal(l) => l.span,
            Operand::Subquery(e) => e.span,
        }
    }
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `IN [v, …]`
    In,
}

impl CmpOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::In => "IN",
        }
    }
}

/// `VIA step {, step}` (a set) or `VIA step {-> step}` (an ordered path).
#[derive(Clone, Debug, PartialEq)]
pub struct ViaClause {
    pub span: Span,
    pub mode: ViaMode,
    pub steps: Vec<RelStep>,
}

/// `MEET FROM … VIA … {AND FROM … VIA …}`: the results are the nodes the main `FROM`/`VIA`
/// reaches that every side also reaches from its own entries through its own steps.
#[derive(Clone, Debug, PartialEq)]
pub struct MeetClause {
    pub span: Span,
    pub sides: Vec<MeetSide>,
}

/// One side of a `MEET` clause: `FROM entry {, entry} VIA steps`.
#[derive(Clone, Debug, PartialEq)]
pub struct MeetSide {
    pub span: Span,
    pub from: FromClause,
    pub via: ViaClause,
}

/// How the `VIA` steps are used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ViaMode {
    /// `a, b, c`: any listed relation may be followed at any hop.
    Set,
    /// `a -> b -> c`: hop *i* follows step *i*.
    Path,
}

/// `R`, `<R`, `<R>` or `ANY`, with an optional `:weight` and an optional `AS alias` (in an
/// ordered path: binds the node the step reaches).
#[derive(Clone, Debug, PartialEq)]
pub struct RelStep {
    pub span: Span,
    pub relation: RelRef,
    pub direction: Direction,
    pub weight: Option<Number>,
    pub alias: Option<Name>,
}

/// A relation type, or every relation type.
#[derive(Clone, Debug, PartialEq)]
pub enum RelRef {
    Named(Name),
    /// `ANY`: every relation type, both directions.
    Any,
}

/// Direction an edge is followed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// `R`: from source to destination.
    Out,
    /// `<R`: from destination back to source.
    In,
    /// `<R>` (and `ANY`): either way.
    Both,
}

/// `TARGET Label {, Label}`
#[derive(Clone, Debug, PartialEq)]
pub struct TargetClause {
    pub span: Span,
    pub labels: Vec<Name>,
}

/// `WHERE predicate {AND predicate}` (filters on result nodes).
#[derive(Clone, Debug, PartialEq)]
pub struct WhereClause {
    pub span: Span,
    pub predicates: Vec<Predicate>,
}

/// `SCORE component weight {, component weight}`
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreClause {
    pub span: Span,
    pub terms: Vec<ScoreTerm>,
}

/// One `SCORE` term.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreTerm {
    pub span: Span,
    pub component: ScoreComponent,
    pub weight: Number,
}

/// The three terms of the neighbour score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScoreComponent {
    /// α: similarity of the node to the goal.
    Semantic,
    /// β: log-degree of the node.
    Connectivity,
    /// γ: closeness to the nearest entry node.
    Distance,
}

/// `BEAM n`, `DEPTH n`, `BUDGET n`, `FANOUT n`
#[derive(Clone, Debug, PartialEq)]
pub struct CountClause {
    /// Span of the whole clause (keyword and number).
    pub span: Span,
    pub value: Number,
}

/// `UNTIL condition`
#[derive(Clone, Debug, PartialEq)]
pub struct UntilClause {
    pub span: Span,
    pub condition: Cond,
}

/// A stop condition or a combination of them.
#[derive(Clone, Debug, PartialEq)]
pub struct Cond {
    pub span: Span,
    pub kind: CondKind,
}

/// Stop conditions. `AND` binds tighter than `OR`; parentheses group.
#[derive(Clone, Debug, PartialEq)]
pub enum CondKind {
    /// `sufficient [>= x]`
    Sufficient { threshold: Option<Number> },
    /// `found n [Label]`
    Found { count: Number, label: Option<Name> },
    /// `stale k`
    Stale { rounds: Number },
    /// `steps n`
    Steps { count: Number },
    /// `depth n`
    Depth { hops: Number },
    /// `time 30s`
    Time { duration: DurationLit },
    /// `judge`
    Judge,
    /// `a AND b {AND c}` (at least two operands)
    And(Vec<Cond>),
    /// `a OR b {OR c}` (at least two operands)
    Or(Vec<Cond>),
}

/// A duration: an integer immediately followed by `ms`, `s`, `m` or `h`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DurationLit {
    pub span: Span,
    pub amount: u64,
    pub unit: TimeUnit,
}

/// Units of [`DurationLit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    Millis,
    Seconds,
    Minutes,
    Hours,
}

impl TimeUnit {
    /// The unit's suffix.
    pub fn suffix(self) -> &'static str {
        match self {
            TimeUnit::Millis => "ms",
            TimeUnit::Seconds => "s",
            TimeUnit::Minutes => "m",
            TimeUnit::Hours => "h",
        }
    }

    /// Milliseconds in one unit.
    pub fn millis(self) -> u64 {
        match self {
            TimeUnit::Millis => 1,
            TimeUnit::Seconds => 1000,
            TimeUnit::Minutes => 60_000,
            TimeUnit::Hours => 3_600_000,
        }
    }
}

/// `RETURN kind [columns] [GROUP BY …] [ORDER BY …] [LIMIT n [WITH TIES]]`
#[derive(Clone, Debug, PartialEq)]
pub struct ReturnClause {
    pub span: Span,
    pub kind: ReturnKind,
    /// `RETURN NODES name, year, a.name, COUNT`: values shown for each result.
    pub columns: Vec<Column>,
    /// `RETURN COUNT, SUM(p), …` when `kind` is [`ReturnKind::Aggregate`].
    pub aggregates: Vec<AggregateExpr>,
    /// `GROUP BY key {, key}` (aggregates only).
    pub group_by: Vec<Column>,
    /// `ORDER BY key [ASC|DESC] {, …}`.
    pub order: Vec<SortKey>,
    pub limit: Option<Number>,
    /// `LIMIT n WITH TIES`: rows tied with the n-th on every sort key come back too.
    pub with_ties: bool,
}

/// A value named in `RETURN`, `GROUP BY` or `ORDER BY`.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    /// `property` (of the result node) or `qualifier.property` (of the node an alias binds); in
    /// `GROUP BY`, a bare alias name is the bound node itself.
    Property {
        span: Span,
        qualifier: Option<Name>,
        name: Name,
    },
    /// `COUNT`: the number of distinct paths reaching a result (in `GROUP BY` queries, the
    /// rows of the group).
    Count { span: Span },
    /// `SCORE`: the result's relevance score.
    Score { span: Span },
    /// `SUM(p)`, `AVG(p)`, `MIN(p)`, `MAX(p)`, `COUNT` in a grouped `ORDER BY`.
    Aggregate(AggregateExpr),
}

impl Column {
    /// The column's span.
    pub fn span(&self) -> Span {
        match self {
            Column::Property { span, .. } | Column::Count { span } | Column::Score { span } => {
                *span
            }
            Column::Aggregate(a) => a.span,
        }
    }
}

/// `COUNT`, `SUM(p)`, `AVG(p)`, `MIN(p)`, `MAX(p)`.
#[derive(Clone, Debug, PartialEq)]
pub struct AggregateExpr {
    pub span: Span,
    pub func: AggFunc,
    /// The aggregated property of the result nodes (`None` for `COUNT`).
    pub property: Option<Name>,
}

/// Aggregate functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AggFunc {
    Count,
    Sum,
    Avg,
    Min,
    Max,
}

/// `key [ASC|DESC]`
#[derive(Clone, Debug, PartialEq)]
pub struct SortKey {
    pub span: Span,
    pub key: Column,
    /// `Some(true)`: `DESC`; `Some(false)`: `ASC`; `None`: not written (ascending).
    pub descending: Option<bool>,
}

/// What an exploration returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReturnKind {
    /// Ranked result nodes, each with the path that reached it.
    Nodes,
    /// The evidence paths themselves.
    Paths,
    /// The subgraph of visited nodes and followed edges.
    Subgraph,
    /// A natural-language answer written from the evidence.
    Answer,
    /// The full decision trace of the search.
    Trace,
    /// How many distinct nodes the pattern ends at: an exact, exhaustive count, not bounded by
    /// `BEAM`, `BUDGET`, `FANOUT` or `LIMIT`.
    Count,
    /// `COUNT`, `SUM`, `AVG`, `MIN`, `MAX` over the results, one row (or one per `GROUP BY`
    /// group); exact and exhaustive like `COUNT`.
    Aggregate,
}

// ---------------------------------------------------------------------------------------------
// Span clearing, so that trees can be compared by structure alone.

impl Statement {
    /// Sets every span in the tree to [`Span::DUMMY`] (used to compare trees by structure).
    pub fn clear_spans(&mut self) {
        match self {
            Statement::Explore(e) => e.clear_spans(),
            Statement::Ask(a) => {
                a.span = Span::DUMMY;
                a.question.span = Span::DUMMY;
            }
            Statement::Explain(e) => {
                e.span = Span::DUMMY;
                e.statement.clear_spans();
            }
            Statement::Show(s) => s.span = Span::DUMMY,
            Statement::Describe(d) => {
                d.span = Span::DUMMY;
                d.label.span = Span::DUMMY;
            }
            Statement::DeclareRelation(d) => {
                d.span = Span::DUMMY;
                d.relation.span = Span::DUMMY;
                d.parent.span = Span::DUMMY;
            }
            Statement::CreateIndex(c) => {
                c.span = Span::DUMMY;
                c.label.span = Span::DUMMY;
                c.property.span = Span::DUMMY;
            }
            Statement::Annotate(a) => {
                a.span = Span::DUMMY;
                clear_name(&mut a.name);
                if let Some(d) = &mut a.description {
                    d.span = Span::DUMMY;
                }
                for s in a.aliases.iter_mut().flatten() {
                    s.span = Span::DUMMY;
                }
            }
            Statement::Upsert(u) => {
                u.span = Span::DUMMY;
                u.node.clear_spans();
                u.set.iter_mut().for_each(Assignment::clear_spans);
                if let Some(d) = &mut u.description {
                    d.span = Span::DUMMY;
                }
            }
            Statement::AddEdge(a) => {
                a.span = Span::DUMMY;
                a.edge.clear_spans();
                a.set.iter_mut().for_each(Assignment::clear_spans);
                a.weight.iter_mut().for_each(clear_num);
            }
            Statement::RemoveEdge(r) => {
                r.span = Span::DUMMY;
                r.edge.clear_spans();
            }
            Statement::RemoveNode(r) => {
                r.span = Span::DUMMY;
                r.node.clear_spans();
            }
            Statement::Transaction(t) => {
                t.span = Span::DUMMY;
                if let TransactionKind::Savepoint(n) | TransactionKind::RollbackTo(n) = &mut t.kind
                {
                    clear_name(n);
                }
            }
        }
    }
}

impl NodeRef {
    fn clear_spans(&mut self) {
        self.span = Span::DUMMY;
        clear_name(&mut self.label);
        self.key.span = Span::DUMMY;
    }
}

impl EdgeRef {
    fn clear_spans(&mut self) {
        self.span = Span::DUMMY;
        self.from.clear_spans();
        clear_name(&mut self.relation);
        self.to.clear_spans();
    }
}

impl Assignment {
    fn clear_spans(&mut self) {
        self.span = Span::DUMMY;
        clear_name(&mut self.property);
        self.value.span = Span::DUMMY;
    }
}

fn clear_name(n: &mut Name) {
    n.span = Span::DUMMY;
}

fn clear_num(n: &mut Number) {
    n.span = Span::DUMMY;
}

fn clear_pred(p: &mut Predicate) {
    p.span = Span::DUMMY;
    p.op_span = Span::DUMMY;
    match &mut p.value {
        Operand::Literal(l) => l.span = Span::DUMMY,
        Operand::Subquery(e) => e.clear_spans(),
    }
    p.label.iter_mut().for_each(clear_name);
    clear_name(&mut p.property);
}

fn clear_sides(m: &mut MeetClause) {
    m.span = Span::DUMMY;
    for side in &mut m.sides {
        side.span = Span::DUMMY;
        side.from.clear_spans();
        side.via.clear_spans();
    }
}

impl Column {
    fn clear_spans(&mut self) {
        match self {
            Column::Property {
                span,
                qualifier,
                name,
            } => {
                *span = Span::DUMMY;
                qualifier.iter_mut().for_each(clear_name);
                clear_name(name);
            }
            Column::Count { span } | Column::Score { span } => *span = Span::DUMMY,
            Column::Aggregate(a) => a.clear_spans(),
        }
    }
}

impl AggregateExpr {
    fn clear_spans(&mut self) {
        self.span = Span::DUMMY;
        self.property.iter_mut().for_each(clear_name);
    }
}

impl Explore {
    fn clear_spans(&mut self) {
        self.span = Span::DUMMY;
        self.goal.span = Span::DUMMY;
        self.from.iter_mut().for_each(FromClause::clear_spans);
        self.via.iter_mut().for_each(ViaClause::clear_spans);
        self.meet.iter_mut().for_each(clear_sides);
        self.except.iter_mut().for_each(clear_sides);
        if let Some(t) = &mut self.target {
            t.span = Span::DUMMY;
            t.labels.iter_mut().for_each(clear_name);
        }
        if let Some(w) = &mut self.filter {
            w.span = Span::DUMMY;
            w.predicates.iter_mut().for_each(clear_pred);
        }
        if let Some(s) = &mut self.score {
            s.span = Span::DUMMY;
            for t in &mut s.terms {
                t.span = Span::DUMMY;
                clear_num(&mut t.weight);
            }
        }
        for c in [
            &mut self.beam,
            &mut self.depth,
            &mut self.budget,
            &mut self.fanout,
        ]
        .into_iter()
        .flatten()
        {
            c.span = Span::DUMMY;
            clear_num(&mut c.value);
        }
        if let Some(u) = &mut self.until {
            u.span = Span::DUMMY;
            u.condition.clear_spans();
        }
        if let Some(r) = &mut self.ret {
            r.span = Span::DUMMY;
            r.limit.iter_mut().for_each(clear_num);
            r.columns.iter_mut().for_each(Column::clear_spans);
            r.group_by.iter_mut().for_each(Column::clear_spans);
            r.aggregates.iter_mut().for_each(AggregateExpr::clear_spans);
            for k in &mut r.order {
                k.span = Span::DUMMY;
                k.key.clear_spans();
            }
        }
    }
}

impl FromClause {
    fn clear_spans(&mut self) {
        self.span = Span::DUMMY;
        self.alias.iter_mut().for_each(clear_name);
        for e in &mut self.entries {
            e.span = Span::DUMMY;
            match &mut e.kind {
                EntryKind::Search { text, label, top } => {
                    text.span = Span::DUMMY;
                    label.iter_mut().for_each(clear_name);
                    top.iter_mut().for_each(clear_num);
                }
                EntryKind::Key { label, key } => {
                    clear_name(label);
                    key.span = Span::DUMMY;
                }
                EntryKind::Match { label, predicates } => {
                    clear_name(label);
                    predicates.iter_mut().for_each(clear_pred);
                }
                EntryKind::Id { .. } => {}
                EntryKind::Subquery(e) => e.clear_spans(),
            }
        }
    }
}

impl ViaClause {
    fn clear_spans(&mut self) {
        self.span = Span::DUMMY;
        for s in &mut self.steps {
            s.span = Span::DUMMY;
            if let RelRef::Named(n) = &mut s.relation {
                clear_name(n);
            }
            s.weight.iter_mut().for_each(clear_num);
            s.alias.iter_mut().for_each(clear_name);
        }
    }
}

impl Cond {
    fn clear_spans(&mut self) {
        self.span = Span::DUMMY;
        match &mut self.kind {
            CondKind::Sufficient { threshold } => threshold.iter_mut().for_each(clear_num),
            CondKind::Found { count, label } => {
                clear_num(count);
                label.iter_mut().for_each(clear_name);
            }
            CondKind::Stale { rounds: n }
            | CondKind::Steps { count: n }
            | CondKind::Depth { hops: n } => clear_num(n),
            CondKind::Time { duration } => duration.span = Span::DUMMY,
            CondKind::Judge => {}
            CondKind::And(cs) | CondKind::Or(cs) => cs.iter_mut().for_each(Cond::clear_spans),
        }
    }
}
