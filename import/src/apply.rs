//! Applying a staged import: resolve names and endpoints, plan the writes, write the store's
//! bulk parts (SST files on RocksDB) and make them part of the store, commit the final batch.
//! See `docs/FORMAT.md` ("Bulk import") for the rule that decides what goes where; the store's
//! bulk loader builds every key.

use super::nodes::NodeList;
use super::spill::{self, BucketWriter, Fixed, Written};
use super::stage::{Block, EdgePart, NodePart, Spilled, StagedEdge, Staging, BLOCK, NO_LABEL};
use super::{report, ImportError, ImportOptions, ImportSummary, LineError, Phase};
use cairn_storage_format::{
    Degree, EdgeProps, EmbedderDef, LabelId, NodeId, NodeRecord, PropKeyId, RelId, Value,
};
use cairn_store::describe;
use cairn_store::graph::Reader;
use cairn_store::{
    BulkFiles, BulkLoad, BulkPart, Catalog, Direction, EngineError, Graph, GraphRead, NewNodeIndex,
    VectorSink,
};
use hashbrown::{DefaultHashBuilder, HashMap, HashSet, HashTable};
use std::hash::BuildHasher;
use std::ops::Range;
use std::sync::Arc;

/// Warnings about ids repeated within one file: the first few are shown, the rest counted.
const REPEAT_WARNINGS: usize = 5;

/// An edge resolved to ids. `props` indexes `EdgeTable::props` (`NO_PROPS`: none).
#[derive(Clone, Copy)]
struct EdgeIn {
    src: NodeId,
    dst: NodeId,
    rel: RelId,
    props: u32,
}

/// Properties of the edges that have any, decoded and encoded once.
struct PropsTable {
    encoded: Vec<Vec<u8>>,
    values: Vec<EdgeProps>,
}

impl PropsTable {
    fn bytes(&self, e: &EdgeIn) -> &[u8] {
        self.encoded
            .get(e.props as usize)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }
    fn value(&self, e: &EdgeIn) -> EdgeProps {
        self.values
            .get(e.props as usize)
            .cloned()
            .unwrap_or_default()
    }
}

/// Where an edge endpoint points.
#[derive(Clone, Copy)]
enum Resolved {
    Found(NodeId, LabelId),
    Missing,
    Ambiguous,
}

/// Catalog ids for staged name ids, interned on first use.
struct NameMap {
    labels: Vec<Option<LabelId>>,
    rels: Vec<Option<RelId>>,
    props: Vec<Option<PropKeyId>>,
}

impl NameMap {
    fn new(n: usize) -> Self {
        NameMap {
            labels: vec![None; n],
            rels: vec![None; n],
            props: vec![None; n],
        }
    }
    fn label(
        &mut self,
        catalog: &mut Catalog,
        staging: &Staging,
        id: u32,
    ) -> Result<LabelId, EngineError> {
        if let Some(l) = self.labels[id as usize] {
            return Ok(l);
        }
        let l = catalog.intern_label(staging.names.name(id))?.0;
        self.labels[id as usize] = Some(l);
        Ok(l)
    }
    fn rel(
        &mut self,
        catalog: &mut Catalog,
        staging: &Staging,
        id: u32,
    ) -> Result<RelId, EngineError> {
        if let Some(r) = self.rels[id as usize] {
            return Ok(r);
        }
        let r = catalog.intern_relation(staging.names.name(id))?.0;
        self.rels[id as usize] = Some(r);
        Ok(r)
    }
    fn props(
        &mut self,
        catalog: &mut Catalog,
        staging: &Staging,
        props: Vec<(u32, Value)>,
    ) -> Result<Vec<(PropKeyId, Value)>, EngineError> {
        let mut out = Vec::with_capacity(props.len());
        for (k, v) in props {
            out.push((self.prop(catalog, staging, k)?, v));
        }
        Ok(last_value_wins(out))
    }
    fn prop(
        &mut self,
        catalog: &mut Catalog,
        staging: &Staging,
        id: u32,
    ) -> Result<PropKeyId, EngineError> {
        if let Some(p) = self.props[id as usize] {
            return Ok(p);
        }
        let p = catalog.intern_prop(staging.names.name(id))?.0;
        self.props[id as usize] = Some(p);
        Ok(p)
    }
}

/// Properties sorted by key; of a property named twice, the last value (stable sort, keep the
/// first after reversing).
fn last_value_wins(mut props: Vec<(PropKeyId, Value)>) -> Vec<(PropKeyId, Value)> {
    props.reverse();
    props.sort_by_key(|(k, _)| *k);
    props.dedup_by_key(|(k, _)| *k);
    props
}

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
struct NodeTable {
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

    fn hash(&self, label: LabelId, key: &str) -> u64 {
        self.hasher.hash_one((label.0, key))
    }

