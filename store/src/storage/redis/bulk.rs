//! The bulk path of the cluster backend: parts written in place, on connections of their own.

use super::cluster::{self, Cluster, Routed};
use super::layout::Cell;
use super::reply::checked;
use super::{RedisStorage, BULK_FLUSH};
use crate::error::Result;
use crate::storage::{BulkPart, BulkSink, Space};

/// Entries of an adjacency hash or ordered group being written by a bulk part.
type Fields = Vec<(Vec<u8>, Vec<u8>)>;

/// A bulk part written in place: puts buffered and sent a few thousand at a time, one pipeline
/// per master, on connections of its own (parts are written on several threads at once).
pub(super) struct Sink<'a> {
    storage: &'a RedisStorage,
    cluster: Cluster,
    space: Space,
    pending: Vec<Routed>,
    keys: u64,
    /// The adjacency hash or ordered group being filled, and its fields so far: consecutive
    /// keys of one group go out as one command.
    group: Option<(Cell, Fields)>,
}

impl Sink<'_> {
    fn close_group(&mut self) {
        let Some((cell, fields)) = self.group.take() else {
            return;
        };
        match cell {
            Cell::Field(key, _) => {
                let mut cmd = redis::cmd("HSET");
                cmd.arg(&key);
                for (f, v) in &fields {
                    cmd.arg(f).arg(v);
                }
                self.pending.push(Routed {
                    slot: cluster::slot(&key),
                    cmd,
                });
            }
            Cell::Ordered(z, h, _) => {
                let slot = cluster::slot(&z);
                let mut add = redis::cmd("ZADD");
                add.arg(&z);
                let mut set = redis::cmd("HSET");
                set.arg(&h);
                for (m, v) in &fields {
                    add.arg(0).arg(m);
                    set.arg(m).arg(v);
                }
                self.pending.push(Routed { slot, cmd: add });
                self.pending.push(Routed { slot, cmd: set });
            }
            Cell::Str(_) => {}
        }
    }

    fn flush(&mut self) -> Result<()> {
        self.close_group();
        let cmds = std::mem::take(&mut self.pending);
        for reply in self.cluster.run(cmds)? {
            checked(&reply)?;
        }
        Ok(())
    }
}

impl BulkSink for Sink<'_> {
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        let cell = self.storage.layout.cell(self.space, key);
        self.keys += 1;
        match cell {
            Cell::Str(k) => self.pending.push(Routed {
                slot: cluster::slot(&k),
                cmd: redis::cmd("SET").arg(&k).arg(value).clone(),
            }),
            Cell::Field(..) | Cell::Ordered(..) => {
                let same = self.group.as_ref().is_some_and(|(c, _)| match (c, &cell) {
                    (Cell::Field(a, _), Cell::Field(b, _)) => a == b,
                    (Cell::Ordered(a, _, _), Cell::Ordered(b, _, _)) => a == b,
                    _ => false,
                });
                if !same {
                    self.close_group();
                }
                let member = match &cell {
                    Cell::Field(_, f) => f.clone(),
                    Cell::Ordered(_, _, m) => m.clone(),
                    Cell::Str(_) => Vec::new(),
                };
                let group = self.group.get_or_insert_with(|| (cell, Vec::new()));
                group.1.push((member, value.to_vec()));
            }
        }
        if self.pending.len() + self.group.as_ref().map_or(0, |g| g.1.len() / 64) >= BULK_FLUSH {
            self.flush()?;
        }
        Ok(())
    }
}

/// Writes one bulk part in place (`Storage::bulk_write`) on a connection of its own.
pub(super) fn write(
    storage: &RedisStorage,
    space: Space,
    fill: &mut dyn FnMut(&mut dyn BulkSink) -> Result<()>,
) -> Result<Option<BulkPart>> {
    let mut sink = Sink {
        storage,
        cluster: Cluster::connect(storage.seeds.clone())?,
        space,
        pending: Vec::new(),
        keys: 0,
        group: None,
    };
    fill(&mut sink)?;
    sink.flush()?;
    Ok((sink.keys > 0).then_some(BulkPart {
        space,
        file: None,
        keys: sink.keys,
    }))
}
