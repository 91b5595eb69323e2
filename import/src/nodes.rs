//! The import's nodes, held compactly: each node's key and encoded record (the bytes its SST
//! entry gets) in a byte arena of large chunks, beside a fixed 32-byte entry.
//!
//! Owned strings, property vectors and their allocator overhead cost about 500 bytes a node in
//! the generated dumps (twice Kuzu's whole import at 5M nodes); the encoded record is the
//! node's real size (about 100 bytes there). A node is decoded only when it is merged with a
//! repeat, updated, indexed or embedded. Staged nodes use the same list with the staging's
//! own name ids as label and property ids; merging it a window at a time frees each chunk once
//! its nodes are merged.

use cairn_storage_format::NodeRecord;
use cairn_store::EngineError;
use hashbrown::HashMap;

/// Where a record came from: file index and line.
#[derive(Clone, Copy)]
pub(crate) struct Origin {
    pub(crate) file: u32,
    pub(crate) line: u64,
}

/// Bytes per arena chunk (a larger record gets a chunk of its own).
const CHUNK: usize = 4 << 20;

#[derive(Clone, Copy)]
struct Entry {
    line: u64,
    chunk: u32,
    offset: u32,
    key_len: u32,
    rec_len: u32,
    label: u32,
    file: u32,
}

/// Nodes in arrival order; see the module documentation.
#[derive(Default)]
pub(crate) struct NodeList {
    chunks: Vec<Vec<u8>>,
    entries: Vec<Entry>,
    /// Vectors supplied by the dump (rare), by position.
    vectors: HashMap<u32, Vec<f32>>,
    /// Emptied chunks to fill before allocating: a staged list's chunks, once merged, become
    /// the merged list's (see [`NodeList::windows`]).
    spare: Vec<Vec<u8>>,
}

