//! What the ranking (`rank.rs`) keeps between searches: token totals per segment, and each
//! segment's deleted documents (segments are immutable; their deletes only grow).

use std::collections::HashMap;
use std::sync::Arc;
use tantivy::index::SegmentId;
use tantivy::DocId;

/// Per-segment token totals, kept across searches (segments are immutable; their deletes
/// only grow).
#[derive(Debug, Default)]
pub(crate) struct StatsCache {
    /// Tokens of every document of a segment, per searched field.
    pub(crate) all: HashMap<SegmentId, [u64; 2]>,
    /// The deleted documents of a segment (sorted) and their tokens, as of `count` deletes.
    pub(crate) deleted: HashMap<SegmentId, Arc<Deleted>>,
}

#[derive(Debug)]
pub(crate) struct Deleted {
    pub(crate) count: u32,
    pub(crate) docs: Vec<DocId>,
    pub(crate) tokens: [u64; 2],
}
