//! The storage boundary: what the graph store needs from a key-value engine, and nothing more.
//! The contract is written down in docs/STORAGE.md; this module is its code.
//!
//! Everything above this module (the graph, the writer, the commit protocol, the bulk loader,
//! the import marker) speaks in [`Space`]s, byte keys, [`Batch`]es and read calls; a backend
//! maps them onto an engine. RocksDB ([`rocks`]) is the first: a space is a column family, a
//! batch a `WriteBatch`, a snapshot a RocksDB snapshot, a bulk part an SST file. The key bytes
//! are those of docs/FORMAT.md, encoded by `cairn-storage-format` and chosen by the store (no
//! other crate builds a key).
//!
//! The contract is shaped so that an engine without a global key order can honour it (a
//! hash-sharded one such as Redis Cluster): every space says how its keys form **groups**
//! ([`Grouping`]); an ordered scan never crosses a group, except the scans of node-keyed spaces
//! over a range of node ids, which a sharded engine serves as reads of each id's group. Whole
//! spaces are scanned only by maintenance (rollback, consistency checks, building derived
//! state), and only node-keyed spaces promise an order across groups.

mod batch;
pub(crate) mod redis;
pub(crate) mod rocks;

pub use batch::{Batch, Op};

use crate::error::Result;
use std::ops::Range;
use std::path::Path;

/// A keyspace of the store (a RocksDB column family). Which key layout each holds is
/// docs/FORMAT.md's "Column families"; how its keys group is [`Space::grouping`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Space {
    /// Database-wide records by ASCII name (format, catalog, counters, the import marker).
    Meta,
    /// Node records by node id.
    Node,
    /// (label, external key) → node id.
    NodeKey,
    /// Out-edges: source · relation · destination.
    Out,
    /// In-edges: destination · relation · source.
    In,
    /// Out- and in-degree by node id; written by [`Op::Merge`] (signed deltas that add up).
    Degree,
    /// Property-index entries: label · property · ordered value · node id.
    Prop,
    /// Node vectors by node id.
    Vector,
    /// Name-index entries: normalised name · 00 · node id.
    Name,
    /// The change log: each commit's change set by commit counter (`changelog.rs`). Added
    /// after the others: a database no writer of this version opened yet lacks it, and reads
    /// then find no entry.
    Changes,
}

/// How the keys of a space form groups: the unit an ordered scan stays within, and what a
/// sharded backend keeps together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grouping {
    /// The whole space is one group (small: `meta`).
    Single,
    /// Keys that start with the same node id (8 bytes, big-endian) form a group: the node's
    /// record, degree and vector, or its edges in one direction. Scans may also cover a range
    /// of node ids ([`Scan::Nodes`]), in id order.
    Node,
    /// Keys that share their first `n` bytes form a group (`node_key`: the label; `prop`: the
    /// label and property).
    Prefix(usize),
    /// Keys that share their first word — the bytes before the first `0x20` or `0x00` — form
    /// a group (`name`: a name and every longer name it begins, for the linker's seeks).
    FirstWord,
}

impl Space {
    /// Every space, in the order the RocksDB backend creates its column families.
    pub const ALL: [Space; 10] = [
        Space::Meta,
        Space::Node,
        Space::NodeKey,
        Space::Out,
        Space::In,
        Space::Degree,
        Space::Prop,
        Space::Vector,
        Space::Name,
        Space::Changes,
    ];

    /// Its name: the RocksDB column family, and the tag other backends key it by.
    pub fn name(self) -> &'static str {
        match self {
            Space::Meta => "meta",
            Space::Node => "node",
            Space::NodeKey => "node_key",
            Space::Out => "out",
            Space::In => "in",
            Space::Degree => "degree",
            Space::Prop => "prop",
            Space::Vector => "vector",
            Space::Name => "name",
            Space::Changes => "changes",
        }
    }

    /// The space named `name` (see [`Space::name`]).
    pub fn from_name(name: &str) -> Option<Space> {
        Space::ALL.into_iter().find(|s| s.name() == name)
    }

    /// How its keys group (see [`Grouping`]).
    pub fn grouping(self) -> Grouping {
        match self {
            // The log is a window of recent commits, read as one ordered range.
            Space::Meta | Space::Changes => Grouping::Single,
            Space::Node | Space::Degree | Space::Vector | Space::Out | Space::In => Grouping::Node,
            Space::NodeKey => Grouping::Prefix(4),
            Space::Prop => Grouping::Prefix(8),
            Space::Name => Grouping::FirstWord,
        }
    }

    /// The bytes of `key` that name its group (the whole key for [`Grouping::Single`]'s one
    /// group is the empty prefix).
    pub fn group_of(self, key: &[u8]) -> &[u8] {
        let end = match self.grouping() {
            Grouping::Single => 0,
            Grouping::Node => 8,
            Grouping::Prefix(n) => n,
            Grouping::FirstWord => key
                .iter()
                .position(|b| *b == b' ' || *b == 0)
                .unwrap_or(key.len()),
        };
        key.get(..end).unwrap_or(key)
    }
}

