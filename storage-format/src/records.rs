//! Value records: what the column families store under their keys.

use crate::codec;
use crate::error::FormatError;
use crate::ids::{LabelId, NodeId, PropKeyId, RelId};
use crate::value::{take_u64, Value};
use serde::{Deserialize, Serialize};

/// The database format version, stored under `meta/format`. A database whose version is higher
/// than this build's is refused at open instead of being misread. Version 2 added the `name`
/// column family, which a writable open builds once for a version-1 database.
pub const FORMAT_VERSION: u32 = 2;

/// Value of the `node` column family.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeRecord {
    pub label: LabelId,
    /// External key, unique per label (the id from the dump).
    pub key: String,
    /// Properties sorted by key id, at most one value per key.
    pub props: Vec<(PropKeyId, Value)>,
    /// One-sentence description read by agents and embedders; `None` means "derive one".
    pub description: Option<String>,
}

impl NodeRecord {
    pub fn encode(&self) -> Result<Vec<u8>, FormatError> {
        codec::encode(self)
    }
    pub fn decode(bytes: &[u8]) -> Result<Self, FormatError> {
        codec::decode(bytes)
    }
    /// The value of property `key`, if set.
    pub fn prop(&self, key: PropKeyId) -> Option<&Value> {
        self.props
            .binary_search_by_key(&key, |(k, _)| *k)
            .ok()
            .map(|i| &self.props[i].1)
    }
}

/// Value of the `out` and `in` column families: the edge's properties.
///
/// Most edges have none, so an edge without weight and properties is stored as the empty byte
/// string (no version byte); anything else is a versioned record. The same bytes are written
/// under both directions so that listing in-neighbours needs no second lookup.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EdgeProps {
    pub weight: Option<f32>,
    pub props: Vec<(PropKeyId, Value)>,
}

impl EdgeProps {
    pub fn is_empty(&self) -> bool {
        self.weight.is_none() && self.props.is_empty()
    }
    pub fn encode(&self) -> Result<Vec<u8>, FormatError> {
        if self.is_empty() {
            Ok(Vec::new())
        } else {
            codec::encode(self)
        }
    }
    pub fn decode(bytes: &[u8]) -> Result<Self, FormatError> {
        if bytes.is_empty() {
            Ok(EdgeProps::default())
        } else {
            codec::decode(bytes)
        }
    }
}

/// A relation type in the catalog, with its optional parent in the relation hierarchy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelationDef {
    pub name: String,
    pub parent: Option<RelId>,
    /// Which (source label, destination label) pairs this relation has connected: the schema
    /// the planner reads to choose relation paths. Sorted, deduplicated.
    pub endpoints: Vec<(LabelId, LabelId)>,
}

/// A declared property index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexDef {
    pub label: LabelId,
    pub prop: PropKeyId,
}

/// The embedder whose vectors the database holds; a database never mixes two.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmbedderDef {
    pub id: String,
    pub dim: u32,
}

/// Value of `meta/catalog`. Ids are positions: `labels[i]` is `LabelId(i)`, and so on, so ids
/// are dense and never reused.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogRecord {
    pub labels: Vec<String>,
    pub relations: Vec<RelationDef>,
    pub prop_keys: Vec<String>,
    pub indexes: Vec<IndexDef>,
    pub embedder: Option<EmbedderDef>,
}

impl CatalogRecord {
    pub fn encode(&self) -> Result<Vec<u8>, FormatError> {
        codec::encode(self)
    }
    pub fn decode(bytes: &[u8]) -> Result<Self, FormatError> {
        codec::decode(bytes)
    }
}

/// What a user said about a label, relation or property: a description and other names for it
/// (`ANNOTATE …`, or an import's schema record). The planner reads both as words for the element.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Annotation {
    pub description: Option<String>,
    pub aliases: Vec<String>,
}

impl Annotation {
    /// Nothing said: such an annotation is not stored.
    pub fn is_empty(&self) -> bool {
        self.description.is_none() && self.aliases.is_empty()
    }
}

/// Value of `meta/annotations`: the annotations of schema elements, each list sorted by id.
/// A separate key beside `meta/catalog` (and written in the same batch), so that databases
/// written before annotations existed read as having none, with no format change.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnnotationsRecord {
    pub labels: Vec<(LabelId, Annotation)>,
    pub relations: Vec<(RelId, Annotation)>,
    pub props: Vec<(PropKeyId, Annotation)>,
}

impl AnnotationsRecord {
    pub fn encode(&self) -> Result<Vec<u8>, FormatError> {
        codec::encode(self)
    }
    pub fn decode(bytes: &[u8]) -> Result<Self, FormatError> {
        codec::decode(bytes)
    }
}

