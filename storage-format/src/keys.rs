//! Key layouts of every column family. Keys are hand-encoded, fixed-width where possible and
//! big-endian, so that RocksDB's bytewise order is the numeric order and prefix scans list
//! exactly what they should (postcard's varints would not sort).
//!
//! Each type has `encode` and `decode`; decode never panics on arbitrary bytes.

use crate::error::FormatError;
use crate::ids::{LabelId, NodeId, PropKeyId, RelId};
use crate::value::{decode_ordered, encode_ordered, take_u32, take_u64, Value};

/// Key of the `node`, `degree` and `vector` column families: the node id alone.
///
/// ```text
/// +----------------+
/// | node_id u64 BE |   8 bytes
/// +----------------+
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeKey(pub NodeId);

impl NodeKey {
    pub const LEN: usize = 8;

    pub fn encode(&self) -> [u8; 8] {
        self.0 .0.to_be_bytes()
    }

    pub fn decode(bytes: &[u8]) -> Result<Self, FormatError> {
        exact_len(bytes, Self::LEN)?;
        let (id, _) = take_u64(bytes, "node id")?;
        Ok(NodeKey(NodeId(id)))
    }
}

/// Key of the `changes` column family: the commit counter of the commit whose change set the
/// entry holds (see [`crate::ChangeRecord`]).
///
/// ```text
/// +---------------+
/// | commit u64 BE |   8 bytes
/// +---------------+
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChangeKey(pub u64);

impl ChangeKey {
    pub const LEN: usize = 8;

    pub fn encode(&self) -> [u8; 8] {
        self.0.to_be_bytes()
    }

    pub fn decode(bytes: &[u8]) -> Result<Self, FormatError> {
        exact_len(bytes, Self::LEN)?;
        let (commit, _) = take_u64(bytes, "commit counter")?;
        Ok(ChangeKey(commit))
    }
}

/// Key of the `node_key` column family: maps a node's external key, unique per label, to its id.
///
/// ```text
/// +--------------+---------------------------+
/// | label u32 BE | external key (raw UTF-8)  |   4 + n bytes
/// +--------------+---------------------------+
/// ```
/// The external key runs to the end of the key, so it needs no terminator; a scan with the
/// 4-byte label prefix lists all nodes of a label in key order.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ExternalKey {
    pub label: LabelId,
    pub key: String,
}

impl ExternalKey {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(4 + self.key.len());
        Self::encode_into(self.label, &self.key, &mut out);
        out
    }

    /// Encodes the key of (`label`, `key`) into `out` (cleared first), for callers that encode
    /// many keys and reuse one buffer.
    pub fn encode_into(label: LabelId, key: &str, out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(&label.0.to_be_bytes());
        out.extend_from_slice(key.as_bytes());
    }

    /// The prefix shared by every key of `label`.
    pub fn label_prefix(label: LabelId) -> [u8; 4] {
        label.0.to_be_bytes()
    }

    pub fn decode(bytes: &[u8]) -> Result<Self, FormatError> {
        let (label, rest) = take_u32(bytes, "label id")?;
        let key =
            std::str::from_utf8(rest).map_err(|_| FormatError::Invalid("utf-8 in external key"))?;
        Ok(ExternalKey {
            label: LabelId(label),
            key: key.to_owned(),
        })
    }
}

/// Key of the `out` column family: one per edge, grouped by source node.
///
/// ```text
/// +------------+------------+------------+
/// | src u64 BE | rel u32 BE | dst u64 BE |   20 bytes
/// +------------+------------+------------+
/// ```
/// Listing the out-edges of a node is one seek to its 8-byte prefix; of one relation, to the
/// 12-byte prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OutEdgeKey {
    pub src: NodeId,
    pub rel: RelId,
    pub dst: NodeId,
}

/// Key of the `in` column family: the same edge seen from its destination.
///
/// ```text
/// +------------+------------+------------+
/// | dst u64 BE | rel u32 BE | src u64 BE |   20 bytes
/// +------------+------------+------------+
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InEdgeKey {
    pub dst: NodeId,
    pub rel: RelId,
    pub src: NodeId,
}

/// Length of an edge key, and of the prefixes used to scan them.
pub const EDGE_KEY_LEN: usize = 20;
/// Prefix of all edges of one node (its id).
pub const EDGE_NODE_PREFIX_LEN: usize = 8;
/// Prefix of all edges of one node and one relation.
pub const EDGE_REL_PREFIX_LEN: usize = 12;

fn encode_edge(a: NodeId, rel: RelId, b: NodeId) -> [u8; EDGE_KEY_LEN] {
    let mut out = [0u8; EDGE_KEY_LEN];
    out[..8].copy_from_slice(&a.0.to_be_bytes());
    out[8..12].copy_from_slice(&rel.0.to_be_bytes());
    out[12..].copy_from_slice(&b.0.to_be_bytes());
    out
}

