//! The canonical pretty-printer.
//!
//! Canonical form: keywords in upper case, condition and score words in lower case, one clause per
//! line in the order FROM, VIA, MEET, TARGET, WHERE, SCORE, BEAM, DEPTH, BUDGET, FANOUT, UNTIL, RETURN,
//! names backquoted only when they must be, strings with minimal escapes. Parsing the output gives
//! back the same tree (spans aside).

use crate::ast::*;
use crate::parser::is_reserved;
use cairn_storage_format::Value;
use std::fmt::{self, Display, Formatter, Write};

/// The canonical text of a statement.
pub fn print(stmt: &Statement) -> String {
    stmt.to_string()
}

/// Writes a name, backquoted if it is not a plain identifier or is a reserved word.
pub fn write_name(f: &mut impl Write, name: &str) -> fmt::Result {
    let mut chars = name.chars();
    let plain = chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
        && !is_reserved(name);
    if plain {
        f.write_str(name)
    } else {
        f.write_char('`')?;
        for c in name.chars() {
            if c == '`' {
                f.write_str("``")?;
            } else {
                f.write_char(c)?;
            }
        }
        f.write_char('`')
    }
}

/// Writes a string literal with escapes.
pub fn write_str_lit(f: &mut impl Write, s: &str) -> fmt::Result {
    f.write_char('"')?;
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            '\0' => f.write_str("\\0")?,
            c if c.is_control() => write!(f, "\\u{{{:x}}}", c as u32)?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

/// Writes a float so that it reads back as the same float (and as a float, not an integer).
pub fn write_float(f: &mut impl Write, x: f64) -> fmt::Result {
    let s = x.to_string();
    f.write_str(&s)?;
    if s.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
        f.write_str(".0")?;
    }
    Ok(())
}

/// Writes a value as a literal.
pub fn write_value(f: &mut impl Write, v: &Value) -> fmt::Result {
    match v {
        Value::Null => f.write_str("null"),
        Value::Bool(b) => write!(f, "{b}"),
        Value::Int(i) => write!(f, "{i}"),
        Value::Float(x) => write_float(f, *x),
        Value::Str(s) => write_str_lit(f, s),
        Value::List(items) => {
            f.write_char('[')?;
            for (k, it) in items.iter().enumerate() {
                if k > 0 {
                    f.write_str(", ")?;
                }
                write_value(f, it)?;
            }
            f.write_char(']')
        }
    }
}

struct N<'a>(&'a str);
impl Display for N<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_name(f, self.0)
    }
}

struct S<'a>(&'a str);
impl Display for S<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_str_lit(f, self.0)
    }
}

impl Display for Name {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_name(f, &self.text)
    }
}

impl Display for StrLit {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_str_lit(f, &self.value)
    }
}

impl Display for Number {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self.value {
            NumberValue::Int(i) => write!(f, "{i}"),
            NumberValue::Float(x) => write_float(f, x),
        }
    }
}

impl Display for Literal {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_value(f, &self.value)
    }
}

impl Display for CmpOp {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

impl Display for Predicate {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.negated {
            f.write_str("NOT ")?;
        }
        if let Some(l) = &self.label {
            write!(f, "{l}.")?;
        }
        write!(f, "{} {} {}", self.property, self.op, self.value)
    }
}

impl Display for Operand {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Literal(l) => write!(f, "{l}"),
            Operand::Subquery(e) => write_nested(f, e),
        }
    }
}

/// Writes `(statement)`. (Its lines are not re-indented: a backquoted name may hold a raw
/// newline, which must print as it is.)
pub(crate) fn write_nested(f: &mut impl Write, inner: &impl Display) -> fmt::Result {
    write!(f, "({inner})")
}

impl Display for AggFunc {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AggFunc::Count => "COUNT",
            AggFunc::Sum => "SUM",
            AggFunc::Avg => "AVG",
            AggFunc::Min => "MIN",
            AggFunc::Max => "MAX",
        })
    }
}

impl Display for AggregateExpr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.func)?;
        if let Some(p) = &self.property {
            write!(f, "({p})")?;
        }
        Ok(())
    }
}

/// Writes a name where `COUNT` would read as the keyword (a column, a sort or group key):
/// backquoted when it is `count` in any case.
pub(crate) fn write_column_name(f: &mut impl Write, name: &str) -> fmt::Result {
    if name.eq_ignore_ascii_case("count") {
        write!(f, "`{name}`")
    } else {
        write_name(f, name)
    }
}

