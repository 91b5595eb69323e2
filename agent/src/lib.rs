//! Cairn's agent layer: the exploration executor that runs EXPLORE plans as a beam search, and
//! (as they land) the planner, judge, answerer and validator agents behind `ASK`.

pub mod answer;
pub mod ask;
pub mod catalog;
pub mod eval;
pub mod explore;
pub mod llm;
pub mod planner;
pub mod qa;
pub mod result;
pub mod table;
pub mod validate;
pub mod vocab;

pub use answer::{Answer, AnswerItem, Answerer};
pub use ask::{AgentError, AskOutcome, Asker, EvidenceJudge, LlmAgents, LlmJudge, Verdict};
pub use catalog::EngineCatalog;
pub use explore::{CancelToken, EntrySearch, ExploreError, Explorer, Judge, SufficiencyJudge};
pub use llm::{ChatConfig, LlmBackend, LlmError, OpenAiChat};
pub use planner::{Aggregate, Planner, QueryPlan, QuestionType};
pub use result::{Exploration, PathStep, ResultNode, Stats, StopReason, TraceEvent};
pub use table::{NodeTable, Probe};
pub use validate::{Validation, Validator};
