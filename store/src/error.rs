use cairn_storage_format::{FormatError, NodeId};
use std::path::PathBuf;
use thiserror::Error;

/// Errors of the storage engine.
#[derive(Debug, Error)]
pub enum EngineError {
    #[error("database {path} is locked by another process (or already open in this one)")]
    Locked { path: PathBuf, detail: String },
    #[error("database {path} has format version {found}, but this build of Cairn reads versions up to {supported}; upgrade Cairn to open it")]
    FutureFormat {
        path: PathBuf,
        found: u64,
        supported: u32,
    },
    /// A database of an older format opened read-only: the upgrade it needs is a write.
    #[error("database {path} has format version {found}, which lacks {missing}; open it once for writing (e.g. `cairn --db {path} stats`, without --read-only) to build it, then open it read-only")]
    OldFormat {
        path: PathBuf,
        found: u64,
        missing: &'static str,
    },
    #[error("{path} is not a Cairn database: {reason}")]
    NotCairn { path: PathBuf, reason: String },
    #[error("database {path} is open read-only: writes are refused")]
    ReadOnly { path: PathBuf },
    /// Too little free space to start a write safely (see `space.rs`): nothing was written.
    #[error("the disk of database {path} is full: {free} bytes free, a write needs {need}; nothing was changed — free some space and retry")]
    DiskFull { path: PathBuf, free: u64, need: u64 },
    #[error("database {path} does not exist")]
    Missing { path: PathBuf },
    /// The log cannot be replayed, or replays short of the last acknowledged commit
    /// (docs/RELIABILITY.md, "A damaged log"): the open is refused rather than losing commits
    /// in silence.
    #[error("database {path} was not opened: {loss}. `cairn --db {path} recover` shows this again and `cairn --db {path} recover --apply` does it")]
    DamagedLog {
        path: PathBuf,
        loss: crate::loss::LogLoss,
    },
    /// `rocksdb/CURRENT`, which names the live MANIFEST, is gone while the rest is there.
    #[error("database {path} is damaged: rocksdb/CURRENT is missing (it names the live {manifest}); nothing was changed. `cairn --db {path} recover --apply` writes it again")]
    MissingCurrent { path: PathBuf, manifest: String },
    #[error("corrupt {what}: {source}")]
    Corrupt {
        what: &'static str,
        source: FormatError,
    },
    /// A record the codec could not encode: the write stops before any of it is stored.
    #[error("cannot encode {what}: {source}")]
    Encode {
        what: &'static str,
        source: FormatError,
    },
    /// A second writer where it would wait for ever (on the thread that holds the writer) or
    /// longer than it asked to.
    #[error("the writer of database {path} is busy: {reason}")]
    WriterBusy { path: PathBuf, reason: String },
    #[error("node {0} does not exist")]
    NodeNotFound(NodeId),
    #[error("unknown {kind} `{name}`")]
    UnknownName { kind: &'static str, name: String },
    #[error("invalid input: {0}")]
    Invalid(String),
    #[error("relation `{name}` cannot have parent `{parent}`: that would make a cycle")]
    RelationCycle { name: String, parent: String },
    /// An error of the key-value engine itself (RocksDB, Redis), with its kind.
    #[error("{backend}: {message}")]
    Backend {
        backend: &'static str,
        kind: BackendErrorKind,
        message: String,
    },
    #[error("I/O on {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What kind of failure a [`EngineError::Backend`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendErrorKind {
    /// Stored bytes are damaged (a checksum mismatch, an unreadable table).
    Corruption,
    /// The engine's files or connections failed.
    Io,
    /// The engine cannot serve the request now (a failover, a timeout); retrying may work.
    Unavailable,
    /// Anything else the engine reports.
    Other,
}

impl EngineError {
    /// Maps a decoding error of `what` to [`EngineError::Corrupt`].
    pub fn corrupt(what: &'static str) -> impl FnOnce(FormatError) -> EngineError {
        move |source| EngineError::Corrupt { what, source }
    }

    /// Maps an encoding error of `what` to [`EngineError::Encode`].
    pub fn encode(what: &'static str) -> impl FnOnce(FormatError) -> EngineError {
        move |source| EngineError::Encode { what, source }
    }
}

pub type Result<T, E = EngineError> = std::result::Result<T, E>;
