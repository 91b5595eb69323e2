//! The single writer's lock, shared by [`crate::Writer`] and [`crate::BulkLoad`], with the thread
//! that holds it: a second writer on the holding thread gets [`EngineError::WriterBusy`] instead
//! of waiting for itself forever.

use crate::error::{EngineError, Result};
use parking_lot::{Mutex, MutexGuard};
use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::thread::ThreadId;
use std::time::Duration;

/// State owned by the single writer.
#[derive(Debug)]
pub(crate) struct WriterState {
    pub(crate) next_node_id: u64,
    /// The commit counter (`meta/commits`) of the last commit.
    pub(crate) commits: u64,
}

/// The writer's state behind its lock, and the thread holding the lock, if any.
#[derive(Debug)]
pub(crate) struct WriterSlot {
    state: Mutex<WriterState>,
    owner: Mutex<Option<ThreadId>>,
}

/// The writer lock, held until drop.
pub(crate) struct WriterLock<'g> {
    state: MutexGuard<'g, WriterState>,
    owner: &'g Mutex<Option<ThreadId>>,
}

impl Drop for WriterLock<'_> {
    fn drop(&mut self) {
        *self.owner.lock() = None;
    }
}

impl Deref for WriterLock<'_> {
    type Target = WriterState;
    fn deref(&self) -> &WriterState {
        &self.state
    }
}

impl DerefMut for WriterLock<'_> {
    fn deref_mut(&mut self) -> &mut WriterState {
        &mut self.state
    }
}

impl WriterSlot {
    pub(crate) fn new(state: WriterState) -> Self {
        WriterSlot {
            state: Mutex::new(state),
            owner: Mutex::new(None),
        }
    }

    /// Takes the lock of the database at `path`: an error at once if this thread holds it,
    /// else waits (for ever with `wait` `None`, else up to `wait`, then
    /// [`EngineError::WriterBusy`]).
    pub(crate) fn acquire(&self, path: &Path, wait: Option<Duration>) -> Result<WriterLock<'_>> {
        let me = std::thread::current().id();
        let busy = |reason: String| EngineError::WriterBusy {
            path: path.to_path_buf(),
            reason,
        };
        if *self.owner.lock() == Some(me) {
            return Err(busy(
                "this thread already holds the writer (a Writer, bulk load or transaction is \
                 open); commit or drop it first"
                    .into(),
            ));
        }
        let state = match wait {
            None => self.state.lock(),
            Some(t) => self
                .state
                .try_lock_for(t)
                .ok_or_else(|| busy(format!("another writer held the lock for more than {t:?}")))?,
        };
        *self.owner.lock() = Some(me);
        Ok(WriterLock {
            state,
            owner: &self.owner,
        })
    }
}
