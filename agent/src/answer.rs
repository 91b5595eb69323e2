//! The answerer agent: turns the evidence into an answer.
//!
//! - attribute → the property value read from the linked node;
//! - relation, multi-hop → the end nodes of the explored paths, best first, each with its path;
//! - aggregation → counts, argmax and top-k computed exactly by walking the planned relation
//!   path on the store (the beam search samples hubs and stops early, which is right for
//!   finding evidence and wrong for counting).
//!
//! Every item carries its evidence path, which the validator checks edge by edge. With an LLM,
//! the model rewrites the answer from the quoted evidence; what it claims is mapped back onto
//! evidence items, and anything it invents has no node and no path — the validator's catch.

use crate::error::AgentError;
use crate::llm::{data_block, json_object, LlmBackend, Message, DATA_RULE};
use crate::planner::{Aggregate, QueryPlan, QuestionType, Step};
use crate::reading::{Chain, Evaluated, Evaluator, Member, Op, Output, RankKey, Reading};
use crate::result::{Exploration, PathStep, ResultNode, StopReason};
use crate::walk::source_or_view;
use cairn_exec::NodeSource;
use cairn_storage_format::{NodeId, Value};
use cairn_store::describe::display_name;
use cairn_store::{Graph, GraphRead};
use std::collections::HashSet;

/// A count answer lists the counted nodes (each with its evidence path) up to this many; past
/// it, only the number (listing half a million papers helps no one and costs a walk that
/// tracks every path).
pub const COUNT_ITEMS: u64 = 100;

/// One claimed answer element.
#[derive(Clone, Debug, PartialEq)]
pub struct AnswerItem {
    /// The node the claim is about (`None`: the claim names nothing in the graph).
    pub node: Option<NodeId>,
    pub label: String,
    pub key: String,
    pub name: String,
    /// For attribute answers: the property value, as text.
    pub value: Option<String>,
    /// For top-k answers: what the item was ranked by (a property value, or the number of
    /// paths that reach it).
    pub support: Option<f64>,
    /// Entry → … → the node (empty for an attribute of the entry itself).
    pub evidence: Vec<PathStep>,
}

/// An answer with its evidence.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    pub qtype: QuestionType,
    /// Best first.
    pub items: Vec<AnswerItem>,
    /// The count of a counting question.
    pub count: Option<u64>,
    /// One computed value: an aggregate ("the total area": a sum) or a yes/no answer.
    pub value: Option<String>,
    /// The answer in words.
    pub text: String,
    /// The evidence may be incomplete (sampled hubs, caps hit).
    pub partial: bool,
    /// The agents are not sure of the answer: the validator could not confirm it, or the
    /// question has another reading with another answer, or words the plan does not use
    /// (see `notes`).
    pub uncertain: bool,
    /// Why the answer is uncertain, in words: the competing readings and their answers, the
    /// question's words no part of the plan uses.
    pub notes: Vec<String>,
    /// Written by the LLM answerer.
    pub by_llm: bool,
}

impl Answer {
    /// The answer as comparable strings, best first: the count, the computed value, the
    /// attribute values, or the node keys.
    pub fn values(&self) -> Vec<String> {
        if let Some(c) = self.count {
            return vec![c.to_string()];
        }
        if let Some(v) = &self.value {
            return vec![v.clone()];
        }
        if self.qtype == QuestionType::Attribute {
            return self.items.iter().filter_map(|i| i.value.clone()).collect();
        }
        self.items.iter().map(|i| i.key.clone()).collect()
    }
}

/// The exploration's results as answer items, with their evidence: not the entries, and of the
/// planned target label when there is one.
fn explored_items(results: &[ResultNode], entries: &[NodeId], plan: &QueryPlan) -> Vec<AnswerItem> {
    let target = plan.target.as_deref();
    // Best score first, ties by key (the executor's order among equals follows node ids, which
    // follow import order).
    let mut results: Vec<&ResultNode> = results.iter().collect();
    results.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.key.cmp(&b.key)));
    results
        .into_iter()
        .filter(|r| !entries.contains(&r.node) && target.is_none_or(|t| t == r.label))
        .map(|r| AnswerItem {
            node: Some(r.node),
            label: r.label.clone(),
            key: r.key.clone(),
            name: r.name.clone(),
            value: None,
            support: None,
            evidence: r.path.clone(),
        })
        .collect()
}

