//! Cairn's agents behind `ASK`: the planner, evidence judge, answerer and validator, the LLM
//! backend they share, and the evaluation on generated data (feature `eval`). The executor they
//! drive is `cairn-exec`; its modules are re-exported here so `cairn_agent::explore::…` still works.

pub mod answer;
pub mod ask;
pub mod error;
#[cfg(feature = "eval")]
pub mod eval;
pub mod llm;
pub mod planner;
pub mod qa;
pub mod reading;
pub mod semantic;
pub mod strategy;
pub mod validate;
pub mod vocab;
pub mod walk;

pub use cairn_exec::{catalog, explore, result, table};

pub use answer::{Answer, AnswerItem, Answerer};
pub use ask::{AskOutcome, Asker, EvidenceJudge, LlmAgents, LlmJudge, Verdict};
pub use cairn_exec::{
    CancelToken, Dirty, EngineCatalog, EntrySearch, Exploration, ExploreError, Explorer, Judge,
    NodeSource, NodeTable, Overlaid, PathStep, Probe, ResultNode, Source, Stats, StopReason,
    StoreOps, StoreView, SufficiencyJudge, TableKeeper, TableMode, TraceEvent, MERGE_AFTER,
};
pub use error::AgentError;
pub use llm::{ChatConfig, LlmBackend, LlmError, OpenAiChat};
pub use planner::{Aggregate, Planner, QueryPlan, QuestionType};
pub use semantic::PhraseCache;
pub use validate::{Validation, Validator};
