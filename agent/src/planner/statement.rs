//! A reading written as one EXPLORE statement, in the language's own constructs: a rank is
//! `ORDER BY … LIMIT k WITH TIES`, a count or aggregate `RETURN COUNT` / `SUM(p)`, a comparison
//! `WHERE p > v` (with another node's value, a `MAX`/`MIN` subquery), an intersection `MEET`,
//! an exclusion `EXCEPT`; a step after a rank starts from the ranked statement as a subquery
//! (`FROM (EXPLORE … ORDER BY area ASC LIMIT 1 WITH TIES) VIA <STATE_NAME …`). "The largest
//! city in the smallest state" becomes
//!
//! ```text
//! EXPLORE "…" FROM (EXPLORE "…" FROM State RETURN NODES ORDER BY area ASC LIMIT 1 WITH TIES)
//!   VIA <STATE_NAME TARGET City RETURN NODES ORDER BY population DESC LIMIT 1 WITH TIES
//! ```
//!
//! Every statement is an exact match (an order, a count, an aggregate), so the executor walks
//! it exhaustively, as the reading's evaluator does. A reading the language cannot say (a rank
//! by how many nodes a path of several hops reaches, a fewest-first rank by such a count, an
//! equality with another chain's values) gives `None`, and the evaluator alone answers it.

use super::compile::{ident, str_lit};
use crate::reading::{Chain, Cmp, Op, Operand, Output, RankKey, Reading, Source};
use crate::walk::Step;
use cairn_storage_format::Value;

/// How many rows a subquery passes on: the language's largest `LIMIT`.
const SUB_LIMIT: u32 = cairn_query::limits::MAX_LIMIT;

/// The reading as one EXPLORE statement, or `None` where the language cannot say it.
pub(crate) fn of_reading(reading: &Reading, goal: &str) -> Option<String> {
    let mut level = Level::of_chain(&reading.chain, goal)?;
    let ret = match &reading.output {
        Output::Nodes => return Some(level.nodes(goal, None)),
        Output::Property(p) => return Some(level.nodes(goal, Some(p))),
        Output::Count | Output::Exists => "RETURN COUNT".to_owned(),
        Output::Aggregate(f, p) => format!("RETURN {}({})", f.name(), ident(p)),
    };
    // A count of a ranked set counts the ranked statement's rows.
    if level.order.is_some() {
        level = level.wrapped(goal);
    }
    Some(format!("{}\n  {ret}", level.head(goal)))
}

/// One statement being written: the clauses before `RETURN`, and its order.
#[derive(Default)]
struct Level {
    from: String,
    /// The ordered path from the entries, and the label its ends must have.
    via: Option<(Vec<Step>, Option<String>)>,
    meet: Vec<String>,
    except: Vec<String>,
    wheres: Vec<String>,
    /// `ORDER BY … LIMIT …`: the last rank.
    order: Option<String>,
    /// The entries are every node of this label, and nothing narrows them yet.
    bare_label: Option<String>,
    /// A `MEET` / `EXCEPT` side is one step: a set of steps, walked up to the statement's
    /// `DEPTH`, which must then be 1.
    one_step_side: bool,
}

impl Level {
    fn of_chain(chain: &Chain, goal: &str) -> Option<Level> {
        let mut level = match &chain.source {
            Source::Nodes { label, keys, .. } if !keys.is_empty() => Level {
                from: entries(label, keys),
                ..Level::default()
            },
            Source::Nodes { .. } => return None,
            Source::Label(label) => Level {
                from: ident(label),
                bare_label: Some(label.clone()),
                ..Level::default()
            },
        };
        for op in &chain.ops {
            level = level.apply(op, goal)?;
        }
        Some(level)
    }

    /// Whether anything follows the entries yet.
    fn narrowed(&self) -> bool {
        self.via.is_some()
            || !self.meet.is_empty()
            || !self.except.is_empty()
            || !self.wheres.is_empty()
            || self.order.is_some()
    }

