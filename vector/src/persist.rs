//! The index file: one self-checking blob, written to a temporary name and renamed into place so a
//! crash leaves either the old file or the new one, never half of one. Layout in docs/VECTOR.md.

use super::exact::{Scored, TopK};
use super::{dot, graph::Graph, Hit, HnswParams, Slot, VectorError, VectorIndex};
use cairn_storage_format::{LabelId, NodeId};
use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// File name of the index inside the database directory.
pub const INDEX_FILE_NAME: &str = "vectors.hnsw";
const MAGIC: &[u8; 8] = b"CAIRNVX\0";
const VERSION: u32 = 1;
const NO_ENTRY: u32 = u32::MAX;

/// Where the index of the database in `db_dir` lives.
pub fn index_path(db_dir: &Path) -> PathBuf {
    db_dir.join(INDEX_FILE_NAME)
}

/// What the index was built from. The store passes the current values on load; any difference means
/// the file describes other data and must not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    /// Monotonic count or sequence number of writes to the `vector` column family, as of the save.
    pub seq: u64,
    /// [`cairn_embed::Embedder::id`] of the vectors.
    pub embedder_id: String,
}

impl VectorIndex {
    /// Writes the index to `path` (atomically: temp file, fsync, rename) stamped with `stamp`.
    pub fn save(&self, path: &Path, stamp: &Stamp) -> Result<(), VectorError> {
        let mut b = Vec::with_capacity(
            64 + self.vectors.len() * 4 + self.slots.len() * (16 + 4 * 2 * self.params.m),
        );
        b.extend_from_slice(MAGIC);
        put_u32(&mut b, VERSION);
        put_u32(&mut b, self.dim as u32);
        put_u64(&mut b, stamp.seq);
        put_u32(&mut b, stamp.embedder_id.len() as u32);
        b.extend_from_slice(stamp.embedder_id.as_bytes());
        put_u32(&mut b, self.graph.m as u32);
        put_u32(&mut b, self.params.ef_construction as u32);
        put_u64(&mut b, self.params.seed);
        put_u64(&mut b, self.slots.len() as u64);
        let (entry, entry_level) = self.graph.entry.read().unwrap_or((NO_ENTRY, 0));
        put_u32(&mut b, entry);
        b.push(entry_level);
        for (i, s) in self.slots.iter().enumerate() {
            put_u64(&mut b, s.node.0);
            put_u32(&mut b, s.label.0);
            b.push(u8::from(s.deleted));
            let links = self.graph.links_of(i as u32);
            b.push(links.len().saturating_sub(1) as u8);
            for l in links {
                put_u32(&mut b, l.len() as u32);
                l.iter().for_each(|x| put_u32(&mut b, *x));
            }
        }
        for x in &self.vectors {
            b.extend_from_slice(&x.to_le_bytes());
        }
        let sum = checksum(&b);
        put_u64(&mut b, sum);

        let io = |source| VectorError::Io {
            path: path.to_owned(),
            source,
        };
        let tmp = path.with_extension("hnsw.tmp");
        let written = fs::File::create(&tmp).and_then(|mut f| {
            f.write_all(&b)?;
            cairn_store::failpoint!("vector.save.tmp_written");
            f.sync_all()
        });
        if let Err(e) = written {
            // A full disk must not leave half a file behind (the old index stays in place).
            let _ = fs::remove_file(&tmp);
            return Err(io(e));
        }
        cairn_store::failpoint!("vector.save.before_rename");
        fs::rename(&tmp, path).map_err(io)?;
        cairn_store::failpoint!("vector.save.after_rename");
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            // make the rename itself durable
            if let Ok(d) = fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }

    /// Loads the index at `path` if, and only if, it was saved with `expected` and `dim`. Errors with
    /// [`VectorError::needs_rebuild`] true when the file is missing, stale or damaged. `m`,
    /// `ef_construction` and `seed` come from the file (the graph was built with them); the other
    /// parameters from `params`. The file is read as a stream (checksummed on the way), so the
    /// load holds the index once, not the index and the file's bytes.
    pub fn load(
        path: &Path,
        expected: &Stamp,
        dim: usize,
        params: HnswParams,
    ) -> Result<Self, VectorError> {
        Self::load_covering(path, expected, expected.seq, dim, params)
    }

