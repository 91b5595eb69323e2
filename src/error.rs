//! The facade's error type, in its own module so that every module of the facade can return it
//! without importing the one that opens databases.

use crate::EngineError;
use cairn_embed::EmbedError;
use cairn_exec::ExploreError;
use cairn_import::ImportError;
use cairn_query::QueryError;
use cairn_vector::StoreError;

/// Errors of the facade. Query errors carry their source and render with a caret.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum CairnError {
    #[error(transparent)]
    #[diagnostic(transparent)]
    Query(#[from] QueryError),
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error(transparent)]
    Explore(#[from] ExploreError),
    #[error(transparent)]
    Import(#[from] ImportError),
    #[error(transparent)]
    Export(#[from] cairn_import::export::ExportError),
    #[error(transparent)]
    Agent(#[from] cairn_agent::AgentError),
    #[error(transparent)]
    Vector(#[from] StoreError),
    #[error(transparent)]
    Text(#[from] cairn_text::TextError),
    #[error(transparent)]
    Strategy(#[from] cairn_agent::strategy::StrategyError),
    /// The database's vectors come from an embedder this process cannot provide (MiniLM in a
    /// build without the `minilm` feature, or without a usable `CAIRN_MINILM_DIR`). The database
    /// does not open: every query embeds its goal, and a vector of another model would be compared
    /// with the stored ones as if it meant something.
    #[error("the database's vectors come from embedder {id}, which cannot be loaded here")]
    EmbedderUnavailable {
        /// The embedder id the catalog records.
        id: String,
        /// Why it cannot be loaded, with what to do about it.
        #[source]
        source: EmbedError,
    },
    #[error("{0}")]
    Unsupported(String),
    /// A data statement names a node that does not exist (nor in the open transaction).
    #[error("no node {0}")]
    NoSuchNode(String),
    /// `COMMIT` without `BEGIN`, an unknown savepoint, a statement a transaction cannot hold.
    #[error("{0}")]
    Transaction(String),
}
