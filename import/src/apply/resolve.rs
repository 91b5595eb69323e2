//! Edge endpoints resolved to node ids: by the import's merged nodes first, then by the
//! database's, on every core.

use super::merge::{Ids, Merged, NodeTable};
use super::{par_chunks, EdgeIn};
use crate::nodes::NodeList;
use crate::spill::{self, BucketWriter, Written};
use crate::stage::{Block, EdgePart, Spilled, StagedEdge, Staging, BLOCK, NO_LABEL};
use crate::{ImportError, LineError};
use cairn_storage_format::{LabelId, NodeId, RelId};
use cairn_store::graph::Reader;
use cairn_store::{Catalog, EngineError};
use hashbrown::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Where an edge endpoint points.
#[derive(Clone, Copy)]
enum Resolved {
    Found(NodeId, LabelId),
    Missing,
    Ambiguous,
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
pub(super) struct Resolver<'a> {
    staging: &'a Staging,
    /// Catalog relation of each staged name used as a relation type.
    rels: Vec<Option<RelId>>,
    /// Catalog label of each staged name (None: no such label).
    labels: Vec<Option<LabelId>>,
    /// Labels that hold a given key, built only if some endpoint has no id group.
    by_key: Option<HashMap<&'a str, Vec<LabelId>>>,
    table: &'a NodeTable,
    nodes: &'a NodeList,
    ids: &'a [NodeId],
    base_catalog: &'a Catalog,
    reader: &'a Reader<'a>,
}

/// What resolving every staged edge produced.
#[derive(Default)]
pub(super) struct ResolvedEdges {
    /// The edges, in buckets by source.
    pub(super) written: Vec<Written<EdgeIn>>,
    pub(super) errors: Vec<LineError>,
    /// The (relation, source label, destination label) triples the edges have.
    pub(super) labels: HashSet<(RelId, LabelId, LabelId)>,
}

impl<'a> Resolver<'a> {
    /// The view over the merged nodes, the database (`base`: its catalog before the import and
    /// a reader) and `catalog`, which has every name of the import interned by now; `rels` from
    /// [`NameMap::rels`](super::NameMap::rels).
    pub(super) fn new(
        staging: &'a Staging,
        rels: Vec<Option<RelId>>,
        catalog: &Catalog,
        (merged, ids): (&'a Merged, &'a Ids),
        (base_catalog, reader): (&'a Catalog, &'a Reader<'a>),
    ) -> Self {
        let nodes = &merged.nodes;
        let labels = (staging.names.names.iter())
            .map(|n| catalog.label_id(n))
            .collect();
        let by_key = staging.parts.iter().any(EdgePart::any_unlabelled).then(|| {
            let mut m: HashMap<&str, Vec<LabelId>> = HashMap::new();
            for i in 0..nodes.len() {
                m.entry(nodes.key(i))
                    .or_default()
                    .push(LabelId(nodes.label(i)));
            }
            m
        });
        Resolver {
            staging,
            rels,
            labels,
            by_key,
            table: &merged.table,
            nodes,
            ids: &ids.ids,
            base_catalog,
            reader,
        }
    }

    /// Resolves every staged edge on every core: each core resolves a contiguous run of chunks
    /// (a file's spilled blocks come before its edges in memory) and the runs are joined in
    /// order, so line order survives. The edges go to buckets by source (spilled to disk when
    /// they do not fit the budget; `spill.rs`), each core's in the order of its lines.
    pub(super) fn resolve_all(
        &self,
        plan: &spill::Plan,
        spill_path: Option<&Path>,
    ) -> Result<ResolvedEdges, ImportError> {
        let chunks: Vec<Chunk<'_>> = (self.staging.parts.iter())
            .flat_map(|p| {
                let spilled = (p.spilled.iter())
                    .flat_map(move |s| s.blocks.iter().map(move |b| Chunk::Spilled(p, s, *b)));
                spilled.chain(p.edges.chunks(BLOCK).map(move |c| Chunk::Memory(p, c)))
            })
            .collect();
        let writers = AtomicUsize::new(0);
        let resolve_run = |run: &[Chunk<'_>]| -> Result<_, ImportError> {
            let w = writers.fetch_add(1, Ordering::Relaxed);
            let mut out = BucketWriter::new(plan, spill_path, format!("out-{w}"));
            let mut errors = Vec::new();
            let mut labels = HashSet::new();
            for chunk in run {
                let r = match chunk {
                    Chunk::Memory(part, edges) => self.resolve(part, edges)?,
                    Chunk::Spilled(part, spilled, block) => {
                        let read = spilled.read(part, *block)?;
                        self.resolve(&read, &read.edges)?
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
        let mut resolved = ResolvedEdges::default();
        for run in par_chunks(&chunks, resolve_run) {
            let (written, errors, labels) = run?;
            resolved.written.push(written);
            resolved.errors.extend(errors);
            resolved.labels.extend(labels);
        }
        Ok(resolved)
    }
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
            .as_ref()
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
