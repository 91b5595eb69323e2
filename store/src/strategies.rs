//! The question-answering strategy record in `meta/strategies`: opaque bytes to the store,
//! read at open by the agents and replaced through the ordinary commit path (so it is atomic,
//! counted as a commit and refused on a read-only handle like any write).

use crate::cf;
use crate::error::Result;
use crate::graph::Graph;
use crate::write::Writer;
use cairn_storage_format::MetaKey;

impl Graph {
    /// The stored strategy record, if one was written.
    pub fn strategies(&self) -> Result<Option<Vec<u8>>> {
        let meta = self.cf(cf::META)?;
        Ok(self.db.get_cf(meta, MetaKey::Strategies.encode())?)
    }
}

impl Writer<'_> {
    /// Replaces the strategy record in this batch; it is written when the batch commits.
    pub fn put_strategies(&mut self, record: &[u8]) -> Result<()> {
        let meta = self.graph.cf(cf::META)?;
        self.batch
            .put_cf(meta, MetaKey::Strategies.encode(), record);
        Ok(())
    }
}
