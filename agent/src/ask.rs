//! `ASK`: planner → executor → evidence judge → answerer → validator.
//!
//! The evidence judge accepts an exploration or asks for a wider one (at most
//! [`MAX_EXPANSIONS`] times); the validator accepts an answer or has it regenerated (at most
//! [`MAX_REGENERATIONS`] times) before it is returned marked uncertain.

use crate::answer::{Answer, Answerer};
pub use crate::error::AgentError;
use crate::explore::{EntrySearch, Explorer, Judge};
use crate::llm::{data_block, json_object, LlmBackend, LlmError, Message, DATA_RULE};
use crate::planner::{Planner, QueryPlan, QuestionType};
use crate::reading::Evaluator;
use crate::result::{Exploration, ResultNode, StopReason};
use crate::strategy::Strategies;
use crate::validate::{Validation, Validator, DEFAULT_THRESHOLD};
use crate::{CancelToken, NodeSource};
use cairn_embed::Embedder;
use cairn_store::{Graph, GraphRead};

/// Wider re-explorations the evidence judge may ask for.
pub const MAX_EXPANSIONS: u32 = 2;
/// Regenerations of an answer the validator rejected.
pub const MAX_REGENERATIONS: u32 = 2;
/// Doubts of a plan checked against their runner-up's answer.
const MAX_DOUBTS: usize = 4;

/// Which agents use the LLM (all offline by default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LlmAgents {
    pub planner: bool,
    pub judge: bool,
    pub answerer: bool,
}

impl LlmAgents {
    pub const ALL: LlmAgents = LlmAgents {
        planner: true,
        judge: true,
        answerer: true,
    };
}

/// The evidence judge's decision on one exploration.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub sufficient: bool,
    pub reason: String,
}

/// Decides whether an exploration is enough evidence for the planned question.
///
/// Offline: structured plans (a linked entity and a relation path) need a *complete*
/// neighbourhood — no hub sampled, no cap hit, fewer results than the limit; free-form plans
/// need the executor's sufficiency ≥ 0.5. With an LLM, the model may also say "not enough".
#[derive(Debug, Default)]
pub struct EvidenceJudge<'g> {
    llm: Option<&'g dyn LlmBackend>,
}

impl<'g> EvidenceJudge<'g> {
    pub fn new(llm: Option<&'g dyn LlmBackend>) -> Self {
        EvidenceJudge { llm }
    }

    pub fn assess(&self, plan: &QueryPlan, e: &Exploration) -> Verdict {
        let verdict = offline_verdict(plan, e);
        match (self.llm, verdict.sufficient) {
            (Some(llm), true) => match llm_enough(llm, &plan.question, &e.results) {
                Ok(true) => verdict,
                Ok(false) => Verdict {
                    sufficient: false,
                    reason: "the LLM judge asked for more evidence".into(),
                },
                Err(err) => {
                    tracing::warn!(error = %err, "LLM judge failed; keeping the offline verdict");
                    verdict
                }
            },
            _ => verdict,
        }
    }
}

fn offline_verdict(plan: &QueryPlan, e: &Exploration) -> Verdict {
    let v = |sufficient: bool, reason: &str| Verdict {
        sufficient,
        reason: reason.to_owned(),
    };
    // Computed exactly from the reading, whatever the exploration found.
    if plan.reading.is_some() && plan.conjunct.is_none() {
        return v(true, "computed exactly from the reading");
    }
    if plan.entity.is_none() {
        return if e.sufficiency >= 0.5 {
            v(true, "sufficiency reached")
        } else {
            v(false, "low sufficiency without a linked entity")
        };
    }
    match plan.qtype {
        // Read from the entity itself / counted exactly on the store.
        QuestionType::Attribute | QuestionType::Aggregation => v(true, "computed on the store"),
        QuestionType::Relation | QuestionType::MultiHop => {
            if e.stats.neighbors_sampled_out > 0 {
                v(false, "a hub's neighbours were sampled")
            } else if matches!(
                e.stop,
                StopReason::BudgetCap | StopReason::TimeCap | StopReason::Cancelled
            ) {
                v(false, "a cap was hit before the neighbourhood was covered")
            } else if e.results.len() >= plan.plan.limit as usize {
                v(false, "the result limit is full")
            } else {
                v(true, "the planned neighbourhood was covered")
            }
        }
    }
}