/// What a scan covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scan<'a> {
    /// Keys `k` with `start <= k < end` (`end` `None`: to the end of the group), in key order.
    /// The range lies in the group of `start`: `end` is at most the successor of that group's
    /// keys (e.g. the next node id, or a prefix's successor).
    Range {
        start: &'a [u8],
        end: Option<&'a [u8]>,
    },
    /// The keys of [`Scan::Range`] in descending key order (the same bounds: `start <= k <
    /// end`, within the group of `start`): a property index read from its largest value.
    Reverse {
        start: &'a [u8],
        end: Option<&'a [u8]>,
    },
    /// A node-keyed space ([`Grouping::Node`]): the keys of the nodes with ids in the range,
    /// in key order.
    Nodes(Range<u64>),
    /// Every key of the space: in key order within each group; groups in id order for
    /// node-keyed spaces, in any order otherwise.
    All,
}

impl<'a> Scan<'a> {
    /// The keys starting with `prefix`: a range from it to its successor. The prefix must name
    /// a whole group or lie within one.
    pub fn prefix(prefix: &'a [u8], successor: &'a Option<Vec<u8>>) -> Scan<'a> {
        Scan::Range {
            start: prefix,
            end: successor.as_deref(),
        }
    }
}

/// The callback of [`KvRead::get`]: the value found.
pub type Found<'a> = dyn FnMut(&[u8]) -> Result<()> + 'a;
/// The callback of [`KvRead::multi_get`]: the position of a key asked for, and its value.
pub type FoundAt<'a> = dyn FnMut(usize, &[u8]) -> Result<()> + 'a;
/// The callback of [`KvRead::scan`]: each key and value; false stops the scan.
pub type Each<'a> = dyn FnMut(&[u8], &[u8]) -> Result<bool> + 'a;

/// One read of [`KvRead::multi_read`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read<'a> {
    /// The value of one key.
    Get(Space, &'a [u8]),
    /// Every key of one node's group in a node-keyed space (its edges in one direction).
    Node(Space, u64),
}

/// The callback of [`KvRead::multi_read`]: the position of a read, and a key and value it found.
pub type FoundIn<'a> = dyn FnMut(usize, &[u8], &[u8]) -> Result<()> + 'a;

