//! The question-answering strategy record in `meta/strategies`: opaque bytes to the store,
//! read at open by the agents and replaced through the ordinary commit path (so it is atomic,
//! counted as a commit and refused on a read-only handle like any write).

use crate::error::Result;
use crate::graph::Graph;
use crate::storage::Space;
use crate::write::Writer;
use cairn_storage_format::MetaKey;

impl Graph {
    /// The stored strategy record, if one was written.
    pub fn strategies(&self) -> Result<Option<Vec<u8>>> {
        crate::graph::get_meta(self.storage.as_read(), MetaKey::Strategies)
    }
}

impl Writer<'_> {
    /// Replaces the strategy record in this batch; it is written when the batch commits.
    pub fn put_strategies(&mut self, record: &[u8]) -> Result<()> {
        self.batch
            .put(Space::Meta, MetaKey::Strategies.encode(), record);
        Ok(())
    }
}