    /// The node with `label` and `key`, whose [`Self::hash`] is `hash`.
    fn find(&self, nodes: &NodeList, hash: u64, label: LabelId, key: &str) -> Option<u32> {
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

pub(super) fn apply(
    graph: &Graph,
    mut staging: Staging,
    mut errors: Vec<LineError>,
    options: &ImportOptions,
) -> Result<ImportSummary, ImportError> {
    staging.seal();
    cairn_store::failpoint!("import.staged");
    if staging.spilled_bytes() > 0 {
        tracing::debug!(
            "import: {} edges staged, {} MiB of them spilled",
            staging.edge_count(),
            staging.spilled_bytes() >> 20
        );
    }
    let mut bulk = graph.bulk_load()?;
    let base_catalog = graph.catalog();
    let mut catalog: Catalog = (*base_catalog).clone();
    let reader = graph.reader();
    let mut summary = ImportSummary {
        records: (staging.node_count() + staging.edge_count()) as u64,
        ..Default::default()
    };
    report(options, Phase::Resolve, 0, Some(summary.records));
    let mut step = Step::start();
    let mut names = NameMap::new(staging.names.names.len());

    // ---- nodes: intern names, merge duplicate lines (the later wins) ----
    if let Some(e) = staging.node_error.take() {
        return Err(e);
    }
    let staged_nodes = staging.node_count();
    let mut table = NodeTable::with_capacity(staged_nodes);
    let mut nodes = NodeList::with_capacity(staged_nodes);
    let mut vector_dim: Option<usize> = catalog.embedder().map(|e| e.dim as usize);
    let mut repeats = 0usize;
    // Each file's staged nodes are merged in line order a window at a time, their arena freed
    // as it goes, so the staged and the merged nodes are not both held in full. Within a
    // window, decoding, renaming and re-encoding run on every core (`translate`); only the
    // table lookups and the appends (or merges of repeats) run in order.
    for part in std::mem::take(&mut staging.node_parts) {
        let NodePart {
            names: part_names,
            list,
            used,
        } = part;
        let name = |id: u32| part_names.get(id as usize).copied().unwrap_or(NO_LABEL);
        // Interned in order of first use, as a serial merge would.
        let mut rename = Rename {
            labels: vec![None; part_names.len()],
            props: vec![None; part_names.len()],
        };
        for &l in &used.labels {
            rename.labels[l as usize] = Some(names.label(&mut catalog, &staging, name(l))?);
        }
        for &k in &used.props {
            rename.props[k as usize] = Some(names.prop(&mut catalog, &staging, name(k))?);
        }
        list.windows(MERGE_WINDOW, |staged, window| -> Result<(), ImportError> {
            let positions: Vec<u32> = (window.start as u32..window.end as u32).collect();
            let runs = {
                let staged: &NodeList = staged;
                par_chunks(&positions, |chunk| translate(staged, chunk, &rename, &table))
            };
            nodes.recycle(staged.take_spare());
            for run in runs {
                let run = run?;
                for t in &run.nodes {
                    let vector = staged.take_vector(t.staged as usize);
                    let origin = staged.origin(t.staged as usize);
                    if let Some(v) = &vector {
                        match vector_dim {
                            Some(d) if d != v.len() => {
                                errors.push(staging.error(
                                    origin,
                                    format!("vector has {} dimensions, expected {d}", v.len()),
                                ));
                                continue;
                            }
                            _ => vector_dim = Some(v.len()),
                        }
                    }
                    let (key, record) = run.node(t);
                    match table.entry(&nodes, t.hash, t.label, key) {
                        hashbrown::hash_table::Entry::Occupied(slot) => {
                            let i = slot.get().node as usize;
                            let first = nodes.origin(i);
                            // Within one file a repeated id is more likely a mistake than an
                            // update: the later line still wins (as across files), but not
                            // silently.
                            if first.file == origin.file {
                                repeats += 1;
                                if repeats <= REPEAT_WARNINGS {
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
                            let n = NodeRecord::decode(record)
                                .map_err(EngineError::corrupt("staged node"))?;
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
                }
            }
            Ok(())
        })?;
    }
    nodes.drop_spare();
    if repeats > REPEAT_WARNINGS {
        tracing::warn!(
            "{} more ids repeated within their file (the later lines win)",
            repeats - REPEAT_WARNINGS
        );
    }

    // Existing ids: only labels the database already had can have existing nodes.
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
    tracing::debug!(
        "import: {} nodes hold {} MiB",
        nodes.len(),
        nodes.bytes_held() >> 20
    );
    step.done("nodes merged and looked up");
    let first_new = bulk.next_node_id();
    let mut next = first_new;
    let ids: Vec<NodeId> = ids
        .into_iter()
        .map(|id| {
            id.unwrap_or_else(|| {
                next += 1;
                NodeId(next - 1)
            })
        })
        .collect();
    let is_new = |id: NodeId| id.0 >= first_new;

    // ---- edges: resolve endpoints ----
    // Names first (interning writes the catalog), then the lookups, which only read: each core
    // resolves a contiguous run of chunks and the chunks are joined in order, so line order
    // survives.
    let mut rels: Vec<Option<RelId>> = vec![None; staging.names.names.len()];
    for part in &staging.parts {
        for rel in part.rels() {
            if rels.get(rel as usize).is_some_and(Option::is_none) {
                rels[rel as usize] = Some(names.rel(&mut catalog, &staging, rel)?);
            }
        }
    }
    let labels: Vec<Option<LabelId>> = staging
        .names
        .names
        .iter()
        .map(|n| catalog.label_id(n))
        .collect();
    // Labels that hold a given key, built only if some endpoint has no id group.
    let by_key: Option<HashMap<&str, Vec<LabelId>>> =
        staging.parts.iter().any(EdgePart::any_unlabelled).then(|| {
            let mut m: HashMap<&str, Vec<LabelId>> = HashMap::new();
            for i in 0..nodes.len() {
                m.entry(nodes.key(i))
                    .or_default()
                    .push(LabelId(nodes.label(i)));
            }
            m
        });
    let resolver = Resolver {
        staging: &staging,
        rels: &rels,
        labels: &labels,
        by_key: by_key.as_ref(),
        table: &table,
        nodes: &nodes,
        ids: &ids,
        base_catalog: &base_catalog,
        reader: &reader,
    };
    // A file's spilled blocks come before its edges in memory.
    let chunks: Vec<Chunk<'_>> = staging
        .parts
        .iter()
        .flat_map(|p| {
            let spilled = p
                .spilled
                .iter()
                .flat_map(move |s| s.blocks.iter().map(move |b| Chunk::Spilled(p, s, *b)));
            spilled.chain(p.edges.chunks(BLOCK).map(move |c| Chunk::Memory(p, c)))
        })
        .collect();
    // Resolved edges go to buckets by source (spilled to disk when they do not fit the budget;
    // `spill.rs`), each core's in the order of its lines.
    let new_ids = first_new..next;
    // The nodes stay in memory to the end: the sort gets what they leave of the budget (a
    // quarter at least).
    let sort_budget = options
        .budget()
        .saturating_sub(nodes.bytes_held())
        .max(options.budget() / 4);
    let plan = spill::Plan::new(
        new_ids.clone(),
        staging.edge_count() as u64,
        EdgeIn::LEN as u64,
        sort_budget,
    );
    let spill_dir = if plan.spills() {
        Some(graph.spill_dir()?)
    } else {
        None
    };
    let spill_path = spill_dir.as_ref().map(|d| d.path());
    let writers = std::sync::atomic::AtomicUsize::new(0);
    let mut edge_labels: HashSet<(RelId, LabelId, LabelId)> = HashSet::new();
    let resolve_run = |run: &[Chunk<'_>]| -> Result<_, ImportError> {
        let w = writers.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut out = BucketWriter::new(&plan, spill_path, format!("out-{w}"));
        let mut errors = Vec::new();
        let mut labels = HashSet::new();
        for chunk in run {
            let r = match chunk {
                Chunk::Memory(part, edges) => resolver.resolve(part, edges)?,
                Chunk::Spilled(part, spilled, block) => {
                    let read = spilled.read(part, *block)?;
                    resolver.resolve(&read, &read.edges)?
                }
            };
            for e in r.edges {
                out.push(e, e.src.0)?;
            }
            errors.extend(r.errors);
            labels.extend(r.labels);
        }
        Ok((out.finish()?, errors, labels))
    };
    let mut resolved: Vec<Written<EdgeIn>> = Vec::new();
    for run in par_chunks(&chunks, resolve_run) {
        let (written, run_errors, labels) = run?;
        resolved.push(written);
        errors.extend(run_errors);
        edge_labels.extend(labels);
    }
    let edge_count = staging.edge_count();
    drop(chunks);
    // The staged edges are resolved: their keys and lines are no longer needed.
    staging.parts.clear();
    step.done("edge endpoints resolved");
    if errors.len() > options.max_errors {
        errors.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
        errors.truncate(options.max_errors + 1);
        return Err(ImportError::BadLines {
            errors,
            max: options.max_errors,
        });
    }
    errors.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    summary.skipped = errors;
    for (rel, s, d) in edge_labels {
        catalog.note_endpoints(rel, s, d);
    }
    let mut edge_props: Vec<EdgeProps> = Vec::with_capacity(staging.edge_props.len());
    for p in std::mem::take(&mut staging.edge_props) {
        let props = names.props(&mut catalog, &staging, p.props)?;
        edge_props.push(EdgeProps {
            weight: p.weight,
            props,
        });
    }
    annotate(&mut catalog, &staging, &mut summary, options)?;
    drop(table);
    drop(by_key);
    // Vectors: computed by the configured embedder for new nodes that bring none; a dump that
    // says which embedder made its vectors decides instead of a default one.
    let embedder = dump_embedder(&mut catalog, &staging, options, vector_dim)?;
    if let Some(embedder) = embedder {
        match catalog.embedder() {
            Some(def) if def.id != embedder.id() => {
                return Err(ImportError::EmbedderMismatch {
                    recorded: def.id.clone(),
                    given: embedder.id().to_owned(),
                })
            }
            _ => catalog.set_embedder(Some(EmbedderDef {
                id: embedder.id().to_owned(),
                dim: embedder.dim() as u32,
            })),
        }
        if let Some(d) = vector_dim.filter(|d| *d != embedder.dim()) {
            return Err(ImportError::EmbedderMismatch {
                recorded: format!("supplied vectors of dimension {d}"),
                given: embedder.id().to_owned(),
            });
        }
        // The vectors are computed while their SST file is written (`write_vectors`).
    } else if let Some(dim) = vector_dim {
        if catalog.embedder().is_none() && nodes.has_vectors() {
            catalog.set_embedder(Some(EmbedderDef {
                id: crate::SUPPLIED_EMBEDDER.into(),
                dim: dim as u32,
            }));
        }
    }
    drop(staging);
    let props_table = PropsTable {
        encoded: (edge_props.iter().map(EdgeProps::encode))
            .collect::<Result<_, _>>()
            .map_err(EngineError::encode("edge properties"))?,
        values: edge_props,
    };

    // ---- plan the writes ----
    report(
        options,
        Phase::Write,
        0,
        Some((nodes.len() + edge_count) as u64),
    );

    // Nodes: new ones go to files (records, vectors, keys, index entries);
    // existing ones are updated in the batch like a Writer would.
    // New nodes are their id and position in `nodes`, whose encoded records are written as they
    // are; a record is decoded to index it (the name index, and property indexes) or to update one.
    let mut new_nodes: Vec<(NodeId, u32)> = Vec::with_capacity((next - first_new) as usize);
    let mut reembed: Vec<(NodeId, NodeRecord)> = Vec::new();
    for (i, id) in ids.iter().copied().enumerate() {
        if is_new(id) {
            // Its `node_key` and index entries go to SST files with the others', in key
            // order, while the edges' files are written.
            summary.nodes_created += 1;
            new_nodes.push((id, i as u32));
            continue;
        }
        let Some(old) = reader.node(id)? else {
            continue;
        };
        let n = nodes.record(i)?;
        let mut rec = (*old).clone();
        merge_props(&mut rec.props, n.props);
        if n.description.is_some() {
            rec.description = n.description;
        }
        let vector = nodes.vector(i);
        if let Some(v) = vector {
            bulk.put_vector(id, v)?;
        } else if describe::description(&old, &catalog) != describe::description(&rec, &catalog) {
            // Its vector embeds the old text: embedded anew below (or dropped, with no embedder).
            reembed.push((id, rec.clone()));
        }
        if rec == *old {
            if vector.is_none() {
                summary.nodes_unchanged += 1;
            } else {
                summary.nodes_updated += 1;
            }
            continue;
        }
        summary.nodes_updated += 1;
        bulk.update_node(&catalog, id, &old, &rec)?;
    }
    refresh_vectors(&mut bulk, &reembed, embedder, options, &catalog)?;
    step.done("node writes planned");

    // ---- write the files while planning the rest ----
    // Each SST file is independent, so each is written on its own thread as soon as its keys
    // are known: the `out` files and the node records right away, the `in` files once the edges
    // are re-sorted by destination; meanwhile this thread plans the batch.
    let has_files = !new_nodes.is_empty();
    let embedder = embedder.map(|e| &**e);
    let sst = EdgeFiles {
        files: bulk.files(first_new..next)?,
        props: &props_table,
    };
    let files = std::thread::scope(|s| -> Result<Vec<BulkPart>, ImportError> {
        // The new nodes' index entries (each record decoded, its names normalised) and keys:
        // nothing else waits for them, so they are built and written beside the edges from the
        // start (they were a serial step before the edges, then the last file written).
        let key_files = s.spawn(|| -> Result<Vec<BulkPart>, ImportError> {
            // The keys first: their sort's 32 bytes a node are freed before the index entries
            // are built, and before the edges' buckets grow.
            let mut files: Vec<BulkPart> = write_node_keys(sst.files, &new_nodes, &nodes)?
                .into_iter()
                .collect();
            let index_parts = par_chunks(&new_nodes, |chunk| {
                let mut part = NewNodeIndex::default();
                for &(id, i) in chunk {
                    part.add(&catalog, id, &nodes.record(i as usize)?)?;
                }
                part.sort();
                Ok::<_, ImportError>(part)
            });
            let mut index_parts: Vec<NewNodeIndex> =
                index_parts.into_iter().collect::<Result<_, _>>()?;
            files.extend(sst.files.write_index(&mut index_parts)?);
            Ok(files)
        });
        let node_files = s.spawn(
            || -> Result<(Vec<Option<BulkPart>>, Embedded), ImportError> {
                let records = write_node_records(sst.files, &new_nodes, &nodes)?;
                let mut embedded = Embedded::default();
                let vectors = sst.files.vectors(|w| {
                    let new = (new_nodes.as_slice(), &nodes);
                    write_vectors(w, new, embedder, &catalog, options, &mut embedded)
                })?;
                Ok((vec![records, vectors], embedded))
            },
        );

        let mut new_degree: Vec<Degree> = vec![Degree::default(); new_nodes.len()];
        let mut old_degree: HashMap<NodeId, Degree> = HashMap::new();
        let mut bump = |id: NodeId, d: Degree| {
            let slot = if is_new(id) {
                &mut new_degree[(id.0 - first_new) as usize]
            } else {
                old_degree.entry(id).or_default()
            };
            *slot = slot.plus(d);
        };
        let panicked =
            || ImportError::Engine(EngineError::Invalid("SST writer thread panicked".into()));
        let mut files = Vec::new();
        // The edge column families get one file per core and bucket, over consecutive key
        // ranges, so that the cores share the writing to the end rather than one finishing the
        // `in` file alone.
        let mut edge_files = Vec::new();
        let join = |edge_files: &mut Vec<std::thread::ScopedJoinHandle<'_, _>>,
                    files: &mut Vec<BulkPart>|
         -> Result<(), ImportError> {
            for f in edge_files.drain(..) {
                let f: cairn_store::Result<Option<BulkPart>> = f.join().map_err(|_| panicked())?;
                files.extend(f?);
            }
            Ok(())
        };
        // When spilling, the files of the bucket before are finished once the next bucket is
        // loaded, so that memory holds one bucket (and its re-sort) at a time. (Finishing them
        // after the next bucket's sort instead kept both cores writing, but raised the peak by
        // a bucket: ~300 MiB at 5M nodes, near Kuzu's at 1M, for no gain measured above the
        // noise.)
        let finish_previous =
            |edge_files: &mut Vec<_>, files: &mut Vec<BulkPart>| -> Result<(), ImportError> {
                match plan.spills() {
                    true => join(edge_files, files),
                    false => Ok(()),
                }
            };
        // The files of one sorted bucket: one per part (over consecutive key ranges), or, for
        // a bucket sorted on one thread, the cores' shares of it; each from the part's first
        // edge `from` picks.
        let bucket_files = |parts: &[Arc<Vec<EdgeIn>>], from: &dyn Fn(&[EdgeIn]) -> usize| {
            let ranges: Vec<(usize, Range<usize>)> = match parts {
                [one] => file_parts(from(one)..one.len())
                    .into_iter()
                    .map(|r| (0, r))
                    .collect(),
                _ => (parts.iter().enumerate())
                    .map(|(p, e)| (p, from(e)..e.len()))
                    .collect(),
            };
            ranges.into_iter().filter(|(_, r)| !r.is_empty())
        };
        let mut in_edges = BucketWriter::new(&plan, spill_path, "in".into());
        let mut out_part = 0;
        for b in 0..plan.len() {
            let edges = spill::load(&mut resolved, b)?;
            finish_previous(&mut edge_files, &mut files)?;
            if edges.is_empty() {
                continue;
            }
            // Sort and dedupe edges. The sort is stable, so among duplicates the last line comes
            // last; dedup keeps the first of a run, so move each later duplicate's properties
            // into it. Duplicates share their source, so they are in one part.
            let range = plan.range(b);
            let parts = sort_edges_parallel(edges, &range, |e| e.src, |e| (e.rel, e.dst));
            let parts: Vec<Arc<Vec<EdgeIn>>> = (parts.into_iter())
                .map(|mut edges| {
                    edges.dedup_by(|later, kept| {
                        let same =
                            (later.src, later.rel, later.dst) == (kept.src, kept.rel, kept.dst);
                        if same {
                            kept.props = later.props;
                        }
                        same
                    });
                    Arc::new(edges)
                })
                .collect();
            step.done("edges sorted and deduplicated");
            // Existing sources sort first (their ids are lower); the edges of new sources that
            // follow are exactly the `out` file's keys, in order.
            let new_sources = |edges: &[EdgeIn]| edges.partition_point(|e| !is_new(e.src));
            for (p, range) in bucket_files(&parts, &new_sources) {
                let Some(edges) = parts.get(p).map(Arc::clone) else {
                    continue;
                };
                let i = out_part;
                out_part += 1;
                edge_files.push(s.spawn(move || {
                    let part = edges.get(range).unwrap_or_default();
                    sst.files.edges(Direction::Out, i, part, |e| sst.edge(e))
                }));
            }
            for e in parts.iter().flat_map(|p| p.iter()) {
                let (src_new, dst_new) = (is_new(e.src), is_new(e.dst));
                if !src_new && !dst_new {
                    match reader.edge(e.src, e.rel, e.dst)? {
                        Some(old) if old == props_table.value(e) => {
                            summary.edges_unchanged += 1;
                            continue;
                        }
                        Some(_) => summary.edges_updated += 1,
                        None => {
                            summary.edges_created += 1;
                            bump(e.src, Degree { out: 1, inc: 0 });
                            bump(e.dst, Degree { out: 0, inc: 1 });
                        }
                    }
                } else {
                    summary.edges_created += 1;
                    bump(e.src, Degree { out: 1, inc: 0 });
                    bump(e.dst, Degree { out: 0, inc: 1 });
                }
                let key = (e.src, e.rel, e.dst);
                bulk.put_edge(key, props_table.bytes(e), !src_new, !dst_new)?;
                if dst_new {
                    in_edges.push(*e, e.dst.0)?;
                }
            }
        }
        step.done("edge writes planned");
        // The index entries are freed before the `in` buckets are loaded: held beside them
        // (which the budget does not count) they raised the peak by ~80 MiB at 1M nodes.
        files.extend(key_files.join().map_err(|_| panicked())??);
        let mut in_edges = vec![in_edges.finish()?];
        let mut in_part = 0;
        for b in 0..plan.len() {
            let sst_in = spill::load(&mut in_edges, b)?;
            finish_previous(&mut edge_files, &mut files)?;
            if sst_in.is_empty() {
                continue;
            }
            let range = plan.range(b);
            let parts: Vec<Arc<Vec<EdgeIn>>> =
                sort_edges_parallel(sst_in, &range, |e| e.dst, |e| (e.rel, e.src))
                    .into_iter()
                    .map(Arc::new)
                    .collect();
            step.done("in-edges sorted");
            for (p, range) in bucket_files(&parts, &|_| 0) {
                let Some(edges) = parts.get(p).map(Arc::clone) else {
                    continue;
                };
                let i = in_part;
                in_part += 1;
                edge_files.push(s.spawn(move || {
                    let part = edges.get(range).unwrap_or_default();
                    sst.files.edges(Direction::In, i, part, |e| sst.edge(e))
                }));
            }
        }

        let mut old_degree: Vec<(NodeId, Degree)> = old_degree.into_iter().collect();
        old_degree.sort_by_key(|(id, _)| *id);
        for (id, d) in old_degree {
            bulk.add_degree(id, d)?;
        }
        let degrees: Vec<(NodeId, Degree)> = new_degree
            .iter()
            .enumerate()
            .filter(|(_, d)| **d != Degree::default())
            .map(|(i, d)| (NodeId(first_new + i as u64), *d))
            .collect();
        let degree_file = sst.files.degrees(&degrees, |&(id, d)| (id, d));

        let (node_files, embedded) = node_files.join().map_err(|_| panicked())??;
        files.extend(node_files.into_iter().flatten());
        summary.vectors_computed = embedded.count;
        summary.embed_time = embedded.time;
        files.extend(degree_file?);
        join(&mut edge_files, &mut files)?;
        Ok(files)
    })?;
    drop(spill_dir);
    step.done("SST files written");

    // ---- ingest the files ----
    cairn_store::failpoint!("import.files_written");
    if has_files {
        report(options, Phase::Commit, 0, None);
        bulk.ingest(files)?;
        step.done("SST files ingested");
        #[cfg(feature = "test-hooks")]
        test_hook_pause();
    }
    report(options, Phase::Commit, 0, None);
    bulk.commit(catalog, next)?;
    step.done("final batch committed");
    Ok(summary)
}

/// Logs (at debug level, `CAIRN_LOG=debug`) how long each step of an import took.
struct Step(std::time::Instant);

impl Step {
    fn start() -> Self {
        Step(std::time::Instant::now())
    }
    fn done(&mut self, what: &str) {
        let ms = self.0.elapsed().as_secs_f64() * 1e3;
        let rss = crate::budget::rss_note();
        tracing::debug!("import: {what} in {ms:.0} ms{rss}");
        self.0 = std::time::Instant::now();
    }
}

/// Staged edges resolved by one thread at a time: in memory, or a block of a spill file.
enum Chunk<'a> {
    Memory(&'a EdgePart, &'a [StagedEdge]),
    Spilled(&'a EdgePart, &'a Spilled, Block),
}

/// What resolving a chunk of staged edges produced.
struct ResolvedChunk {
    edges: Vec<EdgeIn>,
    errors: Vec<LineError>,
    labels: HashSet<(RelId, LabelId, LabelId)>,
}

/// The last endpoint resolved on one side of the edges: its staged label and key, the answer
/// and, for a node of the import, its position in the node list.
#[derive(Clone, Copy)]
struct Memo<'k> {
    label: u32,
    key: &'k str,
    resolved: Resolved,
    node: Option<u32>,
    /// The node follows the one resolved before it.
    in_order: bool,
}

/// Read-only view for resolving edge endpoints, shared by the resolving threads.
struct Resolver<'a> {
    staging: &'a Staging,
    /// Catalog relation of each staged name used as a relation type.
    rels: &'a [Option<RelId>],
    /// Catalog label of each staged name (None: no such label).
    labels: &'a [Option<LabelId>],
    by_key: Option<&'a HashMap<&'a str, Vec<LabelId>>>,
    table: &'a NodeTable,
    nodes: &'a NodeList,
    ids: &'a [NodeId],
    base_catalog: &'a Catalog,
    reader: &'a Reader<'a>,
}

impl Resolver<'_> {
    fn lookup(&self, label: LabelId, key: &str) -> Result<Option<NodeId>, ImportError> {
        let hash = self.table.hash(label, key);
        if let Some(i) = self.table.find(self.nodes, hash, label, key) {
            return Ok(Some(self.ids[i as usize]));
        }
        if self.base_catalog.label_name(label).is_some() {
            return Ok(self.reader.node_id(label, key)?);
        }
        Ok(None)
    }

    fn endpoint(&self, label: u32, key: &str) -> Result<Resolved, ImportError> {
        if label != NO_LABEL {
            return Ok(match self.labels[label as usize] {
                Some(l) => self
                    .lookup(l, key)?
                    .map_or(Resolved::Missing, |id| Resolved::Found(id, l)),
                None => Resolved::Missing,
            });
        }
        let mut labels = self
            .by_key
            .and_then(|m| m.get(key).cloned())
            .unwrap_or_default();
        labels.extend(self.base_catalog.labels().map(|(l, _)| l));
        labels.sort();
        labels.dedup();
        let mut found = Resolved::Missing;
        for l in labels {
            if let Some(id) = self.lookup(l, key)? {
                if matches!(found, Resolved::Found(..)) {
                    return Ok(Resolved::Ambiguous);
                }
                found = Resolved::Found(id, l);
            }
        }
        Ok(found)
    }

    /// [`Self::endpoint`], remembering the last answer: dumps often repeat a key on consecutive
    /// lines (a paper's authors, a paper's citations), and often list edges in the order of
    /// their nodes (p1's edges, then p2's). While the answers on a side follow the node order,
    /// the node after the last one is tried before the table: it is next in memory, where a
    /// table lookup costs a few cache misses.
    fn endpoint_cached<'k>(
        &self,
        last: &mut Option<Memo<'k>>,
        label: u32,
        key: &'k str,
    ) -> Result<Resolved, ImportError> {
        let after = match *last {
            Some(m) if m.label == label && m.key == key => return Ok(m.resolved),
            Some(m) => m.node.map(|i| i as usize + 1),
            None => None,
        };
        let in_order = last.is_some_and(|m| m.in_order);
        let known = (label != NO_LABEL)
            .then(|| self.labels.get(label as usize).copied().flatten())
            .flatten();
        let (resolved, node) = match known {
            Some(l) => {
                let next = after.filter(|&i| {
                    in_order && self.nodes.label(i) == l.0 && self.nodes.key(i) == key
                });
                let node = match next {
                    Some(i) => Some(i),
                    None => {
                        let hash = self.table.hash(l, key);
                        self.table
                            .find(self.nodes, hash, l, key)
                            .map(|i| i as usize)
                    }
                };
                match node.and_then(|i| self.ids.get(i)) {
                    Some(&id) => (Resolved::Found(id, l), node),
                    None => (self.endpoint(label, key)?, None),
                }
            }
            None => (self.endpoint(label, key)?, None),
        };
        *last = Some(Memo {
            label,
            key,
            resolved,
            node: node.map(|i| i as u32),
            in_order: node.is_some() && node == after,
        });
        Ok(resolved)
    }

    fn resolve(
        &self,
        part: &EdgePart,
        staged: &[StagedEdge],
    ) -> Result<ResolvedChunk, ImportError> {
        let staging = self.staging;
        let mut out = ResolvedChunk {
            edges: Vec::with_capacity(staged.len()),
            errors: Vec::new(),
            labels: HashSet::new(),
        };
        let mut last_labels = None;
        let (mut last_from, mut last_to) = (None, None);
        let describe = |label: u32, key: &str| {
            if label == NO_LABEL {
                format!("`{key}`")
            } else {
                format!("{} `{key}`", staging.names.name(label))
            }
        };
        for e in staged {
            let e = part.view(e);
            let rel = self
                .rels
                .get(e.rel as usize)
                .copied()
                .flatten()
                .ok_or_else(|| EngineError::Invalid("relation type not interned".into()))?;
            let (from_key, to_key) = (e.from_key, e.to_key);
            let from = self.endpoint_cached(&mut last_from, e.from_label, from_key)?;
            let to = self.endpoint_cached(&mut last_to, e.to_label, to_key)?;
            let reason = match (from, to) {
                (Resolved::Found(src, sl), Resolved::Found(dst, dl)) => {
                    if last_labels != Some((rel, sl, dl)) {
                        out.labels.insert((rel, sl, dl));
                        last_labels = Some((rel, sl, dl));
                    }
                    out.edges.push(EdgeIn {
                        src,
                        dst,
                        rel,
                        props: e.props,
                    });
                    continue;
                }
                (Resolved::Ambiguous, _) => format!(
                    "source id {} matches nodes of several labels; give the id group",
                    describe(e.from_label, from_key)
                ),
                (_, Resolved::Ambiguous) => format!(
                    "target id {} matches nodes of several labels; give the id group",
                    describe(e.to_label, to_key)
                ),
                (Resolved::Missing, _) => format!(
                    "edge source {} is not a node of this import or the database",
                    describe(e.from_label, from_key)
                ),
                (_, Resolved::Missing) => format!(
                    "edge target {} is not a node of this import or the database",
                    describe(e.to_label, to_key)
                ),
            };
            out.errors.push(staging.error(e.origin, reason));
        }
        Ok(out)
    }
}

/// The number of threads for the parallel phases.
/// Applies the schema records to the import's catalog (which has its new names by now): an
/// element no one defined is a bad line, under `--max-errors` like the others.
fn annotate(
    catalog: &mut Catalog,
    staging: &Staging,
    summary: &mut ImportSummary,
    options: &ImportOptions,
) -> Result<(), ImportError> {
    use crate::dump::SchemaKind;
    use cairn_store::Element;
    for (record, origin) in &staging.schema {
        let element = match record.kind {
            SchemaKind::Label => catalog.label_id(&record.name).map(Element::Label),
            SchemaKind::Relation => catalog.relation_id(&record.name).map(Element::Relation),
            SchemaKind::Property => catalog.prop_id(&record.name).map(Element::Property),
        };
        let Some(element) = element else {
            let kind = match record.kind {
                SchemaKind::Label => "label",
                SchemaKind::Relation => "relation",
                SchemaKind::Property => "property",
            };
            summary.skipped.push(staging.error(
                *origin,
                format!(
                    "unknown {kind} `{}`: neither the database nor this import has it",
                    record.name
                ),
            ));
            if summary.skipped.len() > options.max_errors {
                return Err(ImportError::BadLines {
                    errors: std::mem::take(&mut summary.skipped),
                    max: options.max_errors,
                });
            }
            continue;
        };
        catalog.annotate(
            element,
            record.description.clone(),
            record.aliases.clone(),
            record.linking,
        )?;
    }
    Ok(())
}

fn workers() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .max(1)
}