impl Display for Column {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Column::Property {
                qualifier, name, ..
            } => {
                if let Some(q) = qualifier {
                    write_column_name(f, &q.text)?;
                    f.write_str(".")?;
                }
                write_column_name(f, &name.text)
            }
            Column::Count { .. } => f.write_str("COUNT"),
            Column::Score { .. } => f.write_str("SCORE"),
            Column::Aggregate(a) => write!(f, "{a}"),
        }
    }
}

impl Display for SortKey {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.key)?;
        match self.descending {
            Some(true) => f.write_str(" DESC"),
            Some(false) => f.write_str(" ASC"),
            None => Ok(()),
        }
    }
}

impl Display for ReturnClause {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("RETURN ")?;
        if self.aggregates.is_empty() {
            write!(f, "{}", self.kind)?;
            if !self.columns.is_empty() {
                f.write_str(" ")?;
                write_sep(f, &self.columns, ", ")?;
            }
        } else {
            write_sep(f, &self.aggregates, ", ")?;
        }
        if !self.group_by.is_empty() {
            f.write_str(" GROUP BY ")?;
            write_sep(f, &self.group_by, ", ")?;
        }
        if !self.order.is_empty() {
            f.write_str(" ORDER BY ")?;
            write_sep(f, &self.order, ", ")?;
        }
        if let Some(l) = &self.limit {
            write!(f, " LIMIT {l}")?;
            if self.with_ties {
                f.write_str(" WITH TIES")?;
            }
        }
        Ok(())
    }
}

/// Writes `items` separated by `sep` (every list of the canonical form and the plan's).
pub(crate) fn write_sep<T: Display>(
    f: &mut impl Write,
    items: impl IntoIterator<Item = T>,
    sep: &str,
) -> fmt::Result {
    for (k, item) in items.into_iter().enumerate() {
        if k > 0 {
            f.write_str(sep)?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

fn write_preds(f: &mut Formatter<'_>, preds: &[Predicate]) -> fmt::Result {
    write_sep(f, preds, " AND ")
}

impl Display for Entry {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.kind {
            EntryKind::Search { text, label, top } => {
                write!(f, "SEARCH {text}")?;
                if let Some(l) = label {
                    write!(f, " IN {l}")?;
                }
                if let Some(t) = top {
                    write!(f, " TOP {t}")?;
                }
                Ok(())
            }
            EntryKind::Key { label, key } => write!(f, "{label} {key}"),
            EntryKind::Match { label, predicates } if predicates.is_empty() => {
                write!(f, "{label}")
            }
            EntryKind::Match { label, predicates } => {
                write!(f, "{label} WHERE ")?;
                write_preds(f, predicates)
            }
            EntryKind::Id { id } => write!(f, "#{id}"),
            EntryKind::Subquery(e) => write_nested(f, e),
        }
    }
}

impl Display for RelStep {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match (&self.relation, self.direction) {
            (RelRef::Any, _) => f.write_str("ANY")?,
            (RelRef::Named(n), Direction::Out) => write!(f, "{n}")?,
            (RelRef::Named(n), Direction::In) => write!(f, "<{n}")?,
            (RelRef::Named(n), Direction::Both) => write!(f, "<{n}>")?,
        }
        if let Some(w) = &self.weight {
            write!(f, ":{w}")?;
        }
        if let Some(a) = &self.alias {
            write!(f, " AS {a}")?;
        }
        Ok(())
    }
}

impl Display for ScoreComponent {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ScoreComponent::Semantic => "semantic",
            ScoreComponent::Connectivity => "connectivity",
            ScoreComponent::Distance => "distance",
        })
    }
}

impl Display for ReturnKind {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ReturnKind::Nodes => "NODES",
            ReturnKind::Paths => "PATHS",
            ReturnKind::Subgraph => "SUBGRAPH",
            ReturnKind::Answer => "ANSWER",
            ReturnKind::Trace => "TRACE",
            ReturnKind::Count => "COUNT",
            ReturnKind::Aggregate => "AGGREGATE",
        })
    }
}

impl Display for DurationLit {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.amount, self.unit.suffix())
    }
}

impl Display for Cond {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.kind {
            CondKind::Sufficient { threshold: None } => f.write_str("sufficient"),
            CondKind::Sufficient { threshold: Some(t) } => write!(f, "sufficient >= {t}"),
            CondKind::Found { count, label } => {
                write!(f, "found {count}")?;
                if let Some(l) = label {
                    write!(f, " {l}")?;
                }
                Ok(())
            }
            CondKind::Stale { rounds } => write!(f, "stale {rounds}"),
            CondKind::Steps { count } => write!(f, "steps {count}"),
            CondKind::Depth { hops } => write!(f, "depth {hops}"),
            CondKind::Time { duration } => write!(f, "time {duration}"),
            CondKind::Judge => f.write_str("judge"),
            // `AND` binds tighter, so the parentheses around an `AND` inside `OR` are only for the
            // reader; they parse to the same tree.
            CondKind::Or(items) => write_chain(f, items, " OR ", |c| {
                matches!(c, CondKind::Or(_) | CondKind::And(_))
            }),
            CondKind::And(items) => write_chain(f, items, " AND ", |c| {
                matches!(c, CondKind::Or(_) | CondKind::And(_))
            }),
        }
    }
}