    /// [`VectorIndex::load`], accepting a file stamped at any `seq` from `oldest` to
    /// `expected.seq`: the writes between them changed no vector, so such a file holds the
    /// current ones (the store's `Graph::vectors_changed_at` is `oldest`).
    pub fn load_covering(
        path: &Path,
        expected: &Stamp,
        oldest: u64,
        dim: usize,
        params: HnswParams,
    ) -> Result<Self, VectorError> {
        let (mut r, h) = Stream::open(path, expected, oldest, dim)?;
        let params = HnswParams {
            m: h.m,
            ef_construction: h.ef_construction,
            seed: h.seed,
            ..params
        };
        let mut graph = Graph::new(dim, h.m, h.ef_construction);
        let mut slots = Vec::with_capacity(h.n);
        let mut live = HashMap::new();
        let mut by_label: HashMap<LabelId, HashSet<u32>> = HashMap::new();
        let mut tombstones = 0;
        for i in 0..h.n as u32 {
            let (slot, links) = r.slot(i, &h, true)?;
            graph.push_loaded(links);
            if slot.deleted {
                tombstones += 1;
            } else if live.insert(slot.node, i).is_some() {
                return Err(r.corrupt(format!("node {} is live twice", slot.node)));
            } else {
                by_label.entry(slot.label).or_default().insert(i);
            }
            slots.push(slot);
        }
        let mut vectors = Vec::with_capacity(h.n * dim);
        r.vectors(dim, h.n * dim, |chunk| vectors.extend_from_slice(chunk))?;
        r.finish()?;
        let entry = match h.entry {
            NO_ENTRY if h.n == 0 => None,
            e if (e as usize) < h.n && graph.levels.get(e as usize) == Some(&h.entry_level) => {
                Some((e, h.entry_level))
            }
            _ => return Err(r.corrupt("bad entry point".into())),
        };
        graph.set_entry(entry);
        Ok(VectorIndex {
            params,
            dim,
            slots,
            vectors,
            graph,
            live,
            by_label,
            tombstones,
            recent: Default::default(),
            scored: Default::default(),
        })
    }

    /// Whether the file at `path` was saved with `expected` (or a `seq` from `oldest`, as
    /// [`VectorIndex::load_covering`]) and `dim`, from its header alone
    /// (the checksum is checked by whoever reads the rest): errors as [`VectorIndex::load`].
    pub fn check_file(
        path: &Path,
        expected: &Stamp,
        oldest: u64,
        dim: usize,
    ) -> Result<(), VectorError> {
        Stream::open(path, expected, oldest, dim).map(|_| ())
    }

    /// Exact top-`k` (among `labels`, if given) of the live vectors of the index file at `path`,
    /// saved with `expected` (or a `seq` from `oldest`) and `dim`, read as a stream without loading the index: what a
    /// one-shot process wants, as it would read the whole file to load it anyway and keeps only
    /// the slots' labels in memory (the links are read for the checksum and dropped). Errors as
    /// [`VectorIndex::load`] does.
    pub fn scan_file(
        path: &Path,
        expected: &Stamp,
        oldest: u64,
        dim: usize,
        query: &[f32],
        k: usize,
        labels: Option<&[LabelId]>,
    ) -> Result<Vec<Hit>, VectorError> {
        let q = super::normalised(dim, query, "query")?;
        let (mut r, h) = Stream::open(path, expected, oldest, dim)?;
        let mut slots = Vec::with_capacity(h.n);
        for i in 0..h.n as u32 {
            slots.push(r.slot(i, &h, false)?.0);
        }
        let wanted = |s: &Slot| !s.deleted && labels.is_none_or(|l| l.contains(&s.label));
        let mut heap = TopK::new(k);
        let mut next = 0usize;
        r.vectors(dim, h.n * dim, |chunk| {
            for v in chunk.chunks_exact(dim) {
                if slots.get(next).is_some_and(wanted) {
                    heap.offer(Scored {
                        score: dot(&q, v),
                        slot: next as u32,
                    });
                }
                next += 1;
            }
        })?;
        r.finish()?;
        Ok(heap
            .into_sorted()
            .into_iter()
            .filter_map(|c| {
                let s = slots.get(c.slot as usize)?;
                Some(Hit {
                    node: s.node,
                    label: s.label,
                    score: c.score,
                })
            })
            .collect())
    }
}

/// The header fields after the stamp.
struct Header {
    m: usize,
    ef_construction: usize,
    seed: u64,
    n: usize,
    entry: u32,
    entry_level: u8,
}

/// Floats converted per read of the vector section.
const CHUNK_FLOATS: usize = 1 << 16;

