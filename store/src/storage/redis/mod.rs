//! The Redis Cluster backend of the storage boundary (docs/STORAGE.md, "Redis Cluster"): the
//! key layout of `layout.rs`, the commit protocol below, reads that never see part of a commit,
//! and a bulk path written in place.
//!
//! **Commits.** One process holds the writer lease (`NS:C:{NS}:writer`, renewed while it lives).
//! A commit `c` takes four round trips, each one pipeline per master involved, and each ending
//! in `WAIT` for the replicas (the durability setting: `min_replicas`, 1 on a cluster with
//! replicas):
//! 1. read the values the batch replaces (the undo images; degree merges become absolute puts);
//! 2. write the commit record (every key's value before and after) to the log and mark it
//!    pending, in the `{NS}` slot;
//! 3. on each master, one script sets the master's head to `c` and applies the writes;
//! 4. advance the committed sequence to `c` and clear the pending mark.
//!
//! The commit returns after step 4: acknowledged, it is on at least `min_replicas` replicas of
//! every master it touched, so it survives the loss of a master. A writer (or an opener) that
//! finds a pending record rolls it forward: the redo images are absolute, so applying twice is
//! applying once.
//!
//! **Reads.** A view shows one committed sequence `s` (the writer's last commit; a read-only
//! open's last catch-up; a snapshot's). Each round trip reads, per master and atomically with it
//! (one script), the master's head; where the head is past `s`, a later commit has touched that
//! master, and every key read there that a commit of `(s, head]` changed is replaced by the
//! undo image of the first such commit. So a reader never sees part of a commit, and a snapshot
//! costs nothing to take. Records are kept for the last `LOG_KEEP` commits; a view older than
//! that fails with an error that says to catch up.

mod cluster;
mod layout;
mod record;
mod scripts;

use super::{Batch, BulkPart, BulkSink, Each, Found, FoundAt, KvRead, Op, Scan, Space, Storage};
use crate::error::{BackendErrorKind, EngineError, Result};
use cluster::{fail, Cluster, Routed};
use layout::{Cell, Layout};
use parking_lot::Mutex;
use record::{Change, Changes};
use redis::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub(crate) use cluster::NAME;

/// Commit records kept in the log: a view this many commits behind the writer fails.
const LOG_KEEP: u64 = 4096;
/// The writer lease's time to live; renewed every third of it.
const LEASE_MS: u64 = 15_000;
/// Keys written per round trip by a bulk part.
const BULK_FLUSH: usize = 4096;
/// Members read per round trip of a range scan in an ordered group.
const RANGE_PAGE: usize = 1024;
/// Node ids read per round trip of a node-range scan.
const NODE_PAGE: u64 = 1024;
/// How long each `WAIT` for replicas may take.
const WAIT_MS: u64 = 5_000;

/// How to open a database on a cluster.
#[derive(Clone, Debug)]
pub(crate) struct RedisOptions {
    /// `host:port` of cluster nodes to discover it from.
    pub(crate) seeds: Vec<String>,
    /// The database's name: every Redis key starts with it.
    pub(crate) name: String,
    pub(crate) read_only: bool,
}

/// Where a database URL points: `redis://HOST:PORT[,HOST:PORT…]/NAME`.
pub(crate) fn parse_url(url: &str) -> Result<(Vec<String>, String)> {
    let bad = || {
        EngineError::Invalid(format!(
            "`{url}` is not a cluster database URL: redis://HOST:PORT[,HOST:PORT…]/NAME"
        ))
    };
    let rest = url.strip_prefix("redis://").ok_or_else(bad)?;
    let (hosts, name) = rest.split_once('/').ok_or_else(bad)?;
    let seeds: Vec<String> = hosts
        .split(',')
        .filter(|h| !h.is_empty())
        .map(cluster::addr_of)
        .collect();
    let valid = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if seeds.is_empty() || !valid {
        return Err(bad());
    }
    Ok((seeds, name.to_owned()))
}

