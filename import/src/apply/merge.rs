//! The node merge: staged nodes renamed to catalog ids, repeated ids merged (the later line
//! wins), and store ids assigned: existing nodes by (label, key), new ones numbered on.

use super::{last_value_wins, merge_props, par_chunks, NameMap};
use crate::nodes::NodeList;
use crate::stage::{NodePart, Staging, NO_LABEL};
use crate::{ImportError, LineError};
use cairn_storage_format::{LabelId, NodeId, NodeRecord, PropKeyId};
use cairn_store::{BulkLoad, Catalog, EngineError};
use hashbrown::{DefaultHashBuilder, HashTable};
use std::hash::BuildHasher;
use std::ops::Range;

/// Warnings about ids repeated within one file: the first few are shown, the rest counted.
const REPEAT_WARNINGS: usize = 5;

/// Nodes per window of the node merge: enough to keep both cores busy between the serial
/// steps, few enough that a window's re-encoded records (~100 bytes a node) stay small.
const MERGE_WINDOW: usize = 1 << 16;

/// Catalog ids of one staged part's names (by the part's own name ids), interned before the
/// merge so that [`translate`] only reads them.
struct Rename {
    labels: Vec<Option<LabelId>>,
    props: Vec<Option<PropKeyId>>,
}

/// Staged nodes decoded, renamed to catalog ids and re-encoded, in order: each node's key and
/// record in `bytes`.
struct Translated {
    bytes: Vec<u8>,
    nodes: Vec<TranslatedNode>,
}

struct TranslatedNode {
    /// Its [`NodeTable::hash`].
    hash: u64,
    label: LabelId,
    /// Where its key and record start in `bytes`, and their lengths.
    at: usize,
    key_len: u32,
    rec_len: u32,
    /// Its position in the staged list (for its vector and origin).
    staged: u32,
}

impl Translated {
    /// The node's key and encoded record.
    fn node(&self, t: &TranslatedNode) -> (&str, &[u8]) {
        let key_end = t.at + t.key_len as usize;
        let key = self.bytes.get(t.at..key_end).unwrap_or_default();
        let record = (self.bytes)
            .get(key_end..key_end + t.rec_len as usize)
            .unwrap_or_default();
        (std::str::from_utf8(key).unwrap_or_default(), record)
    }
}

/// The staged nodes at `positions` of `staged` with catalog ids (see [`Translated`]).
fn translate(
    staged: &NodeList,
    positions: &[u32],
    rename: &Rename,
    table: &NodeTable,
) -> Result<Translated, ImportError> {
    // Sized for the staged bytes and an eighth more (renamed ids may encode longer): growing
    // by doubling copied and faulted in each window's buffer again.
    let staged_bytes: usize = positions
        .iter()
        .map(|&p| staged.encoded_len(p as usize))
        .sum();
    let mut out = Translated {
        bytes: Vec::with_capacity(staged_bytes + staged_bytes / 8),
        nodes: Vec::with_capacity(positions.len()),
    };
    let unknown = |what: &str| EngineError::Invalid(format!("staged {what} name not interned"));
    for &p in positions {
        let n = staged.record(p as usize)?;
        let label = rename
            .labels
            .get(n.label.0 as usize)
            .copied()
            .flatten()
            .ok_or_else(|| unknown("label"))?;
        let mut props = Vec::with_capacity(n.props.len());
        for (k, v) in n.props {
            let k = rename.props.get(k.0 as usize).copied().flatten();
            props.push((k.ok_or_else(|| unknown("property"))?, v));
        }
        let rec = NodeRecord {
            label,
            key: n.key,
            props: last_value_wins(props),
            description: n.description,
        };
        let encoded = rec.encode().map_err(EngineError::encode("node record"))?;
        out.nodes.push(TranslatedNode {
            hash: table.hash(label, &rec.key),
            label,
            at: out.bytes.len(),
            key_len: rec.key.len() as u32,
            rec_len: encoded.len() as u32,
            staged: p,
        });
        out.bytes.extend_from_slice(rec.key.as_bytes());
        out.bytes.extend_from_slice(&encoded);
    }
    Ok(out)
}

/// The import's nodes by (label, key), as positions in its node list.
///
/// A slot keeps its node's label and, when it is at most `INLINE_KEY` bytes, its key: resolving
/// millions of edge endpoints then reads only the table, not each node's record and key string
/// (two cache misses per lookup, which made lookups a fifth of an import's CPU time).
pub(super) struct NodeTable {
    hasher: DefaultHashBuilder,
    slots: HashTable<Slot>,
}

const INLINE_KEY: usize = 23;
/// The last key byte of a slot whose key is longer than `INLINE_KEY`.
const LONG_KEY: u8 = u8::MAX;

#[derive(Clone, Copy)]
struct Slot {
    node: u32,
    label: LabelId,
    /// The key's bytes, then its length in the last byte (`LONG_KEY`: not inline).
    key: [u8; INLINE_KEY + 1],
}