/// Reads of one state of the store: the latest commit ([`Storage`]) or a snapshot.
///
/// Callbacks get borrowed bytes, valid for the call only; an error a callback returns stops
/// the read and is returned.
pub trait KvRead: Send + Sync {
    /// Calls `found` with the value of `key` in `space`; returns whether there was one.
    fn get(&self, space: Space, key: &[u8], found: &mut Found<'_>) -> Result<bool>;

    /// Calls `found(i, value)` for each of `keys` that has a value (`i` its position), in any
    /// order. One call, one round trip per shard on a remote engine.
    fn multi_get(&self, space: Space, keys: &[&[u8]], found: &mut FoundAt<'_>) -> Result<()>;

    /// Calls `each(key, value)` for the keys `scan` covers, in order (descending for
    /// [`Scan::Reverse`]; see [`Scan`]), until it returns false.
    fn scan(&self, space: Space, scan: Scan<'_>, each: &mut Each<'_>) -> Result<()>;

    /// Calls `found(i, key, value)` for every key read `i` finds, reads of any spaces mixed:
    /// what a step of a search needs of many nodes at once (records, degrees, vectors and
    /// adjacency). A remote engine answers all of it in one round trip per shard; an embedded
    /// one reads key by key (the default).
    fn multi_read(&self, reads: &[Read<'_>], found: &mut FoundIn<'_>) -> Result<()> {
        // Point reads as one multi-get per space, in the order spaces first appear.
        // (space, positions of its reads, their keys)
        type PerSpace<'k> = Vec<(Space, Vec<usize>, Vec<&'k [u8]>)>;
        let mut by_space: PerSpace<'_> = Vec::new();
        for (i, read) in reads.iter().enumerate() {
            if let Read::Get(space, key) = *read {
                match by_space.iter_mut().find(|(s, _, _)| *s == space) {
                    Some((_, at, keys)) => {
                        at.push(i);
                        keys.push(key);
                    }
                    None => by_space.push((space, vec![i], vec![key])),
                }
            }
        }
        for (space, at, keys) in &by_space {
            self.multi_get(*space, keys, &mut |j, v| match (at.get(j), keys.get(j)) {
                (Some(&i), Some(key)) => found(i, key, v),
                _ => Ok(()),
            })?;
        }
        for (i, read) in reads.iter().enumerate() {
            if let Read::Node(space, id) = *read {
                let start = id.to_be_bytes();
                let end = id.checked_add(1).map(u64::to_be_bytes);
                let scan = Scan::Range {
                    start: &start,
                    end: end.as_ref().map(|e| e.as_slice()),
                };
                self.scan(space, scan, &mut |k, v| {
                    found(i, k, v)?;
                    Ok(true)
                })?;
            }
        }
        Ok(())
    }
}

/// A key-value engine that holds a Cairn database: reads of the latest commit, snapshots,
/// atomic commits of a [`Batch`], and a bulk path for a new range of node ids. The contract,
/// with what each call must guarantee, is docs/STORAGE.md.
pub trait Storage: KvRead {
    /// This engine's name, for messages (`"RocksDB"`).
    fn backend(&self) -> &'static str;

    /// The reads as a [`KvRead`] (the latest commit).
    fn as_read(&self) -> &dyn KvRead;

    /// A consistent view of the latest commit, unaffected by later commits.
    fn snapshot(&self) -> Box<dyn KvRead + '_>;

    /// Applies `batch` atomically: afterwards every read and new snapshot sees all of it, and
    /// none of it before; after a crash the store holds all of it or none. `sync`: durable
    /// against power loss (not only a killed process) once this returns.
    fn commit(&self, batch: &Batch, sync: bool) -> Result<()>;

    /// A number that grows with every commit the view includes (RocksDB's sequence number):
    /// a structure derived at one value is current while it is unchanged.
    fn sequence(&self) -> u64;

    /// Requests sent to the engine's servers so far, counting one per server a batch reaches
    /// (a pipeline to one shard is one round trip); `None` for an embedded engine.
    fn round_trips(&self) -> Option<u64> {
        None
    }

    /// A read-only view: brings it up to the writer's latest commit; whether it moved. A writer
    /// is always current (false).
    fn catch_up(&self) -> Result<bool> {
        Ok(false)
    }

    /// Makes what was committed cheap for the next reader to open (RocksDB: flushes the
    /// memtables into table files and re-logs `meta`; docs/ARCHITECTURE.md, "Nothing large left
    /// in the log"). The caller holds the writer.
    fn settle(&self) -> Result<()> {
        Ok(())
    }

    /// Bytes of recent writes held in memory (RocksDB: the memtables): what a new reader opens
    /// with.
    fn memory_bytes(&self) -> Result<u64> {
        Ok(0)
    }

    /// An estimate of the number of keys in `space`.
    fn estimate_keys(&self, space: Space) -> Result<u64>;

    /// A directory of this handle's own, if it has one (a RocksDB secondary's info log).
    fn private_dir(&self) -> Option<&Path> {
        None
    }

    /// Writes a private copy of the latest commit into the empty directory `dir`, which a
    /// later open of the same backend reads as a database of its own (RocksDB: a checkpoint).
    fn checkpoint(&self, dir: &Path) -> Result<()>;

    // ---- bulk loading (docs/STORAGE.md, "Bulk load") ----

    /// Whether [`Storage::bulk_sink`]s write into the store as they go (a remote engine), so
    /// that the import marker must be set before the first one opens; otherwise (RocksDB's SST
    /// files) nothing is visible before [`Storage::bulk_ingest`].
    fn bulk_in_place(&self) -> bool;

    /// Prepares a bulk load (RocksDB: an empty directory for its files).
    fn bulk_begin(&self) -> Result<()>;

    /// Writes part `part` of a load of `space`: `fill` puts its keys, in strictly ascending
    /// order (parts of one space cover consecutive, non-overlapping key ranges). `None` when
    /// `fill` put no key. Parts may be written on several threads at once.
    fn bulk_write(
        &self,
        space: Space,
        part: usize,
        fill: &mut dyn FnMut(&mut dyn BulkSink) -> Result<()>,
    ) -> Result<Option<BulkPart>>;

    /// Makes the finished parts part of the store, all of them, before the load's commit.
    fn bulk_ingest(&self, parts: Vec<BulkPart>) -> Result<()>;

    /// Removes what the load left outside the store (after its commit or failure).
    fn bulk_end(&self);
}

/// One part of a bulk load being written (see [`Storage::bulk_write`]).
pub trait BulkSink {
    /// Appends one key; keys must be strictly ascending.
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()>;
}

/// A finished part of a bulk load, to pass to [`Storage::bulk_ingest`].
#[derive(Debug)]
pub struct BulkPart {
    pub(crate) space: Space,
    /// Where the part waits to be ingested (RocksDB: its SST file); `None` when it was written
    /// in place.
    pub(crate) file: Option<std::path::PathBuf>,
    pub(crate) keys: u64,
}

impl BulkPart {
    /// The space it fills.
    pub fn space(&self) -> Space {
        self.space
    }

    /// Keys it holds.
    pub fn keys(&self) -> u64 {
        self.keys
    }
}

/// The smallest byte string greater than every string starting with `prefix`; `None` if there
/// is none (all bytes 0xFF): the end of a prefix's [`Scan::Range`].
pub fn successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut out = prefix.to_vec();
    while let Some(last) = out.pop() {
        if last < 0xFF {
            out.push(last + 1);
            return Some(out);
        }
    }
    None
}

#[cfg(test)]
mod conformance;