/// Runs per core that [`par_chunks`] splits its items into.
const RUNS_PER_CORE: usize = 4;

/// Applies `f` to contiguous chunks of `items` on every core and returns the results in order.
/// There are a few chunks per core, each core taking the next when it is done: with one chunk
/// per core, a core whose half was cheaper (edges listed in node order resolve from the memo,
/// random ones need table lookups) sat idle while the other finished, and a phase used 1.3 of
/// the 2 cores.
fn par_chunks<T: Sync, R: Send>(items: &[T], f: impl Fn(&[T]) -> R + Sync) -> Vec<R> {
    let size = items.len().div_ceil(workers() * RUNS_PER_CORE).max(1);
    let chunks: Vec<&[T]> = items.chunks(size).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let out: Vec<std::sync::Mutex<Option<R>>> =
        chunks.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..workers().min(chunks.len()) {
            s.spawn(|| loop {
                let c = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(chunk) = chunks.get(c) else { break };
                let r = f(chunk);
                if let Ok(mut slot) = out[c].lock() {
                    *slot = Some(r);
                }
            });
        }
    });
    out.into_iter()
        .map(|slot| {
            slot.into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| panic!("a worker of par_chunks did not finish"))
        })
        .collect()
}

/// Writes the records of the new nodes (in ascending id order) to the node column family's SST
/// file: the bytes the node list holds are the values.
fn write_node_records(
    files: BulkFiles<'_>,
    new_nodes: &[(NodeId, u32)],
    nodes: &NodeList,
) -> Result<Option<BulkPart>, EngineError> {
    files.node_records(new_nodes, |&(id, i)| (id, nodes.record_bytes(i as usize)))
}

