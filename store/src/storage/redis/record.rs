//! A commit record of the cluster backend's log: every boundary key the commit writes, with its
//! value before (the undo image) and after (the redo image). Readers patch keys a later commit
//! touched with the undo images; a writer or opener that finds a record not marked committed
//! rolls it forward with the redo images (they are absolute values, so applying twice is the
//! same as once).

use crate::error::BackendErrorKind;
use crate::error::Result;
use crate::storage::redis::cluster::fail;
use crate::storage::Space;
use std::collections::BTreeMap;

/// One key a commit wrote: its value before and after (`None`: absent).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Change {
    pub(crate) before: Option<Vec<u8>>,
    pub(crate) after: Option<Vec<u8>>,
}

/// A commit's changes by boundary key, in key order.
pub(crate) type Changes = BTreeMap<(Space, Vec<u8>), Change>;

fn put_bytes(out: &mut Vec<u8>, b: Option<&[u8]>) {
    match b {
        None => out.push(0),
        Some(b) => {
            out.push(1);
            out.extend_from_slice(&(b.len() as u32).to_le_bytes());
            out.extend_from_slice(b);
        }
    }
}

/// Encodes a commit record: a version byte, then per change the space, key, before and after.
pub(crate) fn encode(changes: &Changes) -> Vec<u8> {
    let mut out = vec![1u8];
    for ((space, key), c) in changes {
        out.push(*space as u8);
        put_bytes(&mut out, Some(key));
        put_bytes(&mut out, c.before.as_deref());
        put_bytes(&mut out, c.after.as_deref());
    }
    out
}

/// Decodes [`encode`]'s bytes.
pub(crate) fn decode(bytes: &[u8]) -> Result<Changes> {
    let bad = || {
        fail(
            BackendErrorKind::Corruption,
            "a damaged commit record in the log",
        )
    };
    let (&version, mut rest) = bytes.split_first().ok_or_else(bad)?;
    if version != 1 {
        return Err(bad());
    }
    let take = |rest: &mut &[u8]| -> Result<Option<Vec<u8>>> {
        let (&tag, r) = rest.split_first().ok_or_else(bad)?;
        *rest = r;
        if tag == 0 {
            return Ok(None);
        }
        let len = u32::from_le_bytes(
            rest.get(..4)
                .ok_or_else(bad)?
                .try_into()
                .map_err(|_| bad())?,
        );
        let value = rest.get(4..4 + len as usize).ok_or_else(bad)?.to_vec();
        *rest = &rest[4 + len as usize..];
        Ok(Some(value))
    };
    let mut changes = Changes::new();
    while let Some((&space, r)) = rest.split_first() {
        rest = r;
        let space = *Space::ALL.get(space as usize).ok_or_else(bad)?;
        let key = take(&mut rest)?.ok_or_else(bad)?;
        let before = take(&mut rest)?;
        let after = take(&mut rest)?;
        changes.insert((space, key), Change { before, after });
    }
    Ok(changes)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn records_round_trip_and_damage_is_an_error() {
        let mut c = Changes::new();
        c.insert(
            (Space::Node, vec![0, 1]),
            Change {
                before: None,
                after: Some(b"rec".to_vec()),
            },
        );
        c.insert(
            (Space::Out, vec![9; 20]),
            Change {
                before: Some(vec![]),
                after: None,
            },
        );
        let bytes = encode(&c);
        assert_eq!(decode(&bytes).unwrap(), c);
        assert!(decode(&bytes[..bytes.len() - 1]).is_err());
        assert!(decode(&[2]).is_err());
    }
}
