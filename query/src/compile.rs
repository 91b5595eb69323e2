//! The plan compiler: resolves names through a [`Catalog`], checks values, fills in defaults.

use crate::ast::*;
use crate::ast::{Column, Operand};
use crate::catalog::Catalog;
use crate::error::{nearest, ErrorKind, NameKind, QueryError};
use crate::limits::*;
use crate::plan::*;
use crate::printer::str_lit;
use crate::span::Span;
use cairn_storage_format::rules::{self, RuleError};
use cairn_storage_format::{NodeId, PropKeyId, Value};
use std::collections::HashMap;
use std::time::Duration;

type R<T> = Result<T, QueryError>;

/// Compiles a parsed statement. Errors carry spans but no source text; attach it with
/// [`QueryError::with_source`] (or use [`crate::prepare()`], which does).
pub fn compile(stmt: &Statement, catalog: &dyn Catalog) -> R<Compiled> {
    let c = Compiler { catalog };
    c.statement(stmt)
}

struct Compiler<'c> {
    catalog: &'c dyn Catalog,
}

fn err<T>(kind: ErrorKind) -> R<T> {
    Err(QueryError::new(kind))
}

/// A whole number in `min..=max`.
fn count(n: &Number, what: &'static str, min: u32, max: u32) -> R<u32> {
    match n.value {
        NumberValue::Float(_) => err(ErrorKind::NotAnInteger { span: n.span, what }),
        NumberValue::Int(v) => match u32::try_from(v) {
            Ok(v) if (min..=max).contains(&v) => Ok(v),
            _ => err(ErrorKind::OutOfRange {
                span: n.span,
                what,
                min: min.to_string(),
                max: max.to_string(),
            }),
        },
    }
}

fn weight(n: &Number, what: &'static str) -> R<f64> {
    let w = n.value.as_f64();
    if w < 0.0 {
        return err(ErrorKind::NegativeWeight { span: n.span, what });
    }
    Ok(w)
}

/// An edge's stored weight, by the rule import checks too (`rules::edge_weight`): not
/// negative, and within `f32` (how edges store it).
fn edge_weight(n: &Number) -> R<f32> {
    let what = "an edge weight";
    rules::edge_weight(n.value.as_f64()).or_else(|e| match e {
        RuleError::NegativeWeight(_) => err(ErrorKind::NegativeWeight { span: n.span, what }),
        _ => err(ErrorKind::OutOfRange {
            span: n.span,
            what,
            min: "0".into(),
            max: format!("{:e}", f32::MAX),
        }),
    })
}

/// A label, relation type or property key a data statement may create: an existing one as it
/// is (it may predate the rule), a new one by the rule import checks too (`rules::check_name`).
fn new_name<I>(n: &Name, id: Option<I>, what: &'static str) -> R<NewName<I>> {
    if id.is_none() {
        if let Err(e) = rules::check_name(&n.text) {
            return err(ErrorKind::BadName {
                span: n.span,
                what,
                reason: e.to_string(),
            });
        }
    }
    Ok(NewName {
        name: n.text.clone(),
        id,
    })
}

/// A node's external key: any string but the empty one.
fn node_key(key: &StrLit) -> R<String> {
    if key.value.is_empty() {
        return err(ErrorKind::Empty {
            span: key.span,
            what: "a node key",
        });
    }
    Ok(key.value.clone())
}

fn not_empty(s: &StrLit, what: &'static str) -> R<String> {
    if s.value.trim().is_empty() {
        return err(ErrorKind::Empty { span: s.span, what });
    }
    Ok(s.value.clone())
}

fn fmt_dur(d: Duration) -> String {
    struct D(Duration);
    impl std::fmt::Display for D {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            fmt_duration(f, self.0)
        }
    }
    D(d).to_string()
}

