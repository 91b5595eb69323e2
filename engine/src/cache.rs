//! A bounded cache of decoded node records for hot reads.
//!
//! Readers fill the cache; the single writer invalidates what it changed after its batch is
//! durable. A reader racing a writer could otherwise insert a record it read just before the
//! batch landed, after the writer's invalidation. The write epoch prevents that: the writer
//! makes the epoch odd for the duration of a commit, and a reader drops what it inserted if the
//! epoch moved while it was reading.

use cairn_storage_format::{NodeId, NodeRecord};
use quick_cache::sync::Cache;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub(crate) struct NodeCache {
    cache: Option<Cache<NodeId, Arc<NodeRecord>>>,
    epoch: AtomicU64,
}

impl std::fmt::Debug for NodeCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeCache")
            .field("capacity", &self.cache.as_ref().map(|c| c.capacity()))
            .field("len", &self.cache.as_ref().map(|c| c.len()))
            .finish()
    }
}

/// Token a reader takes before reading the database for a cache miss.
pub(crate) struct ReadTicket(u64);

impl NodeCache {
    pub(crate) fn new(capacity: usize) -> Self {
        NodeCache {
            cache: (capacity > 0).then(|| Cache::new(capacity)),
            epoch: AtomicU64::new(0),
        }
    }

    pub(crate) fn get(&self, id: NodeId) -> Option<Arc<NodeRecord>> {
        self.cache.as_ref()?.get(&id)
    }

    pub(crate) fn ticket(&self) -> ReadTicket {
        ReadTicket(self.epoch.load(Ordering::SeqCst))
    }

    /// Caches a record read under `ticket`, unless a commit overlapped the read.
    pub(crate) fn fill(&self, ticket: &ReadTicket, id: NodeId, record: &Arc<NodeRecord>) {
        let Some(cache) = &self.cache else { return };
        if ticket.0 % 2 == 1 {
            return;
        }
        cache.insert(id, Arc::clone(record));
        if self.epoch.load(Ordering::SeqCst) != ticket.0 {
            cache.remove(&id);
        }
    }

    pub(crate) fn begin_commit(&self) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
    }

    pub(crate) fn end_commit(&self, touched: impl IntoIterator<Item = NodeId>) {
        if let Some(cache) = &self.cache {
            for id in touched {
                cache.remove(&id);
            }
        }
        self.epoch.fetch_add(1, Ordering::SeqCst);
    }

    /// Hits and misses since open, for statistics.
    pub(crate) fn hits_misses(&self) -> (u64, u64) {
        self.cache
            .as_ref()
            .map(|c| (c.hits(), c.misses()))
            .unwrap_or((0, 0))
    }
}