    fn apply(mut self, op: &Op, goal: &str) -> Option<Level> {
        match op {
            Op::Hop { path, .. } if path.is_empty() => {}
            Op::Hop { path, target } => {
                if self.narrowed() {
                    self = self.wrapped(goal);
                }
                self.bare_label = None;
                self.via = Some((path.clone(), target.clone()));
            }
            Op::Rank {
                key, descending, k, ..
            } => {
                if self.order.is_some() {
                    self = self.wrapped(goal);
                }
                let by = match key {
                    RankKey::Property(p) => ident(p),
                    // How many paths of the hop reach each node: the hop's own COUNT.
                    RankKey::Paths if self.via.is_some() => "COUNT".to_owned(),
                    RankKey::Paths => return None,
                    // How many nodes one hop reaches from each of a label's nodes: that hop
                    // walked backwards from the nodes it reaches, counting the paths.
                    RankKey::Reach(path, Some(reached)) if *descending && path.len() == 1 => {
                        let label = self.bare_label.take()?;
                        let back = Step {
                            relation: path[0].relation.clone(),
                            reversed: !path[0].reversed,
                        };
                        self.from = ident(reached);
                        self.via = Some((vec![back], Some(label)));
                        "COUNT".to_owned()
                    }
                    RankKey::Reach(..) => return None,
                };
                let dir = if *descending { "DESC" } else { "ASC" };
                let limit = if *k <= 1 {
                    "LIMIT 1 WITH TIES".to_owned()
                } else {
                    format!("LIMIT {k}")
                };
                self.order = Some(format!("ORDER BY {by} {dir} {limit}"));
            }
            Op::Compare {
                property,
                cmp,
                value,
            } => {
                if self.order.is_some() {
                    self = self.wrapped(goal);
                }
                let rhs = match value {
                    Operand::Value(v) => literal(v)?,
                    Operand::Of(chain, p) => {
                        let func = match cmp {
                            Cmp::Gt | Cmp::Ge => "MAX",
                            Cmp::Lt | Cmp::Le => "MIN",
                            Cmp::Eq | Cmp::Ne => return None,
                        };
                        let mut other = Level::of_chain(chain, goal)?;
                        if other.order.is_some() {
                            other = other.wrapped(goal);
                        }
                        format!("({}\n  RETURN {func}({}))", other.head(goal), ident(p))
                    }
                };
                let op = match cmp {
                    Cmp::Ne => "!=",
                    c => c.symbol(),
                };
                self.bare_label = None;
                self.wheres.push(format!("{} {op} {rhs}", ident(property)));
            }
            // An intersection with named nodes (a yes/no question's object): those nodes as
            // the entries, met by this level's path ("FROM Y MEET FROM X VIA signedTo").
            Op::Keep(chain) if chain.ops.is_empty() => {
                let Source::Nodes { label, keys, .. } = &chain.source else {
                    return None;
                };
                let (path, _) = self.via.clone()?;
                let simple = self.meet.is_empty()
                    && self.except.is_empty()
                    && self.wheres.is_empty()
                    && self.order.is_none()
                    && !keys.is_empty();
                if !simple {
                    return None;
                }
                let side = format!("FROM {} VIA {}", self.from, steps(&path));
                self = Level {
                    from: entries(label, keys),
                    meet: vec![side],
                    one_step_side: path.len() == 1,
                    ..Level::default()
                };
            }
            Op::Keep(chain) | Op::Drop(chain) => {
                if self.order.is_some() {
                    self = self.wrapped(goal);
                }
                let (side, one_step) = side(chain, goal)?;
                // A one-step side needs `DEPTH 1`, which a longer path of this level refuses.
                if one_step && self.via.as_ref().is_some_and(|(p, _)| p.len() > 1) {
                    self = self.wrapped(goal);
                }
                self.one_step_side |= one_step;
                self.bare_label = None;
                if matches!(op, Op::Keep(_)) {
                    self.meet.push(side);
                } else {
                    self.except.push(side);
                }
            }
        }
        Some(self)
    }