/// Writes the `node_key` entries of new nodes to their part, sorted: (label, key) order is the
/// encoded keys' byte order (label big-endian, then the key's bytes), so no key is encoded to
/// be sorted. Each entry to sort holds the key's first 8 bytes: most comparisons end there,
/// without reading the key from the node list (a cache miss each; the sort of 5M `&str` keys
/// took 2.6 s) — and it is 16 bytes an entry rather than 32.
fn write_node_keys(
    files: BulkFiles<'_>,
    new_nodes: &[(NodeId, u32)],
    nodes: &NodeList,
) -> cairn_store::Result<Option<BulkPart>> {
    let keys = node_key_order(new_nodes, nodes);
    files.node_keys(&keys, |&(label, _, n)| {
        let (id, i) = new_nodes
            .get(n as usize)
            .copied()
            .unwrap_or((NodeId(0), u32::MAX));
        (LabelId(label), nodes.key(i as usize), id)
    })
}

/// The new nodes as (label, the key's first 8 bytes big-endian, position in `new_nodes`), in
/// (label, key) order.
fn node_key_order(new_nodes: &[(NodeId, u32)], nodes: &NodeList) -> Vec<(u32, u64, u32)> {
    let key = |n: u32| {
        let i = new_nodes.get(n as usize).map_or(u32::MAX, |&(_, i)| i);
        nodes.key(i as usize)
    };
    let mut keys: Vec<(u32, u64, u32)> = (0..new_nodes.len() as u32)
        .map(|n| {
            let i = new_nodes.get(n as usize).map_or(u32::MAX, |&(_, i)| i) as usize;
            let mut prefix = [0u8; 8];
            let k = nodes.key(i).as_bytes();
            let len = k.len().min(8);
            prefix[..len].copy_from_slice(&k[..len]);
            (nodes.label(i), u64::from_be_bytes(prefix), n)
        })
        .collect();
    // A shorter key padded with zeros can tie a longer one: ties compare the whole keys.
    keys.sort_unstable_by(|a, b| {
        (a.0, a.1)
            .cmp(&(b.0, b.1))
            .then_with(|| key(a.2).cmp(key(b.2)))
    });
    keys
}

