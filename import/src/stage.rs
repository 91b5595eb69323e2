//! Compact staging of what an import read, before it is resolved against the database.
//!
//! A dump of millions of edges must not cost a few hundred bytes per edge in owned strings:
//! names (labels, relation types, property keys) are interned to small integers as records
//! arrive, and edge endpoint keys are appended to one string arena.

use super::dump::{DumpEmbedder, DumpNode, DumpRecord, DumpSchema};
use super::nodes::NodeList;
use super::read::{EdgeRef, Record};
use super::ImportError;
use super::LineError;
use cairn_storage_format::{LabelId, NodeRecord, PropKeyId, Value};
use hashbrown::HashMap;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Names interned while reading; ids are positions in `names`.
#[derive(Default)]
pub(super) struct Names {
    ids: HashMap<String, u32>,
    pub(super) names: Vec<String>,
}

impl Names {
    pub(super) fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }

    /// The id of `name`, if it was interned.
    pub(super) fn get(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }

    pub(super) fn name(&self, id: u32) -> &str {
        self.names
            .get(id as usize)
            .map(String::as_str)
            .unwrap_or("")
    }
}

/// A span of the key arena.
#[derive(Clone, Copy)]
pub(super) struct KeySpan {
    start: u64,
    len: u32,
}

pub(super) use super::nodes::Origin;

/// The nodes read from one file, with the file's own name ids (as label and property ids of
/// the staged records) and the merged name id of each.
pub(super) struct NodePart {
    pub(super) names: Vec<u32>,
    pub(super) list: NodeList,
    /// The names its nodes use as labels and as property keys (the file's ids), each in the
    /// order of first use: interned in that order before the nodes are merged in parallel.
    pub(super) used: UsedNames,
}

/// Names used by staged nodes as labels and as property keys, each list in order of first use.
#[derive(Default)]
pub(super) struct UsedNames {
    pub(super) labels: Vec<u32>,
    pub(super) props: Vec<u32>,
    /// Per name id: bit 0 used as a label, bit 1 as a property key.
    seen: Vec<u8>,
}

impl UsedNames {
    fn note(&mut self, id: u32, bit: u8) {
        let i = id as usize;
        if self.seen.len() <= i {
            self.seen.resize(i + 1, 0);
        }
        if self.seen[i] & bit == 0 {
            self.seen[i] |= bit;
            match bit {
                1 => self.labels.push(id),
                _ => self.props.push(id),
            }
        }
    }
}

pub(super) struct StagedEdge {
    pub(super) rel: u32,
    /// Label name id, or `NO_LABEL` for an id without a group.
    pub(super) from_label: u32,
    pub(super) to_label: u32,
    pub(super) from_key: KeySpan,
    pub(super) to_key: KeySpan,
    /// Index into `Staging::edge_props`, or `NO_PROPS`.
    pub(super) props: u32,
    pub(super) origin: Origin,
}

pub(super) const NO_LABEL: u32 = u32::MAX;
pub(super) const NO_PROPS: u32 = u32::MAX;

/// Edge properties that are not empty (most edges have none).
pub(super) struct StagedProps {
    pub(super) weight: Option<f32>,
    pub(super) props: Vec<(u32, Value)>,
}

/// The edges read from one file, kept as read: merging files moves these lists instead of
/// copying millions of edges (which took about a second of one core for 6.75M edges). Name ids,
/// key spans and property indexes are the file's own; [`EdgePart::view`] translates them.
pub(super) struct EdgePart {
    /// The merged name id of each of the file's name ids.
    names: Vec<u32>,
    /// Added to the file's property indexes.
    props_base: u32,
    arena: String,
    pub(super) edges: Vec<StagedEdge>,
    /// Blocks of edges read before `edges`, written to a spill file (over the memory budget).
    pub(super) spilled: Option<Spilled>,
}

/// Staged edges of one file written to its spill file in blocks of [`BLOCK`] edges, each with
/// its own key arena: when staging would exceed its share of the memory budget, each block
/// that fills is written out instead of kept (see `spill.rs`).
pub(super) struct Spilled {
    pub(super) path: PathBuf,
    file: Option<BufWriter<File>>,
    len: u64,
    pub(super) blocks: Vec<Block>,
    /// The (file's) relation name ids of the spilled edges, and whether an endpoint of one has
    /// no id group: what resolving needs to know before it reads them back.
    rels: Vec<u32>,
    unlabelled: bool,
}

