//! The HNSW graph (Malkov & Yashunin 2016) over slots `0..n` whose vectors live in one flat `[f32]`
//! owned by the caller. Scores are inner products of unit vectors (cosine); larger is nearer.
//!
//! Level-0 links, the ones every search walks, live in one flat array of atomics, `1 + 2m` words a
//! slot (count, then links), like hnswlib's level-0 block: no pointer to chase and no lock to take
//! per expanded node. Writers (a parallel build's threads) change a slot's list under that slot's
//! mutex; readers load the words without one. A read racing a write can see a mix of the old and
//! new list, every entry of which is a valid slot, which is what hnswlib's unlocked readers see as
//! well; after the build (`insert` on a built index takes `&mut self`) no read races a write.
//! Upper levels (one slot in m has any) keep a `Vec` per slot behind a `RwLock`.
//!
//! Walks read a compact copy of the rows: each unit vector as `i8` with its own scale, a quarter
//! of the `f32` row's bytes, so a walk bound by memory latency loads 6 cache lines a row instead of
//! 24. The candidates a walk returns are rescored with the `f32` rows, so results, link selection
//! and scores stay exact; only the order in which the walk visits nodes is approximate. A search
//! rescores only the candidates whose compact score could reach its k-th exact one (each row's
//! quantisation error bounds how far the two scores can differ, see [`Graph::top_k`]): for k = 10
//! on 100k MiniLM vectors 16.4–16.6 rows a query at every ef from 32 to 256 instead of the ef rows
//! (each an `f32` row of 24 cache lines).

use super::exact::{Scored, Worst};
use cairn_embed::{dot, dot_i8};
use parking_lot::{Mutex, RwLock};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{
    AtomicBool, AtomicU32, Ordering::Acquire, Ordering::Relaxed, Ordering::Release,
};

/// Highest level a node can get; with M = 16 level 12 is expected once in 16^12 nodes.
const MAX_LEVEL: u8 = 12;

#[derive(Debug)]
pub(crate) struct Graph {
    pub(crate) dim: usize,
    /// Max links per node on levels ≥ 1; level 0 allows `2 * m`.
    pub(crate) m: usize,
    pub(crate) ef_construction: usize,
    /// Top level of each slot.
    pub(crate) levels: Vec<u8>,
    /// Level-0 lists, `stride0` words a slot: the count, then up to `2 * m` links.
    links0: Vec<AtomicU32>,
    stride0: usize,
    /// Held while a slot's level-0 list is rewritten.
    locks0: Vec<Mutex<()>>,
    /// Whether each slot's insert has finished (all its levels linked). A parallel build's walks
    /// pass over slots still being inserted, as if those came later: entered from an upper level
    /// before its level-0 list was written, such a slot left the walk nowhere to go (see
    /// [`Building`]).
    done: Vec<AtomicBool>,
    /// Links on levels 1..=level of each slot (`upper[s][l-1]`), empty for most slots.
    pub(crate) upper: Vec<RwLock<Vec<Vec<u32>>>>,
    /// Entry point and its level; `None` while empty.
    pub(crate) entry: RwLock<Option<(u32, u8)>>,
    /// Held by an insert whose level exceeds the current top, so two new tops do not race.
    top_lock: Mutex<()>,
    /// `i8` rows, `dim` a slot, in slot order (see the module doc).
    codes: Vec<i8>,
    /// Each slot's scale: its row is `codes * scale`.
    scales: Vec<f32>,
    /// Each slot's quantisation error, `|row - codes * scale|` rounded up (see [`Graph::top_k`]).
    errs: Vec<f32>,
    /// Per-walk buffers, pooled so a search allocates nothing but its answer.
    scratch: Mutex<Vec<Scratch>>,
}

/// A walk's visited marks and heaps, kept between walks with their capacity.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    visited: Visited,
    cand: BinaryHeap<Scored>,
    best: BinaryHeap<Worst>,
}

/// Appends `v`'s `i8` code to `out` and returns its scale (`v ≈ code * scale`): the largest
/// component maps to ±127, so each row uses the whole range whatever its spread.
fn quantise(v: &[f32], out: &mut Vec<i8>) -> f32 {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    let scale = if max > 0.0 && max.is_finite() {
        max / 127.0
    } else {
        1.0
    };
    out.extend(
        v.iter()
            .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8),
    );
    scale
}

/// `|v - code * scale|`, computed in `f64` and rounded up: the length of what quantising lost.
fn residual(v: &[f32], code: &[i8], scale: f32) -> f32 {
    let e = v
        .iter()
        .zip(code)
        .map(|(x, c)| {
            let d = f64::from(*x) - f64::from(*c) * f64::from(scale);
            d * d
        })
        .sum::<f64>()
        .sqrt();
    up(e)
}

/// `x` as `f32`, never below it (the cast rounds to nearest, within half an `f32` epsilon).
fn up(x: f64) -> f32 {
    (x as f32) * (1.0 + 2.0 * f32::EPSILON)
}

/// Euclidean length of `v`, rounded up.
fn norm(v: &[f32]) -> f32 {
    up(v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt())
}

/// How a walk scores and pre-loads rows: the exact `f32` rows, or the compact `i8` ones.
pub(crate) trait Rows {
    /// Similarity of the query to slot `s`.
    fn score(&self, s: u32) -> f32;
    /// Loads `s`'s row: one component per cache line when `all`, else only its first line.
    fn touch(&self, s: u32, all: bool) -> u32;
}

/// Rows that count how many were scored: a search's work, which explains its latency.
struct Counted<R> {
    rows: R,
    n: std::cell::Cell<u64>,
}

impl<R> Counted<R> {
    fn new(rows: R) -> Self {
        Counted {
            rows,
            n: std::cell::Cell::new(0),
        }
    }
}

