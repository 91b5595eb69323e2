//! Writing an import's bulk parts (SST files on RocksDB), each on its own thread as soon as
//! its keys are known, while this thread plans the final batch: edges of existing sources,
//! degrees, and counts for the summary.

use super::embed::{write_vectors, Embedded};
use super::merge::Ids;
use super::sort::sort_edges_parallel;
use super::{par_chunks, workers, EdgeIn, PropsTable, Step};
use crate::nodes::NodeList;
use crate::spill::{self, BucketWriter, Written};
use crate::{ImportError, ImportOptions, ImportSummary};
use cairn_embed::Embedder;
use cairn_storage_format::{Degree, LabelId, NodeId, RelId};
use cairn_store::graph::Reader;
use cairn_store::{BulkFiles, BulkLoad, BulkPart, Catalog, Direction, EngineError, NewNodeIndex};
use hashbrown::HashMap;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use std::thread::{Scope, ScopedJoinHandle};

/// What the file writers read.
pub(super) struct FilePlan<'a> {
    pub(super) sst: EdgeFiles<'a>,
    /// The buckets the resolved edges are in.
    pub(super) plan: &'a spill::Plan,
    pub(super) spill_path: Option<&'a Path>,
    /// The new nodes: id and position in `nodes`, in id order.
    pub(super) new_nodes: &'a [(NodeId, u32)],
    pub(super) nodes: &'a NodeList,
    pub(super) ids: &'a Ids,
    pub(super) catalog: &'a Catalog,
    pub(super) options: &'a ImportOptions,
    pub(super) embedder: Option<&'a dyn Embedder>,
    pub(super) reader: &'a Reader<'a>,
}

/// Writes every bulk part of the import and plans the rest into `bulk`'s batch: the new nodes'
/// keys and index entries, records and vectors, the edges in both directions, the degrees.
/// Each SST file is independent, so each is written on its own thread as soon as its keys are
/// known: the node files and the `out` files right away, the `in` files once the edges are
/// re-sorted by destination; meanwhile this thread plans the batch.
pub(super) fn write_files(
    w: &FilePlan<'_>,
    bulk: &mut BulkLoad<'_>,
    mut resolved: Vec<Written<EdgeIn>>,
    summary: &mut ImportSummary,
    step: &mut Step,
) -> Result<Vec<BulkPart>, ImportError> {
    let (sst, new_nodes, nodes, catalog) = (w.sst, w.new_nodes, w.nodes, w.catalog);
    let (options, embedder) = (w.options, w.embedder);
    std::thread::scope(|s| {
        // The new nodes' index entries and keys: nothing else waits for them, so they are
        // built and written beside the edges from the start.
        let key_files = s.spawn(move || node_key_files(sst.files, new_nodes, nodes, catalog));
        let node_files = s.spawn(
            move || -> Result<(Vec<Option<BulkPart>>, Embedded), ImportError> {
                let records = write_node_records(sst.files, new_nodes, nodes)?;
                let mut embedded = Embedded::default();
                let vectors = sst.files.vectors(|v| {
                    let new = (new_nodes, nodes);
                    write_vectors(v, new, embedder, catalog, options, &mut embedded)
                })?;
                Ok((vec![records, vectors], embedded))
            },
        );
        let mut degrees = Degrees::new(w.ids, new_nodes.len());
        let mut writers = EdgeWriters::new(s, sst, w.plan.spills());
        let in_edges = write_out_edges(
            w,
            &mut writers,
            &mut degrees,
            bulk,
            &mut resolved,
            summary,
            step,
        )?;
        step.done("edge writes planned");
        // The index entries are freed before the `in` buckets are loaded: held beside them
        // (which the budget does not count) they raised the peak by ~80 MiB at 1M nodes.
        let key_files = key_files.join().map_err(|_| panicked())??;
        writers.done.extend(key_files);
        write_in_edges(w, &mut writers, in_edges, step)?;
        let degree_file = degrees.write(bulk, sst.files);
        let (node_files, embedded) = node_files.join().map_err(|_| panicked())??;
        writers.done.extend(node_files.into_iter().flatten());
        summary.vectors_computed = embedded.count;
        summary.embed_time = embedded.time;
        writers.done.extend(degree_file?);
        writers.join()?;
        Ok(writers.done)
    })
}

/// The error of a writer thread that panicked.
fn panicked() -> ImportError {
    ImportError::Engine(EngineError::Invalid("SST writer thread panicked".into()))
}

/// The new nodes' keys, then their index entries (each record decoded, its names normalised).
/// The keys go first: their sort's 32 bytes a node are freed before the index entries are
/// built, and before the edges' buckets grow.
fn node_key_files(
    files: BulkFiles<'_>,
    new_nodes: &[(NodeId, u32)],
    nodes: &NodeList,
    catalog: &Catalog,
) -> Result<Vec<BulkPart>, ImportError> {
    let mut parts: Vec<BulkPart> = write_node_keys(files, new_nodes, nodes)?
        .into_iter()
        .collect();
    let index_parts = par_chunks(new_nodes, |chunk| {
        let mut part = NewNodeIndex::default();
        for &(id, i) in chunk {
            part.add(catalog, id, &nodes.record(i as usize)?)?;
        }
        part.sort();
        Ok::<_, ImportError>(part)
    });
    let mut index_parts: Vec<NewNodeIndex> = index_parts.into_iter().collect::<Result<_, _>>()?;
    parts.extend(files.write_index(&mut index_parts)?);
    Ok(parts)
}