/// Value of the `changes` column family: what one commit changed, as the store's change set
/// says it (ids, not values), written in the commit's own batch so that a derived index saved
/// at an earlier commit can catch up by replaying these instead of being rebuilt. Each list is
/// sorted and holds an id at most once.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeRecord {
    pub nodes_upserted: Vec<NodeId>,
    pub nodes_removed: Vec<NodeId>,
    pub edges_added: Vec<(NodeId, RelId, NodeId)>,
    pub edges_removed: Vec<(NodeId, RelId, NodeId)>,
    pub props_touched: Vec<NodeId>,
    pub vectors_touched: Vec<NodeId>,
    /// A bulk import's new node ids `[start, end)`.
    pub imported: Option<(u64, u64)>,
    pub catalog_changed: bool,
}

impl ChangeRecord {
    pub fn encode(&self) -> Result<Vec<u8>, FormatError> {
        codec::encode(self)
    }
    pub fn decode(bytes: &[u8]) -> Result<Self, FormatError> {
        codec::decode(bytes)
    }
}

/// Value of `meta/linking`: the labels whose nodes `ASK` links only from marked mentions
/// (`ANNOTATE LABEL Term LINKING OFF`), sorted by id. Its own key, absent when no label is
/// unlinked, so that databases written before it, and programs written before it, see none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkingRecord {
    pub unlinked_labels: Vec<LabelId>,
}

impl LinkingRecord {
    pub fn encode(&self) -> Result<Vec<u8>, FormatError> {
        codec::encode(self)
    }
    pub fn decode(bytes: &[u8]) -> Result<Self, FormatError> {
        codec::decode(bytes)
    }
}

/// Value of the `degree` column family, and the merge operand that updates it.
///
/// ```text
/// +----------------+----------------+
/// | out i64 BE     | in i64 BE      |   16 bytes
/// +----------------+----------------+
/// ```
/// Stored values are counts; merge operands are signed deltas summed by the merge operator, so
/// an edge insert updates both endpoints' degrees without reading them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Degree {
    pub out: i64,
    pub inc: i64,
}

impl Degree {
    pub const LEN: usize = 16;

    pub fn encode(&self) -> [u8; 16] {
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&self.out.to_be_bytes());
        out[8..].copy_from_slice(&self.inc.to_be_bytes());
        out
    }

    pub fn decode(bytes: &[u8]) -> Result<Self, FormatError> {
        if bytes.len() != Self::LEN {
            return Err(FormatError::KeyLength {
                expected: Self::LEN,
                found: bytes.len(),
            });
        }
        let (out, rest) = take_u64(bytes, "out degree")?;
        let (inc, _) = take_u64(rest, "in degree")?;
        Ok(Degree {
            out: out as i64,
            inc: inc as i64,
        })
    }

    pub fn plus(self, other: Degree) -> Degree {
        Degree {
            out: self.out.saturating_add(other.out),
            inc: self.inc.saturating_add(other.inc),
        }
    }
}

/// Value of the `vector` column family: `dim` f32 values, little-endian (the in-memory layout of
/// every platform we build for, so loading is a plain copy).
pub fn encode_vector(v: &[f32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * 4);
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

/// Decodes a vector written by [`encode_vector`], checking its dimension.
pub fn decode_vector(bytes: &[u8], dim: usize) -> Result<Vec<f32>, FormatError> {
    let mut out = Vec::with_capacity(dim);
    decode_vector_into(bytes, dim, &mut out)?;
    Ok(out)
}

/// [`decode_vector`] into a reused buffer (cleared first), for scans over many vectors.
pub fn decode_vector_into(bytes: &[u8], dim: usize, out: &mut Vec<f32>) -> Result<(), FormatError> {
    if bytes.len() != dim * 4 {
        return Err(FormatError::KeyLength {
            expected: dim * 4,
            found: bytes.len(),
        });
    }
    out.clear();
    out.extend(
        bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
    Ok(())
}

/// Value of `meta/format` and `meta/next_node_id`: a big-endian integer.
pub fn encode_u64(v: u64) -> [u8; 8] {
    v.to_be_bytes()
}

pub fn decode_u64(bytes: &[u8]) -> Result<u64, FormatError> {
    if bytes.len() != 8 {
        return Err(FormatError::KeyLength {
            expected: 8,
            found: bytes.len(),
        });
    }
    Ok(take_u64(bytes, "u64")?.0)
}

/// Value of `meta/import_pending`: a node-id range `[start, end)`, two u64 BE.
pub fn encode_id_range(start: u64, end: u64) -> [u8; 16] {
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&start.to_be_bytes());
    out[8..].copy_from_slice(&end.to_be_bytes());
    out
}

pub fn decode_id_range(bytes: &[u8]) -> Result<(u64, u64), FormatError> {
    if bytes.len() != 16 {
        return Err(FormatError::KeyLength {
            expected: 16,
            found: bytes.len(),
        });
    }
    let (start, rest) = take_u64(bytes, "range start")?;
    let (end, _) = take_u64(rest, "range end")?;
    Ok((start, end))
}