/// Answer items as a sentence: up to 20 names, then how many more.
fn list_text(items: &[AnswerItem]) -> String {
    let names: Vec<&str> = items.iter().take(20).map(|i| i.name.as_str()).collect();
    let more = items.len().saturating_sub(names.len());
    if items.is_empty() {
        "Nothing in the graph answers the question.".into()
    } else if more > 0 {
        format!("{} and {more} more.", names.join("; "))
    } else {
        format!("{}.", names.join("; "))
    }
}

/// A property value as answer text (strings without quotes).
pub fn value_text(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The answerer.
pub struct Answerer<'g> {
    graph: &'g Graph,
    llm: Option<&'g dyn LlmBackend>,
    /// Where exact walks read adjacency (the executor's node source); a store view of
    /// `graph` when not given.
    source: Option<&'g dyn NodeSource>,
}

impl std::fmt::Debug for Answerer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Answerer")
            .field("llm", &self.llm.is_some())
            .field("source", &self.source.is_some())
            .finish()
    }
}

impl<'g> Answerer<'g> {
    pub fn new(graph: &'g Graph) -> Self {
        Answerer {
            graph,
            llm: None,
            source: None,
        }
    }

    /// Walks on `source` (the in-memory table the executor reads) instead of the store.
    pub fn with_source(mut self, source: &'g dyn NodeSource) -> Self {
        self.source = Some(source);
        self
    }

    /// Lets an LLM write the answer from the evidence.
    pub fn with_llm(mut self, llm: &'g dyn LlmBackend) -> Self {
        self.llm = Some(llm);
        self
    }

    pub fn uses_llm(&self) -> bool {
        self.llm.is_some()
    }

    /// The answer computed from the graph (never the LLM).
    pub fn offline(
        &self,
        plan: &QueryPlan,
        exploration: &Exploration,
        partial: bool,
    ) -> Result<Answer, AgentError> {
        let catalog = self.graph.catalog();
        let mut view = None;
        let source = source_or_view(self.source, self.graph, &mut view);
        let entries: Vec<NodeId> = plan
            .entity
            .as_ref()
            .map(|e| e.nodes.clone())
            .unwrap_or_default();
        let mut answer = Answer {
            qtype: plan.qtype,
            items: Vec::new(),
            count: None,
            text: String::new(),
            value: None,
            partial,
            uncertain: false,
            notes: Vec::new(),
            by_llm: false,
        };
        match (&plan.conjunct, &plan.reading) {
            // An aggregate over an intersection: the plan's MEET made the executor count it
            // exactly (`RETURN COUNT`), or list it for ranking.
            (Some(_), _) if plan.qtype == QuestionType::Aggregation => {
                let evaluator = Evaluator::new(self.graph, source, &catalog);
                self.intersection_aggregate(plan, exploration, &entries, &evaluator, &mut answer)?;
            }
            // A conjunction: the plan's MEET clause made the executor intersect exactly.
            (Some(_), _) => {
                answer.partial |= exploration.stop != StopReason::Exhausted;
                answer.items = explored_items(&exploration.results, &entries, plan);
                answer.text = list_text(&answer.items);
            }
            (None, Some(reading)) => {
                let evaluator = Evaluator::new(self.graph, source, &catalog);
                let set = self.read(&evaluator, reading, &mut answer)?;
                // The executor ran the reading's statement: its result must be the same.
                if plan.states_reading() {
                    answer
                        .notes
                        .extend(disagreement(reading, &set, &answer, exploration));
                }
            }
            // Nothing linked: the semantic exploration's results.
            (None, None) => {
                answer.items = explored_items(&exploration.results, &entries, plan);
                answer.text = list_text(&answer.items);
            }
        }
        Ok(answer)
    }