fn decode_edge(bytes: &[u8]) -> Result<(NodeId, RelId, NodeId), FormatError> {
    exact_len(bytes, EDGE_KEY_LEN)?;
    let (a, rest) = take_u64(bytes, "edge node")?;
    let (rel, rest) = take_u32(rest, "edge relation")?;
    let (b, _) = take_u64(rest, "edge node")?;
    Ok((NodeId(a), RelId(rel), NodeId(b)))
}

/// Prefix of all edges of `node` in the `out` or `in` column family.
pub fn edge_prefix(node: NodeId) -> [u8; EDGE_NODE_PREFIX_LEN] {
    node.0.to_be_bytes()
}

/// Prefix of the edges of `node` with relation `rel` in the `out` or `in` column family.
pub fn edge_rel_prefix(node: NodeId, rel: RelId) -> [u8; EDGE_REL_PREFIX_LEN] {
    let mut out = [0u8; EDGE_REL_PREFIX_LEN];
    out[..8].copy_from_slice(&node.0.to_be_bytes());
    out[8..].copy_from_slice(&rel.0.to_be_bytes());
    out
}

impl OutEdgeKey {
    pub fn encode(&self) -> [u8; EDGE_KEY_LEN] {
        encode_edge(self.src, self.rel, self.dst)
    }
    pub fn decode(bytes: &[u8]) -> Result<Self, FormatError> {
        let (src, rel, dst) = decode_edge(bytes)?;
        Ok(OutEdgeKey { src, rel, dst })
    }
    /// The same edge as keyed in the `in` column family.
    pub fn reversed(&self) -> InEdgeKey {
        InEdgeKey {
            dst: self.dst,
            rel: self.rel,
            src: self.src,
        }
    }
}

impl InEdgeKey {
    pub fn encode(&self) -> [u8; EDGE_KEY_LEN] {
        encode_edge(self.dst, self.rel, self.src)
    }
    pub fn decode(bytes: &[u8]) -> Result<Self, FormatError> {
        let (dst, rel, src) = decode_edge(bytes)?;
        Ok(InEdgeKey { dst, rel, src })
    }
    /// The same edge as keyed in the `out` column family.
    pub fn reversed(&self) -> OutEdgeKey {
        OutEdgeKey {
            src: self.src,
            rel: self.rel,
            dst: self.dst,
        }
    }
}

/// Key of the `prop` column family: one entry per indexed (label, property) value of a node.
///
/// ```text
/// +--------------+-------------+------------------------+----------------+
/// | label u32 BE | prop u32 BE | ordered value (1+ B)   | node_id u64 BE |
/// +--------------+-------------+------------------------+----------------+
/// ```
/// The ordered value encoding (see [`encode_ordered`]) sorts like the values, so an equality
/// lookup is a prefix scan over `label · prop · value` and a range lookup is a range scan.
#[derive(Clone, Debug, PartialEq)]
pub struct PropIndexKey {
    pub label: LabelId,
    pub prop: PropKeyId,
    pub value: Value,
    pub node: NodeId,
}

impl PropIndexKey {
    pub fn encode(&self) -> Result<Vec<u8>, FormatError> {
        let mut out = Self::value_prefix(self.label, self.prop, &self.value)?;
        out.extend_from_slice(&self.node.0.to_be_bytes());
        Ok(out)
    }

    /// `label · prop`: the prefix of every entry of one index.
    pub fn index_prefix(label: LabelId, prop: PropKeyId) -> [u8; 8] {
        let mut out = [0u8; 8];
        out[..4].copy_from_slice(&label.0.to_be_bytes());
        out[4..].copy_from_slice(&prop.0.to_be_bytes());
        out
    }

    /// `label · prop · value`: the prefix of every entry with exactly this value.
    pub fn value_prefix(
        label: LabelId,
        prop: PropKeyId,
        value: &Value,
    ) -> Result<Vec<u8>, FormatError> {
        let mut out = Vec::with_capacity(8 + 10);
        out.extend_from_slice(&Self::index_prefix(label, prop));
        encode_ordered(value, &mut out)?;
        Ok(out)
    }

    pub fn decode(bytes: &[u8]) -> Result<Self, FormatError> {
        let (label, rest) = take_u32(bytes, "label id")?;
        let (prop, rest) = take_u32(rest, "property id")?;
        let (value, rest) = decode_ordered(rest)?;
        exact_len(rest, 8)?;
        let (node, _) = take_u64(rest, "node id")?;
        Ok(PropIndexKey {
            label: LabelId(label),
            prop: PropKeyId(prop),
            value,
            node: NodeId(node),
        })
    }
}