impl<R: Rows> Rows for Counted<R> {
    #[inline]
    fn score(&self, s: u32) -> f32 {
        self.n.set(self.n.get() + 1);
        self.rows.score(s)
    }
    #[inline]
    fn touch(&self, s: u32, all: bool) -> u32 {
        self.rows.touch(s, all)
    }
}

/// The `f32` rows (walks before the codes exist, e.g. a graph loaded without them).
struct Exact<'a> {
    g: &'a Graph,
    vectors: &'a [f32],
    q: &'a [f32],
}

impl Rows for Exact<'_> {
    #[inline]
    fn score(&self, s: u32) -> f32 {
        dot(self.q, self.g.vec(self.vectors, s))
    }
    #[inline]
    fn touch(&self, s: u32, all: bool) -> u32 {
        let row = self.g.vec(self.vectors, s);
        if all {
            row.iter().step_by(16).fold(0, |a, x| a ^ x.to_bits())
        } else {
            row.first().map_or(0, |x| x.to_bits())
        }
    }
}

/// The `i8` rows, against the query's own code.
struct Compact<'a> {
    g: &'a Graph,
    q: &'a [i8],
    q_scale: f32,
}

impl Rows for Compact<'_> {
    #[inline]
    fn score(&self, s: u32) -> f32 {
        let scale = self.g.scales.get(s as usize).copied().unwrap_or(0.0);
        dot_i8(self.q, self.g.code(s)) * scale * self.q_scale
    }
    #[inline]
    fn touch(&self, s: u32, all: bool) -> u32 {
        let row = self.g.code(s);
        if all {
            row.iter()
                .step_by(64)
                .fold(0, |a, x| a ^ u32::from(x.to_ne_bytes()[0]))
        } else {
            row.first().map_or(0, |x| u32::from(x.to_ne_bytes()[0]))
        }
    }
}

/// Generation-stamped visited marks, pooled so a search does not clear n entries each time.
/// Two bytes a slot, as hnswlib's: the marks of 100k slots (200 KB) stay in L2 beside the rows a
/// walk pulls through it; the array is cleared once every 65,535 walks.
#[derive(Debug, Default)]
struct Visited {
    marks: Vec<u16>,
    epoch: u16,
}

impl Visited {
    fn reset(&mut self, n: usize) {
        if self.marks.len() < n {
            // a fresh zeroed allocation: the pages a walk never marks are never touched (a
            // one-shot walk of a 1M-slot file marks a few thousand)
            let mut fresh = vec![0; n];
            fresh[..self.marks.len()].copy_from_slice(&self.marks);
            self.marks = fresh;
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.marks.iter_mut().for_each(|m| *m = 0);
            self.epoch = 1;
        }
    }
    /// Marks `s`; true if it was not yet marked.
    #[inline]
    fn insert(&mut self, s: u32) -> bool {
        match self.marks.get_mut(s as usize) {
            Some(m) if *m != self.epoch => {
                *m = self.epoch;
                true
            }
            _ => false,
        }
    }
}

