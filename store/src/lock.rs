//! The single writer's lock, shared by [`crate::Writer`] and [`crate::BulkLoad`], with the thread
//! that holds it: a second writer on the holding thread gets [`EngineError::WriterBusy`] instead
//! of waiting for itself forever.

use crate::error::{EngineError, Result};
use crate::graph::{Graph, WriterState};
use parking_lot::{Mutex, MutexGuard};
use std::ops::{Deref, DerefMut};
use std::thread::ThreadId;
use std::time::Duration;

/// The thread holding the writer lock, if any.
#[derive(Debug, Default)]
pub(crate) struct Owner(Mutex<Option<ThreadId>>);

/// The writer lock, held until drop.
pub(crate) struct WriterLock<'g> {
    state: MutexGuard<'g, WriterState>,
    owner: &'g Owner,
}

impl Drop for WriterLock<'_> {
    fn drop(&mut self) {
        *self.owner.0.lock() = None;
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

impl Graph {
    /// Takes the writer lock: an error at once if this thread holds it, else waits (for ever
    /// with `wait` `None`, else up to `wait`, then [`EngineError::WriterBusy`]).
    pub(crate) fn lock_writer(&self, wait: Option<Duration>) -> Result<WriterLock<'_>> {
        let me = std::thread::current().id();
        if *self.writer_owner.0.lock() == Some(me) {
            return Err(EngineError::WriterBusy {
                path: self.path.clone(),
                reason: "this thread already holds the writer (a Writer, bulk load or transaction \
                         is open); commit or drop it first"
                    .into(),
            });
        }
        let state = match wait {
            None => self.writer.lock(),
            Some(t) => self
                .writer
                .try_lock_for(t)
                .ok_or_else(|| EngineError::WriterBusy {
                    path: self.path.clone(),
                    reason: format!("another writer held the lock for more than {t:?}"),
                })?,
        };
        *self.writer_owner.0.lock() = Some(me);
        Ok(WriterLock {
            state,
            owner: &self.writer_owner,
        })
    }
}