type EmbedResult = Result<Vec<Vec<f32>>, ImportError>;

/// What [`write_vectors`] computed: vectors, and the time embedding them took.
#[derive(Default)]
struct Embedded {
    count: u64,
    time: std::time::Duration,
}

/// Descriptions per embedding batch: large enough for a model embedder to pack thousands of
/// tokens per forward (MiniLM: ~20 tokens a description), small enough for progress every few
/// seconds.
const EMBED_BATCH: usize = 256;

/// Writes the vectors of `new_nodes` (in ascending id order) to the vector file: those the dump
/// supplied, and for the others (with an embedder) their descriptions' embeddings, computed a
/// group of batches at a time and written at once. Only one group's vectors are ever held
/// (holding all of them took 7.7 GB for 5M nodes at 384 dimensions).
fn write_vectors(
    sink: &mut VectorSink<'_>,
    (new_nodes, nodes): (&[(NodeId, u32)], &NodeList),
    embedder: Option<&dyn cairn_embed::Embedder>,
    catalog: &Catalog,
    options: &ImportOptions,
    embedded: &mut Embedded,
) -> Result<(), ImportError> {
    // A few batches per core: the cores wait for each other once per group.
    let group = workers() * EMBED_BATCH * 4;
    let supplied = |i: u32| nodes.vector(i as usize);
    let total = match embedder {
        Some(_) => new_nodes
            .iter()
            .filter(|(_, i)| supplied(*i).is_none())
            .count() as u64,
        None => 0,
    };
    if embedder.is_some() {
        report(options, Phase::Embed, 0, Some(total));
    }
    for group in new_nodes.chunks(group) {
        let mut computed = match embedder {
            Some(embedder) => {
                let todo: Vec<u32> = group
                    .iter()
                    .map(|&(_, i)| i)
                    .filter(|&i| supplied(i).is_none())
                    .collect();
                let started = std::time::Instant::now();
                let text = |k: usize| {
                    let rec = nodes.record(todo[k] as usize)?;
                    Ok(cairn_store::describe::description(&rec, catalog))
                };
                let vectors =
                    embed_nodes(embedder, todo.len(), text, options, (embedded.count, total))?;
                embedded.time += started.elapsed();
                embedded.count += vectors.len() as u64;
                vectors
            }
            None => Vec::new(),
        }
        .into_iter();
        for &(id, i) in group {
            let computed = match supplied(i) {
                Some(_) => None,
                None => computed.next(),
            };
            if let Some(v) = supplied(i).or(computed.as_deref()) {
                sink.put(id, v)?;
            }
        }
    }
    Ok(())
}