/// Level for a slot: geometric with ratio 1/m, from a hash of (seed, slot) so a rebuild of the same
/// data gets the same levels.
pub(crate) fn random_level(seed: u64, slot: u32, m: usize) -> u8 {
    let mut z = seed ^ u64::from(slot).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    // uniform in (0, 1]
    let u = ((z >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
    let ml = 1.0 / (m.max(2) as f64).ln();
    let l = (-u.ln() * ml).floor();
    if l >= f64::from(MAX_LEVEL) {
        MAX_LEVEL
    } else {
        l as u8
    }
}

impl Graph {
    pub(crate) fn new(dim: usize, m: usize, ef_construction: usize) -> Self {
        Graph {
            dim,
            // level-0 lists (2m) must fit the 64-entry scratch array of `search_level`
            m: m.clamp(2, 32),
            ef_construction: ef_construction.max(m.clamp(2, 32)),
            levels: Vec::new(),
            links0: Vec::new(),
            stride0: 1 + 2 * m.clamp(2, 32),
            locks0: Vec::new(),
            done: Vec::new(),
            upper: Vec::new(),
            entry: RwLock::new(None),
            top_lock: Mutex::new(()),
            codes: Vec::new(),
            scales: Vec::new(),
            errs: Vec::new(),
            scratch: Mutex::new(Vec::new()),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.levels.len()
    }

    /// Room for `more` slots, so a build does not regrow (and briefly double) the arrays.
    pub(crate) fn reserve(&mut self, more: usize) {
        self.levels.reserve(more);
        self.links0.reserve(more * self.stride0);
        self.locks0.reserve(more);
        self.done.reserve(more);
        self.upper.reserve(more);
        self.codes.reserve(more * self.dim);
        self.scales.reserve(more);
        self.errs.reserve(more);
    }

    /// Appends the compact row of the next slot (call once per `push_slot`, in slot order).
    pub(crate) fn encode(&mut self, v: &[f32]) {
        let start = self.codes.len();
        let scale = quantise(v, &mut self.codes);
        self.scales.push(scale);
        let err = self
            .codes
            .get(start..)
            .map_or(f32::INFINITY, |c| residual(v, c, scale));
        self.errs.push(err);
    }

    /// Recomputes every compact row from `vectors` (after a load, which reads only `f32` rows).
    pub(crate) fn encode_all(&mut self, vectors: &[f32]) {
        self.codes.clear();
        self.scales.clear();
        self.errs.clear();
        self.codes.reserve(vectors.len());
        for v in vectors.chunks_exact(self.dim.max(1)) {
            self.encode(v);
        }
    }

    /// True when every slot has its compact row, so walks may use them.
    fn encoded(&self) -> bool {
        self.scales.len() == self.len()
            && self.errs.len() == self.len()
            && self.codes.len() == self.len() * self.dim
    }

    #[inline]
    fn code(&self, s: u32) -> &[i8] {
        let start = s as usize * self.dim;
        self.codes.get(start..start + self.dim).unwrap_or(&[])
    }

    /// Makes room for a slot (its links empty) before `insert` links it.
    pub(crate) fn push_slot(&mut self, level: u8) {
        self.levels.push(level);
        self.links0
            .extend(std::iter::repeat_with(|| AtomicU32::new(0)).take(self.stride0));
        self.locks0.push(Mutex::new(()));
        self.done.push(AtomicBool::new(false));
        self.upper
            .push(RwLock::new(vec![Vec::new(); usize::from(level)]));
    }

    /// The level-0 words of `s` (count, links), empty for an unknown slot.
    #[inline]
    fn block0(&self, s: u32) -> &[AtomicU32] {
        let start = s as usize * self.stride0;
        self.links0.get(start..start + self.stride0).unwrap_or(&[])
    }

    /// Loads the first word of `s`'s list at `level` (level 0 only; upper lists are few and hot).
    #[inline]
    fn touch_links(&self, s: u32, level: u8) -> u32 {
        if level == 0 {
            self.block0(s).first().map_or(0, |w| w.load(Relaxed))
        } else {
            0
        }
    }

    /// Overwrites `s`'s level-0 list (the caller holds `locks0[s]`, or `&mut self`).
    fn store0(&self, s: u32, links: &[u32]) {
        let block = self.block0(s);
        let Some((count, slots)) = block.split_first() else {
            return;
        };
        let n = links.len().min(slots.len());
        for (w, l) in slots.iter().zip(&links[..n]) {
            w.store(*l, Relaxed);
        }
        count.store(n as u32, Relaxed);
    }

    #[inline]
    fn vec<'a>(&self, vectors: &'a [f32], s: u32) -> &'a [f32] {
        let start = s as usize * self.dim;
        vectors.get(start..start + self.dim).unwrap_or(&[])
    }

    fn max_links(&self, level: u8) -> usize {
        if level == 0 {
            2 * self.m
        } else {
            self.m
        }
    }

    fn neighbours(&self, s: u32, level: u8) -> Vec<u32> {
        if level == 0 {
            let mut out = Vec::with_capacity(2 * self.m);
            self.for_neighbours(s, 0, |n| out.push(n));
            out
        } else {
            self.upper
                .get(s as usize)
                .and_then(|u| u.read().get(usize::from(level) - 1).cloned())
                .unwrap_or_default()
        }
    }

    fn set_neighbours(&self, s: u32, level: u8, links: Vec<u32>) {
        if level == 0 {
            if let Some(lock) = self.locks0.get(s as usize) {
                let _held = lock.lock();
                self.store0(s, &links);
            }
        } else if let Some(u) = self.upper.get(s as usize) {
            if let Some(l) = u.write().get_mut(usize::from(level) - 1) {
                *l = links;
            }
        }
    }

    /// Calls `f` on each neighbour of `s` at `level` without copying the list.
    #[inline]
    fn for_neighbours(&self, s: u32, level: u8, mut f: impl FnMut(u32)) {
        if level == 0 {
            if let Some((count, slots)) = self.block0(s).split_first() {
                let n = (count.load(Relaxed) as usize).min(slots.len());
                slots[..n].iter().for_each(|w| f(w.load(Relaxed)));
            }
        } else if let Some(u) = self.upper.get(s as usize) {
            if let Some(l) = u.read().get(usize::from(level) - 1) {
                l.iter().for_each(|&n| f(n));
            }
        }
    }

    /// Replaces the scores of `found` by exact ones from the `f32` rows and sorts it best first.
    fn rescore(&self, vectors: &[f32], q: &[f32], found: &mut [Scored]) {
        rescore(
            &Exact {
                g: self,
                vectors,
                q,
            },
            found,
        );
    }

    /// The HNSW neighbour heuristic: keep a candidate unless it is strictly nearer to a neighbour
    /// already kept than to the base, which keeps links pointing in diverse directions (and the graph
    /// navigable on clustered data). `cands` must be sorted best first.
    ///
    /// A tie keeps the candidate (hnswlib's rule). Dropping ties instead cut nodes with an exact
    /// duplicate down to the one link to that duplicate: every other candidate is exactly as near
    /// to it as to the base, and then only a few walks could reach them.
    fn select(&self, vectors: &[f32], cands: &[Scored], max: usize) -> Vec<u32> {
        let mut kept: Vec<Scored> = Vec::with_capacity(max);
        for c in cands {
            if kept.len() >= max {
                break;
            }
            let cv = self.vec(vectors, c.slot);
            if kept
                .iter()
                .all(|k| dot(cv, self.vec(vectors, k.slot)) <= c.score)
            {
                kept.push(*c);
            }
        }
        kept.into_iter().map(|k| k.slot).collect()
    }

    /// Links slot `s` (already pushed, its vector in `vectors`) into the graph. Safe to call from
    /// several threads for different slots.
    pub(crate) fn insert(&self, vectors: &[f32], s: u32) {
        self.insert_near(vectors, s, &[]);
    }

    /// [`Graph::insert`], with `near` (slots already in the graph) scored as level-0 link
    /// candidates beside those the walk finds.
    pub(crate) fn insert_near(&self, vectors: &[f32], s: u32, near: &[u32]) {
        let level = self.levels.get(s as usize).copied().unwrap_or(0);
        let q = self.vec(vectors, s);
        let current = *self.entry.read();
        let _top = match current {
            Some((_, top)) if level <= top => None,
            _ => Some(self.top_lock.lock()),
        };
        // re-read: another thread may have raised the top while we waited
        let Some((ep, top)) = *self.entry.read() else {
            self.finish(s);
            *self.entry.write() = Some((s, level));
            return;
        };
        if ep == s {
            self.finish(s);
            return;
        }
        let walked = Building(self);
        let exact = Exact {
            g: self,
            vectors,
            q,
        };
        let compact = Compact {
            g: self,
            q: self.code(s),
            q_scale: self.scales.get(s as usize).copied().unwrap_or(0.0),
        };
        let encoded = self.encoded();
        // greedy down to the node's level, as hnswlib inserts: a level-1 beam here (as searches
        // have) left fewer nodes without a near link but did not raise recall (docs/VECTOR.md)
        let mut entries = if encoded {
            descend(&walked, &compact, (ep, top), level, 1)
        } else {
            descend(&walked, &exact, (ep, top), level, 1)
        };
        let mut l = level.min(top);
        loop {
            let not_s = |n: u32| n != s;
            let mut found = if encoded {
                let mut f =
                    search_level(&walked, &compact, &entries, self.ef_construction, l, &not_s);
                self.rescore(vectors, q, &mut f);
                f
            } else {
                search_level(&walked, &exact, &entries, self.ef_construction, l, &not_s)
            };
            if l == 0 && !near.is_empty() {
                let seen: std::collections::HashSet<u32> = found.iter().map(|f| f.slot).collect();
                found.extend(
                    near.iter()
                        .filter(|&&n| n != s && !seen.contains(&n))
                        .map(|&n| Scored {
                            score: dot(q, self.vec(vectors, n)),
                            slot: n,
                        }),
                );
                found.sort_by(|a, b| b.cmp(a));
                found.truncate(self.ef_construction);
            }
            let links = self.select(vectors, &found, self.m);
            // own list first, as hnswlib does: a neighbour that links back to `s` before this
            // would have its link overwritten
            self.set_neighbours(s, l, links.clone());
            for &n in &links {
                self.link_back(vectors, n, s, l);
            }
            // the nearest found seeds the next level down, scored as that walk scores
            if let Some(b) = found.first() {
                let score = if encoded {
                    compact.score(b.slot)
                } else {
                    exact.score(b.slot)
                };
                entries = vec![Scored {
                    score,
                    slot: b.slot,
                }];
            }
            if l == 0 {
                break;
            }
            l -= 1;
        }
        self.finish(s);
        if level > top {
            let mut e = self.entry.write();
            if e.is_none_or(|(_, t)| level > t) {
                *e = Some((s, level));
            }
        }
    }

    /// Marks `s`'s insert finished: from now on other inserts' walks enter it. Release, so that a
    /// walk that sees the mark (Acquire) sees every list `s`'s insert wrote.
    fn finish(&self, s: u32) {
        if let Some(d) = self.done.get(s as usize) {
            d.store(true, Release);
        }
    }

    /// Adds `new` to `n`'s links at `level`, re-selecting with the heuristic when the list is full.
    fn link_back(&self, vectors: &[f32], n: u32, new: u32, level: u8) {
        let max = self.max_links(level);
        let nv = self.vec(vectors, n);
        let update = |links: &mut Vec<u32>| {
            if links.contains(&new) {
                return false;
            }
            if links.len() < max {
                links.push(new);
                return true;
            }
            let mut c: Vec<Scored> = links
                .iter()
                .chain(std::iter::once(&new))
                .map(|&x| Scored {
                    score: dot(nv, self.vec(vectors, x)),
                    slot: x,
                })
                .collect();
            c.sort_by(|a, b| b.cmp(a));
            *links = self.select(vectors, &c, max);
            true
        };
        if level == 0 {
            if let Some(lock) = self.locks0.get(n as usize) {
                let _held = lock.lock();
                let mut links = self.neighbours(n, 0);
                if update(&mut links) {
                    self.store0(n, &links);
                }
            }
        } else if let Some(u) = self.upper.get(n as usize) {
            if let Some(l) = u.write().get_mut(usize::from(level) - 1) {
                update(l);
            }
        }
    }

    /// The exact top `k` of a beam of width `ef` for `q` among slots accepted by `allow`, best
    /// first; `work` counts the rows scored on the way (the walk's and the rescoring's).
    pub(crate) fn search(
        &self,
        vectors: &[f32],
        q: &[f32],
        k: usize,
        ef: usize,
        allow: &(impl Fn(u32) -> bool + ?Sized),
        work: &mut u64,
    ) -> Vec<Scored> {
        if self.entry.read().is_none() {
            return Vec::new();
        }
        if !self.encoded() {
            let rows = Counted::new(Exact {
                g: self,
                vectors,
                q,
            });
            let mut found = walk(self, &rows, ef.max(1), allow);
            *work += rows.n.get();
            found.truncate(k);
            return found;
        }
        let mut code = Vec::with_capacity(self.dim);
        let q_scale = quantise(q, &mut code);
        let q_err = residual(q, &code, q_scale);
        let rows = Counted::new(Compact {
            g: self,
            q: &code,
            q_scale,
        });
        let found = walk(self, &rows, ef.max(1), allow);
        *work += rows.n.get();
        self.top_k(vectors, q, q_err, k, found, work)
    }

    /// The exact top `k` of `found` (a compact walk's beam, best first by compact score), best
    /// first, as rescoring the whole beam would give, rescoring fewer rows. For a query `q` with
    /// code error `e_q = |q - q̂|` and a row `v` with `e_v`, `q·v - q̂·v̂ = q·(v - v̂) + (q - q̂)·v̂`,
    /// so the two scores differ by at most `|q|·e_v + e_q·(|v| + e_v)` (plus `f32` rounding). The
    /// first `k` candidates are rescored; a later one only if its compact score plus that bound
    /// reaches the k-th best exact score among those: any other scores below k rescored ones.
    fn top_k(
        &self,
        vectors: &[f32],
        q: &[f32],
        q_err: f32,
        k: usize,
        mut found: Vec<Scored>,
        work: &mut u64,
    ) -> Vec<Scored> {
        let k = k.max(1);
        let rest = found.split_off(k.min(found.len()));
        self.rescore(vectors, q, &mut found);
        *work += found.len() as u64;
        let Some(kth) = found.last().map(|f| f.score).filter(|_| found.len() == k) else {
            return found;
        };
        let qn = norm(q);
        // rounding of the f32 dot products (sums of `dim` terms) and of the scale products
        let rounding = 1e-5 + 4.0 * self.dim as f32 * f32::EPSILON * qn;
        let mut maybe: Vec<Scored> = rest
            .into_iter()
            .filter(|c| {
                let e_v = self
                    .errs
                    .get(c.slot as usize)
                    .copied()
                    .unwrap_or(f32::INFINITY);
                // rows are unit vectors (normalised on insert), |v| ≤ 1 + rounding
                let bound = qn * e_v + q_err * (1.0 + rounding + e_v) + rounding;
                c.score + bound >= kth
            })
            .collect();
        if maybe.is_empty() {
            return found;
        }
        self.rescore(vectors, q, &mut maybe);
        *work += maybe.len() as u64;
        found.extend(maybe);
        found.sort_by(|a, b| b.cmp(a));
        found.truncate(k);
        found
    }

    /// A copy of slot `s`'s links at `level`, for persistence.
    pub(crate) fn links_of_level(&self, s: u32, level: u8) -> Vec<u32> {
        self.neighbours(s, level)
    }

    /// Restores a slot read from disk (levels and links already validated).
    pub(crate) fn push_loaded(&mut self, mut links: Vec<Vec<u32>>) {
        let level = links.len().saturating_sub(1).min(usize::from(MAX_LEVEL)) as u8;
        links.truncate(usize::from(level) + 1);
        let l0 = if links.is_empty() {
            Vec::new()
        } else {
            links.remove(0)
        };
        self.push_slot(0);
        if let Some(l) = self.levels.last_mut() {
            *l = level;
        }
        let s = (self.levels.len() - 1) as u32;
        self.store0(s, &l0);
        self.finish(s);
        if let Some(u) = self.upper.last_mut() {
            *u.get_mut() = links;
        }
    }

    pub(crate) fn set_entry(&mut self, entry: Option<(u32, u8)>) {
        *self.entry.get_mut() = entry;
    }
}

/// What a search walks: the graph's links and its pooled walk buffers, held in memory
/// ([`Graph`]) or read from the index file a block at a time (`persist::FileIndex`). The rows
/// are scored through [`Rows`]. One search loop serves both.
pub(crate) trait Walk {
    /// Number of slots.
    fn len(&self) -> usize;
    /// Entry point and its level; `None` while empty.
    fn entry(&self) -> Option<(u32, u8)>;
    /// Calls `f` on each neighbour of `s` at `level`.
    fn for_neighbours(&self, s: u32, level: u8, f: impl FnMut(u32));
    /// Loads `s`'s link list ahead of its expansion (see `search_level`); nothing by default.
    fn touch_links(&self, _s: u32, _level: u8) -> u32 {
        0
    }
    /// Pool of walk buffers, so a search allocates nothing but its answer.
    fn scratch(&self) -> &Mutex<Vec<Scratch>>;
}

impl Walk for Graph {
    fn len(&self) -> usize {
        Graph::len(self)
    }
    fn entry(&self) -> Option<(u32, u8)> {
        *self.entry.read()
    }
    #[inline]
    fn for_neighbours(&self, s: u32, level: u8, f: impl FnMut(u32)) {
        Graph::for_neighbours(self, s, level, f)
    }
    #[inline]
    fn touch_links(&self, s: u32, level: u8) -> u32 {
        Graph::touch_links(self, s, level)
    }
    fn scratch(&self) -> &Mutex<Vec<Scratch>> {
        &self.scratch
    }
}

/// The graph as an insert walks it: slots whose own insert has not finished are left out, as if
/// they came later. hnswlib gets the same by holding a node's lock through its whole insert and
/// taking it to read the node's links. Without it a parallel build's walk could step, on an upper
/// level, onto a node whose level-0 list was still empty, end there with that one candidate, and
/// link the new node to it alone; that node's insert then rewrote its own list without the back
/// link, leaving the new node unreachable (8 of 100k on the generated set, 2 build threads).
struct Building<'a>(&'a Graph);

