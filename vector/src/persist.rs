//! The index file, written to a temporary name and renamed into place so a crash leaves either
//! the old file or the new one, never half of one. Layout in docs/VECTOR.md ("The index file").
//!
//! Format 2 is read in part: fixed offsets, the small sections (header, slots, upper levels,
//! block checksums) checksummed whole on open, the level-0 links and the vectors checksummed
//! per block and verified on a block's first read. A one-shot process walks the graph on the
//! file ([`FileIndex`]) and reads only the blocks the walk touches. Positioned reads rather
//! than a memory map: the workspace forbids `unsafe`, which mapping a file needs (and a block
//! cache of verified, decoded blocks is what the walk wants anyway). Format 1 files (one
//! stream, one checksum) are still loaded whole, and a writer saves them again as format 2.

use super::exact::{Scored, TopK};
use super::graph::{self, Graph, Scratch, Walk};
use super::{answer, dot, Hit, HnswParams, Slot, Slots, VectorError, VectorIndex};
use cairn_storage_format::{LabelId, NodeId};
use parking_lot::Mutex;
use std::fs;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// File name of the index inside the database directory.
pub const INDEX_FILE_NAME: &str = "vectors.hnsw";
const MAGIC: &[u8; 8] = b"CAIRNVX\0";
/// The format the v1 stream reader below reads (loaded whole, re-saved as v2 by a writer).
const V1: u32 = 1;
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
        let version = r.u32()?;
        if version != V1 {
            return Err(VectorError::Stale {
                path: path.to_owned(),
                reason: format!("format version {version}, this reader reads {V1}"),
            });
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
        check_stamp(path, file_dim, seq, &id, expected, oldest, dim)?;
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

    /// Slot `i`'s record and its links per level.
    fn slot(&mut self, i: u32, h: &Header) -> Result<(Slot, Vec<Vec<u32>>), VectorError> {
        let node = NodeId(self.u64()?);
        let label = LabelId(self.u32()?);
        let deleted = self.u8()? != 0;
        let level = self.u8()?;
        if level > 12 {
            return Err(self.corrupt(format!("slot {i} has level {level}")));
        }
        let mut links = Vec::with_capacity(usize::from(level) + 1);
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
            links.push(ls);
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

/// The file format this build writes.
pub const FORMAT_VERSION: u32 = 2;
/// Bytes per checksummed block of the large sections (rounded down to whole rows).
const BLOCK_BYTES: usize = 16 << 10;
/// Fixed header bytes before the embedder id.
const HEADER_BYTES: u64 = 144;
/// Bytes per slot record: node u64, label u32, deleted u8, level u8, 2 zero bytes.
const SLOT_BYTES: u64 = 16;
/// Slot records a walk reads at a time (16 KiB).
const SLOT_ROWS: usize = 1024;
/// The large sections start on a page boundary.
const PAGE: u64 = 4096;

fn align(x: u64, to: u64) -> u64 {
    x.div_ceil(to) * to
}

/// Refuses a file saved for other data: another dimension, embedder, or a `seq` outside
/// `oldest..=expected.seq`.
fn check_stamp(
    path: &Path,
    file_dim: usize,
    seq: u64,
    id: &str,
    expected: &Stamp,
    oldest: u64,
    dim: usize,
) -> Result<(), VectorError> {
    let stale = |reason: String| {
        Err(VectorError::Stale {
            path: path.to_owned(),
            reason,
        })
    };
    if file_dim != dim {
        return stale(format!("dimension {file_dim}, expected {dim}"));
    }
    if id != expected.embedder_id {
        return stale(format!(
            "embedder {id:?}, expected {:?}",
            expected.embedder_id
        ));
    }
    if seq < oldest || seq > expected.seq {
        return stale(if oldest == expected.seq {
            format!("stamp {seq}, expected {}", expected.seq)
        } else {
            format!("stamp {seq}, expected {oldest} to {}", expected.seq)
        });
    }
    Ok(())
}

/// Where everything is in a format-2 file, computed from the counts alone (the writer and the
/// reader share this; the reader also checks the offsets stored in the header against it).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Layout {
    dim: usize,
    m: usize,
    n: usize,
    /// Rows of the upper-level section (one per slot and level above 0).
    upper_rows: usize,
    id_len: usize,
    /// Rows per checksummed block, level-0 links and vectors.
    link_rows: usize,
    vec_rows: usize,
    slots_off: u64,
    upper_start_off: u64,
    upper_off: u64,
    sums_off: u64,
    links0_off: u64,
    vectors_off: u64,
    /// Where the checksum of the small sections (`0..links0_off`) is: the file's last 8 bytes.
    footer_off: u64,
}

impl Layout {
    fn new(dim: usize, m: usize, n: usize, upper_rows: usize, id_len: usize) -> Layout {
        let stride0 = (1 + 2 * m) as u64 * 4;
        let row = dim as u64 * 4;
        let link_rows = (BLOCK_BYTES as u64 / stride0).max(1) as usize;
        let vec_rows = (BLOCK_BYTES as u64 / row.max(1)).max(1) as usize;
        let n64 = n as u64;
        let slots_off = align(HEADER_BYTES + id_len as u64, 8);
        let upper_start_off = slots_off + SLOT_BYTES * n64;
        let upper_off = align(upper_start_off + 4 * (n64 + 1), 8);
        let sums_off = align(upper_off + 4 * upper_rows as u64 * (1 + m as u64), 8);
        let blocks = n.div_ceil(link_rows) + n.div_ceil(vec_rows);
        let links0_off = align(sums_off + 8 * blocks as u64, PAGE);
        let vectors_off = align(links0_off + stride0 * n64, PAGE);
        Layout {
            dim,
            m,
            n,
            upper_rows,
            id_len,
            link_rows,
            vec_rows,
            slots_off,
            upper_start_off,
            upper_off,
            sums_off,
            links0_off,
            vectors_off,
            footer_off: vectors_off + row * n64,
        }
    }

    /// Words per level-0 row: the count, then up to `2m` links.
    fn stride0(&self) -> usize {
        1 + 2 * self.m
    }

    fn link_blocks(&self) -> usize {
        self.n.div_ceil(self.link_rows)
    }

    fn vec_blocks(&self) -> usize {
        self.n.div_ceil(self.vec_rows)
    }

    /// Byte range of block `b` of a section of `rows`-row blocks of `row_bytes` each.
    fn block_range(&self, off: u64, rows: usize, row_bytes: usize, b: usize) -> (u64, usize) {
        let first = b * rows;
        let count = rows.min(self.n.saturating_sub(first));
        (off + (first * row_bytes) as u64, count * row_bytes)
    }

    fn link_block(&self, b: usize) -> (u64, usize) {
        self.block_range(self.links0_off, self.link_rows, self.stride0() * 4, b)
    }

    fn vec_block(&self, b: usize) -> (u64, usize) {
        self.block_range(self.vectors_off, self.vec_rows, self.dim * 4, b)
    }
}

impl VectorIndex {
    /// Writes the index to `path` in format 2 (atomically: temp file, fsync, rename) stamped
    /// with `stamp`. Streams the large sections, so a save holds no copy of the vectors.
    pub fn save(&self, path: &Path, stamp: &Stamp) -> Result<(), VectorError> {
        let io = |source| VectorError::Io {
            path: path.to_owned(),
            source,
        };
        let tmp = path.with_extension("hnsw.tmp");
        let written = fs::File::create(&tmp).and_then(|f| {
            let mut w = BufWriter::with_capacity(1 << 20, f);
            self.write_v2(&mut w, stamp)?;
            cairn_store::failpoint!("vector.save.tmp_written");
            w.into_inner().map_err(|e| e.into_error())?.sync_all()
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

    /// The large sections first (their block checksums go into the small ones), then the
    /// small sections and their checksum.
    fn write_v2(&self, w: &mut BufWriter<fs::File>, stamp: &Stamp) -> std::io::Result<()> {
        let n = self.slots.len();
        let m = self.graph.m;
        let levels = &self.graph.levels;
        let upper_rows: usize = levels.iter().map(|l| usize::from(*l)).sum();
        let lay = Layout::new(self.dim, m, n, upper_rows, stamp.embedder_id.len());
        let mut sums = Vec::with_capacity(lay.link_blocks() + lay.vec_blocks());
        let mut block = Vec::with_capacity(BLOCK_BYTES + 4096);
        w.seek(SeekFrom::Start(lay.links0_off))?;
        for b in 0..lay.link_blocks() {
            block.clear();
            let first = b * lay.link_rows;
            for s in first..(first + lay.link_rows).min(n) {
                let l0 = self.graph.links_of_level(s as u32, 0);
                let row_start = block.len();
                put_u32(&mut block, l0.len() as u32);
                l0.iter().for_each(|x| put_u32(&mut block, *x));
                block.resize(row_start + lay.stride0() * 4, 0);
            }
            sums.push(checksum(&block));
            w.write_all(&block)?;
        }
        w.seek(SeekFrom::Start(lay.vectors_off))?;
        for b in 0..lay.vec_blocks() {
            block.clear();
            let first = b * lay.vec_rows * self.dim;
            let end = ((b + 1) * lay.vec_rows * self.dim).min(self.vectors.len());
            for x in self.vectors.get(first..end).unwrap_or(&[]) {
                block.extend_from_slice(&x.to_le_bytes());
            }
            sums.push(checksum(&block));
            w.write_all(&block)?;
        }
        let mut small = Vec::with_capacity(lay.links0_off as usize);
        small.extend_from_slice(MAGIC);
        put_u32(&mut small, FORMAT_VERSION);
        put_u32(&mut small, self.dim as u32);
        put_u64(&mut small, stamp.seq);
        put_u32(&mut small, m as u32);
        put_u32(&mut small, self.params.ef_construction as u32);
        put_u64(&mut small, self.params.seed);
        put_u64(&mut small, n as u64);
        let (entry, entry_level) = self.graph.entry.read().unwrap_or((NO_ENTRY, 0));
        put_u32(&mut small, entry);
        small.extend_from_slice(&[entry_level, 0, 0, 0]);
        put_u32(&mut small, BLOCK_BYTES as u32);
        put_u32(&mut small, lay.link_rows as u32);
        put_u32(&mut small, lay.vec_rows as u32);
        put_u32(&mut small, 0);
        for off in [
            lay.slots_off,
            lay.upper_start_off,
            lay.upper_off,
            lay.upper_rows as u64,
            lay.sums_off,
            lay.links0_off,
            lay.vectors_off,
            lay.footer_off + 8,
        ] {
            put_u64(&mut small, off);
        }
        put_u32(&mut small, lay.id_len as u32);
        put_u32(&mut small, 0);
        debug_assert_eq!(small.len() as u64, HEADER_BYTES);
        small.extend_from_slice(stamp.embedder_id.as_bytes());
        small.resize(lay.slots_off as usize, 0);
        for (s, level) in self.slots.iter().zip(levels) {
            put_u64(&mut small, s.node.0);
            put_u32(&mut small, s.label.0);
            small.extend_from_slice(&[u8::from(s.deleted), *level, 0, 0]);
        }
        let mut row = 0u32;
        for level in levels {
            put_u32(&mut small, row);
            row += u32::from(*level);
        }
        put_u32(&mut small, row);
        small.resize(lay.upper_off as usize, 0);
        for (s, level) in levels.iter().enumerate() {
            for l in 1..=*level {
                let links = self.graph.links_of_level(s as u32, l);
                put_u32(&mut small, links.len() as u32);
                links.iter().take(m).for_each(|x| put_u32(&mut small, *x));
                for _ in links.len().min(m)..m {
                    put_u32(&mut small, 0);
                }
            }
        }
        small.resize(lay.sums_off as usize, 0);
        sums.iter().for_each(|x| put_u64(&mut small, *x));
        small.resize(lay.links0_off as usize, 0);
        let small_sum = checksum(&small);
        w.seek(SeekFrom::Start(0))?;
        w.write_all(&small)?;
        w.seek(SeekFrom::Start(lay.footer_off))?;
        w.write_all(&small_sum.to_le_bytes())?;
        w.flush()
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
        Self::load_any(path, expected, oldest, dim, params).map(|(idx, _)| idx)
    }

    /// [`VectorIndex::load_covering`] of a file of either format; also says which.
    pub(crate) fn load_any(
        path: &Path,
        expected: &Stamp,
        oldest: u64,
        dim: usize,
        params: HnswParams,
    ) -> Result<(Self, u32), VectorError> {
        match file_version(path)? {
            V1 => load_v1(path, expected, oldest, dim, params).map(|i| (i, V1)),
            _ => {
                let f = FileIndex::open(path, expected, oldest, dim)?;
                f.into_index(params).map(|i| (i, FORMAT_VERSION))
            }
        }
    }

    /// Whether the file at `path` was saved with `expected` (or a `seq` from `oldest`, as
    /// [`VectorIndex::load_covering`]) and `dim`, from its header alone (the checksums are
    /// checked by whoever reads the rest): errors as [`VectorIndex::load`]. Returns the
    /// file's format version.
    pub fn check_file(
        path: &Path,
        expected: &Stamp,
        oldest: u64,
        dim: usize,
    ) -> Result<u32, VectorError> {
        match file_version(path)? {
            V1 => Stream::open(path, expected, oldest, dim).map(|_| V1),
            _ => {
                read_header(&open_file(path)?, path, expected, oldest, dim).map(|_| FORMAT_VERSION)
            }
        }
    }
}

/// The stamp's `seq` of the index file at `path` (either format: both keep it at byte 16),
/// without checking anything else; the store asks it to know which commits to replay.
pub fn file_seq(path: &Path) -> Result<u64, VectorError> {
    file_version(path)?;
    let mut seq = [0u8; 8];
    open_file(path)?
        .read_exact_at(&mut seq, 16)
        .map_err(|_| VectorError::Corrupt {
            path: path.to_owned(),
            reason: "ends inside the header".into(),
        })?;
    Ok(u64::from_le_bytes(seq))
}

fn open_file(path: &Path) -> Result<fs::File, VectorError> {
    fs::File::open(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => VectorError::Missing(path.to_owned()),
        _ => VectorError::Io {
            path: path.to_owned(),
            source,
        },
    })
}

/// The format version of the index file at `path`: 1 or [`FORMAT_VERSION`]; any other is
/// refused as stale (a newer build's file), a file that is not an index as damaged.
fn file_version(path: &Path) -> Result<u32, VectorError> {
    let f = open_file(path)?;
    let mut head = [0u8; 12];
    if f.read_exact_at(&mut head, 0).is_err() || &head[..8] != MAGIC {
        return Err(VectorError::Corrupt {
            path: path.to_owned(),
            reason: "not a Cairn vector index".into(),
        });
    }
    match u32::from_le_bytes([head[8], head[9], head[10], head[11]]) {
        v @ (V1 | FORMAT_VERSION) => Ok(v),
        v => Err(VectorError::Stale {
            path: path.to_owned(),
            reason: format!("format version {v}, this build reads 1 and {FORMAT_VERSION}"),
        }),
    }
}

/// Little-endian fields read from a byte slice; a short slice reads as damage.
struct Fields<'a> {
    b: &'a [u8],
    at: usize,
}

impl Fields<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let out = self.b.get(self.at..self.at + N)?.try_into().ok()?;
        self.at += N;
        Some(out)
    }
    fn u32(&mut self) -> Option<u32> {
        self.take::<4>().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take::<8>().map(u64::from_le_bytes)
    }
}

