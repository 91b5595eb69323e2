//! Compact staging of what an import read, before it is resolved against the database.
//!
//! A dump of millions of edges must not cost a few hundred bytes per edge in owned strings:
//! names (labels, relation types, property keys) are interned to small integers as records
//! arrive, and edge endpoint keys are appended to one string arena.

use super::dump::{DumpNode, DumpRecord, DumpSchema};
use super::read::{EdgeRef, Record};
use super::LineError;
use cairn_storage_format::Value;
use hashbrown::HashMap;
use std::path::PathBuf;

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

/// Where a record came from: file index and line.
#[derive(Clone, Copy)]
pub(super) struct Origin {
    pub(super) file: u32,
    pub(super) line: u64,
}

pub(super) struct StagedNode {
    pub(super) label: u32,
    pub(super) key: String,
    pub(super) props: Vec<(u32, Value)>,
    pub(super) description: Option<String>,
    pub(super) vector: Option<Vec<f32>>,
    pub(super) origin: Origin,
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
    pub(super) nodes: Vec<StagedNode>,
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
        let props = n
            .props
            .into_iter()
            .map(|(k, v)| (self.names.id(&k), v))
            .collect();
        self.nodes.push(StagedNode {
            label,
            key: n.key,
            props,
            description: n.description,
            vector: n.vector,
            origin,
        });
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
        self.nodes.reserve(part.nodes.len());
        for mut n in part.nodes {
            n.label = remap(n.label);
            for (k, _) in &mut n.props {
                *k = remap(*k);
            }
            self.nodes.push(n);
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
        if self.edges.is_empty() {
            return;
        }
        self.parts.push(EdgePart {
            names: (0..self.names.names.len() as u32).collect(),
            props_base: 0,
            arena: std::mem::take(&mut self.arena),
            edges: std::mem::take(&mut self.edges),
        });
    }

    /// The number of edges staged.
    pub(super) fn edge_count(&self) -> usize {
        self.edges.len() + self.parts.iter().map(|p| p.edges.len()).sum::<usize>()
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
