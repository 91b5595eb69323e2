//! Commits of the cluster backend (the protocol in the module docs of `redis`): the writer
//! lease, the undo and redo images of a batch, the commit record, the writes applied per master
//! with its head, and rolling forward a commit its writer did not finish.

use super::cluster::{self, fail, Routed};
use super::layout::{Cell, Layout};
use super::read::Read;
use super::record::{self, Change, Changes};
use super::reply::{bytes_of, checked, eval, u64_of};
use super::{scripts, RedisStorage, BULK_FLUSH, LOG_KEEP};
use crate::error::{BackendErrorKind, EngineError, Result};
use crate::storage::{Batch, Op, Space};
use redis::Value;
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// The writer lease's time to live; renewed every third of it.
pub(super) const LEASE_MS: u64 = 15_000;
/// How long each `WAIT` for replicas may take.
const WAIT_MS: u64 = 5_000;

/// Node-range deletions of a batch ([`Op::DeleteNodes`]).
pub(super) type NodeRanges = Vec<(Space, std::ops::Range<u64>)>;

impl RedisStorage {
    /// Commits `batch` (`Storage::commit`): its undo and redo images, record, writes and
    /// sequence. (A commit another writer left logged and unfinished was rolled forward at the
    /// open: the lease keeps other writers out since.)
    pub(super) fn commit_batch(&self, batch: &Batch) -> Result<()> {
        if self.token.is_none() {
            return Err(fail(
                BackendErrorKind::Other,
                "a read-only open cannot commit",
            ));
        }
        if let Some(c) = *self.in_doubt.lock() {
            return Err(fail(
                BackendErrorKind::Unavailable,
                format!(
                    "commit {c} failed after it was logged, so it may yet take effect; this \
                     handle takes no more commits: reopen the database (which finishes it)"
                ),
            ));
        }
        let (changes, ranges) = self.resolve(batch)?;
        for (space, ids) in ranges {
            self.delete_nodes(space, ids)?;
        }
        if changes.is_empty() {
            return Ok(());
        }
        let c = self.view.load(Ordering::SeqCst) + 1;
        self.commit_changes(c, changes)
    }

