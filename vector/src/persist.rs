//! The index file: one self-checking blob, written to a temporary name and renamed into place so a
//! crash leaves either the old file or the new one, never half of one. Layout in docs/VECTOR.md.

use super::{graph::Graph, HnswParams, Slot, VectorError, VectorIndex};
use cairn_storage_format::{LabelId, NodeId};
use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::Write;
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
    /// parameters from `params`.
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
        let bytes = match fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(VectorError::Missing(path.to_owned()))
            }
            Err(source) => {
                return Err(VectorError::Io {
                    path: path.to_owned(),
                    source,
                })
            }
        };
        let corrupt = |reason: String| VectorError::Corrupt {
            path: path.to_owned(),
            reason,
        };
        let stale = |reason: String| VectorError::Stale {
            path: path.to_owned(),
            reason,
        };
        if bytes.len() < MAGIC.len() + 8 || &bytes[..MAGIC.len()] != MAGIC {
            return Err(corrupt("not a Cairn vector index".into()));
        }
        let (body, tail) = bytes.split_at(bytes.len() - 8);
        let stored = u64::from_le_bytes(tail.try_into().map_err(|_| corrupt("short".into()))?);
        if checksum(body) != stored {
            return Err(corrupt(
                "checksum mismatch (truncated or overwritten)".into(),
            ));
        }
        let mut r = Reader {
            b: body,
            at: MAGIC.len(),
        };
        let short = || corrupt("ends early".into());
        let version = r.u32().ok_or_else(short)?;
        if version != VERSION {
            return Err(stale(format!(
                "format version {version}, this build reads {VERSION}"
            )));
        }
        let file_dim = r.u32().ok_or_else(short)? as usize;
        let seq = r.u64().ok_or_else(short)?;
        let id_len = r.u32().ok_or_else(short)? as usize;
        let id = String::from_utf8(r.bytes(id_len).ok_or_else(short)?.to_vec())
            .map_err(|_| corrupt("embedder id is not UTF-8".into()))?;
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
        let m = r.u32().ok_or_else(short)? as usize;
        let ef_construction = r.u32().ok_or_else(short)? as usize;
        let seed = r.u64().ok_or_else(short)?;
        let n = usize::try_from(r.u64().ok_or_else(short)?).map_err(|_| short())?;
        if !(2..=32).contains(&m)
            || ef_construction > 100_000
            || n > u32::MAX as usize
            || n.saturating_mul(dim.saturating_mul(4)) > body.len()
        {
            return Err(corrupt(format!("implausible header (m {m}, {n} slots)")));
        }
        let entry = r.u32().ok_or_else(short)?;
        let entry_level = r.u8().ok_or_else(short)?;
        let params = HnswParams {
            m,
            ef_construction,
            seed,
            ..params
        };
        let mut graph = Graph::new(dim, m, ef_construction);
        let mut slots = Vec::with_capacity(n);
        let mut live = HashMap::new();
        let mut by_label: HashMap<LabelId, HashSet<u32>> = HashMap::new();
        let mut tombstones = 0;
        for i in 0..n as u32 {
            let node = NodeId(r.u64().ok_or_else(short)?);
            let label = LabelId(r.u32().ok_or_else(short)?);
            let deleted = r.u8().ok_or_else(short)? != 0;
            let level = r.u8().ok_or_else(short)?;
            if level > 12 {
                return Err(corrupt(format!("slot {i} has level {level}")));
            }
            let mut links = Vec::with_capacity(usize::from(level) + 1);
            for l in 0..=level {
                let count = r.u32().ok_or_else(short)? as usize;
                let max = if l == 0 { 2 * m } else { m };
                if count > max {
                    return Err(corrupt(format!("slot {i} has {count} links on level {l}")));
                }
                let mut ls = Vec::with_capacity(count);
                for _ in 0..count {
                    let x = r.u32().ok_or_else(short)?;
                    if x as usize >= n {
                        return Err(corrupt(format!("slot {i} links to missing slot {x}")));
                    }
                    ls.push(x);
                }
                links.push(ls);
            }
            graph.push_loaded(links);
            if deleted {
                tombstones += 1;
            } else if live.insert(node, i).is_some() {
                return Err(corrupt(format!("node {node} is live twice")));
            } else {
                by_label.entry(label).or_default().insert(i);
            }
            slots.push(Slot {
                node,
                label,
                deleted,
            });
        }
        let mut vectors = Vec::with_capacity(n * dim);
        let raw = r.bytes(n * dim * 4).ok_or_else(short)?;
        vectors.extend(
            raw.chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        );
        if r.at != body.len() {
            return Err(corrupt("trailing bytes".into()));
        }
        let entry = match entry {
            NO_ENTRY if n == 0 => None,
            e if (e as usize) < n && graph.levels.get(e as usize) == Some(&entry_level) => {
                Some((e, entry_level))
            }
            _ => return Err(corrupt("bad entry point".into())),
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
        })
    }
}

fn put_u32(b: &mut Vec<u8>, x: u32) {
    b.extend_from_slice(&x.to_le_bytes());
}

fn put_u64(b: &mut Vec<u8>, x: u64) {
    b.extend_from_slice(&x.to_le_bytes());
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        self.bytes(1).map(|s| s[0])
    }
    fn u32(&mut self) -> Option<u32> {
        self.bytes(4)
            .and_then(|s| s.try_into().ok())
            .map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.bytes(8)
            .and_then(|s| s.try_into().ok())
            .map(u64::from_le_bytes)
    }
}

/// 64-bit checksum over 8-byte words (multiply-rotate mixing): catches truncation and torn or stray
/// writes; not a defence against deliberate tampering.
fn checksum(b: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h: u64 = 0x2545_f491_4f6c_dd1d ^ (b.len() as u64).wrapping_mul(K);
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        let x = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        h = (h ^ x).wrapping_mul(K).rotate_left(31);
    }
    for &x in words.remainder() {
        h = (h ^ u64::from(x)).wrapping_mul(K).rotate_left(31);
    }
    h ^ (h >> 29)
}
