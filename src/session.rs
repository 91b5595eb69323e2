//! `BEGIN` / `COMMIT` / `ROLLBACK` / `SAVEPOINT`: the open transaction of a REPL or a script,
//! on the facade's [`crate::Transaction`] (savepoints are the store writer's).

use crate::db::Cairn;
use crate::error::CairnError;
use crate::output::{Done, Output};
use crate::transaction::{Transaction, TransactionOptions};
use crate::{CancelToken, Savepoint};
use cairn_exec::EngineCatalog;
use cairn_query::printer::name;
use cairn_query::{compile, parse, Compiled, Statement, TransactionControl};
use std::sync::Arc;

/// Statements run one after another with transaction state, as the REPL and `cairn query` run
/// them. Outside `BEGIN` each data statement commits alone; after `BEGIN` they accumulate in one
/// transaction that `COMMIT` applies at once and `ROLLBACK` drops. A session dropped with a
/// transaction open rolls it back.
///
/// While a transaction is open the session holds the database's writer: data statements and
/// `EXPLORE` see the transaction's own writes (EXPLORE through [`Transaction::explore`]'s
/// private copy), `ASK`, `SHOW` and `DESCRIBE` the last commit, and `CREATE INDEX`,
/// `RELATION … UNDER …` and `ANNOTATE` are refused until it ends.
pub struct Session<'c> {
    cairn: &'c Cairn,
    tx: Option<Open<'c>>,
}

/// An open `BEGIN`.
struct Open<'c> {
    tx: Transaction<'c>,
    /// Data statements that took effect so far (for the messages).
    statements: usize,
    /// Savepoints, oldest first, with `statements` when each was set.
    savepoints: Vec<(String, Savepoint, usize)>,
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
            // Data statements and EXPLORE see the names the transaction created so far;
            // everything else reads the last commit and resolves against its catalog.
            Some(open) if reads_transaction(&stmt) => {
                let catalog = EngineCatalog(Arc::new(open.tx.catalog().clone()));
                compile(&stmt, &catalog).map_err(|e| e.with_source(statement))?
            }
            _ => self.cairn.compile(statement)?,
        };
        match compiled {
            Compiled::Transaction(t) => self.control(t).map(Output::Done),
            Compiled::Mutation(m) => match &mut self.tx {
                Some(open) => {
                    // One statement is atomic inside the transaction too.
                    let done = open.tx.apply_atomic(&m)?;
                    open.statements += 1;
                    Ok(Output::Done(done))
                }
                None => self.cairn.run(Compiled::Mutation(m), cancel, trace),
            },
            Compiled::Explore(plan) => match &self.tx {
                Some(open) => Ok(Output::Exploration(open.tx.run_plan(&plan, trace, cancel)?)),
                None => self.cairn.run(Compiled::Explore(plan), cancel, trace),
            },
            Compiled::DeclareRelation { .. }
            | Compiled::CreateIndex { .. }
            | Compiled::Annotate { .. }
                if self.tx.is_some() =>
            {
                Err(CairnError::Transaction(
                    "RELATION … UNDER …, CREATE INDEX and ANNOTATE cannot run inside BEGIN … \
                     COMMIT; COMMIT or ROLLBACK first"
                        .into(),
                ))
            }
            other => self.cairn.run(other, cancel, trace),
        }
    }

    fn control(&mut self, t: TransactionControl) -> Result<Done, CairnError> {
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
                self.tx = Some(Open {
                    tx: self.cairn.begin(TransactionOptions::default())?,
                    statements: 0,
                    savepoints: Vec::new(),
                });
                Ok(done("BEGIN", "started", None, "transaction started".into()))
            }
            TransactionControl::Commit => {
                let open = self.tx.take().ok_or_else(none)?;
                open.tx.commit()?;
                let n = open.statements;
                Ok(done(
                    "COMMIT",
                    "committed",
                    Some(n as u64),
                    format!("committed {n} data statement(s)"),
                ))
            }
            TransactionControl::Rollback => {
                let open = self.tx.take().ok_or_else(none)?;
                let n = open.statements;
                Ok(done(
                    "ROLLBACK",
                    "rolled back",
                    Some(n as u64),
                    format!("rolled back {n} data statement(s)"),
                ))
            }
            TransactionControl::Savepoint(sp) => {
                let open = self.tx.as_mut().ok_or_else(none)?;
                // A savepoint set again moves: the newest one of a name is the one ROLLBACK TO
                // finds.
                let at = open.tx.savepoint();
                open.savepoints.push((sp.clone(), at, open.statements));
                Ok(done(
                    "SAVEPOINT",
                    "set",
                    None,
                    format!("savepoint {}", name(sp)),
                ))
            }
            TransactionControl::RollbackTo(sp) => {
                let open = self.tx.as_mut().ok_or_else(none)?;
                let Some(at) = open.savepoints.iter().rposition(|(n, _, _)| n == sp) else {
                    let known: Vec<String> = open
                        .savepoints
                        .iter()
                        .map(|(n, _, _)| name(n).to_string())
                        .collect();
                    return Err(CairnError::Transaction(if known.is_empty() {
                        format!("no savepoint {} (none is set)", name(sp))
                    } else {
                        format!("no savepoint {} (set: {})", name(sp), known.join(", "))
                    }));
                };
                let (_, point, statements) = open.savepoints[at];
                open.tx.rollback_to(point)?;
                open.savepoints.truncate(at + 1);
                let dropped = open.statements - statements;
                open.statements = statements;
                Ok(done(
                    "ROLLBACK TO",
                    "rolled back",
                    Some(dropped as u64),
                    format!(
                        "rolled back {dropped} data statement(s) to savepoint {}",
                        name(sp)
                    ),
                ))
            }
        }
    }
}

/// Whether `stmt` reads the open transaction (and so resolves names against it): data
/// statements and EXPLORE.
fn reads_transaction(stmt: &Statement) -> bool {
    matches!(
        stmt,
        Statement::Upsert(_)
            | Statement::AddEdge(_)
            | Statement::RemoveEdge(_)
            | Statement::RemoveNode(_)
            | Statement::Explore(_)
    )
}

fn done(
    statement: &'static str,
    outcome: &'static str,
    statements: Option<u64>,
    message: String,
) -> Done {
    Done {
        statement,
        outcome,
        statements,
        message,
    }
}
