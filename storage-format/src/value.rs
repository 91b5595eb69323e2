//! Property values and their order-preserving key encoding.
//!
//! Records store values with the record codec (postcard). Property-index keys need more: the
//! bytes of an encoded value must sort exactly like the values, so that an index range scan is
//! a RocksDB range scan. [`encode_ordered`] gives that encoding for every indexable value.

use crate::error::FormatError;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::fmt;

/// A property value. Lists are stored in records but cannot be indexed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Value>),
}

impl Value {
    /// The order used by property indexes: first by type (null < bool < int < float < string),
    /// then by value, with floats in IEEE-754 total order (so `-0.0 < 0.0` and NaN sorts last).
    /// `None` when either side is a list, which is not indexable.
    pub fn index_cmp(&self, other: &Value) -> Option<Ordering> {
        let (ta, tb) = (self.type_tag()?, other.type_tag()?);
        if ta != tb {
            return Some(ta.cmp(&tb));
        }
        Some(match (self, other) {
            (Value::Null, Value::Null) => Ordering::Equal,
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (Value::Int(a), Value::Int(b)) => a.cmp(b),
            (Value::Float(a), Value::Float(b)) => a.total_cmp(b),
            (Value::Str(a), Value::Str(b)) => a.as_bytes().cmp(b.as_bytes()),
            _ => return None,
        })
    }

    /// Whether the value can appear in a property index key.
    pub fn is_indexable(&self) -> bool {
        self.type_tag().is_some()
    }

    fn type_tag(&self) -> Option<u8> {
        Some(match self {
            Value::Null => TAG_NULL,
            Value::Bool(_) => TAG_BOOL,
            Value::Int(_) => TAG_INT,
            Value::Float(_) => TAG_FLOAT,
            Value::Str(_) => TAG_STR,
            Value::List(_) => return None,
        })
    }

    /// Short name of the value's type, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "string",
            Value::List(_) => "list",
        }
    }

    /// The string inside a `Str`, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x:?}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::List(items) => {
                f.write_str("[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::Str(s.to_owned())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::Str(s)
    }
}
impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Int(i)
    }
}
impl From<f64> for Value {
    fn from(x: f64) -> Self {
        Value::Float(x)
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

const TAG_NULL: u8 = 0x00;
const TAG_BOOL: u8 = 0x01;
const TAG_INT: u8 = 0x02;
const TAG_FLOAT: u8 = 0x03;
const TAG_STR: u8 = 0x04;

/// Appends the order-preserving encoding of `value` to `out`.
///
/// ```text
/// null    00
/// bool    01 b                        b = 00 | 01
/// int     02 [8 bytes BE of i ^ 1<<63]  sign bit flipped so negatives sort first
/// float   03 [8 bytes BE of f']         f' = !bits if negative else bits | 1<<63
/// string  04 [bytes, 00 escaped as 00 FF] 00 01
/// ```
/// The string terminator `00 01` sorts below any escaped content byte pair, so a string sorts
/// before every longer string it prefixes, and the encoding is self-delimiting (a node id can
/// follow it in a key).
pub fn encode_ordered(value: &Value, out: &mut Vec<u8>) -> Result<(), FormatError> {
    match value {
        Value::Null => out.push(TAG_NULL),
        Value::Bool(b) => out.extend_from_slice(&[TAG_BOOL, u8::from(*b)]),
        Value::Int(i) => {
            out.push(TAG_INT);
            out.extend_from_slice(&((*i as u64) ^ (1 << 63)).to_be_bytes());
        }
        Value::Float(x) => {
            out.push(TAG_FLOAT);
            let bits = x.to_bits();
            let ordered = if bits >> 63 == 1 {
                !bits
            } else {
                bits | (1 << 63)
            };
            out.extend_from_slice(&ordered.to_be_bytes());
        }
        Value::Str(s) => {
            out.push(TAG_STR);
            for &b in s.as_bytes() {
                if b == 0 {
                    out.extend_from_slice(&[0x00, 0xFF]);
                } else {
                    out.push(b);
                }
            }
            out.extend_from_slice(&[0x00, 0x01]);
        }
        Value::List(_) => return Err(FormatError::NotIndexable("list")),
    }
    Ok(())
}

/// Decodes one order-preserving value from the front of `bytes`; returns it and the rest.
pub fn decode_ordered(bytes: &[u8]) -> Result<(Value, &[u8]), FormatError> {
    let (&tag, rest) = bytes
        .split_first()
        .ok_or(FormatError::Truncated("ordered value"))?;
    match tag {
        TAG_NULL => Ok((Value::Null, rest)),
        TAG_BOOL => match rest.split_first() {
            Some((0, r)) => Ok((Value::Bool(false), r)),
            Some((1, r)) => Ok((Value::Bool(true), r)),
            Some(_) => Err(FormatError::Invalid("bool byte")),
            None => Err(FormatError::Truncated("bool")),
        },
        TAG_INT => {
            let (v, r) = take_u64(rest, "int")?;
            Ok((Value::Int((v ^ (1 << 63)) as i64), r))
        }
        TAG_FLOAT => {
            let (v, r) = take_u64(rest, "float")?;
            let bits = if v >> 63 == 1 { v & !(1 << 63) } else { !v };
            Ok((Value::Float(f64::from_bits(bits)), r))
        }
        TAG_STR => {
            let mut s = Vec::new();
            let mut i = 0;
            loop {
                match (rest.get(i), rest.get(i + 1)) {
                    (Some(0), Some(0xFF)) => {
                        s.push(0);
                        i += 2;
                    }
                    (Some(0), Some(0x01)) => {
                        let text = String::from_utf8(s)
                            .map_err(|_| FormatError::Invalid("utf-8 in string"))?;
                        return Ok((Value::Str(text), &rest[i + 2..]));
                    }
                    (Some(0), _) => return Err(FormatError::Invalid("string escape")),
                    (Some(&b), _) => {
                        s.push(b);
                        i += 1;
                    }
                    (None, _) => return Err(FormatError::Truncated("string")),
                }
            }
        }
        _ => Err(FormatError::Invalid("value type tag")),
    }
}

pub(crate) fn take_u64<'a>(
    bytes: &'a [u8],
    what: &'static str,
) -> Result<(u64, &'a [u8]), FormatError> {
    let (head, rest) = bytes
        .split_at_checked(8)
        .ok_or(FormatError::Truncated(what))?;
    let mut buf = [0u8; 8];
    buf.copy_from_slice(head);
    Ok((u64::from_be_bytes(buf), rest))
}

pub(crate) fn take_u32<'a>(
    bytes: &'a [u8],
    what: &'static str,
) -> Result<(u32, &'a [u8]), FormatError> {
    let (head, rest) = bytes
        .split_at_checked(4)
        .ok_or(FormatError::Truncated(what))?;
    let mut buf = [0u8; 4];
    buf.copy_from_slice(head);
    Ok((u32::from_be_bytes(buf), rest))
}