/// Where a spilled block is: its offset, edge count, and the lengths of its encoded edges and
/// of its keys.
#[derive(Clone, Copy, Debug)]
pub(super) struct Block {
    offset: u64,
    pub(super) edges: u32,
    edge_bytes: u64,
    arena: u64,
}

/// Edges per staged block.
pub(super) const BLOCK: usize = 1 << 16;

/// A spilled block being built: its edges as varints (about 10 bytes an edge, where fixed
/// fields took 52), then the keys they use, a key that repeats the same side's key of the edge
/// before written once. The spill is written while the files are parsed and read back once;
/// at 5M nodes it was 2.3 GB, and the kernel's copying it into the page cache was a third of
/// the parse's CPU samples.
struct BlockWriter {
    edges: Vec<u8>,
    keys: Vec<u8>,
    /// Each side's last key written, in `keys`.
    last: [Option<KeySpan>; 2],
    line: u64,
}

/// In a key's varint (its length, shifted): the key repeats the same side's key of the edge
/// before, and has no bytes of its own.
const REPEAT: u64 = 1;

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The varint at `*at`, advancing past it; `None` if the bytes end first or it is too long.
fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

impl BlockWriter {
    fn new() -> Self {
        BlockWriter {
            edges: Vec::new(),
            keys: Vec::new(),
            last: [None, None],
            line: 0,
        }
    }

    fn clear(&mut self) {
        self.edges.clear();
        self.keys.clear();
        self.last = [None, None];
        self.line = 0;
    }

    /// Appends edge `e`, whose keys are in `arena`.
    fn push(&mut self, e: &StagedEdge, arena: &[u8]) {
        // `NO_LABEL` and `NO_PROPS` (u32::MAX) wrap to 0: one byte.
        for v in [
            e.rel,
            e.from_label.wrapping_add(1),
            e.to_label.wrapping_add(1),
        ] {
            put_varint(&mut self.edges, u64::from(v));
        }
        put_varint(&mut self.edges, u64::from(e.props.wrapping_add(1)));
        for (side, span) in [e.from_key, e.to_key].into_iter().enumerate() {
            let key = arena
                .get(span.start as usize..span.start as usize + span.len as usize)
                .unwrap_or_default();
            let repeat = self.last[side].is_some_and(|last| {
                let at = last.start as usize;
                self.keys.get(at..at + last.len as usize) == Some(key)
            });
            put_varint(
                &mut self.edges,
                (u64::from(span.len) << 1) | u64::from(repeat),
            );
            if !repeat {
                self.last[side] = Some(KeySpan {
                    start: self.keys.len() as u64,
                    len: span.len,
                });
                self.keys.extend_from_slice(key);
            }
        }
        put_varint(&mut self.edges, u64::from(e.origin.file));
        put_varint(
            &mut self.edges,
            zigzag(e.origin.line.wrapping_sub(self.line) as i64),
        );
        self.line = e.origin.line;
    }
}