    /// The answer a reading gives, computed exactly ([`Evaluator`]).
    fn read(
        &self,
        evaluator: &Evaluator<'_>,
        reading: &Reading,
        answer: &mut Answer,
    ) -> Result<Evaluated, AgentError> {
        let set = evaluator.chain(&reading.chain)?;
        answer.partial |= set.cut;
        for n in evaluator.nested_ties() {
            answer.notes.push(format!(
                "{n} nodes tied for the first place of a ranking the answer goes on from"
            ));
        }
        let what = reading.chain.label().unwrap_or("nodes").to_owned();
        match &reading.output {
            Output::Nodes => {
                answer.items = self.items(&set.members)?;
                answer.text = if answer.items.iter().any(|i| i.support.is_some()) {
                    let names: Vec<String> = answer
                        .items
                        .iter()
                        .map(|i| format!("{} ({})", i.name, fmt_support(i.support)))
                        .collect();
                    format!("{}{}.", names.join(", "), rank_note(&reading.chain))
                } else {
                    list_text(&answer.items)
                };
            }
            Output::Count => {
                let n = set.members.len() as u64;
                answer.count = Some(n);
                // The counted nodes are listed, with their evidence, when there are few.
                if n <= COUNT_ITEMS {
                    answer.items = self.items(&set.members)?;
                }
                let steps = reading.chain.steps();
                answer.text = if steps.is_empty() {
                    format!("{n} ({what}).")
                } else {
                    format!("{n} ({what} through {}).", path_words(&steps))
                };
            }
            Output::Aggregate(func, prop) => {
                let value = evaluator.aggregate(&set.members, *func, prop)?;
                answer.value = value.as_ref().map(value_text);
                if set.members.len() as u64 <= COUNT_ITEMS {
                    answer.items = self.items(&set.members)?;
                }
                answer.text = match &answer.value {
                    Some(v) => format!(
                        "{v} ({} of {prop} over {} {what}).",
                        func.name(),
                        set.members.len()
                    ),
                    None => format!("No {what} has a numeric {prop}."),
                };
            }
            Output::Property(prop) => {
                let ids: Vec<NodeId> = set.members.iter().map(|m| m.node).collect();
                let values = evaluator.properties(&ids, prop)?;
                answer.items = self.items(&set.members)?;
                for (item, v) in answer.items.iter_mut().zip(values) {
                    item.value = v.as_ref().map(value_text);
                }
                let values: Vec<String> = answer
                    .items
                    .iter()
                    .map(|i| i.value.clone().unwrap_or_else(|| "unknown".into()))
                    .collect();
                answer.text = match answer.items.as_slice() {
                    [] => "No node matches the question.".into(),
                    [one] => format!("The {prop} of {} is {}.", one.name, values.join(", ")),
                    _ => format!("The {prop} of each: {}.", values.join(", ")),
                };
            }
            Output::Exists => {
                let yes = !set.members.is_empty();
                answer.value = Some(if yes { "yes" } else { "no" }.to_owned());
                answer.items = self.items(&set.members)?;
                answer.text = if yes {
                    format!("Yes: {}", list_text(&answer.items))
                } else {
                    "No: nothing in the graph is so.".into()
                };
            }
        }
        Ok(set)
    }

    /// The answer: offline, or rewritten by the LLM from the offline evidence. `attempt`
    /// counts regenerations (the model is told its previous answer failed validation).
    pub fn answer(
        &self,
        plan: &QueryPlan,
        exploration: &Exploration,
        partial: bool,
        attempt: u32,
    ) -> Result<Answer, AgentError> {
        let offline = self.offline(plan, exploration, partial)?;
        match self.llm {
            Some(llm) => self.llm_answer(llm, plan, offline, attempt),
            None => Ok(offline),
        }
    }