impl Walk for Building<'_> {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn entry(&self) -> Option<(u32, u8)> {
        *self.0.entry.read()
    }
    #[inline]
    fn for_neighbours(&self, s: u32, level: u8, mut f: impl FnMut(u32)) {
        let done = &self.0.done;
        self.0.for_neighbours(s, level, |n| {
            if done.get(n as usize).is_some_and(|d| d.load(Acquire)) {
                f(n);
            }
        });
    }
    #[inline]
    fn touch_links(&self, s: u32, level: u8) -> u32 {
        self.0.touch_links(s, level)
    }
    fn scratch(&self) -> &Mutex<Vec<Scratch>> {
        &self.0.scratch
    }
}

/// Rows read through a function (the index file's blocks), quantised as they are scored with
/// the same [`quantise`] the index in memory encodes its rows with: a walk over the file then
/// takes exactly the in-memory walk's route and returns its answer.
struct QuantisedOf<'q, F> {
    row: F,
    q: &'q [i8],
    q_scale: f32,
    buf: std::cell::RefCell<Vec<i8>>,
}

impl<'a, F: Fn(u32) -> &'a [f32]> Rows for QuantisedOf<'_, F> {
    fn score(&self, s: u32) -> f32 {
        let mut code = self.buf.borrow_mut();
        code.clear();
        let scale = quantise((self.row)(s), &mut code);
        dot_i8(self.q, &code) * scale * self.q_scale
    }
    fn touch(&self, _s: u32, _all: bool) -> u32 {
        // a block read is no cache miss to hide
        0
    }
}