impl Slot {
    fn matches(&self, nodes: &NodeList, label: LabelId, key: &str) -> bool {
        if self.label != label {
            return false;
        }
        match self.key[INLINE_KEY] {
            LONG_KEY => nodes.key(self.node as usize) == key,
            len => self.key.get(..len as usize) == Some(key.as_bytes()),
        }
    }
}

impl NodeTable {
    fn with_capacity(n: usize) -> Self {
        NodeTable {
            hasher: DefaultHashBuilder::default(),
            slots: HashTable::with_capacity(n),
        }
    }

    pub(super) fn hash(&self, label: LabelId, key: &str) -> u64 {
        self.hasher.hash_one((label.0, key))
    }

    /// The node with `label` and `key`, whose [`Self::hash`] is `hash`.
    pub(super) fn find(
        &self,
        nodes: &NodeList,
        hash: u64,
        label: LabelId,
        key: &str,
    ) -> Option<u32> {
        self.slots
            .find(hash, |s| s.matches(nodes, label, key))
            .map(|s| s.node)
    }

    /// The slot of the node with `label` and `key`, or the place to add it: one probe, where a
    /// lookup and then an insert took two (each a cache miss in a table of millions of slots).
    fn entry<'t>(
        &'t mut self,
        nodes: &NodeList,
        hash: u64,
        label: LabelId,
        key: &str,
    ) -> hashbrown::hash_table::Entry<'t, Slot> {
        let hasher = &self.hasher;
        self.slots.entry(
            hash,
            |s| s.matches(nodes, label, key),
            |s| {
                let i = s.node as usize;
                hasher.hash_one((nodes.label(i), nodes.key(i)))
            },
        )
    }
}

impl Slot {
    /// The slot of node `node`, whose label and key are `label` and `node_key`.
    fn new(node: u32, label: LabelId, node_key: &str) -> Slot {
        let mut key = [0u8; INLINE_KEY + 1];
        match key.get_mut(..node_key.len()) {
            Some(inline) if node_key.len() <= INLINE_KEY => {
                inline.copy_from_slice(node_key.as_bytes());
                key[INLINE_KEY] = node_key.len() as u8;
            }
            _ => key[INLINE_KEY] = LONG_KEY,
        }
        Slot { node, label, key }
    }
}

/// The import's nodes after the merge, one entry per (label, key).
pub(super) struct Merged {
    pub(super) table: NodeTable,
    pub(super) nodes: NodeList,
    /// The dimension of the vectors the dump supplied (or the database's embedder's).
    pub(super) vector_dim: Option<usize>,
}

/// Merges every file's staged nodes into one list, renaming them to catalog ids (interned in
/// order of first use, as a serial merge would). Each file's nodes are merged in line order a
/// window at a time, their arena freed as it goes, so the staged and the merged nodes are not
/// both held in full. Within a window, decoding, renaming and re-encoding run on every core
/// ([`translate`]); only the table lookups and the appends (or merges of repeats) run in order.
pub(super) fn merge_nodes(
    staging: &mut Staging,
    catalog: &mut Catalog,
    names: &mut NameMap,
    errors: &mut Vec<LineError>,
) -> Result<Merged, ImportError> {
    if let Some(e) = staging.node_error.take() {
        return Err(e);
    }
    let staged = staging.node_count();
    let mut merger = Merger {
        merged: Merged {
            table: NodeTable::with_capacity(staged),
            nodes: NodeList::with_capacity(staged),
            vector_dim: catalog.embedder().map(|e| e.dim as usize),
        },
        repeats: 0,
    };
    for part in std::mem::take(&mut staging.node_parts) {
        merger.merge_part(part, staging, catalog, names, errors)?;
    }
    let Merger {
        mut merged,
        repeats,
    } = merger;
    merged.nodes.drop_spare();
    if repeats > REPEAT_WARNINGS {
        tracing::warn!(
            "{} more ids repeated within their file (the later lines win)",
            repeats - REPEAT_WARNINGS
        );
    }
    Ok(merged)
}

/// The merge in progress.
struct Merger {
    merged: Merged,
    /// Ids repeated within their file so far.
    repeats: usize,
}

