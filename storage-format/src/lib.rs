//! Cairn's on-disk format: identifiers, key layouts, value records and the record codec.
//!
//! This crate has no storage dependency: it only says how bytes look. Every layout here is
//! documented byte by byte in `docs/FORMAT.md` and pinned by golden-byte tests.

pub mod ids;
pub mod value;

pub use ids::{LabelId, NodeId, PropKeyId, RelId};
pub use value::Value;
