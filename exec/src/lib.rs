//! Cairn's exploration executor: runs compiled `EXPLORE` plans as a beam search with a visited set
//! and stop conditions over the store (docs/EXECUTOR.md), reading through the in-memory node table.

pub mod catalog;
pub mod explore;
pub mod keeper;
pub mod overlay;
pub mod result;
pub mod score;
pub mod source;
pub mod table;
pub mod value;
pub mod walk;

pub use catalog::EngineCatalog;
pub use explore::{CancelToken, EntrySearch, ExploreError, Explorer, Judge, SufficiencyJudge};
pub use keeper::{Source, TableKeeper, TableMode, MERGE_AFTER};
pub use overlay::{Dirty, Overlaid};
pub use result::{
    AggregateRow, Exploration, GroupValue, NodeRow, PathStep, ResultNode, Stats, StopReason,
    Subgraph, SubgraphEdge, TraceEvent,
};
pub use score::Probe;
pub use source::{Facts, NodeSource, StoreOps, StoreView};
pub use table::NodeTable;
pub use walk::{walk, End, Hop, WalkBounds, WalkCut, WalkShape, WalkStep, Walked};
