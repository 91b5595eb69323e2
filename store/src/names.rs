//! The name index (`name` column family, docs/FORMAT.md): normalised node name → node, kept by
//! every node write in its batch (`commit::index_upkeep`). This module builds it once for a
//! database written before it existed (format 1), and checks it against the records.

use crate::catalog::Catalog;
use crate::describe;
use crate::error::{EngineError, Result};
use crate::storage::{Batch, Scan, Space, Storage};
use cairn_storage_format::records::encode_u64;
use cairn_storage_format::{CatalogRecord, MetaKey, NameKey, NodeKey, NodeRecord};
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

/// The first format version with the name index.
const NAME_INDEX_FORMAT: u64 = 2;
/// Entries per write while building: bounds the memory of a build over a large database.
const BUILD_CHUNK: usize = 100_000;

/// Calls `f` with the name-index entry (key, value) every node record of `ids` calls for: the
/// index as a rebuild from the records would write it, in node-id order.
fn expected_entries(
    storage: &dyn Storage,
    ids: Range<u64>,
    catalog: &Catalog,
    mut f: impl FnMut(Vec<u8>, [u8; 4]) -> Result<()>,
) -> Result<()> {
    storage.scan(Space::Node, Scan::Nodes(ids), &mut |k, v| {
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
        Ok(true)
    })
}

/// Brings a database of format `found` up to format 2: nothing when it is there (false); on a
/// writable open, the name index from one scan of the `node` keyspace and `meta/vectors_at`
/// set to the commit counter (format 1 kept no such record: only a vector-index file of the
/// current counter stays valid), written before the format stamp moves to 2 (a build cut short
/// is redone from scratch at the next open), then true; on a read-only open, which cannot
/// write, [`EngineError::OldFormat`].
pub(crate) fn upgrade(
    storage: &dyn Storage,
    path: &Path,
    (catalog, commits, next_id): (&CatalogRecord, u64, u64),
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
    // What a build cut short left.
    let mut batch = Batch::default();
    storage.scan(Space::Name, Scan::All, &mut |k, _| {
        batch.delete(Space::Name, k);
        Ok(true)
    })?;
    let mut entries = 0u64;
    expected_entries(storage, 0..next_id, &catalog, |key, value| {
        batch.put(Space::Name, key, value);
        entries += 1;
        if batch.len() >= BUILD_CHUNK {
            storage.commit(&std::mem::take(&mut batch), false)?;
        }
        Ok(())
    })?;
    batch.put(
        Space::Meta,
        MetaKey::VectorsAt.encode(),
        encode_u64(commits),
    );
    batch.put(
        Space::Meta,
        MetaKey::Format.encode(),
        encode_u64(NAME_INDEX_FORMAT),
    );
    storage.commit(&batch, true)?;
    // Settled, so that later opens (a read-only one replays the log every time) do not replay
    // one write per named node.
    storage.settle()?;
    tracing::warn!(
        "name index built: {entries} names in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(true)
}

/// Where the name index of `storage` differs from a rebuild from the records of the nodes
/// `ids` under `catalog` (see `Graph::name_index_drift`).
pub(crate) fn drift(
    storage: &dyn Storage,
    ids: Range<u64>,
    catalog: &Catalog,
) -> Result<Vec<String>> {
    let mut expected = BTreeMap::new();
    expected_entries(storage, ids, catalog, |k, v| {
        expected.insert(k, v.to_vec());
        Ok(())
    })?;
    let mut out = Vec::new();
    let show = |k: &[u8]| match NameKey::decode(k) {
        Ok(key) => format!("{:?} → node {}", key.name, key.node.0),
        Err(_) => format!("undecodable key {k:?}"),
    };
    storage.scan(Space::Name, Scan::All, &mut |k, v| {
        match expected.remove(k) {
            None => out.push(format!("extra entry {}", show(k))),
            Some(label) if label != v => out.push(format!(
                "entry {} has label bytes {v:?}, record says {label:?}",
                show(k)
            )),
            Some(_) => {}
        }
        Ok(true)
    })?;
    out.extend(
        expected
            .keys()
            .map(|k| format!("missing entry {}", show(k))),
    );
    Ok(out)
}
