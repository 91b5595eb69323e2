//! `BEGIN` / `COMMIT` / `ROLLBACK` / `SAVEPOINT`: the open transaction of a REPL or a script.
//!
//! With [`crate::mutation`] this is the whole write path of the language, kept small so that it
//! can move onto a transaction API with snapshot reads when the store has one.

use crate::db::{Cairn, Output};
use crate::error::CairnError;
use crate::mutation::apply;
use crate::{CancelToken, Writer};
use cairn_agent::EngineCatalog;
use cairn_query::printer::name;
use cairn_query::{compile, parse, Compiled, Mutation, Statement, TransactionControl};
use std::sync::Arc;

/// Statements run one after another with transaction state, as the REPL and `cairn query` run
/// them. Outside `BEGIN` each data statement commits alone; after `BEGIN` they accumulate in one
/// writer batch that `COMMIT` applies at once and `ROLLBACK` drops. A session dropped with a
/// transaction open rolls it back.
///
/// While a transaction is open the session holds the database's writer: reads (`EXPLORE`, `ASK`,
/// `SHOW`) see the last commit, not the transaction's own writes, and `CREATE INDEX` and
/// `RELATION … UNDER …` are refused until it ends.
pub struct Session<'c> {
    cairn: &'c Cairn,
    tx: Option<Transaction<'c>>,
}

struct Transaction<'c> {
    writer: Writer<'c>,
    /// The data statements run so far, to rebuild the batch after `ROLLBACK TO` or a failed
    /// statement (a writer batch cannot be partly undone).
    log: Vec<Mutation>,
    /// Savepoints, oldest first, with the length of `log` when each was set.
    savepoints: Vec<(String, usize)>,
}

impl std::fmt::Debug for Session<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("in_transaction", &self.in_transaction())
            .finish()
    }
}

impl Cairn {
    /// A [`Session`]: statements with `BEGIN` / `COMMIT` / `ROLLBACK`, as the REPL runs them.
    pub fn session(&self) -> Session<'_> {
        Session {
            cairn: self,
            tx: None,
        }
    }
}

impl<'c> Session<'c> {
    /// Whether a `BEGIN` is waiting for its `COMMIT` or `ROLLBACK`.
    pub fn in_transaction(&self) -> bool {
        self.tx.is_some()
    }

    /// Runs one statement; see [`Cairn::execute_with`] for `cancel` and `trace`.
    pub fn execute_with(
        &mut self,
        statement: &str,
        cancel: &CancelToken,
        trace: bool,
    ) -> Result<Output, CairnError> {
        let stmt = parse(statement)?;
        let compiled = match &self.tx {
            // Data statements see the names the transaction created so far; everything else
            // reads the last commit and resolves against its catalog.
            Some(tx) if is_data(&stmt) => {
                let catalog = EngineCatalog(Arc::new(tx.writer.catalog().clone()));
                compile(&stmt, &catalog).map_err(|e| e.with_source(statement))?
            }
            _ => self.cairn.compile(statement)?,
        };
        match compiled {
            Compiled::Transaction(t) => self.control(t).map(Output::Text),
            Compiled::Mutation(m) => match &mut self.tx {
                Some(tx) => match apply(&mut tx.writer, &m) {
                    Ok(text) => {
                        tx.log.push(m);
                        Ok(Output::Text(text))
                    }
                    Err(e) => {
                        self.rebuild(None)?;
                        Err(e)
                    }
                },
                None => self.cairn.run(Compiled::Mutation(m), cancel, trace),
            },
            Compiled::DeclareRelation { .. } | Compiled::CreateIndex { .. }
                if self.tx.is_some() =>
            {
                Err(CairnError::Transaction(
                    "RELATION … UNDER … and CREATE INDEX cannot run inside BEGIN … COMMIT; \
                     COMMIT or ROLLBACK first"
                        .into(),
                ))
            }
            other => self.cairn.run(other, cancel, trace),
        }
    }

    fn control(&mut self, t: TransactionControl) -> Result<String, CairnError> {
        let none = || CairnError::Transaction(format!("{t} without BEGIN"));
        match &t {
            TransactionControl::Begin => {
                if self.tx.is_some() {
                    return Err(CairnError::Transaction(
                        "BEGIN inside a transaction: COMMIT or ROLLBACK the open one first".into(),
                    ));
                }
                // Refused at once on a read-only handle, not at the COMMIT.
                self.cairn.graph().ensure_writable()?;
                self.tx = Some(Transaction {
                    writer: self.cairn.graph().writer(),
                    log: Vec::new(),
                    savepoints: Vec::new(),
                });
                Ok("transaction started".into())
            }
            TransactionControl::Commit => {
                let tx = self.tx.take().ok_or_else(none)?;
                let n = tx.log.len();
                tx.writer.commit()?;
                Ok(format!("committed {n} data statement(s)"))
            }
            TransactionControl::Rollback => {
                let tx = self.tx.take().ok_or_else(none)?;
                Ok(format!("rolled back {} data statement(s)", tx.log.len()))
            }
            TransactionControl::Savepoint(sp) => {
                let tx = self.tx.as_mut().ok_or_else(none)?;
                // A savepoint set again moves: the newest one of a name is the one ROLLBACK TO
                // finds.
                tx.savepoints.push((sp.clone(), tx.log.len()));
                Ok(format!("savepoint {}", name(sp)))
            }
            TransactionControl::RollbackTo(sp) => {
                let tx = self.tx.as_ref().ok_or_else(none)?;
                let Some(at) = tx.savepoints.iter().rposition(|(n, _)| n == sp) else {
                    let known: Vec<String> = tx
                        .savepoints
                        .iter()
                        .map(|(n, _)| name(n).to_string())
                        .collect();
                    return Err(CairnError::Transaction(if known.is_empty() {
                        format!("no savepoint {} (none is set)", name(sp))
                    } else {
                        format!("no savepoint {} (set: {})", name(sp), known.join(", "))
                    }));
                };
                let dropped = tx.log.len() - tx.savepoints[at].1;
                self.rebuild(Some(at))?;
                Ok(format!(
                    "rolled back {dropped} data statement(s) to savepoint {}",
                    name(sp)
                ))
            }
        }
    }

    /// Starts the batch again from the log: up to savepoint number `to` (which stays), or all
    /// of it. If that fails the transaction is gone and the error says so.
    fn rebuild(&mut self, to: Option<usize>) -> Result<(), CairnError> {
        let Some(Transaction {
            writer,
            mut log,
            mut savepoints,
        }) = self.tx.take()
        else {
            return Ok(());
        };
        if let Some(at) = to {
            log.truncate(savepoints[at].1);
            savepoints.truncate(at + 1);
        }
        // The writer lock is released before it is taken again.
        drop(writer);
        let mut writer = self.cairn.graph().writer();
        for m in &log {
            if let Err(e) = apply(&mut writer, m) {
                return Err(CairnError::Transaction(format!(
                    "the transaction was rolled back: replaying `{m}` failed: {e}"
                )));
            }
        }
        self.tx = Some(Transaction {
            writer,
            log,
            savepoints,
        });
        Ok(())
    }
}

/// Whether `stmt` changes data (and so resolves names against the open transaction).
fn is_data(stmt: &Statement) -> bool {
    matches!(
        stmt,
        Statement::Upsert(_)
            | Statement::AddEdge(_)
            | Statement::RemoveEdge(_)
            | Statement::RemoveNode(_)
    )
}