/// Decodes a block's `count` edges from `bytes`, their spans into the block's keys (`keys`
/// bytes); `None` if the bytes do not hold exactly them.
fn read_block(bytes: &[u8], count: usize, keys: u64) -> Option<Vec<StagedEdge>> {
    let mut at = 0;
    let small = |v: u64| u32::try_from(v).ok();
    let mut edges = Vec::with_capacity(count);
    let (mut cursor, mut line) = (0u64, 0u64);
    let mut last = [KeySpan { start: 0, len: 0 }; 2];
    for _ in 0..count {
        let mut next = || get_varint(bytes, &mut at);
        let rel = small(next()?)?;
        let from_label = small(next()?)?.wrapping_sub(1);
        let to_label = small(next()?)?.wrapping_sub(1);
        let props = small(next()?)?.wrapping_sub(1);
        let mut spans = [KeySpan { start: 0, len: 0 }; 2];
        for (side, span) in spans.iter_mut().enumerate() {
            let v = next()?;
            if v & REPEAT == 0 {
                let len = small(v >> 1)?;
                last[side] = KeySpan { start: cursor, len };
                cursor += u64::from(len);
            }
            *span = last[side];
        }
        let file = small(next()?)?;
        line = line.wrapping_add(unzigzag(next()?) as u64);
        edges.push(StagedEdge {
            rel,
            from_label,
            to_label,
            props,
            from_key: spans[0],
            to_key: spans[1],
            origin: Origin { file, line },
        });
    }
    (at == bytes.len() && cursor == keys).then_some(edges)
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ImportError + '_ {
    move |source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A file's spilled edges are resolved once, so the file goes when they have been (the staging
/// is dropped after the resolve step), not with the spill directory at the end of the import:
/// the kernel then drops its pages instead of writing them back, beside the SST files being
/// written (a 5M-node import spills 2.3 GB here).
impl Drop for Spilled {
    fn drop(&mut self) {
        self.file = None;
        let _ = std::fs::remove_file(&self.path);
    }
}

impl Spilled {
    /// Reads block `block` back: its edges, in an [`EdgePart`] like `part` (names, properties)
    /// with the block's own arena.
    pub(super) fn read(&self, part: &EdgePart, block: Block) -> Result<EdgePart, ImportError> {
        let mut file = File::open(&self.path).map_err(io(&self.path))?;
        file.seek(SeekFrom::Start(block.offset))
            .map_err(io(&self.path))?;
        let mut buf = vec![0u8; (block.edge_bytes + block.arena) as usize];
        file.read_exact(&mut buf).map_err(io(&self.path))?;
        let invalid = |what: &str| ImportError::Io {
            path: self.path.clone(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned()),
        };
        let arena = buf.split_off(block.edge_bytes as usize);
        let edges = read_block(&buf, block.edges as usize, block.arena)
            .ok_or_else(|| invalid("a spilled block does not decode"))?;
        let arena = String::from_utf8(arena).map_err(|_| invalid("spilled keys are not UTF-8"))?;
        Ok(EdgePart {
            names: part.names.clone(),
            props_base: part.props_base,
            arena,
            edges,
            spilled: None,
        })
    }
}

/// A staged edge with merged name ids and property index, and its keys.
pub(super) struct EdgeView<'a> {
    pub(super) rel: u32,
    pub(super) from_label: u32,
    pub(super) to_label: u32,
    pub(super) from_key: &'a str,
    pub(super) to_key: &'a str,
    pub(super) props: u32,
    pub(super) origin: Origin,
}

impl EdgePart {
    /// The merged name id of the file's name `id` (`NO_LABEL` stays).
    pub(super) fn name(&self, id: u32) -> u32 {
        if id == NO_LABEL {
            return NO_LABEL;
        }
        self.names.get(id as usize).copied().unwrap_or(NO_LABEL)
    }

    fn key(&self, span: KeySpan) -> &str {
        let start = span.start as usize;
        self.arena
            .get(start..start + span.len as usize)
            .unwrap_or("")
    }

    /// The merged name ids of its edges' relation types, in memory and spilled (with repeats).
    pub(super) fn rels(&self) -> impl Iterator<Item = u32> + '_ {
        let spilled = self.spilled.iter().flat_map(|s| &s.rels);
        self.edges
            .iter()
            .map(|e| e.rel)
            .chain(spilled.copied())
            .map(|rel| self.name(rel))
    }

    /// Whether an endpoint of one of its edges has no id group.
    pub(super) fn any_unlabelled(&self) -> bool {
        self.spilled.as_ref().is_some_and(|s| s.unlabelled)
            || self
                .edges
                .iter()
                .any(|e| e.from_label == NO_LABEL || e.to_label == NO_LABEL)
    }

    pub(super) fn view(&self, e: &StagedEdge) -> EdgeView<'_> {
        EdgeView {
            rel: self.name(e.rel),
            from_label: self.name(e.from_label),
            to_label: self.name(e.to_label),
            from_key: self.key(e.from_key),
            to_key: self.key(e.to_key),
            props: if e.props == NO_PROPS {
                NO_PROPS
            } else {
                e.props + self.props_base
            },
            origin: e.origin,
        }
    }
}

