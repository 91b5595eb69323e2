//! Exact walks: the nodes a relation pattern reaches from a set of entries, computed level by
//! level on a [`NodeSource`] (frontier set → its image under one hop's steps → deduplicated
//! next frontier), never materialising paths. Each node of a level carries how many distinct
//! paths reach it and one parent (enough to rebuild one evidence path), when asked.
//!
//! This is the one exhaustive walker: `RETURN COUNT` and the agent's aggregation answers (counts,
//! argmax, "how many") run on it; the beam search samples hubs and stops early, which is right
//! for finding evidence and wrong for counting.
//!
//! Deduplication uses a bitset (or, when paths are tracked, a slot array) over the node ids when
//! the source's ids are dense (an in-memory table), a hash map otherwise (a store view).

use crate::source::NodeSource;
use cairn_storage_format::{NodeId, RelId};
use cairn_store::{Direction, EngineError};
use hashbrown::HashMap;
use std::time::Instant;

/// One relation step of a hop: the relations (any when empty) and the direction followed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WalkStep {
    pub rels: Vec<RelId>,
    pub direction: Direction,
}

/// How the steps are used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkShape {
    /// Hop *i* follows step *i*; the ends are the nodes after the last step (a node may appear
    /// at several levels: each level is deduplicated on its own).
    Path,
    /// Every hop follows any step, up to this many hops; the ends are every node reached, each
    /// once, at its shortest distance (breadth-first).
    Set { depth: u32 },
}

/// Why a walk stopped before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkCut {
    /// It listed more edges than its bound.
    Edges,
    /// The deadline passed.
    Time,
    /// The caller cancelled.
    Cancelled,
}

/// Which nodes of a path's level (by its hop, 1 for the nodes the first step reaches) the walk
/// keeps and goes on from: one flag per node. A filter on the nodes at one position of an
/// ordered path (`VIA A AS a -> B WHERE a.year > 2015`).
pub type KeepLevel<'a> = &'a dyn Fn(u32, &[NodeId]) -> Result<Vec<bool>, EngineError>;

/// The bounds of one walk.
#[derive(Clone, Copy)]
pub struct WalkBounds<'a> {
    /// Edges the walk may list (the work, and on a store view the memory of its edge cache).
    pub max_edges: u64,
    pub deadline: Option<Instant>,
    /// Asked before each node's expansion: has the caller cancelled?
    pub cancelled: Option<&'a dyn Fn() -> bool>,
    /// [`WalkShape::Path`] only: applied to each level after the entries; the nodes it drops
    /// are neither ends nor expanded.
    pub keep: Option<KeepLevel<'a>>,
}

impl std::fmt::Debug for WalkBounds<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WalkBounds")
            .field("max_edges", &self.max_edges)
            .field("deadline", &self.deadline)
            .finish()
    }
}

impl WalkBounds<'_> {
    /// Only an edge bound.
    pub fn edges(max_edges: u64) -> WalkBounds<'static> {
        WalkBounds {
            max_edges,
            deadline: None,
            cancelled: None,
            keep: None,
        }
    }
}

/// One level of a walk. With tracking, `paths[k]` and `parent[k]` describe `nodes[k]`.
#[derive(Clone, Debug, Default)]
struct Level {
    nodes: Vec<NodeId>,
    paths: Vec<u64>,
    /// (index in the previous level, relation, followed against its direction).
    parent: Vec<(u32, RelId, bool)>,
}

/// One edge of an evidence path, as followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    pub from: NodeId,
    pub rel: RelId,
    pub reversed: bool,
    pub to: NodeId,
}

/// An end node of a walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct End {
    pub node: NodeId,
    /// Distinct paths reaching it (0 when paths were not tracked).
    pub paths: u64,
    // u32 as the parents' indexes: a candidate list of a million ends stays small
    level: u32,
    index: u32,
}

/// The result of [`walk`].
#[derive(Clone, Debug)]
pub struct Walked {
    levels: Vec<Level>,
    shape: WalkShape,
    /// Hops the pattern asked for (a path's length, a set's depth).
    hops: usize,
    /// Edges listed.
    pub edges: u64,
    /// Set when the walk stopped early (the ends are then incomplete).
    pub cut: Option<WalkCut>,
}

impl Walked {
    /// The end nodes, in the order first reached: a path's last level (none when the walk did
    /// not get there), or every level after the entries for a set.
    pub fn ends(&self) -> Vec<End> {
        self.each_end().collect()
    }