/// Degree changes: of new nodes by position from the first new id, of existing ones by id.
struct Degrees<'a> {
    ids: &'a Ids,
    new: Vec<Degree>,
    old: HashMap<NodeId, Degree>,
}

impl<'a> Degrees<'a> {
    fn new(ids: &'a Ids, new_nodes: usize) -> Self {
        Degrees {
            ids,
            new: vec![Degree::default(); new_nodes],
            old: HashMap::new(),
        }
    }

    /// Counts a created edge at both its ends.
    fn count_edge(&mut self, e: &EdgeIn) {
        self.bump(e.src, Degree { out: 1, inc: 0 });
        self.bump(e.dst, Degree { out: 0, inc: 1 });
    }

    fn bump(&mut self, id: NodeId, d: Degree) {
        let slot = match self.ids.is_new(id) {
            true => self.new.get_mut((id.0 - self.ids.first_new) as usize),
            false => Some(self.old.entry(id).or_default()),
        };
        if let Some(slot) = slot {
            *slot = slot.plus(d);
        }
    }

    /// Adds the existing nodes' changes to the batch (in id order) and writes the new nodes'
    /// degrees to their file.
    fn write(
        self,
        bulk: &mut BulkLoad<'_>,
        files: BulkFiles<'_>,
    ) -> Result<Option<BulkPart>, ImportError> {
        let mut old: Vec<(NodeId, Degree)> = self.old.into_iter().collect();
        old.sort_by_key(|(id, _)| *id);
        for (id, d) in old {
            bulk.add_degree(id, d)?;
        }
        let first_new = self.ids.first_new;
        let new: Vec<(NodeId, Degree)> = (self.new.iter().enumerate())
            .filter(|(_, d)| **d != Degree::default())
            .map(|(i, d)| (NodeId(first_new + i as u64), *d))
            .collect();
        Ok(files.degrees(&new, |&(id, d)| (id, d))?)
    }
}

/// The edge files being written, each on its own thread, and the parts finished.
struct EdgeWriters<'scope, 'env> {
    scope: &'scope Scope<'scope, 'env>,
    sst: EdgeFiles<'env>,
    /// When spilling, the files of the bucket before are finished once the next bucket is
    /// loaded, so that memory holds one bucket (and its re-sort) at a time. (Finishing them
    /// after the next bucket's sort instead kept both cores writing, but raised the peak by a
    /// bucket: ~300 MiB at 5M nodes, near Kuzu's at 1M, for no gain measured above the noise.)
    spills: bool,
    running: Vec<ScopedJoinHandle<'scope, cairn_store::Result<Option<BulkPart>>>>,
    /// The next file number of each direction (out, in).
    next: [usize; 2],
    /// The parts written, in the order they are ingested.
    done: Vec<BulkPart>,
}

impl<'scope, 'env> EdgeWriters<'scope, 'env> {
    fn new(scope: &'scope Scope<'scope, 'env>, sst: EdgeFiles<'env>, spills: bool) -> Self {
        EdgeWriters {
            scope,
            sst,
            spills,
            running: Vec::new(),
            next: [0; 2],
            done: Vec::new(),
        }
    }

    /// Starts writing the files of one sorted bucket in direction `dir`. The edge column
    /// families get one file per core and bucket, over consecutive key ranges, so that the
    /// cores share the writing to the end rather than one finishing the `in` file alone: one
    /// file per part, or, for a bucket sorted on one thread, the cores' shares of it; each from
    /// the part's first edge `from` picks.
    fn spawn(
        &mut self,
        dir: Direction,
        parts: &[Arc<Vec<EdgeIn>>],
        from: &dyn Fn(&[EdgeIn]) -> usize,
    ) {
        let ranges: Vec<(usize, Range<usize>)> = match parts {
            [one] => (file_parts(from(one)..one.len()).into_iter())
                .map(|r| (0, r))
                .collect(),
            _ => (parts.iter().enumerate())
                .map(|(p, e)| (p, from(e)..e.len()))
                .collect(),
        };
        for (p, range) in ranges.into_iter().filter(|(_, r)| !r.is_empty()) {
            let Some(edges) = parts.get(p).map(Arc::clone) else {
                continue;
            };
            let next = &mut self.next[usize::from(dir == Direction::In)];
            let i = *next;
            *next += 1;
            let sst = self.sst;
            self.running.push(self.scope.spawn(move || {
                let part = edges.get(range).unwrap_or_default();
                sst.files.edges(dir, i, part, |e| sst.edge(e))
            }));
        }
    }

    /// Waits for every file started.
    fn join(&mut self) -> Result<(), ImportError> {
        for f in self.running.drain(..) {
            let f: cairn_store::Result<Option<BulkPart>> = f.join().map_err(|_| panicked())?;
            self.done.extend(f?);
        }
        Ok(())
    }

