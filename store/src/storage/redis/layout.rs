//! Where a key of the storage boundary lives in the cluster (docs/FORMAT.md, "On a Redis
//! Cluster"). Every Redis key starts with the database's name and a one-letter kind, and carries
//! a hash tag that decides its slot:
//!
//! | space | Redis key | type | what |
//! |---|---|---|---|
//! | `node` / `degree` / `vector` | `NS:n:{ID}` / `NS:d:{ID}` / `NS:v:{ID}` | string | the value |
//! | `out` / `in` | `NS:o:{ID}` / `NS:i:{ID}` | hash | field `rel · other` → the edge's properties |
//! | (a large adjacency) | `NS:o:{ID}:0` … `:N-1`, `NS:o:{ID}:n` | hashes, string | its chunks, and `N` |
//! | `node_key` / `prop` / `name` | `NS:K:{GROUP}` / `NS:P:…` / `NS:W:…` + `:z`, `:h` | sorted set + hash | the group's keys (lexical order) and their values |
//! | `meta` | `NS:M:{NS}:z`, `NS:M:{NS}:h` | sorted set + hash | as above, one group |
//!
//! `ID` is the node id in decimal: a node's record, degree, vector and both adjacency hashes
//! share the tag, so they sit in one slot (one shard), and one request per shard fetches the
//! facts and edges of a whole beam. An adjacency past 128 fields is split into chunks by the
//! scripts that write it (`scripts::adjacency_lua`); the client names only `NS:o:{ID}`.
//! `GROUP` is the group's bytes in hex (a label, a label and
//! property, a first word). The commit protocol's keys share the tag `{NS}` with `meta`.

use crate::storage::{Grouping, Space};

/// How a boundary key is stored.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Cell {
    /// A string key holding the value.
    Str(Vec<u8>),
    /// A field of a hash (adjacency): (hash key, field).
    Field(Vec<u8>, Vec<u8>),
    /// A member of an ordered group: (sorted-set key, hash key, member = the boundary key).
    Ordered(Vec<u8>, Vec<u8>, Vec<u8>),
}

impl Cell {
    /// The Redis key that routes it (its slot).
    pub(crate) fn route(&self) -> &[u8] {
        match self {
            Cell::Str(k) | Cell::Field(k, _) | Cell::Ordered(k, _, _) => k,
        }
    }
}

/// The key scheme of one database (its name).
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    ns: String,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The one-letter kind of a space in Redis keys.
pub(crate) fn letter(space: Space) -> char {
    match space {
        Space::Meta => 'M',
        Space::Node => 'n',
        Space::Degree => 'd',
        Space::Vector => 'v',
        Space::Out => 'o',
        Space::In => 'i',
        Space::NodeKey => 'K',
        Space::Prop => 'P',
        Space::Name => 'W',
        Space::Changes => 'L',
    }
}

impl Layout {
    pub(crate) fn new(ns: &str) -> Layout {
        Layout { ns: ns.to_owned() }
    }

    pub(crate) fn ns(&self) -> &str {
        &self.ns
    }

    /// A key of the commit protocol (`seq`, `pending`, `log:N`, `writer`), in the `{NS}` slot.
    pub(crate) fn control(&self, what: &str) -> Vec<u8> {
        format!("{ns}:C:{{{ns}}}:{what}", ns = self.ns).into_bytes()
    }

    /// The key of node `id`'s entry in a node-keyed space that holds strings or hashes.
    pub(crate) fn node_key(&self, space: Space, id: u64) -> Vec<u8> {
        format!("{}:{}:{{{id}}}", self.ns, letter(space)).into_bytes()
    }

    /// The sorted-set and hash keys of an ordered group.
    pub(crate) fn group_keys(&self, space: Space, group: &[u8]) -> (Vec<u8>, Vec<u8>) {
        let tag = match space {
            // single-group spaces live in the database's own slot
            Space::Meta | Space::Changes => self.ns.clone(),
            _ => hex(group),
        };
        let base = format!("{}:{}:{{{tag}}}", self.ns, letter(space));
        (
            format!("{base}:z").into_bytes(),
            format!("{base}:h").into_bytes(),
        )
    }