    fn llm_answer(
        &self,
        llm: &dyn LlmBackend,
        plan: &QueryPlan,
        evidence: Answer,
        attempt: u32,
    ) -> Result<Answer, AgentError> {
        let system = format!(
            "You answer questions about a graph using only the evidence given. Reply with one JSON object \
             {{\"answer\": [<strings: node names, values or a count>], \"text\": <one sentence>}}. \
             Use only names and values that appear in the evidence. {DATA_RULE}"
        );
        let mut user = format!(
            "Question: {}\nEvidence ({} items):",
            data_block("question", &plan.question),
            evidence.items.len()
        );
        if let Some(c) = evidence.count {
            user.push_str(&format!("\n- count: {c}"));
        }
        for item in evidence.items.iter().take(200) {
            let mut line = format!("\n- {} {}", item.label, data_block("name", &item.name));
            if let Some(v) = &item.value {
                line.push_str(&format!(" value {}", data_block("value", v)));
            }
            if let Some(s) = item.support {
                line.push_str(&format!(" score {}", fmt_support(Some(s))));
            }
            user.push_str(&line);
        }
        if attempt > 0 {
            user.push_str("\nYour previous answer named things that are not in the evidence. Answer again from the evidence only.");
        }
        let reply = llm.complete(&[Message::system(system), Message::user(user)])?;
        let v = json_object(&reply)?;
        let claims: Vec<String> = match v.get("answer") {
            Some(serde_json::Value::Array(items)) => items
                .iter()
                .map(|x| {
                    x.as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| x.to_string())
                })
                .collect(),
            Some(serde_json::Value::String(s)) => vec![s.clone()],
            Some(other) => vec![other.to_string()],
            None => {
                return Err(AgentError::Llm(crate::llm::LlmError::Format(
                    "no \"answer\" field".into(),
                )))
            }
        };
        let text = v
            .get("text")
            .and_then(|t| t.as_str())
            .unwrap_or_default()
            .to_owned();
        let mut answer = Answer {
            items: Vec::new(),
            text,
            by_llm: true,
            ..evidence.clone()
        };
        if evidence.count.is_some() {
            answer.count = claims.first().and_then(|c| c.trim().parse::<u64>().ok());
            answer.items = evidence.items;
            return Ok(answer);
        }
        for claim in claims {
            let c = claim.trim().to_lowercase();
            let found = evidence.items.iter().find(|i| {
                i.name.to_lowercase() == c
                    || i.key.to_lowercase() == c
                    || i.value.as_deref().is_some_and(|v| v.to_lowercase() == c)
            });
            answer.items.push(match found {
                Some(i) if evidence.qtype == QuestionType::Attribute => AnswerItem {
                    value: Some(claim.clone()),
                    ..i.clone()
                },
                Some(i) => i.clone(),
                // A claim outside the evidence: kept, so the validator sees and rejects it.
                None => AnswerItem {
                    node: None,
                    label: String::new(),
                    key: claim.clone(),
                    name: claim.clone(),
                    value: (evidence.qtype == QuestionType::Attribute).then(|| claim.clone()),
                    support: None,
                    evidence: Vec::new(),
                },
            });
        }
        Ok(answer)
    }

    /// A count or a top-k over the intersection the plan's `MEET` computed: the executor's
    /// exact count, or its ranked results (by support — the product over the sides of the
    /// paths reaching a node — or by the asked property).
    fn intersection_aggregate(
        &self,
        plan: &QueryPlan,
        exploration: &Exploration,
        entries: &[NodeId],
        evaluator: &Evaluator<'_>,
        answer: &mut Answer,
    ) -> Result<(), AgentError> {
        match plan.aggregate.clone().unwrap_or(Aggregate::Count) {
            Aggregate::Count => {
                let n = exploration
                    .count
                    .unwrap_or(exploration.results.len() as u64);
                answer.partial |= exploration.count.is_none();
                answer.count = Some(n);
                answer.text = format!(
                    "{n} ({} reached from both).",
                    plan.target.as_deref().unwrap_or("nodes")
                );
            }
            Aggregate::Top { k, by } => {
                answer.partial |= exploration.stop != StopReason::Exhausted;
                let results: Vec<&ResultNode> = exploration
                    .results
                    .iter()
                    .filter(|r| !entries.contains(&r.node))
                    .collect();
                let members: Vec<Member> = results
                    .iter()
                    .map(|r| Member {
                        node: r.node,
                        evidence: r.path.clone(),
                        paths: 1,
                        support: None,
                    })
                    .collect();
                let values = match by {
                    Some(p) => evaluator.rank_values(&members, &RankKey::Property(p))?,
                    None => results.iter().map(|r| Some(r.score)).collect(),
                };
                let top = evaluator.top(members, values, true, k)?;
                answer.items = self.items(&top)?;
                let names: Vec<String> = answer
                    .items
                    .iter()
                    .map(|i| format!("{} ({})", i.name, fmt_support(i.support)))
                    .collect();
                answer.text = format!("{}.", names.join(", "));
            }
        }
        Ok(())
    }

    /// The members as answer items, in order, with their evidence and rank values.
    fn items(&self, members: &[Member]) -> Result<Vec<AnswerItem>, AgentError> {
        let catalog = self.graph.catalog();
        let ids: Vec<NodeId> = members.iter().map(|m| m.node).collect();
        let mut out = Vec::with_capacity(ids.len());
        for (chunk_m, chunk_ids) in members.chunks(1024).zip(ids.chunks(1024)) {
            for (m, rec) in chunk_m.iter().zip(self.graph.nodes(chunk_ids)?) {
                let Some(rec) = rec else { continue };
                out.push(AnswerItem {
                    node: Some(m.node),
                    label: catalog.label_name(rec.label).unwrap_or("?").to_owned(),
                    key: rec.key.clone(),
                    name: display_name(&rec, &catalog),
                    value: None,
                    support: m.support,
                    evidence: m.evidence.clone(),
                });
            }
        }
        Ok(out)
    }
}