/// The vectors of existing nodes whose description this import changed without supplying a
/// vector: embedded anew in the final batch with the import's embedder, or dropped without one
/// (a vector of the old text would answer SEARCH for what the node no longer says).
fn refresh_vectors(
    bulk: &mut BulkLoad<'_>,
    changed: &[(NodeId, NodeRecord)],
    embedder: Option<&Arc<dyn cairn_embed::Embedder>>,
    options: &ImportOptions,
    catalog: &Catalog,
) -> Result<(), ImportError> {
    if changed.is_empty() {
        return Ok(());
    }
    match embedder.map(|e| &**e) {
        Some(embedder) => {
            let records: Vec<&NodeRecord> = changed.iter().map(|(_, r)| r).collect();
            let n = records.len() as u64;
            let text = |k: usize| Ok(describe::description(records[k], catalog));
            let vectors = embed_nodes(embedder, records.len(), text, options, (0, n))?;
            for ((id, _), v) in changed.iter().zip(&vectors) {
                bulk.put_vector(*id, v)?;
            }
        }
        None => {
            for (id, _) in changed {
                bulk.drop_vector(*id)?;
            }
        }
    }
    Ok(())
}

/// The embedder that computes the import's missing vectors, after the dump's embedder records
/// (`{"type":"embedder",…}`, which `cairn export` writes) are checked: they must agree with
/// each other, with the database's embedder and with its vectors' dimension, and are recorded
/// in the catalog. An import whose embedder is only the default then computes nothing: the
/// dump carries the vectors its database had, and nodes it gives none had none.
fn dump_embedder<'o>(
    catalog: &mut Catalog,
    staging: &Staging,
    options: &'o ImportOptions,
    vector_dim: Option<usize>,
) -> Result<Option<&'o Arc<dyn cairn_embed::Embedder>>, ImportError> {
    let Some((declared, origin)) = staging.embedders.first() else {
        return Ok(options.embedder.as_ref());
    };
    let bad = |origin, reason: String| ImportError::BadLines {
        errors: vec![staging.error(origin, reason)],
        max: options.max_errors,
    };
    if let Some((other, at)) = staging.embedders.iter().find(|(e, _)| e != declared) {
        return Err(bad(
            *at,
            format!(
                "embedder `{}` ({} dimensions) differs from `{}` ({}) of an earlier embedder record",
                other.id, other.dim, declared.id, declared.dim
            ),
        ));
    }
    let dumped = format!("{} (the dump's embedder record)", declared.id);
    if declared.id == crate::dump::NO_EMBEDDER {
        // A database without an embedder: nothing is computed unless this database records one
        // or the caller chose one.
        if vector_dim.is_some() && catalog.embedder().is_none() {
            return Err(bad(
                *origin,
                "the embedder record says none, but the dump has vectors".into(),
            ));
        }
        let computes = catalog.embedder().is_some() || !options.embedder_is_default;
        return Ok(options.embedder.as_ref().filter(|_| computes));
    }
    if let Some(d) = vector_dim.filter(|d| *d != declared.dim as usize) {
        return Err(bad(
            *origin,
            format!(
                "the embedder record says {} dimensions, the vectors have {d}",
                declared.dim
            ),
        ));
    }
    match catalog.embedder() {
        Some(def) if def.id != declared.id || def.dim != declared.dim => {
            return Err(ImportError::EmbedderMismatch {
                recorded: def.id.clone(),
                given: dumped,
            })
        }
        Some(_) => {}
        None => catalog.set_embedder(Some(EmbedderDef {
            id: declared.id.clone(),
            dim: declared.dim,
        })),
    }
    match &options.embedder {
        Some(_) if options.embedder_is_default => Ok(None),
        Some(e) if e.id() != declared.id => Err(ImportError::EmbedderMismatch {
            recorded: dumped,
            given: e.id().to_owned(),
        }),
        e => Ok(e.as_ref()),
    }
}