fn write_chain(
    f: &mut Formatter<'_>,
    items: &[Cond],
    sep: &str,
    needs_parens: fn(&CondKind) -> bool,
) -> fmt::Result {
    for (k, c) in items.iter().enumerate() {
        if k > 0 {
            f.write_str(sep)?;
        }
        if needs_parens(&c.kind) {
            write!(f, "({c})")?;
        } else {
            write!(f, "{c}")?;
        }
    }
    Ok(())
}

fn write_entries(f: &mut Formatter<'_>, entries: &[Entry]) -> fmt::Result {
    write_sep(f, entries, ", ")
}

/// The separator of a `VIA` clause's steps.
pub(crate) fn via_sep(mode: ViaMode) -> &'static str {
    match mode {
        ViaMode::Set => ", ",
        ViaMode::Path => " -> ",
    }
}

/// What starts the `k`-th side of a `MEET` (or `EXCEPT`) clause on its own line.
pub(crate) fn side_start(f: &mut impl Write, clause: &str, k: usize) -> fmt::Result {
    if k == 0 {
        write!(f, "\n  {clause} FROM ")
    } else {
        f.write_str("\n    AND FROM ")
    }
}

fn write_via(f: &mut Formatter<'_>, c: &ViaClause) -> fmt::Result {
    write_sep(f, &c.steps, via_sep(c.mode))
}

impl Display for Explore {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "EXPLORE {}", self.goal)?;
        // `FROM Label` right before `WHERE p …` would read back as the entry `Label WHERE p …`:
        // then the WHERE clause is written first (clauses may come in any order).
        let where_first = self.filter.is_some()
            && self.via.is_none()
            && self.meet.is_none()
            && self.except.is_none()
            && self.target.is_none()
            && self.from.as_ref().is_some_and(|c| {
                c.alias.is_none()
                    && matches!(
                        c.entries.last().map(|e| &e.kind),
                        Some(EntryKind::Match { predicates, .. }) if predicates.is_empty()
                    )
            });
        if let (true, Some(c)) = (where_first, &self.filter) {
            f.write_str("\n  WHERE ")?;
            write_preds(f, &c.predicates)?;
        }
        if let Some(c) = &self.from {
            f.write_str("\n  FROM ")?;
            write_entries(f, &c.entries)?;
            if let Some(a) = &c.alias {
                write!(f, " AS {a}")?;
            }
        }
        if let Some(c) = &self.via {
            f.write_str("\n  VIA ")?;
            write_via(f, c)?;
        }
        for (clause, c) in [("MEET", &self.meet), ("EXCEPT", &self.except)] {
            for (k, side) in c.iter().flat_map(|c| c.sides.iter().enumerate()) {
                side_start(f, clause, k)?;
                write_entries(f, &side.from.entries)?;
                f.write_str(" VIA ")?;
                write_via(f, &side.via)?;
            }
        }
        if let Some(c) = &self.target {
            f.write_str("\n  TARGET ")?;
            write_sep(f, &c.labels, ", ")?;
        }
        if let (false, Some(c)) = (where_first, &self.filter) {
            f.write_str("\n  WHERE ")?;
            write_preds(f, &c.predicates)?;
        }
        if let Some(c) = &self.score {
            f.write_str("\n  SCORE ")?;
            for (k, t) in c.terms.iter().enumerate() {
                if k > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{} {}", t.component, t.weight)?;
            }
        }
        for (kw, c) in [
            ("BEAM", &self.beam),
            ("DEPTH", &self.depth),
            ("BUDGET", &self.budget),
            ("FANOUT", &self.fanout),
        ] {
            if let Some(c) = c {
                write!(f, "\n  {kw} {}", c.value)?;
            }
        }
        if let Some(c) = &self.until {
            write!(f, "\n  UNTIL {}", c.condition)?;
        }
        if let Some(c) = &self.ret {
            write!(f, "\n  {c}")?;
        }
        Ok(())
    }
}

