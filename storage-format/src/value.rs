//! Property values and their order-preserving key encoding.

use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

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