/// Everything read from one file, or from all of them once merged.
#[derive(Default)]
pub(super) struct Staging {
    pub(super) files: Vec<PathBuf>,
    pub(super) names: Names,
    /// Nodes read into this staging, with its name ids; [`Staging::seal`] moves them to
    /// `node_parts`.
    nodes: NodeList,
    /// The names `nodes` use (see [`NodePart::used`]).
    node_names: UsedNames,
    /// Nodes of appended files, in file order.
    pub(super) node_parts: Vec<NodePart>,
    /// A staged node that could not be encoded (only an oversized value can fail).
    pub(super) node_error: Option<ImportError>,
    /// Edges read into this staging, in `arena` and with its name ids; [`Staging::seal`]
    /// moves them to `parts`.
    edges: Vec<StagedEdge>,
    arena: String,
    /// Edges of appended files, in file order.
    pub(super) parts: Vec<EdgePart>,
    pub(super) edge_props: Vec<StagedProps>,
    pub(super) errors: Vec<LineError>,
    /// Schema records (descriptions, aliases), applied once the import's names are known.
    pub(super) schema: Vec<(DumpSchema, Origin)>,
    /// Embedder records (which embedder made the dump's vectors), checked to agree at apply.
    pub(super) embedders: Vec<(DumpEmbedder, Origin)>,
    /// Blocks of `edges` written to a spill file, before those in memory.
    spilled: Option<Spilled>,
}

impl Staging {
    pub(super) fn add(&mut self, record: Record<'_>, file: u32, line: u64) {
        let origin = Origin { file, line };
        match record {
            Record::Node(n) => self.add_node(n, origin),
            Record::Edge(e) => self.add_edge(e, origin),
            Record::Schema(s) => self.schema.push((s, origin)),
            Record::Embedder(e) => self.embedders.push((e, origin)),
        }
    }

    pub(super) fn add_owned(&mut self, record: DumpRecord, file: u32, line: u64) {
        super::read::emit(record, line, &mut |r, line| self.add(r, file, line));
    }

    fn add_node(&mut self, n: DumpNode, origin: Origin) {
        let label = self.names.id(&n.label);
        self.node_names.note(label, 1);
        let props = n
            .props
            .into_iter()
            .map(|(k, v)| {
                let id = self.names.id(&k);
                self.node_names.note(id, 2);
                (PropKeyId(id), v)
            })
            .collect();
        let record = NodeRecord {
            label: LabelId(label),
            key: n.key,
            props,
            description: n.description,
        };
        if let Err(e) = self.nodes.push(&record, n.vector, origin) {
            self.node_error.get_or_insert(e.into());
        }
    }

    fn add_edge(&mut self, e: EdgeRef<'_>, origin: Origin) {
        let label = |names: &mut Names, l: &str| if l.is_empty() { NO_LABEL } else { names.id(l) };
        let rel = self.names.id(e.rel);
        let from_label = label(&mut self.names, e.from_label);
        let to_label = label(&mut self.names, e.to_label);
        let from_key = self.push_key(e.from_key);
        let to_key = self.push_key(e.to_key);
        let props = if e.props.is_empty() && e.weight.is_none() {
            NO_PROPS
        } else {
            let props = e
                .props
                .into_iter()
                .map(|(k, v)| (self.names.id(&k), v))
                .collect();
            self.edge_props.push(StagedProps {
                weight: e.weight,
                props,
            });
            (self.edge_props.len() - 1) as u32
        };
        self.edges.push(StagedEdge {
            rel,
            from_label,
            to_label,
            from_key,
            to_key,
            props,
            origin,
        });
    }

    fn push_key(&mut self, key: &str) -> KeySpan {
        let span = KeySpan {
            start: self.arena.len() as u64,
            len: key.len() as u32,
        };
        self.arena.push_str(key);
        span
    }