    /// This statement as the entries of a new one (`FROM (EXPLORE …)`).
    fn wrapped(self, goal: &str) -> Level {
        Level {
            from: format!("({})", self.nodes(goal, None)),
            ..Level::default()
        }
    }

    /// `EXPLORE "goal" FROM … VIA … MEET … EXCEPT … TARGET … WHERE …`.
    fn head(&self, goal: &str) -> String {
        let mut out = format!("EXPLORE {}\n  FROM {}", str_lit(goal), self.from);
        if let Some((path, _)) = &self.via {
            out.push_str(&format!("\n  VIA {}", steps(path)));
        }
        for m in &self.meet {
            out.push_str(&format!("\n  MEET {m}"));
        }
        for e in &self.except {
            out.push_str(&format!("\n  EXCEPT {e}"));
        }
        if let Some((_, Some(target))) = &self.via {
            out.push_str(&format!("\n  TARGET {}", ident(target)));
        }
        if !self.wheres.is_empty() {
            out.push_str(&format!("\n  WHERE {}", self.wheres.join(" AND ")));
        }
        if self.one_step_side {
            out.push_str("\n  DEPTH 1");
        }
        out
    }

    /// The statement returning its nodes (with a property column), exactly: in the rank's
    /// order, else by how many paths reach each (what makes it an exact match).
    fn nodes(&self, goal: &str, column: Option<&str>) -> String {
        let column = column.map(|c| format!(" {}", ident(c))).unwrap_or_default();
        let order = self
            .order
            .clone()
            .unwrap_or_else(|| format!("ORDER BY COUNT DESC LIMIT {SUB_LIMIT}"));
        format!("{}\n  RETURN NODES{column} {order}", self.head(goal))
    }
}

/// A chain as a `MEET` / `EXCEPT` side: `FROM entries VIA path`, its last hop being the path
/// and what comes before it the entries (a subquery when there is more than a start); and
/// whether the path is one step.
fn side(chain: &Chain, goal: &str) -> Option<(String, bool)> {
    let (last, before) = chain.ops.split_last()?;
    let Op::Hop { path, .. } = last else {
        return None;
    };
    if path.is_empty() {
        return None;
    }
    let start = Chain {
        source: chain.source.clone(),
        ops: before.to_vec(),
    };
    let level = Level::of_chain(&start, goal)?;
    let from = if level.narrowed() {
        format!("({})", level.nodes(goal, None))
    } else {
        level.from
    };
    Some((format!("FROM {from} VIA {}", steps(path)), path.len() == 1))
}

