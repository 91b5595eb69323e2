//! An async face for tokio applications: the same operations as [`Cairn`], run on tokio's
//! blocking pool so that RocksDB reads, embedding and exploration never stall the runtime's
//! worker threads.

use crate::db::Cairn;
use crate::error::CairnError;
use crate::output::Output;
use crate::{CancelToken, Exploration, Transaction};
use std::sync::Arc;

/// A shareable async handle; cloning it is cheap (an `Arc`).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), cairn::CairnError> {
/// # let dir = tempfile::tempdir().map_err(|e| cairn::CairnError::Unsupported(e.to_string()))?;
/// let db = cairn::AsyncCairn::open(dir.path().to_path_buf()).await?;
/// let out = db.execute("SHOW LABELS".to_owned(), cairn::CancelToken::default()).await?;
/// assert!(matches!(out, cairn::Output::Listing(_)));
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct AsyncCairn(Arc<Cairn>);

impl AsyncCairn {
    /// Opens (or creates) the database at `path` on the blocking pool.
    pub async fn open(path: std::path::PathBuf) -> Result<AsyncCairn, CairnError> {
        let db = blocking(move || Cairn::open(path)).await?;
        Ok(AsyncCairn(Arc::new(db)))
    }

    /// Opens the database at `path` read-only on the blocking pool ([`Cairn::open_read_only`]).
    pub async fn open_read_only(path: std::path::PathBuf) -> Result<AsyncCairn, CairnError> {
        let db = blocking(move || Cairn::open_read_only(path)).await?;
        Ok(AsyncCairn(Arc::new(db)))
    }

    /// [`Cairn::catch_up`] on the blocking pool.
    pub async fn catch_up(&self) -> Result<bool, CairnError> {
        let db = Arc::clone(&self.0);
        blocking(move || db.catch_up()).await
    }

    /// Wraps an open handle.
    pub fn new(db: Cairn) -> Self {
        AsyncCairn(Arc::new(db))
    }

    /// The synchronous handle, for cheap calls that need no blocking pool.
    pub fn sync(&self) -> &Arc<Cairn> {
        &self.0
    }

    /// [`Cairn::explore`] on the blocking pool.
    pub async fn explore(&self, statement: String) -> Result<Exploration, CairnError> {
        let db = Arc::clone(&self.0);
        blocking(move || db.explore(&statement)).await
    }

    /// [`Cairn::execute`] on the blocking pool; `cancel` stops it between expansions (e.g. from a
    /// request's drop guard).
    pub async fn execute(
        &self,
        statement: String,
        cancel: CancelToken,
    ) -> Result<Output, CairnError> {
        let db = Arc::clone(&self.0);
        blocking(move || db.execute(&statement, &cancel)).await
    }
}

impl AsyncCairn {
    /// [`Cairn::transaction`] on the blocking pool: `f` runs there with the writer, and the
    /// commit (or rollback) happens before this resolves; a panic in `f` resumes here after the
    /// rollback.
    pub async fn transaction<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(&mut Transaction<'_>) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: From<CairnError> + Send + 'static,
    {
        let db = Arc::clone(&self.0);
        match tokio::task::spawn_blocking(move || db.transaction(f)).await {
            Ok(result) => result,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => Err(E::from(CairnError::Unsupported(format!(
                "a blocking task failed: {e}"
            )))),
        }
    }
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, CairnError> + Send + 'static,
) -> Result<T, CairnError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| CairnError::Unsupported(format!("a blocking task failed: {e}")))?
}
