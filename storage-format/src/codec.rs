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

/// Encodes a record as `RECORD_VERSION ‖ postcard(record)`.
pub fn encode<T: Serialize>(record: &T) -> Vec<u8> {
    let out = vec![RECORD_VERSION];
    // Serialising into a Vec cannot fail for our records (no maps with non-string keys, no
    // unsized sequences); postcard's only errors are for writers that run out of space.
    postcard::to_extend(record, out).unwrap_or_else(|_| vec![RECORD_VERSION])
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