/// A Cairn database in a Redis Cluster (see the module docs).
pub(crate) struct RedisStorage {
    cluster: Arc<Cluster>,
    layout: Layout,
    seeds: Vec<String>,
    /// The writer lease's token (`None`: a read-only open).
    token: Option<String>,
    /// The committed sequence the latest reads show.
    view: AtomicU64,
    /// Each master's head key, by master index.
    heads: Mutex<Vec<Vec<u8>>>,
    /// Commit records read from the log (or written by this process), by commit.
    records: Mutex<BTreeMap<u64, Arc<Changes>>>,
    /// Replicas each write must reach before a commit returns.
    min_replicas: usize,
    /// Set on drop: stops the lease's renewal.
    closing: Arc<AtomicBool>,
}

impl std::fmt::Debug for RedisStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStorage")
            .field("name", &self.layout.ns())
            .field("view", &self.view.load(Ordering::SeqCst))
            .field("writer", &self.token.is_some())
            .finish()
    }
}

fn eval(script: &str, keys: &[&[u8]], args: &[&[u8]]) -> redis::Cmd {
    let mut cmd = redis::cmd("EVAL");
    cmd.arg(script).arg(keys.len());
    for k in keys {
        cmd.arg(*k);
    }
    for a in args {
        cmd.arg(*a);
    }
    cmd
}

/// A reply's bytes (`None` for nil).
fn bytes_of(v: &Value) -> Result<Option<Vec<u8>>> {
    match v {
        Value::Nil => Ok(None),
        Value::BulkString(b) => Ok(Some(b.clone())),
        Value::SimpleString(s) => Ok(Some(s.clone().into_bytes())),
        Value::Okay => Ok(Some(b"OK".to_vec())),
        Value::Int(i) => Ok(Some(i.to_string().into_bytes())),
        Value::ServerError(e) => Err(fail(
            BackendErrorKind::Other,
            format!("{}: {}", e.code(), e.details().unwrap_or_default()),
        )),
        other => Err(fail(
            BackendErrorKind::Other,
            format!("unexpected reply {other:?}"),
        )),
    }
}

fn checked(v: &Value) -> Result<()> {
    bytes_of(v).map(drop)
}

fn u64_of(v: &Value) -> Result<u64> {
    Ok(bytes_of(v)?
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|s| s.parse().ok())
        .unwrap_or(0))
}

fn array(v: Value) -> Result<Vec<Value>> {
    match v {
        Value::Array(items) => Ok(items),
        Value::ServerError(_) => bytes_of(&v).map(|_| Vec::new()),
        other => Err(fail(
            BackendErrorKind::Other,
            format!("expected an array, got {other:?}"),
        )),
    }
}

/// Node-range deletions of a batch ([`Op::DeleteNodes`]).
type NodeRanges = Vec<(Space, std::ops::Range<u64>)>;

/// Entries of an adjacency hash or ordered group being written by a bulk part.
type Fields = Vec<(Vec<u8>, Vec<u8>)>;

/// One read of a round trip.
enum Read {
    Get(Cell),
    Hash(Vec<u8>),
    Range {
        z: Vec<u8>,
        h: Vec<u8>,
        min: Vec<u8>,
        max: Vec<u8>,
        limit: usize,
    },
}

impl Read {
    fn route(&self) -> &[u8] {
        match self {
            Read::Get(c) => c.route(),
            Read::Hash(k) => k,
            Read::Range { z, .. } => z,
        }
    }
}

/// What a read answered, with the head of the master that answered it.
struct Answer {
    head: u64,
    master: usize,
    value: Value,
}

