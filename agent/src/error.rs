//! The agents' error type, in its own module so that every agent can return it without
//! importing the pipeline (`ask`) that calls them.

use crate::explore::ExploreError;
use crate::llm::LlmError;
use cairn_embed::EmbedError;
use cairn_store::EngineError;
use thiserror::Error;

/// Errors of the question-answering agents.
#[derive(Debug, Error)]
pub enum AgentError {
    #[error(transparent)]
    Explore(#[from] ExploreError),
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("embedding failed: {0}")]
    Embed(#[from] EmbedError),
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// The planner wrote a statement that does not compile (a bug, reported with the text).
    #[error("the planner's statement does not compile:\n{0}")]
    Plan(String),
}