/// Embeds `count` descriptions, the `k`-th given by `text(k)`, on every core, in batches,
/// reporting [`Phase::Embed`] progress after each batch (a model embedder can take minutes
/// here); `progress` is the number of descriptions embedded before these, and the total. Each
/// worker makes its batch's texts, so records are decoded where they are embedded.
///
/// One worker per core pulls the next batch, which keeps single-threaded embedders (hash, HTTP)
/// on every core. An embedder that is itself parallel inside a batch (MiniLM) then runs two
/// threads per core; measured on 10,000 descriptions, that took the same CPU time (60–65 s) as
/// one calling thread, so no embedder needs to say how it parallelises.
fn embed_nodes(
    embedder: &dyn cairn_embed::Embedder,
    count: usize,
    text: impl Fn(usize) -> Result<String, ImportError> + Sync,
    options: &ImportOptions,
    progress: (u64, u64),
) -> Result<Vec<Vec<f32>>, ImportError> {
    let (before, total) = progress;
    let done = std::sync::atomic::AtomicU64::new(before);
    let texts = |chunk: &std::ops::Range<usize>| -> Result<Vec<String>, ImportError> {
        chunk.clone().map(&text).collect()
    };
    let chunks: Vec<std::ops::Range<usize>> = (0..count)
        .step_by(EMBED_BATCH)
        .map(|start| start..(start + EMBED_BATCH).min(count))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let out: Vec<std::sync::Mutex<Option<EmbedResult>>> =
        chunks.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..workers().min(chunks.len()) {
            s.spawn(|| loop {
                let c = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(chunk) = chunks.get(c) else { break };
                let result = texts(chunk).and_then(|t| {
                    let refs: Vec<&str> = t.iter().map(String::as_str).collect();
                    Ok(embedder.embed_batch(&refs)?)
                });
                let now = done.fetch_add(chunk.len() as u64, std::sync::atomic::Ordering::Relaxed)
                    + chunk.len() as u64;
                report(options, Phase::Embed, now, Some(total));
                if let Ok(mut slot) = out[c].lock() {
                    *slot = Some(result);
                }
            });
        }
    });
    let mut vectors = Vec::with_capacity(count);
    for slot in out {
        let part = slot
            .into_inner()
            .ok()
            .flatten()
            .ok_or_else(|| EngineError::Invalid("an embedding worker did not finish".into()))?;
        vectors.extend(part?);
    }
    Ok(vectors)
}

/// A pause between ingesting files and committing, so that the kill test can hit that window.
/// Only in builds with the `test-hooks` feature, and only when `CAIRN_TEST_IMPORT_PAUSE_MS` is
/// set.
#[cfg(feature = "test-hooks")]
fn test_hook_pause() {
    if let Some(ms) = std::env::var("CAIRN_TEST_IMPORT_PAUSE_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        eprintln!("import: files ingested, pausing {ms} ms before commit");
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

fn merge_props(into: &mut Vec<(PropKeyId, Value)>, from: Vec<(PropKeyId, Value)>) {
    for (k, v) in from {
        match into.binary_search_by_key(&k, |(pk, _)| *pk) {
            Ok(i) => into[i].1 = v,
            Err(i) => into.insert(i, (k, v)),
        }
    }
}

/// The store's bulk part writer with the import's edge property bytes, shared by the writer
/// threads.
#[derive(Clone, Copy)]
struct EdgeFiles<'a> {
    files: BulkFiles<'a>,
    props: &'a PropsTable,
}

impl<'a> EdgeFiles<'a> {
    /// Edge `e` as the store's bulk writer takes it: (source, relation, destination, encoded
    /// properties).
    fn edge(&self, e: &EdgeIn) -> (NodeId, RelId, NodeId, &'a [u8]) {
        (e.src, e.rel, e.dst, self.props.bytes(e))
    }
}

/// Splits the positions `range` of sorted edges into consecutive parts, one per core, none under
/// a quarter of a million edges: a bucket's file written on one thread kept one core busy while
/// the other, its sort done, had only the planning loop to do.
fn file_parts(range: Range<usize>) -> Vec<Range<usize>> {
    let len = range.len();
    let parts = workers().min(len >> 18).max(1);
    let size = len.div_ceil(parts).max(1);
    (range.start..range.end)
        .step_by(size)
        .map(|start| start..(start + size).min(range.end))
        .collect()
}

impl spill::Fixed for EdgeIn {
    const LEN: usize = 24;
    fn write_to(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.src.0.to_le_bytes());
        out[8..16].copy_from_slice(&self.dst.0.to_le_bytes());
        out[16..20].copy_from_slice(&self.rel.0.to_le_bytes());
        out[20..24].copy_from_slice(&self.props.to_le_bytes());
    }
    fn read_from(b: &[u8]) -> Self {
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default());
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap_or_default());
        EdgeIn {
            src: NodeId(u64_at(0)),
            dst: NodeId(u64_at(8)),
            rel: RelId(u32_at(16)),
            props: u32_at(20),
        }
    }
}

/// Edges below which a bucket is sorted on one thread.
const PARALLEL_SORT_MIN: usize = 1 << 18;