/// The index file read front to back, checksummed as it goes; the stored checksum (the last 8
/// bytes) is compared by [`Stream::finish`].
struct Stream {
    r: BufReader<fs::File>,
    path: PathBuf,
    sum: Checksum,
    /// Body bytes not read yet.
    left: u64,
}

impl Stream {
    /// Opens the file and reads its header, refusing one saved for other data or for a `seq`
    /// outside `oldest..=expected.seq`.
    fn open(
        path: &Path,
        expected: &Stamp,
        oldest: u64,
        dim: usize,
    ) -> Result<(Stream, Header), VectorError> {
        let io = |source: std::io::Error| match source.kind() {
            std::io::ErrorKind::NotFound => VectorError::Missing(path.to_owned()),
            _ => VectorError::Io {
                path: path.to_owned(),
                source,
            },
        };
        let file = fs::File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let body = len.saturating_sub(8);
        let mut r = Stream {
            r: BufReader::with_capacity(1 << 20, file),
            path: path.to_owned(),
            sum: Checksum::new(body),
            left: body,
        };
        let mut magic = [0u8; 8];
        if len < (MAGIC.len() + 8) as u64 || r.fill(&mut magic).is_err() || &magic != MAGIC {
            return Err(r.corrupt("not a Cairn vector index".into()));
        }
        let stale = |reason: String| VectorError::Stale {
            path: path.to_owned(),
            reason,
        };
        let version = r.u32()?;
        if version != VERSION {
            return Err(stale(format!(
                "format version {version}, this build reads {VERSION}"
            )));
        }
        let file_dim = r.u32()? as usize;
        let seq = r.u64()?;
        let id_len = r.u32()? as usize;
        if id_len as u64 > r.left {
            return Err(r.corrupt("ends early".into()));
        }
        let mut id = vec![0u8; id_len];
        r.fill(&mut id)?;
        let id = String::from_utf8(id).map_err(|_| r.corrupt("embedder id is not UTF-8".into()))?;
        if file_dim != dim {
            return Err(stale(format!("dimension {file_dim}, expected {dim}")));
        }
        if id != expected.embedder_id {
            return Err(stale(format!(
                "embedder {id:?}, expected {:?}",
                expected.embedder_id
            )));
        }
        if seq < oldest || seq > expected.seq {
            return Err(stale(if oldest == expected.seq {
                format!("stamp {seq}, expected {}", expected.seq)
            } else {
                format!("stamp {seq}, expected {oldest} to {}", expected.seq)
            }));
        }
        let m = r.u32()? as usize;
        let ef_construction = r.u32()? as usize;
        let seed = r.u64()?;
        let n = usize::try_from(r.u64()?).map_err(|_| r.corrupt("ends early".into()))?;
        if !(2..=32).contains(&m)
            || ef_construction > 100_000
            || n > u32::MAX as usize
            || n.saturating_mul(dim.saturating_mul(4)) as u64 > body
        {
            return Err(r.corrupt(format!("implausible header (m {m}, {n} slots)")));
        }
        let entry = r.u32()?;
        let entry_level = r.u8()?;
        let header = Header {
            m,
            ef_construction,
            seed,
            n,
            entry,
            entry_level,
        };
        Ok((r, header))
    }

    fn corrupt(&self, reason: String) -> VectorError {
        VectorError::Corrupt {
            path: self.path.clone(),
            reason,
        }
    }