    /// The end nodes as [`Walked::ends`] lists them, without collecting them (a walk of a
    /// million ends need not allocate a second million-entry array to be read once).
    pub fn each_end(&self) -> impl Iterator<Item = End> + '_ {
        let levels = match self.shape {
            WalkShape::Path if self.levels.len() == self.hops + 1 => self.hops..self.hops + 1,
            WalkShape::Path => 0..0,
            WalkShape::Set { .. } => 1..self.levels.len(),
        };
        levels.flat_map(move |l| {
            let level = &self.levels[l];
            level.nodes.iter().enumerate().map(move |(k, n)| End {
                node: *n,
                paths: level.paths.get(k).copied().unwrap_or(0),
                level: l as u32,
                index: k as u32,
            })
        })
    }

    /// How many distinct nodes the walk ends at.
    pub fn end_count(&self) -> usize {
        match self.shape {
            WalkShape::Path if self.levels.len() == self.hops + 1 => {
                self.levels[self.hops].nodes.len()
            }
            WalkShape::Path => 0,
            WalkShape::Set { .. } => self.levels.iter().skip(1).map(|l| l.nodes.len()).sum(),
        }
    }

    /// The end nodes without multiplicities (a cheap form of [`Walked::ends`]).
    pub fn end_nodes(&self) -> Vec<NodeId> {
        let mut out = Vec::with_capacity(self.end_count());
        match self.shape {
            WalkShape::Path if self.levels.len() == self.hops + 1 => {
                out.extend_from_slice(&self.levels[self.hops].nodes)
            }
            WalkShape::Path => {}
            WalkShape::Set { .. } => {
                for l in self.levels.iter().skip(1) {
                    out.extend_from_slice(&l.nodes);
                }
            }
        }
        out
    }

    /// The distinct nodes at `hop` (0: the entries), in the order first reached.
    pub fn level(&self, hop: usize) -> &[NodeId] {
        self.levels.get(hop).map_or(&[], |l| l.nodes.as_slice())
    }

    /// One path from an entry to `end` (the first found), when paths were tracked.
    pub fn evidence(&self, end: &End) -> Vec<Hop> {
        let mut hops = Vec::with_capacity(end.level as usize);
        let (mut level, mut index) = (end.level as usize, end.index as usize);
        while level > 0 {
            let Some(&(prev, rel, reversed)) = self.levels[level].parent.get(index) else {
                return Vec::new();
            };
            let to = self.levels[level].nodes[index];
            let from = self.levels[level - 1].nodes[prev as usize];
            hops.push(Hop {
                from,
                rel,
                reversed,
                to,
            });
            level -= 1;
            index = prev as usize;
        }
        hops.reverse();
        hops
    }
}

/// Membership (and, with tracking, the slot in the level being built) of node ids.
enum Marks {
    /// Dense ids, membership only.
    Bits(Vec<u64>),
    /// Dense ids, slot + 1 (0: absent). Zero-initialised, so untouched pages cost nothing.
    Slots(Vec<u32>),
    Hash(HashMap<NodeId, u32>),
}

impl Marks {
    fn new(source: &dyn NodeSource, track: bool) -> Marks {
        match (source.dense_ids(), track) {
            (Some(n), false) => Marks::Bits(vec![0; n.div_ceil(64)]),
            (Some(n), true) => Marks::Slots(vec![0; n]),
            (None, _) => Marks::Hash(HashMap::new()),
        }
    }

    /// The slot of `node` (0 for membership-only marks), if marked.
    #[inline]
    fn get(&self, node: NodeId) -> Option<u32> {
        let i = node.0 as usize;
        match self {
            Marks::Bits(b) => {
                let w = b.get(i / 64)?;
                (w >> (i % 64) & 1 == 1).then_some(0)
            }
            Marks::Slots(s) => s.get(i).copied().filter(|v| *v != 0).map(|v| v - 1),
            Marks::Hash(h) => h.get(&node).copied(),
        }
    }

    #[inline]
    fn set(&mut self, node: NodeId, slot: u32) {
        let i = node.0 as usize;
        match self {
            Marks::Bits(b) => {
                if b.len() <= i / 64 {
                    b.resize(i / 64 + 1, 0);
                }
                b[i / 64] |= 1 << (i % 64);
            }
            Marks::Slots(s) => {
                if s.len() <= i {
                    s.resize(i + 1, 0);
                }
                s[i] = slot + 1;
            }
            Marks::Hash(h) => {
                h.insert(node, slot);
            }
        }
    }

    fn unset(&mut self, node: NodeId) {
        let i = node.0 as usize;
        match self {
            Marks::Bits(b) => {
                if let Some(w) = b.get_mut(i / 64) {
                    *w &= !(1 << (i % 64));
                }
            }
            Marks::Slots(s) => {
                if let Some(v) = s.get_mut(i) {
                    *v = 0;
                }
            }
            Marks::Hash(h) => {
                h.remove(&node);
            }
        }
    }
}

/// A set of node ids: a bitset when the source's ids are dense (a table of a million nodes
/// in 128 KiB, no hashing), a hash set otherwise.
pub(crate) struct NodeSet(Marks);

