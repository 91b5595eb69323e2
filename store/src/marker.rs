//! The import marker: the id range of a bulk load whose parts may be in the store but not
//! committed, written durably before the first part reaches the store ([`set`]) and removed by
//! the load's commit; if the process dies in between, [`roll_back`] removes what the parts put
//! there when the database is next opened. Its own module so that both the bulk loader and
//! `Graph::open` use it.

use crate::error::{EngineError, Result};
use crate::failpoint;
use crate::storage::{Batch, Scan, Space, Storage};
use cairn_storage_format::records::{decode_id_range, decode_u64, encode_id_range};
use cairn_storage_format::{MetaKey, NameKey, NodeId, PropIndexKey};
use std::ops::Range;

/// Writes the marker for `new_ids`, synced.
pub(crate) fn set(storage: &dyn Storage, new_ids: &Range<u64>) -> Result<()> {
    let mut batch = Batch::default();
    batch.put(
        Space::Meta,
        MetaKey::ImportPending.encode(),
        encode_id_range(new_ids.start, new_ids.end),
    );
    failpoint!("bulk.marker.before_write");
    storage.commit(&batch, true)?;
    failpoint!("bulk.marker.after_write");
    Ok(())
}

/// The node id an entry of an index keyspace names (from its key and value).
type KeyNode = fn(&[u8], &[u8]) -> Result<NodeId>;

/// Rolls back the interrupted import the marker names, if there is one.
pub(crate) fn roll_back(storage: &dyn Storage) -> Result<()> {
    let mut range = None;
    storage.get(Space::Meta, MetaKey::ImportPending.encode(), &mut |v| {
        range = Some(v.to_vec());
        Ok(())
    })?;
    match range {
        Some(range) => rollback(storage, &range),
        None => Ok(()),
    }
}

/// Removes what an interrupted bulk import put in the store (see docs/FORMAT.md, "Bulk
/// import"): every key led by a node id of its range, in one range deletion per node-keyed
/// space, and the keys of the spaces ordered otherwise (`node_key`, `name`, `prop`) that name
/// such an id, found by a scan of each. The scans cost a pass over those spaces, paid only
/// after a crash in the middle of an import.
fn rollback(storage: &dyn Storage, range: &[u8]) -> Result<()> {
    let (start, end) = decode_id_range(range).map_err(EngineError::corrupt("import marker"))?;
    tracing::warn!(start, end, "rolling back an interrupted import");
    let mut batch = Batch::default();
    for space in [
        Space::Node,
        Space::Degree,
        Space::Vector,
        Space::Out,
        Space::In,
    ] {
        batch.delete_nodes(space, start..end);
    }
    let ours = |id: NodeId| (start..end).contains(&id.0);
    let spaces: [(Space, KeyNode); 3] = [
        (Space::NodeKey, |_, v| {
            decode_u64(v)
                .map(NodeId)
                .map_err(EngineError::corrupt("node key index"))
        }),
        (Space::Name, |k, _| {
            NameKey::decode(k)
                .map(|k| k.node)
                .map_err(EngineError::corrupt("name index key"))
        }),
        (Space::Prop, |k, _| {
            PropIndexKey::decode(k)
                .map(|k| k.node)
                .map_err(EngineError::corrupt("property index key"))
        }),
    ];
    for (space, node_of) in spaces {
        storage.scan(space, Scan::All, &mut |k, v| {
            if ours(node_of(k, v)?) {
                batch.delete(space, k);
            }
            Ok(true)
        })?;
    }
    batch.delete(Space::Meta, MetaKey::ImportPending.encode());
    failpoint!("open.rollback.before_write");
    storage.commit(&batch, true)?;
    failpoint!("open.rollback.after_write");
    Ok(())
}