/// Key of the `name` column family: one entry per named node, by its normalised name.
///
/// ```text
/// +--------------------------------+----+----------------+
/// | name: words joined by 0x20     | 00 | node_id u64 BE |
/// +--------------------------------+----+----------------+
/// ```
/// Value: the node's label, u32 BE. Name words hold no byte below `-` (0x2d), so the entries
/// of one name are exactly the keys with prefix `name · 00` ([`NameKey::name_prefix`]), and the
/// names that continue it with more words follow right after them, with prefix `name · 20`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameKey {
    pub name: String,
    pub node: NodeId,
}

impl NameKey {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Self::name_prefix(&self.name);
        out.extend_from_slice(&self.node.0.to_be_bytes());
        out
    }

    /// `name · 00`: the prefix of every entry of exactly this name.
    pub fn name_prefix(name: &str) -> Vec<u8> {
        let mut out = Vec::with_capacity(name.len() + 9);
        out.extend_from_slice(name.as_bytes());
        out.push(0);
        out
    }

    pub fn decode(bytes: &[u8]) -> Result<Self, FormatError> {
        let split = bytes
            .len()
            .checked_sub(9)
            .ok_or(FormatError::Truncated("name key"))?;
        let (name, rest) = bytes.split_at(split);
        let (sep, node) = rest.split_at(1);
        if sep != [0] {
            return Err(FormatError::Invalid("name key separator"));
        }
        let name =
            std::str::from_utf8(name).map_err(|_| FormatError::Invalid("utf-8 in name key"))?;
        let (node, _) = take_u64(node, "node id")?;
        Ok(NameKey {
            name: name.to_owned(),
            node: NodeId(node),
        })
    }
}

/// Key of the `meta` column family: a short ASCII name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MetaKey {
    /// `format`: the database's format version, u32 BE. Written once at creation.
    Format,
    /// `catalog`: the catalog record (names, hierarchy, indexes, embedder).
    Catalog,
    /// `next_node_id`: the next node id to allocate, u64 BE.
    NextNodeId,
    /// `import_pending`: present only while a bulk import is between ingesting its files and
    /// committing; holds the node-id range `[start, end)` the import allocated (two u64 BE).
    /// Opening a database that has it rolls the unfinished import back.
    ImportPending,
    /// `commits`: the number of commits so far, u64 BE; written in the batch of every commit, so
    /// a structure derived from the graph can tell whether it is current by comparing counters.
    Commits,
    /// `annotations`: the descriptions and aliases of labels, relations and properties
    /// (`AnnotationsRecord`); absent means none. Written in the batch that rewrites the catalog.
    Annotations,
    /// `strategies`: the question-answering strategy record (which plan shapes and phrase →
    /// relation choices led to accepted and confirmed answers), opaque to the store; written by
    /// the agents through the commit path, bounded in size by its writer.
    Strategies,
    /// `max_degree`: the largest total degree (out + in) any node has reached, u64 BE; raised in
    /// the batch of the commit that raises it, never lowered (a high-water mark), so that the
    /// executor's connectivity normaliser needs no scan of the degrees.
    MaxDegree,
    /// `vectors_at`: the counter of the last commit that changed what the vector index holds
    /// (a vector written or dropped, a node removed, an import), u64 BE; absent means none
    /// since the database was created. A vector-index file saved at any counter from this one
    /// on holds the current vectors.
    VectorsAt,
    /// `linking`: the labels whose nodes are linked only from marked mentions
    /// (`LinkingRecord`); absent means every label links. Written in the catalog's batch.
    Linking,
}

impl MetaKey {
    pub const ALL: [MetaKey; 10] = [
        MetaKey::Format,
        MetaKey::Catalog,
        MetaKey::NextNodeId,
        MetaKey::ImportPending,
        MetaKey::Commits,
        MetaKey::Annotations,
        MetaKey::Strategies,
        MetaKey::MaxDegree,
        MetaKey::VectorsAt,
        MetaKey::Linking,
    ];

    pub fn encode(&self) -> &'static [u8] {
        match self {
            MetaKey::Format => b"format",
            MetaKey::Catalog => b"catalog",
            MetaKey::NextNodeId => b"next_node_id",
            MetaKey::ImportPending => b"import_pending",
            MetaKey::Commits => b"commits",
            MetaKey::Annotations => b"annotations",
            MetaKey::Strategies => b"strategies",
            MetaKey::MaxDegree => b"max_degree",
            MetaKey::VectorsAt => b"vectors_at",
            MetaKey::Linking => b"linking",
        }
    }

    pub fn decode(bytes: &[u8]) -> Result<Self, FormatError> {
        Self::ALL
            .into_iter()
            .find(|k| k.encode() == bytes)
            .ok_or(FormatError::Invalid("meta key name"))
    }
}

fn exact_len(bytes: &[u8], expected: usize) -> Result<(), FormatError> {
    if bytes.len() == expected {
        Ok(())
    } else {
        Err(FormatError::KeyLength {
            expected,
            found: bytes.len(),
        })
    }
}
