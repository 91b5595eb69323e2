//! Cairn's on-disk format: identifiers, key layouts, value records and the record codec.
//!
//! This crate has no storage dependency: it only says how bytes look. Every layout here is
//! documented byte by byte in `docs/FORMAT.md` and pinned by golden-byte tests
//! (`tests/golden.rs`), so an accidental format change fails loudly.

pub mod codec;
pub mod error;
pub mod ids;
pub mod keys;
pub mod records;
pub mod rules;
pub mod value;

pub use error::FormatError;
pub use ids::{LabelId, NodeId, PropKeyId, RelId};
pub use keys::{
    ChangeKey, ExternalKey, InEdgeKey, MetaKey, NameKey, NodeKey, OutEdgeKey, PropIndexKey,
};
pub use records::{
    Annotation, AnnotationsRecord, CatalogRecord, ChangeRecord, Degree, EdgeProps, EmbedderDef,
    IndexDef, LinkingRecord, NodeRecord, RelationDef, FORMAT_VERSION,
};
pub use value::Value;