/// What a ranked answer was ranked by, for its text, in the question's word: " (largest by
/// population)", " (most: how many State through BORDER)".
fn rank_note(chain: &Chain) -> String {
    let Some(Op::Rank {
        key,
        descending,
        word,
        ..
    }) = chain
        .ops
        .iter()
        .rev()
        .find(|op| matches!(op, Op::Rank { .. }))
    else {
        return String::new();
    };
    let word = word
        .clone()
        .unwrap_or_else(|| if *descending { "highest" } else { "lowest" }.to_owned());
    match key {
        RankKey::Property(p) => format!(" ({word} by {p})"),
        RankKey::Reach(path, label) => format!(
            " ({word}: how many {} through {})",
            label.as_deref().unwrap_or("nodes"),
            path_words(path)
        ),
        RankKey::Paths => String::new(),
    }
}

fn fmt_support(s: Option<f64>) -> String {
    match s {
        Some(x) if x.fract() == 0.0 && x.is_finite() => format!("{}", x as i64),
        Some(x) => format!("{x:.3}"),
        None => "-".into(),
    }
}

fn path_words(path: &[Step]) -> String {
    path.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" -> ")
}

/// Where the executor's run of the reading's statement and the reading's exact evaluation
/// disagree (they are two computations of one set): a note saying so, which makes the answer
/// uncertain. `None` when they agree. One difference is by design: the language never returns
/// a node as its own result, and the reading answers "X 's parent 's child" with X when no
/// other node is there, so start nodes the statement left out do not count as a difference.
fn disagreement(
    reading: &Reading,
    set: &Evaluated,
    answer: &Answer,
    exploration: &Exploration,
) -> Option<String> {
    let starts: HashSet<NodeId> = match &reading.chain.source {
        crate::reading::Source::Nodes { nodes, .. } => nodes.iter().copied().collect(),
        crate::reading::Source::Label(_) => HashSet::new(),
    };
    let ours: HashSet<NodeId> = set.members.iter().map(|m| m.node).collect();
    let own_starts = ours.intersection(&starts).count() as u64;
    let total = ours.len() as u64;
    // A count between the set without its starts and the whole set.
    let counts = |n: u64| n <= total && total - n <= own_starts;
    let agree = match &reading.output {
        Output::Nodes | Output::Property(_) => {
            let theirs: HashSet<NodeId> = exploration.results.iter().map(|r| r.node).collect();
            theirs.is_subset(&ours) && ours.difference(&theirs).all(|n| starts.contains(n))
        }
        Output::Count => exploration.count.is_some_and(counts),
        Output::Exists => exploration
            .count
            .is_some_and(|n| (n > 0) == (total > 0) || (n == 0 && counts(n))),
        Output::Aggregate(..) => {
            let theirs = exploration
                .rows
                .first()
                .and_then(|r| r.values.first())
                .filter(|v| !matches!(v, Value::Null))
                .map(value_text);
            theirs == answer.value
        }
    };
    (!agree).then(|| {
        "the executor's run of the statement and the reading's evaluation disagree".to_owned()
    })
}