impl RedisStorage {
    /// Opens (or creates) the database `options.name` on the cluster.
    pub(crate) fn open(options: &RedisOptions) -> Result<RedisStorage> {
        let cluster = Arc::new(Cluster::connect(options.seeds.clone())?);
        let layout = Layout::new(&options.name);
        let min_replicas = usize::from(Self::has_replicas(&cluster)?);
        let mut storage = RedisStorage {
            cluster,
            layout,
            seeds: options.seeds.clone(),
            token: None,
            view: AtomicU64::new(0),
            heads: Mutex::new(Vec::new()),
            records: Mutex::new(BTreeMap::new()),
            min_replicas,
            closing: Arc::new(AtomicBool::new(false)),
        };
        storage.place_heads();
        if !options.read_only {
            storage.lease()?;
        }
        let seq = storage.control_u64("seq")?;
        storage.view.store(seq, Ordering::SeqCst);
        if !options.read_only {
            storage.roll_forward()?;
        }
        Ok(storage)
    }

    /// Whether the cluster's masters have replicas (then each write waits for one).
    fn has_replicas(cluster: &Cluster) -> Result<bool> {
        let masters = cluster.masters();
        let Some(first) = masters.first() else {
            return Ok(false);
        };
        let slot = cluster::slot(first.as_bytes());
        let _ = slot;
        let reply = cluster.run(vec![Routed {
            slot: 0,
            cmd: redis::cmd("INFO").arg("replication").clone(),
        }])?;
        let text = reply
            .first()
            .map(bytes_of)
            .transpose()?
            .flatten()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        Ok(text
            .lines()
            .any(|l| l.starts_with("connected_slaves:") && !l.ends_with(":0")))
    }

    /// Picks, for each master, a head key in a slot it serves.
    fn place_heads(&self) {
        let by_master = self.cluster.slots_by_master();
        let mut heads = vec![Vec::new(); by_master.len()];
        let mut missing = heads.len();
        let mut i = 0u64;
        while missing > 0 && i < 1 << 20 {
            let key = format!("{ns}:H:{{{ns}-h{i}}}", ns = self.layout.ns()).into_bytes();
            let m = self.cluster.master_of(cluster::slot(&key));
            if let Some(slot) = heads.get_mut(m) {
                if slot.is_empty() {
                    *slot = key;
                    missing -= 1;
                }
            }
            i += 1;
        }
        *self.heads.lock() = heads;
    }

    fn control_u64(&self, what: &str) -> Result<u64> {
        let key = self.layout.control(what);
        let reply = self.cluster.run(vec![Routed {
            slot: cluster::slot(&key),
            cmd: redis::cmd("GET").arg(key).clone(),
        }])?;
        reply.first().map_or(Ok(0), u64_of)
    }

