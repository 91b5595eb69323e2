//! Reads of the cluster backend: one round trip per batch of reads (scripts per master,
//! atomic there with the master's head), patched to the reader's committed view with the undo
//! images of later commits (the module docs of `redis`), and the scans built on them.

use super::cluster::{self, fail, Routed};
use super::layout::{self, Cell, Layout};
use super::record::{self, Changes};
use super::reply::{array, bytes_of, eval, u64_of};
use super::{scripts, RedisStorage, LOG_KEEP};
use crate::error::{BackendErrorKind, EngineError, Result};
use crate::storage::{
    Each, Found, FoundAt, FoundIn, Grouping, KvRead, Read as Wanted, Scan, Space,
};
use redis::Value;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Members read per round trip of a range scan in an ordered group.
const RANGE_PAGE: usize = 1024;
/// Reads per script: a master's part of a larger batch is several scripts in one pipeline.
const SCRIPT_READS: usize = 2048;
/// Node ids read per round trip of a node-range scan.
pub(super) const NODE_PAGE: u64 = 1024;

/// A read script's arguments: op codes and operands, borrowed where they can be.
type ScriptArgs<'a> = Vec<Cow<'a, [u8]>>;

/// Keys and values, in key order.
type Entries = Vec<(Vec<u8>, Vec<u8>)>;

/// One read of a round trip.
pub(super) enum Read {
    Get(Cell),
    Hash(Vec<u8>),
    /// Members of a sorted set in a lexical range (`ZRANGEBYLEX` bounds), ascending or
    /// (`reverse`) descending, at most `limit`, with their values from the hash.
    Range {
        z: Vec<u8>,
        h: Vec<u8>,
        min: Vec<u8>,
        max: Vec<u8>,
        limit: usize,
        reverse: bool,
    },
}

impl Read {
    /// How many script arguments it takes (its op code and operands).
    fn args(&self) -> usize {
        match self {
            Read::Get(Cell::Str(_)) | Read::Hash(_) => 2,
            Read::Get(Cell::Field(..) | Cell::Ordered(..)) => 3,
            Read::Range { .. } => 6,
        }
    }

    fn route(&self) -> &[u8] {
        match self {
            Read::Get(c) => c.route(),
            Read::Hash(k) => k,
            Read::Range { z, .. } => z,
        }
    }
}

/// What a read answered, with the head of the master that answered it.
pub(super) struct Answer {
    pub(super) head: u64,
    pub(super) value: Value,
}

