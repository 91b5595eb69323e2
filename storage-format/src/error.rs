use thiserror::Error;

/// A byte string that does not decode as the layout it was read as. Seeing one means the
/// database is corrupt or was written by an incompatible version.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum FormatError {
    #[error("truncated {0}")]
    Truncated(&'static str),
    #[error("invalid {0}")]
    Invalid(&'static str),
    #[error("{0} values cannot be indexed")]
    NotIndexable(&'static str),
    #[error("key has {found} bytes, expected {expected}")]
    KeyLength { expected: usize, found: usize },
    #[error("record version {found} is not supported (this build reads version {supported})")]
    UnknownRecordVersion { found: u8, supported: u8 },
    #[error("record decode failed: {0}")]
    Codec(String),
}
