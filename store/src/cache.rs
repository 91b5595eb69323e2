//! A bounded cache of decoded node records for hot reads.
//!
//! Readers fill the cache; the single writer invalidates what it changes. A reader racing a
//! writer could otherwise cache a record it read just before the batch landed, after the
//! writer's invalidation, and a later read — even the writer's own read-your-writes — would
//! get the old record. So every entry carries the write epoch its read started in, and every
//! node id maps to a stripe holding the epoch after the last commit that touched an id of that
//! stripe. An entry is served only if it was read no earlier than that: a read that started
//! before a commit touching its node is never served after that commit, whenever it lands in
//! the cache.
//!
//! The epoch is even between commits and odd during one; reads that start during a commit are
//! not cached at all.

use cairn_storage_format::{NodeId, NodeRecord};
use quick_cache::sync::Cache;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Stripes of "last touched" epochs: a commit invalidates the cached records of its own nodes
/// and, harmlessly, of the other ids that share their stripes.
const STRIPES: usize = 4096;

pub(crate) struct NodeCache {
    cache: Option<Cache<NodeId, (Arc<NodeRecord>, u64)>>,
    epoch: AtomicU64,
    stripes: Box<[AtomicU64]>,
}

impl std::fmt::Debug for NodeCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeCache")
            .field("capacity", &self.cache.as_ref().map(|c| c.capacity()))
            .field("len", &self.cache.as_ref().map(|c| c.len()))
            .finish()
    }
}

/// Token a reader takes before reading the database for a cache miss: the epoch it read in.
pub(crate) struct ReadTicket(u64);

fn stripe(id: NodeId) -> usize {
    (id.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52) as usize % STRIPES
}

impl NodeCache {
    pub(crate) fn new(capacity: usize) -> Self {
        NodeCache {
            cache: (capacity > 0).then(|| Cache::new(capacity)),
            epoch: AtomicU64::new(0),
            stripes: (0..STRIPES).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    pub(crate) fn get(&self, id: NodeId) -> Option<Arc<NodeRecord>> {
        let (record, read_in) = self.cache.as_ref()?.get(&id)?;
        (read_in >= self.stripes[stripe(id)].load(Ordering::SeqCst)).then_some(record)
    }

    pub(crate) fn ticket(&self) -> ReadTicket {
        ReadTicket(self.epoch.load(Ordering::SeqCst))
    }

    /// Caches a record read under `ticket` (not if the read started during a commit).
    pub(crate) fn fill(&self, ticket: &ReadTicket, id: NodeId, record: &Arc<NodeRecord>) {
        let Some(cache) = &self.cache else { return };
        if ticket.0 % 2 == 1 {
            return;
        }
        cache.insert(id, (Arc::clone(record), ticket.0));
    }

    /// Before a commit's batch is written: records of `touched` read until now are stale
    /// from here on. (The single writer calls this between commits, when the epoch is even.)
    pub(crate) fn begin_commit(&self, touched: impl IntoIterator<Item = NodeId>) {
        let after = (self.epoch.load(Ordering::SeqCst) | 1) + 1;
        for id in touched {
            self.stripes[stripe(id)].fetch_max(after, Ordering::SeqCst);
        }
        self.epoch.fetch_add(1, Ordering::SeqCst);
    }

    /// After the batch is written (or failed): frees the touched entries and ends the commit.
    pub(crate) fn end_commit(&self, touched: impl IntoIterator<Item = NodeId>) {
        if let Some(cache) = &self.cache {
            for id in touched {
                cache.remove(&id);
            }
        }
        self.epoch.fetch_add(1, Ordering::SeqCst);
    }

    /// After the database changed underneath without a commit of ours (a read-only open caught
    /// up with the writer): every entry is stale, and so is every read started until now.
    pub(crate) fn invalidate_all(&self) {
        let after = (self.epoch.load(Ordering::SeqCst) | 1) + 1;
        for s in self.stripes.iter() {
            s.fetch_max(after, Ordering::SeqCst);
        }
        self.epoch.fetch_add(1, Ordering::SeqCst);
        if let Some(cache) = &self.cache {
            cache.clear();
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
