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

use super::exact::{Scored, Worst};
use cairn_embed::dot;
use parking_lot::{Mutex, RwLock};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

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
    /// Links on levels 1..=level of each slot (`upper[s][l-1]`), empty for most slots.
    pub(crate) upper: Vec<RwLock<Vec<Vec<u32>>>>,
    /// Entry point and its level; `None` while empty.
    pub(crate) entry: RwLock<Option<(u32, u8)>>,
    /// Held by an insert whose level exceeds the current top, so two new tops do not race.
    top_lock: Mutex<()>,
    visited: Mutex<Vec<Visited>>,
}

/// Generation-stamped visited marks, pooled so a search does not clear n entries each time.
#[derive(Debug, Default)]
struct Visited {
    marks: Vec<u32>,
    epoch: u32,
}

impl Visited {
    fn reset(&mut self, n: usize) {
        if self.marks.len() < n {
            self.marks.resize(n, 0);
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
            upper: Vec::new(),
            entry: RwLock::new(None),
            top_lock: Mutex::new(()),
            visited: Mutex::new(Vec::new()),
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
        self.upper.reserve(more);
    }

    /// Makes room for a slot (its links empty) before `insert` links it.
    pub(crate) fn push_slot(&mut self, level: u8) {
        self.levels.push(level);
        self.links0
            .extend(std::iter::repeat_with(|| AtomicU32::new(0)).take(self.stride0));
        self.locks0.push(Mutex::new(()));
        self.upper
            .push(RwLock::new(vec![Vec::new(); usize::from(level)]));
    }

    /// The level-0 words of `s` (count, links), empty for an unknown slot.
    #[inline]
    fn block0(&self, s: u32) -> &[AtomicU32] {
        let start = s as usize * self.stride0;
        self.links0.get(start..start + self.stride0).unwrap_or(&[])
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

    /// Greedy walk to the single nearest node at `level`.
    /// `work` counts the vectors scored.
    fn greedy(
        &self,
        vectors: &[f32],
        q: &[f32],
        mut cur: Scored,
        level: u8,
        work: &mut u64,
    ) -> Scored {
        loop {
            let mut best = cur;
            self.for_neighbours(cur.slot, level, |n| {
                *work += 1;
                let c = Scored {
                    score: dot(q, self.vec(vectors, n)),
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
    /// `work` counts the vectors scored.
    #[allow(clippy::too_many_arguments)]
    fn search_level(
        &self,
        vectors: &[f32],
        q: &[f32],
        entry: Scored,
        ef: usize,
        level: u8,
        allow: &dyn Fn(u32) -> bool,
        work: &mut u64,
    ) -> Vec<Scored> {
        let mut visited = self.visited.lock().pop().unwrap_or_default();
        visited.reset(self.len());
        let mut cand: BinaryHeap<Scored> = BinaryHeap::new();
        let mut best: BinaryHeap<Worst> = BinaryHeap::new();
        visited.insert(entry.slot);
        cand.push(entry);
        if allow(entry.slot) {
            best.push(Worst(Reverse(entry)));
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
            self.for_neighbours(c.slot, level, |n| {
                if nf < fresh.len() && visited.insert(n) {
                    fresh[nf] = n;
                    nf += 1;
                }
            });
            let mut touch = 0u32;
            for &n in &fresh[..nf] {
                touch ^= self.vec(vectors, n).first().map_or(0, |x| x.to_bits());
            }
            std::hint::black_box(touch);
            *work += nf as u64;
            for (i, &n) in fresh[..nf].iter().enumerate() {
                if let Some(&next) = fresh[..nf].get(i + 1) {
                    std::hint::black_box(
                        self.vec(vectors, next)
                            .iter()
                            .step_by(16)
                            .fold(0, |a, x| a ^ x.to_bits()),
                    );
                }
                let s = Scored {
                    score: dot(q, self.vec(vectors, n)),
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
        self.visited.lock().push(visited);
        let mut out: Vec<Scored> = best.into_iter().map(|w| w.0 .0).collect();
        out.sort_by(|a, b| b.cmp(a));
        out
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
            *self.entry.write() = Some((s, level));
            return;
        };
        if ep == s {
            return;
        }
        let mut cur = Scored {
            score: dot(q, self.vec(vectors, ep)),
            slot: ep,
        };
        let mut work = 0;
        let mut l = top;
        while l > level {
            cur = self.greedy(vectors, q, cur, l, &mut work);
            l -= 1;
        }
        let mut l = level.min(top);
        loop {
            let mut found = self.search_level(
                vectors,
                q,
                cur,
                self.ef_construction,
                l,
                &|n| n != s,
                &mut work,
            );
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
            if let Some(b) = found.first() {
                cur = *b;
            }
            if l == 0 {
                break;
            }
            l -= 1;
        }
        if level > top {
            let mut e = self.entry.write();
            if e.is_none_or(|(_, t)| level > t) {
                *e = Some((s, level));
            }
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

    /// Top-`ef` candidates for `q` among slots accepted by `allow`, best first; `work` counts
    /// the vectors scored on the way.
    pub(crate) fn search(
        &self,
        vectors: &[f32],
        q: &[f32],
        ef: usize,
        allow: &dyn Fn(u32) -> bool,
        work: &mut u64,
    ) -> Vec<Scored> {
        let Some((ep, top)) = *self.entry.read() else {
            return Vec::new();
        };
        let mut cur = Scored {
            score: dot(q, self.vec(vectors, ep)),
            slot: ep,
        };
        *work += 1;
        for l in (1..=top).rev() {
            cur = self.greedy(vectors, q, cur, l, work);
        }
        self.search_level(vectors, q, cur, ef.max(1), 0, allow, work)
    }

    /// Copies of every slot's links, for persistence.
    pub(crate) fn links_of(&self, s: u32) -> Vec<Vec<u32>> {
        let level = self.levels.get(s as usize).copied().unwrap_or(0);
        (0..=level).map(|l| self.neighbours(s, l)).collect()
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
        if let Some(u) = self.upper.last_mut() {
            *u.get_mut() = links;
        }
    }

    pub(crate) fn set_entry(&mut self, entry: Option<(u32, u8)>) {
        *self.entry.get_mut() = entry;
    }
}
