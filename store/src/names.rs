//! The name index (`name` column family, docs/FORMAT.md): normalised node name → node, kept by
//! every node write in its batch (`commit::index_upkeep`). This module builds it once for a
//! database written before it existed (format 1), and checks it against the records.

use crate::catalog::Catalog;
use crate::cf;
use crate::describe;
use crate::error::{EngineError, Result};
use cairn_storage_format::records::encode_u64;
use cairn_storage_format::{CatalogRecord, MetaKey, NameKey, NodeKey, NodeRecord};
use rocksdb::{WriteBatch, WriteOptions, DB};
use std::collections::BTreeMap;
use std::path::Path;

/// The first format version with the name index.
const NAME_INDEX_FORMAT: u64 = 2;
/// Entries per write while building: bounds the memory of a build over a large database.
const BUILD_CHUNK: usize = 100_000;

fn handle<'d>(db: &'d DB, name: &str) -> Result<&'d rocksdb::ColumnFamily> {
    db.cf_handle(name)
        .ok_or_else(|| EngineError::Invalid(format!("column family `{name}` is missing")))
}

/// Calls `f` with the name-index entry (key, value) every node record calls for: the index as
/// a rebuild from the records would write it, in node-id order.
fn expected_entries(
    db: &DB,
    catalog: &Catalog,
    mut f: impl FnMut(Vec<u8>, [u8; 4]) -> Result<()>,
) -> Result<()> {
    let mut it = db.raw_iterator_cf(handle(db, cf::NODE)?);
    it.seek_to_first();
    while let Some((k, v)) = it.item() {
        let id = NodeKey::decode(k)
            .map_err(EngineError::corrupt("node key"))?
            .0;
        let rec = NodeRecord::decode(v).map_err(EngineError::corrupt("node record"))?;
        if let Some(name) = describe::index_name(&rec, catalog) {
            f(
                NameKey { name, node: id }.encode(),
                rec.label.0.to_be_bytes(),
            )?;
        }
        it.next();
    }
    it.status()?;
    Ok(())
}

/// Brings a database of format `found` up to format 2: nothing when it is there (false); on a
/// writable open, the name index from one scan of the `node` column family and
/// `meta/vectors_at` set to the commit counter (format 1 kept no such record: only a
/// vector-index file of the current counter stays valid), written before the format stamp
/// moves to 2 (a build cut short is redone from scratch at the next open), then true; on a
/// read-only open, which cannot write, [`EngineError::OldFormat`].
pub(crate) fn upgrade(
    db: &DB,
    path: &Path,
    (catalog, commits): (&CatalogRecord, u64),
    found: u64,
    writable: bool,
) -> Result<bool> {
    if found >= NAME_INDEX_FORMAT {
        return Ok(false);
    }
    if !writable {
        return Err(EngineError::OldFormat {
            path: path.to_path_buf(),
            found,
            missing: "the name index",
        });
    }
    let started = std::time::Instant::now();
    tracing::warn!(
        "database {} has format {found}: building its name index once",
        path.display()
    );
    let catalog = Catalog::from_record(catalog.clone());
    let (name_cf, meta) = (handle(db, cf::NAME)?, handle(db, cf::META)?);
    let mut batch = WriteBatch::default();
    // Names are UTF-8, which never holds 0xFF: this range is the whole column family.
    batch.delete_range_cf(name_cf, b"".as_slice(), b"\xFF".as_slice());
    let mut entries = 0u64;
    expected_entries(db, &catalog, |key, value| {
        batch.put_cf(name_cf, key, value);
        entries += 1;
        if batch.len() >= BUILD_CHUNK {
            db.write(std::mem::take(&mut batch))?;
        }
        Ok(())
    })?;
    batch.put_cf(meta, MetaKey::VectorsAt.encode(), encode_u64(commits));
    batch.put_cf(
        meta,
        MetaKey::Format.encode(),
        encode_u64(NAME_INDEX_FORMAT),
    );
    let mut sync = WriteOptions::default();
    sync.set_sync(true);
    db.write_opt(batch, &sync)?;
    // Flushed, so that later opens (a read-only one replays the log every time) do not replay
    // one write per named node.
    db.flush_cf(name_cf)?;
    tracing::warn!(
        "name index built: {entries} names in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(true)
}

/// Where the name index of `db` differs from a rebuild from its node records under `catalog`
/// (see `Graph::name_index_drift`).
pub(crate) fn drift(db: &DB, catalog: &Catalog) -> Result<Vec<String>> {
    let mut expected = BTreeMap::new();
    expected_entries(db, catalog, |k, v| {
        expected.insert(k, v.to_vec());
        Ok(())
    })?;
    let mut out = Vec::new();
    let show = |k: &[u8]| match NameKey::decode(k) {
        Ok(key) => format!("{:?} → node {}", key.name, key.node.0),
        Err(_) => format!("undecodable key {k:?}"),
    };
    let mut it = db.raw_iterator_cf(handle(db, cf::NAME)?);
    it.seek_to_first();
    while let Some((k, v)) = it.item() {
        match expected.remove(k) {
            None => out.push(format!("extra entry {}", show(k))),
            Some(label) if label != v => out.push(format!(
                "entry {} has label bytes {v:?}, record says {label:?}",
                show(k)
            )),
            Some(_) => {}
        }
        it.next();
    }
    it.status()?;
    out.extend(
        expected
            .keys()
            .map(|k| format!("missing entry {}", show(k))),
    );
    Ok(out)
}
