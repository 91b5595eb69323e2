//! The validator agent: fact-consistency of an answer against the store.
//!
//! Three checks, each a share in [0, 1]; the score is their mean:
//! - **entities**: every claimed node exists, with the label and key the answer gives it;
//! - **relations**: every evidence path is a chain from a linked entity to the claimed node, and
//!   each of its steps is an edge of the graph;
//! - **attributes**: claimed property values equal the stored ones; counts, top-k supports and
//!   argmax sets equal a fresh exact computation.
//!
//! It is deliberately independent of how the answer was produced (offline or by an LLM): it
//! re-reads everything from the store.

use crate::answer::{value_text, Answer};
use crate::error::AgentError;
use crate::planner::{Aggregate, QueryPlan, QuestionType};
use crate::reading::{Evaluator, Output, Reading};
use crate::walk::{meet_ends, source_or_view};
use cairn_exec::NodeSource;
use cairn_storage_format::NodeId;
use cairn_store::{Direction, Graph, GraphRead};
use std::collections::{HashMap, HashSet};

/// Default acceptance threshold of the fact-consistency score: every claim must check out. One
/// fabricated edge among ten true ones still makes the answer wrong, and the offline agents
/// produce only claims read from the store, so anything lower only lets errors through.
pub const DEFAULT_THRESHOLD: f64 = 0.99;

/// The validator's verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Validation {
    /// Mean of the three shares below.
    pub score: f64,
    pub entities: f64,
    pub relations: f64,
    pub attributes: f64,
    /// What failed, in words.
    pub problems: Vec<String>,
}

impl Validation {
    pub fn passed(&self, threshold: f64) -> bool {
        self.score >= threshold
    }
}

/// The validator.
pub struct Validator<'g> {
    graph: &'g Graph,
    /// Where the recount walks (see [`Answerer::with_source`]).
    source: Option<&'g dyn NodeSource>,
}

impl std::fmt::Debug for Validator<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Validator")
            .field("source", &self.source.is_some())
            .finish()
    }
}

impl<'g> Validator<'g> {
    pub fn new(graph: &'g Graph) -> Self {
        Validator {
            graph,
            source: None,
        }
    }

    /// Recounts on `source` instead of a store view.
    pub fn with_source(mut self, source: &'g dyn NodeSource) -> Self {
        self.source = Some(source);
        self
    }

    /// Checks `answer` to `plan` against the store.
    pub fn check(&self, plan: &QueryPlan, answer: &Answer) -> Result<Validation, AgentError> {
        let catalog = self.graph.catalog();
        let entries: HashSet<NodeId> = plan
            .entity
            .as_ref()
            .map(|e| e.nodes.iter().copied().collect())
            .unwrap_or_default();
        let mut problems = Vec::new();

        // Entities.
        let ids: Vec<NodeId> = answer.items.iter().filter_map(|i| i.node).collect();
        let records: HashMap<NodeId, _> =
            ids.iter().copied().zip(self.graph.nodes(&ids)?).collect();
        let mut entity_ok = 0usize;
        for item in &answer.items {
            let ok = match item.node.and_then(|n| records.get(&n).cloned().flatten()) {
                Some(rec) => {
                    rec.key == item.key
                        && catalog.label_name(rec.label) == Some(item.label.as_str())
                }
                None => false,
            };
            if ok {
                entity_ok += 1;
            } else {
                problems.push(format!(
                    "\"{}\" is not a node of the graph with that label and key",
                    item.name
                ));
            }
        }
        let entities = share(entity_ok, answer.items.len());

        // Relations: chains of real edges from an entry to the item.
        let (mut steps_ok, mut steps) = (0usize, 0usize);
        let needs_path = !matches!(answer.qtype, QuestionType::Attribute) && !plan.path.is_empty();
        for item in &answer.items {
            if item.evidence.is_empty() {
                if needs_path {
                    steps += 1;
                    problems.push(format!("\"{}\" has no evidence path", item.name));
                }
                continue;
            }
            let chained = item
                .evidence
                .first()
                .is_some_and(|s| entries.is_empty() || entries.contains(&s.from))
                && item.evidence.windows(2).all(|w| w[0].to == w[1].from)
                && item.evidence.last().map(|s| Some(s.to)) == Some(item.node);
            if !chained {
                problems.push(format!(
                    "the evidence of \"{}\" is not a path from the question's entity to it",
                    item.name
                ));
            }
            for s in &item.evidence {
                steps += 1;
                let edge = match catalog.relation_id(&s.relation) {
                    Some(rel) => {
                        let dir = if s.reversed {
                            Direction::In
                        } else {
                            Direction::Out
                        };
                        self.graph
                            .neighbors(s.from, dir, &[rel])?
                            .iter()
                            .any(|n| n.node == s.to)
                    }
                    None => false,
                };
                if edge && chained {
                    steps_ok += 1;
                } else if !edge {
                    problems.push(format!(
                        "no {} edge between #{} and #{} (claimed for \"{}\")",
                        s.relation, s.from.0, s.to.0, item.name
                    ));
                }
            }
        }
        let relations = share(steps_ok, steps);

        // Attributes, counts and rankings, recomputed.
        let attributes = match (&plan.conjunct, &plan.reading) {
            (Some(_), _) if answer.qtype == QuestionType::Aggregation => {
                self.intersection(plan, answer, &mut problems)?
            }
            (None, Some(reading)) => self.reading(reading, answer, &mut problems)?,
            // Items of a conjunction or a semantic exploration must have the planned label.
            _ => {
                let ok = answer
                    .items
                    .iter()
                    .filter(|i| plan.target.as_deref().is_none_or(|t| t == i.label))
                    .count();
                if ok < answer.items.len() {
                    problems.push(format!(
                        "{} item(s) are not {}",
                        answer.items.len() - ok,
                        plan.target.as_deref().unwrap_or("?")
                    ));
                }
                share(ok, answer.items.len())
            }
        };
        let score = (entities + relations + attributes) / 3.0;
        Ok(Validation {
            score,
            entities,
            relations,
            attributes,
            problems,
        })
    }