/// A format-2 header's own fields.
struct HeaderV2 {
    lay: Layout,
    ef_construction: usize,
    seed: u64,
    entry: u32,
    entry_level: u8,
}

/// Reads and checks a format-2 header: the stamp (stale), then that every offset is the one
/// the counts give and the file has the length they give (damaged otherwise).
fn read_header(
    f: &fs::File,
    path: &Path,
    expected: &Stamp,
    oldest: u64,
    dim: usize,
) -> Result<HeaderV2, VectorError> {
    let corrupt = |reason: &str| VectorError::Corrupt {
        path: path.to_owned(),
        reason: reason.to_owned(),
    };
    let mut head = [0u8; HEADER_BYTES as usize];
    f.read_exact_at(&mut head, 0)
        .map_err(|_| corrupt("ends inside the header"))?;
    let mut r = Fields { b: &head, at: 12 };
    let bad = || corrupt("ends inside the header");
    let file_dim = r.u32().ok_or_else(bad)? as usize;
    let seq = r.u64().ok_or_else(bad)?;
    let m = r.u32().ok_or_else(bad)? as usize;
    let ef_construction = r.u32().ok_or_else(bad)? as usize;
    let seed = r.u64().ok_or_else(bad)?;
    let n = r.u64().ok_or_else(bad)?;
    let entry = r.u32().ok_or_else(bad)?;
    let entry_level = r.take::<4>().ok_or_else(bad)?[0];
    let block_bytes = r.u32().ok_or_else(bad)?;
    let (link_rows, vec_rows, _) = (
        r.u32().ok_or_else(bad)?,
        r.u32().ok_or_else(bad)?,
        r.u32().ok_or_else(bad)?,
    );
    let mut offs = [0u64; 8];
    for o in &mut offs {
        *o = r.u64().ok_or_else(bad)?;
    }
    let id_len = r.u32().ok_or_else(bad)? as usize;
    if id_len > 4096 {
        return Err(corrupt("implausible embedder id length"));
    }
    let mut id = vec![0u8; id_len];
    f.read_exact_at(&mut id, HEADER_BYTES)
        .map_err(|_| corrupt("ends inside the header"))?;
    let id = String::from_utf8(id).map_err(|_| corrupt("embedder id is not UTF-8"))?;
    check_stamp(path, file_dim, seq, &id, expected, oldest, dim)?;
    let len = f
        .metadata()
        .map_err(|source| VectorError::Io {
            path: path.to_owned(),
            source,
        })?
        .len();
    if !(2..=32).contains(&m) || n > u64::from(u32::MAX) || ef_construction > 100_000 {
        return Err(corrupt(&format!("implausible header (m {m}, {n} slots)")));
    }
    let upper_rows = offs[3];
    if upper_rows > n.saturating_mul(12) {
        return Err(corrupt("implausible upper-level row count"));
    }
    let lay = Layout::new(dim, m, n as usize, upper_rows as usize, id_len);
    let stored = [
        lay.slots_off,
        lay.upper_start_off,
        lay.upper_off,
        upper_rows,
        lay.sums_off,
        lay.links0_off,
        lay.vectors_off,
        lay.footer_off + 8,
    ];
    if offs != stored
        || block_bytes as usize != BLOCK_BYTES
        || link_rows as usize != lay.link_rows
        || vec_rows as usize != lay.vec_rows
    {
        return Err(corrupt("section offsets do not match the counts"));
    }
    if len != lay.footer_off + 8 {
        return Err(corrupt(&format!(
            "{len} bytes, the header gives {}",
            lay.footer_off + 8
        )));
    }
    Ok(HeaderV2 {
        lay,
        ef_construction,
        seed,
        entry,
        entry_level,
    })
}