impl Display for Statement {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Statement::Explore(e) => write!(f, "{e}"),
            Statement::Ask(a) => write!(f, "ASK {}", a.question),
            Statement::Explain(e) => write!(f, "EXPLAIN {}", e.statement),
            Statement::Show(s) => f.write_str(match s.what {
                ShowWhat::Labels => "SHOW LABELS",
                ShowWhat::Relations => "SHOW RELATIONS",
                ShowWhat::Indexes => "SHOW INDEXES",
                ShowWhat::Strategies => "SHOW STRATEGIES",
            }),
            Statement::Describe(d) => write!(f, "DESCRIBE {}", d.label),
            Statement::DeclareRelation(d) => {
                write!(f, "RELATION {} UNDER {}", d.relation, d.parent)
            }
            Statement::CreateIndex(c) => {
                write!(f, "CREATE INDEX ON {}({})", c.label, c.property)
            }
            Statement::Annotate(a) => {
                write!(f, "ANNOTATE {} {}", a.kind, a.name)?;
                if let Some(d) = &a.description {
                    write!(f, " DESCRIPTION {d}")?;
                }
                if let Some(al) = &a.aliases {
                    write_aliases(f, al.iter().map(|s| s.value.as_str()))?;
                }
                write_linking(f, a.linking)
            }
            Statement::Upsert(u) => {
                write!(f, "UPSERT {}", u.node)?;
                write_set(
                    f,
                    u.set
                        .iter()
                        .map(|a| (a.property.text.as_str(), &a.value.value)),
                )?;
                if let Some(d) = &u.description {
                    write!(f, " DESCRIPTION {d}")?;
                }
                Ok(())
            }
            Statement::AddEdge(a) => {
                write!(f, "ADD EDGE {}", a.edge)?;
                write_set(
                    f,
                    a.set
                        .iter()
                        .map(|a| (a.property.text.as_str(), &a.value.value)),
                )?;
                if let Some(w) = &a.weight {
                    write!(f, " WEIGHT {w}")?;
                }
                Ok(())
            }
            Statement::RemoveEdge(r) => write!(f, "REMOVE EDGE {}", r.edge),
            Statement::RemoveNode(r) => write!(f, "REMOVE NODE {}", r.node),
            Statement::Transaction(t) => match &t.kind {
                TransactionKind::Begin => f.write_str("BEGIN"),
                TransactionKind::Commit => f.write_str("COMMIT"),
                TransactionKind::Rollback => f.write_str("ROLLBACK"),
                TransactionKind::Savepoint(n) => write!(f, "SAVEPOINT {n}"),
                TransactionKind::RollbackTo(n) => write!(f, "ROLLBACK TO {n}"),
            },
        }
    }
}

impl Display for NodeRef {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.label, self.key)
    }
}

impl Display for EdgeRef {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{} -[{}]-> {}", self.from, self.relation, self.to)
    }
}

impl Display for ElementKind {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ElementKind::Label => "LABEL",
            ElementKind::Relation => "RELATION",
            ElementKind::Property => "PROPERTY",
        })
    }
}

/// Writes ` ALIASES ("a", …)`; shared with the compiled form's printer.
pub fn write_aliases<'v>(
    f: &mut impl Write,
    aliases: impl IntoIterator<Item = &'v str>,
) -> fmt::Result {
    f.write_str(" ALIASES (")?;
    write_sep(f, aliases.into_iter().map(S), ", ")?;
    f.write_char(')')
}

/// Writes ` LINKING ON|OFF` when given; shared with the compiled form's printer.
pub fn write_linking(f: &mut impl Write, linking: Option<bool>) -> fmt::Result {
    match linking {
        Some(true) => f.write_str(" LINKING ON"),
        Some(false) => f.write_str(" LINKING OFF"),
        None => Ok(()),
    }
}

/// Writes ` SET p = v, …` (nothing for no assignments); shared with the compiled form's printer.
pub fn write_set<'v>(
    f: &mut impl Write,
    set: impl IntoIterator<Item = (&'v str, &'v Value)>,
) -> fmt::Result {
    for (k, (property, value)) in set.into_iter().enumerate() {
        f.write_str(if k == 0 { " SET " } else { ", " })?;
        write_name(f, property)?;
        f.write_str(" = ")?;
        write_value(f, value)?;
    }
    Ok(())
}

/// A name as EXPLORE writes it (bare, or in backquotes when reserved or not an identifier), for
/// code that writes statements: the plan printer, the ASK planner.
pub fn name(s: &str) -> impl Display + '_ {
    N(s)
}

/// A string literal as EXPLORE writes it, escaped.
pub fn str_lit(s: &str) -> impl Display + '_ {
    S(s)
}