fn llm_enough(
    llm: &dyn LlmBackend,
    question: &str,
    results: &[ResultNode],
) -> Result<bool, LlmError> {
    let system = format!(
        "You judge whether evidence retrieved from a graph is enough to answer a question. \
         Reply with one JSON object {{\"enough\": true|false}}. {DATA_RULE}"
    );
    let mut user = format!(
        "Question: {}\nEvidence ({} nodes):",
        data_block("question", question),
        results.len()
    );
    for r in results.iter().take(50) {
        user.push_str(&format!("\n- {} {}", r.label, data_block("name", &r.name)));
    }
    let v = json_object(&llm.complete(&[Message::system(system), Message::user(user)])?)?;
    v.get("enough")
        .and_then(serde_json::Value::as_bool)
        .ok_or_else(|| LlmError::Format("\"enough\" is not a boolean".into()))
}

/// `UNTIL judge` decided by an LLM (falls back to sufficiency ≥ 0.8 when the model fails).
#[derive(Debug)]
pub struct LlmJudge<'a>(pub &'a dyn LlmBackend);

impl Judge for LlmJudge<'_> {
    fn enough(&self, goal: &str, results: &[ResultNode], sufficiency: f64) -> bool {
        llm_enough(self.0, goal, results).unwrap_or(sufficiency >= 0.8)
    }
}

/// Everything `ASK` produced.
#[derive(Clone, Debug)]
pub struct AskOutcome {
    /// The plan that was finally run.
    pub plan: QueryPlan,
    pub exploration: Exploration,
    pub verdict: Verdict,
    pub answer: Answer,
    pub validation: Validation,
    /// Wider re-explorations taken.
    pub expansions: u32,
    /// Answers regenerated after failing validation.
    pub regenerations: u32,
    /// The id feedback names this answer by (`Cairn::feedback`), when it was recorded.
    pub answer_id: Option<u64>,
}

/// Answers questions over one graph.
pub struct Asker<'g> {
    graph: &'g Graph,
    embedder: &'g dyn Embedder,
    table: &'g dyn NodeSource,
    search: Option<&'g dyn EntrySearch>,
    planner: Planner<'g>,
    judge: EvidenceJudge<'g>,
    answerer: Answerer<'g>,
    threshold: f64,
}

impl std::fmt::Debug for Asker<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Asker")
            .field("planner", &self.planner)
            .field("answerer", &self.answerer)
            .field("threshold", &self.threshold)
            .finish()
    }
}

impl<'g> Asker<'g> {
    /// Offline agents over `graph`; `table` is where the executor reads node facts (an
    /// in-memory [`crate::NodeTable`] or a store view, see [`NodeSource`]).
    pub fn new(graph: &'g Graph, embedder: &'g dyn Embedder, table: &'g dyn NodeSource) -> Self {
        Asker {
            graph,
            embedder,
            table,
            search: None,
            planner: Planner::new(graph, embedder),
            judge: EvidenceJudge::new(None),
            answerer: Answerer::new(graph).with_source(table),
            threshold: DEFAULT_THRESHOLD,
        }
    }

    /// Uses the vector index for entity linking and SEARCH entries.
    pub fn with_search(mut self, search: &'g dyn EntrySearch) -> Self {
        self.search = Some(search);
        self.planner = self.planner.with_search(search);
        self
    }

    /// Switches the chosen agents to `llm`.
    pub fn with_llm(mut self, llm: &'g dyn LlmBackend, agents: LlmAgents) -> Self {
        if agents.planner {
            self.planner = self.planner.with_llm(llm);
        }
        if agents.judge {
            self.judge = EvidenceJudge::new(Some(llm));
        }
        if agents.answerer {
            self.answerer = self.answerer.with_llm(llm);
        }
        self
    }

    /// The fact-consistency score below which answers are regenerated.
    pub fn with_threshold(mut self, threshold: f64) -> Self {
        self.threshold = threshold;
        self
    }

    /// Ranks candidate paths with what feedback taught this database.
    pub fn with_strategies(mut self, strategies: &'g std::sync::Mutex<Strategies>) -> Self {
        self.planner = self.planner.with_strategies(strategies);
        self
    }

    /// Shares the schema's phrase vectors with the database's other askers.
    pub fn with_phrases(mut self, phrases: &'g crate::PhraseCache) -> Self {
        self.planner = self.planner.with_phrases(phrases);
        self
    }

