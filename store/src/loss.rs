//! What a damaged write-ahead log loses and what recovering it does (`storage/rocks/wal.rs`):
//! the types of [`crate::EngineError::DamagedLog`] and of [`crate::wal`], apart from the
//! backend, so that the error type needs nothing of it.

use std::fmt;

/// Where the log stood after a commit returned: RocksDB's sequence number and Cairn's commit
/// counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Acknowledged {
    pub sequence: u64,
    pub commits: u64,
}

/// What is wrong with a database's log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogDamage {
    /// RocksDB found a damaged record (a checksum mismatch, a bad length, garbage): the log
    /// cannot be replayed past it.
    Corrupt { detail: String },
    /// The log replays cleanly but ends before the last acknowledged commit: it was cut short,
    /// replaced or deleted.
    Short,
}

/// What recovering a damaged log keeps and drops: the state as of commit `kept_commits` (RocksDB
/// sequence `kept_sequence`), and everything after it, which the last acknowledged commit (when
/// recorded) bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLoss {
    pub damage: LogDamage,
    pub kept_commits: u64,
    pub kept_sequence: u64,
    pub acknowledged: Option<Acknowledged>,
}

/// `commit n` or `commits a–b`.
fn commits(from: u64, to: u64) -> String {
    if from == to {
        format!("commit {from}")
    } else {
        format!("commits {from}–{to}")
    }
}

impl LogLoss {
    /// What is wrong with the log.
    pub fn cause(&self) -> String {
        match &self.damage {
            LogDamage::Corrupt { detail } => format!("its write-ahead log is damaged ({detail})"),
            LogDamage::Short => "its write-ahead log ends before the last acknowledged commit (it was cut short, replaced or deleted)".to_owned(),
        }
    }

    /// What recovering drops.
    pub fn dropped(&self) -> String {
        let k = self.kept_commits;
        let lost = self.acknowledged.filter(|a| a.commits > k);
        match (&self.damage, lost) {
            (LogDamage::Corrupt { .. }, Some(a)) => format!(
                "the log from the damage on: the acknowledged {} and anything after",
                commits(k + 1, a.commits)
            ),
            (LogDamage::Corrupt { .. }, None) => {
                format!("the log from the damage on, with any commits it holds after commit {k}")
            }
            (LogDamage::Short, Some(a)) => format!(
                "the acknowledged {}, which the log no longer holds",
                commits(k + 1, a.commits)
            ),
            (LogDamage::Short, None) => "nothing more".to_owned(),
        }
    }
}

impl fmt::Display for LogLoss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}; recovering keeps the database as of commit {} (sequence {}) and drops {}",
            self.cause(),
            self.kept_commits,
            self.kept_sequence,
            self.dropped()
        )
    }
}

/// What a recovery does: write `CURRENT` again, and keep and drop what a damaged log allows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// The MANIFEST a missing `CURRENT` is (to be) written to name.
    pub current: Option<String>,
    /// What the damaged log loses; `None` when it is whole.
    pub loss: Option<LogLoss>,
}

impl Recovery {
    /// Nothing to recover.
    pub fn is_clean(&self) -> bool {
        self.current.is_none() && self.loss.is_none()
    }
}

impl fmt::Display for Recovery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(m) = &self.current {
            write!(
                f,
                "rocksdb/CURRENT is missing: recovering writes it to name {m}, the newest MANIFEST"
            )?;
            if self.loss.is_none() {
                return write!(f, "; the log is checked once it opens");
            }
            write!(f, "; then ")?;
        }
        match &self.loss {
            Some(loss) => write!(f, "{loss}"),
            None if self.current.is_none() => {
                write!(f, "the database is whole: nothing to recover")
            }
            None => Ok(()),
        }
    }
}
