//! Cairn's graph store: a property graph on a key-value engine.
//!
//! The engine is the single source of truth. Nodes, both directions of every edge, degrees,
//! property indexes and vectors live in keyspaces whose key layouts are defined in
//! `cairn-storage-format` and documented in `docs/FORMAT.md`. The engine sits behind one
//! boundary, [`storage`] (docs/STORAGE.md); RocksDB is its backend.
//!
//! ```no_run
//! use cairn_store::{Graph, GraphOptions, GraphRead, Direction};
//! use cairn_storage_format::{EdgeProps, Value};
//! # fn main() -> Result<(), cairn_store::EngineError> {
//! let graph = Graph::open("/tmp/example.cairn", GraphOptions::default())?;
//! let mut w = graph.writer()?;
//! let ann = w.upsert_node("Author", "a1", [("name", Value::from("Ann Lee"))], None)?;
//! let paper = w.upsert_node("Paper", "p1", [("title", Value::from("Graph exploration"))], None)?;
//! w.add_edge(ann, "AUTHORED", paper, EdgeProps::default())?;
//! w.commit()?;
//! assert_eq!(graph.neighbors(ann, Direction::Out, &[])?.len(), 1);
//! # Ok(()) }
//! ```

pub mod bulk;
mod cache;
pub mod catalog;
pub mod changelog;
pub mod changes;
mod commit;
pub mod describe;
pub mod error;
pub mod failpoint;
pub mod graph;
mod lock;
mod loss;
mod marker;
mod max_degree;
mod names;
mod stats;
pub mod storage;
mod strategies;
pub mod wal;
pub mod write;

pub use bulk::{BulkFiles, BulkLoad, NewNodeIndex, SpillDir, VectorSink};
pub use catalog::{Catalog, Element};
pub use changelog::CHANGE_LOG_KEEP;
pub use changes::{ChangeSet, EdgeRef};
pub use error::{BackendErrorKind, EngineError, Result};
pub use graph::{
    Direction, Freshness, Graph, GraphOptions, GraphRead, GraphSnapshot, NameHits, Neighbor,
    NodeBundle, OpenMode,
};
pub use loss::{Acknowledged, LogDamage, LogLoss, Recovery};
pub use stats::ReadOps;
pub use storage::{BulkPart, Space};
pub use write::{CommitStats, Savepoint, Writer};
