//! The import marker: the id range of a bulk load that has ingested SST files but not committed,
//! written durably before the first ingest ([`set`]) and removed by the load's commit; if the
//! process dies in between, [`roll_back`] removes what was ingested when the database is next
//! opened. Its own module so that both the bulk loader and `Graph::open` use it.

use crate::cf;
use crate::error::{EngineError, Result};
use crate::failpoint;
use cairn_storage_format::records::{decode_id_range, decode_u64, encode_id_range};
use cairn_storage_format::{MetaKey, NameKey, NodeId, PropIndexKey};
use rocksdb::{WriteOptions, DB};
use std::ops::Range;

/// Writes the marker for `new_ids`, synced.
pub(crate) fn set(db: &DB, new_ids: &Range<u64>) -> Result<()> {
    let meta = db
        .cf_handle(cf::META)
        .ok_or_else(|| EngineError::Invalid("column family `meta` is missing".into()))?;
    let mut sync = WriteOptions::default();
    sync.set_sync(true);
    failpoint!("bulk.marker.before_write");
    db.put_cf_opt(
        meta,
        MetaKey::ImportPending.encode(),
        encode_id_range(new_ids.start, new_ids.end),
        &sync,
    )?;
    failpoint!("bulk.marker.after_write");
    Ok(())
}

/// The node id an entry of an index family names (from its key and value).
type KeyNode = fn(&[u8], &[u8]) -> Result<NodeId>;

/// Rolls back the interrupted import the marker names, if there is one.
pub(crate) fn roll_back(db: &DB) -> Result<()> {
    let Some(meta) = db.cf_handle(cf::META) else {
        return Ok(());
    };
    match db.get_cf(meta, MetaKey::ImportPending.encode())? {
        Some(range) => rollback(db, &range),
        None => Ok(()),
    }
}

/// Removes what an interrupted bulk import ingested (see docs/FORMAT.md, "Bulk import"): every
/// key led by a node id of its range, in one range deletion per column family, and the keys of
/// the families ordered otherwise (`node_key`, `name`, `prop`) that name such an id, found by a
/// scan of each. The scans cost a pass over those families, paid only after a crash in the
/// middle of an import.
fn rollback(db: &DB, range: &[u8]) -> Result<()> {
    let (start, end) = decode_id_range(range).map_err(EngineError::corrupt("import marker"))?;
    tracing::warn!(start, end, "rolling back an interrupted import");
    let handle = |name: &str| {
        db.cf_handle(name)
            .ok_or_else(|| EngineError::Invalid(format!("column family `{name}` is missing")))
    };
    let mut batch = rocksdb::WriteBatch::default();
    for name in [cf::NODE, cf::DEGREE, cf::VECTOR, cf::OUT, cf::IN] {
        batch.delete_range_cf(handle(name)?, start.to_be_bytes(), end.to_be_bytes());
    }
    let ours = |id: NodeId| (start..end).contains(&id.0);
    let families: [(&str, KeyNode); 3] = [
        (cf::NODE_KEY, |_, v| {
            decode_u64(v)
                .map(NodeId)
                .map_err(EngineError::corrupt("node key index"))
        }),
        (cf::NAME, |k, _| {
            NameKey::decode(k)
                .map(|k| k.node)
                .map_err(EngineError::corrupt("name index key"))
        }),
        (cf::PROP, |k, _| {
            PropIndexKey::decode(k)
                .map(|k| k.node)
                .map_err(EngineError::corrupt("property index key"))
        }),
    ];
    for (name, node_of) in families {
        let cf = handle(name)?;
        let mut it = db.raw_iterator_cf(cf);
        it.seek_to_first();
        while let Some((k, v)) = it.item() {
            if ours(node_of(k, v)?) {
                batch.delete_cf(cf, k);
            }
            it.next();
        }
        it.status()?;
    }
    if let Some(meta) = db.cf_handle(cf::META) {
        batch.delete_cf(meta, MetaKey::ImportPending.encode());
    }
    let mut opts = rocksdb::WriteOptions::default();
    opts.set_sync(true);
    failpoint!("open.rollback.before_write");
    db.write_opt(batch, &opts)?;
    failpoint!("open.rollback.after_write");
    Ok(())
}
