//! Cairn: an embedded graph database with an agent query language.
//!
//! [`Cairn`] is the handle an application opens: it runs `EXPLORE` statements (docs/LANGUAGE.md)
//! as a guided beam search (docs/EXECUTOR.md) and imports graph dumps (docs/IMPORT.md). The
//! storage engine underneath is reachable through [`Cairn::graph`] for writes and primitive
//! reads: node metadata, neighbours with relation types, details of a neighbour.
//!
//! ```
//! use cairn::{Direction, Graph, GraphOptions, GraphRead, Value};
//! # fn main() -> Result<(), cairn::EngineError> {
//! let dir = tempfile::tempdir().map_err(|e| cairn::EngineError::Invalid(e.to_string()))?;
//! let graph = Graph::open(dir.path(), GraphOptions::default())?;
//! let mut w = graph.writer()?;
//! let han = w.upsert_node("Author", "a1", [("name", Value::from("Jiawei Han"))], None)?;
//! let paper = w.upsert_node("Paper", "p1", [("title", Value::from("Data Mining"))], None)?;
//! w.add_edge(han, "AUTHORED", paper, Default::default())?;
//! w.commit()?;
//! let papers = graph.neighbors(han, Direction::Out, &[])?;
//! assert_eq!(papers[0].node, paper);
//! # Ok(()) }
//! ```

mod asynchronous;
mod db;
mod error;
mod feedback;
mod import;
mod mutation;
mod output;
mod primitives;
mod session;
mod transaction;

pub use asynchronous::AsyncCairn;
pub use cairn_agent::AskOutcome;
pub use cairn_embed::{EmbedError, Embedder, HashEmbedder};
pub use cairn_exec::{
    AggregateRow, CancelToken, Exploration, GroupValue, NodeRow, PathStep, ResultNode, StopReason,
    Subgraph, SubgraphEdge, TableMode,
};
pub use cairn_import::dump::{DumpEdge, DumpEmbedder, DumpNode, DumpRecord, JsonValue, NodeRef};
pub use cairn_import::export::{ExportError, ExportFormat, ExportSummary, Selection};
pub use cairn_import::triples::TriplesOptions;
pub use cairn_import::{ImportError, ImportSummary, Phase, Progress, ProgressFn};
pub use cairn_storage_format::{
    Degree, EdgeProps, LabelId, NodeId, NodeRecord, PropKeyId, RelId, Value,
};
/// A damaged write-ahead log: what recovering it drops (`inspect`), and the recovery
/// (`recover`); docs/RELIABILITY.md, "A damaged log".
pub use cairn_store::wal;
pub use cairn_store::{
    Catalog, ChangeSet, CommitStats, Direction, EdgeRef, Element, EngineError, Freshness, Graph,
    GraphOptions, GraphRead, GraphSnapshot, LogDamage, LogLoss, Neighbor, OpenMode, Recovery,
    Savepoint, Writer,
};
pub use cairn_text::{text_dir, TextBuildReport, TextRefresh};
pub use cairn_vector::{BuildReport, Refresh};
pub use db::{annotation_statement, fuse, Cairn, CairnOptions, FUSE_DEPTH, RRF_K};
pub use error::CairnError;
pub use import::{ImportEmbedder, ImportOptions};
pub use output::{
    Description, Done, IndexInfo, LabelRelation, Listing, Output, Plan, RelationInfo,
};
pub use primitives::{LabelInfo, NeighborView, Neighbors, NodeView, Schema, SchemaRelation};
pub use session::Session;
pub use transaction::{Transaction, TransactionOptions};

/// The agents behind `ASK` (planner, judge, answerer, validator, LLM backend).
pub use cairn_agent as agent;
/// The executor (beam search, node table, store view).
pub use cairn_exec as exec;
/// The language crate (parser, plans).
pub use cairn_query as query;
/// The on-disk format crate (ids, key layouts, records).
pub use cairn_storage_format as format;
