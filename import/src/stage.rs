//! Compact staging of what an import read, before it is resolved against the database.
//!
//! A dump of millions of edges must not cost a few hundred bytes per edge in owned strings:
//! names (labels, relation types, property keys) are interned to small integers as records
//! arrive, and edge endpoint keys are appended to one string arena.

use super::dump::{DumpNode, DumpRecord, DumpSchema};
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

/// Where a spilled block is: its offset, edge count and arena length.
#[derive(Clone, Copy, Debug)]
pub(super) struct Block {
    offset: u64,
    pub(super) edges: u32,
    arena: u64,
}

/// Edges per staged block.
pub(super) const BLOCK: usize = 1 << 16;
/// Bytes of one spilled staged edge.
const EDGE_BYTES: usize = 52;

impl StagedEdge {
    /// Appends the edge's bytes, its keys' offsets less `base` (where its block's keys start).
    fn write_to(&self, out: &mut Vec<u8>, base: u64) {
        for v in [self.rel, self.from_label, self.to_label, self.props] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for span in [self.from_key, self.to_key] {
            out.extend_from_slice(&(span.start - base).to_le_bytes());
            out.extend_from_slice(&span.len.to_le_bytes());
        }
        out.extend_from_slice(&self.origin.file.to_le_bytes());
        out.extend_from_slice(&self.origin.line.to_le_bytes());
    }

    fn read_from(b: &[u8]) -> StagedEdge {
        let u32_at = |i: usize| {
            u32::from_le_bytes(
                b.get(i..i + 4)
                    .and_then(|s| s.try_into().ok())
                    .unwrap_or_default(),
            )
        };
        let u64_at = |i: usize| {
            u64::from_le_bytes(
                b.get(i..i + 8)
                    .and_then(|s| s.try_into().ok())
                    .unwrap_or_default(),
            )
        };
        StagedEdge {
            rel: u32_at(0),
            from_label: u32_at(4),
            to_label: u32_at(8),
            props: u32_at(12),
            from_key: KeySpan {
                start: u64_at(16),
                len: u32_at(24),
            },
            to_key: KeySpan {
                start: u64_at(28),
                len: u32_at(36),
            },
            origin: Origin {
                file: u32_at(40),
                line: u64_at(44),
            },
        }
    }
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
        let mut buf = vec![0u8; block.edges as usize * EDGE_BYTES + block.arena as usize];
        file.read_exact(&mut buf).map_err(io(&self.path))?;
        let arena = buf.split_off(block.edges as usize * EDGE_BYTES);
        let arena = String::from_utf8(arena).map_err(|_| ImportError::Io {
            path: self.path.clone(),
            source: std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "spilled keys are not UTF-8",
            ),
        })?;
        Ok(EdgePart {
            names: part.names.clone(),
            props_base: part.props_base,
            arena,
            edges: buf
                .chunks_exact(EDGE_BYTES)
                .map(StagedEdge::read_from)
                .collect(),
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
        let mut buf = Vec::new();
        for edges in self.edges.chunks(block.max(1)) {
            // Keys are appended in edge order: a block's keys are one slice of the arena.
            let (Some(first), Some(last)) = (edges.first(), edges.last()) else {
                continue;
            };
            let (base, end) = (
                first.from_key.start,
                last.to_key.start + u64::from(last.to_key.len),
            );
            buf.clear();
            for e in edges {
                e.write_to(&mut buf, base);
                if spilled.rels.last() != Some(&e.rel) && !spilled.rels.contains(&e.rel) {
                    spilled.rels.push(e.rel);
                }
                spilled.unlabelled |= e.from_label == NO_LABEL || e.to_label == NO_LABEL;
            }
            let keys = self
                .arena
                .as_bytes()
                .get(base as usize..end as usize)
                .unwrap_or_default();
            buf.extend_from_slice(keys);
            if let Some(w) = spilled.file.as_mut() {
                w.write_all(&buf).map_err(io(path))?;
            }
            spilled.blocks.push(Block {
                offset: spilled.len,
                edges: edges.len() as u32,
                arena: keys.len() as u64,
            });
            spilled.len += buf.len() as u64;
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