    /// Appends another part (read from a later file): names are re-interned, nodes and
    /// properties renumbered, and its edges moved as they are.
    pub(super) fn append(&mut self, mut part: Staging) {
        part.seal();
        self.schema.append(&mut part.schema);
        self.embedders.append(&mut part.embedders);
        let map: Vec<u32> = part.names.names.iter().map(|n| self.names.id(n)).collect();
        let remap = |id: u32| map.get(id as usize).copied().unwrap_or(NO_LABEL);
        let props_base = self.edge_props.len() as u32;
        for mut p in part.edge_props {
            for (k, _) in &mut p.props {
                *k = remap(*k);
            }
            self.edge_props.push(p);
        }
        for mut nodes in part.node_parts {
            nodes.names = nodes.names.iter().map(|&id| remap(id)).collect();
            self.node_parts.push(nodes);
        }
        if let Some(e) = part.node_error {
            self.node_error.get_or_insert(e);
        }
        for mut edges in part.parts {
            edges.names = edges.names.iter().map(|&id| remap(id)).collect();
            edges.props_base += props_base;
            self.parts.push(edges);
        }
        self.errors.extend(part.errors);
    }

    /// Moves the edges read into this staging to `parts`, after those appended.
    pub(super) fn seal(&mut self) {
        if !self.nodes.is_empty() {
            self.node_parts.push(NodePart {
                names: (0..self.names.names.len() as u32).collect(),
                list: std::mem::take(&mut self.nodes),
                used: std::mem::take(&mut self.node_names),
            });
        }
        if self.edges.is_empty() && self.spilled.is_none() {
            return;
        }
        self.parts.push(EdgePart {
            names: (0..self.names.names.len() as u32).collect(),
            props_base: 0,
            arena: std::mem::take(&mut self.arena),
            edges: std::mem::take(&mut self.edges),
            spilled: self.spilled.take(),
        });
    }

    /// The number of nodes staged (with repeats).
    pub(super) fn node_count(&self) -> usize {
        self.nodes.len() + self.node_parts.iter().map(|p| p.list.len()).sum::<usize>()
    }

    /// Bytes of the staged edges' spill files.
    pub(super) fn spilled_bytes(&self) -> u64 {
        let own = self.spilled.iter().map(|s| s.len);
        let parts = self
            .parts
            .iter()
            .flat_map(|p| p.spilled.iter().map(|s| s.len));
        own.chain(parts).sum()
    }

    /// The number of edges staged.
    pub(super) fn edge_count(&self) -> usize {
        let spilled = |s: &Option<Spilled>| {
            s.iter()
                .flat_map(|s| &s.blocks)
                .map(|b| b.edges as usize)
                .sum::<usize>()
        };
        self.edges.len()
            + spilled(&self.spilled)
            + self
                .parts
                .iter()
                .map(|p| p.edges.len() + spilled(&p.spilled))
                .sum::<usize>()
    }

    /// The number of edges in memory (not spilled).
    pub(super) fn edges_in_memory(&self) -> usize {
        self.edges.len()
    }

    /// The bytes the edges in memory take.
    pub(super) fn edge_bytes(&self) -> u64 {
        (self.edges.len() * std::mem::size_of::<StagedEdge>() + self.arena.len()) as u64
    }

    /// Writes the edges in memory to the spill file `path` (created on the first call) in
    /// blocks of at most `block` edges, each with its own keys (so that reading one back costs
    /// a block's memory), and frees their memory.
    pub(super) fn spill(&mut self, path: &Path, block: usize) -> Result<(), ImportError> {
        if self.spilled.is_none() {
            let file = File::create(path).map_err(io(path))?;
            self.spilled = Some(Spilled {
                path: path.to_path_buf(),
                file: Some(BufWriter::with_capacity(1 << 20, file)),
                len: 0,
                blocks: Vec::new(),
                rels: Vec::new(),
                unlabelled: false,
            });
        }
        let Some(spilled) = self.spilled.as_mut() else {
            return Ok(());
        };
        let mut buf = BlockWriter::new();
        for edges in self.edges.chunks(block.max(1)) {
            buf.clear();
            for e in edges {
                buf.push(e, self.arena.as_bytes());
                if spilled.rels.last() != Some(&e.rel) && !spilled.rels.contains(&e.rel) {
                    spilled.rels.push(e.rel);
                }
                spilled.unlabelled |= e.from_label == NO_LABEL || e.to_label == NO_LABEL;
            }
            if let Some(w) = spilled.file.as_mut() {
                w.write_all(&buf.edges).map_err(io(path))?;
                w.write_all(&buf.keys).map_err(io(path))?;
            }
            spilled.blocks.push(Block {
                offset: spilled.len,
                edges: edges.len() as u32,
                edge_bytes: buf.edges.len() as u64,
                arena: buf.keys.len() as u64,
            });
            spilled.len += (buf.edges.len() + buf.keys.len()) as u64;
        }
        self.edges.clear();
        self.arena.clear();
        Ok(())
    }

