//! The change log: every commit's change set, written in the commit's own batch to the
//! `changes` column family (key: the commit counter), so that a derived index saved at an
//! earlier commit — the full-text index, the vector index file — catches up in any process by
//! replaying the commits since its stamp instead of being rebuilt. Being in the batch, an entry
//! exists exactly when its commit does: a crash between a commit and an index's save leaves the
//! index behind and the log complete (docs/VECTOR.md, "Catching up across processes").
//!
//! Every commit writes an entry, even one that touched nothing an index holds, so a missing
//! entry means the log cannot tell what happened (pruned, or written by a build without the
//! log), never "nothing happened". Bounds: a commit deletes the entry [`CHANGE_LOG_KEEP`]
//! commits older than itself, and a writable handle prunes, on close, what every index on
//! disk already covers ([`Graph::prune_changes`]).

use crate::changes::ChangeSet;
use crate::error::{EngineError, Result};
use crate::graph::Graph;
use crate::storage::{Batch, Scan, Space};
use cairn_storage_format::{ChangeKey, ChangeRecord};
use std::sync::Arc;

/// Entries kept at most: an index further behind than this many commits is rebuilt (replaying
/// that many commits would cost about as much).
pub const CHANGE_LOG_KEEP: u64 = 100_000;

impl Graph {
    /// The change sets of the commits after `after` up to `through`, in order; `None` when the
    /// log does not hold every one of them (pruned, older than the log, a database whose log
    /// a read-only open does not have yet). Reads this handle's view (a reader's as of its
    /// last catch-up).
    pub fn changes_between(&self, after: u64, through: u64) -> Result<Option<Vec<Arc<ChangeSet>>>> {
        if through <= after {
            return Ok(Some(Vec::new()));
        }
        if through - after > CHANGE_LOG_KEEP {
            return Ok(None);
        }
        self.ops.count(crate::stats::Op::PrefixScan);
        let mut out = Vec::with_capacity((through - after) as usize);
        let (start, end) = (ChangeKey(after + 1).encode(), ChangeKey(through).encode());
        let mut expect = after + 1;
        let mut complete = true;
        self.storage.scan(
            Space::Changes,
            Scan::Range {
                start: &start,
                end: None,
            },
            &mut |k, v| {
                let ChangeKey(commit) =
                    ChangeKey::decode(k).map_err(EngineError::corrupt("change log key"))?;
                if commit != expect {
                    complete = false;
                    return Ok(false);
                }
                let record =
                    ChangeRecord::decode(v).map_err(EngineError::corrupt("change log record"))?;
                out.push(Arc::new(ChangeSet::from_record(commit, record)));
                expect += 1;
                Ok(k < end.as_slice())
            },
        )?;
        Ok((complete && expect > through).then_some(out))
    }

    /// Deletes the log entries of commits up to `through`: every derived index on disk covers
    /// them. Not a commit (no counter step, no change set: nothing an index holds changes);
    /// refused on a read-only handle. Returns how many entries went.
    pub fn prune_changes(&self, through: u64) -> Result<usize> {
        self.ensure_writable()?;
        let mut batch = Batch::default();
        let end = ChangeKey(through.saturating_add(1)).encode();
        let mut n = 0;
        self.storage.scan(
            Space::Changes,
            Scan::Range {
                start: &[],
                end: (through < u64::MAX).then_some(&end[..]),
            },
            &mut |k, _| {
                batch.delete(Space::Changes, k);
                n += 1;
                Ok(true)
            },
        )?;
        if n > 0 {
            crate::failpoint!("changes.prune.before_write");
            self.storage.commit(&batch, false)?;
            crate::failpoint!("changes.prune.after_write");
        }
        Ok(n)
    }
}

/// Puts the change log entry of the commit `changes` describes (its counter set) into the
/// commit's batch, and deletes the entry that falls out of the kept window.
pub(crate) fn log_commit(batch: &mut Batch, changes: &ChangeSet) -> Result<()> {
    let record = changes
        .record()
        .encode()
        .map_err(EngineError::encode("change log record"))?;
    batch.put(Space::Changes, ChangeKey(changes.commit).encode(), record);
    if let Some(old) = changes
        .commit
        .checked_sub(CHANGE_LOG_KEEP)
        .filter(|c| *c > 0)
    {
        batch.delete(Space::Changes, ChangeKey(old).encode());
    }
    Ok(())
}