/// A format-2 index file open for searching in place: the small sections in memory (checked
/// whole on open), level-0 links and vectors read a block at a time on first touch, checked
/// against the block's checksum and kept decoded. A one-shot SEARCH at 1M nodes reads a few
/// thousand 16 KiB blocks of the file's 1.6 GB.
#[derive(Debug)]
pub struct FileIndex {
    path: PathBuf,
    file: fs::File,
    lay: Layout,
    params: HnswParams,
    /// Slot records, [`SLOT_ROWS`] a block, read on first touch.
    slot_blocks: Vec<OnceLock<Box<[Slot]>>>,
    /// First upper-level row of each slot (`n + 1` entries).
    upper_start: Vec<u32>,
    /// Upper-level rows, `1 + m` words each (count, links).
    upper: Vec<u32>,
    link_sums: Vec<u64>,
    vec_sums: Vec<u64>,
    link_blocks: Vec<OnceLock<Box<[u32]>>>,
    vec_blocks: Vec<OnceLock<Box<[f32]>>>,
    entry: Option<(u32, u8)>,
    live: usize,
    /// Live slots per label.
    by_label: Vec<(LabelId, usize)>,
    /// The first block found damaged during a walk (the walk itself cannot fail).
    damage: Mutex<Option<VectorError>>,
    scratch: Mutex<Vec<Scratch>>,
}