    /// An aggregate over the intersection a `MEET` plan computed, against a recount of both
    /// sides.
    fn intersection(
        &self,
        plan: &QueryPlan,
        answer: &Answer,
        problems: &mut Vec<String>,
    ) -> Result<f64, AgentError> {
        let catalog = self.graph.catalog();
        let entries: Vec<NodeId> = plan
            .entity
            .as_ref()
            .map(|e| e.nodes.clone())
            .unwrap_or_default();
        let Some((other, other_path)) = &plan.conjunct else {
            return Ok(1.0);
        };
        let mut view = None;
        let source = source_or_view(self.source, self.graph, &mut view);
        let target = plan.target.as_deref().and_then(|t| catalog.label_id(t));
        let (ends, _) = meet_ends(
            source,
            &catalog,
            (&entries, &plan.path),
            (&other.nodes, other_path),
            target,
        )?;
        Ok(intersection_check(plan, answer, &ends, problems))
    }

    /// The answer against the reading evaluated afresh: the same count, value or yes/no; each
    /// item a member of the recomputed set, with the value it was ranked by; claimed property
    /// values equal to the stored ones; and nothing left out of a ranking that ranks above
    /// what was returned.
    fn reading(
        &self,
        reading: &Reading,
        answer: &Answer,
        problems: &mut Vec<String>,
    ) -> Result<f64, AgentError> {
        let catalog = self.graph.catalog();
        let mut view = None;
        let source = source_or_view(self.source, self.graph, &mut view);
        let evaluator = Evaluator::new(self.graph, source, &catalog);
        let truth = evaluator.chain(&reading.chain)?;
        let members: HashMap<NodeId, Option<f64>> =
            truth.members.iter().map(|m| (m.node, m.support)).collect();
        let same = |claimed: Option<&String>,
                    real: Option<String>,
                    what: &str,
                    problems: &mut Vec<String>| {
            if claimed == real.as_ref() {
                1.0
            } else {
                problems.push(format!(
                    "{what} is {}, not {}",
                    real.unwrap_or_else(|| "none".into()),
                    claimed.map(String::as_str).unwrap_or("missing")
                ));
                0.0
            }
        };
        Ok(match &reading.output {
            Output::Count => {
                count_check(answer, truth.members.len() as u64, "the count is", problems)
            }
            Output::Aggregate(func, prop) => {
                let real = evaluator
                    .aggregate(&truth.members, *func, prop)?
                    .as_ref()
                    .map(value_text);
                same(
                    answer.value.as_ref(),
                    real,
                    &format!("the {} of {prop}", func.name()),
                    problems,
                )
            }
            Output::Exists => {
                let real = if truth.members.is_empty() {
                    "no"
                } else {
                    "yes"
                };
                same(
                    answer.value.as_ref(),
                    Some(real.to_owned()),
                    "the answer",
                    problems,
                )
            }
            Output::Property(prop) => {
                let ids: Vec<NodeId> = answer.items.iter().filter_map(|i| i.node).collect();
                let stored: HashMap<NodeId, Option<String>> = ids
                    .iter()
                    .copied()
                    .zip(evaluator.properties(&ids, prop)?)
                    .map(|(n, v)| (n, v.as_ref().map(value_text)))
                    .collect();
                let mut ok = 0;
                for item in &answer.items {
                    let real = item.node.and_then(|n| stored.get(&n).cloned().flatten());
                    let member = item.node.is_some_and(|n| members.contains_key(&n));
                    if member && real.is_some() && real == item.value {
                        ok += 1;
                    } else if !member {
                        problems.push(format!(
                            "\"{}\" is not what the question is about",
                            item.name
                        ));
                    } else {
                        problems.push(format!(
                            "{prop} of \"{}\" is {}, not {}",
                            item.name,
                            real.unwrap_or_else(|| "unset".into()),
                            item.value.as_deref().unwrap_or("unset")
                        ));
                    }
                }
                share(ok, answer.items.len())
            }
            Output::Nodes => {
                let mut ok = 0;
                for item in &answer.items {
                    match item.node.and_then(|n| members.get(&n)) {
                        Some(real) if same_support(*real, item.support) => ok += 1,
                        Some(real) => problems.push(format!(
                            "\"{}\" ranks by {}, not {}",
                            item.name,
                            real.map(|s| s.to_string()).unwrap_or_default(),
                            item.support.map(|s| s.to_string()).unwrap_or_default()
                        )),
                        None => problems.push(format!(
                            "\"{}\" is not reached by the question's reading",
                            item.name
                        )),
                    }
                }
                let mut score = share(ok, answer.items.len());
                // Nothing left out of a ranking may rank above what was returned.
                let ranked = truth.members.iter().any(|m| m.support.is_some());
                let claimed: HashSet<NodeId> = answer.items.iter().filter_map(|i| i.node).collect();
                let left_out = truth
                    .members
                    .iter()
                    .filter(|m| !claimed.contains(&m.node))
                    .count();
                if ranked
                    && (left_out > 0 || (answer.items.is_empty() && !truth.members.is_empty()))
                {
                    problems.push(format!(
                        "{} node(s) rank above the answer's but were left out",
                        left_out.max(1)
                    ));
                    score = score.min(0.5) * 0.5;
                }
                score
            }
        })
    }
}

