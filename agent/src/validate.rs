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

use crate::answer::{value_text, Answer, Answerer};
use crate::error::AgentError;
use crate::planner::{Aggregate, QueryPlan, QuestionType};
use crate::walk::{meet_ends, of_target, rank, source_or_view, walk, WALK_MAX_EDGES};
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
        let attributes = match answer.qtype {
            QuestionType::Attribute => {
                let prop = plan.attribute.as_deref().and_then(|p| catalog.prop_id(p));
                let mut ok = 0usize;
                for item in &answer.items {
                    let stored = item
                        .node
                        .and_then(|n| records.get(&n).cloned().flatten())
                        .and_then(|r| prop.and_then(|p| r.prop(p).map(value_text)));
                    if stored.is_some() && stored == item.value {
                        ok += 1;
                    } else {
                        problems.push(format!(
                            "{} of \"{}\" is {}, not {}",
                            plan.attribute.as_deref().unwrap_or("the property"),
                            item.name,
                            stored.unwrap_or_else(|| "unset".into()),
                            item.value.as_deref().unwrap_or("unset")
                        ));
                    }
                }
                share(ok, answer.items.len())
            }
            QuestionType::Aggregation => self.aggregate(plan, answer, &mut problems)?,
            QuestionType::Relation | QuestionType::MultiHop => {
                // Items must have the planned target label.
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

    fn aggregate(
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
        let mut view = None;
        let source = source_or_view(self.source, self.graph, &mut view);
        if let Some((other, other_path)) = &plan.conjunct {
            let target = plan.target.as_deref().and_then(|t| catalog.label_id(t));
            let (ends, _) = meet_ends(
                source,
                &catalog,
                (&entries, &plan.path),
                (&other.nodes, other_path),
                target,
            )?;
            return Ok(intersection_check(plan, answer, &ends, problems));
        }
        let (reached, _) = walk(source, &catalog, &entries, &plan.path, WALK_MAX_EDGES)?;
        let reached = of_target(source, reached, plan.target.as_deref(), &catalog)?;
        match plan.aggregate.clone().unwrap_or(Aggregate::Count) {
            Aggregate::Count => Ok(count_check(
                answer,
                reached.len() as u64,
                "the count is",
                problems,
            )),
            Aggregate::Top { k, by } => {
                let support =
                    Answerer::new(self.graph).support(&reached, by.as_deref(), &catalog)?;
                let truth: HashMap<NodeId, f64> = reached
                    .iter()
                    .zip(&support)
                    .map(|(r, s)| (r.node, *s))
                    .collect();
                let mut ok = 0usize;
                for item in &answer.items {
                    let real = item.node.and_then(|n| truth.get(&n).copied());
                    match (real, item.support) {
                        (Some(r), Some(s)) if (r - s).abs() < 1e-9 => ok += 1,
                        (Some(r), _) => problems.push(format!(
                            "\"{}\" scores {r}, not {}",
                            item.name,
                            item.support.map(|s| s.to_string()).unwrap_or_default()
                        )),
                        (None, _) => problems.push(format!(
                            "\"{}\" is not reached by the question's relation path",
                            item.name
                        )),
                    }
                }
                let mut score = share(ok, answer.items.len());
                // Nothing left out may beat what was returned.
                let best: HashSet<NodeId> = rank(&reached, &support, k)
                    .into_iter()
                    .map(|i| reached[i].node)
                    .collect();
                let claimed_min = answer
                    .items
                    .iter()
                    .filter_map(|i| i.node.and_then(|n| truth.get(&n)))
                    .fold(f64::INFINITY, |a, b| a.min(*b));
                let beaten = best
                    .iter()
                    .filter(|n| {
                        truth.get(n).is_some_and(|s| *s > claimed_min)
                            && !answer.items.iter().any(|i| i.node == Some(**n))
                    })
                    .count();
                if beaten > 0 || (answer.items.is_empty() && !best.is_empty()) {
                    problems.push(format!(
                        "{} node(s) rank above the answer's but were left out",
                        beaten.max(1)
                    ));
                    score = score.min(0.5) * 0.5;
                }
                Ok(score)
            }
        }
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
