//! A transaction a Python `with` block holds open across calls.
//!
//! The library's transaction borrows its database and the store's writer is bound to the thread
//! that took it, so it cannot live in a Python object. Each Python transaction gets a worker
//! thread that runs [`Cairn::transaction_with`] and, inside it, the calls the Python side sends
//! (each a closure over the open [`Transaction`]) until it is told to commit or roll back.
//! Python waits for each reply with the GIL released.

use cairn::{Cairn, CairnError, Transaction, TransactionOptions};
use std::collections::HashSet;
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;

type Job = Box<dyn FnOnce(&mut Transaction<'_>) + Send>;

enum Message {
    Run(Job),
    /// Leave the closure: `true` commits, `false` rolls back.
    Finish(bool),
}

/// How the worker's closure ends when it does not commit: rolled back on request, or failed
/// (at the start, or at the commit) with the library's error.
enum Stop {
    Rollback,
    Failed(CairnError),
}

impl From<CairnError> for Stop {
    fn from(e: CairnError) -> Self {
        Stop::Failed(e)
    }
}

/// The threads with an open transaction of one database handle: a write from such a thread
/// outside its transaction would wait for the writer that thread's own transaction holds.
pub(crate) type Holders = Arc<Mutex<HashSet<ThreadId>>>;

/// An open transaction: the channel to its worker, and the thread that began it.
#[derive(Debug)]
pub(crate) struct TxHandle {
    jobs: Sender<Message>,
    /// The worker's outcome (behind a lock only to make the handle `Sync`).
    done: Mutex<Receiver<Result<(), CairnError>>>,
    holders: Holders,
    owner: ThreadId,
}

impl std::fmt::Debug for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Message::Run(_) => f.write_str("Run"),
            Message::Finish(c) => write!(f, "Finish({c})"),
        }
    }
}

impl TxHandle {
    /// Starts a transaction on a worker thread; returns once it holds the writer, or with the
    /// error that kept it from doing so (read-only, writer busy beyond `options.wait`).
    pub(crate) fn begin(
        db: Arc<Cairn>,
        options: TransactionOptions,
        holders: Holders,
    ) -> Result<TxHandle, CairnError> {
        let owner = std::thread::current().id();
        let (jobs, inbox) = channel::<Message>();
        let (started_tx, started) = sync_channel::<Result<(), CairnError>>(1);
        let (done_tx, done) = sync_channel::<Result<(), CairnError>>(1);
        std::thread::Builder::new()
            .name("cairn-transaction".into())
            .spawn(move || {
                let mut began = false;
                let started_inside = started_tx.clone();
                let outcome = db.transaction_with(options, |tx| {
                    began = true;
                    let _ = started_inside.send(Ok(()));
                    loop {
                        match inbox.recv() {
                            Ok(Message::Run(job)) => job(tx),
                            Ok(Message::Finish(true)) => return Ok(()),
                            // rollback, or the handle was dropped without a finish
                            Ok(Message::Finish(false)) | Err(_) => return Err(Stop::Rollback),
                        }
                    }
                });
                let result = match outcome {
                    Ok(()) | Err(Stop::Rollback) => Ok(()),
                    Err(Stop::Failed(e)) => Err(e),
                };
                // The handle goes before the caller hears of the end, so that a close right
                // after a commit closes the store.
                drop(db);
                if began {
                    let _ = done_tx.send(result);
                } else {
                    let _ = started_tx.send(result);
                }
            })
            .map_err(|e| CairnError::Transaction(format!("cannot start a transaction: {e}")))?;
        match started.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(e),
            Err(_) => {
                return Err(CairnError::Transaction(
                    "the transaction could not start".into(),
                ))
            }
        }
        if let Ok(mut h) = holders.lock() {
            h.insert(owner);
        }
        Ok(TxHandle {
            jobs,
            done: Mutex::new(done),
            holders,
            owner,
        })
    }

    /// Runs `f` on the open transaction and returns its result.
    pub(crate) fn call<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Transaction<'_>) -> Result<R, CairnError> + Send + 'static,
    ) -> Result<R, CairnError> {
        let (reply, answer) = sync_channel(1);
        let job: Job = Box::new(move |tx| {
            let _ = reply.send(f(tx));
        });
        self.jobs.send(Message::Run(job)).map_err(|_| finished())?;
        answer.recv().map_err(|_| finished())?
    }

    /// Commits (`true`) or rolls back, and waits until the worker is done.
    pub(crate) fn finish(self, commit: bool) -> Result<(), CairnError> {
        let sent = self.jobs.send(Message::Finish(commit));
        match sent {
            Ok(()) => match self.done.lock() {
                Ok(done) => done.recv().unwrap_or_else(|_| Err(finished())),
                Err(_) => Err(finished()),
            },
            Err(_) => Err(finished()),
        }
    }
}

impl Drop for TxHandle {
    /// The worker rolls back when its channel closes without a finish (a handle dropped by the
    /// garbage collector); either way the thread no longer holds a transaction.
    fn drop(&mut self) {
        if let Ok(mut h) = self.holders.lock() {
            h.remove(&self.owner);
        }
    }
}

/// What a call on a transaction that has ended gets.
pub(crate) fn finished() -> CairnError {
    CairnError::Transaction("the transaction is already finished".into())
}