/// Replaces the scores of `found` by `exact`'s and sorts it best first, loading each next row
/// while scoring the current one, as the walk does.
fn rescore(exact: &impl Rows, found: &mut [Scored]) {
    let mut touch = 0u32;
    for f in found.iter() {
        touch ^= exact.touch(f.slot, false);
    }
    std::hint::black_box(touch);
    for i in 0..found.len() {
        if let Some(next) = found.get(i + 1) {
            std::hint::black_box(exact.touch(next.slot, true));
        }
        if let Some(f) = found.get_mut(i) {
            f.score = exact.score(f.slot);
        }
    }
    found.sort_by(|a, b| b.cmp(a));
}

/// The `f32` rows read through a function (the index file's blocks).
struct ExactOf<'q, F> {
    row: F,
    q: &'q [f32],
}

impl<'a, F: Fn(u32) -> &'a [f32]> Rows for ExactOf<'_, F> {
    fn score(&self, s: u32) -> f32 {
        dot(self.q, (self.row)(s))
    }
    fn touch(&self, _s: u32, _all: bool) -> u32 {
        // a block read is no cache miss to hide
        0
    }
}

/// [`Graph::search`] over rows read through `row` (the index file's): the compact walk, then
/// the beam rescored exactly, best first.
pub(crate) fn search_rows<'a, W: Walk>(
    w: &W,
    row: impl Fn(u32) -> &'a [f32],
    q: &[f32],
    ef: usize,
    allow: &(impl Fn(u32) -> bool + ?Sized),
) -> Vec<Scored> {
    let mut code = Vec::with_capacity(q.len());
    let q_scale = quantise(q, &mut code);
    let rows = QuantisedOf {
        row: &row,
        q: &code,
        q_scale,
        buf: Default::default(),
    };
    let mut found = walk(w, &rows, ef, allow);
    rescore(&ExactOf { row: &row, q }, &mut found);
    found
}

