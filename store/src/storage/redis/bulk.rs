//! The bulk path of the cluster backend: parts written in place, on connections of their own.

use super::cluster::{self, Cluster, Routed};
use super::layout::Cell;
use super::reply::{checked, eval};
use super::scripts::{self, CHUNK};
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
    /// Keys in `pending`.
    pending_keys: usize,
    keys: u64,
    /// The adjacency hash or ordered group being filled, and its fields so far: consecutive
    /// keys of one group go out as one command.
    group: Option<(Cell, Fields)>,
    /// Whether a group was closed already: the part's first adjacency may continue the part
    /// before's last.
    closed_one: bool,
}

impl Sink<'_> {
    /// Queues the open group's command(s). `last`: the part's last group, which the next part
    /// may continue.
    fn close_group(&mut self, last: bool) {
        let Some((cell, fields)) = self.group.take() else {
            return;
        };
        self.pending_keys += fields.len();
        let first = !std::mem::replace(&mut self.closed_one, true);
        match cell {
            // A node's adjacency: a plain hash when it is small and this part holds all of it;
            // else the script that chunks it (`scripts::adjacency_lua`), which also finds what
            // a neighbouring part wrote of it.
            Cell::Field(key, _) => {
                let slot = cluster::slot(&key);
                if first || last || fields.len() > CHUNK {
                    let args: Vec<&[u8]> = fields
                        .iter()
                        .flat_map(|(f, v)| [f.as_slice(), v.as_slice()])
                        .collect();
                    let cmd = eval(scripts::ADJ_ADD, &[&key], &args);
                    self.pending.push(Routed { slot, cmd });
                } else {
                    let mut cmd = redis::cmd("HSET");
                    cmd.arg(&key);
                    for (f, v) in &fields {
                        cmd.arg(f).arg(v);
                    }
                    self.pending.push(Routed { slot, cmd });
                }
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

    /// Sends what is queued. An ordered group is closed first (its members are added, not
    /// replaced: it goes on in the next command); an adjacency stays open until it ends, so
    /// that the part writes it as one command.
    fn flush(&mut self, last: bool) -> Result<()> {
        if last || matches!(self.group, Some((Cell::Ordered(..), _))) {
            self.close_group(last);
        }
        let cmds = std::mem::take(&mut self.pending);
        self.pending_keys = 0;
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
            Cell::Str(k) => {
                self.pending_keys += 1;
                self.pending.push(Routed {
                    slot: cluster::slot(&k),
                    cmd: redis::cmd("SET").arg(&k).arg(value).clone(),
                })
            }
            Cell::Field(..) | Cell::Ordered(..) => {
                let same = self.group.as_ref().is_some_and(|(c, _)| match (c, &cell) {
                    (Cell::Field(a, _), Cell::Field(b, _)) => a == b,
                    (Cell::Ordered(a, _, _), Cell::Ordered(b, _, _)) => a == b,
                    _ => false,
                });
                if !same {
                    self.close_group(false);
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
        let open = match &self.group {
            Some((Cell::Ordered(..), fields)) => fields.len(),
            _ => 0,
        };
        if self.pending_keys + open >= BULK_FLUSH {
            self.flush(false)?;
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
        pending_keys: 0,
        keys: 0,
        group: None,
        closed_one: false,
    };
    fill(&mut sink)?;
    sink.flush(true)?;
    Ok((sink.keys > 0).then_some(BulkPart {
        space,
        file: None,
        keys: sink.keys,
    }))
}