    pub fn planner(&self) -> &Planner<'g> {
        &self.planner
    }

    /// Plans without running (for `EXPLAIN ASK`).
    pub fn plan(&self, question: &str) -> Result<QueryPlan, AgentError> {
        self.planner.plan(question)
    }

    /// Answers `question`.
    pub fn ask(&self, question: &str, cancel: &CancelToken) -> Result<AskOutcome, AgentError> {
        let mut explorer = Explorer::new(self.graph, self.embedder, self.table);
        if let Some(s) = self.search {
            explorer = explorer.with_search(s);
        }
        let mut plan = self.planner.plan(question)?;
        let mut exploration = explorer.run(&plan.plan, false, cancel)?;
        let mut verdict = self.judge.assess(&plan, &exploration);
        let mut expansions = 0;
        while !verdict.sufficient && expansions < MAX_EXPANSIONS && !cancel.is_cancelled() {
            expansions += 1;
            plan = self.planner.widen(&plan)?;
            exploration = explorer.run(&plan.plan, false, cancel)?;
            verdict = self.judge.assess(&plan, &exploration);
        }
        let partial = !verdict.sufficient;
        let validator = Validator::new(self.graph).with_source(self.table);
        let mut regenerations = 0;
        let mut answer = self.answer_or_offline(&plan, &exploration, partial, 0)?;
        let mut validation = validator.check(&plan, &answer)?;
        while !validation.passed(self.threshold) && regenerations < MAX_REGENERATIONS {
            regenerations += 1;
            answer = self.answer_or_offline(&plan, &exploration, partial, regenerations)?;
            validation = validator.check(&plan, &answer)?;
        }
        // A counted intersection has a count and no listed items.
        answer.notes.extend(self.doubts(&plan)?);
        answer.uncertain = !validation.passed(self.threshold)
            || answer.partial
            || (answer.items.is_empty() && answer.count.is_none() && answer.value.is_none())
            || !answer.notes.is_empty();
        Ok(AskOutcome {
            plan,
            exploration,
            verdict,
            answer,
            validation,
            expansions,
            regenerations,
            answer_id: None,
        })
    }

    /// Why the answer may be wrong though every fact checks out: the question's words the plan
    /// does not use, and each decision whose close runner-up reaches other nodes ("another
    /// reading …"). A runner-up that reaches the same nodes changes nothing.
    fn doubts(&self, plan: &QueryPlan) -> Result<Vec<String>, AgentError> {
        let mut notes = Vec::new();
        if !plan.unused.is_empty() {
            notes.push(format!(
                "the plan does not use the words: {}",
                plan.unused.join(", ")
            ));
        }
        notes.extend(plan.modifiers.iter().filter_map(|m| m.note()));
        let catalog = self.graph.catalog();
        let evaluator = Evaluator::new(self.graph, self.table, &catalog);
        for d in plan.doubts.iter().take(MAX_DOUBTS) {
            let chosen = evaluator.chain(&d.chosen)?;
            let other = evaluator.chain(&d.other)?;
            let set = |e: &crate::reading::Evaluated| {
                let mut n: Vec<_> = e.members.iter().map(|m| m.node).collect();
                n.sort_unstable();
                n
            };
            if set(&chosen) != set(&other) {
                let ids: Vec<_> = other.members.iter().take(3).map(|m| m.node).collect();
                let names: Vec<String> = self
                    .graph
                    .nodes(&ids)?
                    .iter()
                    .flatten()
                    .map(|r| cairn_store::describe::display_name(r, &catalog))
                    .collect();
                let more = other.members.len().saturating_sub(names.len());
                notes.push(format!(
                    "another reading of {} ({}, {:.2} behind) reaches {}{}",
                    d.what,
                    d.other,
                    d.margin,
                    if names.is_empty() {
                        "nothing".to_owned()
                    } else {
                        names.join("; ")
                    },
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                ));
            }
        }
        Ok(notes)
    }

    /// The answerer's answer; an LLM failure falls back to the offline answer.
    fn answer_or_offline(
        &self,
        plan: &QueryPlan,
        e: &Exploration,
        partial: bool,
        attempt: u32,
    ) -> Result<Answer, AgentError> {
        match self.answerer.answer(plan, e, partial, attempt) {
            Err(AgentError::Llm(err)) => {
                tracing::warn!(error = %err, "LLM answerer failed; answering offline");
                self.answerer.offline(plan, e, partial)
            }
            other => other,
        }
    }
}