    /// Takes the writer lease, or fails with [`EngineError::Locked`] when another process
    /// holds it; a thread renews it while the storage lives.
    pub(super) fn lease(&mut self) -> Result<()> {
        let token = format!(
            "{}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
            self.layout.ns()
        );
        let key = self.layout.control("writer");
        let reply = self.cluster.run(vec![Routed {
            slot: cluster::slot(&key),
            cmd: redis::cmd("SET")
                .arg(&key)
                .arg(&token)
                .arg("NX")
                .arg("PX")
                .arg(LEASE_MS)
                .clone(),
        }])?;
        if matches!(reply.first(), Some(Value::Nil) | None) {
            return Err(EngineError::Locked {
                path: self.url().into(),
                detail: "another process holds the cluster database's writer lease".into(),
            });
        }
        let (cluster, closing, t) = (
            Arc::clone(&self.cluster),
            Arc::clone(&self.closing),
            token.clone(),
        );
        std::thread::spawn(move || {
            let slot = cluster::slot(&key);
            while !closing.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(LEASE_MS / 3));
                if closing.load(Ordering::SeqCst) {
                    break;
                }
                let cmd = eval(
                    scripts::RENEW,
                    &[&key],
                    &[t.as_bytes(), LEASE_MS.to_string().as_bytes()],
                );
                if let Err(e) = cluster.run(vec![Routed { slot, cmd }]) {
                    tracing::warn!("renewing the writer lease: {e}");
                }
            }
        });
        self.token = Some(token);
        Ok(())
    }

    /// Step 1 of a commit: the batch as absolute values before and after each key it changes,
    /// read in one round trip (a degree merge adds to the value before), and its node-range
    /// deletions.
    pub(super) fn resolve(&self, batch: &Batch) -> Result<(Changes, NodeRanges)> {
        let mut keys: Vec<(Space, Vec<u8>)> = Vec::new();
        let mut ranges = Vec::new();
        for op in batch.iter() {
            match op {
                Op::Put(s, k, _) | Op::Delete(s, k) | Op::Merge(s, k, _) => {
                    keys.push((s, k.to_vec()))
                }
                Op::DeleteNodes(s, ids) => ranges.push((s, ids)),
            }
        }
        keys.sort();
        keys.dedup();
        let reads: Vec<Read> = keys
            .iter()
            .map(|(s, k)| Read::Get(self.layout.cell(*s, k)))
            .collect();
        let mut state: BTreeMap<(Space, Vec<u8>), Change> = BTreeMap::new();
        for (key, answer) in keys.into_iter().zip(self.read(&reads)?) {
            let before = bytes_of(&answer.value)?;
            state.insert(
                key,
                Change {
                    after: before.clone(),
                    before,
                },
            );
        }
        for op in batch.iter() {
            match op {
                Op::Put(s, k, v) => {
                    if let Some(c) = state.get_mut(&(s, k.to_vec())) {
                        c.after = Some(v.to_vec());
                    }
                }
                Op::Delete(s, k) => {
                    if let Some(c) = state.get_mut(&(s, k.to_vec())) {
                        c.after = None;
                    }
                }
                Op::Merge(s, k, v) => {
                    if let Some(c) = state.get_mut(&(s, k.to_vec())) {
                        c.after = Some(merge(s, c.after.as_deref(), v)?);
                    }
                }
                Op::DeleteNodes(..) => {}
            }
        }
        state.retain(|_, c| c.before != c.after);
        Ok((state, ranges))
    }

    /// Deletes every key of the nodes `ids` in `space`, in place (see [`Op::DeleteNodes`]:
    /// keys no reader sees, so no record is kept), a page of ids per round trip.
    pub(super) fn delete_nodes(&self, space: Space, ids: std::ops::Range<u64>) -> Result<()> {
        let mut next = ids.start;
        while next < ids.end {
            let stop = ids.end.min(next.saturating_add(BULK_FLUSH as u64));
            let keys: Vec<Vec<u8>> = (next..stop)
                .map(|id| self.layout.node_key(space, id))
                .collect();
            // An adjacency may be chunked: its chunk count says which chunks to delete too.
            let chunks: Vec<u64> = if matches!(space, Space::Out | Space::In) {
                let gets = keys
                    .iter()
                    .map(|k| Routed {
                        slot: cluster::slot(k),
                        cmd: redis::cmd("GET").arg(Layout::chunk_count(k)).clone(),
                    })
                    .collect();
                self.cluster
                    .run(gets)?
                    .iter()
                    .map(u64_of)
                    .collect::<Result<_>>()?
            } else {
                Vec::new()
            };
            let cmds = keys
                .iter()
                .enumerate()
                .map(|(i, key)| {
                    let mut del = redis::cmd("DEL");
                    del.arg(key);
                    let n = chunks.get(i).copied().unwrap_or(0);
                    if n > 0 {
                        del.arg(Layout::chunk_count(key));
                        for c in 0..n {
                            del.arg(Layout::chunk(key, c));
                        }
                    }
                    Routed {
                        slot: cluster::slot(key),
                        cmd: del,
                    }
                })
                .collect();
            for reply in self.cluster.run(cmds)? {
                checked(&reply)?;
            }
            next = stop;
        }
        Ok(())
    }

    /// Step 3 of a commit: one script per master sets its head and applies the writes.
    pub(super) fn apply(&self, commit: u64, changes: &Changes) -> Result<()> {
        let heads = self.heads.lock().clone();
        let mut per: BTreeMap<usize, Vec<Vec<u8>>> = BTreeMap::new();
        for ((space, key), change) in changes {
            let cell = self.layout.cell(*space, key);
            let m = self.cluster.master_of(cluster::slot(cell.route()));
            let args = per
                .entry(m)
                .or_insert_with(|| vec![commit.to_string().into_bytes()]);
            match (cell, &change.after) {
                (Cell::Str(k), Some(v)) => args.extend([b"s".to_vec(), k, v.clone()]),
                (Cell::Str(k), None) => args.extend([b"d".to_vec(), k]),
                (Cell::Field(k, f), Some(v)) => args.extend([b"H".to_vec(), k, f, v.clone()]),
                (Cell::Field(k, f), None) => args.extend([b"D".to_vec(), k, f]),
                (Cell::Ordered(z, h, m), Some(v)) => {
                    args.extend([b"Z".to_vec(), z, h, m, v.clone()])
                }
                (Cell::Ordered(z, h, m), None) => args.extend([b"X".to_vec(), z, h, m]),
            }
        }
        let mut cmds = Vec::new();
        for (m, args) in &per {
            let head = heads.get(*m).cloned().unwrap_or_default();
            let a: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
            let slot = cluster::slot(&head);
            cmds.push(Routed {
                slot,
                cmd: eval(scripts::APPLY, &[&head], &a),
            });
            cmds.push(self.wait(slot));
        }
        self.run_durable(cmds)
    }

    /// `WAIT` for this backend's replicas, on the master of `slot`.
    pub(super) fn wait(&self, slot: u16) -> Routed {
        Routed {
            slot,
            cmd: redis::cmd("WAIT")
                .arg(self.min_replicas)
                .arg(WAIT_MS)
                .clone(),
        }
    }

    /// Runs write commands, each followed by its `WAIT`: every reply must be a success and
    /// every `WAIT` must count `min_replicas`.
    pub(super) fn run_durable(&self, cmds: Vec<Routed>) -> Result<()> {
        let waits: Vec<bool> = cmds
            .iter()
            .map(|c| {
                c.cmd
                    .args_iter()
                    .next()
                    .is_some_and(|a| matches!(a, redis::Arg::Simple(b) if b == b"WAIT"))
            })
            .collect();
        for (reply, is_wait) in self.cluster.run(cmds)?.iter().zip(waits) {
            checked(reply)?;
            if is_wait && (u64_of(reply)? as usize) < self.min_replicas {
                return Err(fail(
                    BackendErrorKind::Unavailable,
                    format!(
                        "a write reached {} of the {} replicas a commit waits for: the commit \
                         is not acknowledged (the next writer rolls a logged one forward)",
                        u64_of(reply)?,
                        self.min_replicas
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Commits `changes` as commit `c` (steps 2 to 4 of the module docs).
    pub(super) fn commit_changes(&self, c: u64, changes: Changes) -> Result<()> {
        let Some(token) = &self.token else {
            return Err(fail(
                BackendErrorKind::Other,
                "a read-only open cannot commit",
            ));
        };
        let (lease, pending, rec) = (
            self.layout.control("writer"),
            self.layout.control("pending"),
            self.layout.control(&format!("log:{c}")),
        );
        let bytes = record::encode(&changes);
        // From the moment the record may be in the log, a failure leaves the commit in doubt:
        // the next writable open rolls it forward. This handle's caller (the graph's writer
        // state) takes a failure for "not applied", so it must not commit on top of it.
        let result = self.log_and_apply(c, changes, (&lease, &pending, &rec), token, &bytes);
        result.map_err(|e| {
            *self.in_doubt.lock() = Some(c);
            match e {
                EngineError::Backend {
                    backend,
                    kind,
                    message,
                } => EngineError::Backend {
                    backend,
                    kind,
                    message: format!(
                        "{message} (commit {c} is logged and may yet take effect: reopen the \
                         database, which finishes it)"
                    ),
                },
                other => other,
            }
        })
    }

    /// Steps 2 to 4 of commit `c`.
    fn log_and_apply(
        &self,
        c: u64,
        changes: Changes,
        (lease, pending, rec): (&[u8], &[u8], &[u8]),
        token: &str,
        bytes: &[u8],
    ) -> Result<()> {
        let slot = cluster::slot(lease);
        let log = eval(
            scripts::LOG,
            &[lease, pending, rec],
            &[
                token.as_bytes(),
                c.to_string().as_bytes(),
                bytes,
                LEASE_MS.to_string().as_bytes(),
            ],
        );
        self.run_durable(vec![Routed { slot, cmd: log }, self.wait(slot)])?;
        let changes = Arc::new(changes);
        self.records.lock().insert(c, Arc::clone(&changes));
        crate::failpoint!("cluster.commit.logged");
        self.apply(c, &changes)?;
        crate::failpoint!("cluster.commit.applied");
        self.finish(c)
    }

    /// Step 4: the commit is committed.
    pub(super) fn finish(&self, c: u64) -> Result<()> {
        let (seq, pending) = (self.layout.control("seq"), self.layout.control("pending"));
        let old = self
            .layout
            .control(&format!("log:{}", c.saturating_sub(LOG_KEEP)));
        let slot = cluster::slot(&seq);
        let cmd = eval(
            scripts::FINISH,
            &[&seq, &pending, &old],
            &[c.to_string().as_bytes()],
        );
        self.run_durable(vec![Routed { slot, cmd }, self.wait(slot)])?;
        self.view.store(c, Ordering::SeqCst);
        Ok(())
    }

    /// Rolls forward a commit the log holds but did not mark committed (its writer died).
    pub(super) fn roll_forward(&self) -> Result<()> {
        let pending = self.control_u64("pending")?;
        let seq = self.view.load(Ordering::SeqCst);
        if pending <= seq {
            return Ok(());
        }
        tracing::warn!(
            pending,
            "rolling forward a commit its writer did not finish"
        );
        let records = self.records(seq, pending)?;
        for (c, record) in records {
            self.apply(c, &record)?;
            self.finish(c)?;
        }
        Ok(())
    }
}

/// A merge operand applied to a stored value (`Space::Degree`: signed deltas added).
fn merge(space: Space, stored: Option<&[u8]>, operand: &[u8]) -> Result<Vec<u8>> {
    use cairn_storage_format::Degree;
    if space != Space::Degree {
        return Err(EngineError::Invalid(format!(
            "a merge into `{}`, which has no merge operator",
            space.name()
        )));
    }
    let base = match stored {
        Some(b) => Degree::decode(b).map_err(EngineError::corrupt("degree"))?,
        None => Degree::default(),
    };
    let delta = Degree::decode(operand).map_err(EngineError::corrupt("degree operand"))?;
    Ok(base.plus(delta).encode().to_vec())
}