    /// Flushes the spill file, if any, so that its blocks can be read.
    pub(super) fn finish_spill(&mut self) -> Result<(), ImportError> {
        if let Some(spilled) = self.spilled.as_mut() {
            if let Some(mut w) = spilled.file.take() {
                w.flush().map_err(io(&spilled.path))?;
            }
        }
        Ok(())
    }

    pub(super) fn error(&self, origin: Origin, reason: String) -> LineError {
        LineError {
            file: self
                .files
                .get(origin.file as usize)
                .cloned()
                .unwrap_or_default(),
            line: origin.line,
            reason,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// rel, labels, props, keys, file, line.
    type Spec = (u32, u32, u32, u32, &'static str, &'static str, u32, u64);

    /// A block decodes to the edges it was built from: labels and properties absent or not,
    /// keys repeated on either side or not, lines going forward, back and far.
    #[test]
    fn spilled_blocks_round_trip_and_reject_damaged_bytes() {
        let mut arena = String::new();
        let mut span = |key: &str| {
            let s = KeySpan {
                start: arena.len() as u64,
                len: key.len() as u32,
            };
            arena.push_str(key);
            s
        };
        let specs: [Spec; 6] = [
            (0, 1, 2, NO_PROPS, "p1", "t1", 0, 2),
            (0, 1, 2, 7, "p1", "t2", 0, 3),
            (3, NO_LABEL, 2, NO_PROPS, "p1", "t2", 0, 1),
            (u32::MAX - 1, 1, NO_LABEL, 0, "", "ü-key", 5, u64::MAX),
            (3, 1, 2, NO_PROPS, "x", "", 5, 0),
            (3, 1, 2, NO_PROPS, "x", "t1", 5, 1 << 40),
        ];
        let edges: Vec<StagedEdge> = specs
            .iter()
            .map(|&(rel, fl, tl, props, fk, tk, file, line)| StagedEdge {
                rel,
                from_label: fl,
                to_label: tl,
                from_key: span(fk),
                to_key: span(tk),
                props,
                origin: Origin { file, line },
            })
            .collect();
        let mut w = BlockWriter::new();
        for e in &edges {
            w.push(e, arena.as_bytes());
        }
        // The repeated keys are written once: "p1" thrice and "t2", "x" twice.
        assert_eq!(w.keys, b"p1t1t2\xc3\xbc-keyxt1".to_vec());
        let back = read_block(&w.edges, edges.len(), w.keys.len() as u64).unwrap();
        let key = |keys: &[u8], s: KeySpan| {
            keys[s.start as usize..(s.start + u64::from(s.len)) as usize].to_vec()
        };
        for ((e, b), spec) in edges.iter().zip(&back).zip(&specs) {
            let got = (
                b.rel,
                b.from_label,
                b.to_label,
                b.props,
                b.origin.file,
                b.origin.line,
            );
            let want = (
                e.rel,
                e.from_label,
                e.to_label,
                e.props,
                e.origin.file,
                e.origin.line,
            );
            assert_eq!(got, want);
            assert_eq!(key(&w.keys, b.from_key), spec.4.as_bytes());
            assert_eq!(key(&w.keys, b.to_key), spec.5.as_bytes());
        }
        // Truncated, with bytes left over, or claiming more keys than there are: refused.
        assert!(read_block(
            &w.edges[..w.edges.len() - 1],
            edges.len(),
            w.keys.len() as u64
        )
        .is_none());
        let mut longer = w.edges.clone();
        longer.push(0);
        assert!(read_block(&longer, edges.len(), w.keys.len() as u64).is_none());
        assert!(read_block(&w.edges, edges.len(), w.keys.len() as u64 + 1).is_none());
        assert!(read_block(&[0xff; 11], 1, 0).is_none());
    }
}