impl RedisStorage {
    /// Runs `reads` in one round trip (one script per master) and returns each one's answer.
    pub(super) fn read(&self, reads: &[Read]) -> Result<Vec<Answer>> {
        if reads.is_empty() {
            return Ok(Vec::new());
        }
        let heads = self.heads.lock().clone();
        let masters = self
            .cluster
            .masters_of(reads.iter().map(|r| cluster::slot(r.route())));
        // Per master: the positions of its reads, and their script arguments.
        let mut per: HashMap<usize, (Vec<usize>, ScriptArgs<'_>)> = HashMap::new();
        for (i, (r, m)) in reads.iter().zip(masters).enumerate() {
            let (positions, args) = per.entry(m).or_default();
            positions.push(i);
            let b = |x: &'static [u8]| Cow::Borrowed(x);
            match r {
                Read::Get(Cell::Str(k)) => args.extend([b(b"g"), k.into()]),
                Read::Get(Cell::Field(k, f)) => args.extend([b(b"e"), k.into(), f.into()]),
                Read::Get(Cell::Ordered(_, h, member)) => {
                    args.extend([b(b"f"), h.into(), member.into()])
                }
                Read::Hash(k) => args.extend([b(b"a"), k.into()]),
                Read::Range {
                    z,
                    h,
                    min,
                    max,
                    limit,
                    reverse,
                } => args.extend([
                    b(if *reverse { b"R" } else { b"r" }),
                    z.into(),
                    h.into(),
                    min.into(),
                    max.into(),
                    Cow::Owned(limit.to_string().into_bytes()),
                ]),
            }
        }
        // A master's part is one pipelined request (one round trip) of scripts of at most
        // SCRIPT_READS reads each, so that no script holds its master for long.
        let mut order = Vec::new();
        let mut cmds = Vec::new();
        for (m, (positions, args)) in per {
            let head = heads.get(m).cloned().unwrap_or_default();
            let mut args = args.iter();
            for part in positions.chunks(SCRIPT_READS) {
                let n: usize = part.iter().map(|&i| reads[i].args()).sum();
                let part_args: Vec<&[u8]> = args.by_ref().take(n).map(|a| a.as_ref()).collect();
                cmds.push(Routed {
                    slot: cluster::slot(&head),
                    cmd: eval(scripts::READ, &[&head], &part_args),
                });
                order.push(part.to_vec());
            }
        }
        let replies = self.cluster.run(cmds)?;
        let mut out: Vec<Option<Answer>> = (0..reads.len()).map(|_| None).collect();
        for (positions, reply) in order.into_iter().zip(replies) {
            let mut items = array(reply)?.into_iter();
            let head = items.next().map_or(Ok(0), |v| u64_of(&v))?;
            for (i, value) in positions.into_iter().zip(items) {
                if let Some(slot) = out.get_mut(i) {
                    *slot = Some(Answer { head, value });
                }
            }
        }
        out.into_iter()
            .map(|a| a.ok_or_else(|| fail(BackendErrorKind::Other, "a read got no reply")))
            .collect()
    }

    /// The records of commits `(after, upto]`, from the cache or the log (one round trip for
    /// those not cached).
    pub(super) fn records(&self, after: u64, upto: u64) -> Result<Vec<(u64, Arc<Changes>)>> {
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
    pub(super) fn as_of(
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
    pub(super) fn patch_range(
        &self,
        at: u64,
        head: u64,
        space: Space,
        (start, end): (&[u8], Option<&[u8]>),
        mut now: Vec<(Vec<u8>, Vec<u8>)>,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        if head <= at {
            // No later commit touched the master: the entries as read, in key order.
            now.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            return Ok(now);
        }
        let mut entries: BTreeMap<Vec<u8>, Vec<u8>> = now.into_iter().collect();
        {
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

    pub(super) fn get_at(
        &self,
        at: u64,
        space: Space,
        key: &[u8],
        found: &mut Found<'_>,
    ) -> Result<bool> {
        let mut hit = false;
        self.multi_get_at(at, space, &[key], &mut |_, v| {
            hit = true;
            found(v)
        })?;
        Ok(hit)
    }

    pub(super) fn multi_get_at(
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

    /// The entries of an adjacency (the `a` read's one string: every field and value of its
    /// hash or chunks, in no order) as boundary keys of node `id`.
    pub(super) fn hash_entries(id: u64, reply: Value) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let packed = match reply {
            Value::BulkString(b) => b,
            other => bytes_of(&other)?.unwrap_or_default(),
        };
        packed_entries(id, &packed).ok_or_else(|| malformed(id))
    }

    pub(super) fn scan_at(
        &self,
        at: u64,
        space: Space,
        scan: Scan<'_>,
        each: &mut Each<'_>,
    ) -> Result<()> {
        match (space.grouping(), scan) {
            (Grouping::Node, Scan::Range { start, end }) => {
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
            (Grouping::Node, Scan::Reverse { start, end }) => {
                let id = layout::node_id(start);
                let entries = self.node_entries(at, space, &[id])?;
                for (k, v) in entries.iter().rev() {
                    if k.as_slice() >= start && end.is_none_or(|e| k.as_slice() < e) && !each(k, v)?
                    {
                        break;
                    }
                }
                Ok(())
            }
            (Grouping::Node, Scan::Nodes(ids)) => {
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
            (Grouping::Node, Scan::All) => {
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
            (_, Scan::Reverse { start, end }) => {
                let (z, h) = self.layout.group_keys(space, space.group_of(start));
                self.reverse_range_at(at, space, (&z, &h), (start, end), each)
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
    pub(super) fn touched_ids(&self, at: u64, space: Space) -> Result<Vec<u64>> {
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
    pub(super) fn node_entries(
        &self,
        at: u64,
        space: Space,
        ids: &[u64],
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let reads: Vec<Wanted<'_>> = ids.iter().map(|id| Wanted::Node(space, *id)).collect();
        let mut out = Vec::new();
        self.multi_read_at(at, &reads, &mut |_, k, v| {
            out.push((k.to_vec(), v.to_vec()));
            Ok(())
        })?;
        Ok(out)
    }

    /// [`KvRead::multi_read`] as of `at`: every read in one round trip (one script per master),
    /// each answer patched to the view; a read's keys reach `found` in key order.
    pub(super) fn multi_read_at(
        &self,
        at: u64,
        wanted: &[Wanted<'_>],
        found: &mut FoundIn<'_>,
    ) -> Result<()> {
        let reads: Vec<Read> = wanted
            .iter()
            .map(|w| match *w {
                Wanted::Get(space, key) => Read::Get(self.layout.cell(space, key)),
                Wanted::Node(space @ (Space::Out | Space::In), id) => {
                    Read::Hash(self.layout.node_key(space, id))
                }
                Wanted::Node(space, id) => Read::Get(Cell::Str(self.layout.node_key(space, id))),
            })
            .collect();
        for (i, (w, answer)) in wanted.iter().zip(self.read(&reads)?).enumerate() {
            match *w {
                Wanted::Get(space, key) => {
                    let now = bytes_of(&answer.value)?;
                    if let Some(v) = self.as_of(at, answer.head, space, key, now)? {
                        found(i, key, &v)?;
                    }
                }
                Wanted::Node(Space::Out | Space::In, id) if answer.head <= at => {
                    // No later commit touched the master: the entries as read, in key order,
                    // handed on from the reply without a copy each (a node's adjacency is most
                    // of what a batch reads).
                    let packed = match &answer.value {
                        Value::BulkString(b) => Cow::Borrowed(b.as_slice()),
                        other => Cow::Owned(bytes_of(other)?.unwrap_or_default()),
                    };
                    let mut fields = packed_fields(&packed).ok_or_else(|| malformed(id))?;
                    fields.sort_unstable_by(|a, b| a.0.cmp(b.0));
                    let mut key = Vec::new();
                    for (field, value) in fields {
                        Layout::edge_key_into(&mut key, id, field);
                        found(i, &key, value)?;
                    }
                }
                Wanted::Node(space @ (Space::Out | Space::In), id) => {
                    let now = Self::hash_entries(id, answer.value)?;
                    let start = id.to_be_bytes();
                    let end = id.checked_add(1).map(u64::to_be_bytes);
                    let range = (start.as_slice(), end.as_ref().map(|e| e.as_slice()));
                    for (k, v) in self.patch_range(at, answer.head, space, range, now)? {
                        found(i, &k, &v)?;
                    }
                }
                Wanted::Node(space, id) => {
                    let key = id.to_be_bytes();
                    let now = bytes_of(&answer.value)?;
                    if let Some(v) = self.as_of(at, answer.head, space, &key, now)? {
                        found(i, &key, &v)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// A range of an ordered group as of `at`, a page per round trip.
    pub(super) fn range_at(
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
                reverse: false,
            }])?;
            let Some(answer) = answers.into_iter().next() else {
                return Ok(());
            };
            let (now, full) = Self::range_page(answer.value)?;
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

    /// A range of an ordered group as of `at`, in descending order, a page per round trip.
    pub(super) fn reverse_range_at(
        &self,
        at: u64,
        space: Space,
        (z, h): (&[u8], &[u8]),
        (start, end): (&[u8], Option<&[u8]>),
        each: &mut Each<'_>,
    ) -> Result<()> {
        let min = [b"[".as_slice(), start].concat();
        let mut upper: Option<Vec<u8>> = end.map(<[u8]>::to_vec);
        loop {
            let max = match &upper {
                Some(e) => [b"(".as_slice(), e].concat(),
                None => b"+".to_vec(),
            };
            let answers = self.read(&[Read::Range {
                z: z.to_vec(),
                h: h.to_vec(),
                min: min.clone(),
                max,
                limit: RANGE_PAGE,
                reverse: true,
            }])?;
            let Some(answer) = answers.into_iter().next() else {
                return Ok(());
            };
            let (now, full) = Self::range_page(answer.value)?;
            // This page covers [its smallest member, upper) (or from `start` when not full).
            let low = match (full, now.last()) {
                (true, Some((last, _))) => last.clone(),
                _ => start.to_vec(),
            };
            let entries =
                self.patch_range(at, answer.head, space, (&low, upper.as_deref()), now)?;
            for (k, v) in entries.iter().rev() {
                if !each(k, v)? {
                    return Ok(());
                }
            }
            if !full {
                return Ok(());
            }
            upper = Some(low);
        }
    }

    /// The members and values of a range read, and whether the page is full.
    fn range_page(value: Value) -> Result<(Entries, bool)> {
        let mut parts = array(value)?.into_iter();
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
        Ok((now, full))
    }

    /// Every Redis key matching `pattern`, from `SCAN` on each master.
    pub(super) fn scan_keys(&self, pattern: &str) -> Result<Vec<Vec<u8>>> {
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
}

/// The error of an adjacency reply that does not decode.
fn malformed(id: u64) -> EngineError {
    fail(
        BackendErrorKind::Other,
        format!("node {id}: a malformed adjacency reply"),
    )
}

/// Decodes the `a` read's string (per entry: the field's length as u16 and the value's as
/// u32, big-endian, then the field and the value) into boundary keys of node `id` and values.
fn packed_entries(id: u64, packed: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
    Some(
        packed_fields(packed)?
            .into_iter()
            .map(|(field, value)| (Layout::edge_key(id, field), value.to_vec()))
            .collect(),
    )
}

/// The (field, value) entries of a packed `a` reply (see [`packed_entries`]), borrowed from it,
/// in the order the server listed them.
fn packed_fields(mut rest: &[u8]) -> Option<Vec<(&[u8], &[u8])>> {
    let mut out = Vec::new();
    while !rest.is_empty() {
        let f = usize::from(u16::from_be_bytes(rest.get(..2)?.try_into().ok()?));
        let v = u32::from_be_bytes(rest.get(2..6)?.try_into().ok()?) as usize;
        let field = rest.get(6..6 + f)?;
        let value = rest.get(6 + f..6 + f + v)?;
        out.push((field, value));
        rest = rest.get(6 + f + v..)?;
    }
    Some(out)
}

/// Reads of one committed sequence (a snapshot).
pub(super) struct View<'a> {
    storage: &'a RedisStorage,
    at: u64,
}

impl<'a> View<'a> {
    /// The reads of `storage` as of commit `at`.
    pub(super) fn at(storage: &'a RedisStorage, at: u64) -> View<'a> {
        View { storage, at }
    }
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
    fn multi_read(&self, reads: &[Wanted<'_>], found: &mut FoundIn<'_>) -> Result<()> {
        self.storage.multi_read_at(self.at, reads, found)
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
    fn multi_read(&self, reads: &[Wanted<'_>], found: &mut FoundIn<'_>) -> Result<()> {
        self.multi_read_at(self.view.load(Ordering::SeqCst), reads, found)
    }
}
