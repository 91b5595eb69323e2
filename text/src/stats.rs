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
    /// Totals of every document of a segment, per searched field.
    pub(crate) all: HashMap<SegmentId, [Totals; 2]>,
    /// The deleted documents of a segment (sorted) and their totals, as of `count` deletes.
    pub(crate) deleted: HashMap<SegmentId, Arc<Deleted>>,
}

#[derive(Debug)]
pub(crate) struct Deleted {
    pub(crate) count: u32,
    pub(crate) docs: Vec<DocId>,
    pub(crate) totals: [Totals; 2],
}

/// A field's totals over some documents: its tokens, and the documents with at least one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Totals {
    pub(crate) tokens: u64,
    pub(crate) docs: u64,
}

impl Totals {
    /// The totals of documents with these token counts.
    pub(crate) fn of(counts: impl Iterator<Item = u64>) -> Totals {
        counts.fold(Totals::default(), |t, n| Totals {
            tokens: t.tokens + n,
            docs: t.docs + u64::from(n > 0),
        })
    }
}
