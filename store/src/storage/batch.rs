//! The change set a commit applies: an ordered list of operations in one byte buffer (one
//! allocation for a whole transaction, like RocksDB's own `WriteBatch`), cut back to a
//! savepoint by truncating it.

use super::Space;
use crate::error::{EngineError, Result};
use std::ops::Range;

/// Writes to apply atomically with [`super::Storage::commit`], in order (a later operation on
/// the same key wins).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Batch {
    data: Vec<u8>,
    count: usize,
}

/// One operation of a [`Batch`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op<'a> {
    Put(Space, &'a [u8], &'a [u8]),
    Delete(Space, &'a [u8]),
    /// Adds a signed delta to a counter record: in [`Space::Degree`], a `Degree` (out, in) of
    /// deltas added to the stored one (absent: zero). An engine may turn it into a read and a
    /// put, as long as the commit stays atomic.
    Merge(Space, &'a [u8], &'a [u8]),
    /// Deletes every key of the nodes with ids in the range, in a node-keyed space
    /// ([`super::Grouping::Node`]). Only for keys no reader sees (an import's ids that were
    /// never committed): a backend may apply it outside the commit's atomicity and snapshots
    /// need not keep what it deletes.
    DeleteNodes(Space, Range<u64>),
}

const PUT: u8 = 1;
const DELETE: u8 = 2;
const MERGE: u8 = 3;
const DELETE_NODES: u8 = 4;

impl std::fmt::Debug for Batch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batch")
            .field("operations", &self.count)
            .field("bytes", &self.data.len())
            .finish()
    }
}

impl Batch {
    pub fn put(&mut self, space: Space, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) {
        self.push(PUT, space, key.as_ref(), Some(value.as_ref()));
    }

    pub fn delete(&mut self, space: Space, key: impl AsRef<[u8]>) {
        self.push(DELETE, space, key.as_ref(), None);
    }

    /// See [`Op::Merge`].
    pub fn merge(&mut self, space: Space, key: impl AsRef<[u8]>, operand: impl AsRef<[u8]>) {
        self.push(MERGE, space, key.as_ref(), Some(operand.as_ref()));
    }

    /// See [`Op::DeleteNodes`].
    pub fn delete_nodes(&mut self, space: Space, ids: Range<u64>) {
        let mut key = [0u8; 16];
        key[..8].copy_from_slice(&ids.start.to_be_bytes());
        key[8..].copy_from_slice(&ids.end.to_be_bytes());
        self.push(DELETE_NODES, space, &key, None);
    }

    fn push(&mut self, tag: u8, space: Space, key: &[u8], value: Option<&[u8]>) {
        self.data.push(tag);
        self.data.push(space as u8);
        self.data
            .extend_from_slice(&(key.len() as u32).to_le_bytes());
        self.data.extend_from_slice(key);
        if let Some(v) = value {
            self.data.extend_from_slice(&(v.len() as u32).to_le_bytes());
            self.data.extend_from_slice(v);
        }
        self.count += 1;
    }

    /// Operations in the batch.
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Bytes the operations take (keys, values and a few bytes each).
    pub fn size_in_bytes(&self) -> usize {
        self.data.len()
    }

    /// Cuts the batch back to its first `bytes` bytes holding `count` operations: what it was
    /// when [`Batch::size_in_bytes`] and [`Batch::len`] read those (a savepoint).
    pub fn truncate(&mut self, bytes: usize, count: usize) -> Result<()> {
        if bytes > self.data.len() || count > self.count {
            return Err(EngineError::Invalid("savepoint beyond the batch".into()));
        }
        self.data.truncate(bytes);
        self.count = count;
        Ok(())
    }

    /// The operations, in order.
    pub fn iter(&self) -> impl Iterator<Item = Op<'_>> {
        let mut rest = self.data.as_slice();
        std::iter::from_fn(move || {
            let (&tag, r) = rest.split_first()?;
            let (&space, r) = r.split_first()?;
            let space = *Space::ALL.get(space as usize)?;
            let (key, r) = take(r)?;
            let (op, r) = match tag {
                PUT => {
                    let (value, r) = take(r)?;
                    (Op::Put(space, key, value), r)
                }
                MERGE => {
                    let (value, r) = take(r)?;
                    (Op::Merge(space, key, value), r)
                }
                DELETE => (Op::Delete(space, key), r),
                DELETE_NODES => {
                    let start = u64::from_be_bytes(key.get(..8)?.try_into().ok()?);
                    let end = u64::from_be_bytes(key.get(8..16)?.try_into().ok()?);
                    (Op::DeleteNodes(space, start..end), r)
                }
                _ => return None,
            };
            rest = r;
            Some(op)
        })
    }
}

/// A length-prefixed byte string and what follows it.
fn take(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    let rest = bytes.get(4..)?;
    Some((rest.get(..len)?, rest.get(len..)?))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn operations_come_back_in_order_and_truncate_to_a_savepoint() {
        let mut b = Batch::default();
        b.put(Space::Node, [1u8; 8], b"rec");
        let (bytes, count) = (b.size_in_bytes(), b.len());
        b.delete(Space::Name, b"ann\0");
        b.merge(Space::Degree, [2u8; 8], [0u8; 16]);
        b.delete_nodes(Space::Out, 5..9);
        b.put(Space::Meta, b"", b"");
        let ops: Vec<Op<'_>> = b.iter().collect();
        assert_eq!(
            ops,
            vec![
                Op::Put(Space::Node, &[1u8; 8], b"rec"),
                Op::Delete(Space::Name, b"ann\0"),
                Op::Merge(Space::Degree, &[2u8; 8], &[0u8; 16]),
                Op::DeleteNodes(Space::Out, 5..9),
                Op::Put(Space::Meta, b"", b""),
            ]
        );
        assert_eq!(b.len(), 5);
        b.truncate(bytes, count).unwrap();
        assert_eq!(b.iter().count(), 1);
        assert!(b.truncate(bytes + 1, count).is_err());
    }
}