impl FileIndex {
    /// Opens the format-2 file at `path` saved with `expected` (or a `seq` from `oldest`) and
    /// `dim`, reading and checking its small sections. Errors as [`VectorIndex::load`].
    pub fn open(
        path: &Path,
        expected: &Stamp,
        oldest: u64,
        dim: usize,
    ) -> Result<FileIndex, VectorError> {
        if file_version(path)? != FORMAT_VERSION {
            return Err(VectorError::Stale {
                path: path.to_owned(),
                reason: format!(
                    "format version 1, searched in place only from version {FORMAT_VERSION}"
                ),
            });
        }
        let file = open_file(path)?;
        let h = read_header(&file, path, expected, oldest, dim)?;
        let lay = h.lay;
        let corrupt = |reason: String| VectorError::Corrupt {
            path: path.to_owned(),
            reason,
        };
        let io = |source| VectorError::Io {
            path: path.to_owned(),
            source,
        };
        // The header and slot table are streamed through the checksum (the slots are read
        // again, a block at a time, as a walk touches them: the file is never written in
        // place, and this handle keeps the inode it checked); the rest of the small sections
        // is kept. At 1M nodes that keeps ~9 MB of the 25 MB instead of decoding all of it.
        let n = lay.n;
        let mut sum = Checksum::new(lay.links0_off);
        let mut levels = Vec::with_capacity(n);
        // Few labels: a list beats hashing a million times. Whether a node is live twice is
        // left to a full load (`from_parts`): a walk would only show it twice.
        let mut by_label: Vec<(LabelId, usize)> = Vec::new();
        let mut live = 0;
        // 64 KiB: the tests' 5,000-slot files cross a chunk boundary
        const CHUNK: u64 = SLOT_BYTES * SLOT_ROWS as u64 * 4;
        let mut chunk = Vec::new();
        let mut at = 0u64;
        while at < lay.upper_start_off {
            // chunks end on record boundaries: the first one also holds the header
            let want = if at == 0 { lay.slots_off } else { 0 } + CHUNK;
            let len = want.min(lay.upper_start_off - at) as usize;
            if chunk.len() < len {
                chunk.resize(len, 0);
            }
            let buf = &mut chunk[..len];
            file.read_exact_at(buf, at).map_err(io)?;
            sum.update(buf);
            // slot records wholly inside this chunk (the first chunk starts with the header)
            let first = at.max(lay.slots_off);
            let records = &buf[(first - at) as usize..];
            for rec in records.chunks_exact(SLOT_BYTES as usize) {
                let (label, deleted, level) = (
                    LabelId(u32::from_le_bytes([rec[8], rec[9], rec[10], rec[11]])),
                    rec[12] != 0,
                    rec[13],
                );
                if level > 12 {
                    return Err(corrupt(format!("slot {} has level {level}", levels.len())));
                }
                levels.push(level);
                if !deleted {
                    live += 1;
                    match by_label.iter_mut().find(|(l, _)| *l == label) {
                        Some((_, c)) => *c += 1,
                        None => by_label.push((label, 1)),
                    }
                }
            }
            at += len as u64;
        }
        let mut small = vec![0u8; (lay.links0_off - lay.upper_start_off) as usize];
        file.read_exact_at(&mut small, lay.upper_start_off)
            .map_err(io)?;
        sum.update(&small);
        let mut tail = [0u8; 8];
        file.read_exact_at(&mut tail, lay.footer_off)
            .map_err(|_| corrupt("ends early".into()))?;
        if levels.len() != n {
            return Err(corrupt(format!(
                "{} slot records, the header gives {n}",
                levels.len()
            )));
        }
        if sum.value() != u64::from_le_bytes(tail) {
            return Err(corrupt(
                "checksum mismatch in the header, slots or upper levels".into(),
            ));
        }
        let base = lay.upper_start_off as usize;
        let mut r = Fields { b: &small, at: 0 };
        let short = || corrupt("ends early".into());
        let mut upper_start = Vec::with_capacity(n + 1);
        for _ in 0..=n {
            upper_start.push(r.u32().ok_or_else(short)?);
        }
        let starts_ok = upper_start.first() == Some(&0)
            && upper_start.last().map(|x| *x as usize) == Some(lay.upper_rows)
            && levels
                .iter()
                .zip(upper_start.windows(2))
                .all(|(l, w)| w[1].checked_sub(w[0]) == Some(u32::from(*l)));
        if !starts_ok {
            return Err(corrupt(
                "upper-level offsets do not match the levels".into(),
            ));
        }
        r.at = lay.upper_off as usize - base;
        let words = lay.upper_rows * (1 + lay.m);
        let mut upper = Vec::with_capacity(words);
        for _ in 0..words {
            upper.push(r.u32().ok_or_else(short)?);
        }
        for (row, w) in upper.chunks_exact(1 + lay.m).enumerate() {
            let count = w[0] as usize;
            if count > lay.m || w[1..=count].iter().any(|x| *x as usize >= n) {
                return Err(corrupt(format!("upper-level row {row} is out of range")));
            }
        }
        r.at = lay.sums_off as usize - base;
        let mut link_sums = Vec::with_capacity(lay.link_blocks());
        for _ in 0..lay.link_blocks() {
            link_sums.push(r.u64().ok_or_else(short)?);
        }
        let mut vec_sums = Vec::with_capacity(lay.vec_blocks());
        for _ in 0..lay.vec_blocks() {
            vec_sums.push(r.u64().ok_or_else(short)?);
        }
        let entry = match h.entry {
            NO_ENTRY if n == 0 => None,
            e if (e as usize) < n && levels.get(e as usize) == Some(&h.entry_level) => {
                Some((e, h.entry_level))
            }
            _ => return Err(corrupt("bad entry point".into())),
        };
        let params = HnswParams {
            m: lay.m,
            ef_construction: h.ef_construction,
            seed: h.seed,
            ..HnswParams::default()
        };
        Ok(FileIndex {
            path: path.to_owned(),
            file,
            slot_blocks: (0..n.div_ceil(SLOT_ROWS))
                .map(|_| OnceLock::new())
                .collect(),
            link_blocks: (0..lay.link_blocks()).map(|_| OnceLock::new()).collect(),
            vec_blocks: (0..lay.vec_blocks()).map(|_| OnceLock::new()).collect(),
            lay,
            params,
            upper_start,
            upper,
            link_sums,
            vec_sums,
            entry,
            live,
            by_label,
            damage: Mutex::new(None),
            scratch: Mutex::new(Vec::new()),
        })
    }