/// [`sort_edges`] on every core: the edges are split by node into one contiguous range of the
/// new ids per core (existing nodes, which sort first, go with the first), each picked out and
/// sorted on its own thread. The sorted parts are returned in order, not joined: each becomes
/// its own file, and joining them copied every bucket once more on one core. Sorting a
/// 5M-node import's buckets on one thread left the other core idle for most of the write
/// phase. The ranges hold equal numbers of edges, not of ids: the in-edges of a dump's few
/// topics and venues (a quarter of its edges, on a few hundred consecutive ids) made one range
/// hold nearly all of a bucket.
fn sort_edges_parallel<K: Ord>(
    edges: Vec<EdgeIn>,
    new: &Range<u64>,
    node: impl Fn(&EdgeIn) -> NodeId + Sync,
    rest: impl Fn(&EdgeIn) -> K + Sync,
) -> Vec<Vec<EdgeIn>> {
    let ids = new.end.saturating_sub(new.start);
    let parts = (workers() as u64).min(ids);
    if edges.len() < PARALLEL_SORT_MIN || parts < 2 {
        return vec![sort_edges(edges, new, node, rest)];
    }
    let (ends, counts) = balanced_ranges(&edges, new, &node, parts as usize);
    let (node, rest, ends) = (&node, &rest, &ends);
    // Each thread picks out its range's edges; the bucket is freed before the sorts, whose
    // scratch copies would otherwise be a third copy of it.
    let split: Vec<(Range<u64>, Vec<EdgeIn>)> = std::thread::scope(|s| {
        let edges = &edges;
        let handles: Vec<_> = (0..ends.len())
            .map(|p| {
                let count = counts.get(p).copied().unwrap_or(0) as usize;
                s.spawn(move || {
                    let start = match p {
                        0 => new.start,
                        _ => ends.get(p - 1).copied().unwrap_or(new.end),
                    };
                    let end = ends.get(p).copied().unwrap_or(new.end);
                    // Ids below the new range (existing nodes) belong to the first part, any
                    // past it to the last, as in the histogram.
                    let last = p + 1 == ends.len();
                    let mine = |id: u64| (p == 0 || id >= start) && (last || id < end);
                    let mut part = Vec::with_capacity(count);
                    part.extend(edges.iter().filter(|e| mine(node(e).0)).copied());
                    (start..end, part)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    drop(edges);
    std::thread::scope(|s| {
        let handles: Vec<_> = split
            .into_iter()
            .map(|(range, part)| s.spawn(move || sort_edges(part, &range, node, rest)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// The ends of `parts` consecutive ranges of `new` (the last ends at `new.end`) holding about
/// equal numbers of `edges` by `node`, from a histogram of at most 2^16 slices of the ids;
/// edges of existing nodes count for the first.
fn balanced_ranges(
    edges: &[EdgeIn],
    new: &Range<u64>,
    node: &impl Fn(&EdgeIn) -> NodeId,
    parts: usize,
) -> (Vec<u64>, Vec<u64>) {
    let ids = new.end.saturating_sub(new.start);
    let shift = (u64::BITS - ids.leading_zeros()).saturating_sub(16);
    let slices = (ids >> shift) as usize + 1;
    let mut counts = vec![0u64; slices];
    for e in edges {
        let slice = (node(e).0.saturating_sub(new.start) >> shift) as usize;
        if let Some(c) = counts.get_mut(slice.min(slices - 1)) {
            *c += 1;
        }
    }
    let total = edges.len() as u64;
    let mut ends = Vec::with_capacity(parts);
    let mut sizes = Vec::with_capacity(parts);
    let (mut seen, mut before) = (0u64, 0u64);
    for (slice, c) in counts.iter().enumerate() {
        seen += c;
        if ends.len() + 1 < parts && seen * parts as u64 >= total * (ends.len() as u64 + 1) {
            let end = new.start + ((slice as u64 + 1) << shift);
            ends.push(end.min(new.end));
            sizes.push(seen - before);
            before = seen;
        }
    }
    while ends.len() < parts {
        ends.push(new.end);
        sizes.push(total - before);
        before = total;
    }
    if let Some(last) = ends.last_mut() {
        *last = new.end;
    }
    (ends, sizes)
}

/// Sorts `edges` by `(node(e), rest(e))`, stably.
///
/// Edges of the import's new nodes (`new`, a dense id range) are ordered by node with an LSD
/// radix sort: a few linear passes, each stable and scattering to at most 2^11 places at once,
/// so that the places written stay in cache (a one-pass counting sort over a million nodes
/// writes every edge to a random place and is several times slower). Then each node's few
/// edges are sorted by `rest`. Edges of existing nodes (lower ids, usually few) are sorted by
/// comparison and come first.
fn sort_edges<K: Ord>(
    mut edges: Vec<EdgeIn>,
    new: &Range<u64>,
    node: impl Fn(&EdgeIn) -> NodeId,
    rest: impl Fn(&EdgeIn) -> K,
) -> Vec<EdgeIn> {
    const MAX_RADIX_BITS: u32 = 11;
    // Bucket 0 holds existing nodes, bucket 1 + i the new node `new.start + i`.
    let bucket = |e: &EdgeIn| {
        let id = node(e).0;
        if new.contains(&id) {
            (id - new.start) as usize + 1
        } else {
            0
        }
    };
    let top = (new.end - new.start) as usize;
    let bits = usize::BITS - top.leading_zeros();
    let passes = bits.div_ceil(MAX_RADIX_BITS);
    if passes > 0 && edges.len() > 1 {
        let width = bits.div_ceil(passes);
        let mask = (1usize << width) - 1;
        let mut scratch = edges.clone();
        for pass in 0..passes {
            let digit = |e: &EdgeIn| (bucket(e) >> (pass * width)) & mask;
            let mut next = vec![0usize; mask + 2];
            for e in &edges {
                next[digit(e) + 1] += 1;
            }
            for d in 1..next.len() {
                next[d] += next[d - 1];
            }
            for e in &edges {
                let d = digit(e);
                scratch[next[d]] = *e;
                next[d] += 1;
            }
            std::mem::swap(&mut edges, &mut scratch);
        }
    }
    let old = edges.partition_point(|e| bucket(e) == 0);
    let (old, new) = edges.split_at_mut(old);
    old.sort_by_key(|e| (node(e), rest(e)));
    for run in new.chunk_by_mut(|a, b| node(a) == node(b)) {
        if run.len() > 1 {
            run.sort_by_key(&rest);
        }
    }
    edges
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The node keys' order is (label, key) byte order, for keys that tie on their first 8
    /// bytes (zero padding, a zero byte, one a prefix of the other) and that do not.
    #[test]
    fn node_keys_sort_by_label_then_key_bytes() {
        let keys = [
            (2, "abcdefgh"),
            (1, "abcdefghij"),
            (1, "abcdefgh"),
            (1, "abc\0"),
            (1, "abc"),
            (1, ""),
            (1, "abcdefgh\0"),
            (1, "abcdefgi"),
            (0, "zz"),
            (1, "abcdefghi"),
            (1, "b"),
        ];
        let mut nodes = NodeList::default();
        let origin = crate::nodes::Origin { file: 0, line: 0 };
        for (label, key) in keys {
            let rec = NodeRecord {
                label: LabelId(label),
                key: key.into(),
                props: Vec::new(),
                description: None,
            };
            nodes.push(&rec, None, origin).unwrap();
        }
        let new_nodes: Vec<(NodeId, u32)> = (0..keys.len() as u32)
            .map(|i| (NodeId(100 + u64::from(i)), i))
            .collect();
        let got: Vec<(u32, &str)> = node_key_order(&new_nodes, &nodes)
            .into_iter()
            .map(|(label, _, n)| (label, keys[n as usize].1))
            .collect();
        let mut expected = keys.to_vec();
        expected.sort();
        assert_eq!(got, expected);
    }

    /// `par_chunks` covers every item once and returns the chunks' results in item order, for
    /// fewer items than chunks, uneven work, and none.
    #[test]
    fn par_chunks_keeps_item_order() {
        for n in [0usize, 1, 3, 7, 1000, 12_345] {
            let items: Vec<usize> = (0..n).collect();
            let runs = par_chunks(&items, |chunk| {
                // Uneven work: later chunks finish first.
                let spin: u64 = (0..(n - chunk[0]) as u64 * 100).sum();
                (chunk.to_vec(), spin)
            });
            let joined: Vec<usize> = runs.into_iter().flat_map(|(c, _)| c).collect();
            assert_eq!(joined, items, "{n} items");
        }
    }

    /// The radix sort agrees with a stable comparison sort, for ids of existing nodes (below
    /// the range) and of new ones, over ranges needing one, two and three passes.
    #[test]
    fn sort_edges_is_a_stable_sort_by_node_then_rest() {
        let mut next = crate::test_numbers(7);
        for new_nodes in [1u64, 5, 3000, 5_000_000] {
            let new = 1000..1000 + new_nodes;
            let edges: Vec<EdgeIn> = (0..20_000u32)
                .map(|i| {
                    let id = |next: &mut dyn FnMut(u64) -> u64| {
                        if next(4) == 0 {
                            NodeId(next(1000))
                        } else {
                            NodeId(new.start + next(new_nodes.min(500)) * (new_nodes / 500).max(1))
                        }
                    };
                    EdgeIn {
                        src: id(&mut next),
                        dst: id(&mut next),
                        rel: RelId(next(3) as u32),
                        props: i,
                    }
                })
                .collect();
            let mut expected = edges.clone();
            expected.sort_by_key(|e| (e.dst, e.rel, e.src));
            let key = |e: &EdgeIn| (e.dst, e.rel, e.src, e.props);
            let expected: Vec<_> = expected.iter().map(key).collect();
            let sorted = sort_edges(edges.clone(), &new, |e| e.dst, |e| (e.rel, e.src));
            assert_eq!(
                sorted.iter().map(key).collect::<Vec<_>>(),
                expected,
                "{new_nodes} new nodes"
            );
            // Split over the cores (the edges repeated past the parallel threshold).
            let many: Vec<EdgeIn> =
                std::iter::repeat_n(&edges, PARALLEL_SORT_MIN / edges.len() + 1)
                    .flatten()
                    .copied()
                    .collect();
            let mut expected = many.clone();
            expected.sort_by_key(|e| (e.dst, e.rel, e.src));
            let parts = sort_edges_parallel(many, &new, |e| e.dst, |e| (e.rel, e.src));
            assert!(parts.len() <= workers());
            assert_eq!(
                parts.iter().flatten().map(key).collect::<Vec<_>>(),
                expected.iter().map(key).collect::<Vec<_>>(),
                "{new_nodes} new nodes, in parallel"
            );
        }
    }
}