    /// Where boundary key `key` of `space` lives.
    pub(crate) fn cell(&self, space: Space, key: &[u8]) -> Cell {
        match space.grouping() {
            Grouping::Node => {
                let id = node_id(key);
                match space {
                    Space::Out | Space::In => Cell::Field(
                        self.node_key(space, id),
                        key.get(8..).unwrap_or_default().to_vec(),
                    ),
                    _ => Cell::Str(self.node_key(space, id)),
                }
            }
            _ => {
                let (z, h) = self.group_keys(space, space.group_of(key));
                Cell::Ordered(z, h, key.to_vec())
            }
        }
    }

    /// The boundary key of a field of node `id`'s adjacency hash.
    pub(crate) fn edge_key(id: u64, field: &[u8]) -> Vec<u8> {
        let mut k = Vec::with_capacity(8 + field.len());
        Layout::edge_key_into(&mut k, id, field);
        k
    }

    /// [`Layout::edge_key`] into `k` (cleared first), so that a reader of many reuses one buffer.
    pub(crate) fn edge_key_into(k: &mut Vec<u8>, id: u64, field: &[u8]) {
        k.clear();
        k.extend_from_slice(&id.to_be_bytes());
        k.extend_from_slice(field);
    }

    /// The pattern `SCAN` matches every Redis key of `space` with (the sorted sets of ordered
    /// groups).
    pub(crate) fn pattern(&self, space: Space) -> String {
        match space.grouping() {
            Grouping::Node => format!("{}:{}:*", self.ns, letter(space)),
            _ => format!("{}:{}:*:z", self.ns, letter(space)),
        }
    }

    /// The chunk-count key of adjacency `key` (`NS:o:{ID}:n`).
    pub(crate) fn chunk_count(key: &[u8]) -> Vec<u8> {
        [key, b":n"].concat()
    }

    /// Chunk `i` of adjacency `key` (`NS:o:{ID}:I`).
    pub(crate) fn chunk(key: &[u8], i: u64) -> Vec<u8> {
        [key, format!(":{i}").as_bytes()].concat()
    }

    /// Whether a Redis key is an adjacency's chunk count rather than a hash.
    pub(crate) fn is_chunk_count(key: &[u8]) -> bool {
        key.ends_with(b"}:n")
    }

    /// The node id of a node-keyed Redis key (`NS:x:{ID}`, or an adjacency's chunk
    /// `NS:x:{ID}:I` or chunk count `NS:x:{ID}:n`).
    pub(crate) fn id_of(key: &[u8]) -> Option<u64> {
        let open = key.iter().position(|b| *b == b'{')?;
        let close = key.iter().rposition(|b| *b == b'}')?;
        std::str::from_utf8(key.get(open + 1..close)?)
            .ok()?
            .parse()
            .ok()
    }
}

/// The node id a node-keyed boundary key starts with (0 for a short key).
pub(crate) fn node_id(key: &[u8]) -> u64 {
    key.get(..8)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u64::from_be_bytes)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::storage::redis::cluster::slot;

    /// A node's record, degree, vector and both adjacency hashes share one slot; keys of other
    /// nodes, of other databases' control keys, and group keys parse back.
    #[test]
    fn a_node_lives_in_one_slot() {
        let l = Layout::new("db");
        let edge = |id: u64| {
            let mut k = id.to_be_bytes().to_vec();
            k.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9]);
            k
        };
        let slots: Vec<u16> = [
            Space::Node,
            Space::Degree,
            Space::Vector,
            Space::Out,
            Space::In,
        ]
        .into_iter()
        .map(|s| {
            let key = if s.grouping() == Grouping::Node && matches!(s, Space::Out | Space::In) {
                edge(42)
            } else {
                42u64.to_be_bytes().to_vec()
            };
            slot(l.cell(s, &key).route())
        })
        .collect();
        assert!(slots.windows(2).all(|w| w[0] == w[1]), "{slots:?}");
        assert_eq!(Layout::id_of(&l.node_key(Space::Out, 42)), Some(42));
        assert_eq!(
            slot(&l.control("seq")),
            slot(&l.group_keys(Space::Meta, b"").0)
        );
        match l.cell(Space::Name, b"ann lee\0\0\0\0\0\0\0\0\x05") {
            Cell::Ordered(z, _, member) => {
                assert_eq!(z, b"db:W:{616e6e}:z".to_vec());
                assert_eq!(member.len(), 16);
            }
            other => panic!("{other:?}"),
        }
    }
}