impl Merger {
    /// Merges one file's staged nodes.
    fn merge_part(
        &mut self,
        part: NodePart,
        staging: &Staging,
        catalog: &mut Catalog,
        names: &mut NameMap,
        errors: &mut Vec<LineError>,
    ) -> Result<(), ImportError> {
        let NodePart {
            names: part_names,
            list,
            used,
        } = part;
        let name = |id: u32| part_names.get(id as usize).copied().unwrap_or(NO_LABEL);
        let mut rename = Rename {
            labels: vec![None; part_names.len()],
            props: vec![None; part_names.len()],
        };
        for &l in &used.labels {
            rename.labels[l as usize] = Some(names.label(catalog, staging, name(l))?);
        }
        for &k in &used.props {
            rename.props[k as usize] = Some(names.prop(catalog, staging, name(k))?);
        }
        list.windows(MERGE_WINDOW, |staged, window| -> Result<(), ImportError> {
            let positions: Vec<u32> = (window.start as u32..window.end as u32).collect();
            let runs = {
                let (staged, table): (&NodeList, _) = (staged, &self.merged.table);
                par_chunks(&positions, |chunk| translate(staged, chunk, &rename, table))
            };
            self.merged.nodes.recycle(staged.take_spare());
            for run in runs {
                let run = run?;
                for t in &run.nodes {
                    self.add(staging, staged, (&run, t), errors)?;
                }
            }
            Ok(())
        })
    }

    /// Appends the translated node `t` of `run`, or merges it into the node of its (label, key)
    /// already merged; a vector of the wrong dimension makes it a bad line.
    fn add(
        &mut self,
        staging: &Staging,
        staged: &mut NodeList,
        (run, t): (&Translated, &TranslatedNode),
        errors: &mut Vec<LineError>,
    ) -> Result<(), ImportError> {
        let Merged {
            table,
            nodes,
            vector_dim,
        } = &mut self.merged;
        let vector = staged.take_vector(t.staged as usize);
        let origin = staged.origin(t.staged as usize);
        if let Some(v) = &vector {
            match vector_dim {
                Some(d) if *d != v.len() => {
                    let reason = format!("vector has {} dimensions, expected {d}", v.len());
                    errors.push(staging.error(origin, reason));
                    return Ok(());
                }
                _ => *vector_dim = Some(v.len()),
            }
        }
        let (key, record) = run.node(t);
        match table.entry(nodes, t.hash, t.label, key) {
            hashbrown::hash_table::Entry::Occupied(slot) => {
                let i = slot.get().node as usize;
                let first = nodes.origin(i);
                // Within one file a repeated id is more likely a mistake than an update: the
                // later line still wins (as across files), but not silently.
                if first.file == origin.file {
                    self.repeats += 1;
                    if self.repeats <= REPEAT_WARNINGS {
                        let at = staging.error(
                            origin,
                            format!(
                                "repeats the id `{key}` of line {}; the later line's values win",
                                first.line
                            ),
                        );
                        tracing::warn!("{at}");
                    }
                }
                let n = NodeRecord::decode(record).map_err(EngineError::corrupt("staged node"))?;
                let mut rec = nodes.record(i)?;
                merge_props(&mut rec.props, n.props);
                if n.description.is_some() {
                    rec.description = n.description;
                }
                nodes.set_record(i, &rec)?;
                if let Some(v) = vector {
                    nodes.set_vector(i, v);
                }
            }
            hashbrown::hash_table::Entry::Vacant(slot) => {
                let i = nodes.push_encoded(t.label.0, key, record, vector, origin)?;
                slot.insert(Slot::new(i, t.label, key));
            }
        }
        Ok(())
    }
}

/// Store ids of the merged nodes, by position in the node list: existing nodes keep theirs,
/// new ones are numbered from `first_new`.
pub(super) struct Ids {
    pub(super) ids: Vec<NodeId>,
    pub(super) first_new: u64,
    /// One past the last new id.
    pub(super) next: u64,
}

impl Ids {
    /// Looks up which merged nodes the database already has (only labels it already had can
    /// have existing nodes) and numbers the others.
    pub(super) fn assign(
        bulk: &mut BulkLoad<'_>,
        base_catalog: &Catalog,
        nodes: &NodeList,
    ) -> Result<Ids, ImportError> {
        let mut ids: Vec<Option<NodeId>> = vec![None; nodes.len()];
        let candidates: Vec<usize> = (0..nodes.len())
            .filter(|&i| base_catalog.label_name(LabelId(nodes.label(i))).is_some())
            .collect();
        for chunk in candidates.chunks(4096) {
            let keys: Vec<(LabelId, &str)> = chunk
                .iter()
                .map(|&i| (LabelId(nodes.label(i)), nodes.key(i)))
                .collect();
            for (&i, id) in chunk.iter().zip(bulk.node_ids(&keys)?) {
                ids[i] = id;
            }
        }
        let first_new = bulk.next_node_id();
        let mut next = first_new;
        let ids = ids
            .into_iter()
            .map(|id| {
                id.unwrap_or_else(|| {
                    next += 1;
                    NodeId(next - 1)
                })
            })
            .collect();
        Ok(Ids {
            ids,
            first_new,
            next,
        })
    }

    /// Whether `id` is one of the import's new nodes.
    pub(super) fn is_new(&self, id: NodeId) -> bool {
        id.0 >= self.first_new
    }

    /// The new nodes' ids.
    pub(super) fn new_range(&self) -> Range<u64> {
        self.first_new..self.next
    }
}