impl NodeList {
    pub(crate) fn with_capacity(n: usize) -> Self {
        NodeList {
            entries: Vec::with_capacity(n),
            ..Default::default()
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Appends `record` (its key, label and bytes) and returns its position.
    pub(crate) fn push(
        &mut self,
        record: &NodeRecord,
        vector: Option<Vec<f32>>,
        origin: Origin,
    ) -> Result<u32, EngineError> {
        let bytes = record
            .encode()
            .map_err(EngineError::encode("node record"))?;
        self.push_encoded(record.label.0, &record.key, &bytes, vector, origin)
    }

    /// Appends a node given as its label, key and encoded record; returns its position.
    pub(crate) fn push_encoded(
        &mut self,
        label: u32,
        key: &str,
        record: &[u8],
        vector: Option<Vec<f32>>,
        origin: Origin,
    ) -> Result<u32, EngineError> {
        let i = self.entries.len() as u32;
        let (chunk, offset) = self.write(key, record)?;
        self.entries.push(Entry {
            line: origin.line,
            chunk,
            offset,
            key_len: key.len() as u32,
            rec_len: record.len() as u32,
            label,
            file: origin.file,
        });
        if let Some(v) = vector {
            self.vectors.insert(i, v);
        }
        Ok(i)
    }

    /// Writes the key, then the encoded record, to the arena: (chunk, offset).
    fn write(&mut self, key: &str, record: &[u8]) -> Result<(u32, u32), EngineError> {
        let need = key.len() + record.len();
        let fits = self
            .chunks
            .last()
            .is_some_and(|c| c.capacity() - c.len() >= need);
        if !fits {
            let chunk = match self.spare.last() {
                Some(c) if c.capacity() >= need => self.spare.pop(),
                _ => None,
            };
            self.chunks
                .push(chunk.unwrap_or_else(|| Vec::with_capacity(need.max(CHUNK))));
        }
        let chunk = self.chunks.len() - 1;
        let Some(c) = self.chunks.last_mut() else {
            return Err(EngineError::Invalid("node arena has no chunk".into()));
        };
        let offset = c.len();
        c.extend_from_slice(key.as_bytes());
        c.extend_from_slice(record);
        Ok((chunk as u32, offset as u32))
    }

    fn bytes(&self, e: &Entry, from: usize, len: usize) -> &[u8] {
        let start = e.offset as usize + from;
        self.chunks
            .get(e.chunk as usize)
            .and_then(|c| c.get(start..start + len))
            .unwrap_or_default()
    }

    /// The label id of node `i` (a catalog id, or a staging name id in a staged list).
    pub(crate) fn label(&self, i: usize) -> u32 {
        self.entries.get(i).map_or(u32::MAX, |e| e.label)
    }

    pub(crate) fn key(&self, i: usize) -> &str {
        let Some(e) = self.entries.get(i) else {
            return "";
        };
        std::str::from_utf8(self.bytes(e, 0, e.key_len as usize)).unwrap_or_default()
    }

    /// The encoded record of node `i`: its value in the node column family.
    pub(crate) fn record_bytes(&self, i: usize) -> &[u8] {
        let Some(e) = self.entries.get(i) else {
            return &[];
        };
        self.bytes(e, e.key_len as usize, e.rec_len as usize)
    }

    pub(crate) fn record(&self, i: usize) -> Result<NodeRecord, EngineError> {
        NodeRecord::decode(self.record_bytes(i)).map_err(EngineError::corrupt("staged node"))
    }

    /// Replaces node `i`'s record (same label and key); the old bytes stay unused in the arena.
    pub(crate) fn set_record(&mut self, i: usize, record: &NodeRecord) -> Result<(), EngineError> {
        let bytes = record
            .encode()
            .map_err(EngineError::encode("node record"))?;
        let (chunk, offset) = self.write(&record.key, &bytes)?;
        let rec_len = bytes.len() as u32;
        if let Some(e) = self.entries.get_mut(i) {
            (e.chunk, e.offset, e.rec_len) = (chunk, offset, rec_len);
        }
        Ok(())
    }

    pub(crate) fn origin(&self, i: usize) -> Origin {
        self.entries.get(i).map_or(
            Origin {
                file: u32::MAX,
                line: 0,
            },
            |e| Origin {
                file: e.file,
                line: e.line,
            },
        )
    }

    pub(crate) fn vector(&self, i: usize) -> Option<&[f32]> {
        self.vectors.get(&(i as u32)).map(Vec::as_slice)
    }

    /// Moves node `i`'s vector out (a staged list's vectors go to the merged one, not copied).
    pub(crate) fn take_vector(&mut self, i: usize) -> Option<Vec<f32>> {
        self.vectors.remove(&(i as u32))
    }

    pub(crate) fn set_vector(&mut self, i: usize, vector: Vec<f32>) {
        self.vectors.insert(i as u32, vector);
    }

    /// Whether any node has a supplied vector.
    pub(crate) fn has_vectors(&self) -> bool {
        !self.vectors.is_empty()
    }

    /// Calls `f` with consecutive ranges of positions, at most `window` long, in order, and
    /// empties each chunk of the arena once the ranges have passed it, keeping it for
    /// [`NodeList::take_spare`]: the list's memory goes to its consumer as it grows. Freed
    /// instead, the chunks went back to the kernel (they are allocated on the reading threads)
    /// while the merged list faulted in and zeroed as many new pages: a sixth of the merge's
    /// CPU samples at 5M nodes.
    pub(crate) fn windows<E>(
        mut self,
        window: usize,
        mut f: impl FnMut(&mut Self, std::ops::Range<usize>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut freed = 0usize;
        let mut start = 0;
        while start < self.entries.len() {
            let first = self.entries.get(start).map_or(0, |e| e.chunk as usize);
            while freed < first {
                if let Some(c) = self.chunks.get_mut(freed) {
                    let mut c = std::mem::take(c);
                    c.clear();
                    self.spare.push(c);
                }
                freed += 1;
            }
            let end = (start + window.max(1)).min(self.entries.len());
            f(&mut self, start..end)?;
            start = end;
        }
        Ok(())
    }

    /// The emptied chunks [`NodeList::windows`] kept, for another list to fill.
    pub(crate) fn take_spare(&mut self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.spare)
    }

    /// Gives this list emptied chunks to fill before it allocates.
    pub(crate) fn recycle(&mut self, chunks: Vec<Vec<u8>>) {
        self.spare.extend(chunks);
    }

    /// Frees the spare chunks not filled.
    pub(crate) fn drop_spare(&mut self) {
        self.spare = Vec::new();
    }

    /// The bytes of node `i`'s key and record.
    pub(crate) fn encoded_len(&self, i: usize) -> usize {
        self.entries
            .get(i)
            .map_or(0, |e| e.key_len as usize + e.rec_len as usize)
    }

    /// Bytes held (arena chunks and entries): what the edge sort leaves them of the budget.
    pub(crate) fn bytes_held(&self) -> u64 {
        let arena: usize = self.chunks.iter().map(Vec::capacity).sum();
        (arena + self.entries.capacity() * std::mem::size_of::<Entry>()) as u64
    }
}