/// Two rank values agree (both absent, or equal).
fn same_support(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => (x - y).abs() < 1e-9,
        (None, None) => true,
        _ => false,
    }
}

/// An aggregate over an intersection against the recounted intersection `ends` (sorted): the
/// count must be its size, every top item one of its nodes.
fn intersection_check(
    plan: &QueryPlan,
    answer: &Answer,
    ends: &[NodeId],
    problems: &mut Vec<String>,
) -> f64 {
    match plan.aggregate {
        None | Some(Aggregate::Count) => count_check(
            answer,
            ends.len() as u64,
            "the intersection's count is",
            problems,
        ),
        Some(Aggregate::Top { .. }) => {
            let mut ok = 0;
            for item in &answer.items {
                if item.node.is_some_and(|n| ends.binary_search(&n).is_ok()) {
                    ok += 1;
                } else {
                    problems.push(format!("\"{}\" is not in the intersection", item.name));
                }
            }
            share(ok, answer.items.len())
        }
    }
}

/// 1 when the answer's count is `truth`, else 0 with the problem ("{what} {truth}, not …").
fn count_check(answer: &Answer, truth: u64, what: &str, problems: &mut Vec<String>) -> f64 {
    if answer.count == Some(truth) {
        return 1.0;
    }
    let claimed = answer
        .count
        .map(|c| c.to_string())
        .unwrap_or_else(|| "missing".into());
    problems.push(format!("{what} {truth}, not {claimed}"));
    0.0
}

fn share(ok: usize, of: usize) -> f64 {
    if of == 0 {
        1.0
    } else {
        ok as f64 / of as f64
    }
}