    /// Number of live (not deleted) slots.
    pub fn len(&self) -> usize {
        self.live
    }

    /// True when no live slot is in the file.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Approximate top-`k` for `query` (among `labels`, if given) by the walk the in-memory
    /// index makes, over the file; the same policy ([`VectorIndex::search_labels`]): never
    /// fewer than `min(k, matching)`. A damaged block is [`VectorError::CorruptBlock`].
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        ef: usize,
        labels: Option<&[LabelId]>,
    ) -> Result<Vec<Hit>, VectorError> {
        let q = super::normalised(self.lay.dim, query, "query")?;
        let walk = |ef, allow: &dyn Fn(u32) -> bool| {
            graph::search_rows(self, |s| self.row(s), &q, ef, allow)
        };
        let found = answer(self, &walk, &q, k, ef, labels);
        if let Some(e) = self.damage.lock().take() {
            return Err(e);
        }
        Ok(self.hits(found?))
    }

    /// Exact top-`k` for `query` (among `labels`, if given): every live vector of the file
    /// read once, block by block (nothing kept).
    pub fn exact_search(
        &self,
        query: &[f32],
        k: usize,
        labels: Option<&[LabelId]>,
    ) -> Result<Vec<Hit>, VectorError> {
        let q = super::normalised(self.lay.dim, query, "query")?;
        let found = Slots::exact(self, &q, k, labels)?;
        Ok(self.hits(found))
    }

    fn hits(&self, found: Vec<Scored>) -> Vec<Hit> {
        super::hits(self, found)
    }

    /// Reads block `b` of a large section and checks it against `sum`.
    fn read_block(
        &self,
        (off, len): (u64, usize),
        sum: Option<&u64>,
        section: &'static str,
    ) -> Result<Vec<u8>, VectorError> {
        let mut buf = vec![0u8; len];
        self.file
            .read_exact_at(&mut buf, off)
            .map_err(|source| VectorError::Io {
                path: self.path.clone(),
                source,
            })?;
        if sum != Some(&checksum(&buf)) {
            return Err(VectorError::CorruptBlock {
                path: self.path.clone(),
                section,
                offset: off,
            });
        }
        Ok(buf)
    }

    fn vec_block(&self, b: usize) -> Result<Box<[f32]>, VectorError> {
        let buf = self.read_block(self.lay.vec_block(b), self.vec_sums.get(b), "vectors")?;
        Ok(buf
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    fn link_block(&self, b: usize) -> Result<Box<[u32]>, VectorError> {
        let buf = self.read_block(self.lay.link_block(b), self.link_sums.get(b), "links")?;
        let words: Box<[u32]> = buf
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let (n, stride, max) = (self.lay.n, self.lay.stride0(), 2 * self.lay.m);
        for row in words.chunks_exact(stride) {
            let count = row[0] as usize;
            if count > max || row[1..=count].iter().any(|x| *x as usize >= n) {
                return Err(VectorError::Corrupt {
                    path: self.path.clone(),
                    reason: format!(
                        "a level-0 row in the block at byte {} is out of range",
                        self.lay.link_block(b).0
                    ),
                });
            }
        }
        Ok(words)
    }

    /// Block `b` from `cache`, read on first touch; a damaged one is recorded and reads empty.
    fn cached<'a, T>(
        &self,
        cache: &'a [OnceLock<Box<[T]>>],
        b: usize,
        read: impl FnOnce() -> Result<Box<[T]>, VectorError>,
    ) -> &'a [T] {
        let Some(cell) = cache.get(b) else {
            return &[];
        };
        if let Some(v) = cell.get() {
            return v;
        }
        match read() {
            Ok(v) => cell.get_or_init(|| v),
            Err(e) => {
                self.damage.lock().get_or_insert(e);
                &[]
            }
        }
    }

    /// Loads the whole index into memory (a writable process's path), every block checked.
    fn into_index(self, params: HnswParams) -> Result<VectorIndex, VectorError> {
        let lay = &self.lay;
        let params = HnswParams {
            m: lay.m,
            ef_construction: self.params.ef_construction,
            seed: self.params.seed,
            ..params
        };
        let mut graph = Graph::new(lay.dim, lay.m, self.params.ef_construction);
        graph.reserve(lay.n);
        let stride = lay.stride0();
        for b in 0..lay.link_blocks() {
            let words = self.link_block(b)?;
            for (row, s) in words.chunks_exact(stride).zip(b * lay.link_rows..) {
                let level = self.level(s as u32);
                let mut links = Vec::with_capacity(usize::from(level) + 1);
                links.push(row[1..=row[0] as usize].to_vec());
                for l in 1..=level {
                    links.push(self.upper_row(s as u32, l).to_vec());
                }
                graph.push_loaded(links);
            }
        }
        let mut vectors = Vec::with_capacity(lay.n * lay.dim);
        for b in 0..lay.vec_blocks() {
            vectors.extend_from_slice(&self.vec_block(b)?);
        }
        graph.set_entry(self.entry);
        let dim = lay.dim;
        let corrupt = |reason: &str| VectorError::Corrupt {
            path: self.path.clone(),
            reason: reason.into(),
        };
        let slots = (0..lay.n as u32)
            .map(|s| self.slot(s).copied())
            .collect::<Option<Vec<Slot>>>();
        if let Some(e) = self.damage.lock().take() {
            return Err(e);
        }
        let slots = slots.ok_or_else(|| corrupt("ends early"))?;
        VectorIndex::from_parts(params, dim, slots, vectors, graph)
            .ok_or_else(|| corrupt("a node is live twice"))
    }

    /// Slot records `b * SLOT_ROWS..`, checked by the open's checksum.
    fn slot_block(&self, b: usize) -> Result<Box<[Slot]>, VectorError> {
        let first = b * SLOT_ROWS;
        let count = SLOT_ROWS.min(self.lay.n.saturating_sub(first));
        let mut buf = vec![0u8; count * SLOT_BYTES as usize];
        self.file
            .read_exact_at(&mut buf, self.lay.slots_off + first as u64 * SLOT_BYTES)
            .map_err(|source| VectorError::Io {
                path: self.path.clone(),
                source,
            })?;
        Ok(buf
            .chunks_exact(SLOT_BYTES as usize)
            .map(|r| Slot {
                node: NodeId(u64::from_le_bytes([
                    r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7],
                ])),
                label: LabelId(u32::from_le_bytes([r[8], r[9], r[10], r[11]])),
                deleted: r[12] != 0,
            })
            .collect())
    }

    /// Slot `s`'s top level (from the upper starts, checked against the slots on open).
    fn level(&self, s: u32) -> u8 {
        let s = s as usize;
        match (self.upper_start.get(s), self.upper_start.get(s + 1)) {
            (Some(a), Some(b)) => b.saturating_sub(*a).min(12) as u8,
            _ => 0,
        }
    }

    /// Slot `s`'s links at upper level `l` (≥ 1), empty if it has none there.
    fn upper_row(&self, s: u32, l: u8) -> &[u32] {
        let Some(&start) = self.upper_start.get(s as usize) else {
            return &[];
        };
        let stride = 1 + self.lay.m;
        let at = (start as usize + usize::from(l) - 1) * stride;
        match self.upper.get(at..at + stride) {
            Some(row) if l <= self.level(s) => &row[1..=(row[0] as usize).min(self.lay.m)],
            _ => &[],
        }
    }
}