    /// Reads exactly `buf.len()` body bytes.
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), VectorError> {
        if buf.len() as u64 > self.left {
            return Err(self.corrupt("ends early".into()));
        }
        self.r.read_exact(buf).map_err(|source| VectorError::Io {
            path: self.path.clone(),
            source,
        })?;
        self.sum.update(buf);
        self.left -= buf.len() as u64;
        Ok(())
    }

    fn u8(&mut self) -> Result<u8, VectorError> {
        let mut b = [0u8; 1];
        self.fill(&mut b)?;
        Ok(b[0])
    }

    fn u32(&mut self) -> Result<u32, VectorError> {
        let mut b = [0u8; 4];
        self.fill(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn u64(&mut self) -> Result<u64, VectorError> {
        let mut b = [0u8; 8];
        self.fill(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    /// Slot `i`'s record and, when `keep` is set, its links per level (else none).
    fn slot(
        &mut self,
        i: u32,
        h: &Header,
        keep: bool,
    ) -> Result<(Slot, Vec<Vec<u32>>), VectorError> {
        let node = NodeId(self.u64()?);
        let label = LabelId(self.u32()?);
        let deleted = self.u8()? != 0;
        let level = self.u8()?;
        if level > 12 {
            return Err(self.corrupt(format!("slot {i} has level {level}")));
        }
        let mut links = Vec::with_capacity(if keep { usize::from(level) + 1 } else { 0 });
        let mut raw = [0u8; 4 * 64];
        for l in 0..=level {
            let count = self.u32()? as usize;
            let max = if l == 0 { 2 * h.m } else { h.m };
            if count > max {
                return Err(self.corrupt(format!("slot {i} has {count} links on level {l}")));
            }
            let bytes = &mut raw[..count * 4];
            self.fill(bytes)?;
            let ls: Vec<u32> = bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            if let Some(x) = ls.iter().find(|x| **x as usize >= h.n) {
                return Err(self.corrupt(format!("slot {i} links to missing slot {x}")));
            }
            if keep {
                links.push(ls);
            }
        }
        Ok((
            Slot {
                node,
                label,
                deleted,
            },
            links,
        ))
    }

    /// Reads the `count` floats of the vector section, handing them over in chunks of whole
    /// `dim`-float vectors.
    fn vectors(
        &mut self,
        dim: usize,
        count: usize,
        mut each: impl FnMut(&[f32]),
    ) -> Result<(), VectorError> {
        let chunk = ((CHUNK_FLOATS / dim.max(1)).max(1) * dim).min(count);
        let mut raw = vec![0u8; chunk * 4];
        let mut floats = Vec::with_capacity(chunk);
        let mut left = count;
        while left > 0 {
            let take = left.min(chunk);
            let bytes = &mut raw[..take * 4];
            self.fill(bytes)?;
            floats.clear();
            floats.extend(
                bytes
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            );
            each(&floats);
            left -= take;
        }
        Ok(())
    }

    /// Checks that the body is used up and matches the stored checksum.
    fn finish(&mut self) -> Result<(), VectorError> {
        if self.left != 0 {
            return Err(self.corrupt("trailing bytes".into()));
        }
        let mut tail = [0u8; 8];
        self.r
            .read_exact(&mut tail)
            .map_err(|_| self.corrupt("ends early".into()))?;
        if self.sum.value() != u64::from_le_bytes(tail) {
            return Err(self.corrupt("checksum mismatch (truncated or overwritten)".into()));
        }
        Ok(())
    }
}

fn put_u32(b: &mut Vec<u8>, x: u32) {
    b.extend_from_slice(&x.to_le_bytes());
}

fn put_u64(b: &mut Vec<u8>, x: u64) {
    b.extend_from_slice(&x.to_le_bytes());
}

/// 64-bit checksum over 8-byte words (multiply-rotate mixing): catches truncation and torn or stray
/// writes; not a defence against deliberate tampering.
fn checksum(b: &[u8]) -> u64 {
    let mut sum = Checksum::new(b.len() as u64);
    sum.update(b);
    sum.value()
}

/// [`checksum`] computed over a body of known length given in pieces of any size.
#[derive(Clone, Copy)]
struct Checksum {
    h: u64,
    /// The bytes of a word not complete yet.
    partial: [u8; 8],
    filled: usize,
}

const K: u64 = 0x9e37_79b9_7f4a_7c15;

impl Checksum {
    fn new(len: u64) -> Self {
        Checksum {
            h: 0x2545_f491_4f6c_dd1d ^ len.wrapping_mul(K),
            partial: [0; 8],
            filled: 0,
        }
    }

    fn word(&mut self, x: u64) {
        self.h = (self.h ^ x).wrapping_mul(K).rotate_left(31);
    }

    fn update(&mut self, mut b: &[u8]) {
        if self.filled > 0 {
            let take = (8 - self.filled).min(b.len());
            self.partial[self.filled..self.filled + take].copy_from_slice(&b[..take]);
            self.filled += take;
            b = &b[take..];
            if self.filled < 8 {
                return;
            }
            self.word(u64::from_le_bytes(self.partial));
            self.filled = 0;
        }
        let mut words = b.chunks_exact(8);
        for w in &mut words {
            self.word(u64::from_le_bytes([
                w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7],
            ]));
        }
        let rest = words.remainder();
        self.partial[..rest.len()].copy_from_slice(rest);
        self.filled = rest.len();
    }

    /// The checksum of everything given so far (as the whole body).
    fn value(&self) -> u64 {
        // the bytes after the last whole word are mixed in one at a time
        let mut end = *self;
        for i in 0..self.filled {
            end.word(u64::from(self.partial[i]));
        }
        end.h ^ (end.h >> 29)
    }
}