impl Compiler<'_> {
    fn unknown(&self, n: &Name, kind: NameKind) -> QueryError {
        let names = match kind {
            NameKind::Label => self.catalog.label_names(),
            NameKind::Relation => self.catalog.relation_names(),
            NameKind::Property => self.catalog.property_names(),
            // Aliases are resolved where they are in scope (`Compiler::alias`).
            NameKind::Alias => Vec::new(),
        };
        QueryError::new(ErrorKind::UnknownName {
            span: n.span,
            kind,
            name: n.text.clone(),
            suggestions: nearest(&n.text, names.iter().map(String::as_str)),
        })
    }

    fn label(&self, n: &Name) -> R<LabelRef> {
        match self.catalog.label(&n.text) {
            Some(id) => Ok(LabelRef {
                id,
                name: n.text.clone(),
            }),
            None => Err(self.unknown(n, NameKind::Label)),
        }
    }

    fn relation(&self, n: &Name) -> R<RelationRef> {
        match self.catalog.relation(&n.text) {
            Some(id) => Ok(RelationRef {
                id,
                name: n.text.clone(),
            }),
            None => Err(self.unknown(n, NameKind::Relation)),
        }
    }

    fn property(&self, n: &Name) -> R<PropertyRef> {
        match self.catalog.property(&n.text) {
            Some(id) => Ok(PropertyRef {
                id,
                name: n.text.clone(),
            }),
            None => Err(self.unknown(n, NameKind::Property)),
        }
    }

    /// A node a data statement refers to: its label must exist.
    fn node_at(&self, n: &NodeRef) -> R<NodeAt> {
        Ok(NodeAt {
            label: self.label(&n.label)?,
            key: node_key(&n.key)?,
        })
    }

    /// `SET` properties: new keys are allowed (the statement creates them), a key given twice
    /// is not.
    fn assignments(&self, set: &[Assignment]) -> R<Vec<(NewName<PropKeyId>, Value)>> {
        let mut seen: HashMap<&str, Span> = HashMap::new();
        let mut out = Vec::with_capacity(set.len());
        for a in set {
            let text = a.property.text.as_str();
            if let Some(&first) = seen.get(text) {
                return err(ErrorKind::Duplicate {
                    span: a.property.span,
                    first,
                    item: format!("property `{text}`"),
                });
            }
            seen.insert(text, a.property.span);
            out.push((
                new_name(
                    &a.property,
                    self.catalog.property(text),
                    "the property name",
                )?,
                a.value.value.clone(),
            ));
        }
        Ok(out)
    }

    fn statement(&self, stmt: &Statement) -> R<Compiled> {
        Ok(match stmt {
            Statement::Explore(e) => Compiled::Explore(self.explore(e)?),
            Statement::Ask(a) => Compiled::Ask {
                question: not_empty(&a.question, "the question")?,
            },
            Statement::Explain(e) => Compiled::Explain(Box::new(self.statement(&e.statement)?)),
            Statement::Show(s) => Compiled::Show(s.what),
            Statement::Describe(d) => Compiled::Describe(self.label(&d.label)?),
            Statement::DeclareRelation(d) => {
                let relation = self.relation(&d.relation)?;
                let parent = self.relation(&d.parent)?;
                if relation.id == parent.id {
                    return err(ErrorKind::Duplicate {
                        span: d.parent.span,
                        first: d.relation.span,
                        item: format!("relation `{}`", d.relation.text),
                    });
                }
                Compiled::DeclareRelation { relation, parent }
            }
            Statement::CreateIndex(c) => Compiled::CreateIndex {
                label: self.label(&c.label)?,
                property: self.property(&c.property)?,
            },
            Statement::Annotate(a) => self.annotate(a)?,
            Statement::Upsert(u) => Compiled::Mutation(Mutation::Upsert {
                label: new_name(
                    &u.node.label,
                    self.catalog.label(&u.node.label.text),
                    "the label",
                )?,
                key: node_key(&u.node.key)?,
                set: self.assignments(&u.set)?,
                description: u.description.as_ref().map(|d| d.value.clone()),
            }),
            Statement::AddEdge(a) => Compiled::Mutation(Mutation::AddEdge {
                from: self.node_at(&a.edge.from)?,
                relation: new_name(
                    &a.edge.relation,
                    self.catalog.relation(&a.edge.relation.text),
                    "the relation type",
                )?,
                to: self.node_at(&a.edge.to)?,
                set: self.assignments(&a.set)?,
                weight: a.weight.as_ref().map(edge_weight).transpose()?,
            }),
            Statement::RemoveEdge(r) => Compiled::Mutation(Mutation::RemoveEdge {
                from: self.node_at(&r.edge.from)?,
                relation: self.relation(&r.edge.relation)?,
                to: self.node_at(&r.edge.to)?,
            }),
            Statement::RemoveNode(r) => {
                Compiled::Mutation(Mutation::RemoveNode(self.node_at(&r.node)?))
            }
            Statement::Transaction(t) => Compiled::Transaction(match &t.kind {
                TransactionKind::Begin => TransactionControl::Begin,
                TransactionKind::Commit => TransactionControl::Commit,
                TransactionKind::Rollback => TransactionControl::Rollback,
                TransactionKind::Savepoint(n) => TransactionControl::Savepoint(n.text.clone()),
                TransactionKind::RollbackTo(n) => TransactionControl::RollbackTo(n.text.clone()),
            }),
        })
    }

    /// `ANNOTATE`: the element must exist; aliases are not empty and not listed twice
    /// (case-insensitively: the planner matches words without case).
    fn annotate(&self, a: &Annotate) -> R<Compiled> {
        let element = match a.kind {
            ElementKind::Label => ElementRef::Label(self.label(&a.name)?),
            ElementKind::Relation => ElementRef::Relation(self.relation(&a.name)?),
            ElementKind::Property => ElementRef::Property(self.property(&a.name)?),
        };
        let aliases = match &a.aliases {
            None => None,
            Some(list) => {
                let mut seen: HashMap<String, Span> = HashMap::new();
                let mut out = Vec::with_capacity(list.len());
                for s in list {
                    let text = not_empty(s, "an alias")?;
                    if let Some(&first) = seen.get(&text.to_lowercase()) {
                        return err(ErrorKind::Duplicate {
                            span: s.span,
                            first,
                            item: format!("alias {}", str_lit(&text)),
                        });
                    }
                    seen.insert(text.to_lowercase(), s.span);
                    out.push(text);
                }
                Some(out)
            }
        };
        Ok(Compiled::Annotate {
            element,
            description: a.description.as_ref().map(|d| d.value.clone()),
            aliases,
            linking: a.linking,
        })
    }

    /// A predicate; `aliases` are the names the statement binds (a qualifier naming one makes
    /// the filter read that node; any other qualifier is a label).
    fn filter(&self, p: &Predicate, aliases: &[Bound]) -> R<Filter> {
        let at = p
            .label
            .as_ref()
            .and_then(|q| aliases.iter().find(|a| a.name == q.text).cloned());
        let label = match (&p.label, &at) {
            (Some(l), None) => Some(self.label(l).map_err(|e| with_aliases(e, aliases))?),
            _ => None,
        };
        let property = self.property(&p.property)?;
        let op_text = p.op.symbol();
        let value = match &p.value {
            Operand::Literal(lit) => {
                let bad = match (&p.op, &lit.value) {
                    (CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge, Value::Null) => Some("null"),
                    (CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge, Value::Bool(_)) => {
                        Some("a boolean")
                    }
                    (CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge, Value::List(_)) => {
                        Some("a list")
                    }
                    (CmpOp::In, Value::List(_)) => None,
                    (CmpOp::In, _) => Some("a single value"),
                    _ => None,
                };
                if let Some(value) = bad {
                    return err(ErrorKind::BadOperand {
                        span: lit.span,
                        op: op_text,
                        value,
                    });
                }
                crate::plan::Operand::Value(lit.value.clone())
            }
            Operand::Subquery(e) => {
                let plan = self.explore(e)?;
                let one_value = plan.ret == ReturnKind::Count
                    || (plan.ret == ReturnKind::Aggregate
                        && plan.output.aggregates.len() == 1
                        && plan.output.group_by.is_empty());
                if !one_value {
                    return err(ErrorKind::BadSubquery {
                        span: e.span,
                        want: "one value",
                    });
                }
                crate::plan::Operand::Subquery(Box::new(plan))
            }
        };
        Ok(Filter {
            label,
            at,
            property,
            op: p.op,
            value,
            negated: p.negated,
        })
    }

    fn entry(&self, e: &Entry) -> R<EntryPlan> {
        Ok(match &e.kind {
            EntryKind::Search { text, label, top } => EntryPlan::Search {
                text: not_empty(text, "the search text")?,
                label: label.as_ref().map(|l| self.label(l)).transpose()?,
                top: match top {
                    Some(t) => count(t, "TOP", 1, MAX_SEARCH_TOP)?,
                    None => DEFAULT_SEARCH_TOP,
                },
            },
            EntryKind::Key { label, key } => EntryPlan::Key {
                label: self.label(label)?,
                key: node_key(key)?,
            },
            EntryKind::Match { label, predicates } => EntryPlan::Match {
                label: self.label(label)?,
                predicates: predicates
                    .iter()
                    .map(|p| self.filter(p, &[]))
                    .collect::<R<_>>()?,
            },
            EntryKind::Id { id } => EntryPlan::Node(NodeId(*id)),
            EntryKind::Subquery(inner) => {
                let plan = self.explore(inner)?;
                if matches!(plan.ret, ReturnKind::Count | ReturnKind::Aggregate) {
                    return err(ErrorKind::BadSubquery {
                        span: inner.span,
                        want: "nodes",
                    });
                }
                EntryPlan::Subquery(Box::new(plan))
            }
        })
    }

    fn via(&self, v: &ViaClause) -> R<ViaPlan> {
        let mut steps = Vec::with_capacity(v.steps.len());
        let mut seen: HashMap<(Option<u32>, Direction), Span> = HashMap::new();
        for s in &v.steps {
            let relation = match &s.relation {
                RelRef::Named(n) => Some(self.relation(n)?),
                RelRef::Any => None,
            };
            if v.mode == ViaMode::Set {
                let key = (relation.as_ref().map(|r| r.id.0), s.direction);
                if let Some(first) = seen.insert(key, s.span) {
                    return err(ErrorKind::Duplicate {
                        span: s.span,
                        first,
                        item: match &relation {
                            Some(r) => format!("relation `{}`", r.name),
                            None => "`ANY`".to_owned(),
                        },
                    });
                }
            }
            let weight = match &s.weight {
                Some(w) => weight(w, "a relation weight")?,
                None => DEFAULT_RELATION_WEIGHT,
            };
            if let (Some(a), ViaMode::Set) = (&s.alias, v.mode) {
                return err(ErrorKind::AliasInSet { span: a.span });
            }
            steps.push(StepPlan {
                relation,
                direction: s.direction,
                weight,
                alias: s.alias.as_ref().map(|a| a.text.clone()),
            });
        }
        if steps.iter().all(|s| s.weight == 0.0) {
            return err(ErrorKind::AllZero {
                span: v.span,
                what: "the VIA weights",
            });
        }
        if v.mode == ViaMode::Path && steps.len() > MAX_DEPTH as usize {
            return err(ErrorKind::OutOfRange {
                span: v.span,
                what: "the length of an ordered VIA path",
                min: "1".to_owned(),
                max: MAX_DEPTH.to_string(),
            });
        }
        Ok(ViaPlan {
            mode: v.mode,
            steps,
        })
    }

    /// The `MEET` (or `EXCEPT`) sides, each resolved like the main `FROM` and `VIA`.
    fn meet(&self, m: &MeetClause) -> R<Vec<MeetPlan>> {
        m.sides
            .iter()
            .map(|side| {
                Ok(MeetPlan {
                    entries: side
                        .from
                        .entries
                        .iter()
                        .map(|x| self.entry(x))
                        .collect::<R<_>>()?,
                    via: self.via(&side.via)?,
                })
            })
            .collect()
    }

    fn score(&self, s: &ScoreClause) -> R<ScoreWeights> {
        let mut w = ScoreWeights {
            semantic: 0.0,
            connectivity: 0.0,
            distance: 0.0,
        };
        let mut seen: HashMap<ScoreComponent, Span> = HashMap::new();
        for t in &s.terms {
            if let Some(first) = seen.insert(t.component, t.span) {
                return err(ErrorKind::Duplicate {
                    span: t.span,
                    first,
                    item: format!("`{}`", t.component),
                });
            }
            let v = weight(&t.weight, "a score weight")?;
            match t.component {
                ScoreComponent::Semantic => w.semantic = v,
                ScoreComponent::Connectivity => w.connectivity = v,
                ScoreComponent::Distance => w.distance = v,
            }
        }
        if w.semantic + w.connectivity + w.distance <= 0.0 {
            return err(ErrorKind::AllZero {
                span: s.span,
                what: "the SCORE weights",
            });
        }
        Ok(w)
    }

    fn cond(&self, c: &Cond) -> R<StopCondition> {
        Ok(match &c.kind {
            CondKind::Sufficient { threshold } => StopCondition::Sufficient(match threshold {
                None => DEFAULT_SUFFICIENT,
                Some(t) => {
                    let v = t.value.as_f64();
                    if !(0.0..=1.0).contains(&v) {
                        return err(ErrorKind::OutOfRange {
                            span: t.span,
                            what: "the sufficiency threshold",
                            min: "0".to_owned(),
                            max: "1".to_owned(),
                        });
                    }
                    v
                }
            }),
            CondKind::Found { count: n, label } => StopCondition::Found {
                count: count(n, "found", 1, MAX_LIMIT)?,
                label: label.as_ref().map(|l| self.label(l)).transpose()?,
            },
            CondKind::Stale { rounds } => {
                StopCondition::Stale(count(rounds, "stale", 1, MAX_STALE)?)
            }
            CondKind::Steps { count: n } => StopCondition::Steps(count(n, "steps", 1, MAX_BUDGET)?),
            CondKind::Depth { hops } => StopCondition::Depth(count(hops, "depth", 1, MAX_DEPTH)?),
            CondKind::Time { duration } => {
                let ms = duration.amount.checked_mul(duration.unit.millis());
                match ms.map(Duration::from_millis) {
                    Some(d) if !d.is_zero() && d <= MAX_TIME => StopCondition::Time(d),
                    _ => {
                        return err(ErrorKind::OutOfRange {
                            span: duration.span,
                            what: "time",
                            min: "1ms".to_owned(),
                            max: fmt_dur(MAX_TIME),
                        })
                    }
                }
            }
            CondKind::Judge => StopCondition::Judge,
            CondKind::And(items) => {
                StopCondition::All(items.iter().map(|c| self.cond(c)).collect::<R<_>>()?)
            }
            CondKind::Or(items) => {
                StopCondition::Any(items.iter().map(|c| self.cond(c)).collect::<R<_>>()?)
            }
        })
    }

    fn explore(&self, e: &Explore) -> R<Plan> {
        let goal = not_empty(&e.goal, "the goal")?;
        let mut targets = Vec::new();
        if let Some(t) = &e.target {
            let mut seen: HashMap<u32, Span> = HashMap::new();
            for l in &t.labels {
                let r = self.label(l)?;
                if let Some(first) = seen.insert(r.id.0, l.span) {
                    return err(ErrorKind::Duplicate {
                        span: l.span,
                        first,
                        item: format!("label `{}`", l.text),
                    });
                }
                targets.push(r);
            }
        }
        let via = match &e.via {
            Some(v) => Some(self.via(v)?),
            None => None,
        };
        let aliases = self.aliases(e)?;
        let filters = match &e.filter {
            Some(w) => w
                .predicates
                .iter()
                .map(|p| self.filter(p, &aliases))
                .collect::<R<Vec<_>>>()?,
            None => Vec::new(),
        };
        let entries = match &e.from {
            Some(f) => f.entries.iter().map(|x| self.entry(x)).collect::<R<_>>()?,
            None if via.is_none() => selection(&targets, &filters).unwrap_or_else(|| {
                vec![EntryPlan::Search {
                    text: goal.clone(),
                    label: None,
                    top: DEFAULT_SEARCH_TOP,
                }]
            }),
            None => vec![EntryPlan::Search {
                text: goal.clone(),
                label: None,
                top: DEFAULT_SEARCH_TOP,
            }],
        };
        // Without VIA, a search by meaning explores every relation; entries picked by key,
        // id, label or a subquery are a selection (no hop): they are the candidates.
        let via = via.unwrap_or_else(|| {
            let searching = entries
                .iter()
                .any(|x| matches!(x, EntryPlan::Search { .. }));
            ViaPlan {
                mode: ViaMode::Set,
                steps: if searching {
                    vec![StepPlan {
                        relation: None,
                        direction: Direction::Both,
                        weight: DEFAULT_RELATION_WEIGHT,
                        alias: None,
                    }]
                } else {
                    Vec::new()
                },
            }
        });
        let meet = match &e.meet {
            Some(m) => self.meet(m)?,
            None => Vec::new(),
        };
        let except = match &e.except {
            Some(m) => self.meet(m)?,
            None => Vec::new(),
        };
        let score = match &e.score {
            Some(s) => self.score(s)?,
            None => ScoreWeights {
                semantic: DEFAULT_SCORE.0,
                connectivity: DEFAULT_SCORE.1,
                distance: DEFAULT_SCORE.2,
            },
        };
        let beam = match &e.beam {
            Some(c) => count(&c.value, "BEAM", 1, MAX_BEAM)?,
            None => DEFAULT_BEAM,
        };
        let path_len = (via.mode == ViaMode::Path).then_some(via.steps.len());
        let depth = match (&e.depth, path_len) {
            (Some(c), path) => {
                let d = count(&c.value, "DEPTH", 1, MAX_DEPTH)?;
                if let (Some(len), Some(v)) = (path, &e.via) {
                    if d as usize > len {
                        return err(ErrorKind::DepthBeyondPath {
                            span: c.value.span,
                            path: v.span,
                            depth: d,
                            len,
                        });
                    }
                    // DEPTH is a hard bound: a shorter one could never reach the path's end.
                    if (d as usize) < len {
                        return err(ErrorKind::DepthShortOfPath {
                            span: c.value.span,
                            path: v.span,
                            depth: d,
                            len,
                        });
                    }
                }
                d
            }
            (None, Some(len)) => u32::try_from(len).unwrap_or(MAX_DEPTH),
            // `VIA R` names one hop (the states that border Texas, not their neighbours too).
            (None, None) if via.steps.len() == 1 && via.steps[0].relation.is_some() => 1,
            (None, None) => DEFAULT_DEPTH,
        };
        let budget = match &e.budget {
            Some(c) => count(&c.value, "BUDGET", 1, MAX_BUDGET)?,
            None => DEFAULT_BUDGET,
        };
        let fanout = match &e.fanout {
            Some(c) => count(&c.value, "FANOUT", 1, MAX_FANOUT)?,
            None => DEFAULT_FANOUT,
        };
        let until = match &e.until {
            Some(u) => self.cond(&u.condition)?,
            None => StopCondition::Any(vec![
                StopCondition::Sufficient(DEFAULT_SUFFICIENT),
                StopCondition::Stale(DEFAULT_STALE),
            ]),
        };
        let (ret, limit, output) = match &e.ret {
            Some(r) => self.ret(r, &aliases)?,
            None => (ReturnKind::Nodes, DEFAULT_LIMIT, Output::default()),
        };
        Ok(Plan {
            goal,
            entries,
            via,
            meet,
            except,
            aliases,
            targets,
            filters,
            score,
            beam,
            depth,
            depth_fixed: e.depth.is_some(),
            budget,
            fanout,
            until,
            time_cap: MAX_TIME,
            ret,
            limit,
            output,
        })
    }

    /// The names `AS` binds: the entry (hop 0) and the steps of an ordered path (hop i + 1).
    fn aliases(&self, e: &Explore) -> R<Vec<Bound>> {
        let mut named: Vec<(&Name, u32)> = Vec::new();
        if let Some(a) = e.from.as_ref().and_then(|f| f.alias.as_ref()) {
            named.push((a, 0));
        }
        if let Some(v) = &e.via {
            for (k, s) in v.steps.iter().enumerate() {
                if let Some(a) = &s.alias {
                    named.push((a, u32::try_from(k + 1).unwrap_or(u32::MAX)));
                }
            }
        }
        let mut out: Vec<Bound> = Vec::with_capacity(named.len());
        let mut seen: HashMap<&str, Span> = HashMap::new();
        for (n, hop) in named {
            if let Some(&first) = seen.get(n.text.as_str()) {
                return err(ErrorKind::Duplicate {
                    span: n.span,
                    first,
                    item: format!("alias `{}`", n.text),
                });
            }
            seen.insert(&n.text, n.span);
            out.push(Bound {
                name: n.text.clone(),
                hop,
            });
        }
        Ok(out)
    }

    fn alias(&self, q: &Name, aliases: &[Bound]) -> R<Bound> {
        match aliases.iter().find(|a| a.name == q.text) {
            Some(a) => Ok(a.clone()),
            None => err(ErrorKind::UnknownName {
                span: q.span,
                kind: NameKind::Alias,
                name: q.text.clone(),
                suggestions: nearest(&q.text, aliases.iter().map(|a| a.name.as_str())),
            }),
        }
    }

    /// `[alias.]property`.
    fn prop_at(&self, qualifier: Option<&Name>, n: &Name, aliases: &[Bound]) -> R<PropAt> {
        Ok(PropAt {
            at: qualifier.map(|q| self.alias(q, aliases)).transpose()?,
            property: self.property(n)?,
        })
    }

    fn aggregate(&self, a: &AggregateExpr) -> R<Aggregate> {
        Ok(Aggregate {
            func: a.func,
            property: a.property.as_ref().map(|p| self.property(p)).transpose()?,
        })
    }

    /// `RETURN …`: its kind, limit and output shape.
    fn ret(&self, r: &ReturnClause, aliases: &[Bound]) -> R<(ReturnKind, u32, Output)> {
        let bad = |c: &Column, why: &'static str| {
            err(ErrorKind::BadColumn {
                span: c.span(),
                what: format!("`{c}`"),
                why,
            })
        };
        let grouped = !r.group_by.is_empty();
        let aggregating = matches!(r.kind, ReturnKind::Count | ReturnKind::Aggregate);
        let mut out = Output {
            with_ties: r.with_ties,
            ..Output::default()
        };
        for c in &r.columns {
            out.columns.push(match c {
                Column::Property {
                    qualifier, name, ..
                } => crate::plan::Column::Property(self.prop_at(
                    qualifier.as_ref(),
                    name,
                    aliases,
                )?),
                Column::Count { .. } => crate::plan::Column::Count,
                Column::Score { .. } => crate::plan::Column::Score,
                Column::Aggregate(_) => {
                    return bad(
                        c,
                        "aggregates come right after RETURN: RETURN COUNT, MAX(p)",
                    )
                }
            });
        }
        if r.kind == ReturnKind::Aggregate {
            out.aggregates = r
                .aggregates
                .iter()
                .map(|a| self.aggregate(a))
                .collect::<R<_>>()?;
        }
        for c in &r.group_by {
            out.group_by.push(match c {
                Column::Property {
                    qualifier: None,
                    name,
                    ..
                } if aliases.iter().any(|a| a.name == name.text) => {
                    GroupKey::Node(self.alias(name, aliases)?)
                }
                Column::Property {
                    qualifier, name, ..
                } => GroupKey::Property(self.prop_at(qualifier.as_ref(), name, aliases)?),
                _ => return bad(c, "GROUP BY takes properties and aliases"),
            });
            // Rows pair a result with the node of one alias: keys may read one alias only.
            let hop = |k: &GroupKey| match k {
                GroupKey::Node(b) => Some(b.hop),
                GroupKey::Property(p) => p.at.as_ref().map(|b| b.hop),
            };
            let mut hops = out.group_by.iter().filter_map(hop);
            if let Some(first) = hops.next() {
                if hops.any(|h| h != first) {
                    return bad(c, "GROUP BY reads at most one alias's node");
                }
            }
        }
        for k in &r.order {
            let by = match &k.key {
                Column::Property {
                    qualifier: None,
                    name,
                    ..
                } if aliases.iter().any(|a| a.name == name.text) => {
                    let b = self.alias(name, aliases)?;
                    if grouped && !out.group_by.contains(&GroupKey::Node(b.clone())) {
                        return bad(
                            &k.key,
                            "a grouped query sorts by its GROUP BY keys and its aggregates",
                        );
                    }
                    SortBy::Node(b)
                }
                Column::Property {
                    qualifier, name, ..
                } => {
                    let p = self.prop_at(qualifier.as_ref(), name, aliases)?;
                    if grouped && !out.group_by.contains(&GroupKey::Property(p.clone())) {
                        return bad(
                            &k.key,
                            "a grouped query sorts by its GROUP BY keys and its aggregates",
                        );
                    }
                    SortBy::Property(p)
                }
                Column::Score { .. } if aggregating => {
                    return bad(&k.key, "aggregates have no score; sort by an aggregate")
                }
                Column::Score { .. } => SortBy::Score,
                Column::Count { .. } => SortBy::Count,
                Column::Aggregate(a) if grouped => SortBy::Aggregate(self.aggregate(a)?),
                Column::Aggregate(_) => {
                    return bad(&k.key, "only a grouped query sorts by an aggregate")
                }
            };
            if aggregating && !grouped {
                return bad(
                    &k.key,
                    "one row needs no order; add GROUP BY to sort groups",
                );
            }
            out.order.push(crate::plan::SortKey {
                by,
                descending: k.descending.unwrap_or(false),
            });
        }
        let one_row = r.kind == ReturnKind::Count || (aggregating && !grouped);
        let limit = match &r.limit {
            Some(l) if one_row => {
                return err(ErrorKind::CountWithLimit {
                    span: l.span,
                    ret: r.span,
                })
            }
            Some(l) => count(l, "LIMIT", 1, MAX_LIMIT)?,
            None => DEFAULT_LIMIT,
        };
        Ok((r.kind, limit, out))
    }
}