/// Upper-level descent from `w`'s entry point (greedy, then a level-1 beam of
/// [`entry_beam`]`(ef)`), then the level-0 beam of width `ef` seeded with all it found, scored
/// through `rows`: the one search loop of the index in memory and of its file.
pub(crate) fn walk<W: Walk>(
    w: &W,
    rows: &impl Rows,
    ef: usize,
    allow: &(impl Fn(u32) -> bool + ?Sized),
) -> Vec<Scored> {
    let Some((ep, top)) = w.entry() else {
        return Vec::new();
    };
    let entries = descend(w, rows, (ep, top), 0, entry_beam(ef));
    search_level(w, rows, &entries, ef.max(1), 0, allow)
}

/// Where a walk enters `level`: a greedy descent from the entry point `ep` (on level `top`) and,
/// when `level` is 0 and `beam` > 1, a beam of width `beam` on level 1 whose every result seeds
/// level 0. One greedy point, as hnswlib has, can sit in the wrong cluster (on the MiniLM set:
/// the "Paper: …" half for a query "Author: …"), and a level-0 beam started there may never
/// cross; several entries from level 1 reach the right region far more often.
fn descend<W: Walk>(
    w: &W,
    rows: &impl Rows,
    (ep, top): (u32, u8),
    level: u8,
    beam: usize,
) -> Vec<Scored> {
    let mut cur = Scored {
        score: rows.score(ep),
        slot: ep,
    };
    let last = if level == 0 { 2 } else { level + 1 };
    for l in (last..=top).rev() {
        cur = greedy(w, rows, cur, l);
    }
    if level == 0 && top >= 1 {
        if beam > 1 {
            return search_level(w, rows, &[cur], beam, 1, &|_| true);
        }
        cur = greedy(w, rows, cur, 1);
    }
    vec![cur]
}

/// Width of the level-1 beam whose results seed a level-0 search of width `ef`: a quarter of
/// `ef`, at most 8. On the MiniLM set it bought more recall per row scored than a wider level-0
/// beam at every ef up to 128; wider level-1 beams cost rows on the generated set for nothing.
pub(crate) fn entry_beam(ef: usize) -> usize {
    (ef / 4).clamp(1, 8)
}

/// Greedy walk to the single nearest node at `level`.
fn greedy<W: Walk>(w: &W, rows: &impl Rows, mut cur: Scored, level: u8) -> Scored {
    loop {
        let mut best = cur;
        w.for_neighbours(cur.slot, level, |n| {
            let c = Scored {
                score: rows.score(n),
                slot: n,
            };
            if c > best {
                best = c;
            }
        });
        if best.slot == cur.slot {
            return cur;
        }
        cur = best;
    }
}