impl NodeSet {
    pub(crate) fn new(source: &dyn NodeSource) -> NodeSet {
        NodeSet(Marks::new(source, false))
    }

    #[inline]
    pub(crate) fn insert(&mut self, node: NodeId) {
        self.0.set(node, 0);
    }

    #[inline]
    pub(crate) fn contains(&self, node: NodeId) -> bool {
        self.0.get(node).is_some()
    }
}

/// The nodes of `level` whose flag is set, with their paths and parents.
fn retain(level: Level, flags: &[bool], track: bool) -> Level {
    let mut out = Level::default();
    for (k, n) in level.nodes.iter().enumerate() {
        if flags.get(k).copied().unwrap_or(false) {
            out.nodes.push(*n);
            if track {
                out.paths.push(level.paths[k]);
                out.parent.push(level.parent[k]);
            }
        }
    }
    out
}

/// Walks `steps` from `entries` on `source` (see the module docs). `track` keeps each node's
/// path count and one parent (for [`Walked::ends`] multiplicities and [`Walked::evidence`]);
/// without it only the distinct nodes are kept. Steps of a hop are followed in order, each
/// node's edges as the source lists them, so the result (and the first evidence path) is
/// deterministic.
pub fn walk(
    source: &dyn NodeSource,
    entries: &[NodeId],
    steps: &[WalkStep],
    shape: WalkShape,
    track: bool,
    bounds: WalkBounds<'_>,
) -> Result<Walked, EngineError> {
    let hops = match shape {
        WalkShape::Path => steps.len(),
        WalkShape::Set { depth } => depth as usize,
    };
    let mut marks = Marks::new(source, track);
    let mut first = Level::default();
    for &e in entries {
        if marks.get(e).is_none() {
            marks.set(e, first.nodes.len() as u32);
            first.nodes.push(e);
            if track {
                first.paths.push(1);
            }
        }
    }
    let mut levels = vec![first];
    let mut edges = 0u64;
    let mut cut = None;
    let mut buf: Vec<(NodeId, RelId, bool)> = Vec::new();
    let mut expanded = 0u64;
    'hops: for hop in 0..hops {
        let cur = levels.len() - 1;
        if levels[cur].nodes.is_empty() {
            break;
        }
        let hop_steps: &[WalkStep] = match shape {
            WalkShape::Path => &steps[hop..=hop],
            WalkShape::Set { .. } => steps,
        };
        if shape == WalkShape::Path {
            // A path's levels are deduplicated each on its own.
            for n in &levels[cur].nodes {
                marks.unset(*n);
            }
        }
        let mut next = Level::default();
        for k in 0..levels[cur].nodes.len() {
            let node = levels[cur].nodes[k];
            if bounds.cancelled.is_some_and(|c| c()) {
                cut = Some(WalkCut::Cancelled);
                break 'hops;
            }
            expanded += 1;
            if expanded % 256 == 0 && bounds.deadline.is_some_and(|d| Instant::now() >= d) {
                cut = Some(WalkCut::Time);
                break 'hops;
            }
            let mult = if track { levels[cur].paths[k] } else { 0 };
            for step in hop_steps {
                buf.clear();
                source.neighbors_into(node, step.direction, &step.rels, &mut buf)?;
                edges += buf.len() as u64;
                if edges > bounds.max_edges {
                    cut = Some(WalkCut::Edges);
                    break 'hops;
                }
                for &(n, rel, reversed) in &buf {
                    match marks.get(n) {
                        None => {
                            marks.set(n, next.nodes.len() as u32);
                            next.nodes.push(n);
                            if track {
                                next.paths.push(mult);
                                next.parent.push((k as u32, rel, reversed));
                            }
                        }
                        // Marked: in the level being built (add its paths), or, for a set, at
                        // a shorter distance (skip).
                        Some(slot) if track => {
                            if next.nodes.get(slot as usize) == Some(&n) {
                                let p = &mut next.paths[slot as usize];
                                *p = p.saturating_add(mult);
                            }
                        }
                        Some(_) => {}
                    }
                }
            }
        }
        if let (Some(keep), WalkShape::Path) = (bounds.keep, shape) {
            let flags = keep(u32::try_from(hop + 1).unwrap_or(u32::MAX), &next.nodes)?;
            if flags.iter().any(|k| !k) {
                // Dropped nodes leave the marks (a path's marks only dedup the level being
                // built, so the kept nodes' stale slots are never read).
                for (n, k) in next.nodes.iter().zip(&flags) {
                    if !k {
                        marks.unset(*n);
                    }
                }
                next = retain(next, &flags, track);
            }
        }
        levels.push(next);
    }
    Ok(Walked {
        levels,
        shape,
        hops,
        edges,
        cut,
    })
}