    /// Takes the writer lease, or fails with [`EngineError::Locked`] when another process
    /// holds it; a thread renews it while the storage lives.
    fn lease(&mut self) -> Result<()> {
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

    /// The database's URL, for messages.
    pub(crate) fn url(&self) -> String {
        format!("redis://{}/{}", self.seeds.join(","), self.layout.ns())
    }

    // ---- reads ----

    /// Runs `reads` in one round trip (one script per master) and returns each one's answer.
    fn read(&self, reads: &[Read]) -> Result<Vec<Answer>> {
        if reads.is_empty() {
            return Ok(Vec::new());
        }
        let heads = self.heads.lock().clone();
        // Per master: (positions, args); the head key is the script's one key.
        let mut per: HashMap<usize, (Vec<usize>, Vec<Vec<u8>>)> = HashMap::new();
        for (i, r) in reads.iter().enumerate() {
            let m = self.cluster.master_of(cluster::slot(r.route()));
            let (positions, args) = per.entry(m).or_default();
            positions.push(i);
            match r {
                Read::Get(Cell::Str(k)) => args.extend([b"g".to_vec(), k.clone()]),
                Read::Get(Cell::Field(k, f)) => args.extend([b"f".to_vec(), k.clone(), f.clone()]),
                Read::Get(Cell::Ordered(_, h, member)) => {
                    args.extend([b"f".to_vec(), h.clone(), member.clone()])
                }
                Read::Hash(k) => args.extend([b"a".to_vec(), k.clone()]),
                Read::Range {
                    z,
                    h,
                    min,
                    max,
                    limit,
                } => args.extend([
                    b"r".to_vec(),
                    z.clone(),
                    h.clone(),
                    min.clone(),
                    max.clone(),
                    limit.to_string().into_bytes(),
                ]),
            }
        }
        let mut order = Vec::new();
        let mut cmds = Vec::new();
        for (m, (positions, args)) in per {
            let head = heads.get(m).cloned().unwrap_or_default();
            let args: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
            cmds.push(Routed {
                slot: cluster::slot(&head),
                cmd: eval(scripts::READ, &[&head], &args),
            });
            order.push((m, positions));
        }
        let replies = self.cluster.run(cmds)?;
        let mut out: Vec<Option<Answer>> = (0..reads.len()).map(|_| None).collect();
        for ((m, positions), reply) in order.into_iter().zip(replies) {
            let mut items = array(reply)?.into_iter();
            let head = items.next().map_or(Ok(0), |v| u64_of(&v))?;
            for (i, value) in positions.into_iter().zip(items) {
                if let Some(slot) = out.get_mut(i) {
                    *slot = Some(Answer {
                        head,
                        master: m,
                        value,
                    });
                }
            }
        }
        out.into_iter()
            .map(|a| a.ok_or_else(|| fail(BackendErrorKind::Other, "a read got no reply")))
            .collect()
    }

    /// The records of commits `(after, upto]`, from the cache or the log (one round trip for
    /// those not cached).
    fn records(&self, after: u64, upto: u64) -> Result<Vec<(u64, Arc<Changes>)>> {
        if upto <= after {
            return Ok(Vec::new());
        }
        let missing: Vec<u64> = {
            let cache = self.records.lock();
            (after + 1..=upto)
                .filter(|c| !cache.contains_key(c))
                .collect()
        };
        if !missing.is_empty() {
            let cmds = missing
                .iter()
                .map(|c| {
                    let key = self.layout.control(&format!("log:{c}"));
                    Routed {
                        slot: cluster::slot(&key),
                        cmd: redis::cmd("GET").arg(key).clone(),
                    }
                })
                .collect();
            let replies = self.cluster.run(cmds)?;
            let mut cache = self.records.lock();
            for (c, reply) in missing.iter().zip(replies) {
                match bytes_of(&reply)? {
                    Some(bytes) => {
                        cache.insert(*c, Arc::new(record::decode(&bytes)?));
                    }
                    // A commit number past the last record: its head was set by a commit that
                    // is being written now and has no record yet? Heads are set only after the
                    // record, so a missing one is a trimmed one.
                    None => {
                        return Err(fail(
                            BackendErrorKind::Unavailable,
                            format!(
                                "this view (commit {after}) is older than the log keeps \
                                 (commit {c} is gone): catch up or reopen"
                            ),
                        ))
                    }
                }
            }
            while cache.len() as u64 > LOG_KEEP {
                cache.pop_first();
            }
        }
        let cache = self.records.lock();
        Ok((after + 1..=upto)
            .filter_map(|c| cache.get(&c).map(|r| (c, Arc::clone(r))))
            .collect())
    }

    /// The value of `(space, key)` as of commit `at`, given the value read now from a master
    /// whose head was `head`: the undo image of the first commit of `(at, head]` that changed
    /// it, else the value read.
    fn as_of(
        &self,
        at: u64,
        head: u64,
        space: Space,
        key: &[u8],
        now: Option<Vec<u8>>,
    ) -> Result<Option<Vec<u8>>> {
        if head <= at {
            return Ok(now);
        }
        for (_, record) in self.records(at, head)? {
            if let Some(change) = record.get(&(space, key.to_vec())) {
                return Ok(change.before.clone());
            }
        }
        Ok(now)
    }

    /// The keys of `space` in `[start, end)` as of commit `at`, given the entries read now
    /// (`now`, in any order) from a master whose head was `head`.
    fn patch_range(
        &self,
        at: u64,
        head: u64,
        space: Space,
        (start, end): (&[u8], Option<&[u8]>),
        now: Vec<(Vec<u8>, Vec<u8>)>,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let mut entries: BTreeMap<Vec<u8>, Vec<u8>> = now.into_iter().collect();
        if head > at {
            let mut seen = std::collections::HashSet::new();
            for (_, record) in self.records(at, head)? {
                let lo = (space, start.to_vec());
                for ((s, key), change) in record.range(lo..) {
                    if *s != space || end.is_some_and(|e| key.as_slice() >= e) {
                        break;
                    }
                    if !seen.insert(key.clone()) {
                        continue;
                    }
                    match &change.before {
                        Some(v) => entries.insert(key.clone(), v.clone()),
                        None => entries.remove(key),
                    };
                }
            }
        }
        Ok(entries.into_iter().collect())
    }

    fn get_at(&self, at: u64, space: Space, key: &[u8], found: &mut Found<'_>) -> Result<bool> {
        let mut hit = false;
        self.multi_get_at(at, space, &[key], &mut |_, v| {
            hit = true;
            found(v)
        })?;
        Ok(hit)
    }

    fn multi_get_at(
        &self,
        at: u64,
        space: Space,
        keys: &[&[u8]],
        found: &mut FoundAt<'_>,
    ) -> Result<()> {
        let reads: Vec<Read> = keys
            .iter()
            .map(|k| Read::Get(self.layout.cell(space, k)))
            .collect();
        for (i, answer) in self.read(&reads)?.into_iter().enumerate() {
            let now = bytes_of(&answer.value)?;
            let key = keys.get(i).copied().unwrap_or_default();
            if let Some(v) = self.as_of(at, answer.head, space, key, now)? {
                found(i, &v)?;
            }
        }
        Ok(())
    }

    /// The entries of an adjacency hash (`now`: HGETALL's reply) as boundary keys of node `id`.
    fn hash_entries(id: u64, reply: Value) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let items = array(reply)?;
        let mut out = Vec::with_capacity(items.len() / 2);
        let mut it = items.iter();
        while let (Some(f), Some(v)) = (it.next(), it.next()) {
            let f = bytes_of(f)?.unwrap_or_default();
            out.push((Layout::edge_key(id, &f), bytes_of(v)?.unwrap_or_default()));
        }
        Ok(out)
    }

