//! Identifier newtypes. Names (labels, relation types, property keys) are interned in the catalog to
//! small integers so that keys stay short and fixed-width.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Internal id of a node, allocated by the store, never reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct NodeId(pub u64);

/// Interned id of a node label (`Author`, `Paper`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct LabelId(pub u32);

/// Interned id of a relation type (`AUTHORED`, `CITES`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RelId(pub u32);

/// Interned id of a property key (`name`, `year`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PropKeyId(pub u32);

macro_rules! display_id {
    ($($t:ty => $prefix:literal),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    )*};
}
display_id!(NodeId => "#", LabelId => "label:", RelId => "rel:", PropKeyId => "prop:");
