//! Transactions: a closure that writes through the store's single writer and commits when it
//! returns `Ok`, or leaves the database unchanged when it returns `Err` or panics.

use crate::db::Cairn;
use crate::error::CairnError;
use crate::mutation::apply;
use crate::output::{Done, Output};
use crate::{Exploration, Writer};
use cairn_exec::CancelToken;
use cairn_query::{Compiled, Mutation};
use cairn_storage_format::NodeId;
use std::ops::{Deref, DerefMut};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How a transaction commits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TransactionOptions {
    /// fsync the write-ahead log on commit; `None` (the default) takes the database's
    /// `GraphOptions::sync_writes`, which is off: a commit survives a killed process but not a
    /// power loss.
    pub sync: Option<bool>,
    /// Wait at most this long for another thread's writer, then fail with `WriterBusy`;
    /// `None` (the default) waits until it is free.
    pub wait: Option<Duration>,
}

/// An open transaction: the store's [`Writer`] (every write and overlay read of it, savepoints
/// with [`Writer::savepoint`] / [`Writer::rollback_to`]) plus reads by name and EXPLORE.
///
/// Reads see the graph as of the transaction's start plus its own writes: the transaction holds
/// the database's single writer, so nothing else commits meanwhile. Readers elsewhere see
/// none of its writes until the commit, then all of them.
#[derive(Debug)]
pub struct Transaction<'a> {
    db: &'a Cairn,
    writer: Writer<'a>,
}

impl<'a> Deref for Transaction<'a> {
    type Target = Writer<'a>;
    fn deref(&self) -> &Writer<'a> {
        &self.writer
    }
}

impl DerefMut for Transaction<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.writer
    }
}

/// Numbers the private copies of concurrent [`Transaction::explore`] calls.
static VIEWS: AtomicU64 = AtomicU64::new(0);

impl Transaction<'_> {
    /// The id of node (`label`, `key`) as this transaction would leave it.
    pub fn lookup(&self, label: &str, key: &str) -> Result<Option<NodeId>, CairnError> {
        match self.writer.catalog().label_id(label) {
            Some(l) => Ok(self.writer.node_id(l, key)?),
            None => Ok(None),
        }
    }

    /// Runs an EXPLORE statement on the graph as this transaction would leave it.
    ///
    /// The executor reads through the store, which cannot take in the transaction's overlay;
    /// so the statement runs on a private copy: a RocksDB checkpoint of the database (hard
    /// links, inside the database directory) with the transaction's batch committed into it,
    /// read through a store view (only what the query touches) and deleted afterwards. That
    /// costs a checkpoint per call (fine for scripts and tests, not for a hot path), and SEARCH
    /// entries scan vectors exactly instead of using the HNSW index.
    pub fn explore(&self, statement: &str) -> Result<Exploration, CairnError> {
        let catalog = cairn_exec::EngineCatalog(std::sync::Arc::new(self.writer.catalog().clone()));
        match cairn_query::prepare(statement, &catalog)? {
            Compiled::Explore(plan) => self.run_plan(&plan, false, &CancelToken::default()),
            _ => Err(CairnError::Unsupported(
                "expected an EXPLORE statement".into(),
            )),
        }
    }

    /// Runs a data statement (`UPSERT`, `ADD EDGE`, `REMOVE …`) or an `EXPLORE` in this
    /// transaction, its names resolved against the transaction (so it sees the labels and
    /// relations it created). A data statement is atomic: one that fails leaves the transaction
    /// as it was. Other statements run on the database ([`Cairn::execute`]) or need a
    /// [`crate::Session`] (`BEGIN`, `COMMIT`, …), and are refused here.
    pub fn execute(&mut self, statement: &str) -> Result<Output, CairnError> {
        let catalog = cairn_exec::EngineCatalog(std::sync::Arc::new(self.writer.catalog().clone()));
        match cairn_query::prepare(statement, &catalog)? {
            Compiled::Mutation(m) => Ok(Output::Done(self.apply_atomic(&m)?)),
            Compiled::Explore(plan) => Ok(Output::Exploration(self.run_plan(
                &plan,
                false,
                &CancelToken::default(),
            )?)),
            _ => Err(CairnError::Transaction(
                "only data statements (UPSERT, ADD EDGE, REMOVE …) and EXPLORE run inside a \
                 transaction"
                    .into(),
            )),
        }
    }

    /// Applies one data statement inside a savepoint of its own: on error the transaction is
    /// rolled back to before it.
    pub(crate) fn apply_atomic(&mut self, m: &Mutation) -> Result<Done, CairnError> {
        let before = self.writer.savepoint();
        let result = apply(&mut self.writer, m);
        if result.is_err() {
            self.writer.rollback_to(before)?;
        }
        self.writer.release(before)?;
        result
    }

    /// Runs a compiled EXPLORE plan on the private copy (see [`Transaction::explore`]).
    pub(crate) fn run_plan(
        &self,
        plan: &cairn_query::Plan,
        trace: bool,
        cancel: &CancelToken,
    ) -> Result<Exploration, CairnError> {
        let n = VIEWS.fetch_add(1, Ordering::Relaxed);
        let dir = self
            .db
            .graph()
            .path()
            .join(format!("tx-view.{}.{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let result = (|| {
            let copy = self.writer.fork(&dir)?;
            let view = cairn_exec::StoreView::new(&copy, self.db.embedder().id());
            self.db.run_plan_on(&copy, &view, None, plan, trace, cancel)
        })();
        let _ = std::fs::remove_dir_all(&dir);
        result
    }

    /// Commits (the closure API commits on `Ok`; sessions commit on `COMMIT`), after embedding
    /// the new or changed descriptions into the same batch ([`Cairn::embed_pending`]).
    pub(crate) fn commit(mut self) -> Result<crate::CommitStats, CairnError> {
        self.db.embed_pending(&mut self.writer)?;
        cairn_store::failpoint!("transaction.before_commit");
        let stats = self.writer.commit()?;
        self.db.committed();
        Ok(stats)
    }

    /// Whether node `id` exists as this transaction would leave it.
    pub fn contains(&self, id: NodeId) -> Result<bool, CairnError> {
        Ok(self.writer.node(id)?.is_some())
    }
}