    fn scan_at(&self, at: u64, space: Space, scan: Scan<'_>, each: &mut Each<'_>) -> Result<()> {
        match (space.grouping(), scan) {
            (super::Grouping::Node, Scan::Range { start, end }) => {
                let id = layout::node_id(start);
                let entries = self.node_entries(at, space, &[id])?;
                for (k, v) in entries {
                    if k.as_slice() >= start
                        && end.is_none_or(|e| k.as_slice() < e)
                        && !each(&k, &v)?
                    {
                        break;
                    }
                }
                Ok(())
            }
            (super::Grouping::Node, Scan::Nodes(ids)) => {
                let mut next = ids.start;
                while next < ids.end {
                    let stop = ids.end.min(next.saturating_add(NODE_PAGE));
                    let page: Vec<u64> = (next..stop).collect();
                    for (k, v) in self.node_entries(at, space, &page)? {
                        if !each(&k, &v)? {
                            return Ok(());
                        }
                    }
                    next = stop;
                }
                Ok(())
            }
            (super::Grouping::Node, Scan::All) => {
                let mut ids: Vec<u64> = self
                    .scan_keys(&self.layout.pattern(space))?
                    .iter()
                    .filter_map(|k| Layout::id_of(k))
                    .collect();
                // Keys a later commit deleted are still in the view: the records name them.
                ids.extend(self.touched_ids(at, space)?);
                ids.sort_unstable();
                ids.dedup();
                for page in ids.chunks(NODE_PAGE as usize) {
                    for (k, v) in self.node_entries(at, space, page)? {
                        if !each(&k, &v)? {
                            return Ok(());
                        }
                    }
                }
                Ok(())
            }
            (_, Scan::Range { start, end }) => {
                let (z, h) = self.layout.group_keys(space, space.group_of(start));
                self.range_at(at, space, (&z, &h), (start, end), each)
            }
            (_, Scan::Nodes(_)) => Err(EngineError::Invalid(format!(
                "a node-range scan of `{}`, which is not keyed by node",
                space.name()
            ))),
            (_, Scan::All) => {
                let mut groups = self.scan_keys(&self.layout.pattern(space))?;
                groups.sort();
                for z in groups {
                    let mut h = z.clone();
                    h.pop();
                    h.push(b'h');
                    let mut go = true;
                    self.range_at(at, space, (&z, &h), (&[], None), &mut |k, v| {
                        go = each(k, v)?;
                        Ok(go)
                    })?;
                    if !go {
                        break;
                    }
                }
                Ok(())
            }
        }
    }