/// Beam search at one level. Every reached node steers the walk, but only nodes accepted by
/// `allow` enter the result; so tombstones and label filters never cut the graph apart.
fn search_level<W: Walk>(
    w: &W,
    rows: &impl Rows,
    entries: &[Scored],
    ef: usize,
    level: u8,
    allow: &(impl Fn(u32) -> bool + ?Sized),
) -> Vec<Scored> {
    let mut scratch = w.scratch().lock().pop().unwrap_or_default();
    let Scratch {
        visited,
        cand,
        best,
    } = &mut scratch;
    visited.reset(w.len());
    cand.clear();
    best.clear();
    for &e in entries {
        if !visited.insert(e.slot) {
            continue;
        }
        cand.push(e);
        if allow(e.slot) {
            best.push(Worst(Reverse(e)));
            if best.len() > ef {
                best.pop();
            }
        }
    }
    while let Some(c) = cand.pop() {
        if best.len() >= ef {
            if let Some(w) = best.peek() {
                if c.score < w.0 .0.score {
                    break;
                }
            }
        }
        // Gather the unvisited neighbours, load the first cache line of each of their rows,
        // then score them in order, loading every line of the next row before scoring the
        // current one. Safe Rust has no prefetch; these loads are independent of the dot
        // product beside them, so the core overlaps their misses with it, which is what
        // hnswlib's prefetches buy. Measured against touching every line of every row first
        // and against no touching (docs/VECTOR.md).
        let mut fresh = [0u32; 64];
        let mut nf = 0;
        w.for_neighbours(c.slot, level, |n| {
            if nf < fresh.len() && visited.insert(n) {
                fresh[nf] = n;
                nf += 1;
            }
        });
        // the links of the next candidate (likely the current best of `cand`) live in
        // another array than its row, unlike hnswlib's one block a slot: load them now too
        let mut touch = cand
            .peek()
            .map_or(0, |next| w.touch_links(next.slot, level));
        for &n in &fresh[..nf] {
            touch ^= rows.touch(n, false);
        }
        std::hint::black_box(touch);
        for (i, &n) in fresh[..nf].iter().enumerate() {
            if let Some(&next) = fresh[..nf].get(i + 1) {
                std::hint::black_box(rows.touch(next, true));
            }
            let s = Scored {
                score: rows.score(n),
                slot: n,
            };
            let full = best.len() >= ef;
            if !full || best.peek().is_some_and(|w| s.score > w.0 .0.score) {
                cand.push(s);
                if allow(n) {
                    best.push(Worst(Reverse(s)));
                    if best.len() > ef {
                        best.pop();
                    }
                }
            }
        }
    }
    let mut out: Vec<Scored> = best.drain().map(|w| w.0 .0).collect();
    w.scratch().lock().push(scratch);
    out.sort_by(|a, b| b.cmp(a));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visited_marks_survive_the_epoch_wrapping() {
        let mut v = Visited::default();
        v.reset(3);
        assert!(v.insert(1));
        for _ in 0..=u16::MAX as usize + 2 {
            v.reset(3);
            assert!(v.insert(1), "epoch {}", v.epoch);
            assert!(!v.insert(1));
            // slot 2 was marked in no walk since the clear: it must read as new
            assert_ne!(v.marks[2], v.epoch);
        }
        assert!(!v.insert(7), "an unknown slot is never new");
    }

    /// Unit rows in `clusters` tight groups (MiniLM-like: near neighbours score 0.9+), some rows
    /// repeated exactly.
    fn clustered(n: usize, dim: usize, clusters: usize, seed: u64) -> Vec<f32> {
        let mut x = seed | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f32 / (1u64 << 53) as f32 - 0.5
        };
        let centres: Vec<f32> = (0..clusters * dim).map(|_| next()).collect();
        let mut out = Vec::with_capacity(n * dim);
        for i in 0..n {
            if i % 17 == 5 {
                let prev = out[(i - 1) * dim..i * dim].to_vec();
                out.extend(prev);
                continue;
            }
            let c = &centres[(i % clusters) * dim..(i % clusters + 1) * dim];
            let v: Vec<f32> = c.iter().map(|x| x + 0.15 * next()).collect();
            let n = norm(&v);
            out.extend(v.iter().map(|x| x / n));
        }
        out
    }

    fn built(vectors: &[f32], dim: usize) -> Graph {
        let mut g = Graph::new(dim, 8, 64);
        for (s, v) in vectors.chunks_exact(dim).enumerate() {
            g.push_slot(random_level(7, s as u32, 8));
            g.encode(v);
        }
        for s in 0..g.len() as u32 {
            g.insert(vectors, s);
        }
        g
    }

    #[test]
    fn compact_scores_stay_within_the_bound() {
        let dim = 96;
        let rows = clustered(400, dim, 5, 3);
        let g = built(&rows, dim);
        let mut worst = 0f32;
        for q in rows.chunks_exact(dim).step_by(7) {
            let mut cq = Vec::new();
            let sq = quantise(q, &mut cq);
            let eq = residual(q, &cq, sq);
            for s in 0..g.len() as u32 {
                let approx = dot_i8(&cq, g.code(s)) * sq * g.scales[s as usize];
                let exact = dot(q, g.vec(&rows, s));
                let e_v = g.errs[s as usize];
                // the bound without its rounding allowance: the margin it leaves is real
                let bound = norm(q) * e_v + eq * (1.0 + e_v);
                worst = worst.max((exact - approx).abs() / bound);
                assert!((exact - approx).abs() <= bound + 1e-5, "slot {s}");
            }
        }
        assert!(worst > 0.01, "the bound is never approached: {worst}");
    }

    #[test]
    fn top_k_equals_rescoring_the_whole_beam() {
        let dim = 64;
        let rows = clustered(3_000, dim, 12, 11);
        let g = built(&rows, dim);
        let mut rescored_rows = 0;
        for (i, q) in clustered(60, dim, 12, 99).chunks_exact(dim).enumerate() {
            let mut code = Vec::new();
            let q_scale = quantise(q, &mut code);
            let compact = Compact {
                g: &g,
                q: &code,
                q_scale,
            };
            let beam = walk(&g, &compact, 80, &|_| true);
            let mut full = beam.clone();
            g.rescore(&rows, q, &mut full);
            for k in [1, 10, 80, 200] {
                let mut work = 0;
                let got = g.top_k(
                    &rows,
                    q,
                    residual(q, &code, q_scale),
                    k,
                    beam.clone(),
                    &mut work,
                );
                let want: Vec<(u32, u32)> = full
                    .iter()
                    .take(k)
                    .map(|f| (f.slot, f.score.to_bits()))
                    .collect();
                let got: Vec<(u32, u32)> =
                    got.iter().map(|f| (f.slot, f.score.to_bits())).collect();
                assert_eq!(got, want, "query {i}, k {k}");
                if k == 10 {
                    rescored_rows += work;
                }
            }
            // and through the search entry point, with the walk's rows counted
            let mut work = 0;
            let via = g.search(&rows, q, 10, 80, &|_| true, &mut work);
            assert_eq!(via.len(), 10);
            assert_eq!(via[0].slot, full[0].slot);
        }
        // the point of it: fewer rows than the whole beam (60 queries of 80)
        assert!(rescored_rows < 60 * 80 / 2, "{rescored_rows} rows rescored");
    }

    /// Exact top-10 hits of `found` for query `q` (ties with the 10th count).
    fn hits(rows: &[f32], dim: usize, q: &[f32], found: &[Scored]) -> usize {
        let mut all: Vec<f32> = rows.chunks_exact(dim).map(|r| dot(q, r)).collect();
        all.sort_by(|a, b| b.total_cmp(a));
        let kth = all[9];
        found
            .iter()
            .take(10)
            .filter(|f| dot(q, &rows[f.slot as usize * dim..][..dim]) >= kth - 1e-6)
            .count()
    }

    #[test]
    fn a_level_one_beam_seeds_level_zero_with_better_entries() {
        let dim = 48;
        // many small clusters: a greedy descent ends in a near but wrong one often enough
        let rows = clustered(6_000, dim, 60, 5);
        let g = built(&rows, dim);
        let Some((ep, top)) = Walk::entry(&g) else {
            panic!("a built graph has an entry point");
        };
        assert!(top >= 1, "the test needs upper levels");
        let (mut greedy_hits, mut beam_hits) = (0, 0);
        for q in clustered(300, dim, 60, 77).chunks_exact(dim) {
            let exact = Exact {
                g: &g,
                vectors: &rows,
                q,
            };
            let one = descend(&g, &exact, (ep, top), 0, 1);
            assert_eq!(one.len(), 1);
            let many = descend(&g, &exact, (ep, top), 0, 8);
            assert!(many.len() > 1 && many.len() <= 8);
            assert!(many.windows(2).all(|w| w[0] >= w[1]), "best first");
            assert!(many.iter().all(|e| g.levels[e.slot as usize] >= 1));
            // the greedy point is what the beam starts from, so the beam never ends worse
            assert!(many[0].score >= one[0].score);
            let ef = 12;
            greedy_hits += hits(
                &rows,
                dim,
                q,
                &search_level(&g, &exact, &one, ef, 0, &|_| true),
            );
            beam_hits += hits(
                &rows,
                dim,
                q,
                &search_level(&g, &exact, &many, ef, 0, &|_| true),
            );
        }
        assert!(
            beam_hits > greedy_hits,
            "recall@10 hits at ef 12: beam {beam_hits}, greedy {greedy_hits}"
        );
    }

    #[test]
    fn an_insert_does_not_walk_into_a_node_whose_insert_is_unfinished() {
        // the state a parallel build can be in: slot `x` is reachable on level 1 (its neighbours
        // there already link back to it) but its level-0 list is not written yet; slot `s`, a
        // near copy of `x`, is inserted meanwhile
        let dim = 16;
        let n = 2_000;
        let mut x_state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x_state ^= x_state << 13;
            x_state ^= x_state >> 7;
            x_state ^= x_state << 17;
            (x_state >> 11) as f32 / (1u64 << 53) as f32 - 0.5
        };
        let mut rows: Vec<f32> = Vec::with_capacity(n * dim);
        for _ in 0..n {
            let v: Vec<f32> = (0..dim).map(|_| next()).collect();
            let l = norm(&v);
            rows.extend(v.iter().map(|c| c / l));
        }
        let seed = 3;
        let level = |s: usize| random_level(seed, s as u32, 8);
        let Some(x) = (100..n).find(|&s| level(s) == 1) else {
            panic!("no level-1 slot");
        };
        let Some(s) = (0..n).rev().find(|&s| level(s) == 0) else {
            panic!("no level-0 slot");
        };
        let near: Vec<f32> = rows[x * dim..(x + 1) * dim]
            .iter()
            .map(|c| c + 0.01 * next())
            .collect();
        let l = norm(&near);
        for (d, c) in rows[s * dim..(s + 1) * dim].iter_mut().zip(&near) {
            *d = c / l;
        }
        let mut g = Graph::new(dim, 8, 64);
        for (i, v) in rows.chunks_exact(dim).enumerate() {
            g.push_slot(level(i));
            g.encode(v);
        }
        for i in (0..n).filter(|&i| i != x && i != s) {
            g.insert(&rows, i as u32);
        }
        // `x`'s insert, interrupted after its level-1 links
        let exact = Exact {
            g: &g,
            vectors: &rows,
            q: &rows[x * dim..(x + 1) * dim],
        };
        let mut found = (0..n as u32)
            .filter(|&i| i as usize != x && i as usize != s && g.levels[i as usize] >= 1)
            .map(|i| Scored {
                score: exact.score(i),
                slot: i,
            })
            .collect::<Vec<_>>();
        found.sort_by(|a, b| b.cmp(a));
        let links = g.select(&rows, &found, 8);
        g.set_neighbours(x as u32, 1, links.clone());
        for &l in &links {
            g.link_back(&rows, l, x as u32, 1);
        }
        g.insert(&rows, s as u32);
        let got = g.neighbours(s as u32, 0);
        assert!(
            !got.contains(&(x as u32)),
            "linked to the unfinished {x}: {got:?}"
        );
        assert!(got.len() > 1, "one link only: {got:?}");
    }

    #[test]
    fn quantised_rows_keep_the_order_of_scores() {
        let dim = 384;
        let row = |seed: usize| -> Vec<f32> {
            let v: Vec<f32> = (0..dim)
                .map(|i| ((i * 7 + seed * 13) as f32 * 0.37).sin())
                .collect();
            let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter().map(|x| x / n).collect()
        };
        let (q, a) = (row(1), row(2));
        let (mut cq, mut ca) = (Vec::new(), Vec::new());
        let (sq, sa) = (quantise(&q, &mut cq), quantise(&a, &mut ca));
        let approx = dot_i8(&cq, &ca) * sq * sa;
        assert!(
            (approx - dot(&q, &a)).abs() < 0.01,
            "{approx} vs {}",
            dot(&q, &a)
        );
        assert!((dot_i8(&cq, &cq) * sq * sq - 1.0).abs() < 0.01);
        // a zero row quantises to zeros, with no NaN scale
        let mut cz = Vec::new();
        assert_eq!(quantise(&[0.0; 4], &mut cz), 1.0);
        assert_eq!(cz, vec![0; 4]);
    }
}