impl FileIndex {
    /// Slot `s`'s unit vector, empty for an unknown (or unreadable) slot.
    fn row(&self, s: u32) -> &[f32] {
        let (s, rows, dim) = (s as usize, self.lay.vec_rows, self.lay.dim);
        let block = self.cached(&self.vec_blocks, s / rows, || self.vec_block(s / rows));
        let at = (s % rows) * dim;
        block.get(at..at + dim).unwrap_or(&[])
    }
}

impl Walk for FileIndex {
    fn len(&self) -> usize {
        self.lay.n
    }
    fn entry(&self) -> Option<(u32, u8)> {
        self.entry
    }
    fn for_neighbours(&self, s: u32, level: u8, mut f: impl FnMut(u32)) {
        if level > 0 {
            self.upper_row(s, level).iter().for_each(|x| f(*x));
            return;
        }
        let (i, rows, stride) = (s as usize, self.lay.link_rows, self.lay.stride0());
        let block = self.cached(&self.link_blocks, i / rows, || self.link_block(i / rows));
        let at = (i % rows) * stride;
        if let Some(row) = block.get(at..at + stride) {
            let count = (row[0] as usize).min(stride - 1);
            row[1..=count].iter().for_each(|x| f(*x));
        }
    }
    fn scratch(&self) -> &Mutex<Vec<Scratch>> {
        &self.scratch
    }
}