    /// The ids whose keys in `space` the commits after `at` that this process can see touched.
    fn touched_ids(&self, at: u64, space: Space) -> Result<Vec<u64>> {
        let upto = self.control_u64("seq")?.max(at);
        let mut ids = Vec::new();
        for (_, record) in self.records(at, upto)? {
            ids.extend(
                record
                    .keys()
                    .filter(|(s, _)| *s == space)
                    .map(|(_, k)| layout::node_id(k)),
            );
        }
        Ok(ids)
    }

    /// The entries of nodes `ids` in a node-keyed space, as of `at`, in key order.
    fn node_entries(&self, at: u64, space: Space, ids: &[u64]) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let adjacency = matches!(space, Space::Out | Space::In);
        let reads: Vec<Read> = ids
            .iter()
            .map(|id| {
                let key = self.layout.node_key(space, *id);
                if adjacency {
                    Read::Hash(key)
                } else {
                    Read::Get(Cell::Str(key))
                }
            })
            .collect();
        let mut out = Vec::new();
        for (id, answer) in ids.iter().zip(self.read(&reads)?) {
            if adjacency {
                let now = Self::hash_entries(*id, answer.value)?;
                let start = id.to_be_bytes();
                let end = id.checked_add(1).map(u64::to_be_bytes);
                out.extend(self.patch_range(
                    at,
                    answer.head,
                    space,
                    (&start, end.as_ref().map(|e| e.as_slice())),
                    now,
                )?);
            } else {
                let key = id.to_be_bytes();
                let now = bytes_of(&answer.value)?;
                if let Some(v) = self.as_of(at, answer.head, space, &key, now)? {
                    out.push((key.to_vec(), v));
                }
            }
            let _ = answer.master;
        }
        Ok(out)
    }

    /// A range of an ordered group as of `at`, a page per round trip.
    fn range_at(
        &self,
        at: u64,
        space: Space,
        (z, h): (&[u8], &[u8]),
        (start, end): (&[u8], Option<&[u8]>),
        each: &mut Each<'_>,
    ) -> Result<()> {
        let max = match end {
            Some(e) => [b"(".as_slice(), e].concat(),
            None => b"+".to_vec(),
        };
        let mut min = [b"[".as_slice(), start].concat();
        loop {
            let answers = self.read(&[Read::Range {
                z: z.to_vec(),
                h: h.to_vec(),
                min: min.clone(),
                max: max.clone(),
                limit: RANGE_PAGE,
            }])?;
            let Some(answer) = answers.into_iter().next() else {
                return Ok(());
            };
            let mut parts = array(answer.value)?.into_iter();
            let members = parts.next().map(array).transpose()?.unwrap_or_default();
            let values = parts.next().map(array).transpose()?.unwrap_or_default();
            let full = members.len() == RANGE_PAGE;
            let mut now = Vec::with_capacity(members.len());
            for (m, v) in members.iter().zip(&values) {
                now.push((
                    bytes_of(m)?.unwrap_or_default(),
                    bytes_of(v)?.unwrap_or_default(),
                ));
            }
            // This page covers [page start, last member] (or to the end when it is not full).
            let page_start = min.get(1..).unwrap_or_default().to_vec();
            let page_end = match (full, now.last()) {
                (true, Some((last, _))) => {
                    let mut e = last.clone();
                    e.push(0);
                    Some(e)
                }
                _ => end.map(<[u8]>::to_vec),
            };
            let entries = self.patch_range(
                at,
                answer.head,
                space,
                (&page_start, page_end.as_deref()),
                now,
            )?;
            for (k, v) in &entries {
                if !each(k, v)? {
                    return Ok(());
                }
            }
            match (full, page_end) {
                (true, Some(next)) => min = [b"[".as_slice(), &next].concat(),
                _ => return Ok(()),
            }
        }
    }

    /// Every Redis key matching `pattern`, from `SCAN` on each master.
    fn scan_keys(&self, pattern: &str) -> Result<Vec<Vec<u8>>> {
        let by_master = self.cluster.slots_by_master();
        let mut out = Vec::new();
        for slots in by_master {
            let Some(&slot) = slots.first() else { continue };
            let mut cursor = 0u64;
            loop {
                let reply = self.cluster.run(vec![Routed {
                    slot,
                    cmd: redis::cmd("SCAN")
                        .arg(cursor)
                        .arg("MATCH")
                        .arg(pattern)
                        .arg("COUNT")
                        .arg(10_000)
                        .clone(),
                }])?;
                let mut parts = reply
                    .into_iter()
                    .next()
                    .map(array)
                    .transpose()?
                    .unwrap_or_default()
                    .into_iter();
                cursor = parts.next().map_or(Ok(0), |v| u64_of(&v))?;
                for k in parts.next().map(array).transpose()?.unwrap_or_default() {
                    out.extend(bytes_of(&k)?);
                }
                if cursor == 0 {
                    break;
                }
            }
        }
        Ok(out)
    }

    // ---- commits ----

    /// The writes of `batch` as absolute values, with the values they replace: one round trip
    /// for the values before (degree merges add to them).
    fn resolve(&self, batch: &Batch) -> Result<(Changes, NodeRanges)> {
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
    fn delete_nodes(&self, space: Space, ids: std::ops::Range<u64>) -> Result<()> {
        let mut next = ids.start;
        while next < ids.end {
            let stop = ids.end.min(next.saturating_add(BULK_FLUSH as u64));
            let cmds = (next..stop)
                .map(|id| {
                    let key = self.layout.node_key(space, id);
                    Routed {
                        slot: cluster::slot(&key),
                        cmd: redis::cmd("DEL").arg(key).clone(),
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
    fn apply(&self, commit: u64, changes: &Changes) -> Result<()> {
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
    fn wait(&self, slot: u16) -> Routed {
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
    fn run_durable(&self, cmds: Vec<Routed>) -> Result<()> {
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
    fn commit_changes(&self, c: u64, changes: Changes) -> Result<()> {
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
        let slot = cluster::slot(&lease);
        let bytes = record::encode(&changes);
        let log = eval(
            scripts::LOG,
            &[&lease, &pending, &rec],
            &[
                token.as_bytes(),
                c.to_string().as_bytes(),
                &bytes,
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
    fn finish(&self, c: u64) -> Result<()> {
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
    fn roll_forward(&self) -> Result<()> {
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

impl Drop for RedisStorage {
    fn drop(&mut self) {
        self.closing.store(true, Ordering::SeqCst);
        if let Some(token) = &self.token {
            let key = self.layout.control("writer");
            let cmd = eval(scripts::RELEASE, &[&key], &[token.as_bytes()]);
            let _ = self.cluster.run(vec![Routed {
                slot: cluster::slot(&key),
                cmd,
            }]);
        }
    }
}

/// Reads of one committed sequence.
struct View<'a> {
    storage: &'a RedisStorage,
    at: u64,
}

impl KvRead for View<'_> {
    fn get(&self, space: Space, key: &[u8], found: &mut Found<'_>) -> Result<bool> {
        self.storage.get_at(self.at, space, key, found)
    }
    fn multi_get(&self, space: Space, keys: &[&[u8]], found: &mut FoundAt<'_>) -> Result<()> {
        self.storage.multi_get_at(self.at, space, keys, found)
    }
    fn scan(&self, space: Space, scan: Scan<'_>, each: &mut Each<'_>) -> Result<()> {
        self.storage.scan_at(self.at, space, scan, each)
    }
}

impl KvRead for RedisStorage {
    fn get(&self, space: Space, key: &[u8], found: &mut Found<'_>) -> Result<bool> {
        self.get_at(self.view.load(Ordering::SeqCst), space, key, found)
    }
    fn multi_get(&self, space: Space, keys: &[&[u8]], found: &mut FoundAt<'_>) -> Result<()> {
        self.multi_get_at(self.view.load(Ordering::SeqCst), space, keys, found)
    }
    fn scan(&self, space: Space, scan: Scan<'_>, each: &mut Each<'_>) -> Result<()> {
        self.scan_at(self.view.load(Ordering::SeqCst), space, scan, each)
    }
}

/// A bulk part written in place: puts buffered and sent a few thousand at a time, one pipeline
/// per master, on connections of its own (parts are written on several threads at once).
struct Sink<'a> {
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

impl Storage for RedisStorage {
    fn backend(&self) -> &'static str {
        NAME
    }

    fn as_read(&self) -> &dyn KvRead {
        self
    }

    fn snapshot(&self) -> Box<dyn KvRead + '_> {
        Box::new(View {
            storage: self,
            at: self.view.load(Ordering::SeqCst),
        })
    }

    fn commit(&self, batch: &Batch, _sync: bool) -> Result<()> {
        if self.token.is_none() {
            return Err(fail(
                BackendErrorKind::Other,
                "a read-only open cannot commit",
            ));
        }
        // A commit an earlier error left logged and unfinished goes first.
        self.roll_forward()?;
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

    fn sequence(&self) -> u64 {
        self.view.load(Ordering::SeqCst)
    }

    fn round_trips(&self) -> Option<u64> {
        Some(self.cluster.counters().0)
    }

    fn catch_up(&self) -> Result<bool> {
        if self.token.is_some() {
            return Ok(false);
        }
        let seq = self.control_u64("seq")?;
        Ok(self.view.fetch_max(seq, Ordering::SeqCst) < seq)
    }

    /// Counted, not estimated: the Redis keys of the space (`SCAN`), and for the adjacency
    /// hashes their fields (`HLEN`, a few thousand keys per round trip).
    fn estimate_keys(&self, space: Space) -> Result<u64> {
        let keys = self.scan_keys(&self.layout.pattern(space))?;
        if !matches!(space, Space::Out | Space::In) {
            return Ok(keys.len() as u64);
        }
        let mut total = 0;
        for chunk in keys.chunks(BULK_FLUSH) {
            let cmds = chunk
                .iter()
                .map(|k| Routed {
                    slot: cluster::slot(k),
                    cmd: redis::cmd("HLEN").arg(k).clone(),
                })
                .collect();
            for reply in self.cluster.run(cmds)? {
                total += u64_of(&reply)?;
            }
        }
        Ok(total)
    }

    fn checkpoint(&self, _dir: &Path) -> Result<()> {
        Err(fail(
            BackendErrorKind::Other,
            "a private copy of a cluster database is not supported (a transaction's EXPLORE \
             needs one)",
        ))
    }

    fn bulk_in_place(&self) -> bool {
        true
    }

    fn bulk_begin(&self) -> Result<()> {
        Ok(())
    }

    fn bulk_write(
        &self,
        space: Space,
        part: usize,
        fill: &mut dyn FnMut(&mut dyn BulkSink) -> Result<()>,
    ) -> Result<Option<BulkPart>> {
        let _ = part;
        let mut sink = Sink {
            storage: self,
            cluster: Cluster::connect(self.seeds.clone())?,
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

    fn bulk_ingest(&self, _parts: Vec<BulkPart>) -> Result<()> {
        Ok(())
    }

    fn bulk_end(&self) {}
}