    /// Waits for the files of the bucket before, when spilling (see `spills`).
    fn finish_previous(&mut self) -> Result<(), ImportError> {
        match self.spills {
            true => self.join(),
            false => Ok(()),
        }
    }
}

/// The resolved edges, bucket by bucket: sorted by source and deduplicated; the `out` files of
/// new sources started; every edge counted and planned into the batch. Returns the edges whose
/// destination is new, in buckets by destination, for the `in` files.
fn write_out_edges(
    w: &FilePlan<'_>,
    writers: &mut EdgeWriters<'_, '_>,
    degrees: &mut Degrees<'_>,
    bulk: &mut BulkLoad<'_>,
    resolved: &mut [Written<EdgeIn>],
    summary: &mut ImportSummary,
    step: &mut Step,
) -> Result<Written<EdgeIn>, ImportError> {
    let mut in_edges = BucketWriter::new(w.plan, w.spill_path, "in".into());
    for b in 0..w.plan.len() {
        let edges = spill::load(resolved, b)?;
        writers.finish_previous()?;
        if edges.is_empty() {
            continue;
        }
        let parts = sort_and_dedupe(edges, &w.plan.range(b));
        step.done("edges sorted and deduplicated");
        // Existing sources sort first (their ids are lower); the edges of new sources that
        // follow are exactly the `out` file's keys, in order.
        let new_sources = |edges: &[EdgeIn]| edges.partition_point(|e| !w.ids.is_new(e.src));
        writers.spawn(Direction::Out, &parts, &new_sources);
        for e in parts.iter().flat_map(|p| p.iter()) {
            if plan_edge(w, e, degrees, bulk, summary)? && w.ids.is_new(e.dst) {
                in_edges.push(*e, e.dst.0)?;
            }
        }
    }
    in_edges.finish()
}

/// A bucket's edges sorted by (source, relation, destination) on every core, and
/// deduplicated. The sort is stable, so among duplicates the last line comes last; dedup keeps
/// the first of a run, so each later duplicate's properties move into it. Duplicates share
/// their source, so they are in one part.
fn sort_and_dedupe(edges: Vec<EdgeIn>, range: &Range<u64>) -> Vec<Arc<Vec<EdgeIn>>> {
    let parts = sort_edges_parallel(edges, range, |e| e.src, |e| (e.rel, e.dst));
    (parts.into_iter())
        .map(|mut edges| {
            edges.dedup_by(|later, kept| {
                let same = (later.src, later.rel, later.dst) == (kept.src, kept.rel, kept.dst);
                if same {
                    kept.props = later.props;
                }
                same
            });
            Arc::new(edges)
        })
        .collect()
}

/// Counts edge `e` (created, updated or unchanged) and, unless an existing edge already holds
/// the same properties, puts it in the batch; true when it is written.
fn plan_edge(
    w: &FilePlan<'_>,
    e: &EdgeIn,
    degrees: &mut Degrees<'_>,
    bulk: &mut BulkLoad<'_>,
    summary: &mut ImportSummary,
) -> Result<bool, ImportError> {
    let (src_new, dst_new) = (w.ids.is_new(e.src), w.ids.is_new(e.dst));
    let created = src_new
        || dst_new
        || match w.reader.edge(e.src, e.rel, e.dst)? {
            Some(old) if old == w.sst.props.value(e) => {
                summary.edges_unchanged += 1;
                return Ok(false);
            }
            Some(_) => false,
            None => true,
        };
    if created {
        summary.edges_created += 1;
        degrees.count_edge(e);
    } else {
        summary.edges_updated += 1;
    }
    bulk.put_edge(
        (e.src, e.rel, e.dst),
        w.sst.props.bytes(e),
        !src_new,
        !dst_new,
    )?;
    Ok(true)
}

/// The edges of new destinations, bucket by bucket: sorted by (destination, relation, source)
/// and their `in` files started.
fn write_in_edges(
    w: &FilePlan<'_>,
    writers: &mut EdgeWriters<'_, '_>,
    in_edges: Written<EdgeIn>,
    step: &mut Step,
) -> Result<(), ImportError> {
    let mut in_edges = vec![in_edges];
    for b in 0..w.plan.len() {
        let edges = spill::load(&mut in_edges, b)?;
        writers.finish_previous()?;
        if edges.is_empty() {
            continue;
        }
        let parts: Vec<Arc<Vec<EdgeIn>>> =
            sort_edges_parallel(edges, &w.plan.range(b), |e| e.dst, |e| (e.rel, e.src))
                .into_iter()
                .map(Arc::new)
                .collect();
        step.done("in-edges sorted");
        writers.spawn(Direction::In, &parts, &|_| 0);
    }
    Ok(())
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

/// The store's bulk part writer with the import's edge property bytes, shared by the writer
/// threads.
#[derive(Clone, Copy)]
pub(super) struct EdgeFiles<'a> {
    pub(super) files: BulkFiles<'a>,
    pub(super) props: &'a PropsTable,
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use cairn_storage_format::NodeRecord;

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
}