/// Nodes by key as `FROM` writes them.
fn entries(label: &str, keys: &[String]) -> String {
    keys.iter()
        .map(|k| format!("{} {}", ident(label), str_lit(k)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// An ordered path as `VIA` writes it.
fn steps(path: &[Step]) -> String {
    path.iter()
        .map(|s| {
            format!(
                "{}{}",
                if s.reversed { "<" } else { "" },
                ident(&s.relation)
            )
        })
        .collect::<Vec<_>>()
        .join(" -> ")
}

/// A value as an EXPLORE literal (`None` for what the language cannot write: NaN, infinity).
fn literal(v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) if f.is_finite() => format!("{f:?}"),
        Value::Float(_) => return None,
        Value::Str(s) => str_lit(s),
        Value::List(items) => format!(
            "[{}]",
            items
                .iter()
                .map(literal)
                .collect::<Option<Vec<_>>>()?
                .join(", ")
        ),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::reading::AggFunc;

    fn step(r: &str, reversed: bool) -> Step {
        Step {
            relation: r.into(),
            reversed,
        }
    }

    fn state(key: &str) -> Source {
        Source::Nodes {
            label: "State".into(),
            nodes: Vec::new(),
            keys: vec![key.into()],
        }
    }

    /// The text parses as a statement (names are checked against a real catalog by the
    /// planner's own `prepare`, and end to end by the GeoQuery test).
    fn prepared(text: &str) {
        if let Err(e) = cairn_query::parse(text) {
            panic!("{text}\n{}", e.render_plain(100));
        }
    }

    #[test]
    fn nested_superlatives_start_from_the_ranked_statement() {
        let reading = Reading {
            chain: Chain {
                source: Source::Label("State".into()),
                ops: vec![
                    Op::Rank {
                        key: RankKey::Property("area".into()),
                        descending: false,
                        k: 1,
                        word: None,
                    },
                    Op::Hop {
                        path: vec![step("STATE_NAME", true)],
                        target: Some("City".into()),
                    },
                    Op::Rank {
                        key: RankKey::Property("population".into()),
                        descending: true,
                        k: 1,
                        word: None,
                    },
                ],
            },
            output: Output::Nodes,
        };
        let text = of_reading(&reading, "q").unwrap();
        assert_eq!(
            text,
            "EXPLORE \"q\"\n  FROM (EXPLORE \"q\"\n  FROM State\n  RETURN NODES ORDER BY area ASC LIMIT 1 WITH TIES)\n  VIA <STATE_NAME\n  TARGET City\n  RETURN NODES ORDER BY population DESC LIMIT 1 WITH TIES"
        );
        prepared(&text);
    }

    #[test]
    fn counts_comparisons_and_exclusions_use_the_languages_clauses() {
        let alabama = Chain::from(state("alabama"));
        let reading = Reading {
            chain: Chain {
                source: Source::Label("State".into()),
                ops: vec![
                    Op::Compare {
                        property: "highest_elevation".into(),
                        cmp: Cmp::Lt,
                        value: Operand::Of(Box::new(alabama), "highest_elevation".into()),
                    },
                    Op::Drop(Box::new(Chain {
                        source: state("texas"),
                        ops: vec![Op::Hop {
                            path: vec![step("BORDER", false)],
                            target: None,
                        }],
                    })),
                ],
            },
            output: Output::Count,
        };
        let text = of_reading(&reading, "q").unwrap();
        assert!(text.contains("WHERE highest_elevation < (EXPLORE \"q\"\n  FROM State \"alabama\"\n  RETURN MIN(highest_elevation))"), "{text}");
        assert!(
            text.contains("EXCEPT FROM State \"texas\" VIA BORDER"),
            "{text}"
        );
        // The one-step side is walked one hop, not the default depth of a selection.
        assert!(text.contains("\n  DEPTH 1\n"), "{text}");
        assert!(text.ends_with("RETURN COUNT"), "{text}");
        prepared(&text);

        let sum = Reading {
            chain: Chain::from(Source::Label("State".into())),
            output: Output::Aggregate(AggFunc::Sum, "population".into()),
        };
        assert_eq!(
            of_reading(&sum, "q").unwrap(),
            "EXPLORE \"q\"\n  FROM State\n  RETURN SUM(population)"
        );
    }

    #[test]
    fn a_rank_by_how_many_nodes_one_hop_reaches_walks_it_backwards() {
        let most = |descending| Reading {
            chain: Chain {
                source: Source::Label("State".into()),
                ops: vec![Op::Rank {
                    key: RankKey::Reach(vec![step("BORDER", false)], Some("State".into())),
                    descending,
                    k: 1,
                    word: None,
                }],
            },
            output: Output::Nodes,
        };
        assert_eq!(
            of_reading(&most(true), "q").unwrap(),
            "EXPLORE \"q\"\n  FROM State\n  VIA <BORDER\n  TARGET State\n  RETURN NODES ORDER BY COUNT DESC LIMIT 1 WITH TIES"
        );
        // Fewest first would miss the nodes that reach none: the language cannot say it.
        assert_eq!(of_reading(&most(false), "q"), None);
    }
}