impl Slots for FileIndex {
    fn slot(&self, s: u32) -> Option<&Slot> {
        let (s, rows) = (s as usize, SLOT_ROWS);
        let block = self.cached(&self.slot_blocks, s / rows, || self.slot_block(s / rows));
        block.get(s % rows)
    }
    fn live(&self) -> usize {
        self.live
    }
    fn all_live(&self) -> bool {
        self.live == self.lay.n
    }
    fn label_count(&self, label: LabelId) -> usize {
        self.by_label
            .iter()
            .find(|(l, _)| *l == label)
            .map_or(0, |(_, c)| *c)
    }
    fn exact_filter_max(&self) -> usize {
        self.params.exact_filter_max
    }
    /// Reads the blocks holding a wanted slot (all of them without a filter), each once, and
    /// keeps none: an exact answer over the file costs a read, not memory.
    fn exact(
        &self,
        q: &[f32],
        k: usize,
        labels: Option<&[LabelId]>,
    ) -> Result<Vec<Scored>, VectorError> {
        let wanted = |s: &Slot| !s.deleted && labels.is_none_or(|l| l.contains(&s.label));
        let mut top = TopK::new(k);
        if k == 0 {
            return Ok(Vec::new());
        }
        let rows = self.lay.vec_rows;
        for b in 0..self.lay.vec_blocks() {
            let block_slots: Vec<Slot> = (b * rows..((b + 1) * rows).min(self.lay.n))
                .filter_map(|s| self.slot(s as u32).copied())
                .collect();
            if !block_slots.iter().any(wanted) {
                continue;
            }
            let floats = match self.vec_blocks.get(b).and_then(OnceLock::get) {
                Some(v) => std::borrow::Cow::Borrowed(&v[..]),
                None => std::borrow::Cow::Owned(self.vec_block(b)?.into_vec()),
            };
            for ((i, s), v) in block_slots
                .iter()
                .enumerate()
                .zip(floats.chunks_exact(self.lay.dim))
            {
                if wanted(s) {
                    top.offer(Scored {
                        score: dot(q, v),
                        slot: (b * rows + i) as u32,
                    });
                }
            }
        }
        Ok(top.into_sorted())
    }
}

/// Loads a format-1 file: one stream, checksummed as it is read.
fn load_v1(
    path: &Path,
    expected: &Stamp,
    oldest: u64,
    dim: usize,
    params: HnswParams,
) -> Result<VectorIndex, VectorError> {
    let (mut r, h) = Stream::open(path, expected, oldest, dim)?;
    let params = HnswParams {
        m: h.m,
        ef_construction: h.ef_construction,
        seed: h.seed,
        ..params
    };
    let mut graph = Graph::new(dim, h.m, h.ef_construction);
    let mut slots = Vec::with_capacity(h.n);
    for i in 0..h.n as u32 {
        let (slot, links) = r.slot(i, &h)?;
        graph.push_loaded(links);
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
    VectorIndex::from_parts(params, dim, slots, vectors, graph)
        .ok_or_else(|| r.corrupt("a node is live twice".into()))
}