/// Adds the statement's aliases to the suggestions of an unknown label (a qualifier may name
/// either).
fn with_aliases(e: QueryError, aliases: &[Bound]) -> QueryError {
    match e.kind() {
        ErrorKind::UnknownName {
            span,
            kind: NameKind::Label,
            name,
            suggestions,
        } if !aliases.is_empty() => {
            let mut more = suggestions.clone();
            more.extend(nearest(name, aliases.iter().map(|a| a.name.as_str())));
            more.dedup();
            QueryError::new(ErrorKind::UnknownName {
                span: *span,
                kind: NameKind::Label,
                name: name.clone(),
                suggestions: more,
            })
        }
        _ => e,
    }
}

/// The default entries of a plan without `FROM` and `VIA` whose `TARGET` labels are each
/// narrowed by a `WHERE` predicate: the target nodes that pass them (a selection, read through
/// property indexes where they exist). `None` when some target label has no predicate of its
/// own (the default `SEARCH` applies).
fn selection(targets: &[LabelRef], filters: &[Filter]) -> Option<Vec<EntryPlan>> {
    if targets.is_empty() {
        return None;
    }
    targets
        .iter()
        .map(|t| {
            let own: Vec<Filter> = filters
                .iter()
                .filter(|f| f.at.is_none() && f.label.as_ref().is_none_or(|l| l.id == t.id))
                .map(|f| Filter {
                    label: None,
                    ..f.clone()
                })
                .collect();
            (!own.is_empty()).then(|| EntryPlan::Match {
                label: t.clone(),
                predicates: own,
            })
        })
        .collect()
}