impl Cairn {
    /// Runs `f` in a transaction with default [`TransactionOptions`]: commits what it wrote when
    /// it returns `Ok`, discards it when it returns `Err` or panics (the panic then resumes).
    ///
    /// On the thread that already holds the writer (a [`Writer`], bulk import or another
    /// transaction) this fails at once with `EngineError::WriterBusy` rather than deadlocking;
    /// on another thread it waits (set [`TransactionOptions::wait`] to bound that).
    ///
    /// ```
    /// # fn main() -> Result<(), cairn::CairnError> {
    /// # let dir = tempfile::tempdir().map_err(|e| cairn::CairnError::Unsupported(e.to_string()))?;
    /// let db = cairn::Cairn::open(dir.path())?;
    /// db.transaction(|tx| {
    ///     let a = tx.upsert_node("Author", "a1", [("name", cairn::Value::from("Ann"))], None)?;
    ///     let before = tx.savepoint();
    ///     tx.upsert_node("Author", "a2", [("name", cairn::Value::from("Bo"))], None)?;
    ///     tx.rollback_to(before)?; // a2 is gone again
    ///     assert_eq!(tx.lookup("Author", "a1")?, Some(a));
    ///     Ok::<_, cairn::CairnError>(())
    /// })?;
    /// assert!(cairn::GraphRead::node_id(db.graph(), "Author", "a2")?.is_none());
    /// # Ok(()) }
    /// ```
    pub fn transaction<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut Transaction<'_>) -> Result<T, E>,
        E: From<CairnError>,
    {
        self.transaction_with(TransactionOptions::default(), f)
    }

    /// Opens a transaction that commits on [`Transaction::commit`] and rolls back on drop.
    pub(crate) fn begin(&self, options: TransactionOptions) -> Result<Transaction<'_>, CairnError> {
        // A read-only handle refuses before the closure runs, not at its commit.
        self.graph().ensure_writable()?;
        let mut writer = match options.wait {
            None => self.graph().writer(),
            Some(wait) => self.graph().writer_timeout(wait),
        }?;
        if let Some(sync) = options.sync {
            writer.set_sync(sync);
        }
        Ok(Transaction { db: self, writer })
    }

    /// [`Cairn::transaction`] with `options`.
    pub fn transaction_with<T, E, F>(&self, options: TransactionOptions, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut Transaction<'_>) -> Result<T, E>,
        E: From<CairnError>,
    {
        let mut tx = self.begin(options).map_err(E::from)?;
        // The transaction is dropped (its batch discarded, the writer released) before an error
        // returns or a panic resumes; nothing of `f`'s state outlives the unwind.
        match catch_unwind(AssertUnwindSafe(|| f(&mut tx))) {
            Ok(Ok(value)) => {
                tx.commit().map_err(E::from)?;
                Ok(value)
            }
            Ok(Err(e)) => {
                drop(tx);
                Err(e)
            }
            Err(panic) => {
                drop(tx);
                resume_unwind(panic)
            }
        }
    }
}
