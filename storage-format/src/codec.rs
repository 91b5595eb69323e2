//! The one record codec: a leading record-version byte, then the postcard encoding of the record.
//!
//! postcard's wire format is documented and stable across 1.x, which is why it was chosen over
//! bincode (unmaintained). The version byte lets a future layout change be read side by side
//! with the old one instead of being misread.

use crate::error::FormatError;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Version byte written in front of every record value.
pub const RECORD_VERSION: u8 = 1;

/// Encodes a record as `RECORD_VERSION ‖ postcard(record)`. postcard fails only on sequences
/// of unknown length or a `Serialize` impl's own error, neither of which today's records have;
/// should one appear, the write fails with the reason rather than storing a record that no
/// longer decodes.
pub fn encode<T: Serialize>(record: &T) -> Result<Vec<u8>, FormatError> {
    postcard::to_extend(record, vec![RECORD_VERSION]).map_err(|e| FormatError::Codec(e.to_string()))
}

/// Decodes a record written by [`encode`], refusing unknown versions and trailing bytes.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, FormatError> {
    let (&version, body) = bytes
        .split_first()
        .ok_or(FormatError::Truncated("record"))?;
    if version != RECORD_VERSION {
        return Err(FormatError::UnknownRecordVersion {
            found: version,
            supported: RECORD_VERSION,
        });
    }
    let (value, rest) =
        postcard::take_from_bytes(body).map_err(|e| FormatError::Codec(e.to_string()))?;
    if !rest.is_empty() {
        return Err(FormatError::Codec(format!("{} trailing bytes", rest.len())));
    }
    Ok(value)
}
